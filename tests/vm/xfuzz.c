// SPDX-License-Identifier: GPL-2.0
/*
 * xfuzz: run the whole device surface from several processes at once.
 *
 *	xfuzz [--seed S] [--ops N] [--procs P] [--fds F] [--kills K] [--faults]
 *
 * Each worker process opens F files and runs N random operations over
 * them: every command through ioctl and through io_uring (valid and
 * invalid arguments: reserved bits, huge and unaligned sizes, foreign and
 * stale addresses, unknown command numbers, short and faulting user
 * buffers in PROT_NONE or read-only pages), read/write, mmap/munmap,
 * vmsplice of a mapping, fork, close and reopen, plan submit, sync, get
 * and release, rings closed with work queued. Worker w's sequence comes
 * from seed + w alone, so a run is replayable (the interleaving is not).
 *
 * Data integrity: a worker fills each allocation with a pattern of its own
 * (worker, allocation) and checks it on every read, through read() and
 * through its mappings: one changed byte is a failure. Bytes never written
 * must read as zero: nothing of another file is ever visible.
 *
 * Kills: K times, a child with a ring full of long DMA copies and plan
 * syncs in flight is SIGKILLed at a random point.
 *
 * Faults (--faults): workers also arm fault sites on their files and put
 * memory errors on their allocations, at random. A command that fails is
 * then accepted only if its errno is one an armed site or an injected
 * error documents (EIO for the read of an allocation with an error or of
 * a file with mem_ue armed); a COPY that failed leaves its destination's
 * bytes unknown until rewritten whole.
 *
 * After the run and while it runs, the device's debugfs "verify" must say
 * "ok" (heap verify, counters = what files hold, free bytes zero); after
 * every file closed, every heap is one free block and hbm_used,
 * dataram_used, libc_used and plan_bytes are 0. Output is TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "xorshift.h"

#define MAXFD 8
#define MAXA 64
#define MAXM 8
#define DBG "/sys/kernel/debug/xmemsim/verify"
#define SYSD "/sys/class/misc/xmemsim/"

struct alloc {
	uint64_t addr;
	uint64_t size;
	unsigned int heap;
	unsigned char pat;	/* 0: never written (reads as zero) */
	unsigned char unknown;	/* a failed COPY wrote part: not checked */
	unsigned char poisoned;	/* an injected UE: reads may fail (EIO) */
};

struct map {
	unsigned char *p;
	size_t len;
	int slot;		/* alloc index */
};

struct xfile {
	struct xms_dev xd;
	struct xms_ring ring;
	int has_ring;
	struct alloc a[MAXA];
	int na;
	struct map m[MAXM];
	int nm;
	int planned;
	uint64_t scratch[2];	/* op_ring_abandon's and op_dma's, never checked */
	uint64_t dma_next;	/* the next DMA ticket */
	uint32_t armed;		/* BIT(site) of every fault site armed */
};

/* Addresses any worker used: others try them as foreign or stale ones. */
struct shared {
	uint64_t addrs[256];
	unsigned long ops;
	unsigned long errors[8];	/* integrity failures, by worker */
	char why[8][160];
};

static struct shared *sh;
static struct xmemsim_info info;
static uint64_t rs;
static int me;
static long pg;
static unsigned char *none_page, *ro_page;

static uint64_t rnd(uint64_t n)
{
	return n ? xorshift64_below(&rs, n) : 0;
}

/* The worker's last operations, printed at its first failure. */
#define LOGN 256
static char oplog[LOGN][96];
static unsigned long nlog;

static __attribute__((format(printf, 1, 2))) void logop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(oplog[nlog++ % LOGN], sizeof(oplog[0]), fmt, ap);
	va_end(ap);
}

static void dump_log(void)
{
	unsigned long i = nlog > LOGN ? nlog - LOGN : 0;

	for (; i < nlog; i++)
		printf("# w%d op %lu: %s\n", me, i, oplog[i % LOGN]);
}

static __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	if (!sh->errors[me]) {
		va_start(ap, fmt);
		vsnprintf(sh->why[me], sizeof(sh->why[me]), fmt, ap);
		va_end(ap);
		if (getenv("XFUZZ_LOG")) {
			printf("# w%d FAIL: %s\n", me, sh->why[me]);
			dump_log();
		}
	}
	sh->errors[me]++;
}

/* A size: small, page-ish, huge or at the u64 edge. */
static uint64_t rnd_size(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - rnd(4096);
	case 2:
		return 1ULL << (20 + rnd(44));
	case 3:
		return pg * (1 + rnd(16));
	case 4:
		return 1 + rnd(64 << 10);
	default:
		return 1 + rnd(4096);
	}
}

static uint64_t rnd_align(void)
{
	switch (rnd(6)) {
	case 0:
		return 0;
	case 1:
		return 3 + rnd(100);		/* not a power of two */
	case 2:
		return 1ULL << rnd(64);
	default:
		return 1ULL << rnd(13);
	}
}

static uint64_t rnd_addr(struct xfile *f)
{
	switch (rnd(5)) {
	case 0:
		return sh->addrs[rnd(256)];	/* foreign or stale */
	case 1:
		return rnd(3) == 0 ? info.hbm_pool_base : rnd(2) ?
		       info.dataram_pool_base + rnd(64) : info.libc_pool_base + rnd(64);
	case 2:
		return xorshift64(&rs);
	default:
		return f->na ? f->a[rnd(f->na)].addr + rnd(3) * rnd(64) : 0;
	}
}

