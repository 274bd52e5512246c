// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim command table: every device command, shared by ioctl() and
 * io_uring's uring_cmd, so each argument is copied once and checked once.
 *
 * A command's argument is copied in whole (its size comes from the command
 * number), validated, executed under dev->lock, and copied back whole after
 * the lock is dropped: on success, or when the heap refused the request and
 * the command's status field is the only thing that changed.
 *
 * Outputs only on success: before a command that reads and writes its
 * argument runs, the argument's own bytes are written back unchanged, so
 * a read-only or unmapped argument fails with -EFAULT before anything
 * happens (and before HEAP_DUMP or PLAN_GET write their arrays). If the final copy back still
 * faults (another thread unmapped it meanwhile), a command that made an
 * allocation or a sync the caller cannot learn about undoes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "xmemsim.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

union xmemsim_arg {
	struct xmemsim_info info;
	struct xmemsim_alloc alloc;
	struct xmemsim_free free;
	struct xmemsim_heap_stats stats;
	struct xmemsim_heap_dump dump;
	struct xmemsim_stack_alloc stack;
	struct xmemsim_copy copy;
	struct xmemsim_plan_submit plan_submit;
	struct xmemsim_plan_sync plan_sync;
	struct xmemsim_plan_get plan_get;
	struct xmemsim_plan_stats plan_stats;
};

struct xmemsim_cmd {
	unsigned int cmd;
	int (*fn)(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb);
	void (*undo)(struct xmemsim_file *xf, union xmemsim_arg *a);
	bool may_block;		/* sleeps for long: no inline io_uring issue */
};

