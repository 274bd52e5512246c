// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_search - libFuzzer harness for --strategy search (dp_search_run
 * through dp_csv_solve_search) against an exhaustive oracle.  The input's
 * bytes make a MiniMalloc problem of 1-8 buffers (times, sizes,
 * alignments), a capacity (none, the optimum, one below it, or any) and a
 * budget (ample or a few nodes); the oracle tries every order, each
 * buffer on the highest top of its placed overlapping buffers (aligned
 * up): every placement pushed down is one of those, so the best is the
 * optimum.  Invariants, each an abort:
 *
 *  - every solution the search returns verifies and fits the capacity;
 *  - never below the optimum; "optimal" only at the optimum;
 *  - "none exists" only when the optimum is above the capacity;
 *  - with an ample budget, a capacity at the optimum is met and one
 *    below it is proven impossible (the search completes on 8 buffers);
 *  - the verdict of a failure is one line;
 *  - the exact search alone (branch_bound.c's probe, without the portfolio that
 *    usually finds the optimum of so few buffers first): at the optimum
 *    it finds a placement, which fits and is disjoint, and one below it
 *    it proves none (or, with a few nodes, gives up): never a placement;
 *  - the buffers glued into rectangles (glue.c, all three rules): the
 *    rectangles' own exhaustive optimum is never below the buffers'
 *    (gluing only restricts), a first fit of the rectangles, unglued, is
 *    disjoint and aligned, and the glue stopped after fewer rounds has
 *    each rectangle inside one of the whole glue's at a fixed offset
 *    (what the refinement in strategy.c relies on).
 */
#include "fuzz.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "planner_util.h"

#define MAXN 8

struct prob {
	size_t n;
	uint64_t lo[MAXN], hi[MAXN], size[MAXN], align[MAXN];
};

static struct dp_csv *csv_of(const struct prob *p, int align)
{
	struct csv_row r[MAXN];
	struct dp_csv *c;
	size_t i;

	for (i = 0; i < p->n; i++)
		r[i] = (struct csv_row){ i, p->lo[i], p->hi[i], p->size[i],
					 p->align[i] };
	c = csv_of_rows("fuzz.search.csv", 'b', r, p->n, align);
	if (!c)
		fuzz_die("a generated problem does not parse", NULL);
	return c;
}

/* p's buffers as items over iv (closed intervals) */
static void items_of(const struct prob *p, struct dp_item *it,
		     struct dp_iv *iv)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		iv[i] = (struct dp_iv){ p->lo[i], p->hi[i] - 1 };
		it[i] = (struct dp_item){ .size = p->size[i], .align = p->align[i],
					  .iv_first = i, .iv_count = 1,
					  .addr = DP_UNSET };
	}
}

/* The disjointness and alignment of a placement of p's buffers */
static void check_disjoint(const struct prob *p, const uint64_t *a,
			   const char *what)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		if (a[i] % p->align[i])
			fuzz_die(what, "misaligned");
		for (j = 0; j < i; j++)
			if (p->lo[i] < p->hi[j] && p->lo[j] < p->hi[i] &&
			    a[i] < a[j] + p->size[j] && a[j] < a[i] + p->size[i])
				fuzz_die(what, "overlaps");
	}
}

/* The probe at cap: 1 found (checked here), 0 none, -1 budget spent. */
static int probe(const struct prob *p, uint64_t cap, uint64_t budget)
{
	struct dp_item it[MAXN];
	struct dp_iv iv[MAXN];
	struct dp_ovl *ol;
	struct dp_exact *b;
	const uint64_t *sol;
	size_t i;
	int r;

	items_of(p, it, iv);
	if (dp_ovl_new(it, p->n, iv, 1000, &ol))
		fuzz_die("out of memory", NULL);
	if (!ol)
		fuzz_die("the overlaps of 8 buffers are too many", NULL);
	b = dp_exact_new(it, p->n, iv, 0, ol);
	if (!b)
		fuzz_die("out of memory", NULL);
	r = dp_exact_probe(b, 0, cap, budget);
	sol = dp_exact_solution(b);
	for (i = 0; r == 1 && i < p->n; i++)
		if (sol[i] + p->size[i] > cap)
			fuzz_die("the probe's placement is above its cap", NULL);
	if (r == 1)
		check_disjoint(p, sol, "the probe's placement");
	dp_exact_free(b);
	dp_ovl_free(ol);
	return r;
}