/* A user pointer: good, NULL, unmapped-protected, read-only, or kernel. */
static void *rnd_ptr(void *good)
{
	switch (rnd(10)) {
	case 0:
		return NULL;
	case 1:
		return none_page;
	case 2:
		return ro_page;
	case 3:
		return (void *)0xffff888000000000ULL;
	default:
		return good;
	}
}

static void fill(unsigned char *p, size_t n, unsigned char pat, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(pat + (off + i) * 7);
}

/* Bytes [off, off + n) of alloc x as read: must be its pattern or zero. */
static void check_bytes(const char *how, const struct alloc *x,
			const unsigned char *p, size_t n, uint64_t off)
{
	for (size_t i = 0; !x->unknown && i < n; i++) {
		unsigned char want = x->pat ? (unsigned char)(x->pat + (off + i) * 7) : 0;

		if (p[i] != want) {
			fail("%s: byte %#llx of %#llx (heap %u, size %llu, pattern %u): %#x, not %#x",
			     how, (unsigned long long)(off + i),
			     (unsigned long long)x->addr, x->heap,
			     (unsigned long long)x->size, x->pat, p[i], want);
			return;
		}
	}
}

static int no_rings;	/* XFUZZ_RINGS=0: ioctl only, no abandoned rings */
static int faults;	/* --faults: arm sites, inject memory errors */

static int cmd(struct xfile *f, unsigned long c, void *arg)
{
	if (f->has_ring && rnd(2)) {
		xms_attach_ring(&f->xd, &f->ring);
		int r = xms_cmd(&f->xd, c, arg);

		xms_attach_ring(&f->xd, NULL);
		return r;
	}
	return ioctl(f->xd.fd, c, arg) < 0 ? -errno : 0;
}

static void note_addr(uint64_t a)
{
	sh->addrs[rnd(256)] = a;
}

static void drop_maps_of(struct xfile *f, int slot)
{
	for (int i = 0; i < f->nm; i++) {
		if (f->m[i].slot != slot)
			continue;
		munmap(f->m[i].p, f->m[i].len);
		f->m[i--] = f->m[--f->nm];
	}
}

static void op_alloc(struct xfile *f)
{
	struct xmemsim_alloc al = {
		.heap = rnd(8) ? rnd(3) : rnd(5),
		.flags = rnd(8) ? rnd(2) : 1u << rnd(32),
		.size = rnd_size(),
		.align = rnd_align(),
		.reserved0 = rnd(16) == 0,
	};
	int r = cmd(f, XMEMSIM_IOC_HEAP_ALLOC, rnd_ptr(&al));

	if (r)
		return;
	logop("f%d alloc h%u %#llx+%llu", f->xd.fd, al.heap, (unsigned long long)al.addr,
	      (unsigned long long)al.size);
	if (f->na == MAXA) {
		/* no room to track it: nothing untracked may stay */
		xms_free(&f->xd, al.heap, al.addr, NULL);
		return;
	}
	/* only a good pointer can have succeeded */
	f->a[f->na++] = (struct alloc){ .addr = al.addr, .size = al.size,
					.heap = al.heap };
	note_addr(al.addr);
}

static void op_free(struct xfile *f)
{
	struct xmemsim_free fr = { .heap = rnd(3), .addr = rnd_addr(f) };
	int slot = -1, r;

	if (f->na && rnd(3)) {
		slot = rnd(f->na);
		fr.heap = f->a[slot].heap;
		fr.addr = f->a[slot].addr;
		if (rnd(2))
			drop_maps_of(f, slot);
	}
	fr.flags = rnd(16) == 0;
	/* the scratch buffers may have abandoned copies queued on them */
	if (fr.addr && (fr.addr == f->scratch[0] || fr.addr == f->scratch[1]))
		return;
	r = cmd(f, XMEMSIM_IOC_HEAP_FREE, &fr);
	if (r)
		return;
	logop("f%d free h%u %#llx", f->xd.fd, fr.heap, (unsigned long long)fr.addr);
	for (int i = 0; i < f->na; i++) {
		if (f->a[i].addr == fr.addr && f->a[i].heap == fr.heap) {
			f->a[i] = f->a[--f->na];
			for (int j = 0; j < f->nm; j++)
				if (f->m[j].slot == f->na)
					f->m[j].slot = i;
			return;
		}
	}
	fail("freed %#llx, which this file did not know (heap %u)",
	     (unsigned long long)fr.addr, fr.heap);
}

static void op_rw(struct xfile *f)
{
	static unsigned char buf[1 << 17];
	struct alloc *x;
	uint64_t off, n;
	ssize_t r;

	if (!f->na || rnd(8) == 0) {
		/* foreign, stale or wild: must move nothing */
		uint64_t a = rnd_addr(f);

		r = pread(f->xd.fd, rnd_ptr(buf), 1 + rnd(4096), (off_t)(a & INT64_MAX));
		(void)r;
		return;
	}
	x = &f->a[rnd(f->na)];
	off = rnd(x->size);
	n = 1 + rnd(x->size - off);
	if (n > sizeof(buf))
		n = sizeof(buf);
	if (rnd(2)) {
		if (!x->pat || x->unknown) {
			/* first write: the whole allocation, this worker's mark */
			/* 1..255: pattern 0 means "never written" */
			unsigned char pat = (unsigned char)(1 + (me * 37 + rnd(200)) % 255);
			uint64_t done = 0;

			while (done < x->size) {
				uint64_t k = x->size - done < sizeof(buf) ?
					     x->size - done : sizeof(buf);

				fill(buf, k, pat, done);
				if (pwrite(f->xd.fd, buf, k, (off_t)(x->addr + done)) != (ssize_t)k) {
					fail("pwrite of an owned range failed at %#llx+%#llx",
					     (unsigned long long)x->addr,
					     (unsigned long long)done);
					return;
				}
				done += k;
			}
			x->pat = pat;
			x->unknown = 0;
			logop("f%d write %#llx+%llu pat %u", f->xd.fd,
			      (unsigned long long)x->addr,
			      (unsigned long long)x->size, pat);
		} else {
			fill(buf, n, x->pat, off);
			if (pwrite(f->xd.fd, buf, n, (off_t)(x->addr + off)) != (ssize_t)n)
				fail("pwrite %#llx+%#llx failed",
				     (unsigned long long)x->addr, (unsigned long long)off);
		}
		return;
	}
	r = pread(f->xd.fd, buf, n, (off_t)(x->addr + off));
	if (r < 0 && errno == EIO &&
	    (x->poisoned || (f->armed & (1u << XMEMSIM_FAULT_MEM_UE)))) {
		logop("f%d pread %#llx+%#llx: EIO, injected", f->xd.fd,
		      (unsigned long long)x->addr, (unsigned long long)off);
		return;
	}
	if (r != (ssize_t)n) {
		fail("pread %#llx+%#llx failed: %s", (unsigned long long)x->addr,
		     (unsigned long long)off, r < 0 ? strerror(errno) : "short");
		return;
	}
	check_bytes("pread", x, buf, n, off);
}

