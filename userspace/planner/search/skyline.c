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
 * caller reruns it with perturbed keys (portfolio.c, top.c).
 *
 * Cost: a min tree over the skyline's m segments (m: the distinct interval
 * ends) finds the lowest run in O(log m + its length); placing an item or
 * raising a run costs its segments times O(log m) at most; the candidates
 * skipped in the buckets add to it (the chain pass visits every candidate
 * in the run's buckets once a run).  The pass gives up (no placement,
 * like a pass that does not fit) once it has visited par->skyline_work
 * segments, tree nodes and candidates, so its cost is bounded whatever
 * the input.  The times and hulls depend on
 * the items' intervals only; passes over one item set share them
 * (struct dp_sky_hulls) and sort only the ties within a hull.  The
 * steps look only at the run's segments where an unplaced item starts
 * (busy(): a union-find over the segments whose lists emptied), not at
 * all of them: late in a pass most are empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "xorshift.h"

struct sky {
	struct dp_sky_hulls own;	/* when the caller gave none */
	const uint64_t *t;	/* the distinct times, m + 1 of them */
	size_t m;
	const uint32_t *cs, *ce;	/* item -> hull [cs, ce) in segments */
	uint32_t *head, *next, *prev;	/* per start segment, a list */
	uint32_t *nx;		/* towards the next segment whose list is not
				 * empty (itself when its own is not; m) */
	uint32_t *ne;		/* cover's scratch: a run's such segments */
	uint64_t *lvl;		/* the skyline, per segment */
	uint64_t *mn;		/* a min tree over lvl[] (leaves at tsz) */
	uint32_t tsz;
	uint64_t work;		/* segments and bucket entries visited */
	uint64_t max_work;	/* and at most (par->skyline_work) */
	/* the chain pass (dp_skyline_chain): per segment of the run */
	int chain;		/* 1: ties by span x key, 2: span^2 x key */
	int keep;		/* items with an address stay (a floor) */
	size_t kept;
	uint64_t *cov, *area;	/* the most time covered from it on; the
				 * area (size x span) of that cover */
	uint32_t *cho;		/* the item that starts the cover, or none */
	const uint64_t *key;
	const struct dp_iv *iv;
};

static void sky_free(struct sky *K)
{
	dp_sky_hulls_free(&K->own);
	DP_FREE(K->head, K->next, K->prev, K->nx, K->ne, K->lvl, K->mn,
		K->cov, K->area, K->cho);
}

/* k[0 .. n) in dp_cmp_hull_key order: the hulls' order, each run of one hull
 * sorted by its ties (mostly a few items: by insertion) */
static void order_by(struct dp_hull_key *k, size_t n, const struct dp_sky_hulls *h,
		     const uint64_t *key)
{
	size_t a, b, j;

	for (j = 0; j < n; j++) {
		uint32_t v = h->ord[j];

		k[j] = (struct dp_hull_key){ .cs = h->cs[v], .ce = h->ce[v],
					     .key = key[v], .i = v };
	}
	for (a = 0; a < n; a = b) {
		for (b = a + 1; b < n && k[b].cs == k[a].cs &&
		     k[b].ce == k[a].ce; b++)
			;
		if (b - a > 16) {
			qsort(k + a, b - a, sizeof(*k), dp_cmp_hull_key);
			continue;
		}
		for (j = a + 1; j < b; j++) {
			struct dp_hull_key x = k[j];
			size_t i = j;

			for (; i > a && dp_cmp_hull_key(&k[i - 1], &x) > 0; i--)
				k[i] = k[i - 1];
			k[i] = x;
		}
	}
}

/* The hulls (hu's, or its own when NULL), the skyline and the buckets
 * (in dp_cmp_hull_key order).  0, -1 when a time is UINT64_MAX (no end after
 * it), or -ENOMEM. */
