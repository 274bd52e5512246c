// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim copy engine: XMEMSIM_IOC_COPY between two ranges the caller
 * owns, by memcpy, by 64-byte "vector" lines, or by DMA through a 4 KiB
 * bounce buffer from the dataram heap inside the staging range (scrubbed
 * before it goes back to the heap); and XMEMSIM_IOC_MEMSET of one range
 * the caller owns, under the same ownership and bounds rules.
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

/**
 * xmemsim_copy() - run one COPY command
 * @xf: the caller
 * @c: the command, copied in
 *
 * Return: 0, -EINVAL (bad arguments, overlapping ranges), -EACCES (a range
 * the caller does not own), -EBUSY (no bounce buffer in the staging range).
 */
int xmemsim_copy(struct xmemsim_file *xf, struct xmemsim_copy *c)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_alloc_rec *srec, *drec;
	u64 send, dend, baddr = 0, bend, off;
	void *src, *dst, *bounce = NULL;
	int ret, st;

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
			d->bounce_failures++;	/* in debugfs "verify" */
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
	xmemsim_fill(xf->dev, rec->heap, ms->addr, ms->addr + ms->len, ms->value);
	xmemsim_unpin(xf->dev, rec);
	return 0;
}
