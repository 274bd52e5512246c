// SPDX-License-Identifier: GPL-2.0
/*
 * strategy.c - --strategy search: a portfolio of constructive passes, the
 * best of them as the incumbent, then the exact search (branch_bound.c)
 * to improve it.
 *
 * The portfolio: first fit in the four orders dp_place has (simplify -- the
 * seed's --, size, area, start) and best fit by size and by area (the
 * greedy-by-size heap simulators of TFLite and XLA: each item, largest
 * first, takes the smallest gap between its placed neighbours that holds
 * it, else the lowest address above them).  The incumbent is the pass with
 * the lowest end (max addr + size) within the ceiling; ties go to the
 * earlier pass, so the seed's own plan is kept unless something beats it.
 *
 * The search then asks decision questions ("probes", branch_bound.c)
 * with a node budget:
 *   1. no incumbent within the ceiling: can it be done within the ceiling
 *      at all?  (the --capacity decision problem; the whole budget)
 *   2. the lower bound (start + most bytes live at once): found is optimal;
 *   3. bisection between what is proven or given up on and the best found.
 * A probe that spends its budget (half of what is left) counts as a
 * failure for the bisection but proves nothing.
 *
 * Items that split into independent time blocks (blocks.c) are searched
 * a block at a time, all of the above on each: the hardest block first,
 * then each of the others only down to the highest end so far (the
 * answer cannot go below it), where it stops.
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

/* The placement in p's items as the best when it ends lower (by name,
 * then *how); returns its end. */
static uint64_t keep(const struct dp_problem *p, struct dp_best *best,
		     const char **how, const char *name)
{
	uint64_t e = dp_items_end(p->it, p->n, p->start);
	size_t i;

	if (best->end != UINT64_MAX && e >= best->end)
		return e;
	best->end = e;
	*how = name;
	for (i = 0; i < p->n; i++)
		best->addr[i] = p->it[i].addr;
	return e;
}

/* Adopt the search's solution when it ends lower. */
static void adopt(const struct dp_exact *b, const struct dp_problem *p,
		  struct dp_best *best, const char **how)
{
	const uint64_t *sol = dp_exact_solution(b);
	size_t i;

	for (i = 0; i < p->n; i++)
		p->it[i].addr = sol[i];
	keep(p, best, how, "search");
}

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

uint64_t dp_search_budget(const struct dp_search_params *par, size_t n,
			  uint64_t overlaps)
{
	uint64_t w = par->search_work / (n + 1 + 4 * (overlaps / (n ? n : 1)));

	return w < par->min_nodes ? par->min_nodes : w;
}

/* The budgets of one placement, or a time block's share of them. */
struct budgets {
	const struct dp_search_params *par;	/* every share's the same */
	uint64_t nodes;		/* the exact search's; DP_UNSET: the default */
	uint64_t lns;		/* the slice search's nodes and items */
	uint64_t top;		/* the top search's segments and candidates */
	uint64_t rr;		/* ruin and recreate's overlap entries */
	size_t share, of;	/* the default nodes scaled by share / of */
	int glue;		/* try the items glued (glue.c) */
	uint64_t stop;		/* not 0: done at an end within it, between
				 * phases (dp_place_search_within); a share
				 * (share_of) has none */
};

/* x * k / n, at least 1 when x is not 0: a block's share of a budget */
static uint64_t scale(uint64_t x, size_t k, size_t n)
{
	unsigned __int128 y = (unsigned __int128)x * k / (n ? n : 1);

	return !x ? 0 : y < 1 ? 1 : y > UINT64_MAX ? UINT64_MAX : (uint64_t)y;
}

/* bu's share for k of n items (a time block, or the glued rectangles):
 * each budget times k / n, the default nodes too; glue: whether they
 * are glued in turn */
