// SPDX-License-Identifier: GPL-2.0
/*
 * test_dma: queued DMA on the virtual clock (the default load: time_scale
 * 0). Modeled times are exact, so every test checks them to the ns, taking
 * its own first start as the origin (the device's clock has run before).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <liburing.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define NONE XMEMSIM_SEM_NONE

static struct xmemsim_dma_info info;

static int io(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static struct xmemsim_dma_desc desc(uint64_t src, uint64_t dst, uint64_t len,
				    uint32_t engine, uint32_t queue)
{
	struct xmemsim_dma_desc d = {
		.src = src, .dst = dst, .len = len, .engine = engine,
		.queue = queue, .wait_sem = NONE, .signal_sem = NONE,
	};

	return d;
}

static int submit(int fd, struct xmemsim_dma_desc *d, uint32_t n, uint64_t *ticket)
{
	struct xmemsim_dma_submit s = { .descs = (uintptr_t)d, .count = n };
	int ret = io(fd, XMEMSIM_IOC_DMA_SUBMIT, &s);

	if (!ret && ticket)
		*ticket = s.ticket;
	return ret;
}

static int dwait(int fd, uint64_t ticket, int64_t timeout_ns,
		 struct xmemsim_dma_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->ticket = ticket;
	w->timeout_ns = timeout_ns;
	return io(fd, XMEMSIM_IOC_DMA_WAIT, w);
}

static int sem(int fd, unsigned long cmd, uint32_t s, uint64_t *value,
	       int64_t timeout_ns)
{
	struct xmemsim_sem a = { .sem = s, .value = *value, .timeout_ns = timeout_ns };
	int ret = io(fd, cmd, &a);

	*value = a.value;
	return ret;
}

/* The modeled duration of len bytes from one heap to another. */
static uint64_t dur(unsigned int from, unsigned int to, uint64_t len)
{
	return info.latency_ns +
	       (uint64_t)((unsigned __int128)len * 1000000000u / info.bw[from][to]);
}

struct env {
	struct xms_dev xd;
	int fd;
	uint64_t buf[8];	/* 64 KiB HBM blocks */
};

static int env_open(struct env *e)
{
	int i;

	e->fd = test_open(&e->xd);
	if (e->fd < 0)
		return -1;
	for (i = 0; i < 8; i++)
		if (xms_alloc(&e->xd, HBM, 65536, 4096, 0, &e->buf[i], NULL))
			return -1;
	return 0;
}

/* One 4 KiB transfer buf[from] -> buf[from + 1], held on semaphore sem. */
static int submit_held(struct env *e, int from, uint32_t engine, uint32_t sem,
		       uint64_t *t)
{
	struct xmemsim_dma_desc d = desc(e->buf[from], e->buf[from + 1], 4096,
					 engine, 2);

	d.wait_sem = sem;
	d.wait_value = 1;
	return submit(e->fd, &d, 1, t);
}

TEST(info_reports_the_model)
{
	struct env e;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(io(e.fd, XMEMSIM_IOC_DMA_INFO, &info) == 0 && info.engines);
	CHECK_EQ_U64(info.engines, 4);	/* 2 per core, 2 cores */
	CHECK_EQ_U64(info.queues, 4);
	CHECK_EQ_U64(info.sems, 16);
	CHECK_EQ_U64(info.depth, 256);
	CHECK_EQ_U64(info.latency_ns, 2000);
	CHECK_EQ_U64(info.bw[HBM][HBM], 16000000000ULL);
	CHECK_EQ_U64(info.bw[HBM][DRAM], 8000000000ULL);
	CHECK_EQ_U64(info.bw[XMEMSIM_HEAP_LIBC][DRAM], 4000000000ULL);
	CHECK_EQ_U64(info.time_scale, 0);
	xms_close(&e.xd);
}

TEST(one_queue_is_fifo_and_times_add_up)
{
	struct xmemsim_dma_desc d[3];
	struct xmemsim_dma_wait w[3];
	uint64_t t, t0 = 0;
	struct env e;
	int i;

	REQUIRE(env_open(&e) == 0);
	for (i = 0; i < 3; i++)
		d[i] = desc(e.buf[0], e.buf[1 + i], 4096 << i, 0, 0);
	REQUIRE(submit(e.fd, d, 3, &t) == 0);
	for (i = 0; i < 3; i++) {
		CHECK(dwait(e.fd, t + i, -1, &w[i]) == 0);
		if (!i)
			t0 = w[0].start_ns;
	}
	CHECK_EQ_U64(w[0].end_ns - t0, dur(HBM, HBM, 4096));
	CHECK_EQ_U64(w[1].start_ns, w[0].end_ns);
	CHECK_EQ_U64(w[1].end_ns - w[1].start_ns, dur(HBM, HBM, 8192));
	CHECK_EQ_U64(w[2].start_ns, w[1].end_ns);
	CHECK_EQ_U64(w[2].end_ns - w[2].start_ns, dur(HBM, HBM, 16384));
	CHECK(dwait(e.fd, t, -1, &w[0]) == -ENOENT);	/* reaped once */
	xms_close(&e.xd);
}

TEST(engines_run_in_parallel)
{
	struct xmemsim_dma_desc d[4];
	struct xmemsim_dma_wait w;
	uint64_t t, s0 = 0;
	struct env e;
	int i;

	REQUIRE(env_open(&e) == 0);
	for (i = 0; i < 4; i++)
		d[i] = desc(e.buf[i], e.buf[4 + i], 65536, i, 0);
	REQUIRE(submit(e.fd, d, 4, &t) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(dwait(e.fd, t + i, -1, &w) == 0);
		if (!i)
			s0 = w.start_ns;
		CHECK_EQ_U64(w.start_ns, s0);
		CHECK_EQ_U64(w.end_ns - w.start_ns, dur(HBM, HBM, 65536));
	}
	xms_close(&e.xd);
}

