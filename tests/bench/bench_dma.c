// SPDX-License-Identifier: GPL-2.0
/*
 * bench_dma: the queued-DMA model's figures, in the test VM
 * (scripts/bench-dma.sh loads the module with time_scale=1). One line per
 * figure, each a ratio measured side by side in this run:
 *
 *   - engines N: N transfers on N engines against the same N on one
 *     engine, in modeled time (the model says N x);
 *   - time_scale=1 (a second load): modeled against observed wall time of
 *     transfers of about 1 ms of modeled time (a 1 ms latency), from
 *     submit to DMA_WAIT's return; the host's copy of the bytes at the end
 *     is in the observed time and grows with the length;
 *   - io_uring: DMA_SUBMIT of one small descriptor per command, 64
 *     commands a batch, against GET_INFO (the floor: a command that does
 *     nothing) the same way, in ns per command;
 *   - completions: what it costs a runtime to learn that a transfer ended,
 *     per completion, through each path (DMA_WAIT by ioctl; DMA_SUBMIT
 *     and DMA_REAP through io_uring; poll() and one DMA_REAP), one transfer
 *     at a time and 64 reaped together, against io_uring's NOP round
 *     trip the same way (submit and wait). Submitting is in every row.
 */
#include <inttypes.h>
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libxmemsim.h"

#define HBM XMEMSIM_HEAP_HBM

static uint64_t wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct xmemsim_dma_desc desc(uint64_t src, uint64_t dst, uint64_t len,
				    uint32_t engine)
{
	struct xmemsim_dma_desc d = {
		.src = src, .dst = dst, .len = len, .engine = engine,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
	};

	return d;
}

/* Modeled makespan of n transfers of len, on n engines or all on engine 0. */
static uint64_t makespan(struct xms_dev *xd, const uint64_t *buf, uint32_t n,
			 uint64_t len, int spread)
{
	struct xmemsim_dma_desc d[8] = {};
	struct xmemsim_dma_wait w;
	uint64_t t, lo = UINT64_MAX, hi = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		d[i] = desc(buf[2 * i], buf[2 * i + 1], len, spread ? i : 0);
	if (xms_dma_submit(xd, d, n, &t))
		return 0;
	for (i = 0; i < n; i++) {
		if (xms_dma_wait(xd, t + i, -1, &w))
			return 0;
		lo = w.start_ns < lo ? w.start_ns : lo;
		hi = w.end_ns > hi ? w.end_ns : hi;
	}
	return hi - lo;
}

/* io_uring NOPs, batch at a time, submitted and waited for: ns per NOP */
static uint64_t nop_ns(unsigned int batch, int reps)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t t0;
	unsigned int i;
	int rep;

	if (io_uring_queue_init(64, &ring, 0))
		return 0;
	t0 = wall_ns();
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < batch; i++)
			io_uring_prep_nop(io_uring_get_sqe(&ring));
		io_uring_submit_and_wait(&ring, batch);
		for (i = 0; i < batch; i++) {
			if (io_uring_wait_cqe(&ring, &cqe))
				break;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	t0 = wall_ns() - t0;
	io_uring_queue_exit(&ring);
	return t0 / ((uint64_t)reps * batch);
}

/*
 * batch transfers (1 or 64) submitted and learnt of through path (0:
 * DMA_WAIT each; 1: DMA_SUBMIT and DMA_REAP through the ring in one
 * io_uring_enter, more reaps if needed; 2: poll() then DMA_REAP of all
 * there are), reps times: ns per completion, 0 on a failure.
 */
