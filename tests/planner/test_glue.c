// SPDX-License-Identifier: GPL-2.0
/*
 * The glue (glue.c): items glued into rectangles by each rule, the
 * glued search reaching optima the search misses, random problems that
 * verify, the rounds nesting in the whole glue, and the work bounds.
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

/* Items glued by glue.c's rules: three live over [0, 9] stack in item
 * order (offsets 0, 4, 9), then chain with the one of their summed size
 * live right after ([10, 19]); two of alignment 8 stack apart from them;
 * one with two intervals, one whose size is not a multiple of its
 * alignment, and (with a page of 64) the sub-page ones stay alone. */
TEST(glue_chains_then_stacks_by_the_rules)
{
	static const struct dp_iv iv[] = { { 0, 9 }, { 0, 9 }, { 0, 9 },
		{ 10, 19 }, { 0, 9 }, { 30, 39 }, { 0, 9 }, { 20, 29 },
		{ 20, 29 } };
	struct dp_item it[] = {
		{ 4, 1, 0, 1, 0 }, { 5, 1, 1, 1, 0 }, { 6, 1, 2, 1, 0 },
		{ 15, 1, 3, 1, 0 }, { 15, 1, 4, 2, 0 }, { 6, 4, 6, 1, 0 },
		{ 8, 8, 7, 1, 0 }, { 80, 8, 8, 1, 0 } };
	static const uint64_t off[] = { 0, 4, 9, 0 };
	struct dp_glued g;
	const struct dp_iv *x;
	size_t i;

	REQUIRE(!dp_glue(DP_PROBLEM(.it = it, .n = 8, .iv = iv),
			 &dp_search_defaults, DP_GLUE_ALL, &g));
	CHECK(g.k == 4);
	for (i = 0; i < 4; i++)
		CHECK(g.node[i] == g.node[0] && g.off[i] == off[i]);
	x = &g.iv[g.it[g.node[0]].iv_first];
	CHECK(g.it[g.node[0]].size == 15 && g.it[g.node[0]].iv_count == 1 &&
	      x->lo == 0 && x->hi == 19);
	CHECK(g.node[6] == g.node[7] && g.off[6] == 0 && g.off[7] == 8);
	CHECK(g.it[g.node[6]].size == 88 && g.it[g.node[6]].align == 8);
	for (i = 4; i < 6; i++) {
		CHECK(g.off[i] == 0 && g.it[g.node[i]].size == it[i].size);
		CHECK(g.it[g.node[i]].iv_first == it[i].iv_first &&
		      g.it[g.node[i]].iv_count == it[i].iv_count);
	}
	CHECK(g.node[4] != g.node[5] && g.node[4] != g.node[0] &&
	      g.node[5] != g.node[6]);
	for (i = 0; i < g.k; i++)
		g.it[i].addr = 64 * i;
	dp_unglue(&g, it, 8);
	CHECK(it[2].addr == 64 * g.node[2] + 9 && it[7].addr == it[6].addr + 8);
	dp_glued_free(&g);
	/* the page rule on: only the 80-byte item is above a page */
	REQUIRE(!dp_glue(DP_PROBLEM(.it = it, .n = 8, .iv = iv, .page = 64),
			 &dp_search_defaults, DP_GLUE_ALL, &g));
	CHECK(g.k == 8);
	for (i = 0; i < 8; i++)
		CHECK(g.off[i] == 0);
	dp_glued_free(&g);
	REQUIRE(!dp_glue(DP_PROBLEM(.it = it, .n = 0, .iv = iv),
			 &dp_search_defaults, DP_GLUE_ALL, &g));
	CHECK(g.k == 0);
	dp_glued_free(&g);
	/* sizes whose sum wraps do not stack; nothing chains after the
	 * last time (its end + 1 wraps to 0, where an item starts) */
	{
		static const struct dp_iv big_iv[] = { { 0, 9 }, { 0, 9 },
			{ 0, UINT64_MAX }, { 0, 3 } };
		struct dp_item big[] = { { 1ULL << 63, 1, 0, 1, 0 },
			{ 1ULL << 63, 1, 1, 1, 0 }, { 7, 1, 2, 1, 0 },
			{ 7, 1, 3, 1, 0 } };
		int rule;

		for (rule = 0; rule < DP_GLUE_RULES; rule++) {
			REQUIRE(!dp_glue(DP_PROBLEM(.it = big, .n = 4,
						    .iv = big_iv),
					 &dp_search_defaults, rule, &g));
			CHECK(g.k == 4);
			dp_glued_free(&g);
		}
	}
	/* DP_GLUE_LONG: spans (hi - lo) 0, 0, 19, 19, 5 (median 5): the
	 * items live over 20 times stack, those live once do not (under
	 * DP_GLUE_ALL they do) */
	{
		static const struct dp_iv l_iv[] = { { 0, 0 }, { 0, 0 },
			{ 0, 19 }, { 0, 19 }, { 0, 5 } };
		struct dp_item l[] = { { 1, 1, 0, 1, 0 }, { 1, 1, 1, 1, 0 },
			{ 2, 1, 2, 1, 0 }, { 2, 1, 3, 1, 0 },
			{ 3, 1, 4, 1, 0 } };

		REQUIRE(!dp_glue(DP_PROBLEM(.it = l, .n = 5, .iv = l_iv),
				 &dp_search_defaults, DP_GLUE_ALL, &g));
		CHECK(g.k == 3 && g.node[0] == g.node[1] &&
		      g.node[2] == g.node[3]);
		dp_glued_free(&g);
		REQUIRE(!dp_glue(DP_PROBLEM(.it = l, .n = 5, .iv = l_iv),
				 &dp_search_defaults, DP_GLUE_LONG, &g));
		CHECK(g.k == 4 && g.node[0] != g.node[1] &&
		      g.node[2] == g.node[3]);
		dp_glued_free(&g);
	}
	/* chains first: a [0, 9] and b [10, 19] of one size chain, though
	 * x shares a's interval; stacks first (DP_GLUE_STACKS_FIRST), a
	 * goes with x and b is left alone */
	{
		static const struct dp_iv c_iv[] = { { 0, 9 }, { 10, 19 },
			{ 0, 9 } };
		struct dp_item c[] = { { 4, 1, 0, 1, 0 }, { 4, 1, 1, 1, 0 },
			{ 4, 1, 2, 1, 0 } };
		int rule;

		for (rule = 0; rule < DP_GLUE_RULES; rule++) {
			int first = rule == DP_GLUE_STACKS_FIRST ? 2 : 1;

			REQUIRE(!dp_glue(DP_PROBLEM(.it = c, .n = 3, .iv = c_iv),
					  &dp_search_defaults, rule, &g));
			CHECK(g.k == 2 && g.node[0] == g.node[first] &&
			      g.node[3 - first] != g.node[0] &&
			      g.off[first] == (first == 2 ? 4 : 0));
			dp_glued_free(&g);
		}
	}
	/* the fewest partners first (DP_GLUE_FEWEST): a [0, 9] and a2
	 * [0, 9] of 4 bytes could each chain with b [10, 19] of 4, which
	 * could also stack with c [10, 19] of 6; a, a2 and b have two or
	 * three partners, c one.  Chains first, a chains with b and the
	 * others are left alone; fewest first, the two stacks (scores 4)
	 * glue before either chain (5); with a stack counting one more
	 * (DP_GLUE_FEWEST_CHAINS) all four pairs score 5 and the chain
	 * goes first, as under chains first */
	{
		static const struct dp_iv f_iv[] = { { 0, 9 }, { 0, 9 },
			{ 10, 19 }, { 10, 19 } };
		struct dp_item fw[] = { { 4, 1, 0, 1, 0 }, { 4, 1, 1, 1, 0 },
			{ 4, 1, 2, 1, 0 }, { 6, 1, 3, 1, 0 } };

		REQUIRE(!dp_glue(DP_PROBLEM(.it = fw, .n = 4, .iv = f_iv),
				 &dp_search_defaults, DP_GLUE_ALL, &g));
		CHECK(g.k == 3 && g.node[0] == g.node[2]);
		dp_glued_free(&g);
		REQUIRE(!dp_glue(DP_PROBLEM(.it = fw, .n = 4, .iv = f_iv),
				 &dp_search_defaults, DP_GLUE_FEWEST, &g));
		CHECK(g.k == 2 && g.rounds == 1);
		CHECK(g.node[0] == g.node[1] && g.off[0] == 0 && g.off[1] == 4);
		CHECK(g.node[2] == g.node[3] && g.off[2] == 0 && g.off[3] == 4);
		CHECK(g.it[g.node[0]].size == 8 && g.it[g.node[2]].size == 10);
		dp_glued_free(&g);
		REQUIRE(!dp_glue(DP_PROBLEM(.it = fw, .n = 4, .iv = f_iv),
				 &dp_search_defaults, DP_GLUE_FEWEST_CHAINS,
				 &g));
		CHECK(g.k == 3 && g.node[0] == g.node[2] && g.off[2] == 0);
		dp_glued_free(&g);
	}
}

