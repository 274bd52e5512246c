/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - libdramplan's own interfaces: the placer, the interval
 * tree, the search, the pipeline's passes, and what the library's files
 * share.  Not installed: the tests and the benchmarks in the tree use it;
 * a program outside uses libdramplan.h.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#ifndef DRAMPLAN_INTERNAL_H
#define DRAMPLAN_INTERNAL_H

#include "libdramplan.h"

/* ==== the library's own interfaces (tests and benchmarks use them too;
 * not installed) ==== */

/* ---- search: first fit with the 4 KiB page-straddle rule ----------- */

/* An occupied byte range [lo, hi) */
struct dp_range {
	uint64_t lo, hi;
};

/*
 * The seed's search, a pure function.  Sorts occ by lo (in place), builds
 * the gaps from start up to ceiling and takes the first that fits.
 * page != 0 applies the page-straddle rule exactly as the seed: a size that
 * stays inside one page of `page` bytes, or any size > page, goes at the raw
 * gap start; a size <= page that would straddle a page boundary is bumped to
 * that boundary if the rest of the gap still holds it.  page == 0 disables
 * the rule (pure placement, MiniMalloc mode).  align > 1 rounds each gap
 * start up to a multiple of align first (MiniMalloc's alignment column).
 * Returns 0 with *addr set, or -1 when no gap fits.
 */
int dp_first_fit(struct dp_range *occ, size_t n, uint64_t start,
		 uint64_t ceiling, uint64_t size, uint64_t page, uint64_t align,
		 uint64_t *addr);
/* The same on occ already sorted by lo */
int dp_first_fit_sorted(const struct dp_range *occ, size_t n, uint64_t start,
			uint64_t ceiling, uint64_t size, uint64_t page,
			uint64_t align, uint64_t *addr);

/* r[0..n) by lo (not stable: dp_first_fit needs only lo's order); past
 * depth levels of quicksort a part is heapsorted.  DP_SORT_DEPTH_AUTO:
 * 2 log2 n, as dp_first_fit sorts; the tests force the heapsort with 0. */
#define DP_SORT_DEPTH_AUTO	(~0U)
void dp_sort_ranges(struct dp_range *r, size_t n, unsigned int depth);

/* find_start_addr: 0 if hwm == 0, else hwm + 1. */
uint64_t dp_find_start_addr(uint64_t hwm);

/* ---- interval tree --------------------------------------------------- */

struct dp_itnode {
	uint64_t lo, hi, max;
	uint32_t payload;
	int32_t left, right;
};

struct dp_itree {
	struct dp_itnode *node;
	size_t n;
	int32_t root;
};

/* Sorts nodes by (lo, hi, payload), then makeTree + makeMax.  The
 * dp_itree_* calls that allocate return -ENOMEM when out of memory. */
int dp_itree_build(struct dp_itree *t, struct dp_itnode *nodes, size_t n);
struct dp_item;
struct dp_iv;
/* The tree of every interval of items it[0..n) (intervals in iv), the
 * item's index as payload; -1 (nothing kept) when it is too large. */
int dp_itree_of_items(struct dp_itree *t, const struct dp_item *it, size_t n,
		      const struct dp_iv *iv);
int32_t dp_itree_make_tree(struct dp_itree *t, int64_t lo, int64_t hi);
uint64_t dp_itree_make_max(struct dp_itree *t, int32_t idx);
/* Calls fn(payload, arg) for each node overlapping the closed [lo, hi];
 * returns the number of nodes visited (for tests of the pruning). */
typedef void (*dp_overlap_fn)(uint32_t payload, void *arg);
size_t dp_itree_overlaps(const struct dp_itree *t, uint64_t lo, uint64_t hi,
			 dp_overlap_fn fn, void *arg);
void dp_itree_free(struct dp_itree *t);

/* ---- generic placer (tree + simplify + select/search) ------------- */

struct dp_item {
	uint64_t size;		/* bytes to reserve (aligned size) */
	uint64_t align;		/* address alignment (1: none) */
	uint32_t iv_first, iv_count;	/* into the iv array given to dp_place */
	uint64_t addr;		/* out */
};

/*
 * Places every item in [start, ceiling): builds the interval tree over all
 * items' intervals, computes each item's interfering neighbours with it,
 * orders the items (simplify, see simplify.c for the rule) and gives each
 * one the first fit among its already placed neighbours.
 * On failure returns -1 and *failed = the item that did not fit, or
 * -ENOMEM when out of memory.
 */
int dp_place(struct dp_item *it, size_t n, const struct dp_iv *iv,
	     uint64_t start, uint64_t ceiling, uint64_t page,
	     enum dp_order order, enum dp_engine eng,
	     struct dp_place_stats *st, size_t *failed, FILE *log,
	     const char *tag);

