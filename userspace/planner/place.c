// SPDX-License-Identifier: GPL-2.0
/*
 * place.c - interval tree + simplify + select, over a set of items.
 *
 * Used for every placement the planner makes (a core's private tensors in
 * one region, the shared objects of all cores, a MiniMalloc CSV): the
 * caller hands over items with sizes and liveness intervals, a start (the
 * floor of the region) and a ceiling.
 *
 * 1. build_interval_tree: one node per interval, sorted, makeTree/makeMax.
 * 2. Interference: one getAllOverlaps query per interval of each item gives
 *    its neighbours (deduplicated, self excluded), kept as a compact
 *    adjacency (CSR) so simplify and select do not query twice.  Cost is
 *    O(I log I + E), never the O(V^2) pairwise test.
 * 3. simplify: the elimination order (rule below).
 * 4. select: pop the order, collect the already placed neighbours' byte
 *    ranges, first fit with dp_search.
 *
 * The simplify rule and its heap over the adjacency are in simplify.c;
 * dense.c orders without an adjacency.  place.c calls both, neither calls
 * back into it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"

/* ---- the other orders (MiniMalloc mode tries them too) -------------- */

struct okey {
	uint64_t a, b;
	uint32_t i;
};

static int cmp_okey(const void *x, const void *y)
{
	const struct okey *p = x, *q = y;

	return dp_cmp(q->a, p->a) ?: dp_cmp(q->b, p->b) ?: dp_cmp(p->i, q->i);
}

static uint64_t span(const struct dp_item *it, const struct dp_iv *iv)
{
	uint64_t s = 0;
	uint32_t k;

	for (k = 0; k < it->iv_count; k++)
		s += iv[it->iv_first + k].hi - iv[it->iv_first + k].lo + 1;
	return s;
}

static int static_order(const struct dp_item *it, size_t n,
			const struct dp_iv *iv, enum dp_order order,
			uint32_t *out)
{
	struct okey *k = dp_realloc_array(NULL, n ? n : 1, sizeof(*k));
	size_t i;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t s = span(&it[i], iv), lo0;

		lo0 = it[i].iv_count ? iv[it[i].iv_first].lo : 0;
		k[i].i = i;
		switch (order) {
		case DP_ORDER_SIZE:
			k[i].a = it[i].size;
			k[i].b = s;
			break;
		case DP_ORDER_AREA:
			k[i].a = it[i].size * (unsigned __int128)s > UINT64_MAX ?
				 UINT64_MAX : it[i].size * s;
			k[i].b = it[i].size;
			break;
		default:	/* START: earliest first, then larger */
			k[i].a = UINT64_MAX - lo0;
			k[i].b = it[i].size;
			break;
		}
	}
	qsort(k, n, sizeof(*k), cmp_okey);
	for (i = 0; i < n; i++)
		out[i] = k[i].i;
	free(k);
	return 0;
}

/* ---- lower bound: most bytes live at once --------------------------- */

struct ev {
	uint64_t t;
	int64_t d;		/* +size or -size */
	uint64_t sz;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);	/* ends before starts */
}

uint64_t dp_lower_bound(const struct dp_item *it, size_t n,
			const struct dp_iv *iv)
{
	uint64_t lb;

	return dp_lower_bound_r(it, n, iv, &lb) ? DP_UNSET : lb;
}

