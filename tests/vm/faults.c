// SPDX-License-Identifier: GPL-2.0
/*
 * faults: failures on purpose (uapi/xmemsim.h, "Failures on purpose").
 * Every site reaches its caller with the documented errno, through ioctl
 * and through io_uring where the command has both; afterwards the heaps
 * verify and hbm_used, dataram_used and plan_bytes are back where they
 * were. The framework's knobs (debugfs fail_<site>/) hurt only who opted
 * in; memory errors stay on their lines until rewritten or freed, and
 * never reach another allocation. tests/vm/run.sh runs it on a fresh load
 * with the default parameters; the tests set the knobs and put them back.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "neuron_compat.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define NONE XMEMSIM_SEM_NONE
#define SYSD "/sys/class/misc/xmemsim/"
#define DBGD "/sys/kernel/debug/xmemsim/"

static const char *paths[2] = { "ioctl", "io_uring" };

/*
 * The kernel's fault-injection framework (CONFIG_FAULT_INJECTION): the
 * debug kernels have it, distributions' stock kernels do not, and the
 * device refuses framework arming there with -EOPNOTSUPP. The device's
 * own fault sites (FAULT_ARM without XMEMSIM_FAULT_FRAMEWORK) and memory
 * errors work on every kernel.
 */
static int framework(void)
{
	static int have = -1;
	struct xms_dev xd;

	if (have < 0 && !xms_open(&xd, NULL)) {
		have = xms_fault_arm(&xd, XMEMSIM_FAULT_HEAP_ALLOC,
				     XMEMSIM_FAULT_FRAMEWORK, 0, 0) != -EOPNOTSUPP;
		xms_close(&xd);
	}
	return have > 0;
}

#define NEED_FRAMEWORK() do {						\
	if (!framework())						\
		SKIP("no CONFIG_FAULT_INJECTION in this kernel");	\
} while (0)

/* A knob of the framework's attr of a site: fail_<site>/<knob>. */
static int knob(const char *site, const char *name, const char *v)
{
	char path[256];

	snprintf(path, sizeof(path), DBGD "fail_%s/%s", site, name);
	return test_write_str(path, v);
}

/* Put a site's framework attr back to never. */
static void knobs_off(const char *site)
{
	knob(site, "probability", "0");
	knob(site, "interval", "1");
	knob(site, "times", "1");
	knob(site, "space", "0");
	knob(site, "verbose", "0");
}

/* A site's framework attr failing every opted-in call from now on. */
static int knobs_always(const char *site)
{
	knobs_off(site);
	return knob(site, "probability", "100") || knob(site, "times", "-1");
}

/*
 * A heap's memory-error count, sysfs <heap>/ce_count or ue_count ("ce" or
 * "ue" first), for root: the files are 0400. Another user reads its own,
 * of every heap together, in USER_STATS: the same figure in these tests,
 * whose errors are the caller's and in one heap.
 */
static long long edac(const char *heap, const char *what)
{
	struct xmemsim_user_stats us;
	struct xms_dev xd;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), SYSD "%s/%s", heap, what);
	if (!geteuid())
		return test_read_ll(path);
	if (xms_open(&xd, NULL))
		return -1;
	ret = xms_user_stats(&xd, &us);
	xms_close(&xd);
	if (ret)
		return -1;
	return (long long)(what[0] == 'u' ? us.mem_ue : us.mem_ce);
}

/* What must be as before once a test's files are closed. */
struct levels {
	long long hbm, dram, plan;
};

static struct levels levels(void)
{
	struct levels l = {
		test_read_ll(SYSD "hbm_used"), test_read_ll(SYSD "dataram_used"),
		test_read_ll(SYSD "plan_bytes"),
	};

	return l;
}

static int verify_ok(void)
{
	char line[64] = "";
	FILE *f = fopen(DBGD "verify", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return !strncmp(line, "ok", 2);
}

/*
 * The levels, once they are back at want or 5 s have passed: a file used
 * through a ring is released when io-wq puts its last request, which may
 * be after the caller saw the CQE and closed both fds.
 */
static struct levels settled(struct levels want)
{
	struct levels now = levels();
	int i;

	for (i = 0; i < 500 && memcmp(&now, &want, sizeof(now)); i++) {
		usleep(10000);
		now = levels();
	}
	return now;
}

#define CHECK_LEVELS(before) do {					\
	struct levels _now = settled(before);				\
	CHECK_EQ_U64(_now.hbm, (before).hbm);				\
	CHECK_EQ_U64(_now.dram, (before).dram);				\
	CHECK_EQ_U64(_now.plan, (before).plan);			\
	if (geteuid() == 0)	/* debugfs is root's; its run checks */	\
		CHECK(verify_ok());					\
} while (0)

static int arm(struct xms_dev *xd, uint32_t site, uint64_t skip, uint64_t times)
{
	return xms_fault_arm(xd, site, 0, skip, times);
}

static int all_bytes(struct xms_dev *xd, uint64_t addr, size_t len, unsigned char v)
{
	unsigned char *b = malloc(len);
	size_t i;
	int ok = b && !xms_read(xd, addr, b, len);

	for (i = 0; ok && i < len; i++)
		ok = b[i] == v;
	free(b);
	return ok;
}

static int fill(struct xms_dev *xd, uint64_t addr, size_t len, unsigned char v)
{
	unsigned char *b = malloc(len);
	int ret = -ENOMEM;

	if (b) {
		memset(b, v, len);
		ret = xms_write(xd, addr, b, len);
		free(b);
	}
	return ret;
}

/* Open, and for path 1 attach a ring; r must outlive the handle's use. */
static int open_path(struct xms_dev *xd, struct xms_ring *r, int path)
{
	if (xms_open(xd, NULL))
		return -1;
	if (path && (xms_ring_init(r, xd, 8) || xms_attach_ring(xd, r)))
		return -1;
	return 0;
}

static void close_path(struct xms_dev *xd, struct xms_ring *r, int path)
{
	if (path) {
		xms_attach_ring(xd, NULL);
		xms_ring_exit(r);
	}
	xms_close(xd);
}

