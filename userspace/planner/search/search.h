/* SPDX-License-Identifier: GPL-2.0 */
/*
 * search.h - the search stage: --strategy search.  A placement problem and
 * the parameters to solve it with (struct dp_search) go in, dp_search_run
 * comes back with the lowest end it found.  The driver (strategy.c) walks
 * the phase table of params.c: the constructive passes (portfolio.c), the
 * glued items (glue.c, glued.c), the exact search (branch_bound.c,
 * exact.c), then the improvers (improve.c: top.c, slices.c,
 * ruin_recreate.c, one improve entry each), on each time block
 * (blocks.c) alone.  Not installed, like internal.h.
 */
#ifndef DRAMPLAN_SEARCH_H
#define DRAMPLAN_SEARCH_H

#include "internal.h"

/* ---- the search's parameters (params.c) ----------------------------- */

/* Every tuning constant of --strategy search, by the part that reads it.
 * dp_search_defaults holds the values the search runs with; tests and
 * benchmarks run it with a copy changed. */
struct dp_search_params {
	/* the driver (strategy.c, exact.c, blocks.c) */
	uint64_t search_work;	/* default nodes: search_work / (n + 1 + 4 x
				 * mean overlaps), dp_search_budget */
	uint64_t min_nodes;	/* ... and at least this many */
	size_t block_min;	/* fewest items of a time block solved alone */
	/* the glue (glue.c) and its use (glued.c) */
	size_t glue_min;	/* fewest items the search glues */
	size_t glue_keep_num;	/* a rule's rectangles are searched only when */
	size_t glue_keep_den;	/* at most num / den of the items */
	size_t glue_rounds;	/* most rounds of the kinds-first rules */
	size_t glue_work;	/* ... while they sorted at most this x n */
	size_t glue_fewest_work; /* the fewest rules: walked at most this x n */
	size_t refine_num;	/* the most rectangles a level of the */
	size_t refine_den;	/* refinement has: num / den of the items */
	size_t refine_part;	/* a level spends 1 / part of their share */
	uint64_t refine_near;	/* refined only within 1 / near of the best */
	size_t refine_levels;	/* most levels of the refinement */
	/* the skyline passes (skyline.c, portfolio.c) */
	uint64_t skyline_work;	/* segments and candidates: a pass, and the
				 * chain pass's reruns in all, at most */
	size_t skyline_restarts; /* the chain pass's reruns, perturbed ties */
	uint64_t chain_spread;	/* their weights drawn from [1, spread) */
	/* the top and slice searches (slices.c) */
	uint64_t slices_budget;	/* nodes and items, --search-nodes unset */
	size_t slice_items;	/* items per slice, by first live time */
	int slice_probes;	/* bisection probes per slice */
	uint64_t slice_probe_nodes; /* search nodes per probe */
	uint64_t top_work;	/* the top searches' segments and candidates */
	int slices_rounds;	/* most rounds of top and slice search */
	int top_levels;		/* levels of the top search, top down */
	int top_tries;		/* tries per level, ties perturbed */
	uint64_t top_spread;	/* their weights drawn from [1, spread) */
	/* ruin and recreate (ruin_recreate.c) */
	uint64_t ruin_work;	/* overlap entries visited, in all at most */
	uint64_t ruin_item;	/* ... and per item at most */
	size_t ruin_min;	/* items a box takes out, at least */
	size_t ruin_max;	/* and at most */
	size_t ruin_out;	/* items an ejection may take out */
	size_t ruin_tour;	/* items drawn for a high seed */
	uint64_t ruin_eject;	/* ejections per 100 steps */
	/* switches, by name (dp_search_off) */
	uint32_t off;		/* bit k: row k of dp_search_phases not run */
};
extern const struct dp_search_params dp_search_defaults;
/* the portfolio pass or glue rule NAME (dp_search_part) switched off in
 * *par: 0, or -1 when there is none of that name */
int dp_search_off(struct dp_search_params *par, const char *name);
/* *par: the defaults with every part named in list (comma-separated,
 * NULL: none) switched off; 0, or -1 at a name that is none */
int dp_search_params_of(const char *list, struct dp_search_params *par);

/* The best placement so far: addr[] of each item, ending at end
 * (UINT64_MAX: none yet).  The improving searches start from it and
 * lower it when they find better. */
