// SPDX-License-Identifier: GPL-2.0
/*
 * test_runtime: what a runtime written from xmemsim(4), xms_dma_submit(3)
 * and xms_ring_init(3) relies on, each point as the pages state it: the
 * time base before the first submit, SQE flags on a ring's commands (a
 * submit linked to its reap), the depth's errors and what a link does
 * with them, and the statuses behind a failed transfer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define NONE XMEMSIM_SEM_NONE

static struct xmemsim_dma_info info;

struct env {
	struct xms_dev xd;
	uint64_t src, dst;	/* 64 KiB each */
};

static int env_open(struct env *e)
{
	if (test_open(&e->xd) < 0)
		return -1;
	if (xms_alloc(&e->xd, HBM, 65536, 4096, 0, &e->src, NULL) ||
	    xms_alloc(&e->xd, HBM, 65536, 4096, 0, &e->dst, NULL)) {
		xms_close(&e->xd);
		return -1;
	}
	return 0;
}

static struct xmemsim_dma_desc desc(const struct env *e, uint64_t off,
				    uint64_t len, uint32_t engine, uint32_t queue)
{
	struct xmemsim_dma_desc d = {
		.src = e->src + off, .dst = e->dst + off, .len = len,
		.engine = engine, .queue = queue,
		.wait_sem = NONE, .signal_sem = NONE,
	};

	return d;
}

/*
 * DMA_INFO starts the file's clock: the now a fresh file reads is at
 * least the end of what the device has run, and a transfer it submits
 * next on an idle engine starts exactly then.
 */
TEST(info_gives_the_time_base_before_the_first_submit)
{
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct xmemsim_dma_info in;
	struct env a, b;
	uint64_t t, end_a;

	REQUIRE(env_open(&a) == 0 && env_open(&b) == 0);
	d = desc(&a, 0, 65536, 0, 0);
	REQUIRE(xms_dma_submit(&a.xd, &d, 1, &t) == 0);
	REQUIRE(xms_dma_wait(&a.xd, t, 5000000000LL, &w) == 0 && !w.status);
	end_a = w.end_ns;
	REQUIRE(xms_dma_info(&b.xd, &in) == 0);
	printf("# another file's transfer ended at %llu; a fresh file's DMA_INFO now_ns %llu\n",
	       (unsigned long long)end_a, (unsigned long long)in.now_ns);
	CHECK(in.now_ns >= end_a);
	d = desc(&b, 0, 4096, 0, 0);
	REQUIRE(xms_dma_submit(&b.xd, &d, 1, &t) == 0);
	REQUIRE(xms_dma_wait(&b.xd, t, 5000000000LL, &w) == 0 && !w.status);
	CHECK_EQ_U64(w.start_ns, in.now_ns);
	xms_close(&b.xd);
	xms_close(&a.xd);
}

/* Reap results until n came or a 5 s wait gives nothing; how many came. */
static int ring_results(struct xms_ring *r, struct xms_result *res, int n)
{
	int got = 0, k;

	while (got < n) {
		k = xms_ring_reap_timeout(r, res + got, (unsigned int)(n - got), 1,
					  5000000000LL);
		if (k <= 0)
			break;
		got += k;
	}
	return got;
}

/*
 * One ring submit of a DMA_SUBMIT (tag 1) linked to a DMA_REAP (tag 2):
 * both results into res[2], each as its tag's index minus one. 0, or -1
 * when the ring did not take or return both.
 */
static int submit_linked_to_reap(struct xms_ring *r, struct xmemsim_dma_submit *s,
				 struct xmemsim_dma_reap *rp, int res[2])
{
	struct xms_result got[2];
	int i;

	if (xms_ring_queue_flags(r, XMEMSIM_IOC_DMA_SUBMIT, s, 1, IOSQE_IO_LINK) ||
	    xms_ring_queue(r, XMEMSIM_IOC_DMA_REAP, rp, 2) || xms_ring_submit(r) != 2 ||
	    ring_results(r, got, 2) != 2)
		return -1;
	for (i = 0; i < 2; i++) {
		printf("# CQE tag %llu res %d\n", (unsigned long long)got[i].tag, got[i].res);
		res[got[i].tag == 2] = got[i].res;
	}
	return 0;
}