/*
 * A page of a mapping that holds an uncorrectable memory error is left
 * out, and touching it gives SIGBUS: with --faults, reads of a mapping
 * catch it, and it must be one that an injected error explains.
 */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_bus(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(sig, SIG_DFL);	/* not expected: die of it */
	raise(sig);
}

static void op_mmap(struct xfile *f)
{
	struct alloc *x;
	struct map *m;
	size_t len;
	void *p;
	int slot;

	if (f->nm && rnd(2)) {
		m = &f->m[rnd(f->nm)];
		x = &f->a[m->slot];
		len = m->len < x->size ? m->len : x->size;
		if (faults && sigsetjmp(bus_jmp, 1)) {
			bus_armed = 0;
			if (!x->poisoned && !(f->armed & (1u << XMEMSIM_FAULT_MEM_UE)))
				fail("SIGBUS in a mapping of %#llx, no memory error injected",
				     (unsigned long long)x->addr);
			return;
		}
		bus_armed = faults;
		check_bytes("mapping", x, m->p, len, 0);
		/* past the allocation, the rest of its block: scrubbed */
		if (len < m->len && memchr(m->p + len, 0, 1) &&
		    memcmp(m->p + len, m->p + len + 1, m->len - len - 1))
			fail("a mapping shows data past its allocation at %#llx+%#zx",
			     (unsigned long long)x->addr, len);
		bus_armed = 0;
		if (rnd(2)) {
			struct iovec iov = { m->p, m->len };
			int p2[2];

			/* vmsplice of a mapping: GUP must refuse it */
			if (!pipe(p2)) {
				if (vmsplice(p2[1], &iov, 1, SPLICE_F_NONBLOCK) >= 0)
					fail("vmsplice of a device mapping worked (%zu bytes)",
					     m->len);
				close(p2[0]);
				close(p2[1]);
			}
		}
		if (rnd(2)) {
			munmap(m->p, m->len);
			*m = f->m[--f->nm];
		}
		return;
	}
	if (!f->na || f->nm == MAXM)
		return;
	slot = rnd(f->na);
	x = &f->a[slot];
	len = (x->size + pg - 1) / pg * pg;
	if (rnd(4) == 0)
		len += pg;			/* past the block: refused */
	p = mmap(NULL, len, PROT_READ, rnd(8) ? MAP_SHARED : MAP_PRIVATE, f->xd.fd,
		 (off_t)(x->addr & INT64_MAX));
	if (p == MAP_FAILED)
		return;
	f->m[f->nm++] = (struct map){ p, len, slot };
}

static int own_overlap(const struct xfile *f, uint64_t a, uint64_t len)
{
	for (int i = 0; i < f->na; i++)
		if (a < f->a[i].addr + f->a[i].size && f->a[i].addr < a + len)
			return 1;
	return 0;
}

static void op_copy(struct xfile *f)
{
	struct xmemsim_copy c = {
		.method = rnd(4),
		.flags = rnd(16) == 0,
		.len = rnd(3) ? 1 + rnd(8192) : rnd_size(),
		.src = rnd_addr(f),
		.dst = rnd_addr(f),
	};

	if (f->na >= 2 && rnd(3)) {
		int s = rnd(f->na), d = rnd(f->na);
		struct alloc *xs = &f->a[s], *xd = &f->a[d];

		if (s == d || xs->size != xd->size)
			goto go;
		c.src = xs->addr;
		c.dst = xd->addr;
		c.len = xs->size;
		c.flags = 0;
		c.method %= 3;
		if (!cmd(f, XMEMSIM_IOC_COPY, &c)) {
			xd->pat = xs->pat;
			xd->unknown = xs->unknown;
			logop("f%d copy %#llx -> %#llx len %llu pat %u", f->xd.fd,
			      (unsigned long long)c.src, (unsigned long long)c.dst,
			      (unsigned long long)c.len, xs->pat);
		} else if (faults) {
			xd->unknown = 1;	/* copy_dma writes part */
		}
		return;
	}
go:
	/* a wild copy must not land in this worker's own tracked bytes */
	if (own_overlap(f, c.dst, c.len))
		c.dst = UINT64_MAX - 4096;
	if (!cmd(f, XMEMSIM_IOC_COPY, rnd_ptr(&c)))
		logop("f%d wild copy %#llx -> %#llx len %llu", f->xd.fd,
		      (unsigned long long)c.src, (unsigned long long)c.dst,
		      (unsigned long long)c.len);
}

