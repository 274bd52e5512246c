// SPDX-License-Identifier: GPL-2.0
/*
 * fair: one user's DMA cannot stall another's, and tells it nothing it
 * should not. tests/vm/run.sh runs it with the options of
 * modprobe.d/xmemsim-multiuser.conf, the node given to a group. An
 * attacker (uid 65534, in that group) works the engines; a root victim
 * measures what it costs them. Every figure is printed; the assertions
 * are generous bounds in units of the attacker's own work (its transfer's
 * wall time, the victim's time alone), never a wall-clock time.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"
#include "users.h"

#define HBM XMEMSIM_HEAP_HBM
#define NONE XMEMSIM_SEM_NONE
static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct xmemsim_dma_desc desc(uint64_t src, uint64_t dst, uint64_t len,
				    uint32_t engine, uint32_t queue)
{
	return (struct xmemsim_dma_desc){
		.src = src, .dst = dst, .len = len, .engine = engine,
		.queue = queue, .wait_sem = NONE, .signal_sem = NONE,
	};
}

/* --- 1: no lock across work ------------------------------------------------ */

enum { BIG = 8323072, BACKLOG = 256 };

struct backlog {
	double one_ms;		/* one attacker transfer alone, wall */
	volatile int running;
};

/* The attacker: 256 transfers of 8 MiB within its own 16 MiB, queued. */
static int flood(void *arg)
{
	struct backlog *b = arg;
	struct xmemsim_dma_desc d[BACKLOG];
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, t, x;
	double t0;
	int i;

	if (xms_open(&xd, NULL) || xms_alloc(&xd, HBM, BIG, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, BIG, 4096, 0, &x, NULL))
		return 2;
	for (i = 0; i < BACKLOG; i++)
		d[i] = desc(i % 2 ? x : s, i % 2 ? s : x, BIG, 0, i % 4);
	t0 = now_ms();		/* one alone: the unit of the bounds */
	if (xms_dma_submit(&xd, d, 1, &t) || xms_dma_wait(&xd, t, -1, &w))
		return 3;
	b->one_ms = now_ms() - t0;
	if (xms_dma_submit(&xd, d, BACKLOG, &t))
		return 4;
	b->running = 1;
	say_ready();
	for (i = 0; i < BACKLOG; i++)
		xms_dma_wait(&xd, t + i, -1, &w);
	b->running = 0;
	pause();
	return 0;
}

/* The median of n > 0 values (sorted in place). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * While the attacker's backlog runs, root's DMA_INFO and a 64-byte DMA on
 * the same engine wait for at most about one attacker transfer: the
 * scheduler holds dma->lock for one step, never while bytes move, and the
 * engine serves users in turn. The module before held the lock across
 * the whole backlog: DMA_INFO waited 11 s, 196 attacker transfers, and
 * the backlog was over after one round. The bound is on the median round:
 * a host that stalls the guest once (a busy host, TCG) lengthens one
 * round, not the half of them; the maximum is printed.
 */
TEST(a_backlog_does_not_hold_the_lock)
{
	struct backlog *b = shared(sizeof(*b));
	double info_max = 0, dma_max = 0, t0, dt, info[40], dma[40];
	struct xmemsim_dma_info in;
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, t;
	int i, n = 0;
	pid_t pid;

	REQUIRE(b);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	pid = attacker(flood, b);
	REQUIRE(pid > 0);
	d = desc(s, x, 64, 0, 0);
	for (i = 0; i < 40 && b->running; i++, n++) {
		t0 = now_ms();
		CHECK(xms_dma_info(&xd, &in) == 0);
		dt = now_ms() - t0;
		info_max = dt > info_max ? dt : info_max;
		info[i] = dt;
		t0 = now_ms();
		CHECK(xms_dma_submit(&xd, &d, 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, 60000000000LL, &w) == 0);
		dt = now_ms() - t0;
		dma_max = dt > dma_max ? dt : dma_max;
		dma[i] = dt;
	}
	REQUIRE(n >= 5 && b->one_ms > 0);
	printf("# one attacker transfer %.1f ms; over %d rounds under attack, root's DMA_INFO median %.2f ms (%.2f transfers), max %.2f ms; 64-byte DMA median %.1f ms (%.2f transfers), max %.1f ms (%.2f)\n",
	       b->one_ms, n, median(info, n), median(info, n) / b->one_ms, info_max,
	       median(dma, n), median(dma, n) / b->one_ms, dma_max, dma_max / b->one_ms);
	CHECK(median(info, n) < 1.0 * b->one_ms);
	CHECK(median(dma, n) < 4.0 * b->one_ms);
	finish(pid);
	xms_close(&xd);
}

