// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the heap reference model against hand-computed results
 * from the seed's algorithm (docs/seed-behaviour.md, part A).
 */
#include "tap.h"
#include "xmem_model.h"

static struct xm_heap h;

static int dump_count(void)
{
	struct xm_block b[64];
	int a[64];

	return xm_dump(&h, b, a, 64);
}

TEST(default_alignment_is_64_and_split_leaves_the_tail_free)
{
	uint64_t a = 0;

	REQUIRE(xm_init(&h, 0x1010, 0x1000, 32) == 0);
	CHECK(xm_alloc(&h, 100, 0, &a) == XM_OK);
	CHECK_EQ_U64(a, 0x1040);		/* align_up(0x1010, 64) */
	CHECK_EQ_U64(h.unused_bytes, 0x30);
	CHECK_EQ_U64(h.allocated_bytes, 0x30 + 100);
	CHECK_EQ_U64(h.free_b[0].buf, 0x1010 + 0x30 + 100);
	CHECK_EQ_U64(h.free_bytes, 0x1000 - 0x30 - 100);
	xm_destroy(&h);
}

TEST(slack_is_recomputed_per_block_first_fit)
{
	uint64_t a, b, c, d;

	/* pool [0x1000, 0x2000): 64 | 200 | 16 ... */
	REQUIRE(xm_init(&h, 0x1000, 0x1000, 32) == 0);
	REQUIRE(xm_alloc(&h, 64, 1, &a) == XM_OK);	/* [0x1000,0x1040) */
	REQUIRE(xm_alloc(&h, 200, 1, &b) == XM_OK);	/* [0x1040,0x1108) */
	REQUIRE(xm_alloc(&h, 16, 1, &c) == XM_OK);	/* [0x1108,0x1118) */
	CHECK(xm_free(&h, b) == XM_OK);			/* hole of 200 at 0x1040 */
	/* 150 bytes at 128-alignment: the hole needs slack 0x40 -> 214 > 200,
	 * so first fit moves on to the tail at 0x1118 (slack 0x68). */
	CHECK(xm_alloc(&h, 150, 128, &d) == XM_OK);
	CHECK_EQ_U64(d, 0x1180);
	CHECK_EQ_U64(h.unused_bytes, 0x68);
	/* 130 bytes at 64: slack 0 in the hole; it fits there. */
	CHECK(xm_alloc(&h, 130, 64, &d) == XM_OK);
	CHECK_EQ_U64(d, 0x1040);
	xm_destroy(&h);
}

TEST(remainder_of_4_is_not_split_5_is)
{
	uint64_t a;

	REQUIRE(xm_init(&h, 0x1000, 104, 32) == 0);
	CHECK(xm_alloc(&h, 100, 0, &a) == XM_OK);
	CHECK_EQ_U64(h.allocated_bytes, 104);
	CHECK_EQ_U64(h.free_bytes, 0);
	CHECK_EQ_U64(h.nfree, 0);
	CHECK_EQ_U64(h.split_refused, 0);
	xm_destroy(&h);

	REQUIRE(xm_init(&h, 0x1000, 105, 32) == 0);
	CHECK(xm_alloc(&h, 100, 0, &a) == XM_OK);
	CHECK_EQ_U64(h.allocated_bytes, 100);
	CHECK_EQ_U64(h.free_bytes, 5);
	CHECK_EQ_U64(h.nfree, 1);
	xm_destroy(&h);
}

TEST(descriptor_exhaustion_hands_over_the_whole_block)
{
	uint64_t a, b;

	REQUIRE(xm_init(&h, 0, 1000, 2) == 0);
	CHECK(xm_alloc(&h, 16, 1, &a) == XM_OK);	/* split: 2 descriptors */
	CHECK(xm_alloc(&h, 16, 1, &b) == XM_OK);	/* none left: whole tail */
	CHECK_EQ_U64(b, 16);
	CHECK_EQ_U64(h.split_refused, 1);
	CHECK_EQ_U64(h.free_bytes, 0);
	CHECK_EQ_U64(h.allocated_bytes, 1000);
	CHECK(xm_alloc(&h, 1, 1, &b) == XM_ALLOC_FAILED);
	xm_destroy(&h);
}

