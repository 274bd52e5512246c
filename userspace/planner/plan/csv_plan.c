// SPDX-License-Identifier: GPL-2.0
/*
 * csv_plan.c - a MiniMalloc instance (model/csv.c) solved and verified:
 * the items of its buffers placed by dp_place in an order or by the
 * search, their offsets taken back, and a solution checked.  Buffer i is
 * live over [lower, upper), the closed [lower, upper - 1] of an item; the
 * page rule is off (page = 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "plan/plan.h"

static int problem_of(const struct dp_csv *c, uint64_t capacity,
		      struct dp_problem *p)
{
	struct dp_item *it = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*it));
	struct dp_iv *iv = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*iv));
	size_t i;

	*p = (struct dp_problem){ .it = it, .n = c->n, .iv = iv, .start = 0,
				  .ceiling = capacity ? capacity : UINT64_MAX,
				  .page = 0 };
	if (!it || !iv)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		iv[i].lo = c->b[i].lower;
		iv[i].hi = c->b[i].upper - 1;
		it[i].size = c->b[i].size;
		it[i].align = c->b[i].align;
		it[i].iv_first = i;
		it[i].iv_count = 1;
		it[i].addr = DP_UNSET;
	}
	return 0;
}

/* The items' addresses as the buffers' offsets. */
static void take_offsets(struct dp_csv *c, const struct dp_item *it)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		c->b[i].offset = it[i].addr;
		c->b[i].has_offset = 1;
	}
	c->has_offset = 1;
}

int dp_csv_solve(struct dp_csv *c, uint64_t capacity, enum dp_order order,
		 struct dp_place_stats *st, struct dp_err *e)
{
	struct dp_problem p;
	size_t failed = 0;
	int rc = problem_of(c, capacity, &p);
	struct dp_item *it = p.it;
	const struct dp_iv *iv = p.iv;

	if (rc)
		goto nomem;
	rc = dp_place(&p, order, DP_ENGINE_AUTO, st, &failed, NULL, "");
	if (rc == -ENOMEM)
		goto nomem;
	if (rc) {
		if (capacity)
			dp_fail(e, "%s: buffer '%s' (%llu bytes): no offset fits below the capacity %llu (--capacity)",
				c->file, c->b[failed].id,
				(unsigned long long)c->b[failed].size,
				(unsigned long long)capacity);
		else
			dp_fail(e, "%s: buffer '%s' (%llu bytes): no offset fits in the 64-bit address space (no --capacity given)",
				c->file, c->b[failed].id,
				(unsigned long long)c->b[failed].size);
		goto out;
	}
	take_offsets(c, it);
	rc = 0;
	if (st && dp_lower_bound_r(it, c->n, iv, &st->lower_bound))
		goto nomem;
	goto out;
nomem:
	dp_nomem(e);
	rc = -ENOMEM;
out:
	free(it);
	free((void *)iv);
	return rc;
}

int dp_csv_solve_best(struct dp_csv *c, uint64_t capacity,
		      struct dp_place_stats *st, enum dp_order *used,
		      struct dp_err *e)
{
	static const enum dp_order orders[] = { DP_ORDER_SIMPLIFY,
		DP_ORDER_SIZE, DP_ORDER_AREA, DP_ORDER_START };
	uint64_t *best = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*best));
	uint64_t best_peak = 0;
	size_t k, i;
	int ok = 0;	/* best[] holds a solution (its peak may be 2^64 - 1) */
	int r;

	if (!best)
		return dp_nomem(e);
	for (k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		struct dp_place_stats s = { 0 };
		uint64_t peak;

		r = dp_csv_solve(c, capacity, orders[k], &s, NULL);
		if (r == -ENOMEM) {
			free(best);
			return dp_nomem(e);
		}
		if (r)
			continue;
		peak = dp_csv_peak(c);
		if (!ok || peak < best_peak) {
			best_peak = peak;
			for (i = 0; i < c->n; i++)
				best[i] = c->b[i].offset;
			if (used)
				*used = orders[k];
			if (st)
				*st = s;
		}
		ok = 1;
	}
	if (!ok) {
		free(best);
		return dp_csv_solve(c, capacity, DP_ORDER_SIMPLIFY, st, e);
	}
	for (i = 0; i < c->n; i++)
		c->b[i].offset = best[i];
	free(best);
	return 0;
}

int dp_csv_solve_search(struct dp_csv *c, uint64_t capacity, uint64_t nodes,
			struct dp_search_stats *st, struct dp_err *e)
{
	return dp_csv_solve_search_off(c, capacity, nodes, NULL, st, e);
}

int dp_csv_solve_search_off(struct dp_csv *c, uint64_t capacity,
			    uint64_t nodes, const char *off,
			    struct dp_search_stats *st, struct dp_err *e)
{
	struct dp_search_params par;
	struct dp_problem p;
	int rc = problem_of(c, capacity, &p);
	struct dp_item *it = p.it;
	const struct dp_iv *iv = p.iv;

