// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: what an unprivileged process (uid 65534) can read, pin, starve
 * or forge beside a root process in the same boot. tests/vm/run.sh loads
 * the module for it with a world-writable node and limits:
 *
 *   dev_mode=0666 file_dataram_bytes=8192 file_hbm_bytes=16777216
 *   plan_file_mb=4 plan_dev_mb=10
 *
 * One TAP line per finding of the security review (each failed on the
 * code before its fix), plus the outputs-only-on-success cases. The heaps
 * must be empty when it starts: it reasons about where blocks land.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define DRAM XMEMSIM_HEAP_DATARAM
#define NOBODY 65534

static long pg;

/*
 * Run fn(arg) in a child that dropped to uid/gid 65534; its return value
 * is the child's exit status. Returns that status, or -1 if it died.
 */
static int as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgid(NOBODY) || setuid(NOBODY) || getuid() != NOBODY)
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A page shared between parent and children, for results. */
static void *shared_page(void)
{
	void *p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int has_byte(const unsigned char *p, size_t n, unsigned char c)
{
	return memchr(p, c, n) != NULL;
}

/* --- finding 4: who may open the node ------------------------------------ */

static int nobody_opens(void *arg)
{
	struct xms_dev xd;
	int fd = test_open(&xd);

	(void)arg;
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -fd;
}

/*
 * XMEMSIM_NODE=closed: the default load (mode 0600) keeps uid 65534 out;
 * XMEMSIM_NODE=open: dev_mode=0666 lets it in.
 */
TEST(node_mode_decides_who_opens)
{
	const char *node = getenv("XMEMSIM_NODE");

	REQUIRE(node);
	if (!strcmp(node, "closed"))
		CHECK(as_nobody(nobody_opens, NULL) == EACCES);
	else
		CHECK(as_nobody(nobody_opens, NULL) == 0);
}

/* --- finding 1: mapped pages must not outlive the mapping --------------- */

struct splice_res {
	uint64_t addr;
	int vmsplice_ret;
	int vmsplice_errno;
	int pipe_rd;
};

static int pfd[2];

static int nobody_vmsplice(void *arg)
{
	struct xms_dev xd;
	struct splice_res *r = arg;
	struct iovec iov;
	uint64_t a;
	void *m;
	int fd = test_open(&xd);

	if (fd < 0)
		return 1;
	if (xms_alloc(&xd, HBM, pg, pg, 0, &a, NULL))
		return 2;
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a);
	if (m == MAP_FAILED)
		return 3;
	memset(m, 0x11, pg);
	iov.iov_base = m;
	iov.iov_len = pg;
	r->addr = a;
	r->vmsplice_ret = vmsplice(pfd[1], &iov, 1, 0);
	r->vmsplice_errno = errno;
	munmap(m, pg);
	if (xms_free(&xd, HBM, a, NULL))
		return 4;
	close(fd);
	return 0;
}

TEST(finding1_vmsplice_cannot_keep_a_window_page)
{
	struct xms_dev xd;
	struct splice_res *r = shared_page();
	unsigned char *buf = malloc(pg);
	uint64_t a = 0;
	int fd, n;

	REQUIRE(r && buf && pipe(pfd) == 0);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	CHECK(as_nobody(nobody_vmsplice, r) == 0);
	printf("# vmsplice of a mapping: %d (errno %d)\n", r->vmsplice_ret,
	       r->vmsplice_errno);
	CHECK(r->vmsplice_ret < 0 && r->vmsplice_errno == EFAULT);

	/* root gets the same bytes and writes a secret there */
	fd = test_open(&xd);
	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, pg, pg, 0, &a, NULL) == 0);
	CHECK(a == r->addr);
	memset(buf, 0x5e, pg);
	CHECK(xms_write(&xd, a, buf, pg) == 0);
	memset(buf, 0, pg);
	n = read(pfd[0], buf, pg);
	CHECK(n <= 0 || !has_byte(buf, n, 0x5e));
	xms_close(&xd);
	close(pfd[0]);
	close(pfd[1]);
	free(buf);
	munmap(r, pg);
}