/* The simplify order without an adjacency (k-d tree, dense.c): the same
 * order as dp_simplify_order.  -1 if the sizes sum to UINT64_MAX, -ENOMEM
 * when out of memory. */
int dp_simplify_order_iv(const struct dp_item *it, size_t n,
			 const struct dp_iv *iv, uint32_t *out);

/* The simplify order alone (for tests): out[] gets the select order.
 * 0, or -ENOMEM. */
int dp_simplify_order(const struct dp_item *it, size_t n,
		      const uint32_t *adj_first, const uint32_t *adj,
		      uint32_t *out);

/* Most bytes live at one time over the items' intervals; DP_UNSET when
 * out of memory (dp_lower_bound_r: 0, or -ENOMEM). */
uint64_t dp_lower_bound(const struct dp_item *it, size_t n,
			const struct dp_iv *iv);
int dp_lower_bound_r(const struct dp_item *it, size_t n,
		     const struct dp_iv *iv, uint64_t *lb);

/* ---- --strategy search (strategy.c, branch_bound.c) ---------------- */

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

/* blocks.c: the items' independent time blocks (see the comment there):
 * blk[i] the block of item i, numbered by time from 0, *nb of them; a
 * block is closed at a time no item spans only once it holds min items
 * (a last one below min joins the one before).  0, or -ENOMEM. */
int dp_time_blocks(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		   size_t min, uint32_t *blk, size_t *nb);
/* the fewest items of a block dp_place_search solves on its own */
#define DP_BLOCK_MIN	32

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

/* ---- pipeline -------------------------------------------------------- */

struct dp_ctx;
typedef int (*dp_pass_fn)(struct dp_ctx *);

struct dp_pass {
	const char *name;
	dp_pass_fn run;
	int dram_group;		/* left out by --disable-dram-allocation */
};

#define DP_MAX_PASSES 16
struct dp_pipeline {
	struct dp_pass pass[DP_MAX_PASSES];
	int n;
	double sec[DP_MAX_PASSES];
};

struct dp_shobj;

struct dp_ctx {
	struct dp_model *m;
	struct dp_opts o;
	struct dp_err *err;
	FILE *log;		/* report lines; NULL: none */
	uint64_t hwm, floor, cc_limit, cc_base, cc_real;
	uint64_t shared_base, shared_end, private_base, ceiling;
	uint64_t core_cap;	/* dram_shared mode 1: the slab size */
	int tree_built;		/* an interval tree was built */
	int early_exit;		/* "No candidate" taken */
	struct dp_place_stats st;	/* summed over every placement */
	struct dp_plan *plan;
	struct dp_shobj *obj;
	size_t nobj;
};

/* Builds the pass list from the options (the gate lives here). */
void dp_pipeline_build(struct dp_pipeline *pl, const struct dp_opts *o);
int dp_pipeline_has(const struct dp_pipeline *pl, const char *name);
int dp_pipeline_run(struct dp_pipeline *pl, struct dp_ctx *ctx);
void dp_ctx_init(struct dp_ctx *ctx, struct dp_model *m,
		 const struct dp_opts *o, FILE *log, struct dp_err *e);
void dp_ctx_fini(struct dp_ctx *ctx);
/* Liveness pieces (exported for tests). */
int dp_number(struct dp_model *m, struct dp_err *e);
int dp_liveness(struct dp_model *m, struct dp_err *e);
/* model.c: resolve core ci's links to their owners (a step of
 * dp_model_link, exported for its test) */
int dp_link_targets(struct dp_model *m, uint32_t ci, struct dp_err *e);

/* ---- small helpers ---------------------------------------------------- */

void dp_json_str(FILE *f, const char *s);	/* JSON string literal */
void dp_xml_str(FILE *f, const char *s);	/* XML-escaped text */
int dp_read_file(const char *path, char **text, size_t *len,
		 struct dp_err *e);

/* ==== shared between the library's files ==== */

/* -1, 0 or 1 as a < b, a == b, a > b: qsort comparators chain it with ?: */
#define dp_cmp(a, b) (((a) > (b)) - ((a) < (b)))
/* util.c: uint64_t ascending (qsort) */
int dp_cmp_u64(const void *x, const void *y);
/* a macro's value as a string literal */
#define DP_STR_(x) #x
#define DP_STR(x) DP_STR_(x)

/* util.c: realloc of n elements of sz bytes; NULL (p untouched) on
 * overflow or out of memory. */
