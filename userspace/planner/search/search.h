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
/* the fewest items of a block dp_place_search solves on its own */
#define DP_BLOCK_MIN	32

/* ---- the search (strategy.c and the parts it runs) ------------------ */

/* The default node budget of one dp_place_search (nodes = DP_UNSET):
 * DP_SEARCH_WORK / (n + 1 + 4 x the mean overlaps of an item) search
 * nodes, at least 1000.  A node is one item placed tentatively; it costs
 * about its level's list (n) plus its neighbours and sections (a few times
 * its overlaps), so the default is seconds up to DP_SEARCH_MAX_ITEMS.
 * overlaps: the overlap entries (two per overlapping pair). */
#define DP_SEARCH_WORK	(1ULL << 30)
uint64_t dp_search_budget(size_t n, uint64_t overlaps);

/*
 * Places every item in [start, ceiling) like dp_place, but with the lowest
 * end it can find: the portfolio of constructive passes, then the exact
 * search with a budget of `nodes` search nodes (0: portfolio only;
 * DP_UNSET: dp_search_budget's default for these items).  Items that
 * fall into independent time blocks (dp_time_blocks) are searched a block
 * at a time, the hardest first with the whole budget, the others with
 * their share by items, each stopping once it reaches the highest end so
 * far.  Never ends above dp_place's simplify order when that fits.
 * Deterministic.
 * Returns 0 (it[].addr set), or -1 when nothing was found within the
 * ceiling: st->proven then says no placement exists.
 */
int dp_place_search(struct dp_item *it, size_t n, const struct dp_iv *iv,
		    uint64_t start, uint64_t ceiling, uint64_t page,
		    uint64_t nodes, enum dp_engine eng,
		    struct dp_search_stats *st);

/* dp_place_search with the glued items' search (glue.c) on (glue = 1,
 * as dp_place_search) or off (for tests) */
int dp_place_search_glue(struct dp_item *it, size_t n,
			 const struct dp_iv *iv, uint64_t start,
			 uint64_t ceiling, uint64_t page, uint64_t nodes,
			 enum dp_engine eng, int glue,
			 struct dp_search_stats *st);

/*
 * The capacity question (--capacity C): is there a placement within C?
 * First the minimiser itself, every phase of dp_place_search with no
 * ceiling (a ceiling can keep every constructive pass from an incumbent,
 * and the skyline top, slice and ruin and recreate searches start from
 * one), each phase stopping at the first placement that ends within C;
 * then, when that ended above C, dp_place_search within C (its decision
 * probe, and the proof that none exists). So whenever dp_place_search
 * without a ceiling ends at or below C, this succeeds. Its answers.
 */
int dp_place_search_within(struct dp_item *it, size_t n,
			   const struct dp_iv *iv, uint64_t start,
			   uint64_t capacity, uint64_t page, uint64_t nodes,
			   enum dp_engine eng, struct dp_search_stats *st);


/* glue.c: the items glued into rectangles (see the comment there): k
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
 * the five, in that order.  0, or -ENOMEM (g empty) */
#define DP_GLUE_ALL		0
#define DP_GLUE_LONG		1
#define DP_GLUE_STACKS_FIRST	2
#define DP_GLUE_FEWEST		3
#define DP_GLUE_FEWEST_CHAINS	4
#define DP_GLUE_RULES		5
int dp_glue(const struct dp_item *it, size_t n, const struct dp_iv *iv,
	    uint64_t page, int rule, struct dp_glued *g);
/* the same, stopped after at most max_rounds rounds: each of its
 * rectangles lies inside one of dp_glue's, at a fixed offset (the rounds
 * after only glue rectangles whole) */
int dp_glue_rounds(const struct dp_item *it, size_t n,
		   const struct dp_iv *iv, uint64_t page, int rule,
		   size_t max_rounds, struct dp_glued *g);
/* each of the n items' addresses from its rectangle's */
void dp_unglue(const struct dp_glued *g, struct dp_item *it, size_t n);
void dp_glued_free(struct dp_glued *g);
/* the fewest items the search glues, and the most it keeps glued:
 * NUM / DEN of the items */
#define DP_GLUE_MIN	64
#define DP_GLUE_KEEP_NUM	9
#define DP_GLUE_KEEP_DEN	10
/* the most rectangles a level of the glued placement's refinement has
 * (strategy.c): NUM / DEN of the items */
#define DP_REFINE_NUM	1
#define DP_REFINE_DEN	2
/* and the part of the rectangles' share of the budgets a level spends */
#define DP_REFINE_PART	3
/* a rule's glued placement is refined only when it ends at most 1 /
 * DP_REFINE_NEAR above the best placement before it, at most
 * DP_REFINE_LEVELS levels (the kinds-first rules' 64 rounds make 6) */
