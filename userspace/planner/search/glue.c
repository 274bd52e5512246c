// SPDX-License-Identifier: GPL-2.0
/*
 * glue.c - rectangles glued from items (--strategy search).
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
 * Rounds until nothing glues (at most par->glue_rounds, and while the
 * rectangles sorted so far are at most par->glue_work x n), chains first
 * under DP_GLUE_ALL and DP_GLUE_LONG: a round chains each rectangle, in
 * item order, with the first one not yet glued in the round of its size
 * and alignment that starts right after its end; only a round that finds
 * no chain stacks instead, every group of rectangles with the same
 * interval becoming one, in item order.
 * Each glue takes its rectangles out of the other: an item stacked with a
 * stranger no longer has the size its other half (the item after it)
 * waits for, and an item chained by chance no longer has the interval of
 * the items it should stack with.  Which is the coincidence depends on
 * the input, so the search tries both orders: DP_GLUE_STACKS_FIRST
 * (each round stacks, then chains what is left) beside chains first.
 * Under DP_GLUE_LONG only rectangles live longer than the median item (of
 * those that glue) stack: a stack of items live a long time is less often
 * a coincidence than one of items live a short time.
 * DP_GLUE_FEWEST orders the glues by how ambiguous they are instead of by
 * kind: each rectangle counts the others it could glue with (chain at
 * either end, or stack), and a round glues only the pairs whose two
 * counts sum lowest.  A pair with no alternative glues first, and a
 * choice waits until the glues around it have settled it or nothing less
 * ambiguous is left.  DP_GLUE_FEWEST_CHAINS counts a stack one more (a
 * chain wins a tie, and a stack needs a clearer case).  The two end on
 * different packings for small reasons, as every rule does, so each is
 * one more candidate.  It takes more rounds (at most n, and while the
 * rectangles walked are at most par->glue_fewest_work x n), so it keeps
 * its rectangles in order across rounds instead of sorting them again.  Only
 * items with one interval, whose size is a multiple of their alignment
 * and (with the page rule on) above a page, glue: their offsets in a
 * rectangle keep their alignment, and the page rule never applies to
 * them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

/* a rectangle: its interval, size, alignment; sort key for the rounds */
struct rect {
	uint64_t lo, hi, size, align;
	uint32_t i;		/* its index among the rectangles */
	uint32_t src;		/* the item it is, UINT32_MAX: glued */
	uint8_t ok;		/* may glue */
	uint64_t id;		/* DP_GLUE_FEWEST's tie-break: when it was made */
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

/* One glue round's state: the rectangles r[0..k), the next round's nr[]
 * (and k, once it glued), into[] and at[] as the round fills them, the
 * work so far */
struct fewest;
struct glue_round {
	struct rect *r, *nr;
	size_t k;
	uint32_t *into;
	uint64_t *at;
	uint8_t *used;
	uint64_t wide;
	struct fewest *f;
	size_t work;
};

/* One round of kind over R->r[0..k): into[j] the rectangle j goes to,
 * at[j] its offset in it; the new rectangles in nr[], R->k of them after.
 * Returns whether anything glued. */
static int round_of(struct glue_round *R, enum glue_kind kind)
{
	struct rect *r = R->r, *nr = R->nr;
	uint32_t *into = R->into;
	uint64_t *at = R->at, wide = R->wide;
	uint8_t *used = R->used;
	size_t a, b, m = 0, k = R->k;
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
		nr[m] = (struct rect){ .lo = r[a].lo, .hi = r[a].hi,
				       .size = 0, .align = r[a].align,
				       .i = (uint32_t)m, .src = UINT32_MAX,
				       .ok = 1, .id = 0 };
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
			nr[m] = (struct rect){ .lo = r[a].lo, .hi = y->hi,
					       .size = r[a].size,
					       .align = r[a].align,
					       .i = (uint32_t)m,
					       .src = UINT32_MAX, .ok = 1,
					       .id = 0 };
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
	R->k = m;
	return any;
}

/*
 * DP_GLUE_FEWEST keeps the glueable rectangles in three orders across its
 * rounds (by start, by end, by interval; ties by the order they were made
 * in, which never changes), so a round is linear in the rectangles: it
 * drops those that glued and merges the new ones in.  The same sort key
 * (start, size, alignment; or end, ...; or interval) is a run.
 */
enum { BY_START, BY_END, BY_IV, ORDERS };

static int cmp_key(const struct rect *p, const struct rect *q, int by)
{
	switch (by) {
	case BY_START:
		return dp_cmp(p->lo, q->lo) ?: dp_cmp(p->size, q->size) ?:
		       dp_cmp(p->align, q->align);
	case BY_END:
		return dp_cmp(p->hi, q->hi) ?: dp_cmp(p->size, q->size) ?:
		       dp_cmp(p->align, q->align);
	default:
		return dp_cmp(p->lo, q->lo) ?: dp_cmp(p->hi, q->hi) ?:
		       dp_cmp(p->align, q->align);
	}
}

static int cmp_by(const struct rect *p, const struct rect *q, int by)
{
	return cmp_key(p, q, by) ?: dp_cmp(p->id, q->id);
}

static int cmp_start(const void *x, const void *y)
{
	return cmp_by(x, y, BY_START);
}

static int cmp_end(const void *x, const void *y)
{
	return cmp_by(x, y, BY_END);
}

static int cmp_iv(const void *x, const void *y)
{
	return cmp_by(x, y, BY_IV);
}

static int (*const cmp_order[ORDERS])(const void *, const void *) = {
	cmp_start, cmp_end, cmp_iv
};

/* a DP_GLUE_FEWEST glue's state; arrays of n + 1 */
struct fewest {
	uint32_t *o[ORDERS];	/* the glueable rectangles' indices, ordered */
	uint32_t *tmp;		/* merge scratch */
	struct rect *fresh;	/* the new rectangles, sorted */
	uint32_t *amb;		/* by rectangle: how many it could glue with */
	uint32_t *run;		/* by by-end position: the matching start run */
	size_t k;		/* entries in each o[] */
	uint64_t born;		/* the next new rectangle's id */
	uint32_t pen;		/* added to a stack's score */
};

static uint32_t sat_add(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* the end of the run of o[] (order by) starting at a, within k */
static size_t run_end(const struct rect *r, const uint32_t *o, size_t a,
		      size_t k, int by)
{
	size_t b;

	for (b = a + 1; b < k && !cmp_key(&r[o[b]], &r[o[a]], by); b++)
		;
	return b;
}

/* the lowest count in o[a..b), and the second lowest in *second */
static uint32_t lowest(const uint32_t *amb, const uint32_t *o, size_t a,
		       size_t b, uint32_t *second)
{
	uint32_t l1 = UINT32_MAX, l2 = UINT32_MAX;

	for (; a < b; a++) {
		uint32_t v = amb[o[a]];

		if (v < l1) {
			l2 = l1;
			l1 = v;
		} else if (v < l2) {
			l2 = v;
		}
	}
	if (second)
		*second = l2;
	return l1;
}

/* Each by-end run's matching by-start run (the rectangles a chain from it
 * continues with: starting right after its end, same size and alignment):
 * f->run[e] its first position, f->k when none, at the run's first e. */
static void match_runs(const struct rect *r, struct fewest *f)
{
	const uint32_t *oe = f->o[BY_END], *os = f->o[BY_START];
	size_t e, b, s = 0;

	for (e = 0; e < f->k; e = b) {
		struct rect key = r[oe[e]];

		b = run_end(r, oe, e, f->k, BY_END);
		f->run[e] = (uint32_t)f->k;
		if (key.hi == UINT64_MAX)
			continue;
		key.lo = key.hi + 1;
		while (s < f->k && cmp_key(&r[os[s]], &key, BY_START) < 0)
			s++;
		if (s < f->k && !cmp_key(&r[os[s]], &key, BY_START))
			f->run[e] = (uint32_t)s;
	}
}

/* the rectangles of new numbering nr[0..nk) in each order: those of o[]
 * that did not glue (renumbered by into[]) merged with the m new ones */
static void reorder(struct fewest *f, const struct rect *nr, size_t m,
		    const uint32_t *into, const uint8_t *used)
{
	size_t a, b, c, j, by;

	for (by = 0; by < ORDERS; by++) {
		uint32_t *o = f->o[by];

		for (a = 0, j = 0; a < f->k; a++)
			if (!used[o[a]])
				f->tmp[j++] = into[o[a]];
		memcpy(f->fresh, nr, m * sizeof(*nr));
		qsort(f->fresh, m, sizeof(*nr), cmp_order[by]);
		for (a = 0, b = 0, c = 0; a < j || b < m; c++)
			if (b == m || (a < j && cmp_by(&nr[f->tmp[a]],
						       &f->fresh[b], (int)by) < 0))
				o[c] = f->tmp[a++];
			else
				o[c] = f->fresh[b++].i;
	}
	f->k -= m;	/* each new one glued two */
}

/* p and q glued into nr[m] (stacked: q on top of p; else chained, q
 * after p); returns m + 1 */
static size_t pair(const struct rect *p, const struct rect *q, int stack,
		   const struct glue_round *R, size_t m)
{
	R->nr[m] = (struct rect){ .lo = p->lo, .hi = stack ? p->hi : q->hi,
				  .size = stack ? p->size + q->size : p->size,
				  .align = p->align, .i = (uint32_t)m,
				  .src = UINT32_MAX, .ok = 1,
				  .id = R->f->born++ };
	R->into[p->i] = R->into[q->i] = (uint32_t)m;
	R->at[p->i] = 0;
	R->at[q->i] = stack ? p->size : 0;
	R->used[p->i] = R->used[q->i] = 1;
	return m + 1;
}

/* Each rectangle's partners counted into f->amb[] (those it could chain
 * with at either end, and those with its interval); used[] cleared. */
static void count_partners(const struct rect *r, size_t k, uint8_t *used,
			   struct fewest *f)
{
	const uint32_t *oe = f->o[BY_END], *os = f->o[BY_START];
	const uint32_t *og = f->o[BY_IV];
	size_t a, b, c, x;

	for (a = 0; a < k; a++) {
		used[a] = 0;
		f->amb[a] = 0;
	}
	match_runs(r, f);
	for (a = 0; a < f->k; a = b) {
		b = run_end(r, oe, a, f->k, BY_END);
		if (f->run[a] == f->k)
			continue;
		c = run_end(r, os, f->run[a], f->k, BY_START);
		for (x = a; x < b; x++)
			f->amb[oe[x]] += (uint32_t)(c - f->run[a]);
		for (x = f->run[a]; x < c; x++)
			f->amb[os[x]] += (uint32_t)(b - a);
	}
	for (a = 0; a < f->k; a = b) {
		b = run_end(r, og, a, f->k, BY_IV);
		for (x = a; x < b; x++)
			f->amb[og[x]] += (uint32_t)(b - a - 1);
	}
}

/* The lowest score of a pair (its two counts summed, a stack's plus
 * f->pen); UINT32_MAX when no pair glues. */
static uint32_t lowest_score(const struct rect *r, const struct fewest *f)
{
	const uint32_t *oe = f->o[BY_END], *os = f->o[BY_START];
	const uint32_t *og = f->o[BY_IV];
	uint32_t best = UINT32_MAX, l1, l2;
	size_t a, b, c, x;

	for (a = 0; a < f->k; a = b) {
		b = run_end(r, oe, a, f->k, BY_END);
		if (f->run[a] == f->k)
			continue;
		c = run_end(r, os, f->run[a], f->k, BY_START);
		x = sat_add(lowest(f->amb, oe, a, b, NULL),
			    lowest(f->amb, os, f->run[a], c, NULL));
		best = x < best ? (uint32_t)x : best;
	}
	for (a = 0; a < f->k; a = b) {
		b = run_end(r, og, a, f->k, BY_IV);
		l1 = lowest(f->amb, og, a, b, &l2);
		x = sat_add(sat_add(l1, l2), f->pen);
		best = b - a > 1 && x < best ? (uint32_t)x : best;
	}
	return best;
}

/* The chains at score best glued into nr[] from m on, disjoint, by end:
 * the new count. */
static size_t chains_at(const struct glue_round *R, size_t m,
			uint32_t best)
{
	const struct rect *r = R->r;
	const uint8_t *used = R->used;
	const struct fewest *f = R->f;
	const uint32_t *oe = f->o[BY_END], *os = f->o[BY_START];
	uint32_t l1, l2;
	size_t a, b, c, x;

	for (a = 0; a < f->k; a = b) {
		size_t s0 = f->run[a], s1;

		b = run_end(r, oe, a, f->k, BY_END);
		if (s0 == f->k)
			continue;
		s1 = run_end(r, os, s0, f->k, BY_START);
		l1 = lowest(f->amb, oe, a, b, NULL);
		l2 = lowest(f->amb, os, s0, s1, NULL);
		if (sat_add(l1, l2) != best)
			continue;
		for (c = a, x = s0; c < b; c++) {
			const struct rect *p = &r[oe[c]];

			if (used[p->i] || f->amb[p->i] != l1)
				continue;
			while (x < s1 && (used[os[x]] || f->amb[os[x]] != l2))
				x++;
			if (x == s1)
				break;
			m = pair(p, &r[os[x]], 0, R, m);
		}
	}
	return m;
}

/* The stacks at score best glued into nr[] from m on, disjoint, by
 * interval: the new count. */
static size_t stacks_at(const struct glue_round *R, size_t m,
			uint32_t best)
{
	const struct fewest *f = R->f;
	const uint32_t *og = f->o[BY_IV];
	const struct rect *r = R->r;
	size_t a, b, c, x;
	uint32_t l1, l2;

	for (a = 0; a < f->k; a = b) {
		b = run_end(r, og, a, f->k, BY_IV);
		l1 = lowest(f->amb, og, a, b, &l2);
		if (b - a < 2 || sat_add(sat_add(l1, l2), f->pen) != best)
			continue;
		/* l1 < l2: one has l1, and it goes with the first of l2;
		 * else those with l1 go in pairs, in order */
		for (c = a, x = a; c < b; c++) {
			const struct rect *p = &r[og[c]];

			if (R->used[p->i] || f->amb[p->i] != l1)
				continue;
			if (l1 == l2 && x <= c)
				x = c + 1;
			while (x < b && (x == c || R->used[og[x]] ||
					 f->amb[og[x]] != l2))
				x++;
			if (x == b)
				break;
			if (p->size + r[og[x]].size < p->size)
				continue;	/* wraps: no stack */
			/* the one made first at the bottom */
			if (x < c)
				m = pair(&r[og[x]], p, 1, R, m);
			else
				m = pair(p, &r[og[x]], 1, R, m);
		}
	}
	return m;
}

/*
 * One DP_GLUE_FEWEST round over R->r[0..k) (r[x].i == x): each rectangle
 * counts its partners (those it could chain with at either end and those
 * with its interval), a pair's score is its two counts summed, and every
 * pair at the lowest score glues (disjoint pairs: chains by end, then
 * stacks by interval, each in order).
 * The pairs with no alternative glue first, and an ambiguous one only
 * when nothing less ambiguous is left, by which time the glues around it
 * may have settled it.  Fills R->nr[], into[], at[] and k as round_of
 * does; nr[] keeps r[]'s property and f->o[] its orders.
 */
static int round_fewest(struct glue_round *R)
{
	struct rect *r = R->r, *nr = R->nr;
	uint32_t *into = R->into;
	uint64_t *at = R->at;
	uint8_t *used = R->used;
	struct fewest *f = R->f;
	size_t a, c, m, k = R->k;
	uint32_t best;

	count_partners(r, k, used, f);
	best = lowest_score(r, f);
	if (best == UINT32_MAX)
		return 0;
	/* a pair scores best only when both have their run's lowest count */
	m = chains_at(R, 0, best);
	m = stacks_at(R, m, best);
	if (!m)
		return 0;
	for (a = 0, c = m; a < k; a++) {
		if (used[a])
			continue;
		nr[c] = r[a];
		nr[c].i = (uint32_t)c;
		into[a] = (uint32_t)c;
		at[a] = 0;
		c++;
	}
	reorder(f, nr, m, into, used);
	R->k = c;
	return 1;
}

/* f's orders of r[0..n) (r[x].i == x, ids the items'), from scratch */
static void order_all(const struct rect *r, size_t n, struct fewest *f)
{
	size_t a, by;

	for (by = 0; by < ORDERS; by++) {
		size_t j = 0;

		for (a = 0; a < n; a++)
			if (r[a].ok)
				f->fresh[j++] = r[a];
		qsort(f->fresh, j, sizeof(*r), cmp_order[by]);
		for (a = 0; a < j; a++)
			f->o[by][a] = f->fresh[a].i;
		f->k = j;
	}
	f->born = n;
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

int dp_glue(const struct dp_problem *p, const struct dp_search_params *par,
	    int rule, struct dp_glued *g)
{
	return dp_glue_rounds(p, par, rule, SIZE_MAX, g);
}

/* By kind: the chains, or when there is none the stacks */
static int round_kinds(struct glue_round *R)
{
	if (round_of(R, GLUE_CHAINS))
		return 1;
	R->work += R->k;	/* nothing glued: r[] is as it was */
	return round_of(R, GLUE_STACKS);
}

/* Stacks, then chains of what is left */
static int round_stacks_first(struct glue_round *R)
{
	R->work += R->k;	/* sorted twice */
	return round_of(R, GLUE_STACKS | GLUE_CHAINS);
}

/* The rules, by DP_GLUE_* number: a round of each, and whether it glues
 * by the counts of struct fewest (pen: added to a stack's score) */
static const struct glue_rule {
	int (*round)(struct glue_round *R);
	int fewest;
	uint32_t pen;
} glue_rules[DP_GLUE_RULES] = {
	[DP_GLUE_ALL] = { .round = round_kinds },
	[DP_GLUE_LONG] = { .round = round_kinds },
	[DP_GLUE_STACKS_FIRST] = { .round = round_stacks_first },
	[DP_GLUE_FEWEST] = { .round = round_fewest, .fewest = 1 },
	[DP_GLUE_FEWEST_CHAINS] = { .round = round_fewest,
				    .fewest = 1, .pen = 1 },
};

/* f's arrays for n items; 0, or -ENOMEM (dp_glue_rounds frees them) */
static int fewest_alloc(struct fewest *f, size_t n)
{
	size_t i;

	for (i = 0; i < ORDERS; i++)
		f->o[i] = dp_realloc_array(NULL, n + 1, sizeof(*f->o[i]));
	f->tmp = dp_realloc_array(NULL, n + 1, sizeof(*f->tmp));
	f->fresh = dp_realloc_array(NULL, n + 1, sizeof(*f->fresh));
	f->amb = dp_realloc_array(NULL, n + 1, sizeof(*f->amb));
	f->run = dp_realloc_array(NULL, n + 1, sizeof(*f->run));
	if (!f->o[BY_START] || !f->o[BY_END] || !f->o[BY_IV] || !f->tmp ||
	    !f->fresh || !f->amb || !f->run)
		return -ENOMEM;
	return 0;
}

/* g's items and intervals from the rectangles r[0..g->k): the items'
 * own where a rectangle is one item, one interval more each glued one,
 * after the niv of the items.  0, or -ENOMEM. */
static int glued_items(struct dp_glued *g, const struct rect *r,
		       const struct dp_item *it, const struct dp_iv *iv,
		       size_t niv)
{
	size_t i, k = g->k;

	g->it = dp_realloc_array(NULL, k + 1, sizeof(*g->it));
	g->iv = dp_realloc_array(NULL, niv + k + 1, sizeof(*g->iv));
	if (!g->it || !g->iv)
		return -ENOMEM;
	for (i = 0; i < niv; i++)
		g->iv[i] = iv[i];
	for (i = 0; i < k; i++) {
		const struct rect *x = &r[i];

		if (x->src != UINT32_MAX) {
			g->it[x->i] = it[x->src];
			continue;
		}
		g->iv[niv] = (struct dp_iv){ .lo = x->lo, .hi = x->hi };
		g->it[x->i] = (struct dp_item){ .size = x->size,
						.align = x->align,
						.iv_first = (uint32_t)niv++,
						.iv_count = 1 };
	}
	return 0;
}

/* Round 0: each item of p its own rectangle in R->r (g->node[i] = i, at
 * offset 0); returns how many intervals the items number (a
 * rectangle's is numbered after them) */
static size_t first_rects(struct glue_round *R, struct dp_glued *g,
			  const struct dp_problem *p)
{
	const struct dp_item *it = p->it;
	size_t i, niv = 0, n = p->n;

	for (i = 0; i < n; i++)
		if ((size_t)it[i].iv_first + it[i].iv_count > niv)
			niv = (size_t)it[i].iv_first + it[i].iv_count;
	for (i = 0; i < n; i++) {
		const struct dp_iv *x = &p->iv[it[i].iv_first];
		int ok = glues(&it[i], p->page) && niv + n < UINT32_MAX;

		R->r[i] = (struct rect){ .lo = ok ? x->lo : 0,
					 .hi = ok ? x->hi : 0,
					 .size = it[i].size, .align = it[i].align,
					 .i = (uint32_t)i, .src = (uint32_t)i,
					 .ok = (uint8_t)ok, .id = i };
		g->node[i] = (uint32_t)i;
		g->off[i] = 0;
	}
	return niv;
}

/* The rounds of rule gr on R, at most max_rounds and while they sorted at
 * most most_work; each item's rectangle and offset in it followed in g.
 * Returns how many rounds glued anything. */
static size_t glue_all_rounds(struct glue_round *R, struct dp_glued *g,
			      const struct glue_rule *gr, size_t n,
			      size_t max_rounds, size_t most_work)
{
	size_t i, rounds;

	for (rounds = 0; rounds < max_rounds && R->work <= most_work;
	     rounds++) {
		struct rect *t;

		R->work += R->k;
		if (!gr->round(R))
			break;
		for (i = 0; i < n; i++) {
			g->off[i] += R->at[g->node[i]];
			g->node[i] = R->into[g->node[i]];
		}
		t = R->r;
		R->r = R->nr;
		R->nr = t;
	}
	return rounds;
}

int dp_glue_rounds(const struct dp_problem *p,
		   const struct dp_search_params *par, int rule,
		   size_t max_rounds, struct dp_glued *g)
{
	size_t n = p->n;
	const struct glue_rule *gr = &glue_rules[rule >= 0 &&
		rule < DP_GLUE_RULES ? rule : DP_GLUE_ALL];
	struct fewest f = { 0 };
	struct glue_round R = {
		.r = dp_realloc_array(NULL, n + 1, sizeof(*R.r)),
		.nr = dp_realloc_array(NULL, n + 1, sizeof(*R.nr)),
		.k = n,
		.into = dp_realloc_array(NULL, n + 1, sizeof(*R.into)),
		.at = dp_realloc_array(NULL, n + 1, sizeof(*R.at)),
		.used = dp_realloc_array(NULL, n + 1, sizeof(*R.used)),
		.f = &f,
	};
	size_t niv, most_rounds, most_work;
	int rc = -ENOMEM;

	*g = (struct dp_glued){ 0 };
	g->node = dp_realloc_array(NULL, n + 1, sizeof(*g->node));
	g->off = dp_realloc_array(NULL, n + 1, sizeof(*g->off));
	if (!R.r || !R.nr || !R.into || !R.at || !R.used || !g->node ||
	    !g->off)
		goto out;
	if (gr->fewest) {
		f.pen = gr->pen;
		if (fewest_alloc(&f, n))
			goto out;
	}
	niv = first_rects(&R, g, p);
	if (gr->fewest)
		order_all(R.r, n, &f);
	/* at[]: scratch until the rounds */
	R.wide = stack_span(R.r, n, rule, R.at);
	most_rounds = gr->fewest ? n : par->glue_rounds;
	most_work = (gr->fewest ? par->glue_fewest_work : par->glue_work) * n;
	g->rounds = glue_all_rounds(&R, g, gr, n,
				    max_rounds < most_rounds ? max_rounds :
				    most_rounds, most_work);
	g->k = R.k;
	rc = glued_items(g, R.r, p->it, p->iv, niv);
out:
	DP_FREE(R.r, R.nr, R.into, R.at, R.used, f.o[BY_START], f.o[BY_END],
		f.o[BY_IV], f.tmp, f.fresh, f.amb, f.run);
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