static struct xmemsim_interval ivs[64];

static void op_plan(struct xfile *f)
{
	struct xmemsim_plan_tensor t[16];
	unsigned int n = 1 + rnd(16), i;
	uint32_t linked, count, synced;
	struct xmemsim_plan_stats ps;
	struct xmemsim_plan_get pget;
	char err[160];

	switch (rnd(5)) {
	case 0:
	case 1:
		memset(t, 0, sizeof(t));
		for (i = 0; i < n; i++) {
			snprintf(t[i].name, sizeof(t[i].name), "w%d.t%u", me, i);
			t[i].size = rnd(16) ? 4096 * (1 + rnd(4)) : rnd_size();
			t[i].addr = rnd(16) ? 4096ULL * rnd(64) : xorshift64(&rs);
			ivs[i].lo = rnd(32);
			ivs[i].hi = ivs[i].lo + rnd(8);
			t[i].intervals = (uintptr_t)(rnd(16) ? (void *)&ivs[i] : rnd_ptr(NULL));
			t[i].nr_intervals = 1;
			if (rnd(4) == 0 && i) {
				t[i].flags = XMEMSIM_TENSOR_SHARED | XMEMSIM_TENSOR_REMOTE;
				t[i].remote_core = rnd(info.cores + 1);
				snprintf(t[i].remote_name, sizeof(t[i].remote_name),
					 "w%d.t%u", me, (unsigned int)rnd(16));
				t[i].addr = 0;
			} else if (rnd(4) == 0) {
				t[i].flags = XMEMSIM_TENSOR_SHARED;
			}
		}
		if (!xms_plan_submit(&f->xd, rnd(info.cores + 1), t, n, NULL, err,
				     sizeof(err)))
			f->planned = 1;
		break;
	case 2:
		xms_plan_sync(&f->xd, &linked, err, sizeof(err));
		break;
	case 3:
		pget = (struct xmemsim_plan_get){ .core = rnd(info.cores + 1),
			.capacity = rnd(20), .tensors = (uintptr_t)rnd_ptr(t) };
		cmd(f, XMEMSIM_IOC_PLAN_GET, rnd_ptr(&pget));
		xms_plan_get(&f->xd, 0, NULL, 0, &count, &synced);
		break;
	default:
		if (rnd(2))
			xms_plan_stats(&f->xd, XMEMSIM_PLAN_ALL_CORES, &ps);
		else
			xms_plan_release(&f->xd);
		break;
	}
}

/*
 * MEMSET: one of this file's allocations cleared whole (its pattern is
 * then zero), or part of one that reads zero; else a wild range, which
 * must not land in this worker's tracked bytes and must fail.
 */
static void op_memset(struct xfile *f)
{
	struct xmemsim_memset ms = {
		.addr = rnd_addr(f),
		.len = rnd(3) ? 1 + rnd(8192) : rnd_size(),
		.value = rnd(16) ? rnd(256) : rnd(1024),
		.flags = rnd(16) == 0,
	};
	int r;

	if (f->na && rnd(3)) {
		struct alloc *x = &f->a[rnd(f->na)];
		uint64_t off = x->pat ? 0 : rnd(x->size);

		ms = (struct xmemsim_memset){ .addr = x->addr + off,
			.len = x->pat ? x->size : rnd(x->size - off + 1) };
		r = cmd(f, XMEMSIM_IOC_MEMSET, &ms);
		if (r)
			fail("memset of its own %#llx+%llu: %d",
			     (unsigned long long)ms.addr, (unsigned long long)ms.len, r);
		else
			x->pat = 0;
		logop("f%d memset %#llx+%llu", f->xd.fd, (unsigned long long)ms.addr,
		      (unsigned long long)ms.len);
		return;
	}
	if (own_overlap(f, ms.addr, ms.len))
		ms.addr = UINT64_MAX - 4096;
	r = cmd(f, XMEMSIM_IOC_MEMSET, rnd_ptr(&ms));
	if (!r && ms.len && ms.value < 256 && !ms.flags)
		logop("f%d wild memset %#llx+%llu", f->xd.fd,
		      (unsigned long long)ms.addr, (unsigned long long)ms.len);
}

/* ALLOC_SIZE of one of this file's allocations is what it asked. */
static void op_alloc_size(struct xfile *f)
{
	struct xmemsim_alloc_size as = { .heap = rnd(4), .addr = rnd_addr(f) };
	struct alloc *x = f->na ? &f->a[rnd(f->na)] : NULL;

	if (x && rnd(2)) {
		as.heap = x->heap;
		as.addr = x->addr;
		if (cmd(f, XMEMSIM_IOC_ALLOC_SIZE, &as) || as.size != x->size ||
		    as.usable < as.size)
			fail("alloc size of %#llx (heap %u, size %llu): %llu, usable %llu",
			     (unsigned long long)x->addr, x->heap,
			     (unsigned long long)x->size, (unsigned long long)as.size,
			     (unsigned long long)as.usable);
		return;
	}
	cmd(f, XMEMSIM_IOC_ALLOC_SIZE, rnd_ptr(&as));
}