TEST(finding1_private_mappings_refused)
{
	struct xms_dev xd;
	int fd = test_open(&xd);
	uint64_t a;
	void *m;

	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, pg, pg, 0, &a, NULL) == 0);
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)a);
	CHECK(m == MAP_FAILED && errno == EINVAL);
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a);
	CHECK(m != MAP_FAILED);
	if (m != MAP_FAILED) {
		/* process_vm_readv goes through GUP too: refused */
		struct iovec l = { .iov_base = malloc(pg), .iov_len = pg };
		struct iovec rv = { .iov_base = m, .iov_len = pg };

		CHECK(process_vm_readv(getpid(), &l, 1, &rv, 1, 0) < 0);
		free(l.iov_base);
		munmap(m, pg);
	}
	xms_close(&xd);
}

/* --- finding 2: no file reads a byte another file wrote ------------------ */

struct scrub_arg {
	uint64_t addr;
	uint64_t size;
	uint64_t align;
	unsigned int heap;
	uint32_t flags;
	int stack;
	int map;
	uint64_t got;
	int leaked;
};

static int nobody_reads(void *arg)
{
	struct xms_dev xd;
	struct scrub_arg *s = arg;
	unsigned char *buf = calloc(1, s->size + pg);
	uint64_t a;
	int fd = test_open(&xd), ret;

	if (fd < 0 || !buf)
		return 1;
	if (s->stack)
		ret = xms_stack_alloc(&xd, s->size, &a, NULL);
	else
		ret = xms_alloc(&xd, s->heap, s->size, s->align, s->flags, &a, NULL);
	if (ret)
		return 2;
	s->got = a;
	if (s->map) {
		size_t len = (s->size + pg - 1) / pg * pg;
		unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
					(off_t)a);

		if (m == MAP_FAILED)
			return 3;
		s->leaked = has_byte(m, len, 0xa5);
		munmap(m, len);
	} else {
		if (xms_read(&xd, a, buf, s->size))
			return 4;
		s->leaked = has_byte(buf, s->size, 0xa5);
	}
	close(fd);
	free(buf);
	return 0;
}

/* root writes 0xa5 over [addr, addr + len) of an allocation, frees it */
static uint64_t root_leaves_secret(unsigned int heap, uint64_t size,
				   uint64_t align)
{
	struct xms_dev xd;
	unsigned char *buf = malloc(size);
	uint64_t a = 0;
	int fd = test_open(&xd);

	if (fd < 0 || !buf || xms_alloc(&xd, heap, size, align, 0, &a, NULL))
		return 0;
	memset(buf, 0xa5, size);
	xms_write(&xd, a, buf, size);
	xms_free(&xd, heap, a, NULL);
	close(fd);
	free(buf);
	return a;
}

/*
 * Root writes a secret into a block and frees it; nobody then allocates
 * as want says, gets that very block, and must read only zeros.
 */
static int nobody_gets_no_secret(struct scrub_arg want, uint32_t heap,
				 uint64_t size, uint64_t align)
{
	struct scrub_arg *s = shared_page();
	uint64_t a;
	int ok;

	if (!s)
		return 0;
	a = root_leaves_secret(heap, size, align);
	*s = want;
	ok = a && as_nobody(nobody_reads, s) == 0 && s->got == a && !s->leaked;
	if (!ok)
		printf("#   secret at %#llx: nobody got %#llx, leaked %d\n",
		       (unsigned long long)a, (unsigned long long)s->got, s->leaked);
	munmap(s, pg);
	return ok;
}

TEST(finding2a_alloc_without_zero_reads_zeros)
{
	CHECK(nobody_gets_no_secret((struct scrub_arg){ .heap = HBM, .size = 1 << 20,
							.align = 4096 },
				    HBM, 1 << 20, 4096));
}

TEST(finding2a_stack_alloc_reads_zeros)
{
	CHECK(nobody_gets_no_secret((struct scrub_arg){ .size = 8192, .stack = 1 },
				    HBM, 8192, 64));
}

/*
 * An unsplit block: 8190 bytes at a 4 KiB boundary from a free block that
 * ends 8192 bytes after it leaves 2 bytes, too few to split. ZERO used to
 * clear only the 8190; the mapping reaches all 8192.
 */
