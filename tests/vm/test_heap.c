// SPDX-License-Identifier: GPL-2.0
/*
 * VM tests of the heap commands, the data plane and ownership: each bad
 * input gets its exact errno, outputs are pre-filled with 0xFF and checked,
 * and the heaps are compared before and after to show nothing changed.
 */
#include <errno.h>
#include <pthread.h>
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
#define MAXB 4096

static struct xmemsim_info info;

/* A new open file in *xd (its fd, or -errno), info read on the first. */
static int dev(struct xms_dev *xd)
{
	return test_open_info(xd, &info);
}

/* A heap's whole state as the device reports it, for before/after checks. */
struct snap {
	struct xmemsim_heap_stats st;
	struct xmemsim_block b[MAXB];
	uint32_t n;
};

static int snap(struct xms_dev *xd, unsigned int heap, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	if (xms_stats(xd, heap, &s->st) || xms_dump(xd, heap, s->b, MAXB, &s->n))
		return -1;
	s->st.owned_bytes = 0;		/* the file's, not the heap's */
	s->st.file_allocs = 0;
	s->st.quota_refused = 0;
	s->st.split_refused = 0;	/* a counter of history, not state */
	for (uint32_t i = 0; i < s->n && i < MAXB; i++)
		s->b[i].flags &= ~XMEMSIM_BLOCK_OWNED;
	return 0;
}

static int same(const struct snap *a, const struct snap *b)
{
	return !memcmp(&a->st, &b->st, sizeof(a->st)) && a->n == b->n &&
	       !memcmp(a->b, b->b, sizeof(a->b[0]) * (a->n < MAXB ? a->n : MAXB));
}

static struct snap s0, s1, s2, s3;

/* HBM as snapshot s0 saw it (s1: what it is now) */
static int hbm_as_in_s0(struct xms_dev *xd)
{
	return snap(xd, HBM, &s1) == 0 && same(&s0, &s1);
}

static int raw(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

TEST(alloc_and_free_success_path)
{
	struct xms_dev xd;
	int fd = dev(&xd), st = 1;
	uint64_t a = 0;

	REQUIRE(fd >= 0);
	REQUIRE(snap(&xd, HBM, &s0) == 0);
	CHECK(xms_alloc(&xd, HBM, 4196, 0, 0, &a, &st) == 0);
	CHECK(st == 0);
	CHECK(a >= info.hbm_pool_base && a + 4196 <= info.hbm_pool_base + info.hbm_pool_size);
	CHECK(a % 64 == 0);
	REQUIRE(snap(&xd, HBM, &s1) == 0);
	CHECK(s1.st.allocated_bytes >= 4196);
	CHECK_EQ_U64(s1.st.free_bytes + s1.st.allocated_bytes, info.hbm_pool_size);
	CHECK(xms_free(&xd, HBM, a, &st) == 0 && st == 0);
	REQUIRE(snap(&xd, HBM, &s2) == 0);
	CHECK(same(&s0, &s2));
	close(fd);
}

TEST(dataram_alloc_lands_in_the_dataram_pool)
{
	struct xms_dev xd;
	int fd = dev(&xd), st = 1;
	uint64_t a = 0;

	REQUIRE(fd >= 0);
	CHECK(xms_alloc(&xd, DRAM, 4096, 4096, 0, &a, &st) == 0);
	CHECK(a >= info.dataram_pool_base &&
	      a + 4096 <= info.dataram_pool_base + info.dataram_pool_size);
	CHECK(a % 4096 == 0);
	close(fd);
}

/* HEAP_ALLOC with a pre-filled struct; returns -errno, leaves *out. */
static int alloc_raw(int fd, struct xmemsim_alloc *out, uint32_t heap,
		     uint64_t size, uint64_t align, uint32_t flags)
{
	memset(out, 0xff, sizeof(*out));
	out->heap = heap;
	out->flags = flags;
	out->size = size;
	out->align = align;
	out->reserved0 = 0;
	memset(out->reserved, 0, sizeof(out->reserved));
	return raw(fd, XMEMSIM_IOC_HEAP_ALLOC, out);
}

TEST(alloc_bad_inputs_exact_errno_nothing_changed)
{
	struct xms_dev xd;
	struct xmemsim_alloc a;
	int fd = dev(&xd);

	REQUIRE(fd >= 0);
	REQUIRE(snap(&xd, HBM, &s0) == 0);

	CHECK(alloc_raw(fd, &a, XMEMSIM_NUM_HEAPS, 64, 0, 0) == -EINVAL);	/* bad heap */
	CHECK(a.addr == UINT64_MAX && a.status == -1);
	CHECK(alloc_raw(fd, &a, HBM, 64, 0, 0x2) == -EINVAL);	/* unknown flag */
	CHECK(a.addr == UINT64_MAX && a.status == -1);
	CHECK(alloc_raw(fd, &a, HBM, 64, 0, 1u << 31) == -EINVAL);
	CHECK(alloc_raw(fd, &a, HBM, 0, 0, 0) == -EINVAL);	/* size 0 */
	CHECK(a.addr == UINT64_MAX && a.status == XMEMSIM_XMEM_INVALID_ARGS);
	CHECK(alloc_raw(fd, &a, HBM, 64, 3, 0) == -EINVAL);	/* align 3 */
	CHECK(a.addr == UINT64_MAX && a.status == XMEMSIM_XMEM_ILLEGAL_ALIGN);
	CHECK(alloc_raw(fd, &a, HBM, info.hbm_size, 0, 0) == -ENOMEM);
	CHECK(a.addr == UINT64_MAX && a.status == XMEMSIM_XMEM_ALLOC_FAILED);
	CHECK(alloc_raw(fd, &a, HBM, info.hbm_pool_size + 1, 1, 0) == -ENOMEM);
	CHECK(alloc_raw(fd, &a, HBM, UINT64_MAX, 0, 0) == -ENOMEM);
	CHECK(a.addr == UINT64_MAX && a.status == XMEMSIM_XMEM_ALLOC_FAILED);
	CHECK(alloc_raw(fd, &a, HBM, 64, 1ULL << 63, 0) == -ENOMEM);

	memset(&a, 0, sizeof(a));
	a.heap = HBM;
	a.size = 64;
	a.reserved0 = 1;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_ALLOC, &a) == -EINVAL);
	a.reserved0 = 0;
	a.reserved[1] = 1;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_ALLOC, &a) == -EINVAL);

	CHECK(hbm_as_in_s0(&xd));
	close(fd);
}