struct dp_best {
	uint64_t *addr;
	uint64_t end;
};

/* ---- sweep.c: what the search's parts read of one item set ---------- */

/* three keys, each descending, then i ascending (qsort) */
struct dp_key3 {
	uint64_t k[3];
	uint32_t i;
};
int dp_cmp_key3(const void *x, const void *y);
/* a closed time span [lo, hi] of item i; by lo, then i (qsort) */
struct dp_span {
	uint64_t lo, hi;
	uint32_t i;
};
int dp_cmp_span(const void *x, const void *y);
/* The overlaps of the items (CSR: item v's are ov[first[v] .. first[v+1]))
 * and each item's live time; what best fit and the search share.  0 with
 * *out NULL when there would be more than max_edges entries (two per
 * pair), or -ENOMEM. */
struct dp_ovl {
	uint32_t *first, *ov;
	uint64_t *width;
	size_t n;
};
int dp_ovl_new(const struct dp_item *it, size_t n, const struct dp_iv *iv,
	       size_t max_edges, struct dp_ovl **out);
void dp_ovl_free(struct dp_ovl *o);
/* the end of a placement, max(start, addr + size) */
uint64_t dp_items_end(const struct dp_item *it, size_t n, uint64_t start);
/* the distinct times of n items and each item's hull [cs, ce)
 * among them (m, m: no interval), which depend on the items' intervals
 * only: the passes of one search over the same items share them (hu, of
 * these very items; NULL: a pass finds its own), so that each pass sorts
 * only the ties of items with the same hull.
 * dp_sky_hulls_new: 0; -1 when a time is UINT64_MAX; -ENOMEM. */
struct dp_sky_hulls {
	uint64_t *t;		/* m + 1 times */
	size_t m;
	uint32_t *cs, *ce;
	uint32_t *ord;		/* the items by cs, then ce descending */
};
int dp_sky_hulls_new(const struct dp_item *it, size_t n,
		     const struct dp_iv *iv, struct dp_sky_hulls *h);
void dp_sky_hulls_free(struct dp_sky_hulls *h);
/* the hulls' order, and the skyline's buckets': first segment, longest
 * first, key (descending), index (qsort) */
struct dp_hull_key {
	uint32_t cs, ce;
	uint64_t key;
	uint32_t i;
};
int dp_cmp_hull_key(const void *x, const void *y);
/* ---- the search: a problem and its parameters in, a placement out ---- */

/*
 * One call of the search, as MiniMalloc's Problem and SolverParams: the
 * problem (its items are placed: it[].addr) and how to solve it.
 */
struct dp_search {
	struct dp_problem problem;	/* the items, [start, ceiling), page */
	uint64_t nodes;		/* the exact search's node budget; 0: the
				 * portfolio only; DP_UNSET: dp_search_budget */
	enum dp_engine engine;	/* dp_place's, for the first-fit pass */
	const struct dp_search_params *params;	/* NULL: dp_search_defaults */
	int within;		/* the capacity question, see below */
};

/*
 * Places every item of s->problem like dp_place, but with the lowest end it
 * can find: the phases of dp_search_phases in their order, the constructive
 * passes first, then the glued items, the exact search with its node
 * budget (s->nodes) and the improvers.  Items that fall into independent
 * time blocks (dp_time_blocks) are searched a block at a time, the hardest
 * first with the whole budget, the others with their share by items, each
 * stopping once it reaches the highest end so far.  Never ends above
 * dp_place's simplify order when that fits.  Deterministic.
 *
 * s->within, the capacity question (--capacity C, the problem's ceiling):
 * is there a placement within C?  First the minimiser itself, every phase
 * with no ceiling (a ceiling can keep every constructive pass from an
 * incumbent, and the improvers start from one), each phase stopping at
 * the first placement that ends within C; then, when that ended above C,
 * the search within C (its decision probe, and the proof that none
 * exists).  So whenever the search without a ceiling ends at or below C,
 * this succeeds.
 *
 * Returns 0 (it[].addr set), or -1 when nothing was found within the
 * ceiling: st->proven then says no placement exists; or -ENOMEM.
 */
int dp_search_run(const struct dp_search *s, struct dp_search_stats *st);

