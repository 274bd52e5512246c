// SPDX-License-Identifier: GPL-2.0
/*
 * test_reduce: DMA transfers that reduce (XMEMSIM_DMA_OP_SUM, _MAX) give
 * the host's reduction (userspace/bridge/dp_reduce.c) bit for bit, on
 * every type, unaligned and through a queue; what they refuse; and that
 * a copy's descriptor from before reduce keeps its meaning.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "dev.h"
#include "dp_device.h"
#include "libxmemsim.h"
#include "tap.h"
#include "xorshift.h"

#define HBM XMEMSIM_HEAP_HBM
#define LEN 65536

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t next(void)
{
	return (uint32_t)(xorshift64(&rng) >> 11);
}

/* values worth adding: any bits, or near each other, or tiny */
static void fill(uint8_t *a, uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		a[i] = (uint8_t)next();
		b[i] = next() % 3 ? (uint8_t)next() : a[i] ^ (uint8_t)(next() % 4);
	}
}

static int reduce(struct xms_dev *xd, uint64_t src, uint64_t dst, uint64_t len,
		  uint32_t op, uint32_t type, uint64_t *t)
{
	struct xmemsim_dma_desc d = {
		.src = src, .dst = dst, .len = len, .queue = 1,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
		.op = op, .dtype = type,
	};

	return xms_dma_submit(xd, &d, 1, t);
}

TEST(every_type_and_op_is_the_hosts_reduction)
{
	uint8_t *a = malloc(LEN), *b = malloc(LEN), *want = malloc(LEN), *got = malloc(LEN);
	struct xmemsim_dma_wait w;
	struct xmemsim_info in;
	uint64_t src, dst, t;
	struct xms_dev xd;
	uint32_t type, op;

	REQUIRE(a && b && want && got && test_open(&xd) >= 0);
	REQUIRE(xms_get_info(&xd, &in) == 0);
	CHECK(in.features & XMEMSIM_FEAT_DMA_REDUCE);
	REQUIRE(xms_alloc(&xd, HBM, LEN + 64, 64, 0, &src, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, LEN + 64, 64, 0, &dst, NULL) == 0);
	for (type = XMEMSIM_DMA_T_F32; type <= XMEMSIM_DMA_T_I32; type++) {
		for (op = XMEMSIM_DMA_OP_SUM; op <= XMEMSIM_DMA_OP_MAX; op++) {
			/* off the 4-byte grid, and not from the start */
			uint64_t off = 2 + 4 * (op == XMEMSIM_DMA_OP_MAX), n = LEN - 8;

			fill(a, b, n);
			memcpy(want, a, n);
			dp_reduce_buf(want, b, n, op, type);
			REQUIRE(xms_write(&xd, dst + off, a, n) == 0);
			REQUIRE(xms_write(&xd, src + 1, b, n) == 0);
			REQUIRE(reduce(&xd, src + 1, dst + off, n, op, type, &t) == 0);
			REQUIRE(xms_dma_wait(&xd, t, -1, &w) == 0);
			CHECK(w.status == 0);
			REQUIRE(xms_read(&xd, dst + off, got, n) == 0);
			CHECK(!memcmp(got, want, n));
			if (memcmp(got, want, n))
				printf("# type %u op %u differs from the host\n", type, op);
		}
	}
	xms_close(&xd);
	free(a);
	free(b);
	free(want);
	free(got);
}

TEST(bad_ops_types_and_lengths_are_refused)
{
	struct xms_dev xd;
	uint64_t src, dst, t;
	struct xmemsim_dma_desc d;

	REQUIRE(test_open(&xd) >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 64, 0, &src, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 64, 0, &dst, NULL) == 0);
	CHECK(reduce(&xd, src, dst, 4096, XMEMSIM_DMA_OP_MAX + 1, XMEMSIM_DMA_T_F32, &t) == -EINVAL);
	CHECK(reduce(&xd, src, dst, 4096, XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_I32 + 1, &t) == -EINVAL);
	CHECK(reduce(&xd, src, dst, 4096, XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_NONE, &t) == -EINVAL);
	CHECK(reduce(&xd, src, dst, 4096, XMEMSIM_DMA_OP_COPY, XMEMSIM_DMA_T_F32, &t) == -EINVAL);
	CHECK(reduce(&xd, src, dst, 4094, XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, &t) == -EINVAL);
	CHECK(reduce(&xd, src, dst, 4095, XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_BF16, &t) == -EINVAL);
	/* a descriptor with op and dtype 0 is the copy it always was */
	d = (struct xmemsim_dma_desc){ .src = src, .dst = dst, .len = 4096,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE };
	CHECK(xms_dma_submit(&xd, &d, 1, &t) == 0);
	xms_close(&xd);
}

/* A reduce lasts what a copy of as many bytes lasts. */
TEST(a_reduce_takes_a_copys_time)
{
	struct xmemsim_dma_wait w[2];
	struct xms_dev xd;
	uint64_t src, dst, t;

	REQUIRE(test_open(&xd) >= 0);
	REQUIRE(xms_alloc(&xd, HBM, LEN, 64, 0, &src, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, LEN, 64, 0, &dst, NULL) == 0);
	REQUIRE(reduce(&xd, src, dst, LEN, XMEMSIM_DMA_OP_COPY, 0, &t) == 0);
	REQUIRE(xms_dma_wait(&xd, t, -1, &w[0]) == 0);
	REQUIRE(reduce(&xd, src, dst, LEN, XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F16, &t) == 0);
	REQUIRE(xms_dma_wait(&xd, t, -1, &w[1]) == 0);
	CHECK_EQ_U64(w[1].end_ns - w[1].start_ns, w[0].end_ns - w[0].start_ns);
	xms_close(&xd);
}

int main(void)
{
	return tap_run();
}
