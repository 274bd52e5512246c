// SPDX-License-Identifier: GPL-2.0
/*
 * dma_check: the DMA timing checker. tests/vm/run.sh loads the module
 * twice for it: dma_check=2 (reports refuse, on the virtual clock), then
 * dma_check=1 with time_scale=200000 (reports only; a 4 KiB transfer then
 * runs for about half a second of wall time, long enough to read its
 * destination mid-flight). The mode is read back from the parameters.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define NONE XMEMSIM_SEM_NONE


/* sysfs dma_check_reports: host, free, race */
static void reports(long long r[3])
{
	FILE *f = fopen("/sys/class/misc/xmemsim/dma_check_reports", "r");

	r[0] = r[1] = r[2] = -1;
	if (f) {
		if (fscanf(f, "host %lld free %lld race %lld", &r[0], &r[1], &r[2]) != 3)
			r[0] = -1;
		fclose(f);
	}
}

static struct xmemsim_dma_desc desc(uint64_t src, uint64_t dst, uint32_t len,
				    uint32_t engine, uint32_t queue, uint32_t wait)
{
	struct xmemsim_dma_desc d = {
		.src = src, .dst = dst, .len = len, .engine = engine,
		.queue = queue, .wait_sem = wait, .wait_value = 1,
		.signal_sem = NONE,
	};

	return d;
}

struct env {
	struct xms_dev xd;
	uint64_t b[4];		/* 16 KiB HBM blocks */
	unsigned char buf[16384];
};

static int env_open(struct env *e)
{
	int i;

	if (xms_open(&e->xd, NULL))
		return -1;
	for (i = 0; i < 4; i++)
		if (xms_alloc(&e->xd, HBM, 16384, 4096, 0, &e->b[i], NULL))
			return -1;
	return 0;
}

/* dma_check=2: every hazard is refused and counted, a correct use is not. */
TEST(refuse_mode_refuses_each_hazard)
{
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	long long r0[3], r1[3];
	struct env *e = calloc(1, sizeof(*e));
	uint64_t t;

	REQUIRE(e);
	if (test_param("dma_check") != 2)
		SKIP("dma_check is not 2");
	REQUIRE(env_open(e) == 0);
	reports(r0);
	REQUIRE(r0[0] >= 0);
	/* b0 -> b1, held on semaphore 0; it signals semaphore 1 */
	d = desc(e->b[0], e->b[1], 16384, 0, 0, 0);
	d.signal_sem = 1;
	d.signal_inc = 1;
	REQUIRE(xms_dma_submit(&e->xd, &d, 1, &t) == 0);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 64) == -EBUSY);	/* its dst */
	CHECK(xms_write(&e->xd, e->b[0] + 100, e->buf, 64) == -EBUSY);	/* its src */
	CHECK(xms_read(&e->xd, e->b[0], e->buf, 64) == 0);	/* reading src is fine */
	CHECK(xms_copy(&e->xd, e->b[2], e->b[1], 64, XMEMSIM_COPY_C_MEMCPY) == -EBUSY);
	CHECK(xms_memset(&e->xd, e->b[0], 1, 64) == -EBUSY);
	CHECK(xms_free(&e->xd, HBM, e->b[1], NULL) == -EBUSY);
	CHECK(xms_read(&e->xd, e->b[2], e->buf, 64) == 0);	/* untouched */
	reports(r1);
	CHECK_EQ_U64(r1[0] - r0[0], 4);
	CHECK_EQ_U64(r1[1] - r0[1], 1);
	/* another queue reading b1 without a semaphore: refused, not queued */
	d = desc(e->b[1], e->b[3], 4096, 1, 0, NONE);
	CHECK(xms_dma_submit(&e->xd, &d, 1, NULL) == -EBUSY);
	reports(r0);
	CHECK_EQ_U64(r0[2] - r1[2], 1);
	/* a wait on a semaphore the other's queue never signals orders nothing */
	d.wait_sem = 2;
	CHECK(xms_dma_submit(&e->xd, &d, 1, NULL) == -EBUSY);
	reports(r0);
	CHECK_EQ_U64(r0[2] - r1[2], 2);
	/* waiting for its signal, or on the same queue, it is ordered: no report */
	d.wait_sem = 1;
	CHECK(xms_dma_submit(&e->xd, &d, 1, NULL) == 0);
	d = desc(e->b[1], e->b[2], 4096, 0, 0, NONE);
	CHECK(xms_dma_submit(&e->xd, &d, 1, NULL) == 0);
	reports(r1);
	CHECK_EQ_U64(r1[2], r0[2]);
	/* let everything run; then the bytes are free to touch */
	CHECK(xms_sem_set(&e->xd, 0, 1) == 0);
	CHECK(xms_dma_wait(&e->xd, t, -1, &w) == 0);
	CHECK(xms_dma_wait(&e->xd, t + 1, -1, &w) == 0);
	CHECK(xms_dma_wait(&e->xd, t + 2, -1, &w) == 0);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 64) == 0);
	reports(r0);
	CHECK(!memcmp(r0, r1, sizeof(r0)));
	xms_close(&e->xd);
	free(e);
}