TEST(an_engine_serves_its_queues_round_robin)
{
	struct xmemsim_dma_desc d[4];
	struct xmemsim_dma_wait w[4];
	uint64_t t;
	struct env e;
	int i;

	REQUIRE(env_open(&e) == 0);
	/* queue 0 gets two, then queue 1 two: served 0, 1, 0, 1 */
	d[0] = desc(e.buf[0], e.buf[4], 4096, 1, 0);
	d[1] = desc(e.buf[0], e.buf[5], 4096, 1, 0);
	d[2] = desc(e.buf[1], e.buf[6], 4096, 1, 1);
	d[3] = desc(e.buf[1], e.buf[7], 4096, 1, 1);
	for (i = 0; i < 4; i++)
		d[i].tag = 100 + i;
	REQUIRE(submit(e.fd, d, 4, &t) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(dwait(e.fd, t + i, -1, &w[i]) == 0);
		CHECK_EQ_U64(w[i].tag, 100 + i);
		CHECK_EQ_U64(w[i].status, 0);
	}
	CHECK(w[0].start_ns < w[2].start_ns);
	CHECK_EQ_U64(w[2].start_ns, w[0].end_ns);
	CHECK_EQ_U64(w[1].start_ns, w[2].end_ns);
	CHECK_EQ_U64(w[3].start_ns, w[1].end_ns);
	xms_close(&e.xd);
}

TEST(a_semaphore_orders_two_engines)
{
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait a, b;
	uint64_t t, v = 0;
	struct env e;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(sem(e.fd, XMEMSIM_IOC_SEM_SET, 3, &v, 0) == 0);
	/* b, on another engine, waits for a's signal: it starts at a's end */
	d[0] = desc(e.buf[2], e.buf[3], 32768, 2, 0);
	d[1] = desc(e.buf[3], e.buf[4], 32768, 3, 0);
	d[1].wait_sem = 3;
	d[1].wait_value = 1;
	d[0].signal_sem = 3;
	d[0].signal_inc = 1;
	REQUIRE(submit(e.fd, &d[1], 1, &t) == 0);	/* the waiter first */
	REQUIRE(submit(e.fd, &d[0], 1, NULL) == 0);
	CHECK(dwait(e.fd, t, -1, &b) == 0);
	CHECK(dwait(e.fd, t + 1, -1, &a) == 0);
	CHECK_EQ_U64(b.start_ns, a.end_ns);
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_GET, 3, &v, 0) == 0);
	CHECK_EQ_U64(v, 1);
	xms_close(&e.xd);
}

TEST(bytes_move_at_completion_not_before)
{
	unsigned char *in = malloc(65536), *out = malloc(65536);
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	uint64_t t, v = 0;
	struct env e;
	int ret;

	REQUIRE(in && out && env_open(&e) == 0);
	memset(in, 0xc3, 65536);
	REQUIRE(xms_write(&e.xd, e.buf[0], in, 65536) == 0);
	d = desc(e.buf[0], e.buf[1], 65536, 0, 2);
	d.wait_sem = 5;
	d.wait_value = 1;
	REQUIRE(submit(e.fd, &d, 1, &t) == 0);
	/* held on its semaphore: the destination keeps its old bytes */
	CHECK(dwait(e.fd, t, 20000000, &w) == -ETIMEDOUT);
	CHECK(xms_read(&e.xd, e.buf[1], out, 65536) == 0);
	CHECK(out[0] == 0 && out[65535] == 0);
	/* and both ranges are pinned */
	ret = xms_free(&e.xd, HBM, e.buf[0], NULL);
	CHECK(ret == -EBUSY);
	CHECK(xms_free(&e.xd, HBM, e.buf[1], NULL) == -EBUSY);
	v = 1;
	REQUIRE(sem(e.fd, XMEMSIM_IOC_SEM_SET, 5, &v, 0) == 0);
	CHECK(dwait(e.fd, t, -1, &w) == 0);
	CHECK(xms_read(&e.xd, e.buf[1], out, 65536) == 0);
	CHECK(!memcmp(in, out, 65536));
	CHECK(xms_free(&e.xd, HBM, e.buf[1], NULL) == 0);
	xms_close(&e.xd);
	free(in);
	free(out);
}

/*
 * COPY's DMA method is a transfer on engine 0: the modeled clock moves by
 * its duration, and it does not wait behind the file's own transfers held
 * back by a semaphore on that engine (it has a queue of its own).
 */
TEST(copy_by_dma_takes_an_engine_turn)
{
	struct xmemsim_copy c = { .len = 32768, .method = XMEMSIM_COPY_DMA };
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	uint64_t v = 0, t0, t1, ticket;
	unsigned char *in = malloc(c.len), *out = malloc(c.len);
	struct env e;

	REQUIRE(in && out && env_open(&e) == 0);
	memset(in, 0x5a, c.len);
	REQUIRE(xms_write(&e.xd, e.buf[0], in, c.len) == 0);
	/* held back on engine 0 queue 0 until sem 1 reaches 1 */
	d = desc(e.buf[2], e.buf[3], 4096, 0, 0);
	d.wait_sem = 1;
	d.wait_value = 1;
	REQUIRE(submit(e.fd, &d, 1, &ticket) == 0);
	REQUIRE(io(e.fd, XMEMSIM_IOC_DMA_INFO, &info) == 0);
	t0 = info.now_ns;
	c.src = e.buf[0];
	c.dst = e.buf[1];
	CHECK_EQ_U64(io(e.fd, XMEMSIM_IOC_COPY, &c), 0);
	REQUIRE(io(e.fd, XMEMSIM_IOC_DMA_INFO, &info) == 0);
	t1 = info.now_ns;
	printf("# a 32 KiB DMA COPY moved the clock %llu ns (model: %llu)\n",
	       (unsigned long long)(t1 - t0),
	       (unsigned long long)dur(HBM, HBM, c.len));
	CHECK_EQ_U64(t1 - t0, dur(HBM, HBM, c.len));
	CHECK(xms_read(&e.xd, e.buf[1], out, c.len) == 0 && !memcmp(in, out, c.len));
	/* the held transfer is still queued; release it */
	CHECK_EQ_U64(dwait(e.fd, ticket, 0, &w), -ETIMEDOUT);
	v = 1;
	REQUIRE(sem(e.fd, XMEMSIM_IOC_SEM_SET, 1, &v, 0) == 0);
	CHECK_EQ_U64(dwait(e.fd, ticket, -1, &w), 0);
	CHECK(w.start_ns >= t1);
	xms_close(&e.xd);
	free(in);
	free(out);
}

TEST(sem_wait_times_out_and_wakes)
{
	struct env e;
	uint64_t v = 7;

	REQUIRE(env_open(&e) == 0);
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_WAIT, 0, &v, 10000000) == -ETIMEDOUT);
	v = 7;
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_SET, 0, &v, 0) == 0);
	v = 7;
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_WAIT, 0, &v, 10000000) == 0);
	v = 0;
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_GET, 16, &v, 0) == -EINVAL);
	xms_close(&e.xd);
}

