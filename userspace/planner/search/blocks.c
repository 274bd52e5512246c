// SPDX-License-Identifier: GPL-2.0
/*
 * blocks.c - independent time blocks of --strategy search.  A time that no
 * item's hull (its first to its last live time) spans, with items on both
 * sides of it, cuts a placement into two that share nothing: no item of
 * one side is live at a time of the other, so each side can be placed in
 * the whole region on its own and the end is the higher of the two.  The
 * driver solves each block alone: the exact search runs on every block of
 * up to its 3,000 items even when the whole is larger, the other phases
 * spend their budgets on the block that decides the end, and a block that
 * only has to reach another's end stops there.  Here the cut, the order
 * the blocks are solved in (hardest first) and their stats summed.
 *
 * Intervals are closed (struct dp_iv): items whose hulls are [a, b] and
 * [b + 1, c] do not overlap, so a cut falls between b and b + 1.
 */
#include <errno.h>
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"

/* The hulls of the items that have an interval, by first live time; *m of
 * them.  NULL when out of memory. */
static struct dp_span *hulls(const struct dp_item *it, size_t n,
			     const struct dp_iv *iv, size_t *m)
{
	struct dp_span *h = dp_realloc_array(NULL, n + 1, sizeof(*h));
	size_t i;

	if (!h)
		return NULL;
	*m = 0;
	for (i = 0; i < n; i++) {
		if (!it[i].iv_count)
			continue;
		h[*m].i = i;
		dp_item_hull(&it[i], iv, &h[*m].lo, &h[*m].hi);
		(*m)++;
	}
	qsort(h, *m, sizeof(*h), dp_cmp_span);
	return h;
}

int dp_time_blocks(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		   size_t min, uint32_t *blk, size_t *nb)
{
	size_t m, j, cnt = 0;
	struct dp_span *h = hulls(it, n, iv, &m);
	uint32_t b = 0;
	uint64_t hi = 0;

	if (!h)
		return -ENOMEM;
	/* an item live nowhere overlaps nothing: the first block takes it */
	for (j = 0; j < n; j++)
		blk[j] = 0;
	for (j = 0; j < m; j++) {
		/* a cut only where every item before it has ended, and only
		 * after min items: tiny blocks are not worth their overhead */
		if (cnt >= min && h[j].lo > hi) {
			b++;
			cnt = 0;
		}
		if (!cnt || h[j].hi > hi)
			hi = h[j].hi;
		blk[h[j].i] = b;
		cnt++;
	}
	/* a last block below min joins the one before (still independent of
	 * the rest) */
	if (b && cnt < min) {
		for (j = m; j-- > 0 && blk[h[j].i] == b;)
			blk[h[j].i] = b - 1;
		b--;
	}
	*nb = (size_t)b + 1;
	free(h);
	return 0;
}

/* hardest first: the highest lower bound, then the most items; a block
 * that can only reach the end of one before it stops there */
static int cmp_tblock(const void *x, const void *y)
{
	const struct dp_tblock *p = x, *q = y;

	return dp_cmp(q->lb, p->lb) ?: dp_cmp(q->n, p->n) ?:
	       dp_cmp(p->first, q->first);
}

int dp_blocks_group(const struct dp_problem *p, const uint32_t *bid,
		    size_t nb, struct dp_item *sub, uint32_t *map,
		    struct dp_tblock *B)
{
	const struct dp_item *it = p->it;
	size_t i, b, at = 0, n = p->n;

	for (b = 0; b < nb; b++)
		B[b] = (struct dp_tblock){ .first = 0, .n = 0, .lb = 0 };
	for (i = 0; i < n; i++)
		B[bid[i]].n++;
	for (b = 0; b < nb; b++) {
		B[b].first = at;
		at += B[b].n;
		B[b].n = 0;
	}
	for (i = 0; i < n; i++) {
		struct dp_tblock *t = &B[bid[i]];

		map[t->first + t->n] = i;
		sub[t->first + t->n++] = it[i];
	}
	for (b = 0; b < nb; b++) {
		if (dp_lower_bound_r(sub + B[b].first, B[b].n, p->iv,
				     &B[b].lb))
			return -ENOMEM;
		B[b].lb += p->start;
	}
	qsort(B, nb, sizeof(*B), cmp_tblock);
	return 0;
}

/* Costs summed, the bound and the ends the highest; the outcome (pass,
 * proof, why not searched) that of the first block to reach the highest
 * end, or of the block that failed. */
void dp_blocks_merge(struct dp_search_stats *st,
		     const struct dp_search_stats *bs, int r)
{
	st->nodes += bs->nodes;
	st->work += bs->work;
	st->lns += bs->lns;
	st->budget += bs->budget;
	st->searched |= bs->searched;
	st->built |= bs->built;
	if (bs->lower_bound > st->lower_bound)
		st->lower_bound = bs->lower_bound;
	if (bs->seed_end > st->seed_end)
		st->seed_end = bs->seed_end;
	if (bs->portfolio_end > st->portfolio_end)
		st->portfolio_end = bs->portfolio_end;
	if (r || bs->end > st->end || !st->how) {
		st->end = r ? UINT64_MAX : bs->end;
		st->how = bs->how;
		st->proven = bs->proven;
		st->skipped = bs->skipped;
	}
}