TEST(finding2b_unsplit_tail_reads_zeros)
{
	struct xms_dev xd;
	struct scrub_arg *s = shared_page();
	unsigned char *buf = malloc(8192);
	uint64_t a, b;
	int fd = test_open(&xd);

	REQUIRE(s && buf && fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 8192, 4096, 0, &a, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 4096, 0, &b, NULL) == 0);
	CHECK(b == a + 8192);
	memset(buf, 0xa5, 8192);
	CHECK(xms_write(&xd, a, buf, 8192) == 0);
	CHECK(xms_free(&xd, HBM, a, NULL) == 0);
	*s = (struct scrub_arg){ .heap = HBM, .size = 8190, .align = 4096,
				 .flags = XMEMSIM_ALLOC_ZERO, .map = 1 };
	CHECK(as_nobody(nobody_reads, s) == 0);
	CHECK(s->got == a);
	CHECK(!s->leaked);
	xms_close(&xd);
	free(buf);
	munmap(s, pg);
}

static int nobody_dma(void *arg)
{
	struct xms_dev xd;
	unsigned char *buf = malloc(8192);
	uint64_t src, dst;
	int fd = test_open(&xd);

	(void)arg;
	if (fd < 0 || !buf)
		return 1;
	if (xms_alloc(&xd, HBM, 8192, 64, 0, &src, NULL) ||
	    xms_alloc(&xd, HBM, 8192, 64, 0, &dst, NULL))
		return 2;
	memset(buf, 0xa5, 8192);
	if (xms_write(&xd, src, buf, 8192) ||
	    xms_copy(&xd, src, dst, 8192, XMEMSIM_COPY_DMA))
		return 3;
	close(fd);
	return 0;
}

TEST(finding2c_dma_bounce_buffer_is_scrubbed)
{
	struct xms_dev xd;
	unsigned char *buf = calloc(1, 8192);
	uint64_t a;
	int fd;

	REQUIRE(buf);
	CHECK(as_nobody(nobody_dma, NULL) == 0);
	fd = test_open(&xd);
	REQUIRE(fd >= 0);
	/* 8 KiB less a line: the first block's alignment slack counts too */
	REQUIRE(xms_alloc(&xd, DRAM, 8192 - 64, 64, 0, &a, NULL) == 0);
	CHECK(xms_read(&xd, a, buf, 8192 - 64) == 0);
	CHECK(!has_byte(buf, 8192 - 64, 0xa5));
	xms_close(&xd);
	free(buf);
}

/* --- finding 3: plans are charged and bounded ----------------------------- */

static struct xmemsim_interval *ivs;

/* test_serial_plan() over this file's 65,536 intervals */
static struct xmemsim_plan_tensor *big_plan(uint32_t n)
{
	if (!ivs)
		ivs = calloc(65536, sizeof(*ivs));
	return ivs ? test_serial_plan(n, ivs) : NULL;
}

static int nobody_plans(void *arg)
{
	int *res = arg;
	struct xmemsim_plan_tensor *small = big_plan(4096), *huge = big_plan(65536);
	struct xms_dev xd[16];
	int i, ret = 0;

	if (!small || !huge)
		return 1;
	/* one file: a small plan fits, a 65,536-tensor one does not */
	if (xms_open(&xd[0], NULL) ||
	    xms_plan_submit(&xd[0], 0, small, 4096, NULL, NULL, 0))
		return 2;
	res[0] = xms_plan_submit(&xd[0], 1, huge, 65536, NULL, NULL, 0);
	/* many files: the user's limit stops them */
	res[1] = 0;
	for (i = 1; i < 16 && !res[1]; i++) {
		if (xms_open(&xd[i], NULL))
			return 3;
		ret = xms_plan_submit(&xd[i], 0, small, 4096, NULL, NULL, 0);
		if (!ret)
			ret = xms_plan_submit(&xd[i], 1, small, 4096, NULL, NULL, 0);
		res[1] = ret;
		res[2] = i;
	}
	return 0;
}

/* plan_mem from debugfs "verify" */
static long long debugfs_plan_mem(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/sys/kernel/debug/xmemsim/verify", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "plan_mem %lld", &v);
	fclose(f);
	return v;
}

/*
 * One user's files together stop at the user's budget (plan_user_mb, by
 * default half the device's), never at the device's: the device-wide
 * -ENOSPC takes several users (tests/vm/multiuser.c).
 */
TEST(finding3_plan_memory_is_limited_per_file_and_user)
{
	int *res = shared_page();

	REQUIRE(res);
	CHECK(as_nobody(nobody_plans, res) == 0);
	printf("# huge plan: %d; user limit hit after %d files: %d\n",
	       res[0], res[2], res[1]);
	CHECK(res[0] == -EDQUOT);
	CHECK(res[1] == -EDQUOT);
	CHECK(res[2] > 1 && res[2] < 16);
	CHECK(debugfs_plan_mem() == 0);		/* all files closed */
	munmap(res, pg);
}