static bool all_zero(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

static int xmem_to_errno(int status)
{
	switch (status) {
	case XMEM_OK:
		return 0;
	case XMEM_ERR_PTR_OUT_OF_BOUNDS:
		return -ENOENT;
	case XMEM_ERR_ALLOC_FAILED:
		return -ENOMEM;
	default:
		return -EINVAL;
	}
}

static int cmd_get_info(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_dev *d = xf->dev;
	const struct xmemsim_geometry *g = &d->geo;
	struct xmemsim_info *in = &a->info;

	memset(in, 0, sizeof(*in));
	in->abi_version = XMEMSIM_ABI_VERSION;
	in->num_heaps = XMEMSIM_NUM_HEAPS;
	in->cores = g->cores;
	in->num_blocks = g->num_blocks;
	in->hbm_base = g->hbm_base;
	in->hbm_size = g->hbm_size;
	in->hbm_pool_base = d->win[XMEMSIM_HEAP_HBM].heap.base;
	in->hbm_pool_size = d->win[XMEMSIM_HEAP_HBM].heap.size;
	in->dataram_base = g->dataram_base;
	in->dataram_size = g->dataram_size;
	in->dataram_pool_base = d->win[XMEMSIM_HEAP_DATARAM].heap.base;
	in->dataram_pool_size = d->win[XMEMSIM_HEAP_DATARAM].heap.size;
	in->staging_lo = g->staging_lo;
	in->staging_hi = g->staging_hi;
	in->stack_default = XMEMSIM_STACK_DEFAULT;
	in->stack_max = XMEMSIM_STACK_MAX;
	in->bounce_size = XMEMSIM_BOUNCE_SIZE;
	in->default_align = XMEM_HEAP_DEFAULT_ALIGN;
	in->plan_core_size = d->plan_core_size;
	in->plan_max_tensors = XMEMSIM_PLAN_MAX_TENSORS;
	in->plan_max_intervals = XMEMSIM_PLAN_MAX_INTERVALS;
	return 0;
}

static void rec_insert(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	struct rb_node **link = &d->allocs[rec->heap].rb_node, *parent = NULL;

	while (*link) {
		struct xmemsim_alloc_rec *r;

		parent = *link;
		r = rb_entry(parent, struct xmemsim_alloc_rec, node);
		link = rec->addr < r->addr ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&rec->node, parent, link);
	rb_insert_color(&rec->node, &d->allocs[rec->heap]);
}

/**
 * xmemsim_scrub() - clear a detached block's bytes
 * @d: the device
 * @heap: XMEMSIM_HEAP_*
 * @addr: first byte (the address that was handed out)
 * @end: end of the heap block
 *
 * Runs without dev->lock, in 1 MiB steps with a resched point between
 * them, so a 64 MiB free stalls nobody. The block's alignment slack below
 * @addr was never reachable by its owner and is still zero.
 */
void xmemsim_scrub(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end)
{
	u8 *p = xmemsim_kaddr(d, heap, addr);
	u64 left = end - addr;

	while (left) {
		size_t n = min_t(u64, left, SZ_1M);

		memset(p, 0, n);
		p += n;
		left -= n;
		cond_resched();
	}
}

/* dev->lock held: would taking bytes more break xf's limits? */
static bool over_quota(struct xmemsim_file *xf, u32 heap, u64 bytes)
{
	const struct xmemsim_limits *l = &xf->dev->lim;
	u64 sum;

	lockdep_assert_held(&xf->dev->lock);
	if (l->file_allocs && xf->nr_allocs >= l->file_allocs)
		return true;
	return l->file_bytes[heap] &&
	       (check_add_overflow(xf->owned_bytes[heap], bytes, &sum) ||
		sum > l->file_bytes[heap]);
}

/**
 * xmemsim_alloc_for() - allocate from a heap on behalf of an open file
 * @xf: the owner
 * @heap: XMEMSIM_HEAP_*
 * @size: bytes
 * @align: alignment, 0 = 64
 * @plan: the allocation backs @xf's plans (user HEAP_FREE refuses it)
 * @addr: the address, on success
 * @status: the xmem status
 *
 * The record is made first, so nothing can fail once the heap said yes.
 * The bytes are zero: every free scrubs its block before the heap gets it
 * back (see "Locking rules" in xmemsim.h), so ZERO needs no work here.
 *
 * Return: 0 or -errno (the heap's status mapped, -EDQUOT when the file's
 * limits refuse it, or -ENOMEM).
 */
int xmemsim_alloc_for(struct xmemsim_file *xf, u32 heap, u64 size, u64 align,
		      bool plan, u64 *addr, int *status)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmem_heap *h = &d->win[heap].heap;
	struct xmemsim_alloc_rec *rec;
	u64 end;
	int st;

	*status = XMEM_OK;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL_ACCOUNT);
	if (!rec)
		return -ENOMEM;

	mutex_lock(&d->lock);
	if (over_quota(xf, heap, size))
		goto quota;
	st = xmem_heap_alloc(h, size, align, addr, &end);
	trace_xmemsim_alloc(heap, size, align, st == XMEM_OK ? *addr : 0, st);
	if (st != XMEM_OK) {
		mutex_unlock(&d->lock);
		kfree(rec);
		*status = st;
		return xmem_to_errno(st);
	}
	/* an unsplit block may be larger than asked: count what is taken */
	if (over_quota(xf, heap, end - *addr)) {
		WARN_ON_ONCE(xmem_heap_free(h, *addr) != XMEM_OK);
		goto quota;
	}
	rec->owner = xf;
	rec->addr = *addr;
	rec->size = size;
	rec->block_end = end;
	rec->heap = heap;
	rec->plan = plan;
	rec_insert(d, rec);
	list_add_tail(&rec->file_node, &xf->allocs);
	xf->owned_bytes[heap] += end - *addr;
	xf->nr_allocs++;
	mutex_unlock(&d->lock);
	return 0;

quota:
	xf->quota_refused++;
	mutex_unlock(&d->lock);
	kfree(rec);
	return -EDQUOT;
}

/*
 * Take an idle record of its owner out of the file and the address index;
 * its heap block stays allocated until rec_finish() has scrubbed it.
 */
static void rec_detach_locked(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	lockdep_assert_held(&d->lock);
	rb_erase(&rec->node, &d->allocs[rec->heap]);
	list_del(&rec->file_node);
	rec->owner->owned_bytes[rec->heap] -= rec->block_end - rec->addr;
	rec->owner->nr_allocs--;
	rec->owner = NULL;
	d->scrub_bytes[rec->heap] += rec->block_end - rec->addr;
}