void *dp_realloc_array(void *p, size_t n, size_t sz);
/* util.c: free() each of n pointers; DP_FREE(a, b, ...) frees the arrays
 * of a structure in one line */
void dp_free_each(void *const *p, size_t n);
#define DP_FREE(...) \
	dp_free_each((void *const[]){ __VA_ARGS__ }, \
		     sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))
/* util.c: *(T **)pp grown to hold need elements of sz bytes, its capacity
 * *cap doubled from first; 0, or -ENOMEM with *pp and *cap untouched. */
int dp_grow(void *pp, size_t *cap, size_t need, size_t sz, size_t first);
int dp_classify(struct dp_model *m, struct dp_err *e);

/* util.c: where the first invalid RFC 3629 UTF-8 sequence of s starts
 * (overlong, surrogate, past U+10FFFF, cut short), or len */
size_t dp_utf8_bad(const char *s, size_t len);

/*
 * simplify.c: an interval-tree query's callback gathering the neighbours of
 * item self into adj[0..n), each once per query qid (stamp[] per item);
 * adj grows as needed and is the caller's to free.
 */
struct dp_nbr {
	uint32_t self, qid;
	uint32_t *stamp;
	uint32_t *adj;
	size_t n, cap;
	int nomem;	/* adj could not grow: the list is cut short */
};
void dp_nbr_collect(uint32_t u, void *arg);

/*
 * liveness.c: breadth first over a core's blocks from the entry, marking
 * seen[] (nb bytes, zeroed by the caller).  visit (NULL: go on everywhere)
 * is called once per block reached, in that order: 0 goes on to its
 * successors, > 0 stops there, < 0 ends the walk and is returned.
 */
int dp_cfg_walk(const struct dp_core *c, uint8_t *seen,
		int (*visit)(const struct dp_core *c, uint32_t b, void *arg),
		void *arg);
int dp_pass_find_start_addr(struct dp_ctx *x);
int dp_pass_cc_buffer_size(struct dp_ctx *x);
int dp_pass_dram(struct dp_ctx *x);
int dp_pass_build_plan(struct dp_ctx *x);
int dp_pass_sync_shared(struct dp_ctx *x);
int dp_pass_check_placed(struct dp_ctx *x);
int dp_pass_hazards(struct dp_ctx *x);
int dp_pass_totals(struct dp_ctx *x);

/* plan.c: a core plan's tensor names, sorted (ties: index); the lookup
 * gives the first tensor (lowest index) of that name, as a scan would. */
struct dp_name_ref {
	const char *name;
	uint32_t i;
};
/* NULL when out of memory */
struct dp_name_ref *dp_plan_name_index(const struct dp_core_plan *c);
const struct dp_plan_tensor *dp_plan_find_name(const struct dp_core_plan *c,
					       const struct dp_name_ref *ix,
					       const char *name);
/* plan.c: the per-core index slots dp_plan_remote fills (NULL: out of
 * memory) */
struct dp_name_ref **dp_plan_names_new(const struct dp_plan *p);
void dp_plan_names_free(const struct dp_plan *p, struct dp_name_ref **ix);
/* plan.c: the owner of core ci's linked tensor t (ix: a name index per
 * core, NULL until needed); NULL and "FILE: ... missing remote target",
 * or NULL with e->code -ENOMEM. */
const struct dp_plan_tensor *dp_plan_remote(const struct dp_plan *p,
					    uint32_t ci,
					    const struct dp_plan_tensor *t,
					    struct dp_name_ref **ix,
					    const char *file, struct dp_err *e);

/* verify.c: rule 6a alone (links), for the tests */
int dp_verify_links(const struct dp_plan *p, const char *file,
		    struct dp_err *e);

/*
 * verify.c: the overlap sweep of both verifiers.  Items 0 .. nt at
 * addr[t], size[t] (addr + size must not wrap), their closed live
 * intervals v[0 .. n) (sorted here by start, then item).  0: items live
 * at a common time are byte-disjoint; -1: blame[0] (opened first) and
 * blame[1] overlap while both live at *when.  O((n + nt) log).
 */
struct dp_sweep_iv {
	uint64_t lo, hi;
	uint32_t t;
};
/* -ENOMEM when out of memory */
int dp_sweep_disjoint(struct dp_sweep_iv *v, size_t n, const uint64_t *addr,
		      const uint64_t *size, uint32_t nt, uint32_t blame[2],
		      uint64_t *when);

/* csv.c: a solution's per-buffer rules, and its buffers in (lower, id) order */
int dp_csv_sorted(const struct dp_csv *c, const struct dp_csv_buf **s,
		  struct dp_err *e);