/* --- the heap ------------------------------------------------------------- */

TEST(heap_alloc_fails_as_if_the_pool_were_full)
{
	struct levels before = levels();
	int path;

	for (path = 0; path < 2; path++) {
		struct xms_dev xd;
		struct xms_ring r;
		uint64_t a, b, c;
		int st = 0;

		REQUIRE(open_path(&xd, &r, path) == 0);
		CHECK(arm(&xd, XMEMSIM_FAULT_HEAP_ALLOC, 1, 1) == 0);
		CHECK(xms_alloc(&xd, HBM, 4096, 64, 0, &a, NULL) == 0);
		CHECK_EQ_U64(xms_alloc(&xd, HBM, 4096, 64, 0, &b, &st), -ENOMEM);
		CHECK_EQ_U64(st, XMEMSIM_XMEM_ALLOC_FAILED);
		CHECK(xms_alloc(&xd, HBM, 4096, 64, 0, &c, NULL) == 0);
		printf("# %s: granted, ALLOC_FAILED, granted\n", paths[path]);
		close_path(&xd, &r, path);
	}
	CHECK_LEVELS(before);
}

TEST(heap_nosplit_takes_the_whole_block)
{
	struct xmemsim_heap_stats s0, s1;
	struct levels before = levels();
	uint64_t a, size, usable;
	struct xms_dev xd;

	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_stats(&xd, DRAM, &s0) == 0);
	CHECK(arm(&xd, XMEMSIM_FAULT_HEAP_NOSPLIT, 0, 1) == 0);
	REQUIRE(xms_alloc(&xd, DRAM, 256, 64, 0, &a, NULL) == 0);
	REQUIRE(xms_stats(&xd, DRAM, &s1) == 0);
	REQUIRE(xms_alloc_size(&xd, DRAM, a, &size, &usable) == 0);
	printf("# 256 bytes got a block of %llu usable; split_refused %llu -> %llu\n",
	       (unsigned long long)usable, (unsigned long long)s0.split_refused,
	       (unsigned long long)s1.split_refused);
	CHECK_EQ_U64(s1.split_refused, s0.split_refused + 1);
	CHECK(usable > 4096);	/* the pool's free block, not 256 bytes */
	CHECK(xms_free(&xd, DRAM, a, NULL) == 0);
	REQUIRE(xms_stats(&xd, DRAM, &s1) == 0);
	CHECK_EQ_U64(s1.free_bytes, s0.free_bytes);
	xms_close(&xd);
	CHECK_LEVELS(before);
}

/* --- COPY ----------------------------------------------------------------- */

TEST(copy_dma_fails_half_way_and_bounce_can_be_missing)
{
	struct levels before = levels();
	int path;

	for (path = 0; path < 2; path++) {
		const uint64_t len = 12288;	/* half: 6 KiB, one 4 KiB step */
		struct xms_dev xd;
		struct xms_ring r;
		uint64_t s, d;

		REQUIRE(open_path(&xd, &r, path) == 0);
		REQUIRE(xms_alloc(&xd, HBM, len, 4096, 0, &s, NULL) == 0);
		REQUIRE(xms_alloc(&xd, HBM, len, 4096, 0, &d, NULL) == 0);
		REQUIRE(fill(&xd, s, len, 0xab) == 0);
		CHECK(arm(&xd, XMEMSIM_FAULT_COPY_DMA, 0, 1) == 0);
		CHECK_EQ_U64(xms_copy(&xd, s, d, len, XMEMSIM_COPY_DMA), -EIO);
		CHECK(all_bytes(&xd, d, 4096, 0xab));
		CHECK(all_bytes(&xd, d + 4096, len - 4096, 0));
		CHECK(arm(&xd, XMEMSIM_FAULT_BOUNCE, 0, 1) == 0);
		CHECK_EQ_U64(xms_copy(&xd, s, d, len, XMEMSIM_COPY_DMA), -EBUSY);
		CHECK(xms_copy(&xd, s, d, len, XMEMSIM_COPY_DMA) == 0);
		CHECK(all_bytes(&xd, d, len, 0xab));
		printf("# %s: -EIO with 4096 of 12288 bytes written, -EBUSY, then 0\n",
		       paths[path]);
		close_path(&xd, &r, path);
	}
	CHECK_LEVELS(before);
}

/* --- queued DMA ----------------------------------------------------------- */

static struct xmemsim_dma_desc desc(uint64_t s, uint64_t d, uint64_t len,
				    uint32_t queue)
{
	struct xmemsim_dma_desc x = {
		.src = s, .dst = d, .len = len, .queue = queue,
		.wait_sem = NONE, .signal_sem = 0, .signal_inc = 1,
	};

	return x;
}

/*
 * The middle one of three on a queue fails: -EIO, no byte, no signal; the
 * queue is then in error, so the third ends -ECANCELED without running.
 */
TEST(dma_error_ends_with_eio_and_stops_its_queue)
{
	struct levels before = levels();
	int path;

	for (path = 0; path < 2; path++) {
		struct xmemsim_dma_desc d[3];
		struct xmemsim_dma_wait w;
		struct xms_dev xd;
		struct xms_ring r;
		uint64_t b[4], t, v;
		int i, ret;

		REQUIRE(open_path(&xd, &r, path) == 0);
		for (i = 0; i < 4; i++)
			REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &b[i], NULL) == 0);
		REQUIRE(fill(&xd, b[0], 4096, 0x77) == 0);
		for (i = 0; i < 3; i++)
			d[i] = desc(b[0], b[1 + i], 4096, 0);
		CHECK(arm(&xd, XMEMSIM_FAULT_DMA_ERROR, 1, 1) == 0);
		/* the same through both paths: queued, then each one's end */
		ret = xms_dma_submit(&xd, d, 3, &t);
		CHECK_EQ_U64(ret, 0);
		for (i = 0; i < 3; i++) {
			CHECK(xms_dma_wait(&xd, t + i, -1, &w) == 0);
			CHECK_EQ_U64(w.status, i == 1 ? -EIO : i ? -ECANCELED : 0);
		}
		CHECK(all_bytes(&xd, b[1], 4096, 0x77));
		CHECK(all_bytes(&xd, b[2], 4096, 0) && all_bytes(&xd, b[3], 4096, 0));
		CHECK(xms_sem_get(&xd, 0, &v) == 0);
		CHECK_EQ_U64(v, 1);
		printf("# %s: submit %d, semaphore %llu of 3\n", paths[path], ret,
		       (unsigned long long)v);
		close_path(&xd, &r, path);
	}
	CHECK_LEVELS(before);
}

