// SPDX-License-Identifier: GPL-2.0
/*
 * portfolio.c - the constructive passes of --strategy search, the rows of
 * kind DP_PHASE_PASS: first fit in the four orders dp_place has
 * (simplify -- the seed's --, size, area, start), the skyline passes
 * (skyline.c), and best fit by size and by area (the greedy-by-size heap
 * simulators of TFLite and XLA: each item, largest first, takes the
 * smallest gap between its placed neighbours that holds it, else the
 * lowest address above them).  The incumbent is the pass with the lowest
 * end (max addr + size) within the ceiling; ties go to the earlier pass,
 * so the seed's own plan is kept unless something beats it.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"

static int cmp_rng(const void *x, const void *y)
{
	const struct dp_range *p = x, *q = y;

	return (p->lo > q->lo) - (p->lo < q->lo);
}

/* Best fit in the order of key (area: by size x live sections). */
static int best_fit(const struct dp_problem *p, const struct dp_ovl *ol,
		    int area)
{
	struct dp_item *it = p->it;
	size_t n = p->n;
	uint64_t start = p->start, ceiling = p->ceiling, page = p->page;
	struct dp_key3 *k = dp_realloc_array(NULL, n + 1, sizeof(*k));
	struct dp_range *occ = NULL;
	size_t i, j, cap = 0;
	int rc = 0;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned __int128 a;

		a = (unsigned __int128)it[i].size * ol->width[i];
		k[i] = (struct dp_key3){
			.k = { area ? (a > UINT64_MAX ? UINT64_MAX : (uint64_t)a) :
				      it[i].size,
			       area ? it[i].size : ol->width[i], 0 },
			.i = i };
		it[i].addr = DP_UNSET;
	}
	qsort(k, n, sizeof(*k), dp_cmp_key3);
	for (i = 0; i < n && !rc; i++) {
		uint32_t v = k[i].i;
		size_t nov = ol->first[v + 1] - ol->first[v], no = 0;
		const uint32_t *ov = ol->ov + ol->first[v];
		uint64_t prev = start, best = DP_UNSET, bgap = UINT64_MAX, a;

		if (nov > cap) {
			struct dp_range *q = dp_realloc_array(occ, nov,
							      sizeof(*occ));

			if (!q) {
				rc = -ENOMEM;
				break;
			}
			occ = q;
			cap = nov;
		}
		for (j = 0; j < nov; j++)
			if (it[ov[j]].addr != DP_UNSET)
				occ[no++] = (struct dp_range){
					.lo = it[ov[j]].addr,
					.hi = it[ov[j]].addr + it[ov[j]].size };
		if (no > 1)
			qsort(occ, no, sizeof(*occ), cmp_rng);
		for (j = 0; j <= no; j++) {
			uint64_t ghi = j < no ? occ[j].lo : ceiling;

			if (ghi > prev && dp_try_gap(prev, ghi, it[v].size, page,
						     it[v].align, &a)) {
				if (j == no) {
					if (best == DP_UNSET)
						best = a;
					break;
				}
				if (ghi - prev < bgap) {
					bgap = ghi - prev;
					best = a;
				}
			}
			if (j < no && occ[j].hi > prev)
				prev = occ[j].hi;
		}
		if (best == DP_UNSET)
			rc = -1;
		it[v].addr = best;
	}
	free(k);
	free(occ);
	return rc;
}

uint64_t dp_run_keep(struct dp_run *R, const char *name)
{
	const struct dp_problem *p = &R->p;
	uint64_t e = dp_items_end(p->it, p->n, p->start);
	size_t i;

	if (R->best.end != UINT64_MAX && e >= R->best.end)
		return e;
	R->best.end = e;
	R->how = name;
	for (i = 0; i < p->n; i++)
		R->best.addr[i] = p->it[i].addr;
	return e;
}

int dp_run_goal(struct dp_run *R)
{
	struct dp_search_stats *st = R->st;
	uint64_t lb;

	if (dp_lower_bound_r(R->p.it, R->p.n, R->p.iv, &lb))
		return -ENOMEM;
	st->lower_bound = R->p.start + lb;
	R->goal = st->lower_bound > R->target ? st->lower_bound : R->target;
	return 0;
}