/* The default node budget of one search (nodes = DP_UNSET, params.c):
 * search_work / (n + 1 + 4 x the mean overlaps of an item) search
 * nodes, at least min_nodes.  A node is one item placed tentatively; it
 * costs about its level's list (n) plus its neighbours and sections (a
 * few times its overlaps), so the default is seconds up to
 * DP_SEARCH_MAX_ITEMS.
 * overlaps: the overlap entries (two per overlapping pair). */
uint64_t dp_search_budget(const struct dp_search_params *par, size_t n,
			  uint64_t overlaps);
/* params.c: the budget the search gives ruin and recreate on n items */
uint64_t dp_ruin_recreate_budget(const struct dp_search_params *par, size_t n);

/* ---- the phases (params.c) and the driver's state -------------------- */

struct dp_run;
struct dp_improve;

enum dp_phase_kind {
	DP_PHASE_PASS,		/* a constructive pass (portfolio.c) */
	DP_PHASE_GLUE,		/* the search on the items glued (glued.c) */
	DP_PHASE_EXACT,		/* bisection by the exact search (exact.c) */
	DP_PHASE_ROUND,		/* an improver run in rounds with the other
				 * ROUND rows (improve.c) */
	DP_PHASE_IMPROVE,	/* an improver, once, after the rounds */
	DP_PHASE_END,
};

/* The budgets of struct dp_budgets an improver row spends */
enum dp_budget {
	DP_BUDGET_TOP,		/* segments and candidates, over all rounds */
	DP_BUDGET_LNS,		/* nodes and items, each round (st->lns) */
	DP_BUDGET_RR,		/* overlap entries */
	DP_BUDGETS,
};

/* One row of the search: what runs, in the table's order */
struct dp_phase {
	const char *name;	/* --search-off's name (NULL: always runs) */
	enum dp_phase_kind kind;
	int (*pass)(struct dp_run *R);		/* PASS */
	int (*improve)(struct dp_improve *im);	/* ROUND, IMPROVE */
	int ovl;		/* PASS: reads the overlaps (built first) */
	int rule;		/* GLUE: DP_GLUE_* */
	enum dp_budget budget;	/* ROUND, IMPROVE */
	const char *how;	/* ROUND, IMPROVE: the result's name */
};
/* the rows, ending with one of kind DP_PHASE_END */
extern const struct dp_phase dp_search_phases[];

/* The budgets of one placement, or a time block's share of them. */
struct dp_budgets {
	const struct dp_search_params *par;	/* every share's the same */
	uint64_t nodes;		/* the exact search's; DP_UNSET: the default */
	uint64_t b[DP_BUDGETS];	/* the improvers' */
	size_t share, of;	/* the default nodes scaled by share / of */
	int glue;		/* try the items glued (glue.c) */
	uint64_t stop;		/* not 0: done at an end within it, between
				 * phases (s->within); a share has none */
};
/* params.c: the budgets of a whole placement of n items with nodes search
 * nodes; stop: the capacity of s->within (0: none) */
struct dp_budgets dp_budgets_whole(const struct dp_search_params *par,
				   size_t n, uint64_t nodes, uint64_t stop);
/* params.c: bu's share for k of n items (a time block, or the glued
 * rectangles): each budget times k / n, the default nodes too; glue:
 * whether they are glued in turn */
struct dp_budgets dp_budgets_share(const struct dp_budgets *bu, size_t k,
				   size_t n, int glue);
/* params.c: x * k / n, at least 1 when x is not 0 */
uint64_t dp_budget_scale(uint64_t x, size_t k, size_t n);

/* The driver's state on one item set (a time block, or glued rectangles),
 * shared by its phases.  goal: where it stops, the lower bound, or another
 * block's end when higher (target). */
struct dp_run {
	struct dp_problem p;
	const struct dp_search_params *par;
	enum dp_engine eng;
	uint64_t target, goal;
	const struct dp_budgets *bud;
	struct dp_search_stats *st;
	struct dp_best best;
	const char *how;	/* the phase that gave best */
	struct dp_ovl *ol;	/* the overlaps, once a phase needed them */
	size_t glued_last;	/* the last glue rule's rectangles */
	int done;		/* within the capacity: no phase more */
	/* the whole search on a sub-problem (the glued rectangles): the
	 * driver's own entry, handed down */
	int (*solve)(const struct dp_problem *p, enum dp_engine eng,
		     uint64_t target, const struct dp_budgets *bu,
		     struct dp_search_stats *st);
};

