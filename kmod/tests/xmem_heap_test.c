// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the xmem heap (kmod/xmem_heap.c): the seed's behaviour
 * case by case, its boundaries and overflows, and long seeded random runs
 * that drive the tree heap and the list (reference) heap side by side.
 *
 * The random runs print their seed; rerun one with
 * xmemsim.heap_test_seed=N on the kernel command line (or as a module
 * parameter when xmemsim is a module).
 */

#include <kunit/test.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "suite.h"
#include "../compat.h"
#include "../xmem_heap.h"

static unsigned long long heap_test_seed = 0x5eedc0de;
module_param(heap_test_seed, ullong, 0444);
MODULE_PARM_DESC(heap_test_seed, "base seed of the xmem heap random KUnit runs");

#define B	0x10000ULL	/* 4 KiB-aligned base of most test pools */
#define P	0x4000ULL	/* the dataram pool size, 16 KiB */
#define B_ODD	(B + 0x228)	/* the HBM pool offset: not 64-aligned */
#define TOP	BIT_ULL(63)
#define MAX_HEAPS 4

/*
 * The heaps the tests make: a mode and a list_max. "tree" always uses its
 * trees (list_max 0), "list" is the seed's walk alone, "adaptive" is the
 * shipped TREE heap (the lists up to XMEM_HEAP_TREE_LIST_MAX blocks) and
 * "adaptive_4" switches between lists and trees every few blocks.
 */
struct heap_kind {
	const char *name;
	enum xmem_heap_mode mode;
	u32 list_max;
};

static const struct heap_kind K_TREE = { "tree", XMEM_HEAP_TREE, 0 };
static const struct heap_kind K_LIST = { "list", XMEM_HEAP_LIST, 0 };
static const struct heap_kind K_ADAPTIVE = {
	"adaptive", XMEM_HEAP_TREE, XMEM_HEAP_TREE_LIST_MAX
};

static const struct heap_kind K_ADAPTIVE_4 = { "adaptive_4", XMEM_HEAP_TREE, 4 };

static const struct heap_kind all_kinds[] = {
	K_TREE, K_LIST, K_ADAPTIVE, K_ADAPTIVE_4,
};

static void kind_desc(const struct heap_kind *k, char *desc)
{
	strscpy(desc, k->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xh_mode, all_kinds, kind_desc);

struct xh_ctx {
	struct xmem_heap heaps[MAX_HEAPS];
	int n;
};

static int xh_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct xh_ctx), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void xh_test_exit(struct kunit *test)
{
	struct xh_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < ctx->n; i++)
		xmem_heap_destroy(&ctx->heaps[i]);
}

/* A suite of the heap's: its cases' heaps made in the xh_ctx of each case */
static const struct heap_kind *param_mode(struct kunit *test)
{
	return test->param_value;
}

/* A heap destroyed by xh_test_exit(), whatever assertion fails. */
static struct xmem_heap *new_heap(struct kunit *test, u64 base, u64 size,
				  u32 num_blocks, const struct heap_kind *k)
{
	struct xh_ctx *ctx = test->priv;
	struct xmem_heap *h;

	KUNIT_ASSERT_LT(test, ctx->n, MAX_HEAPS);
	h = &ctx->heaps[ctx->n];
	KUNIT_ASSERT_EQ(test, xmem_heap_init(h, base, size, num_blocks, k->mode),
			0);
	ctx->n++;
	if (k->mode == XMEM_HEAP_TREE && k->list_max != h->list_max) {
		h->list_max = k->list_max;
		KUNIT_ASSERT_EQ(test, xmem_heap_set_mode(h, k->mode), 0);
		if (!k->list_max)
			KUNIT_ASSERT_TRUE(test, h->trees_on && !h->lists_on);
	}
	return h;
}

static void drop_heap(struct kunit *test, struct xmem_heap *h)
{
	struct xh_ctx *ctx = test->priv;

	KUNIT_ASSERT_PTR_EQ(test, h, &ctx->heaps[ctx->n - 1]);
	xmem_heap_destroy(h);
	ctx->n--;
}

static void check_heap(struct kunit *test, struct xmem_heap *h)
{
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), 0);
}

static u64 alloc_ok(struct kunit *test, struct xmem_heap *h, u64 size,
		    u64 align, u64 *end)
{
	u64 addr = 0, e = 0;

	KUNIT_ASSERT_EQ_MSG(test, xmem_heap_alloc(h, size, align, &addr, &e),
			    XMEM_OK, "alloc(%llu, %llu)", size, align);
	if (end)
		*end = e;
	return addr;
}

static void stats(struct xmem_heap *h, struct xmem_heap_stats *st)
{
	xmem_heap_get_stats(h, st);
}

static bool stats_equal(const struct xmem_heap_stats *a,
			const struct xmem_heap_stats *b)
{
	return a->pool_size == b->pool_size &&
	       a->free_bytes == b->free_bytes &&
	       a->allocated_bytes == b->allocated_bytes &&
	       a->unused_bytes == b->unused_bytes &&
	       a->largest_free == b->largest_free &&
	       a->split_refused == b->split_refused &&
	       a->num_blocks == b->num_blocks &&
	       a->blocks_in_use == b->blocks_in_use &&
	       a->free_blocks == b->free_blocks &&
	       a->alloc_blocks == b->alloc_blocks;
}

static bool info_equal(const struct xmem_heap_block_info *a,
		       const struct xmem_heap_block_info *b)
{
	return a->start == b->start && a->aligned == b->aligned &&
	       a->size == b->size && a->allocated == b->allocated;
}

/* The heap must be exactly one free block spanning the pool. */
static void expect_pristine(struct kunit *test, struct xmem_heap *h)
{
	struct xmem_heap_block_info bi[2] = {};
	struct xmem_heap_stats st;

	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.free_bytes, h->size);
	KUNIT_EXPECT_EQ(test, st.largest_free, h->size);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 1U);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 1U);
	KUNIT_EXPECT_EQ(test, st.alloc_blocks, 0U);
	KUNIT_ASSERT_EQ(test, xmem_heap_dump(h, bi, 2), 1U);
	KUNIT_EXPECT_EQ(test, bi[0].start, h->base);
	KUNIT_EXPECT_EQ(test, bi[0].size, h->size);
	KUNIT_EXPECT_FALSE(test, bi[0].allocated);
	check_heap(test, h);
}

/*
 * The table tests run one case on a fresh heap of each mode; the case must
 * leave the heap as it found it (expect_pristine()), then it is dropped.
 */
typedef void (*xh_case_fn)(struct kunit *test, struct xmem_heap *h,
			   const char *mode, const void *c);

static void run_each_mode(struct kunit *test, u64 base, xh_case_fn fn,
			  const void *c)
{
	struct xmem_heap *h;
	int i;

	for (i = 0; i < ARRAY_SIZE(all_kinds); i++) {
		h = new_heap(test, base, P, 0, &all_kinds[i]);
		fn(test, h, all_kinds[i].name, c);
		expect_pristine(test, h);
		drop_heap(test, h);
	}
}

/* ---- contract: init, argument checks, first fit, slack ---------------- */