/* Scrub a detached record's block without dev->lock, then free it. */
static void rec_finish(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	int st;

	xmemsim_scrub(d, rec->heap, rec->addr, rec->block_end);
	mutex_lock(&d->lock);
	st = xmem_heap_free(&d->win[rec->heap].heap, rec->addr);
	WARN_ON_ONCE(st != XMEM_OK);
	d->scrub_bytes[rec->heap] -= rec->block_end - rec->addr;
	mutex_unlock(&d->lock);
	trace_xmemsim_free(rec->heap, rec->addr, 0);
	kfree(rec);
}

static int do_free(struct xmemsim_file *xf, u32 heap, u64 addr, bool plan,
		   int *status)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int ret = 0;

	mutex_lock(&d->lock);
	rec = xmemsim_rec_find(d, heap, addr);
	if (!rec || rec->addr != addr) {
		*status = XMEM_ERR_PTR_OUT_OF_BOUNDS;
		ret = -ENOENT;
	} else if (rec->owner != xf) {
		ret = -EACCES;
	} else if (atomic_read_acquire(&rec->pins) || rec->maps ||
		   rec->plan != plan) {
		ret = -EBUSY;
	} else {
		rec_detach_locked(d, rec);
		*status = XMEM_OK;
	}
	mutex_unlock(&d->lock);
	if (ret) {
		trace_xmemsim_free(heap, addr, ret);
		return ret;
	}
	rec_finish(d, rec);
	return 0;
}

static int cmd_heap_alloc(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_alloc *al = &a->alloc;
	u64 addr;
	int ret, st = XMEM_OK;

	if (al->heap >= XMEMSIM_NUM_HEAPS || al->flags & ~XMEMSIM_ALLOC_FLAGS ||
	    al->reserved0 || !all_zero(al->reserved, sizeof(al->reserved)))
		return -EINVAL;
	/* free bytes are always zero (scrubbed at free): ZERO is implied */
	ret = xmemsim_alloc_for(xf, al->heap, al->size, al->align, false,
				&addr, &st);
	al->status = st;
	if (ret) {
		*wb = st != XMEM_OK ? XMEMSIM_WRITEBACK : 0;
		return ret;
	}
	al->addr = addr;
	*wb = XMEMSIM_FRESH;
	return 0;
}

static void undo_heap_alloc(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	int st;

	do_free(xf, a->alloc.heap, a->alloc.addr, false, &st);
}

static int cmd_heap_free(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_free *fr = &a->free;
	int ret, st = XMEM_OK;

	if (fr->heap >= XMEMSIM_NUM_HEAPS || fr->flags || fr->reserved0 ||
	    !all_zero(fr->reserved, sizeof(fr->reserved)))
		return -EINVAL;
	ret = do_free(xf, fr->heap, fr->addr, false, &st);
	fr->status = st;
	*wb = ret && st != XMEM_OK ? XMEMSIM_WRITEBACK : 0;
	return ret;
}

static int cmd_heap_stats(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_heap_stats *hs = &a->stats;
	struct xmemsim_dev *d = xf->dev;
	struct xmem_heap_stats st;
	u32 heap = hs->heap;

	if (heap >= XMEMSIM_NUM_HEAPS || hs->reserved0 ||
	    !all_zero(hs->reserved, sizeof(hs->reserved)))
		return -EINVAL;
	mutex_lock(&d->lock);
	xmem_heap_get_stats(&d->win[heap].heap, &st);
	hs->owned_bytes = xf->owned_bytes[heap];
	hs->file_allocs = xf->nr_allocs;
	hs->quota_refused = xf->quota_refused;
	mutex_unlock(&d->lock);
	hs->limit_bytes = d->lim.file_bytes[heap];
	hs->limit_allocs = d->lim.file_allocs;
	hs->pool_base = d->win[heap].heap.base;
	hs->pool_size = st.pool_size;
	hs->free_bytes = st.free_bytes;
	hs->allocated_bytes = st.allocated_bytes;
	hs->unused_bytes = st.unused_bytes;
	hs->largest_free = st.largest_free;
	hs->split_refused = st.split_refused;
	hs->num_blocks = st.num_blocks;
	hs->blocks_in_use = st.blocks_in_use;
	hs->free_blocks = st.free_blocks;
	hs->alloc_blocks = st.alloc_blocks;
	return 0;
}