TEST(bad_descriptors_queue_nothing)
{
	struct xmemsim_dma_desc d[2], big[1];
	struct xmemsim_dma_wait w;
	struct env e, o;
	uint64_t t, t2;

	REQUIRE(env_open(&e) == 0 && env_open(&o) == 0);
	d[0] = desc(e.buf[0], e.buf[1], 4096, 0, 0);
	d[1] = d[0];
	d[1].engine = info.engines;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* no engine */
	d[1] = d[0];
	d[1].queue = info.queues;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* no queue */
	d[1] = d[0];
	d[1].signal_sem = info.sems;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* no semaphore */
	d[1] = d[0];
	d[1].len = 0;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);
	d[1] = d[0];
	d[1].dst = e.buf[0] + 2048;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* overlap */
	d[1] = d[0];
	d[1].src = UINT64_MAX - 100;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* wraps */
	d[1] = d[0];
	d[1].op = XMEMSIM_DMA_OP_MAX + 1;
	CHECK(submit(e.fd, d, 2, NULL) == -EINVAL);	/* no such op */
	d[1] = desc(e.buf[0], o.buf[0], 4096, 0, 0);
	CHECK(submit(e.fd, d, 2, NULL) == -EACCES);	/* another file's */
	big[0] = d[0];
	{
		struct xmemsim_dma_submit s = { .descs = (uintptr_t)big,
						.count = info.depth + 1 };

		CHECK(io(e.fd, XMEMSIM_IOC_DMA_SUBMIT, &s) == -E2BIG);
	}
	/* nothing was queued: the tickets still start at the first */
	CHECK(submit(e.fd, d, 1, &t) == 0);
	CHECK(submit(e.fd, d, 1, &t2) == 0);
	CHECK_EQ_U64(t2, t + 1);
	CHECK(dwait(e.fd, t, -1, &w) == 0 && dwait(e.fd, t2, -1, &w) == 0);
	CHECK(xms_free(&e.xd, HBM, e.buf[0], NULL) == 0);	/* no pin left */
	CHECK(dwait(e.fd, t2 + 1, 0, &w) == -ENOENT);
	xms_close(&o.xd);
	xms_close(&e.xd);
}

TEST(depth_bounds_what_a_file_holds)
{
	struct xmemsim_dma_desc *d = calloc(info.depth, sizeof(*d));
	struct xmemsim_dma_wait w;
	struct env e;
	uint64_t t;
	uint32_t i;

	REQUIRE(d && env_open(&e) == 0);
	for (i = 0; i < info.depth; i++)
		d[i] = desc(e.buf[0], e.buf[1], 64, i % info.engines, 0);
	CHECK(submit(e.fd, d, info.depth, &t) == 0);
	CHECK(submit(e.fd, d, 1, NULL) == -EAGAIN);	/* full until reaped */
	CHECK(dwait(e.fd, t, -1, &w) == 0);
	CHECK(submit(e.fd, d, 1, NULL) == 0);
	xms_close(&e.xd);	/* the rest, unreaped, go with the file */
	free(d);
}

TEST(semaphores_are_per_file)
{
	struct env a, b;
	uint64_t v = 5;

	REQUIRE(env_open(&a) == 0 && env_open(&b) == 0);
	CHECK(sem(a.fd, XMEMSIM_IOC_SEM_SET, 1, &v, 0) == 0);
	v = 99;
	CHECK(sem(b.fd, XMEMSIM_IOC_SEM_GET, 1, &v, 0) == 0);
	CHECK_EQ_U64(v, 0);
	xms_close(&a.xd);
	xms_close(&b.xd);
}

TEST(close_cancels_queued_and_blocked_transfers)
{
	struct xmemsim_dma_desc d[3];
	struct env e, o;
	uint64_t t;
	int i;

	REQUIRE(env_open(&e) == 0);
	for (i = 0; i < 3; i++) {
		d[i] = desc(e.buf[i], e.buf[4 + i], 65536, 0, 0);
		d[i].wait_sem = 0;
		d[i].wait_value = 1;	/* never set */
	}
	REQUIRE(submit(e.fd, d, 3, &t) == 0);
	xms_close(&e.xd);
	/* the blocks went back: another file gets the same addresses */
	REQUIRE(env_open(&o) == 0);
	CHECK_EQ_U64(o.buf[0], e.buf[0]);
	CHECK_EQ_U64(o.buf[7], e.buf[7]);
	xms_close(&o.xd);
}

TEST(the_virtual_clock_repeats_itself)
{
	struct xmemsim_dma_desc d[6];
	struct xmemsim_dma_wait w;
	uint64_t rel[2][6], t;
	int run, i;

	for (run = 0; run < 2; run++) {
		struct env e;
		uint64_t s0 = 0;

		REQUIRE(env_open(&e) == 0);
		for (i = 0; i < 6; i++) {
			d[i] = desc(e.buf[i], e.buf[(i + 1) % 8], 1024 * (i + 1),
				    i % 2, i % 3);
			if (i == 4) {	/* waits for the first's signal */
				d[i].wait_sem = 2;
				d[i].wait_value = 1;
			}
		}
		d[0].signal_sem = 2;
		d[0].signal_inc = 1;
		d[0].dst = e.buf[6];
		REQUIRE(submit(e.fd, d, 6, &t) == 0);
		for (i = 0; i < 6; i++) {
			CHECK(dwait(e.fd, t + i, -1, &w) == 0);
			if (!i)
				s0 = w.start_ns;
			rel[run][i] = w.end_ns - s0;
		}
		xms_close(&e.xd);
	}
	for (i = 0; i < 6; i++)
		CHECK_EQ_U64(rel[1][i], rel[0][i]);
}

/*
 * A double-buffered pipeline in one batch: loads into buffer i % 2 on
 * engine 0, stores from it on engine 1, ordered by four semaphores
 * (buffer k loaded, buffer k stored). Each store waits for its load, each
 * load for the store that last read its buffer; so load i + 1 runs while
 * store i does, and n steps take n + 1 transfer times, not 2n.
 */
#define PIPE 8