static void init_defaults(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;

	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.num_blocks, 32U);
	KUNIT_EXPECT_EQ(test, st.pool_size, P);
	KUNIT_EXPECT_EQ(test, st.split_refused, 0ULL);
	expect_pristine(test, h);
}

static void init_rejects(struct kunit *test)
{
	struct xmem_heap h;

	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, B, 0, 0, XMEM_HEAP_TREE),
			-EINVAL);
	/* The pool end must be representable: base + size <= U64_MAX. */
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, U64_MAX, 1, 0, XMEM_HEAP_TREE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, U64_MAX - 10, 11, 0,
					     XMEM_HEAP_LIST), -EINVAL);
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, 2, U64_MAX, 0, XMEM_HEAP_LIST),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, B, P,
					     XMEM_HEAP_MAX_NUM_BLOCKS + 1,
					     XMEM_HEAP_TREE), -EINVAL);
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, B, P, 0,
					     (enum xmem_heap_mode)7), -EINVAL);
	xmem_heap_destroy(&h);	/* harmless after a failed init */

	/* no third mode ships: the tests compare tree and list themselves */
	KUNIT_EXPECT_EQ(test, xmem_heap_init(&h, B, P, 0,
					     (enum xmem_heap_mode)2), -EINVAL);
	KUNIT_ASSERT_EQ(test, xmem_heap_init(&h, U64_MAX - 10, 10, 0,
					     XMEM_HEAP_LIST), 0);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(&h), 0);
	xmem_heap_destroy(&h);
	xmem_heap_destroy(&h);	/* and twice */
	KUNIT_ASSERT_EQ(test, xmem_heap_init(&h, 0, U64_MAX, 1,
					     XMEM_HEAP_TREE), 0);
	KUNIT_EXPECT_EQ(test, h.num_blocks, 1U);
	xmem_heap_destroy(&h);
}

static void first_fit_lowest(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	u64 a[6];
	int i;

	for (i = 0; i < 6; i++)
		a[i] = alloc_ok(test, h, i == 1 ? 1024 : 256, 64, NULL);
	/* holes: 1024 bytes at a[1], 256 bytes at a[4] */
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[1]), XMEM_OK);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[4]), XMEM_OK);
	/* first fit, not best fit: the 1024 hole, though 256 fits exactly */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 256, 64, NULL), a[1]);
	/* the lowest fit again: the rest of the first hole */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 512, 64, NULL), a[1] + 256);
	/* 512 no longer fits below a[4]: 256 left at a[1] + 768 */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 512, 64, NULL),
			a[5] + 256);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 200, 64, NULL), a[1] + 768);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 200, 64, NULL), a[4]);
	check_heap(test, h);
}

static void slack_per_candidate(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 a0, a1, end, tail;

	a0 = alloc_ok(test, h, 8, 1, NULL);
	a1 = alloc_ok(test, h, 4096, 1, NULL);
	alloc_ok(test, h, 8, 1, &tail);
	KUNIT_ASSERT_EQ(test, a0, B);
	KUNIT_ASSERT_EQ(test, a1, B + 8);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a1), XMEM_OK);
	/*
	 * The 4096-byte hole at B + 8 is big enough on size alone, but its
	 * slack to a 4096 boundary is 4088: the walk moves on to the tail.
	 */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 4000, 4096, NULL),
			round_up(tail, 4096));
	/* 8 bytes fit the hole exactly once aligned: slack 4088 + 8. */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 8, 4096, &end), B + 4096);
	KUNIT_EXPECT_EQ(test, end, B + 8 + 4096);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.unused_bytes,
			4088ULL + round_up(tail, 4096) - tail);
	check_heap(test, h);
}

static void slack_stays_with_block(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	struct xmem_heap_block_info bi[3] = {};
	struct xmem_heap_stats st;
	u64 addr, end;

	addr = alloc_ok(test, h, 16, 64, &end);
	KUNIT_EXPECT_EQ(test, addr, B + 0x240);	/* align_up(B + 0x228) */
	KUNIT_EXPECT_EQ(test, end, addr + 16);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0x18ULL);
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, 0x28ULL);
	KUNIT_EXPECT_EQ(test, st.free_bytes, P - 0x28);
	KUNIT_ASSERT_EQ(test, xmem_heap_dump(h, bi, 3), 2U);
	KUNIT_EXPECT_EQ(test, bi[0].start, B_ODD);
	KUNIT_EXPECT_EQ(test, bi[0].aligned, addr);
	KUNIT_EXPECT_EQ(test, bi[0].size, 0x28ULL);
	KUNIT_EXPECT_TRUE(test, bi[0].allocated);
	/* the remainder starts right after the user bytes, not aligned */
	KUNIT_EXPECT_EQ(test, bi[1].start, addr + 16);
	KUNIT_EXPECT_EQ(test, bi[1].aligned, addr + 16);
	KUNIT_EXPECT_FALSE(test, bi[1].allocated);
	check_heap(test, h);
}

static void align_zero_is_64(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B + 1, P, 0, param_mode(test));
	u64 a, b;

	a = alloc_ok(test, h, 8, 0, NULL);
	b = alloc_ok(test, h, 8, 0, NULL);
	KUNIT_EXPECT_EQ(test, a, B + 64);
	KUNIT_EXPECT_EQ(test, b, B + 128);	/* from B + 72, slack 56 */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 8, 64, NULL), B + 192);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 8, 1, NULL), B + 200);
	check_heap(test, h);
}

static const u64 illegal_aligns[] = {
	3, 5, 6, 12, 0x30, 0x1001, TOP + 1, TOP | (TOP >> 1), U64_MAX,
};

static void illegal_align_desc(const u64 *a, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "align=%#llx", *a);
}

KUNIT_ARRAY_PARAM(illegal_align, illegal_aligns, illegal_align_desc);

static void illegal_align_case(struct kunit *test, struct xmem_heap *h,
			       const char *mode, const void *c)
{
	u64 align = *(const u64 *)c, addr = 7, end = 9;
	struct xmem_heap_stats before, after;

	stats(h, &before);
	KUNIT_EXPECT_EQ_MSG(test, xmem_heap_alloc(h, 8, align, &addr, &end),
			    XMEM_ERR_ILLEGAL_ALIGN, "mode %s", mode);
	/* the alignment is checked before the size */
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0, align, &addr, &end),
			XMEM_ERR_ILLEGAL_ALIGN);
	stats(h, &after);
	KUNIT_EXPECT_TRUE(test, stats_equal(&before, &after));
	KUNIT_EXPECT_EQ(test, addr, 7ULL);	/* outputs untouched */
	KUNIT_EXPECT_EQ(test, end, 9ULL);
	check_heap(test, h);
}

static void illegal_align(struct kunit *test)
{
	run_each_mode(test, B, illegal_align_case, test->param_value);
}

static void size_zero(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	u64 addr = 7;

	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0, 0, &addr, NULL),
			XMEM_ERR_INVALID_ARGS);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0, 1, &addr, NULL),
			XMEM_ERR_INVALID_ARGS);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0, TOP, &addr, NULL),
			XMEM_ERR_INVALID_ARGS);
	KUNIT_EXPECT_EQ(test, addr, 7ULL);
	expect_pristine(test, h);
}