static void op_misc(struct xfile *f)
{
	struct xmemsim_heap_stats st = { .heap = rnd(3) };
	struct xmemsim_block b[40];
	struct xmemsim_heap_dump hd = { .heap = rnd(3), .capacity = rnd(48),
					.blocks = (uintptr_t)rnd_ptr(b) };
	struct xmemsim_stack_alloc sa = { .size = rnd(3) ? rnd(8192) : rnd_size() };
	unsigned char junk[256];

	switch (rnd(7)) {
	case 0:
		cmd(f, XMEMSIM_IOC_HEAP_STATS, rnd_ptr(&st));
		break;
	case 5:
		op_memset(f);
		break;
	case 6:
		op_alloc_size(f);
		break;
	case 1:
		cmd(f, XMEMSIM_IOC_HEAP_DUMP, rnd_ptr(&hd));
		break;
	case 2:
		if (cmd(f, XMEMSIM_IOC_STACK_ALLOC, &sa))
			break;
		if (f->na == MAXA) {
			xms_free(&f->xd, XMEMSIM_HEAP_HBM, sa.addr, NULL);
			break;
		}
		f->a[f->na++] = (struct alloc){ .addr = sa.addr,
			.size = sa.size ? sa.size : XMEMSIM_STACK_DEFAULT,
			.heap = XMEMSIM_HEAP_HBM };
		note_addr(sa.addr);
		logop("f%d stack %#llx+%llu", f->xd.fd, (unsigned long long)sa.addr,
		      (unsigned long long)f->a[f->na - 1].size);
		break;
	case 3:
		/* unknown and malformed command numbers */
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (unsigned char)xorshift64(&rs);
		cmd(f, _IOC(rnd(4), XMEMSIM_IOC_MAGIC, rnd(32), rnd(256)), junk);
		break;
	default:
		cmd(f, XMEMSIM_IOC_GET_INFO, rnd_ptr(junk));
		break;
	}
}

static void xfile_close(struct xfile *f)
{
	for (int i = 0; i < f->nm; i++)
		munmap(f->m[i].p, f->m[i].len);
	if (f->has_ring)
		xms_ring_exit(&f->ring);
	close(f->xd.fd);
	memset(f, 0, sizeof(*f));
	f->xd.fd = -1;
}

static int xfile_open(struct xfile *f)
{
	int fd;

	memset(f, 0, sizeof(*f));
	fd = test_open(&f->xd);
	if (fd < 0)
		return fd;
	if (rnd(2) && !no_rings && !xms_ring_init(&f->ring, &f->xd, 16))
		f->has_ring = 1;
	return 0;
}

/*
 * A ring full of copies, closed with them in flight. They run between two
 * scratch buffers the worker never checks: an abandoned copy may land any
 * time later, after the tracked allocations have moved on.
 */
/* The two scratch buffers, made on first use: 0, or -1 without them. */
static int scratch_ready(struct xfile *f)
{
	if (f->scratch[0])
		return 0;
	if (xms_alloc(&f->xd, XMEMSIM_HEAP_HBM, 65536, 64, 0, &f->scratch[0], NULL))
		return -1;
	if (xms_alloc(&f->xd, XMEMSIM_HEAP_HBM, 65536, 64, 0, &f->scratch[1], NULL)) {
		/* nothing untracked may stay */
		xms_free(&f->xd, XMEMSIM_HEAP_HBM, f->scratch[0], NULL);
		f->scratch[0] = 0;
		return -1;
	}
	return 0;
}

static void op_ring_abandon(struct xfile *f)
{
	static struct xmemsim_copy c[8];
	static struct xmemsim_dma_desc hd;
	static struct xmemsim_dma_submit hs = { .count = 1 };
	struct xms_ring r;
	int n = 0;

	if (no_rings || scratch_ready(f))
		return;
	if (xms_ring_init(&r, &f->xd, 16))
		return;
	/* and a DMA submit held on a semaphore, a wait for it in the ring */
	hd = (struct xmemsim_dma_desc){ .src = f->scratch[0], .dst = f->scratch[1],
		.len = 1 + rnd(65536), .engine = rnd(4), .queue = rnd(4),
		.wait_sem = 15, .wait_value = UINT64_MAX,
		.signal_sem = XMEMSIM_SEM_NONE };
	hs.descs = (uintptr_t)&hd;
	if (rnd(2)) {
		static struct xmemsim_dma_reap hr = { .capacity = 1, .timeout_ns = -1 };
		static struct xmemsim_dma_completion hrec;

		hr.recs = (uintptr_t)&hrec;
		n += !xms_ring_queue(&r, XMEMSIM_IOC_DMA_SUBMIT, &hs, 99);
		n += !xms_ring_queue(&r, XMEMSIM_IOC_DMA_REAP, &hr, 98);
	}
	for (int i = 0; i < 8; i++) {
		int k = rnd(2);

		c[i] = (struct xmemsim_copy){ .src = f->scratch[k],
			.dst = f->scratch[!k], .len = 1 + rnd(65536),
			.method = rnd(3) };
		n += !xms_ring_queue(&r, XMEMSIM_IOC_COPY, &c[i], i);
	}
	if (n)
		xms_ring_submit(&r);
	xms_ring_exit(&r);		/* with work in flight */
}

/*
 * Queued DMA between the scratch buffers (never checked: a transfer lands
 * whenever the clock reaches it), some held on semaphores that may never
 * come; semaphore sets, gets and waits; waits and reaps of any ticket,
 * and DMA_REAPs of any completions (capacity 0 to 9, into buffers that
 * may fault), with short timeouts; wild descriptors, which must queue
 * nothing. Closing the file (op close, kills) cancels what is left.
 */
