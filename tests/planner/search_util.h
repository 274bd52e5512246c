/* SPDX-License-Identifier: GPL-2.0 */
/*
 * search_util.h - what the tests of the search's parts share: the
 * benchmark's perfect packings as problems, the checks of a placement,
 * the skyline passes as a starting placement, and random problems of
 * independent time blocks.
 */
#ifndef SEARCH_UTIL_H
#define SEARCH_UTIL_H

#include <stdint.h>
#include <stddef.h>

#include "internal.h"
#include "place/place.h"
#include "search/search.h"

/* The problem of c as items (one interval each), unplaced; key[]: the
 * sizes, the skyline passes' ties. */
struct prob {
	struct dp_item *it;
	struct dp_iv *iv;
	size_t n;
	uint64_t *key;
};

/* A perfect packing of n buffers (bench-synth's generator) as a parsed
 * CSV; NULL on failure. */
struct dp_csv *perfect(uint32_t n, uint64_t seed);
/* c's problem into p: 0, or -1 */
int prob_of(const struct dp_csv *c, struct prob *p);
void prob_free(struct prob *p);
/* Every item placed, and items live at a common time byte-disjoint
 * (one interval an item). */
int valid(const struct prob *p);
/* the highest end of p's items */
uint64_t end_of(const struct prob *p);
/* A skyline pass on p (chain: the chain pass), the work added to *w */
int sky(struct prob *p, int chain, uint64_t ceiling, uint64_t *w);
/* c's problem placed by the chain pass, two arrays of its size for
 * placements, its lower bound; 0, or -1. */
int chain_start(const struct dp_csv *c, struct prob *p, uint64_t *b[2],
		uint64_t *lb, uint64_t *w);
/* A random problem of k independent time blocks (see search_util.c) */
int random_blocks(uint64_t seed, struct prob *p, size_t k, uint64_t *page);
/* Items live at a common time byte-disjoint, any number of intervals;
 * every address aligned. */
int valid_iv(const struct prob *p);
/* The search's parameters with the glue rules on (dp_search_defaults)
 * or all off */
const struct dp_search_params *glue_params(int glue);
/* dp_search_run on p's items below ceiling, with the page rule of page
 * (0: none), a budget of nodes search nodes and the parameters par (NULL:
 * the defaults) */
int search(struct prob *p, uint64_t ceiling, uint64_t page, uint64_t nodes,
	   const struct dp_search_params *par, struct dp_search_stats *st);
/* No item of at most a page straddles a page boundary (page 0: none). */
int paged(const struct prob *p, uint64_t page);

#endif
