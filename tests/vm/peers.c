// SPDX-License-Identifier: GPL-2.0
/*
 * peers: many devices on the modeled interconnect, as xmemsim(4) and
 * uapi/xmemsim.h describe them. Device memory exported as a dma-buf and
 * imported on another device, the caller's pages mapped for DMA, bytes
 * checked both ways; modeled times against the route's links; and the
 * hostile side: another user without the fd, forged fds and addresses, an
 * exporter that closes or dies, teardown with transfers in flight.
 * tests/vm/run.sh loads the module with devices=4 (and 16) and runs this.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define NONE XMEMSIM_SEM_NONE
#define LEN 65536

static unsigned int ndev;
static int have_dmabuf;

static int open_dev(unsigned int i, struct xms_dev *xd)
{
	char path[64];

	if (i)
		snprintf(path, sizeof(path), "/dev/xmemsim%u", i);
	else
		snprintf(path, sizeof(path), "/dev/xmemsim");
	return xms_open(xd, path);
}

/* ioctl(), or the ring attached to xd: the same answers either way */
static int xioctl(struct xms_dev *xd, unsigned long cmd, void *arg)
{
	return xms_cmd(xd, cmd, arg);
}

static int export(struct xms_dev *xd, uint64_t addr, uint64_t len, int *fd)
{
	struct xmemsim_dmabuf_export ex = { .addr = addr, .len = len };
	int ret = xioctl(xd, XMEMSIM_IOC_DMABUF_EXPORT, &ex);

	if (!ret)
		*fd = ex.fd;
	return ret;
}

static int import(struct xms_dev *xd, int fd, struct xmemsim_dmabuf_import *im)
{
	memset(im, 0, sizeof(*im));
	im->fd = fd;
	return xioctl(xd, XMEMSIM_IOC_DMABUF_IMPORT, im);
}

static int unmap(struct xms_dev *xd, uint64_t addr)
{
	struct xmemsim_unmap u = { .addr = addr };

	return xioctl(xd, XMEMSIM_IOC_UNMAP, &u);
}

/* One copy src -> dst on engine e, waited for: its modeled duration. */
static int64_t dma(struct xms_dev *xd, uint64_t src, uint64_t dst, uint64_t len,
		   uint32_t e)
{
	struct xmemsim_dma_desc d = {
		.src = src, .dst = dst, .len = len, .engine = e,
		.wait_sem = NONE, .signal_sem = NONE,
	};
	struct xmemsim_dma_wait w;
	uint64_t t;
	int ret = xms_dma_submit(xd, &d, 1, &t);

	if (!ret)
		ret = xms_dma_wait(xd, t, -1, &w);
	if (!ret && w.status)
		ret = w.status;
	return ret ? ret : (int64_t)(w.end_ns - w.start_ns);
}

/* An fd over a Unix socket, as SCM_RIGHTS passes it: 0 or -1. */
static int send_fd(int sock, int fd)
{
	char byte = 'x', ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

/* The fd that came over sock, or -1. */
static int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &mh, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 8));
}

/* The modeled ns of len bytes over `hops` device links (HBM to HBM). */
static int64_t expect_ns(uint64_t len, unsigned int hops, int host)
{
	unsigned long long bw = test_param("dma_mbps_hbm_hbm");
	unsigned long long lbw = test_param(host ? "host_mbps" : "link_mbps");
	unsigned long long lat = test_param("dma_latency_ns");

	if (hops && lbw < bw)
		bw = lbw;
	lat += hops * test_param(host ? "host_latency_ns" : "link_latency_ns");
	return lat + len * 1000ULL / bw;	/* MB/s: bytes * 1e9 / (bw * 1e6) */
}

static long long hbm_used(unsigned int i)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/misc/xmemsim%.0u/hbm_used", i);
	return test_read_ll(path);
}

/*
 * Device i's HBM all free again, waited for (5 s at most): a dma-buf whose
 * last holder was a transfer completed by a kernel worker, or a dead
 * task's file, is put by the kernel's deferred fput, a moment later.
 */
static int hbm_settles(unsigned int i)
{
	int k;

	for (k = 0; k < 500 && hbm_used(i); k++)
		usleep(10000);
	return hbm_used(i) == 0;
}

