// SPDX-License-Identifier: GPL-2.0
/*
 * ruin_recreate.c - ruin and recreate (Schrimpf et al., 2000) for
 * --strategy search, after the top and slice searches: a local search over a complete
 * placement that takes a few items out and puts them back, many times,
 * keeping each change that leaves the placement no worse.
 *
 * A step draws a seed item (half the time the highest of par->ruin_tour drawn
 * at random), then either (par->ruin_eject in 100) *ejects*: the seed moves down
 * to the offset of a neighbour below it and the items in its way there
 * come out; or *ruins* a box: the seed and its overlap neighbours, breadth
 * first, whose bytes meet the seed's range widened by a margin (1/64 to
 * 1/8 of the height), par->ruin_min to par->ruin_max items.  Recreate: the items out go
 * back one by one (the ejected seed first, at its new offset), each at
 * the lowest gap among its placed neighbours that holds it (dp_first_fit:
 * alignment and the page rule, within the ceiling), by size, by size x
 * live time or by old address, the ties perturbed.  Kept when the peak
 * (max addr + size) is not higher and then fewer items reach it, or as
 * many and the items' weighted height (size x live time x middle) is not
 * higher; otherwise every item goes back where it was.
 *
 * Valid by construction (each item in a gap of its placed neighbours);
 * never worse (nothing kept raises the peak); deterministic (a seeded
 * xorshift; the budget counts overlap entries visited, never time).
 * Cost: a step visits the neighbours of the items it moves, and puts
 * each item's back in address order (by_address: mostly a few shifts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "xorshift.h"

struct rr {
	struct dp_item *it;
	size_t n;
	const struct dp_ovl *ol;
	const struct dp_search_params *par;
	uint64_t start, ceiling, page;
	uint64_t peak;
	size_t atpeak;		/* items whose top is the peak */
	uint32_t *rm;		/* the items taken out */
	uint64_t *old;		/* their addresses before */
	size_t nr;
	uint8_t *mark;
	struct dp_key3 *k;
	struct dp_range *occ;
	size_t cap;
	uint32_t *nb;		/* each item's neighbours (ol's lists), by
				 * address when it last went back in */
	uint32_t force;		/* the ejected item, or UINT32_MAX */
	uint64_t fa;		/* its new address */
	uint64_t rs, work;
};

static uint64_t top_of(const struct rr *R, uint32_t v)
{
	return R->it[v].addr + R->it[v].size;
}

/* v's neighbours nb[0 .. d) by address, the unplaced (DP_UNSET) last.
 * Between two of v's insertions few of them move, so the order they had
 * is nearly right: insertion sort, until it has shifted more than 4 d
 * entries; then a full sort (occ as scratch: lo the address, hi the
 * item). */
static void by_address(struct rr *R, uint32_t *nb, size_t d)
{
	const struct dp_item *it = R->it;
	size_t j, i, shifts = 0;

	for (j = 1; j < d && shifts <= 4 * d; j++) {
		uint32_t u = nb[j];
		uint64_t a = it[u].addr;

		for (i = j; i > 0 && it[nb[i - 1]].addr > a; i--)
			nb[i] = nb[i - 1];
		nb[i] = u;
		shifts += j - i;
	}
	if (shifts <= 4 * d)
		return;
	for (j = 0; j < d; j++)
		R->occ[j] = (struct dp_range){ .lo = it[nb[j]].addr,
					       .hi = nb[j] };
	dp_sort_ranges(R->occ, d, DP_SORT_DEPTH_AUTO);
	for (j = 0; j < d; j++)
		nb[j] = (uint32_t)R->occ[j].hi;
}

/* item v at the lowest gap among its placed neighbours; 0, -1 when none
 * below the ceiling, -ENOMEM */
static int insert(struct rr *R, uint32_t v)
{
	const struct dp_ovl *ol = R->ol;
	size_t nov = ol->first[v + 1] - ol->first[v], no = 0, j;
	uint32_t *nb = R->nb + ol->first[v];
	struct dp_item *it = R->it;

	if (dp_grow(&R->occ, &R->cap, nov + 1, sizeof(*R->occ), 64))
		return -ENOMEM;
	by_address(R, nb, nov);
	for (j = 0; j < nov && it[nb[j]].addr != DP_UNSET; j++)
		R->occ[no++] = (struct dp_range){ .lo = it[nb[j]].addr,
			.hi = it[nb[j]].addr + it[nb[j]].size };
	R->work += nov + no;
	return dp_first_fit_sorted(R->occ, no, R->start, R->ceiling, it[v].size,
				   R->page, it[v].align, &it[v].addr) ? -1 : 0;
}