static int dma_reset(struct xms_dev *xd, uint32_t engine, uint32_t queue,
		     int32_t *status)
{
	*status = 0;
	return xms_dma_reset(xd, engine, queue, status);
}

/*
 * A failed load with dependents, through ioctl and through a ring: the
 * load -EIO, the next on its queue -ECANCELED, the store that waits on
 * its semaphore -EPIPE, a transfer on another queue untouched; no byte
 * moves for the three. SEM_WAIT on the broken semaphore -EPIPE at once.
 * Through the ring the records come from DMA_REAP, with the same statuses.
 * DMA_RESET gives each queue's error and runs it again; SEM_SET mends
 * the semaphore.
 */
TEST(a_failed_transfer_fails_its_dependents_until_reset)
{
	struct levels before = levels();
	int path;

	for (path = 0; path < 2; path++) {
		struct xmemsim_dma_desc d[4];
		struct xmemsim_dma_submit sub;
		struct xmemsim_dma_wait w;
		struct xms_result res[2];
		struct xms_dev xd;
		struct xms_ring r;
		uint64_t b[5], t, v;
		int32_t st;
		int i;

		REQUIRE(xms_open(&xd, NULL) == 0);
		for (i = 0; i < 5; i++)
			REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &b[i], NULL) == 0);
		REQUIRE(fill(&xd, b[0], 4096, 0x5a) == 0);
		d[0] = desc(b[0], b[1], 4096, 0);	/* fails: signals nothing */
		d[0].signal_sem = 3;
		d[1] = desc(b[0], b[2], 4096, 0);	/* behind it on its queue */
		d[1].signal_sem = NONE;
		d[2] = desc(b[1], b[3], 4096, 0);	/* waits for d[0] */
		d[2].engine = 1;
		d[2].wait_sem = 3;
		d[2].wait_value = 1;
		d[2].signal_sem = 4;
		d[3] = desc(b[0], b[4], 4096, 1);	/* another queue: runs */
		d[3].signal_sem = NONE;
		CHECK(arm(&xd, XMEMSIM_FAULT_DMA_ERROR, 0, 1) == 0);
		if (!path) {
			REQUIRE(xms_dma_submit(&xd, d, 4, &t) == 0);
			for (i = 0; i < 4; i++) {
				static const int want[4] = { -EIO, -ECANCELED, -EPIPE, 0 };

				CHECK(xms_dma_wait(&xd, t + i, 10000000000LL, &w) == 0);
				CHECK_EQ_U64(w.status, want[i]);
			}
		} else {
			static const int want[4] = { -EIO, -ECANCELED, -EPIPE, 0 };
			struct xmemsim_dma_completion rec[4];
			uint32_t n, got = 0;

			REQUIRE(xms_ring_init(&r, &xd, 4) == 0);
			sub = (struct xmemsim_dma_submit){ .descs = (uintptr_t)d, .count = 4 };
			REQUIRE(xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &sub, 1) == 0);
			REQUIRE(xms_ring_submit(&r) == 1);
			CHECK(xms_ring_reap_timeout(&r, res, 2, 1, 10000000000LL) == 1);
			CHECK(res[0].res == 0);
			CHECK(xms_attach_ring(&xd, &r) == 0);
			while (got < 4 &&
			       !xms_dma_reap(&xd, rec, 4, 10000000000LL, &n)) {
				for (i = 0; i < (int)n; i++)
					CHECK_EQ_U64(rec[i].status,
						     want[rec[i].ticket - sub.ticket]);
				got += n;
			}
			CHECK_EQ_U64(got, 4);
			xms_attach_ring(&xd, NULL);
			xms_ring_exit(&r);
		}
		CHECK(all_bytes(&xd, b[2], 4096, 0) && all_bytes(&xd, b[3], 4096, 0));
		CHECK(all_bytes(&xd, b[4], 4096, 0x5a));
		CHECK(xms_sem_wait(&xd, 3, 1, 10000000000LL) == -EPIPE);
		CHECK(xms_sem_wait(&xd, 4, 1, 10000000000LL) == -EPIPE);	/* cascade */
		/* the queue stays in error until reset */
		d[1].dst = b[2];
		REQUIRE(xms_dma_submit(&xd, &d[1], 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, 10000000000LL, &w) == 0);
		CHECK_EQ_U64(w.status, -ECANCELED);
		CHECK(dma_reset(&xd, 0, 0, &st) == 0);
		CHECK_EQ_U64(st, -EIO);
		CHECK(dma_reset(&xd, 1, 0, &st) == 0);
		CHECK_EQ_U64(st, -EPIPE);
		CHECK(dma_reset(&xd, 0, 0, &st) == 0 && st == 0);
		REQUIRE(xms_dma_submit(&xd, &d[1], 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, 10000000000LL, &w) == 0 && w.status == 0);
		CHECK(all_bytes(&xd, b[2], 4096, 0x5a));
		/* SEM_SET mends the semaphore: a wait on it waits again */
		CHECK(xms_sem_set(&xd, 3, 0) == 0);
		CHECK(xms_sem_wait(&xd, 3, 1, 20000000) == -ETIMEDOUT);
		CHECK(xms_sem_get(&xd, 3, &v) == 0 && v == 0);
		CHECK(dma_reset(&xd, 9999, 0, &st) == -EINVAL);
		printf("# %s: -EIO, -ECANCELED, -EPIPE, 0; reset gave -EIO and -EPIPE\n",
		       paths[path]);
		xms_close(&xd);
	}
	CHECK_LEVELS(before);
}

