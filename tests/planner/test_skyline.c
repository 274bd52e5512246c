// SPDX-License-Identifier: GPL-2.0
/*
 * The skyline passes (skyline.c: plain and chain) on perfect packings
 * from the benchmark's guillotine generator (optimum = lower bound =
 * 64 n): every placement verifies within its ceiling, the chain pass
 * reaches optima the plain one misses, completes a partial placement
 * (DP_SKY_KEEP), and the portfolio takes it (the same plan twice);
 * hulls shared by the passes over one item set place as their own.
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

/* Both skyline passes: a placement, within the ceiling they are given;
 * the same placement (and work) twice. */
TEST(skylines_verify_and_respect_the_ceiling)
{
	uint64_t seed;
	int chain;

	for (seed = 1; seed <= 6; seed++)
		for (chain = 0; chain < 2; chain++) {
			struct dp_csv *c = perfect(300, seed);
			uint64_t *a0, e, w0 = 0, w1 = 0;
			struct prob p;
			size_t i;

			REQUIRE(c && !prob_of(c, &p));
			a0 = calloc(p.n, sizeof(*a0));
			REQUIRE(a0);
			CHECK(!sky(&p, chain, UINT64_MAX, &w0));
			CHECK(valid(&p));
			CHECK(!chain || w0 > 0);
			e = end_of(&p);
			CHECK(e >= 64 * 300);
			for (i = 0; i < p.n; i++)
				a0[i] = p.it[i].addr;
			CHECK(!sky(&p, chain, e, &w1));
			CHECK(w1 == w0);
			for (i = 0; i < p.n; i++)
				CHECK(p.it[i].addr == a0[i]);
			CHECK(sky(&p, chain, e - 1, &w1) == -1);
			free(a0);
			prob_free(&p);
			dp_csv_free(c);
		}
}

/* A guillotine stack both skyline passes fill exactly: two columns under
 * one buffer across both. */
TEST(skyline_fills_a_stack_exactly)
{
	struct dp_iv iv[4] = { { 0, 4 }, { 5, 9 }, { 0, 9 }, { 5, 9 } };
	struct dp_item it[4] = { { 6, 1, 0, 1, DP_UNSET },
				 { 2, 1, 1, 1, DP_UNSET },
				 { 3, 1, 2, 1, DP_UNSET },
				 { 4, 1, 3, 1, DP_UNSET } };
	uint64_t key[4] = { 6, 2, 3, 4 }, w = 0;
	struct prob p = { it, iv, 4, key };
	int chain;

	for (chain = 0; chain < 2; chain++) {
		CHECK(!sky(&p, chain, UINT64_MAX, &w));
		CHECK(valid(&p));
		CHECK(end_of(&p) == 9);
	}
}

/* Small perfect packings: covering each lowest run with the most time
 * its items can fill, end to end, reaches the optimum where taking the
 * longest item that fits misses it (30 buffers, seed 3: 1.17x), and more
 * often over twelve seeds. */
TEST(skyline_chain_reaches_optima_the_plain_pass_misses)
{
	int hit[2] = { 0, 0 }, chain;
	uint64_t seed, w = 0;
	struct dp_csv *c;
	struct prob p;

	for (seed = 1; seed <= 12; seed++)
		for (chain = 0; chain < 2; chain++) {
			c = perfect(60, seed);
			REQUIRE(c && !prob_of(c, &p));
			CHECK(!sky(&p, chain, UINT64_MAX, &w));
			CHECK(valid(&p));
			hit[chain] += end_of(&p) == 64 * 60;
			prob_free(&p);
			dp_csv_free(c);
		}
	printf("# optimal: plain %d, chain %d of 12\n", hit[0], hit[1]);
	CHECK(hit[1] >= hit[0] + 4);
	for (chain = 0; chain < 2; chain++) {
		c = perfect(30, 3);
		REQUIRE(c && !prob_of(c, &p) && p.n == 30);
		CHECK(!sky(&p, chain, UINT64_MAX, &w));
		CHECK(chain ? end_of(&p) == 64 * 30 : end_of(&p) > 64 * 30);
		prob_free(&p);
		dp_csv_free(c);
	}
}

/* The portfolio alone (no search budget) on 5,000 buffers: the chain
 * pass and its reruns with perturbed ties win, below the plain skyline,
 * and the same plan twice. */
TEST(portfolio_takes_the_chain_pass)
{
	struct dp_csv *c = perfect(5000, 1), *d = perfect(5000, 1);
	struct dp_search_stats st;
	struct dp_err e;
	struct prob p;
	uint64_t plain, w = 0;
	size_t i;

	REQUIRE(c && d && !prob_of(c, &p));
	REQUIRE(!sky(&p, 0, UINT64_MAX, &w));
	plain = end_of(&p);
	REQUIRE(!dp_csv_solve_search(c, 0, 0, &st, &e));
	CHECK(!dp_csv_verify(c, &e));
	CHECK(!strcmp(st.how, "skyline chain"));
	CHECK(dp_csv_peak(c) < plain);
	printf("# plain skyline %llu, portfolio %llu, optimum %u\n",
	     (unsigned long long)plain, (unsigned long long)dp_csv_peak(c),
	     64 * 5000);
	REQUIRE(!dp_csv_solve_search(d, 0, 0, &st, &e));
	for (i = 0; i < p.n; i++)
		CHECK(c->b[i].offset == d->b[i].offset);
	prob_free(&p);
	dp_csv_free(c);
	dp_csv_free(d);
}

