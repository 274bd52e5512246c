// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the reducing DMA engines (kmod/dma_reduce.c) against the host.
 * dma_reduce_table.h holds reductions the host computed with its own
 * floating point (tests/host/test_reduce_ref.c, which also checks that
 * the table is still what it prints): edges, ties, cancellations,
 * subnormals, infinities and NaNs of every type and op. The kernel must
 * give the same bits.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "suite.h"
#include "../dma_internal.h"

struct reduce_case {
	u32 op, dtype, a, b, expect;
};

static const struct reduce_case reduce_cases[] = {
#include "dma_reduce_table.h"
};

static void put_elem(u8 *p, u32 size, u32 v)
{
	__le32 w = cpu_to_le32(v);
	__le16 h = cpu_to_le16(v);

	memcpy(p, size == 4 ? (void *)&w : (void *)&h, size);
}

static u32 get_elem(const u8 *p, u32 size)
{
	__le32 w;
	__le16 h;

	if (size == 4) {
		memcpy(&w, p, 4);
		return le32_to_cpu(w);
	}
	memcpy(&h, p, 2);
	return le16_to_cpu(h);
}

/* Each case alone, then all of a type and op in one unaligned buffer. */
static void reduce_matches_host_test(struct kunit *test)
{
	u32 i, j, n = ARRAY_SIZE(reduce_cases), bad = 0;
	u8 *dst = kunit_kzalloc(test, 4 * n + 1, GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 4 * n + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dst);
	KUNIT_ASSERT_NOT_NULL(test, src);
	for (i = 0; i < n; i++) {
		const struct reduce_case *c = &reduce_cases[i];
		u32 size = xmemsim_dma_elem_size(c->dtype), got;

		put_elem(dst, size, c->a);
		put_elem(src, size, c->b);
		xmemsim_dma_reduce(dst, src, size, c->op, c->dtype);
		got = get_elem(dst, size);
		if (got != c->expect && bad++ < 8)
			KUNIT_FAIL(test, "op %u type %u: %#x, %#x gives %#x, the host %#x",
				   c->op, c->dtype, c->a, c->b, got, c->expect);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	for (i = 0; i < n; i = j) {
		u32 size = xmemsim_dma_elem_size(reduce_cases[i].dtype);

		for (j = i; j < n && reduce_cases[j].op == reduce_cases[i].op &&
		     reduce_cases[j].dtype == reduce_cases[i].dtype; j++) {
			put_elem(dst + 1 + (j - i) * size, size, reduce_cases[j].a);
			put_elem(src + 1 + (j - i) * size, size, reduce_cases[j].b);
		}
		xmemsim_dma_reduce(dst + 1, src + 1, (j - i) * size,
				   reduce_cases[i].op, reduce_cases[i].dtype);
		for (j = i; j < n && reduce_cases[j].op == reduce_cases[i].op &&
		     reduce_cases[j].dtype == reduce_cases[i].dtype; j++)
			KUNIT_EXPECT_EQ(test, get_elem(dst + 1 + (j - i) * size, size),
					reduce_cases[j].expect);
	}
}

/* The table covers every type and op, and the cases the rules name. */
static void reduce_table_covers_test(struct kunit *test)
{
	u32 i, seen[5][3] = {};

	for (i = 0; i < ARRAY_SIZE(reduce_cases); i++)
		seen[reduce_cases[i].dtype][reduce_cases[i].op]++;
	for (i = XMEMSIM_DMA_T_F32; i <= XMEMSIM_DMA_T_I32; i++) {
		KUNIT_EXPECT_GE(test, seen[i][XMEMSIM_DMA_OP_SUM], 32);
		KUNIT_EXPECT_GE(test, seen[i][XMEMSIM_DMA_OP_MAX], 32);
	}
}

/* Rules written out: signed zeros, NaNs, overflow, subnormal results. */
static void reduce_rules_test(struct kunit *test)
{
	static const struct reduce_case rules[] = {
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x80000000, 0x80000000, 0x80000000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x3f800000, 0xbf800000, 0x00000000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x7f800000, 0xff800000, 0x7fc00000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0xffc00123, 0x3f800000, 0x7fc00000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x7f7fffff, 0x7f7fffff, 0x7f800000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x00000001, 0x00000001, 0x00000002 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x007fffff, 0x00000001, 0x00800000 },
		/* 1 + 2^-24 ties to even (1); 1 + 3 * 2^-24 rounds up */
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x3f800000, 0x33800000, 0x3f800000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, 0x3f800001, 0x33800000, 0x3f800002 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_BF16, 0x3f80, 0x3b80, 0x3f80 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F16, 0x7bff, 0x7bff, 0x7c00 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F16, 0x3c00, 0x3c00, 0x4000 },
		{ XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_I32, 0x7fffffff, 1, 0x80000000 },
		{ XMEMSIM_DMA_OP_MAX, XMEMSIM_DMA_T_F32, 0x80000000, 0x00000000, 0x00000000 },
		{ XMEMSIM_DMA_OP_MAX, XMEMSIM_DMA_T_F32, 0x00000000, 0x80000000, 0x00000000 },
		{ XMEMSIM_DMA_OP_MAX, XMEMSIM_DMA_T_F32, 0xff800000, 0xbf800000, 0xbf800000 },
		{ XMEMSIM_DMA_OP_MAX, XMEMSIM_DMA_T_F16, 0x7c01, 0x3c00, 0x7e00 },
		{ XMEMSIM_DMA_OP_MAX, XMEMSIM_DMA_T_I32, 0xffffffff, 1, 1 },
	};
	u8 dst[4], src[4];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rules); i++) {
		u32 size = xmemsim_dma_elem_size(rules[i].dtype);

		put_elem(dst, size, rules[i].a);
		put_elem(src, size, rules[i].b);
		xmemsim_dma_reduce(dst, src, size, rules[i].op, rules[i].dtype);
		KUNIT_EXPECT_EQ_MSG(test, get_elem(dst, size), rules[i].expect,
				    "rule %u", i);
	}
}

/* A copy is op and dtype 0; anything else must name whole elements. */
static void reduce_check_test(struct kunit *test)
{
	struct xmemsim_dma_desc d = { .len = 6 };

	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), 0);
	d.dtype = XMEMSIM_DMA_T_F32;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), -EINVAL);
	d.op = XMEMSIM_DMA_OP_SUM;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), -EINVAL);	/* 6 % 4 */
	d.dtype = XMEMSIM_DMA_T_BF16;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), 0);
	d.dtype = XMEMSIM_DMA_T_NONE;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), -EINVAL);
	d.dtype = XMEMSIM_DMA_T_I32 + 1;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), -EINVAL);
	d.dtype = XMEMSIM_DMA_T_F16;
	d.op = XMEMSIM_DMA_OP_MAX + 1;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_reduce_check(&d), -EINVAL);
}

XMEMSIM_SUITE(reduce_test, "xmemsim_dma_reduce", NULL, NULL,
	      KUNIT_CASE(reduce_matches_host_test),
	      KUNIT_CASE(reduce_table_covers_test),
	      KUNIT_CASE(reduce_rules_test),
	      KUNIT_CASE(reduce_check_test));