TEST(dma_hang_times_out_the_wait_and_close_frees_it)
{
	struct levels before = levels();
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	uint64_t s, x, y, t;

	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &y, NULL) == 0);
	d[0] = desc(s, x, 4096, 0);
	d[1] = desc(s, y, 4096, 1);	/* same engine, another queue */
	CHECK(arm(&xd, XMEMSIM_FAULT_DMA_HANG, 0, 1) == 0);
	REQUIRE(xms_dma_submit(&xd, d, 2, &t) == 0);
	CHECK_EQ_U64(xms_dma_wait(&xd, t, 50000000, &w), -ETIMEDOUT);
	CHECK(xms_dma_wait(&xd, t + 1, -1, &w) == 0);	/* the engine went on */
	CHECK_EQ_U64(w.status, 0);
	/* the lost transfer still pins its ranges */
	CHECK_EQ_U64(xms_free(&xd, HBM, x, NULL), -EBUSY);
	xms_close(&xd);
	CHECK_LEVELS(before);
}

/*
 * A process with a hung transfer, waiting for it through io_uring (a
 * DMA_WAIT with no timeout in the ring), dies by kill -9, and goes.
 */
TEST(kill_9_with_a_hung_transfer_in_a_ring)
{
	struct levels before = levels();
	int status = 0, i;
	pid_t pid;

	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		struct xmemsim_dma_desc d;
		struct xms_dev xd;
		struct xms_ring r;
		uint64_t s, x, t;

		if (open_path(&xd, &r, 1) ||
		    xms_alloc(&xd, HBM, 4096, 4096, 0, &s, NULL) ||
		    xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) ||
		    arm(&xd, XMEMSIM_FAULT_DMA_HANG, 0, 1))
			_exit(2);
		d = desc(s, x, 4096, 0);
		if (xms_dma_submit(&xd, &d, 1, &t))
			_exit(4);
		xms_dma_wait(&xd, t, -1, NULL);	/* never returns */
		_exit(3);
	}
	usleep(300000);
	CHECK(waitpid(pid, &status, WNOHANG) == 0);	/* still waiting */
	kill(pid, SIGKILL);
	for (i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(100000);
	CHECK(i < 100);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (i = 0; i < 50 && levels().hbm != before.hbm; i++)
		usleep(100000);	/* the ring's teardown is deferred */
	CHECK_LEVELS(before);
}

/* --- plans ---------------------------------------------------------------- */

static struct xmemsim_interval iv[2] = { { 0, 9 }, { 0, 9 } };

static void tensor(struct xmemsim_plan_tensor *t, const char *name, int i)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->size = 8192;
	t->intervals = (uintptr_t)&iv[i];
	t->nr_intervals = 1;
}

TEST(plan_faults_leave_the_device_as_before)
{
	struct levels before = levels();
	int path;

	for (path = 0; path < 2; path++) {
		struct xmemsim_plan_tensor t[2];
		char err[256];
		uint32_t count = 9, synced = 9, linked;
		struct xms_dev xd;
		struct xms_ring r;
		int ret;

		REQUIRE(open_path(&xd, &r, path) == 0);
		tensor(&t[0], "a", 0);
		tensor(&t[1], "b", 1);
		CHECK(xms_plan_submit(&xd, 0, &t[0], 1, NULL, err, sizeof(err)) == 0);
		CHECK(arm(&xd, XMEMSIM_FAULT_PLAN, 0, 1) == 0);
		ret = xms_plan_submit(&xd, 1, &t[1], 1, NULL, err, sizeof(err));
		printf("# %s: PLAN_SUBMIT core 1: %d \"%s\"\n", paths[path], ret, err);
		CHECK_EQ_U64(ret, -EIO);
		CHECK(strstr(err, "core 1: submit failed") != NULL);
		CHECK_EQ_U64(xms_plan_get(&xd, 1, NULL, 0, &count, NULL), -ENODATA);
		CHECK(xms_plan_submit(&xd, 1, &t[1], 1, NULL, err, sizeof(err)) == 0);
		CHECK(arm(&xd, XMEMSIM_FAULT_PLAN, 0, 1) == 0);
		ret = xms_plan_sync(&xd, &linked, err, sizeof(err));
		printf("# %s: PLAN_SYNC: %d \"%s\"\n", paths[path], ret, err);
		CHECK_EQ_U64(ret, -EIO);
		CHECK(strstr(err, "core 1: sync failed") != NULL);
		CHECK(xms_plan_get(&xd, 0, NULL, 0, &count, &synced) == 0);
		CHECK_EQ_U64(synced, 0);
		CHECK_LEVELS(before);	/* no backing, no plan bytes */
		CHECK(xms_plan_sync(&xd, &linked, err, sizeof(err)) == 0);
		CHECK(levels().plan > before.plan);
		close_path(&xd, &r, path);
	}
	CHECK_LEVELS(before);
}

/* --- memory errors -------------------------------------------------------- */

