// SPDX-License-Identifier: GPL-2.0
/*
 * exact.c - the exact search's row of --strategy search (DP_PHASE_EXACT):
 * decision questions ("probes", branch_bound.c) with a node budget:
 *   1. no placement within the ceiling yet: can it be done within the
 *      ceiling at all?  (the --capacity decision problem; the whole budget)
 *   2. the goal (the lower bound, start + most bytes live at once, or a
 *      higher target): found there is optimal;
 *   3. bisection between what is proven or given up on and the best found.
 * A probe that spends its budget (half of what is left) counts as a
 * failure for the bisection but proves nothing.  Here too the verdict of a
 * search that found nothing, and the proof of one that did.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

const char *dp_search_verdict(const struct dp_search_stats *st, char *buf,
			      size_t len)
{
	if (st->proven)
		snprintf(buf, len, "none exists (the search completed)");
	else if (st->skipped)
		snprintf(buf, len, "none found by the constructive passes, and not searched (%s)",
			 st->skipped);
	else
		snprintf(buf, len, "none found within the search budget (%llu nodes spent, --search-nodes)",
			 (unsigned long long)st->nodes);
	return buf;
}

/* One probe of [start, cap) with the budget left: its solution adopted
 * when it ends lower, *rem what is left after it.  dp_exact_probe's
 * answer. */
static int probe(struct dp_run *R, struct dp_exact *b, uint64_t cap,
		 uint64_t budget, uint64_t nodes, uint64_t *rem)
{
	int r = dp_exact_probe(b, R->p.start, cap, budget);
	const uint64_t *sol;
	size_t i;

	if (r == -ENOMEM)
		return r;
	*rem = nodes - dp_exact_nodes(b);
	if (r == 1) {
		sol = dp_exact_solution(b);
		for (i = 0; i < R->p.n; i++)
			R->p.it[i].addr = sol[i];
		dp_run_keep(R, "search");
	}
	return r;
}

/* The bisection with b (NULL: none, the proof from the passes alone): any
 * placement when the passes found none, then between the goal and the
 * best end, within the node budget; the stats of the whole row. */
static int bisect(struct dp_run *R, struct dp_exact *b, uint64_t nodes)
{
	struct dp_search_stats *st = R->st;
	uint64_t lo = R->goal, rem = nodes, mid;
	int proof = 1, ran = 0, r;

	if (b && R->best.end == UINT64_MAX && rem) {
		st->searched = 1;
		r = probe(R, b, R->p.ceiling, rem, nodes, &rem);
		if (r == -ENOMEM)
			return r;
		if (r != 1)
			proof = !r;
	}
	if (b && R->best.end != UINT64_MAX && lo < R->best.end && rem) {
		st->searched = ran = 1;
		r = probe(R, b, lo, rem > 1 ? rem / 2 : 1, nodes, &rem);
		if (r == -ENOMEM)
			return r;
		/* found at a target above the lower bound proves nothing */
		proof = r == 0 || (r == 1 && lo == st->lower_bound);
		lo++;
		while (lo < R->best.end && rem) {
			mid = lo + (R->best.end - 1 - lo) / 2;
			r = probe(R, b, mid, rem > 1 ? rem / 2 : 1, nodes, &rem);
			if (r == -ENOMEM)
				return r;
			if (r != 1) {
				proof &= !r;
				lo = mid + 1;
			}
		}
	}
	/* added: the glued items' search may have counted some */
	st->nodes += b ? dp_exact_nodes(b) : 0;
	st->work += b ? dp_exact_work(b) : 0;
	st->built = !!b;
	st->end = R->best.end;
	st->how = R->how;
	if (R->best.end != UINT64_MAX)	/* optimal: at the bound, or all below failed */
		st->proven = R->best.end <= st->lower_bound ||
			     (ran && proof && lo >= R->best.end);
	else				/* none exists: the search said so */
		st->proven = (st->searched && proof) ||
			     st->lower_bound > R->p.ceiling;
	return 0;
}

/* The node budget: the caller's, or the default for these items scaled to
 * this share of them; less what the glued items' searches spent. */
static uint64_t nodes_left(const struct dp_run *R)
{
	const struct dp_budgets *bu = R->bud;
	uint64_t nodes = bu->nodes;
	size_t n = R->p.n;

	if (nodes == DP_UNSET) {
		nodes = dp_budget_scale(dp_search_budget(R->par, n,
							 R->ol->first[n]),
					bu->share, bu->of);
		nodes = nodes < R->par->min_nodes ? R->par->min_nodes : nodes;
	}
	return nodes > R->st->nodes ? nodes - R->st->nodes : !!nodes;
}

int dp_run_exact(struct dp_run *R)
{
	struct dp_search_stats *st = R->st;
	struct dp_exact *b = NULL;
	uint64_t nodes = R->bud->nodes;
	int r;

	if (dp_run_stopped(R)) {	/* the phases so far, as the minimiser ran them */
		R->done = 1;
		return bisect(R, NULL, 0);
	}
	if (R->ol && !st->skipped) {
		nodes = nodes_left(R);
		if (R->best.end > R->goal && !nodes)
			st->skipped = "--search-nodes 0";
		else if (R->best.end > R->goal &&
			 !(b = dp_exact_new(R->p.it, R->p.n, R->p.iv, R->p.page,
					    R->ol)))
			return -ENOMEM;
	}
	st->budget = b ? nodes : 0;
	r = bisect(R, b, nodes);
	dp_exact_free(b);
	return r;
}