/* The chain pass keeps what is placed (DP_SKY_KEEP): a first fit with
 * everything from a level up taken out is completed above the rest, which
 * stays where it was. */
TEST(skyline_chain_completes_a_partial_placement)
{
	struct dp_place_stats ps = { 0 };
	struct dp_csv *c = perfect(300, 4);
	uint64_t *a0, L, w = 0;
	size_t i, failed, kept = 0;
	struct prob p;

	REQUIRE(c && !prob_of(c, &p));
	a0 = calloc(p.n, sizeof(*a0));
	REQUIRE(a0);
	REQUIRE(!dp_place(DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv,
				     .ceiling = UINT64_MAX), DP_ORDER_SIZE,
			  DP_ENGINE_AUTO, &ps, &failed, NULL, ""));
	L = end_of(&p) / 2;
	for (i = 0; i < p.n; i++) {
		a0[i] = p.it[i].addr;
		if (a0[i] >= L)
			p.it[i].addr = DP_UNSET;
		else
			kept++;
	}
	CHECK(kept > 0 && kept < p.n);
	CHECK(!dp_skyline_chain(DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv,
					   .ceiling = UINT64_MAX),
				&dp_search_defaults, p.key, DP_SKY_KEEP, &w,
				NULL));
	CHECK(valid(&p));
	for (i = 0; i < p.n; i++)
		if (a0[i] < L)
			CHECK(p.it[i].addr == a0[i]);
	free(a0);
	prob_free(&p);
	dp_csv_free(c);
}

/* Hulls shared by the passes over one item set place each pass as the
 * pass's own would: the same addresses and work for perturbed ties, both
 * tie rules, from scratch and completing a partial placement; an item
 * without an interval leaves them intact, and a time of UINT64_MAX
 * makes none (-1, nothing left to free). */
TEST(skyline_shared_hulls_place_as_their_own)
{
	struct dp_csv *c = perfect(300, 5);
	uint64_t rs = 7, *a0, *from, w0, w1, half = 0;
	struct dp_sky_hulls hu;
	struct prob p;
	size_t i;
	int k;

	REQUIRE(c && !prob_of(c, &p));
	a0 = calloc(p.n, sizeof(*a0));
	from = calloc(p.n, sizeof(*from));
	REQUIRE(a0 && from);
	p.it[p.n - 1].iv_count = 0;		/* an item live nowhere */
	REQUIRE(!dp_sky_hulls_new(p.it, p.n, p.iv, &hu));
	CHECK(hu.cs[p.n - 1] == hu.m && hu.ce[p.n - 1] == hu.m);
	for (i = 0; i < p.n; i++)
		from[i] = DP_UNSET;
	for (k = 0; k < 8; k++) {
		int flags = (k % 2 ? DP_SKY_SPAN2 : 0) | (k >= 4 ? DP_SKY_KEEP : 0);

		dp_sky_perturb(p.it, p.n, 2, &rs, p.key);
		for (i = 0; i < p.n; i++)	/* KEEP: the lower half stays */
			p.it[i].addr = from[i];
		w0 = w1 = 0;
		CHECK(!dp_skyline_chain(DP_PROBLEM(.it = p.it, .n = p.n,
						   .iv = p.iv,
						   .ceiling = UINT64_MAX),
					&dp_search_defaults, p.key, flags, &w0,
					NULL));
		for (i = 0; i < p.n; i++) {
			a0[i] = p.it[i].addr;
			p.it[i].addr = from[i];
		}
		CHECK(!dp_skyline_chain(DP_PROBLEM(.it = p.it, .n = p.n,
						   .iv = p.iv,
						   .ceiling = UINT64_MAX),
					&dp_search_defaults, p.key, flags, &w1,
					&hu));
		CHECK(w0 == w1 && w0 > 0);
		for (i = 0; i < p.n; i++)
			CHECK(p.it[i].addr == a0[i]);
		if (k == 3) {			/* a partial placement for KEEP */
			half = end_of(&p) / 2;
			for (i = 0; i < p.n; i++)
				from[i] = a0[i] < half ? a0[i] : DP_UNSET;
		}
	}
	CHECK(half > 0);
	dp_sky_hulls_free(&hu);
	CHECK(!hu.t && !hu.cs && !hu.ce);
	p.it[p.n - 1].iv_count = 1;
	p.iv[p.it[p.n - 1].iv_first].hi = UINT64_MAX;
	CHECK(dp_sky_hulls_new(p.it, p.n, p.iv, &hu) == -1);
	CHECK(!hu.t && !hu.cs && !hu.ce);
	free(from);
	free(a0);
	prob_free(&p);
	dp_csv_free(c);
}

int main(void)
{
	return tap_run();
}