TEST(alloc_zero_flag_clears_the_bytes)
{
	struct xms_dev xd;
	unsigned char buf[256], zero[256] = { 0 };
	struct xmemsim_alloc a;
	int fd = dev(&xd);
	uint64_t p;

	REQUIRE(fd >= 0);
	REQUIRE(alloc_raw(fd, &a, HBM, 256, 0, 0) == 0);
	p = a.addr;
	memset(buf, 0xa5, sizeof(buf));
	REQUIRE(xms_write(&xd, p, buf, sizeof(buf)) == 0);
	REQUIRE(xms_free(&xd, HBM, p, NULL) == 0);
	REQUIRE(alloc_raw(fd, &a, HBM, 256, 0, XMEMSIM_ALLOC_ZERO) == 0);
	CHECK_EQ_U64(a.addr, p);	/* first fit: the same place */
	CHECK(xms_read(&xd, a.addr, buf, sizeof(buf)) == 0);
	CHECK(!memcmp(buf, zero, sizeof(buf)));
	close(fd);
}

TEST(free_bad_inputs_and_double_free)
{
	struct xms_dev xd;
	struct xmemsim_free f;
	int fd = dev(&xd), st = 1;
	uint64_t a;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 100, 0, 0, &a, NULL) == 0);
	REQUIRE(snap(&xd, HBM, &s0) == 0);
	memset(&f, 0, sizeof(f));
	f.heap = 7;
	f.addr = a;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_FREE, &f) == -EINVAL);
	f.heap = HBM;
	f.flags = 2;	/* bit 0 is FREE_CLEAR */
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_FREE, &f) == -EINVAL);
	f.flags = 0;
	f.reserved[0] = 1;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_FREE, &f) == -EINVAL);
	CHECK(xms_free(&xd, DRAM, a, &st) == -ENOENT);		/* wrong heap */
	CHECK(xms_free(&xd, HBM, a + 1, &st) == -ENOENT);	/* not the address */
	CHECK(st == XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS);
	CHECK(hbm_as_in_s0(&xd));
	CHECK(xms_free(&xd, HBM, a, &st) == 0);
	st = 1;
	CHECK(xms_free(&xd, HBM, a, &st) == -ENOENT);		/* double free */
	CHECK(st == XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS);
	close(fd);
}

