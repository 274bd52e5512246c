// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - the top search of --strategy search, an improver: the placement
 * above a level L is made again by the
 * skyline's chain pass (skyline.c), the items below L kept where they are
 * as a floor under it; the lower end is kept.  L goes down from the top
 * in par->top_levels steps to a tenth of the placement's height, each
 * level tried par->top_tries times with the ties perturbed (each size's
 * weight drawn from [1, par->top_spread) by a fixed seed; every other try
 * by span^2), until the chain passes have visited budget
 * segments and candidates.  Valid by construction: in each column the
 * items above L sat above every item kept, and the pass puts them back
 * above the kept items' tops.  Where the slice search cannot move the
 * long items the skyline left on top (they cross every slice), this
 * places them again, with all the items above L.  The driver's round
 * (im->round) seeds the ties, so each round's tries differ.
 */
#include <errno.h>
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

int dp_top_improve(struct dp_improve *im)
{
	const struct dp_problem *p = im->p;
	const struct dp_search_params *par = im->par;
	struct dp_best *best = im->best;
	uint64_t lb = im->goal, budget = im->budget, seed = im->round;
	struct dp_item *it = p->it;
	size_t n = p->n;
	uint64_t start = p->start;
	uint64_t *key = dp_realloc_array(NULL, n + 1, sizeof(*key));
	uint64_t work = 0, L, e;
	uint64_t rs = 0x9e3779b97f4a7c15ULL * (3 + 2 * seed) + 1;
	struct dp_sky_hulls hu;
	int j, k, r = 0;
	size_t i;

	im->spent = 0;
	if (!key)
		return -ENOMEM;
	r = dp_sky_hulls_new(it, n, p->iv, &hu);
	if (r) {			/* -1: no pass can place these */
		free(key);
		return r == -ENOMEM ? r : 0;
	}
	for (j = 1; j <= par->top_levels; j++)
		for (k = 0; k < par->top_tries; k++) {
			if (best->end <= lb || work >= budget || r == -ENOMEM)
				goto out;
			L = start + (uint64_t)((unsigned __int128)(best->end - start) *
					       (10 * par->top_levels - 9 * j) /
					       (10 * par->top_levels));
			for (i = 0; i < n; i++)
				it[i].addr = best->addr[i] < L ? best->addr[i] :
					     DP_UNSET;
			dp_sky_perturb(it, n, par->top_spread, &rs, key);
			r = dp_skyline_chain(p, par, key,
					     DP_SKY_KEEP | (k % 2 ? DP_SKY_SPAN2 : 0),
					     &work, &hu);
			if (r || (e = dp_items_end(it, n, start)) >= best->end)
				continue;
			best->end = e;
			for (i = 0; i < n; i++)
				best->addr[i] = it[i].addr;
		}
out:
	for (i = 0; i < n; i++)
		it[i].addr = best->addr[i];
	dp_sky_hulls_free(&hu);
	free(key);
	im->spent = work;
	return r == -ENOMEM ? r : 0;
}
