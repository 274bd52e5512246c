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
#include <sched.h>
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

/* The attacker: 256 transfers of 8 MiB within its own 16 MiB, on all 4 engines. */
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
		d[i] = desc(i % 2 ? x : s, i % 2 ? s : x, BIG, (uint32_t)i % 4, 0);
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
 * While the attacker's backlog keeps all four engines busy, root's
 * DMA_INFO and a 64-byte DMA on engine 0 wait for less than one attacker
 * transfer (half), not for any engine's copying: no lock
 * of root's is held while the attacker's bytes move, and root's own task
 * takes root's steps. The module before held the lock across
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
	CHECK(median(dma, n) < 0.5 * b->one_ms);
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

/*
 * Root's 64-byte DMAs on engine e, submit to reaped, n of them (at most
 * 200), each after a SEM_GET if sem: the median and the total wall time
 * (the total shows a few long stalls that the median hides). -1 if one
 * failed.
 */
static double dma_round_ms(struct xms_dev *xd, uint64_t s, uint64_t x,
			   uint32_t e, int n, int sem, double *total)
{
	struct xmemsim_dma_desc d = desc(s, x, 64, e, 0);
	struct xmemsim_dma_wait w;
	double ms[200], t0;
	uint64_t t, v;
	int i;

	*total = 0;
	for (i = 0; i < n && i < 200; i++) {
		t0 = now_ms();
		if ((sem && xms_sem_get(xd, 0, &v)) || xms_dma_submit(xd, &d, 1, &t) ||
		    xms_dma_wait(xd, t, -1, &w))
			return -1;
		ms[i] = now_ms() - t0;
		*total += ms[i];
	}
	return median(ms, i);
}

/* Root's median 64-byte DMA on engine 1, of 200. */
static double small_dma_ms(struct xms_dev *xd, uint64_t s, uint64_t x)
{
	double total;

	return dma_round_ms(xd, s, x, 1, 200, 0, &total);
}

/* Root's small DMA alone, then beside an attacker holding files. */
struct beside {
	double alone, beside;	/* median ms */
	int *made;		/* the attacker's files, as it counts them */
};

/*
 * fn(b->made) as uid 65534, holding up to files files (RLIMIT_NOFILE is
 * raised for them): 0, or -1 if something failed on the way.
 */
static int small_dma_beside(int (*fn)(void *), int files, struct beside *b)
{
	struct rlimit rl = { (rlim_t)files + 64, (rlim_t)files + 64 };
	struct xms_dev xd;
	uint64_t s, x;
	pid_t pid;
	int ret = -1;

	b->made = shared(sizeof(int));
	if (!b->made || setrlimit(RLIMIT_NOFILE, &rl) || xms_open(&xd, NULL))
		return -1;	/* the limit is inherited */
	if (!xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) &&
	    !xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL)) {
		b->alone = small_dma_ms(&xd, s, x);
		pid = attacker(fn, b->made);
		if (pid > 0) {
			b->beside = small_dma_ms(&xd, s, x);
			finish(pid);
			ret = 0;
		}
	}
	xms_close(&xd);
	return ret;
}

/*
 * 8,000 files of the attacker's with DMA state and nothing queued: root's
 * small DMA costs what it costs alone. The scheduler looks only at queues
 * with work (each engine's active list); before, it scanned every file at
 * every step: 39.5x with 16,368 files.
 */
