// SPDX-License-Identifier: GPL-2.0
/*
 * dense.c - placement whose cost does not grow with the live set.
 *
 * place.c's reference path keeps an explicit adjacency (every interfering
 * pair) and, for every placement, sorts the byte ranges of the already
 * placed neighbours again: O(E) memory and O(n d log d) time for d tensors
 * live at once.  When every tensor is live at once (E = n^2/2) that is
 * 5 * 10^9 pairs at 10^5 tensors.  This file gives the same answers
 * without the adjacency:
 *
 *  1. Degrees, pressures and the edge count of single-interval items come
 *     (items with several intervals, or none, are listed explicitly as
 *     exceptions: see struct dp_dense) from two sorted endpoint arrays
 *     with prefix sums of sizes:
 *        |{u : u overlaps [a, b]}| = |{u : lo_u <= b}| - |{u : hi_u < a}|
 *     (an interval that ends before a also starts before b, so the second
 *     set is inside the first).  O(log n) per item.
 *
 *  2. Simplify (the rule is in simplify.c) as a 2-d problem: item u is the
 *     point (lo_u, hi_u), and removing v lowers the pressure of exactly the
 *     points in the quadrant {lo <= hi_v, hi >= lo_v}.  A static k-d tree
 *     over the points with lazy "subtract d from this subtree" tags and the
 *     subtree minimum of (pressure, index) finds the next node to remove
 *     at the root; a quadrant update touches O(sqrt n) nodes.  Same
 *     pressures, same (pressure, index) tie rule -> the same order as the
 *     heap over the adjacency.  Hand-rolled with only what simplify needs:
 *     build (quickselect on alternating axes), quadrant subtract, point
 *     subtract, remove.
 *
 *  3. Select: the placed items in a balanced search tree keyed by
 *     (address, index) -- a treap, hand-rolled because only insert and an
 *     in-order walk are needed -- each subtree augmented with
 *        - its lowest address, the highest end and the largest hole between
 *          its byte ranges (the union of the ranges, sorted by address),
 *        - time bounds: the smallest start and largest end of its items'
 *          intervals (no item overlaps [a, b] if min start > b or max end
 *          < a), and the largest start and smallest end of one chosen
 *          interval per item (every item overlaps [a, b] if max start <= b
 *          and min end >= a).
 *     First fit is the reference walk (first_fit.c) done in address order
 *     over the tree: a subtree without neighbours is skipped; a subtree
 *     of neighbours only whose leading hole and largest inner hole are
 *     both smaller than the size cannot hold the answer (a hole must be at
 *     least size bytes long for try_gap to take it) and is skipped with
 *     prev = its highest end; anything else is descended.  The gaps met
 *     are exactly the reference's gaps (the same ranges in the same
 *     address order), tried with the same try_gap, so the address is the
 *     same.  When all placed items are neighbours (all live), every
 *     subtree is "neighbours only" and a placement is O(log n).
 *
 * When neighbours are a small part of what is placed (a sparse model), the
 * tree walk would visit many non-neighbours: place.c gives the walk a
 * budget of node visits and, over it, asks the static interval tree for
 * that item's neighbours and runs dp_first_fit (first_fit.c) on their
 * ranges, as the reference does, just without a stored adjacency.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"

/* ---- sorted endpoints: degrees, weights, the edge count ---------------- */

/*
 * Items with one interval ("single") are points for the endpoint arrays
 * and the k-d tree.  Items with several intervals, or none ("multi"), are
 * the exceptions: their neighbours are listed explicitly (interval tree
 * queries), and each single item lists its multi neighbours.  With few
 * multi items that costs little; with many it is the reference's
 * adjacency restricted to them, never more.
 */
struct dp_dense {
	size_t n;
	const struct dp_item *it;
	const struct dp_iv *iv;
	size_t ns;		/* single items */
	uint64_t *slo, *shi;	/* their starts / ends, sorted */
	uint64_t *wlo, *whi;	/* prefix sums of sizes in those orders (ns+1) */
	uint32_t *mrank;	/* item -> rank among multi items, or UINT32_MAX */
	uint32_t *mitem;	/* rank -> item */
	size_t nm;
	size_t *madj_first;	/* multi rank -> its neighbours (nm+1) */
	uint32_t *madj;
	size_t *sm_first;	/* item -> its multi neighbours (n+1) */
	uint32_t *sm;
	size_t edges;
};

struct ekey {
	uint64_t k, w;
};

static int cmp_ekey(const void *a, const void *b)
{
	const struct ekey *x = a, *y = b;

	return dp_cmp(x->k, y->k);
}

/* The single interval of item i. */
static const struct dp_iv *iv1(const struct dp_dense *d, size_t i)
{
	return &d->iv[d->it[i].iv_first];
}

static int single(const struct dp_dense *d, size_t i)
{
	return d->mrank[i] == UINT32_MAX;
}

