// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim command table: every device command, shared by ioctl() and
 * io_uring's uring_cmd, so each argument is copied once and checked once.
 *
 * A command's argument is copied in whole (its size comes from the command
 * number), validated, executed under dev->lock, and copied back whole after
 * the lock is dropped: on success, or when the heap refused the request and
 * the command's status field is the only thing that changed. The
 * commands' work is done elsewhere: kmod/owner.c (allocations), copy.c
 * (COPY, MEMSET), plan.c.
 *
 * Outputs only on success: before a command that reads and writes its
 * argument runs, the argument's own bytes are written back unchanged, so
 * a read-only or unmapped argument fails with -EFAULT before anything
 * happens (and before HEAP_DUMP or PLAN_GET write their arrays). If the final copy back still
 * faults (another thread unmapped it meanwhile), a command that made an
 * allocation or a sync the caller cannot learn about undoes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "access.h"
#include "xmemsim.h"

union xmemsim_arg {
	struct xmemsim_info info;
	struct xmemsim_alloc alloc;
	struct xmemsim_free free;
	struct xmemsim_heap_stats stats;
	struct xmemsim_heap_dump dump;
	struct xmemsim_stack_alloc stack;
	struct xmemsim_copy copy;
	struct xmemsim_memset memset;
	struct xmemsim_alloc_size alloc_size;
	struct xmemsim_plan_submit plan_submit;
	struct xmemsim_plan_sync plan_sync;
	struct xmemsim_plan_get plan_get;
	struct xmemsim_plan_stats plan_stats;
	struct xmemsim_user_stats user_stats;
	struct xmemsim_dma_submit dma_submit;
	struct xmemsim_dma_wait dma_wait;
	struct xmemsim_dma_reap dma_reap;
	struct xmemsim_dma_reset dma_reset;
	struct xmemsim_sem sem;
	struct xmemsim_dma_info dma_info;
	struct xmemsim_fault_arm fault_arm;
	struct xmemsim_mem_error mem_error;
	struct xmemsim_host_map host_map;
	struct xmemsim_dmabuf_import dmabuf_import;
	struct xmemsim_unmap unmap;
	struct {	/* the uapi's struct first: the dispatcher copies it */
		struct xmemsim_dmabuf_export u;
		struct file *file;	/* to install at u.fd, or put */
	} dmabuf_export;
};

struct xmemsim_cmd {
	unsigned int cmd;
	int (*fn)(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb);
	void (*undo)(struct xmemsim_file *xf, union xmemsim_arg *a);
	bool may_block;		/* sleeps for long: no inline io_uring issue */
	/* a wait that can end at once: tried inline, -EAGAIN if it would sleep */
	int (*try)(struct xmemsim_file *xf, union xmemsim_arg *a);
	/* after a successful command's answer reached the caller */
	void (*done)(struct xmemsim_file *xf, union xmemsim_arg *a);
};

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
	in->features = XMEMSIM_FEAT_URING | XMEMSIM_FEAT_PLAN |
		       XMEMSIM_FEAT_LIBC_HEAP | XMEMSIM_FEAT_MEMSET |
		       XMEMSIM_FEAT_FREE_CLEAR | XMEMSIM_FEAT_ALLOC_SIZE |
		       XMEMSIM_FEAT_USER_LIMITS | XMEMSIM_FEAT_DMA_QUEUES |
		       XMEMSIM_FEAT_FAULTS | XMEMSIM_FEAT_DMA_REAP |
		       XMEMSIM_FEAT_DMA_ERRORS | XMEMSIM_FEAT_DMA_CLOCK |
		       XMEMSIM_FEAT_DMA_REDUCE | XMEMSIM_FEAT_PEER |
		       XMEMSIM_FEAT_DMA_NOT_BEFORE |
		       (IS_ENABLED(CONFIG_DMA_SHARED_BUFFER) ?
			XMEMSIM_FEAT_DMABUF : 0);
	in->libc_pool_base = d->win[XMEMSIM_HEAP_LIBC].heap.base;
	in->libc_pool_size = d->win[XMEMSIM_HEAP_LIBC].heap.size;
	return 0;
}