/*
 * The memory cgroup a plan's memory is charged to; skipped on a kernel
 * without memcg. The child joins the cgroup and touches its own buffers
 * first, so the figure taken around the submit is the kernel's alone.
 */
static int qfd[2];

static int nobody_plan_in_cgroup(void *arg)
{
	struct xms_dev xd;
	struct xmemsim_plan_tensor *t = big_plan(4096);
	int fd = test_open(&xd);
	char c;

	(void)arg;
	if (fd < 0 || !t)
		return 1;
	if (write(pfd[1], "r", 1) != 1 || read(qfd[0], &c, 1) != 1)
		return 2;
	if (xms_plan_submit(&xd, 0, t, 4096, NULL, NULL, 0))
		return 3;
	if (write(pfd[1], "s", 1) != 1)
		return 4;
	pause();
	return 0;
}



TEST(finding3_plan_memory_is_charged_to_the_caller_cgroup)
{
	const char *cur = "/sys/fs/cgroup/hostile/memory.current";
	long long before = -1, after = -1;
	char pid[32], c = 0;
	pid_t child;

	mkdir("/sys/fs/cgroup", 0755);
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) &&
	    system("mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null"))
		printf("# no cgroup2 mount\n");
	if (test_write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
		SKIP("no memory cgroup controller in this kernel");
	mkdir("/sys/fs/cgroup/hostile", 0755);
	REQUIRE(pipe(pfd) == 0 && pipe(qfd) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (!child) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (test_write_str("/sys/fs/cgroup/hostile/cgroup.procs", pid) ||
		    setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(nobody_plan_in_cgroup(NULL));
	}
	close(pfd[1]);
	close(qfd[0]);
	if (read(pfd[0], &c, 1) == 1 && c == 'r') {
		before = test_read_ll(cur);
		CHECK(write(qfd[1], "g", 1) == 1);
		if (read(pfd[0], &c, 1) == 1 && c == 's')
			after = test_read_ll(cur);
	}
	printf("# memory.current %lld -> %lld\n", before, after);
	/* a 4,096-tensor plan keeps about 0.85 MiB of kernel memory */
	CHECK(before >= 0 && after - before > 512 << 10);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);
	close(qfd[1]);
	rmdir("/sys/fs/cgroup/hostile");
}

/* --- finding 4: the node and the per-file limits -------------------------- */

static int nobody_hogs_dataram(void *arg)
{
	struct xms_dev xd;
	struct xmemsim_heap_stats *st = arg;
	uint64_t a;
	int fd = test_open(&xd), ret, n = 0;

	if (fd < 0)
		return 1;
	do {
		ret = xms_alloc(&xd, DRAM, 1024, 64, 0, &a, NULL);
		n += !ret;
	} while (!ret && n < 64);
	if (xms_stats(&xd, DRAM, st))
		return 3;
	/* hold it while root copies: tell the parent, then wait to die */
	if (write(pfd[1], ret == -EDQUOT ? "q" : "n", 1) != 1)
		return 4;
	pause();
	return 0;
}

TEST(finding4_one_file_cannot_starve_dma)
{
	struct xms_dev xd;
	struct xmemsim_heap_stats *st = shared_page();
	unsigned char *buf = malloc(16384);
	uint64_t src, dst;
	pid_t child;
	int fd;
	char c;

	REQUIRE(st && buf && pipe(pfd) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (!child) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(nobody_hogs_dataram(st));
	}
	close(pfd[1]);
	CHECK(read(pfd[0], &c, 1) == 1 && c == 'q');
	printf("# hog: owns %llu of limit %llu, refused %llu\n",
	       (unsigned long long)st->owned_bytes,
	       (unsigned long long)st->limit_bytes,
	       (unsigned long long)st->quota_refused);
	CHECK(st->limit_bytes == 8192);
	CHECK(st->owned_bytes <= 8192 && st->owned_bytes > 4096);
	CHECK(st->quota_refused == 1);
	fd = test_open(&xd);
	REQUIRE(fd >= 0);
	REQUIRE(xms_alloc(&xd, HBM, 16384, 64, 0, &src, NULL) == 0);
	REQUIRE(xms_alloc(&xd, HBM, 16384, 64, 0, &dst, NULL) == 0);
	CHECK(xms_copy(&xd, src, dst, 16384, XMEMSIM_COPY_DMA) == 0);
	xms_close(&xd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);
	free(buf);
	munmap(st, pg);
}