/*
 * Order through a chain of semaphores: A (queue 0/0) writes b1 and
 * signals 1; B (1/0) waits on 1, moves other bytes and signals 2; C
 * (0/1) waits on 2 and reads b1; D, after C on C's queue, waits on
 * nothing and reads b1 too. C follows B, which follows A, and D follows
 * C: no race, whether the four come in one submit or four. A reader that
 * waits on a semaphore nobody signals after A is still refused.
 */
TEST(a_chain_of_semaphores_orders)
{
	struct xmemsim_dma_desc d[4];
	long long r0[3], r1[3];
	struct env *e = calloc(1, sizeof(*e));
	struct xmemsim_dma_desc bad;
	uint64_t t;
	int round, k;

	REQUIRE(e);
	if (test_param("dma_check") != 2)
		SKIP("dma_check is not 2");
	REQUIRE(env_open(e) == 0);
	for (round = 0; round < 2; round++) {
		reports(r0);
		d[0] = desc(e->b[0], e->b[1], 4096, 0, 0, 0);	/* held on 0 */
		d[0].signal_sem = 1;
		d[0].signal_inc = 1;
		d[1] = desc(e->b[2], e->b[3], 4096, 1, 0, 1);
		d[1].signal_sem = 2;
		d[1].signal_inc = 1;
		d[2] = desc(e->b[1], e->b[2] + 8192, 4096, 0, 1, 2);
		d[3] = desc(e->b[1], e->b[2] + 12288, 4096, 0, 1, NONE);
		for (k = 0; k < 3; k++)	/* each round's values */
			d[k].wait_value = (uint64_t)round + 1;
		if (round == 0) {
			CHECK(xms_dma_submit(&e->xd, d, 4, &t) == 0);
		} else {
			for (k = 0; k < 4; k++)
				CHECK(xms_dma_submit(&e->xd, &d[k], 1, k ? NULL : &t) == 0);
		}
		bad = desc(e->b[1], e->b[3] + 8192, 4096, 1, 1, 3);
		CHECK(xms_dma_submit(&e->xd, &bad, 1, NULL) == -EBUSY);
		reports(r1);
		printf("# %s: races reported %lld (the bad reader's alone)\n",
		       round ? "four submits" : "one submit", r1[2] - r0[2]);
		CHECK_EQ_U64(r1[2] - r0[2], 1);
		CHECK(xms_sem_set(&e->xd, 0, (uint64_t)round + 1) == 0);
		for (k = 0; k < 4; k++)
			CHECK(xms_dma_wait(&e->xd, t + k, -1, NULL) == 0);
	}
	xms_close(&e->xd);
	free(e);
}

/*
 * A transfer the process has not observed is in flight for the checker,
 * however long ago it ended, on any clock: the commonest bug a runtime
 * makes is to read a destination right after submitting, which on the
 * virtual clock used to go unreported because the transfer had finished.
 * Observing it (a reap, a semaphore value it signalled, a later transfer
 * of its queue reaped) makes the bytes the host's again.
 */