#define DP_REFINE_NEAR	50
#define DP_REFINE_LEVELS	6

/* strategy.c: dp_place in simplify order with the page rule (seed), or
 * dp_place_search (--strategy search); why[0 .. len): the search's
 * verdict on failure, to end the error message with ("" in seed mode) */
int dp_place_opts(const struct dp_opts *o, struct dp_item *it, size_t n,
		  const struct dp_iv *iv, uint64_t start, uint64_t ceiling,
		  struct dp_place_stats *st, size_t *failed, FILE *log,
		  const char *tag, char *why, size_t len);

/* skyline.c: the bottom-up pass of the portfolio (see the comment there);
 * key[] orders items of the same span (larger first).  0; -1 when an item
 * would end above ceiling, a time is UINT64_MAX or the pass would visit
 * more than DP_SKYLINE_WORK segments and candidates; -ENOMEM. */
#define DP_SKYLINE_WORK	(1ULL << 29)
/* the chain pass's reruns with perturbed ties (strategy.c) */
#define DP_SKYLINE_RESTARTS	60
int dp_skyline(struct dp_item *it, size_t n, const struct dp_iv *iv,
	       const uint64_t *key, uint64_t start, uint64_t ceiling,
	       uint64_t page, const struct dp_sky_hulls *hu);
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
int dp_skyline_chain(struct dp_item *it, size_t n, const struct dp_iv *iv,
		     const uint64_t *key, uint64_t start, uint64_t ceiling,
		     uint64_t page, int flags, uint64_t *work,
		     const struct dp_sky_hulls *hu);
/* slices.c: the slice search (see the comment there) from the placement
 * best[] ending at *best_end, towards lb (start + the lower bound), within
 * budget (search nodes and subproblem items); best[] and *best_end
 * lowered when it finds better, it[].addr = best[] on return, *spent what
 * it used.  0, or -ENOMEM (best[] still a valid placement). */
struct dp_ovl;
int dp_slices(struct dp_item *it, size_t n, const struct dp_iv *iv,
	      const struct dp_ovl *ol, uint64_t start, uint64_t page,
	      uint64_t lb, uint64_t budget, uint64_t *best, uint64_t *best_end,
	      uint64_t *spent);
/* The slice search's default budget (nodes = DP_UNSET) */
#define DP_SLICES_BUDGET	(1ULL << 21)
/* slices.c: the top search (see the comment there) from best[] ending at
 * *best_end, towards lb, within the ceiling and budget segments and
 * candidates visited by its skyline passes, its tie weights drawn from
 * seed (round 0, 1, ...: each a different sequence); best[] and
 * *best_end lowered when it finds better, it[].addr = best[] on return,
 * *spent the work done (it may pass budget by one pass's).  0, or
 * -ENOMEM (best[] still a valid placement). */
int dp_top_search(struct dp_item *it, size_t n, const struct dp_iv *iv,
		  uint64_t start, uint64_t ceiling, uint64_t page, uint64_t lb,
		  uint64_t budget, uint64_t seed, uint64_t *best,
		  uint64_t *best_end, uint64_t *spent);
#define DP_TOP_WORK	(1ULL << 29)
/* the top search and the slice search again, from what they reached,
 * while a round lowers the end and the rounds' top searches have not
 * spent DP_TOP_WORK (or the placement's share of it) in all
 * (strategy.c) */
#define DP_SLICES_ROUNDS	3
/* ruin_recreate.c: ruin and recreate (see the comment there) from best[]
 * ending at *best_end, towards lb, within the ceiling and budget overlap entries
 * visited; best[] and *best_end lowered when it finds better, it[].addr
 * = best[] on return.  0, or -ENOMEM (best[] still a valid placement). */
struct dp_ovl;
int dp_ruin_recreate(struct dp_item *it, size_t n, const struct dp_ovl *ol,
		     uint64_t start, uint64_t ceiling, uint64_t page, uint64_t lb,
		     uint64_t budget, uint64_t *best, uint64_t *best_end);
#define DP_RUIN_WORK	(1ULL << 26)	/* in all, at most */
#define DP_RUIN_ITEM	(1ULL << 16)	/* per item, at most */
/* the budget the search gives ruin and recreate on n items */
static inline uint64_t dp_ruin_recreate_budget(size_t n)
{
	return n < DP_RUIN_WORK / DP_RUIN_ITEM ? n * DP_RUIN_ITEM : DP_RUIN_WORK;
}

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