TEST(finding4_hbm_limit_per_file)
{
	struct xms_dev xd;
	struct xmemsim_heap_stats st;
	uint64_t a;
	int fd = test_open(&xd);

	REQUIRE(fd >= 0);
	/* the pool's first block has 24 bytes of slack below 64 alignment */
	CHECK(xms_alloc(&xd, HBM, (16 << 20) - 64, 64, 0, &a, NULL) == 0);
	CHECK(xms_alloc(&xd, HBM, 64, 64, 0, &a, NULL) == -EDQUOT);
	CHECK(xms_stats(&xd, HBM, &st) == 0);
	CHECK_EQ_U64(st.limit_bytes, 16 << 20);
	CHECK_EQ_U64(st.quota_refused, 1);
	xms_close(&xd);
}

/* --- the seed additions: MEMSET and ALLOC_SIZE of root's bytes ------------ */

struct foreign {
	uint64_t addr;
	int memset_ret, size_ret, free_ret;
};

static int nobody_touches(void *arg)
{
	struct foreign *f = arg;
	struct xms_dev xd;
	uint64_t size = 0;

	if (test_open(&xd) < 0)
		return 1;
	f->memset_ret = xms_memset(&xd, f->addr, 0x41, 64);
	f->size_ret = xms_alloc_size(&xd, XMEMSIM_HEAP_LIBC, f->addr, &size, NULL);
	f->free_ret = xms_free_flags(&xd, XMEMSIM_HEAP_LIBC, f->addr,
				     XMEMSIM_FREE_CLEAR, NULL);
	xms_close(&xd);
	return size != 0;
}

TEST(memset_and_alloc_size_of_another_users_allocation_refused)
{
	struct foreign *f = shared_page();
	unsigned char secret[64], back[64];
	struct xms_dev xd;
	uint64_t a;

	REQUIRE(f);
	REQUIRE(test_open(&xd) >= 0);
	REQUIRE(xms_alloc(&xd, XMEMSIM_HEAP_LIBC, 64, 0, 0, &a, NULL) == 0);
	memset(secret, 0x5e, sizeof(secret));
	REQUIRE(xms_write(&xd, a, secret, sizeof(secret)) == 0);
	*f = (struct foreign){ .addr = a };
	CHECK(as_nobody(nobody_touches, f) == 0);
	CHECK(f->memset_ret == -EACCES);
	CHECK(f->size_ret == -EACCES);
	CHECK(f->free_ret == -EACCES);
	CHECK(xms_read(&xd, a, back, sizeof(back)) == 0 &&
	      !memcmp(secret, back, sizeof(back)));
	xms_close(&xd);
	munmap(f, pg);
}

/* --- finding 5: PLAN_RELEASE is all or nothing ---------------------------- */

TEST(finding5_release_of_a_mapped_plan_is_refused)
{
	struct xms_dev xd;
	struct xmemsim_plan_tensor *t = big_plan(4);
	struct xmemsim_heap_stats st;
	struct xmemsim_block b[8];
	struct xmemsim_plan_stats ps;
	uint32_t n, i, linked, synced = 0;
	uint64_t base = 0;
	void *m;
	int fd = test_open(&xd);

	REQUIRE(fd >= 0 && t);
	REQUIRE(xms_plan_submit(&xd, 0, t, 4, NULL, NULL, 0) == 0);
	REQUIRE(xms_plan_sync(&xd, &linked, NULL, 0) == 0);
	REQUIRE(xms_dump(&xd, HBM, b, 8, &n) == 0);
	for (i = 0; i < n && i < 8; i++)
		if (b[i].flags & XMEMSIM_BLOCK_OWNED)
			base = b[i].aligned;
	REQUIRE(base);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)base);
	REQUIRE(m != MAP_FAILED);
	CHECK(xms_plan_release(&xd) == -EBUSY);
	CHECK(xms_plan_stats(&xd, XMEMSIM_PLAN_ALL_CORES, &ps) == 0);
	CHECK(xms_plan_get(&xd, 0, NULL, 0, &n, &synced) == 0 && synced == 1);
	munmap(m, 4096);
	CHECK(xms_plan_release(&xd) == 0);
	CHECK(xms_stats(&xd, HBM, &st) == 0);
	CHECK_EQ_U64(st.owned_bytes, 0);
	CHECK(xms_plan_stats(&xd, XMEMSIM_PLAN_ALL_CORES, &ps) == -ENODATA);
	xms_close(&xd);
	free(t);
}

