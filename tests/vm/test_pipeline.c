// SPDX-License-Identifier: GPL-2.0
/*
 * A runtime's pipeline, written from libxmemsim.h, uapi/xmemsim.h and the
 * man pages alone: 16 chunks of 4 KiB from HBM through two dataram
 * buffers back to HBM, loads on engine 0, stores on engine 1, four
 * semaphores (each buffer's "loaded" and "free"). One body runs through
 * every path a runtime may wait on:
 *   0  ioctl(): DMA_REAP waits in the call;
 *   1  io_uring: every command through the attached ring;
 *   2  poll(): POLLIN, then DMA_REAP without waiting.
 * and is submitted in 1 call, in 2 (all loads, then all stores: the loads
 * past the second wait for stores not yet queued) and in 32. Each run
 * must give the same modeled starts and ends (relative to the run's
 * first start), move every byte, and leave nothing behind. Then the same
 * body with a failed load (its dependents end, nothing hangs) and with a
 * hung store (a timed reap returns).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define NONE XMEMSIM_SEM_NONE

enum { CHUNKS = 16, CHUNK = 4096, NX = 2 * CHUNKS };
/* semaphores: LOADED + b (buffer b holds a chunk), FREE + b (it is empty) */
enum { LOADED = 0, FREE = 2 };

static const char *const path_name[] = { "ioctl", "io_uring", "poll" };

struct pipe_env {
	struct xms_dev xd;
	struct xms_ring ring;
	uint64_t src, dst, buf[2];
};

struct rec {
	uint64_t start, end;
	int status, seen;
};

static int pipe_open(struct pipe_env *p)
{
	int i;

	if (test_open(&p->xd) < 0 || xms_ring_init(&p->ring, &p->xd, 16))
		return -1;
	if (xms_alloc(&p->xd, HBM, CHUNKS * CHUNK, 4096, 0, &p->src, NULL) ||
	    xms_alloc(&p->xd, HBM, CHUNKS * CHUNK, 4096, 0, &p->dst, NULL))
		return -1;
	for (i = 0; i < 2; i++)
		if (xms_alloc(&p->xd, DRAM, CHUNK, 64, 0, &p->buf[i], NULL))
			return -1;
	return 0;
}

static void pipe_close(struct pipe_env *p)
{
	xms_attach_ring(&p->xd, NULL);
	xms_ring_exit(&p->ring);
	xms_close(&p->xd);
}

/*
 * The 32 descriptors in program order: load 0, store 0, load 1, ...
 * Load k waits until buffer k % 2 is free of chunk k - 2 and signals it
 * loaded; store k waits for that and signals the buffer free.
 */
static void pipeline_descs(const struct pipe_env *p, struct xmemsim_dma_desc *d)
{
	uint32_t k, b;

	for (k = 0; k < CHUNKS; k++) {
		b = k % 2;
		d[2 * k] = (struct xmemsim_dma_desc){
			.src = p->src + k * CHUNK, .dst = p->buf[b], .len = CHUNK,
			.engine = 0, .queue = 0,
			.wait_sem = k >= 2 ? FREE + b : NONE, .wait_value = k / 2,
			.signal_sem = LOADED + b, .signal_inc = 1, .tag = 2 * k,
		};
		d[2 * k + 1] = (struct xmemsim_dma_desc){
			.src = p->buf[b], .dst = p->dst + k * CHUNK, .len = CHUNK,
			.engine = 1, .queue = 0,
			.wait_sem = LOADED + b, .wait_value = k / 2 + 1,
			.signal_sem = FREE + b, .signal_inc = 1, .tag = 2 * k + 1,
		};
	}
}

/* Submit d[] in `calls` DMA_SUBMITs: 1, 2 (loads, then stores) or 32. */
static int submit_split(struct pipe_env *p, const struct xmemsim_dma_desc *d,
			int calls)
{
	struct xmemsim_dma_desc loads[CHUNKS], stores[CHUNKS];
	uint64_t t;
	int i, ret = 0;

	if (calls == 1)
		return xms_dma_submit(&p->xd, d, NX, &t);
	if (calls == 2) {
		for (i = 0; i < CHUNKS; i++) {
			loads[i] = d[2 * i];
			stores[i] = d[2 * i + 1];
		}
		ret = xms_dma_submit(&p->xd, loads, CHUNKS, &t);
		return ret ? ret : xms_dma_submit(&p->xd, stores, CHUNKS, &t);
	}
	for (i = 0; i < NX && !ret; i++)
		ret = xms_dma_submit(&p->xd, &d[i], 1, &t);
	return ret;
}

