// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - rectangles glued from items (--strategy search).
 *
 * Two items live over the same interval can be stacked into one item of
 * their summed size, and two items of the same size, one live right after
 * the other ends, can be chained into one live over both intervals.  A
 * placement of the glued items is a placement of the items: each item at
 * its rectangle's address plus its offset in it, the bytes it covers at
 * each time exactly its own.  Gluing only restricts, so the glued problem
 * can end higher than the items' best, never lower, and the search keeps
 * it only as one more candidate.  It helps where the items tile, as the
 * tensors of one layer or a buffer reused from op to op do (and the
 * guillotine packings of bench-quality do by construction): the glued
 * problem has a fraction of the items, and the exact search reaches far
 * more of it.
 *
 * Rounds until nothing glues (at most DP_GLUE_ROUNDS, and while the
 * rectangles sorted so far are at most DP_GLUE_WORK x n), chains first
 * under DP_GLUE_ALL and DP_GLUE_LONG: a round chains each rectangle, in
 * item order, with the first one not yet glued in the round of its size
 * and alignment that starts right after its end; only a round that finds
 * no chain stacks instead, every group of rectangles with the same
 * interval becoming one, in item order.
 * Each glue takes its rectangles out of the other: an item stacked with a
 * stranger no longer has the size its other half (the item after it)
 * waits for, and an item chained by chance no longer has the interval of
 * the items it should stack with.  Which is the coincidence depends on
 * the input, so the search tries both orders.  On the benchmark's
 * packings a chain is rarely wrong (an item of the same size starting
 * right where another ends is mostly its other half) and a stack often
 * is: over 24 packings of 10,000, stacks first ended 1.071 x the optimum
 * on average, chains first 1.055.  On MiniMalloc's F and I, real traces
 * where many buffers of one size follow each other, chains first left no
 * placement within 1 MiB, and stacks first (DP_GLUE_STACKS_FIRST: each
 * round stacks, then chains what is left) reaches the bound.  Under
 * DP_GLUE_LONG only rectangles live longer than the median item (of those
 * that glue) stack: on the benchmark's packings a stack of items live 1-3
 * times is wrong about half the time, one of items live over 40 times
 * about 3 % (wrong: in the packing their generator built, items between
 * them are live outside their interval).  Only
 * items with one interval, whose size is a multiple of their alignment
 * and (with the page rule on) above a page, glue: their offsets in a
 * rectangle keep their alignment, and the page rule never applies to
 * them.
 */
#include <errno.h>
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"

#define DP_GLUE_ROUNDS	64
/* rectangles sorted in all rounds, at most this many times the items: an
 * input that glues a pair a round stops after about 16 rounds (the
 * benchmark's packings sort 3-4 n in all) */
#define DP_GLUE_WORK	16

/* a rectangle: its interval, size, alignment; sort key for the rounds */
struct rect {
	uint64_t lo, hi, size, align;
	uint32_t i;		/* its index among the rectangles */
	uint32_t src;		/* the item it is, UINT32_MAX: glued */
	uint8_t ok;		/* may glue */
};

static int cmp_stack(const void *x, const void *y)
{
	const struct rect *p = x, *q = y;

	return dp_cmp(q->ok, p->ok) ?: dp_cmp(p->lo, q->lo) ?:
	       dp_cmp(p->hi, q->hi) ?: dp_cmp(p->align, q->align) ?:
	       dp_cmp(p->i, q->i);
}

static int cmp_chain(const void *x, const void *y)
{
	const struct rect *p = x, *q = y;

	return dp_cmp(q->ok, p->ok) ?: dp_cmp(p->lo, q->lo) ?:
	       dp_cmp(p->size, q->size) ?: dp_cmp(p->align, q->align) ?:
	       dp_cmp(p->i, q->i);
}

static int glues(const struct dp_item *it, uint64_t page)
{
	return it->iv_count == 1 && it->align && !(it->size % it->align) &&
	       (!page || it->size > page);
}

