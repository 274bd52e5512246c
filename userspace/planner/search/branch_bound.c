// SPDX-License-Identifier: GPL-2.0
/*
 * branch_bound.c - the exact search of --strategy search, a branch and
 * bound: a depth-first search over canonical placements in the spirit of MiniMalloc (Moffitt, ASPLOS 2024),
 * written for this tree's items (several liveness intervals per item,
 * alignment, the 4 KiB page-straddle rule).
 *
 * One probe answers a decision question: can every item go into
 * [start, cap)?  The timeline is cut into sections, one per distinct last
 * time of an interval (the items live then: a maximal set live at once).  The search places one item per level, in
 * non-decreasing order of offset (canonical solutions: any placement can
 * be pushed down until each item sits on start or on a neighbour's top, and
 * then listed in that order), always at the item's lowest legal offset
 * (min_offset: the highest top of its placed neighbours, rounded up by its
 * alignment and the page rule).  Pruning:
 *
 *  - canonical: a child never takes an (offset, preorder rank) below its
 *    parent's;
 *  - dominance: an item whose offset is at or above the lowest top any
 *    unplaced item could reach would leave a gap that item fills; skip;
 *  - inference: per section, max(floor, offset) + unplaced bytes live in
 *    it must stay within cap (the floor is the lowest min_offset of the
 *    section's unplaced items, or the top just placed there); an item whose
 *    min_offset + size passes cap fails at once;
 *  - "hatless": if the item just tried has no unplaced neighbour and its
 *    subtree failed, its siblings fail too;
 *  - decomposition: when no unplaced item crosses a section boundary, the
 *    two sides are independent and solved one after the other, each with
 *    a fresh canonical order and preorder.
 *
 * Pinned items (dp_exact_floors, for the slice search of slices.c): an item
 * may get its own lowest offset (base) and highest end (top); an item
 * with base = its address and top = its end stays where it is, an obstacle
 * the others go below or above.  The canonical order still covers every
 * placement: pushed down, each item sits on its base or on a neighbour's
 * top, and listing them by offset reaches it.
 *
 * The children of a node are the unplaced items by (min_offset, preorder
 * rank); the preorder is one of three static heuristics (MiniMalloc's WAT,
 * TAW and TWA: width = live time, area = size x width, total = the most
 * bytes live in one of its sections), tried round robin with a node limit
 * that doubles.  Budgets are node counts, never time: the same input and
 * budget give the same answer on any machine.
 *
 * Cost model.  A node is one item placed (tried): its cost is
 * bounded by what it changes -- v's neighbours (their min_offsets), v's
 * sections (floor, total, a max tree over the totals: O(sections + log)),
 * the sections of the neighbours it raised (a floor is rescanned only when
 * the item holding it moved and the section is tight, see refloor()) --
 * plus, once per level, the level's list: the parent's list filtered, the
 * raised items sorted and merged in (O(n + r log r), no insertion sort).
 * (MiniMalloc's search scans every raised section's items at every node,
 * about n x width: this one never does.)  The children that cannot fit (o + the part's largest
 * unplaced total above cap) are cut before any is tried: one test a level.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

struct trail {
	uint64_t *p;
	uint64_t v;
};

struct dp_exact {
	size_t n;
	const uint64_t *size, *align;
	uint64_t page, cap;
	uint32_t nsec;
	uint32_t *sr_first;	/* item -> its section ranges [lo, hi) */
	uint32_t (*sr)[2];
	const uint32_t *ov_first, *ov;	/* overlaps (the dp_ovl's) */
	uint32_t *sec_first, *sec_items;	/* section -> items live in it */
	const uint64_t *width;	/* live time (the dp_ovl's) */
	uint32_t *hull;		/* item -> [first, last) section, 2 per item */
	uint64_t *cut;		/* boundary s|s+1 -> unplaced items across it */
	/* search state */
	uint64_t *off, *minoff, *floor, *tot;
	uint32_t *rank;
	uint32_t *lists;	/* level k's children at lists + k * (2n - k + 1) / 2 */
	struct trail *tr;
	size_t ntr, captr;
	uint32_t *raised;	/* place(): the neighbours it raised */
	uint32_t *rgen, gen;	/* item -> the placement that last raised it */
	uint32_t (*rg)[3];	/* place(): their section ranges, the item */
	uint32_t *upl;		/* dfs(): the raised items of its list */
	uint32_t *upt;		/* sort_by_key()'s scratch */
	uint64_t *wit;		/* section -> an unplaced item at its floor */
	uint64_t *tmx;		/* max tree over tot[] (leaves at tsz) */
	uint32_t tsz;
	int heur;		/* this run's preorder heuristic */
	int64_t left;		/* nodes left in this run */
	uint64_t used;		/* nodes spent, every run */
	uint64_t work;		/* items and sections visited, every run */
	uint64_t *sol;		/* the offsets of the last solution found */
	const uint64_t *base;	/* item -> lowest offset (NULL: start) */
	const uint64_t *top;	/* item -> highest end (NULL: cap) */
	int nomem;		/* the trail could not grow: the run stops */
};

