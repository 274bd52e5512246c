// SPDX-License-Identifier: GPL-2.0
/*
 * strategy.c - the driver of --strategy search: one struct dp_search in,
 * the lowest end it finds out.  It walks the phase table of params.c
 * (dp_search_phases) on each independent time block of the items
 * (blocks.c):
 *
 *   PASS     the constructive passes (portfolio.c), the best of them the
 *            incumbent; after the first, only while it misses the goal;
 *   GLUE     the whole search again on the items glued by a rule (glued.c),
 *            one more candidate;
 *   EXACT    the exact search's bisection towards the goal within the
 *            node budget, and the proof (exact.c, branch_bound.c);
 *   ROUND,   the improvers from the best placement (improve.c: top.c,
 *   IMPROVE  slices.c, ruin_recreate.c).
 *
 * The goal is the lower bound (start + most bytes live at once), or
 * another block's end when higher: a block that cannot end lower than
 * one solved before it stops there.  Blocks are solved hardest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

static int place_any(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct dp_budgets *bu,
		     struct dp_search_stats *st);

/* Whether row ph runs now (its kind's condition, and --search-off);
 * first: the first row. */
static int runs(const struct dp_run *R, const struct dp_phase *ph, int first)
{
	int on = !(R->par->off & 1u << (ph - dp_search_phases));

	switch (ph->kind) {
	case DP_PHASE_PASS:
		return on && (first || R->best.end > R->goal);
	case DP_PHASE_GLUE:
		return on && R->bud->glue && R->bud->nodes &&
		       R->p.n >= R->par->glue_min && R->best.end > R->goal &&
		       !dp_run_stopped(R);
	case DP_PHASE_EXACT:
		return 1;
	default:
		return R->ol && R->best.end != UINT64_MAX &&
		       R->best.end > R->goal && !dp_run_stopped(R);
	}
}

/* Row ph on R.  0, or -ENOMEM. */
static int run_phase(struct dp_run *R, const struct dp_phase *ph)
{
	int first = ph == dp_search_phases, r = 0;

	/* the overlaps, before the first pass that reads them, even when
	 * it is switched off (the phases after read them too) */
	if (ph->kind == DP_PHASE_PASS && ph->ovl && !R->ol &&
	    (first || R->best.end > R->goal) && dp_run_overlaps(R))
		return -ENOMEM;
	if (runs(R, ph, first)) {
		switch (ph->kind) {
		case DP_PHASE_PASS:
			r = ph->pass(R);
			break;
		case DP_PHASE_GLUE:
			r = dp_run_glued(R, ph->rule);
			break;
		case DP_PHASE_EXACT:
			r = dp_run_exact(R);
			break;
		default:		/* the improvers' rows, all at once */
			r = dp_run_improve(R);
			R->done = 1;
		}
	} else if (ph->kind == DP_PHASE_ROUND ||
		   ph->kind == DP_PHASE_IMPROVE) {
		R->done = 1;
	}
	if (ph->kind == DP_PHASE_PASS)
		R->st->portfolio_end = R->best.end;
	return r;
}

/* The whole search on one placement (or one time block of it) that stops
 * at target when that is above its lower bound, within the budgets *bu.
 * dp_search_run's answers. */
static int place_one(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct dp_budgets *bu,
		     struct dp_search_stats *st)
{
	struct dp_run R = { .p = *p, .par = bu->par, .eng = eng,
			    .target = target, .bud = bu, .st = st,
			    .best = { .end = UINT64_MAX }, .how = "none",
			    .glued_last = SIZE_MAX, .solve = place_any };
	const struct dp_phase *ph;
	size_t i;
	int rc = -ENOMEM;

	memset(st, 0, sizeof(*st));
	st->seed_end = UINT64_MAX;
	R.best.addr = dp_realloc_array(NULL, p->n + 1, sizeof(*R.best.addr));
	if (!R.best.addr || dp_run_goal(&R))
		goto out;
	for (ph = dp_search_phases; ph->kind != DP_PHASE_END && !R.done; ph++)
		if (run_phase(&R, ph))
			goto out;
	rc = -1;
	if (R.best.end == UINT64_MAX)
		goto out;
	for (i = 0; i < p->n; i++)
		p->it[i].addr = R.best.addr[i];
	rc = 0;
out:
	dp_ovl_free(R.ol);
	free(R.best.addr);
	return rc;
}

