// SPDX-License-Identifier: GPL-2.0
/*
 * VM tests of the io_uring front end: every command through
 * IORING_OP_URING_CMD gives what ioctl() gives, batches, the data plane
 * through IORING_OP_READ/WRITE, and a ring closed with work in flight.
 */
#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"
#include "xorshift.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static int heaps_empty(void *arg)
{
	struct xms_dev *xd = arg;
	struct xmemsim_heap_stats s;
	int h;

	for (h = 0; h < 2; h++)
		if (xms_stats(xd, h, &s) || s.free_bytes != s.pool_size ||
		    s.unused_bytes || s.free_blocks != 1)
			return 0;
	return 1;
}

/* Both heaps empty, once the previous test's file is gone (test_settle) */
static int pristine(struct xms_dev *xd)
{
	return test_settle(heaps_empty, xd);
}

/* The same 400-command trace through xd, as seen by its results. */
struct step {
	int ret, status;
	uint64_t addr;
};

static void run_trace(struct xms_dev *xd, struct step *out, int n, uint64_t seed)
{
	uint64_t live[64];
	int nlive = 0, i;

	rng = seed;
	for (i = 0; i < n; i++) {
		out[i].status = 1;
		out[i].addr = 0;
		if (nlive < 64 && (next() % 3 || !nlive)) {
			uint64_t size = next() % 9000, align = 1ULL << (next() % 13);

			out[i].ret = xms_alloc(xd, next() % 5 ? HBM : DRAM, size,
					       next() % 11 ? align : 3, 0,
					       &out[i].addr, &out[i].status);
			if (!out[i].ret)
				live[nlive++] = out[i].addr;
		} else {
			int k = next() % nlive;
			uint64_t a = live[k];
			int heap = a < 0x100000000ULL ? DRAM : HBM;

			live[k] = live[--nlive];
			out[i].ret = xms_free(xd, heap, a, &out[i].status);
		}
	}
}

TEST(same_results_through_ioctl_and_uring)
{
	struct xms_dev xd;
	static struct step a[400], b[400];
	struct xms_ring ring;
	int fd, i, diff = 0;

	fd = test_open(&xd);
	REQUIRE(fd >= 0 && pristine(&xd));
	run_trace(&xd, a, 400, 42);
	close(fd);

	fd = test_open(&xd);
	REQUIRE(fd >= 0 && pristine(&xd));
	REQUIRE(xms_ring_init(&ring, &xd, 16) == 0);
	REQUIRE(xms_attach_ring(&xd, &ring) == 0);
	run_trace(&xd, b, 400, 42);
	xms_attach_ring(&xd, NULL);
	xms_ring_exit(&ring);
	close(fd);

	for (i = 0; i < 400; i++)
		if (a[i].ret != b[i].ret || a[i].status != b[i].status ||
		    a[i].addr != b[i].addr) {
			if (diff++ < 3)
				printf("#   step %d: ioctl %d/%d/%#llx uring %d/%d/%#llx\n", i,
				       a[i].ret, a[i].status, (unsigned long long)a[i].addr,
				       b[i].ret, b[i].status, (unsigned long long)b[i].addr);
		}
	CHECK(diff == 0);
	/* the trace did hit errors, or this proves little */
	for (i = 0, diff = 0; i < 400; i++)
		diff += a[i].ret != 0;
	CHECK(diff > 0);
}

/* One bad input: a command and its argument, run through both paths. */
struct bad {
	const char *name;
	unsigned long cmd;
	union {
		struct xmemsim_alloc alloc;
		struct xmemsim_free free;
		struct xmemsim_heap_stats stats;
		struct xmemsim_heap_dump dump;
		struct xmemsim_stack_alloc stack;
		struct xmemsim_copy copy;
		char raw[256];
	} arg;
	int expect;
};

static int via_ring(struct xms_ring *r, unsigned long cmd, void *arg)
{
	struct xms_result res;

	if (xms_ring_queue(r, cmd, arg, 7) || xms_ring_submit(r) != 1 ||
	    xms_ring_reap(r, &res, 1, 1) != 1 || res.tag != 7)
		return 12345;
	return res.res;
}

/* Each input through ioctl and through the ring: the same errno and bytes. */
static void same_errno_both_ways(int fd, struct xms_ring *ring,
				 const struct bad *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct bad a = t[i], b = t[i];
		int ri = ioctl(fd, t[i].cmd, &a.arg) ? -errno : 0;
		int ru = via_ring(ring, t[i].cmd, &b.arg);

		if (ri != t[i].expect || ru != t[i].expect ||
		    memcmp(&a.arg, &b.arg, sizeof(a.arg))) {
			printf("#   %s: ioctl %d uring %d expected %d\n", t[i].name,
			       ri, ru, t[i].expect);
			CHECK(0);
		}
	}
}