TEST(peers_in_sysfs_are_the_ring)
{
	char path[96], line[256];
	unsigned int i, b, hops, via;
	FILE *f;

	REQUIRE(ndev >= 2);
	for (i = 0; i < ndev; i++) {
		snprintf(path, sizeof(path), "/sys/class/misc/xmemsim%.0u/peers", i);
		f = fopen(path, "r");
		REQUIRE(f);
		CHECK(fgets(line, sizeof(line), f) && !strncmp(line, "topology ring devices ", 22));
		while (fgets(line, sizeof(line), f)) {
			unsigned int fwd, d;

			REQUIRE(sscanf(line, "%u hops %u via %u", &b, &hops, &via) == 3);
			fwd = (b + ndev - i) % ndev;
			d = fwd < ndev - fwd ? fwd : ndev - fwd;
			CHECK(hops == d);
			/* ties go to the lower next device */
			if (hops)
				CHECK(via == (i + 1) % ndev || via == (i + ndev - 1) % ndev);
		}
		fclose(f);
	}
}

/*
 * Device 0's bytes, exported, imported on device 1: read there by DMA and
 * written back from there, byte for byte, in the modeled time of one link.
 */
static void peer_bytes(int uring)
{
	static uint8_t pat[LEN], pat2[LEN], got[LEN];
	struct xmemsim_dmabuf_import im;
	struct xms_ring r0, r1;
	struct xms_dev x0, x1;
	uint64_t a, b, c;
	int64_t ns;
	int fd;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	fill(pat, LEN, 1);
	fill(pat2, LEN, 2);
	REQUIRE(open_dev(0, &x0) == 0 && open_dev(1, &x1) == 0);
	if (uring) {	/* every command of both files through io_uring */
		REQUIRE(xms_ring_init(&r0, &x0, 4) == 0 && xms_ring_init(&r1, &x1, 4) == 0);
		REQUIRE(xms_attach_ring(&x0, &r0) == 0 && xms_attach_ring(&x1, &r1) == 0);
	}
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_write(&x0, a, pat, LEN) == 0);
	REQUIRE(export(&x0, a, LEN, &fd) == 0);
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC);
	REQUIRE(import(&x1, fd, &im) == 0);
	CHECK(im.peer == 0 && im.hops == 1 && im.len == LEN);
	CHECK(im.addr == XMEMSIM_APERTURE_BASE);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &b, NULL) == 0);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &c, NULL) == 0);
	ns = dma(&x1, im.addr, b, LEN, 0);
	CHECK(ns == expect_ns(LEN, 1, 0));
	printf("# 64 KiB over one link: %lld modeled ns\n", (long long)ns);
	CHECK(xms_read(&x1, b, got, LEN) == 0 && !memcmp(got, pat, LEN));
	CHECK(xms_write(&x1, c, pat2, LEN) == 0);
	CHECK(dma(&x1, c, im.addr + 4096, LEN - 4096, 1) > 0);
	CHECK(xms_read(&x0, a, got, LEN) == 0 && !memcmp(got, pat, 4096) &&
	      !memcmp(got + 4096, pat2, LEN - 4096));
	/* past the mapping's end, or both ends in the aperture: refused */
	CHECK(dma(&x1, im.addr + 4096, b, LEN, 0) == -EACCES);
	CHECK(dma(&x1, im.addr, im.addr + 2 * XMEMSIM_APERTURE_SLOT_SIZE, 64, 0) == -EINVAL);
	/* pread, COPY and another device's file know nothing of it */
	CHECK(xms_read(&x1, im.addr, got, 64) < 0);
	CHECK(xms_copy(&x1, im.addr, b, 64, 0) == -EACCES);
	CHECK(dma(&x0, im.addr, a, 64, 0) == -EACCES);
	/* the allocation is the dma-buf's while it lives */
	CHECK(xms_free(&x0, HBM, a, NULL) == -EBUSY);
	CHECK(unmap(&x1, im.addr) == 0 && unmap(&x1, im.addr) == -ENOENT);
	close(fd);
	CHECK(xms_free(&x0, HBM, a, NULL) == 0);
	if (uring) {
		xms_attach_ring(&x0, NULL);
		xms_attach_ring(&x1, NULL);
		xms_ring_exit(&r0);
		xms_ring_exit(&r1);
	}
	xms_close(&x1);
	xms_close(&x0);
}

TEST(peer_dma_moves_bytes_both_ways)
{
	peer_bytes(0);
}

TEST(peer_dma_moves_bytes_both_ways_through_io_uring)
{
	peer_bytes(1);
}

/*
 * The exporter closes its device file, and then dies: the importer still
 * reads its bytes; the memory goes back to device 0 with the last holder.
 */
