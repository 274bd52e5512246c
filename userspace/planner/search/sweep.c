// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.c - the sweeps over one item set that the search's parts read
 * (--strategy search): which items overlap which (struct dp_ovl), the
 * end of a placement, the items' hulls among their distinct times
 * (struct dp_sky_hulls), with the orders they sort by.  Each depends on
 * the items' intervals only, not on a placement, so a search builds each
 * once for an item set and its parts share it.
 */
#include <errno.h>
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"
#include "search/search.h"

/* ---- the overlaps ------------------------------------------------------- */

/*
 * The pairs of items whose intervals overlap: one sweep over the
 * intervals e[0..niv) by start (sorted here), the open ones in an array
 * compacted as it goes (an open interval either overlaps the new one or
 * has ended and leaves), so O(I log I + E); a pair met through several
 * intervals comes once for each.  *pr (*np of them): 0; 1 when the
 * entries (two per pair) would pass max_edges; -ENOMEM.
 */
static int sweep_pairs(struct dp_span *e, size_t niv, size_t max_edges,
		       uint32_t (**pr)[2], size_t *np)
{
	struct dp_span *act = dp_realloc_array(NULL, niv + 1, sizeof(*act));
	size_t na = 0, capp = 0, j, k;
	int rc = 0;

	if (!act)
		return -ENOMEM;
	qsort(e, niv, sizeof(*e), dp_cmp_span);
	for (k = 0; k < niv && !rc; k++) {
		size_t keep = 0;

		for (j = 0; j < na; j++) {
			if (act[j].hi < e[k].lo)
				continue;
			act[keep++] = act[j];
			if (act[j].i == e[k].i)
				continue;
			if (*np == capp) {
				if (2 * *np > max_edges) {
					rc = 1;
					break;
				}
				if (dp_grow(pr, &capp, *np + 1, sizeof(**pr),
					    4096)) {
					rc = -ENOMEM;
					break;
				}
			}
			(*pr)[*np][0] = act[j].i;
			(*pr)[(*np)++][1] = e[k].i;
		}
		na = keep;
		act[na++] = e[k];
	}
	free(act);
	return rc ? rc : 2 * *np > max_edges;
}

/* o's lists of n items from the np pairs pr: both directions, by item
 * (counting sort), each pair once.  0, or -ENOMEM. */
static int lists_of(struct dp_ovl *o, size_t n, const uint32_t (*pr)[2],
		    size_t np)
{
	uint32_t *fill = calloc(n + 1, sizeof(*fill));
	uint32_t *stamp = calloc(n + 1, sizeof(*stamp));
	size_t i, j, k;
	int rc = -ENOMEM;

	o->first = calloc(n + 2, sizeof(*o->first));
	o->ov = dp_realloc_array(NULL, 2 * np + 1, sizeof(*o->ov));
	if (!o->first || !fill || !stamp || !o->ov)
		goto out;
	for (k = 0; k < np; k++) {
		o->first[pr[k][0] + 1]++;
		o->first[pr[k][1] + 1]++;
	}
	for (i = 0; i < n; i++)
		o->first[i + 1] += o->first[i];
	for (k = 0; k < np; k++) {
		o->ov[o->first[pr[k][0]] + fill[pr[k][0]]++] = pr[k][1];
		o->ov[o->first[pr[k][1]] + fill[pr[k][1]]++] = pr[k][0];
	}
	for (i = 0, k = 0; i < n; i++) {	/* dedupe, compacting in place */
		uint32_t a = o->first[i], z = o->first[i + 1];

		o->first[i] = k;
		for (j = a; j < z; j++)
			if (stamp[o->ov[j]] != i + 1) {
				stamp[o->ov[j]] = i + 1;
				o->ov[k++] = o->ov[j];
			}
	}
	o->first[n] = k;
	o->n = n;
	rc = 0;
out:
	free(fill);
	free(stamp);
	return rc;
}

/*
 * Which items overlap which (closed intervals), and each item's live
 * time: the sweep (sweep_pairs), then the lists (lists_of).  NULL when
 * the entries (two per pair) would pass max_edges.
 */