TEST(double_buffered_pipeline_overlaps_load_and_store)
{
	struct xmemsim_dma_desc d[2 * PIPE];
	struct xmemsim_dma_wait ld[PIPE], st[PIPE];
	uint64_t t, step = dur(HBM, HBM, 8192);
	struct env e;
	int i;

	REQUIRE(env_open(&e) == 0);
	for (i = 0; i < PIPE; i++) {
		int k = i % 2;

		d[2 * i] = desc(e.buf[0], e.buf[1 + k], 8192, 0, 0);
		d[2 * i].signal_sem = k;
		d[2 * i].signal_inc = 1;
		if (i >= 2) {
			d[2 * i].wait_sem = 2 + k;
			d[2 * i].wait_value = i / 2;
		}
		d[2 * i + 1] = desc(e.buf[1 + k], e.buf[3 + i % 4], 8192, 1, 0);
		d[2 * i + 1].wait_sem = k;
		d[2 * i + 1].wait_value = i / 2 + 1;
		d[2 * i + 1].signal_sem = 2 + k;
		d[2 * i + 1].signal_inc = 1;
	}
	REQUIRE(submit(e.fd, d, 2 * PIPE, &t) == 0);
	for (i = 0; i < PIPE; i++) {
		CHECK(dwait(e.fd, t + 2 * i, -1, &ld[i]) == 0);
		CHECK(dwait(e.fd, t + 2 * i + 1, -1, &st[i]) == 0);
	}
	for (i = 0; i < PIPE; i++) {
		CHECK(st[i].start_ns >= ld[i].end_ns);
		if (i + 1 < PIPE)	/* the next load overlaps this store */
			CHECK(ld[i + 1].start_ns < st[i].end_ns);
	}
	CHECK_EQ_U64(st[PIPE - 1].end_ns - ld[0].start_ns, (PIPE + 1) * step);
	xms_close(&e.xd);
}

/* The library's calls, through ioctl() and through an attached ring. */
TEST(library_calls_through_ioctl_and_io_uring)
{
	struct xmemsim_dma_info in;
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct xms_ring r;
	uint64_t t, v;
	struct env e;
	int path;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(xms_ring_init(&r, &e.xd, 8) == 0);
	for (path = 0; path < 2; path++) {
		CHECK(xms_attach_ring(&e.xd, path ? &r : NULL) == 0);
		CHECK(xms_dma_info(&e.xd, &in) == 0);
		CHECK_EQ_U64(in.engines, info.engines);
		CHECK(xms_sem_set(&e.xd, 4, 10 + path) == 0);
		CHECK(xms_sem_get(&e.xd, 4, &v) == 0);
		CHECK_EQ_U64(v, 10 + path);
		CHECK(xms_sem_wait(&e.xd, 4, 10 + path, 0) == 0);
		CHECK(xms_sem_wait(&e.xd, 4, 11 + path, 1000000) == -ETIMEDOUT);
		d = desc(e.buf[0], e.buf[1], 8192, 1, 3);
		d.tag = 77 + path;
		d.signal_sem = 4;
		d.signal_inc = 5;
		CHECK(xms_dma_submit(&e.xd, &d, 1, &t) == 0);
		/* the same on both paths: queued, then waited for and reaped */
		CHECK(xms_dma_wait(&e.xd, t, -1, &w) == 0);
		CHECK_EQ_U64(w.tag, 77 + path);
		CHECK_EQ_U64(w.end_ns - w.start_ns, dur(HBM, HBM, 8192));
		CHECK(xms_sem_get(&e.xd, 4, &v) == 0);
		CHECK_EQ_U64(v, 15 + path);
		CHECK(xms_dma_wait(&e.xd, t, 0, &w) == -ENOENT);
	}
	xms_attach_ring(&e.xd, NULL);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * Through io_uring, DMA_SUBMIT's CQE comes once its transfers are queued,
 * as ioctl() returns: a held one's at once, its ticket written. Its end
 * is a DMA_WAIT's, through the same ring. Before, the CQE waited for the
 * transfers, and a runtime that queued its loads and its stores in two
 * submits, each waiting on the other's semaphores, hung.
 */
TEST(io_uring_submit_returns_once_queued)
{
	static struct xmemsim_dma_desc d[2];
	static struct xmemsim_dma_submit s[2];
	static struct xmemsim_dma_wait w;
	struct xms_result res[2];
	struct xms_ring r;
	struct env e;
	int n;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	/* 0 waits for 1's signal: queued first, in its own submit */
	d[0] = desc(e.buf[0], e.buf[1], 65536, 0, 0);
	d[0].wait_sem = 6;
	d[0].wait_value = 1;
	d[1] = desc(e.buf[2], e.buf[3], 4096, 1, 0);
	d[1].signal_sem = 6;
	d[1].signal_inc = 1;
	s[0] = (struct xmemsim_dma_submit){ .descs = (uintptr_t)&d[0], .count = 1,
					    .ticket = UINT64_MAX };
	REQUIRE(xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &s[0], 10) == 0);
	REQUIRE(xms_ring_submit(&r) == 1);
	n = xms_ring_reap_timeout(&r, res, 2, 1, 5000000000LL);
	CHECK(n == 1 && res[0].tag == 10 && res[0].res == 0);
	CHECK(s[0].ticket != UINT64_MAX);
	/* held: its source is pinned */
	CHECK(xms_free(&e.xd, HBM, e.buf[0], NULL) == -EBUSY);
	s[1] = (struct xmemsim_dma_submit){ .descs = (uintptr_t)&d[1], .count = 1 };
	w = (struct xmemsim_dma_wait){ .ticket = s[0].ticket, .timeout_ns = -1 };
	REQUIRE(xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &s[1], 11) == 0);
	REQUIRE(xms_ring_submit(&r) == 1);
	n = xms_ring_reap_timeout(&r, res, 2, 1, 5000000000LL);
	CHECK(n == 1 && res[0].tag == 11 && res[0].res == 0);
	CHECK_EQ_U64(s[1].ticket, s[0].ticket + 1);
	REQUIRE(xms_ring_queue(&r, XMEMSIM_IOC_DMA_WAIT, &w, 12) == 0);
	REQUIRE(xms_ring_submit(&r) == 1);
	n = xms_ring_reap_timeout(&r, res, 2, 1, 5000000000LL);
	CHECK(n == 1 && res[0].tag == 12 && res[0].res == 0);
	CHECK(w.status == 0 && w.end_ns - w.start_ns == dur(HBM, HBM, 65536));
	CHECK(dwait(e.fd, s[1].ticket, 5000000000LL, &w) == 0 && !w.status);
	CHECK(xms_free(&e.xd, HBM, e.buf[0], NULL) == 0);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * The ticket is an output: written back before the CQE, never after it.
 * The caller reuses the struct at once, as the library's stack frame
 * would be. Two CPUs: the race is real; many rounds.
 */