TEST(exporter_gone_leaves_no_dangling_importer)
{
	static uint8_t pat[LEN], got[LEN];
	struct xmemsim_dmabuf_import im;
	struct xms_dev x0, x1;
	int sv[2], fd = -1, st;
	uint64_t a, b;
	pid_t pid;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	REQUIRE(hbm_settles(0));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		SKIP("no AF_UNIX in this kernel: the stock kernels pass the fd");
	fill(pat, LEN, 3);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {	/* the exporter: sends the fd, then exits */
		if (open_dev(0, &x0) || xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) ||
		    xms_write(&x0, a, pat, LEN) || export(&x0, a, LEN, &fd) ||
		    send_fd(sv[1], fd))
			_exit(1);
		_exit(0);
	}
	close(sv[1]);	/* a child that failed leaves an end of file, no hang */
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
	fd = recv_fd(sv[0]);
	close(sv[0]);
	REQUIRE(fd >= 0);
	CHECK(hbm_used(0) > 0);	/* the dead exporter's bytes, kept */
	REQUIRE(open_dev(2 % ndev, &x1) == 0);
	REQUIRE(import(&x1, fd, &im) == 0);
	close(fd);	/* the mapping holds the dma-buf now */
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &b, NULL) == 0);
	CHECK(dma(&x1, im.addr, b, LEN, 0) == expect_ns(LEN, ndev > 2 ? 2 : 1, 0));
	CHECK(xms_read(&x1, b, got, LEN) == 0 && !memcmp(got, pat, LEN));
	CHECK(hbm_used(0) > 0);
	xms_close(&x1);	/* the last holder */
	CHECK(hbm_settles(0));
}

/*
 * Another user without the fd reaches nothing: a forged fd, an fd that is
 * no dma-buf, an aperture address never mapped. With the fd passed over
 * a Unix socket, it reads the bytes.
 */
TEST(nobody_reaches_nothing_without_the_fd)
{
	static uint8_t pat[LEN];
	struct xms_dev x0;
	int sv[2], fd, st;
	uint64_t a;
	pid_t pid;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	if (geteuid())
		SKIP("needs root, to become uid 65534");
	fill(pat, LEN, 4);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		SKIP("no AF_UNIX in this kernel: the stock kernels pass the fd");
	REQUIRE(open_dev(0, &x0) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_write(&x0, a, pat, LEN) == 0);
	REQUIRE(export(&x0, a, LEN, &fd) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		struct xmemsim_dmabuf_import im;
		static uint8_t got[LEN];
		struct xms_dev y;
		uint64_t b;
		int pfd, bad = 0;

		close(fd);	/* nothing inherited: it must come by socket */
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(100);
		if (open_dev(1, &y))
			_exit(101);	/* the node is not open to all */
		if (xms_alloc(&y, HBM, LEN, 4096, 0, &b, NULL))
			_exit(102);
		int r[6];

		r[0] = import(&y, sv[0], &im);	/* a socket */
		r[1] = import(&y, 999, &im);	/* forged */
		r[2] = import(&y, y.fd, &im);	/* a device file */
		r[3] = (int)dma(&y, XMEMSIM_APERTURE_BASE, b, 64, 0);
		r[4] = (int)dma(&y, XMEMSIM_APERTURE_BASE +
				5 * XMEMSIM_APERTURE_SLOT_SIZE, b, 64, 0);
		r[5] = unmap(&y, XMEMSIM_APERTURE_BASE);
		printf("# uid 65534: imports %d %d %d, DMA %d %d, unmap %d\n",
		       r[0], r[1], r[2], r[3], r[4], r[5]);
		fflush(stdout);
		bad |= r[0] != -EINVAL || r[1] != -EBADF || r[2] != -EINVAL;
		bad |= (r[3] != -EACCES || r[4] != -EACCES) << 2;
		bad |= (r[5] != -ENOENT) << 3;
		pfd = recv_fd(sv[0]);
		bad |= (pfd < 0 || import(&y, pfd, &im) || im.peer != 0) << 4;
		bad |= (dma(&y, im.addr, b, LEN, 0) <= 0 ||
			xms_read(&y, b, got, LEN) || memcmp(got, pat, LEN)) << 5;
		_exit(bad);
	}
	CHECK(send_fd(sv[1], fd) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	printf("# uid 65534's checks: %#x (0: all held)\n", WEXITSTATUS(st));
	CHECK(WEXITSTATUS(st) == 0);	/* 101: run it with the nodes 0666 */
	close(fd);
	close(sv[0]);	/* an fd still in flight on it holds the dma-buf */
	close(sv[1]);
	/*
	 * The child's last fput of the dma-buf ran as it exited, which the
	 * kernel defers to a worker: the free may meet the dma-buf for a
	 * moment, never for long.
	 */
	for (st = 0; st < 500 && xms_free(&x0, HBM, a, NULL) == -EBUSY; st++)
		usleep(10000);
	CHECK(st < 500);
	CHECK(hbm_settles(0));
	xms_close(&x0);
}

/*
 * Transfers held on a semaphore when their mapping, its dma-buf and the
 * exporter's file all go: they keep the memory, complete with the right
 * bytes, and the memory goes back once they are reaped and closed.
 */
TEST(teardown_with_transfers_in_flight)
{
	static uint8_t pat[LEN], got[LEN];
	struct xmemsim_dma_desc d[4];
	struct xmemsim_dmabuf_import im;
	struct xmemsim_dma_wait w;
	struct xms_dev x0, x1;
	uint64_t a, b, t;
	int fd, i;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	REQUIRE(hbm_settles(0));
	fill(pat, LEN, 5);
	REQUIRE(open_dev(0, &x0) == 0 && open_dev(3 % ndev, &x1) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_write(&x0, a, pat, LEN) == 0);
	REQUIRE(export(&x0, a, LEN, &fd) == 0);
	REQUIRE(import(&x1, fd, &im) == 0);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &b, NULL) == 0);
	for (i = 0; i < 4; i++)
		d[i] = (struct xmemsim_dma_desc){
			.src = im.addr + i * (LEN / 4), .dst = b + i * (LEN / 4),
			.len = LEN / 4, .engine = i % 2, .wait_sem = 3,
			.wait_value = 1, .signal_sem = NONE,
		};
	REQUIRE(xms_dma_submit(&x1, d, 4, &t) == 0);
	CHECK(unmap(&x1, im.addr) == 0);
	close(fd);
	xms_close(&x0);
	CHECK(hbm_used(0) > 0);
	CHECK(xms_sem_set(&x1, 3, 1) == 0);
	for (i = 0; i < 4; i++)
		CHECK(xms_dma_wait(&x1, t + i, -1, &w) == 0 && !w.status);
	CHECK(xms_read(&x1, b, got, LEN) == 0 && !memcmp(got, pat, LEN));
	xms_close(&x1);
	CHECK(hbm_settles(0));
}