static int cmd_heap_dump(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_heap_dump *hd = &a->dump;
	struct xmemsim_dev *d = xf->dev;
	struct xmem_heap_block_info *bi = NULL;
	struct xmemsim_block *ub = NULL;
	u32 cap, total, n, i;
	int ret = 0;

	if (hd->heap >= XMEMSIM_NUM_HEAPS || hd->reserved0 ||
	    !all_zero(hd->reserved, sizeof(hd->reserved)))
		return -EINVAL;
	/* A heap never has more blocks than descriptors. */
	cap = min(hd->capacity, d->geo.num_blocks);
	if (cap) {
		bi = kvmalloc_array(cap, sizeof(*bi), GFP_KERNEL_ACCOUNT);
		ub = kvcalloc(cap, sizeof(*ub), GFP_KERNEL_ACCOUNT);
		if (!bi || !ub) {
			ret = -ENOMEM;
			goto out;
		}
	}
	mutex_lock(&d->lock);
	total = xmem_heap_dump(&d->win[hd->heap].heap, bi, cap);
	n = min(total, cap);
	for (i = 0; i < n; i++) {
		struct xmemsim_alloc_rec *rec;

		ub[i].start = bi[i].start;
		ub[i].aligned = bi[i].aligned;
		ub[i].size = bi[i].size;
		if (!bi[i].allocated)
			continue;
		ub[i].flags = XMEMSIM_BLOCK_ALLOCATED;
		rec = xmemsim_rec_find(d, hd->heap, bi[i].aligned);
		if (rec && rec->addr == bi[i].aligned && rec->owner == xf)
			ub[i].flags |= XMEMSIM_BLOCK_OWNED;
	}
	mutex_unlock(&d->lock);
	if (n && copy_to_user(u64_to_user_ptr(hd->blocks), ub,
			      array_size(n, sizeof(*ub)))) {
		ret = -EFAULT;
		goto out;
	}
	hd->count = total;
out:
	kvfree(bi);
	kvfree(ub);
	return ret;
}

static int cmd_stack_alloc(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_stack_alloc *sa = &a->stack;
	u64 size = sa->size ? sa->size : XMEMSIM_STACK_DEFAULT;
	u64 addr;
	int ret, st = XMEM_OK;

	if (sa->flags || !all_zero(sa->reserved, sizeof(sa->reserved)) ||
	    size > XMEMSIM_STACK_MAX)
		return -EINVAL;
	ret = xmemsim_alloc_for(xf, XMEMSIM_HEAP_HBM, size,
				XMEM_HEAP_DEFAULT_ALIGN, false, &addr, &st);
	sa->status = st;
	if (ret) {
		*wb = st != XMEM_OK ? XMEMSIM_WRITEBACK : 0;
		return ret;
	}
	sa->addr = addr;
	*wb = XMEMSIM_FRESH;
	return 0;
}

static void undo_plan_sync(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	xmemsim_plan_unsync(xf);
}

static void undo_stack_alloc(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	int st;

	do_free(xf, XMEMSIM_HEAP_HBM, a->stack.addr, false, &st);
}

/* The "vector" engine: 64-byte lines, like a SIMD copy loop would move. */
static void vec_memcpy(void *dst, const void *src, size_t len)
{
	size_t line = 64;

	while (len >= line) {
		memcpy(dst, src, line);
		dst += line;
		src += line;
		len -= line;
	}
	memcpy(dst, src, len);
}

