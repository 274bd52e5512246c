// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim copy engine: XMEMSIM_IOC_COPY between two ranges the caller
 * owns, by memcpy, by 64-byte "vector" lines, or by DMA; and
 * XMEMSIM_IOC_MEMSET of one range the caller owns, under the same
 * ownership and bounds rules.
 *
 * A COPY by DMA is a transfer on engine 0 (kmod/dma.c), in the file's
 * COPY queue, so it takes its turn among its user's transfers like any
 * queued one.
 * It holds the device's staging block, a 4 KiB block of the dataram heap
 * inside the staging range, as the seed's DMA copy does: the first COPY
 * in flight takes it from the heap, the last gives it back, and with
 * bounce_reserve=1 it is taken once, at load. Its bytes move through a
 * 4 KiB bounce buffer of the COPY's own, cleared when the COPY ends. No
 * lock is held across the transfer: COPYs of several files, and of one,
 * wait at once, each among its own user's transfers.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "access.h"
#include "xmemsim.h"
#include "trace.h"

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

/* Take the staging block from the heap: 0 or -EBUSY. dev->lock held. */
static int bounce_alloc_locked(struct xmemsim_dev *d, struct xmemsim_bounce *b)
{
	int st;

	lockdep_assert_held(&d->lock);
	st = xmemsim_heap_take(d, XMEMSIM_HEAP_DATARAM, XMEMSIM_BOUNCE_SIZE,
			       XMEM_HEAP_DEFAULT_ALIGN, &b->addr, &b->end, &b->cost);
	if (st == XMEM_OK && (b->addr < d->geo.staging_lo ||
			      b->addr + XMEMSIM_BOUNCE_SIZE > d->geo.staging_hi)) {
		xmem_heap_free(&d->win[XMEMSIM_HEAP_DATARAM].heap, b->addr);
		st = XMEM_ERR_ALLOC_FAILED;
	}
	if (st != XMEM_OK)
		return -EBUSY;
	d->bounce_bytes += b->cost;
	return 0;
}

/**
 * xmemsim_bounce_reserve() - take the staging block for the device's life
 * @d: the device, at load
 *
 * With bounce_reserve=1 the block is taken once, before any user can
 * allocate, so no user's allocations can leave a DMA COPY without one:
 * its reference is never dropped.
 *
 * Return: 0 or -EBUSY.
 */
int xmemsim_bounce_reserve(struct xmemsim_dev *d)
{
	int ret;

	mutex_lock(&d->lock);
	ret = bounce_alloc_locked(d, &d->bounce);
	if (!ret)
		d->bounce_refs = 1;
	mutex_unlock(&d->lock);
	return ret;
}

/*
 * A reference to the staging block for one DMA COPY: the block is taken
 * from the heap if no COPY holds it. Charged to the caller's user while
 * in use. Return: 0 or -EBUSY (the heap has none in the staging range).
 */
static int bounce_get(struct xmemsim_file *xf)
{
	struct xmemsim_dev *d = xf->dev;
	int ret = 0;

	mutex_lock(&d->lock);
	if (xmemsim_fault(xf, XMEMSIM_FAULT_BOUNCE))
		ret = -EBUSY;
	else if (!d->bounce_refs)
		ret = bounce_alloc_locked(d, &d->bounce);
	if (ret) {
		d->bounce_failures++;	/* in debugfs "verify" */
	} else {
		d->bounce_refs++;
		xf->user->bounce_bytes += d->bounce.cost;
	}
	mutex_unlock(&d->lock);
	return ret;
}

/*
 * Drop a COPY's reference; the last gives the block back to the heap. No
 * byte was written to it (bytes move through each COPY's own buffer), so
 * it is still zero, as a free block must be.
 */
static void bounce_put(struct xmemsim_file *xf)
{
	struct xmemsim_dev *d = xf->dev;

	mutex_lock(&d->lock);
	xf->user->bounce_bytes -= d->bounce.cost;
	if (!--d->bounce_refs) {
		xmem_heap_free(&d->win[XMEMSIM_HEAP_DATARAM].heap, d->bounce.addr);
		d->bounce_bytes -= d->bounce.cost;
	}
	mutex_unlock(&d->lock);
}