/*
 * kill -9 of an importer blocked in DMA_WAIT on transfers held on a
 * semaphore, to and from the mapping and its own pages: nothing hangs,
 * and every byte it held goes back to both devices.
 */
TEST(an_importer_killed_in_a_wait)
{
	int sv[2], fd, st, ready = 0, freed = 0;
	struct xms_dev x0;
	uint64_t a;
	pid_t pid;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	REQUIRE(hbm_settles(0) && hbm_settles(1));
	REQUIRE(pipe(sv) == 0);	/* the child's "ready" */
	REQUIRE(open_dev(0, &x0) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) == 0);
	REQUIRE(export(&x0, a, LEN, &fd) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		struct xmemsim_host_map hm = { .len = LEN };
		struct xmemsim_dmabuf_import im;
		struct xmemsim_dma_desc d[3];
		struct xms_dev y;
		uint64_t b, t;
		void *host = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		hm.uaddr = (uintptr_t)host;
		if (host == MAP_FAILED || open_dev(1, &y) || import(&y, fd, &im) ||
		    xioctl(&y, XMEMSIM_IOC_HOST_MAP, &hm) ||
		    xms_alloc(&y, HBM, LEN, 4096, 0, &b, NULL))
			_exit(1);
		d[0] = (struct xmemsim_dma_desc){ .src = im.addr, .dst = b };
		d[1] = (struct xmemsim_dma_desc){ .src = b, .dst = hm.addr };
		d[2] = (struct xmemsim_dma_desc){ .src = b, .dst = im.addr };
		for (int i = 0; i < 3; i++) {	/* one queue: a correct program */
			d[i].len = LEN;
			d[i].wait_sem = 1;
			d[i].wait_value = 1;	/* never set */
			d[i].signal_sem = NONE;
		}
		if (xms_dma_submit(&y, d, 3, &t) || write(sv[1], "r", 1) != 1)
			_exit(1);
		xms_dma_wait(&y, t, -1, NULL);	/* for ever */
		_exit(2);
	}
	close(sv[1]);	/* a child that fails early is an end of file */
	ready = read(sv[0], &st, 1) == 1;
	CHECK(ready);
	usleep(50000);
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && ready);
	close(fd);
	/* the dead task's files are put by a worker, soon */
	for (st = 0; st < 500; st++) {
		if (!freed)
			freed = !xms_free(&x0, HBM, a, NULL);
		if (freed && !hbm_used(1))
			break;
		usleep(10000);
	}
	CHECK(st < 500);
	CHECK(hbm_settles(0) && hbm_settles(1));
	xms_close(&x0);
	close(sv[0]);
}

