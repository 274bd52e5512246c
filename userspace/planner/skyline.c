// SPDX-License-Identifier: GPL-2.0
/*
 * skyline.c - a constructive pass of --strategy search that fills the
 * address space bottom up, like the best-fit heuristics of strip packing
 * (Burke, Kendall and Whitwell, 2004) with time as the fixed axis.
 *
 * The skyline is the top of the placed items at each time.  Each step
 * takes its lowest run (the leftmost maximal stretch of time at the lowest
 * level) and puts on it the unplaced item that fits inside the run and
 * covers most of it (the longest live span; ties: the larger key, then
 * the lower index).  When none fits inside, the run is raised to the lower
 * of its two neighbours' levels (the bytes under it stay empty).  An item
 * with several live intervals counts as its hull, first to last time.
 *
 * When items can be packed without a gap (the perfect packings of
 * scripts/bench-quality.c), the run is often exactly what one item or a
 * stack of items fills, which first fit in a fixed order misses: a piece
 * placed early leaves holes only later pieces can fill.
 *
 * Cost: O((n + m) x m) for m distinct interval ends (each step scans the
 * skyline for its lowest run), plus the candidates skipped in the buckets;
 * the pass gives up (no placement, like a pass that does not fit) once it
 * has visited DP_SKYLINE_WORK segments and candidates, so a placement of
 * 10^5 items with as many distinct times costs a bounded second or so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"

struct sky {
	uint64_t *t;		/* the distinct times, m + 1 of them */
	size_t m;
	uint32_t *cs, *ce;	/* item -> hull [cs, ce) in segments */
	uint32_t *head, *next, *prev;	/* per start segment, a list */
	uint64_t *lvl;		/* the skyline, per segment */
	uint64_t work;		/* segments and bucket entries visited */
};

static int cmp_u64(const void *x, const void *y)
{
	return dp_cmp(*(const uint64_t *)x, *(const uint64_t *)y);
}

static uint32_t seg_of(const struct sky *K, uint64_t t)
{
	size_t lo = 0, hi = K->m + 1;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (K->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void hull(const struct dp_item *it, const struct dp_iv *iv,
		 uint64_t *lo, uint64_t *hi)
{
	uint32_t j;

	*lo = UINT64_MAX;
	*hi = 0;
	for (j = 0; j < it->iv_count; j++) {
		if (iv[it->iv_first + j].lo < *lo)
			*lo = iv[it->iv_first + j].lo;
		if (iv[it->iv_first + j].hi > *hi)
			*hi = iv[it->iv_first + j].hi;
	}
}

static void sky_free(struct sky *K)
{
	free(K->t);
	free(K->cs);
	free(K->ce);
	free(K->head);
	free(K->next);
	free(K->prev);
	free(K->lvl);
}

/* The key of the buckets' order: segment, longest first, key, index */
struct skey {
	uint32_t cs, ce;
	uint64_t key;
	uint32_t i;
};

static int cmp_skey(const void *x, const void *y)
{
	const struct skey *p = x, *q = y;

	return dp_cmp(p->cs, q->cs) ?: dp_cmp(q->ce, p->ce) ?:
	       dp_cmp(q->key, p->key) ?: dp_cmp(p->i, q->i);
}

/* The times, the hulls and the buckets (in cmp_skey order).  0, -1 when
 * a time is UINT64_MAX (no end after it), or -ENOMEM. */
static int sky_init(struct sky *K, const struct dp_item *it, size_t n,
		    const struct dp_iv *iv, const uint64_t *key, uint64_t start)
{
	struct skey *k = dp_realloc_array(NULL, n + 1, sizeof(*k));
	size_t i, nt = 0;
	uint64_t lo, hi;

	K->t = dp_realloc_array(NULL, 2 * n + 2, sizeof(*K->t));
	K->cs = dp_realloc_array(NULL, n + 1, sizeof(*K->cs));
	K->ce = dp_realloc_array(NULL, n + 1, sizeof(*K->ce));
	K->next = dp_realloc_array(NULL, n + 1, sizeof(*K->next));
	K->prev = dp_realloc_array(NULL, n + 1, sizeof(*K->prev));
	if (!k || !K->t || !K->cs || !K->ce || !K->next || !K->prev) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		hull(&it[i], iv, &lo, &hi);
		if (lo > hi)
			continue;
		if (hi == UINT64_MAX) {
			free(k);
			return -1;
		}
		K->t[nt++] = lo;
		K->t[nt++] = hi + 1;
	}
	qsort(K->t, nt, sizeof(*K->t), cmp_u64);
	for (i = 0, K->m = 0; i < nt; i++)
		if (!K->m || K->t[K->m - 1] != K->t[i])
			K->t[K->m++] = K->t[i];
	K->m = K->m ? K->m - 1 : 0;
	K->head = dp_realloc_array(NULL, K->m + 1, sizeof(*K->head));
	K->lvl = dp_realloc_array(NULL, K->m + 1, sizeof(*K->lvl));
	if (!K->head || !K->lvl) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i <= K->m; i++) {
		K->head[i] = UINT32_MAX;
		K->lvl[i] = start;
	}
	for (i = 0; i < n; i++) {
		hull(&it[i], iv, &lo, &hi);
		K->cs[i] = lo > hi ? K->m : seg_of(K, lo);
		K->ce[i] = lo > hi ? K->m : seg_of(K, hi + 1);
		k[i] = (struct skey){ K->cs[i], K->ce[i], key[i], i };
	}
	qsort(k, n, sizeof(*k), cmp_skey);
	for (i = n; i-- > 0;) {		/* push front, last first */
		uint32_t v = k[i].i, s = K->cs[v];

		K->next[v] = K->head[s];
		K->prev[v] = UINT32_MAX;
		if (K->head[s] != UINT32_MAX)
			K->prev[K->head[s]] = v;
		K->head[s] = v;
	}
	free(k);
	return 0;
}