static void no_fit_leaves_heap(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_block_info d1[8], d2[8];
	struct xmem_heap_stats before, after;
	u64 a, addr = 7;
	u32 n, i;

	a = alloc_ok(test, h, 4096, 64, NULL);
	alloc_ok(test, h, 4096, 64, NULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	/* 4096 + 8192 free, but no single block of 8193 */
	stats(h, &before);
	n = xmem_heap_dump(h, d1, 8);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 8193, 1, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 8192, 2, &addr, NULL),
			XMEM_OK);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, addr), XMEM_OK);
	/* fits on size, not once aligned to 128 KiB */
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 4096, 0x20000, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	stats(h, &after);
	KUNIT_EXPECT_TRUE(test, stats_equal(&before, &after));
	KUNIT_ASSERT_EQ(test, xmem_heap_dump(h, d2, 8), n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, info_equal(&d1[i], &d2[i]));
	check_heap(test, h);
}

static void stats_track_blocks(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 a[4];
	int i;

	for (i = 0; i < 4; i++)
		a[i] = alloc_ok(test, h, 1024 << i, 64, NULL);
	/* 1 KiB + 2 KiB + 4 KiB + 8 KiB = 15 KiB used, 1 KiB tail */
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[2]), XMEM_OK);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[0]), XMEM_OK);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.largest_free, 4096ULL);
	KUNIT_EXPECT_EQ(test, st.free_bytes, 1024ULL + 4096 + 1024);
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, 2048ULL + 8192);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 3U);
	KUNIT_EXPECT_EQ(test, st.alloc_blocks, 2U);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 5U);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[1]), XMEM_OK);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.largest_free, 7168ULL);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 2U);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 3U);
	check_heap(test, h);
}

static void dump_order_and_truncation(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_block_info bi[8];
	u64 a[5], at;
	u32 n, i;

	for (i = 0; i < 5; i++)
		a[i] = alloc_ok(test, h, 100 + i, 1 << i, NULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[1]), XMEM_OK);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[3]), XMEM_OK);
	memset(bi, 0xa5, sizeof(bi));
	KUNIT_ASSERT_EQ(test, xmem_heap_dump(h, bi, 2), 6U);
	KUNIT_EXPECT_EQ(test, bi[2].start, 0xa5a5a5a5a5a5a5a5ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_dump(h, NULL, 0), 6U);
	n = xmem_heap_dump(h, bi, 8);
	KUNIT_ASSERT_EQ(test, n, 6U);
	/* contiguous, address order, alternating alloc/free as built */
	for (at = B, i = 0; i < n; at += bi[i].size, i++) {
		KUNIT_EXPECT_EQ(test, bi[i].start, at);
		KUNIT_EXPECT_EQ(test, bi[i].allocated, i % 2 == 0);
	}
	KUNIT_EXPECT_EQ(test, at, B + P);
	KUNIT_EXPECT_EQ(test, bi[0].aligned, a[0]);
	KUNIT_EXPECT_EQ(test, bi[2].aligned, a[2]);
	KUNIT_EXPECT_EQ(test, bi[4].aligned, a[4]);
	check_heap(test, h);
}

static void verify_detects_corruption(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	u64 a;

	a = alloc_ok(test, h, 100, 64, NULL);
	alloc_ok(test, h, 100, 64, NULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	alloc_ok(test, h, 10, 16, NULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_verify(h), 0);

	h->unused_bytes++;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	h->unused_bytes--;
	h->free_bytes -= 4;
	h->allocated_bytes += 4;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	h->free_bytes += 4;
	h->allocated_bytes -= 4;
	h->blocks_in_use--;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	h->blocks_in_use++;
	h->free_count++;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	h->free_count--;
	/* a spare descriptor marked used: the bitmap no longer adds up */
	__clear_bit(h->num_blocks - 1, h->free_bitmap);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	__set_bit(h->num_blocks - 1, h->free_bitmap);
	/* a live descriptor marked spare */
	__set_bit(0, h->free_bitmap);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	__clear_bit(0, h->free_bitmap);
	/* the per-word summary of spare descriptors */
	__clear_bit(0, h->spare_words);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	__set_bit(0, h->spare_words);
	/* a spare bit past the end of the pool of descriptors */
	__set_bit(h->num_blocks, h->free_bitmap);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	__clear_bit(h->num_blocks, h->free_bitmap);
	h->size++;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), -EUCLEAN);
	h->size--;
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), 0);
}

/*
 * A heap that changes structures every few blocks (lists up to 4, trees
 * above 8) gives the seed's walk's results through every switch.
 */
static void adaptive_switches_keep_results(struct kunit *test)
{
	struct xmem_heap *l = new_heap(test, B, P, 0, &K_LIST);
	struct xmem_heap *a = new_heap(test, B, P, 0, &K_ADAPTIVE_4);
	u64 la[24], aa[24];
	u32 i, round, switches = 0;
	bool trees = a->trees_on;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < 24; i++) {
			la[i] = alloc_ok(test, l, 64 + 32 * (i % 5), 64, NULL);
			aa[i] = alloc_ok(test, a, 64 + 32 * (i % 5), 64, NULL);
			KUNIT_EXPECT_EQ(test, aa[i], la[i]);
			switches += a->trees_on != trees;
			trees = a->trees_on;
		}
		/* every other block first, so that holes form, then the rest */
		for (i = 0; i < 24; i++) {
			u32 k = i < 12 ? 2 * i + round % 2 : 2 * (i - 12) + 1 - round % 2;

			KUNIT_EXPECT_EQ(test, xmem_heap_free(a, aa[k]),
					xmem_heap_free(l, la[k]));
			switches += a->trees_on != trees;
			trees = a->trees_on;
		}
		check_heap(test, l);
		check_heap(test, a);
		KUNIT_EXPECT_EQ(test, a->blocks_in_use, 1U);
	}
	KUNIT_EXPECT_GE(test, switches, 6U);
}

/*
 * One allocation on a fresh heap at base: sizes around the pool's and the
 * split rule's edges (at B), alignments around the pool's odd offset (at
 * B_ODD, where the slack before the aligned address is unused_bytes).
 */
struct bound_case {
	u64 base, size, align;
	int status;
	u64 addr, span;		/* on success: block [addr, addr + span) */
	u32 free_blocks;	/* after it */
};

#define SIZE_OK(sz, e, fb)	{ B, sz, 1, XMEM_OK, B, e, fb }
#define SIZE_FAILS(sz)		{ B, sz, 1, XMEM_ERR_ALLOC_FAILED, 0, 0, 1 }
#define ALIGN_OK(al, a)		{ B_ODD, 16, al, XMEM_OK, a, 16, 1 }
#define ALIGN_FAILS(al, st)	{ B_ODD, 16, al, st, 0, 0, 1 }

