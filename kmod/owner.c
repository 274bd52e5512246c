// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim ownership: every allocation is a record owned by one open file,
 * indexed by address per heap. Records are made and freed here (with the
 * scrub of every freed block), found, pinned for data-plane copies and
 * counted for mappings; xmemsim_dev_verify() checks them against the
 * heaps. The lock rules are in xmemsim.h, "Locking rules"; each helper
 * that needs dev->lock asserts it.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "xmemsim.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

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

/*
 * Which heap's pool holds addr, or -1. Pools never overlap (checked at
 * load) and every allocation lies in one, so the pool names the heap even
 * where two heaps share a window.
 */
static int xmemsim_heap_of(struct xmemsim_dev *d, u64 addr)
{
	int i;

	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++) {
		const struct xmem_heap *h = &d->win[i].heap;

		if (addr >= h->base && addr - h->base < h->size)
			return i;
	}
	return -1;
}

/* The record with the greatest address <= addr, or NULL. Needs dev->lock. */
struct xmemsim_alloc_rec *xmemsim_rec_find(struct xmemsim_dev *d, u32 heap,
					   u64 addr)
{
	struct rb_node *n = d->allocs[heap].rb_node;
	struct xmemsim_alloc_rec *best = NULL;

	lockdep_assert_held(&d->lock);
	/* the greatest key <= addr: rb_find() only matches exactly */
	while (n) {
		struct xmemsim_alloc_rec *r = rb_entry(n, struct xmemsim_alloc_rec, node);

		if (r->addr <= addr) {
			best = r;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

static bool rec_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct xmemsim_alloc_rec, node)->addr <
	       rb_entry(b, struct xmemsim_alloc_rec, node)->addr;
}

static void rec_insert(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	lockdep_assert_held(&d->lock);
	rb_add(&rec->node, &d->allocs[rec->heap], rec_less);
}

/**
 * xmemsim_fill() - set a range of a heap's window to one byte value
 * @d: the device
 * @heap: XMEMSIM_HEAP_*
 * @addr: first byte
 * @end: end of the range
 * @v: the value
 *
 * Runs without dev->lock (the caller keeps the range from being freed), in
 * 1 MiB steps with a resched point between them, so a 64 MiB fill stalls
 * nobody.
 */
void xmemsim_fill(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end, u8 v)
{
	u8 *p = xmemsim_kaddr(d, heap, addr);
	u64 left = end - addr;

	while (left) {
		size_t n = min_t(u64, left, SZ_1M);

		memset(p, v, n);
		p += n;
		left -= n;
		cond_resched();
	}
}

/*
 * xmemsim_scrub() - clear a detached block from the address that was handed
 * out to the end of its heap block. The block's alignment slack below it
 * was never reachable by its owner and is still zero.
 */
void xmemsim_scrub(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end)
{
	xmemsim_mem_freed(d, addr, end);
	xmemsim_fill(d, heap, addr, end, 0);
}

/* a + b > max, where max 0 means no limit */
static bool over(u64 max, u64 a, u64 b)
{
	u64 sum;

	return max && (check_add_overflow(a, b, &sum) || sum > max);
}

/*
 * dev->lock held: would one more allocation taking bytes of heap break a
 * limit of xf or of its user?
 */
static bool over_quota(struct xmemsim_file *xf, u32 heap, u64 bytes)
{
	const struct xmemsim_limits *l = &xf->dev->lim;
	const struct xmemsim_user *u = xf->user;

	lockdep_assert_held(&xf->dev->lock);
	return over(l->file_allocs, xf->nr_allocs, 1) ||
	       over(l->user_allocs, u->nr_allocs, 1) ||
	       over(l->file_bytes[heap], xf->owned_bytes[heap], bytes) ||
	       over(l->user_bytes[heap], u->owned_bytes[heap], bytes);
}

/**
 * xmemsim_user_attach() - put a new open file on its user's account
 * @xf: the file, not yet on dev->files
 * @uid: the opener's real uid
 *
 * Return: 0 or -ENOMEM.
 */
int xmemsim_user_attach(struct xmemsim_file *xf, kuid_t uid)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_user *u, *fresh;

	/* allocated before the lock, freed below if the user exists */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&d->lock);
	list_for_each_entry(u, &d->users, node) {
		if (uid_eq(u->uid, uid))
			goto found;
	}
	u = fresh;
	fresh = NULL;
	u->uid = uid;
	atomic64_set(&u->plan_mem, 0);
	atomic64_set(&u->mem_ce, 0);
	atomic64_set(&u->mem_ue, 0);
	list_add_tail(&u->node, &d->users);