TEST(an_unobserved_transfer_is_in_flight_on_any_clock)
{
	struct pollfd pfd = { .events = POLLIN };
	struct xmemsim_dma_completion rec;
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait w;
	struct env *e = calloc(1, sizeof(*e));
	long long r0[3], r1[3], mode = test_param("dma_check");
	int want = mode == 2 ? -EBUSY : 0;
	uint64_t t, v;
	uint32_t n;

	REQUIRE(e);
	if (!mode)
		SKIP("dma_check is off");
	REQUIRE(env_open(e) == 0);
	pfd.fd = e->xd.fd;
	/* submitted, ended (POLLIN: its record waits), not observed */
	d[0] = desc(e->b[0], e->b[1], 4096, 0, 0, NONE);
	d[0].signal_sem = 3;
	d[0].signal_inc = 1;
	REQUIRE(xms_dma_submit(&e->xd, d, 1, &t) == 0);
	CHECK(poll(&pfd, 1, 10000) == 1);
	reports(r0);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 64) == want);
	reports(r1);
	CHECK_EQ_U64(r1[0] - r0[0], 1);
	/* the semaphore's value is its signal: observed */
	CHECK(xms_sem_get(&e->xd, 3, &v) == 0 && v == 1);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 64) == 0);
	CHECK(xms_dma_reap(&e->xd, &rec, 1, 0, &n) == 0 && n == 1);
	/* two on one queue: reaping the second observes the first */
	d[0] = desc(e->b[0], e->b[2], 4096, 0, 1, NONE);
	d[1] = desc(e->b[0], e->b[3], 4096, 0, 1, NONE);
	REQUIRE(xms_dma_submit(&e->xd, d, 2, &t) == 0);
	CHECK(xms_dma_wait(&e->xd, t + 1, -1, &w) == 0);
	CHECK(xms_read(&e->xd, e->b[2], e->buf, 64) == 0);
	CHECK(xms_dma_wait(&e->xd, t, -1, &w) == 0);
	/* a reap observes */
	d[0] = desc(e->b[0], e->b[1], 4096, 1, 0, NONE);
	REQUIRE(xms_dma_submit(&e->xd, d, 1, &t) == 0);
	CHECK(xms_dma_reap(&e->xd, &rec, 1, -1, &n) == 0 && n == 1);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 64) == 0);
	reports(r0);
	CHECK(!memcmp(r0, r1, sizeof(r0)));
	xms_close(&e->xd);
	free(e);
}

/* A double-buffered pipeline, loads and stores ordered by semaphores. */
TEST(a_correct_pipeline_reports_nothing)
{
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait w;
	struct env *e = calloc(1, sizeof(*e));
	long long r0[3], r1[3];
	uint64_t t;
	int i;

	REQUIRE(e);
	if (!test_param("dma_check"))
		SKIP("dma_check is off");
	REQUIRE(env_open(e) == 0);
	reports(r0);
	for (i = 0; i < 4; i++) {
		int k = i % 2;

		/* load into buffer k on engine 0, signal; store it on engine 1 */
		d[0] = desc(e->b[0], e->b[1 + k], 8192, 0, k, NONE);
		d[0].signal_sem = k;
		d[0].signal_inc = 1;
		d[1] = desc(e->b[1 + k], e->b[3], 8192, 1, k, k);
		d[1].wait_value = i / 2 + 1;
		CHECK(xms_dma_submit(&e->xd, d, 2, &t) == 0);
		CHECK(xms_dma_wait(&e->xd, t, -1, &w) == 0);
		CHECK(xms_dma_wait(&e->xd, t + 1, -1, &w) == 0);
	}
	reports(r1);
	CHECK(!memcmp(r0, r1, sizeof(r0)));
	xms_close(&e->xd);
	free(e);
}

/* dma_check=1 on a slow clock: a read mid-flight shows the poison. */
TEST(report_mode_shows_poison_mid_flight)
{
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct env *e = calloc(1, sizeof(*e));
	long long r0[3], r1[3];
	uint64_t t;

	REQUIRE(e);
	if (test_param("dma_check") != 1 || !test_param("time_scale"))
		SKIP("not dma_check=1 with time_scale");
	REQUIRE(env_open(e) == 0);
	memset(e->buf, 0x42, 4096);
	REQUIRE(xms_write(&e->xd, e->b[0], e->buf, 4096) == 0);
	reports(r0);
	d = desc(e->b[0], e->b[1], 4096, 2, 0, NONE);
	REQUIRE(xms_dma_submit(&e->xd, &d, 1, &t) == 0);
	usleep(50000);		/* started, far from done */
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 4096) == 0);
	CHECK(e->buf[0] == XMEMSIM_DMA_POISON && e->buf[4095] == XMEMSIM_DMA_POISON);
	reports(r1);
	CHECK_EQ_U64(r1[0] - r0[0], 1);
	CHECK(xms_dma_wait(&e->xd, t, -1, &w) == 0);
	CHECK(xms_read(&e->xd, e->b[1], e->buf, 4096) == 0);
	CHECK(e->buf[0] == 0x42 && e->buf[4095] == 0x42);
	printf("# modeled %llu ns at time_scale %llu\n",
	       (unsigned long long)(w.end_ns - w.start_ns), test_param("time_scale"));
	xms_close(&e->xd);
	free(e);
}

/*
 * On a slow clock a DMA COPY waits for its transfer (16 KiB: 3,024 modeled
 * ns, about 0.6 s of wall time at time_scale=200000). kill -9 of the copying process ends it at once,
 * drops its transfer with no byte moved, gives the engine and the bounce
 * buffer back (the next DMA COPY goes through) and leaves nothing held.
 */