/* Gluing (glue.c) against the oracle: see the invariants above. */
static void glue_check(const struct prob *p, int align, uint64_t opt,
		       int rule)
{
	struct dp_place_stats ps = { 0 };
	struct dp_item it[MAXN];
	struct dp_iv iv[MAXN];
	struct dp_glued g;
	struct prob q = { 0 };
	struct dp_csv *c;
	uint64_t a[MAXN];
	size_t i, failed, r;

	items_of(p, it, iv);
	if (dp_glue(DP_PROBLEM(.it = it, .n = p->n, .iv = iv), &dp_search_defaults, rule, &g))
		fuzz_die("out of memory", NULL);
	q.n = g.k;
	for (i = 0; i < g.k; i++) {
		const struct dp_iv *x = &g.iv[g.it[i].iv_first];

		if (g.it[i].iv_count != 1)
			fuzz_die("a glued rectangle without one interval", NULL);
		q.lo[i] = x->lo;
		q.hi[i] = x->hi + 1;
		q.size[i] = g.it[i].size;
		q.align[i] = g.it[i].align;
	}
	if (g.k < p->n) {
		c = csv_of(&q, align);
		if (csv_brute_peak(c) < opt)
			fuzz_die("the glued rectangles pack below the buffers' optimum", NULL);
		dp_csv_free(c);
	}
	if (dp_place(DP_PROBLEM(.it = g.it, .n = g.k, .iv = g.iv,
				.ceiling = UINT64_MAX), DP_ORDER_SIZE,
		     DP_ENGINE_AUTO, &ps, &failed, NULL, ""))
		fuzz_die("first fit of the glued rectangles failed", NULL);
	dp_unglue(&g, it, p->n);
	for (i = 0; i < p->n; i++)
		a[i] = it[i].addr;
	check_disjoint(p, a, "a glued placement unglued");
	items_of(p, it, iv);
	for (r = 1; r < g.rounds; r++) {
		struct dp_glued part;

		if (dp_glue_rounds(DP_PROBLEM(.it = it, .n = p->n, .iv = iv),
				   &dp_search_defaults, rule, r, &part))
			fuzz_die("out of memory", NULL);
		if (part.rounds > r || part.k < g.k ||
		    glue_nests(&part, &g, p->n) != 1)
			fuzz_die("a glue of fewer rounds is not inside the whole glue", NULL);
		dp_glued_free(&part);
	}
	dp_glued_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dp_search_stats st;
	struct dp_err e = { "" };
	struct prob p = { 0 };
	uint64_t opt, cap, budget, peak;
	struct dp_csv *c;
	size_t i;
	int align, mode, rc;

	if (size < 3)
		return 0;
	p.n = 1 + data[0] % MAXN;
	align = data[1] & 1;
	mode = (data[1] >> 1) & 3;		/* capacity */
	budget = data[1] & 8 ? 1000000 : 1 + data[2] % 40;
	for (i = 0; i < p.n; i++) {
		const uint8_t *b = data + 3 + 3 * i;
		uint8_t x = 3 + 3 * i + 2 < size ? b[0] : (uint8_t)(i * 37);
		uint8_t y = 3 + 3 * i + 2 < size ? b[1] : (uint8_t)(i * 11 + 5);
		uint8_t z = 3 + 3 * i + 2 < size ? b[2] : (uint8_t)(i * 23 + 1);

		p.lo[i] = x % 12;
		p.hi[i] = p.lo[i] + 1 + y % 6;
		p.size[i] = 1 + z % 24;
		p.align[i] = align ? 1u << (y >> 4) % 4 : 1;
	}
	c = csv_of(&p, align);
	opt = csv_brute_peak(c);
	cap = mode == 0 ? 0 : mode == 1 ? opt : mode == 2 ? opt - 1 :
	      1 + data[2] % (2 * opt);
	rc = dp_csv_solve_search(c, cap, budget, &st, &e);
	fuzz_msg(&e);
	if (!rc) {
		if (dp_csv_verify(c, &e))
			fuzz_die("verify rejects a solution the search made", e.msg);
		peak = dp_csv_peak(c);
		if (cap && peak > cap)
			fuzz_die("a solution above the capacity", NULL);
		if (peak < opt)
			fuzz_die("a solution below the exhaustive optimum", NULL);
		if (st.proven && peak != opt)
			fuzz_die("\"optimal\" above the exhaustive optimum", NULL);
		if (st.end != peak)
			fuzz_die("the stats' end is not the solution's peak", NULL);
	} else {
		if (!cap)
			fuzz_die("no solution without a capacity", e.msg);
		if (st.proven && opt <= cap)
			fuzz_die("\"none exists\" though one fits", e.msg);
		if (!strstr(e.msg, "none exists") && !strstr(e.msg, "budget") &&
		    !strstr(e.msg, "not searched"))
			fuzz_die("a failure that does not say why", e.msg);
	}
	if (budget >= 1000000) {	/* ample: the search completes */
		if (cap >= opt && rc)
			fuzz_die("a capacity at or above the optimum not met", e.msg);
		if (cap && cap < opt && (!rc || !st.proven))
			fuzz_die("a capacity below the optimum not proven impossible", e.msg);
	}
	dp_csv_free(c);
	glue_check(&p, align, opt, DP_GLUE_ALL);
	glue_check(&p, align, opt, DP_GLUE_LONG);
	glue_check(&p, align, opt, DP_GLUE_STACKS_FIRST);
	glue_check(&p, align, opt, DP_GLUE_FEWEST);
	glue_check(&p, align, opt, DP_GLUE_FEWEST_CHAINS);
	rc = probe(&p, opt, budget);
	if (rc == 0 || (budget >= 1000000 && rc != 1))
		fuzz_die("the exact search misses a placement at the optimum", NULL);
	if (opt > 1) {
		rc = probe(&p, opt - 1, budget);
		if (rc == 1 || (budget >= 1000000 && rc != 0))
			fuzz_die("the exact search below the optimum did not prove none", NULL);
	}
	return 0;
}