/*
 * One allocation for HEAP_ALLOC or STACK_ALLOC: the xmem status goes back
 * to the caller on success and whenever the heap set one; the address only
 * on success (undone if it cannot be written back).
 */
static int alloc_reply(struct xmemsim_file *xf, u32 heap, u64 size, u64 align,
		       __s32 *status, __u64 *addr_out, int *wb)
{
	u64 addr;
	int ret, st = XMEM_OK;

	ret = xmemsim_alloc_for(xf, heap, size, align, false, &addr, &st);
	*status = st;
	if (ret) {
		*wb = st != XMEM_OK ? XMEMSIM_WRITEBACK : 0;
		return ret;
	}
	*addr_out = addr;
	*wb = XMEMSIM_FRESH;
	return 0;
}

static int cmd_heap_alloc(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_alloc *al = &a->alloc;

	if (al->heap >= XMEMSIM_NUM_HEAPS || al->flags & ~XMEMSIM_ALLOC_FLAGS ||
	    al->reserved0 || !mem_is_zero(al->reserved, sizeof(al->reserved)))
		return -EINVAL;
	/* free bytes are always zero (scrubbed at free): ZERO is implied */
	return alloc_reply(xf, al->heap, al->size, al->align, &al->status,
			   &al->addr, wb);
}

static void undo_heap_alloc(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	int st;

	xmemsim_free_for(xf, a->alloc.heap, a->alloc.addr, false, &st);
}

static int cmd_heap_free(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_free *fr = &a->free;
	int ret, st = XMEM_OK;

	if (fr->heap >= XMEMSIM_NUM_HEAPS || fr->flags & ~XMEMSIM_FREE_FLAGS ||
	    fr->reserved0 || !mem_is_zero(fr->reserved, sizeof(fr->reserved)))
		return -EINVAL;
	/* the hazard checker: a free with a transfer in flight */
	ret = xms_access_free(xf, fr->heap, fr->addr);
	if (ret)
		return ret;
	/* every free scrubs its block: FREE_CLEAR is implied */
	ret = xmemsim_free_for(xf, fr->heap, fr->addr, false, &st);
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

	if (heap >= XMEMSIM_NUM_HEAPS || hs->reserved0)
		return -EINVAL;
	mutex_lock(&d->lock);
	xmem_heap_get_stats(&d->win[heap].heap, &st);
	hs->owned_bytes = xf->owned_bytes[heap];
	hs->file_allocs = xf->nr_allocs;
	hs->quota_refused = xf->quota_refused;
	hs->user_owned_bytes = xf->user->owned_bytes[heap];
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

static int cmd_user_stats(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_user_stats *us = &a->user_stats;
	const struct xmemsim_limits *l = &xf->dev->lim;
	struct xmemsim_user *u = xf->user;
	u32 heap;

	memset(us, 0, sizeof(*us));
	us->uid = from_kuid_munged(current_user_ns(), u->uid);
	mutex_lock(&xf->dev->lock);
	us->files = u->files;
	for (heap = 0; heap < XMEMSIM_NUM_HEAPS; heap++)
		us->owned_bytes[heap] = u->owned_bytes[heap];
	us->allocs = u->nr_allocs;
	us->mem_ce = atomic64_read(&u->mem_ce);
	us->mem_ue = atomic64_read(&u->mem_ue);
	us->bounce_bytes = u->bounce_bytes;
	us->quota_refused = u->quota_refused;
	mutex_unlock(&xf->dev->lock);
	for (heap = 0; heap < XMEMSIM_NUM_HEAPS; heap++)
		us->limit_bytes[heap] = l->user_bytes[heap];
	us->limit_allocs = l->user_allocs;
	us->plan_mem = atomic64_read(&u->plan_mem);
	us->limit_plan_mem = l->plan_user_bytes;
	us->dma_inflight = xmemsim_dma_user_inflight(xf->dev, u, &us->limit_dma);
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
	    !mem_is_zero(hd->reserved, sizeof(hd->reserved)))
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

	if (sa->flags || !mem_is_zero(sa->reserved, sizeof(sa->reserved)) ||
	    size > XMEMSIM_STACK_MAX)
		return -EINVAL;
	return alloc_reply(xf, XMEMSIM_HEAP_HBM, size, XMEM_HEAP_DEFAULT_ALIGN,
			   &sa->status, &sa->addr, wb);
}