TEST(another_files_allocation_is_off_limits)
{
	struct xms_dev xb;
	struct xms_dev xa;
	unsigned char buf[64], pat[64];
	int fa = dev(&xa), fb = dev(&xb), st = 1;
	uint64_t a, b2;
	void *m;

	REQUIRE(fa >= 0 && fb >= 0);
	REQUIRE(xms_alloc(&xa, HBM, 8192, 4096, 0, &a, NULL) == 0);
	memset(pat, 0x3c, sizeof(pat));
	REQUIRE(xms_write(&xa, a, pat, sizeof(pat)) == 0);
	REQUIRE(xms_alloc(&xb, HBM, 64, 0, 0, &b2, NULL) == 0);
	REQUIRE(snap(&xa, HBM, &s0) == 0);

	CHECK(xms_free(&xb, HBM, a, &st) == -EACCES);
	CHECK(st == 1);
	memset(buf, 0x11, sizeof(buf));
	CHECK(xms_write(&xb, a, buf, sizeof(buf)) == -EACCES);
	CHECK(xms_read(&xb, a, buf, sizeof(buf)) == -EACCES);
	CHECK(buf[0] == 0x11);
	CHECK(xms_copy(&xb, a, b2, 64, XMEMSIM_COPY_C_MEMCPY) == -EACCES);
	CHECK(xms_copy(&xb, b2, a, 64, XMEMSIM_COPY_DMA) == -EACCES);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fb, (off_t)a);
	CHECK(m == MAP_FAILED && errno == EACCES);

	REQUIRE(snap(&xa, HBM, &s1) == 0);
	CHECK(same(&s0, &s1));
	CHECK(xms_read(&xa, a, buf, sizeof(buf)) == 0);
	CHECK(!memcmp(buf, pat, sizeof(pat)));
	close(fa);
	close(fb);
}

TEST(read_write_roundtrip_and_bounds)
{
	struct xms_dev xd;
	unsigned char w[5000], r[5000];
	int fd = dev(&xd);
	uint64_t a;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, sizeof(w), 0, 0, &a, NULL) == 0);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (unsigned char)(i * 7 + 3);
	CHECK(xms_write(&xd, a, w, sizeof(w)) == 0);
	CHECK(xms_read(&xd, a, r, sizeof(r)) == 0);
	CHECK(!memcmp(w, r, sizeof(w)));
	/* one byte past the allocation: refused whole, nothing moved */
	CHECK(xms_read(&xd, a + 1, r, sizeof(r)) == -EACCES);
	CHECK(xms_write(&xd, a + 1, w, sizeof(w)) == -EACCES);
	CHECK(xms_read(&xd, a - 1, r, 2) == -EACCES);
	CHECK(xms_read(&xd, info.hbm_base, r, 1) == -EACCES);	/* not allocated */
	CHECK(xms_read(&xd, 0x1000, r, 1) == -EACCES);		/* no window */
	CHECK(pread(fd, r, 1, -1) == -1 && errno == EINVAL);
	CHECK(xms_read(&xd, a, r, sizeof(r)) == 0 && !memcmp(w, r, sizeof(w)));
	close(fd);
}

TEST(copy_by_each_method_is_byte_exact)
{
	struct xms_dev xd;
	static unsigned char w[1 << 20], r[1 << 20];
	unsigned int m;
	int fd = dev(&xd);
	uint64_t a, b, c;

	REQUIRE(fd >= 0);
	REQUIRE(snap(&xd, DRAM, &s2) == 0);
	REQUIRE(xms_alloc(&xd, HBM, sizeof(w), 0, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, sizeof(w), 0, 0, &b, NULL) == 0);
	REQUIRE(xms_alloc(&xd, DRAM, 1000, 0, 0, &c, NULL) == 0);
	for (m = 0; m <= XMEMSIM_COPY_DMA; m++) {
		for (size_t i = 0; i < sizeof(w); i++)
			w[i] = (unsigned char)(i * 13 + m * 101 + (i >> 12));
		REQUIRE(xms_write(&xd, a, w, sizeof(w)) == 0);
		/* an odd length that is not a multiple of the bounce buffer */
		CHECK(xms_copy(&xd, a + 3, b + 5, sizeof(w) - 100, m) == 0);
		CHECK(xms_read(&xd, b + 5, r, sizeof(w) - 100) == 0);
		CHECK(!memcmp(w + 3, r, sizeof(w) - 100));
		/* HBM -> dataram and back */
		CHECK(xms_copy(&xd, a, c, 1000, m) == 0);
		CHECK(xms_copy(&xd, c, b, 1000, m) == 0);
		CHECK(xms_read(&xd, b, r, 1000) == 0 && !memcmp(w, r, 1000));
	}
	CHECK(xms_copy(&xd, a, b, 64, 3) == -EINVAL);		/* no such method */
	CHECK(xms_copy(&xd, a, a + 32, 64, 0) == -EINVAL);	/* overlap */
	CHECK(xms_copy(&xd, a, b, sizeof(w) + 1, 0) == -EACCES);	/* past the end */
	CHECK(xms_copy(&xd, UINT64_MAX - 8, b, 64, 0) == -EINVAL); /* wraps */
	CHECK(xms_copy(&xd, a, UINT64_MAX - 8, 64, 0) == -EINVAL);
	CHECK(xms_free(&xd, DRAM, c, NULL) == 0);
	/* the bounce buffers all went back */
	REQUIRE(snap(&xd, DRAM, &s3) == 0);
	CHECK(same(&s2, &s3));
	close(fd);
}