/*
 * The single items' starts (hi = 0) or ends (hi = 1), sorted, into end[],
 * and the prefix sums of their sizes in that order into w[0..ns]; k is
 * ns entries of scratch.
 */
static void sorted_ends(const struct dp_dense *d, int hi, struct ekey *k,
			uint64_t *end, uint64_t *w)
{
	size_t i, j;

	for (i = j = 0; i < d->n; i++)
		if (single(d, i))
			k[j++] = (struct ekey){ hi ? iv1(d, i)->hi : iv1(d, i)->lo,
						d->it[i].size };
	qsort(k, d->ns, sizeof(*k), cmp_ekey);
	w[0] = 0;
	for (i = 0; i < d->ns; i++) {
		end[i] = k[i].k;
		w[i + 1] = w[i] + k[i].w;
	}
}

/* Number of entries of the sorted a[0..n) that are <= x. */
static size_t count_le(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Number of entries of the sorted a[0..n) that are < x. */
static size_t count_lt(const uint64_t *a, size_t n, uint64_t x)
{
	return x ? count_le(a, n, x - 1) : 0;
}

/* Single items whose interval overlaps the closed [lo, hi]. */
static size_t single_degree(const struct dp_dense *d, uint64_t lo, uint64_t hi)
{
	return count_le(d->slo, d->ns, hi) - count_lt(d->shi, d->ns, lo);
}

/* Sum of the sizes of those items. */
static uint64_t single_weight(const struct dp_dense *d, uint64_t lo,
			      uint64_t hi)
{
	return d->wlo[count_le(d->slo, d->ns, hi)] -
	       d->whi[count_lt(d->shi, d->ns, lo)];
}

/* The endpoints of the single items, sorted.  0, or -ENOMEM. */
static int single_ends(struct dp_dense *d)
{
	struct ekey *k;

	d->slo = dp_realloc_array(NULL, d->ns ? d->ns : 1, sizeof(*d->slo));
	d->shi = dp_realloc_array(NULL, d->ns ? d->ns : 1, sizeof(*d->shi));
	d->wlo = dp_realloc_array(NULL, d->ns + 1, sizeof(*d->wlo));
	d->whi = dp_realloc_array(NULL, d->ns + 1, sizeof(*d->whi));
	k = dp_realloc_array(NULL, d->ns ? d->ns : 1, sizeof(*k));
	if (!d->slo || !d->shi || !d->wlo || !d->whi || !k) {
		free(k);
		return -ENOMEM;
	}
	sorted_ends(d, 0, k, d->slo, d->wlo);
	sorted_ends(d, 1, k, d->shi, d->whi);
	free(k);
	return 0;
}

/* The multi items' neighbours, through the interval tree.  0, or
 * -ENOMEM. */
static int multi_neighbours(struct dp_dense *d, const struct dp_itree *tree)
{
	const struct dp_item *it = d->it;
	const struct dp_iv *iv = d->iv;
	struct dp_nbr mc = { 0 };
	size_t j, q;

	d->madj_first = dp_realloc_array(NULL, d->nm + 1, sizeof(*d->madj_first));
	mc.stamp = calloc(d->n ? d->n : 1, sizeof(*mc.stamp));
	if (!d->madj_first || !mc.stamp) {
		free(mc.stamp);
		return -ENOMEM;
	}
	for (q = 0; q < d->nm; q++) {
		uint32_t m = d->mitem[q];

		d->madj_first[q] = mc.n;
		mc.self = m;
		mc.qid = q + 1;
		for (j = 0; j < it[m].iv_count; j++)
			dp_itree_overlaps(tree, iv[it[m].iv_first + j].lo,
					  iv[it[m].iv_first + j].hi,
					  dp_nbr_collect, &mc);
	}
	d->madj_first[d->nm] = mc.n;
	d->madj = mc.adj;
	free(mc.stamp);
	return mc.nomem ? -ENOMEM : 0;
}

/* Each single item's multi neighbours (the reverse lists).  0, or
 * -ENOMEM. */
static int reverse_lists(struct dp_dense *d)
{
	size_t n = d->n, nadj = d->madj_first[d->nm], i, j, q, *fill;

	d->sm_first = calloc(n + 1, sizeof(*d->sm_first));
	if (!d->sm_first)
		return -ENOMEM;
	for (q = 0; q < nadj; q++)
		if (single(d, d->madj[q]))
			d->sm_first[d->madj[q] + 1]++;
	for (i = 0; i < n; i++)
		d->sm_first[i + 1] += d->sm_first[i];
	d->sm = dp_realloc_array(NULL, d->sm_first[n] ? d->sm_first[n] : 1,
				 sizeof(*d->sm));
	fill = dp_realloc_array(NULL, n ? n : 1, sizeof(*fill));
	if (!d->sm || !fill) {
		free(fill);
		return -ENOMEM;
	}
	memcpy(fill, d->sm_first, n * sizeof(*fill));
	for (q = 0; q < d->nm; q++)
		for (j = d->madj_first[q]; j < d->madj_first[q + 1]; j++)
			if (single(d, d->madj[j]))
				d->sm[fill[d->madj[j]]++] = d->mitem[q];
	free(fill);
	return 0;
}

/* Edges: single-single from the endpoints, the rest from the lists. */
static size_t count_edges(const struct dp_dense *d)
{
	unsigned __int128 deg = 0, mm = 0;
	size_t i, q;

	for (i = 0; i < d->n; i++)
		if (single(d, i))
			deg += single_degree(d, iv1(d, i)->lo, iv1(d, i)->hi) - 1;
	for (q = 0; q < d->madj_first[d->nm]; q++)
		if (single(d, d->madj[q]))
			deg += 2;	/* single-multi, once from each side */
		else
			mm++;		/* multi-multi, seen from both sides */
	return (size_t)((deg + mm) / 2);
}

int dp_dense_new(const struct dp_item *it, size_t n, const struct dp_iv *iv,
		 const struct dp_itree *tree, struct dp_dense **out)
{
	struct dp_dense *d;
	unsigned __int128 total = 0;
	size_t i;

	*out = NULL;
	for (i = 0; i < n; i++)
		total += it[i].size;
	/* the reference saturates pressures at UINT64_MAX; never get there */
	if (total >= UINT64_MAX || n >= UINT32_MAX)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->n = n;
	d->it = it;
	d->iv = iv;
	d->mrank = dp_realloc_array(NULL, n ? n : 1, sizeof(*d->mrank));
	d->mitem = dp_realloc_array(NULL, n ? n : 1, sizeof(*d->mitem));
	if (!d->mrank || !d->mitem)
		goto nomem;
	for (i = 0; i < n; i++) {
		d->mrank[i] = UINT32_MAX;
		if (it[i].iv_count != 1) {
			d->mrank[i] = d->nm;
			d->mitem[d->nm++] = i;
		}
	}
	d->ns = n - d->nm;
	if (single_ends(d) || multi_neighbours(d, tree) || reverse_lists(d))
		goto nomem;
	d->edges = count_edges(d);
	*out = d;
	return 0;
nomem:
	dp_dense_free(d);
	return -ENOMEM;
}

/* Neighbours of item v (for the select budget). */
size_t dp_dense_degree(const struct dp_dense *d, uint32_t v)
{
	if (!single(d, v))
		return d->madj_first[d->mrank[v] + 1] - d->madj_first[d->mrank[v]];
	return single_degree(d, iv1(d, v)->lo, iv1(d, v)->hi) - 1 +
	       (d->sm_first[v + 1] - d->sm_first[v]);
}

size_t dp_dense_edges(const struct dp_dense *d)
{
	return d->edges;
}

void dp_dense_free(struct dp_dense *d)
{
	if (!d)
		return;
	DP_FREE(d->slo, d->shi, d->wlo, d->whi, d->mrank, d->mitem,
		d->madj_first, d->madj, d->sm_first, d->sm, d);
}

/* ---- simplify over a k-d tree of (lo, hi) points ------------------------ */

#define DEAD UINT64_MAX		/* removed point / subtree with none left */

/*
 * Implicit tree over positions [l, r): the node is the midpoint m, its
 * subtrees [l, m) and [m + 1, r) (the same shape as itree.c's makeTree).
 * Levels alternate between splitting on lo and on hi.
 */
struct kd {
	const uint64_t *lo, *hi;	/* per item */
	uint32_t *perm;			/* position -> item */
	uint64_t *minlo, *maxlo, *minhi, *maxhi;	/* subtree bounds */
	uint64_t *val;			/* own pressure, DEAD when removed */
	uint64_t *mn;			/* subtree min pressure (DEAD: none) */
	uint32_t *mni;			/* its item (ties: smallest item) */
	uint64_t *lz;			/* pending subtract for the children */
};

static size_t kd_mid(size_t l, size_t r)
{
	return l + (r - l) / 2;
}

static int kd_less(const struct kd *k, uint32_t a, uint32_t b, int dim)
{
	uint64_t x = dim ? k->hi[a] : k->lo[a], y = dim ? k->hi[b] : k->lo[b];

	if (x != y)
		return x < y;
	return a < b;
}

static void swap32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

/* Quickselect: perm[m] gets the m-th item of [l, r) in (dim, item) order,
 * smaller ones to its left.  Median-of-three pivot. */
static void kd_select(struct kd *k, size_t l, size_t r, size_t m, int dim)
{
	uint32_t *p = k->perm;

	while (r - l > 1) {
		size_t a = l, b = kd_mid(l, r), c = r - 1, i, st;
		uint32_t pv;

		if (kd_less(k, p[b], p[a], dim))
			swap32(&p[a], &p[b]);
		if (kd_less(k, p[c], p[a], dim))
			swap32(&p[a], &p[c]);
		if (kd_less(k, p[c], p[b], dim))
			swap32(&p[b], &p[c]);
		swap32(&p[b], &p[c]);		/* median to the end */
		pv = p[c];
		for (i = st = l; i < c; i++)
			if (kd_less(k, p[i], pv, dim))
				swap32(&p[i], &p[st++]);
		swap32(&p[st], &p[c]);
		if (st == m)
			return;
		if (m < st)
			r = st;
		else
			l = st + 1;
	}
}

static void kd_bound(struct kd *k, size_t m, size_t c)
{
	if (k->minlo[c] < k->minlo[m])
		k->minlo[m] = k->minlo[c];
	if (k->maxlo[c] > k->maxlo[m])
		k->maxlo[m] = k->maxlo[c];
	if (k->minhi[c] < k->minhi[m])
		k->minhi[m] = k->minhi[c];
	if (k->maxhi[c] > k->maxhi[m])
		k->maxhi[m] = k->maxhi[c];
}

static void kd_pull(struct kd *k, size_t l, size_t r)
{
	size_t m = kd_mid(l, r), c;
	int side;

	k->mn[m] = k->val[m];
	k->mni[m] = k->val[m] == DEAD ? UINT32_MAX : k->perm[m];
	for (side = 0; side < 2; side++) {
		if (side ? m + 1 >= r : l >= m)
			continue;
		c = side ? kd_mid(m + 1, r) : kd_mid(l, m);
		if (k->mn[c] == DEAD)
			continue;
		if (k->mn[c] < k->mn[m] ||
		    (k->mn[c] == k->mn[m] && k->mni[c] < k->mni[m])) {
			k->mn[m] = k->mn[c];
			k->mni[m] = k->mni[c];
		}
	}
}

static void kd_build(struct kd *k, size_t l, size_t r, int dim)
{
	size_t m;
	uint32_t x;

	if (l >= r)
		return;
	m = kd_mid(l, r);
	kd_select(k, l, r, m, dim);
	kd_build(k, l, m, !dim);
	kd_build(k, m + 1, r, !dim);
	x = k->perm[m];
	k->minlo[m] = k->maxlo[m] = k->lo[x];
	k->minhi[m] = k->maxhi[m] = k->hi[x];
	if (l < m)
		kd_bound(k, m, kd_mid(l, m));
	if (m + 1 < r)
		kd_bound(k, m, kd_mid(m + 1, r));
}

static void kd_init_min(struct kd *k, size_t l, size_t r)
{
	size_t m;

	if (l >= r)
		return;
	m = kd_mid(l, r);
	kd_init_min(k, l, m);
	kd_init_min(k, m + 1, r);
	kd_pull(k, l, r);
}

/* Subtract d from every live point of the subtree at m. */
static void kd_apply(struct kd *k, size_t m, uint64_t d)
{
	if (k->val[m] != DEAD)
		k->val[m] -= d;
	if (k->mn[m] != DEAD)
		k->mn[m] -= d;
	k->lz[m] += d;
}

static void kd_push(struct kd *k, size_t l, size_t r)
{
	size_t m = kd_mid(l, r);

	if (!k->lz[m])
		return;
	if (l < m)
		kd_apply(k, kd_mid(l, m), k->lz[m]);
	if (m + 1 < r)
		kd_apply(k, kd_mid(m + 1, r), k->lz[m]);
	k->lz[m] = 0;
}

/* Subtract d from the points with lo <= b and hi >= a. */
static void kd_update(struct kd *k, size_t l, size_t r, uint64_t a,
		      uint64_t b, uint64_t d)
{
	size_t m;
	uint32_t x;

	if (l >= r)
		return;
	m = kd_mid(l, r);
	if (k->minlo[m] > b || k->maxhi[m] < a)
		return;				/* none inside */
	if (k->maxlo[m] <= b && k->minhi[m] >= a) {
		kd_apply(k, m, d);		/* all inside */
		return;
	}
	kd_push(k, l, r);
	x = k->perm[m];
	if (k->val[m] != DEAD && k->lo[x] <= b && k->hi[x] >= a)
		k->val[m] -= d;
	kd_update(k, l, m, a, b, d);
	kd_update(k, m + 1, r, a, b, d);
	kd_pull(k, l, r);
}

static void kd_remove(struct kd *k, size_t l, size_t r, size_t pos)
{
	size_t m = kd_mid(l, r);

	kd_push(k, l, r);
	if (pos == m)
		k->val[m] = DEAD;
	else if (pos < m)
		kd_remove(k, l, m, pos);
	else
		kd_remove(k, m + 1, r, pos);
	kd_pull(k, l, r);
}

/* Subtract d from the point at position pos (if still there). */
static void kd_point_sub(struct kd *k, size_t l, size_t r, size_t pos,
			 uint64_t d)
{
	size_t m = kd_mid(l, r);

	kd_push(k, l, r);
	if (pos == m) {
		if (k->val[m] != DEAD)
			k->val[m] -= d;
	} else if (pos < m) {
		kd_point_sub(k, l, m, pos, d);
	} else {
		kd_point_sub(k, m + 1, r, pos, d);
	}
	kd_pull(k, l, r);
}

/*
 * The simplify order (simplify.c's rule): repeatedly remove the item with the
 * smallest (pressure, index) among the k-d tree's minimum (single items)
 * and the heap's top (multi items), then lower its remaining neighbours'
 * pressures by its size: single neighbours of a single item by one
 * quadrant update, multi neighbours and every neighbour of a multi item
 * one by one from the lists.
 */
int dp_dense_order(const struct dp_dense *d, uint32_t *out)
{
	return dp_dense_order_info(d, out, NULL);
}

/* The order's state: the single items in the k-d tree, the multi items
 * in a heap on (pressure, item). */
struct dorder {
	const struct dp_dense *d;
	struct dp_simplify_info *si;
	uint8_t *high, *gone;
	uint64_t *lo, *hi;
	uint32_t *pos;		/* item -> its position in the k-d tree */
	struct dp_iheap H;
	struct kd k;
};

/* The k-d tree's six arrays of a u64 per position. */
#define KD_U64 6
static void kd_u64(struct kd *k, uint64_t **a[KD_U64])
{
	a[0] = &k->minlo;
	a[1] = &k->maxlo;
	a[2] = &k->minhi;
	a[3] = &k->maxhi;
	a[4] = &k->val;
	a[5] = &k->mn;
}

static void dorder_free(struct dorder *o)
{
	uint64_t **a[KD_U64];
	int i;

	kd_u64(&o->k, a);
	for (i = 0; i < KD_U64; i++)
		free(*a[i]);
	free(o->lo);
	free(o->hi);
	free(o->pos);
	free(o->gone);
	free(o->H.h);
	free(o->H.pos);
	free(o->H.key);
	free(o->k.perm);
	free(o->k.mni);
	free(o->k.lz);
	free(o->high);
}

/* 0, or -ENOMEM (then dorder_free what is there). */
static int dorder_alloc(struct dorder *o)
{
	const struct dp_dense *d = o->d;
	size_t n = d->n, s1 = d->ns ? d->ns : 1, m1 = d->nm ? d->nm : 1;
	uint64_t **a[KD_U64];
	int i;

	kd_u64(&o->k, a);
	for (i = 0; i < KD_U64; i++) {
		*a[i] = dp_realloc_array(NULL, s1, sizeof(uint64_t));
		if (!*a[i])
			return -ENOMEM;
	}
	o->high = o->si ? calloc(n, 1) : NULL;
	o->lo = dp_realloc_array(NULL, n, sizeof(*o->lo));
	o->hi = dp_realloc_array(NULL, n, sizeof(*o->hi));
	o->pos = dp_realloc_array(NULL, n, sizeof(*o->pos));
	o->gone = calloc(n, 1);
	o->k.lo = o->lo;
	o->k.hi = o->hi;
	o->k.perm = dp_realloc_array(NULL, s1, sizeof(*o->k.perm));
	o->k.mni = dp_realloc_array(NULL, s1, sizeof(uint32_t));
	o->k.lz = calloc(s1, sizeof(uint64_t));
	o->H.h = dp_realloc_array(NULL, m1, sizeof(*o->H.h));
	o->H.pos = dp_realloc_array(NULL, m1, sizeof(*o->H.pos));
	o->H.key = dp_realloc_array(NULL, m1, sizeof(*o->H.key));
	if ((o->si && !o->high) || !o->lo || !o->hi || !o->pos || !o->gone ||
	    !o->k.perm || !o->k.mni || !o->k.lz ||
	    !o->H.h || !o->H.pos || !o->H.key)
		return -ENOMEM;
	return 0;
}

/* Every item's starting pressure: single items into the k-d tree, multi
 * items into the heap. */
static void dorder_init(struct dorder *o)
{
	const struct dp_dense *d = o->d;
	size_t n = d->n, ns = d->ns, i, j;

	for (i = j = 0; i < n; i++) {
		if (!single(d, i))
			continue;
		o->lo[i] = iv1(d, i)->lo;
		o->hi[i] = iv1(d, i)->hi;
		o->k.perm[j++] = i;
	}
	kd_build(&o->k, 0, ns, 0);
	for (i = 0; i < ns; i++) {
		uint32_t v = o->k.perm[i];
		uint64_t p = single_weight(d, o->lo[v], o->hi[v]);

		/* pressure: size(v) + sizes of its neighbours (v counts itself) */
		for (j = d->sm_first[v]; j < d->sm_first[v + 1]; j++)
			p += d->it[d->sm[j]].size;
		o->pos[v] = i;
		o->k.val[i] = p;
		if (o->si)
			dp_simplify_note_start(o->si, o->high, v, p);
	}
	kd_init_min(&o->k, 0, ns);

	o->H.tie = d->mitem;
	o->H.n = d->nm;
	for (i = 0; i < d->nm; i++) {
		uint64_t p = d->it[d->mitem[i]].size;

		for (j = d->madj_first[i]; j < d->madj_first[i + 1]; j++)
			p += d->it[d->madj[j]].size;
		o->H.key[i] = p;
		o->H.h[i] = i;
		o->H.pos[i] = i;
		if (o->si)
			dp_simplify_note_start(o->si, o->high, d->mitem[i], p);
	}
	for (i = d->nm / 2; i-- > 0;)
		dp_iheap_down(&o->H, i);
}

/* Removes the heap's top (a multi item): its neighbours' pressures drop. */
static uint32_t remove_multi(struct dorder *o)
{
	const struct dp_dense *d = o->d;
	struct dp_iheap *H = &o->H;
	uint32_t q = H->h[0], v = d->mitem[q];
	size_t j;

	if (o->si)
		dp_simplify_note_removed(o->si, o->high, v, H->key[q]);
	dp_iheap_swap(H, 0, --H->n);
	H->pos[q] = UINT32_MAX;
	dp_iheap_down(H, 0);
	o->gone[v] = 1;
	for (j = d->madj_first[q]; j < d->madj_first[q + 1]; j++) {
		uint32_t u = d->madj[j];

		if (o->gone[u])
			continue;
		if (single(d, u)) {
			kd_point_sub(&o->k, 0, d->ns, o->pos[u], d->it[v].size);
		} else {
			H->key[d->mrank[u]] -= d->it[v].size;
			dp_iheap_up(H, H->pos[d->mrank[u]]);
		}
	}
	return v;
}

/* Removes single item v (the k-d tree's minimum, pressure kk): the
 * single items it overlaps and its multi neighbours drop. */
static void remove_single(struct dorder *o, uint32_t v, uint64_t kk)
{
	const struct dp_dense *d = o->d;
	struct dp_iheap *H = &o->H;
	size_t j;

	if (o->si)
		dp_simplify_note_removed(o->si, o->high, v, kk);
	o->gone[v] = 1;
	kd_remove(&o->k, 0, d->ns, o->pos[v]);
	kd_update(&o->k, 0, d->ns, o->lo[v], o->hi[v], d->it[v].size);
	for (j = d->sm_first[v]; j < d->sm_first[v + 1]; j++) {
		uint32_t q = d->mrank[d->sm[j]];

		if (H->pos[q] == UINT32_MAX)
			continue;
		H->key[q] -= d->it[v].size;
		dp_iheap_up(H, H->pos[q]);
	}
}

/* The same, with the simplify messages' counts in si (if not NULL). */
int dp_dense_order_info(const struct dp_dense *d, uint32_t *out,
			struct dp_simplify_info *si)
{
	struct dorder o = { .d = d, .si = si };
	size_t n = d->n, ns = d->ns, removed;
	int rc = -ENOMEM;

	if (!n)
		return 0;
	if (dorder_alloc(&o))
		goto out;
	dorder_init(&o);
	for (removed = 0; removed < n; removed++) {
		uint64_t kk = ns ? o.k.mn[kd_mid(0, ns)] : DEAD;
		uint32_t ki = ns ? o.k.mni[kd_mid(0, ns)] : UINT32_MAX, v;
		int take_multi = 0;

		if (o.H.n) {
			uint32_t t = o.H.h[0];

			take_multi = kk == DEAD || o.H.key[t] < kk ||
				     (o.H.key[t] == kk && d->mitem[t] < ki);
		}
		if (take_multi) {
			v = remove_multi(&o);
		} else {
			v = ki;
			remove_single(&o, v, kk);
		}
		out[n - 1 - removed] = v;	/* stack: last removed placed first */
	}
	rc = 0;
out:
	dorder_free(&o);
	return rc;
}

int dp_simplify_order_iv(const struct dp_item *it, size_t n,
			 const struct dp_iv *iv, uint32_t *out)
{
	struct dp_itree tree = { .root = -1 };
	struct dp_dense *d = NULL;
	int rc;

	rc = dp_itree_of_items(&tree, it, n, iv);
	if (rc)
		return rc;
	rc = dp_dense_new(it, n, iv, &tree, &d);
	if (!rc)
		rc = d ? dp_dense_order(d, out) : -1;
	dp_dense_free(d);
	dp_itree_free(&tree);
	return rc;
}

/* ---- the address tree of placed items ----------------------------------- */

struct anode {
	uint64_t addr, end;		/* own bytes [addr, end) */
	uint64_t hlo, hhi;		/* own intervals: first start, last end */
	uint64_t rlo, rhi;		/* own longest interval */
	uint64_t s_addr, s_end, s_gap;	/* subtree: lowest addr, highest end,
					 * largest hole between its ranges */
	uint64_t s_hlo, s_hhi;		/* subtree: min hlo, max hhi */
	uint64_t s_rlo, s_rhi;		/* subtree: max rlo, min rhi */
	uint32_t prio;
	uint8_t none, s_none;		/* no interval (own, anywhere below):
					 * never a neighbour, never "full" */
	int32_t l, r;
};

struct dp_atree {
	struct anode *nd;		/* indexed by item */
	const struct dp_item *it;
	struct dp_iv *siv;		/* each item's intervals sorted by lo */
	size_t *sfirst;			/* item -> its run in siv */
	int32_t root;
	size_t n;
};

static int cmp_iv(const void *a, const void *b)
{
	const struct dp_iv *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->hi, y->hi);
}