static void op_dma(struct xfile *f)
{
	static struct xmemsim_dma_desc d[8];
	struct xmemsim_dma_submit s = { .descs = (uintptr_t)rnd_ptr(d),
					.count = 1 + rnd(8) };
	struct xmemsim_dma_wait w = { .ticket = rnd(f->dma_next + 3),
				      .timeout_ns = rnd(3) ? 0 : 1000000 };
	struct xmemsim_sem sm = { .sem = rnd(20), .value = rnd(4),
				  .timeout_ns = 1000000 };
	static struct xmemsim_dma_completion rec[16];
	struct xmemsim_dma_reset rq = { .engine = rnd(5), .queue = rnd(5),
					.flags = !rnd(16) };
	struct xmemsim_dma_reap r = { .capacity = rnd(10),
				      .timeout_ns = rnd(3) ? 0 : 1000000,
				      .flags = !rnd(16) };
	static const unsigned long sem_cmds[] = {
		XMEMSIM_IOC_SEM_SET, XMEMSIM_IOC_SEM_GET, XMEMSIM_IOC_SEM_WAIT,
	};

	if (scratch_ready(f))
		return;
	switch (rnd(4)) {
	case 0:
	case 1:
		for (int i = 0; i < 8; i++) {
			int k = rnd(2);

			d[i] = (struct xmemsim_dma_desc){
				.src = f->scratch[k], .dst = f->scratch[!k],
				.len = 1 + rnd(65536), .engine = rnd(5),
				.queue = rnd(5), .wait_value = rnd(3),
				.wait_sem = rnd(3) ? XMEMSIM_SEM_NONE : rnd(17),
				.signal_sem = rnd(2) ? XMEMSIM_SEM_NONE : rnd(17),
				.signal_inc = rnd(3), .tag = i,
			};
			if (!rnd(8))	/* not the caller's: nothing queued */
				d[i].src = xorshift64(&rs);
		}
		/* every path returns once queued, held or not */
		if (!cmd(f, XMEMSIM_IOC_DMA_SUBMIT, &s))
			f->dma_next = s.ticket + s.count;
		break;
	case 2:
		if (rnd(2)) {
			cmd(f, XMEMSIM_IOC_DMA_WAIT, rnd_ptr(&w));
		} else if (rnd(4)) {	/* any completions, into a buffer that may fault */
			r.recs = (uintptr_t)rnd_ptr(rec);
			cmd(f, XMEMSIM_IOC_DMA_REAP, rnd_ptr(&r));
		} else {	/* a queue out of error, or none such */
			cmd(f, XMEMSIM_IOC_DMA_RESET, rnd_ptr(&rq));
		}
		break;
	default:
		cmd(f, sem_cmds[rnd(3)], rnd_ptr(&sm));
		break;
	}
}

/* An aperture address of f: a slot's base, maybe inside it, maybe not. */
static uint64_t rnd_aperture(void)
{
	return XMEMSIM_APERTURE_BASE + rnd(XMEMSIM_APERTURE_SLOTS + 2) *
	       XMEMSIM_APERTURE_SLOT_SIZE + (rnd(2) ? 0 : rnd(70000));
}

/*
 * The aperture: the worker's own pages mapped (HOST_MAP, sometimes with
 * bad arguments), a scratch buffer exported and imported again, DMA
 * between a scratch buffer and any aperture address (queued, never
 * waited for: a transfer must keep its mapping), an UNMAP of any slot.
 */
static void op_peer(struct xfile *f)
{
	static uint8_t host[16 * 4096] __attribute__((aligned(4096)));
	struct xmemsim_host_map hm = {
		.uaddr = (uintptr_t)host + (rnd(8) ? 0 : 1 + rnd(4096)),
		.len = 4096 * (rnd(8) ? 1 + rnd(16) : rnd(20)),
	};
	struct xmemsim_dmabuf_export ex = { .len = 1 + rnd(65536) };
	struct xmemsim_dmabuf_import im = { 0 };
	struct xmemsim_dma_desc d = {
		.len = 1 + rnd(8192), .wait_sem = XMEMSIM_SEM_NONE,
		.signal_sem = XMEMSIM_SEM_NONE, .not_before_ns = rnd(2) ? 0 : rnd(100000),
	};
	struct xmemsim_dma_submit sb = { .descs = (uintptr_t)&d, .count = 1 };
	struct xmemsim_unmap u = { .addr = rnd_aperture() };

	if (scratch_ready(f))
		return;
	switch (rnd(4)) {
	case 0:
		cmd(f, XMEMSIM_IOC_HOST_MAP, rnd_ptr(&hm));
		break;
	case 1:
		ex.addr = f->scratch[rnd(2)] + (rnd(4) ? 0 : rnd(70000));
		if (cmd(f, XMEMSIM_IOC_DMABUF_EXPORT, &ex))
			break;
		im.fd = ex.fd + (rnd(8) ? 0 : 1 + (int)rnd(3));	/* or a forged one */
		cmd(f, XMEMSIM_IOC_DMABUF_IMPORT, rnd_ptr(&im));
		close(ex.fd);
		break;
	case 2:
		d.src = rnd(2) ? f->scratch[rnd(2)] : rnd_aperture();
		d.dst = rnd(2) ? f->scratch[rnd(2)] : rnd_aperture();
		d.engine = rnd(3);
		if (!cmd(f, XMEMSIM_IOC_DMA_SUBMIT, &sb))
			f->dma_next = sb.ticket + 1;
		break;
	default:
		cmd(f, XMEMSIM_IOC_UNMAP, rnd_ptr(&u));
		break;
	}
}

/*
 * Arm a fault site of this file (skip 0..3, times 1..2), or put a memory
 * error on a line of one of its allocations.
 */