TEST(ue_fails_every_read_until_the_line_is_rewritten)
{
	struct levels before = levels();
	long long ue0 = edac("hbm", "ue_count");
	struct xmemsim_dma_desc d;
	int32_t st;
	struct xmemsim_dma_wait w;
	unsigned char buf[4096];
	struct xms_dev xd;
	struct xms_ring r;
	uint64_t a, x, t;

	REQUIRE(ue0 >= 0);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &x, NULL) == 0);
	REQUIRE(fill(&xd, a, 8192, 0x3c) == 0);
	CHECK(xms_mem_error(&xd, a + 100, XMEMSIM_MEM_UE) == 0);	/* line [64, 128) */
	CHECK_EQ_U64(xms_read(&xd, a, buf, 4096), -EIO);
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0 + 1);
	CHECK(xms_read(&xd, a + 128, buf, 64) == 0);	/* the next line is good */
	CHECK(xms_read(&xd, a, buf, 64) == 0);		/* and the one before */
	/* through io_uring READ too */
	REQUIRE(xms_ring_init(&r, &xd, 8) == 0 && xms_attach_ring(&xd, &r) == 0);
	CHECK_EQ_U64(xms_read(&xd, a + 64, buf, 64), -EIO);
	xms_attach_ring(&xd, NULL);
	xms_ring_exit(&r);
	/* as a COPY's source: nothing copied */
	CHECK_EQ_U64(xms_copy(&xd, a, x, 4096, XMEMSIM_COPY_C_MEMCPY), -EIO);
	CHECK_EQ_U64(xms_copy(&xd, a, x, 4096, XMEMSIM_COPY_DMA), -EIO);
	CHECK(all_bytes(&xd, x, 4096, 0));
	/* as a transfer's source: status -EIO, nothing moved */
	d = desc(a, x, 4096, 0);
	d.signal_sem = NONE;
	REQUIRE(xms_dma_submit(&xd, &d, 1, &t) == 0);
	CHECK(xms_dma_wait(&xd, t, -1, &w) == 0);
	CHECK_EQ_U64(w.status, -EIO);
	CHECK(all_bytes(&xd, x, 4096, 0));
	/* a write of part of the line leaves it bad; of all of it, good */
	memset(buf, 0x3c, sizeof(buf));
	CHECK(xms_write(&xd, a + 100, buf, 10) == 0);
	CHECK_EQ_U64(xms_read(&xd, a + 64, buf, 64), -EIO);
	memset(buf, 0x3c, sizeof(buf));
	CHECK(xms_write(&xd, a + 64, buf, 64) == 0);
	CHECK(all_bytes(&xd, a, 8192, 0x3c));
	printf("# hbm ue_count %lld -> %lld\n", ue0, edac("hbm", "ue_count"));
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0 + 6);
	/* MEMSET and a DMA destination rewrite lines too */
	CHECK(xms_mem_error(&xd, a, XMEMSIM_MEM_UE) == 0);
	CHECK(xms_memset(&xd, a, 0x11, 64) == 0);
	CHECK(all_bytes(&xd, a, 64, 0x11));
	CHECK(xms_mem_error(&xd, x + 4096, XMEMSIM_MEM_UE) == 0);
	d = desc(a + 4096, x + 4096, 4096, 0);
	d.signal_sem = NONE;
	/* the failed transfer above stopped queue 0: a runtime resets it */
	CHECK(dma_reset(&xd, 0, 0, &st) == 0);
	CHECK_EQ_U64(st, -EIO);
	REQUIRE(xms_dma_submit(&xd, &d, 1, &t) == 0);
	CHECK(xms_dma_wait(&xd, t, -1, &w) == 0 && w.status == 0);
	CHECK(all_bytes(&xd, x + 4096, 4096, 0x3c));
	xms_close(&xd);
	CHECK_LEVELS(before);
}

TEST(ce_is_counted_and_corrected)
{
	long long ce0 = edac("dataram", "ce_count"), ue0 = edac("dataram", "ue_count");
	struct xms_dev xd;
	uint64_t a;

	REQUIRE(ce0 >= 0);
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, DRAM, 256, 64, 0, &a, NULL) == 0);
	REQUIRE(fill(&xd, a, 256, 0x5e) == 0);
	CHECK(xms_mem_error(&xd, a + 64, XMEMSIM_MEM_CE) == 0);
	CHECK(all_bytes(&xd, a, 256, 0x5e));	/* right bytes */
	CHECK_EQ_U64(edac("dataram", "ce_count"), ce0 + 1);
	CHECK(all_bytes(&xd, a, 256, 0x5e));
	CHECK_EQ_U64(edac("dataram", "ce_count"), ce0 + 1);	/* corrected */
	CHECK_EQ_U64(edac("dataram", "ue_count"), ue0);
	xms_close(&xd);
}

TEST(errors_do_not_outlive_the_block_or_reach_another_file)
{
	long long ue0 = edac("hbm", "ue_count");
	struct xms_dev a, b;
	uint64_t x, y, z;

	REQUIRE(xms_open(&a, NULL) == 0 && xms_open(&b, NULL) == 0);
	REQUIRE(xms_alloc(&a, HBM, 4096, 4096, 0, &x, NULL) == 0);
	REQUIRE(xms_alloc(&b, HBM, 4096, 4096, 0, &z, NULL) == 0);
	/* not the caller's: another file's block, a free address, a line
	 * that reaches past the allocation */
	CHECK_EQ_U64(xms_mem_error(&a, z, XMEMSIM_MEM_UE), -EACCES);
	CHECK_EQ_U64(xms_mem_error(&a, x + 65536, XMEMSIM_MEM_UE), -EACCES);
	CHECK_EQ_U64(xms_mem_error(&a, x, 3), -EINVAL);
	REQUIRE(xms_alloc(&b, HBM, 100, 64, 0, &y, NULL) == 0);
	CHECK_EQ_U64(xms_mem_error(&b, y + 70, XMEMSIM_MEM_UE), -EACCES);
	CHECK(xms_mem_error(&b, y + 10, XMEMSIM_MEM_UE) == 0);
	CHECK(xms_free(&b, HBM, y, NULL) == 0);
	/* a's error, then a frees: b takes the same block and reads it */
	CHECK(xms_mem_error(&a, x + 4000, XMEMSIM_MEM_UE) == 0);
	CHECK(xms_free(&a, HBM, x, NULL) == 0);
	REQUIRE(xms_alloc(&b, HBM, 4096, 4096, 0, &y, NULL) == 0);
	printf("# a's block at %#llx, b's new block at %#llx\n",
	       (unsigned long long)x, (unsigned long long)y);
	CHECK_EQ_U64(y, x);
	CHECK(all_bytes(&b, y, 4096, 0));
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0);
	xms_close(&a);
	xms_close(&b);
}