TEST(copy_rejects_nonzero_reserved_and_flags)
{
	struct xms_dev xd;
	struct xmemsim_copy c;
	int fd = dev(&xd);
	uint64_t a, b;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 128, 0, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 128, 0, 0, &b, NULL) == 0);
	memset(&c, 0, sizeof(c));
	c.src = a;
	c.dst = b;
	c.len = 64;
	c.flags = 1;
	CHECK(raw(fd, XMEMSIM_IOC_COPY, &c) == -EINVAL);
	c.flags = 0;
	c.reserved[1] = 5;
	CHECK(raw(fd, XMEMSIM_IOC_COPY, &c) == -EINVAL);
	c.reserved[1] = 0;
	CHECK(raw(fd, XMEMSIM_IOC_COPY, &c) == 0);
	close(fd);
}

TEST(mmap_of_an_allocation_and_its_limits)
{
	struct xms_dev xd;
	unsigned char r[64];
	int fd = dev(&xd), st;
	uint64_t a, small;
	unsigned char *m;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a);
	REQUIRE(m != MAP_FAILED);
	memset(m + 100, 0x5a, 64);
	CHECK(xms_read(&xd, a + 100, r, 64) == 0 && r[0] == 0x5a && r[63] == 0x5a);
	CHECK(xms_free(&xd, HBM, a, &st) == -EBUSY);	/* mapped */
	/* past the allocation */
	CHECK(mmap(NULL, 12288, PROT_READ, MAP_SHARED, fd, (off_t)a) == MAP_FAILED &&
	      errno == EACCES);
	/* not the allocation's address */
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)(a + 4096)) == MAP_FAILED &&
	      errno == EACCES);
	/* a small allocation whose page is shared with the heap's free tail */
	REQUIRE(xms_alloc(&xd, HBM, 100, 4096, 0, &small, NULL) == 0);
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)small) == MAP_FAILED &&
	      errno == EACCES);
	CHECK(munmap(m, 8192) == 0);
	CHECK(xms_free(&xd, HBM, a, &st) == 0);
	close(fd);
}

/* An HBM alloc argument for size bytes, zeroed, at the address at. */
static struct xmemsim_alloc *alloc_arg_at(char *at, uint64_t size)
{
	struct xmemsim_alloc *a = (struct xmemsim_alloc *)at;

	memset(a, 0, sizeof(*a));
	a->heap = HBM;
	a->size = size;
	return a;
}

/* n fresh anonymous pages (NULL if not), *pg the page size */
static char *anon_pages(int n, long *pg)
{
	char *p;

	*pg = sysconf(_SC_PAGESIZE);
	p = mmap(NULL, n * *pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

TEST(ioctl_argument_ending_at_a_page_edge)
{
	struct xmemsim_alloc *a;
	struct xms_dev xd;
	long pg;
	char *p = anon_pages(2, &pg);
	int fd = dev(&xd);

	REQUIRE(fd >= 0 && p);
	REQUIRE(munmap(p + pg, pg) == 0);
	REQUIRE(snap(&xd, HBM, &s0) == 0);
	/* ends on the last mapped byte: fine */
	a = alloc_arg_at(p + pg - sizeof(*a), 64);
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_ALLOC, a) == 0);
	CHECK(xms_free(&xd, HBM, a->addr, NULL) == 0);
	/* 8 bytes over the edge: EFAULT, and no allocation left behind */
	a = (struct xmemsim_alloc *)(p + pg - sizeof(*a) + 8);
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_ALLOC, a) == -EFAULT);
	CHECK(hbm_as_in_s0(&xd));
	munmap(p, pg);
	close(fd);
}