/* --- 3: idle files cost the scheduler nothing ------------------------------ */

enum { IDLE_FILES = 8000 };

static int idle_files(void *arg)
{
	struct xmemsim_sem sm = { .sem = 0 };
	int i, *opened = arg;

	for (i = 0; i < IDLE_FILES; i++) {
		struct xms_dev xd;

		if (xms_open(&xd, NULL))
			break;
		if (ioctl(xd.fd, XMEMSIM_IOC_SEM_GET, &sm))	/* DMA state */
			break;
	}
	*opened = i;
	hold();
	return 0;
}

/* The median wall time of a 64-byte DMA, submit to reaped, of 200. */
static double small_dma_ms(struct xms_dev *xd, uint64_t s, uint64_t x)
{
	struct xmemsim_dma_desc d = desc(s, x, 64, 1, 0);
	struct xmemsim_dma_wait w;
	double ms[200], t0;
	uint64_t t;
	int i;

	for (i = 0; i < 200; i++) {
		t0 = now_ms();
		if (xms_dma_submit(xd, &d, 1, &t) || xms_dma_wait(xd, t, -1, &w))
			return -1;
		ms[i] = now_ms() - t0;
	}
	qsort(ms, 200, sizeof(ms[0]), cmp_double);
	return ms[100];
}

/*
 * 8,000 files of the attacker's with DMA state and nothing queued: root's
 * small DMA costs what it costs alone. The scheduler looks only at queues
 * with work (each engine's active list); before, it scanned every file at
 * every step: 39.5x with 16,368 files.
 */
TEST(idle_files_cost_nothing)
{
	int *opened = shared(sizeof(int));
	struct rlimit rl = { IDLE_FILES + 64, IDLE_FILES + 64 };
	struct xms_dev xd;
	double alone, beside;
	uint64_t s, x;
	pid_t pid;

	REQUIRE(opened);
	REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);	/* inherited */
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	alone = small_dma_ms(&xd, s, x);
	pid = attacker(idle_files, opened);
	REQUIRE(pid > 0);
	beside = small_dma_ms(&xd, s, x);
	printf("# root's 64-byte DMA: %.3f ms alone, %.3f ms beside %d idle files of uid 65534 (%.2fx)\n",
	       alone, beside, *opened, beside / alone);
	CHECK(*opened >= IDLE_FILES / 2);
	CHECK(alone > 0 && beside < 3 * alone);
	finish(pid);
	xms_close(&xd);
}

/* --- 4: the clock tells nobody what others moved --------------------------- */

struct watch {
	volatile int stop;
	uint64_t first, changes, polls;
};

/* The attacker polls its DMA_INFO now_ns until told to stop. */
static int watch_clock(void *arg)
{
	struct watch *w = arg;
	struct xmemsim_dma_info in;
	struct xms_dev xd;
	uint64_t last;

	if (xms_open(&xd, NULL) || xms_sem_set(&xd, 0, 0) || xms_dma_info(&xd, &in))
		return 2;
	w->first = last = in.now_ns;
	say_ready();
	while (!w->stop) {
		if (xms_dma_info(&xd, &in))
			return 3;
		w->polls++;
		w->changes += in.now_ns != last;
		last = in.now_ns;
	}
	pause();
	return 0;
}

