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
 * The chain pass (dp_skyline_chain) gives each lowest run a set of items
 * at once: the items inside the run, end to end or with gaps, that cover
 * the most of its time, found by dynamic programming over the run's
 * buckets from its right end (ties: the largest sum of span x key, or of
 * span^2 x key, which favours the long items while runs are wide).  Where
 * the plain pass takes the longest item and may leave a stretch beside it
 * nothing fills, this one fills the whole run whenever its items can; the
 * caller reruns it with perturbed keys (strategy.c).
 *
 * Cost: a min tree over the skyline's m segments (m: the distinct interval
 * ends) finds the lowest run in O(log m + its length); placing an item or
 * raising a run costs its segments times O(log m) at most; the candidates
 * skipped in the buckets add to it (the chain pass visits every candidate
 * in the run's buckets once a run).  The pass gives up (no placement,
 * like a pass that does not fit) once it has visited DP_SKYLINE_WORK
 * segments, tree nodes and candidates, so a placement of 10^5 items with
 * as many distinct times costs a bounded second or so.  (Before the min
 * tree each step scanned all m segments: the pass gave up on the
 * 100,000-tensor training model of scripts/bench-quality.c, and now
 * completes there, at the lower bound.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "xorshift.h"

struct sky {
	uint64_t *t;		/* the distinct times, m + 1 of them */
	size_t m;
	uint32_t *cs, *ce;	/* item -> hull [cs, ce) in segments */
	uint32_t *head, *next, *prev;	/* per start segment, a list */
	uint64_t *lvl;		/* the skyline, per segment */
	uint64_t *mn;		/* a min tree over lvl[] (leaves at tsz) */
	uint32_t tsz;
	uint64_t work;		/* segments and bucket entries visited */
	/* the chain pass (dp_skyline_chain): per segment of the run */
	int chain;		/* 1: ties by span x key, 2: span^2 x key */
	int keep;		/* items with an address stay (a floor) */
	size_t kept;
	uint64_t *cov, *area;	/* the most time covered from it on; the
				 * area (size x span) of that cover */
	uint32_t *cho;		/* the item that starts the cover, or none */
	const uint64_t *key;
};

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

static void sky_free(struct sky *K)
{
	DP_FREE(K->t, K->cs, K->ce, K->head, K->next, K->prev, K->lvl, K->mn,
		K->cov, K->area, K->cho);
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
		dp_item_hull(&it[i], iv, &lo, &hi);
		if (lo > hi)
			continue;
		if (hi == UINT64_MAX) {
			free(k);
			return -1;
		}
		K->t[nt++] = lo;
		K->t[nt++] = hi + 1;
	}
	qsort(K->t, nt, sizeof(*K->t), dp_cmp_u64);
	for (i = 0, K->m = 0; i < nt; i++)
		if (!K->m || K->t[K->m - 1] != K->t[i])
			K->t[K->m++] = K->t[i];
	K->m = K->m ? K->m - 1 : 0;
	K->head = dp_realloc_array(NULL, K->m + 1, sizeof(*K->head));
	K->lvl = dp_realloc_array(NULL, K->m + 1, sizeof(*K->lvl));
	if (K->chain) {
		K->cov = dp_realloc_array(NULL, K->m + 1, sizeof(*K->cov));
		K->area = dp_realloc_array(NULL, K->m + 1, sizeof(*K->area));
		K->cho = dp_realloc_array(NULL, K->m + 1, sizeof(*K->cho));
	}
	if (!K->head || !K->lvl ||
	    (K->chain && (!K->cov || !K->area || !K->cho))) {
		free(k);
		return -ENOMEM;
	}
	for (K->tsz = 1; K->tsz < K->m; K->tsz *= 2)
		;
	K->mn = dp_realloc_array(NULL, 2 * (size_t)K->tsz, sizeof(*K->mn));
	if (!K->mn) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i <= K->m; i++) {
		K->head[i] = UINT32_MAX;
		K->lvl[i] = start;
	}
	for (i = 0; i < n; i++) {
		uint32_t s;

		dp_item_hull(&it[i], iv, &lo, &hi);
		K->cs[i] = lo > hi ? K->m : seg_of(K, lo);
		K->ce[i] = lo > hi ? K->m : seg_of(K, hi + 1);
		k[i] = (struct skey){ K->cs[i], K->ce[i], key[i], i };
		if (!K->keep || it[i].addr == DP_UNSET)
			continue;
		K->kept++;		/* a floor under the others */
		for (s = K->cs[i]; s < K->ce[i]; s++)
			if (it[i].addr + it[i].size > K->lvl[s])
				K->lvl[s] = it[i].addr + it[i].size;
	}
	for (i = 0; i < K->tsz; i++)
		K->mn[K->tsz + i] = i < K->m ? K->lvl[i] : UINT64_MAX;
	for (i = K->tsz; i-- > 1;)
		K->mn[i] = K->mn[2 * i] < K->mn[2 * i + 1] ? K->mn[2 * i] :
			   K->mn[2 * i + 1];
	qsort(k, n, sizeof(*k), cmp_skey);
	for (i = n; i-- > 0;) {		/* push front, last first */
		uint32_t v = k[i].i, s = K->cs[v];

		if (K->keep && it[v].addr != DP_UNSET)
			continue;
		K->next[v] = K->head[s];
		K->prev[v] = UINT32_MAX;
		if (K->head[s] != UINT32_MAX)
			K->prev[K->head[s]] = v;
		K->head[s] = v;
	}
	free(k);
	return 0;
}

