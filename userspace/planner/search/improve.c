// SPDX-License-Identifier: GPL-2.0
/*
 * improve.c - the improvers' rows of --strategy search: from the best
 * placement so far, the ROUND rows of dp_search_phases (the top search,
 * then the slice search) again and again from what they reached, while a
 * round lowers the end, at most par->slices_rounds rounds, a row whose
 * budget is one for all the rounds (DP_BUDGET_TOP) stopping them once it
 * is spent; then the IMPROVE rows (ruin and recreate) once, unless the
 * end is proven optimal by then.  Each improver is one call of its file's
 * improve entry (struct dp_improve); the result's name is its row's when
 * it lowers the end.
 */
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

/* R's result is now best.end, found by how (when lower than end) */
static void improved(struct dp_run *R, uint64_t end, const char *how)
{
	struct dp_search_stats *st = R->st;

	if (R->best.end >= end)
		return;
	R->how = how;
	st->how = R->how;
	st->end = R->best.end;
	st->proven |= R->best.end <= st->lower_bound;
}

/* One row's improver on R with budget; its spent in *spent. */
static int improve(struct dp_run *R, const struct dp_phase *ph,
		   uint64_t budget, uint64_t round, uint64_t *spent)
{
	struct dp_improve im = { .p = &R->p, .ol = R->ol, .par = R->par,
				 .goal = R->goal, .budget = budget,
				 .round = round, .best = &R->best };
	uint64_t end = R->best.end;
	int r = ph->improve(&im);

	*spent = im.spent;
	if (ph->budget == DP_BUDGET_LNS)
		R->st->lns += im.spent;
	improved(R, end, ph->how);
	return r;
}

/* The rounds of the ROUND rows; the budgets of one for all the rounds
 * in used[]. */
static int rounds(struct dp_run *R)
{
	const struct dp_budgets *bu = R->bud;
	uint64_t used[DP_BUDGETS] = { 0 }, start = UINT64_MAX, spent;
	const struct dp_phase *ph;
	int r = 0, k;

	for (k = 0; !r && k < R->par->slices_rounds &&
	     R->best.end < start && used[DP_BUDGET_TOP] < bu->b[DP_BUDGET_TOP];
	     k++) {
		start = R->best.end;
		for (ph = dp_search_phases; !r && ph->kind != DP_PHASE_END;
		     ph++) {
			uint64_t b = bu->b[ph->budget];

			if (ph->kind != DP_PHASE_ROUND)
				continue;
			if (ph->budget == DP_BUDGET_TOP)
				b -= used[DP_BUDGET_TOP];
			r = improve(R, ph, b, (uint64_t)k, &spent);
			used[ph->budget] += spent;
		}
	}
	return r;
}

int dp_run_improve(struct dp_run *R)
{
	const struct dp_phase *ph;
	uint64_t spent;
	int r = rounds(R);

	for (ph = dp_search_phases; ph->kind != DP_PHASE_END; ph++) {
		if (r || R->st->proven)
			return r;
		if (ph->kind == DP_PHASE_IMPROVE)
			r = improve(R, ph, R->bud->b[ph->budget], 0, &spent);
	}
	return r;
}
