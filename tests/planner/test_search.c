// SPDX-License-Identifier: GPL-2.0
/*
 * The pure pieces: search (gaps, both page-straddle arms), find_start_addr,
 * the interval tree against a brute force, and the simplify order.
 * Every expected value is computed by hand in the comment beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "place/place.h"
#include "planner_util.h"
#include "tap.h"
#include "xorshift.h"

#define P 4096ULL
#define CEIL (1ULL << 30)

static uint64_t srch(struct dp_range *occ, size_t n, uint64_t start,
		     uint64_t ceil, uint64_t size, uint64_t page, uint64_t align,
		     int *ok)
{
	uint64_t a = 0xdead;

	*ok = !dp_first_fit(occ, n, start, ceil, size, page, align, &a);
	return a;
}

TEST(search_empty_takes_start)
{
	int ok;

	/* no occupant: the single gap [start, ceiling) */
	CHECK_EQ_U64(srch(NULL, 0, 0, CEIL, 8192, P, 1, &ok), 0);
	CHECK(ok);
	CHECK_EQ_U64(srch(NULL, 0, 0x12000, CEIL, 8192, P, 1, &ok), 0x12000);
	CHECK(ok);
}

/* One gap search each (page 4096, alignment 1, from start). */
static const struct gap_case {
	struct dp_range occ[2];
	size_t nocc;
	uint64_t start, size, want;
	const char *why;
} cases[] = {
	/* 0-1: occupied [0,4096) [8192,12288): gaps [4096,8192), [12288,ceil) */
	{ { { 0, 4096 }, { 8192, 12288 } }, 2, 0, 4096, 4096, "the first gap that fits" },
	{ { { 0, 4096 }, { 8192, 12288 } }, 2, 0, 8192, 12288,
	  "8192 bytes do not fit the 4096-byte gap: the trailing one" },
	/* 2-4: the start and occupants that overlap */
	{ { { 0, 8192 } }, 1, 4096, 4096, 8192, "start inside an occupant: prevEnd moves to its end" },
	{ { { 0, 8192 }, { 4096, 6000 } }, 2, 0, 4096, 8192,
	  "nested occupants: prevEnd = max(8192, 6000) = 8192, no gap before" },
	{ { { 0, 4096 } }, 1, 0x10000, 4096, 0x10000,
	  "occupants below the start are ignored: the gap from start" },
	/* 5-9: the 4 KiB page rule */
	{ { { 0, 4000 } }, 1, 0, 96, 4000,
	  "lo 4000, size 96: last byte 4095 is in lo's page 0: the raw start" },
	{ { { 0, 4000 } }, 1, 0, 100, 4096,
	  "lo 4000, size 100: last byte 4099 is in page 1, size <= 4096: bumped to the boundary" },
	{ { { 0, 4000 }, { 4150, 8192 } }, 2, 0, 100, 8192,
	  "gap [4000,4150) straddles; from 4096 only 54 bytes are left: the next gap's raw start" },
	{ { { 0, 100 } }, 1, 0, 4096, 4096,
	  "size == 4096 at lo 100 ends in page 1 and is not above a page: bumped" },
	{ { { 0, 100 } }, 1, 0, 8192, 100,
	  "size 8192 > page at lo 100: the raw gap start, no round-up" },
};

static void check_case(size_t i)
{
	const struct gap_case *c = &cases[i];
	struct dp_range occ[2] = { c->occ[0], c->occ[1] };
	uint64_t got;
	int ok;

	got = srch(occ, c->nocc, c->start, CEIL, c->size, P, 1, &ok);
	if (!ok || got != c->want)
		printf("#   case %zu (%s): got %llu ok %d, want %llu\n", i, c->why,
		       (unsigned long long)got, ok, (unsigned long long)c->want);
	CHECK(ok && got == c->want);
}

TEST(search_first_gap_that_fits)
{
	check_case(0);
	check_case(1);
}