static struct budgets share_of(const struct budgets *bu, size_t k, size_t n,
			       int glue)
{
	struct budgets s = {
		.par = bu->par,
		.nodes = bu->nodes == DP_UNSET ? DP_UNSET :
			 scale(bu->nodes, k, n),
		.lns = scale(bu->lns, k, n),
		.top = scale(bu->top, k, n),
		.rr = scale(bu->rr, k, n),
		.share = scale(k, bu->share, bu->of),
		.of = n,
		.glue = glue,
		.stop = 0,
	};

	return s;
}

/* The search's state, shared by its phases.  goal: where it stops, the
 * lower bound, or another block's end when higher (target). */
struct srch {
	struct dp_problem p;
	const struct dp_search_params *par;
	struct dp_best best;
	const char *how;
	struct dp_search_stats *st;
	enum dp_engine eng;
	uint64_t target, goal;
	const struct budgets *bud;
};

/* The skyline passes (skyline.c): the plain one, ties by size; then,
 * while above the lower bound, the chain pass with ties by size x span,
 * and again with each size's weight in the ties drawn in [1,
 * par->chain_spread) (a fixed seed), every other time with ties by size
 * x span^2, up to
 * par->skyline_restarts times and while the chain passes have visited
 * fewer than par->skyline_work segments and candidates.  0, or -ENOMEM. */
static int skyline_pass(struct srch *S)
{
	uint64_t *key = dp_realloc_array(NULL, S->p.n + 1, sizeof(*key));
	uint64_t work = 0, rs = 0x9e3779b97f4a7c15ULL + 1;
	struct dp_sky_hulls hu;
	size_t i, k;
	int r;

	if (!key)
		return -ENOMEM;
	/* the passes' times and hulls, once; -1: a time is UINT64_MAX,
	 * and no pass can place these items */
	r = dp_sky_hulls_new(S->p.it, S->p.n, S->p.iv, &hu);
	if (r) {
		free(key);
		return r == -ENOMEM ? r : 0;
	}
	for (i = 0; i < S->p.n; i++)
		key[i] = S->p.it[i].size;
	r = dp_skyline(&S->p, S->par, key, &hu);
	if (!r)
		keep(&S->p, &S->best, &S->how, "skyline");
	for (k = 0; k <= S->par->skyline_restarts && r != -ENOMEM &&
	     S->best.end > S->goal && work < S->par->skyline_work; k++) {
		if (k)
			dp_sky_perturb(S->p.it, S->p.n, S->par->chain_spread,
				       &rs, key);
		r = dp_skyline_chain(&S->p, S->par, key,
				     k % 2 ? DP_SKY_SPAN2 : 0, &work, &hu);
		if (!r)
			keep(&S->p, &S->best, &S->how, "skyline chain");
	}
	dp_sky_hulls_free(&hu);
	free(key);
	return r == -ENOMEM ? r : 0;
}

/* The first fit in each order (dp_place), the seed's simplify order
 * first (st->seed_end).  0, or -ENOMEM. */
static int first_fits(struct srch *S, struct dp_ovl **ol)
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
	struct dp_search_stats *st = S->st;
	size_t k;
	int r;

	(void)ol;
	for (k = 0; k < 4; k++) {
		struct dp_place_stats ps = { 0 };
		size_t failed;

		r = dp_place(&S->p, orders[k].order, S->eng, &ps, &failed,
			     NULL, "");
		if (r == -ENOMEM)
			return r;
		if (r)
			continue;
		if (!k)
			st->seed_end = dp_items_end(S->p.it, S->p.n, S->p.start);
		keep(&S->p, &S->best, &S->how, orders[k].name);
	}
	return 0;
}

static int skylines(struct srch *S, struct dp_ovl **ol)
{
	(void)ol;
	return skyline_pass(S) ? -ENOMEM : 0;
}

/* The overlaps *ol of the items, for best fit, the exact search and the
 * slice search (NULL: too many for the search's limits; above the exact
 * search's limit the overlaps still).  0, or -ENOMEM. */
