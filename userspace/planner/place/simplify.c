// SPDX-License-Identifier: GPL-2.0
/*
 * simplify.c - the elimination order of the placer (place.c) over an
 * adjacency, the neighbour collector that builds adjacencies from the
 * interval tree, and the seed's simplify messages; dense.c shares the
 * last two for its own order, so they live here, below both.
 *
 * THE SIMPLIFY RULE (docs/seed-behaviour.md, B.2).  The seed's Briggs
 * worklist removes the least-constrained node first and pushes it on a
 * stack that select pops back to front.  Constraint here is measured in bytes:
 *
 *   pressure(v) = size(v) + sum of size(u) over v's neighbours u that have
 *                 not been removed yet
 *
 * Repeat until every node is removed: remove the node with the smallest
 * (pressure, item index) -- the item index is the stable tie key (program
 * order of the tensors, CSV row order) -- push it, and lower each remaining
 * neighbour's pressure by size(v) ("re-scanning its interval-tree
 * neighbours").  select pops the stack from the top, so the most
 * constrained node, the one removed last, is placed first and the least
 * constrained ones fill the gaps last: Briggs' optimistic order.  There is
 * no threshold and no spill (DRAM is the bottom of the hierarchy), so the
 * "simplify threshold" of the seed reduces to this ordering.  The rule is a
 * pure function of sizes, intervals and item order: plans are the same on
 * every run.  The threshold lives on only in the seed's two messages
 * ("hi ratio", "new candidates = N"; struct dp_simplify_info): a node is
 * high while its pressure is above the bytes of the region, start to
 * ceiling.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "place/place.h"

void dp_nbr_collect(uint32_t u, void *arg)
{
	struct dp_nbr *b = arg;

	if (u == b->self || b->stamp[u] == b->qid || b->nomem)
		return;
	b->stamp[u] = b->qid;
	if (dp_grow(&b->adj, &b->cap, b->n + 1, sizeof(*b->adj), 1024)) {
		b->nomem = 1;
		return;
	}
	b->adj[b->n++] = u;
}

int dp_simplify_order(const struct dp_item *it, size_t n,
		      const uint32_t *adj_first, const uint32_t *adj,
		      uint32_t *out)
{
	return dp_simplify_order_info(it, n, adj_first, adj, out, NULL);
}

int dp_simplify_order_info(const struct dp_item *it, size_t n,
			   const uint32_t *adj_first, const uint32_t *adj,
			   uint32_t *out, struct dp_simplify_info *si)
{
	uint64_t *p = dp_realloc_array(NULL, n ? n : 1, sizeof(*p));
	struct dp_iheap H = { .key = p, .n = n };
	size_t i, k, removed = 0;
	uint8_t *high = si ? calloc(n ? n : 1, 1) : NULL;
	int rc = -ENOMEM;

	H.h = dp_realloc_array(NULL, n ? n : 1, sizeof(*H.h));
	H.pos = dp_realloc_array(NULL, n ? n : 1, sizeof(*H.pos));
	if (!p || !H.h || !H.pos || (si && !high))
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t s = it[i].size;

		for (k = adj_first[i]; k < adj_first[i + 1]; k++)
			if (__builtin_add_overflow(s, it[adj[k]].size, &s))
				s = UINT64_MAX;
		p[i] = s;
		H.h[i] = i;
		H.pos[i] = i;
		if (si)
			dp_simplify_note_start(si, high, i, s);
	}
	for (i = n / 2; i-- > 0;)
		dp_iheap_down(&H, i);
	while (H.n) {
		uint32_t v = H.h[0];

		dp_iheap_swap(&H, 0, --H.n);
		H.pos[v] = UINT32_MAX;
		dp_iheap_down(&H, 0);
		if (si)
			dp_simplify_note_removed(si, high, v, p[v]);
		out[n - 1 - removed++] = v;	/* stack: last removed placed first */
		for (k = adj_first[v]; k < adj_first[v + 1]; k++) {
			uint32_t u = adj[k];

			if (H.pos[u] == UINT32_MAX)
				continue;
			if (p[u] != UINT64_MAX)
				p[u] -= it[v].size;
			dp_iheap_up(&H, H.pos[u]);
		}
	}
	rc = 0;
out:
	free(p);
	free(H.h);
	free(H.pos);
	free(high);
	return rc;
}

void dp_simplify_note_start(struct dp_simplify_info *si, uint8_t *high,
			    uint32_t v, uint64_t pressure)
{
	if (pressure > si->max_pressure)
		si->max_pressure = pressure;
	if (pressure > si->threshold) {
		high[v] = 1;
		si->hi++;
	}
}

void dp_simplify_note_removed(struct dp_simplify_info *si, const uint8_t *high,
			      uint32_t v, uint64_t pressure)
{
	if (high[v] && pressure <= si->threshold)
		si->new_cand++;
}