TEST(search_sorts_occupied_first)
{
	struct dp_range occ[3] = { { 8192, 12288 }, { 20480, 24576 }, { 0, 4096 } };
	int ok;

	/* sorted: [0,4096) [8192,12288) [20480,24576); 8192 fits [12288,20480) */
	CHECK_EQ_U64(srch(occ, 3, 0, CEIL, 8192, P, 1, &ok), 12288);
	CHECK(ok);
	CHECK_EQ_U64(occ[0].lo, 0);
	CHECK_EQ_U64(occ[2].lo, 20480);
}

static int cmp_lo_hi(const void *a, const void *b)
{
	const struct dp_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo) ?:
	       (x->hi > y->hi) - (x->hi < y->hi);
}

/*
 * dp_sort_ranges against qsort: random keys, few distinct keys, sorted,
 * reversed and organ-pipe inputs, at sizes around the insertion-sort
 * cutoff and far above it, with the automatic depth and with depths 0-2
 * (the heapsort, whole or below a partition).  Equal keys may come in
 * any order, so both sides are compared after sorting by (lo, hi).
 */
TEST(sort_ranges_matches_qsort)
{
	static const size_t sizes[] = { 0, 1, 2, 23, 24, 25, 26, 100, 1000,
					4097 };
	static const unsigned int depths[] = { DP_SORT_DEPTH_AUTO, 0, 1, 2 };
	struct dp_range *a = malloc(4097 * sizeof(*a));
	struct dp_range *b = malloc(4097 * sizeof(*b));
	uint64_t rs = 77;
	size_t si, i, bad = 0;
	unsigned int d, shape;

	CHECK(a && b);
	for (si = 0; a && b && si < sizeof(sizes) / sizeof(*sizes); si++)
		for (shape = 0; shape < 5; shape++)
			for (d = 0; d < 4; d++) {
				size_t n = sizes[si];

				for (i = 0; i < n; i++) {
					uint64_t k = shape == 0 ? xorshift64(&rs) :
						     shape == 1 ? xorshift64_below(&rs, 4) :
						     shape == 2 ? i : shape == 3 ? n - i :
						     (i < n / 2 ? i : n - i);

					a[i] = (struct dp_range){ k, i };
				}
				memcpy(b, a, n * sizeof(*a));
				dp_sort_ranges(a, n, depths[d]);
				for (i = 1; i < n; i++)
					bad += a[i - 1].lo > a[i].lo;
				qsort(a, n, sizeof(*a), cmp_lo_hi);
				qsort(b, n, sizeof(*b), cmp_lo_hi);
				bad += n && memcmp(a, b, n * sizeof(*a)) != 0;
			}
	CHECK_EQ_U64(bad, 0);
	free(a);
	free(b);
}

/* Random occupants, pages and alignments: the search on ranges sorted
 * beforehand answers as the one that sorts them (ruin_recreate.c keeps its
 * ranges sorted between calls). */
TEST(search_sorted_answers_as_search)
{
	struct dp_range a[64], b[64];
	uint64_t rs = 91, x, y;
	int k, bad = 0, fit = 0;

	for (k = 0; k < 4000; k++) {
		size_t n = xorshift64_below(&rs, 64), i;
		uint64_t size = 1 + xorshift64_below(&rs, 3 * P);
		uint64_t page = xorshift64_below(&rs, 2) ? P : 0;
		uint64_t align = 1ULL << xorshift64_below(&rs, 13);
		uint64_t start = xorshift64_below(&rs, 2 * P);
		int r0, r1;

		for (i = 0; i < n; i++) {
			uint64_t lo = xorshift64_below(&rs, 16 * P);

			a[i] = (struct dp_range){ lo,
				lo + 1 + xorshift64_below(&rs, 4 * P) };
		}
		memcpy(b, a, sizeof(a));
		qsort(b, n, sizeof(*b), cmp_lo_hi);
		x = y = 1;
		r0 = dp_first_fit(a, n, start, 16 * P, size, page, align, &x);
		r1 = dp_first_fit_sorted(b, n, start, 16 * P, size, page, align,
					 &y);
		bad += r0 != r1 || (!r0 && x != y);
		fit += !r0;
	}
	CHECK_EQ_U64(bad, 0);
	printf("# fit %d of 4000\n", fit);
	CHECK(fit > 500 && fit < 3500);	/* both answers met */
}

