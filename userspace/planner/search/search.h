/* SPDX-License-Identifier: GPL-2.0 */
/*
 * search.h - the search room: --strategy search -- the driver and its
 * portfolio, the skyline passes, the exact search (branch and bound),
 * the glue, time blocks, the slice and top searches, ruin and recreate
 * (the files of search/).
 * Not installed, like internal.h.
 */
#ifndef DRAMPLAN_SEARCH_H
#define DRAMPLAN_SEARCH_H

#include "internal.h"

/* ---- the search's parameters (params.c) ----------------------------- */

/* Every tuning constant of --strategy search, by the part that reads it.
 * dp_search_defaults holds the values the search runs with; tests and
 * benchmarks run it with a copy changed. */
struct dp_search_params {
	/* the driver (strategy.c) */
	uint64_t search_work;	/* default nodes: search_work / (n + 1 + 4 x
				 * mean overlaps), dp_search_budget */
	uint64_t min_nodes;	/* ... and at least this many */
	size_t block_min;	/* fewest items of a time block solved alone */
	/* the glue (glue.c) and its use (strategy.c) */
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
	/* the skyline passes (skyline.c, strategy.c) */
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
	uint32_t passes_off;	/* bit k: portfolio pass k not run */
	uint32_t glue_off;	/* bit k: glue rule k not tried */
};
extern const struct dp_search_params dp_search_defaults;
/* the portfolio pass or glue rule NAME (dp_search_part) switched off in
 * *par: 0, or -1 when there is none of that name */
int dp_search_off(struct dp_search_params *par, const char *name);
/* *par: the defaults with every part named in list (comma-separated,
 * NULL: none) switched off; 0, or -1 at a name that is none */
int dp_search_params_of(const char *list, struct dp_search_params *par);
/* strategy.c: the name of portfolio pass k, or NULL when there is none */
const char *dp_portfolio_pass(int k);

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
/* the items' independent time blocks (see the comment there):
 * blk[i] the block of item i, numbered by time from 0, *nb of them; a
 * block is closed at a time no item spans only once it holds min items
 * (a last one below min joins the one before).  0, or -ENOMEM. */
int dp_time_blocks(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		   size_t min, uint32_t *blk, size_t *nb);

/* ---- the search (strategy.c and the parts it runs) ------------------ */

/* The default node budget of one dp_place_search (nodes = DP_UNSET):
 * search_work / (n + 1 + 4 x the mean overlaps of an item) search
 * nodes, at least min_nodes.  A node is one item placed tentatively; it
 * costs about its level's list (n) plus its neighbours and sections (a
 * few times its overlaps), so the default is seconds up to
 * DP_SEARCH_MAX_ITEMS.
 * overlaps: the overlap entries (two per overlapping pair). */
uint64_t dp_search_budget(const struct dp_search_params *par, size_t n,
			  uint64_t overlaps);

/*
 * Places every item of p like dp_place, but with the lowest
 * end it can find: the portfolio of constructive passes, then the exact
 * search with a budget of `nodes` search nodes (0: portfolio only;
 * DP_UNSET: dp_search_budget's default for these items).  Items that
 * fall into independent time blocks (dp_time_blocks) are searched a block
 * at a time, the hardest first with the whole budget, the others with
 * their share by items, each stopping once it reaches the highest end so
 * far.  Never ends above dp_place's simplify order when that fits.
 * Deterministic.  par: the parameters (NULL: dp_search_defaults).
 * Returns 0 (it[].addr set), or -1 when nothing was found within the
 * ceiling: st->proven then says no placement exists.
 */
int dp_place_search(const struct dp_problem *p, uint64_t nodes,
		    enum dp_engine eng, const struct dp_search_params *par,
		    struct dp_search_stats *st);