TEST(io_uring_submit_writes_its_ticket_before_its_cqe)
{
	static struct xmemsim_dma_desc d;
	static struct xmemsim_dma_submit s;
	struct xmemsim_dma_completion rec;
	struct xms_result res;
	struct xms_ring r;
	struct env e;
	int i, late = 0, bad = 0, spin;
	uint32_t n;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	d = desc(e.buf[6], e.buf[7], 64, 0, 0);
	for (i = 0; i < 1000; i++) {
		s = (struct xmemsim_dma_submit){ .descs = (uintptr_t)&d,
						 .count = 1, .ticket = UINT64_MAX };
		if (xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &s, i) ||
		    xms_ring_submit(&r) != 1 || xms_ring_reap(&r, &res, 1, 1) != 1 ||
		    res.res) {
			bad++;
			break;
		}
		late += __atomic_load_n(&s.ticket, __ATOMIC_ACQUIRE) == UINT64_MAX;
		__atomic_store_n(&s.ticket, 0, __ATOMIC_RELEASE);
		for (spin = 0; spin < 2000; spin++)
			late += __atomic_load_n(&s.ticket, __ATOMIC_ACQUIRE) != 0;
		if (xms_dma_reap(&e.xd, &rec, 1, 5000000000LL, &n) || n != 1)
			bad++;
	}
	printf("# %d submits, %d tickets seen late\n", i, late);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(late, 0);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * The submit struct unmapped right after io_uring_enter: the CQE is 0 or
 * -EFAULT (nothing queued, or queued with the ticket lost), nothing else;
 * whatever was queued is reaped by DMA_REAP, both blocks free after, and
 * the guest's kernel log stays clean.
 */
TEST(io_uring_submit_struct_unmapped_in_flight)
{
	static struct xmemsim_dma_desc d;
	struct xmemsim_dma_completion rec[8];
	int i, done = 0, efault = 0, other = 0;
	struct xms_result res;
	struct xms_ring r;
	struct env e;
	uint32_t n;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	d = desc(e.buf[6], e.buf[7], 64, 0, 0);
	for (i = 0; i < 300; i++) {
		struct xmemsim_dma_submit *s;

		s = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		REQUIRE(s != MAP_FAILED);
		*s = (struct xmemsim_dma_submit){ .descs = (uintptr_t)&d,
						  .count = 1 };
		REQUIRE(xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, s, i) == 0);
		REQUIRE(xms_ring_submit(&r) == 1);
		munmap(s, 4096);
		REQUIRE(xms_ring_reap(&r, &res, 1, 1) == 1);
		done += res.res == 0;
		efault += res.res == -EFAULT;
		other += res.res && res.res != -EFAULT;
		while (!xms_dma_reap(&e.xd, rec, 8, 1000000000LL, &n))
			;
	}
	printf("# 300 submits, struct unmapped in flight: %d done, %d -EFAULT\n",
	       done, efault);
	CHECK_EQ_U64(other, 0);
	CHECK(xms_free(&e.xd, HBM, e.buf[6], NULL) == 0);
	CHECK(xms_free(&e.xd, HBM, e.buf[7], NULL) == 0);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * A ring closed (the task lives on) with a DMA_WAIT in flight on a held
 * transfer: the ring goes at once, the wait interrupted; the transfer is
 * the file's and stays queued until its semaphore comes.
 */
/* A wait's argument written back: its end is there (test_settle). */
static int ring_wait_wrote(void *arg)
{
	return __atomic_load_n(&((struct xmemsim_dma_wait *)arg)->end_ns,
			       __ATOMIC_ACQUIRE) != 0;
}

/*
 * Transfer d, held on semaphore 7 (until it reaches 1), and through r a
 * DMA_WAIT on it (*w, tagged tag, in flight): 0, or -1. *t: its ticket.
 */
static int held_wait_in_ring(struct env *e, struct xms_ring *r,
			     struct xmemsim_dma_desc d, struct xmemsim_dma_wait *w,
			     uint64_t tag, uint64_t *t)
{
	d.wait_sem = 7;
	d.wait_value = 1;
	if (submit(e->fd, &d, 1, t))
		return -1;
	*w = (struct xmemsim_dma_wait){ .ticket = *t, .timeout_ns = -1 };
	return xms_ring_queue(r, XMEMSIM_IOC_DMA_WAIT, w, tag) ||
	       xms_ring_submit(r) != 1 ? -1 : 0;
}

/*
 * Closing a ring ends its wait in flight, and loses no record. io_uring
 * tears a ring down after close() returns, so the wait may still see the
 * transfer end first and reap it, into its own argument (as a read in
 * flight at close may still consume what it reads); else the record
 * stays for the next wait. Either way exactly one of the two waits has it.
 */
TEST(closing_the_ring_ends_a_wait_in_flight)
{
	static struct xmemsim_dma_wait wr;	/* the ring's wait */
	struct xmemsim_dma_wait w;
	struct xms_ring r;
	struct env e;
	uint64_t t, v = 1;
	int ret, by_ring;

	REQUIRE(env_open(&e) == 0 && xms_ring_init(&r, &e.xd, 8) == 0);
	REQUIRE(held_wait_in_ring(&e, &r, desc(e.buf[4], e.buf[5], 65536, 2, 1),
				  &wr, 1, &t) == 0);
	usleep(20000);
	alarm(60);
	xms_ring_exit(&r);
	alarm(0);
	CHECK(xms_free(&e.xd, HBM, e.buf[4], NULL) == -EBUSY);
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_SET, 7, &v, 0) == 0);
	ret = dwait(e.fd, t, 5000000000LL, &w);
	by_ring = ret == -ENOENT;
	printf("# the record went to the %s wait (ioctl wait: %d)\n",
	       by_ring ? "closed ring's" : "ioctl", ret);
	CHECK(ret == 0 || by_ring);
	if (by_ring) {	/* the ring's wait reaped it, into its argument */
		CHECK(test_settle(ring_wait_wrote, &wr));
		CHECK(!wr.status && wr.end_ns - wr.start_ns == dur(HBM, HBM, 65536));
	}
	else
		CHECK(!w.status && w.end_ns - w.start_ns == dur(HBM, HBM, 65536) && !wr.end_ns);
	CHECK(xms_free(&e.xd, HBM, e.buf[4], NULL) == 0);
	xms_close(&e.xd);
}