struct dp_atree *dp_atree_new(const struct dp_item *it, size_t n,
			      const struct dp_iv *iv)
{
	struct dp_atree *t = calloc(1, sizeof(*t));
	size_t i, niv = 0;
	uint32_t k;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++)
		niv += it[i].iv_count;
	t->nd = dp_realloc_array(NULL, n ? n : 1, sizeof(*t->nd));
	t->siv = dp_realloc_array(NULL, niv ? niv : 1, sizeof(*t->siv));
	t->sfirst = dp_realloc_array(NULL, n ? n : 1, sizeof(*t->sfirst));
	if (!t->nd || !t->siv || !t->sfirst) {
		dp_atree_free(t);
		return NULL;
	}
	t->it = it;
	t->root = -1;
	t->n = n;
	niv = 0;
	for (i = 0; i < n; i++) {
		struct anode *a = &t->nd[i];
		struct dp_iv *s = &t->siv[niv];
		uint32_t x = (uint32_t)i * 0x9e3779b1u;

		t->sfirst[i] = niv;
		if (it[i].iv_count)
			memcpy(s, &iv[it[i].iv_first], it[i].iv_count * sizeof(*s));
		if (it[i].iv_count > 1)
			qsort(s, it[i].iv_count, sizeof(*s), cmp_iv);
		niv += it[i].iv_count;
		memset(a, 0, sizeof(*a));
		a->l = a->r = -1;
		x ^= x >> 16;
		x *= 0x85ebca6bu;
		x ^= x >> 13;
		a->prio = x;			/* a fixed hash: same tree every run */
		a->hlo = a->rlo = UINT64_MAX;	/* no interval: never a neighbour */
		a->hhi = a->rhi = 0;
		a->none = !it[i].iv_count;
		for (k = 0; k < it[i].iv_count; k++) {
			if (s[k].lo < a->hlo)
				a->hlo = s[k].lo;
			if (s[k].hi > a->hhi)
				a->hhi = s[k].hi;
			if (!k || s[k].hi - s[k].lo > a->rhi - a->rlo) {
				a->rlo = s[k].lo;
				a->rhi = s[k].hi;
			}
		}
	}
	return t;
}