/* Within the caller's capacity already (bu->stop): no more phases. */
static inline int dp_run_stopped(const struct dp_run *R)
{
	return R->bud->stop && R->best.end <= R->bud->stop;
}

/* portfolio.c: the lower bound and the goal of R (0, or -ENOMEM) */
int dp_run_goal(struct dp_run *R);
/* portfolio.c: the placement in R's items as the best when it ends lower
 * (by name); returns its end */
uint64_t dp_run_keep(struct dp_run *R, const char *name);
/* portfolio.c: R->ol, the overlaps of the items, for best fit, the exact
 * search and the improvers (NULL: too many for the search's limits;
 * st->skipped says so).  0, or -ENOMEM. */
int dp_run_overlaps(struct dp_run *R);
/* portfolio.c: the constructive passes (dp_search_phases' PASS rows):
 * each keeps its placements that end lower.  0, or -ENOMEM. */
int dp_pass_first_fit(struct dp_run *R);
int dp_pass_skyline(struct dp_run *R);
int dp_pass_best_fit(struct dp_run *R);
/* glued.c: the GLUE row of rule (see the comment there).  0, or -ENOMEM. */
int dp_run_glued(struct dp_run *R, int rule);
/* exact.c: the EXACT row: the bisection by the exact search within the
 * node budget, and the proof; done when within the capacity already.
 * 0, or -ENOMEM. */
int dp_run_exact(struct dp_run *R);
/* improve.c: the ROUND and IMPROVE rows, on R->ol (not NULL) from R's best
 * placement.  0, or -ENOMEM. */
int dp_run_improve(struct dp_run *R);
/* An improver's call (top.c, slices.c, ruin_recreate.c: one entry each,
 * dp_*_improve): it lowers *best, a placement of p ending at best->end,
 * towards goal within budget (its unit the improver's own), from the
 * overlaps ol; it[].addr = best->addr[] on return, spent what it used (it
 * may pass budget by one step's).  0, or -ENOMEM (*best still a valid
 * placement). */
struct dp_improve {
	const struct dp_problem *p;	/* its ceiling unused */
	const struct dp_ovl *ol;
	const struct dp_search_params *par;
	uint64_t goal;
	uint64_t budget;
	uint64_t round;		/* the driver's round: seeds the ties */
	struct dp_best *best;
	uint64_t spent;		/* out */
};
/* top.c: the top search (see the comment there) */
int dp_top_improve(struct dp_improve *im);
/* slices.c: the slice search (see the comment there) */
int dp_slices_improve(struct dp_improve *im);
/* ruin_recreate.c: ruin and recreate (see the comment there) */
int dp_ruin_recreate_improve(struct dp_improve *im);

/* ---- blocks.c: independent time blocks ------------------------------- */

/* the items' independent time blocks (see the comment there):
 * blk[i] the block of item i, numbered by time from 0, *nb of them; a
 * block is closed at a time no item spans only once it holds min items
 * (a last one below min joins the one before).  0, or -ENOMEM. */
int dp_time_blocks(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		   size_t min, uint32_t *blk, size_t *nb);
/* One time block: its items sub[first .. first + n), their lower bound */
struct dp_tblock {
	size_t first, n;
	uint64_t lb;
};
/* The blocks' items copied to sub[] block after block (each in item
 * order, so ties break as in the whole), map[] back to the items; B[] in
 * the order they are solved, hardest first.  0, or -ENOMEM. */
int dp_blocks_group(const struct dp_problem *p, const uint32_t *bid,
		    size_t nb, struct dp_item *sub, uint32_t *map,
		    struct dp_tblock *B);
/* A block's stats bs (r: its answer) into the whole's st */
void dp_blocks_merge(struct dp_search_stats *st,
		     const struct dp_search_stats *bs, int r);

/* glue.c: the items of p glued into rectangles (see the comment there),
 * its start and ceiling unused: k
 * of them in it[] over intervals iv[] (the items' own, then one per glued
 * rectangle); item i lies at it[node[i]].addr + off[i]; rounds: how many
 * glued anything. */