TEST(idle_files_cost_nothing)
{
	struct beside b;

	REQUIRE(small_dma_beside(idle_files, IDLE_FILES, &b) == 0);
	printf("# root's 64-byte DMA: %.3f ms alone, %.3f ms beside %d idle files of uid 65534 (%.2fx)\n",
	       b.alone, b.beside, *b.made, b.beside / b.alone);
	CHECK(*b.made >= IDLE_FILES / 2);
	CHECK(b.alone > 0 && b.beside < 3 * b.alone);
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
 * Root moves five transfers of distinct lengths, over engines 0 and 1,
 * waiting for each and then calling after(i, arg), or sleeping 20 ms
 * (after NULL): 0, or -1 if one failed.
 */
static int root_moves_five(void (*after)(int i, void *arg), void *arg)
{
	static const uint64_t lens[] = { 4096, 100000, 1048576, 49728, 5246912 };
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, t;
	int i, ret = -1;

	if (xms_open(&xd, NULL))
		return -1;
	if (xms_alloc(&xd, HBM, 6 << 20, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, 6 << 20, 4096, 0, &x, NULL))
		goto out;
	for (i = 0; i < 5; i++) {
		d = desc(s, x, lens[i], (uint32_t)i % 2, 0);
		if (xms_dma_submit(&xd, &d, 1, &t) || xms_dma_wait(&xd, t, -1, &w))
			goto out;
		if (after)
			after(i, arg);
		else
			usleep(20000);
	}
	ret = 0;
out:
	xms_close(&xd);
	return ret;
}

/*
 * Root moves five transfers of distinct lengths while the attacker polls
 * its now_ns: a file's modeled now moves only with what it observes, so
 * the attacker sees no change and recovers no length. Before, one device
 * clock moved by each transfer's duration and gave all five lengths.
 */
TEST(now_ns_shows_nothing_of_others)
{
	struct watch *wt;
	pid_t pid;

	wt = attacker_reporting(watch_clock, sizeof(*wt), &pid);
	REQUIRE(wt && pid > 0);
	CHECK(root_moves_five(NULL, NULL) == 0);
	wt->stop = 1;
	usleep(20000);
	printf("# uid 65534 polled now_ns %llu times while root moved 5 transfers: %llu changes\n",
	       (unsigned long long)wt->polls, (unsigned long long)wt->changes);
	CHECK(wt->polls > 5);
	CHECK_EQ_U64(wt->changes, 0);
	finish(pid);
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

/* --- a pushed clock, hung transfers: nobody else's time ------------------- */

enum { MIB = 1 << 20, PUSH = 64, PUSH_LEN = 5 * MIB, TRAIL = 240 };

struct push {
	double one_ms;		/* one attacker 1 MiB transfer alone, wall */
	uint64_t horizon;	/* a fresh file's now after the push */
	volatile int running;
};

/* Alternate n transfers of len between a and b on engine e. */
static void shuttle(struct xmemsim_dma_desc *d, int n, uint64_t a, uint64_t b,
		    uint64_t len, uint32_t e)
{
	int i;

	for (i = 0; i < n; i++)
		d[i] = desc(i % 2 ? b : a, i % 2 ? a : b, len, e, 0);
}

/* Reap count transfers of xd, sleeping in DMA_REAP. */
static int reap_all(struct xms_dev *xd, int count)
{
	struct xmemsim_dma_completion rec[16];
	uint32_t n;

	while (count > 0) {
		if (xms_dma_reap(xd, rec, 16, -1, &n))
			return -1;
		count -= (int)n;
	}
	return 0;
}

/*
 * The attacker: file A (made first) measures one 1 MiB transfer; file B
 * pushes engine 0's clock with 64 hung 5 MiB transfers (FAULT_ARM needs
 * no privilege); then A queues 240 1 MiB transfers on engine 1 and reaps
 * them.
 */
static int push_clock(void *arg)
{
	struct xmemsim_dma_desc d[TRAIL];
	struct push *p = arg;
	struct xmemsim_dma_info in;
	struct xmemsim_dma_wait w;
	struct xms_dev a, b, c;
	uint64_t s1, x1, s5, x5, t;
	double t0;

	if (xms_open(&a, NULL) || xms_alloc(&a, HBM, MIB, 4096, 0, &s1, NULL) ||
	    xms_alloc(&a, HBM, MIB, 4096, 0, &x1, NULL) || xms_open(&b, NULL) ||
	    xms_alloc(&b, HBM, PUSH_LEN, 4096, 0, &s5, NULL) ||
	    xms_alloc(&b, HBM, PUSH_LEN, 4096, 0, &x5, NULL))
		return 2;
	shuttle(d, TRAIL, s1, x1, MIB, 1);
	t0 = now_ms();
	if (xms_dma_submit(&a, d, 1, &t) || xms_dma_wait(&a, t, -1, &w))
		return 3;
	p->one_ms = now_ms() - t0;
	shuttle(d, PUSH, s5, x5, PUSH_LEN, 0);
	if (xms_fault_arm(&b, XMEMSIM_FAULT_DMA_HANG, 0, 0, PUSH) ||
	    xms_dma_submit(&b, d, PUSH, &t))
		return 4;
	usleep(300000);		/* the hung transfers start and vanish */
	if (xms_open(&c, NULL) || xms_dma_info(&c, &in))
		return 5;
	p->horizon = in.now_ns;
	xms_close(&c);
	shuttle(d, TRAIL, s1, x1, MIB, 1);
	if (xms_dma_submit(&a, d, TRAIL, &t))
		return 6;
	p->running = 1;
	say_ready();
	reap_all(&a, TRAIL);
	p->running = 0;
	pause();
	return 0;
}

/*
 * Modeled time is each user's own: the attacker's pushed clock shows
 * nowhere in root's, and root's 64-byte DMA on a free engine waits for
 * none of the attacker's backlog, whose modeled times are all earlier
 * than the push. Before, a file started at the device's horizon and the
 * one scheduler took every step in modeled-time order: root's first
 * transfer waited for the backlog, 324x one attacker transfer (the
 * audit), and root's fresh file read the push.
 */
TEST(a_pushed_clock_delays_nobody)
{
	struct push *p;
	struct xmemsim_dma_info in;
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	double t0, first, med, ms[20];
	struct xms_dev xd;
	uint64_t s, x, t;
	int i, n = 0;
	pid_t pid;

	p = attacker_reporting(push_clock, sizeof(*p), &pid);
	REQUIRE(p && pid > 0);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_dma_info(&xd, &in) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	d = desc(s, x, 64, 2, 0);
	for (i = 0; i < 20 && p->running; i++, n++) {
		t0 = now_ms();
		CHECK(xms_dma_submit(&xd, &d, 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, 60000000000LL, &w) == 0);
		ms[i] = now_ms() - t0;
	}
	CHECK(n >= 1 && p->one_ms > 0);
	first = n ? ms[0] : 0;
	med = n ? median(ms, n) : 0;		/* submitted while the whole backlog waits */
	printf("# attacker's horizon after the push %llu ns; root's fresh file's now %llu ns; root's first 64-byte DMA %.2f ms = %.2f attacker transfers of %.2f ms, median %.2f ms over %d rounds\n",
	       (unsigned long long)p->horizon, (unsigned long long)in.now_ns,
	       first, first / p->one_ms, p->one_ms, med, n);
	CHECK(p->horizon > 0 && in.now_ns < p->horizon);
	CHECK(first < 8.0 * p->one_ms && med < 4.0 * p->one_ms);
	finish(pid);
	xms_close(&xd);
}

/* --- files in an error state cost nobody else ------------------------------ */

enum { ERR_FILES = 4000 };

/*
 * Each of 4,000 files: a transfer that fails (FAULT_ARM DMA_ERROR), so its
 * queue is in error and its semaphore 0 broken until DMA_RESET or
 * SEM_SET; the memory is freed, the file kept open.
 */
static int error_files(void *arg)
{
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	int i, st, *made = arg;
	uint64_t s, x, t;

	for (i = 0; i < ERR_FILES; i++) {
		struct xms_dev xd;

		if (xms_open(&xd, NULL) || xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) ||
		    xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) ||
		    xms_fault_arm(&xd, XMEMSIM_FAULT_DMA_ERROR, 0, 0, 1))
			break;
		d = desc(s, x, 4096, 0, 0);
		d.signal_sem = 0;
		d.signal_inc = 1;
		if (xms_dma_submit(&xd, &d, 1, &t) || xms_dma_wait(&xd, t, -1, &w) ||
		    w.status != -EIO || xms_free(&xd, HBM, s, &st) ||
		    xms_free(&xd, HBM, x, &st))
			break;
	}
	*made = i;
	hold();
	return 0;
}