TEST(kill_9_during_a_dma_copy)
{
	struct env *e = calloc(1, sizeof(*e));
	long long hbm = test_read_ll("/sys/class/misc/xmemsim/hbm_used");
	struct timespec t0, t1;
	int status = 0, i, ready[2];
	char c = 0;
	pid_t pid;

	REQUIRE(e);
	if (!test_param("time_scale"))
		SKIP("the virtual clock ends a COPY at once");
	REQUIRE(pipe(ready) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		if (env_open(e) || write(ready[1], &c, 1) != 1)
			_exit(2);
		xms_copy(&e->xd, e->b[0], e->b[1], 16384, XMEMSIM_COPY_DMA);
		_exit(3);	/* it should not have ended */
	}
	close(ready[1]);
	REQUIRE(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	usleep(100000);		/* in its COPY, far from done */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGKILL);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# the copier died %ld ms after SIGKILL\n",
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (i = 0; i < 50 && test_read_ll("/sys/class/misc/xmemsim/hbm_used") != hbm; i++)
		usleep(100000);
	CHECK_EQ_U64(test_read_ll("/sys/class/misc/xmemsim/hbm_used"), hbm);
	/* the engine and the bounce buffer are free again */
	REQUIRE(env_open(e) == 0);
	memset(e->buf, 0x6b, 4096);
	REQUIRE(xms_write(&e->xd, e->b[2], e->buf, 4096) == 0);
	CHECK(xms_copy(&e->xd, e->b[2], e->b[3], 4096, XMEMSIM_COPY_DMA) == 0);
	CHECK(xms_read(&e->xd, e->b[3], e->buf, 4096) == 0 && e->buf[4095] == 0x6b);
	xms_close(&e->xd);
	free(e);
}

#define DRAM_USED "/sys/class/misc/xmemsim/dataram_used"

/* bounce_reserve=1: the staging block is held from load on */
static int bounce_reserved(void)
{
	FILE *f = fopen("/sys/module/xmemsim/parameters/bounce_reserve", "r");
	int c = f ? fgetc(f) : 'N';

	if (f)
		fclose(f);
	return c == 'Y' || c == '1';
}

/* One file's DMA COPY of 16 KiB of byte v, checked: the exit status. */
static int copy_own_bytes(struct env *e, int v, int ready)
{
	char c = 0;

	if (env_open(e))
		return 2;
	memset(e->buf, v, sizeof(e->buf));
	if (xms_write(&e->xd, e->b[0], e->buf, 16384) || write(ready, &c, 1) != 1)
		return 3;
	if (xms_copy(&e->xd, e->b[0], e->b[1], 16384, XMEMSIM_COPY_DMA))
		return 4;
	memset(e->buf, 0, sizeof(e->buf));
	if (xms_read(&e->xd, e->b[1], e->buf, 16384) || e->buf[0] != v ||
	    e->buf[16383] != v)
		return 5;
	return 0;
}

/*
 * Two files' DMA COPYs in flight at once (about 0.6 s each on engine 0,
 * one after the other) share the dataram staging block: the heap holds
 * one block while either is in flight, as when COPYs took turns on a
 * lock, each moves its own bytes, and the block goes back after the last.
 */
TEST(dma_copies_in_flight_share_one_staging_block)
{
	long long base = test_read_ll(DRAM_USED), peak = 0, v;
	struct env *e = calloc(2, sizeof(*e));
	int status[2], i, ready[2];
	pid_t pid[2];
	char c;

	REQUIRE(e && base >= 0);
	if (!test_param("time_scale"))
		SKIP("the virtual clock ends a COPY at once");
	if (bounce_reserved())
		SKIP("bounce_reserve=1 holds the block from load on");
	REQUIRE(pipe(ready) == 0);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0);
		if (!pid[i])
			_exit(copy_own_bytes(&e[i], 0x21 + i, ready[1]));
	}
	close(ready[1]);
	for (i = 0; i < 2; i++)
		REQUIRE(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	for (i = 0; i < 40; i++) {	/* while the first runs */
		v = test_read_ll(DRAM_USED);
		peak = v > peak ? v : peak;
		usleep(10000);
	}
	for (i = 0; i < 2; i++)
		REQUIRE(waitpid(pid[i], &status[i], 0) == pid[i]);
	v = test_read_ll(DRAM_USED);
	printf("# dataram_used %lld before, at most %lld while two DMA COPYs were in flight, %lld after\n",
	       base, peak, v);
	for (i = 0; i < 2; i++)
		CHECK(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0);
	CHECK(peak > base && peak - base < 2 * 4096);
	CHECK_EQ_U64(v, base);
	free(e);
}

int main(void)
{
	return tap_run();
}