static uint64_t completion_ns(struct xms_dev *xd, struct xms_ring *r,
			      const uint64_t *buf, unsigned int engines,
			      unsigned int batch, int path, int reps)
{
	static struct xmemsim_dma_desc d[64];
	static struct xmemsim_dma_submit s[64];
	struct xmemsim_dma_completion rec[64];
	struct xms_result res[64];
	struct pollfd p = { .fd = xd->fd, .events = POLLIN };
	uint64_t t, t0 = wall_ns();
	uint32_t n, got, i;
	int rep;

	for (i = 0; i < batch; i++)
		d[i] = desc(buf[2], buf[3], 64, i % engines);
	for (rep = 0; rep < reps; rep++) {
		if (path == 1) {
			static struct xmemsim_dma_reap rp;
			int k = 0;

			/* the submit and the first reap in one io_uring_enter */
			s[0] = (struct xmemsim_dma_submit){ .descs = (uintptr_t)d,
							    .count = batch };
			xms_ring_queue(r, XMEMSIM_IOC_DMA_SUBMIT, &s[0], 0);
			for (got = 0; got < batch; got += rp.count, k++) {
				rp = (struct xmemsim_dma_reap){ .recs = (uintptr_t)rec,
					.capacity = 64, .timeout_ns = -1 };
				xms_ring_queue(r, XMEMSIM_IOC_DMA_REAP, &rp, 1);
				xms_ring_submit(r);
				n = xms_ring_reap(r, res, 2, k ? 1 : 2);
				if (n != (k ? 1U : 2U) || res[0].res || (!k && res[1].res))
					return 0;
			}
			continue;
		}
		if (xms_dma_submit(xd, d, batch, &t))
			return 0;
		for (got = 0; path == 0 && got < batch; got++)
			if (xms_dma_wait(xd, t + got, -1, NULL))
				return 0;
		while (path == 2 && got < batch) {
			if (poll(&p, 1, 10000) != 1 ||
			    xms_dma_reap(xd, rec, 64, 0, &n))
				return 0;
			got += n;
		}
	}
	return (wall_ns() - t0) / ((uint64_t)reps * batch);
}

/*
 * The cost of learning alone: 64 transfers ended (the submit, untimed,
 * runs them on the virtual clock), then one DMA_REAP of their 64 records,
 * timed, per record, against the NOP round trip of a batch of 64.
 */
static void learning(struct xms_dev *xd, const uint64_t *buf,
		     unsigned int engines, int reps)
{
	static struct xmemsim_dma_desc d[64];
	struct xmemsim_dma_completion rec[64];
	uint64_t t, spent = 0, nop = nop_ns(64, reps);
	uint32_t i, n, got;
	int rep;

	for (i = 0; i < 64; i++)
		d[i] = desc(buf[2], buf[3], 64, i % engines);
	for (rep = 0; rep < reps; rep++) {
		if (xms_dma_submit(xd, d, 64, &t))
			return;
		for (got = 0; got < 64; got += n) {
			uint64_t t0 = wall_ns();

			if (xms_dma_reap(xd, rec, 64, -1, &n))
				return;
			spent += wall_ns() - t0;
		}
	}
	printf("learning, batch 64: one DMA_REAP of ended transfers %8" PRIu64 " ns a record, %.2fx the NOP round trip (%" PRIu64 " ns)\n",
	       spent / (64 * (uint64_t)reps), nop ? (double)spent / (64.0 * reps) / nop : 0, nop);
}

static void completions(struct xms_dev *xd, const uint64_t *buf,
			unsigned int engines, int reps)
{
	static const char * const name[3] = {
		"DMA_WAIT (ioctl)", "io_uring SUBMIT+REAP", "poll() + DMA_REAP",
	};
	unsigned int b, batch;
	struct xms_ring r;
	int path;

	if (xms_ring_init(&r, xd, 64))
		return;
	for (b = 0; b < 2; b++) {
		uint64_t nop;

		batch = b ? 64 : 1;
		nop = nop_ns(batch, reps * (b ? 4 : 64));
		for (path = 0; path < 3; path++) {
			uint64_t ns = completion_ns(xd, &r, buf, engines, batch, path,
						    reps * (b ? 4 : 64));

			printf("completion, batch %u: %-18s %8" PRIu64 " ns each, %.2fx the NOP round trip (%" PRIu64 " ns)\n",
			       batch, name[path], ns, nop ? (double)ns / nop : 0, nop);
		}
	}
	xms_ring_exit(&r);
	learning(xd, buf, engines, reps * 4);
}