/*
 * A child with transfers held on a semaphore, one thread of it in
 * DMA_WAIT (or a ring with a SEM_WAIT in flight), dies: nothing hangs,
 * its blocks come back, and its queue no longer holds the engine.
 */
static void child_blocks(int use_ring, int ready_fd)
{
	static struct xmemsim_sem sw = { .sem = 9, .value = 1, .timeout_ns = -1 };
	struct xmemsim_dma_desc d[4];
	struct xmemsim_dma_wait w;
	struct xms_ring r;
	struct env e;
	uint64_t t;
	int i;

	if (env_open(&e))
		_exit(2);
	for (i = 0; i < 4; i++) {
		d[i] = desc(e.buf[i], e.buf[4 + i], 65536, 0, 0);
		d[i].wait_sem = 9;
		d[i].wait_value = 1;	/* never set */
	}
	if (submit(e.fd, d, 4, &t))
		_exit(3);
	if (use_ring) {
		static struct xmemsim_dma_submit s = { .count = 1 };

		s.descs = (uintptr_t)&d[0];
		if (xms_ring_init(&r, &e.xd, 8) ||
		    xms_ring_queue(&r, XMEMSIM_IOC_SEM_WAIT, &sw, 1) ||
		    xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &s, 2) ||
		    xms_ring_submit(&r) != 2)
			_exit(4);
		if (write(ready_fd, "r", 1) != 1)
			_exit(5);
		_exit(0);	/* the ring goes with a wait in flight */
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	dwait(e.fd, t, -1, &w);	/* killed in here */
	_exit(6);
}

static void dies_with_work_in_flight(int use_ring)
{
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	int p[2], st;
	struct env e;
	uint64_t t;
	pid_t pid;
	char c;

	REQUIRE(pipe(p) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		close(p[0]);
		child_blocks(use_ring, p[1]);
	}
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 1);
	close(p[0]);
	usleep(50000);
	if (!use_ring)
		kill(pid, SIGKILL);
	alarm(60);	/* a hang fails the run rather than stalling it */
	CHECK(waitpid(pid, &st, 0) == pid);
	alarm(0);
	CHECK(use_ring ? WIFEXITED(st) && !WEXITSTATUS(st) :
			 WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* its blocks are free again, and engine 0 serves others at once */
	REQUIRE(env_open(&e) == 0);
	d = desc(e.buf[0], e.buf[1], 4096, 0, 0);
	CHECK(submit(e.fd, &d, 1, &t) == 0);
	CHECK(dwait(e.fd, t, 5000000000LL, &w) == 0);
	xms_close(&e.xd);
}

TEST(kill_9_in_dma_wait_with_transfers_queued)
{
	dies_with_work_in_flight(0);
}

TEST(exit_with_a_ring_waiting_on_a_semaphore)
{
	dies_with_work_in_flight(1);
}

/* One completion as a runtime keeps it: ticket and start from the first. */
struct done_rec {
	uint64_t tag, start, dur;
	int status, seen;
};

enum { NPIPE = 32 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* What poll() says now, at once: POLLIN, POLLOUT or both. */
static short ready_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/*
 * A runtime's completion loop, one body for each path (0: DMA_REAP by
 * ioctl, waiting in the call; 1: the same through the attached ring;
 * 2: poll() for POLLIN, then DMA_REAP without waiting). 32 transfers
 * held on a semaphore, submitted by ioctl: no readiness and nothing to
 * reap before the submit or while they are held; after the semaphore,
 * every record once, in ticket order within a batch, into out[].
 */
static void completion_loop(struct env *e, struct xms_ring *r, int path,
			    struct done_rec out[NPIPE])
{
	static struct xmemsim_dma_desc d[NPIPE];
	struct xmemsim_dma_completion rec[64];
	struct pollfd pin = { .fd = e->fd, .events = POLLIN };
	struct xmemsim_user_stats us;
	uint64_t t0, first = UINT64_MAX;
	uint32_t i, k, n, got = 0;
	int rounds, ret;