/* K's arrays over n items and K->m segments.  0, or -ENOMEM. */
static int sky_alloc(struct sky *K, size_t n)
{
	size_t m = K->m + 1;

	K->next = dp_realloc_array(NULL, n + 1, sizeof(*K->next));
	K->prev = dp_realloc_array(NULL, n + 1, sizeof(*K->prev));
	K->head = dp_realloc_array(NULL, m, sizeof(*K->head));
	K->nx = dp_realloc_array(NULL, m, sizeof(*K->nx));
	K->lvl = dp_realloc_array(NULL, m, sizeof(*K->lvl));
	if (K->chain) {
		K->cov = dp_realloc_array(NULL, m, sizeof(*K->cov));
		K->area = dp_realloc_array(NULL, m, sizeof(*K->area));
		K->cho = dp_realloc_array(NULL, m, sizeof(*K->cho));
		K->ne = dp_realloc_array(NULL, m, sizeof(*K->ne));
	}
	if (!K->next || !K->prev || !K->head || !K->nx || !K->lvl ||
	    (K->chain && (!K->cov || !K->area || !K->cho || !K->ne)))
		return -ENOMEM;
	for (K->tsz = 1; K->tsz < K->m; K->tsz *= 2)
		;
	K->mn = dp_realloc_array(NULL, 2 * (size_t)K->tsz, sizeof(*K->mn));
	return K->mn ? 0 : -ENOMEM;
}

/* Each segment's level: start, or (DP_SKY_KEEP) the top of the items kept
 * there, a floor under the others; and the levels' min tree */
static void sky_levels(struct sky *K, const struct dp_item *it, size_t n,
		       uint64_t start)
{
	size_t i;

	for (i = 0; i <= K->m; i++) {
		K->head[i] = UINT32_MAX;
		K->lvl[i] = start;
	}
	for (i = 0; i < n; i++) {
		uint32_t s;

		if (!K->keep || it[i].addr == DP_UNSET)
			continue;
		K->kept++;
		for (s = K->cs[i]; s < K->ce[i]; s++)
			if (it[i].addr + it[i].size > K->lvl[s])
				K->lvl[s] = it[i].addr + it[i].size;
	}
	for (i = 0; i < K->tsz; i++)
		K->mn[K->tsz + i] = i < K->m ? K->lvl[i] : UINT64_MAX;
	for (i = K->tsz; i-- > 1;)
		K->mn[i] = K->mn[2 * i] < K->mn[2 * i + 1] ? K->mn[2 * i] :
			   K->mn[2 * i + 1];
}

/* The items to place in their first segment's bucket, in the order of
 * key (order_by), and each segment's next non-empty bucket.  0, or
 * -ENOMEM. */
static int sky_buckets(struct sky *K, const struct dp_item *it, size_t n,
		       const uint64_t *key, const struct dp_sky_hulls *hu)
{
	struct dp_hull_key *k = dp_realloc_array(NULL, n + 1, sizeof(*k));
	size_t i;

	if (!k)
		return -ENOMEM;
	order_by(k, n, hu, key);
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
	for (i = 0; i <= K->m; i++)
		K->nx[i] = i == K->m || K->head[i] != UINT32_MAX ? i : i + 1;
	free(k);
	return 0;
}