/* The MEM_UE and MEM_CE sites: a read meets a new error, armed or opted in */
TEST(memory_error_sites_strike_reads)
{
	long long ue0 = edac("hbm", "ue_count"), ce0 = edac("hbm", "ce_count");
	struct levels before = levels();
	struct xmemsim_dma_desc d;
	struct xmemsim_dma_wait w;
	unsigned char buf[256];
	struct xms_dev xd;
	uint64_t a, x, t;

	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &x, NULL) == 0);
	/* a CE: the bytes are right */
	CHECK(arm(&xd, XMEMSIM_FAULT_MEM_CE, 0, 1) == 0);
	CHECK(all_bytes(&xd, a, 256, 0));
	CHECK_EQ_U64(edac("hbm", "ce_count"), ce0 + 1);
	/* a UE on a read of [a + 32, a + 288): fails; its first whole line,
	 * [a + 64, a + 128), stays bad */
	CHECK(arm(&xd, XMEMSIM_FAULT_MEM_UE, 0, 1) == 0);
	CHECK_EQ_U64(xms_read(&xd, a + 32, buf, 256), -EIO);
	CHECK_EQ_U64(xms_read(&xd, a + 64, buf, 64), -EIO);
	CHECK(xms_read(&xd, a, buf, 64) == 0 && xms_read(&xd, a + 128, buf, 64) == 0);
	/* a read shorter than a line fails once and poisons nothing */
	CHECK(arm(&xd, XMEMSIM_FAULT_MEM_UE, 0, 1) == 0);
	CHECK_EQ_U64(xms_read(&xd, a + 1000, buf, 16), -EIO);
	CHECK(xms_read(&xd, a + 1000, buf, 16) == 0);
	/* a transfer's source, decided at submit, met at completion */
	CHECK(arm(&xd, XMEMSIM_FAULT_MEM_UE, 0, 1) == 0);
	d = desc(a + 2048, x, 1024, 0);
	d.signal_sem = NONE;
	REQUIRE(xms_dma_submit(&xd, &d, 1, &t) == 0);
	CHECK(xms_dma_wait(&xd, t, -1, &w) == 0);
	CHECK_EQ_U64(w.status, -EIO);
	CHECK_EQ_U64(xms_read(&xd, a + 2048, buf, 64), -EIO);
	/* the framework, for a file that opted in */
	if (framework()) {
		knobs_off("mem_ue");
		REQUIRE(knob("mem_ue", "probability", "100") == 0);
		CHECK(xms_fault_arm(&xd, XMEMSIM_FAULT_MEM_UE, XMEMSIM_FAULT_FRAMEWORK,
				    0, 1) == 0);
		CHECK_EQ_U64(xms_read(&xd, x + 512, buf, 64), -EIO);
		knobs_off("mem_ue");
		CHECK_EQ_U64(xms_read(&xd, x + 512, buf, 64), -EIO);	/* stays */
	}
	printf("# hbm ue_count %lld -> %lld, ce_count %lld -> %lld\n", ue0,
	       edac("hbm", "ue_count"), ce0, edac("hbm", "ce_count"));
	/* 7 reads failed, 5 without the framework */
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0 + (framework() ? 7 : 5));
	xms_close(&xd);
	CHECK_LEVELS(before);
}

/* --- a mapping: SIGBUS on a page with a bad line, the page again after -- */

static sigjmp_buf bus_jmp;
static siginfo_t bus_info;	/* the last SIGBUS's */

static void on_bus(int sig, siginfo_t *si, void *uc __attribute__((unused)))
{
	bus_info = *si;
	siglongjmp(bus_jmp, sig);
}

/* Read one byte of a mapping: the byte, or -1 for SIGBUS (bus_info). */
static int touch(volatile unsigned char *p)
{
	struct sigaction sa = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO }, old;
	int v;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1))
		v = -1;
	else
		v = *p;
	sigaction(SIGBUS, &old, NULL);
	return v;
}

/* The last SIGBUS was the kernel's for a poisoned page, touched at p. */
static int bus_was_mce(volatile unsigned char *p)
{
	printf("#   SIGBUS si_code %d si_addr %p si_addr_lsb %d (touched %p)\n",
	       bus_info.si_code, bus_info.si_addr, (int)bus_info.si_addr_lsb,
	       (void *)p);
	return bus_info.si_code == BUS_MCEERR_AR && bus_info.si_addr == (void *)p &&
	       bus_info.si_addr_lsb == 12;
}

TEST(a_mapped_page_with_a_ue_gives_sigbus_until_rewritten)
{
	long long ue0 = edac("hbm", "ue_count");
	struct levels before = levels();
	unsigned char line[64];
	struct xms_dev xd;
	unsigned char *p, *q;
	uint64_t a;

	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	REQUIRE(fill(&xd, a, 8192, 0x42) == 0);
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, xd.fd, (off_t)a);
	REQUIRE(p != MAP_FAILED);
	CHECK_EQ_U64(touch(p + 4096 + 200), 0x42);
	/*
	 * the second page goes bad: only it faults, as a poisoned page does
	 * (a mapping made before the error, so the injection zapped it)
	 */
	CHECK(xms_mem_error(&xd, a + 4096 + 128, XMEMSIM_MEM_UE) == 0);
	CHECK_EQ_U64(touch(p + 4096 + 200), -1);
	CHECK(bus_was_mce(p + 4096 + 200));
	CHECK_EQ_U64(touch(p + 4096 + 4000), -1);	/* a clean line: the page */
	CHECK(bus_was_mce(p + 4096 + 4000));
	CHECK_EQ_U64(touch(p + 10), 0x42);
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0 + 2);
	/* a new mapping leaves the bad page out too */
	q = mmap(NULL, 8192, PROT_READ, MAP_SHARED, xd.fd, (off_t)a);
	REQUIRE(q != MAP_FAILED);
	CHECK_EQ_U64(touch(q + 4096), -1);
	CHECK(bus_was_mce(q + 4096));
	CHECK_EQ_U64(touch(q), 0x42);
	/* the line rewritten whole: both mappings see the page again */
	memset(line, 0x43, sizeof(line));
	CHECK(xms_write(&xd, a + 4096 + 128, line, sizeof(line)) == 0);
	CHECK_EQ_U64(touch(p + 4096 + 130), 0x43);
	CHECK_EQ_U64(touch(q + 4096 + 200), 0x42);
	printf("# hbm ue_count %lld -> %lld\n", ue0, edac("hbm", "ue_count"));
	CHECK_EQ_U64(edac("hbm", "ue_count"), ue0 + 3);
	munmap(p, 8192);
	munmap(q, 8192);
	xms_close(&xd);
	CHECK_LEVELS(before);
}