	memset(out, 0, NPIPE * sizeof(*out));
	CHECK(ready_now(e->fd) == POLLOUT);
	CHECK(xms_attach_ring(&e->xd, path == 1 ? r : NULL) == 0);
	CHECK(xms_dma_reap(&e->xd, rec, 64, -1, &n) == -ENOENT);
	for (i = 0; i < NPIPE; i++) {
		d[i] = desc(e->buf[i % 4], e->buf[4 + i % 4], 4096, i % 2, i % 3);
		d[i].tag = 1000 * path + i;
		d[i].wait_sem = 5;
		d[i].wait_value = path + 1;
	}
	REQUIRE(xms_dma_submit(&e->xd, d, NPIPE, &t0) == 0);
	CHECK(ready_now(e->fd) == POLLOUT);
	CHECK(xms_user_stats(&e->xd, &us) == 0);
	CHECK_EQ_U64(us.dma_inflight, NPIPE);	/* the user's, as top shows */
	CHECK(xms_dma_reap(&e->xd, rec, 64, 0, &n) == -EAGAIN);
	CHECK(xms_dma_reap(&e->xd, rec, 64, 2000000, &n) == -ETIMEDOUT);
	CHECK(xms_sem_set(&e->xd, 5, path + 1) == 0);
	for (rounds = 0; got < NPIPE && rounds < 100; rounds++) {
		if (path == 2) {
			pin.revents = 0;
			CHECK(poll(&pin, 1, 10000) == 1 && (pin.revents & POLLIN));
			ret = xms_dma_reap(&e->xd, rec, 64, 0, &n);
		} else {
			ret = xms_dma_reap(&e->xd, rec, 64, 10000000000LL, &n);
		}
		CHECK(ret == 0);
		if (ret)
			break;
		for (k = 0; k < n; k++) {
			uint64_t idx = rec[k].ticket - t0;

			CHECK(idx < NPIPE && !out[idx].seen);
			CHECK(!k || rec[k].ticket > rec[k - 1].ticket);
			if (idx >= NPIPE || out[idx].seen)
				continue;
			out[idx] = (struct done_rec){
				.tag = rec[k].tag - 1000 * path,
				.start = rec[k].start_ns,
				.dur = rec[k].end_ns - rec[k].start_ns,
				.status = rec[k].status, .seen = 1,
			};
			if (rec[k].start_ns < first)
				first = rec[k].start_ns;
		}
		got += n;
	}
	CHECK_EQ_U64(got, NPIPE);
	for (i = 0; i < NPIPE; i++)
		out[i].start -= out[i].seen ? first : 0;
	/* all reaped: no readiness, nothing in flight, the tickets gone */
	CHECK(ready_now(e->fd) == POLLOUT);
	CHECK(xms_dma_reap(&e->xd, rec, 64, 0, &n) == -ENOENT);
	CHECK(xms_dma_wait(&e->xd, t0, 0, NULL) == -ENOENT);
	CHECK(xms_user_stats(&e->xd, &us) == 0 && us.dma_inflight == 0);
	CHECK(xms_attach_ring(&e->xd, NULL) == 0);
}

TEST(completions_through_ioctl_io_uring_and_poll)
{
	static struct done_rec got[3][NPIPE];
	static uint64_t starts[3][NPIPE];
	struct xms_ring r;
	struct env e;
	int path, i;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(xms_ring_init(&r, &e.xd, 8) == 0);
	for (path = 0; path < 3; path++)
		completion_loop(&e, &r, path, got[path]);
	for (path = 0; path < 3; path++) {
		for (i = 0; i < NPIPE; i++) {
			CHECK(got[path][i].seen && !got[path][i].status);
			CHECK_EQ_U64(got[path][i].tag, i);
			CHECK_EQ_U64(got[path][i].dur, dur(HBM, HBM, 4096));
			starts[path][i] = got[path][i].start;
		}
		/*
		 * which queue an engine serves first follows its round-robin
		 * state, which the earlier paths moved: the engines' timelines,
		 * the starts as a set, are the same
		 */
		qsort(starts[path], NPIPE, sizeof(starts[path][0]), cmp_u64);
		CHECK(!memcmp(starts[path], starts[0], sizeof(starts[0])));
	}
	printf("# 32 held transfers, the same records through ioctl, io_uring and poll\n");
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/* A reap into a buffer that faults loses nothing; bad arguments queue nothing. */
TEST(reap_into_a_bad_buffer_loses_nothing)
{
	struct xmemsim_dma_completion rec[2];
	struct xmemsim_dma_reap a;
	struct xmemsim_dma_desc d;
	uint64_t t;
	uint32_t n;
	struct env e;

	REQUIRE(env_open(&e) == 0);
	d = desc(e.buf[0], e.buf[1], 4096, 0, 0);
	d.tag = 4242;
	REQUIRE(submit(e.fd, &d, 1, &t) == 0);
	CHECK(poll(&(struct pollfd){ .fd = e.fd, .events = POLLIN }, 1, 10000) == 1);
	memset(&a, 0, sizeof(a));
	a.recs = 8;		/* unmapped */
	a.capacity = 2;
	CHECK(io(e.fd, XMEMSIM_IOC_DMA_REAP, &a) == -EFAULT);
	CHECK(ready_now(e.fd) == (POLLIN | POLLOUT));
	a.recs = (uintptr_t)rec;
	a.capacity = 0;
	CHECK(io(e.fd, XMEMSIM_IOC_DMA_REAP, &a) == -EINVAL);
	a.capacity = info.depth + 1;
	CHECK(io(e.fd, XMEMSIM_IOC_DMA_REAP, &a) == -EINVAL);
	a.capacity = 2;
	a.flags = 1;
	CHECK(io(e.fd, XMEMSIM_IOC_DMA_REAP, &a) == -EINVAL);
	a.flags = 0;
	a.reserved[1] = 1;
	CHECK(io(e.fd, XMEMSIM_IOC_DMA_REAP, &a) == -EINVAL);
	CHECK(xms_dma_reap(&e.xd, rec, 2, 0, &n) == 0);
	CHECK(n == 1 && rec[0].ticket == t && rec[0].tag == 4242 && !rec[0].status);
	CHECK(ready_now(e.fd) == POLLOUT);
	xms_close(&e.xd);
}

/*
 * A DMA_WAIT through a ring on a held transfer, its CQE reaped with a
 * timeout: nothing by the deadline (-ETIMEDOUT, the command still in
 * flight), then its CQE once the semaphore comes.
 */
TEST(ring_reap_times_out_on_a_held_wait)
{
	static struct xmemsim_dma_wait w;
	struct xms_result res[2];
	struct xms_ring r;
	struct env e;
	uint64_t t;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(xms_ring_init(&r, &e.xd, 4) == 0);
	REQUIRE(held_wait_in_ring(&e, &r, desc(e.buf[2], e.buf[3], 4096, 1, 0),
				  &w, 9, &t) == 0);
	CHECK(xms_ring_reap_timeout(&r, res, 2, 1, 20000000) == -ETIMEDOUT);
	CHECK(xms_ring_reap_timeout(&r, res, 2, 1, 0) == -ETIMEDOUT);
	CHECK(r.inflight == 1);
	CHECK(xms_sem_set(&e.xd, 7, 1) == 0);
	CHECK(xms_ring_reap_timeout(&r, res, 2, 1, 10000000000LL) == 1);
	CHECK(res[0].tag == 9 && res[0].res == 0 && r.inflight == 0);
	CHECK(w.ticket == t && !w.status);
	xms_ring_exit(&r);
	xms_close(&e.xd);
}

/*
 * io_uring's own timeout on a device wait: a DMA_WAIT with no timeout of
 * its own, linked to IORING_OP_LINK_TIMEOUT (20 ms), on a held transfer.
 * The link timeout fires and interrupts the wait in its worker: the
 * command's CQE is -EINTR (or -ECANCELED, had it not started; the
 * timeout's own CQE says what io_uring's cancel found), the transfer
 * stays queued and is waited for afterwards.
 */
TEST(io_uring_link_timeout_ends_a_device_wait)
{
	struct __kernel_timespec ts = { .tv_nsec = 20000000 };
	static struct xmemsim_dma_wait w;
	struct xmemsim_uring_cmd uc;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int i, cmd_res = 1, tmo_res = 1;
	uint64_t t, v = 1;
	struct env e;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(io_uring_queue_init(4, &ring, 0) == 0);
	REQUIRE(submit_held(&e, 0, 0, 8, &t) == 0);
	w = (struct xmemsim_dma_wait){ .ticket = t, .timeout_ns = -1 };
	uc = (struct xmemsim_uring_cmd){ .arg = (uintptr_t)&w };
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, e.fd, NULL, 0, 0);
	sqe->cmd_op = XMEMSIM_IOC_DMA_WAIT;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->user_data = 2;
	REQUIRE(io_uring_submit(&ring) == 2);
	alarm(60);
	for (i = 0; i < 2; i++) {
		REQUIRE(io_uring_wait_cqe(&ring, &cqe) == 0);
		if (cqe->user_data == 1)
			cmd_res = cqe->res;
		else
			tmo_res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	alarm(0);
	printf("# DMA_WAIT CQE %d, link timeout CQE %d\n", cmd_res, tmo_res);
	CHECK(cmd_res == -EINTR || cmd_res == -ECANCELED);
	CHECK(tmo_res < 0);	/* what io_uring's cancel found: its business */
	io_uring_queue_exit(&ring);
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_SET, 8, &v, 0) == 0);
	CHECK(dwait(e.fd, t, 5000000000LL, &w) == 0 && !w.status);
	xms_close(&e.xd);
}