found:
	u->files++;
	xf->user = u;
	list_add_tail(&xf->node, &d->files);
	mutex_unlock(&d->lock);
	kfree(fresh);
	return 0;
}

/* Take a closing file (whose allocations are gone) off its user's account. */
void xmemsim_user_detach(struct xmemsim_file *xf)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_user *u = xf->user;

	mutex_lock(&d->lock);
	list_del(&xf->node);
	if (--u->files) {
		u = NULL;
	} else {
		WARN_ON_ONCE(u->nr_allocs || atomic64_read(&u->plan_mem) ||
			     u->bounce_bytes);
		list_del(&u->node);
	}
	mutex_unlock(&d->lock);
	kfree(u);
	xf->user = NULL;
}

/* dev->lock held: xf (and its user) now own rec's block, or no longer. */
static void charge(struct xmemsim_file *xf, const struct xmemsim_alloc_rec *rec,
		   bool take)
{
	u64 bytes = rec->cost;

	lockdep_assert_held(&xf->dev->lock);
	if (take) {
		xf->owned_bytes[rec->heap] += bytes;
		xf->user->owned_bytes[rec->heap] += bytes;
		xf->nr_allocs++;
		xf->user->nr_allocs++;
	} else {
		xf->owned_bytes[rec->heap] -= bytes;
		xf->user->owned_bytes[rec->heap] -= bytes;
		xf->nr_allocs--;
		xf->user->nr_allocs--;
	}
}

/**
 * xmemsim_heap_take() - allocate from a heap, and say what the block costs
 * @d: the device, dev->lock held
 * @heap: XMEMSIM_HEAP_*
 * @size: bytes
 * @align: alignment, 0 = 64
 * @addr: the aligned address, on XMEM_OK
 * @end: the end of the block handed over
 * @cost: the whole block, from its true start: the alignment slack below
 *	@addr is as gone from the pool as the bytes above it, so limits
 *	count it too
 *
 * Return: the xmem status.
 */
int xmemsim_heap_take(struct xmemsim_dev *d, u32 heap, u64 size, u64 align,
		      u64 *addr, u64 *end, u64 *cost)
{
	struct xmem_heap *h = &d->win[heap].heap;
	u64 slack = xmem_heap_unused_bytes(h);
	int st;

	lockdep_assert_held(&d->lock);
	st = xmem_heap_alloc(h, size, align, addr, end);
	if (st == XMEM_OK)
		*cost = *end - *addr + xmem_heap_unused_bytes(h) - slack;
	return st;
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
 * Return: 0 or -errno (the heap's status mapped, -EDQUOT when a limit of
 * the file or of its user refuses it, or -ENOMEM).
 */
int xmemsim_alloc_for(struct xmemsim_file *xf, u32 heap, u64 size, u64 align,
		      bool plan, u64 *addr, int *status)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	u64 end, cost;
	int st;

	*status = XMEM_OK;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL_ACCOUNT);
	if (!rec)
		return -ENOMEM;

	mutex_lock(&d->lock);
	if (over_quota(xf, heap, size))
		goto quota;
	if (xmemsim_fault(xf, XMEMSIM_FAULT_HEAP_ALLOC)) {
		st = XMEM_ERR_ALLOC_FAILED;	/* as if the pool were full */
	} else {
		d->win[heap].heap.no_split_once =
			xmemsim_fault(xf, XMEMSIM_FAULT_HEAP_NOSPLIT);
		st = xmemsim_heap_take(d, heap, size, align, addr, &end, &cost);
		d->win[heap].heap.no_split_once = false;
	}
	trace_xmemsim_alloc(heap, size, align, st == XMEM_OK ? *addr : 0, st);
	if (st != XMEM_OK) {
		mutex_unlock(&d->lock);
		kfree(rec);
		*status = st;
		return xmem_to_errno(st);
	}
	/*
	 * Count what is taken: an unsplit block may be larger than asked,
	 * and an aligned one starts below the address handed out.
	 */
	if (over_quota(xf, heap, cost)) {
		WARN_ON_ONCE(xmem_heap_free(&d->win[heap].heap, *addr) != XMEM_OK);
		goto quota;
	}
	rec->owner = xf;
	rec->addr = *addr;
	rec->size = size;
	rec->block_end = end;
	rec->cost = cost;
	rec->heap = heap;
	rec->plan = plan;
	rec_insert(d, rec);
	list_add_tail(&rec->file_node, &xf->allocs);
	charge(xf, rec, true);
	mutex_unlock(&d->lock);
	return 0;