static const struct bound_case bound_cases[] = {
	SIZE_OK(1, 1, 1),
	SIZE_OK(4, 4, 1),
	SIZE_OK(5, 5, 1),
	SIZE_OK(P - 5, P - 5, 1),	/* remainder 5: split */
	SIZE_OK(P - 4, P, 0),		/* remainder 4: whole block */
	SIZE_OK(P - 1, P, 0),
	SIZE_OK(P, P, 0),
	SIZE_FAILS(P + 1),
	SIZE_FAILS(TOP),
	SIZE_FAILS(U64_MAX - 1),
	SIZE_FAILS(U64_MAX),
	ALIGN_OK(0, B + 0x240),
	ALIGN_OK(1, B_ODD),
	ALIGN_OK(2, B_ODD),
	ALIGN_FAILS(3, XMEM_ERR_ILLEGAL_ALIGN),
	ALIGN_OK(8, B_ODD),
	ALIGN_OK(16, B + 0x230),
	ALIGN_OK(64, B + 0x240),
	ALIGN_OK(4096, B + 0x1000),
	ALIGN_OK(0x4000, B + 0x4000),
	ALIGN_FAILS(0x10000, XMEM_ERR_ALLOC_FAILED),	/* B + 0x228 .. B + 0x4228 */
	ALIGN_FAILS(1ULL << 62, XMEM_ERR_ALLOC_FAILED),
	ALIGN_FAILS(TOP, XMEM_ERR_ALLOC_FAILED),
};

static void bound_case_desc(const struct bound_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size=%#llx align=%#llx",
		 c->size, c->align);
}

KUNIT_ARRAY_PARAM(bound_table, bound_cases, bound_case_desc);

static void bound_case_run(struct kunit *test, struct xmem_heap *h,
			   const char *mode, const void *arg)
{
	const struct bound_case *c = arg;
	struct xmem_heap_stats st;
	u64 addr = 7, end = 9;

	KUNIT_ASSERT_EQ_MSG(test, xmem_heap_alloc(h, c->size, c->align, &addr, &end),
			    c->status, "mode %s", mode);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.free_blocks, c->free_blocks);
	check_heap(test, h);
	if (c->status != XMEM_OK) {
		KUNIT_EXPECT_EQ(test, addr, 7ULL);
		KUNIT_EXPECT_EQ(test, end, 9ULL);
		KUNIT_EXPECT_EQ(test, st.allocated_bytes, 0ULL);
		return;
	}
	KUNIT_EXPECT_EQ(test, addr, c->addr);
	KUNIT_EXPECT_EQ(test, end, c->addr + c->span);
	/* the block runs from the base: the slack before addr is unused */
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, end - c->base);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, c->addr - c->base);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, addr), XMEM_OK);
}

static void alloc_boundaries(struct kunit *test)
{
	const struct bound_case *c = test->param_value;

	run_each_mode(test, c->base, bound_case_run, c);
}

/* ---- split and descriptors -------------------------------------------- */

/* The heap's free blocks and descriptors in use are as expected. */
static void expect_blocks(struct kunit *test, struct xmem_heap *h,
			  u32 free_blocks, u32 blocks_in_use)
{
	struct xmem_heap_stats st;

	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.free_blocks, free_blocks);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, blocks_in_use);
}

/* A heap of n blocks of 64 bytes from B, the free tail after them. */
static struct xmem_heap *heap_of_64s(struct kunit *test, int n)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	int i;

	for (i = 0; i < n; i++)
		alloc_ok(test, h, 64, 64, NULL);
	return h;
}

static void split_remainder_4(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 a, hole, end;

	a = alloc_ok(test, h, 4096, 1, NULL);
	hole = alloc_ok(test, h, 100, 1, NULL);
	alloc_ok(test, h, 8, 1, NULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, hole), XMEM_OK);
	/* a hole of 100 at B + 4096 */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 8, 1, NULL), B + 4096);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 88, 1, &end), B + 4104);
	KUNIT_EXPECT_EQ(test, end, B + 4196);	/* 4 left over: taken too */
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 0ULL);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, 4096ULL + 8 + 8 + 92);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 1U);
	KUNIT_EXPECT_EQ(test, a, B);
	check_heap(test, h);
}

static void split_remainder_5(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 addr, end;

	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, P - 5, 1, &end), B);
	KUNIT_EXPECT_EQ(test, end, B + P - 5);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 1U);
	KUNIT_EXPECT_EQ(test, st.free_bytes, 5ULL);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 2U);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 1, 1, &end), B + P - 5);
	KUNIT_EXPECT_EQ(test, end, B + P);	/* remainder 4: no split */
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 1, 1, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	check_heap(test, h);
}

/* The remainder is measured after the slack. */
static void split_remainder_after_slack(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 addr, end;

	addr = alloc_ok(test, h, P - 0x18 - 4, 64, &end);
	KUNIT_EXPECT_EQ(test, addr, B + 0x240);
	KUNIT_EXPECT_EQ(test, end, B_ODD + P);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, addr), XMEM_OK);
	addr = alloc_ok(test, h, P - 0x18 - 5, 64, &end);
	KUNIT_EXPECT_EQ(test, end, B_ODD + P - 5);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.free_bytes, 5ULL);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0x18ULL);
	check_heap(test, h);
}

static void exhaustion_at_32(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 addr, end;
	int i;

	for (i = 0; i < 31; i++) {
		KUNIT_ASSERT_EQ(test, alloc_ok(test, h, 64, 64, &end),
				B + 64 * i);
		KUNIT_ASSERT_EQ(test, end, B + 64 * (i + 1));
		stats(h, &st);
		KUNIT_ASSERT_EQ(test, st.blocks_in_use, i + 2U);
	}
	KUNIT_EXPECT_EQ(test, st.split_refused, 0ULL);
	/* descriptor 32 is the free tail: the 32nd gets all of it */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 64, 64, &end), B + 64 * 31);
	KUNIT_EXPECT_EQ(test, end, B + P);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 1ULL);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 32U);
	KUNIT_EXPECT_EQ(test, st.free_blocks, 0U);
	KUNIT_EXPECT_EQ(test, st.free_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.largest_free, 0ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 1, 1, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	check_heap(test, h);
	/* freeing the big last block returns the space, no descriptor */
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, B + 64 * 31), XMEM_OK);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.blocks_in_use, 32U);
	KUNIT_EXPECT_EQ(test, st.largest_free, P - 64 * 31);
	check_heap(test, h);
}

static void exhaustion_mid_heap(struct kunit *test)
{
	struct xmem_heap *h = heap_of_64s(test, 31);
	struct xmem_heap_stats st;
	u64 end;

	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, B + 64 * 2), XMEM_OK);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, B + 64 * 4), XMEM_OK);
	stats(h, &st);
	KUNIT_ASSERT_EQ(test, st.blocks_in_use, 32U);
	/* 8 bytes in a 64-byte hole: 56 left, no descriptor to keep it */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 8, 8, &end), B + 128);
	KUNIT_EXPECT_EQ(test, end, B + 192);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 1ULL);
	KUNIT_EXPECT_EQ(test, st.allocated_bytes, 64ULL * 30);
	/* a remainder of 4 is not a refusal */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 60, 4, &end), B + 256);
	KUNIT_EXPECT_EQ(test, end, B + 320);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 1ULL);
	check_heap(test, h);
}