/*
 * COPY by DMA: the staging block, a bounce buffer of the COPY's own
 * (XMEMSIM_BOUNCE_SIZE, charged to the caller's memory cgroup, one per
 * COPY in flight) and the transfer. Return: as xmemsim_dma_copy(), or
 * -EBUSY (no staging block) or -ENOMEM.
 */
static int copy_dma(struct xmemsim_file *xf, u64 src, u64 dst, u64 len)
{
	u8 *buf;
	int ret;

	buf = kmalloc(XMEMSIM_BOUNCE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	ret = bounce_get(xf);
	if (!ret) {
		ret = xmemsim_dma_copy(xf, src, dst, len, buf);
		bounce_put(xf);
	}
	kfree_sensitive(buf);	/* the staged bytes are the caller's */
	return ret;
}

/**
 * xmemsim_copy() - run one COPY command
 * @xf: the caller
 * @c: the command, copied in
 *
 * Return: 0, -EINVAL (bad arguments, overlapping ranges), -EACCES (a range
 * the caller does not own), -EIO (an uncorrectable memory error in the
 * source, nothing copied; or an injected COPY_DMA fault, the destination
 * written in part), -EBUSY (no staging block in the staging range),
 * -EINTR (a fatal signal once its transfer was queued: no byte moved),
 * -ENOMEM.
 */
int xmemsim_copy(struct xmemsim_file *xf, struct xmemsim_copy *c)
{
	struct xms_access a = {
		.xf = xf, .what = "COPY",
		.flags = XMS_ACCESS_READ | XMS_ACCESS_WRITE,
		.src = c->src, .dst = c->dst, .len = c->len,
	};
	u64 end;
	int ret;

	if (c->method > XMEMSIM_COPY_DMA || c->flags ||
	    !mem_is_zero(c->reserved, sizeof(c->reserved)))
		return -EINVAL;
	if (!c->len)
		return 0;
	if (check_add_overflow(c->src, c->len, &end) ||
	    check_add_overflow(c->dst, c->len, &end))
		return -EINVAL;

	ret = xms_access_begin(&a);
	if (ret)
		goto out;
	switch (c->method) {
	case XMEMSIM_COPY_C_MEMCPY:
		memcpy(a.dp, a.sp, c->len);
		xms_access_end(&a, c->len);
		break;
	case XMEMSIM_COPY_VEC_MEMCPY:
		vec_memcpy(a.dp, a.sp, c->len);
		xms_access_end(&a, c->len);
		break;
	case XMEMSIM_COPY_DMA:	/* the transfer records what it writes */
		ret = copy_dma(xf, c->src, c->dst, c->len);
		xms_access_end(&a, 0);
		break;
	}
out:
	trace_xmemsim_copy(c->src, c->dst, c->len, c->method, ret);
	return ret;
}

/**
 * xmemsim_memset() - run one MEMSET command
 * @xf: the caller
 * @ms: the command, copied in
 *
 * Return: 0 (a zero length does nothing), -EINVAL (bad arguments, a range
 * that wraps), -EACCES (not inside one allocation of the caller).
 */
int xmemsim_memset(struct xmemsim_file *xf, struct xmemsim_memset *ms)
{
	struct xms_access a = {
		.xf = xf, .what = "MEMSET", .flags = XMS_ACCESS_WRITE,
		.dst = ms->addr, .len = ms->len,
	};
	int ret;

	if (ms->value > U8_MAX || ms->flags ||
	    !mem_is_zero(ms->reserved, sizeof(ms->reserved)))
		return -EINVAL;
	if (!ms->len)
		return 0;
	ret = xms_access_begin(&a);
	if (ret)
		return ret;
	xmemsim_fill(xf->dev, a.drec->heap, ms->addr, ms->addr + ms->len,
		     ms->value);
	xms_access_end(&a, ms->len);
	return 0;
}