/* A perfect packing of 200 (seed 6) with 20,000 nodes: the items glue
 * into 14 rectangles, whose search reaches the optimum; the same search
 * without gluing does not.  One of 300 (seed 1, 50,000 nodes): lower
 * with gluing, not at the optimum.  Both verify and repeat. */
TEST(glue_reaches_optima_the_search_misses)
{
	static const uint32_t ns[] = { 200, 300 };
	static const uint64_t seeds[] = { 6, 1 }, nodes[] = { 20000, 50000 };
	struct dp_search_stats s0, s1, s2;
	struct dp_csv *c;
	struct prob p;
	size_t k;

	for (k = 0; k < 2; k++) {
		c = perfect(ns[k], seeds[k]);
		REQUIRE(c && !prob_of(c, &p));
		dp_csv_free(c);
		REQUIRE(!search(&p, UINT64_MAX, 0, nodes[k], glue_params(0), &s0));
		CHECK(valid(&p));
		REQUIRE(!search(&p, UINT64_MAX, 0, nodes[k], glue_params(1), &s1));
		CHECK(valid(&p) && end_of(&p) == s1.end);
		REQUIRE(!search(&p, UINT64_MAX, 0, nodes[k], NULL, &s2));
		CHECK(s2.end == s1.end && s2.nodes == s1.nodes);
		printf("# %u seed %llu: %llu without gluing, %llu with (%s), optimum %llu\n",
		       ns[k], (unsigned long long)seeds[k],
		       (unsigned long long)s0.end, (unsigned long long)s1.end,
		       s1.how, 64ULL * ns[k]);
		CHECK(s1.end < s0.end && s1.end <= s1.portfolio_end);
		CHECK(s1.nodes <= nodes[k] + 1);
		if (!k)
			CHECK(s1.end == 64ULL * ns[k] && s1.proven &&
			      !strcmp(s1.how, "glued"));
		prob_free(&p);
	}
}