static uint64_t legal(const struct dp_exact *b, uint32_t v, uint64_t o)
{
	uint64_t a = b->align[v], s = b->size[v];

	if (a > 1 && o % a) {
		if (o > UINT64_MAX - a)
			return UINT64_MAX;
		o += a - o % a;
	}
	if (b->page && s <= b->page && o / b->page != (o + s - 1) / b->page)
		o = (o + s - 1) / b->page * b->page;
	return o;
}

/* The highest end v may have: the probe's cap, or lower (dp_exact_floors) */
static uint64_t cap_of(const struct dp_exact *b, uint32_t v)
{
	return b->top && b->top[v] < b->cap ? b->top[v] : b->cap;
}

/* *p = v through the trail; out of memory, *p stays and b->nomem says so
 * (what the trail holds is still undone exactly). */
static void set(struct dp_exact *b, uint64_t *p, uint64_t v)
{
	if (dp_grow(&b->tr, &b->captr, b->ntr + 1, sizeof(*b->tr), 1024)) {
		b->nomem = 1;
		return;
	}
	b->tr[b->ntr++] = (struct trail){ .p = p, .v = *p };
	*p = v;
}

static void undo(struct dp_exact *b, size_t mark)
{
	while (b->ntr > mark) {
		b->ntr--;
		*b->tr[b->ntr].p = b->tr[b->ntr].v;
	}
}

struct tp {
	uint64_t t;
	uint32_t i;
};

static int cmp_tp(const void *x, const void *y)
{
	const struct tp *p = x, *q = y;

	return (p->t > q->t) - (p->t < q->t);
}