static void exhaustion_recovers(struct kunit *test)
{
	struct xmem_heap *h = heap_of_64s(test, 32);
	struct xmem_heap_stats st;
	u64 end;
	int i;

	/* free 1, 2, 3: one merged block of 192, two descriptors back */
	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, xmem_heap_free(h, B + 64 * i), XMEM_OK);
	expect_blocks(test, h, 1, 30);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 16, 16, &end), B + 64);
	KUNIT_EXPECT_EQ(test, end, B + 80);	/* split again */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 16, 16, &end), B + 80);
	KUNIT_EXPECT_EQ(test, end, B + 96);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 16, 16, &end), B + 96);
	KUNIT_EXPECT_EQ(test, end, B + 256);	/* out again */
	expect_blocks(test, h, 0, 32);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 2ULL);
	check_heap(test, h);
}

static void one_descriptor(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 1, param_mode(test));
	struct xmem_heap_stats st;
	u64 a, addr, end;

	a = alloc_ok(test, h, 1, 1, &end);
	KUNIT_EXPECT_EQ(test, a, B);
	KUNIT_EXPECT_EQ(test, end, B + P);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.split_refused, 1ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 1, 1, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	expect_pristine(test, h);
}

/* ---- free and coalescing ---------------------------------------------- */

static void free_unknown(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));
	struct xmem_heap_stats before, after;
	u64 a;

	a = alloc_ok(test, h, 256, 64, NULL);
	alloc_ok(test, h, 256, 64, NULL);
	stats(h, &before);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, 0), XMEM_ERR_PTR_OUT_OF_BOUNDS);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, B + P + 64),
			XMEM_ERR_PTR_OUT_OF_BOUNDS);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, a + 1),
			XMEM_ERR_PTR_OUT_OF_BOUNDS);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, B + 512),	/* free tail */
			XMEM_ERR_PTR_OUT_OF_BOUNDS);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, U64_MAX),
			XMEM_ERR_PTR_OUT_OF_BOUNDS);
	stats(h, &after);
	KUNIT_EXPECT_TRUE(test, stats_equal(&before, &after));
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, a), XMEM_ERR_PTR_OUT_OF_BOUNDS);
	check_heap(test, h);
}

static void free_raw_start(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	u64 a;

	a = alloc_ok(test, h, 16, 64, NULL);
	KUNIT_ASSERT_EQ(test, a, B + 0x240);
	/* the block starts at B_ODD, but only the aligned address frees it */
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, B_ODD),
			XMEM_ERR_PTR_OUT_OF_BOUNDS);
	check_heap(test, h);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	expect_pristine(test, h);
}

/* a[0..3] of 256 bytes each, then a[4] keeps the tail apart */
static void five_blocks(struct kunit *test, struct xmem_heap *h, u64 *a)
{
	int i;

	for (i = 0; i < 5; i++)
		a[i] = alloc_ok(test, h, 256, 64, NULL);
}

static void expect_free_block(struct kunit *test, struct xmem_heap *h,
			      u64 start, u64 size)
{
	struct xmem_heap_block_info bi[16];
	u32 n, i;

	n = xmem_heap_dump(h, bi, 16);
	for (i = 0; i < n && i < 16; i++)
		if (bi[i].start == start)
			break;
	KUNIT_ASSERT_LT_MSG(test, i, n, "no block at %#llx", start);
	KUNIT_EXPECT_FALSE(test, bi[i].allocated);
	KUNIT_EXPECT_EQ(test, bi[i].size, size);
}

/* The coalescing cases' start: five_blocks(), then a[i] and a[j] freed. */
static struct xmem_heap *five_free_two(struct kunit *test, u64 *a, int i,
				       int j)
{
	struct xmem_heap *h = new_heap(test, B, P, 0, param_mode(test));

	five_blocks(test, h, a);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[i]), XMEM_OK);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[j]), XMEM_OK);
	return h;
}

static void coalesce_left(struct kunit *test)
{
	u64 a[5];
	struct xmem_heap *h = five_free_two(test, a, 1, 2);

	expect_free_block(test, h, a[1], 512);
	expect_blocks(test, h, 2, 5);	/* 6 - 1 */
	check_heap(test, h);
}

static void coalesce_right(struct kunit *test)
{
	u64 a[5];
	struct xmem_heap *h = five_free_two(test, a, 2, 1);

	expect_free_block(test, h, a[1], 512);
	expect_blocks(test, h, 2, 5);
	/* the merged block is found by first fit at its new start */
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 512, 64, NULL), a[1]);
	check_heap(test, h);
}

static void coalesce_both(struct kunit *test)
{
	u64 a[5];
	struct xmem_heap *h = five_free_two(test, a, 1, 3);
	struct xmem_heap_stats st;

	expect_blocks(test, h, 3, 6);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[2]), XMEM_OK);
	expect_free_block(test, h, a[1], 768);
	expect_blocks(test, h, 2, 4);	/* two given back */
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.largest_free, P - 5 * 256);
	check_heap(test, h);
}

static void coalesce_none(struct kunit *test)
{
	u64 a[5];
	struct xmem_heap *h = five_free_two(test, a, 0, 2);

	expect_free_block(test, h, a[0], 256);
	expect_free_block(test, h, a[2], 256);
	expect_blocks(test, h, 3, 6);
	/* the last block merges into the free tail */
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[4]), XMEM_OK);
	expect_free_block(test, h, a[4], P - 4 * 256);
	check_heap(test, h);
}

/* docs/seed-behaviour.md A.1: freeing gives back the slack, not twice it. */
static void unused_bytes_erratum(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	struct xmem_heap_stats st;
	u64 a, b;

	a = alloc_ok(test, h, 16, 64, NULL);	/* slack 0x18 */
	b = alloc_ok(test, h, 16, 4096, NULL);	/* slack 0x1000 - 0x250 */
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0x18ULL + 0xdb0);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a), XMEM_OK);
	stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.unused_bytes, 0xdb0ULL);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, b), XMEM_OK);
	expect_pristine(test, h);
}

static u64 rng_next(u64 *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static u64 rng_below(u64 *s, u64 n)
{
	return n ? rng_next(s) % n : 0;
}

static u64 test_seed(struct kunit *test, u64 salt)
{
	u64 seed = heap_test_seed ^ salt;

	kunit_info(test, "seed %llu (xmemsim.heap_test_seed=%llu)\n", seed,
		   heap_test_seed);
	return seed ? seed : 1;
}

static void free_all_restores(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	static const u64 aligns[] = { 0, 1, 8, 64, 256, 1024, 4096 };
	u64 a[31], s = test_seed(test, 0xf1ee), t, addr;
	int n = 0, tries, i, j;

	for (tries = 0; tries < 200 && n < 31; tries++) {
		if (xmem_heap_alloc(h, 1 + rng_below(&s, 300),
				    aligns[rng_below(&s, ARRAY_SIZE(aligns))],
				    &addr, NULL) == XMEM_OK)
			a[n++] = addr;
	}
	KUNIT_ASSERT_GT(test, n, 8);
	KUNIT_EXPECT_GT(test, h->unused_bytes, 0ULL);
	check_heap(test, h);
	for (i = n - 1; i > 0; i--) {	/* shuffle */
		j = rng_below(&s, i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[i]), XMEM_OK);
		check_heap(test, h);
	}
	expect_pristine(test, h);
}