/*
 * 4,000 files of uid 65534 in an error state, nothing queued: root's small
 * DMA costs what it costs alone. An error is drained when it comes and
 * when new transfers reach the file, never at every step; before, every
 * step walked every such file's queues: 51x (the audit).
 */
TEST(error_files_cost_nothing)
{
	struct beside b;

	REQUIRE(small_dma_beside(error_files, ERR_FILES, &b) == 0);
	printf("# root's 64-byte DMA: %.3f ms alone, %.3f ms beside %d files of uid 65534 in an error state (%.2fx)\n",
	       b.alone, b.beside, *b.made, b.beside / b.alone);
	CHECK(*b.made == ERR_FILES);
	CHECK(b.alone > 0 && b.beside < 3 * b.alone);
}

/* --- the checker's work is its caller's ------------------------------------ */

enum { CHK = 128 };

struct checking {
	volatile int running;
	volatile long refused;
	double one_ms;		/* one refused submit, wall */
};

/*
 * The attacker keeps 128 transfers in flight on engine 0 queue 0 (they
 * wait on semaphore 1, which nothing raises; the last signals semaphore
 * 2), then submits, again and again, 127 transfers on engine 1 that wait
 * on semaphore 2, meet every one of those and are each ordered after all
 * of them by the last, plus one that races: refused (dma_check=2) after
 * the whole check.
 */