TEST(search_start_and_overlapping_occupants)
{
	check_case(2);
	check_case(3);
	check_case(4);
}

TEST(search_ceiling_no_fit)
{
	struct dp_range occ[1] = { { 0, 4096 } };
	int ok;

	/* only [4096, 8192) is left below the ceiling 8192: 8192 bytes fail */
	srch(occ, 1, 0, 8192, 8192, P, 1, &ok);
	CHECK(!ok);
	/* 4096 bytes fit exactly */
	occ[0] = (struct dp_range){ 0, 4096 };
	CHECK_EQ_U64(srch(occ, 1, 0, 8192, 4096, P, 1, &ok), 4096);
	CHECK(ok);
	/* an occupant reaching past the ceiling leaves no trailing gap */
	occ[0] = (struct dp_range){ 4096, 1 << 20 };
	srch(occ, 1, 4096, 8192, 4096, P, 1, &ok);
	CHECK(!ok);
}

TEST(search_subpage_same_page_raw_start)
{
	check_case(5);
}

TEST(search_subpage_straddle_bumps_to_boundary)
{
	check_case(6);
}

TEST(search_straddle_bump_too_small_next_gap)
{
	check_case(7);
}

TEST(search_exact_page_size_straddle_and_big_raw)
{
	check_case(8);
	check_case(9);
}

TEST(search_page_zero_and_alignment)
{
	struct dp_range occ[1] = { { 0, 4000 } };
	int ok;

	/* page 0 (MiniMalloc): no straddle rule, raw start 4000 */
	CHECK_EQ_U64(srch(occ, 1, 0, CEIL, 100, 0, 1, &ok), 4000);
	CHECK(ok);
	/* alignment 1024: 4000 rounds up to 4096 */
	occ[0] = (struct dp_range){ 0, 4000 };
	CHECK_EQ_U64(srch(occ, 1, 0, CEIL, 100, 0, 1024, &ok), 4096);
	CHECK(ok);
	/* alignment pushing past a gap's end skips it: gap [10,20), align 16
	 * -> 16, 4 bytes left < 8; next gap [30, ...) -> 32 */
	{
		struct dp_range o2[2] = { { 0, 10 }, { 20, 30 } };

		CHECK_EQ_U64(srch(o2, 2, 0, CEIL, 8, 0, 16, &ok), 32);
		CHECK(ok);
	}
}

TEST(find_start_addr_floor)
{
	/* hwm 0 means nothing pre-placed: start at 0 */
	CHECK_EQ_U64(dp_find_start_addr(0), 0);
	/* one 8 KiB tensor at 0x10000: hwm 0x11fff, floor 0x12000 */
	CHECK_EQ_U64(dp_find_start_addr(0x11fff), 0x12000);
	/* hwm + 1, not page rounded */
	CHECK_EQ_U64(dp_find_start_addr(0x1234), 0x1235);
}

/* ---- interval tree ---------------------------------------------------- */

struct hits {
	uint8_t *seen;
	size_t n;
};

static void hit(uint32_t payload, void *arg)
{
	struct hits *h = arg;

	h->seen[payload]++;
	h->n++;
}

TEST(itree_make_tree_midpoints_and_max)
{
	struct dp_itnode *n = calloc(7, sizeof(*n));
	struct dp_itree t;
	int i;

	/* lo 0..6, hi: 5, 1, 9, 3, 4, 2, 8 */
	static const uint64_t hi[7] = { 5, 1, 9, 3, 4, 2, 8 };

	for (i = 0; i < 7; i++) {
		n[i].lo = i;
		n[i].hi = i + hi[i];
		n[i].payload = i;
	}
	REQUIRE(!dp_itree_build(&t, n, 7));
	/* midpoints: root (0+7)/2 = 3, left (0+3)/2 = 1, right (4+7)/2 = 5 */
	CHECK_EQ_U64(t.root, 3);
	CHECK_EQ_U64(t.node[3].left, 1);
	CHECK_EQ_U64(t.node[3].right, 5);
	CHECK_EQ_U64(t.node[1].left, 0);
	CHECK_EQ_U64(t.node[1].right, 2);
	CHECK_EQ_U64(t.node[5].left, 4);
	CHECK_EQ_U64(t.node[5].right, 6);
	/* his: 5, 2, 11, 6, 8, 7, 14; max(left subtree) = 11, right = 14 */
	CHECK_EQ_U64(t.node[1].max, 11);
	CHECK_EQ_U64(t.node[5].max, 14);
	CHECK_EQ_U64(t.node[3].max, 14);
	CHECK_EQ_U64(t.node[0].max, 5);
	dp_itree_free(&t);
}