TEST(alloc_whose_result_cannot_be_written_back_is_undone)
{
	struct xms_dev xd;
	int fd = dev(&xd);
	long pg;
	char *p = anon_pages(1, &pg);

	REQUIRE(fd >= 0 && p);
	alloc_arg_at(p, 1000);
	REQUIRE(snap(&xd, HBM, &s0) == 0);
	REQUIRE(mprotect(p, pg, PROT_READ) == 0);	/* readable, not writable */
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_ALLOC, p) == -EFAULT);
	CHECK(hbm_as_in_s0(&xd));
	munmap(p, pg);
	close(fd);
}

TEST(stats_and_dump_outputs)
{
	struct xms_dev xo;
	struct xms_dev xd;
	struct xmemsim_heap_stats hs;
	struct xmemsim_heap_dump d;
	struct xmemsim_block b[8];
	int fd = dev(&xd), fo = dev(&xo);
	uint64_t a1, a2, o;

	REQUIRE(fd >= 0 && fo >= 0);
	REQUIRE(xms_alloc(&xd, DRAM, 100, 0, 0, &a1, NULL) == 0);
	REQUIRE(xms_alloc(&xo, DRAM, 100, 0, 0, &o, NULL) == 0);
	REQUIRE(xms_alloc(&xd, DRAM, 100, 0, 0, &a2, NULL) == 0);

	memset(&hs, 0xff, sizeof(hs));		/* outputs pre-filled */
	hs.heap = DRAM;
	hs.reserved0 = 1;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_STATS, &hs) == -EINVAL);	/* reserved */
	CHECK(hs.pool_base == UINT64_MAX && hs.owned_bytes == UINT64_MAX);
	hs.reserved0 = 0;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_STATS, &hs) == 0);
	CHECK_EQ_U64(hs.pool_base, info.dataram_pool_base);
	CHECK_EQ_U64(hs.free_bytes + hs.allocated_bytes, hs.pool_size);
	CHECK_EQ_U64(hs.num_blocks, info.num_blocks);
	CHECK_EQ_U64(hs.alloc_blocks, 3);
	CHECK(hs.owned_bytes >= 200 && hs.owned_bytes < hs.allocated_bytes);
	/* both files are root's: the user holds every block, slack included */
	CHECK_EQ_U64(hs.user_owned_bytes, hs.allocated_bytes);
	/* the default load sets no per-file limits */
	CHECK_EQ_U64(hs.limit_bytes, 0);
	CHECK_EQ_U64(hs.limit_allocs, 0);
	CHECK_EQ_U64(hs.file_allocs, 2);
	CHECK_EQ_U64(hs.quota_refused, 0);
	hs.heap = XMEMSIM_NUM_HEAPS;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_STATS, &hs) == -EINVAL);

	memset(b, 0xff, sizeof(b));
	memset(&d, 0, sizeof(d));
	d.heap = DRAM;
	d.capacity = 2;
	d.blocks = (uintptr_t)b;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == 0);
	CHECK_EQ_U64(d.count, 4);		/* 3 allocated + the free tail */
	CHECK_EQ_U64(b[0].aligned, a1);
	CHECK_EQ_U64(b[0].flags, XMEMSIM_BLOCK_ALLOCATED | XMEMSIM_BLOCK_OWNED);
	CHECK_EQ_U64(b[1].aligned, o);
	CHECK_EQ_U64(b[1].flags, XMEMSIM_BLOCK_ALLOCATED);
	CHECK(b[2].start == UINT64_MAX && b[2].flags == UINT32_MAX); /* beyond capacity */
	d.capacity = 8;
	d.count = 0;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == 0);
	CHECK_EQ_U64(b[2].aligned, a2);
	CHECK_EQ_U64(b[3].flags, 0);
	CHECK_EQ_U64(b[3].start + b[3].size, info.dataram_pool_base + info.dataram_pool_size);
	CHECK(b[0].start < b[1].start && b[1].start < b[2].start && b[2].start < b[3].start);
	d.count = 0xffffffff;			/* an output: ignored on input */
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == 0 && d.count == 4);
	d.reserved[1] = 1;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == -EINVAL);
	d.reserved[1] = 0;
	d.blocks = 8;
	CHECK(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == -EFAULT);
	close(fo);
	close(fd);
}