quota:
	xf->quota_refused++;
	xf->user->quota_refused++;
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
	charge(rec->owner, rec, false);
	rec->owner = NULL;
	d->scrub_bytes[rec->heap] += rec->cost;
}

/* Scrub a detached record's block without dev->lock, then free it. */
static void rec_finish(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	int st;

	xmemsim_scrub(d, rec->heap, rec->addr, rec->block_end);
	mutex_lock(&d->lock);
	st = xmem_heap_free(&d->win[rec->heap].heap, rec->addr);
	WARN_ON_ONCE(st != XMEM_OK);
	d->scrub_bytes[rec->heap] -= rec->cost;
	mutex_unlock(&d->lock);
	trace_xmemsim_free(rec->heap, rec->addr, 0);
	kfree(rec);
}

/*
 * The record of xf's allocation at exactly addr: 0, -ENOENT (none starts
 * there) or -EACCES (another file's). Needs dev->lock.
 */
static int rec_of_locked(struct xmemsim_file *xf, u32 heap, u64 addr,
			 struct xmemsim_alloc_rec **recp)
{
	struct xmemsim_alloc_rec *rec;

	lockdep_assert_held(&xf->dev->lock);
	rec = xmemsim_rec_find(xf->dev, heap, addr);
	if (!rec || rec->addr != addr)
		return -ENOENT;
	if (rec->owner != xf)
		return -EACCES;
	*recp = rec;
	return 0;
}

/**
 * xmemsim_free_for() - free an allocation of an open file
 * @xf: the owner
 * @heap: XMEMSIM_HEAP_*
 * @addr: the address the allocation was given
 * @plan: free a plan backing (true) or an ordinary allocation (false)
 * @status: the xmem status, when the heap has one to report
 *
 * The block is scrubbed with dev->lock dropped before the heap gets it.
 *
 * Return: 0, -ENOENT (no allocation there), -EACCES (another file's),
 * -EBUSY (pinned, mapped, or of the other kind).
 */