/*
 * Reap until every transfer is seen or a reap gives up: through path.
 * The records land in out[] by tag. Returns the number seen.
 */
static int reap_all(struct pipe_env *p, int path, struct rec *out,
		    int64_t timeout_ns)
{
	struct xmemsim_dma_completion c[NX];
	struct pollfd pfd = { .fd = p->xd.fd, .events = POLLIN };
	uint32_t n, k;
	int got = 0, ret;

	while (got < NX) {
		if (path == 2) {
			ret = poll(&pfd, 1, (int)(timeout_ns / 1000000));
			if (ret != 1 || !(pfd.revents & POLLIN))
				break;
			ret = xms_dma_reap(&p->xd, c, NX, 0, &n);
		} else {
			ret = xms_dma_reap(&p->xd, c, NX, timeout_ns, &n);
		}
		if (ret)
			break;
		for (k = 0; k < n; k++) {
			struct rec *r = &out[c[k].tag % NX];

			CHECK(!r->seen);
			*r = (struct rec){ c[k].start_ns, c[k].end_ns, c[k].status, 1 };
			got++;
		}
	}
	return got;
}

static short ready_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };

	return poll(&pfd, 1, 0) == 1 ? pfd.revents : 0;
}

/*
 * The pipeline once on p's file: path, split; out[] relative to its first
 * start. One file for every run: its now is what it observed of the run
 * before, so each run starts with both engines free.
 */
static void run_pipeline(struct pipe_env *p, int path, int calls, struct rec *out)
{
	static unsigned char in[CHUNKS * CHUNK], back[CHUNKS * CHUNK];
	struct xmemsim_dma_desc d[NX];
	uint64_t first = UINT64_MAX;
	int i;

	memset(out, 0, NX * sizeof(*out));
	for (i = 0; i < (int)sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + calls + path);
	REQUIRE(xms_write(&p->xd, p->src, in, sizeof(in)) == 0);
	REQUIRE(xms_attach_ring(&p->xd, path == 1 ? &p->ring : NULL) == 0);
	for (i = 0; i < 4; i++)
		REQUIRE(xms_sem_set(&p->xd, i, 0) == 0);
	/* nothing yet: no readiness but room */
	CHECK(ready_now(p->xd.fd) == POLLOUT);
	pipeline_descs(p, d);
	alarm(60);		/* a hang fails the run rather than stalling it */
	CHECK(submit_split(p, d, calls) == 0);
	CHECK(reap_all(p, path, out, 5000000000LL) == NX);
	alarm(0);
	for (i = 0; i < NX; i++) {
		CHECK(out[i].seen && !out[i].status);
		if (out[i].start < first)
			first = out[i].start;
	}
	for (i = 0; i < NX; i++) {
		out[i].start -= first;
		out[i].end -= first;
	}
	/* every byte came back; nothing is left to reap */
	CHECK(xms_read(&p->xd, p->dst, back, sizeof(back)) == 0);
	CHECK(!memcmp(in, back, sizeof(in)));
	CHECK(ready_now(p->xd.fd) == POLLOUT);
	CHECK(xms_dma_reap(&p->xd, NULL, 1, 0, NULL) == -ENOENT);
	CHECK(xms_attach_ring(&p->xd, NULL) == 0);
}

TEST(pipeline_same_times_through_every_path_and_split)
{
	static struct rec base[NX], got[NX];
	static const int splits[] = { 1, 2, 32 };
	struct pipe_env p;
	int path, s, i, same;

	REQUIRE(pipe_open(&p) == 0);
	run_pipeline(&p, 0, 1, base);
	printf("# one submit by ioctl: span %llu ns\n",
	       (unsigned long long)base[NX - 1].end);
	for (path = 0; path < 3; path++) {
		for (s = 0; s < 3; s++) {
			run_pipeline(&p, path, splits[s], got);
			for (i = 0, same = 1; i < NX; i++)
				same &= got[i].start == base[i].start &&
					got[i].end == base[i].end;
			printf("# %s, %d submits: span %llu ns, %s\n", path_name[path],
			       splits[s], (unsigned long long)got[NX - 1].end,
			       same ? "the same times" : "DIFFERENT times");
			CHECK(same);
		}
	}
	/* the stores overlapped the loads: not one long chain */
	CHECK(base[3].start < base[4].end);
	pipe_close(&p);
}

