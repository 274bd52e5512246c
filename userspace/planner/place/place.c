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
 *    ranges, first fit with dp_first_fit.
 *
 * The simplify rule and its heap over the adjacency are in simplify.c;
 * dense.c orders without an adjacency.  place.c calls both, neither calls
 * back into it.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"

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

			e[ne++] = (struct ev){ .t = v->lo, .d = 1,
					       .sz = it[i].size };
			e[ne++] = (struct ev){ .t = v->hi + 1, .d = -1,
					       .sz = it[i].size };
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
 *              ranges sorted again by dp_first_fit.  O(E) memory, O(n d log d)
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

/* The placed neighbours of one item, through the interval tree: rng[u]
 * item u's bytes once placed (the placer's rng[]: hi 0 before, as a placed
 * item has a size);
 * stamp[] drops the second meeting of an item with several intervals
 * (multi: there is one), which no other item can be met twice by. */
struct pick {
	uint32_t self, qid;
	uint32_t *stamp;
	struct dp_range *rng;
	struct dp_range *occ;
	size_t n, cap;
	int nomem, multi;
};

static void pick_placed(uint32_t u, void *arg)
{
	struct pick *p = arg;
	const struct dp_range *r = &p->rng[u];

	if (!r->hi || u == p->self)
		return;
	if (p->multi) {
		if (p->stamp[u] == p->qid)
			return;
		p->stamp[u] = p->qid;
	}
	if (dp_grow(&p->occ, &p->cap, p->n + 1, sizeof(*p->occ), 64)) {
		p->nomem = 1;
		return;
	}
	p->occ[p->n++] = *r;
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

/* One placement's state, shared by its phases. */
struct placer {
	struct dp_item *it;
	size_t n;
	const struct dp_iv *iv;
	uint64_t start, ceiling, page;
	enum dp_engine eng;
	struct dp_itree tree;
	struct dp_nbr nb;		/* the adjacency (reference paths) */
	uint32_t *adj_first, *ord;
	struct dp_dense *dense;	/* no adjacency (dense.c) */
	struct dp_atree *at;		/* the address tree of placed items */
	struct pick pk;
	struct dp_range *rng;		/* item -> its bytes once placed
					 * (hi 0 before) */
	struct dp_range *occ;
	size_t cap_occ, edges, skip, backoff;
	enum { SEL_ADJ, SEL_TREE, SEL_TRY_ITREE, SEL_TRY_ADJ } sel;
};

/* Dense or not: dense.c's structures (AUTO: only when the sample says so
 * and the edges confirm it), else an adjacency.  0, or -ENOMEM. */
static int pick_engine(struct placer *P)
{
	enum dp_engine eng = P->eng;
	size_t n = P->n;

	if ((eng == DP_ENGINE_INCREMENTAL ||
	     (eng == DP_ENGINE_AUTO && looks_dense(&P->tree, P->it, n, P->iv))) &&
	    dp_dense_new(P->it, n, P->iv, &P->tree, &P->dense))
		return -ENOMEM;
	if (eng == DP_ENGINE_AUTO && P->dense &&
	    (n < DENSE_MIN_ITEMS ||
	     dp_dense_edges(P->dense) <= (size_t)DENSE_AVG_DEGREE / 2 * n)) {
		dp_dense_free(P->dense);	/* sparse: the reference is fastest */
		P->dense = NULL;
	}
	return 0;
}

/* The neighbours of every item, through the tree (without dense.c), and
 * the select the placements take.  0, -1 (too many edges) or -ENOMEM. */
static int neighbours(struct placer *P)
{
	int use_adj = !P->dense;
	size_t i, k, n = P->n;

	for (i = 0; use_adj && i < n; i++) {
		P->adj_first[i] = P->nb.n;
		P->nb.self = i;
		P->nb.qid = i + 1;
		for (k = 0; k < P->it[i].iv_count; k++) {
			const struct dp_iv *v = &P->iv[P->it[i].iv_first + k];

			dp_itree_overlaps(&P->tree, v->lo, v->hi, dp_nbr_collect,
					  &P->nb);
		}
		if (P->nb.nomem)
			return -ENOMEM;
		if (P->nb.n >= UINT32_MAX)
			return -1;
	}
	P->adj_first[use_adj ? n : 0] = P->nb.n;
	P->edges = use_adj ? P->nb.n / 2 : dp_dense_edges(P->dense);
	if (P->eng == DP_ENGINE_REFERENCE)
		P->sel = SEL_ADJ;
	else if (P->eng == DP_ENGINE_INCREMENTAL)
		P->sel = SEL_TREE;
	else if (P->dense)
		P->sel = SEL_TRY_ITREE;
	else if (n >= DENSE_MIN_ITEMS && P->edges > (size_t)DENSE_AVG_DEGREE / 2 * n)
		P->sel = SEL_TRY_ADJ;	/* dense, but some item has 2+ intervals */
	else
		P->sel = SEL_ADJ;
	return 0;
}

/* The order items are placed in (simplify: with the seed's messages).
 * 0, or -ENOMEM. */
static int order_items(struct placer *P, enum dp_order order, FILE *log,
		       const char *tag)
{
	struct dp_simplify_info si = { 0 };
	size_t n = P->n;

	if (log)
		fprintf(log, "%ssimplify interference graph: %zu nodes, %zu edges\n",
			tag, n, P->edges);
	si.threshold = P->ceiling > P->start ? P->ceiling - P->start : 0;
	if (order != DP_ORDER_SIMPLIFY ?
	    static_order(P->it, n, P->iv, order, P->ord) : !P->dense ?
	    dp_simplify_order_info(P->it, n, P->adj_first, P->nb.adj, P->ord,
				   &si) :
	    dp_dense_order_info(P->dense, P->ord, &si))
		return -ENOMEM;
	if (log && order == DP_ORDER_SIMPLIFY) {
		fprintf(log, "%ssimplify: hi ratio = %zu/%zu = %.3f (pressure above the region's %llu bytes; highest pressure %llu)\n",
			tag, si.hi, n, n ? (double)si.hi / n : 0.0,
			(unsigned long long)si.threshold,
			(unsigned long long)si.max_pressure);
		fprintf(log, "%ssimplify: new candidates = %zu\n", tag, si.new_cand);
	}
	return 0;
}

/* The reference's select: v's placed neighbours from the adjacency, first
 * fit among them.  dp_first_fit's answer, or -ENOMEM. */
static int select_adj(struct placer *P, uint32_t v, uint64_t align)
{
	struct dp_item *it = P->it;
	size_t k, no = 0;

	for (k = P->adj_first[v]; k < P->adj_first[v + 1]; k++) {
		uint32_t u = P->nb.adj[k];

		if (!P->rng[u].hi)
			continue;
		if (dp_grow(&P->occ, &P->cap_occ, no + 1, sizeof(*P->occ), 64))
			return -ENOMEM;
		P->occ[no++] = P->rng[u];
	}
	return dp_first_fit(P->occ, no, P->start, P->ceiling, it[v].size, P->page,
			    align, &it[v].addr);
}

/* The placed neighbours of v through the interval tree (no adjacency),
 * first fit among them; i: the placement's number.  dp_first_fit's answer,
 * or -ENOMEM. */
static int select_itree(struct placer *P, uint32_t v, size_t i,
			uint64_t align)
{
	const struct dp_iv *iv = P->iv;
	struct dp_item *it = P->it;
	size_t k;

	P->pk.self = v;
	P->pk.qid = i + 1;		/* per placement; no adjacency here */
	P->pk.n = 0;
	for (k = 0; k < it[v].iv_count; k++)
		dp_itree_overlaps(&P->tree, iv[it[v].iv_first + k].lo,
				  iv[it[v].iv_first + k].hi, pick_placed, &P->pk);
	if (P->pk.nomem)
		return -ENOMEM;
	return dp_first_fit(P->pk.occ, P->pk.n, P->start, P->ceiling, it[v].size,
			    P->page, align, &it[v].addr);
}

/* Placement i (item v): the address tree where it pays (with a budget and
 * a back-off, see above), else the tree's or the adjacency's neighbours.
 * 0, -1 (no fit) or -ENOMEM. */
static int select_one(struct placer *P, uint32_t v, size_t i)
{
	struct dp_item *it = P->it;
	uint64_t align = it[v].align ? it[v].align : 1;
	int r = -2;

	if (P->sel == SEL_TREE) {
		r = dp_atree_search(P->at, v, P->start, P->ceiling, P->page,
				    align, &it[v].addr, 0);
	} else if (P->sel != SEL_ADJ) {
		size_t deg = P->sel == SEL_TRY_ADJ ?
			     P->adj_first[v + 1] - P->adj_first[v] :
			     dp_dense_degree(P->dense, v);

		if (deg > FEW_NEIGHBOURS && !P->skip) {
			r = dp_atree_search(P->at, v, P->start, P->ceiling,
					    P->page, align, &it[v].addr,
					    2 * deg + 64);
			P->backoff = r == -2 ? (P->backoff * 2 + 1) & 1023 : 0;
			P->skip = P->backoff;
		} else if (P->skip) {
			P->skip--;
		}
	}
	if (r == -2 && P->sel == SEL_TRY_ITREE)
		r = select_itree(P, v, i, align);
	else if (r == -2)
		r = select_adj(P, v, align);
	return r;
}

/* Every item in order; *failed the one that does not fit.  0, -1 or
 * -ENOMEM; *peak: max(addr + size). */
static int select_all(struct placer *P, size_t *failed, uint64_t *peak)
{
	struct dp_item *it = P->it;
	size_t i;
	int r;

	if (P->sel != SEL_ADJ) {
		P->at = dp_atree_new(it, P->n, P->iv);
		if (!P->at)
			return -ENOMEM;
		P->pk.stamp = P->nb.stamp;	/* used only without an adjacency */
		P->pk.rng = P->rng;
		for (i = 0; i < P->n; i++)
			P->pk.multi |= it[i].iv_count > 1;
	}
	for (i = 0; i < P->n; i++) {
		uint32_t v = P->ord[i];

		r = select_one(P, v, i);
		if (r == -ENOMEM)
			return r;
		if (r) {
			if (failed)
				*failed = v;
			return -1;
		}
		P->rng[v] = (struct dp_range){ .lo = it[v].addr,
					       .hi = it[v].addr + it[v].size };
		if (P->at)
			dp_atree_insert(P->at, v, it[v].addr);
		if (it[v].addr + it[v].size > *peak)
			*peak = it[v].addr + it[v].size;
	}
	return 0;
}

int dp_place(const struct dp_problem *p, enum dp_order order,
	     enum dp_engine eng, struct dp_place_stats *st, size_t *failed,
	     FILE *log, const char *tag)
{
	struct dp_item *it = p->it;
	size_t n = p->n;
	struct placer P = { .it = it, .n = n, .iv = p->iv, .start = p->start,
			    .ceiling = p->ceiling, .page = p->page, .eng = eng,
			    .tree = { .root = -1 } };
	double t0 = dp_now(), t1, t2;
	uint64_t peak = 0;
	int rc;

	if (n >= UINT32_MAX)
		return -1;
	rc = dp_itree_of_items(&P.tree, it, n, p->iv);
	if (rc)
		return rc;
	if (log) {
		fprintf(log, "%sNum intervals %zu  Num locations %zu\n", tag,
			P.tree.n, n);
		fprintf(log, "%sIntervalTree Build Done\n", tag);
	}
	rc = -ENOMEM;
	P.adj_first = dp_realloc_array(NULL, n + 1, sizeof(*P.adj_first));
	P.nb.stamp = calloc(n ? n : 1, sizeof(*P.nb.stamp));
	P.ord = dp_realloc_array(NULL, n ? n : 1, sizeof(*P.ord));
	P.rng = calloc(n ? n : 1, sizeof(*P.rng));
	if (pick_engine(&P) || !P.adj_first || !P.nb.stamp || !P.ord ||
	    !P.rng)
		goto out;
	rc = neighbours(&P);
	if (rc)
		goto out;
	t1 = dp_now();
	rc = order_items(&P, order, log, tag);
	if (rc)
		goto out;
	t2 = dp_now();
	rc = select_all(&P, failed, &peak);
	if (rc)
		goto out;
	if (st) {
		st->intervals += P.tree.n;
		st->edges += P.edges;
		st->t_tree += t1 - t0;
		st->t_simplify += t2 - t1;
		st->t_select += dp_now() - t2;
		if (peak > st->peak)
			st->peak = peak;
	}
out:
	free(P.rng);
	free(P.ord);
	free(P.occ);
	free(P.pk.occ);
	free(P.nb.stamp);
	free(P.nb.adj);
	free(P.adj_first);
	dp_atree_free(P.at);
	dp_dense_free(P.dense);
	dp_itree_free(&P.tree);
	return rc;
}