static int keep_checking(void *arg)
{
	struct xmemsim_dma_desc d[CHK];
	struct checking *c = arg;
	struct xms_dev xd;
	uint64_t s, x, t;
	double t0;
	int i;

	if (xms_open(&xd, NULL) || xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL))
		return 2;
	for (i = 0; i < CHK; i++) {
		d[i] = desc(s, x, 4096, 0, 0);
		d[i].wait_sem = 1;
		d[i].wait_value = 1;
	}
	d[CHK - 1].signal_sem = 2;
	d[CHK - 1].signal_inc = 1;
	if (xms_dma_submit(&xd, d, CHK, &t))
		return 3;
	for (i = 0; i < CHK; i++) {
		d[i] = desc(s, x, 4096, 1, 0);
		d[i].wait_sem = 2;
		d[i].wait_value = 1;
	}
	d[CHK - 1] = desc(x, s, 4096, 2, 0);
	t0 = now_ms();
	if (xms_dma_submit(&xd, d, CHK, &t) != -EBUSY)
		return 4;
	c->one_ms = now_ms() - t0;
	c->running = 1;
	say_ready();
	while (c->running)
		if (xms_dma_submit(&xd, d, CHK, &t) == -EBUSY)
			c->refused++;
	pause();
	return 0;
}

/*
 * Under dma_check=2, uid 65534 submits batches that the checker works
 * through whole and refuses, as fast as it can: root's 200 rounds of
 * SEM_GET and a small DMA take about what they take alone (the median
 * round: a host that stalls the guest lengthens a few rounds, and the
 * total shows them, not the checker). The check runs in the
 * submitter's task under its user's lock alone, in a pass over the file's
 * transfers per new one; before, it walked them again for each pair under
 * the device-wide lock: root's rounds did not finish in 300 s (the
 * audit).
 */
TEST(checking_is_charged_to_the_checker)
{
	struct checking *c = shared(sizeof(*c));
	double alone, beside, med_alone, med_beside;
	struct xms_dev xd;
	uint64_t s, x;
	pid_t pid;

	REQUIRE(c);
	if (test_param("dma_check") != 2)
		SKIP("needs dma_check=2");
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	med_alone = dma_round_ms(&xd, s, x, 3, 200, 1, &alone);
	pid = attacker(keep_checking, c);
	REQUIRE(pid > 0);
	med_beside = dma_round_ms(&xd, s, x, 3, 200, 1, &beside);
	c->running = 0;
	printf("# root's 200 rounds (SEM_GET, 64-byte DMA): %.1f ms alone (median %.3f), %.1f ms beside uid 65534's refused batches (%.2fx, median %.3f); %ld refused meanwhile, one in %.1f ms\n",
	       alone, med_alone, beside, beside / alone, med_beside, c->refused,
	       c->one_ms);
	CHECK(c->refused > 0);
	CHECK(med_alone > 0 && med_beside > 0 && med_beside < 3 * med_alone);
	finish(pid);
	xms_close(&xd);
}

/* --- copying on its user's time ---------------------------------------------- */

enum { TURNS = 5 };

struct burn {
	volatile int stop;
	volatile long spins[2];
};

/* Root's CPU-bound job: two spinners, one per CPU; spins per ms of wall. */
static double root_throughput(struct burn *b, int ms)
{
	pid_t pid[2];
	double t0, dt;
	int i;

	b->stop = 0;
	b->spins[0] = b->spins[1] = 0;
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (!pid[i]) {
			volatile unsigned long v = 0;

			while (!b->stop) {
				for (v = 0; v < 10000; v++)
					;
				b->spins[i]++;
			}
			_exit(0);
		}
	}
	t0 = now_ms();
	usleep(ms * 1000);
	b->stop = 1;
	dt = now_ms() - t0;
	for (i = 0; i < 2; i++)
		waitpid(pid[i], NULL, 0);
	return (b->spins[0] + b->spins[1]) / dt;
}