/* rm[0 .. nr) out: their addresses kept in old[] */
static void take_out(struct rr *R)
{
	size_t j;

	for (j = 0; j < R->nr; j++) {
		uint32_t v = R->rm[j];

		R->mark[v] = 0;
		R->old[j] = R->it[v].addr;
		if (top_of(R, v) == R->peak)
			R->atpeak--;
		R->it[v].addr = DP_UNSET;
	}
}

/* The box: seed s, then its neighbours breadth first whose bytes meet
 * [alo, ahi), up to want items. */
static void ruin(struct rr *R, uint32_t s, uint64_t alo, uint64_t ahi,
		 size_t want)
{
	const struct dp_ovl *ol = R->ol;
	size_t q, j;

	R->nr = 0;
	R->rm[R->nr++] = s;
	R->mark[s] = 1;
	for (q = 0; q < R->nr && R->nr < want; q++) {
		uint32_t v = R->rm[q];
		size_t f = ol->first[v], d = ol->first[v + 1] - f;
		size_t o = d ? xorshift64_below(&R->rs, d) : 0;

		for (j = 0; j < d && R->nr < want; j++) {
			uint32_t u = ol->ov[f + (o + j) % d];

			R->work++;
			if (R->mark[u] || !R->it[u].size ||
			    R->it[u].addr >= ahi || top_of(R, u) <= alo)
				continue;
			R->mark[u] = 1;
			R->rm[R->nr++] = u;
		}
	}
	take_out(R);
}

/* The ejection: s down to the offset of a random neighbour below it, the
 * items in its way out.  0 when there is no such move. */
static int eject(struct rr *R, uint32_t s)
{
	const struct dp_ovl *ol = R->ol;
	size_t f = ol->first[s], d = ol->first[s + 1] - f, j;
	const struct dp_item *v = &R->it[s];
	uint64_t a;
	uint32_t u;

	if (!d)
		return 0;
	u = ol->ov[f + xorshift64_below(&R->rs, d)];
	if (R->it[u].addr >= v->addr ||
	    !dp_try_gap(R->it[u].addr, UINT64_MAX, v->size, R->page, v->align,
			&a) || a >= v->addr)
		return 0;
	R->nr = 0;
	R->rm[R->nr++] = s;
	for (j = 0; j < d; j++) {
		u = ol->ov[f + j];
		R->work++;
		if (u == s || !R->it[u].size || R->it[u].addr >= a + v->size ||
		    top_of(R, u) <= a)
			continue;
		if (R->nr >= R->par->ruin_out)
			return 0;
		R->rm[R->nr++] = u;
	}
	take_out(R);
	R->force = s;
	R->fa = a;
	return 1;
}

static double weight(const struct rr *R, uint32_t v, uint64_t addr)
{
	return (double)R->it[v].size * (double)R->ol->width[v] *
	       ((double)addr + (double)R->it[v].size / 2);
}

/* The items out back in one of three orders, the ejected one first; 1
 * kept, 0 undone, -ENOMEM. */
static int recreate(struct rr *R, size_t atpeak)
{
	int how = xorshift64_below(&R->rs, 3), r = 0;
	double d = 0;
	size_t j;

	for (j = 0; j < R->nr; j++) {
		uint32_t v = R->rm[j];
		uint64_t p = 64 + xorshift64_below(&R->rs, 64), k;

		k = how == 2 ? ~R->old[j] : R->it[v].size;
		if (how == 1 && __builtin_mul_overflow(k, R->ol->width[v], &k))
			k = UINT64_MAX;
		k = how == 2 ? k : k / 64 * p;
		R->k[j] = (struct dp_key3){
			.k = { v == R->force ? UINT64_MAX : k, 0, 0 }, .i = j };
	}
	qsort(R->k, R->nr, sizeof(*R->k), dp_cmp_key3);
	for (j = 0; j < R->nr && !r; j++) {
		uint32_t v = R->rm[R->k[j].i];

		if (v == R->force)
			R->it[v].addr = R->fa;
		else
			r = insert(R, v);
		if (!r && top_of(R, v) > R->peak)
			r = -1;
		if (!r && top_of(R, v) == R->peak)
			R->atpeak++;
	}
	if (r == -ENOMEM)
		return r;
	for (j = 0; j < R->nr && !r; j++)
		d += weight(R, R->rm[j], R->it[R->rm[j]].addr) -
		     weight(R, R->rm[j], R->old[j]);
	if (!r && (R->atpeak < atpeak || (R->atpeak == atpeak && d <= 0)))
		return 1;
	for (j = 0; j < R->nr; j++)
		R->it[R->rm[j]].addr = R->old[j];
	R->atpeak = atpeak;
	return 0;
}