/* --- the framework: only who opted in -------------------------------------- */

static int set_make_it_fail(int on)
{
	return test_write_str("/proc/self/make-it-fail", on ? "1" : "0");
}

#define ROUNDS 200

/*
 * A child opted in by make-it-fail: ROUNDS allocations, every one
 * refused. Its exit status: 0 if so.
 */
static int opted_in_allocs(struct xms_dev *xd)
{
	uint64_t a;
	int i, n = 0;

	if (xms_open(xd, NULL))
		return 3;
	for (i = 0; i < ROUNDS; i++)
		n += xms_alloc(xd, HBM, 4096, 64, 0, &a, NULL) == -ENOMEM;
	return n == ROUNDS ? 0 : 1;
}

/*
 * uid 65534: the framework's knobs are root's, and so is opting a file in
 * (-EPERM: its calls would move the device's counts); opting out is
 * anyone's, and its ROUNDS allocations all pass. Its exit status: 0 if so.
 */
static int nobody_cannot_opt_in(struct xms_dev *xd)
{
	uint64_t a;
	int i;

	if (!knob("heap_alloc", "probability", "0"))
		return 5;
	if (xms_open(xd, NULL))
		return 3;
	if (xms_fault_arm(xd, XMEMSIM_FAULT_HEAP_ALLOC, XMEMSIM_FAULT_FRAMEWORK,
			  0, 1) != -EPERM ||
	    xms_fault_arm(xd, XMEMSIM_FAULT_HEAP_ALLOC, XMEMSIM_FAULT_FRAMEWORK,
			  0, 0))
		return 4;
	for (i = 0; i < ROUNDS; i++) {
		if (xms_alloc(xd, HBM, 4096, 64, 0, &a, NULL))
			return 1;
		xms_free(xd, HBM, a, NULL);
	}
	return 0;
}