static int cmd_copy(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_copy *c = &a->copy;
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *srec, *drec;
	u64 send, dend, baddr = 0, bend, off;
	void *src, *dst, *bounce = NULL;
	int ret, st;

	if (c->method > XMEMSIM_COPY_DMA || c->flags ||
	    !all_zero(c->reserved, sizeof(c->reserved)))
		return -EINVAL;
	if (!c->len)
		return 0;
	if (check_add_overflow(c->src, c->len, &send) ||
	    check_add_overflow(c->dst, c->len, &dend))
		return -EINVAL;

	ret = xmemsim_pin_range(xf, c->src, c->len, false, &srec);
	if (ret)
		return ret;
	ret = xmemsim_pin_range(xf, c->dst, c->len, false, &drec);
	if (ret)
		goto unpin_src;
	if (c->src < dend && c->dst < send) {
		ret = -EINVAL;		/* overlapping ranges */
		goto unpin_dst;
	}

	src = xmemsim_kaddr(d, srec->heap, c->src);
	dst = xmemsim_kaddr(d, drec->heap, c->dst);
	switch (c->method) {
	case XMEMSIM_COPY_C_MEMCPY:
		memcpy(dst, src, c->len);
		break;
	case XMEMSIM_COPY_VEC_MEMCPY:
		vec_memcpy(dst, src, c->len);
		break;
	case XMEMSIM_COPY_DMA:
		/*
		 * Stage through a bounce buffer from the dataram heap, which
		 * the DMA engine can only reach inside the staging range.
		 */
		mutex_lock(&d->lock);
		st = xmem_heap_alloc(&d->win[XMEMSIM_HEAP_DATARAM].heap,
				     XMEMSIM_BOUNCE_SIZE, XMEM_HEAP_DEFAULT_ALIGN,
				     &baddr, &bend);
		if (st == XMEM_OK && (baddr < d->geo.staging_lo ||
				      baddr + XMEMSIM_BOUNCE_SIZE > d->geo.staging_hi)) {
			xmem_heap_free(&d->win[XMEMSIM_HEAP_DATARAM].heap, baddr);
			st = XMEM_ERR_ALLOC_FAILED;
		}
		if (st != XMEM_OK)
			d->bounce_failures++;
		else
			d->bounce_bytes += bend - baddr;
		mutex_unlock(&d->lock);
		if (st != XMEM_OK) {
			ret = -EBUSY;
			goto unpin_dst;
		}
		bounce = xmemsim_kaddr(d, XMEMSIM_HEAP_DATARAM, baddr);
		for (off = 0; off < c->len; off += XMEMSIM_BOUNCE_SIZE) {
			size_t n = min_t(u64, c->len - off, XMEMSIM_BOUNCE_SIZE);

			memcpy(bounce, src + off, n);
			memcpy(dst + off, bounce, n);
			cond_resched();
		}
		/* the staged bytes are the caller's: scrub before the heap */
		xmemsim_scrub(d, XMEMSIM_HEAP_DATARAM, baddr, bend);
		mutex_lock(&d->lock);
		xmem_heap_free(&d->win[XMEMSIM_HEAP_DATARAM].heap, baddr);
		d->bounce_bytes -= bend - baddr;
		mutex_unlock(&d->lock);
		break;
	}
	ret = 0;
unpin_dst:
	xmemsim_unpin(d, drec);
unpin_src:
	xmemsim_unpin(d, srec);
	trace_xmemsim_copy(c->src, c->dst, c->len, c->method, ret);
	return ret;
}

/* Free a plan backing (plan = true) or an ordinary allocation of xf. */
int xmemsim_free_for(struct xmemsim_file *xf, u32 heap, u64 addr, bool plan)
{
	int st;

	return do_free(xf, heap, addr, plan, &st);
}

static int cmd_plan_submit(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_cmd_plan_submit(xf, &a->plan_submit, wb);
}

static int cmd_plan_sync(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_cmd_plan_sync(xf, &a->plan_sync, wb);
}

static int cmd_plan_get(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_cmd_plan_get(xf, &a->plan_get);
}

static int cmd_plan_stats(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_cmd_plan_stats(xf, &a->plan_stats);
}

static int cmd_plan_release(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_cmd_plan_release(xf);
}