/*
 * The capacity question (--capacity C): is there a placement of p
 * within C (its ceiling)?
 * First the minimiser itself, every phase of dp_place_search with no
 * ceiling (a ceiling can keep every constructive pass from an incumbent,
 * and the skyline top, slice and ruin and recreate searches start from
 * one), each phase stopping at the first placement that ends within C;
 * then, when that ended above C, dp_place_search within C (its decision
 * probe, and the proof that none exists). So whenever dp_place_search
 * without a ceiling ends at or below C, this succeeds. Its answers.
 */
int dp_place_search_within(const struct dp_problem *p, uint64_t nodes,
			   enum dp_engine eng,
			   const struct dp_search_params *par,
			   struct dp_search_stats *st);


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
 * the five, in that order; dp_glue_rule names them.  0, or -ENOMEM (g
 * empty) */
#define DP_GLUE_ALL		0
#define DP_GLUE_LONG		1
#define DP_GLUE_STACKS_FIRST	2
#define DP_GLUE_FEWEST		3
#define DP_GLUE_FEWEST_CHAINS	4
#define DP_GLUE_RULES		5
int dp_glue(const struct dp_problem *p, const struct dp_search_params *par,
	    int rule, struct dp_glued *g);
/* the name of glue rule k, or NULL when there is none */
const char *dp_glue_rule(int k);
/* the same, stopped after at most max_rounds rounds: each of its
 * rectangles lies inside one of dp_glue's, at a fixed offset (the rounds
 * after only glue rectangles whole) */
int dp_glue_rounds(const struct dp_problem *p,
		   const struct dp_search_params *par, int rule,
		   size_t max_rounds, struct dp_glued *g);
/* each of the n items' addresses from its rectangle's */
void dp_unglue(const struct dp_glued *g, struct dp_item *it, size_t n);
void dp_glued_free(struct dp_glued *g);

/* strategy.c: dp_place in simplify order with the page rule (seed), or
 * dp_place_search (--strategy search), on p with its page DP_PAGE; the
 * log's lines start with tag (log NULL: none); why: the search's
 * verdict on failure, to end the error message with ("" in seed mode) */
struct dp_why {
	char s[200];
};
int dp_place_opts(const struct dp_opts *o, const struct dp_problem *p,
		  struct dp_place_stats *st, size_t *failed, FILE *log,
		  const char *tag, struct dp_why *why);

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
/* slices.c: the slice search (see the comment there) of p (its ceiling
 * unused) from the placement *best, towards lb (start + the lower bound),
 * within budget (search nodes and subproblem items); *best lowered when
 * it finds better, it[].addr = best->addr[] on return, *spent what it
 * used.  0, or -ENOMEM (*best still a valid placement). */
struct dp_ovl;
int dp_slices(const struct dp_problem *p, const struct dp_ovl *ol,
	      const struct dp_search_params *par, uint64_t lb, uint64_t budget,
	      struct dp_best *best, uint64_t *spent);
/* slices.c: the top search (see the comment there) of p from *best,
 * towards lb, within budget segments and candidates visited by its
 * skyline passes, its tie weights drawn from seed (round 0, 1, ...: each
 * a different sequence); *best lowered when it finds better, it[].addr =
 * best->addr[] on return, *spent the work done (it may pass budget by one
 * pass's).  0, or -ENOMEM (*best still a valid placement). */
int dp_top_search(const struct dp_problem *p,
		  const struct dp_search_params *par, uint64_t lb,
		  uint64_t budget, uint64_t seed, struct dp_best *best,
		  uint64_t *spent);
/* ruin_recreate.c: ruin and recreate (see the comment there) of p from
 * *best, towards lb, within budget overlap entries visited; *best lowered
 * when it finds better, it[].addr = best->addr[] on return.  0, or
 * -ENOMEM (*best still a valid placement). */
int dp_ruin_recreate(const struct dp_problem *p, const struct dp_ovl *ol,
		     const struct dp_search_params *par, uint64_t lb,
		     uint64_t budget, struct dp_best *best);
/* the budget the search gives ruin and recreate on n items */
uint64_t dp_ruin_recreate_budget(const struct dp_search_params *par, size_t n);

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
