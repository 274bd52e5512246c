// SPDX-License-Identifier: GPL-2.0
/*
 * slices.c - the slice search of --strategy search: a large-neighbourhood
 * search that lowers a complete placement (the best of the portfolio and
 * the exact search) a time slice at a time, at any size.
 *
 * The items are ordered by their first live time and cut into slices of
 * about par->slice_items items (never between two items that start together).  In
 * a slice, the items whose whole hull (first to last live time) lies
 * inside it are free; every neighbour of a free item that is not free
 * itself is pinned where it is (the exact search's per-item floor and
 * ceiling, dp_exact_floors, hold it there).  The free items are placed again
 * by the exact search (branch_bound.c) below a cap: first the
 * subproblem's lower bound (the highest pinned top, or the most bytes live at once in it),
 * then bisection between that and the slice's highest top now, par->slice_probes
 * probes of par->slice_probe_nodes nodes in all; the lowest placement found is
 * kept.  Every
 * other item keeps its address, so each slice's top only goes down and the
 * whole placement never ends higher than it started.
 *
 * A round covers every slice; the next round cuts half a slice further
 * on, so the items pinned at one round's cuts are free in the next.  It
 * stops after two rounds that do not lower the whole placement's end, or
 * when the budget (search nodes plus the items of each subproblem built)
 * is spent.  No clock, no
 * unseeded choice: the same input and budget give the same placement.
 *
 * Cost: a subproblem of k items (free and pinned) costs its overlaps and
 * sections once (about k log k + its overlap pairs) and then at most
 * par->slice_probe_nodes search nodes over its par->slice_probes probes; a round costs
 * the sum over its slices, whose free items are each item at most once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"


struct slice_search {
	struct dp_item *it;		/* it[].addr: the current placement */
	size_t n;
	const struct dp_iv *iv;
	const struct dp_ovl *ol;
	const struct dp_search_params *par;
	uint64_t start, page, spent, budget;
	uint64_t *hlo, *hhi;		/* item -> first, last live time */
	uint32_t *ord;			/* the items by first live time */
	uint8_t *in;			/* item -> 1 free, 2 pinned, 0 out */
	struct dp_item *sub;		/* the subproblem: free items first */
	uint64_t *base, *top;		/* its floors and ceilings */
	uint32_t *map;			/* sub -> item */
	size_t nf, ns;			/* free items, all items of it */
};

static void add_sub(struct slice_search *L, uint32_t v, int pinned)
{
	const struct dp_item *x = &L->it[v];

	L->in[v] = 1 + pinned;
	L->map[L->ns] = v;
	L->sub[L->ns] = *x;
	L->base[L->ns] = pinned ? x->addr : L->start;
	L->top[L->ns++] = pinned ? x->addr + x->size : UINT64_MAX;
}

/* The subproblem's probes: its lower bound first, then bisection up to
 * its highest top now; the free items take each solution found.  1 when
 * one was, 0 when not, or -ENOMEM. */
static int bisect(struct slice_search *L, struct dp_exact *b, uint64_t lo,
		  uint64_t hi)
{
	int r = 0, got = 0, probes = L->par->slice_probes;
	uint64_t left = L->par->slice_probe_nodes, used;
	size_t j;

	dp_exact_floors(b, L->base, L->top);
	while (probes-- > 0 && lo < hi && left && L->spent < L->budget) {
		uint64_t mid = probes == L->par->slice_probes - 1 ? lo :
			       lo + (hi - lo) / 2;

		used = dp_exact_nodes(b);
		r = dp_exact_probe(b, L->start, mid, left);
		used = dp_exact_nodes(b) - used;
		L->spent += used;
		left -= used < left ? used : left;
		if (r == -ENOMEM)
			return r;
		if (r == 1) {
			hi = mid;
			got = 1;
			for (j = 0; j < L->nf; j++)
				L->it[L->map[j]].addr = dp_exact_solution(b)[j];
		} else {
			lo = mid + 1;
		}
	}
	return got;
}

/* The slice ord[p0 .. p1) ending before time t1: its subproblem, then its
 * top lowered.  1 lowered, 0 not, or -ENOMEM. */