/* ---- overflow ----------------------------------------------------------- */

static void huge_size_no_wrap(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B_ODD, P, 0, param_mode(test));
	u64 addr = 7;

	/* slack 0x18 at align 64: size + slack wraps to 0 and to 8 */
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0 - 0x18ULL, 64, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0 - 0x10ULL, 64, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, U64_MAX, 1, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, U64_MAX, TOP, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	/* slack 2^62 - B_ODD: slack + size wraps to 2^62 */
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, TOP + (TOP >> 1) + B_ODD,
					      1ULL << 62, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, addr, 7ULL);
	expect_pristine(test, h);
}

/* A pool whose last byte is U64_MAX - 1: aligned addresses may not wrap. */
static void top_of_address_space(struct kunit *test)
{
	u64 base = U64_MAX - 0x1000, addr = 7, end;
	struct xmem_heap *h = new_heap(test, base, 0x1000, 0, param_mode(test));

	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 1, TOP, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 0x1000, 4096, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 2, 0x2000, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, addr, 7ULL);
	addr = alloc_ok(test, h, 0xfff, 4096, &end);
	KUNIT_EXPECT_EQ(test, addr, U64_MAX - 0xfff);
	KUNIT_EXPECT_EQ(test, end, U64_MAX);
	KUNIT_EXPECT_EQ(test, h->unused_bytes, 1ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, addr), XMEM_OK);
	addr = alloc_ok(test, h, 0x1000, 1, &end);
	KUNIT_EXPECT_EQ(test, addr, base);
	KUNIT_EXPECT_EQ(test, end, U64_MAX);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, addr), XMEM_OK);
	expect_pristine(test, h);
}

static void align_2_63(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, TOP - 0x100, 0x1000, 0,
				       param_mode(test));
	struct xmem_heap *z;
	u64 addr, end;

	addr = alloc_ok(test, h, 16, TOP, &end);
	KUNIT_EXPECT_EQ(test, addr, TOP);
	KUNIT_EXPECT_EQ(test, end, TOP + 16);
	KUNIT_EXPECT_EQ(test, h->unused_bytes, 0x100ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(h, 16, TOP, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(h, TOP), XMEM_OK);
	expect_pristine(test, h);

	/* a pool at 0: address 0 is a real address, aligned to anything */
	z = new_heap(test, 0, P, 0, param_mode(test));
	KUNIT_EXPECT_EQ(test, alloc_ok(test, z, 16, TOP, NULL), 0ULL);
	KUNIT_EXPECT_EQ(test, xmem_heap_alloc(z, 16, TOP, &addr, NULL),
			XMEM_ERR_ALLOC_FAILED);
	KUNIT_EXPECT_EQ(test, xmem_heap_free(z, 0), XMEM_OK);
	expect_pristine(test, z);
}

/* ---- tree search -------------------------------------------------------- */

/*
 * n free holes of 100 bytes, each starting 1 past a 64-byte boundary, then
 * the free tail: 90 bytes aligned to 64 pass the size filter in every hole
 * and fit in none, the worst case of the tree search.
 */
static void tree_skips_misaligned(struct kunit *test)
{
	const u32 n = 500;
	struct xmem_heap *h[2];
	u64 res[2][3], tail = 0;
	int m;
	u32 i;

	for (m = 0; m < 2; m++) {
		h[m] = new_heap(test, B + 1, 1 << 20, 2 * n + 8,
				m ? &K_LIST : &K_TREE);
		for (i = 0; i < n; i++) {
			KUNIT_ASSERT_EQ(test, alloc_ok(test, h[m], 100, 1, NULL),
					B + 1 + 128 * i);
			alloc_ok(test, h[m], 28, 1, &tail);
		}
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test, xmem_heap_free(h[m],
							     B + 1 + 128 * i),
					XMEM_OK);
		res[m][0] = alloc_ok(test, h[m], 90, 64, NULL);
		res[m][1] = alloc_ok(test, h[m], 90, 1, NULL);
		res[m][2] = alloc_ok(test, h[m], 36, 64, NULL);
		check_heap(test, h[m]);
	}
	KUNIT_EXPECT_EQ(test, res[0][0], round_up(tail, 64));
	KUNIT_EXPECT_EQ(test, res[0][1], B + 1);
	/* 36 + slack 63 = 99 fits the second hole */
	KUNIT_EXPECT_EQ(test, res[0][2], B + 128 + 64);
	KUNIT_EXPECT_EQ(test, memcmp(res[0], res[1], sizeof(res[0])), 0);
}

/* ---- random: tree against list ------------------------------------------ */

struct rand_cfg {
	u64 base;
	u64 size;
	u32 num_blocks;
	u32 ops;
	u32 verify_every;
	bool checked;		/* also run a heap switching every few blocks */
	bool align_heavy;	/* big alignments, small blocks */
	u32 list_max;		/* of the adaptive heap, if not the default */
	u32 switch_every;	/* if set, cycle the second heap's mode */
	u64 salt;
};

static u64 rand_size(u64 *s, const struct rand_cfg *c)
{
	u64 avg = max_t(u64, c->size / (2 * c->num_blocks), 8);
	u64 r = rng_below(s, 100);

	if (r < 50)
		return 1 + rng_below(s, 2 * avg);
	if (r < 68)
		return 1 + rng_below(s, 16);
	if (r < 90)
		return 1 + rng_below(s, 4 * avg);
	if (r < 91)
		return 1 + rng_below(s, c->size / 4);
	if (r < 97) {
		static const u64 edges[] = { 0, 1, 2, 3, 4, 5, 6 };

		switch (edges[rng_below(s, ARRAY_SIZE(edges))]) {
		case 0: return c->size - 1;
		case 1: return c->size;
		case 2: return c->size + 1;
		case 3: return U64_MAX;
		case 4: return U64_MAX - rng_below(s, 8192);
		case 5: return TOP;
		default: return 1 + rng_below(s, c->size);
		}
	}
	if (r < 98)
		return 0;
	return 1 + rng_below(s, c->size / 64);
}

static u64 rand_align(u64 *s, const struct rand_cfg *c)
{
	static const u64 normal[] = {
		0, 0, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64, 128, 256, 4096,
		1 << 16, TOP, 3, 24,
	};
	static const u64 heavy[] = {
		0, 1, 64, 256, 1024, 4096, 4096, 8192, 1 << 16, 1 << 20, TOP,
	};

	if (c->align_heavy)
		return heavy[rng_below(s, ARRAY_SIZE(heavy))];
	return normal[rng_below(s, ARRAY_SIZE(normal))];
}

static void compare_dumps(struct kunit *test, struct xmem_heap *a,
			  struct xmem_heap *b, struct xmem_heap_block_info *da,
			  struct xmem_heap_block_info *db, u32 op)
{
	u32 na = xmem_heap_dump(a, da, a->num_blocks);
	u32 nb = xmem_heap_dump(b, db, b->num_blocks);
	u32 i;