int xmemsim_free_for(struct xmemsim_file *xf, u32 heap, u64 addr, bool plan,
		     int *status)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int ret;

	mutex_lock(&d->lock);
	ret = rec_of_locked(xf, heap, addr, &rec);
	if (ret == -ENOENT) {
		*status = XMEM_ERR_PTR_OUT_OF_BOUNDS;
	} else if (!ret && (atomic_read_acquire(&rec->pins) || rec->maps ||
			    rec->exports || rec->plan != plan)) {
		ret = -EBUSY;
	} else if (!ret) {
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

/**
 * xmemsim_alloc_size() - what one allocation of an open file holds
 * @xf: the owner
 * @heap: XMEMSIM_HEAP_*
 * @addr: the address the allocation was given
 * @size: the bytes asked for
 * @usable: the bytes from @addr to the end of its heap block
 *
 * Return: 0, -ENOENT (no allocation there) or -EACCES (another file's).
 */
int xmemsim_alloc_size(struct xmemsim_file *xf, u32 heap, u64 addr,
		       u64 *size, u64 *usable)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int ret;

	mutex_lock(&d->lock);
	ret = rec_of_locked(xf, heap, addr, &rec);
	if (!ret) {
		*size = rec->size;
		*usable = rec->block_end - rec->addr;
	}
	mutex_unlock(&d->lock);
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
		if (rec->exports) {	/* its dma-bufs keep it, ownerless */
			list_del(&rec->file_node);
			charge(xf, rec, false);
			rec->owner = NULL;
			d->export_bytes[rec->heap] += rec->cost;
			continue;
		}
		rec_detach_locked(d, rec);
		list_add_tail(&rec->file_node, &dead);
	}
	mutex_unlock(&d->lock);
	list_for_each_entry_safe(rec, tmp, &dead, file_node)
		rec_finish(d, rec);
}

/* The heap of [addr, addr + len), its end in *end: -EINVAL, -EACCES. */
static int range_heap(struct xmemsim_dev *d, u64 addr, u64 len, u64 *end)
{
	int heap;

	if (check_add_overflow(addr, len, end))
		return -EINVAL;
	heap = xmemsim_heap_of(d, addr);
	return heap < 0 ? -EACCES : heap;
}

/* xf's allocation holding all of [addr, end), or NULL. dev->lock held. */
static struct xmemsim_alloc_rec *range_rec_locked(struct xmemsim_file *xf,
						  u32 heap, u64 addr, u64 end)
{
	struct xmemsim_alloc_rec *rec = xmemsim_rec_find(xf->dev, heap, addr);

	lockdep_assert_held(&xf->dev->lock);
	return rec && rec->owner == xf && end <= rec->addr + rec->size ? rec : NULL;
}

/**
 * xmemsim_pin_range() - check that xf owns [addr, addr + len) and pin it
 * @xf: the caller
 * @addr: device address
 * @len: bytes, > 0
 * @nowait: fail with -EAGAIN rather than wait for dev->lock
 * @recp: the allocation holding the range, pinned against free
 *
 * Return: 0, -EINVAL if the range wraps, -EACCES if it is not inside one
 * allocation of @xf, -EAGAIN (only if @nowait).
 */
int xmemsim_pin_range(struct xmemsim_file *xf, u64 addr, u64 len,
		      bool nowait, struct xmemsim_alloc_rec **recp)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int heap;
	u64 end;

	heap = range_heap(d, addr, len, &end);
	if (heap < 0)
		return heap;
	if (!nowait)
		mutex_lock(&d->lock);
	else if (!mutex_trylock(&d->lock))
		return -EAGAIN;
	rec = range_rec_locked(xf, heap, addr, end);
	if (rec) {
		atomic_inc(&rec->pins);
		*recp = rec;
	}
	mutex_unlock(&d->lock);
	return rec ? 0 : -EACCES;
}

/**
 * xmemsim_rec_export() - count a dma-buf of [addr, addr + len) of xf's
 * @xf: the exporter
 * @addr: device address
 * @len: bytes, > 0
 * @recp: the HBM or dataram allocation holding the range
 *
 * While the count is up the allocation cannot be freed, and it outlives
 * its file (xmemsim_file_release_allocs() leaves it to its dma-bufs).
 *
 * Return: 0, -EINVAL (wraps), -EACCES (not inside one allocation of @xf),
 * -EBUSY (a plan's, or a libc allocation's: not the exporter's to give).
 */
int xmemsim_rec_export(struct xmemsim_file *xf, u64 addr, u64 len,
		       struct xmemsim_alloc_rec **recp)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int heap, ret = -EACCES;
	u64 end;

	heap = range_heap(d, addr, len, &end);
	if (heap < 0)
		return heap;
	mutex_lock(&d->lock);
	rec = range_rec_locked(xf, heap, addr, end);
	if (rec) {
		ret = rec->plan || heap == XMEMSIM_HEAP_LIBC ? -EBUSY : 0;
		if (!ret) {
			rec->exports++;
			*recp = rec;
		}
	}
	mutex_unlock(&d->lock);
	return ret;
}

