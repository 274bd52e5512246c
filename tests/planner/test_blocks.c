// SPDX-License-Identifier: GPL-2.0
/*
 * --strategy search above the exact search's item limit still verifies
 * and is never worse than the portfolio; independent time blocks
 * (dp_time_blocks, blocks.c) are cut where no item is live across,
 * searched alone they reach an optimum the whole search missed, and a
 * block that only has to reach another's end stops there, never above
 * the portfolio; random problems of blocks verify.
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

/* Above the exact search's limit the portfolio (now with the skyline) and
 * the slice search still run: the plan verifies and is never worse than
 * the portfolio alone.  Seed 1: one time block (seed 2's three are each
 * below the limit, and searched). */
TEST(search_above_the_item_limit)
{
	struct dp_csv *c = perfect(DP_SEARCH_MAX_ITEMS + 500, 5);
	struct dp_search_stats st;
	struct dp_err e;
	uint64_t port;

	REQUIRE(c);
	REQUIRE(!dp_csv_solve_search(c, 0, 0, &st, &e));
	port = dp_csv_peak(c);
	CHECK(st.lns == 0);
	CHECK(!dp_csv_solve_search(c, 0, 300000, &st, &e));
	CHECK(!dp_csv_verify(c, &e));
	CHECK(dp_csv_peak(c) <= port);
	CHECK(st.portfolio_end == port);
	CHECK(st.lns > 0);
	CHECK(!st.searched);
	dp_csv_free(c);
}

/* Items [0, 9], [10, 19] and one live nowhere: two blocks with min 1, the
 * item live nowhere in the first; [0, 10] and [10, 19] share time 10 (the
 * intervals are closed): one block. */
TEST(time_blocks_cut_where_nothing_is_live_across)
{
	struct dp_iv iv[] = { { 0, 9 }, { 10, 19 }, { 0, 10 }, { 10, 19 },
			      { 0, 1 }, { 30, 31 } };
	struct dp_item it[4] = {
		{ 8, 1, 1, 1, DP_UNSET }, { 8, 1, 0, 0, DP_UNSET },
		{ 8, 1, 0, 1, DP_UNSET }, { 8, 1, 2, 1, DP_UNSET } };
	uint32_t blk[4];
	size_t nb;

	/* it[0] live in [10, 19], it[2] in [0, 9], it[1] nowhere */
	REQUIRE(!dp_time_blocks(it, 3, iv, 1, blk, &nb));
	CHECK(nb == 2);
	CHECK(blk[2] == 0 && blk[0] == 1 && blk[1] == 0);
	/* it[3] in [0, 10]: overlaps it[0] at time 10 */
	REQUIRE(!dp_time_blocks(it, 4, iv, 1, blk, &nb));
	CHECK(nb == 1);
	CHECK(!blk[0] && !blk[1] && !blk[2] && !blk[3]);
	/* a last block below min joins the one before */
	REQUIRE(!dp_time_blocks(it, 3, iv, 2, blk, &nb));
	CHECK(nb == 1);
	CHECK(!blk[0] && !blk[2]);
	/* an item with two intervals, [0, 1] and [30, 31], joins both */
	it[3] = (struct dp_item){ 8, 1, 4, 2, DP_UNSET };
	REQUIRE(!dp_time_blocks(it, 4, iv, 1, blk, &nb));
	CHECK(nb == 1);
}

/* Perfect packings of ns[j] buffers (seeds[j]) one after another in time,
 * a gap of one time unit between them, as one problem: k independent
 * blocks, each 64 ns[j] high; *opt the highest of them (the optimum).
 * stack != 0: first a block of dp_search_defaults.block_min items all live at times 0-1,
 * stack bytes in all (first fit meets its bound). */