/*
 * A DMA_SUBMIT linked (IOSQE_IO_LINK) to a DMA_REAP: one submit of the
 * ring, and the reap returns the submitted transfers' records.
 */
TEST(a_submit_linked_to_a_reap_returns_its_records)
{
	static struct xmemsim_dma_desc d[4];
	static struct xmemsim_dma_completion rec[8];
	static struct xmemsim_dma_submit s;
	static struct xmemsim_dma_reap rp;
	int res[2];
	struct xms_ring r;
	struct env e;
	int i;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	for (i = 0; i < 4; i++)
		d[i] = desc(&e, (uint64_t)i * 4096, 4096, (uint32_t)i % 2, 0);
	s = (struct xmemsim_dma_submit){ .descs = (uintptr_t)d, .count = 4 };
	rp = (struct xmemsim_dma_reap){ .recs = (uintptr_t)rec, .capacity = 8,
					.timeout_ns = 5000000000LL };
	REQUIRE(submit_linked_to_reap(&r, &s, &rp, res) == 0);
	CHECK_EQ_U64(res[0], 0);
	CHECK_EQ_U64(res[1], 0);
	/* the reap waited for its first record, then took what had ended */
	CHECK(rp.count >= 1 && rp.count <= 4);
	for (i = 0; i < (int)rp.count; i++) {
		CHECK_EQ_U64(rec[i].ticket, s.ticket + (uint64_t)i);
		CHECK_EQ_U64(rec[i].status, 0);
	}
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/* A failed command of a link ends the rest of it with -ECANCELED. */
TEST(a_failed_linked_submit_cancels_its_reap)
{
	static struct xmemsim_dma_desc d;
	static struct xmemsim_dma_completion rec[1];
	static struct xmemsim_dma_submit s;
	static struct xmemsim_dma_reap rp;
	int res[2];
	struct xms_ring r;
	struct env e;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	d = desc(&e, 0, 0, 0, 0);	/* len 0: -EINVAL */
	s = (struct xmemsim_dma_submit){ .descs = (uintptr_t)&d, .count = 1 };
	rp = (struct xmemsim_dma_reap){ .recs = (uintptr_t)rec, .capacity = 1,
					.timeout_ns = -1 };
	REQUIRE(submit_linked_to_reap(&r, &s, &rp, res) == 0);
	CHECK_EQ_U64(res[0], -EINVAL);
	CHECK_EQ_U64(res[1], -ECANCELED);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/* Flags the library cannot honour are refused before anything is queued. */
TEST(sqe_flags_outside_the_documented_set_are_refused)
{
	static struct xmemsim_dma_info in;
	struct xms_result res;
	struct xms_ring r;
	struct env e;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 4) == 0);
	CHECK_EQ_U64(xms_ring_queue_flags(&r, XMEMSIM_IOC_DMA_INFO, &in, 1,
					  IOSQE_FIXED_FILE), -EINVAL);
	CHECK_EQ_U64(xms_ring_queue_flags(&r, XMEMSIM_IOC_DMA_INFO, &in, 1,
					  IOSQE_CQE_SKIP_SUCCESS), -EINVAL);
	CHECK_EQ_U64(r.queued, 0);
	/* the allowed ones go through */
	REQUIRE(xms_ring_queue_flags(&r, XMEMSIM_IOC_DMA_INFO, &in, 3,
				     IOSQE_ASYNC) == 0);
	CHECK_EQ_U64(xms_ring_submit(&r), 1);
	CHECK(ring_results(&r, &res, 1) == 1 && res.tag == 3 && res.res == 0);
	CHECK(in.engines == info.engines);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * The depth: more descriptors than file_dma_depth in one submit is
 * -E2BIG; a submit that would take the file past its depth queues
 * nothing, -EAGAIN, by ioctl and through a ring, where it also cancels
 * what is linked behind it.
 */
TEST(the_depth_gives_e2big_then_eagain_on_every_path)
{
	static struct xmemsim_dma_desc d[4096];
	static struct xmemsim_dma_completion rec[1];
	static struct xmemsim_dma_submit s;
	static struct xmemsim_dma_reap rp;
	int res[2];
	struct xms_ring r;
	struct env e;
	uint32_t i, n;
	uint64_t t;

	REQUIRE(info.depth < 4096);
	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	for (i = 0; i <= info.depth; i++) {
		d[i] = desc(&e, 0, 4096, 0, 1);
		d[i].wait_sem = 5;	/* held until the end */
		d[i].wait_value = 1;
	}
	CHECK_EQ_U64(xms_dma_submit(&e.xd, d, info.depth + 1, &t), -E2BIG);
	REQUIRE(xms_dma_submit(&e.xd, d, info.depth, &t) == 0);
	CHECK_EQ_U64(xms_dma_submit(&e.xd, d, 1, &t), -EAGAIN);
	s = (struct xmemsim_dma_submit){ .descs = (uintptr_t)d, .count = 1 };
	rp = (struct xmemsim_dma_reap){ .recs = (uintptr_t)rec, .capacity = 1,
					.timeout_ns = 0 };
	REQUIRE(submit_linked_to_reap(&r, &s, &rp, res) == 0);
	CHECK_EQ_U64(res[0], -EAGAIN);
	CHECK_EQ_U64(res[1], -ECANCELED);
	/* room again once the held ones end and are reaped */
	CHECK(xms_sem_set(&e.xd, 5, 1) == 0);
	for (n = 0; n < info.depth; ) {
		uint32_t got = 0;

		if (xms_dma_reap(&e.xd, rec, 1, 5000000000LL, &got) || !got)
			break;
		n += got;
	}
	CHECK_EQ_U64(n, info.depth);
	CHECK_EQ_U64(xms_dma_submit(&e.xd, d, 1, &t), 0);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * Behind a failed transfer: its queue's later transfers -ECANCELED, a
 * waiter on its semaphore -EPIPE, and behind that one, on its own queue,
 * -ECANCELED again, and its own signal's waiter -EPIPE.
 */
TEST(the_statuses_behind_a_failed_transfer)
{
	struct xmemsim_dma_desc d[5];
	struct xmemsim_dma_wait w;
	static const int32_t want[5] = { -EIO, -ECANCELED, -EPIPE, -ECANCELED, -EPIPE };
	struct env e;
	uint64_t t;
	int i;

	REQUIRE(env_open(&e) == 0);
	d[0] = desc(&e, 0, 4096, 0, 0);		/* fails: its queue stops */
	d[0].signal_sem = 3;
	d[0].signal_inc = 1;
	d[1] = desc(&e, 4096, 4096, 0, 0);	/* behind it */
	d[2] = desc(&e, 8192, 4096, 1, 1);	/* waits for its signal */
	d[2].wait_sem = 3;
	d[2].wait_value = 1;
	d[2].signal_sem = 4;
	d[2].signal_inc = 1;
	d[3] = desc(&e, 12288, 4096, 1, 1);	/* behind the -EPIPE one */
	d[4] = desc(&e, 16384, 4096, 1, 2);	/* waits for its signal */
	d[4].wait_sem = 4;
	d[4].wait_value = 1;
	REQUIRE(xms_fault_arm(&e.xd, XMEMSIM_FAULT_DMA_ERROR, 0, 0, 1) == 0);
	REQUIRE(xms_dma_submit(&e.xd, d, 5, &t) == 0);
	for (i = 0; i < 5; i++) {
		REQUIRE(xms_dma_wait(&e.xd, t + (uint64_t)i, 5000000000LL, &w) == 0);
		printf("# transfer %d: status %d\n", i, w.status);
		CHECK_EQ_U64(w.status, want[i]);
	}
	xms_close(&e.xd);
}

int main(void)
{
	return test_dma_model(&info) ? 1 : tap_run();
}