/* A dma-buf of rec is gone; the last one of an ownerless rec frees it. */
void xmemsim_rec_unexport(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	bool last;

	mutex_lock(&d->lock);
	WARN_ON_ONCE(!rec->exports);
	last = !--rec->exports && !rec->owner;
	if (last) {
		rb_erase(&rec->node, &d->allocs[rec->heap]);
		d->export_bytes[rec->heap] -= rec->cost;
		d->scrub_bytes[rec->heap] += rec->cost;
	}
	mutex_unlock(&d->lock);
	if (last)
		rec_finish(d, rec);
}

/*
 * Drop a pin without dev->lock: the copy's accesses to the window are
 * ordered before the count a free reads (see "Locking rules").
 */
void xmemsim_unpin(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	WARN_ON_ONCE(atomic_dec_return_release(&rec->pins) < 0);
}

/* Count a new mapping of rec; the caller holds a reference to its file. */
void xmemsim_rec_map_get(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	mutex_lock(&d->lock);
	rec->maps++;
	mutex_unlock(&d->lock);
}

void xmemsim_rec_map_put(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	mutex_lock(&d->lock);
	WARN_ON_ONCE(!rec->maps);
	rec->maps--;
	mutex_unlock(&d->lock);
}

/**
 * xmemsim_rec_map() - find the allocation a new mapping maps, and count it
 * @xf: the caller
 * @addr: the mapping's device address (its file offset)
 * @end: the mapping's end
 * @recp: the allocation, with its maps count raised
 *
 * The mapping must start at one of @xf's allocations and end inside its
 * heap block and inside the allocation's last page.
 *
 * Return: 0, -EACCES, or -EINVAL when @addr is not page aligned in its
 * window.
 */
int xmemsim_rec_map(struct xmemsim_file *xf, u64 addr, u64 end,
		    struct xmemsim_alloc_rec **recp)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *rec;
	int heap = xmemsim_heap_of(d, addr), ret = -EACCES;

	if (heap < 0)
		return -EACCES;
	mutex_lock(&d->lock);
	rec = xmemsim_rec_find(d, heap, addr);
	if (!rec || rec->owner != xf || rec->addr != addr)
		goto out;
	if (end > rec->block_end || end > rec->addr + PAGE_ALIGN(rec->size))
		goto out;
	if (!PAGE_ALIGNED(addr - d->win[heap].base)) {
		ret = -EINVAL;
		goto out;
	}
	rec->maps++;
	*recp = rec;
	ret = 0;
out:
	mutex_unlock(&d->lock);
	return ret;
}

/* Does [addr, end) of a heap's window hold only zero bytes? */
static bool window_zero(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end)
{
	return mem_is_zero(xmemsim_kaddr(d, heap, addr), end - addr);
}

/* Each user's counts are the sums over its open files. dev->lock held. */
static int users_verify_locked(struct xmemsim_dev *d, char *why, size_t len)
{
	struct xmemsim_file *xf;
	struct xmemsim_user *u;
	u32 heap;

	lockdep_assert_held(&d->lock);
	list_for_each_entry(u, &d->users, node) {
		u64 owned[XMEMSIM_NUM_HEAPS] = {};
		u32 files = 0, allocs = 0;

		list_for_each_entry(xf, &d->files, node) {
			if (xf->user != u)
				continue;
			files++;
			allocs += xf->nr_allocs;
			for (heap = 0; heap < XMEMSIM_NUM_HEAPS; heap++)
				owned[heap] += xf->owned_bytes[heap];
		}
		if (files != u->files || allocs != u->nr_allocs ||
		    memcmp(owned, u->owned_bytes, sizeof(owned))) {
			snprintf(why, len, "uid %u: %u files, %u allocations do not add up",
				 from_kuid(&init_user_ns, u->uid), u->files,
				 u->nr_allocs);
			return -EIO;
		}
	}
	return 0;
}