TEST(each_bad_input_gives_the_same_errno_through_uring)
{
	struct xms_dev xd;
	struct xms_ring ring;
	int fd = test_open(&xd);
	uint64_t mine = 0;

	REQUIRE(fd >= 0);
	REQUIRE(xms_ring_init(&ring, &xd, 8) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &mine, NULL) == 0);
	{
		const struct bad t[] = {
			{ "bad heap id", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .heap = XMEMSIM_NUM_HEAPS, .size = 64 } }, -EINVAL },
			{ "nonzero reserved", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .size = 64, .reserved0 = 1 } }, -EINVAL },
			{ "unknown flag", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .size = 64, .flags = 4 } }, -EINVAL },
			{ "size 0", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .size = 0 } }, -EINVAL },
			{ "alignment 3", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .size = 64, .align = 3 } }, -EINVAL },
			{ "size beyond the window", XMEMSIM_IOC_HEAP_ALLOC, { .alloc = { .size = 1ULL << 40 } }, -ENOMEM },
			{ "free of nothing", XMEMSIM_IOC_HEAP_FREE, { .free = { .addr = mine + 64 } }, -ENOENT },
			{ "stats of heap 9", XMEMSIM_IOC_HEAP_STATS, { .stats = { .heap = 9 } }, -EINVAL },
			{ "dump to a bad pointer", XMEMSIM_IOC_HEAP_DUMP, { .dump = { .capacity = 4, .blocks = 16 } }, -EFAULT },
			{ "stack too big", XMEMSIM_IOC_STACK_ALLOC, { .stack = { .size = (4 << 20) + 1 } }, -EINVAL },
			{ "copy overflowing", XMEMSIM_IOC_COPY, { .copy = { .src = UINT64_MAX - 1, .dst = mine, .len = 8 } }, -EINVAL },
			{ "copy unowned", XMEMSIM_IOC_COPY, { .copy = { .src = mine + 8192, .dst = mine, .len = 8 } }, -EACCES },
			{ "copy bad method", XMEMSIM_IOC_COPY, { .copy = { .src = mine, .dst = mine + 64, .len = 8, .method = 9 } }, -EINVAL },
			{ "unknown command", _IOWR(XMEMSIM_IOC_MAGIC, 0x70, struct xmemsim_copy), { .raw = { 0 } }, -ENOTTY },
			{ "right number, wrong size", _IOWR(XMEMSIM_IOC_MAGIC, 0x01, struct xmemsim_free), { .raw = { 0 } }, -ENOTTY },
		};

		same_errno_both_ways(fd, &ring, t, sizeof(t) / sizeof(t[0]));
	}
	CHECK(via_ring(&ring, XMEMSIM_IOC_GET_INFO, NULL) == -EFAULT);
	xms_ring_exit(&ring);
	close(fd);
}