int dp_ovl_new(const struct dp_item *it, size_t n, const struct dp_iv *iv,
	       size_t max_edges, struct dp_ovl **out)
{
	struct dp_ovl *o = calloc(1, sizeof(*o));
	size_t niv = 0, np = 0, i, j, k;
	struct dp_span *e;
	uint32_t (*pr)[2] = NULL;
	int rc = -ENOMEM;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		niv += it[i].iv_count;
	e = dp_realloc_array(NULL, niv + 1, sizeof(*e));
	o->width = calloc(n + 1, sizeof(*o->width));
	if (!e || !o->width)
		goto out;
	for (i = 0, k = 0; i < n; i++)
		for (j = 0; j < it[i].iv_count; j++) {
			const struct dp_iv *v = &iv[it[i].iv_first + j];

			e[k++] = (struct dp_span){ .lo = v->lo, .hi = v->hi,
						   .i = i };
			o->width[i] += v->hi - v->lo + 1;
		}
	rc = sweep_pairs(e, niv, max_edges, &pr, &np);
	if (!rc) {
		rc = lists_of(o, n, (const uint32_t (*)[2])pr, np);
		if (!rc) {
			*out = o;
			o = NULL;
		}
	} else if (rc == 1) {
		rc = 0;		/* too large: *out NULL */
	}
out:
	free(pr);
	free(e);
	dp_ovl_free(o);
	return rc;
}

void dp_ovl_free(struct dp_ovl *o)
{
	if (!o)
		return;
	DP_FREE(o->first, o->ov, o->width, o);
}

/* ---- orders, the end, the hulls -------------------------------------- */

int dp_cmp_key3(const void *x, const void *y)
{
	const struct dp_key3 *p = x, *q = y;
	int j;

	for (j = 0; j < 3; j++)
		if (p->k[j] != q->k[j])
			return p->k[j] > q->k[j] ? -1 : 1;	/* descending */
	return (p->i > q->i) - (p->i < q->i);
}

int dp_cmp_span(const void *x, const void *y)
{
	const struct dp_span *p = x, *q = y;

	return dp_cmp(p->lo, q->lo) ?: dp_cmp(p->i, q->i);
}

uint64_t dp_items_end(const struct dp_item *it, size_t n, uint64_t start)
{
	uint64_t e = start;
	size_t i;

	for (i = 0; i < n; i++)
		if (it[i].addr + it[i].size > e)
			e = it[i].addr + it[i].size;
	return e;
}

static uint32_t seg_of(const struct dp_sky_hulls *h, uint64_t t)
{
	size_t lo = 0, hi = h->m + 1;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (h->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int dp_cmp_hull_key(const void *x, const void *y)
{
	const struct dp_hull_key *p = x, *q = y;

	return dp_cmp(p->cs, q->cs) ?: dp_cmp(q->ce, p->ce) ?:
	       dp_cmp(q->key, p->key) ?: dp_cmp(p->i, q->i);
}

void dp_sky_hulls_free(struct dp_sky_hulls *h)
{
	DP_FREE(h->t, h->cs, h->ce, h->ord);
	*h = (struct dp_sky_hulls){ 0 };
}

int dp_sky_hulls_new(const struct dp_item *it, size_t n,
		     const struct dp_iv *iv, struct dp_sky_hulls *h)
{
	struct dp_hull_key *k = dp_realloc_array(NULL, n + 1, sizeof(*k));
	size_t i, nt = 0;
	uint64_t lo, hi;

	*h = (struct dp_sky_hulls){ 0 };
	h->t = dp_realloc_array(NULL, 2 * n + 2, sizeof(*h->t));
	h->cs = dp_realloc_array(NULL, n + 1, sizeof(*h->cs));
	h->ce = dp_realloc_array(NULL, n + 1, sizeof(*h->ce));
	h->ord = dp_realloc_array(NULL, n + 1, sizeof(*h->ord));
	if (!k || !h->t || !h->cs || !h->ce || !h->ord) {
		free(k);
		dp_sky_hulls_free(h);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		dp_item_hull(&it[i], iv, &lo, &hi);
		if (lo > hi)
			continue;
		if (hi == UINT64_MAX) {
			free(k);
			dp_sky_hulls_free(h);
			return -1;
		}
		h->t[nt++] = lo;
		h->t[nt++] = hi + 1;
	}
	qsort(h->t, nt, sizeof(*h->t), dp_cmp_u64);
	for (i = 0, h->m = 0; i < nt; i++)
		if (!h->m || h->t[h->m - 1] != h->t[i])
			h->t[h->m++] = h->t[i];
	h->m = h->m ? h->m - 1 : 0;
	for (i = 0; i < n; i++) {
		dp_item_hull(&it[i], iv, &lo, &hi);
		h->cs[i] = lo > hi ? h->m : seg_of(h, lo);
		h->ce[i] = lo > hi ? h->m : seg_of(h, hi + 1);
		k[i] = (struct dp_hull_key){ .cs = h->cs[i], .ce = h->ce[i],
					     .key = 0, .i = (uint32_t)i };
	}
	qsort(k, n, sizeof(*k), dp_cmp_hull_key);
	for (i = 0; i < n; i++)
		h->ord[i] = k[i].i;
	free(k);
	return 0;
}