static void unlink_item(struct sky *K, uint32_t v)
{
	uint32_t s = K->cs[v];

	if (K->prev[v] != UINT32_MAX)
		K->next[K->prev[v]] = K->next[v];
	else
		K->head[s] = K->next[v];
	if (K->next[v] != UINT32_MAX)
		K->prev[K->next[v]] = K->prev[v];
}

/* The item for the run [s0, s1): the longest span inside it; UINT32_MAX
 * when none fits inside. */
static uint32_t pick(struct sky *K, uint32_t s0, uint32_t s1)
{
	uint32_t s, v, best = UINT32_MAX;
	uint64_t bw = 0;

	for (s = s0; s < s1; s++)
		for (v = K->head[s]; v != UINT32_MAX; v = K->next[v]) {
			uint64_t w;

			K->work++;
			if (K->ce[v] > s1)
				continue;
			w = K->t[K->ce[v]] - K->t[s];
			if (best == UINT32_MAX || w > bw) {
				best = v;
				bw = w;
			}
			break;
		}
	return best;
}

/* The lowest run: its level, [*s0, *s1) the leftmost stretch at it. */
static uint64_t lowest_run(struct sky *K, uint32_t *s0, uint32_t *s1)
{
	uint64_t h = UINT64_MAX;
	uint32_t s;

	K->work += K->m;
	for (s = 0; s < K->m; s++)
		if (K->lvl[s] < h) {
			h = K->lvl[s];
			*s0 = s;
		}
	for (s = *s0; s < K->m && K->lvl[s] == h; s++)
		;
	*s1 = s;
	return h;
}

/* Items without an interval at start; then each step fills or raises the
 * lowest run.  0, -1 (something ends above ceiling) or -ENOMEM. */
static int fill(struct sky *K, struct dp_item *it, size_t n,
		uint64_t start, uint64_t ceiling, uint64_t page)
{
	size_t left = n;
	uint32_t v, s, s0 = 0, s1 = 0;
	uint64_t h, a;

	for (v = K->head[K->m]; v != UINT32_MAX; v = K->next[v], left--)
		if (!dp_try_gap(start, ceiling, it[v].size, page, it[v].align,
				&it[v].addr))
			return -1;
	while (left) {
		if (K->work > DP_SKYLINE_WORK)
			return -1;
		h = lowest_run(K, &s0, &s1);
		v = pick(K, s0, s1);
		if (v == UINT32_MAX) {
			if (s0 == 0 && s1 == K->m)
				return -1;	/* cannot happen: all fit */
			if (s0 == 0 || (s1 < K->m && K->lvl[s1] < K->lvl[s0 - 1]))
				h = K->lvl[s1];
			else
				h = K->lvl[s0 - 1];
			for (s = s0; s < s1; s++)
				K->lvl[s] = h;
			continue;
		}
		if (!dp_try_gap(h, ceiling, it[v].size, page, it[v].align, &a))
			return -1;
		it[v].addr = a;
		K->work += K->ce[v] - K->cs[v];
		for (s = K->cs[v]; s < K->ce[v]; s++)
			K->lvl[s] = a + it[v].size;
		unlink_item(K, v);
		left--;
	}
	return 0;
}

int dp_skyline(struct dp_item *it, size_t n, const struct dp_iv *iv,
	       const uint64_t *key, uint64_t start, uint64_t ceiling,
	       uint64_t page)
{
	struct sky K = { 0 };
	int rc = sky_init(&K, it, n, iv, key, start);

	if (!rc)
		rc = fill(&K, it, n, start, ceiling, page);
	sky_free(&K);
	return rc;
}