TEST(status_codes_and_their_order)
{
	uint64_t a = 7;

	REQUIRE(xm_init(&h, 0x1000, 0x1000, 32) == 0);
	CHECK(xm_alloc(&h, 0, 3, &a) == XM_ILLEGAL_ALIGN);	/* align first */
	CHECK(xm_alloc(&h, 0, 0, &a) == XM_INVALID_ARGS);
	CHECK(xm_alloc(&h, 0x1001, 1, &a) == XM_ALLOC_FAILED);
	CHECK(xm_alloc(&h, UINT64_MAX, 64, &a) == XM_ALLOC_FAILED);
	CHECK(xm_alloc(&h, 1, 1ULL << 63, &a) == XM_ALLOC_FAILED);
	CHECK_EQ_U64(a, 7);
	CHECK(xm_free(&h, 0x1000) == XM_PTR_OUT_OF_BOUNDS);
	xm_destroy(&h);
}

TEST(free_matches_the_aligned_address_not_the_block_start)
{
	uint64_t a;

	REQUIRE(xm_init(&h, 0x1001, 0x1000, 32) == 0);
	REQUIRE(xm_alloc(&h, 8, 16, &a) == XM_OK);
	CHECK_EQ_U64(a, 0x1010);
	CHECK(xm_free(&h, 0x1001) == XM_PTR_OUT_OF_BOUNDS);
	CHECK(xm_free(&h, a) == XM_OK);
	CHECK(xm_free(&h, a) == XM_PTR_OUT_OF_BOUNDS);	/* double free */
	xm_destroy(&h);
}

TEST(coalescing_left_right_both_and_none)
{
	uint64_t p[4];
	int i;

	REQUIRE(xm_init(&h, 0, 400, 32) == 0);
	for (i = 0; i < 4; i++)
		REQUIRE(xm_alloc(&h, 100, 1, &p[i]) == XM_OK);
	CHECK_EQ_U64(h.nfree, 0);		/* 4 x 100 fills it exactly */
	CHECK(xm_free(&h, p[1]) == XM_OK);	/* isolated */
	CHECK_EQ_U64(h.nfree, 1);
	CHECK(xm_free(&h, p[3]) == XM_OK);	/* isolated */
	CHECK_EQ_U64(h.nfree, 2);
	CHECK(xm_free(&h, p[2]) == XM_OK);	/* both neighbours */
	CHECK_EQ_U64(h.nfree, 1);
	CHECK_EQ_U64(h.free_b[0].buf, 100);
	CHECK_EQ_U64(h.free_b[0].size, 300);
	CHECK(xm_free(&h, p[0]) == XM_OK);	/* right neighbour */
	CHECK_EQ_U64(h.nfree, 1);
	CHECK_EQ_U64(h.free_b[0].size, 400);
	CHECK_EQ_U64(dump_count(), 1);
	xm_destroy(&h);
}

TEST(freeing_everything_returns_one_block_and_zero_unused)
{
	uint64_t p[20];
	int i;

	REQUIRE(xm_init(&h, 0x10003, 1 << 16, 32) == 0);
	for (i = 0; i < 20; i++)
		REQUIRE(xm_alloc(&h, 37 * (i + 1), 1u << (i % 9), &p[i]) == XM_OK);
	CHECK(h.unused_bytes > 0);
	for (i = 0; i < 20; i += 2)
		CHECK(xm_free(&h, p[i]) == XM_OK);
	for (i = 19; i > 0; i -= 2)
		CHECK(xm_free(&h, p[i]) == XM_OK);
	CHECK_EQ_U64(h.unused_bytes, 0);
	CHECK_EQ_U64(h.nfree, 1);
	CHECK_EQ_U64(h.free_b[0].size, 1 << 16);
	CHECK_EQ_U64(h.free_bytes, 1 << 16);
	xm_destroy(&h);
}

int main(void)
{
	return tap_run();
}