TEST(only_who_opted_in_fails)
{
	struct levels before = levels();
	int fails = 0, oks = 0, i, status, nstatus;
	struct xms_dev xd, y;
	pid_t pid, nobody;
	uint64_t a;

	NEED_FRAMEWORK();

	REQUIRE(knobs_always("heap_alloc") == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {	/* opted in by make-it-fail: every allocation fails */
		if (set_make_it_fail(1))
			_exit(2);
		_exit(opted_in_allocs(&xd));
	}
	/* an unprivileged user may not opt in, not even its own file */
	nobody = fork();
	REQUIRE(nobody >= 0);
	if (!nobody) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(nobody_cannot_opt_in(&xd));
	}
	/* meanwhile, on the other CPU, this process did not opt in */
	REQUIRE(xms_open(&xd, NULL) == 0);
	for (i = 0; i < ROUNDS; i++) {
		if (xms_alloc(&xd, HBM, 4096, 64, 0, &a, NULL)) {
			fails++;
			continue;
		}
		oks++;
		xms_free(&xd, HBM, a, NULL);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	REQUIRE(waitpid(nobody, &nstatus, 0) == nobody);
	printf("# root's child (make-it-fail) exit %d, uid 65534's (refused) exit %d; this process: %d granted, %d refused\n",
	       WEXITSTATUS(status), WEXITSTATUS(nstatus), oks, fails);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(WIFEXITED(nstatus) && WEXITSTATUS(nstatus) == 0);
	CHECK_EQ_U64(fails, 0);
	/* a file that opts in fails; another file of the same process not */
	REQUIRE(xms_open(&y, NULL) == 0);
	CHECK(xms_fault_arm(&y, XMEMSIM_FAULT_HEAP_ALLOC, XMEMSIM_FAULT_FRAMEWORK, 0, 1) == 0);
	CHECK_EQ_U64(xms_alloc(&y, HBM, 4096, 64, 0, &a, NULL), -ENOMEM);
	CHECK(xms_alloc(&xd, HBM, 4096, 64, 0, &a, NULL) == 0);
	CHECK(xms_fault_arm(&y, XMEMSIM_FAULT_HEAP_ALLOC, XMEMSIM_FAULT_FRAMEWORK, 0, 0) == 0);
	CHECK(xms_alloc(&y, HBM, 4096, 64, 0, &a, NULL) == 0);
	/* the framework flag takes no counts */
	CHECK_EQ_U64(xms_fault_arm(&y, XMEMSIM_FAULT_HEAP_ALLOC, XMEMSIM_FAULT_FRAMEWORK, 1, 1),
		     -EINVAL);
	CHECK_EQ_U64(xms_fault_arm(&y, XMEMSIM_NUM_FAULTS, 0, 0, 1), -EINVAL);
	CHECK_EQ_U64(xms_fault_arm(&y, 0, 2, 0, 1), -EINVAL);
	xms_close(&y);
	xms_close(&xd);
	knobs_off("heap_alloc");
	CHECK_LEVELS(before);
}

/* docs/device.md's worked example ("Testing your error paths"): fail_dma_error for a process with make-it-fail */
TEST(readme_example_dma_error_for_an_opted_in_process)
{
	struct levels before = levels();
	struct xmemsim_dma_desc d[2];
	struct xmemsim_dma_wait w;
	struct xms_dev xd;
	int status, i;
	uint64_t s, x, t;
	pid_t pid;

	NEED_FRAMEWORK();

	REQUIRE(knobs_always("dma_error") == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {	/* the runtime under test: both transfers fail */
		int bad = 0;

		if (set_make_it_fail(1) || xms_open(&xd, NULL) ||
		    xms_alloc(&xd, HBM, 4096, 64, 0, &s, NULL) ||
		    xms_alloc(&xd, HBM, 4096, 64, 0, &x, NULL))
			_exit(2);
		d[0] = desc(s, x, 4096, 0);
		d[1] = desc(s, x, 2048, 1);
		if (xms_dma_submit(&xd, d, 2, &t))
			_exit(3);
		for (i = 0; i < 2; i++)
			bad += xms_dma_wait(&xd, t + i, -1, &w) || w.status != -EIO;
		_exit(bad ? 4 : 0);
	}
	/* this process did not opt in: its transfers complete */
	REQUIRE(xms_open(&xd, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 64, 0, &s, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 64, 0, &x, NULL) == 0);
	for (i = 0; i < 20; i++) {
		d[0] = desc(s, x, 4096, i % 4);
		CHECK(xms_dma_submit(&xd, d, 1, &t) == 0);
		CHECK(xms_dma_wait(&xd, t, -1, &w) == 0 && w.status == 0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	knobs_off("dma_error");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	xms_close(&xd);
	CHECK_LEVELS(before);
}

/* space and times: the same opted-in sequence fails the same calls */
TEST(framework_space_and_times_replay)
{
	char got[2][16];
	int run, i;

	NEED_FRAMEWORK();

	for (run = 0; run < 2; run++) {
		struct xms_dev xd;
		uint64_t a;

		knobs_off("heap_alloc");
		REQUIRE(knob("heap_alloc", "probability", "100") == 0);
		/* space 3: a call with 3, then 2 left passes; with 1, fails */
		REQUIRE(knob("heap_alloc", "space", "3") == 0);
		REQUIRE(knob("heap_alloc", "times", "2") == 0);
		REQUIRE(xms_open(&xd, NULL) == 0);
		REQUIRE(set_make_it_fail(1) == 0);
		for (i = 0; i < 6; i++)
			got[run][i] = xms_alloc(&xd, HBM, 4096, 64, 0, &a, NULL) ? 'F' : '.';
		got[run][i] = 0;
		set_make_it_fail(0);
		xms_close(&xd);
		printf("# run %d: %s\n", run + 1, got[run]);
	}
	CHECK_STR(got[0], "..FF..");
	CHECK_STR(got[1], got[0]);
	knobs_off("heap_alloc");
}

/* --- callers ---------------------------------------------------------------- */

TEST(neuron_compat_returns_minus_one_with_errno)
{
	struct xmemsim_fault_arm a = {
		.site = XMEMSIM_FAULT_HEAP_ALLOC, .times = 1,
	};
	uint64_t addr = 7;
	int fd;

	REQUIRE(init_neuron_hbm_allocator() == 0);
	fd = neuron_compat_fd();
	REQUIRE(fd >= 0);
	REQUIRE(ioctl(fd, XMEMSIM_IOC_FAULT_ARM, &a) == 0);
	errno = 0;
	CHECK_EQ_U64(neuron_hbm_allocate(4096, &addr, 0), -1);
	CHECK_EQ_U64(errno, ENOMEM);
	CHECK_EQ_U64(addr, 7);	/* output only on success */
	CHECK(neuron_hbm_allocate(4096, &addr, 0) == 0);
	CHECK(neuron_hbm_deallocate(addr) == 0);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* dramplan --submit with PLAN_SYNC failing on the last core */
TEST(dramplan_submit_fails_in_one_line_and_leaves_no_plan)
{
	struct levels before = levels();
	char *out;
	int rc;

	NEED_FRAMEWORK();

	knobs_off("plan");
	REQUIRE(knob("plan", "probability", "100") == 0);
	REQUIRE(knob("plan", "space", "3") == 0);	/* two submits pass */
	rc = system("sh -c 'echo 1 > /proc/self/make-it-fail && exec dramplan --submit --no-svg -q -o /tmp/f.plan.json /work/examples/shared_triple_2core.json' > /tmp/f.out 2> /tmp/f.err");
	knobs_off("plan");
	out = slurp("/tmp/f.err");
	printf("# exit %d, stderr: %s", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1,
	       out ? out : "(none)\n");
	CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
	CHECK(out && strchr(out, '\n') == strrchr(out, '\n'));	/* one line */
	CHECK(out && strstr(out, "core 1") && strstr(out, "sync"));
	CHECK_LEVELS(before);
}

TEST(every_site_has_its_knobs_and_counts)
{
	static const char * const site[] = {
		"heap_alloc", "heap_nosplit", "copy_dma", "bounce", "dma_error",
		"dma_hang", "plan", "mem_ce", "mem_ue",
	};
	char path[256], *faults;
	unsigned int i;

	NEED_FRAMEWORK();

	for (i = 0; i < sizeof(site) / sizeof(site[0]); i++) {
		snprintf(path, sizeof(path), DBGD "fail_%s/probability", site[i]);
		CHECK(test_read_ll(path) == 0);
		snprintf(path, sizeof(path), DBGD "fail_%s/task-filter", site[i]);
		CHECK(access(path, F_OK) == 0);
	}
	faults = slurp(DBGD "faults");
	REQUIRE(faults);
	/* this binary's earlier tests failed each of these on purpose */
	CHECK(!strstr(faults, "heap_alloc 0\n") && !strstr(faults, "copy_dma 0\n") &&
	      !strstr(faults, "dma_error 0\n") && !strstr(faults, "plan 0\n") &&
	      !strstr(faults, "dma_hang 0\n") && !strstr(faults, "bounce 0\n") &&
	      !strstr(faults, "mem_ce 0\n") && !strstr(faults, "mem_ue 0\n") &&
	      !strstr(faults, "heap_nosplit 0\n"));
	for (i = 0; faults[i]; i++)
		if (faults[i] == '\n')
			faults[i] = faults[i + 1] ? ',' : 0;
	printf("# injected: %s\n", faults);
}

int main(void)
{
	return tap_run();
}
