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

#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define LIBC XMEMSIM_HEAP_LIBC

static struct xmemsim_info info;

static int dev(void)
{
	int fd = xms_open(NULL);

	if (fd >= 0 && !info.abi_version)
		xms_get_info(fd, &info);
	return fd;
}

static int in_pool(uint64_t a, uint64_t base, uint64_t size)
{
	return a >= base && a - base < size;
}

/* Every byte of [addr, addr + len) is v. */
static int all_bytes(int fd, uint64_t addr, size_t len, unsigned char v)
{
	unsigned char *buf = malloc(len);
	size_t i;
	int ok = buf && xms_read(fd, addr, buf, len) == 0;

	for (i = 0; ok && i < len; i++)
		ok = buf[i] == v;
	free(buf);
	return ok;
}

TEST(info_reports_the_libc_pool_and_the_features)
{
	int fd = dev();

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
	close(fd);
}

TEST(libc_heap_is_its_own_heap_in_the_dataram_window)
{
	struct xmemsim_heap_stats lb, la, db, da;
	struct xmemsim_block b[8];
	unsigned char w[100], r[100];
	uint64_t a = 0, d = 0;
	uint32_t n = 0;
	int fd = dev(), st = 1;

	REQUIRE(fd >= 0);
	REQUIRE(xms_stats(fd, LIBC, &lb) == 0 && xms_stats(fd, DRAM, &db) == 0);
	CHECK_EQ_U64(lb.pool_base, info.libc_pool_base);
	CHECK_EQ_U64(lb.pool_size, info.libc_pool_size);
	REQUIRE(xms_alloc(fd, LIBC, 100, 0, 0, &a, &st) == 0);
	CHECK_EQ_U64(st, XMEMSIM_XMEM_OK);
	CHECK(in_pool(a, info.libc_pool_base, info.libc_pool_size));
	CHECK_EQ_U64(a % 64, 0);
	/* the bytes are reachable and zero, and the dataram heap did not move */
	CHECK(all_bytes(fd, a, 100, 0));
	memset(w, 0x3c, sizeof(w));
	CHECK(xms_write(fd, a, w, sizeof(w)) == 0 && xms_read(fd, a, r, sizeof(r)) == 0 &&
	      !memcmp(w, r, sizeof(w)));
	REQUIRE(xms_stats(fd, LIBC, &la) == 0 && xms_stats(fd, DRAM, &da) == 0);
	CHECK(la.allocated_bytes > lb.allocated_bytes && la.owned_bytes >= 100);
	CHECK_EQ_U64(da.allocated_bytes, db.allocated_bytes);
	CHECK(xms_dump(fd, LIBC, b, 8, &n) == 0 && n == 2 &&
	      b[0].aligned == a && (b[0].flags & XMEMSIM_BLOCK_OWNED));
	/* a dataram allocation is not the libc heap's, and the ids do not mix */
	REQUIRE(xms_alloc(fd, DRAM, 100, 0, 0, &d, NULL) == 0);
	CHECK(!in_pool(d, info.libc_pool_base, info.libc_pool_size));
	CHECK(xms_free(fd, LIBC, d, &st) == -ENOENT && st == XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS);
	CHECK(xms_free(fd, DRAM, a, NULL) == -ENOENT);
	CHECK(xms_free(fd, DRAM, d, NULL) == 0);
	CHECK(xms_free(fd, LIBC, a, NULL) == 0);
	/* the pool is 16 KiB: more fails with ALLOC_FAILED */
	st = 1;
	CHECK(xms_alloc(fd, LIBC, info.libc_pool_size + 1, 0, 0, &a, &st) == -ENOMEM &&
	      st == XMEMSIM_XMEM_ALLOC_FAILED);
	CHECK(xms_alloc(fd, XMEMSIM_NUM_HEAPS, 64, 0, 0, &a, NULL) == -EINVAL);
	REQUIRE(xms_stats(fd, LIBC, &la) == 0);
	CHECK_EQ_U64(la.allocated_bytes, lb.allocated_bytes);
	close(fd);
}

TEST(libc_allocations_go_when_the_file_closes)
{
	struct xmemsim_heap_stats before, after;
	uint64_t a;
	int fd = dev(), fd2 = dev();

	REQUIRE(fd >= 0 && fd2 >= 0);
	REQUIRE(xms_stats(fd, LIBC, &before) == 0);
	REQUIRE(xms_alloc(fd2, LIBC, 4000, 0, 0, &a, NULL) == 0);
	CHECK(xms_free(fd, LIBC, a, NULL) == -EACCES);	/* not fd's */
	close(fd2);
	REQUIRE(xms_stats(fd, LIBC, &after) == 0);
	CHECK_EQ_U64(after.allocated_bytes, before.allocated_bytes);
	close(fd);
}