static const struct xmemsim_cmd xmemsim_cmds[] = {
	{ XMEMSIM_IOC_GET_INFO, cmd_get_info, NULL, false },
	{ XMEMSIM_IOC_HEAP_ALLOC, cmd_heap_alloc, undo_heap_alloc, false },
	{ XMEMSIM_IOC_HEAP_FREE, cmd_heap_free, NULL, false },
	{ XMEMSIM_IOC_HEAP_STATS, cmd_heap_stats, NULL, false },
	{ XMEMSIM_IOC_HEAP_DUMP, cmd_heap_dump, NULL, true },
	{ XMEMSIM_IOC_STACK_ALLOC, cmd_stack_alloc, undo_stack_alloc, false },
	{ XMEMSIM_IOC_COPY, cmd_copy, NULL, true },
	{ XMEMSIM_IOC_PLAN_SUBMIT, cmd_plan_submit, NULL, true },
	{ XMEMSIM_IOC_PLAN_SYNC, cmd_plan_sync, undo_plan_sync, true },
	{ XMEMSIM_IOC_PLAN_GET, cmd_plan_get, NULL, true },
	{ XMEMSIM_IOC_PLAN_STATS, cmd_plan_stats, NULL, false },
	{ XMEMSIM_IOC_PLAN_RELEASE, cmd_plan_release, NULL, false },
};

/**
 * xmemsim_dispatch() - run one device command for an open file
 * @xf: the caller's open file
 * @cmd: the command number (an XMEMSIM_IOC_* value)
 * @uarg: the caller's argument struct
 * @nonblock: the caller cannot sleep for long (io_uring inline issue)
 *
 * Return: 0, a negative errno, or -EAGAIN when @nonblock and the command
 * may block.
 */
long xmemsim_dispatch(struct xmemsim_file *xf, unsigned int cmd,
		      void __user *uarg, bool nonblock)
{
	const struct xmemsim_cmd *c = NULL;
	union xmemsim_arg arg;
	size_t size = _IOC_SIZE(cmd);
	unsigned int i;
	int wb = 0;
	long ret;

	BUILD_BUG_ON(sizeof(struct xmemsim_info) != 184);
	BUILD_BUG_ON(sizeof(struct xmemsim_alloc) != 56);
	BUILD_BUG_ON(sizeof(struct xmemsim_free) != 40);
	BUILD_BUG_ON(sizeof(struct xmemsim_heap_stats) != 120);
	BUILD_BUG_ON(sizeof(struct xmemsim_block) != 32);
	BUILD_BUG_ON(sizeof(struct xmemsim_heap_dump) != 40);
	BUILD_BUG_ON(sizeof(struct xmemsim_stack_alloc) != 40);
	BUILD_BUG_ON(sizeof(struct xmemsim_copy) != 48);
	BUILD_BUG_ON(sizeof(struct xmemsim_uring_cmd) != 16);
	BUILD_BUG_ON(sizeof(struct xmemsim_interval) != 8);
	BUILD_BUG_ON(sizeof(struct xmemsim_plan_tensor) != 192);
	BUILD_BUG_ON(sizeof(struct xmemsim_plan_submit) != 200);
	BUILD_BUG_ON(sizeof(struct xmemsim_plan_sync) != 192);
	BUILD_BUG_ON(sizeof(struct xmemsim_plan_get) != 40);
	BUILD_BUG_ON(sizeof(struct xmemsim_plan_stats) != 64);

	for (i = 0; i < ARRAY_SIZE(xmemsim_cmds); i++) {
		if (xmemsim_cmds[i].cmd == cmd) {
			c = &xmemsim_cmds[i];
			break;
		}
	}
	if (!c)
		return -ENOTTY;
	if (nonblock && c->may_block)
		return -EAGAIN;
	if (WARN_ON_ONCE(size > sizeof(arg)))
		return -ENOTTY;

	memset(&arg, 0, sizeof(arg));
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&arg, uarg, size))
		return -EFAULT;
	/* the probe: the caller's own bytes, unchanged */
	if (_IOC_DIR(cmd) == (_IOC_READ | _IOC_WRITE) &&
	    copy_to_user(uarg, &arg, size))
		return -EFAULT;
	ret = c->fn(xf, &arg, &wb);
	if ((ret == 0 || (wb & XMEMSIM_WRITEBACK)) && (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &arg, size)) {
		if (ret == 0 && c->undo && (wb & XMEMSIM_FRESH))
			c->undo(xf, &arg);
		return -EFAULT;
	}
	return ret;
}