/*
 * The caller's own pages, mapped: DMA from them and into them, over the
 * device's host link; the mapping's rules.
 */
TEST(host_pages_by_dma)
{
	struct xmemsim_host_map hm = { .len = LEN };
	static uint8_t pat[LEN], got[LEN];
	struct xms_dev x;
	uint8_t *host;
	uint64_t a;

	fill(pat, LEN, 6);
	host = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(host != MAP_FAILED);
	memcpy(host, pat, LEN);
	REQUIRE(open_dev(1, &x) == 0);
	REQUIRE(xms_alloc(&x, HBM, LEN, 4096, 0, &a, NULL) == 0);
	hm.uaddr = (uintptr_t)host + 1;
	CHECK(xioctl(&x, XMEMSIM_IOC_HOST_MAP, &hm) == -EINVAL);
	hm.uaddr = (uintptr_t)host;
	hm.flags = 1;
	CHECK(xioctl(&x, XMEMSIM_IOC_HOST_MAP, &hm) == -EINVAL);
	hm.flags = 0;
	REQUIRE(xioctl(&x, XMEMSIM_IOC_HOST_MAP, &hm) == 0);
	CHECK(dma(&x, hm.addr, a, LEN, 0) == expect_ns(LEN, 1, 1));
	CHECK(xms_read(&x, a, got, LEN) == 0 && !memcmp(got, pat, LEN));
	memset(got, 0x5c, LEN);
	CHECK(xms_write(&x, a, got, LEN) == 0);
	CHECK(dma(&x, a, hm.addr, LEN / 2, 1) > 0);
	CHECK(host[0] == 0x5c && host[LEN / 2 - 1] == 0x5c && host[LEN / 2] == pat[LEN / 2]);
	CHECK(unmap(&x, hm.addr) == 0);
	CHECK(dma(&x, hm.addr, a, 64, 0) == -EACCES);
	/* memory that is not there cannot be pinned */
	hm.uaddr = 4096;
	CHECK(xioctl(&x, XMEMSIM_IOC_HOST_MAP, &hm) == -EFAULT);
	munmap(host, LEN);
	xms_close(&x);
}

/*
 * Links are held: two transfers of device 0 to device 1 on two engines
 * share the link 0 -> 1, one after the other; one to the other neighbour
 * at the same time is not held back.
 */
TEST(a_shared_link_is_shared)
{
	struct xmemsim_dmabuf_import i1, i3;
	struct xmemsim_dma_desc d[3];
	struct xmemsim_dma_wait w[3];
	struct xms_dev x0, y1, y3;
	uint64_t a, b1, b3, t, bytes;
	int f1, f3, k;

	if (!have_dmabuf || ndev < 3)
		SKIP(have_dmabuf ? "needs 3 devices" : "no XMEMSIM_FEAT_DMABUF");
	/* device 0's two neighbours on the ring: links 0 -> 1 and 0 -> n-1 */
	REQUIRE(open_dev(0, &x0) == 0 && open_dev(1, &y1) == 0 &&
		open_dev(ndev - 1, &y3) == 0);
	REQUIRE(xms_alloc(&y1, HBM, LEN, 4096, 0, &b1, NULL) == 0);
	REQUIRE(xms_alloc(&y3, HBM, LEN, 4096, 0, &b3, NULL) == 0);
	REQUIRE(export(&y1, b1, LEN, &f1) == 0 && export(&y3, b3, LEN, &f3) == 0);
	REQUIRE(import(&x0, f1, &i1) == 0 && import(&x0, f3, &i3) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a, NULL) == 0);
	for (k = 0; k < 3; k++)
		d[k] = (struct xmemsim_dma_desc){
			.src = a, .dst = (k < 2 ? i1.addr : i3.addr) + (k % 2) * (LEN / 2),
			.len = LEN / 2, .engine = k, .wait_sem = NONE, .signal_sem = NONE,
		};
	REQUIRE(xms_dma_submit(&x0, d, 3, &t) == 0);
	for (k = 0; k < 3; k++)
		CHECK(xms_dma_wait(&x0, t + k, -1, &w[k]) == 0 && !w[k].status);
	printf("# starts %llu %llu %llu, ends %llu %llu %llu\n",
	       (unsigned long long)w[0].start_ns, (unsigned long long)w[1].start_ns,
	       (unsigned long long)w[2].start_ns, (unsigned long long)w[0].end_ns,
	       (unsigned long long)w[1].end_ns, (unsigned long long)w[2].end_ns);
	/* the second's bytes follow the first's; its latency overlaps them */
	bytes = expect_ns(LEN / 2, 1, 0) - test_param("dma_latency_ns") -
		test_param("link_latency_ns");
	CHECK(w[1].end_ns == w[0].end_ns + bytes);
	CHECK(w[1].start_ns > w[0].start_ns && w[1].start_ns < w[0].end_ns);
	CHECK(w[2].start_ns == w[0].start_ns && w[2].end_ns == w[0].end_ns);
	CHECK(w[1].end_ns - w[1].start_ns == (uint64_t)expect_ns(LEN / 2, 1, 0));
	close(f1);
	close(f3);
	xms_close(&x0);
	xms_close(&y1);
	xms_close(&y3);
}