/* The pipeline with a fault armed on the file before it is queued. */
#define DRAM_USED "/sys/class/misc/xmemsim/dataram_used"

/* The dataram in use is back to what it was (test_settle). */
static int dram_back(void *before)
{
	return test_read_ll(DRAM_USED) <= *(long long *)before;
}

/*
 * A pipeline with a fault armed, through one path; then the file closed.
 * A file a ring has carried commands of is released once io_uring lets go
 * of it, which may be after close() returns: wait (bounded) until its
 * buffers are back, so the next path's file finds the dataram free.
 */
static void run_faulted(int path, uint32_t site, uint64_t skip, struct rec *out,
			int *got)
{
	struct xmemsim_dma_desc d[NX];
	struct pipe_env p;
	long long before = test_read_ll(DRAM_USED);

	memset(out, 0, NX * sizeof(*out));
	REQUIRE(pipe_open(&p) == 0);
	REQUIRE(xms_attach_ring(&p.xd, path == 1 ? &p.ring : NULL) == 0);
	pipeline_descs(&p, d);
	REQUIRE(xms_fault_arm(&p.xd, site, 0, skip, 1) == 0);
	alarm(60);
	CHECK(submit_split(&p, d, 2) == 0);
	*got = reap_all(&p, path, out, 300000000LL);
	alarm(0);
	pipe_close(&p);		/* what is held goes with the file */
	CHECK(test_settle(dram_back, &before));
}

/*
 * Load 5 fails (an injected DMA error): its queue stops, so loads 6..15
 * end -ECANCELED; store 5 waits for a signal that will not come (-EPIPE),
 * and its queue stops too. Every transfer ends, none hangs, the same
 * through each path.
 */
TEST(pipeline_failed_load_ends_its_dependents)
{
	static struct rec first[NX], out[NX];
	int path, i, got;

	for (path = 0; path < 3; path++) {
		/* loads are queued first (2 submits): the 6th is load 5 */
		run_faulted(path, XMEMSIM_FAULT_DMA_ERROR, 5, out, &got);
		printf("# %s: %d of 32 ended\n", path_name[path], got);
		CHECK_EQ_U64(got, NX);
		CHECK(out[10].status == -EIO);
		for (i = 0; i < 5; i++)
			CHECK(!out[2 * i].status && !out[2 * i + 1].status);
		for (i = 6; i < CHUNKS; i++)
			CHECK(out[2 * i].status == -ECANCELED);
		CHECK(out[11].status == -EPIPE);
		for (i = 6; i < CHUNKS; i++)
			CHECK(out[2 * i + 1].status == -ECANCELED);
		if (!path)
			memcpy(first, out, sizeof(out));
		for (i = 0; i < NX; i++)
			CHECK(out[i].status == first[i].status);
	}
}

/*
 * Store 3 hangs (never completes; its engine and queue go on): load 5
 * waits for buffer 1, which store 3 would have freed, so the loads stall
 * behind it and so do stores 5.. . A timed reap returns what ended:
 * loads 0..4 and stores 0, 1, 2 and 4. Closing the file ends the rest.
 */
TEST(pipeline_hung_store_reaped_with_a_timeout)
{
	static struct rec out[NX];
	int path, i, got;

	for (path = 0; path < 3; path++) {
		/* the 20th transfer queued is store 3 */
		run_faulted(path, XMEMSIM_FAULT_DMA_HANG, CHUNKS + 3, out, &got);
		printf("# %s: %d of 32 ended before the timeout\n", path_name[path], got);
		CHECK_EQ_U64(got, 9);
		for (i = 0; i < 5; i++)
			CHECK(out[2 * i].seen && !out[2 * i].status);
		for (i = 0; i < 5; i++)
			CHECK(i == 3 ? !out[2 * i + 1].seen :
				       out[2 * i + 1].seen && !out[2 * i + 1].status);
		CHECK(!out[10].seen);
	}
}

int main(void)
{
	struct xms_dev xd;
	struct xmemsim_dma_info in = { 0 };

	if (!xms_open(&xd, NULL)) {
		xms_dma_info(&xd, &in);
		xms_close(&xd);
	}
	if (in.engines < 2 || in.sems < 4 || in.depth < NX) {
		printf("1..0 # SKIP needs 2 engines, 4 semaphores, depth 32\n");
		return 1;
	}
	return tap_run();
}
