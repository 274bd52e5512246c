// SPDX-License-Identifier: GPL-2.0
/*
 * glued.c - the glue rows of --strategy search (DP_PHASE_GLUE): the whole
 * search once more, on the items glued into rectangles by a rule
 * (glue.c), as one more candidate after the portfolio; and that placement
 * refined level by level.  The search on the rectangles is the driver's
 * own, handed down in the run (R->solve).
 */
#include <errno.h>
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

/*
 * The placement of the items glued by rule in rounds rounds (in R->p.it, as
 * dp_run_glued found it) refined level by level: the items glued again in
 * rounds / 2, rounds / 4, ... 1 rounds, each of those rectangles where
 * the placement put it (it lies inside one of the coarser ones at a fixed
 * offset, glue.c), and that placement lowered by the top, slice and ruin
 * and recreate searches (dp_run_improve) within the level's share of the
 * budgets by rectangles (k of n), a third of it (par->refine_part).
 * A level with more than par->refine_num / refine_den of the items ends
 * it: finer ones cost about what the items do, and the search refines
 * the items after; so do meeting the goal and par->refine_levels levels.
 * Each level's placement is one more candidate; R->p.it holds the last.
 * The coarse search settles a layout the items alone cannot reach, and
 * the finer levels move what it could not split.  0, or -ENOMEM.
 */
static int refine(struct dp_run *R, int rule, size_t rounds)
{
	const struct dp_search_params *par = R->par;
	struct dp_budgets s;
	struct dp_glued g;
	size_t r, i, level = 0;

	for (r = rounds / 2; r && R->best.end > R->goal &&
	     level++ < par->refine_levels; r /= 2) {
		struct dp_search_stats st = { .lower_bound = R->st->lower_bound };
		struct dp_run L = *R;
		struct dp_ovl *ol = NULL;
		int rc = -ENOMEM;

		if (dp_glue_rounds(&R->p, par, rule, r, &g))
			return -ENOMEM;
		if (g.k * par->refine_den > R->p.n * par->refine_num) {
			dp_glued_free(&g);
			return 0;
		}
		s = dp_budgets_share(R->bud, g.k, par->refine_part * R->p.n, 0);
		L.p.it = g.it;
		L.p.n = g.k;
		L.p.iv = g.iv;
		L.st = &st;
		L.bud = &s;
		L.best.addr = dp_realloc_array(NULL, g.k + 1, sizeof(*L.best.addr));
		if (!L.best.addr ||
		    dp_ovl_new(g.it, g.k, g.iv, DP_SEARCH_MAX_EDGES, &ol))
			goto next;
		for (i = 0; i < R->p.n; i++)
			L.best.addr[g.node[i]] = R->p.it[i].addr - g.off[i];
		for (i = 0; i < g.k; i++)
			g.it[i].addr = L.best.addr[i];
		L.best.end = dp_items_end(g.it, g.k, R->p.start);
		L.ol = ol;
		rc = ol ? dp_run_improve(&L) : 0;
		R->st->lns += st.lns;
		if (!rc) {
			for (i = 0; i < g.k; i++)
				g.it[i].addr = L.best.addr[i];
			dp_unglue(&g, R->p.it, R->p.n);
			dp_run_keep(R, "glued");
		}
next:
		free(L.best.addr);
		dp_ovl_free(ol);
		dp_glued_free(&g);
		if (rc)
			return rc;
	}
	return 0;
}

/* The whole search on the items glued into rectangles (glue.c) by
 * rule, as one more candidate after the portfolio, taken when it ends
 * lower; the search that follows starts from it.  Only when gluing leaves
 * at most par->glue_keep_num / glue_keep_den of the items (fewer saves
 * little) and other rectangles than the previous rule gave (R->glued_last,
 * updated).  Its budgets are this one's share by rectangles (k of n),
 * whole for each rule; the nodes it spends
 * are counted in st->nodes, which the exact row takes out of this
 * placement's node budget.  Refined (refine()) only when it ends within
 * 1 / par->refine_near of the best before it.  0, or -ENOMEM. */
int dp_run_glued(struct dp_run *R, int rule)
{
	const struct dp_search_params *par = R->par;
	const struct dp_budgets *bu = R->bud;
	struct dp_search_stats gs;
	struct dp_glued g;
	size_t k;
	int r;

	if (dp_glue(&R->p, par, rule, &g))
		return -ENOMEM;
	k = g.k;
	if (k * par->glue_keep_den <= R->p.n * par->glue_keep_num &&
	    k != R->glued_last) {
		struct dp_budgets s = dp_budgets_share(bu, k, R->p.n, 0);
		struct dp_problem gp = R->p;

		gp.it = g.it;
		gp.n = k;
		gp.iv = g.iv;
		r = R->solve(&gp, R->eng, R->target, &s, &gs);
		R->st->nodes += gs.nodes;
		R->st->work += gs.work;
		R->st->lns += gs.lns;
		if (!r) {
			uint64_t before = R->best.end, e;

			dp_unglue(&g, R->p.it, R->p.n);
			e = dp_run_keep(R, "glued");
			if (before == UINT64_MAX || e <= before ||
			    e - before <= before / par->refine_near)
				r = refine(R, rule, g.rounds);
		}
		if (r == -ENOMEM) {
			dp_glued_free(&g);
			return r;
		}
	}
	R->glued_last = k;
	dp_glued_free(&g);
	return 0;
}

