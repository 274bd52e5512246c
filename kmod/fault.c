// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim failures on purpose: fault injection sites and a memory-error
 * model, so that a runtime can run its error paths against the device.
 *
 * Sites (uapi/xmemsim.h, XMEMSIM_FAULT_*, says what each caller sees),
 * and one of the module's own after them, DMA_STALL (xmemsim.h): the
 * engine that completes a transfer stalls, no lock held, where the
 * transfer's waiter may free it; FAULT_ARM does not know it, so only a
 * make-it-fail task's transfers meet it.
 * Each has, on each device, a fault_attr of the kernel's framework
 * (Documentation/fault-injection/fault-injection.rst) in debugfs as
 * /sys/kernel/debug/xmemsim/fail_<site>/ (xmemsim1/ and on for the other
 * devices), with all its knobs (probability, interval, times, space,
 * verbose, task-filter), and the module parameter
 * fail_<site>="<interval>,<probability>,<space>,<times>" sets every
 * device's at load, the form failslab= takes on the kernel command line.
 *
 * Who gets hurt: a site asks its fault_attr only on behalf of a caller
 * that opted in, a task whose /proc/<pid>/make-it-fail is set or a file
 * that armed the site with FAULT_ARM and XMEMSIM_FAULT_FRAMEWORK. Nobody
 * else's commands fail, whatever the knobs say, and the framework's
 * interval and times count only the callers that opted in. Opting in is
 * privileged, as the knobs are (root's debugfs files) and make-it-fail
 * is (CAP_SYS_RESOURCE): FAULT_ARM with the flag needs CAP_SYS_ADMIN, so
 * the counts are shared by a device's users but only an administrator's
 * calls move them, and no other user can shift an interval or take a
 * times.
 *
 * FAULT_ARM without that flag arms a site of the file itself: the
 * file's next skip calls of the site pass and the times after them fail.
 * This is the one counter kept here rather than in the framework, whose
 * counters are the whole device's and whose probability cannot be
 * seeded: it is what makes "the third transfer of this file fails" exact
 * and replayable.
 *
 * Memory errors. The device keeps poisoned 64-byte lines of its windows
 * in an xarray by device address. MEM_ERROR puts one on a line of the
 * caller's own allocation; the MEM_CE and MEM_UE sites make a read see
 * one at random. A read (pread and io_uring READ, the source of a COPY or
 * of a DMA transfer) that covers a correctable line counts a CE and gets
 * the right bytes (the line is then clean); one that covers an
 * uncorrectable line counts a UE and fails with -EIO (a DMA transfer
 * completes with status -EIO), and the line stays bad until it is
 * rewritten whole (write, COPY or DMA destination, MEMSET) or its block
 * is freed (the scrub rewrites it). The counts are per heap in sysfs,
 * hbm/ce_count, hbm/ue_count and so on, as EDAC names them. A mapped page
 * that holds an uncorrectable line is unmapped when the line goes bad
 * (and left out at mmap()), so a touch faults, and the fault gives
 * SIGBUS while the line is bad and maps the page again once it is not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "xmemsim.h"

static const char * const site_name[XMEMSIM_FAULT_SITES] = {
	[XMEMSIM_FAULT_HEAP_ALLOC] = "heap_alloc",
	[XMEMSIM_FAULT_HEAP_NOSPLIT] = "heap_nosplit",
	[XMEMSIM_FAULT_COPY_DMA] = "copy_dma",
	[XMEMSIM_FAULT_BOUNCE] = "bounce",
	[XMEMSIM_FAULT_DMA_ERROR] = "dma_error",
	[XMEMSIM_FAULT_DMA_HANG] = "dma_hang",
	[XMEMSIM_FAULT_PLAN] = "plan",
	[XMEMSIM_FAULT_MEM_CE] = "mem_ce",
	[XMEMSIM_FAULT_MEM_UE] = "mem_ue",
	[XMEMSIM_FAULT_DMA_STALL] = "dma_stall",
};

#ifdef CONFIG_FAULT_INJECTION
/*
 * fail_<site>= at load: setup_fault_attr()'s string, parsed in init for
 * every device, each of which then has its own fault_attr of the site.
 */
static char *fail_param[XMEMSIM_FAULT_SITES];
#define FAIL_PARAM(name, site, desc)					\
	module_param_named(fail_##name, fail_param[XMEMSIM_FAULT_##site],	\
			   charp, 0444);					\
	MODULE_PARM_DESC(fail_##name, desc)

FAIL_PARAM(heap_alloc, HEAP_ALLOC,
	   "Fault injection at load, \"<interval>,<probability>,<space>,<times>\": allocations fail as if the heap were full");
FAIL_PARAM(heap_nosplit, HEAP_NOSPLIT,
	   "... allocations take a whole block, as when descriptors run out");
FAIL_PARAM(copy_dma, COPY_DMA,
	   "... a DMA COPY fails half way (-EIO)");
FAIL_PARAM(bounce, BOUNCE,
	   "... a DMA COPY finds no bounce buffer (-EBUSY)");
FAIL_PARAM(dma_error, DMA_ERROR,
	   "... a queued DMA transfer completes with -EIO");
FAIL_PARAM(dma_hang, DMA_HANG,
	   "... a queued DMA transfer never completes");
FAIL_PARAM(plan, PLAN,
	   "... PLAN_SUBMIT or PLAN_SYNC fails (-EIO), the device as before");
FAIL_PARAM(mem_ce, MEM_CE,
	   "... a read sees a correctable memory error");
FAIL_PARAM(mem_ue, MEM_UE,
	   "... a read sees an uncorrectable memory error (-EIO)");
FAIL_PARAM(dma_stall, DMA_STALL,
	   "... a queued DMA transfer's engine stalls 20 ms once it is done (make-it-fail tasks only)");

static bool framework_fails(struct xmemsim_file *xf, unsigned int s)
{
	bool optin = current->make_it_fail ||
		     (xf && (READ_ONCE(xf->fault.framework) & BIT(s)));

	return optin && should_fail(&xf->dev->fault.attrs[s], 1);
}
#else
static bool framework_fails(struct xmemsim_file *xf, unsigned int s)
{
	return false;
}
#endif

/**
 * xmemsim_fault() - does this call of a site fail?
 * @xf: the file making it
 * @s: the site
 *
 * The file's own arm first (skip, then times), then the framework's
 * fault_attr if the caller opted in. Called in the caller's task.
 *
 * Return: true if the call is to fail.
 */
bool xmemsim_fault(struct xmemsim_file *xf, unsigned int s)
{
	struct xmemsim_fault_file *f = &xf->fault;
	bool fail = false;

	if (READ_ONCE(f->armed) & BIT(s)) {
		spin_lock(&f->lock);
		if (f->skip[s]) {
			f->skip[s]--;
		} else if (f->times[s]) {
			fail = true;
			if (!--f->times[s])
				WRITE_ONCE(f->armed, f->armed & ~BIT(s));
		}
		spin_unlock(&f->lock);
	}
	if (!fail)
		fail = framework_fails(xf, s);
	if (fail)
		atomic64_inc(&xf->dev->fault.injected[s]);
	return fail;
}

/**
 * xmemsim_fault_arm() - FAULT_ARM
 * @xf: the caller
 * @a: the command, copied in
 *
 * Opting in to the framework (XMEMSIM_FAULT_FRAMEWORK, times 1) needs
 * CAP_SYS_ADMIN in the caller's credentials; opting out does not.
 *
 * Return: 0, -EINVAL (no such site, flags, reserved, or skip/times with
 * XMEMSIM_FAULT_FRAMEWORK), -EOPNOTSUPP (XMEMSIM_FAULT_FRAMEWORK on a
 * kernel without CONFIG_FAULT_INJECTION), -EPERM (opting in without
 * CAP_SYS_ADMIN).
 */
int xmemsim_fault_arm(struct xmemsim_file *xf, const struct xmemsim_fault_arm *a)
{
	struct xmemsim_fault_file *f = &xf->fault;
	bool fw = a->flags & XMEMSIM_FAULT_FRAMEWORK;

	if (a->site >= XMEMSIM_NUM_FAULTS || (a->flags & ~XMEMSIM_FAULT_FRAMEWORK) ||
	    !mem_is_zero(a->reserved, sizeof(a->reserved)) ||
	    (fw && (a->skip || a->times > 1)))
		return -EINVAL;
	if (fw && !IS_ENABLED(CONFIG_FAULT_INJECTION))
		return -EOPNOTSUPP;
	if (fw && a->times && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	spin_lock(&f->lock);
	if (fw) {		/* times 1: opt in; 0: out */
		WRITE_ONCE(f->framework, a->times ? f->framework | BIT(a->site) :
						    f->framework & ~BIT(a->site));
	} else {
		f->skip[a->site] = a->skip;
		f->times[a->site] = a->times;
		WRITE_ONCE(f->armed, a->times ? f->armed | BIT(a->site) :
						f->armed & ~BIT(a->site));
	}
	spin_unlock(&f->lock);
	return 0;
}

/* --- memory errors ------------------------------------------------------- */

#define LINE_SHIFT	ilog2(XMEMSIM_MEM_LINE)	/* the ECC granule */

/*
 * A bad line's entry in dev->poison: the account of the user whose
 * allocation holds it (a read meets only lines of its own allocations),
 * tagged with the line's state. The account outlives the entry: freeing
 * a block cleans its lines (xmemsim_mem_freed()), and a user's blocks
 * are all freed before its last file drops the account.
 */
#define POISON_CE	0
#define POISON_UE	1

static void count_error(struct xmemsim_dev *d, u32 heap,
			struct xmemsim_user *u, unsigned int kind)
{
	if (kind == POISON_CE) {
		atomic64_inc(&d->mem_ce[heap]);
		atomic64_inc(&u->mem_ce);
	} else {
		atomic64_inc(&d->mem_ue[heap]);
		atomic64_inc(&u->mem_ue);
	}
}

/* Count the error of a line's entry for its owner: its kind. xa_lock held. */
static unsigned int count_entry(struct xmemsim_dev *d, u32 heap, void *e)
{
	unsigned int kind = xa_pointer_tag(e);

	count_error(d, heap, xa_untag_pointer(e), kind);
	return kind;
}

/* Mark line (a device address) of one of xf's allocations bad: 0 or -ENOMEM */
static int poison_store(struct xmemsim_file *xf, u64 line, unsigned int kind)
{
	return xa_err(xa_store(&xf->dev->poison, line >> LINE_SHIFT,
			       xa_tag_pointer(xf->user, kind), GFP_KERNEL_ACCOUNT));
}

/**
 * xmemsim_mem_check() - a read of [addr, addr + len) meets poisoned lines
 * @d: the device
 * @heap: the heap the range lies in, for the counts
 * @addr: first byte
 * @len: bytes, > 0
 *
 * Each correctable line counts once and is clean after; each
 * uncorrectable one counts and stays. The counts are the heap's and
 * those of the user whose allocation holds the line. Any context that
 * may take a spinlock.
 *
 * Return: 0, or -EIO if the range holds an uncorrectable line.
 */
int xmemsim_mem_check(struct xmemsim_dev *d, u32 heap, u64 addr, u64 len)
{
	unsigned long first = addr >> LINE_SHIFT;
	unsigned long last = (addr + len - 1) >> LINE_SHIFT;
	unsigned long i = first;
	void *e;
	int ret = 0;

	if (xa_empty(&d->poison))
		return 0;
	xa_lock(&d->poison);
	xa_for_each_range(&d->poison, i, e, first, last) {
		if (count_entry(d, heap, e) == POISON_CE)
			__xa_erase(&d->poison, i);
		else
			ret = -EIO;
	}
	xa_unlock(&d->poison);
	return ret;
}

/**
 * xmemsim_mem_read() - a read by a file's command: poison, then the sites
 * @xf: the reader
 * @heap: the heap of the range
 * @addr: first byte
 * @len: bytes, > 0
 *
 * As xmemsim_mem_check(); then, if the reader opted in, the MEM_UE or
 * MEM_CE site makes it meet a new error (xmemsim_mem_error()).
 *
 * Return: 0 or -EIO.
 */
int xmemsim_mem_read(struct xmemsim_file *xf, u32 heap, u64 addr, u64 len)
{
	struct xmemsim_dev *d = xf->dev;
	int ret = xmemsim_mem_check(d, heap, addr, len);

	if (ret)
		return ret;
	if (xmemsim_fault(xf, XMEMSIM_FAULT_MEM_UE))
		return xmemsim_mem_error(xf, heap, addr, len, XMEMSIM_MEM_UE);
	if (xmemsim_fault(xf, XMEMSIM_FAULT_MEM_CE))
		return xmemsim_mem_error(xf, heap, addr, len, XMEMSIM_MEM_CE);
	return 0;
}

/*
 * Line of an allocation of xf's goes bad: unmap the page holding it from
 * every mapping of the file's node, so that the next touch faults (and
 * gets SIGBUS from xmemsim_vma_fault()). Process context.
 */
static void poison_line(struct xmemsim_file *xf, u64 line)
{
	/* no memory for the entry: the read that found it still failed */
	if (poison_store(xf, line, POISON_UE))
		return;
	if (line <= (u64)LLONG_MAX)
		unmap_mapping_range(xf->mapping, round_down(line, PAGE_SIZE),
				    PAGE_SIZE, 1);
}

/**
 * xmemsim_mem_error() - a read of [addr, addr + len) meets a new error
 * @xf: the reader, whose allocation holds the range
 * @heap: the heap of the range
 * @addr: first byte
 * @len: bytes, > 0
 * @kind: XMEMSIM_MEM_CE (counted, no harm) or _UE
 *
 * Counted for the heap and for the reader's user.
 * A UE poisons the first whole line of the range, if it holds one (a line
 * only part of which the reader owns is never poisoned). Process context.
 *
 * Return: 0 for a CE, -EIO for a UE.
 */
int xmemsim_mem_error(struct xmemsim_file *xf, u32 heap, u64 addr, u64 len,
		      u32 kind)
{
	u64 line = round_up(addr, 1ULL << LINE_SHIFT);

	if (kind == XMEMSIM_MEM_CE) {
		count_error(xf->dev, heap, xf->user, POISON_CE);
		return 0;
	}
	if (line + (1ULL << LINE_SHIFT) <= addr + len)
		poison_line(xf, line);
	count_error(xf->dev, heap, xf->user, POISON_UE);
	return -EIO;
}

/* The first uncorrectable line's entry in [addr, addr + len), or NULL. */
static void *first_ue_locked(struct xmemsim_dev *d, u64 addr, u64 len)
{
	unsigned long i = addr >> LINE_SHIFT;
	void *e;

	lockdep_assert_held(&d->poison.xa_lock);
	xa_for_each_range(&d->poison, i, e, addr >> LINE_SHIFT,
			  (addr + len - 1) >> LINE_SHIFT) {
		if (xa_pointer_tag(e) == POISON_UE)
			return e;
	}
	return NULL;
}

/**
 * xmemsim_mem_bad() - does [addr, addr + len) hold an uncorrectable line?
 * @d: the device
 * @addr: first byte
 * @len: bytes, > 0
 *
 * Counts nothing. Any context that may take a spinlock.
 *
 * Return: true or false.
 */
bool xmemsim_mem_bad(struct xmemsim_dev *d, u64 addr, u64 len)
{
	bool bad;

	if (xa_empty(&d->poison))
		return false;
	xa_lock(&d->poison);
	bad = first_ue_locked(d, addr, len);
	xa_unlock(&d->poison);
	return bad;
}

/**
 * xmemsim_mem_page_bad() - a mapped page's fault: does it hold a bad line?
 * @d: the device
 * @heap: the heap of the page's allocation, for the count
 * @addr: the page's device address
 *
 * Return: true (an uncorrectable line, counted once for the heap and the
 * line's owner: the access gets SIGBUS), or false.
 */
bool xmemsim_mem_page_bad(struct xmemsim_dev *d, u32 heap, u64 addr)
{
	void *e;

	if (xa_empty(&d->poison))
		return false;
	xa_lock(&d->poison);
	e = first_ue_locked(d, addr, PAGE_SIZE);
	if (e)
		count_entry(d, heap, e);
	xa_unlock(&d->poison);
	return e;
}

/* Clean lines first .. last (line indexes), all of them. */
static void erase_lines(struct xmemsim_dev *d, unsigned long first,
			unsigned long last)
{
	unsigned long i = first;
	void *e;

	if (xa_empty(&d->poison))
		return;
	xa_lock(&d->poison);
	xa_for_each_range(&d->poison, i, e, first, last)
		__xa_erase(&d->poison, i);
	xa_unlock(&d->poison);
}

/**
 * xmemsim_mem_written() - [addr, addr + len) was rewritten
 * @d: the device
 * @addr: first byte
 * @len: bytes
 *
 * The lines it covers whole are clean again; a line written in part
 * keeps its error (the rest of the line was not rewritten).
 */
void xmemsim_mem_written(struct xmemsim_dev *d, u64 addr, u64 len)
{
	u64 first = round_up(addr, 1ULL << LINE_SHIFT) >> LINE_SHIFT;
	u64 end = (addr + len) >> LINE_SHIFT;	/* lines below end */

	if (len && first < end)
		erase_lines(d, first, end - 1);
}

/**
 * xmemsim_mem_freed() - a block [addr, end) is being freed
 * @d: the device
 * @addr: first byte its owner could reach
 * @end: its end
 *
 * Every line it touches is clean: no error outlives its owner.
 */
void xmemsim_mem_freed(struct xmemsim_dev *d, u64 addr, u64 end)
{
	if (end > addr)
		erase_lines(d, addr >> LINE_SHIFT, (end - 1) >> LINE_SHIFT);
}

/**
 * xmemsim_mem_poison() - MEM_ERROR: an error on a line of the caller's
 * @xf: the caller, holding a pin on the allocation the whole line lies in
 *	(so that the block is not freed and scrubbed meanwhile)
 * @addr: a byte of the line
 * @kind: XMEMSIM_MEM_CE or XMEMSIM_MEM_UE
 *
 * A mapped page that holds a new uncorrectable line leaves every mapping,
 * so its next touch faults and gets SIGBUS.
 *
 * Return: 0 or -ENOMEM.
 */
int xmemsim_mem_poison(struct xmemsim_file *xf, u64 addr, u32 kind)
{
	bool ue = kind == XMEMSIM_MEM_UE;
	int ret;

	ret = poison_store(xf, round_down(addr, XMEMSIM_MEM_LINE),
			   ue ? POISON_UE : POISON_CE);
	if (!ret && ue)
		unmap_mapping_range(xf->mapping, round_down(addr, PAGE_SIZE),
				    PAGE_SIZE, 1);
	return ret;
}

/* debugfs "faults": per site, how many calls of the device failed on purpose */
void xmemsim_fault_show(struct xmemsim_dev *d, struct seq_file *m)
{
	int s;

	for (s = 0; s < XMEMSIM_FAULT_SITES; s++)
		seq_printf(m, "%s %lld\n", site_name[s],
			   (long long)atomic64_read(&d->fault.injected[s]));
}

/**
 * xmemsim_fault_init() - a device's sites, from the fail_<site>= parameters
 * @d: the device, not yet registered
 *
 * Every device starts from the same strings; from then on each site of
 * each device counts and is tuned (debugfs fail_<site>/) on its own.
 *
 * Return: 0, or -EINVAL for a string that does not parse.
 */
int xmemsim_fault_init(struct xmemsim_dev *d)
{
#ifdef CONFIG_FAULT_INJECTION
	static const struct fault_attr init = FAULT_ATTR_INITIALIZER;
	struct fault_attr *a;
	int s;

	for (s = 0; s < XMEMSIM_FAULT_SITES; s++) {
		a = &d->fault.attrs[s];
		*a = init;
		/* a lock of its own, not the copied one of a static object */
		ratelimit_state_init(&a->ratelimit_state, 0,
				     DEFAULT_RATELIMIT_BURST);
		if (fail_param[s] && !setup_fault_attr(a, fail_param[s])) {
			pr_err("fail_%s=%s: not \"<interval>,<probability>,<space>,<times>\"\n",
			       site_name[s], fail_param[s]);
			return -EINVAL;
		}
	}
#endif
	return 0;
}

/* The framework's knobs of every site of a device, as fail_<site>/ under dir */
void xmemsim_fault_debugfs(struct xmemsim_dev *d, struct dentry *dir)
{
#ifdef CONFIG_FAULT_INJECTION
	char name[32];
	int s;

	for (s = 0; s < XMEMSIM_FAULT_SITES; s++) {
		snprintf(name, sizeof(name), "fail_%s", site_name[s]);
		fault_create_debugfs_attr(name, dir, &d->fault.attrs[s]);
	}
#endif
}