	KUNIT_ASSERT_EQ_MSG(test, na, nb, "op %u", op);
	for (i = 0; i < na; i++) {
		if (!info_equal(&da[i], &db[i]))
			KUNIT_FAIL_AND_ABORT(test, "op %u: dump differs at %u",
					     op, i);
	}
}

static void rand_verify(struct kunit *test, struct xmem_heap **hs, int nh,
			struct xmem_heap_block_info *d0,
			struct xmem_heap_block_info *d1, u32 op)
{
	int i;

	for (i = 0; i < nh; i++) {
		KUNIT_ASSERT_EQ_MSG(test, xmem_heap_verify(hs[i]), 0,
				    "op %u heap %d", op, i);
		if (i)
			compare_dumps(test, hs[0], hs[i], d0, d1, op);
	}
}

/* Cycle a heap through list, pure tree and two adaptive trees. */
static void switch_mode(struct kunit *test, struct xmem_heap *h, u32 k)
{
	static const u32 list_max[] = { 0, 0, 4, 8 };
	static const enum xmem_heap_mode mode[] = {
		XMEM_HEAP_LIST, XMEM_HEAP_TREE, XMEM_HEAP_TREE, XMEM_HEAP_TREE,
	};

	h->list_max = list_max[k % 4];
	KUNIT_ASSERT_EQ(test, xmem_heap_set_mode(h, mode[k % 4]), 0);
	KUNIT_ASSERT_EQ(test, xmem_heap_verify(h), 0);
}

/*
 * Drive a TREE, a LIST, optionally a TREE switching every few blocks, and
 * the shipped adaptive TREE heap (the last) with the same random
 * alloc/free sequence; every status, address and block end must agree,
 * and the stats and dumps must agree whenever they are compared.
 */
static void random_run(struct kunit *test, const struct rand_cfg *c)
{
	const struct heap_kind *kinds[MAX_HEAPS] = { &K_TREE, &K_LIST };
	struct xmem_heap_stats st[MAX_HEAPS] = {};
	struct xmem_heap_block_info *d0, *d1;
	struct xmem_heap *hs[MAX_HEAPS];
	u64 s = test_seed(test, c->salt), *live;
	u32 nlive = 0, target = 1, op, allocs = 0, frees = 0, fails = 0;
	u32 max_live = 0, max_free = 0, switches = 0;
	int nh = 2, i, ret[MAX_HEAPS];
	bool stats_each = c->num_blocks <= 1024, trees = false;

	if (c->checked)
		kinds[nh++] = &K_ADAPTIVE_4;
	kinds[nh++] = &K_ADAPTIVE;
	for (i = 0; i < nh; i++)
		hs[i] = new_heap(test, c->base, c->size, c->num_blocks,
				 kinds[i]);
	if (c->list_max) {
		hs[nh - 1]->list_max = c->list_max;
		KUNIT_ASSERT_EQ(test, xmem_heap_set_mode(hs[nh - 1],
							 XMEM_HEAP_TREE), 0);
	}
	live = kunit_kcalloc(test, c->num_blocks, sizeof(*live), GFP_KERNEL);
	d0 = kunit_kcalloc(test, c->num_blocks, sizeof(*d0), GFP_KERNEL);
	d1 = kunit_kcalloc(test, c->num_blocks, sizeof(*d1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, live);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d1);

	for (op = 0; op < c->ops; op++) {
		u64 addr[MAX_HEAPS] = {}, end[MAX_HEAPS] = {};

		if (op % 2048 == 0) {
			target = 1 + rng_below(&s, c->num_blocks);
			cond_resched();
		}
		if (!nlive || rng_below(&s, 100) < (nlive < target ? 70 : 30)) {
			u64 size = rand_size(&s, c), align = rand_align(&s, c);

			for (i = 0; i < nh; i++)
				ret[i] = xmem_heap_alloc(hs[i], size, align,
							 &addr[i], &end[i]);
			for (i = 1; i < nh; i++) {
				KUNIT_ASSERT_EQ_MSG(test, ret[i], ret[0],
						    "op %u alloc(%#llx, %#llx) %s",
						    op, size, align,
						    kinds[i]->name);
				KUNIT_ASSERT_EQ_MSG(test, addr[i], addr[0],
						    "op %u alloc(%#llx, %#llx) %s",
						    op, size, align,
						    kinds[i]->name);
				KUNIT_ASSERT_EQ_MSG(test, end[i], end[0],
						    "op %u alloc(%#llx, %#llx) %s",
						    op, size, align,
						    kinds[i]->name);
			}
			if (ret[0] == XMEM_OK) {
				u64 al = align ? align : 64;

				KUNIT_ASSERT_LT(test, nlive, c->num_blocks);
				KUNIT_ASSERT_EQ(test, addr[0] & (al - 1), 0ULL);
				KUNIT_ASSERT_GE(test, addr[0], c->base);
				KUNIT_ASSERT_LE(test, end[0], c->base + c->size);
				KUNIT_ASSERT_LE(test, size, end[0] - addr[0]);
				live[nlive++] = addr[0];
				max_live = max(max_live, nlive);
				allocs++;
			} else {
				fails++;
			}
		} else {
			u32 j = rng_below(&s, nlive), k;
			u64 a = live[j];
			int want = XMEM_OK;

			if (rng_below(&s, 10) == 0) {	/* a wrong address */
				a = rng_below(&s, 2) ? a + 1 :
				    c->base + rng_below(&s, c->size);
				want = XMEM_ERR_PTR_OUT_OF_BOUNDS;
				for (k = 0; k < nlive; k++)
					if (live[k] == a)
						break;
				j = k;
				if (k < nlive)
					want = XMEM_OK;
			}
			for (i = 0; i < nh; i++) {
				ret[i] = xmem_heap_free(hs[i], a);
				KUNIT_ASSERT_EQ_MSG(test, ret[i], want,
						    "op %u free(%#llx) %s", op, a,
						    kinds[i]->name);
			}
			if (want == XMEM_OK) {
				live[j] = live[--nlive];
				frees++;
			}
		}
		if (stats_each || (op + 1) % c->verify_every == 0) {
			for (i = 0; i < nh; i++)
				stats(hs[i], &st[i]);
			max_free = max(max_free, st[0].free_blocks);
			for (i = 1; i < nh; i++)
				KUNIT_ASSERT_TRUE_MSG(test,
						      stats_equal(&st[0], &st[i]),
						      "op %u: stats of %s differ",
						      op, kinds[i]->name);
		}
		if ((op + 1) % c->verify_every == 0)
			rand_verify(test, hs, nh, d0, d1, op);
		if (c->switch_every && (op + 1) % c->switch_every == 0)
			switch_mode(test, hs[1], op / c->switch_every);
		if (hs[nh - 1]->trees_on != trees) {
			trees = !trees;
			switches++;
		}
	}

	kunit_info(test, "%u allocs (%u failed), %u frees; peak %u live, %u free blocks; %llu splits refused; adaptive heap switched %u times\n",
		   allocs, fails, frees, max_live, max_free,
		   st[0].split_refused, switches);
	KUNIT_EXPECT_GT(test, allocs, c->ops / 4);
	KUNIT_EXPECT_GT(test, fails, 0U);
	rand_verify(test, hs, nh, d0, d1, op);
	while (nlive) {
		u64 a = live[--nlive];

		for (i = 0; i < nh; i++)
			KUNIT_ASSERT_EQ(test, xmem_heap_free(hs[i], a), XMEM_OK);
	}
	for (i = 0; i < nh; i++)
		expect_pristine(test, hs[i]);
}

