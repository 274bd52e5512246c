/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what every stage of libdramplan shares: the item and range
 * types and util.c's helpers.  The stages run one way, each using only
 * those before it:
 *
 *   model/ (read, check, liveness) -> place/ (first fit, the seed's path)
 *     -> search/ (--strategy search) -> plan/ (the pipeline, verify,
 *     report, the plan's JSON both ways, MiniMalloc instances solved)
 *
 * and io/ (the JSON document, the CSV and SVG writers) serves them all.
 * Each stage has its own header for the rest: model/model.h,
 * place/place.h, search/search.h, plan/plan.h, io/jdoc.h.  Not
 * installed: the tests and the benchmarks in the tree use them; a
 * program outside uses libdramplan.h.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#ifndef DRAMPLAN_INTERNAL_H
#define DRAMPLAN_INTERNAL_H

#include "libdramplan.h"

/* An occupied byte range [lo, hi) */
struct dp_range {
	uint64_t lo, hi;
};

/* An item to place: its size, alignment, live intervals and address */
struct dp_item {
	uint64_t size;		/* bytes to reserve (aligned size) */
	uint64_t align;		/* address alignment (1: none) */
	uint32_t iv_first, iv_count;	/* into the iv array given to dp_place */
	uint64_t addr;		/* out */
};

/* One placement problem: the items it[0..n) over their intervals iv
 * (dp_item.iv_first, iv_count), each to an address in [start, ceiling)
 * under the page rule of page (first_fit.c's dp_try_gap; 0: none).  The
 * placers of place/ and search/ take one and write it[].addr. */
struct dp_problem {
	struct dp_item *it;
	size_t n;
	const struct dp_iv *iv;
	uint64_t start, ceiling, page;
};
/* a pointer to a problem of these fields: DP_PROBLEM(.it = it, .n = n) */
#define DP_PROBLEM(...) (&(struct dp_problem){ __VA_ARGS__ })

/* ---- small helpers ---------------------------------------------------- */

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

/* util.c: where the first invalid RFC 3629 UTF-8 sequence of s starts
 * (overlong, surrogate, past U+10FFFF, cut short), or len */
size_t dp_utf8_bad(const char *s, size_t len);

/* util.c: the first and last live time of an item over its intervals
 * (UINT64_MAX and 0 when it has none) */
void dp_item_hull(const struct dp_item *it, const struct dp_iv *iv,
		  uint64_t *lo, uint64_t *hi);

#endif