/* the first of r[0..k) (sorted by cmp_chain) not below *key */
static struct rect *lower_bound(const struct rect *key, struct rect *r,
				size_t k)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_chain(&r[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return r + lo;
}

/* Which glue a round makes: both, stacks and then chains of what is
 * left, is DP_GLUE_STACKS_FIRST's round */
enum glue_kind { GLUE_STACKS = 1, GLUE_CHAINS = 2 };

/* One round of kind over r[0..k): into[j] the rectangle j goes to, at[j]
 * its offset in it; the new rectangles in nr[], *nk of them.  Returns
 * whether anything glued. */
static int round_of(struct rect *r, size_t k, struct rect *nr, size_t *nk,
		    uint32_t *into, uint64_t *at, uint8_t *used, uint64_t wide,
		    enum glue_kind kind)
{
	size_t a, b, m = 0;
	int any = 0;

	for (a = 0; a < k; a++)
		used[a] = 0;
	qsort(r, k, sizeof(*r), kind & GLUE_STACKS ? cmp_stack : cmp_chain);
	for (a = 0; (kind & GLUE_STACKS) && a < k && r[a].ok; a = b) {
		uint64_t sum = r[a].size;

		for (b = a + 1; b < k && r[b].ok && r[b].lo == r[a].lo &&
		     r[b].hi == r[a].hi && r[b].align == r[a].align &&
		     sum + r[b].size >= sum; b++)
			sum += r[b].size;
		if (b - a < 2 || r[a].hi - r[a].lo < wide)
			continue;
		nr[m] = (struct rect){ r[a].lo, r[a].hi, 0, r[a].align,
				       (uint32_t)m, UINT32_MAX, 1 };
		for (; a < b; a++) {
			into[r[a].i] = (uint32_t)m;
			at[r[a].i] = nr[m].size;
			nr[m].size += r[a].size;
			used[r[a].i] = 1;
		}
		m++;
		any = 1;
	}
	if (kind == (GLUE_STACKS | GLUE_CHAINS))
		qsort(r, k, sizeof(*r), cmp_chain);
	for (a = 0; (kind & GLUE_CHAINS) && a < k && r[a].ok; a++) {
		struct rect key = r[a], *y;

		if (used[r[a].i] || r[a].hi == UINT64_MAX)
			continue;
		key.lo = r[a].hi + 1;
		key.i = 0;
		y = lower_bound(&key, r, k);
		for (; y < r + k && y->ok && y->lo == key.lo &&
		     y->size == key.size && y->align == key.align; y++) {
			if (used[y->i])
				continue;
			nr[m] = (struct rect){ r[a].lo, y->hi, r[a].size,
					       r[a].align, (uint32_t)m, UINT32_MAX,
					       1 };
			into[r[a].i] = into[y->i] = (uint32_t)m;
			at[r[a].i] = at[y->i] = 0;
			used[r[a].i] = used[y->i] = 1;
			m++;
			any = 1;
			break;
		}
	}
	for (a = 0; a < k; a++) {
		if (used[r[a].i])
			continue;
		nr[m] = r[a];
		nr[m].i = (uint32_t)m;
		into[r[a].i] = (uint32_t)m;
		at[r[a].i] = 0;
		m++;
	}
	*nk = m;
	return any;
}

/* The stacks' shortest span (hi - lo) under rule: 0 (any), or one
 * above the median of the items that glue (DP_GLUE_LONG). */
static uint64_t stack_span(const struct rect *r, size_t n, int rule,
			   uint64_t *w)
{
	size_t i, m = 0;

	if (rule != DP_GLUE_LONG)
		return 0;
	for (i = 0; i < n; i++)
		if (r[i].ok)
			w[m++] = r[i].hi - r[i].lo;
	if (!m)
		return 0;
	qsort(w, m, sizeof(*w), dp_cmp_u64);
	return w[m / 2] + 1;
}

int dp_glue(const struct dp_item *it, size_t n, const struct dp_iv *iv,
	    uint64_t page, int rule, struct dp_glued *g)
{
	return dp_glue_rounds(it, n, iv, page, rule, DP_GLUE_ROUNDS, g);
}

int dp_glue_rounds(const struct dp_item *it, size_t n,
		   const struct dp_iv *iv, uint64_t page, int rule,
		   size_t max_rounds, struct dp_glued *g)
{
	struct rect *r = dp_realloc_array(NULL, n + 1, sizeof(*r));
	struct rect *nr = dp_realloc_array(NULL, n + 1, sizeof(*nr));
	uint32_t *into = dp_realloc_array(NULL, n + 1, sizeof(*into));
	uint64_t *at = dp_realloc_array(NULL, n + 1, sizeof(*at));
	uint8_t *used = dp_realloc_array(NULL, n + 1, sizeof(*used));
	size_t i, k = n, niv = 0, rounds, work = 0;
	uint64_t wide;
	int rc = -ENOMEM;

	*g = (struct dp_glued){ 0 };
	g->node = dp_realloc_array(NULL, n + 1, sizeof(*g->node));
	g->off = dp_realloc_array(NULL, n + 1, sizeof(*g->off));
	if (!r || !nr || !into || !at || !used || !g->node || !g->off)
		goto out;
	for (i = 0; i < n; i++)
		if ((size_t)it[i].iv_first + it[i].iv_count > niv)
			niv = (size_t)it[i].iv_first + it[i].iv_count;
	for (i = 0; i < n; i++) {
		const struct dp_iv *x = &iv[it[i].iv_first];
		/* a rectangle's interval is numbered after the items' */
		int ok = glues(&it[i], page) && niv + n < UINT32_MAX;

		r[i] = (struct rect){ ok ? x->lo : 0, ok ? x->hi : 0,
				      it[i].size, it[i].align, (uint32_t)i,
				      (uint32_t)i, (uint8_t)ok };
		g->node[i] = (uint32_t)i;
		g->off[i] = 0;
	}
	wide = stack_span(r, n, rule, at);	/* at[]: scratch until the rounds */
	if (max_rounds > DP_GLUE_ROUNDS)
		max_rounds = DP_GLUE_ROUNDS;
	for (rounds = 0; rounds < max_rounds && work <= DP_GLUE_WORK * n;
	     rounds++) {
		struct rect *t;

		work += k;
		if (rule == DP_GLUE_STACKS_FIRST) {
			work += k;	/* sorted twice */
			if (!round_of(r, k, nr, &k, into, at, used, wide,
				      GLUE_STACKS | GLUE_CHAINS))
				break;
		} else if (!round_of(r, k, nr, &k, into, at, used, wide,
				      GLUE_CHAINS)) {
			work += k;	/* nothing glued: r[] is as it was */
			if (!round_of(r, k, nr, &k, into, at, used, wide,
				      GLUE_STACKS))
				break;
		}
		for (i = 0; i < n; i++) {
			g->off[i] += at[g->node[i]];
			g->node[i] = into[g->node[i]];
		}
		t = r;
		r = nr;
		nr = t;
	}
	g->k = k;
	g->rounds = rounds;
	g->it = dp_realloc_array(NULL, k + 1, sizeof(*g->it));
	g->iv = dp_realloc_array(NULL, niv + k + 1, sizeof(*g->iv));
	if (!g->it || !g->iv)
		goto out;
	for (i = 0; i < niv; i++)
		g->iv[i] = iv[i];
	for (i = 0; i < k; i++) {
		const struct rect *x = &r[i];

		if (x->src != UINT32_MAX) {
			g->it[x->i] = it[x->src];
			continue;
		}
		g->iv[niv] = (struct dp_iv){ x->lo, x->hi };
		g->it[x->i] = (struct dp_item){ .size = x->size,
						.align = x->align,
						.iv_first = (uint32_t)niv++,
						.iv_count = 1 };
	}
	rc = 0;
out:
	DP_FREE(r, nr, into, at, used);
	if (rc)
		dp_glued_free(g);
	return rc;
}

void dp_glued_free(struct dp_glued *g)
{
	DP_FREE(g->it, g->iv, g->node, g->off);
	*g = (struct dp_glued){ 0 };
}

void dp_unglue(const struct dp_glued *g, struct dp_item *it, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		it[i].addr = g->it[g->node[i]].addr + g->off[i];
}