static void undo_plan_sync(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	xmemsim_plan_unsync(xf);
}

static void undo_stack_alloc(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	int st;

	xmemsim_free_for(xf, XMEMSIM_HEAP_HBM, a->stack.addr, false, &st);
}

static int cmd_copy(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_copy(xf, &a->copy);
}

static int cmd_memset(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_memset(xf, &a->memset);
}

static int cmd_alloc_size(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	struct xmemsim_alloc_size *as = &a->alloc_size;

	if (as->heap >= XMEMSIM_NUM_HEAPS || as->reserved0 ||
	    !mem_is_zero(as->reserved, sizeof(as->reserved)))
		return -EINVAL;
	return xmemsim_alloc_size(xf, as->heap, as->addr, &as->size,
				  &as->usable);
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

static int cmd_dma_submit(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_dma_submit(xf, &a->dma_submit);
}

static int cmd_dma_wait(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_dma_wait(xf, &a->dma_wait, false);
}

static int try_dma_wait(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	return xmemsim_dma_wait(xf, &a->dma_wait, true);
}

static int cmd_dma_reap(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_dma_reap(xf, &a->dma_reap, false);
}

static int try_dma_reap(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	return xmemsim_dma_reap(xf, &a->dma_reap, true);
}

static int cmd_dma_reset(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_dma_reset(xf, &a->dma_reset);
}

static int cmd_sem_set(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_sem_cmd(xf, XMEMSIM_IOC_SEM_SET, &a->sem, false);
}

static int cmd_sem_get(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_sem_cmd(xf, XMEMSIM_IOC_SEM_GET, &a->sem, false);
}

static int cmd_sem_wait(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_sem_cmd(xf, XMEMSIM_IOC_SEM_WAIT, &a->sem, false);
}

static int try_sem_wait(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	return xmemsim_sem_cmd(xf, XMEMSIM_IOC_SEM_WAIT, &a->sem, true);
}

static int cmd_dma_info(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_dma_info(xf, &a->dma_info);
}

static int cmd_fault_arm(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_fault_arm(xf, &a->fault_arm);
}

/*
 * MEM_ERROR: the whole 64-byte line holding e->addr must lie in one
 * allocation of the caller, so that the error can reach no one else's
 * bytes; the pin keeps it there while kmod/fault.c marks the line.
 * Return: 0, -EINVAL (kind, flags, reserved), -EACCES (not in an
 * allocation of the caller), -ENOMEM.
 */
static int cmd_mem_error(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	const struct xmemsim_mem_error *e = &a->mem_error;
	struct xms_access line = {
		.xf = xf, .flags = XMS_ACCESS_WRITE | XMS_ACCESS_HOLD,
		.dst = round_down(e->addr, XMEMSIM_MEM_LINE),
		.len = XMEMSIM_MEM_LINE,
	};
	int ret;

	if ((e->kind != XMEMSIM_MEM_CE && e->kind != XMEMSIM_MEM_UE) || e->flags ||
	    !mem_is_zero(e->reserved, sizeof(e->reserved)))
		return -EINVAL;
	ret = xms_access_begin(&line);
	if (ret)
		return ret;
	ret = xmemsim_mem_poison(xf, e->addr, e->kind);
	xms_access_end(&line, 0);
	return ret;
}

static int cmd_host_map(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	int ret = xmemsim_host_map(xf, &a->host_map);

	*wb = ret ? 0 : XMEMSIM_FRESH;
	return ret;
}

static void undo_host_map(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	xmemsim_unmap(xf, a->host_map.addr);
}

static int cmd_dmabuf_import(struct xmemsim_file *xf, union xmemsim_arg *a,
			     int *wb)
{
	int ret = xmemsim_dmabuf_import(xf, &a->dmabuf_import);

	*wb = ret ? 0 : XMEMSIM_FRESH;
	return ret;
}

static void undo_dmabuf_import(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	xmemsim_unmap(xf, a->dmabuf_import.addr);
}

static int cmd_unmap(struct xmemsim_file *xf, union xmemsim_arg *a, int *wb)
{
	return xmemsim_unmap(xf, a->unmap.addr);
}

/*
 * An export's fd is reserved by the command and installed only once the
 * caller has its number: a caller that cannot take the answer gets no fd.
 */
static int cmd_dmabuf_export(struct xmemsim_file *xf, union xmemsim_arg *a,
			     int *wb)
{
	int ret = xmemsim_dmabuf_export(xf, &a->dmabuf_export.u,
					&a->dmabuf_export.file);

	*wb = ret ? 0 : XMEMSIM_FRESH;
	return ret;
}

static void undo_dmabuf_export(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	put_unused_fd(a->dmabuf_export.u.fd);
	fput(a->dmabuf_export.file);
}

static void done_dmabuf_export(struct xmemsim_file *xf, union xmemsim_arg *a)
{
	fd_install(a->dmabuf_export.u.fd, a->dmabuf_export.file);
}

/* The ABI's sizes, and its status codes, which are the heap's own. */
static_assert(sizeof(struct xmemsim_info) == 184);
static_assert(sizeof(struct xmemsim_alloc) == 56);
static_assert(sizeof(struct xmemsim_free) == 40);
static_assert(sizeof(struct xmemsim_heap_stats) == 120);
static_assert(sizeof(struct xmemsim_block) == 32);
static_assert(sizeof(struct xmemsim_heap_dump) == 40);
static_assert(sizeof(struct xmemsim_stack_alloc) == 40);
static_assert(sizeof(struct xmemsim_copy) == 48);
static_assert(sizeof(struct xmemsim_interval) == 8);
static_assert(sizeof(struct xmemsim_plan_tensor) == 192);
static_assert(sizeof(struct xmemsim_plan_submit) == 200);
static_assert(sizeof(struct xmemsim_plan_sync) == 192);
static_assert(sizeof(struct xmemsim_plan_get) == 40);
static_assert(sizeof(struct xmemsim_plan_stats) == 64);
static_assert(sizeof(struct xmemsim_memset) == 40);
static_assert(sizeof(struct xmemsim_alloc_size) == 48);
static_assert(sizeof(struct xmemsim_user_stats) == 128);
static_assert(sizeof(struct xmemsim_dma_desc) == 80);
static_assert(sizeof(struct xmemsim_dma_submit) == 40);
static_assert(sizeof(struct xmemsim_dma_wait) == 64);
static_assert(sizeof(struct xmemsim_dma_completion) == 40);
static_assert(sizeof(struct xmemsim_dma_reap) == 48);
static_assert(sizeof(struct xmemsim_dma_reset) == 32);
static_assert(sizeof(struct xmemsim_sem) == 48);
static_assert(sizeof(struct xmemsim_dma_info) == 144);
static_assert(sizeof(struct xmemsim_fault_arm) == 40);
static_assert(sizeof(struct xmemsim_mem_error) == 32);
static_assert(sizeof(struct xmemsim_host_map) == 32);
static_assert(sizeof(struct xmemsim_dmabuf_export) == 24);
static_assert(sizeof(struct xmemsim_dmabuf_import) == 32);
static_assert(sizeof(struct xmemsim_unmap) == 8);
static_assert(XMEMSIM_XMEM_OK == XMEM_OK);
static_assert(XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS == XMEM_ERR_PTR_OUT_OF_BOUNDS);
static_assert(XMEMSIM_XMEM_INVALID_ARGS == XMEM_ERR_INVALID_ARGS);
static_assert(XMEMSIM_XMEM_ILLEGAL_ALIGN == XMEM_ERR_ILLEGAL_ALIGN);
static_assert(XMEMSIM_XMEM_ALLOC_FAILED == XMEM_ERR_ALLOC_FAILED);
static_assert(XMEMSIM_STACK_DEFAULT == 4196 && XMEMSIM_STACK_MAX == SZ_4M);

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
	{ XMEMSIM_IOC_MEMSET, cmd_memset, NULL, true },
	{ XMEMSIM_IOC_ALLOC_SIZE, cmd_alloc_size, NULL, false },
	{ XMEMSIM_IOC_USER_STATS, cmd_user_stats, NULL, false },
	/* the user's DMA lock is held for a step or a submit's check: inline */
	{ XMEMSIM_IOC_DMA_SUBMIT, cmd_dma_submit, NULL, false },
	{ XMEMSIM_IOC_DMA_WAIT, cmd_dma_wait, NULL, true, try_dma_wait },
	{ XMEMSIM_IOC_DMA_REAP, cmd_dma_reap, NULL, true, try_dma_reap },
	{ XMEMSIM_IOC_DMA_RESET, cmd_dma_reset, NULL, false },
	{ XMEMSIM_IOC_SEM_SET, cmd_sem_set, NULL, false },
	{ XMEMSIM_IOC_SEM_GET, cmd_sem_get, NULL, false },
	{ XMEMSIM_IOC_SEM_WAIT, cmd_sem_wait, NULL, true, try_sem_wait },
	{ XMEMSIM_IOC_DMA_INFO, cmd_dma_info, NULL, false },
	{ XMEMSIM_IOC_FAULT_ARM, cmd_fault_arm, NULL, false },
	{ XMEMSIM_IOC_MEM_ERROR, cmd_mem_error, NULL, false },
	{ XMEMSIM_IOC_HOST_MAP, cmd_host_map, undo_host_map, false },
	{ XMEMSIM_IOC_DMABUF_EXPORT, cmd_dmabuf_export, undo_dmabuf_export,
	  false, NULL, done_dmabuf_export },
	{ XMEMSIM_IOC_DMABUF_IMPORT, cmd_dmabuf_import, undo_dmabuf_import,
	  false },
	{ XMEMSIM_IOC_UNMAP, cmd_unmap, NULL, false },
};