TEST(alloc_size_of_own_allocations_only)
{
	uint64_t a, s = 7, u = 7;
	int fd = dev(), fd2 = dev();

	REQUIRE(fd >= 0 && fd2 >= 0);
	REQUIRE(xms_alloc(fd, LIBC, 100, 0, 0, &a, NULL) == 0);
	CHECK(xms_alloc_size(fd, LIBC, a, &s, &u) == 0);
	CHECK_EQ_U64(s, 100);
	CHECK(u >= 100);
	s = u = 7;
	CHECK(xms_alloc_size(fd2, LIBC, a, &s, &u) == -EACCES);
	CHECK(xms_alloc_size(fd, LIBC, a + 64, &s, &u) == -ENOENT);
	CHECK(xms_alloc_size(fd, HBM, a, &s, &u) == -ENOENT);
	CHECK(s == 7 && u == 7);	/* outputs only on success */
	CHECK(xms_alloc_size(fd, 9, a, &s, &u) == -EINVAL);
	CHECK(xms_free(fd, LIBC, a, NULL) == 0);
	CHECK(xms_alloc_size(fd, LIBC, a, &s, &u) == -ENOENT);
	close(fd2);
	close(fd);
}

/* MEMSET through ioctl, then through an attached ring: the same results. */
static void memset_rules(int uring)
{
	struct xms_ring ring;
	uint64_t a, b, other;
	int fd = dev(), fd2 = dev();

	REQUIRE(fd >= 0 && fd2 >= 0);
	if (uring) {
		REQUIRE(xms_ring_init(&ring, fd, 4) == 0);
		REQUIRE(xms_attach_ring(fd, &ring) == 0);
	}
	REQUIRE(xms_alloc(fd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(fd, LIBC, 256, 0, 0, &b, NULL) == 0);
	REQUIRE(xms_alloc(fd2, HBM, 4096, 0, 0, &other, NULL) == 0);
	CHECK(xms_memset(fd, a + 100, 0xab, 5000) == 0);
	CHECK(all_bytes(fd, a + 100, 5000, 0xab));
	CHECK(all_bytes(fd, a, 100, 0) && all_bytes(fd, a + 5100, 8192 - 5100, 0));
	CHECK(xms_memset(fd, b, 0xff, 256) == 0 && all_bytes(fd, b, 256, 0xff));
	CHECK(xms_memset(fd, a, 0x11, 0) == 0 && all_bytes(fd, a, 100, 0));
	/* COPY's rules: inside one allocation of the caller, the byte 0..255 */
	CHECK(xms_memset(fd, a + 8000, 1, 193) == -EACCES);	/* past the end */
	CHECK(xms_memset(fd, a - 1, 1, 2) == -EACCES);
	CHECK(xms_memset(fd, other, 1, 16) == -EACCES);	/* fd2's */
	CHECK(xms_memset(fd, UINT64_MAX - 4, 1, 16) == -EINVAL);	/* wraps */
	CHECK(xms_memset(fd, a, 256, 16) == -EINVAL);
	CHECK(all_bytes(fd2, other, 4096, 0));
	if (uring) {
		xms_attach_ring(fd, NULL);
		xms_ring_exit(&ring);
	}
	close(fd2);
	close(fd);
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
	int fd = dev();

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(fd, HBM, 4096, 4096, 0, &a, NULL) == 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a);
	REQUIRE(m != MAP_FAILED);
	CHECK(xms_memset(fd, a + 10, 0x5a, 20) == 0);
	CHECK(m[9] == 0 && m[10] == 0x5a && m[29] == 0x5a && m[30] == 0);
	munmap(m, 4096);
	CHECK(xms_free(fd, HBM, a, NULL) == 0);
	close(fd);
}

TEST(free_with_clear)
{
	uint64_t a, b;
	int fd = dev(), st = 1;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(fd, LIBC, 512, 0, 0, &a, NULL) == 0);
	REQUIRE(xms_memset(fd, a, 0x77, 512) == 0);
	CHECK(xms_free_flags(fd, LIBC, a, 0x2, &st) == -EINVAL);	/* unknown flag */
	CHECK(xms_free_flags(fd, LIBC, a, XMEMSIM_FREE_CLEAR, &st) == 0 &&
	      st == XMEMSIM_XMEM_OK);
	/* first fit: the same block again, cleared */
	REQUIRE(xms_alloc(fd, LIBC, 512, 0, 0, &b, NULL) == 0);
	CHECK_EQ_U64(b, a);
	CHECK(all_bytes(fd, b, 512, 0));
	CHECK(xms_free_flags(fd, LIBC, b + 64, XMEMSIM_FREE_CLEAR, &st) == -ENOENT);
	CHECK(xms_free_flags(fd, LIBC, b, XMEMSIM_FREE_CLEAR, NULL) == 0);
	close(fd);
}

int main(void)
{
	return tap_run();
}