TEST(stack_alloc_defaults_and_limits)
{
	struct xms_dev xd;
	struct xmemsim_stack_alloc s;
	struct xmemsim_heap_dump d;
	struct xmemsim_block b[MAXB];
	int fd = dev(&xd), st;
	uint64_t a;
	uint32_t i;

	REQUIRE(fd >= 0);
	CHECK(xms_stack_alloc(&xd, 0, &a, &st) == 0 && st == 0);
	CHECK(a % 64 == 0);
	memset(&d, 0, sizeof(d));
	d.heap = HBM;
	d.capacity = MAXB;
	d.blocks = (uintptr_t)b;
	REQUIRE(raw(fd, XMEMSIM_IOC_HEAP_DUMP, &d) == 0);
	for (i = 0; i < d.count && b[i].aligned != a; i++)
		;
	REQUIRE(i < d.count);
	CHECK_EQ_U64(b[i].start + b[i].size - b[i].aligned, 4196);
	CHECK(xms_free(&xd, HBM, a, NULL) == 0);
	CHECK(xms_stack_alloc(&xd, 4u << 20, &a, &st) == 0);
	CHECK(xms_free(&xd, HBM, a, NULL) == 0);
	memset(&s, 0xff, sizeof(s));
	s.size = (4u << 20) + 1;
	s.flags = 0;
	memset(s.reserved, 0, sizeof(s.reserved));
	CHECK(raw(fd, XMEMSIM_IOC_STACK_ALLOC, &s) == -EINVAL);
	CHECK(s.addr == UINT64_MAX);
	s.size = 0;
	s.flags = 1;
	CHECK(raw(fd, XMEMSIM_IOC_STACK_ALLOC, &s) == -EINVAL);
	close(fd);
}

TEST(closing_a_file_with_live_allocations_restores_the_heaps)
{
	struct xms_dev xctl;
	struct xms_dev xd;
	int fd = dev(&xd), ctl = dev(&xctl);
	uint64_t a;
	int i;

	REQUIRE(fd >= 0 && ctl >= 0);
	REQUIRE(snap(&xctl, HBM, &s0) == 0);
	REQUIRE(snap(&xctl, DRAM, &s2) == 0);
	for (i = 0; i < 40; i++) {
		REQUIRE(xms_alloc(&xd, i % 3 ? HBM : DRAM,
				  i % 3 ? 64 + 97 * i : 16 + 13 * i, 1u << (i % 10),
				  0, &a, NULL) == 0);
		if (i % 4 == 1)
			REQUIRE(xms_free(&xd, i % 3 ? HBM : DRAM, a, NULL) == 0);
	}
	REQUIRE(snap(&xctl, HBM, &s1) == 0);
	CHECK(!same(&s0, &s1));
	close(fd);
	REQUIRE(snap(&xctl, HBM, &s1) == 0);
	REQUIRE(snap(&xctl, DRAM, &s3) == 0);
	CHECK(same(&s0, &s1));
	CHECK(same(&s2, &s3));
	close(ctl);
}

static void *hammer(void *arg)
{
	struct xms_dev xd;
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	uint64_t live[16] = { 0 };
	int fd = test_open(&xd), i, bad = 0;

	if (fd < 0)
		return (void *)1;
	for (i = 0; i < 3000; i++) {
		int k = rand_r(&seed) % 16;
		unsigned char v = (unsigned char)k, r = 0;

		if (live[k]) {
			if (xms_read(&xd, live[k], &r, 1) || r != v)
				bad = 1;
			if (xms_free(&xd, HBM, live[k], NULL))
				bad = 1;
			live[k] = 0;
		} else if (!xms_alloc(&xd, HBM, 1 + rand_r(&seed) % 5000, 0, 0,
				      &live[k], NULL)) {
			if (xms_write(&xd, live[k], &v, 1))
				bad = 1;
		}
	}
	close(fd);
	return (void *)(uintptr_t)bad;
}

TEST(concurrent_files_do_not_see_each_other)
{
	struct xms_dev xctl;
	pthread_t t[4];
	void *r;
	int i, ctl = dev(&xctl);

	REQUIRE(ctl >= 0);
	REQUIRE(snap(&xctl, HBM, &s0) == 0);
	for (i = 0; i < 4; i++)
		REQUIRE(pthread_create(&t[i], NULL, hammer, (void *)(uintptr_t)(i + 1)) == 0);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &r);
		CHECK(r == NULL);
	}
	REQUIRE(snap(&xctl, HBM, &s1) == 0);
	CHECK(same(&s0, &s1));
	close(ctl);
}

int main(void)
{
	return tap_run();
}
