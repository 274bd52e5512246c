// SPDX-License-Identifier: GPL-2.0
/*
 * VM tests of what the device seed adds beyond two heaps and COPY: the
 * third heap (the dataram libc arena), ALLOC_SIZE, MEMSET (through ioctl
 * and io_uring, with COPY's ownership and bounds rules), HEAP_FREE's CLEAR
 * flag, and GET_INFO's feature bits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define LIBC XMEMSIM_HEAP_LIBC

static struct xmemsim_info info;

/* The device into *xd: its fd, or -errno; the first one reads the info. */
static int dev(struct xms_dev *xd)
{
	return test_open_info(xd, &info);
}

static int in_pool(uint64_t a, uint64_t base, uint64_t size)
{
	return a >= base && a - base < size;
}

/* Every byte of [addr, addr + len) is v. */
static int all_bytes(struct xms_dev *xd, uint64_t addr, size_t len, unsigned char v)
{
	unsigned char *buf = malloc(len);
	size_t i;
	int ok = buf && xms_read(xd, addr, buf, len) == 0;

	for (i = 0; ok && i < len; i++)
		ok = buf[i] == v;
	free(buf);
	return ok;
}

TEST(info_reports_the_libc_pool_and_the_features)
{
	struct xms_dev xd;
	int fd = dev(&xd);

	REQUIRE(fd >= 0);
	CHECK_EQ_U64(info.num_heaps, 3);
	CHECK(info.features & XMEMSIM_FEAT_LIBC_HEAP);
	CHECK(info.features & XMEMSIM_FEAT_MEMSET);
	CHECK(info.features & XMEMSIM_FEAT_FREE_CLEAR);
	CHECK(info.features & XMEMSIM_FEAT_ALLOC_SIZE);
	CHECK(info.features & XMEMSIM_FEAT_URING);
	/* inside the dataram window, apart from the xmem dataram pool */
	CHECK_EQ_U64(info.libc_pool_base, info.dataram_base + 0x8000);
	CHECK_EQ_U64(info.libc_pool_size, 0x4000);
	CHECK(info.libc_pool_base + info.libc_pool_size <= info.dataram_base + info.dataram_size);
	CHECK(info.libc_pool_base >= info.dataram_pool_base + info.dataram_pool_size ||
	      info.libc_pool_base + info.libc_pool_size <= info.dataram_pool_base);
	CHECK(info.reserved[0] == 0 && info.reserved[2] == 0);
	xms_close(&xd);
}