TEST(itree_sorts_by_lo_before_building)
{
	struct dp_itnode *n = calloc(3, sizeof(*n));
	struct dp_itree t;

	n[0] = (struct dp_itnode){ .lo = 30, .hi = 31, .payload = 0 };
	n[1] = (struct dp_itnode){ .lo = 10, .hi = 11, .payload = 1 };
	n[2] = (struct dp_itnode){ .lo = 20, .hi = 21, .payload = 2 };
	REQUIRE(!dp_itree_build(&t, n, 3));
	CHECK_EQ_U64(t.node[0].lo, 10);
	CHECK_EQ_U64(t.node[1].lo, 20);
	CHECK_EQ_U64(t.node[2].lo, 30);
	CHECK_EQ_U64(t.node[t.root].lo, 20);
	dp_itree_free(&t);
}

TEST(itree_matches_brute_force)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	int round;

	for (round = 0; round < 40; round++) {
		size_t n = 1 + xorshift64_below(&s, 300), i, q;
		struct dp_itnode *nodes = calloc(n, sizeof(*nodes));
		struct dp_iv *iv = calloc(n, sizeof(*iv));
		struct dp_itree t;
		struct hits h;

		for (i = 0; i < n; i++) {
			iv[i].lo = xorshift64_below(&s, 1000);
			iv[i].hi = iv[i].lo + xorshift64_below(&s, round % 2 ? 10 : 200);
			nodes[i].lo = iv[i].lo;
			nodes[i].hi = iv[i].hi;
			nodes[i].payload = i;
		}
		REQUIRE(!dp_itree_build(&t, nodes, n));
		h.seen = calloc(n, 1);
		for (q = 0; q < 50; q++) {
			uint64_t lo = xorshift64_below(&s, 1100), hi = lo + xorshift64_below(&s, 50);
			size_t expect = 0;

			memset(h.seen, 0, n);
			h.n = 0;
			dp_itree_overlaps(&t, lo, hi, hit, &h);
			for (i = 0; i < n; i++) {
				int ov = iv[i].lo <= hi && lo <= iv[i].hi;

				expect += ov;
				if (ov != (h.seen[i] == 1)) {
					CHECK(ov == (h.seen[i] == 1));
					break;
				}
			}
			CHECK_EQ_U64(h.n, expect);
		}
		free(h.seen);
		dp_itree_free(&t);
		free(iv);
	}
}

TEST(itree_query_prunes)
{
	size_t n = 4096, i, visited;
	struct dp_itnode *nodes = calloc(n, sizeof(*nodes));
	struct dp_itree t;
	struct hits h;

	/* disjoint [10i, 10i+5]: a query hits one node; with both prunings a
	 * query visits O(log n) nodes (2 per level of a 12-level tree at most
	 * plus the path), far fewer than n */
	for (i = 0; i < n; i++) {
		nodes[i].lo = 10 * i;
		nodes[i].hi = 10 * i + 5;
		nodes[i].payload = i;
	}
	REQUIRE(!dp_itree_build(&t, nodes, n));
	h.seen = calloc(n, 1);
	h.n = 0;
	visited = dp_itree_overlaps(&t, 20000, 20003, hit, &h);
	CHECK_EQ_U64(h.n, 1);
	CHECK_EQ_U64(h.seen[2000], 1);
	CHECK(visited <= 2 * 13 + 1);
	free(h.seen);
	dp_itree_free(&t);
}

/* ---- simplify -------------------------------------------------------- */