int dp_lower_bound_r(const struct dp_item *it, size_t n,
		     const struct dp_iv *iv, uint64_t *lb)
{
	size_t ne = 0, i, cap = 0;
	struct ev *e;
	uint64_t cur = 0, best = 0;
	uint32_t k;

	for (i = 0; i < n; i++)
		cap += 2 * it[i].iv_count;
	e = dp_realloc_array(NULL, cap ? cap : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (k = 0; k < it[i].iv_count; k++) {
			const struct dp_iv *v = &iv[it[i].iv_first + k];

			e[ne++] = (struct ev){ v->lo, 1, it[i].size };
			e[ne++] = (struct ev){ v->hi + 1, -1, it[i].size };
		}
	qsort(e, ne, sizeof(*e), cmp_ev);
	for (i = 0; i < ne; i++) {
		if (e[i].d > 0) {
			cur += e[i].sz;
			if (cur > best)
				best = cur;
		} else {
			cur -= e[i].sz;
		}
	}
	free(e);
	*lb = best;
	return 0;
}

/* ---- the placer ------------------------------------------------------ */

/*
 * Two engines give the same addresses (tests/planner/test_dense.c compares
 * them on thousands of random instances):
 *
 *  REFERENCE   the seed's select as written: every item's neighbours from
 *              the interval tree into an adjacency (CSR), simplify as a heap
 *              over it, and for each placement the placed neighbours' byte
 *              ranges sorted again by dp_search.  O(E) memory, O(n d log d)
 *              time for d items live at once.
 *  INCREMENTAL dense.c: no adjacency (the edge count and pressures from
 *              sorted endpoints, simplify over a k-d tree; items with
 *              several intervals or none listed explicitly as exceptions),
 *              and select through the address tree of placed items.
 *              Forced, it uses the address tree for every placement (the
 *              tests' setting).
 *  AUTO        (the default) per instance and per placement:
 *              - sparse (average degree 64 or less, or under 64 items): the
 *                reference, where it is fastest;
 *              - dense: no adjacency (dense.c);
 *              - dense, but the sizes could saturate a pressure: the
 *                reference's adjacency and simplify, the address tree for
 *                select.
 *              In both dense cases a placement with more than
 *              FEW_NEIGHBOURS neighbours walks the address tree with a
 *              budget of node visits about its degree (all live: O(log n)
 *              visits); over budget, or with few neighbours, it takes the
 *              reference's select on its neighbours (from the adjacency, or
 *              from the interval tree when there is none), and after a
 *              give-up the tree rests for 1, 3, 7, ... placements (up to
 *              1023), so a model where the tree does not pay (neighbours
 *              spread among many non-neighbours at the same addresses)
 *              costs little more than the reference.
 */
#define DENSE_MIN_ITEMS		64
#define DENSE_AVG_DEGREE	64
#define FEW_NEIGHBOURS		64

/* The placed neighbours of one item, through the interval tree. */
struct pick {
	uint32_t self, qid;
	uint32_t *stamp;
	const uint8_t *placed;
	const struct dp_item *it;
	struct dp_range *occ;
	size_t n, cap;
	int nomem;
};

static void pick_placed(uint32_t u, void *arg)
{
	struct pick *p = arg;

	if (u == p->self || p->stamp[u] == p->qid || !p->placed[u])
		return;
	p->stamp[u] = p->qid;
	if (dp_grow(&p->occ, &p->cap, p->n + 1, sizeof(*p->occ), 64)) {
		p->nomem = 1;
		return;
	}
	p->occ[p->n].lo = p->it[u].addr;
	p->occ[p->n].hi = p->it[u].addr + p->it[u].size;
	p->n++;
}

static void count_one(uint32_t payload, void *arg)
{
	(void)payload;
	++*(size_t *)arg;
}

/*
 * AUTO's first look, before sorting anything: a sample of DENSE_SAMPLES
 * items, evenly spread, has an average degree above half the threshold
 * (interval tree queries; an item met through two intervals counts twice).  Sparse
 * instances, the common case, stop here and pay O(DENSE_SAMPLES log n).
 */
#define DENSE_SAMPLES 64
static int looks_dense(const struct dp_itree *tree, const struct dp_item *it,
		       size_t n, const struct dp_iv *iv)
{
	size_t i, k, deg = 0, step;

	if (n < DENSE_MIN_ITEMS)
		return 0;
	step = n / DENSE_SAMPLES;
	for (i = 0; i < DENSE_SAMPLES; i++)	/* overlaps, not items: an estimate */
		for (k = 0; k < it[i * step].iv_count; k++)
			dp_itree_overlaps(tree, iv[it[i * step].iv_first + k].lo,
					  iv[it[i * step].iv_first + k].hi,
					  count_one, &deg);
	/* deg counts each sample itself too */
	return deg > (size_t)DENSE_SAMPLES * (1 + DENSE_AVG_DEGREE / 2);
}

int dp_place(struct dp_item *it, size_t n, const struct dp_iv *iv,
	     uint64_t start, uint64_t ceiling, uint64_t page,
	     enum dp_order order, enum dp_engine eng,
	     struct dp_place_stats *st, size_t *failed, FILE *log,
	     const char *tag)
{
	struct dp_itree tree = { .root = -1 };
	struct dp_nbr nb = { 0 };
	struct dp_dense *dense = NULL;
	struct dp_atree *at = NULL;
	struct pick pk = { 0 };
	uint32_t *adj_first = NULL, *ord = NULL;
	uint8_t *placed = NULL;
	struct dp_range *occ = NULL;
	size_t ni, i, k, cap_occ = 0, edges, skip = 0, backoff = 0;
	double t0 = dp_now(), t1, t2;
	uint64_t peak = 0;
	struct dp_simplify_info si = { 0 };
	int rc = -1, use_adj = 1;
	enum { SEL_ADJ, SEL_TREE, SEL_TRY_ITREE, SEL_TRY_ADJ } sel;

	if (n >= UINT32_MAX)
		return -1;
	rc = dp_itree_of_items(&tree, it, n, iv);
	if (rc)
		return rc;
	rc = -ENOMEM;
	ni = tree.n;
	if (log) {
		fprintf(log, "%sNum intervals %zu  Num locations %zu\n", tag, ni, n);
		fprintf(log, "%sIntervalTree Build Done\n", tag);
	}

	if ((eng == DP_ENGINE_INCREMENTAL ||
	     (eng == DP_ENGINE_AUTO && looks_dense(&tree, it, n, iv))) &&
	    dp_dense_new(it, n, iv, &tree, &dense))
		goto out;
	if (eng == DP_ENGINE_AUTO && dense &&
	    (n < DENSE_MIN_ITEMS ||
	     dp_dense_edges(dense) <= (size_t)DENSE_AVG_DEGREE / 2 * n)) {
		dp_dense_free(dense);	/* sparse: the reference is fastest */
		dense = NULL;
	}
	use_adj = !dense;

	/* neighbours of every item, through the tree */
	adj_first = dp_realloc_array(NULL, n + 1, sizeof(*adj_first));
	nb.stamp = calloc(n ? n : 1, sizeof(*nb.stamp));
	ord = dp_realloc_array(NULL, n ? n : 1, sizeof(*ord));
	placed = calloc(n ? n : 1, 1);
	if (!adj_first || !nb.stamp || !ord || !placed)
		goto out;
	for (i = 0; use_adj && i < n; i++) {
		adj_first[i] = nb.n;
		nb.self = i;
		nb.qid = i + 1;
		for (k = 0; k < it[i].iv_count; k++) {
			const struct dp_iv *v = &iv[it[i].iv_first + k];

			dp_itree_overlaps(&tree, v->lo, v->hi, dp_nbr_collect, &nb);
		}
		if (nb.nomem)
			goto out;
		if (nb.n >= UINT32_MAX) {
			rc = -1;
			goto out;
		}
	}
	adj_first[use_adj ? n : 0] = nb.n;
	edges = use_adj ? nb.n / 2 : dp_dense_edges(dense);
	if (eng == DP_ENGINE_REFERENCE)
		sel = SEL_ADJ;
	else if (eng == DP_ENGINE_INCREMENTAL)
		sel = SEL_TREE;
	else if (dense)
		sel = SEL_TRY_ITREE;
	else if (n >= DENSE_MIN_ITEMS && edges > (size_t)DENSE_AVG_DEGREE / 2 * n)
		sel = SEL_TRY_ADJ;	/* dense, but some item has 2+ intervals */
	else
		sel = SEL_ADJ;
	t1 = dp_now();

	if (log)
		fprintf(log, "%ssimplify interference graph: %zu nodes, %zu edges\n",
			tag, n, edges);
	si.threshold = ceiling > start ? ceiling - start : 0;
	if (order != DP_ORDER_SIMPLIFY ?
	    static_order(it, n, iv, order, ord) : use_adj ?
	    dp_simplify_order_info(it, n, adj_first, nb.adj, ord, &si) :
	    dp_dense_order_info(dense, ord, &si))
		goto out;
	if (log && order == DP_ORDER_SIMPLIFY) {
		fprintf(log, "%ssimplify: hi ratio = %zu/%zu = %.3f (pressure above the region's %llu bytes; highest pressure %llu)\n",
			tag, si.hi, n, n ? (double)si.hi / n : 0.0,
			(unsigned long long)si.threshold,
			(unsigned long long)si.max_pressure);
		fprintf(log, "%ssimplify: new candidates = %zu\n", tag, si.new_cand);
	}
	t2 = dp_now();

	if (sel != SEL_ADJ) {
		at = dp_atree_new(it, n, iv);
		if (!at)
			goto out;
		pk.stamp = nb.stamp;	/* used only without an adjacency */
		pk.placed = placed;
		pk.it = it;
	}
	for (i = 0; i < n; i++) {
		uint32_t v = ord[i];
		uint64_t align = it[v].align ? it[v].align : 1;
		size_t no = 0;
		int r;

		r = -2;
		if (sel == SEL_TREE) {
			r = dp_atree_search(at, v, start, ceiling, page, align,
					    &it[v].addr, 0);
		} else if (sel != SEL_ADJ) {
			size_t deg = sel == SEL_TRY_ADJ ?
				     adj_first[v + 1] - adj_first[v] :
				     dp_dense_degree(dense, v);

			if (deg > FEW_NEIGHBOURS && !skip) {
				r = dp_atree_search(at, v, start, ceiling, page,
						    align, &it[v].addr,
						    2 * deg + 64);
				backoff = r == -2 ? (backoff * 2 + 1) & 1023 : 0;
				skip = backoff;
			} else if (skip) {
				skip--;
			}
		}
		if (r == -2 && sel == SEL_TRY_ITREE) {
			pk.self = v;
			pk.qid = i + 1;		/* per placement; no adjacency here */
			pk.n = 0;
			for (k = 0; k < it[v].iv_count; k++)
				dp_itree_overlaps(&tree, iv[it[v].iv_first + k].lo,
						  iv[it[v].iv_first + k].hi,
						  pick_placed, &pk);
			if (pk.nomem)
				goto out;
			r = dp_search(pk.occ, pk.n, start, ceiling, it[v].size,
				      page, align, &it[v].addr);
		} else if (r == -2) {		/* the reference's select */
			for (k = adj_first[v]; k < adj_first[v + 1]; k++) {
				uint32_t u = nb.adj[k];

				if (!placed[u])
					continue;
				if (dp_grow(&occ, &cap_occ, no + 1,
					    sizeof(*occ), 64))
					goto out;
				occ[no].lo = it[u].addr;
				occ[no].hi = it[u].addr + it[u].size;
				no++;
			}
			r = dp_search(occ, no, start, ceiling, it[v].size, page,
				      align, &it[v].addr);
		}
		if (r) {
			if (failed)
				*failed = v;
			rc = -1;
			goto out;
		}
		placed[v] = 1;
		if (at)
			dp_atree_insert(at, v, it[v].addr);
		if (it[v].addr + it[v].size > peak)
			peak = it[v].addr + it[v].size;
	}
	if (st) {
		st->intervals += ni;
		st->edges += edges;
		st->t_tree += t1 - t0;
		st->t_simplify += t2 - t1;
		st->t_select += dp_now() - t2;
		if (peak > st->peak)
			st->peak = peak;
	}
	rc = 0;
out:
	free(placed);
	free(ord);
	free(occ);
	free(pk.occ);
	free(nb.stamp);
	free(nb.adj);
	free(adj_first);
	dp_atree_free(at);
	dp_dense_free(dense);
	dp_itree_free(&tree);
	return rc;
}