/*
 * Each file's records against its count; *owned: the bytes the files own,
 * per heap. dev->lock held.
 */
static int files_verify_locked(struct xmemsim_dev *d, u64 *owned, char *why,
			       size_t len)
{
	struct xmemsim_file *xf;
	u32 heap;

	lockdep_assert_held(&d->lock);
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
			return -EIO;
		}
	}
	return 0;
}

/*
 * One block of a heap's dump: a free one holds only zeros, an allocated
 * one matches its record. dev->lock held.
 */
static int block_verify_locked(struct xmemsim_dev *d, u32 heap,
			       const struct xmem_heap_block_info *b,
			       char *why, size_t len)
{
	const char *name = d->win[heap].name;
	u64 end = b->start + b->size;
	struct xmemsim_alloc_rec *rec;

	if (!b->allocated) {
		if (window_zero(d, heap, b->start, end))
			return 0;
		snprintf(why, len, "%s: free block %#llx holds data", name,
			 b->start);
		return -EIO;
	}
	rec = xmemsim_rec_find(d, heap, b->aligned);
	if (rec && rec->addr == b->aligned &&
	    (rec->block_end != end || rec->size > end - rec->addr)) {
		snprintf(why, len, "%s: record %#llx does not match its block",
			 name, rec->addr);
		return -EIO;
	}
	return 0;
}

/*
 * One heap: its own verify, each block, and the bytes allocated against
 * what the files own (and the scrub and the staging block hold).
 * dev->lock held; bi has room for every block.
 */
static int heap_verify_locked(struct xmemsim_dev *d, u32 heap, u64 owned,
			      struct xmem_heap_block_info *bi, char *why,
			      size_t len)
{
	struct xmem_heap *h = &d->win[heap].heap;
	const char *name = d->win[heap].name;
	u64 taken = 0, expect;
	u32 n, i;
	int ret;

	lockdep_assert_held(&d->lock);
	if (xmem_heap_verify(h)) {
		snprintf(why, len, "%s: xmem_heap_verify failed", name);
		return -EIO;
	}
	n = min(xmem_heap_dump(h, bi, d->geo.num_blocks), d->geo.num_blocks);
	for (i = 0; i < n; i++) {
		ret = block_verify_locked(d, heap, &bi[i], why, len);
		if (ret)
			return ret;
		if (bi[i].allocated)
			taken += bi[i].size;
	}
	expect = owned + d->scrub_bytes[heap] + d->export_bytes[heap];
	if (heap == XMEMSIM_HEAP_DATARAM)
		expect += d->bounce_bytes;
	if (taken != expect) {
		snprintf(why, len, "%s: %llu bytes allocated, files own %llu",
			 name, taken, owned);
		return -EIO;
	}
	return 0;
}

/**
 * xmemsim_dev_verify() - check the device's invariants
 * @d: the device
 * @why: what is wrong, on failure
 * @len: bytes at @why
 *
 * Every user's counts are the sums over its files; every heap passes
 * xmem_heap_verify(); each heap's allocated bytes (whole blocks, slack
 * included) equal what the open files own plus blocks being scrubbed and
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
	u32 heap;
	int ret;

	bi = kvmalloc_array(d->geo.num_blocks, sizeof(*bi), GFP_KERNEL_ACCOUNT);
	if (!bi)
		return -ENOMEM;
	mutex_lock(&d->lock);
	ret = users_verify_locked(d, why, len);
	if (!ret)
		ret = files_verify_locked(d, owned, why, len);
	for (heap = 0; heap < XMEMSIM_NUM_HEAPS && !ret; heap++)
		ret = heap_verify_locked(d, heap, owned[heap], bi, why, len);
	mutex_unlock(&d->lock);
	kvfree(bi);
	return ret;
}
