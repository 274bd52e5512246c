// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - the search's parameters: the values --strategy search runs
 * with (each field is described in search.h), the budgets they make, and
 * the phase table the search's driver walks, whose named rows
 * --search-off switches off.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "search/search.h"

const struct dp_search_params dp_search_defaults = {
	/* the driver */
	.search_work = 1ULL << 30,
	.min_nodes = 1000,
	.block_min = 32,
	/* the glue */
	.glue_min = 64,
	.glue_keep_num = 9, .glue_keep_den = 10,
	.glue_rounds = 64,
	/* an input that glues a pair a round stops after about 16 rounds */
	.glue_work = 16,
	/* a chain of n items of one size, glued only at its two ends a
	 * round, stops here */
	.glue_fewest_work = 1024,
	/* the glued placement's refinement */
	.refine_num = 1, .refine_den = 2,
	.refine_part = 3,
	.refine_near = 50,
	.refine_levels = 6,	/* the kinds-first rules' 64 rounds make 6 */
	/* the skyline passes */
	.skyline_work = 1ULL << 29,
	.skyline_restarts = 60,
	.chain_spread = 2,
	/* the slice search */
	.slices_budget = 1ULL << 21,
	.slice_items = 400,
	.slice_probes = 3,
	.slice_probe_nodes = 20000,
	/* the top search */
	.top_work = 1ULL << 29,
	.slices_rounds = 3,
	.top_levels = 30, .top_tries = 5,
	/* far apart, so each try is close to a random tie order and the
	 * tries differ (the chain pass's are close: chain_spread) */
	.top_spread = 64,
	/* ruin and recreate */
	.ruin_work = 1ULL << 26, .ruin_item = 1ULL << 16,
	/* its boxes and ejections */
	.ruin_min = 8, .ruin_max = 48,
	.ruin_out = 400,
	.ruin_tour = 8,
	.ruin_eject = 90,
};

/*
 * The phases, in the order they run.  The constructive passes first: after
 * the first, each runs only while the placement so far misses the goal,
 * so nothing more is built once a pass meets it (the overlaps, before the
 * first pass that reads them: ovl).  Then the search on the items glued
 * by each rule, the exact search, and the improvers: the top and slice
 * searches in rounds, then ruin and recreate.  A new part is one row.
 */
const struct dp_phase dp_search_phases[] = {
	{ .name = "first-fit", .kind = DP_PHASE_PASS,
	  .pass = dp_pass_first_fit },
	{ .name = "skyline", .kind = DP_PHASE_PASS, .pass = dp_pass_skyline },
	{ .name = "best-fit", .kind = DP_PHASE_PASS, .pass = dp_pass_best_fit,
	  .ovl = 1 },
	{ .name = "glue-all", .kind = DP_PHASE_GLUE, .rule = DP_GLUE_ALL },
	{ .name = "glue-long", .kind = DP_PHASE_GLUE, .rule = DP_GLUE_LONG },
	{ .name = "glue-stacks-first", .kind = DP_PHASE_GLUE,
	  .rule = DP_GLUE_STACKS_FIRST },
	{ .name = "glue-fewest", .kind = DP_PHASE_GLUE,
	  .rule = DP_GLUE_FEWEST },
	{ .name = "glue-fewest-chains", .kind = DP_PHASE_GLUE,
	  .rule = DP_GLUE_FEWEST_CHAINS },
	{ .kind = DP_PHASE_EXACT },
	{ .kind = DP_PHASE_ROUND, .improve = dp_top_improve,
	  .budget = DP_BUDGET_TOP, .how = "skyline top" },
	{ .kind = DP_PHASE_ROUND, .improve = dp_slices_improve,
	  .budget = DP_BUDGET_LNS, .how = "slices" },
	{ .kind = DP_PHASE_IMPROVE, .improve = dp_ruin_recreate_improve,
	  .budget = DP_BUDGET_RR, .how = "ruin and recreate" },
	{ .kind = DP_PHASE_END },
};

const char *dp_search_part(size_t k)
{
	const struct dp_phase *ph;

	for (ph = dp_search_phases; ph->kind != DP_PHASE_END; ph++)
		if (ph->name && !k--)
			return ph->name;
	return NULL;
}

int dp_search_params_of(const char *list, struct dp_search_params *par)
{
	const char *s = list, *comma;
	char name[64];

	*par = dp_search_defaults;
	while (s && *s) {
		size_t len;

		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (len >= sizeof(name))
			return -1;
		memcpy(name, s, len);
		name[len] = 0;
		if (dp_search_off(par, name))
			return -1;
		s = comma ? comma + 1 : NULL;
	}
	return 0;
}

int dp_search_off_check(const char *list, struct dp_err *e)
{
	struct dp_search_params par;
	char known[256] = "";
	const char *s;
	size_t k, len = 0;

	if (!dp_search_params_of(list, &par))
		return 0;
	for (k = 0; (s = dp_search_part(k)) && len < sizeof(known); k++)
		len += snprintf(known + len, sizeof(known) - len, "%s%s",
				k ? ", " : "", s);
	return dp_fail(e, "--search-off: \"%s\" names a part the search does not have (%s)",
		       list, known);
}

int dp_search_off(struct dp_search_params *par, const char *name)
{
	const struct dp_phase *ph;

	for (ph = dp_search_phases; ph->kind != DP_PHASE_END; ph++)
		if (ph->name && !strcmp(ph->name, name)) {
			par->off |= 1u << (ph - dp_search_phases);
			return 0;
		}
	return -1;
}

/* ---- budgets ------------------------------------------------------------ */

uint64_t dp_search_budget(const struct dp_search_params *par, size_t n,
			  uint64_t overlaps)
{
	uint64_t w = par->search_work / (n + 1 + 4 * (overlaps / (n ? n : 1)));

	return w < par->min_nodes ? par->min_nodes : w;
}

uint64_t dp_ruin_recreate_budget(const struct dp_search_params *par, size_t n)
{
	return n < par->ruin_work / par->ruin_item ? n * par->ruin_item :
	       par->ruin_work;
}

uint64_t dp_budget_scale(uint64_t x, size_t k, size_t n)
{
	unsigned __int128 y = (unsigned __int128)x * k / (n ? n : 1);

	return !x ? 0 : y < 1 ? 1 : y > UINT64_MAX ? UINT64_MAX : (uint64_t)y;
}

struct dp_budgets dp_budgets_share(const struct dp_budgets *bu, size_t k,
				   size_t n, int glue)
{
	struct dp_budgets s = {
		.par = bu->par,
		.nodes = bu->nodes == DP_UNSET ? DP_UNSET :
			 dp_budget_scale(bu->nodes, k, n),
		.share = dp_budget_scale(k, bu->share, bu->of),
		.of = n,
		.glue = glue,
		.stop = 0,
	};
	int j;

	for (j = 0; j < DP_BUDGETS; j++)
		s.b[j] = dp_budget_scale(bu->b[j], k, n);
	return s;
}

struct dp_budgets dp_budgets_whole(const struct dp_search_params *par,
				   size_t n, uint64_t nodes, uint64_t stop)
{
	uint64_t lns = nodes == DP_UNSET ? par->slices_budget : nodes;

	return (struct dp_budgets){
		.par = par,
		.nodes = nodes,
		.b = {
			[DP_BUDGET_LNS] = lns,
			[DP_BUDGET_TOP] = lns ? par->top_work : 0,
			[DP_BUDGET_RR] = lns ? dp_ruin_recreate_budget(par, n) : 0,
		},
		.share = n,
		.of = n,
		.glue = 1,
		.stop = stop,
	};
}
