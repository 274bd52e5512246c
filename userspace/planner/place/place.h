/* SPDX-License-Identifier: GPL-2.0 */
/*
 * place.h - the placement stage: the seed's path -- first fit with the
 * page rule, the interval tree, simplify, the dense structures and the
 * placer (the files of place/).
 * Not installed, like internal.h.
 */
#ifndef DRAMPLAN_PLACE_H
#define DRAMPLAN_PLACE_H

#include "internal.h"

/* ---- first fit with the 4 KiB page-straddle rule (first_fit.c) ------ */

/*
 * The seed's first fit, a pure function.  Sorts occ by lo (in place), builds
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


/*
 * Places every item of p in [start, ceiling): builds the interval tree over all
 * items' intervals, computes each item's interfering neighbours with it,
 * orders the items (simplify, see simplify.c for the rule) and gives each
 * one the first fit among its already placed neighbours.
 * On failure returns -1 and *failed = the item that did not fit, or
 * -ENOMEM when out of memory.
 */
int dp_place(const struct dp_problem *p, enum dp_order order,
	     enum dp_engine eng, struct dp_place_stats *st, size_t *failed,
	     FILE *log, const char *tag);

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

#endif