/* Random problems as time_blocks_random_problems', with a third of the
 * items given the interval (or the size, right after) of another so that
 * they glue.  0, or -1 (out of memory). */
static int glue_prone(uint64_t seed, struct prob *p, uint64_t *page)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 7;
	size_t i, j;

	if (random_blocks(seed, p, 2, page))
		return -1;
	for (i = 0; i < p->n; i++) {
		struct dp_item *x = &p->it[i], *y;

		j = xorshift64_below(&rs, p->n);
		y = &p->it[j];
		if (j == i || x->iv_count != 1 || y->iv_count != 1 ||
		    xorshift64_below(&rs, 3))
			continue;
		x->size = x->size * 8 + 70;	/* above the page */
		x->align = y->align;
		x->size -= x->size % x->align;
		if (xorshift64_below(&rs, 2)) {
			p->iv[x->iv_first] = p->iv[y->iv_first];
		} else {
			x->size = y->size;
			p->iv[x->iv_first].lo = p->iv[y->iv_first].hi + 1;
			p->iv[x->iv_first].hi = p->iv[x->iv_first].lo +
				xorshift64_below(&rs, 4);
		}
	}
	return 0;
}

/* glue_prone's problems: the glued items placed by first fit and unglued
 * verify (alignment and the page rule included), and so does the search
 * with gluing, never above the portfolio, the same twice. */