static void op_fault(struct xfile *f)
{
	struct xmemsim_mem_error e = { .kind = 1 + rnd(2) };
	struct xmemsim_fault_arm a = {
		.site = rnd(XMEMSIM_NUM_FAULTS), .skip = rnd(4), .times = 1 + rnd(2),
	};
	struct alloc *x;

	if (!f->na || rnd(3)) {
		if (!cmd(f, XMEMSIM_IOC_FAULT_ARM, &a)) {
			f->armed |= 1u << a.site;
			logop("f%d fault %u skip %llu times %llu", f->xd.fd, a.site,
			      (unsigned long long)a.skip, (unsigned long long)a.times);
		}
		return;
	}
	x = &f->a[rnd(f->na)];
	e.addr = x->addr + rnd(x->size);
	if (!cmd(f, XMEMSIM_IOC_MEM_ERROR, &e)) {
		x->poisoned |= e.kind == XMEMSIM_MEM_UE;
		logop("f%d memerr %#llx kind %u", f->xd.fd, (unsigned long long)e.addr,
		      e.kind);
	}
}

/*
 * A forked child with the worker's files: it allocates through a shared
 * file, looks around and frees what it made before it exits (the parent
 * must never see an allocation it does not know).
 */
static void child_of(struct xfile *x)
{
	struct xmemsim_heap_stats st;
	uint64_t a;

	if (!xms_alloc(&x->xd, rnd(2), 1 + rnd(4096), 0, 0, &a, NULL)) {
		xms_stats(&x->xd, 0, &st);
		xms_free(&x->xd, XMEMSIM_HEAP_HBM, a, NULL);
		xms_free(&x->xd, XMEMSIM_HEAP_DATARAM, a, NULL);
	}
	_exit(0);
}

static void worker(int w, uint64_t seed, unsigned long ops, int nfd)
{
	struct xfile f[MAXFD];
	unsigned long i;

	me = w;
	rs = (seed + w) * 0x9e3779b97f4a7c15ULL + 1;
	signal(SIGBUS, on_bus);
	for (int i2 = 0; i2 < nfd; i2++)
		if (xfile_open(&f[i2]))
			_exit(3);
	for (i = 0; i < ops; i++) {
		struct xfile *x = &f[rnd(nfd)];

		switch (rnd(20)) {
		case 0: case 1: case 2: case 3:
			op_alloc(x);
			break;
		case 4: case 5: case 6:
			op_free(x);
			break;
		case 7: case 8: case 9: case 10:
			op_rw(x);
			break;
		case 11: case 12:
			op_mmap(x);
			break;
		case 13: case 14:
			op_copy(x);
			break;
		case 15: case 16:
			op_plan(x);
			break;
		case 17:
			if (faults && rnd(3) == 0)
				op_fault(x);
			else
				op_misc(x);
			break;
		case 18:
			switch (rnd(3)) {
			case 0:
				op_ring_abandon(x);
				break;
			case 1:
				op_dma(x);
				break;
			default:
				op_peer(x);
				break;
			}
			break;
		default:
			if (rnd(4) == 0) {
				logop("f%d close", x->xd.fd);
				xfile_close(x);
				if (xfile_open(x))
					_exit(3);
			} else if (rnd(4) == 0) {
				/* a forked child inherits the fds and dies */
				pid_t p = fork();

				if (!p) {
					/* the parent's ring is not this task's */
					x->has_ring = 0;
					child_of(x);
				}
				if (p > 0)
					waitpid(p, NULL, 0);
			} else {
				op_misc(x);
			}
			break;
		}
		__atomic_add_fetch(&sh->ops, 1, __ATOMIC_RELAXED);
	}
	for (int i2 = 0; i2 < nfd; i2++)
		xfile_close(&f[i2]);
	_exit(0);
}

/* A child with DMA copies and plan syncs in flight, killed at random. */
static void killed_child(uint64_t seed)
{
	struct xms_dev xd;
	static struct xmemsim_copy c[32];
	static struct xmemsim_plan_sync sy;
	struct xmemsim_plan_tensor t[2] = {};
	struct xmemsim_dma_desc dd[4];
	struct xms_ring r;
	uint64_t a, b;
	int fd = test_open(&xd);

	rs = seed * 0x9e3779b97f4a7c15ULL + 7;
	if (fd < 0 || xms_ring_init(&r, &xd, 64))
		_exit(1);
	if (xms_alloc(&xd, XMEMSIM_HEAP_HBM, 1 << 20, 64, 0, &a, NULL) ||
	    xms_alloc(&xd, XMEMSIM_HEAP_HBM, 1 << 20, 64, 0, &b, NULL))
		_exit(2);
	strcpy(t[0].name, "k0");
	t[0].size = 4096;
	ivs[0] = (struct xmemsim_interval){ 0, 1 };
	t[0].intervals = (uintptr_t)&ivs[0];
	t[0].nr_intervals = 1;
	xms_plan_submit(&xd, 0, t, 1, NULL, NULL, 0);
	/* queued DMA: two running, two held on a semaphore that never comes */
	for (int i = 0; i < 4; i++)
		dd[i] = (struct xmemsim_dma_desc){ .src = a, .dst = b,
			.len = 1 << 20, .engine = i, .wait_value = 1,
			.wait_sem = i % 2 ? 0 : XMEMSIM_SEM_NONE,
			.signal_sem = XMEMSIM_SEM_NONE };
	xms_dma_submit(&xd, dd, 4, NULL);
	for (;;) {
		for (int i = 0; i < 32; i++) {
			c[i] = (struct xmemsim_copy){ .src = a, .dst = b,
				.len = 1 << 20, .method = i % 3 };
			xms_ring_queue(&r, XMEMSIM_IOC_COPY, &c[i], i);
		}
		xms_ring_queue(&r, XMEMSIM_IOC_PLAN_SYNC, &sy, 99);
		xms_ring_submit(&r);
		struct xms_result res[64];

		xms_ring_reap(&r, res, 64, 1);
	}
}

