// SPDX-License-Identifier: GPL-2.0
/*
 * bench_uring: command and data rates of /dev/xmemsim through ioctl() and
 * io_uring, measured side by side in one run (scripts/bench-uring.sh runs
 * it in the test VM). Prints rates and ratios against named baselines:
 * ioctl for commands, mmap+memcpy for bytes. Never a pass/fail.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_uring: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* Each measurement runs at least this long: the guest clock is coarse. */
static double min_secs = 1.0;

/* alloc+free pairs per second through ioctl */
static double pairs_ioctl(struct xms_dev *xd, int n)
{
	double t = now(), el;
	uint64_t a;
	int i, r, done = 0;

again:
	for (i = 0; i < n; i++) {
		r = xms_alloc(xd, XMEMSIM_HEAP_HBM, 256, 0, 0, &a, NULL);
		if (r)
			die("alloc", r);
		r = xms_free(xd, XMEMSIM_HEAP_HBM, a, NULL);
		if (r)
			die("free", r);
	}
	done += n;
	el = now() - t;
	if (el < min_secs)
		goto again;
	return done / el;
}

/* the same pairs through io_uring, batch allocs then batch frees */
static double pairs_uring(struct xms_dev *xd, int n, unsigned int batch)
{
	static struct xmemsim_alloc al[64];
	static struct xmemsim_free fr[64];
	static struct xms_result res[64];
	struct xms_ring ring;
	unsigned int i;
	double t;
	int done = 0, r;

	r = xms_ring_init(&ring, xd, 128);
	if (r)
		die("ring", r);
	t = now();
	while (done < n || now() - t < min_secs) {
		for (i = 0; i < batch; i++) {
			al[i] = (struct xmemsim_alloc){ .heap = XMEMSIM_HEAP_HBM, .size = 256 };
			xms_ring_queue(&ring, XMEMSIM_IOC_HEAP_ALLOC, &al[i], i);
		}
		if (xms_ring_submit(&ring) != (int)batch ||
		    xms_ring_reap(&ring, res, batch, batch) != (int)batch)
			die("uring alloc", -EIO);
		for (i = 0; i < batch; i++) {
			if (res[i].res)
				die("uring alloc result", res[i].res);
			fr[i] = (struct xmemsim_free){ .heap = XMEMSIM_HEAP_HBM,
						       .addr = al[i].addr };
			xms_ring_queue(&ring, XMEMSIM_IOC_HEAP_FREE, &fr[i], i);
		}
		if (xms_ring_submit(&ring) != (int)batch ||
		    xms_ring_reap(&ring, res, batch, batch) != (int)batch)
			die("uring free", -EIO);
		done += batch;
	}
	t = now() - t;
	xms_ring_exit(&ring);
	return done / t;
}

/* bytes per second moved by one method */
enum { PREAD, PWRITE, UREAD, UWRITE, MMAP_RD, MMAP_WR };