TEST(libc_heap_is_its_own_heap_in_the_dataram_window)
{
	struct xmemsim_heap_stats lb, la, db, da;
	struct xmemsim_block b[8];
	unsigned char w[100], r[100];
	uint64_t a = 0, d = 0;
	uint32_t n = 0;
	struct xms_dev xd;
	int fd = dev(&xd), st = 1;

	REQUIRE(fd >= 0);
	REQUIRE(xms_stats(&xd, LIBC, &lb) == 0 && xms_stats(&xd, DRAM, &db) == 0);
	CHECK_EQ_U64(lb.pool_base, info.libc_pool_base);
	CHECK_EQ_U64(lb.pool_size, info.libc_pool_size);
	REQUIRE(xms_alloc(&xd, LIBC, 100, 0, 0, &a, &st) == 0);
	CHECK_EQ_U64(st, XMEMSIM_XMEM_OK);
	CHECK(in_pool(a, info.libc_pool_base, info.libc_pool_size));
	CHECK_EQ_U64(a % 64, 0);
	/* the bytes are reachable and zero, and the dataram heap did not move */
	CHECK(all_bytes(&xd, a, 100, 0));
	memset(w, 0x3c, sizeof(w));
	CHECK(xms_write(&xd, a, w, sizeof(w)) == 0 && xms_read(&xd, a, r, sizeof(r)) == 0 &&
	      !memcmp(w, r, sizeof(w)));
	REQUIRE(xms_stats(&xd, LIBC, &la) == 0 && xms_stats(&xd, DRAM, &da) == 0);
	CHECK(la.allocated_bytes > lb.allocated_bytes && la.owned_bytes >= 100);
	CHECK_EQ_U64(da.allocated_bytes, db.allocated_bytes);
	CHECK(xms_dump(&xd, LIBC, b, 8, &n) == 0 && n == 2 &&
	      b[0].aligned == a && (b[0].flags & XMEMSIM_BLOCK_OWNED));
	/* a dataram allocation is not the libc heap's, and the ids do not mix */
	REQUIRE(xms_alloc(&xd, DRAM, 100, 0, 0, &d, NULL) == 0);
	CHECK(!in_pool(d, info.libc_pool_base, info.libc_pool_size));
	CHECK(xms_free(&xd, LIBC, d, &st) == -ENOENT && st == XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS);
	CHECK(xms_free(&xd, DRAM, a, NULL) == -ENOENT);
	CHECK(xms_free(&xd, DRAM, d, NULL) == 0);
	CHECK(xms_free(&xd, LIBC, a, NULL) == 0);
	/* the pool is 16 KiB: more fails with ALLOC_FAILED */
	st = 1;
	CHECK(xms_alloc(&xd, LIBC, info.libc_pool_size + 1, 0, 0, &a, &st) == -ENOMEM &&
	      st == XMEMSIM_XMEM_ALLOC_FAILED);
	CHECK(xms_alloc(&xd, XMEMSIM_NUM_HEAPS, 64, 0, 0, &a, NULL) == -EINVAL);
	REQUIRE(xms_stats(&xd, LIBC, &la) == 0);
	CHECK_EQ_U64(la.allocated_bytes, lb.allocated_bytes);
	xms_close(&xd);
}

TEST(libc_allocations_go_when_the_file_closes)
{
	struct xmemsim_heap_stats before, after;
	uint64_t a;
	struct xms_dev xd, xd2;
	int fd = dev(&xd), fd2 = dev(&xd2);

	REQUIRE(fd >= 0 && fd2 >= 0);
	REQUIRE(xms_stats(&xd, LIBC, &before) == 0);
	REQUIRE(xms_alloc(&xd2, LIBC, 4000, 0, 0, &a, NULL) == 0);
	CHECK(xms_free(&xd, LIBC, a, NULL) == -EACCES);	/* not fd's */
	xms_close(&xd2);
	REQUIRE(xms_stats(&xd, LIBC, &after) == 0);
	CHECK_EQ_U64(after.allocated_bytes, before.allocated_bytes);
	xms_close(&xd);
}

TEST(alloc_size_of_own_allocations_only)
{
	uint64_t a, s = 7, u = 7;
	struct xms_dev xd, xd2;
	int fd = dev(&xd), fd2 = dev(&xd2);

	REQUIRE(fd >= 0 && fd2 >= 0);
	REQUIRE(xms_alloc(&xd, LIBC, 100, 0, 0, &a, NULL) == 0);
	CHECK(xms_alloc_size(&xd, LIBC, a, &s, &u) == 0);
	CHECK_EQ_U64(s, 100);
	CHECK(u >= 100);
	s = u = 7;
	CHECK(xms_alloc_size(&xd2, LIBC, a, &s, &u) == -EACCES);
	CHECK(xms_alloc_size(&xd, LIBC, a + 64, &s, &u) == -ENOENT);
	CHECK(xms_alloc_size(&xd, HBM, a, &s, &u) == -ENOENT);
	CHECK(s == 7 && u == 7);	/* outputs only on success */
	CHECK(xms_alloc_size(&xd, 9, a, &s, &u) == -EINVAL);
	CHECK(xms_free(&xd, LIBC, a, NULL) == 0);
	CHECK(xms_alloc_size(&xd, LIBC, a, &s, &u) == -ENOENT);
	xms_close(&xd2);
	xms_close(&xd);
}