void dp_atree_free(struct dp_atree *t)
{
	if (!t)
		return;
	DP_FREE(t->nd, t->siv, t->sfirst, t);
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void a_pull(struct anode *nd, int32_t x)
{
	struct anode *n = &nd[x];
	uint64_t gap = 0, e = n->end;

	n->s_addr = n->addr;
	n->s_hlo = n->hlo;
	n->s_hhi = n->hhi;
	n->s_rlo = n->rlo;
	n->s_rhi = n->rhi;
	n->s_none = n->none;
	if (n->l >= 0) {
		const struct anode *L = &nd[n->l];

		n->s_addr = L->s_addr;
		gap = L->s_gap;
		if (n->addr > L->s_end)
			gap = max64(gap, n->addr - L->s_end);
		e = max64(L->s_end, n->end);
		n->s_hlo = min64(n->s_hlo, L->s_hlo);
		n->s_hhi = max64(n->s_hhi, L->s_hhi);
		n->s_rlo = max64(n->s_rlo, L->s_rlo);
		n->s_rhi = min64(n->s_rhi, L->s_rhi);
		n->s_none |= L->s_none;
	}
	if (n->r >= 0) {
		const struct anode *R = &nd[n->r];

		gap = max64(gap, R->s_gap);
		if (R->s_addr > e)
			gap = max64(gap, R->s_addr - e);
		e = max64(e, R->s_end);
		n->s_hlo = min64(n->s_hlo, R->s_hlo);
		n->s_hhi = max64(n->s_hhi, R->s_hhi);
		n->s_rlo = max64(n->s_rlo, R->s_rlo);
		n->s_rhi = min64(n->s_rhi, R->s_rhi);
		n->s_none |= R->s_none;
	}
	n->s_end = e;
	n->s_gap = gap;
}

static int a_less(const struct anode *nd, int32_t a, int32_t b)
{
	if (nd[a].addr != nd[b].addr)
		return nd[a].addr < nd[b].addr;
	return a < b;
}

/* t's right (left) child c up in its place, t pulled; c is pulled by the
 * caller */
static int32_t a_rotate(struct anode *nd, int32_t t, int left)
{
	int32_t *down = left ? &nd[t].r : &nd[t].l, c = *down;
	int32_t *up = left ? &nd[c].l : &nd[c].r;

	*down = *up;
	*up = t;
	a_pull(nd, t);
	return c;
}

static int32_t a_insert(struct anode *nd, int32_t t, int32_t x)
{
	if (t < 0) {
		a_pull(nd, x);
		return x;
	}
	if (a_less(nd, x, t)) {
		nd[t].l = a_insert(nd, nd[t].l, x);
		if (nd[nd[t].l].prio > nd[t].prio)
			t = a_rotate(nd, t, 0);
	} else {
		nd[t].r = a_insert(nd, nd[t].r, x);
		if (nd[nd[t].r].prio > nd[t].prio)
			t = a_rotate(nd, t, 1);
	}
	a_pull(nd, t);
	return t;
}

void dp_atree_insert(struct dp_atree *t, uint32_t v, uint64_t addr)
{
	struct anode *a = &t->nd[v];

	a->addr = addr;
	a->end = addr + t->it[v].size;
	a->l = a->r = -1;
	t->root = a_insert(t->nd, t->root, v);
}

/* One first-fit query: the reference's sweep, in address order. */
struct aq {
	const struct dp_atree *t;
	const struct dp_iv *viv;	/* the item's sorted intervals */
	uint32_t vn;
	uint64_t hlo, hhi, rlo, rhi;	/* its hull and longest interval */
	uint64_t prev, ceiling, size, page, align, addr;
	int done, found, aborted;
	size_t visited, budget;
};

/* Do the item's (sorted) intervals and node x's overlap?  Two pointers:
 * an interval that ends before the other list's current one starts cannot
 * meet any later one of that list either. */
static int a_overlaps(const struct aq *q, uint32_t x)
{
	const struct dp_iv *a = &q->t->siv[q->t->sfirst[x]], *b = q->viv;
	uint32_t i, j, na = q->t->it[x].iv_count;

	for (i = j = 0; i < na && j < q->vn;) {
		if (a[i].hi < b[j].lo)
			i++;
		else if (b[j].hi < a[i].lo)
			j++;
		else
			return 1;
	}
	return 0;
}

static void a_range(struct aq *q, uint64_t lo, uint64_t hi)
{
	if (q->prev >= q->ceiling) {		/* the reference stops here */
		q->done = 1;
		return;
	}
	if (lo > q->prev &&
	    dp_try_gap(q->prev, lo < q->ceiling ? lo : q->ceiling, q->size,
		       q->page, q->align, &q->addr)) {
		q->done = q->found = 1;
		return;
	}
	if (hi > q->prev)
		q->prev = hi;
}

static void a_walk(struct aq *q, int32_t x, int full)
{
	const struct anode *n;

	if (x < 0 || q->done)
		return;
	n = &q->t->nd[x];
	if (++q->visited > q->budget) {
		q->done = q->aborted = 1;	/* over budget: caller decides */
		return;
	}
	if (!full) {
		if (n->s_hlo > q->hhi || n->s_hhi < q->hlo)
			return;			/* no neighbour in here */
		full = !n->s_none && n->s_rlo <= q->rhi && n->s_rhi >= q->rlo;
	}
	if (full) {
		uint64_t lead;

		if (n->s_end <= q->prev)
			return;			/* no hole, prev unchanged */
		lead = n->s_addr > q->prev ? n->s_addr - q->prev : 0;
		if (lead < q->size && n->s_gap < q->size) {
			q->prev = n->s_end;	/* no hole big enough */
			return;
		}
	}
	a_walk(q, n->l, full);
	if (q->done)
		return;
	if (full || a_overlaps(q, x))
		a_range(q, n->addr, n->end);
	if (q->done)
		return;
	a_walk(q, n->r, full);
}

int dp_atree_search(struct dp_atree *t, uint32_t v, uint64_t start,
		    uint64_t ceiling, uint64_t page, uint64_t align,
		    uint64_t *addr, size_t budget)
{
	const struct anode *me = &t->nd[v];
	struct aq q;

	memset(&q, 0, sizeof(q));
	q.t = t;
	q.viv = &t->siv[t->sfirst[v]];
	q.vn = t->it[v].iv_count;
	q.hlo = me->hlo;
	q.hhi = me->hhi;
	q.rlo = me->rlo;
	q.rhi = me->rhi;
	q.prev = start;
	q.ceiling = ceiling;
	q.size = t->it[v].size;
	q.page = page;
	q.align = align;
	q.budget = budget ? budget : SIZE_MAX;
	if (!q.size || start >= ceiling)
		return -1;			/* as dp_first_fit */
	if (q.vn)
		a_walk(&q, t->root, 0);
	if (q.aborted)
		return -2;
	if (q.found) {
		*addr = q.addr;
		return 0;
	}
	if (q.done)
		return -1;
	if (q.prev < ceiling &&
	    dp_try_gap(q.prev, ceiling, q.size, page, align, addr))
		return 0;
	return -1;
}