static int overlaps(struct srch *S, struct dp_ovl **ol)
{
	struct dp_search_stats *st = S->st;

	if (S->p.n > DP_SEARCH_MAX_ITEMS)
		st->skipped = "above the search's limit of " DP_STR(DP_SEARCH_MAX_ITEMS) " items";
	if (dp_ovl_new(S->p.it, S->p.n, S->p.iv, DP_SEARCH_MAX_EDGES, ol))
		return -ENOMEM;
	if (!*ol)
		st->skipped = "above the search's limit of " DP_STR(DP_SEARCH_MAX_EDGES) " overlap entries";
	return 0;
}

/* Best fit by size and by area over the overlaps *ol.  0, or -ENOMEM. */
static int best_fits(struct srch *S, struct dp_ovl **ol)
{
	size_t k;
	int r;

	for (k = 0; *ol && k < 2; k++) {
		r = best_fit(&S->p, *ol, k);
		if (r == -ENOMEM)
			return r;
		if (!r)
			keep(&S->p, &S->best, &S->how,
			     k ? "best-fit area" : "best-fit size");
	}
	return 0;
}

/* The constructive passes, in this order: a new pass is one row (and a
 * name dp_search_off knows).  After the first, each runs only while the
 * placement so far misses the goal, so nothing more is built once a pass
 * meets it (the overlaps, before the first pass that reads them: ovl;
 * the search's sections only with a budget). */
static const struct portfolio_pass {
	const char *name;
	int (*run)(struct srch *S, struct dp_ovl **ol);
	int ovl;
} portfolio_passes[] = {
	{ .name = "first-fit", .run = first_fits },
	{ .name = "skyline", .run = skylines },
	{ .name = "best-fit", .run = best_fits, .ovl = 1 },
};

#define PORTFOLIO_PASSES	(sizeof(portfolio_passes) / sizeof(*portfolio_passes))

const char *dp_portfolio_pass(int k)
{
	return k >= 0 && (size_t)k < PORTFOLIO_PASSES ?
	       portfolio_passes[k].name : NULL;
}

/* The lower bound and the goal, then the portfolio_passes[] in order
 * but those par->passes_off switches off (the overlaps are built all the
 * same, for the searches after).  0, or -ENOMEM. */
static int portfolio(struct srch *S, struct dp_ovl **ol)
{
	struct dp_search_stats *st = S->st;
	uint64_t lb;
	size_t k;
	int r;

	if (dp_lower_bound_r(S->p.it, S->p.n, S->p.iv, &lb))
		return -ENOMEM;
	st->lower_bound = S->p.start + lb;
	S->goal = st->lower_bound > S->target ? st->lower_bound : S->target;
	for (k = 0; k < PORTFOLIO_PASSES; k++) {
		if (k && S->best.end <= S->goal)
			return 0;
		if (portfolio_passes[k].ovl && !*ol && overlaps(S, ol))
			return -ENOMEM;
		if (S->par->passes_off & 1u << k)
			continue;
		r = portfolio_passes[k].run(S, ol);
		if (r)
			return r;
	}
	return 0;
}

/* One probe of [start, cap) with the budget left: its solution adopted
 * when found, *rem what is left after it.  dp_exact_probe's answer. */
static int probe(struct srch *S, struct dp_exact *b, uint64_t cap,
		 uint64_t budget, uint64_t nodes, uint64_t *rem)
{
	int r = dp_exact_probe(b, S->p.start, cap, budget);

	if (r == -ENOMEM)
		return r;
	*rem = nodes - dp_exact_nodes(b);
	if (r == 1)
		adopt(b, &S->p, &S->best, &S->how);
	return r;
}

/* The exact search with b: any placement when the passes found none, then
 * bisection between the goal (the lower bound, or a higher target) and
 * the best end, within the node budget.  0, or -ENOMEM. */
