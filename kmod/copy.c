// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim copy engine: XMEMSIM_IOC_COPY between two ranges the caller
 * owns, by memcpy, by 64-byte "vector" lines, or by DMA: a transfer on
 * engine 0 (kmod/dma.c) that moves the bytes through a 4 KiB bounce buffer
 * from the dataram heap inside the staging range (scrubbed after each
 * use), one DMA COPY at a time (dev->dma_lock); and XMEMSIM_IOC_MEMSET of
 * one range the caller owns, under the same ownership and bounds rules.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

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

/* Take a bounce buffer from the heap: 0 or -EBUSY. dev->lock held. */
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
 * xmemsim_bounce_reserve() - take the bounce buffer for the device's life
 * @d: the device, at load
 *
 * With bounce_reserve=1 the buffer is taken once, before any user can
 * allocate, so no user's allocations can leave a DMA COPY without one.
 *
 * Return: 0 or -EBUSY.
 */
int xmemsim_bounce_reserve(struct xmemsim_dev *d)
{
	int ret;

	mutex_lock(&d->lock);
	ret = bounce_alloc_locked(d, &d->reserve);
	d->bounce_reserved = !ret;
	mutex_unlock(&d->lock);
	return ret;
}

/*
 * The DMA engine and its bounce buffer for one COPY: takes dma_lock (one
 * DMA at a time; a waiter can be interrupted by a signal) and the buffer,
 * the reserved one or one from the heap. Charged to the caller's user
 * while in use. Return: 0, -ERESTARTSYS or -EBUSY (the heap has none).
 */
static int bounce_get(struct xmemsim_file *xf, struct xmemsim_bounce *b)
{
	struct xmemsim_dev *d = xf->dev;
	int ret = 0;

	if (mutex_lock_interruptible(&d->dma_lock))
		return -ERESTARTSYS;	/* restarts unless a handler says not */
	mutex_lock(&d->lock);
	if (xmemsim_fault(xf, XMEMSIM_FAULT_BOUNCE))
		ret = -EBUSY;
	else if (d->bounce_reserved)
		*b = d->reserve;
	else
		ret = bounce_alloc_locked(d, b);
	if (ret)
		d->bounce_failures++;	/* in debugfs "verify" */
	else
		xf->user->bounce_bytes += b->cost;
	mutex_unlock(&d->lock);
	if (ret)
		mutex_unlock(&d->dma_lock);
	return ret;
}

/* Scrub the bounce buffer (the staged bytes are the caller's), give it back. */
static void bounce_put(struct xmemsim_file *xf, const struct xmemsim_bounce *b)
{
	struct xmemsim_dev *d = xf->dev;

	xmemsim_scrub(d, XMEMSIM_HEAP_DATARAM, b->addr, b->end);
	mutex_lock(&d->lock);
	xf->user->bounce_bytes -= b->cost;
	if (!d->bounce_reserved) {
		xmem_heap_free(&d->win[XMEMSIM_HEAP_DATARAM].heap, b->addr);
		d->bounce_bytes -= b->cost;
	}
	mutex_unlock(&d->lock);
	mutex_unlock(&d->dma_lock);
}

/**
 * xmemsim_copy() - run one COPY command
 * @xf: the caller
 * @c: the command, copied in
 *
 * Return: 0, -EINVAL (bad arguments, overlapping ranges), -EACCES (a range
 * the caller does not own), -EIO (an uncorrectable memory error in the
 * source, nothing copied; or an injected COPY_DMA fault, the destination
 * written in part), -EBUSY (no bounce buffer in the staging range),
 * -ERESTARTSYS (a signal or task work came while waiting for the DMA
 * engine: restarted, nothing done yet), -EINTR (a fatal signal once its
 * transfer was queued: no byte moved), -ENOMEM.
 */
int xmemsim_copy(struct xmemsim_file *xf, struct xmemsim_copy *c)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *srec, *drec;
	u64 send, dend;
	void *src, *dst;
	struct xmemsim_bounce b;
	int ret;

	if (c->method > XMEMSIM_COPY_DMA || c->flags ||
	    !mem_is_zero(c->reserved, sizeof(c->reserved)))
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
	ret = xmemsim_dma_check_host(xf, c->src, c->len, false,
				     XMEMSIM_HAZARD_HOST, "COPY", false);
	if (!ret)
		ret = xmemsim_dma_check_host(xf, c->dst, c->len, true,
					     XMEMSIM_HAZARD_HOST, "COPY", false);
	if (!ret)	/* a memory error in the source: nothing copied */
		ret = xmemsim_mem_read(xf, srec->heap, c->src, c->len);
	if (ret)
		goto unpin_dst;

	src = xmemsim_kaddr(d, srec->heap, c->src);
	dst = xmemsim_kaddr(d, drec->heap, c->dst);
	switch (c->method) {
	case XMEMSIM_COPY_C_MEMCPY:
		memcpy(dst, src, c->len);
		xmemsim_mem_written(d, c->dst, c->len);
		break;
	case XMEMSIM_COPY_VEC_MEMCPY:
		vec_memcpy(dst, src, c->len);
		xmemsim_mem_written(d, c->dst, c->len);
		break;
	case XMEMSIM_COPY_DMA:
		/*
		 * Stage through a bounce buffer in dataram, which the DMA
		 * engine can only reach inside the staging range.
		 */
		ret = bounce_get(xf, &b);
		if (ret)
			goto unpin_dst;
		ret = xmemsim_dma_copy(xf, c->src, c->dst, c->len,
				       xmemsim_kaddr(d, XMEMSIM_HEAP_DATARAM, b.addr));
		bounce_put(xf, &b);
		break;
	}
unpin_dst:
	xmemsim_unpin(d, drec);
unpin_src:
	xmemsim_unpin(d, srec);
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
	struct xmemsim_alloc_rec *rec;
	int ret;

	if (ms->value > U8_MAX || ms->flags ||
	    !mem_is_zero(ms->reserved, sizeof(ms->reserved)))
		return -EINVAL;
	if (!ms->len)
		return 0;
	ret = xmemsim_pin_range(xf, ms->addr, ms->len, false, &rec);
	if (ret)
		return ret;
	ret = xmemsim_dma_check_host(xf, ms->addr, ms->len, true,
				     XMEMSIM_HAZARD_HOST, "MEMSET", false);
	if (!ret) {
		xmemsim_fill(xf->dev, rec->heap, ms->addr, ms->addr + ms->len,
			     ms->value);
		xmemsim_mem_written(xf->dev, ms->addr, ms->len);
	}
	xmemsim_unpin(xf->dev, rec);
	return ret;
}