/* the peak and how many items reach it */
static void rr_peak(struct rr *R)
{
	size_t i;

	R->peak = dp_items_end(R->it, R->n, R->start);
	for (i = R->atpeak = 0; i < R->n; i++)
		R->atpeak += top_of(R, i) == R->peak;
}

/* One step: a seed, an ejection or a box, recreate.  0, or -ENOMEM. */
static int step(struct rr *R)
{
	uint32_t s = xorshift64_below(&R->rs, R->n), i, c;
	uint64_t h = R->peak - R->start, d, alo, ahi;
	size_t atpeak = R->atpeak;
	int r;

	if (xorshift64_below(&R->rs, 100) < 50)
		for (i = 0; i < R->par->ruin_tour; i++) {
			c = xorshift64_below(&R->rs, R->n);
			s = top_of(R, c) > top_of(R, s) ? c : s;
		}
	d = h / 64 + xorshift64_below(&R->rs, h / 8 + 1);
	alo = R->it[s].addr > R->start + d ? R->it[s].addr - d : R->start;
	ahi = top_of(R, s) + d;
	if (!R->it[s].size)
		return 0;
	R->force = UINT32_MAX;
	if (xorshift64_below(&R->rs, 100) < R->par->ruin_eject) {
		if (!eject(R, s))
			return 0;
	} else {
		ruin(R, s, alo, ahi, R->par->ruin_min +
		     xorshift64_below(&R->rs, R->par->ruin_max -
				      R->par->ruin_min + 1));
	}
	r = recreate(R, atpeak);
	if (r == 1 && !R->atpeak)
		rr_peak(R);
	return r < 0 ? r : 0;
}

int dp_ruin_recreate_improve(struct dp_improve *im)
{
	const struct dp_problem *p = im->p;
	const struct dp_ovl *ol = im->ol;
	const struct dp_search_params *par = im->par;
	struct dp_best *best = im->best;
	uint64_t lb = im->goal, budget = im->budget;
	struct dp_item *it = p->it;
	size_t i, n = p->n;
	struct rr R = { .it = it, .n = n, .ol = ol, .par = par,
			.start = p->start, .ceiling = p->ceiling,
			.page = p->page,
			.rs = 0x9e3779b97f4a7c15ULL * 5 + 1 };
	int rc = 0;

	if (best->end <= lb || !budget || n < 2)
		return 0;
	R.rm = dp_realloc_array(NULL, par->ruin_out + 1, sizeof(*R.rm));
	R.old = dp_realloc_array(NULL, par->ruin_out + 1, sizeof(*R.old));
	R.k = dp_realloc_array(NULL, par->ruin_out + 1, sizeof(*R.k));
	R.mark = calloc(n, 1);
	R.nb = dp_realloc_array(NULL, ol->first[n] + 1, sizeof(*R.nb));
	for (i = 0; i < n; i++)
		it[i].addr = best->addr[i];
	if (R.nb)
		memcpy(R.nb, ol->ov, ol->first[n] * sizeof(*R.nb));
	if (!R.rm || !R.old || !R.k || !R.mark || !R.nb)
		rc = -ENOMEM;
	else
		rr_peak(&R);
	while (!rc && R.work < budget && R.peak > lb) {
		rc = step(&R);
		if (R.peak < best->end) {
			best->end = R.peak;
			for (i = 0; i < n; i++)
				best->addr[i] = it[i].addr;
		}
	}
	for (i = 0; i < n; i++)
		it[i].addr = best->addr[i];
	DP_FREE(R.rm, R.old, R.k, R.mark, R.occ, R.nb);
	im->spent = R.work;
	return rc;
}