static int exact(struct srch *S, struct dp_exact *b, uint64_t nodes)
{
	struct dp_search_stats *st = S->st;
	uint64_t lo = S->goal, rem = nodes, mid;
	int proof = 1, ran = 0, r;

	if (b && S->best.end == UINT64_MAX && rem) {
		st->searched = 1;
		r = probe(S, b, S->p.ceiling, rem, nodes, &rem);
		if (r == -ENOMEM)
			return r;
		if (r != 1)
			proof = !r;
	}
	if (b && S->best.end != UINT64_MAX && lo < S->best.end && rem) {
		st->searched = ran = 1;
		r = probe(S, b, lo, rem > 1 ? rem / 2 : 1, nodes, &rem);
		if (r == -ENOMEM)
			return r;
		/* found at a target above the lower bound proves nothing */
		proof = r == 0 || (r == 1 && lo == st->lower_bound);
		lo++;
		while (lo < S->best.end && rem) {
			mid = lo + (S->best.end - 1 - lo) / 2;
			r = probe(S, b, mid, rem > 1 ? rem / 2 : 1, nodes, &rem);
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
	st->end = S->best.end;
	st->how = S->how;
	if (S->best.end != UINT64_MAX)	/* optimal: at the bound, or all below failed */
		st->proven = S->best.end <= st->lower_bound ||
			     (ran && proof && lo >= S->best.end);
	else				/* none exists: the search said so */
		st->proven = (st->searched && proof) ||
			     st->lower_bound > S->p.ceiling;
	return 0;
}

/* S's result is now best_end, found by how (when lower than end) */
static void improved(struct srch *S, uint64_t end, const char *how)
{
	struct dp_search_stats *st = S->st;

	if (S->best.end >= end)
		return;
	S->how = how;
	st->how = S->how;
	st->end = S->best.end;
	st->proven |= S->best.end <= st->lower_bound;
}

/* The top search, then the slice search (slices.c) from the best placement,
 * within budget (0: none of these); again from what they reached, the top
 * search with other ties, while a round lowers the end, at most
 * par->slices_rounds rounds, the rounds' top searches within one budget
 * (not one each); then ruin and recreate (ruin_recreate.c).  0, or
 * -ENOMEM. */
static int lns_phase(struct srch *S, const struct dp_ovl *ol)
{
	struct dp_search_stats *st = S->st;
	uint64_t end, start = UINT64_MAX, spent, top = 0;
	int r = 0, k;

	for (k = 0; !r && k < S->par->slices_rounds && S->best.end < start &&
	     top < S->bud->top; k++) {
		start = end = S->best.end;
		r = dp_top_search(&S->p, S->par, S->goal, S->bud->top - top, k,
				  &S->best, &spent);
		top += spent;
		improved(S, end, "skyline top");
		if (r)
			break;
		end = S->best.end;
		r = dp_slices(&S->p, ol, S->par, S->goal, S->bud->lns,
			      &S->best, &spent);
		st->lns += spent;
		improved(S, end, "slices");
	}
	if (r || st->proven)
		return r;
	end = S->best.end;
	r = dp_ruin_recreate(&S->p, ol, S->par, S->goal, S->bud->rr,
			     &S->best);
	improved(S, end, "ruin and recreate");
	return r;
}

static int place_any(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct budgets *bu,
		     struct dp_search_stats *st);

/*
 * The placement of the items glued by rule in rounds rounds (in S->p.it, as
 * glued() found it) refined level by level: the items glued again in
 * rounds / 2, rounds / 4, ... 1 rounds, each of those rectangles where
 * the placement put it (it lies inside one of the coarser ones at a fixed
 * offset, glue.c), and that placement lowered by the top, slice and ruin
 * and recreate searches (lns_phase) within the level's share of the
 * budgets by rectangles (k of n), a third of it (par->refine_part).
 * A level with more than par->refine_num / refine_den of the items ends
 * it: finer ones cost about what the items do, and the search refines
 * the items after; so do meeting the goal and par->refine_levels levels.
 * Each level's placement is one more candidate; S->p.it holds the last.
 * The coarse search settles a layout the items alone cannot reach, and
 * the finer levels move what it could not split.  0, or -ENOMEM.
 */
static int refine(struct srch *S, int rule, size_t rounds)
{
	const struct dp_search_params *par = S->par;
	struct budgets s;
	struct dp_glued g;
	size_t r, i, level = 0;

	for (r = rounds / 2; r && S->best.end > S->goal &&
	     level++ < par->refine_levels; r /= 2) {
		struct dp_search_stats st = { .lower_bound = S->st->lower_bound };
		struct srch L = *S;
		struct dp_ovl *ol = NULL;
		int rc = -ENOMEM;

		if (dp_glue_rounds(&S->p, par, rule, r, &g))
			return -ENOMEM;
		if (g.k * par->refine_den > S->p.n * par->refine_num) {
			dp_glued_free(&g);
			return 0;
		}
		s = share_of(S->bud, g.k, par->refine_part * S->p.n, 0);
		L.p.it = g.it;
		L.p.n = g.k;
		L.p.iv = g.iv;
		L.st = &st;
		L.bud = &s;
		L.best.addr = dp_realloc_array(NULL, g.k + 1, sizeof(*L.best.addr));
		if (!L.best.addr ||
		    dp_ovl_new(g.it, g.k, g.iv, DP_SEARCH_MAX_EDGES, &ol))
			goto next;
		for (i = 0; i < S->p.n; i++)
			L.best.addr[g.node[i]] = S->p.it[i].addr - g.off[i];
		for (i = 0; i < g.k; i++)
			g.it[i].addr = L.best.addr[i];
		L.best.end = dp_items_end(g.it, g.k, S->p.start);
		rc = ol ? lns_phase(&L, ol) : 0;
		S->st->lns += st.lns;
		if (!rc) {
			for (i = 0; i < g.k; i++)
				g.it[i].addr = L.best.addr[i];
			dp_unglue(&g, S->p.it, S->p.n);
			keep(&S->p, &S->best, &S->how, "glued");
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
 * little) and other rectangles than *last (the previous rule's count,
 * updated).  Its budgets are this one's share by rectangles (k of n),
 * whole for each rule; the nodes it spends
 * are counted in st->nodes, which place_one takes out of this
 * placement's node budget.  Refined (refine()) only when it ends within
 * 1 / par->refine_near of the best before it.  0, or -ENOMEM. */
static int glued(struct srch *S, int rule, size_t *last)
{
	const struct dp_search_params *par = S->par;
	const struct budgets *bu = S->bud;
	struct dp_search_stats gs;
	struct dp_glued g;
	size_t k;
	int r;

	if (dp_glue(&S->p, par, rule, &g))
		return -ENOMEM;
	k = g.k;
	if (k * par->glue_keep_den <= S->p.n * par->glue_keep_num &&
	    k != *last) {
		struct budgets s = share_of(bu, k, S->p.n, 0);
		struct dp_problem gp = S->p;

		gp.it = g.it;
		gp.n = k;
		gp.iv = g.iv;
		r = place_any(&gp, S->eng, S->target, &s, &gs);
		S->st->nodes += gs.nodes;
		S->st->work += gs.work;
		S->st->lns += gs.lns;
		if (!r) {
			uint64_t before = S->best.end, e;

			dp_unglue(&g, S->p.it, S->p.n);
			e = keep(&S->p, &S->best, &S->how, "glued");
			if (before == UINT64_MAX || e <= before ||
			    e - before <= before / par->refine_near)
				r = refine(S, rule, g.rounds);
		}
		if (r == -ENOMEM) {
			dp_glued_free(&g);
			return r;
		}
	}
	*last = k;
	dp_glued_free(&g);
	return 0;
}

/* Within the caller's capacity already (bu->stop): no more phases. */
static int stopped(const struct srch *S)
{
	return S->bud->stop && S->best.end <= S->bud->stop;
}

/* The whole search on one placement (or one time block of it) that stops
 * at target when that is above its lower bound, within the budgets *bu.
 * dp_place_search's answers. */
static int place_one(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct budgets *bu,
		     struct dp_search_stats *st)
{
	struct srch S = { .p = *p, .par = bu->par,
			  .best = { .end = UINT64_MAX }, .how = "none",
			  .st = st, .eng = eng, .target = target, .bud = bu };
	struct dp_item *it = p->it;
	size_t n = p->n;
	uint64_t nodes = bu->nodes;
	struct dp_ovl *ol = NULL;
	struct dp_exact *b = NULL;
	size_t i, last = SIZE_MAX;
	int rc = -ENOMEM, rule;

	memset(st, 0, sizeof(*st));
	st->seed_end = UINT64_MAX;
	S.best.addr = dp_realloc_array(NULL, n + 1, sizeof(*S.best.addr));
	if (!S.best.addr || portfolio(&S, &ol))
		goto out;
	st->portfolio_end = S.best.end;
	/* the glued items' searches spend their nodes out of this budget */
	for (rule = 0; rule < DP_GLUE_RULES && bu->glue && nodes &&
	     n >= S.par->glue_min && S.best.end > S.goal && !stopped(&S);
	     rule++)
		if (!(S.par->glue_off & 1u << rule) && glued(&S, rule, &last))
			goto out;
	if (stopped(&S)) {	/* the phases so far, as the minimiser ran them */
		if (exact(&S, NULL, 0))
			goto out;
		goto done;
	}
	if (ol && !st->skipped) {
		if (nodes == DP_UNSET) {
			nodes = scale(dp_search_budget(S.par, n, ol->first[n]),
				      bu->share, bu->of);
			nodes = nodes < S.par->min_nodes ? S.par->min_nodes :
				nodes;
		}
		nodes = nodes > st->nodes ? nodes - st->nodes : !!nodes;
		if (S.best.end > S.goal && !nodes)
			st->skipped = "--search-nodes 0";
		else if (S.best.end > S.goal &&
			 !(b = dp_exact_new(it, n, p->iv, p->page, ol)))
			goto out;
	}
	st->budget = b ? nodes : 0;
	if (exact(&S, b, nodes))
		goto out;
	if (ol && S.best.end != UINT64_MAX && S.best.end > S.goal &&
	    !stopped(&S) && lns_phase(&S, ol))
		goto out;
done:
	rc = -1;
	if (S.best.end == UINT64_MAX)
		goto out;
	for (i = 0; i < n; i++)
		it[i].addr = S.best.addr[i];
	rc = 0;
out:
	dp_exact_free(b);
	dp_ovl_free(ol);
	free(S.best.addr);
	return rc;
}

/* One time block: its items sub[first .. first + n), their lower bound */
struct tblock {
	size_t first, n;
	uint64_t lb;
};

/* hardest first: the highest lower bound, then the most items; a block
 * that can only reach the end of one before it stops there */
static int cmp_tblock(const void *x, const void *y)
{
	const struct tblock *p = x, *q = y;

	return dp_cmp(q->lb, p->lb) ?: dp_cmp(q->n, p->n) ?:
	       dp_cmp(p->first, q->first);
}

/* The blocks' items copied to sub[] block after block (each in item
 * order, so ties break as in the whole), map[] back to the items; B[] in
 * the order they are solved.  0, or -ENOMEM. */
static int group(const struct dp_problem *p, const uint32_t *bid, size_t nb,
		 struct dp_item *sub, uint32_t *map, struct tblock *B)
{
	const struct dp_item *it = p->it;
	size_t i, b, at = 0, n = p->n;

	for (b = 0; b < nb; b++)
		B[b] = (struct tblock){ .first = 0, .n = 0, .lb = 0 };
	for (i = 0; i < n; i++)
		B[bid[i]].n++;
	for (b = 0; b < nb; b++) {
		B[b].first = at;
		at += B[b].n;
		B[b].n = 0;
	}
	for (i = 0; i < n; i++) {
		struct tblock *t = &B[bid[i]];

		map[t->first + t->n] = i;
		sub[t->first + t->n++] = it[i];
	}
	for (b = 0; b < nb; b++) {
		if (dp_lower_bound_r(sub + B[b].first, B[b].n, p->iv,
				     &B[b].lb))
			return -ENOMEM;
		B[b].lb += p->start;
	}
	qsort(B, nb, sizeof(*B), cmp_tblock);
	return 0;
}

/* A block's stats bs (r: its answer) into the whole's: costs summed, the
 * bound and the ends the highest; the outcome (pass, proof, why not
 * searched) that of the first block to reach the highest end, or of the
 * block that failed. */
static void merge(struct dp_search_stats *st, const struct dp_search_stats *bs,
		  int r)
{
	st->nodes += bs->nodes;
	st->work += bs->work;
	st->lns += bs->lns;
	st->budget += bs->budget;
	st->searched |= bs->searched;
	st->built |= bs->built;
	if (bs->lower_bound > st->lower_bound)
		st->lower_bound = bs->lower_bound;
	if (bs->seed_end > st->seed_end)
		st->seed_end = bs->seed_end;
	if (bs->portfolio_end > st->portfolio_end)
		st->portfolio_end = bs->portfolio_end;
	if (r || bs->end > st->end || !st->how) {
		st->end = r ? UINT64_MAX : bs->end;
		st->how = bs->how;
		st->proven = bs->proven;
		st->skipped = bs->skipped;
	}
}

/* dp_place_search over nb > 1 time blocks (bid[i]: item i's): each block
 * placed alone, hardest first, each later one stopping at the highest end
 * so far (or at target, when higher: the glued rectangles of a block
 * that has to reach another's end).  The seed's order restricted to a block is the block's own (the
 * simplify rule takes the least (pressure, index), and a pressure only
 * counts neighbours, all in the block), so the seed's plan is the union
 * of the blocks' and its end the highest of theirs: never above it, as
 * for one block, and no first fit over the whole.  The first block,
 * which usually decides the end, has the budgets bu of the whole, each
 * later one its share of them by its items: at most twice bu in all, and
 * a block that stops early spends nothing more.  dp_place_search's
 * answers. */
static int place_blocks(const struct dp_problem *p, enum dp_engine eng,
			uint64_t target, const struct budgets *bu,
			const uint32_t *bid, size_t nb,
			struct dp_search_stats *st)
{
	struct dp_item *it = p->it;
	size_t n = p->n;
	struct dp_item *sub = dp_realloc_array(NULL, n, sizeof(*sub));
	uint32_t *map = dp_realloc_array(NULL, n, sizeof(*map));
	struct tblock *B = dp_realloc_array(NULL, nb, sizeof(*B));
	struct dp_search_stats bs;
	size_t b, i;
	int rc = -ENOMEM, r = 0;

	memset(st, 0, sizeof(*st));
	if (!sub || !map || !B ||
	    group(p, bid, nb, sub, map, B))
		goto out;
	for (b = 0; b < nb && !r; b++) {
		const struct tblock *t = &B[b];
		size_t k = b ? t->n : n;
		struct budgets s = share_of(bu, k, n, bu->glue);
		struct dp_problem bp = *p;

		bp.it = sub + t->first;
		bp.n = t->n;
		r = place_one(&bp, eng, st->end > target ? st->end : target,
			      &s, &bs);
		if (r == -ENOMEM) {
			rc = r;
			goto out;
		}
		merge(st, &bs, r);
	}
	rc = -1;
	if (r)
		goto out;
	for (i = 0; i < n; i++)
		it[map[i]].addr = sub[i].addr;
	st->proven |= st->end <= st->lower_bound;
	rc = 0;
out:
	DP_FREE(sub, map, B);
	return rc;
}

/* The time blocks of the items (blocks.c), each searched alone when there
 * are several (place_blocks); one is searched as a whole.  The budgets
 * bu.  dp_place_search's answers. */
static int place_any(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct budgets *bu,
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

/* The budgets of a whole placement of n items with nodes search nodes;
 * stop: dp_place_search_within's capacity (0: none) */
static struct budgets whole(const struct dp_search_params *par, size_t n,
			    uint64_t nodes, uint64_t stop)
{
	uint64_t lns = nodes == DP_UNSET ? par->slices_budget : nodes;

	return (struct budgets){
		.par = par,
		.nodes = nodes,
		.lns = lns,
		.top = lns ? par->top_work : 0,
		.rr = lns ? dp_ruin_recreate_budget(par, n) : 0,
		.share = n,
		.of = n,
		.glue = 1,
		.stop = stop,
	};
}

int dp_place_search_within(const struct dp_problem *p, uint64_t nodes,
			   enum dp_engine eng,
			   const struct dp_search_params *par,
			   struct dp_search_stats *st)
{
	struct budgets bu = whole(par ? par : &dp_search_defaults, p->n, nodes,
				  p->ceiling);
	struct dp_problem q = *p;
	int r;

	/* the minimiser as dp_place_search runs it (same budgets, no
	 * ceiling, no target), done between phases once within capacity */
	q.ceiling = UINT64_MAX;
	r = place_any(&q, eng, 0, &bu, st);
	if (r == -ENOMEM || (!r && st->end <= p->ceiling))
		return r;
	bu.stop = 0;
	return place_any(p, eng, 0, &bu, st);
}

int dp_place_search(const struct dp_problem *p, uint64_t nodes,
		    enum dp_engine eng, const struct dp_search_params *par,
		    struct dp_search_stats *st)
{
	struct budgets bu = whole(par ? par : &dp_search_defaults, p->n, nodes,
				  0);

	return place_any(p, eng, 0, &bu, st);
}

/*
 * The DRAM passes' placement (passes.c): the seed's first fit in simplify
 * order, or with --strategy search dp_place_search on the same items, the
 * same region [start, ceiling) and the 4 KiB page rule (p's page
 * unused).  On failure
 * *failed names the item the seed's order could not place and *why is
 * what the search found, for the end of the error message ("" in seed
 * mode).
 */
int dp_place_opts(const struct dp_opts *o, const struct dp_problem *p,
		  struct dp_place_stats *st, size_t *failed, FILE *log,
		  const char *tag, struct dp_why *why)
{
	struct dp_problem q = *p;
	struct dp_search_params par;
	struct dp_search_stats ss;
	double t0 = dp_now();
	size_t n = p->n;
	int r;

	q.page = DP_PAGE;
	if (o->strategy != DP_STRATEGY_SEARCH)
		return dp_place(&q, DP_ORDER_SIMPLIFY, o->engine, st, failed,
				log, tag);
	/* the names were checked (dp_plan_model): an unknown one is ignored */
	dp_search_params_of(o->search_off, &par);
	r = dp_place_search(&q, o->search_nodes, o->engine, &par, &ss);
	if (r == -ENOMEM)
		return r;
	if (r) {
		char v[160];

		snprintf(why->s, sizeof(why->s), "; --strategy search: %s",
			 dp_search_verdict(&ss, v, sizeof(v)));
		r = dp_place(&q, DP_ORDER_SIMPLIFY, o->engine, st, failed,
			     NULL, tag);
		return r == -ENOMEM ? r : -1;
	}
	if (st && n && ss.end > st->peak)	/* as dp_place: max(addr + size) */
		st->peak = ss.end;
	if (log)
		fprintf(log, "%ssearch: %zu items, end 0x%llx (seed 0x%llx, lower bound 0x%llx%s), %s, %llu nodes, %.3f s\n",
			tag, n, (unsigned long long)ss.end,
			(unsigned long long)ss.seed_end,
			(unsigned long long)ss.lower_bound,
			ss.proven ? ", optimal" : "", ss.how,
			(unsigned long long)ss.nodes, dp_now() - t0);
	return 0;
}