TEST(glue_random_problems_verify)
{
	uint64_t seed, page, e1;
	struct dp_search_stats st, s2;
	struct dp_place_stats ps;
	struct dp_glued g;
	size_t failed;
	struct prob p;

	for (seed = 1; seed <= 8; seed++) {
		REQUIRE(!glue_prone(seed, &p, &page));
		REQUIRE(!dp_glue(DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv,
					    .page = page), &dp_search_defaults,
				 DP_GLUE_ALL, &g));
		CHECK(g.k < p.n);
		memset(&ps, 0, sizeof(ps));
		REQUIRE(!dp_place(DP_PROBLEM(.it = g.it, .n = g.k, .iv = g.iv,
					     .ceiling = UINT64_MAX,
					     .page = page), DP_ORDER_SIZE,
				  DP_ENGINE_AUTO, &ps, &failed, NULL, ""));
		dp_unglue(&g, p.it, p.n);
		CHECK(valid_iv(&p) && paged(&p, page));
		dp_glued_free(&g);
		REQUIRE(!search(&p, UINT64_MAX, page, 300, NULL, &st));
		CHECK(valid_iv(&p) && paged(&p, page));
		CHECK(st.end == end_of(&p) && st.end <= st.portfolio_end &&
		      st.end >= st.lower_bound);
		e1 = st.end;
		REQUIRE(!search(&p, UINT64_MAX, page, 300, NULL, &s2));
		CHECK(s2.end == e1 && s2.nodes == st.nodes);
		prob_free(&p);
	}
}

/* dp_glue_rounds stopped after r rounds, for every r up to dp_glue's
 * count, on glue_prone's problems and on perfect packings of 300 (many
 * rounds), under both rules: at most r rounds, at least as many
 * rectangles, each inside one of the whole glue's at a fixed offset; at
 * r = the count, the same rectangles. */
TEST(glue_rounds_nest_in_the_whole_glue)
{
	uint64_t seed, page;
	size_t r, bad = 0, levels = 0;
	struct prob p;
	int rule;

	for (seed = 1; seed <= 8; seed++) {
		struct dp_csv *c = NULL;

		if (seed <= 4) {
			REQUIRE(!glue_prone(seed, &p, &page));
		} else {
			c = perfect(300, seed);
			REQUIRE(c && !prob_of(c, &p));
			page = 0;
		}
		for (rule = 0; rule < DP_GLUE_RULES; rule++) {
			struct dp_glued whole, part;

			REQUIRE(!dp_glue(DP_PROBLEM(.it = p.it, .n = p.n,
						    .iv = p.iv, .page = page),
					 &dp_search_defaults, rule, &whole));
			for (r = 1; r <= whole.rounds; r++) {
				REQUIRE(!dp_glue_rounds(DP_PROBLEM(.it = p.it,
								   .n = p.n,
								   .iv = p.iv,
								   .page = page),
							 &dp_search_defaults,
							rule, r, &part));
				bad += part.rounds > r || part.k < whole.k ||
				       glue_nests(&part, &whole, p.n) != 1 ||
				       (r == whole.rounds && part.k != whole.k);
				levels++;
				dp_glued_free(&part);
			}
			dp_glued_free(&whole);
		}
		prob_free(&p);
		dp_csv_free(c);
	}
	printf("# %zu levels\n", levels);
	CHECK(levels > 40);
	CHECK_EQ_U64(bad, 0);
}

/* first fit of the rectangles g, unglued into p: disjoint and aligned */
static int glued_first_fit_valid(struct prob *p, const struct dp_glued *g)
{
	struct dp_place_stats ps = { 0 };
	size_t failed;

	if (dp_place(DP_PROBLEM(.it = g->it, .n = g->k, .iv = g->iv,
				.ceiling = UINT64_MAX), DP_ORDER_SIZE,
		     DP_ENGINE_AUTO, &ps, &failed, NULL, ""))
		return 0;
	dp_unglue(g, p->it, p->n);
	return valid_iv(p);
}

/* A ladder that glues one pair a round (a stack of two, then a chain
 * with the next item, a stack with the next, ...) beside 2,000 items of
 * two intervals that never glue: the rounds stop once they have sorted
 * 16 times the items (about 16 rounds), not after the ladder's 39; what
 * glued still places and verifies. */