/* The search over nb > 1 time blocks (bid[i]: item i's): each block placed
 * alone, hardest first, each later one stopping at the highest end so
 * far (or at target, when higher: the glued rectangles of a block that
 * has to reach another's end).  The seed's order restricted to a block is
 * the block's own (the simplify rule takes the least (pressure, index),
 * and a pressure only counts neighbours, all in the block), so the seed's
 * plan is the union of the blocks' and its end the highest of theirs:
 * never above it, as for one block, and no first fit over the whole.
 * The first block, which usually decides the end, has the budgets bu of
 * the whole, each later one its share of them by its items: at most twice
 * bu in all, and a block that stops early spends nothing more.
 * dp_search_run's answers. */
static int place_blocks(const struct dp_problem *p, enum dp_engine eng,
			uint64_t target, const struct dp_budgets *bu,
			const uint32_t *bid, size_t nb,
			struct dp_search_stats *st)
{
	size_t n = p->n, b, i;
	struct dp_item *sub = dp_realloc_array(NULL, n, sizeof(*sub));
	uint32_t *map = dp_realloc_array(NULL, n, sizeof(*map));
	struct dp_tblock *B = dp_realloc_array(NULL, nb, sizeof(*B));
	struct dp_search_stats bs;
	int rc = -ENOMEM, r = 0;

	memset(st, 0, sizeof(*st));
	if (!sub || !map || !B || dp_blocks_group(p, bid, nb, sub, map, B))
		goto out;
	for (b = 0; b < nb && !r; b++) {
		struct dp_budgets s = dp_budgets_share(bu, b ? B[b].n : n, n,
						       bu->glue);
		struct dp_problem bp = *p;

		bp.it = sub + B[b].first;
		bp.n = B[b].n;
		r = place_one(&bp, eng, st->end > target ? st->end : target,
			      &s, &bs);
		if (r == -ENOMEM)
			goto out;
		dp_blocks_merge(st, &bs, r);
	}
	rc = -1;
	if (r)
		goto out;
	for (i = 0; i < n; i++)
		p->it[map[i]].addr = sub[i].addr;
	st->proven |= st->end <= st->lower_bound;
	rc = 0;
out:
	DP_FREE(sub, map, B);
	return rc;
}

/* The time blocks of the items (blocks.c), each searched alone when there
 * are several (place_blocks); one is searched as a whole.  The budgets
 * bu.  dp_search_run's answers. */
static int place_any(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct dp_budgets *bu,
		     struct dp_search_stats *st)
{
	uint32_t *bid = dp_realloc_array(NULL, p->n + 1, sizeof(*bid));
	size_t nb = 1;
	int rc;

	if (!bid || dp_time_blocks(p->it, p->n, p->iv, bu->par->block_min,
				   bid, &nb)) {
		free(bid);
		memset(st, 0, sizeof(*st));
		return -ENOMEM;
	}
	if (nb > 1)
		rc = place_blocks(p, eng, target, bu, bid, nb, st);
	else
		rc = place_one(p, eng, target, bu, st);
	free(bid);
	return rc;
}

int dp_search_run(const struct dp_search *s, struct dp_search_stats *st)
{
	const struct dp_search_params *par = s->params ? s->params :
					     &dp_search_defaults;
	struct dp_budgets bu = dp_budgets_whole(par, s->problem.n, s->nodes,
						s->within ? s->problem.ceiling : 0);
	struct dp_problem q = s->problem;
	int r;

	if (s->within) {
		/* the minimiser as it runs without a capacity (same budgets,
		 * no ceiling, no target), done between phases once within
		 * the capacity */
		q.ceiling = UINT64_MAX;
		r = place_any(&q, s->engine, 0, &bu, st);
		if (r == -ENOMEM || (!r && st->end <= s->problem.ceiling))
			return r;
		bu.stop = 0;
	}
	return place_any(&s->problem, s->engine, 0, &bu, st);
}