/*
 * io_uring delivers a completion to its task as task work, which makes a
 * sleeping task's signal_pending() true (TIF_NOTIFY_SIGNAL) though no
 * signal came. A DMA_WAIT by ioctl() sleeping then must not end with
 * -EINTR: its syscall restarts and it times out as asked. The module
 * before this gave -EINTR when the ring's 20 ms timeout fired, seen on
 * Debian's 6.12 as a spurious failure of a test run after io_uring ones.
 */
TEST(a_wait_is_not_cut_short_by_io_uring_task_work)
{
	struct __kernel_timespec ts = { .tv_nsec = 20000000 };
	struct xmemsim_dma_wait w;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	uint64_t t, v = 0;
	struct env e;

	REQUIRE(env_open(&e) == 0);
	REQUIRE(io_uring_queue_init(4, &ring, 0) == 0);
	REQUIRE(submit_held(&e, 0, 0, 6, &t) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	REQUIRE(io_uring_submit(&ring) == 1);
	CHECK_EQ_U64(dwait(e.fd, t, 300000000, &w), -ETIMEDOUT);
	CHECK_EQ_U64(sem(e.fd, XMEMSIM_IOC_SEM_WAIT, 6, &(uint64_t){ 1 }, 0), -ETIMEDOUT);
	REQUIRE(io_uring_wait_cqe(&ring, &cqe) == 0);
	CHECK(cqe->res == -ETIME);	/* the timeout did fire meanwhile */
	io_uring_cqe_seen(&ring, cqe);
	/* and a second timer while a SEM_WAIT sleeps */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	REQUIRE(io_uring_submit(&ring) == 1);
	v = 1;
	CHECK_EQ_U64(sem(e.fd, XMEMSIM_IOC_SEM_WAIT, 6, &v, 300000000), -ETIMEDOUT);
	io_uring_queue_exit(&ring);
	CHECK(sem(e.fd, XMEMSIM_IOC_SEM_SET, 6, &v, 0) == 0);
	CHECK(dwait(e.fd, t, -1, &w) == 0 && !w.status);
	xms_close(&e.xd);
}

#define STALL "/sys/kernel/debug/xmemsim/fail_dma_stall/"

/*
 * The DMA_STALL fault site, the module's own, on (every transfer of a
 * make-it-fail task stalls its engine once done) or off: 0, or -1 if the
 * kernel has no fault injection or this is not root.
 */
static int stall(int on)
{
	int ret = 0;

	if (on)
		ret = test_write_str(STALL "verbose", "0") ||
		      test_write_str(STALL "times", "1000000") ||
		      test_write_str(STALL "probability", "100");
	else
		ret = test_write_str(STALL "probability", "0");
	return ret || test_write_str("/proc/self/make-it-fail", on ? "1" : "0") ?
	       -1 : 0;
}

struct copier {
	struct env *e;
	int k, bad;
};

static void *copy_loop(void *arg)
{
	struct copier *c = arg;
	unsigned char b[4096];
	int i;

	for (i = 0; i < 40; i++) {
		memset(b, c->k * 40 + i, sizeof(b));
		if (xms_write(&c->e->xd, c->e->buf[2 * c->k], b, sizeof(b)) ||
		    xms_copy(&c->e->xd, c->e->buf[2 * c->k], c->e->buf[2 * c->k + 1],
			     sizeof(b), XMEMSIM_COPY_DMA) ||
		    xms_read(&c->e->xd, c->e->buf[2 * c->k + 1], b, sizeof(b)) ||
		    b[0] != (unsigned char)(c->k * 40 + i) ||
		    b[4095] != (unsigned char)(c->k * 40 + i))
			c->bad++;
	}
	return NULL;
}

/*
 * A COPY by DMA frees its transfer as soon as it sees it done, and the
 * scheduler must read nothing of it after. The DMA_STALL fault site holds
 * the engine 20 ms after each completion of this process's transfers, an
 * RCU grace period and more, while two threads on two CPUs copy: KASAN,
 * which vm.sh scans for, would report any read of a freed transfer. The
 * module before read the transfer after marking it done (its trace,
 * length and end).
 */
TEST(nothing_reads_a_copys_transfer_after_it_is_done)
{
	long long before = test_fault_count("dma_stall");
	struct copier c[2];
	pthread_t th[2];
	struct env e;
	int i;

	if (stall(1)) {
		stall(0);
		SKIP("no fail_dma_stall to arm (fault injection, debugfs, root)");
	}
	REQUIRE(env_open(&e) == 0);
	for (i = 0; i < 2; i++) {
		c[i] = (struct copier){ .e = &e, .k = i };
		REQUIRE(pthread_create(&th[i], NULL, copy_loop, &c[i]) == 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(stall(0) == 0);
	printf("# 80 COPYs by DMA with the engine stalled after each (%lld stalls): %d bad\n",
	       test_fault_count("dma_stall") - before, c[0].bad + c[1].bad);
	CHECK(test_fault_count("dma_stall") - before >= 80);
	CHECK_EQ_U64(c[0].bad + c[1].bad, 0);
	xms_close(&e.xd);
}

int main(void)
{
	/* every test reads the model; TAP_ONLY may run any one alone */
	return test_dma_model(&info) ? 1 : tap_run();
}