static void random_small(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = B + 0x42c, .size = P, .num_blocks = 32,
		.ops = 100000, .verify_every = 1, .checked = true,
		.list_max = 8, .salt = 1,
	};

	random_run(test, &c);
	/* 32 descriptors over 16 KiB: exhaustion must have happened */
	KUNIT_EXPECT_GT(test, ((struct xh_ctx *)test->priv)->heaps[0]
			.split_refused, 0ULL);
}

static void random_large(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = 0x100000228ULL, .size = 4 << 20, .num_blocks = 4096,
		.ops = 100000, .verify_every = 4096, .salt = 2,
	};

	random_run(test, &c);
}

static void random_align_heavy(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = B + 3, .size = 1 << 20, .num_blocks = 1024,
		.ops = 50000, .verify_every = 256, .checked = true,
		.align_heavy = true, .list_max = 64, .salt = 3,
	};

	random_run(test, &c);
}

static void random_top_of_space(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = U64_MAX - 0x10000, .size = 0x10000, .num_blocks = 64,
		.ops = 50000, .verify_every = 1, .align_heavy = true,
		.salt = 4,
	};

	random_run(test, &c);
}

static void random_few_descriptors(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = 0, .size = 1 << 16, .num_blocks = 4,
		.ops = 30000, .verify_every = 1, .checked = true, .salt = 5,
	};

	random_run(test, &c);
}

/* TREE mode walks the lists while small, the trees once grown. */
static void adaptive_switches(struct kunit *test)
{
	struct xmem_heap *h = new_heap(test, B, P, 64, &K_ADAPTIVE);
	struct xmem_heap *d = new_heap(test, B, P, 0, &K_ADAPTIVE);
	u64 a[40];
	int i;

	KUNIT_EXPECT_EQ(test, h->list_max, (u32)XMEM_HEAP_TREE_LIST_MAX);
	h->list_max = 4;
	KUNIT_ASSERT_EQ(test, xmem_heap_set_mode(h, XMEM_HEAP_TREE), 0);
	KUNIT_EXPECT_TRUE(test, h->lists_on && !h->trees_on);
	for (i = 0; i < 7; i++)		/* 8 blocks: lists still */
		a[i] = alloc_ok(test, h, 64, 64, NULL);
	KUNIT_EXPECT_TRUE(test, h->lists_on && !h->trees_on);
	a[7] = alloc_ok(test, h, 64, 64, NULL);	/* 9 > 2 * 4: trees */
	KUNIT_EXPECT_TRUE(test, h->trees_on && !h->lists_on);
	check_heap(test, h);
	for (i = 7; i >= 4; i--)	/* 5 blocks: trees still */
		KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[i]), XMEM_OK);
	KUNIT_EXPECT_TRUE(test, h->trees_on);
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[3]), XMEM_OK);
	KUNIT_EXPECT_TRUE(test, h->lists_on && !h->trees_on);
	check_heap(test, h);
	/* first fit across the switches: the lowest hole */
	KUNIT_ASSERT_EQ(test, xmem_heap_free(h, a[1]), XMEM_OK);
	KUNIT_EXPECT_EQ(test, alloc_ok(test, h, 64, 64, NULL), a[1]);

	/* the default 32-descriptor heap never leaves its lists */
	for (i = 0; i < 40; i++)
		if (xmem_heap_alloc(d, 16, 16, &a[0], NULL) == XMEM_OK)
			KUNIT_EXPECT_TRUE(test, d->lists_on && !d->trees_on);
	KUNIT_EXPECT_EQ(test, d->blocks_in_use, 32U);
	check_heap(test, d);
}

/* Switching modes on a live heap changes nothing it returns. */
static void random_mode_switch(struct kunit *test)
{
	const struct rand_cfg c = {
		.base = B_ODD, .size = 1 << 18, .num_blocks = 512,
		.ops = 30000, .verify_every = 7, .switch_every = 500,
		.salt = 6,
	};
	struct xmem_heap *h;

	random_run(test, &c);
	h = &((struct xh_ctx *)test->priv)->heaps[1];
	KUNIT_EXPECT_EQ(test, xmem_heap_set_mode(h, (enum xmem_heap_mode)3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xmem_heap_verify(h), 0);
}

XMEMSIM_SUITE(xmem_heap_contract, "xmem_heap_contract", xh_test_init, xh_test_exit,
	      KUNIT_CASE_PARAM(init_defaults, xh_mode_gen_params),
	      KUNIT_CASE(init_rejects),
	      KUNIT_CASE_PARAM(first_fit_lowest, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(slack_per_candidate, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(slack_stays_with_block, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(align_zero_is_64, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(illegal_align, illegal_align_gen_params),
	      KUNIT_CASE_PARAM(size_zero, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(no_fit_leaves_heap, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(alloc_boundaries, bound_table_gen_params),
	      KUNIT_CASE_PARAM(stats_track_blocks, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(dump_order_and_truncation, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(verify_detects_corruption, xh_mode_gen_params),
	      KUNIT_CASE(adaptive_switches_keep_results));

XMEMSIM_SUITE(xmem_heap_split_free, "xmem_heap_split_free", xh_test_init, xh_test_exit,
	      KUNIT_CASE_PARAM(split_remainder_4, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(split_remainder_5, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(split_remainder_after_slack, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(exhaustion_at_32, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(exhaustion_mid_heap, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(exhaustion_recovers, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(one_descriptor, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(free_unknown, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(free_raw_start, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(coalesce_left, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(coalesce_right, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(coalesce_both, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(coalesce_none, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(unused_bytes_erratum, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(free_all_restores, xh_mode_gen_params));

XMEMSIM_SUITE(xmem_heap_overflow, "xmem_heap_overflow", xh_test_init, xh_test_exit,
	      KUNIT_CASE_PARAM(huge_size_no_wrap, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(top_of_address_space, xh_mode_gen_params),
	      KUNIT_CASE_PARAM(align_2_63, xh_mode_gen_params));

XMEMSIM_SUITE(xmem_heap_random, "xmem_heap_random", xh_test_init, xh_test_exit,
	      KUNIT_CASE(tree_skips_misaligned),
	      KUNIT_CASE(random_small),
	      KUNIT_CASE(random_large),
	      KUNIT_CASE(random_align_heavy),
	      KUNIT_CASE(random_top_of_space),
	      KUNIT_CASE(random_few_descriptors),
	      KUNIT_CASE(random_mode_switch),
	      KUNIT_CASE(adaptive_switches));

MODULE_DESCRIPTION("KUnit suites of xmemsim: the xmem heap, the geometry checks, the DRAM plans");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