static int slice(struct slice_search *L, size_t p0, size_t p1, uint64_t t1)
{
	uint64_t lo = L->start, hi = L->start, lb;
	struct dp_ovl *o = NULL;
	struct dp_exact *b = NULL;
	size_t j, k;
	int r = 0;

	L->ns = 0;
	for (j = p0; j < p1; j++)
		if (L->hhi[L->ord[j]] < t1)
			add_sub(L, L->ord[j], 0);
	L->nf = L->ns;
	for (j = 0; j < L->nf; j++)
		for (k = L->ol->first[L->map[j]];
		     k < L->ol->first[L->map[j] + 1]; k++)
			if (!L->in[L->ol->ov[k]])
				add_sub(L, L->ol->ov[k], 1);
	for (j = 0; j < L->ns; j++) {
		uint64_t e = L->sub[j].addr + L->sub[j].size;

		L->in[L->map[j]] = 0;
		hi = e > hi ? e : hi;
		if (j >= L->nf)
			lo = e > lo ? e : lo;
	}
	if (!L->nf)
		return 0;
	if (dp_lower_bound_r(L->sub, L->ns, L->iv, &lb))
		return -ENOMEM;
	if (L->start + lb > lo)
		lo = L->start + lb;
	if (lo >= hi)
		return 0;
	L->spent += L->ns;
	r = dp_ovl_new(L->sub, L->ns, L->iv, SIZE_MAX, &o);
	if (!r && !(b = dp_exact_new(L->sub, L->ns, L->iv, L->page, o)))
		r = -ENOMEM;
	if (!r)
		r = bisect(L, b, lo, hi);
	dp_exact_free(b);
	dp_ovl_free(o);
	return r;
}

/* One round: the slices, the first cut after off items.  The number of
 * slices lowered, or -ENOMEM. */
static int round_of(struct slice_search *L, size_t off)
{
	size_t p0 = 0, p1;
	int r, got = 0;

	while (p0 < L->n && L->spent < L->budget) {
		p1 = p0 + (p0 || !off ? L->par->slice_items : off);
		if (p1 >= L->n)
			p1 = L->n;
		while (p1 < L->n && L->hlo[L->ord[p1]] == L->hlo[L->ord[p1 - 1]])
			p1++;
		r = slice(L, p0, p1, p1 < L->n ? L->hlo[L->ord[p1]] : UINT64_MAX);
		if (r < 0)
			return r;
		got += r;
		p0 = p1;
	}
	return got;
}

static void slices_free(struct slice_search *L)
{
	DP_FREE(L->hlo, L->hhi, L->ord, L->in, L->sub, L->base, L->top, L->map);
}

/* The arrays, the hulls and the order by first live time.  0, -ENOMEM. */
static int slices_init(struct slice_search *L)
{
	struct dp_key3 *k = dp_realloc_array(NULL, L->n + 1, sizeof(*k));
	size_t i;

	L->hlo = dp_realloc_array(NULL, L->n + 1, sizeof(*L->hlo));
	L->hhi = dp_realloc_array(NULL, L->n + 1, sizeof(*L->hhi));
	L->ord = dp_realloc_array(NULL, L->n + 1, sizeof(*L->ord));
	L->in = calloc(L->n + 1, 1);
	L->sub = dp_realloc_array(NULL, L->n + 1, sizeof(*L->sub));
	L->base = dp_realloc_array(NULL, L->n + 1, sizeof(*L->base));
	L->top = dp_realloc_array(NULL, L->n + 1, sizeof(*L->top));
	L->map = dp_realloc_array(NULL, L->n + 1, sizeof(*L->map));
	if (!k || !L->hlo || !L->hhi || !L->ord || !L->in || !L->sub ||
	    !L->base || !L->top || !L->map) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < L->n; i++) {
		dp_item_hull(&L->it[i], L->iv, &L->hlo[i], &L->hhi[i]);
		k[i] = (struct dp_key3){ .k = { ~L->hlo[i], 0, 0 }, .i = i };
	}
	qsort(k, L->n, sizeof(*k), dp_cmp_key3);	/* lo ascending */
	for (i = 0; i < L->n; i++)
		L->ord[i] = k[i].i;
	free(k);
	return 0;
}

int dp_slices_improve(struct dp_improve *im)
{
	const struct dp_problem *p = im->p;
	const struct dp_search_params *par = im->par;
	struct dp_best *best = im->best;
	uint64_t lb = im->goal, *spent = &im->spent;
	struct dp_item *it = p->it;
	size_t i, n = p->n;
	struct slice_search L = { .it = it, .n = n, .iv = p->iv, .ol = im->ol,
				  .par = par, .start = p->start,
				  .page = p->page, .budget = im->budget };
	int rc = 0, idle = 0, round = 0;

	*spent = 0;
	if (best->end <= lb || !im->budget || !n)
		return 0;
	rc = slices_init(&L);
	for (i = 0; i < n; i++)
		it[i].addr = best->addr[i];
	while (!rc && idle < 2 && L.spent < L.budget && best->end > lb) {
		int r = round_of(&L, round++ % 2 ? par->slice_items / 2 : 0);
		uint64_t e = dp_items_end(it, n, p->start);

		if (r < 0)
			rc = r;
		idle = e < best->end ? 0 : idle + 1;
		if (e < best->end) {
			best->end = e;
			for (i = 0; i < n; i++)
				best->addr[i] = it[i].addr;
		}
	}
	for (i = 0; i < n; i++)
		it[i].addr = best->addr[i];
	*spent = L.spent;
	slices_free(&L);
	return rc;
}