static int blocks_of(const uint32_t *ns, const uint64_t *seeds, size_t k,
		     uint64_t stack, struct prob *p, uint64_t *opt)
{
	size_t j, i, n = stack ? dp_search_defaults.block_min : 0;
	uint64_t t = stack ? 3 : 0, hi;
	struct prob q[8];

	*opt = stack;
	memset(q, 0, sizeof(q));
	for (j = 0; j < k; j++) {
		struct dp_csv *c = perfect(ns[j], seeds[j]);

		if (!c || prob_of(c, &q[j]))
			return -1;
		dp_csv_free(c);
		n += q[j].n;
		*opt = 64ULL * ns[j] > *opt ? 64ULL * ns[j] : *opt;
	}
	p->n = n;
	p->it = calloc(n + 1, sizeof(*p->it));
	p->iv = calloc(n + 1, sizeof(*p->iv));
	p->key = calloc(n + 1, sizeof(*p->key));
	if (!p->it || !p->iv || !p->key)
		return -1;
	for (n = 0; stack && n < dp_search_defaults.block_min; n++) {
		p->it[n] = (struct dp_item){ stack / dp_search_defaults.block_min, 1, n, 1,
					     DP_UNSET };
		p->iv[n] = (struct dp_iv){ 0, 1 };
	}
	for (j = 0; j < k; j++) {
		for (hi = i = 0; i < q[j].n; i++, n++) {
			p->it[n] = q[j].it[i];
			p->it[n].iv_first = n;
			p->iv[n] = (struct dp_iv){ t + q[j].iv[i].lo,
						   t + q[j].iv[i].hi };
			hi = q[j].iv[i].hi > hi ? q[j].iv[i].hi : hi;
		}
		t += hi + 2;
		prob_free(&q[j]);
	}
	return 0;
}

/* The first fit orders over the whole problem: the lowest end (the
 * portfolio's floor); *seed the simplify order's (the seed's). */
static uint64_t first_fits(struct prob *p, uint64_t *seed)
{
	uint64_t best = UINT64_MAX;
	size_t failed;
	int o;

	for (o = DP_ORDER_SIMPLIFY; o <= DP_ORDER_START; o++) {
		struct dp_place_stats ps = { 0 };

		if (dp_place(DP_PROBLEM(.it = p->it, .n = p->n, .iv = p->iv,
					.ceiling = UINT64_MAX), o,
			     DP_ENGINE_AUTO, &ps, &failed, NULL, ""))
			return 0;
		if (o == DP_ORDER_SIMPLIFY)
			*seed = end_of(p);
		if (end_of(p) < best)
			best = end_of(p);
	}
	return best;
}

/* Four perfect packings of 120 one after another: each block is searched
 * alone (the exact search on 120 items), so the whole reaches the
 * optimum, proven; searched as one 480-item problem it did not (7,685
 * for 7,680).  The stats: the lower bound the blocks' highest, the seed's
 * end the simplify first fit over the whole, the nodes spent; the same
 * plan twice. */
TEST(time_blocks_searched_alone_reach_the_optimum)
{
	static const uint32_t ns[] = { 120, 120, 120, 120 };
	static const uint64_t seeds[] = { 1, 2, 3, 4 };
	struct dp_search_stats st, st2;
	struct prob p;
	uint64_t opt, ff, seed_end, *a;
	uint32_t blk[480];
	size_t i, nb;

	REQUIRE(!blocks_of(ns, seeds, 4, 0, &p, &opt));
	REQUIRE(p.n == 480);
	REQUIRE(!dp_time_blocks(p.it, p.n, p.iv, dp_search_defaults.block_min, blk, &nb));
	CHECK(nb >= 4);
	ff = first_fits(&p, &seed_end);
	REQUIRE(!search(&p, UINT64_MAX, 0, DP_UNSET, glue_params(0), &st));
	CHECK(valid(&p));
	printf("# blocks of 120 x 4: end %llu, optimum %llu, first fit %llu\n",
	     (unsigned long long)st.end, (unsigned long long)opt,
	     (unsigned long long)ff);
	CHECK(end_of(&p) == st.end);
	CHECK(st.end == opt);
	CHECK(st.proven);
	CHECK(st.lower_bound == opt);
	CHECK(st.seed_end == seed_end);
	CHECK(st.portfolio_end >= st.end && st.portfolio_end <= ff);
	CHECK(st.searched && st.nodes > 0 && st.budget >= st.nodes);
	a = calloc(p.n, sizeof(*a));
	REQUIRE(a);
	for (i = 0; i < p.n; i++)
		a[i] = p.it[i].addr;
	REQUIRE(!search(&p, UINT64_MAX, 0, DP_UNSET, glue_params(0), &st2));
	for (i = 0; i < p.n && a[i] == p.it[i].addr; i++)
		;
	CHECK(i == p.n);
	CHECK(st2.nodes == st.nodes && st2.end == st.end);
	/* a ceiling below the highest block: none exists, and it says so */
	CHECK(search(&p, opt - 1, 0, DP_UNSET, glue_params(0), &st) == -1);
	CHECK(st.proven);
	free(a);
	prob_free(&p);
}