static double bytes_rate(int fd, uint64_t dev, unsigned char *map, size_t win,
			 size_t chunk, int how, double secs)
{
	unsigned char *buf = aligned_alloc(4096, chunk);
	struct io_uring ring;
	double t = now(), el;
	size_t moved = 0, off = 0;
	int depth = 8;

	if (!buf)
		die("buffer", -ENOMEM);
	memset(buf, 0x5a, chunk);
	if ((how == UREAD || how == UWRITE) && io_uring_queue_init(16, &ring, 0))
		die("io_uring", -EIO);
	do {
		int k, n = how == UREAD || how == UWRITE ? depth : 1;

		for (k = 0; k < n; k++) {
			uint64_t o = off;

			off = (off + chunk) % win;
			switch (how) {
			case PREAD:
				if (pread(fd, buf, chunk, dev + o) != (ssize_t)chunk)
					die("pread", -errno);
				break;
			case PWRITE:
				if (pwrite(fd, buf, chunk, dev + o) != (ssize_t)chunk)
					die("pwrite", -errno);
				break;
			case MMAP_RD:
				memcpy(buf, map + o, chunk);
				break;
			case MMAP_WR:
				memcpy(map + o, buf, chunk);
				break;
			default: {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

				if (how == UREAD)
					io_uring_prep_read(sqe, fd, buf, chunk, dev + o);
				else
					io_uring_prep_write(sqe, fd, buf, chunk, dev + o);
			}
			}
		}
		if (how == UREAD || how == UWRITE) {
			struct io_uring_cqe *cqe;

			if (io_uring_submit_and_wait(&ring, n) < n)
				die("submit", -EIO);
			for (k = 0; k < n; k++) {
				if (io_uring_wait_cqe(&ring, &cqe) || cqe->res != (int)chunk)
					die("io_uring rw", cqe ? cqe->res : -EIO);
				io_uring_cqe_seen(&ring, cqe);
			}
		}
		moved += n * chunk;
		el = now() - t;
	} while (el < secs);
	if (how == UREAD || how == UWRITE)
		io_uring_queue_exit(&ring);
	free(buf);
	return moved / el;
}

int main(int argc, char **argv)
{
	struct xms_dev xd;
	int fd = test_open(&xd), n = argc > 1 ? atoi(argv[1]) : 20000, r;
	const size_t win = 16 << 20;
	double base, rate, bound = 1;
	unsigned int b;
	unsigned char *map;
	uint64_t dev;

	if (fd < 0)
		die("open", fd);
	printf("commands: alloc+free pairs per second (at least %d pairs and %.1f s each)\n",
	       n, min_secs);
	printf("  %-22s %12s %10s\n", "path", "pairs/s", "vs ioctl");
	min_secs = 0.2;
	pairs_ioctl(&xd, n / 10);	/* warm up */
	min_secs = 1.0;
	base = pairs_ioctl(&xd, n);
	printf("  %-22s %12.0f %9.2fx\n", "ioctl", base, 1.0);
	for (b = 1; b <= 64; b *= 8) {
		char name[32];

		snprintf(name, sizeof(name), "io_uring batch %u", b);
		rate = pairs_uring(&xd, n, b);
		printf("  %-22s %12.0f %9.2fx\n", name, rate, rate / base);
	}

	r = xms_alloc(&xd, XMEMSIM_HEAP_HBM, win, 4096, 0, &dev, NULL);
	if (r)
		die("alloc window", r);
	map = mmap(NULL, win, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)dev);
	if (map == MAP_FAILED)
		die("mmap", -errno);
	printf("\nbytes: MB/s over a %zu MiB allocation (io_uring: 8 in flight)\n", win >> 20);
	printf("  %-8s %-22s %10s %12s\n", "size", "path", "MB/s", "vs mmap");
	for (size_t chunk = 4096; chunk <= (1 << 20); chunk *= 256) {
		static const struct { int how, ref; const char *name; } m[] = {
			{ MMAP_RD, MMAP_RD, "mmap+memcpy read" },
			{ PREAD, MMAP_RD, "pread" },
			{ UREAD, MMAP_RD, "IORING_OP_READ" },
			{ MMAP_WR, MMAP_WR, "mmap+memcpy write" },
			{ PWRITE, MMAP_WR, "pwrite" },
			{ UWRITE, MMAP_WR, "IORING_OP_WRITE" },
		};

		for (unsigned int i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			rate = bytes_rate(fd, dev, map, win, chunk, m[i].how, 0.5);
			if (m[i].how == m[i].ref)
				bound = rate;
			printf("  %-8s %-22s %10.0f %11.0f%%\n",
			       chunk == 4096 ? "4 KiB" : "1 MiB", m[i].name, rate / 1e6,
			       100.0 * rate / bound);
		}
	}
	munmap(map, win);
	close(fd);
	return 0;
}