static int verify_ok(char *why, size_t len)
{
	FILE *fp = fopen(DBG, "r");
	int ok;

	if (!fp) {
		snprintf(why, len, "cannot open %s", DBG);
		return 0;
	}
	if (!fgets(why, len, fp))
		why[0] = 0;
	fclose(fp);
	why[strcspn(why, "\n")] = 0;
	ok = !strcmp(why, "ok");
	return ok;
}

static long long sysfs_ll(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *fp;

	snprintf(path, sizeof(path), SYSD "%s", name);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%lld", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

static int n_tap;

static void tap(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n_tap, name);
}

int main(int argc, char **argv)
{
	struct xms_dev xd;
	uint64_t seed = (uint64_t)time(NULL);
	unsigned long ops = 2000;
	int procs = 3, nfd = 3, kills = 4, i, bad_exit = 0, mid_ok = 1;
	struct timespec t0, t1;
	char why[200];
	pid_t pids[8];

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "--faults")) {
			faults = 1;
			continue;
		}
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--ops"))
			ops = strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--procs"))
			procs = atoi(v);
		else if (!strcmp(argv[i], "--fds"))
			nfd = atoi(v);
		else if (!strcmp(argv[i], "--kills"))
			kills = atoi(v);
		i++;
	}
	if (procs < 1 || procs > 8 || nfd < 1 || nfd > MAXFD) {
		fprintf(stderr, "xfuzz: --procs 1..8, --fds 1..%d\n", MAXFD);
		return 2;
	}
	no_rings = getenv("XFUZZ_RINGS") && !strcmp(getenv("XFUZZ_RINGS"), "0");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n# xfuzz --seed %llu --ops %lu --procs %d --fds %d --kills %d%s\n",
	       (unsigned long long)seed, ops, procs, nfd, kills,
	       faults ? " --faults" : "");
	pg = sysconf(_SC_PAGESIZE);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	none_page = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || none_page == MAP_FAILED || ro_page == MAP_FAILED)
		return 2;
	if (xms_open(&xd, NULL) || xms_get_info(&xd, &info)) {
		printf("not ok 1 - xfuzz: open /dev/xmemsim\n1..1\n");
		return 1;
	}
	xms_close(&xd);
	signal(SIGPIPE, SIG_IGN);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (!pids[i])
			worker(i, seed, ops, nfd);
	}
	/* kills, and verify while the workers run */
	rs = seed * 0x2545f4914f6cdd1dULL + 3;
	for (i = 0; i < kills; i++) {
		pid_t k = fork();

		if (!k)
			killed_child(seed + 1000 + i);
		usleep(1000 * (1 + rnd(200)));
		kill(k, SIGKILL);
		waitpid(k, NULL, 0);
		if (!verify_ok(why, sizeof(why))) {
			printf("# verify during the run: %s\n", why);
			mid_ok = 0;
		}
	}
	for (i = 0; i < procs; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad_exit++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %lu operations by %d processes and %d killed children in %.1f s\n",
	       sh->ops, procs, kills,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);

	tap(!bad_exit, "xfuzz: every worker ran to its end");
	for (i = 0; i < procs; i++)
		if (sh->errors[i])
			printf("# worker %d: %lu integrity failures, first: %s (seed %llu)\n",
			       i, sh->errors[i], sh->why[i],
			       (unsigned long long)seed);
	{
		unsigned long e = 0;

		for (i = 0; i < procs; i++)
			e += sh->errors[i];
		tap(!e, "xfuzz: no byte changed, nothing foreign visible, no vmsplice");
	}
	tap(mid_ok, "xfuzz: verify ok while the workers ran and children died");
	/* the killed children's files may still be closing: give them time */
	for (i = 0; i < 50 && (sysfs_ll("hbm_used") || sysfs_ll("dataram_used") ||
			       sysfs_ll("libc_used")); i++)
		usleep(100000);
	i = verify_ok(why, sizeof(why));
	if (!i)
		printf("# verify: %s\n", why);
	tap(i, "xfuzz: verify ok after the run");
	{
		struct xmemsim_heap_stats h;
		int fd = test_open(&xd);
		unsigned int heap;

		i = fd >= 0;
		for (heap = 0; i && heap < XMEMSIM_NUM_HEAPS; heap++)
			i = !xms_stats(&xd, heap, &h) && h.free_blocks == 1 &&
			    h.alloc_blocks == 0 && h.free_bytes == h.pool_size;
		close(fd);
	}
	tap(i, "xfuzz: every heap one free block after every file closed");
	i = sysfs_ll("hbm_used") == 0 && sysfs_ll("dataram_used") == 0 &&
	    sysfs_ll("libc_used") == 0 && sysfs_ll("plan_bytes") == 0;
	if (!i)
		printf("# hbm_used %lld dataram_used %lld libc_used %lld plan_bytes %lld\n",
		       sysfs_ll("hbm_used"), sysfs_ll("dataram_used"),
		       sysfs_ll("libc_used"), sysfs_ll("plan_bytes"));
	tap(i, "xfuzz: hbm_used, dataram_used, libc_used and plan_bytes are 0");
	if (faults) {
		char line[64];
		FILE *fl = fopen("/sys/kernel/debug/xmemsim/faults", "r");
		long long n, total = 0;

		printf("# injected:");
		while (fl && fgets(line, sizeof(line), fl)) {
			char *sp = strchr(line, ' ');

			n = sp ? atoll(sp + 1) : 0;
			total += n;
			line[strcspn(line, "\n")] = 0;
			printf(" %s", line);
		}
		printf("\n");
		if (fl)
			fclose(fl);
		tap(total > 0, "xfuzz: faults were injected, and every failure seen was one");
	}
	printf("1..%d\n", n_tap);
	return 0;
}