	if (rc) {
		rc = dp_nomem(e);
		goto out;
	}
	rc = dp_search_off_check(off, e);
	if (rc)
		goto out;
	dp_search_params_of(off, &par);
	rc = dp_search_run(&(struct dp_search){ .problem = p, .nodes = nodes,
						.engine = DP_ENGINE_AUTO,
						.params = &par,
						.within = !!capacity }, st);
	if (rc == -ENOMEM) {
		rc = dp_nomem(e);
		goto out;
	}
	if (rc) {
		char v[160];

		dp_fail(e, "%s: no placement within the capacity %llu (--capacity): %s",
			c->file, (unsigned long long)capacity,
			dp_search_verdict(st, v, sizeof(v)));
		goto out;
	}
	take_offsets(c, it);
	rc = 0;
out:
	free(it);
	free((void *)iv);
	return rc;
}

uint64_t dp_csv_peak(const struct dp_csv *c)
{
	uint64_t peak = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->b[i].offset + c->b[i].size > peak)
			peak = c->b[i].offset + c->b[i].size;
	return peak;
}

uint64_t dp_csv_lower_bound(const struct dp_csv *c)
{
	struct dp_problem p;
	uint64_t lb = DP_UNSET;

	if (!problem_of(c, 0, &p))
		lb = dp_lower_bound(p.it, p.n, p.iv);
	free(p.it);
	free((void *)p.iv);
	return lb;
}

static int cmp_lower(const void *a, const void *b)
{
	const struct dp_csv_buf *const *x = a, *const *y = b;

	if ((*x)->lower != (*y)->lower)
		return (*x)->lower < (*y)->lower ? -1 : 1;
	return strcmp((*x)->id, (*y)->id);
}

/*
 * The per-buffer rules of a solution (an offset, no 64-bit overflow, the
 * alignment), and s[] = the buffers in (lower, id) order: 0 or dp_fail().
 */
int dp_csv_sorted(const struct dp_csv *c, const struct dp_csv_buf **s,
		  struct dp_err *e)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct dp_csv_buf *b = &c->b[i];

		if (!b->has_offset)
			return dp_fail(e, "%s: buffer '%s': no offset", c->file, b->id);
		if (b->offset > UINT64_MAX - b->size)
			return dp_fail(e, "%s: buffer '%s': offset %llu + size %llu overflows 64 bits",
				       c->file, b->id, (unsigned long long)b->offset,
				       (unsigned long long)b->size);
		if (b->offset % b->align)
			return dp_fail(e, "%s: buffer '%s': offset %llu is not a multiple of its alignment %llu",
				       c->file, b->id, (unsigned long long)b->offset,
				       (unsigned long long)b->align);
		s[i] = b;
	}
	qsort(s, c->n, sizeof(*s), cmp_lower);
	return 0;
}

/*
 * The rules of a solution, then the overlap sweep the plan verifier uses
 * (dp_sweep_disjoint: O(n log n), where a scan of the open buffers was
 * O(n^2) with everything live).  Buffers are numbered in (lower, id)
 * order, so the pair named is the one the scan in that order met first.
 */
int dp_csv_verify(const struct dp_csv *c, struct dp_err *e)
{
	size_t n = c->n ? c->n : 1, i;
	const struct dp_csv_buf **s = dp_realloc_array(NULL, n, sizeof(*s));
	struct dp_sweep_iv *v = dp_realloc_array(NULL, n, sizeof(*v));
	uint64_t *addr = dp_realloc_array(NULL, n, sizeof(*addr));
	uint64_t *size = dp_realloc_array(NULL, n, sizeof(*size));
	uint32_t blame[2];
	uint64_t when;
	int rc = 0;

	if (!s || !v || !addr || !size) {
		rc = dp_nomem(e);
		goto out;
	}
	rc = dp_csv_sorted(c, s, e);
	if (rc)
		goto out;
	for (i = 0; i < c->n; i++) {	/* live [lower, upper): closed [lower, upper - 1] */
		addr[i] = s[i]->offset;
		size[i] = s[i]->size;
		v[i] = (struct dp_sweep_iv){ s[i]->lower, s[i]->upper - 1, i };
	}
	rc = dp_sweep_disjoint(v, c->n, addr, size, c->n, blame, &when);
	if (rc == -ENOMEM)
		rc = dp_nomem(e);
	else if (rc) {
		const struct dp_csv_buf *x = s[blame[0]], *y = s[blame[1]];

		rc = dp_fail(e, "%s: buffers '%s' and '%s' overlap: both live at time %llu, offsets [%llu, %llu) and [%llu, %llu)",
			     c->file, x->id, y->id, (unsigned long long)when,
			     (unsigned long long)x->offset,
			     (unsigned long long)(x->offset + x->size),
			     (unsigned long long)y->offset,
			     (unsigned long long)(y->offset + y->size));
	}
out:
	free(s);
	free(v);
	free(addr);
	free(size);
	return rc;
}