/*
 * Two devices' transfers that cross one link take turns on it. On the
 * ring, device 0 -> 2 goes by 1, so it shares link 1 -> 2 with device
 * 1 -> 2. Both are asked to start at the same modeled time T (each
 * device keeps its own clock; not_before_ns aligns them): one's bytes
 * hold the link from its own time, the other's follow them, and no
 * nanosecond of the two overlaps. Which device goes first is whichever
 * starts first.
 */
TEST(two_devices_take_turns_on_a_shared_link)
{
	struct xmemsim_dmabuf_import i0, i1;
	struct xmemsim_dma_desc d = {
		.len = LEN / 2, .wait_sem = NONE, .signal_sem = NONE,
	};
	struct xmemsim_dma_info n0, n1;
	struct xmemsim_dma_wait w0, w1;
	struct xms_dev x0, x1, y2;
	uint64_t a0, a1, b2, t0, t1, at, bytes, first, second;
	int f2;

	if (!have_dmabuf || ndev < 4)
		SKIP(have_dmabuf ? "needs 4 devices" : "no XMEMSIM_FEAT_DMABUF");
	REQUIRE(open_dev(0, &x0) == 0 && open_dev(1, &x1) == 0 &&
		open_dev(2, &y2) == 0);
	REQUIRE(xms_alloc(&y2, HBM, LEN, 4096, 0, &b2, NULL) == 0);
	REQUIRE(export(&y2, b2, LEN, &f2) == 0);
	REQUIRE(import(&x0, f2, &i0) == 0 && import(&x1, f2, &i1) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a0, NULL) == 0);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &a1, NULL) == 0);
	REQUIRE(xms_dma_info(&x0, &n0) == 0 && xms_dma_info(&x1, &n1) == 0);
	at = (n0.now_ns > n1.now_ns ? n0.now_ns : n1.now_ns) + 1000000;
	d.not_before_ns = at;
	d.src = a0;
	d.dst = i0.addr;
	REQUIRE(xms_dma_submit(&x0, &d, 1, &t0) == 0);
	d.src = a1;
	d.dst = i1.addr + LEN / 2;
	REQUIRE(xms_dma_submit(&x1, &d, 1, &t1) == 0);
	CHECK(xms_dma_wait(&x0, t0, -1, &w0) == 0 && !w0.status);
	CHECK(xms_dma_wait(&x1, t1, -1, &w1) == 0 && !w1.status);
	/* the bytes' time on the links: all but the latencies */
	bytes = expect_ns(LEN / 2, 1, 0) - test_param("dma_latency_ns") -
		test_param("link_latency_ns");
	first = w0.end_ns < w1.end_ns ? w0.end_ns : w1.end_ns;
	second = w0.end_ns < w1.end_ns ? w1.end_ns : w0.end_ns;
	printf("# T %llu: 0 -> 2 by 1 ran %llu..%llu, 1 -> 2 ran %llu..%llu; each holds link 1 -> 2 for its last %llu ns\n",
	       (unsigned long long)at, (unsigned long long)w0.start_ns,
	       (unsigned long long)w0.end_ns, (unsigned long long)w1.start_ns,
	       (unsigned long long)w1.end_ns, (unsigned long long)bytes);
	CHECK(w0.start_ns >= at && w1.start_ns >= at);
	CHECK(w0.start_ns == at || w1.start_ns == at);
	CHECK(second - bytes == first);		/* one after the other */
	CHECK_EQ_U64(w0.end_ns - w0.start_ns, expect_ns(LEN / 2, 2, 0));
	CHECK_EQ_U64(w1.end_ns - w1.start_ns, expect_ns(LEN / 2, 1, 0));
	close(f2);
	xms_close(&x0);
	xms_close(&x1);
	xms_close(&y2);
}

