// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - the search's parameters: the values --strategy search runs
 * with (each field is described in search.h), and the portfolio passes
 * and glue rules switched off by name.
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

const char *dp_search_part(size_t k)
{
	size_t np = 0;

	while (dp_portfolio_pass(np))
		np++;
	if (k < np)
		return dp_portfolio_pass(k);
	return dp_glue_rule((int)(k - np));
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
	const char *s;
	int k;

	for (k = 0; (s = dp_portfolio_pass(k)); k++)
		if (!strcmp(s, name)) {
			par->passes_off |= 1u << k;
			return 0;
		}
	for (k = 0; (s = dp_glue_rule(k)); k++)
		if (!strcmp(s, name)) {
			par->glue_off |= 1u << k;
			return 0;
		}
	return -1;
}