/* lvl[s0 .. s1) = h, and the min tree above them */
static void set_level(struct sky *K, uint32_t s0, uint32_t s1, uint64_t h)
{
	uint32_t s, i;

	for (s = s0; s < s1; s++) {
		K->lvl[s] = h;
		K->mn[K->tsz + s] = h;
	}
	K->work += s1 - s0;
	for (s0 = (K->tsz + s0) / 2, s1 = (K->tsz + s1 - 1) / 2; s0;
	     s0 /= 2, s1 /= 2)
		for (i = s0; i <= s1; i++) {
			K->mn[i] = K->mn[2 * i] < K->mn[2 * i + 1] ?
				   K->mn[2 * i] : K->mn[2 * i + 1];
			K->work++;
		}
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

/* The chain pass's cover of the run [s0, s1): items inside it, end to end
 * or with gaps, that cover the most time (ties: the most span x key, or
 * span^2 x key), by
 * dynamic programming from the right end over the run's buckets.  The
 * time covered; cho[] from s0 on lists the cover. */
static uint64_t cover(struct sky *K, uint32_t s0, uint32_t s1)
{
	uint32_t s, v;

	K->cov[s1] = K->area[s1] = 0;
	for (s = s1; s-- > s0;) {
		K->cov[s] = K->cov[s + 1];
		K->area[s] = K->area[s + 1];
		K->cho[s] = UINT32_MAX;
		for (v = K->head[s]; v != UINT32_MAX; v = K->next[v]) {
			uint64_t w = K->t[K->ce[v]] - K->t[s], c, a;

			K->work++;
			if (K->ce[v] > s1)
				continue;
			c = w + K->cov[K->ce[v]];
			if (__builtin_mul_overflow(w, K->key[v], &a) ||
			    (K->chain > 1 && __builtin_mul_overflow(w, a, &a)) ||
			    __builtin_add_overflow(a, K->area[K->ce[v]], &a))
				a = UINT64_MAX;
			if (c > K->cov[s] || (c == K->cov[s] && a > K->area[s])) {
				K->cov[s] = c;
				K->area[s] = a;
				K->cho[s] = v;
			}
		}
	}
	return K->cov[s0];
}

/* Item v at the lowest legal offset from h; 0, or -1 above ceiling. */
static int put(struct sky *K, struct dp_item *it, uint32_t v, uint64_t h,
	       uint64_t ceiling, uint64_t page)
{
	uint64_t a;

	if (!dp_try_gap(h, ceiling, it[v].size, page, it[v].align, &a))
		return -1;
	it[v].addr = a;
	set_level(K, K->cs[v], K->ce[v], a + it[v].size);
	unlink_item(K, v);
	return 0;
}

/* The lowest run: its level, [*s0, *s1) the leftmost stretch at it. */
static uint64_t lowest_run(struct sky *K, uint32_t *s0, uint32_t *s1)
{
	uint64_t h = K->mn[1];
	uint32_t s, i = 1;

	while (i < K->tsz)
		i = K->mn[2 * i] <= K->mn[2 * i + 1] ? 2 * i : 2 * i + 1;
	*s0 = i - K->tsz;
	for (s = *s0; s < K->m && K->lvl[s] == h; s++)
		;
	K->work += s - *s0 + 1;
	*s1 = s;
	return h;
}

/* Items without an interval at start; then each step fills or raises the
 * lowest run.  0, -1 (something ends above ceiling) or -ENOMEM. */
static int fill(struct sky *K, struct dp_item *it, size_t n,
		uint64_t start, uint64_t ceiling, uint64_t page)
{
	size_t left = n - K->kept;
	uint32_t v, s, s0 = 0, s1 = 0;
	uint64_t h;

	for (v = K->head[K->m]; v != UINT32_MAX; v = K->next[v], left--)
		if (!dp_try_gap(start, ceiling, it[v].size, page, it[v].align,
				&it[v].addr))
			return -1;
	while (left) {
		if (K->work > DP_SKYLINE_WORK)
			return -1;
		h = lowest_run(K, &s0, &s1);
		if (K->chain && cover(K, s0, s1)) {
			for (s = s0; s < s1; s = v == UINT32_MAX ? s + 1 : K->ce[v]) {
				v = K->cho[s];
				if (v == UINT32_MAX)
					continue;
				if (put(K, it, v, h, ceiling, page))
					return -1;
				left--;
			}
			continue;
		}
		v = pick(K, s0, s1);
		if (v == UINT32_MAX) {
			if (s0 == 0 && s1 == K->m)
				return -1;	/* cannot happen: all fit */
			if (s0 == 0 || (s1 < K->m && K->lvl[s1] < K->lvl[s0 - 1]))
				h = K->lvl[s1];
			else
				h = K->lvl[s0 - 1];
			set_level(K, s0, s1, h);
			continue;
		}
		if (put(K, it, v, h, ceiling, page))
			return -1;
		left--;
	}
	return 0;
}

static int skyline(struct dp_item *it, size_t n, const struct dp_iv *iv,
		   const uint64_t *key, uint64_t start, uint64_t ceiling,
		   uint64_t page, int chain, int keep, uint64_t *work)
{
	struct sky K = { .chain = chain, .keep = keep, .key = key };
	int rc = sky_init(&K, it, n, iv, key, start);

	if (!rc)
		rc = fill(&K, it, n, start, ceiling, page);
	if (work)
		*work += K.work;
	sky_free(&K);
	return rc;
}

void dp_sky_perturb(const struct dp_item *it, size_t n, uint64_t spread,
		    uint64_t *rs, uint64_t *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (__builtin_mul_overflow(it[i].size,
					   64 + xorshift64_below(rs, 64 * (spread - 1)),
					   &key[i]))
			key[i] = UINT64_MAX;
}

int dp_skyline(struct dp_item *it, size_t n, const struct dp_iv *iv,
	       const uint64_t *key, uint64_t start, uint64_t ceiling,
	       uint64_t page)
{
	return skyline(it, n, iv, key, start, ceiling, page, 0, 0, NULL);
}

int dp_skyline_chain(struct dp_item *it, size_t n, const struct dp_iv *iv,
		     const uint64_t *key, uint64_t start, uint64_t ceiling,
		     uint64_t page, int flags, uint64_t *work)
{
	return skyline(it, n, iv, key, start, ceiling, page,
		       1 + !!(flags & DP_SKY_SPAN2), !!(flags & DP_SKY_KEEP),
		       work);
}