/* The attacker at nice 19 spins on both CPUs. */
static int spin_at_19(void *arg)
{
	(void)arg;
	if (setpgid(0, 0) || setpriority(PRIO_PROCESS, 0, 19))
		return 2;
	if (!fork())
		for (;;)
			;
	say_ready();
	for (;;)
		;
}

/* The attacker at nice 19 keeps 256 4 MB transfers going and sleeps in DMA_REAP. */
static int dma_at_19(void *arg)
{
	struct xmemsim_dma_desc d[256];
	struct xms_dev xd;
	uint64_t s, x, t;
	int i;

	(void)arg;
	if (setpriority(PRIO_PROCESS, 0, 19) || xms_open(&xd, NULL) ||
	    xms_alloc(&xd, HBM, 4 * MIB, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, 4 * MIB, 4096, 0, &x, NULL))
		return 2;
	shuttle(d, 256, s, x, 4 * MIB, 0);
	for (i = 0; i < 256; i++)
		d[i].engine = (uint32_t)i % 4;
	if (xms_dma_submit(&xd, d, 256, &t))
		return 3;
	say_ready();
	for (;;) {
		if (reap_all(&xd, 128) || xms_dma_submit(&xd, d, 128, &t))
			return 4;
	}
}

/*
 * Root's CPU-bound job beside uid 65534's DMA backlog at nice 19 keeps
 * what it keeps beside the same user spinning at nice 19: the bytes move
 * in the attacker's own task, at its priority. Before, a nice -20 kworker
 * copied them: 62 % (the audit). The bound is on the median of five
 * turns, each the two side by side: the host's load in one turn moves
 * one ratio, a kworker's copying moves all five.
 */
TEST(copying_is_charged_to_its_user)
{
	struct burn *b = shared(sizeof(*b));
	double spin = 0, dma = 0, one, ratio[TURNS];
	pid_t pid;
	int i;

	REQUIRE(b);
	for (i = 0; i < TURNS; i++) {	/* side by side: the host's load on both */
		pid = attacker(spin_at_19, NULL);
		REQUIRE(pid > 0);
		one = root_throughput(b, 1000);
		spin += one;
		kill(-pid, SIGKILL);
		finish(pid);
		pid = attacker(dma_at_19, NULL);
		REQUIRE(pid > 0);
		ratio[i] = root_throughput(b, 1000);
		dma += ratio[i];
		ratio[i] = one > 0 ? ratio[i] / one : 0;
		finish(pid);
	}
	printf("# root's CPU-bound job: %.0f spins/ms beside uid 65534 spinning at nice 19, %.0f beside its DMA backlog at nice 19 (%.0f %%; %d turns of 1 s each way)\n",
	       spin / TURNS, dma / TURNS, 100.0 * dma / spin, TURNS);
	CHECK(median(ratio, TURNS) >= 0.85);
	printf("# the turns' median: %.0f %%\n", 100.0 * median(ratio, TURNS));
}

/* --- a fresh file's clock --------------------------------------------------- */

struct fresh {
	volatile int asked, answered;
	uint64_t now[5];
};

/* For each of root's transfers, a new file's now_ns. */
static int read_fresh_clocks(void *arg)
{
	struct fresh *f = arg;
	struct xmemsim_dma_info in;
	int i;

	say_ready();
	for (i = 0; i < 5; i++) {
		struct xms_dev xd;

		while (f->asked <= i)
			usleep(1000);
		if (xms_open(&xd, NULL) || xms_dma_info(&xd, &in))
			return 2;
		f->now[i] = in.now_ns;
		xms_close(&xd);
		f->answered = i + 1;
	}
	pause();
	return 0;
}

/* After root's transfer i: the attacker's turn to open a file. */
static void ask_fresh(int i, void *arg)
{
	struct fresh *f = arg;

	f->asked = i + 1;
	while (f->answered <= i)
		usleep(1000);
}

/*
 * After each of root's five transfers of distinct lengths, uid 65534
 * opens a new file and reads its now_ns: a new file starts at its own
 * user's present, so all five read the same. Before, a new file started
 * at the device's horizon and gave each length away (5 of 5, the audit).
 */