TEST(glue_rounds_stop_at_their_work_bound)
{
	enum { LADDER = 40, OTHER = 2000, N = LADDER + OTHER };
	struct dp_glued g;
	struct prob p;
	uint64_t t = 0, sz = 1;
	size_t i, m = 0;

	p.n = N;
	p.it = calloc(N, sizeof(*p.it));
	p.iv = calloc(LADDER + 2 * OTHER, sizeof(*p.iv));
	p.key = NULL;
	REQUIRE(p.it && p.iv);
	for (i = 0; i < LADDER; i++, m++) {
		if (i < 2) {			/* [0, 0], size 1, twice */
			p.iv[m] = (struct dp_iv){ 0, 0 };
		} else if (i % 2) {		/* stack: [0, t], the size */
			p.iv[m] = (struct dp_iv){ 0, t };
		} else {			/* chain: right after, as long */
			p.iv[m] = (struct dp_iv){ t + 1, 2 * t + 1 };
			t = 2 * t + 1;
		}
		p.it[i] = (struct dp_item){ sz, 1, m, 1, DP_UNSET };
		if (i % 2)
			sz *= 2;
	}
	for (i = LADDER; i < N; i++, m += 2) {
		p.iv[m] = (struct dp_iv){ 2 * i, 2 * i };
		p.iv[m + 1] = (struct dp_iv){ 2 * i + 2, 2 * i + 2 };
		p.it[i] = (struct dp_item){ 3, 1, m, 2, DP_UNSET };
	}
	REQUIRE(!dp_glue(DP_PROBLEM(.it = p.it, .n = p.n, .iv = p.iv),
			 &dp_search_defaults, DP_GLUE_ALL, &g));
	printf("# %zu rectangles of %d items\n", g.k, N);
	CHECK(g.k < N - 10 && g.k > OTHER + 1 + 10);
	CHECK(glued_first_fit_valid(&p, &g));
	dp_glued_free(&g);
	prob_free(&p);
}

/* DP_GLUE_FEWEST on one long chain: L items of 1 byte, each live at one
 * time right after the one before.  Only the ends have a single partner,
 * so a round glues the pair at each end, and about L / 2 rounds would
 * glue it whole.  Beside 2 L items that glue nothing (two intervals) the
 * rounds pass the work bound (glue_fewest_work x n) before: the glue
 * stops with the middle of the chain unglued, and what it made places. */
TEST(glue_fewest_stops_at_its_work_bound)
{
	enum { L = 3000, N = 3 * L };
	struct dp_glued g;
	struct prob p;
	size_t i, m = 0;

	p.n = N;
	p.it = calloc(N, sizeof(*p.it));
	p.iv = calloc(L + 2 * (N - L), sizeof(*p.iv));
	p.key = NULL;
	REQUIRE(p.it && p.iv);
	for (i = 0; i < L; i++, m++) {
		p.iv[m] = (struct dp_iv){ i, i };
		p.it[i] = (struct dp_item){ 1, 1, m, 1, DP_UNSET };
	}
	for (i = L; i < N; i++, m += 2) {
		p.iv[m] = (struct dp_iv){ 2 * i, 2 * i };
		p.iv[m + 1] = (struct dp_iv){ 2 * i + 2, 2 * i + 2 };
		p.it[i] = (struct dp_item){ 3, 1, m, 2, DP_UNSET };
	}
	REQUIRE(!dp_glue(DP_PROBLEM(.it = p.it, .n = N, .iv = p.iv),
			 &dp_search_defaults, DP_GLUE_FEWEST, &g));
	printf("# %zu rectangles of %d items after %zu rounds\n", g.k, N,
	       g.rounds);
	CHECK(g.k > 2 * L + 10 && g.k < N - 10 && g.rounds < L / 2);
	/* the pairs glued are the ends' */
	CHECK(g.node[0] == g.node[1] && g.node[L - 1] == g.node[L - 2] &&
	      g.node[L / 2] != g.node[L / 2 + 1]);
	CHECK(glued_first_fit_valid(&p, &g));
	dp_glued_free(&g);
	prob_free(&p);
}

int main(void)
{
	return tap_run();
}
