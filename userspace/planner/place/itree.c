// SPDX-License-Identifier: GPL-2.0
/*
 * itree.c - the static array interval tree (seed: IntervalTree).
 *
 * Nodes live in one array and are never rebalanced.  makeTree builds a
 * perfectly balanced binary tree over the index range by midpoints, makeMax
 * augments every node with the largest hi in its subtree (post-order,
 * CLRS), and the overlap query is an iterative DFS over an explicit stack
 * that drops a subtree when q.lo > node.max.
 *
 * Sorting first.  The seed says the tree is "keyed by array index".  We sort
 * the node array by lo (ties by hi, then payload) before makeTree, so index
 * order is lo order and the midpoint tree is a binary search tree on lo.
 * That keeps the seed's pruning (q.lo > node.max: nothing below ends late
 * enough) and adds the symmetric one: when node.lo > q.hi, every node of the
 * right subtree starts even later, so the right subtree is skipped too.
 * Without the sort only the max pruning is sound and a query can visit
 * every node whose subtree max reaches q.lo; with it a query costs
 * O(log n + k).  The tie keys make the array, and so every result, the same
 * on every run.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"

static int cmp_node(const void *a, const void *b)
{
	const struct dp_itnode *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->hi, y->hi) ?:
	       dp_cmp(x->payload, y->payload);
}

/* Already sorted input (common: items come in time order) skips qsort. */
static void sort_nodes(struct dp_itnode *n, size_t cnt)
{
	size_t i;

	for (i = 1; i < cnt; i++)
		if (cmp_node(&n[i - 1], &n[i]) > 0)
			break;
	if (i < cnt)
		qsort(n, cnt, sizeof(*n), cmp_node);
}

int32_t dp_itree_make_tree(struct dp_itree *t, int64_t lo, int64_t hi)
{
	int64_t mid;

	if (lo >= hi)
		return -1;
	mid = lo + (hi - lo) / 2;
	t->node[mid].left = dp_itree_make_tree(t, lo, mid);
	t->node[mid].right = dp_itree_make_tree(t, mid + 1, hi);
	return (int32_t)mid;
}

uint64_t dp_itree_make_max(struct dp_itree *t, int32_t idx)
{
	struct dp_itnode *n;
	uint64_t m, c;

	if (idx < 0)
		return 0;
	n = &t->node[idx];
	m = n->hi;
	c = dp_itree_make_max(t, n->left);
	if (n->left >= 0 && c > m)
		m = c;
	c = dp_itree_make_max(t, n->right);
	if (n->right >= 0 && c > m)
		m = c;
	n->max = m;
	return m;
}

int dp_itree_build(struct dp_itree *t, struct dp_itnode *nodes, size_t n)
{
	if (n > INT32_MAX)
		return -1;
	t->node = nodes;
	t->n = n;
	sort_nodes(nodes, n);
	t->root = dp_itree_make_tree(t, 0, (int64_t)n);
	dp_itree_make_max(t, t->root);
	return 0;
}

int dp_itree_of_items(struct dp_itree *t, const struct dp_item *it, size_t n,
		      const struct dp_iv *iv)
{
	struct dp_itnode *nodes;
	size_t ni = 0, i, k;

	for (i = 0; i < n; i++)
		ni += it[i].iv_count;
	nodes = dp_realloc_array(NULL, ni ? ni : 1, sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	ni = 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < it[i].iv_count; k++) {
			const struct dp_iv *v = &iv[it[i].iv_first + k];

			nodes[ni++] = (struct dp_itnode){ .lo = v->lo, .hi = v->hi,
				.max = v->hi, .payload = (uint32_t)i, .left = -1, .right = -1 };
		}
	if (dp_itree_build(t, nodes, ni)) {
		free(nodes);
		return -1;
	}
	return 0;
}

size_t dp_itree_overlaps(const struct dp_itree *t, uint64_t lo, uint64_t hi,
			 dp_overlap_fn fn, void *arg)
{
	int32_t stack[128];
	size_t sp = 0, visited = 0;

	if (t->root < 0)
		return 0;
	stack[sp++] = t->root;
	while (sp) {
		const struct dp_itnode *n = &t->node[stack[--sp]];

		visited++;
		if (lo > n->max)	/* nothing in this subtree ends at/after lo */
			continue;
		if (n->lo <= hi) {
			if (lo <= n->hi)
				fn(n->payload, arg);
			if (n->right >= 0)	/* right: lo >= n->lo, may still fit */
				stack[sp++] = n->right;
		}
		if (n->left >= 0)
			stack[sp++] = n->left;
	}
	return visited;
}

void dp_itree_free(struct dp_itree *t)
{
	free(t->node);
	t->node = NULL;
	t->n = 0;
	t->root = -1;
}