int dp_run_overlaps(struct dp_run *R)
{
	struct dp_search_stats *st = R->st;

	if (R->p.n > DP_SEARCH_MAX_ITEMS)
		st->skipped = "above the search's limit of " DP_STR(DP_SEARCH_MAX_ITEMS) " items";
	if (dp_ovl_new(R->p.it, R->p.n, R->p.iv, DP_SEARCH_MAX_EDGES, &R->ol))
		return -ENOMEM;
	if (!R->ol)
		st->skipped = "above the search's limit of " DP_STR(DP_SEARCH_MAX_EDGES) " overlap entries";
	return 0;
}

/* The first fit in each order (dp_place), the seed's simplify order
 * first (st->seed_end). */
int dp_pass_first_fit(struct dp_run *R)
{
	static const struct {
		const char *name;
		enum dp_order order;
	} orders[] = {
		{ .name = "simplify", .order = DP_ORDER_SIMPLIFY },
		{ .name = "size", .order = DP_ORDER_SIZE },
		{ .name = "area", .order = DP_ORDER_AREA },
		{ .name = "start", .order = DP_ORDER_START },
	};
	size_t k;
	int r;

	for (k = 0; k < 4; k++) {
		struct dp_place_stats ps = { 0 };
		size_t failed;

		r = dp_place(&R->p, orders[k].order, R->eng, &ps, &failed,
			     NULL, "");
		if (r == -ENOMEM)
			return r;
		if (r)
			continue;
		if (!k)
			R->st->seed_end = dp_items_end(R->p.it, R->p.n,
						       R->p.start);
		dp_run_keep(R, orders[k].name);
	}
	return 0;
}

/* The skyline passes (skyline.c): the plain one, ties by size; then,
 * while above the goal, the chain pass with ties by size x span,
 * and again with each size's weight in the ties drawn in [1,
 * par->chain_spread) (a fixed seed), every other time with ties by size
 * x span^2, up to par->skyline_restarts times and while the chain passes
 * have visited fewer than par->skyline_work segments and candidates. */
int dp_pass_skyline(struct dp_run *R)
{
	const struct dp_search_params *par = R->par;
	uint64_t *key = dp_realloc_array(NULL, R->p.n + 1, sizeof(*key));
	uint64_t work = 0, rs = 0x9e3779b97f4a7c15ULL + 1;
	struct dp_sky_hulls hu;
	size_t i, k;
	int r;

	if (!key)
		return -ENOMEM;
	/* the passes' times and hulls, once; -1: a time is UINT64_MAX,
	 * and no pass can place these items */
	r = dp_sky_hulls_new(R->p.it, R->p.n, R->p.iv, &hu);
	if (r) {
		free(key);
		return r == -ENOMEM ? r : 0;
	}
	for (i = 0; i < R->p.n; i++)
		key[i] = R->p.it[i].size;
	r = dp_skyline(&R->p, par, key, &hu);
	if (!r)
		dp_run_keep(R, "skyline");
	for (k = 0; k <= par->skyline_restarts && r != -ENOMEM &&
	     R->best.end > R->goal && work < par->skyline_work; k++) {
		if (k)
			dp_sky_perturb(R->p.it, R->p.n, par->chain_spread,
				       &rs, key);
		r = dp_skyline_chain(&R->p, par, key,
				     k % 2 ? DP_SKY_SPAN2 : 0, &work, &hu);
		if (!r)
			dp_run_keep(R, "skyline chain");
	}
	dp_sky_hulls_free(&hu);
	free(key);
	return r == -ENOMEM ? r : 0;
}

/* Best fit by size and by area over the overlaps R->ol. */
int dp_pass_best_fit(struct dp_run *R)
{
	size_t k;
	int r;

	for (k = 0; R->ol && k < 2; k++) {
		r = best_fit(&R->p, R->ol, k);
		if (r == -ENOMEM)
			return r;
		if (!r)
			dp_run_keep(R, k ? "best-fit area" : "best-fit size");
	}
	return 0;
}