TEST(simplify_order_by_pressure)
{
	/* A(1) - B(2) - C(4), A and C apart.
	 * pressure: A 1+2 = 3, B 2+1+4 = 7, C 4+2 = 6.
	 * remove A (3); B: 7-1 = 6.  B (6, index 1) before C (6, index 2);
	 * C: 6-2 = 4; remove C.  Removal A, B, C -> select order C, B, A. */
	struct dp_item it[3] = { { .size = 1 }, { .size = 2 }, { .size = 4 } };
	uint32_t first[4] = { 0, 1, 3, 4 };
	uint32_t adj[4] = { 1, 0, 2, 1 };
	uint32_t out[3];

	dp_simplify_order(it, 3, first, adj, out);
	CHECK_EQ_U64(out[0], 2);
	CHECK_EQ_U64(out[1], 1);
	CHECK_EQ_U64(out[2], 0);
}

TEST(simplify_ties_break_by_index)
{
	/* two isolated equal items: pressure 8 each; index 0 removed first,
	 * so index 1 is placed first */
	struct dp_item it[2] = { { .size = 8 }, { .size = 8 } };
	uint32_t first[3] = { 0, 0, 0 };
	uint32_t out[2];

	dp_simplify_order(it, 2, first, NULL, out);
	CHECK_EQ_U64(out[0], 1);
	CHECK_EQ_U64(out[1], 0);
}

TEST(simplify_star_hub_first)
{
	/* hub H(10) with leaves L1..L3 (1 each): leaves have pressure 11,
	 * H has 13.  L1 (index 1) goes, H drops to 12; L2 (11) goes, H 11;
	 * L3 (11, index 3) vs H (11, index 0): H goes first, then L3.
	 * Removal L1, L2, H, L3 -> select L3, H, L2, L1. */
	struct dp_item it[4] = { { .size = 10 }, { .size = 1 }, { .size = 1 },
				 { .size = 1 } };
	uint32_t first[5] = { 0, 3, 4, 5, 6 };
	uint32_t adj[6] = { 1, 2, 3, 0, 0, 0 };
	uint32_t out[4];

	dp_simplify_order(it, 4, first, adj, out);
	CHECK_EQ_U64(out[0], 3);
	CHECK_EQ_U64(out[1], 0);
	CHECK_EQ_U64(out[2], 2);
	CHECK_EQ_U64(out[3], 1);
}

TEST(place_reuses_bytes_of_non_interfering)
{
	/* a [0,1] 8192, b [2,3] 8192, c [1,2] 4096.  a-c and b-c interfere.
	 * pressure: a 12288, b 12288, c 20480.  remove a (index 0): c 12288;
	 * b (12288, 1) before c (12288, 2): remove b, then c.
	 * select c, b, a: c at 0; b sees c [0,4096) -> 4096; a sees c -> 4096.
	 * a and b share bytes (they never live together). */
	struct dp_iv iv[3] = { { 0, 1 }, { 2, 3 }, { 1, 2 } };
	struct dp_item it[3] = {
		{ .size = 8192, .align = 1, .iv_first = 0, .iv_count = 1 },
		{ .size = 8192, .align = 1, .iv_first = 1, .iv_count = 1 },
		{ .size = 4096, .align = 1, .iv_first = 2, .iv_count = 1 },
	};
	struct dp_place_stats st = { 0 };

	REQUIRE(!dp_place(DP_PROBLEM(.it = it, .n = 3, .iv = iv, .ceiling = CEIL,
				      .page = P), DP_ORDER_SIMPLIFY,
			  DP_ENGINE_AUTO, &st, NULL, NULL, ""));
	CHECK_EQ_U64(it[2].addr, 0);
	CHECK_EQ_U64(it[1].addr, 4096);
	CHECK_EQ_U64(it[0].addr, 4096);
	CHECK_EQ_U64(st.edges, 2);
	CHECK_EQ_U64(st.intervals, 3);
	/* most live at once: t=1 (a, c) or t=2 (b, c) = 12288 */
	CHECK_EQ_U64(dp_lower_bound(it, 3, iv), 12288);
}

int main(void)
{
	return tap_run();
}