/* Free everything a closing file still owns, scrubbing outside the lock. */
void xmemsim_file_release_allocs(struct xmemsim_file *xf)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&d->lock);
	list_for_each_entry_safe(rec, tmp, &xf->allocs, file_node) {
		WARN_ON_ONCE(atomic_read(&rec->pins) || rec->maps);
		rec_detach_locked(d, rec);
		list_add_tail(&rec->file_node, &dead);
	}
	list_del(&xf->node);
	mutex_unlock(&d->lock);
	list_for_each_entry_safe(rec, tmp, &dead, file_node)
		rec_finish(d, rec);
}

/* Does [addr, end) of a heap's window hold only zero bytes? */
static bool window_zero(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end)
{
	return !memchr_inv(xmemsim_kaddr(d, heap, addr), 0, end - addr);
}

/**
 * xmemsim_dev_verify() - check the device's invariants
 * @d: the device
 * @why: what is wrong, on failure
 * @len: bytes at @why
 *
 * Both heaps pass xmem_heap_verify(); each heap's allocated bytes (slack
 * excluded) equal what the open files own plus blocks being scrubbed and
 * DMA bounce buffers; each file's record count matches; every record
 * matches its heap block; and every free block holds only zero bytes.
 * For the fuzzer (debugfs "verify"): it walks every block under dev->lock.
 *
 * Return: 0, -EIO (with @why set) or -ENOMEM.
 */
int xmemsim_dev_verify(struct xmemsim_dev *d, char *why, size_t len)
{
	struct xmem_heap_block_info *bi;
	u64 owned[XMEMSIM_NUM_HEAPS] = {};
	struct xmemsim_file *xf;
	u32 heap;
	int ret = 0;

	bi = kvmalloc_array(d->geo.num_blocks, sizeof(*bi), GFP_KERNEL_ACCOUNT);
	if (!bi)
		return -ENOMEM;
	mutex_lock(&d->lock);
	list_for_each_entry(xf, &d->files, node) {
		struct xmemsim_alloc_rec *rec;
		u32 nrec = 0;

		for (heap = 0; heap < XMEMSIM_NUM_HEAPS; heap++)
			owned[heap] += xf->owned_bytes[heap];
		list_for_each_entry(rec, &xf->allocs, file_node)
			nrec++;
		if (nrec != xf->nr_allocs) {
			snprintf(why, len, "pid %d: %u records, nr_allocs %u",
				 xf->pid, nrec, xf->nr_allocs);
			ret = -EIO;
			goto out;
		}
	}
	for (heap = 0; heap < XMEMSIM_NUM_HEAPS && !ret; heap++) {
		struct xmem_heap *h = &d->win[heap].heap;
		const char *name = d->win[heap].name;
		u64 taken = 0, expect;
		u32 n, i;

		if (xmem_heap_verify(h)) {
			snprintf(why, len, "%s: xmem_heap_verify failed", name);
			ret = -EIO;
			break;
		}
		n = min(xmem_heap_dump(h, bi, d->geo.num_blocks), d->geo.num_blocks);
		for (i = 0; i < n && !ret; i++) {
			struct xmemsim_alloc_rec *rec;
			u64 end = bi[i].start + bi[i].size;

			if (!bi[i].allocated) {
				if (!window_zero(d, heap, bi[i].start, end)) {
					snprintf(why, len, "%s: free block %#llx holds data",
						 name, bi[i].start);
					ret = -EIO;
				}
				continue;
			}
			taken += end - bi[i].aligned;
			rec = xmemsim_rec_find(d, heap, bi[i].aligned);
			if (rec && rec->addr == bi[i].aligned &&
			    (rec->block_end != end || rec->size > end - rec->addr)) {
				snprintf(why, len, "%s: record %#llx does not match its block",
					 name, rec->addr);
				ret = -EIO;
			}
		}
		expect = owned[heap] + d->scrub_bytes[heap];
		if (heap == XMEMSIM_HEAP_DATARAM)
			expect += d->bounce_bytes;
		if (!ret && taken != expect) {
			snprintf(why, len, "%s: %llu bytes allocated, files own %llu",
				 name, taken, owned[heap]);
			ret = -EIO;
		}
	}
out:
	mutex_unlock(&d->lock);
	kvfree(bi);
	return ret;
}
