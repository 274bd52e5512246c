// SPDX-License-Identifier: GPL-2.0
/*
 * What --strategy search costs and says: the work of a search
 * node is bounded by what the node changes, not by the problem's size
 * times its width; nothing is built that the search does not use; and a
 * failure says why (budget spent, not searched, proven none).  Work is
 * counted (items and sections visited), never timed.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

/* A staircase: buffer i lives [i, i + w], sizes 1..97 in a fixed pattern
 * (or all 1 when flat).  Every buffer overlaps its w successors. */
static struct dp_csv *staircase(size_t n, size_t w, int flat)
{
	char *text = malloc(48 * (n + 1));
	struct dp_err e;
	struct dp_csv *c;
	size_t len, i;

	len = sprintf(text, "id,lower,upper,size\n");
	for (i = 0; i < n; i++)
		len += sprintf(text + len, "b%zu,%zu,%zu,%zu\n", i, i, i + w + 1,
			       flat ? 1 : (i * 7919) % 97 + 1);
	c = dp_csv_parse("stair.csv", text, len, &e);
	free(text);
	return c;
}

/* A node's work: the unplaced items it lists (at most n), the neighbours
 * and sections it changes (at most 2w + 1 each): a bound in n + w, where
 * the scan of every section's items was about n x w a node. */
TEST(search_node_work_bounded_by_what_it_changes)
{
	/* shapes the constructive passes miss the lower bound on, so the
	 * search runs (the skyline pass packs 400 x 200 exactly) */
	static const size_t shapes[][2] = { { 600, 150 }, { 400, 180 },
					    { 900, 40 } };
	size_t k;

	for (k = 0; k < 3; k++) {
		size_t n = shapes[k][0], w = shapes[k][1];
		struct dp_csv *c = staircase(n, w, 0);
		struct dp_search_stats st;
		struct dp_err e;

		REQUIRE(c);
		REQUIRE(!dp_csv_solve_search(c, 0, 2000, &st, &e));
		CHECK(!dp_csv_verify(c, &e));
		CHECK(st.searched && st.nodes > 0);
		printf("# n %zu w %zu: %llu nodes, %llu work, %.0f a node\n", n, w,
		     (unsigned long long)st.nodes, (unsigned long long)st.work,
		     st.nodes ? (double)st.work / st.nodes : 0.0);
		CHECK(st.work <= st.nodes * 4 * (n + 2 * w + 1));
		dp_csv_free(c);
	}
}

/* Budget 0, or a portfolio already at the lower bound: the search's
 * structures are never built (a staircase where everything overlaps:
 * first fit is exact). */
TEST(search_builds_nothing_it_does_not_use)
{
	struct dp_csv *c = staircase(700, 699, 0);
	struct dp_search_stats st;
	struct dp_err e;

	REQUIRE(c);
	REQUIRE(!dp_csv_solve_search(c, 0, 0, &st, &e));
	CHECK(!st.built && !st.searched);
	CHECK_EQ_U64(st.nodes, 0);
	CHECK_EQ_U64(st.end, st.lower_bound);
	REQUIRE(!dp_csv_solve_search(c, 0, DP_UNSET, &st, &e));
	CHECK(!st.built && !st.searched);
	CHECK_EQ_U64(dp_csv_peak(c), dp_csv_lower_bound(c));
	CHECK(st.proven);
	dp_csv_free(c);
	/* not at the bound: budget 0 still builds nothing, a budget does */
	c = staircase(300, 60, 0);
	REQUIRE(c);
	REQUIRE(!dp_csv_solve_search(c, 0, 0, &st, &e));
	CHECK(!st.built && !st.searched);
	CHECK(st.end > st.lower_bound);
	REQUIRE(!dp_csv_solve_search(c, 0, 500, &st, &e));
	CHECK(st.built && st.searched);
	dp_csv_free(c);
}

/* Why nothing was found: the three verdicts are told apart. */
TEST(search_failure_says_why)
{
	struct dp_search_stats st;
	struct dp_csv *c;
	struct dp_err e;
	uint64_t lb, peak;

	/* above the search's cutoff: the portfolio alone, and it says so */
	c = staircase(DP_SEARCH_MAX_ITEMS + 1, 50, 0);
	REQUIRE(c);
	lb = dp_csv_lower_bound(c);
	REQUIRE(!dp_csv_solve_search(c, 0, 1000, &st, &e));
	peak = dp_csv_peak(c);
	REQUIRE(peak > lb);
	CHECK(dp_csv_solve_search(c, peak - 1, 1000, &st, &e));
	CHECK(!st.proven && !st.searched);
	CHECK(contains(e.msg, "not searched"));
	CHECK(!contains(e.msg, "budget"));
	printf("# %s\n", e.msg);
	dp_csv_free(c);
	/* a budget too small: "budget" and how many nodes */
	c = staircase(300, 60, 0);
	REQUIRE(c);
	lb = dp_csv_lower_bound(c);
	CHECK(dp_csv_solve_search(c, lb, 10, &st, &e) || st.end <= lb);
	if (st.end > lb) {
		CHECK(!st.proven && st.searched);
		CHECK_HAS(e.msg, "budget", "10 nodes");
		printf("# %s\n", e.msg);
	}
	/* below the lower bound: proven none */
	CHECK(dp_csv_solve_search(c, lb - 1, 1000, &st, &e));
	CHECK(st.proven);
	CHECK(contains(e.msg, "none exists"));
	dp_csv_free(c);
}

int main(void)
{
	return tap_run();
}