/* A block of 32 items live at once, 15,360 bytes (first fit meets its
 * bound), then packings of 80 and 120 (5,120 and 7,680 high, which the
 * portfolio misses alone): searched first, the stack sets the end, and
 * the packings only have to reach it, which their first fits do: no
 * search runs.  Never above the portfolio (each first fit over the
 * whole); the seed's end, the blocks' highest, is that of the seed's
 * first fit over the whole; the plan verifies; the packings alone (no
 * stack) are searched. */
TEST(time_blocks_stop_early_never_worse_than_the_portfolio)
{
	static const uint32_t ns[] = { 80, 120 };
	static const uint64_t seeds[] = { 1, 2 };
	struct dp_search_stats st;
	struct prob p;
	uint64_t opt, ff, seed_end;

	REQUIRE(!blocks_of(ns, seeds, 2, 15360, &p, &opt));
	ff = first_fits(&p, &seed_end);
	REQUIRE(!search(&p, UINT64_MAX, 0, DP_UNSET, NULL, &st));
	CHECK(valid(&p));
	CHECK(end_of(&p) == st.end);
	CHECK(st.end <= ff && st.end <= st.portfolio_end &&
	      st.seed_end == seed_end);
	CHECK(st.end == 15360 && st.lower_bound == 15360 && st.proven);
	CHECK(!st.searched && !st.nodes && !st.lns);
	prob_free(&p);
	REQUIRE(!blocks_of(ns, seeds, 2, 0, &p, &opt));
	REQUIRE(!search(&p, UINT64_MAX, 0, DP_UNSET, glue_params(0), &st));
	CHECK(valid(&p));
	CHECK(st.searched && st.nodes > 0);
	CHECK(st.end >= opt && st.end <= st.portfolio_end);
	printf("# the packings alone: end %llu, optimum %llu, portfolio %llu\n",
	       (unsigned long long)st.end, (unsigned long long)opt,
	       (unsigned long long)st.portfolio_end);
	prob_free(&p);
}

/* Random problems of 2-4 blocks: the plan verifies, its end is the
 * stats', never above the seed's (the seed's first fit over the whole)
 * nor the portfolio's, the lower bound is the whole's; a ceiling at
 * the portfolio's end is met (a block that stops at
 * another's end stops within it) and one below the lower bound is proven
 * impossible; with no budget the portfolio alone. */
TEST(time_blocks_random_problems)
{
	static const uint64_t budgets[] = { 0, 300 };
	uint64_t seed, page, seed_end, lb, pe = 0;
	struct dp_search_stats st, s2;
	struct dp_place_stats ps;
	size_t k, failed, nb;
	uint32_t *blk;
	struct prob p;

	for (seed = 1; seed <= 6; seed++) {
		REQUIRE(!random_blocks(seed, &p, 2 + seed % 3, &page));
		blk = calloc(p.n, sizeof(*blk));
		REQUIRE(blk);
		REQUIRE(!dp_time_blocks(p.it, p.n, p.iv, dp_search_defaults.block_min, blk, &nb));
		CHECK(nb == 2 + seed % 3);
		memset(&ps, 0, sizeof(ps));
		REQUIRE(!dp_place(DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv,
					     .ceiling = UINT64_MAX,
					     .page = page), DP_ORDER_SIMPLIFY,
				  DP_ENGINE_AUTO, &ps, &failed, NULL, ""));
		seed_end = end_of(&p);
		lb = dp_lower_bound(p.it, p.n, p.iv);
		for (k = 0; k < 2; k++) {
			REQUIRE(!search(&p, UINT64_MAX, page, budgets[k], NULL, &st));
			CHECK(valid_iv(&p));
			CHECK(end_of(&p) == st.end);
			CHECK(st.seed_end == seed_end && st.end <= seed_end);
			CHECK(st.end <= st.portfolio_end);
			CHECK(st.lower_bound == lb && st.end >= lb);
			CHECK(!budgets[k] ? !st.nodes && !st.lns &&
			      st.end == st.portfolio_end : 1);
			CHECK(st.nodes <= 2 * budgets[k]);
			pe = k ? pe : st.portfolio_end;
		}
		CHECK(!search(&p, pe, page, 0, NULL, &s2));
		CHECK(valid_iv(&p) && s2.end <= pe);
		CHECK(search(&p, lb - 1, page, 300, NULL, &s2) == -1);
		CHECK(s2.proven);
		prob_free(&p);
		free(blk);
	}
}

int main(void)
{
	return tap_run();
}