TEST(a_fresh_file_learns_nothing)
{
	struct fresh *f;
	int i, same = 0;
	pid_t pid;

	f = attacker_reporting(read_fresh_clocks, sizeof(*f), &pid);
	REQUIRE(f && pid > 0);
	CHECK(root_moves_five(ask_fresh, f) == 0);
	for (i = 1; i < 5; i++)
		same += f->now[i] == f->now[i - 1];
	printf("# uid 65534's fresh files after root's 5 transfers read now_ns %llu %llu %llu %llu %llu\n",
	       (unsigned long long)f->now[0], (unsigned long long)f->now[1],
	       (unsigned long long)f->now[2], (unsigned long long)f->now[3],
	       (unsigned long long)f->now[4]);
	CHECK(f->answered == 5 && same == 4);
	finish(pid);
}

/* --- a stalled submitter holds nobody -------------------------------------- */

enum { INLINE = 65536 };

#define STALL_MS 20.0		/* XMEMSIM_DMA_STALL_US: one stalled transfer */
#define STALL "/sys/kernel/debug/xmemsim/fail_dma_stall/"

/*
 * The DMA_STALL site armed for every transfer of a make-it-fail task, or
 * disarmed: 0, or -1 where the kernel has no fault injection.
 */
static int arm_stall(int on)
{
	if (!on)
		return test_write_str(STALL "probability", "0");
	return test_write_str(STALL "verbose", "0") ||
	       test_write_str(STALL "times", "-1") ||
	       test_write_str(STALL "interval", "1") ||
	       test_write_str(STALL "probability", "100") ? -1 : 0;
}

/*
 * The attacker: at SCHED_IDLE, submitting transfers of the size a
 * submitting task completes itself, each of which stalls its engine
 * once done (its make-it-fail came from root, across the fork).
 */
static int stalled_submitter(void *arg)
{
	struct sched_param sp = { 0 };
	struct xmemsim_dma_desc d[64];
	struct xms_dev xd;
	uint64_t s, x, t;

	(void)arg;
	if (xms_open(&xd, NULL) ||
	    xms_alloc(&xd, HBM, INLINE, 4096, 0, &s, NULL) ||
	    xms_alloc(&xd, HBM, INLINE, 4096, 0, &x, NULL) ||
	    sched_setscheduler(0, SCHED_IDLE, &sp))
		return 2;
	shuttle(d, 64, s, x, INLINE, 0);	/* the most a submit moves itself */
	if (xms_dma_submit(&xd, d, 64, &t))
		return 3;
	say_ready();
	for (;;)
		if (reap_all(&xd, 64) || xms_dma_submit(&xd, d, 64, &t))
			return 4;
}

/*
 * Progress never rests on one submitter running. uid 65534's SCHED_IDLE
 * task submits small transfers, and each one it completes stalls there
 * for 20 ms (the DMA_STALL site, armed for it alone): that is a holder
 * that does not run, as a preempted idle-priority task or a stopped one
 * is, but at every step rather than when the host's scheduler says so.
 * Root's 64-byte DMAs, on the same engine, each wait under a quarter of
 * one attacker transfer (its stall) at the median: only a user's own
 * tasks and work item take its steps, and a stall holds its own user
 * alone. The module before ran every user's steps in one loop that a
 * single runner held, and root's transfers waited for the attacker's.
 */
TEST(a_stalled_submitter_holds_nobody)
{
	double alone, beside, total;
	long long fired = test_fault_count("dma_stall");
	struct xms_dev xd;
	uint64_t s, x;
	pid_t pid;

	if (fired < 0 || arm_stall(1)) {
		arm_stall(0);
		SKIP("no fail_dma_stall to arm (fault injection, debugfs, root)");
	}
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	alone = dma_round_ms(&xd, s, x, 0, 50, 0, &total);
	REQUIRE(test_write_str("/proc/self/make-it-fail", "1") == 0);
	pid = attacker(stalled_submitter, NULL);
	CHECK(test_write_str("/proc/self/make-it-fail", "0") == 0);
	REQUIRE(pid > 0);
	beside = dma_round_ms(&xd, s, x, 0, 50, 0, &total);
	finish(pid);
	CHECK(arm_stall(0) == 0);
	fired = test_fault_count("dma_stall") - fired;
	printf("# root's 64-byte DMA on engine 0: median %.3f ms alone; %.3f ms (%.2f attacker transfers of %.0f ms) beside uid 65534's SCHED_IDLE submitter, whose transfers stalled %lld times\n",
	       alone, beside, beside / STALL_MS, STALL_MS, fired);
	CHECK(fired > 0);
	CHECK(alone > 0 && beside > 0 && beside < STALL_MS / 4);
	xms_close(&xd);
}

int main(void)
{
	users_init();
	return tap_run();
}