/*
 * uid 65534's bookings hold no link of root's: each user's transfers take
 * turns only with its own. uid 65534, given root's dma-buf of device 2,
 * fills link 1 -> 2 from T on with 16 transfers of device 1 and keeps its
 * files open; root's transfer 0 -> 2 (by 1) asked for T starts at T.
 */
TEST(another_users_bookings_hold_no_link)
{
	struct xmemsim_dma_desc d = {
		.len = LEN / 2, .wait_sem = NONE, .signal_sem = NONE,
	};
	struct xmemsim_dmabuf_import im;
	struct xmemsim_dma_info n0;
	struct xmemsim_dma_wait w;
	struct xms_dev x0, y2;
	uint64_t a0, b2, t, at;
	int f2, ready[2], st;
	pid_t pid;
	char c;

	if (!have_dmabuf || ndev < 4)
		SKIP(have_dmabuf ? "needs 4 devices" : "no XMEMSIM_FEAT_DMABUF");
	if (geteuid())
		SKIP("needs root, to become uid 65534");
	REQUIRE(open_dev(0, &x0) == 0 && open_dev(2, &y2) == 0);
	REQUIRE(xms_alloc(&y2, HBM, LEN, 4096, 0, &b2, NULL) == 0);
	REQUIRE(export(&y2, b2, LEN, &f2) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a0, NULL) == 0);
	REQUIRE(xms_dma_info(&x0, &n0) == 0 && pipe(ready) == 0);
	at = n0.now_ns + 1000000;
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		struct xmemsim_dma_desc e[16];
		struct xms_dev x1;
		uint64_t a1;
		int k, bad = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) ||
		    open_dev(1, &x1) || xms_alloc(&x1, HBM, LEN, 4096, 0, &a1, NULL) ||
		    import(&x1, f2, &im))
			_exit(100);
		for (k = 0; k < 16; k++) {
			e[k] = d;
			e[k].src = a1;
			e[k].dst = im.addr + (k % 2) * (LEN / 2);
			e[k].engine = (uint32_t)k % 2;
			e[k].not_before_ns = at;
		}
		if (xms_dma_submit(&x1, e, 16, &t))
			_exit(101);
		for (k = 0; k < 16; k++)
			bad |= xms_dma_wait(&x1, t + k, -1, &w) || w.status;
		if (bad || write(ready[1], "r", 1) != 1)
			_exit(102);
		pause();	/* its files, and so its bookings, stay */
		_exit(0);
	}
	close(ready[1]);
	CHECK(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	REQUIRE(import(&x0, f2, &im) == 0);
	d.src = a0;
	d.dst = im.addr;
	d.not_before_ns = at;
	CHECK(xms_dma_submit(&x0, &d, 1, &t) == 0);
	CHECK(xms_dma_wait(&x0, t, -1, &w) == 0 && !w.status);
	printf("# T %llu: root's 0 -> 2 by 1 ran %llu..%llu beside uid 65534's 16 transfers over link 1 -> 2 from T\n",
	       (unsigned long long)at, (unsigned long long)w.start_ns,
	       (unsigned long long)w.end_ns);
	CHECK(w.start_ns == at);
	CHECK_EQ_U64(w.end_ns - w.start_ns, expect_ns(LEN / 2, 2, 0));
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
	close(f2);
	xms_close(&x0);
	xms_close(&y2);
}

/*
 * Host memory as the kernel shares it: a memfd made a dma-buf by udmabuf,
 * imported as host memory, read and written by DMA over the host link.
 */