TEST(nonzero_reserved_in_the_sqe_command_area)
{
	struct xms_dev xd;
	struct xmemsim_info in;
	struct xmemsim_uring_cmd uc = { .arg = (uintptr_t)&in, .reserved = 1 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fd = test_open(&xd);

	REQUIRE(fd >= 0);
	REQUIRE(io_uring_queue_init(4, &ring, 0) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = XMEMSIM_IOC_GET_INFO;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	REQUIRE(io_uring_submit_and_wait(&ring, 1) == 1);
	REQUIRE(io_uring_wait_cqe(&ring, &cqe) == 0);
	CHECK(cqe->res == -EINVAL);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	close(fd);
}

TEST(a_batch_of_1000_mixed_commands)
{
	struct xms_dev xd;
	enum { N = 1000 };
	static struct xmemsim_alloc al[N];
	static struct xmemsim_heap_stats st[N];
	static struct xmemsim_info in[N];
	static struct xmemsim_copy cp[N];
	static struct xms_result res[N];
	static int seen[N];
	struct xms_ring ring;
	uint64_t a, b;
	int fd = test_open(&xd), i, got = 0, ok_alloc = 0, nomem = 0, bad = 0;

	REQUIRE(fd >= 0 && pristine(&xd));
	REQUIRE(xms_alloc(&xd, HBM, 1 << 16, 0, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 1 << 16, 0, 0, &b, NULL) == 0);
	REQUIRE(xms_ring_init(&ring, &xd, 1024) == 0);
	for (i = 0; i < N; i++) {
		int r;

		switch (i % 4) {
		case 0:
			al[i] = (struct xmemsim_alloc){ .heap = HBM, .size = 100 + i };
			r = xms_ring_queue(&ring, XMEMSIM_IOC_HEAP_ALLOC, &al[i], i);
			break;
		case 1:
			st[i] = (struct xmemsim_heap_stats){ .heap = i % 8 == 1 };
			r = xms_ring_queue(&ring, XMEMSIM_IOC_HEAP_STATS, &st[i], i);
			break;
		case 2:
			r = xms_ring_queue(&ring, XMEMSIM_IOC_GET_INFO, &in[i], i);
			break;
		default:
			cp[i] = (struct xmemsim_copy){ .src = a, .dst = b, .len = 4096,
						      .method = i % 3 };
			r = xms_ring_queue(&ring, XMEMSIM_IOC_COPY, &cp[i], i);
			break;
		}
		REQUIRE(r == 0);
	}
	CHECK(xms_ring_submit(&ring) == N);
	while (got < N) {
		int n = xms_ring_reap(&ring, res + got, N - got, 1);

		REQUIRE(n > 0);
		got += n;
	}
	for (i = 0; i < N; i++) {
		uint64_t t = res[i].tag;

		REQUIRE(t < N);
		seen[t]++;
		if (t % 4 == 0) {
			if (res[i].res == 0)
				ok_alloc++;
			else if (res[i].res == -ENOMEM)
				nomem++;
			else
				bad++;
		} else if (res[i].res != 0) {
			bad++;
		}
	}
	for (i = 0; i < N; i++)
		CHECK(seen[i] == 1);
	CHECK(bad == 0);
	/* 32 descriptors: 2 taken, then the whole tail goes to one alloc */
	CHECK(ok_alloc > 0 && ok_alloc + nomem == N / 4);
	CHECK(in[2].abi_version == XMEMSIM_ABI_VERSION);
	CHECK(st[1].pool_size > 0);
	xms_ring_exit(&ring);
	close(fd);
	fd = test_open(&xd);
	for (i = 0; i < 200 && !pristine(&xd); i++)
		usleep(10000);
	CHECK(pristine(&xd));
	close(fd);
}

TEST(io_uring_read_write_and_vectors_reach_owned_memory)
{
	struct xms_dev xd;
	unsigned char w[3 * 4096], r[3 * 4096];
	struct iovec iov[3];
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fd = test_open(&xd), i, res[4];
	uint64_t a, other;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, sizeof(w), 0, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 64, 0, 0, &other, NULL) == 0);
	for (i = 0; i < (int)sizeof(w); i++)
		w[i] = (unsigned char)(i * 31 + 7);
	REQUIRE(io_uring_queue_init(8, &ring, 0) == 0);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, w, sizeof(w), a);
	sqe->user_data = 0;
	for (i = 0; i < 3; i++) {
		iov[i].iov_base = r + i * 4096;
		iov[i].iov_len = 4096;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_readv(sqe, fd, iov, 3, a);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, r, 16, a + sizeof(w) - 8);	/* past the end */
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 2;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, w, 16, other + 4096 * 16);	/* nobody's */
	sqe->user_data = 3;
	REQUIRE(io_uring_submit_and_wait(&ring, 4) == 4);
	for (i = 0; i < 4; i++) {
		REQUIRE(io_uring_wait_cqe(&ring, &cqe) == 0);
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK(res[0] == (int)sizeof(w));
	CHECK(res[1] == (int)sizeof(w));
	CHECK(!memcmp(w, r, sizeof(w)));
	CHECK(res[2] == -EACCES);
	CHECK(res[3] == -EACCES);
	io_uring_queue_exit(&ring);
	close(fd);
}

TEST(a_ring_closed_with_commands_in_flight_leaves_the_heaps_consistent)
{
	struct xms_dev xctl;
	struct xms_dev xd;
	static struct xmemsim_copy cp[64];
	static struct xmemsim_alloc al[64];
	struct xms_ring ring;
	uint64_t a, b;
	int fd = test_open(&xd), i, ctl;

	REQUIRE(fd >= 0 && pristine(&xd));
	REQUIRE(xms_alloc(&xd, HBM, 1 << 20, 0, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 1 << 20, 0, 0, &b, NULL) == 0);
	REQUIRE(xms_ring_init(&ring, &xd, 128) == 0);
	for (i = 0; i < 64; i++) {
		/* DMA copies go to io-wq workers (they may block) */
		cp[i] = (struct xmemsim_copy){ .src = a, .dst = b, .len = 1 << 20,
					      .method = XMEMSIM_COPY_DMA };
		REQUIRE(xms_ring_queue(&ring, XMEMSIM_IOC_COPY, &cp[i], i) == 0);
		al[i] = (struct xmemsim_alloc){ .heap = i % 2, .size = 64 + i };
		REQUIRE(xms_ring_queue(&ring, XMEMSIM_IOC_HEAP_ALLOC, &al[i], 100 + i) == 0);
	}
	CHECK(xms_ring_submit(&ring) == 128);
	/* no reaping: tear the ring and the file down with work in flight */
	xms_ring_exit(&ring);
	close(fd);
	ctl = test_open(&xctl);
	REQUIRE(ctl >= 0);
	for (i = 0; i < 500 && !pristine(&xctl); i++)
		usleep(10000);
	CHECK(pristine(&xctl));
	close(ctl);
}

int main(void)
{
	return tap_run();
}