/* verify.c: rule 5 (interfering tensors byte-disjoint) for one core */
int dp_verify_sweep(const struct dp_core_plan *c, const char *file,
		    struct dp_err *e);

/* first_fit.c: one gap [glo, ghi) of the first-fit walk (the seed's two
 * arms) */
int dp_try_gap(uint64_t glo, uint64_t ghi, uint64_t size, uint64_t page,
	       uint64_t align, uint64_t *addr);

/*
 * The seed's simplify messages (simplify.c): a node is "high" while its
 * pressure is above the threshold, the bytes of the region it is placed in
 * (then even disjoint neighbours might not fit beside it).  hi counts the
 * nodes high at the start ("hi ratio" = hi / nodes), new_cand those that
 * were high at the start and low when removed ("new candidates = N": a
 * removal lowered them under the threshold).  Both simplify engines fill
 * it the same way.
 */
struct dp_simplify_info {
	uint64_t threshold;		/* in */
	size_t hi, new_cand;
	uint64_t max_pressure;
};

int dp_simplify_order_info(const struct dp_item *it, size_t n,
			   const uint32_t *adj_first, const uint32_t *adj,
			   uint32_t *out, struct dp_simplify_info *si);
/* v's pressure at the start (high: a byte per node, set here) and when
 * it is removed */
void dp_simplify_note_start(struct dp_simplify_info *si, uint8_t *high,
			    uint32_t v, uint64_t pressure);
void dp_simplify_note_removed(struct dp_simplify_info *si, const uint8_t *high,
			      uint32_t v, uint64_t pressure);

/* dense.c: placement without an adjacency (see the comment there) */
/* iheap.c: an indexed binary min-heap on (key, tie or element number) */
struct dp_iheap {
	uint32_t *h;		/* slot -> element */
	uint32_t *pos;		/* element -> slot, UINT32_MAX when out */
	uint64_t *key;		/* element -> key */
	const uint32_t *tie;	/* element -> tie key, or NULL: the element */
	size_t n;
};

void dp_iheap_swap(struct dp_iheap *H, size_t i, size_t j);
void dp_iheap_up(struct dp_iheap *H, size_t i);
void dp_iheap_down(struct dp_iheap *H, size_t i);

struct dp_dense;
/* 0 with *out NULL unless the sizes sum to less than UINT64_MAX (then no
 * pressure saturates), or -ENOMEM.  tree: the interval tree over the
 * items' intervals, for the neighbours of items that do not have exactly
 * one interval. */
int dp_dense_new(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		 const struct dp_itree *tree, struct dp_dense **out);
size_t dp_dense_edges(const struct dp_dense *d);
size_t dp_dense_degree(const struct dp_dense *d, uint32_t v);
/* 0, or -ENOMEM */
int dp_dense_order(const struct dp_dense *d, uint32_t *out);
int dp_dense_order_info(const struct dp_dense *d, uint32_t *out,
			struct dp_simplify_info *si);
void dp_dense_free(struct dp_dense *d);

struct dp_atree;
/* NULL when out of memory */
struct dp_atree *dp_atree_new(const struct dp_item *it, size_t n,
			      const struct dp_iv *iv);
/* First fit for item v among the placed items whose intervals overlap
 * v's: the answer dp_first_fit gives on their ranges (0, or -1: no fit).
 * budget != 0: give up with -2 after visiting that many tree nodes. */
int dp_atree_search(struct dp_atree *t, uint32_t v, uint64_t start,
		    uint64_t ceiling, uint64_t page, uint64_t align,
		    uint64_t *addr, size_t budget);
void dp_atree_insert(struct dp_atree *t, uint32_t v, uint64_t addr);
void dp_atree_free(struct dp_atree *t);

/* strategy.c: dp_place in simplify order with the page rule (seed), or
 * dp_place_search (--strategy search); why[0 .. len): the search's
 * verdict on failure, to end the error message with ("" in seed mode) */
int dp_place_opts(const struct dp_opts *o, struct dp_item *it, size_t n,
		  const struct dp_iv *iv, uint64_t start, uint64_t ceiling,
		  struct dp_place_stats *st, size_t *failed, FILE *log,
		  const char *tag, char *why, size_t len);

/* strategy.c: the end of a placement, max(start, addr + size) */
uint64_t dp_items_end(const struct dp_item *it, size_t n, uint64_t start);
/* skyline.c: the distinct times of n items and each item's hull [cs, ce)
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
/* util.c: the first and last live time of an item over its intervals
 * (UINT64_MAX and 0 when it has none) */
void dp_item_hull(const struct dp_item *it, const struct dp_iv *iv,
		  uint64_t *lo, uint64_t *hi);
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