struct dp_glued {
	struct dp_item *it;
	struct dp_iv *iv;
	size_t k, rounds;
	uint32_t *node;
	uint64_t *off;
};
/* rule: DP_GLUE_ALL (chains first: a round stacks only when no chain is
 * left), DP_GLUE_LONG (the same, but stacks only of items live longer
 * than the median item that glues: a short interval is shared by chance
 * far more often), DP_GLUE_STACKS_FIRST (everything, a round stacking
 * and then chaining what is left), DP_GLUE_FEWEST (everything, a round
 * gluing the pairs with the fewest alternatives) or DP_GLUE_FEWEST_CHAINS
 * (the same, a stack counting one alternative more).  The search tries
 * the five, in that order; dp_search_phases names them.  0, or -ENOMEM (g
 * empty) */
#define DP_GLUE_ALL		0
#define DP_GLUE_LONG		1
#define DP_GLUE_STACKS_FIRST	2
#define DP_GLUE_FEWEST		3
#define DP_GLUE_FEWEST_CHAINS	4
#define DP_GLUE_RULES		5
int dp_glue(const struct dp_problem *p, const struct dp_search_params *par,
	    int rule, struct dp_glued *g);
/* the same, stopped after at most max_rounds rounds: each of its
 * rectangles lies inside one of dp_glue's, at a fixed offset (the rounds
 * after only glue rectangles whole) */
int dp_glue_rounds(const struct dp_problem *p,
		   const struct dp_search_params *par, int rule,
		   size_t max_rounds, struct dp_glued *g);
/* each of the n items' addresses from its rectangle's */
void dp_unglue(const struct dp_glued *g, struct dp_item *it, size_t n);
void dp_glued_free(struct dp_glued *g);

/* skyline.c: the bottom-up pass of the portfolio (see the comment there);
 * key[] orders items of the same span (larger first).  0; -1 when an item
 * would end above ceiling, a time is UINT64_MAX or the pass would visit
 * more than par->skyline_work segments and candidates; -ENOMEM. */
int dp_skyline(const struct dp_problem *p, const struct dp_search_params *par,
	       const uint64_t *key, const struct dp_sky_hulls *hu);
/* skyline.c: the chain pass, the same with each lowest run given the
 * items inside it that cover most of its time (ties: the largest sum of
 * span x key, or with DP_SKY_SPAN2 of span^2 x key), all at once; with
 * DP_SKY_KEEP the items that have an address keep it and the others go
 * above them (a partial placement completed); same answers; *work += the
 * segments and candidates it visited. */
#define DP_SKY_SPAN2	1
#define DP_SKY_KEEP	2
/* skyline.c: ties perturbed for a rerun: key[i] = it[i].size x a weight
 * drawn from [64, 64 x spread) by *rs, in item order (saturating). */
void dp_sky_perturb(const struct dp_item *it, size_t n, uint64_t spread,
		    uint64_t *rs, uint64_t *key);
int dp_skyline_chain(const struct dp_problem *p,
		     const struct dp_search_params *par, const uint64_t *key,
		     int flags, uint64_t *work, const struct dp_sky_hulls *hu);
/* branch_bound.c: the exact search of --strategy search (see the comment
 * there) */
struct dp_exact;
/* the search over the items (NULL: out of memory); ol must outlive it */
struct dp_exact *dp_exact_new(const struct dp_item *it, size_t n,
			      const struct dp_iv *iv, uint64_t page,
			      const struct dp_ovl *ol);
void dp_exact_free(struct dp_exact *b);
/* 1: a placement in [start, cap) (dp_exact_solution); 0: none exists;
 * -1: the budget (search nodes) ran out first; -ENOMEM */
int dp_exact_probe(struct dp_exact *b, uint64_t start, uint64_t cap,
		   uint64_t budget);
/* Each item's lowest offset and highest end in the probes that follow
 * (base[i] when above start, top[i] when below the cap; NULL: start and
 * the cap for all): the slice search pins its fixed neighbours with
 * base[i] = their address, top[i] = their end.  The arrays must outlive
 * the probes. */
void dp_exact_floors(struct dp_exact *b, const uint64_t *base,
		     const uint64_t *top);
const uint64_t *dp_exact_solution(const struct dp_exact *b);
uint64_t dp_exact_nodes(const struct dp_exact *b);
/* items and sections the search visited (its cost, counted like nodes) */
uint64_t dp_exact_work(const struct dp_exact *b);

#endif