int main(int argc, char **argv)
{
	struct xmemsim_dma_info info;
	struct xms_dev xd;
	struct xms_ring r;
	uint64_t buf[16], len;
	uint32_t n, i;
	int reps = argc > 1 ? atoi(argv[1]) : 20;

	if (xms_open(&xd, NULL) || xms_dma_info(&xd, &info)) {
		fprintf(stderr, "bench_dma: no device or no DMA_INFO\n");
		return 1;
	}
	for (i = 0; i < 16; i++)
		if (xms_alloc(&xd, HBM, 16 << 20, 4096, 0, &buf[i], NULL)) {
			fprintf(stderr, "bench_dma: 256 MiB of HBM needed (hbm_size)\n");
			return 1;
		}
	printf("# %u engines, latency %" PRIu64 " ns, HBM-HBM %" PRIu64 " B/s, time_scale %" PRIu64 "\n",
	       info.engines, (uint64_t)info.latency_ns, (uint64_t)info.bw[HBM][HBM],
	       (uint64_t)info.time_scale);

	/* engines in parallel, modeled time */
	for (n = 2; n <= info.engines && n <= 8; n *= 2) {
		uint64_t one = makespan(&xd, buf, n, 1 << 20, 0);
		uint64_t par = makespan(&xd, buf, n, 1 << 20, 1);

		printf("engines %u: %.2fx one engine (%u x 1 MiB: %" PRIu64 " ns on one, %" PRIu64 " ns on %u)\n",
		       n, par ? (double)one / par : 0, n, one, par, n);
	}

	/* modeled against wall time (meaningful with time_scale=1) */
	for (len = 4096; len <= 1 << 20 && info.time_scale; len *= 16) {
		struct xmemsim_dma_desc d = desc(buf[0], buf[1], len, 0);
		struct xmemsim_dma_wait w;
		uint64_t t, t0, wall;
		double err;

		/* 8 transfers of len back to back, one at a time */
		t0 = wall_ns();
		for (i = 0; i < 8; i++)
			if (xms_dma_submit(&xd, &d, 1, &t) || xms_dma_wait(&xd, t, -1, &w))
				return 1;
		wall = wall_ns() - t0;
		err = ((double)wall - 8.0 * (double)(w.end_ns - w.start_ns)) /
		      (8.0 * (double)(w.end_ns - w.start_ns));
		printf("time_scale %" PRIu64 ": %.3f ms modeled per transfer, observed %+.1f%% (8 in a row, %.3f ms of wall)\n",
		       (uint64_t)info.time_scale, (double)(w.end_ns - w.start_ns) / 1e6,
		       100 * err, (double)wall / 1e6);
	}

	/* io_uring: DMA_SUBMIT against the GET_INFO floor, 64 a batch */
	if (!info.time_scale && !xms_ring_init(&r, &xd, 64)) {
		static struct xmemsim_dma_desc dd[64];
		static struct xmemsim_dma_submit s[64];
		static struct xmemsim_info gi[64];
		struct xms_result res[64];
		uint64_t ns[2] = { 0, 0 };
		int k, rep;

		for (k = 0; k < 2; k++) {
			uint64_t t0 = wall_ns();

			for (rep = 0; rep < reps; rep++) {
				for (i = 0; i < 64; i++) {
					if (k) {
						dd[i] = desc(buf[0], buf[1], 64, i % info.engines);
						s[i] = (struct xmemsim_dma_submit){
							.descs = (uintptr_t)&dd[i], .count = 1 };
						xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &s[i], i);
					} else {
						xms_ring_queue(&r, XMEMSIM_IOC_GET_INFO, &gi[i], i);
					}
				}
				xms_ring_submit(&r);
				xms_ring_reap(&r, res, 64, 64);
				/* reap the transfers so the depth never fills */
				for (i = 0; k && i < 64; i++)
					xms_dma_wait(&xd, s[i].ticket, -1, NULL);
			}
			ns[k] = (wall_ns() - t0) / ((uint64_t)reps * 64);
		}
		printf("io_uring batch 64: DMA_SUBMIT %" PRIu64 " ns/op, GET_INFO floor %" PRIu64 " ns/op, %.2fx the floor (reaping included)\n",
		       ns[1], ns[0], ns[0] ? (double)ns[1] / ns[0] : 0);
		xms_ring_exit(&r);
	}
	if (!info.time_scale)
		completions(&xd, buf, info.engines, reps);
	xms_close(&xd);
	return 0;
}