/* --- finding 6: user strings do not forge kernel log lines ---------------- */

static int nobody_forges(void *arg)
{
	struct xms_dev xd;
	struct xmemsim_plan_tensor *t = big_plan(2);
	int fd = test_open(&xd);

	(void)arg;
	if (fd < 0 || !t)
		return 1;
	strcpy(t[0].name, "a\nxmemsim: FORGED line");
	strcpy(t[1].name, t[0].name);		/* named twice: rejected */
	return xms_plan_submit(&xd, 0, t, 2, NULL, NULL, 0) == -EINVAL ? 0 : 2;
}

TEST(finding6_tensor_names_are_escaped_in_the_log)
{
	int len = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf;
	int n;

	REQUIRE(len > 0);
	buf = calloc(1, len + 1);
	REQUIRE(buf);
	CHECK(as_nobody(nobody_forges, NULL) == 0);
	n = klogctl(3, buf, len);	/* SYSLOG_ACTION_READ_ALL */
	REQUIRE(n > 0);
	buf[n] = 0;
	CHECK(strstr(buf, "\\nxmemsim: FORGED line") != NULL);
	CHECK(strstr(buf, "\nxmemsim: FORGED line") == NULL);
	free(buf);
}

/* --- outputs only on success ---------------------------------------------- */

TEST(sync_with_a_readonly_argument_changes_nothing)
{
	struct xms_dev xd;
	struct xmemsim_plan_tensor *t = big_plan(4);
	struct xmemsim_heap_stats st;
	struct xmemsim_plan_sync *sy;
	uint32_t n, synced = 9;
	int fd = test_open(&xd);

	REQUIRE(fd >= 0 && t);
	sy = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	REQUIRE(sy != MAP_FAILED);
	memset(sy, 0, sizeof(*sy));
	mprotect(sy, pg, PROT_READ);
	REQUIRE(xms_plan_submit(&xd, 0, t, 4, NULL, NULL, 0) == 0);
	CHECK(ioctl(fd, XMEMSIM_IOC_PLAN_SYNC, sy) < 0 && errno == EFAULT);
	CHECK(xms_plan_get(&xd, 0, NULL, 0, &n, &synced) == 0 && synced == 0);
	CHECK(xms_stats(&xd, HBM, &st) == 0);
	CHECK_EQ_U64(st.owned_bytes, 0);
	munmap(sy, pg);
	xms_close(&xd);
	free(t);
}

TEST(dump_and_get_with_a_readonly_argument_write_no_array)
{
	struct xms_dev xd;
	struct xmemsim_plan_tensor *t = big_plan(4), out[4];
	struct xmemsim_block b[8];
	unsigned char *page;
	int fd = test_open(&xd);
	uint64_t a;

	REQUIRE(fd >= 0 && t);
	page = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(page != MAP_FAILED);
	REQUIRE(xms_alloc(&xd, HBM, 4096, 64, 0, &a, NULL) == 0);
	REQUIRE(xms_plan_submit(&xd, 0, t, 4, NULL, NULL, 0) == 0);

	memset(b, 0xee, sizeof(b));
	*(struct xmemsim_heap_dump *)page = (struct xmemsim_heap_dump){
		.heap = HBM, .capacity = 8, .blocks = (uintptr_t)b };
	mprotect(page, pg, PROT_READ);
	CHECK(ioctl(fd, XMEMSIM_IOC_HEAP_DUMP, page) < 0 && errno == EFAULT);
	CHECK(b[0].start == 0xeeeeeeeeeeeeeeeeULL);

	mprotect(page, pg, PROT_READ | PROT_WRITE);
	memset(out, 0xee, sizeof(out));
	*(struct xmemsim_plan_get *)page = (struct xmemsim_plan_get){
		.core = 0, .capacity = 4, .tensors = (uintptr_t)out };
	mprotect(page, pg, PROT_READ);
	CHECK(ioctl(fd, XMEMSIM_IOC_PLAN_GET, page) < 0 && errno == EFAULT);
	CHECK(out[0].size == 0xeeeeeeeeeeeeeeeeULL);
	munmap(page, pg);
	xms_close(&xd);
	free(t);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	return tap_run();
}