static uint32_t first_at_least(const uint64_t *t, uint32_t n, uint64_t x)
{
	uint32_t lo = 0, hi = n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (t[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The items' sizes and alignments; *niv: their intervals.  0, or -ENOMEM. */
static int item_arrays(struct dp_exact *b, const struct dp_item *it,
		       size_t *niv)
{
	uint64_t *sz, *al;
	size_t i, n = b->n;

	sz = dp_realloc_array(NULL, n + 1, sizeof(*sz));
	al = dp_realloc_array(NULL, n + 1, sizeof(*al));
	b->size = sz;
	b->align = al;
	if (!sz || !al)
		return -ENOMEM;
	for (i = 0, *niv = 0; i < n; i++) {
		sz[i] = it[i].size;
		al[i] = it[i].align ? it[i].align : 1;
		*niv += it[i].iv_count;
	}
	return 0;
}

/* One section per distinct last time hi: the items live at it, a maximal
 * set of items live at once (MiniMalloc's sweep); then each item's
 * interval as its range of sections.  0, or -ENOMEM. */
static int sections(struct dp_exact *b, const struct dp_item *it,
		    const struct dp_iv *iv, size_t niv)
{
	size_t i, k, nt = 0, nsr = 0, n = b->n;
	uint64_t *times;
	struct tp *tp;

	tp = dp_realloc_array(NULL, niv + 1, sizeof(*tp));
	times = dp_realloc_array(NULL, niv + 1, sizeof(*times));
	b->sr_first = dp_realloc_array(NULL, n + 1, sizeof(*b->sr_first));
	b->sr = dp_realloc_array(NULL, niv + 1, sizeof(*b->sr));
	if (!tp || !times || !b->sr_first || !b->sr) {
		free(tp);
		free(times);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < it[i].iv_count; k++)
			tp[nt++] = (struct tp){ .t = iv[it[i].iv_first + k].hi,
						.i = 0 };
	qsort(tp, nt, sizeof(*tp), cmp_tp);
	for (i = 0, k = 0; i < nt; i++)
		if (!k || times[k - 1] != tp[i].t)
			times[k++] = tp[i].t;
	free(tp);
	b->nsec = k;
	for (i = 0; i < n; i++) {
		b->sr_first[i] = nsr;
		for (k = 0; k < it[i].iv_count; k++) {
			const struct dp_iv *v = &iv[it[i].iv_first + k];

			/* the sections whose time lies in [lo, hi]; hi is
			 * one of the times */
			b->sr[nsr][0] = first_at_least(times, b->nsec, v->lo);
			b->sr[nsr][1] = first_at_least(times, b->nsec, v->hi) + 1;
			nsr++;
		}
	}
	b->sr_first[n] = nsr;
	free(times);
	return 0;
}

/* Each item's hull [first, last) section, and the cuts: how many items
 * cross each boundary.  0, or -ENOMEM. */
static int hulls(struct dp_exact *b)
{
	size_t i, k;

	b->hull = dp_realloc_array(NULL, 2 * b->n + 1, sizeof(*b->hull));
	b->cut = calloc(b->nsec + 1, sizeof(*b->cut));
	if (!b->hull || !b->cut)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		uint32_t lo = UINT32_MAX, hi = 0;

		for (k = b->sr_first[i]; k < b->sr_first[i + 1]; k++) {
			if (b->sr[k][0] < lo)
				lo = b->sr[k][0];
			if (b->sr[k][1] > hi)
				hi = b->sr[k][1];
		}
		if (lo > hi)
			lo = hi = 0;
		b->hull[2 * i] = lo;
		b->hull[2 * i + 1] = hi;
		for (; lo + 1 < hi; lo++)
			b->cut[lo]++;
	}
	return 0;
}

/* Section -> items (CSR), each section's total and the max tree over the
 * totals.  0, or -ENOMEM. */
static int section_items(struct dp_exact *b)
{
	size_t i, k;
	uint32_t *fill, s;

	b->sec_first = calloc(b->nsec + 2, sizeof(*b->sec_first));
	b->tot = calloc(b->nsec + 1, sizeof(*b->tot));
	for (b->tsz = 1; b->tsz < b->nsec; b->tsz *= 2)
		;
	b->tmx = calloc(2 * b->tsz, sizeof(*b->tmx));
	if (!b->sec_first || !b->tot || !b->tmx)
		return -ENOMEM;
	for (i = 0; i < b->n; i++)
		for (k = b->sr_first[i]; k < b->sr_first[i + 1]; k++)
			for (s = b->sr[k][0]; s < b->sr[k][1]; s++) {
				b->sec_first[s + 1]++;
				b->tot[s] += b->size[i];
			}
	for (k = 0; k < b->nsec; k++)
		b->sec_first[k + 1] += b->sec_first[k];
	for (k = 0; k < b->nsec; k++)
		b->tmx[b->tsz + k] = b->tot[k];
	for (k = b->tsz - 1; k; k--)
		b->tmx[k] = b->tmx[2 * k] > b->tmx[2 * k + 1] ?
			    b->tmx[2 * k] : b->tmx[2 * k + 1];
	b->sec_items = dp_realloc_array(NULL, b->sec_first[b->nsec] + 1,
					sizeof(*b->sec_items));
	fill = calloc(b->nsec + 1, sizeof(*fill));
	if (!b->sec_items || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < b->n; i++)
		for (k = b->sr_first[i]; k < b->sr_first[i + 1]; k++)
			for (s = b->sr[k][0]; s < b->sr[k][1]; s++)
				b->sec_items[b->sec_first[s] + fill[s]++] = i;
	free(fill);
	return 0;
}

/* The search's state and scratch.  0, or -ENOMEM. */
static int search_state(struct dp_exact *b, size_t niv)
{
	size_t n = b->n;

	b->raised = dp_realloc_array(NULL, n + 1, sizeof(*b->raised));
	b->rgen = calloc(n + 1, sizeof(*b->rgen));
	b->upl = dp_realloc_array(NULL, n + 1, sizeof(*b->upl));
	b->upt = dp_realloc_array(NULL, n + 1, sizeof(*b->upt));
	b->rg = dp_realloc_array(NULL, niv + 1, sizeof(*b->rg));
	b->wit = dp_realloc_array(NULL, b->nsec + 1, sizeof(*b->wit));
	b->off = dp_realloc_array(NULL, n + 1, sizeof(*b->off));
	b->minoff = dp_realloc_array(NULL, n + 1, sizeof(*b->minoff));
	b->sol = dp_realloc_array(NULL, n + 1, sizeof(*b->sol));
	b->floor = dp_realloc_array(NULL, b->nsec + 1, sizeof(*b->floor));
	b->rank = dp_realloc_array(NULL, n + 1, sizeof(*b->rank));
	b->lists = dp_realloc_array(NULL, n * (n + 1) / 2 + 1, sizeof(*b->lists));
	if (!b->raised || !b->rgen || !b->upl || !b->upt || !b->rg ||
	    !b->wit || !b->off || !b->minoff || !b->sol || !b->floor ||
	    !b->rank || !b->lists)
		return -ENOMEM;
	return 0;
}

/* Sections, every item's section ranges, the search's state. */
struct dp_exact *dp_exact_new(const struct dp_item *it, size_t n,
			      const struct dp_iv *iv, uint64_t page,
			      const struct dp_ovl *ol)
{
	struct dp_exact *b = calloc(1, sizeof(*b));
	size_t niv;

	if (!b)
		return NULL;
	b->n = n;
	b->page = page;
	b->width = ol->width;
	b->ov_first = ol->first;
	b->ov = ol->ov;
	if (item_arrays(b, it, &niv) || sections(b, it, iv, niv) || hulls(b) ||
	    section_items(b) || search_state(b, niv)) {
		dp_exact_free(b);
		return NULL;
	}
	return b;
}

void dp_exact_free(struct dp_exact *b)
{
	if (!b)
		return;
	DP_FREE((void *)b->size, (void *)b->align, b->sr_first, b->sr,
		b->sec_first, b->sec_items, b->hull, b->cut, b->off, b->minoff,
		b->floor, b->tot, b->rank, b->lists, b->tr, b->raised, b->rgen,
		b->upl, b->upt, b->rg, b->wit, b->tmx, b->sol, b);
}

/* ---- the preorder ------------------------------------------------------ */

static uint64_t tot_max(const struct dp_exact *b, uint32_t lo, uint32_t hi);

/* Ranks items[0 .. ni) by heuristic h; T from the bytes still unplaced
 * (the max tree over the section totals: O(log) a range). */
static void preorder(struct dp_exact *b, int h, const uint32_t *items,
		     size_t ni)
{
	static const char *const heur[] = { "WAT", "TAW", "TWA" };
	struct dp_key3 *p = dp_realloc_array(NULL, ni + 1, sizeof(*p));
	size_t i;
	int j;

	if (!p) {
		b->nomem = 1;
		return;
	}
	for (i = 0; i < ni; i++) {
		uint32_t v = items[i], k;
		unsigned __int128 a = (unsigned __int128)b->size[v] * b->width[v];
		uint64_t t = 0, m;

		for (k = b->sr_first[v]; k < b->sr_first[v + 1]; k++)
			if ((m = tot_max(b, b->sr[k][0], b->sr[k][1])) > t)
				t = m;
		p[i].i = v;
		for (j = 0; j < 3; j++)
			switch (heur[h][j]) {
			case 'W': p[i].k[j] = b->width[v]; break;
			case 'A': p[i].k[j] = a > UINT64_MAX ? UINT64_MAX : (uint64_t)a; break;
			default: p[i].k[j] = t; break;
			}
	}
	qsort(p, ni, sizeof(*p), dp_cmp_key3);
	for (i = 0; i < ni; i++)
		b->rank[p[i].i] = i;
	free(p);
}

/* ---- the search --------------------------------------------------------- */

enum { R_FOUND, R_NONE, R_ABORT, R_NOMEM };

static int before(const struct dp_exact *b, uint32_t u, uint32_t v)
{
	if (b->minoff[u] != b->minoff[v])
		return b->minoff[u] < b->minoff[v];
	return b->rank[u] < b->rank[v];
}

/*
 * The largest unplaced total of a run of sections: a bottom-up max tree
 * over tot[] (leaves at tmx[tsz + s]).  Lowering tot[lo .. hi) rewrites
 * those leaves and their ancestors, about 2 (hi - lo) + 2 log nsec values,
 * each through the trail.
 */
static void tot_sub(struct dp_exact *b, uint32_t lo, uint32_t hi, uint64_t d)
{
	uint32_t s, x, y;

	for (s = lo; s < hi; s++) {
		set(b, &b->tot[s], b->tot[s] - d);
		set(b, &b->tmx[b->tsz + s], b->tot[s]);
	}
	for (x = (b->tsz + lo) / 2, y = (b->tsz + hi - 1) / 2; x; x /= 2, y /= 2)
		for (s = x; s <= y; s++) {
			uint64_t m = b->tmx[2 * s] > b->tmx[2 * s + 1] ?
				     b->tmx[2 * s] : b->tmx[2 * s + 1];

			b->work++;
			if (b->tmx[s] != m)
				set(b, &b->tmx[s], m);
		}
}

static uint64_t tot_max(const struct dp_exact *b, uint32_t lo, uint32_t hi)
{
	uint64_t m = 0;
	uint32_t l = lo + b->tsz, r = hi + b->tsz;

	for (; l < r; l /= 2, r /= 2) {
		if (l & 1 && b->tmx[l] > m)
			m = b->tmx[l];
		if (l & 1)
			l++;
		if (r & 1 && b->tmx[r - 1] > m)
			m = b->tmx[r - 1];
	}
	return m;
}

static int cmp_u32pair(const void *x, const void *y)
{
	const uint32_t *p = x, *q = y;

	return (p[0] > q[0]) - (p[0] < q[0]);
}

/*
 * Section s's floor from its unplaced items: the lowest min_offset among
 * them (MiniMalloc's "unallocated floor").  floor[s] is always a lower
 * bound of it; wit[s] is an unplaced item whose min_offset equals floor[s]
 * (then the floor is exact and stays so until that item moves), or
 * UINT64_MAX.  ub: the min_offset of an unplaced item live in s (an upper
 * bound of the floor): when even ub leaves room for the section's unplaced
 * bytes, the exact floor cannot fail the section either, and the scan
 * waits until an item of s moves again (only a move raises a floor, and
 * each move brings the section back here).  So the sections that fail are
 * exactly those a scan of every raised section would find, but only a
 * moved witness in a tight section costs a scan, and the scan stops at
 * the first item at the floor.  -1: the section's unplaced bytes no longer
 * fit above its floor.
 */
static int refloor(struct dp_exact *b, uint32_t s, uint64_t ub)
{
	uint64_t f = b->floor[s], lo = UINT64_MAX, w = b->wit[s], at = UINT64_MAX;
	uint32_t j;

	if (!b->tot[s])
		return 0;
	if (w != UINT64_MAX && b->off[w] == DP_UNSET && b->minoff[w] == f)
		return 0;
	if (ub <= b->cap && b->cap - ub >= b->tot[s])
		return 0;
	for (j = b->sec_first[s]; j < b->sec_first[s + 1]; j++) {
		uint32_t u = b->sec_items[j];

		b->work++;
		if (b->off[u] == DP_UNSET && b->minoff[u] < lo) {
			lo = b->minoff[u];
			at = u;
			if (lo <= f)
				break;
		}
	}
	if (at != w)
		set(b, &b->wit[s], at);
	if (lo == UINT64_MAX || lo <= f)
		return 0;
	set(b, &b->floor[s], lo);
	return lo > b->cap || b->cap - lo < b->tot[s] ? -1 : 0;
}

/* Places v at o: neighbours' min_offsets, section floors and totals, the
 * cuts.  0: consistent in the sections [slo, shi); -1: an inference fails.
 * *hat: v has an unplaced neighbour.  The work is v's neighbours, v's
 * sections and the sections of the neighbours it raised, never every
 * section or every item. */
static int place(struct dp_exact *b, uint32_t v, uint64_t o, uint32_t slo,
		 uint32_t shi, int *hat)
{
	uint64_t top = o + b->size[v];
	uint32_t k, j, s, nr = 0, gen, (*rg)[3] = b->rg;
	size_t ng = 0;

	if (!++b->gen)		/* 0 means "no order" to dfs() */
		b->gen = 1;
	gen = b->gen;
	set(b, &b->off[v], o);
	*hat = 0;
	b->work += b->ov_first[v + 1] - b->ov_first[v];
	for (k = b->ov_first[v]; k < b->ov_first[v + 1]; k++) {
		uint32_t u = b->ov[k];
		uint64_t m;

		if (b->off[u] != DP_UNSET)
			continue;
		*hat = 1;
		if (b->minoff[u] >= top)
			continue;
		m = legal(b, u, top);
		set(b, &b->minoff[u], m);
		b->rgen[u] = gen;
		if (m > cap_of(b, u) || cap_of(b, u) - m < b->size[u])
			return -1;
		b->raised[nr++] = u;
	}
	/* v's sections: every unplaced item there overlaps v, so none can go
	 * below top (the floor is top, its witness unknown); their totals
	 * drop by v's size.  top + what is left there = o + what was there:
	 * the caller's test (o + the largest total within cap) covers them */
	for (j = b->sr_first[v]; j < b->sr_first[v + 1]; j++) {
		b->work += b->sr[j][1] - b->sr[j][0];
		for (s = b->sr[j][0]; s < b->sr[j][1]; s++) {
			set(b, &b->floor[s], top);
			if (b->wit[s] != UINT64_MAX)
				set(b, &b->wit[s], UINT64_MAX);
		}
		tot_sub(b, b->sr[j][0], b->sr[j][1], b->size[v]);
	}
	b->work += b->hull[2 * v + 1] - b->hull[2 * v];
	for (s = b->hull[2 * v]; s + 1 < b->hull[2 * v + 1]; s++)
		set(b, &b->cut[s], b->cut[s] - 1);
	/* then the floors of the sections the raised items live in, each
	 * once: their ranges sorted, merged, walked */
	for (k = 0; k < nr; k++)
		for (j = b->sr_first[b->raised[k]]; j < b->sr_first[b->raised[k] + 1]; j++) {
			uint32_t lo = b->sr[j][0] > slo ? b->sr[j][0] : slo;
			uint32_t hi = b->sr[j][1] < shi ? b->sr[j][1] : shi;

			if (lo < hi) {
				rg[ng][0] = lo;
				rg[ng][1] = hi;
				rg[ng++][2] = b->raised[k];
			}
		}
	b->work += ng;
	/* the overlaps are listed by start, so the ranges usually are too */
	for (k = 1; k < ng && rg[k - 1][0] <= rg[k][0]; k++)
		;
	if (k < ng)
		qsort(rg, ng, sizeof(*rg), cmp_u32pair);
	for (k = 0, s = 0; k < ng; k++) {
		if (s < rg[k][0])
			s = rg[k][0];
		for (; s < rg[k][1]; s++) {
			b->work++;
			if (refloor(b, s, b->minoff[rg[k][2]]))
				return -1;
		}
	}
	return 0;
}

static int dfs(struct dp_exact *b, size_t level, uint32_t slo, uint32_t shi,
	       const uint32_t *parent, size_t np, uint64_t min_off,
	       uint32_t min_rank, uint32_t gen);

/* Sorts a[0 .. n) by (min_offset, rank): a bottom-up merge sort through
 * the scratch upt[] (no allocation in the search's inner loop). */
static void sort_by_key(struct dp_exact *b, uint32_t *a, size_t n)
{
	uint32_t *src = a, *dst = b->upt, *t;
	size_t w, i, l, m, r, x, y, k;

	for (i = 1; i < n && !before(b, a[i], a[i - 1]); i++)
		;
	if (i >= n)
		return;		/* in order already (the usual case) */
	for (w = 1; w < n; w *= 2) {
		for (l = 0; l < n; l = r) {
			m = l + w < n ? l + w : n;
			r = l + 2 * w < n ? l + 2 * w : n;
			for (x = l, y = m, k = l; k < r; k++)
				dst[k] = y >= r || (x < m && !before(b, src[y], src[x])) ?
					 src[x++] : src[y++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/*
 * The unplaced items of items[] in [slo, shi), split where no unplaced item
 * crosses a section boundary: the parts are independent, each solved on
 * its own (MiniMalloc's dynamic decomposition).  level: items placed.
 */
static int parts(struct dp_exact *b, size_t level, uint32_t slo, uint32_t shi,
		 const uint32_t *items, size_t ni)
{
	uint32_t *sub = dp_realloc_array(NULL, 2 * ni + 1, sizeof(*sub));
	uint32_t a = slo, s;
	size_t i, ns;
	int r = R_FOUND;

	if (!sub)
		return R_NOMEM;
	while (a < shi && r == R_FOUND) {
		for (s = a; s + 1 < shi && b->cut[s]; s++)
			;
		ns = 0;		/* the part [a, s + 1) */
		b->work += ni + (s + 1 - a);
		for (i = 0; i < ni; i++) {
			uint32_t u = items[i];

			if (b->off[u] == DP_UNSET && b->hull[2 * u] >= a &&
			    b->hull[2 * u] <= s)
				sub[ns++] = u;
		}
		if (ns) {	/* a fresh preorder for the part, then restored */
			for (i = 0; i < ns; i++)
				sub[ni + i] = b->rank[sub[i]];
			preorder(b, b->heur, sub, ns);
			r = b->nomem ? R_NOMEM :
			    dfs(b, level, a, s + 1, sub, ns, 0, 0, 0);
			for (i = 0; i < ns; i++)
				b->rank[sub[i]] = sub[ni + i];
		}
		a = s + 1;
	}
	free(sub);
	return r;
}

/* dfs()'s list at this level: the parent's unplaced items, sorted by
 * (min_offset, rank); see dfs().  Its length. */
static size_t child_list(struct dp_exact *b, uint32_t *list,
			 const uint32_t *parent, size_t np, uint32_t gen)
{
	uint32_t *up = b->upl;
	size_t i, k, nl = 0, nu = 0;

	b->work += np;
	if (!gen) {
		for (i = 0; i < np; i++)
			if (b->off[parent[i]] == DP_UNSET)
				list[nl++] = parent[i];
		sort_by_key(b, list, nl);
		return nl;
	}
	/* raised items aside (they moved up), the rest keep their order;
	 * then merge from the back */
	for (i = 0; i < np; i++) {
		uint32_t u = parent[i];

		if (b->off[u] != DP_UNSET)
			continue;
		if (b->rgen[u] == gen)
			up[nu++] = u;
		else
			list[nl++] = u;
	}
	sort_by_key(b, up, nu);
	b->work += nu;
	for (i = nl, k = nu, nl += nu; k; ) {
		if (i && before(b, up[k - 1], list[i - 1])) {
			list[i + k - 1] = list[i - 1];
			i--;
		} else {
			list[i + k - 1] = up[k - 1];
			k--;
		}
	}
	return nl;
}

/* The canonical children: those not before (min_off, min_rank), a suffix
 * of the list; its first index. */
static size_t first_child(const struct dp_exact *b, const uint32_t *list,
			  size_t nl, uint64_t min_off, uint32_t min_rank)
{
	size_t lo = 0, hi = nl;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		uint32_t u = list[m];

		if (b->minoff[u] < min_off ||
		    (b->minoff[u] == min_off && b->rank[u] < min_rank))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/*
 * One node.  parent[0 .. np) is the parent's list, sorted by (min_offset,
 * rank) as they were when the parent made it; gen names the placement
 * just made (its raised items carry it in rgen[]), 0: parent[] is in no
 * order (a fresh part).  The list is the unraised unplaced items in the
 * parent's order merged with the raised ones sorted: O(np + r log r).
 */
static int dfs(struct dp_exact *b, size_t level, uint32_t slo, uint32_t shi,
	       const uint32_t *parent, size_t np, uint64_t min_off,
	       uint32_t min_rank, uint32_t gen)
{
	uint32_t *list = b->lists + level * (2 * b->n - level + 1) / 2;
	uint64_t min_height = UINT64_MAX, tmax;
	size_t i, nl, first;

	nl = child_list(b, list, parent, np, gen);
	if (!nl)
		return R_FOUND;
	for (i = 0; i < nl; i++) {
		uint64_t h = b->minoff[list[i]] + b->size[list[i]];

		if (h < min_height)
			min_height = h;
	}
	first = first_child(b, list, nl, min_off, min_rank);
	/* every section of the part: the unplaced bytes above the next
	 * offset, max(floor, o) + tot within cap.  The floors passed when they
	 * were set (tot only fell since), and o + tot is o + the largest
	 * total (v's own sections included: top + tot - size = o + tot), the
	 * same for every child: past it no child fits */
	tmax = tot_max(b, slo, shi);
	if (tmax > b->cap)
		return R_NONE;
	for (i = first; i < nl; i++) {
		uint32_t v = list[i], x;
		uint64_t o = b->minoff[v];
		size_t mark = b->ntr;
		int hat, split = 0, r = R_NONE;

		if (o >= min_height)	/* dominance; the list is by offset */
			break;
		if (o > b->cap - tmax)
			break;
		if (b->left <= 0)	/* a node: one item placed */
			return R_ABORT;
		b->left--;
		b->used++;
		if (!place(b, v, o, slo, shi, &hat) && !b->nomem) {
			uint32_t g = b->gen;

			b->sol[v] = o;
			for (x = b->hull[2 * v]; x + 1 < b->hull[2 * v + 1]; x++)
				if (x >= slo && x + 1 < shi && !b->cut[x])
					split = 1;
			r = split ? parts(b, level + 1, slo, shi, list, nl) :
			    dfs(b, level + 1, slo, shi, list, nl, o, b->rank[v], g);
		}
		undo(b, mark);
		if (b->nomem)
			return R_NOMEM;
		if (r != R_NONE)
			return r;
		if (!hat)
			break;
	}
	return R_NONE;
}

/* One run: heuristic h, capacity cap, at most limit nodes. */
static int run(struct dp_exact *b, int h, uint64_t start, uint64_t cap,
	       int64_t limit)
{
	size_t i, s;
	int r;

	b->heur = h;
	b->cap = cap;
	b->left = limit;
	b->ntr = 0;
	for (i = 0; i < b->n; i++) {
		b->off[i] = DP_UNSET;
		b->minoff[i] = legal(b, i, b->base && b->base[i] > start ?
					   b->base[i] : start);
		if (b->minoff[i] > cap_of(b, i) ||
		    cap_of(b, i) - b->minoff[i] < b->size[i])
			return R_NONE;
		if (b->hull[2 * i] == b->hull[2 * i + 1])	/* never live */
			b->off[i] = b->sol[i] = b->minoff[i];
	}
	for (s = 0; s < b->nsec; s++) {
		b->floor[s] = start;
		b->wit[s] = UINT64_MAX;
		if (start > cap || cap - start < b->tot[s])
			return R_NONE;
	}
	{
		uint32_t *all = dp_realloc_array(NULL, b->n + 1, sizeof(*all));

		if (!all)
			return R_NOMEM;
		for (i = 0; i < b->n; i++)
			all[i] = i;
		r = parts(b, 0, 0, b->nsec, all, b->n);
		free(all);
	}
	undo(b, 0);
	if (b->nomem)
		r = R_NOMEM;
	b->nomem = 0;
	return r;
}

/*
 * One probe: is there a placement in [start, cap)?  Round robin over the
 * three heuristics, the node limit doubling from 2n, until one run ends
 * (found, or proven none) or the probe's budget is spent.
 * Returns 1 found (dp_exact_solution), 0 none exists, -1 budget spent,
 * -ENOMEM out of memory.
 */
int dp_exact_probe(struct dp_exact *b, uint64_t start, uint64_t cap,
		   uint64_t budget)
{
	int64_t limit = b->n ? b->n : 1;
	uint64_t spent = 0;
	int h;

	if (!b->n)
		return 1;
	for (;;) {
		limit *= 2;
		for (h = 0; h < 3; h++) {
			uint64_t before_used = b->used;
			int64_t lim = limit;
			int r;

			if (spent >= budget)
				return -1;
			if ((uint64_t)lim > budget - spent)
				lim = budget - spent;
			r = run(b, h, start, cap, lim);
			spent += b->used - before_used;
			if (r == R_FOUND)
				return 1;
			if (r == R_NONE)
				return 0;
			if (r == R_NOMEM)
				return -ENOMEM;
		}
	}
}

void dp_exact_floors(struct dp_exact *b, const uint64_t *base,
		     const uint64_t *top)
{
	b->base = base;
	b->top = top;
}

const uint64_t *dp_exact_solution(const struct dp_exact *b)
{
	return b->sol;
}

uint64_t dp_exact_nodes(const struct dp_exact *b)
{
	return b->used;
}

uint64_t dp_exact_work(const struct dp_exact *b)
{
	return b->work;
}