TEST(a_udmabuf_imports_as_host_memory)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = LEN };
	static uint8_t pat[LEN], got[LEN];
	struct xmemsim_dmabuf_import im;
	int ufd, mfd, bfd, ret;
	struct xms_dev x;
	uint64_t a;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	ufd = open("/dev/udmabuf", O_RDWR);
	if (ufd < 0)
		SKIP("no /dev/udmabuf (CONFIG_UDMABUF)");
	fill(pat, LEN, 8);
	mfd = memfd_create("peers", MFD_ALLOW_SEALING);
	REQUIRE(mfd >= 0 && ftruncate(mfd, LEN) == 0);
	REQUIRE(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0);
	REQUIRE(pwrite(mfd, pat, LEN, 0) == LEN);
	c.memfd = mfd;
	bfd = ioctl(ufd, UDMABUF_CREATE, &c);
	REQUIRE(bfd >= 0);
	REQUIRE(open_dev(1, &x) == 0);
	ret = import(&x, bfd, &im);
	if (ret == -EOPNOTSUPP) {	/* as the uapi says */
		xms_close(&x);
		close(bfd);
		close(mfd);
		close(ufd);
		SKIP("this kernel's udmabuf has no vmap (6.1)");
	}
	REQUIRE(ret == 0);
	CHECK(im.peer == XMEMSIM_PEER_HOST && im.hops == 1 && im.len == LEN);
	REQUIRE(xms_alloc(&x, HBM, LEN, 4096, 0, &a, NULL) == 0);
	CHECK(dma(&x, im.addr, a, LEN, 0) == expect_ns(LEN, 1, 1));
	CHECK(xms_read(&x, a, got, LEN) == 0 && !memcmp(got, pat, LEN));
	memset(got, 0x77, 4096);
	CHECK(xms_write(&x, a, got, 4096) == 0);
	CHECK(dma(&x, a, im.addr + 8192, 4096, 0) > 0);
	CHECK(pread(mfd, got, LEN, 0) == LEN && got[8192] == 0x77 &&
	      got[8191] == pat[8191] && got[12288] == pat[12288]);
	xms_close(&x);	/* the mapping goes with its file */
	close(bfd);
	close(mfd);
	close(ufd);
}

/*
 * Devices keep their own clocks: a step on device 1 ordered after a
 * completion on device 0 carries that completion's end as not_before_ns,
 * and starts there, not before; 0 adds nothing.
 */
TEST(not_before_orders_across_devices)
{
	struct xmemsim_dma_desc d = {
		.len = LEN, .wait_sem = NONE, .signal_sem = NONE,
	};
	struct xmemsim_dma_wait w0, w1;
	struct xms_dev x0, x1;
	uint64_t a0, b0, a1, b1, t;

	REQUIRE(open_dev(0, &x0) == 0 && open_dev(1, &x1) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &a0, NULL) == 0);
	REQUIRE(xms_alloc(&x0, HBM, LEN, 4096, 0, &b0, NULL) == 0);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &a1, NULL) == 0);
	REQUIRE(xms_alloc(&x1, HBM, LEN, 4096, 0, &b1, NULL) == 0);
	d.src = a0;
	d.dst = b0;
	d.not_before_ns = 1000000;	/* 1 ms in */
	REQUIRE(xms_dma_submit(&x0, &d, 1, &t) == 0);
	REQUIRE(xms_dma_wait(&x0, t, -1, &w0) == 0);
	CHECK(w0.start_ns >= 1000000);
	d.src = a1;
	d.dst = b1;
	d.not_before_ns = w0.end_ns;
	REQUIRE(xms_dma_submit(&x1, &d, 1, &t) == 0);
	REQUIRE(xms_dma_wait(&x1, t, -1, &w1) == 0);
	CHECK(w1.start_ns == w0.end_ns);
	d.not_before_ns = 0;
	REQUIRE(xms_dma_submit(&x1, &d, 1, &t) == 0);
	REQUIRE(xms_dma_wait(&x1, t, -1, &w1) == 0);
	CHECK(w1.start_ns == w0.end_ns + (w0.end_ns - w0.start_ns));	/* FIFO */
	xms_close(&x1);
	xms_close(&x0);
}

/* A page-aligned export maps into the importer's address space too. */
TEST(an_export_mmaps)
{
	static uint8_t pat[LEN];
	struct xms_dev x;
	uint8_t *p;
	uint64_t a;
	int fd;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	fill(pat, LEN, 7);
	REQUIRE(open_dev(0, &x) == 0);
	REQUIRE(xms_alloc(&x, HBM, LEN, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_write(&x, a, pat, LEN) == 0);
	REQUIRE(export(&x, a, LEN, &fd) == 0);
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(!memcmp(p, pat, LEN));
		p[5] = 0x42;
		CHECK(xms_read(&x, a + 5, pat, 1) == 0 && pat[0] == 0x42);
		munmap(p, LEN);
	}
	CHECK(mmap(NULL, 2 * LEN, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	close(fd);
	CHECK(xms_free(&x, HBM, a, NULL) == 0);
	xms_close(&x);
}

int main(void)
{
	struct xmemsim_info in;
	struct xms_dev x;

	ndev = test_param("devices");
	if (open_dev(0, &x) == 0) {
		if (xms_get_info(&x, &in) == 0)
			have_dmabuf = !!(in.features & XMEMSIM_FEAT_DMABUF);
		xms_close(&x);
	}
	return tap_run();
}