/* MEMSET through ioctl, then through an attached ring: the same results. */
static void memset_rules(int uring)
{
	struct xms_ring ring;
	uint64_t a, b, other;
	struct xms_dev xd, xd2;
	int fd = dev(&xd), fd2 = dev(&xd2);

	REQUIRE(fd >= 0 && fd2 >= 0);
	if (uring) {
		REQUIRE(xms_ring_init(&ring, &xd, 4) == 0);
		REQUIRE(xms_attach_ring(&xd, &ring) == 0);
	}
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, LIBC, 256, 0, 0, &b, NULL) == 0);
	REQUIRE(xms_alloc(&xd2, HBM, 4096, 0, 0, &other, NULL) == 0);
	CHECK(xms_memset(&xd, a + 100, 0xab, 5000) == 0);
	CHECK(all_bytes(&xd, a + 100, 5000, 0xab));
	CHECK(all_bytes(&xd, a, 100, 0) && all_bytes(&xd, a + 5100, 8192 - 5100, 0));
	CHECK(xms_memset(&xd, b, 0xff, 256) == 0 && all_bytes(&xd, b, 256, 0xff));
	CHECK(xms_memset(&xd, a, 0x11, 0) == 0 && all_bytes(&xd, a, 100, 0));
	/* COPY's rules: inside one allocation of the caller, the byte 0..255 */
	CHECK(xms_memset(&xd, a + 8000, 1, 193) == -EACCES);	/* past the end */
	CHECK(xms_memset(&xd, a - 1, 1, 2) == -EACCES);
	CHECK(xms_memset(&xd, other, 1, 16) == -EACCES);	/* fd2's */
	CHECK(xms_memset(&xd, UINT64_MAX - 4, 1, 16) == -EINVAL);	/* wraps */
	CHECK(xms_memset(&xd, a, 256, 16) == -EINVAL);
	CHECK(all_bytes(&xd2, other, 4096, 0));
	if (uring) {
		xms_attach_ring(&xd, NULL);
		xms_ring_exit(&ring);
	}
	xms_close(&xd2);
	xms_close(&xd);
}

TEST(memset_through_ioctl)
{
	memset_rules(0);
}

TEST(memset_through_uring)
{
	memset_rules(1);
}

TEST(memset_of_a_mapped_allocation_is_seen_in_the_mapping)
{
	unsigned char *m;
	uint64_t a;
	struct xms_dev xd;
	int fd = dev(&xd);

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &a, NULL) == 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a);
	REQUIRE(m != MAP_FAILED);
	CHECK(xms_memset(&xd, a + 10, 0x5a, 20) == 0);
	CHECK(m[9] == 0 && m[10] == 0x5a && m[29] == 0x5a && m[30] == 0);
	munmap(m, 4096);
	CHECK(xms_free(&xd, HBM, a, NULL) == 0);
	xms_close(&xd);
}

TEST(free_with_clear)
{
	uint64_t a, b;
	struct xms_dev xd;
	int fd = dev(&xd), st = 1;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, LIBC, 512, 0, 0, &a, NULL) == 0);
	REQUIRE(xms_memset(&xd, a, 0x77, 512) == 0);
	CHECK(xms_free_flags(&xd, LIBC, a, 0x2, &st) == -EINVAL);	/* unknown flag */
	CHECK(xms_free_flags(&xd, LIBC, a, XMEMSIM_FREE_CLEAR, &st) == 0 &&
	      st == XMEMSIM_XMEM_OK);
	/* first fit: the same block again, cleared */
	REQUIRE(xms_alloc(&xd, LIBC, 512, 0, 0, &b, NULL) == 0);
	CHECK_EQ_U64(b, a);
	CHECK(all_bytes(&xd, b, 512, 0));
	CHECK(xms_free_flags(&xd, LIBC, b + 64, XMEMSIM_FREE_CLEAR, &st) == -ENOENT);
	CHECK(xms_free_flags(&xd, LIBC, b, XMEMSIM_FREE_CLEAR, NULL) == 0);
	xms_close(&xd);
}

int main(void)
{
	return tap_run();
}