/*
 * Root moves five transfers of distinct lengths while the attacker polls
 * its now_ns: a file's modeled now moves only with what it observes, so
 * the attacker sees no change and recovers no length. Before, one device
 * clock moved by each transfer's duration and gave all five lengths.
 */
TEST(now_ns_shows_nothing_of_others)
{
	static const uint64_t lens[] = { 4096, 100000, 1048576, 49728, 5246912 };
	struct watch *wt = shared(sizeof(*wt));
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, t;
	unsigned int i;
	pid_t pid;

	REQUIRE(wt);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 6 << 20, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 6 << 20, 4096, 0, &x, NULL) == 0);
	pid = attacker(watch_clock, wt);
	REQUIRE(pid > 0);
	for (i = 0; i < 5; i++) {
		d = desc(s, x, lens[i], i % 2, 0);
		CHECK(xms_dma_submit(&xd, &d, 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, -1, &w) == 0);
		usleep(20000);
	}
	wt->stop = 1;
	usleep(20000);
	printf("# uid 65534 polled now_ns %llu times while root moved 5 transfers: %llu changes\n",
	       (unsigned long long)wt->polls, (unsigned long long)wt->changes);
	CHECK(wt->polls > 5);
	CHECK_EQ_U64(wt->changes, 0);
	finish(pid);
	xms_close(&xd);
}

/* --- a user's queue errors are its own ------------------------------------- */

/* The attacker fails a transfer that stops its queue 0 on engine 0 and breaks its semaphore 0. */
static int break_queue(void *arg)
{
	struct xmemsim_dma_desc d[3];
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, t;
	int i, *st = arg;

	if (xms_open(&xd, NULL) || xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) ||
	    xms_fault_arm(&xd, XMEMSIM_FAULT_DMA_ERROR, 0, 0, 1))
		return 2;
	d[0] = desc(s, x, 4096, 0, 0);
	d[0].signal_sem = 0;
	d[0].signal_inc = 1;
	d[1] = desc(s, x, 4096, 0, 0);	/* behind it: cancelled */
	d[2] = desc(x, s, 4096, 1, 0);	/* waits on the broken semaphore */
	d[2].wait_sem = 0;
	d[2].wait_value = 1;
	if (xms_dma_submit(&xd, d, 3, &t))
		return 3;
	for (i = 0; i < 3; i++) {
		if (xms_dma_wait(&xd, t + i, 10000000000LL, &w))
			return 4;
		st[i] = w.status;
	}
	hold();
	return 0;
}

/*
 * uid 65534's queue 0 on engine 0 is in error and its semaphore 0 broken;
 * root's own queue 0 on engine 0 and semaphore 0 work as ever.
 */
TEST(another_users_queue_errors_change_nothing)
{
	int *st = shared(3 * sizeof(int));
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, t, v;
	pid_t pid;

	REQUIRE(st);
	pid = attacker(break_queue, st);
	REQUIRE(pid > 0);
	printf("# uid 65534's transfers ended %d %d %d\n", st[0], st[1], st[2]);
	CHECK(st[0] == -EIO && st[1] == -ECANCELED && st[2] == -EPIPE);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	d[0] = desc(s, x, 4096, 0, 0);
	d[0].signal_sem = 0;
	d[0].signal_inc = 1;
	d[1] = desc(x, s, 4096, 1, 0);
	d[1].wait_sem = 0;
	d[1].wait_value = 1;
	CHECK(xms_dma_submit(&xd, d, 2, &t) == 0);
	CHECK(xms_dma_wait(&xd, t, 10000000000LL, &w) == 0 && !w.status);
	CHECK(xms_dma_wait(&xd, t + 1, 10000000000LL, &w) == 0 && !w.status);
	CHECK(xms_sem_wait(&xd, 0, 1, 10000000000LL) == 0);
	CHECK(xms_sem_get(&xd, 0, &v) == 0 && v == 1);
	finish(pid);
	xms_close(&xd);
}

int main(void)
{
	users_init();
	return tap_run();
}
