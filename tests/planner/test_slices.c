// SPDX-License-Identifier: GPL-2.0
/*
 * The slice search (dp_slices_improve, slices.c) and the top search
 * (dp_top_improve, top.c), on perfect packings from the benchmark's guillotine
 * generator (optimum = lower bound = 64 n): every placement verifies, the
 * slice search never ends above where it started, gives the same
 * addresses twice, and reaches the optimum of a small packing from a
 * first fit above it; the exact search's pinned items (dp_exact_floors)
 * hold their place; the top search is never worse, repeats, and lowers
 * most packings of 500; the search's rounds lower the end.
 * Budgets are node counts: nothing depends on the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "planner_util.h"
#include "search_util.h"
#include "tap.h"
#include "xorshift.h"

/* First fit by size, then the slice search with budget: 0 and the ends
 * before and after, best[] the result (n entries). */
static int first_fit_then_lns(struct prob *p, uint64_t budget, uint64_t *e0,
			      uint64_t *e1, uint64_t *best)
{
	struct dp_place_stats ps = { 0 };
	struct dp_ovl *ol = NULL;
	struct dp_best b = { .addr = best };
	struct dp_improve im = { .par = &dp_search_defaults, .budget = budget,
				 .best = &b };
	size_t i, failed;
	int r;

	if (dp_place(DP_PROBLEM(.it = p->it, .n = p->n, .iv = p->iv,
				.ceiling = UINT64_MAX), DP_ORDER_SIZE,
		     DP_ENGINE_AUTO, &ps, &failed, NULL, "") ||
	    dp_ovl_new(p->it, p->n, p->iv, SIZE_MAX, &ol) || !ol)
		return -1;
	*e0 = b.end = end_of(p);
	for (i = 0; i < p->n; i++)
		best[i] = p->it[i].addr;
	im.p = DP_PROBLEM(.it = p->it, .n = p->n, .iv = p->iv);
	im.ol = ol;
	im.goal = dp_lower_bound(p->it, p->n, p->iv);
	r = dp_slices_improve(&im);
	*e1 = b.end;
	dp_ovl_free(ol);
	return r;
}

TEST(slices_verify_never_worse_deterministic)
{
	uint64_t seed;

	for (seed = 1; seed <= 6; seed++) {
		struct dp_csv *c = perfect(300, seed);
		uint64_t e0, e1, f0, f1, *b1, *b2;
		struct prob p;

		REQUIRE(c && !prob_of(c, &p));
		b1 = calloc(p.n, sizeof(*b1));
		b2 = calloc(p.n, sizeof(*b2));
		REQUIRE(b1 && b2);
		CHECK(!first_fit_then_lns(&p, 200000, &e0, &e1, b1));
		CHECK(valid(&p));
		CHECK(e1 <= e0);
		CHECK(e1 == end_of(&p));	/* it[] holds the result */
		CHECK(!first_fit_then_lns(&p, 200000, &f0, &f1, b2));
		CHECK(f0 == e0 && f1 == e1);
		CHECK(!memcmp(b1, b2, p.n * sizeof(*b1)));
		free(b1);
		free(b2);
		prob_free(&p);
		dp_csv_free(c);
	}
}

/* 40 buffers: one slice holds them all, so the exact search on it reaches
 * the optimum from a first fit that misses it. */
TEST(slices_reach_the_optimum_of_a_small_packing)
{
	int tried = 0;
	uint64_t seed;

	for (seed = 1; seed <= 20 && tried < 5; seed++) {
		struct dp_csv *c = perfect(40, seed);
		uint64_t e0, e1, best[64];
		struct prob p;

		REQUIRE(c && !prob_of(c, &p));
		CHECK(!first_fit_then_lns(&p, 1000000, &e0, &e1, best));
		if (e0 > 64 * 40) {
			tried++;
			CHECK(e1 == 64 * 40);
			CHECK(valid(&p));
		}
		prob_free(&p);
		dp_csv_free(c);
	}
	CHECK(tried == 5);	/* first fit missed the optimum often enough */
}

/* No budget, or already at the lower bound: nothing moves. */
TEST(slices_without_budget_change_nothing)
{
	struct dp_csv *c = perfect(200, 3);
	uint64_t e0, e1, *best;
	struct prob p;
	size_t i;

	REQUIRE(c && !prob_of(c, &p));
	best = calloc(p.n, sizeof(*best));
	REQUIRE(best);
	CHECK(!first_fit_then_lns(&p, 0, &e0, &e1, best));
	CHECK(e1 == e0);
	for (i = 0; i < p.n; i++)
		CHECK(best[i] == p.it[i].addr);
	free(best);
	prob_free(&p);
	dp_csv_free(c);
}

/* A pinned item holds its place: the free one goes below it when it fits
 * there, above it when it does not, and not at all past the cap. */