/**
 * xmemsim_dispatch() - run one device command for an open file
 * @xf: the caller's open file
 * @cmd: the command number (an XMEMSIM_IOC_* value)
 * @uarg: the caller's argument struct
 * @nonblock: the caller cannot sleep for long (io_uring inline issue)
 *
 * Return: 0, a negative errno, or -EAGAIN when @nonblock and the command
 * may block (a wait: would sleep).
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

	for (i = 0; i < ARRAY_SIZE(xmemsim_cmds); i++) {
		if (xmemsim_cmds[i].cmd == cmd) {
			c = &xmemsim_cmds[i];
			break;
		}
	}
	if (!c)
		return -ENOTTY;
	if (nonblock && c->may_block && !c->try)
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
	ret = nonblock && c->may_block ? c->try(xf, &arg) : c->fn(xf, &arg, &wb);
	if (ret == -EAGAIN && nonblock && c->may_block)
		return ret;	/* io_uring issues it again, from a worker */
	if ((ret == 0 || (wb & XMEMSIM_WRITEBACK)) && (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &arg, size)) {
		if (ret == 0 && c->undo && (wb & XMEMSIM_FRESH))
			c->undo(xf, &arg);
		return -EFAULT;
	}
	if (ret == 0 && c->done)
		c->done(xf, &arg);
	return ret;
}