static int sky_init(struct sky *K, const struct dp_item *it, size_t n,
		    const uint64_t *key, uint64_t start,
		    const struct dp_sky_hulls *hu)
{
	int rc;

	if (!hu) {
		rc = dp_sky_hulls_new(it, n, K->iv, &K->own);
		if (rc)
			return rc;
		hu = &K->own;
	}
	K->t = hu->t;
	K->m = hu->m;
	K->cs = hu->cs;
	K->ce = hu->ce;
	if (sky_alloc(K, n))
		return -ENOMEM;
	sky_levels(K, it, n, start);
	return sky_buckets(K, it, n, key, hu);
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

/* The first segment from s on whose list is not empty, or m: lists only
 * empty during a pass, so nx[] is a union-find towards m (halved paths).
 * Only the lists' segments hold anything for pick() and cover(), and
 * late in a pass most runs' segments have none. */
static uint32_t busy(struct sky *K, uint32_t s)
{
	while (K->nx[s] != s) {
		K->nx[s] = K->nx[K->nx[s]];
		s = K->nx[s];
	}
	return s;
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
	if (K->head[s] == UINT32_MAX && s < K->m)
		K->nx[s] = s + 1;
}

/* The item for the run [s0, s1): the longest span inside it; UINT32_MAX
 * when none fits inside. */
static uint32_t pick(struct sky *K, uint32_t s0, uint32_t s1)
{
	uint32_t s, v, best = UINT32_MAX;
	uint64_t bw = 0;

	for (s = busy(K, s0); s < s1; s = busy(K, s + 1))
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
	uint32_t s, v, e, j, k = 0;

	/* only segments whose lists hold items: cov[] and area[] of any
	 * other are those of the next such segment (or 0 from s1 on) */
	for (s = busy(K, s0); s < s1; s = busy(K, s + 1))
		K->ne[k++] = s;
	for (j = k; j-- > 0;) {
		s = K->ne[j];
		K->cov[s] = j + 1 < k ? K->cov[K->ne[j + 1]] : 0;
		K->area[s] = j + 1 < k ? K->area[K->ne[j + 1]] : 0;
		K->cho[s] = UINT32_MAX;
		for (v = K->head[s]; v != UINT32_MAX; v = K->next[v]) {
			uint64_t w = K->t[K->ce[v]] - K->t[s], c, a, ca, aa;

			K->work++;
			if (K->ce[v] > s1)
				continue;
			e = busy(K, K->ce[v]);
			ca = e < s1 ? K->cov[e] : 0;
			aa = e < s1 ? K->area[e] : 0;
			c = w + ca;
			if (__builtin_mul_overflow(w, K->key[v], &a) ||
			    (K->chain > 1 && __builtin_mul_overflow(w, a, &a)) ||
			    __builtin_add_overflow(a, aa, &a))
				a = UINT64_MAX;
			if (c > K->cov[s] || (c == K->cov[s] && a > K->area[s])) {
				K->cov[s] = c;
				K->area[s] = a;
				K->cho[s] = v;
			}
		}
	}
	return k ? K->cov[K->ne[0]] : 0;
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
static int fill(struct sky *K, const struct dp_problem *p)
{
	struct dp_item *it = p->it;
	uint64_t ceiling = p->ceiling, page = p->page;
	size_t left = p->n - K->kept;
	uint32_t v, s, s0 = 0, s1 = 0;
	uint64_t h;

	for (v = K->head[K->m]; v != UINT32_MAX; v = K->next[v], left--)
		if (!dp_try_gap(p->start, ceiling, it[v].size, page, it[v].align,
				&it[v].addr))
			return -1;
	while (left) {
		if (K->work > K->max_work)
			return -1;
		h = lowest_run(K, &s0, &s1);
		if (K->chain && cover(K, s0, s1)) {
			for (s = busy(K, s0); s < s1;
			     s = busy(K, v == UINT32_MAX ? s + 1 : K->ce[v])) {
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

/* A pass over p (chain: struct sky's; keep: DP_SKY_KEEP's) */
static int skyline(const struct dp_problem *p,
		   const struct dp_search_params *par, const uint64_t *key,
		   int chain, int keep, uint64_t *work,
		   const struct dp_sky_hulls *hu)
{
	struct sky K = { .iv = p->iv, .chain = chain, .keep = keep,
			 .key = key, .max_work = par->skyline_work };
	int rc = sky_init(&K, p->it, p->n, key, p->start, hu);

	if (!rc)
		rc = fill(&K, p);
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

int dp_skyline(const struct dp_problem *p, const struct dp_search_params *par,
	       const uint64_t *key, const struct dp_sky_hulls *hu)
{
	return skyline(p, par, key, 0, 0, NULL, hu);
}

int dp_skyline_chain(const struct dp_problem *p,
		     const struct dp_search_params *par, const uint64_t *key,
		     int flags, uint64_t *work, const struct dp_sky_hulls *hu)
{
	return skyline(p, par, key, 1 + !!(flags & DP_SKY_SPAN2),
		       !!(flags & DP_SKY_KEEP), work, hu);
}