TEST(exact_pinned_items_stay)
{
	struct dp_iv iv[2] = { { 0, 9 }, { 5, 14 } };
	struct dp_item it[2] = { { 10, 1, 0, 1, DP_UNSET },
				 { 5, 1, 1, 1, DP_UNSET } };
	uint64_t base[2] = { 5, 0 }, top[2] = { 15, UINT64_MAX };
	struct dp_ovl *ol = NULL;
	struct dp_exact *b;

	REQUIRE(!dp_ovl_new(it, 2, iv, SIZE_MAX, &ol) && ol);
	b = dp_exact_new(it, 2, iv, 0, ol);
	REQUIRE(b);
	dp_exact_floors(b, base, top);
	CHECK(dp_exact_probe(b, 0, 20, 1000) == 1);
	CHECK(dp_exact_solution(b)[0] == 5 && dp_exact_solution(b)[1] == 0);
	dp_exact_free(b);
	it[1].size = 6;		/* no longer fits below: above, at 15 */
	b = dp_exact_new(it, 2, iv, 0, ol);
	REQUIRE(b);
	dp_exact_floors(b, base, top);
	CHECK(dp_exact_probe(b, 0, 20, 1000) == 0);
	CHECK(dp_exact_probe(b, 0, 21, 1000) == 1);
	CHECK(dp_exact_solution(b)[0] == 5 && dp_exact_solution(b)[1] == 15);
	dp_exact_free(b);
	dp_ovl_free(ol);
}

/* The top search from the chain pass: never higher, the same twice, a
 * valid placement, lower on every packing here and within 1.5 % of the
 * optimum on the whole (the ties' weights drawn from [1, 64); from [1, 2)
 * it lowered 5 of the 6, to 2.1 % above); no budget: nothing moves. */
TEST(top_search_never_worse_and_deterministic)
{
	uint64_t seed, sum = 0, opt = 0;
	int lowered = 0;

	for (seed = 1; seed <= 6; seed++) {
		struct dp_csv *c = perfect(500, seed);
		uint64_t *b[2], e0, e[2], w = 0, lb, spent;
		const struct dp_problem *pp;
		struct dp_best bk;
		struct dp_improve im;
		struct prob p;
		int k;

		REQUIRE(c && !chain_start(c, &p, b, &lb, &w));
		pp = DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv,
				.ceiling = UINT64_MAX);
		e0 = end_of(&p);
		for (k = 0; k < 2; k++) {
			size_t i;

			for (i = 0; i < p.n; i++)
				b[k][i] = p.it[i].addr;
			bk = (struct dp_best){ .addr = b[k], .end = e0 };
			im = (struct dp_improve){
				.p = pp, .par = &dp_search_defaults, .goal = lb,
				.budget = k ? dp_search_defaults.top_work : 0,
				.best = &bk };
			CHECK(!dp_top_improve(&im));
			spent = im.spent;
			e[k] = bk.end;
			CHECK(k ? spent > 0 : !spent);
			CHECK(e[k] == end_of(&p));
			CHECK(valid(&p));
			if (!k) {
				CHECK(e[0] == e0);
				continue;
			}
			CHECK(e[1] <= e0);
			lowered += e[1] < e0;
			sum += e[1];
			opt += lb;
			e[0] = e0;	/* again from the chain pass */
			REQUIRE(!sky(&p, 1, UINT64_MAX, &w));
			for (i = 0; i < p.n; i++)
				b[0][i] = p.it[i].addr;
			bk = (struct dp_best){ .addr = b[0], .end = e[0] };
			im = (struct dp_improve){
				.p = pp, .par = &dp_search_defaults, .goal = lb,
				.budget = dp_search_defaults.top_work,
				.best = &bk };
			CHECK(!dp_top_improve(&im));
			e[0] = bk.end;
			CHECK(e[0] == e[1]);
			CHECK(!memcmp(b[0], b[1], p.n * sizeof(uint64_t)));
		}
		free(b[0]);
		free(b[1]);
		prob_free(&p);
		dp_csv_free(c);
	}
	printf("# the top search lowered %d of 6, to %.4f x the optimum\n",
	       lowered, (double)sum / (double)opt);
	CHECK(lowered == 6);
	CHECK(sum * 1000 <= opt * 1015);
}

/* The search's rounds (strategy.c): the top search and the slice search
 * again from what they reached, the top search with other ties, while a
 * round lowers the end, then ruin and recreate.  On six packings of 500
 * with a small node budget they reach 1.0113 x the optimum in all; one
 * round (slices_rounds 1) without ruin and recreate reached 1.0128, three
 * without it 1.0123.  Every plan verifies and is not above the
 * portfolio's; the first is the same twice. */
TEST(search_rounds_lower_the_end)
{
	uint64_t seed, sum = 0, opt = 0;

	for (seed = 1; seed <= 6; seed++) {
		struct dp_csv *c = perfect(500, seed);
		struct dp_search_stats st, st2;
		struct dp_err e;
		uint64_t peak;

		REQUIRE(c);
		REQUIRE(!dp_csv_solve_search(c, 0, 1000, &st, &e));
		CHECK(!dp_csv_verify(c, &e));
		peak = dp_csv_peak(c);
		CHECK(peak == st.end && peak <= st.portfolio_end);
		if (seed == 1) {	/* the same again (once: a second costs as much) */
			REQUIRE(!dp_csv_solve_search(c, 0, 1000, &st2, &e));
			CHECK(dp_csv_peak(c) == peak);
		}
		sum += peak;
		opt += dp_csv_lower_bound(c);
		dp_csv_free(c);
	}
	printf("# six packings of 500: %.4f x the optimum\n",
	       (double)sum / (double)opt);
	CHECK(sum * 10000 <= opt * 10115);
}

int main(void)
{
	return tap_run();
}
