// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim access bracket: the one path by which an open file reaches
 * device bytes (kmod/access.h says how it is used). It ties together what
 * three other files keep: the allocation records and their pins
 * (owner.c), the hazard checker (dma_check.c) and the memory-error model
 * (fault.c).
 */
#include <linux/overflow.h>

#include "access.h"
#include "xmemsim.h"

/* One range: an allocation pinned, or an aperture mapping counted. */
static int access_pin_one(struct xms_access *a, u64 addr,
			  struct xmemsim_alloc_rec **rec,
			  struct xmemsim_map **map, void **kaddr)
{
	u64 end;

	if (check_add_overflow(addr, a->len, &end))
		return -EINVAL;	/* a wrapped range is no range at all */
	if (xmemsim_in_aperture(addr))
		return a->flags & XMS_ACCESS_APERTURE ?
		       xmemsim_map_get(a->xf, addr, a->len, map, kaddr) : -EACCES;
	return xmemsim_pin_range(a->xf, addr, a->len,
				 a->flags & XMS_ACCESS_NOWAIT, rec);
}

static int access_pin(struct xms_access *a)
{
	int ret;

	if (a->flags & XMS_ACCESS_READ) {
		ret = access_pin_one(a, a->src, &a->srec, &a->smap, &a->sp);
		if (ret)
			return ret;
	}
	if (a->flags & XMS_ACCESS_WRITE) {
		ret = access_pin_one(a, a->dst, &a->drec, &a->dmap, &a->dp);
		if (ret)
			return ret;
	}
	/* a copy's ranges may not overlap */
	if (a->srec && a->drec && a->src < a->dst + a->len &&
	    a->dst < a->src + a->len)
		return -EINVAL;
	return 0;
}

/* The hazard checker on each range, then a read meets its memory errors. */
static int access_check(struct xms_access *a)
{
	bool nowait = a->flags & XMS_ACCESS_NOWAIT;
	int ret = 0;

	if (a->srec)
		ret = xmemsim_dma_check_host(a->xf, a->src, a->len, false,
					     XMEMSIM_HAZARD_HOST, a->what, nowait);
	if (!ret && a->drec)
		ret = xmemsim_dma_check_host(a->xf, a->dst, a->len, true,
					     XMEMSIM_HAZARD_HOST, a->what, nowait);
	if (!ret && a->srec)
		ret = xmemsim_mem_read(a->xf, a->srec->heap, a->src, a->len);
	return ret;
}

/**
 * xms_access_begin() - begin an access of a file to device bytes
 * @a: the access: xf, what, flags, the ranges and len (> 0) set, the rest
 *	zero
 *
 * The ranges are pinned in order (src, then dst), then checked for
 * overlap, then (unless XMS_ACCESS_HOLD) the hazard checker sees them and
 * the source meets its memory errors.
 *
 * Return: 0, and xms_access_end() must follow; or -EINVAL (a range wraps,
 * or the two overlap), -EACCES (a range not inside one allocation of the
 * file), -EAGAIN (XMS_ACCESS_NOWAIT and a lock is busy), -EBUSY (the
 * checker refuses), -EIO (an uncorrectable memory error in the source),
 * with nothing held.
 */
int xms_access_begin(struct xms_access *a)
{
	struct xmemsim_dev *d = a->xf->dev;
	int ret;

	ret = access_pin(a);
	if (!ret && !(a->flags & XMS_ACCESS_HOLD))
		ret = access_check(a);
	if (ret) {
		xms_access_end(a, 0);
		return ret;
	}
	if (a->srec)
		a->sp = xmemsim_kaddr(d, a->srec->heap, a->src);
	if (a->drec)
		a->dp = xmemsim_kaddr(d, a->drec->heap, a->dst);
	return 0;
}

/**
 * xms_access_end() - end an access: record what it wrote, drop the pins
 * @a: the access; one that was not begun (no pins) is left alone
 * @written: the bytes written from dst on; 0 for none
 *
 * The lines that @written covers whole are clean again (fault.c). Once
 * the pins are dropped the allocations may be freed: nothing of them may
 * be touched after. A second call does nothing.
 */
void xms_access_end(struct xms_access *a, u64 written)
{
	struct xmemsim_dev *d;

	if (a->smap)
		xmemsim_map_put(a->smap);
	if (a->dmap)
		xmemsim_map_put(a->dmap);
	a->smap = NULL;
	a->dmap = NULL;
	if (!a->srec && !a->drec)
		return;
	d = a->xf->dev;
	if (a->drec && written)
		xmemsim_mem_written(d, a->dst, written);
	if (a->srec)
		xmemsim_unpin(d, a->srec);
	if (a->drec)
		xmemsim_unpin(d, a->drec);
	a->srec = NULL;
	a->drec = NULL;
}

/**
 * xms_access_free() - the hazard checker on a free
 * @xf: the file freeing
 * @heap: the allocation's heap
 * @addr: its address
 *
 * A free is a write of the whole allocation for the checker: a transfer
 * in flight that touches it is a hazard. Nothing is pinned: the free
 * itself refuses a pinned allocation.
 *
 * Return: 0 (also when @addr is no allocation of @xf: the free says so),
 * or -EBUSY when the checker refuses.
 */
int xms_access_free(struct xmemsim_file *xf, u32 heap, u64 addr)
{
	u64 size, usable;

	if (!xmemsim_dma_checks(xf->dev) ||
	    xmemsim_alloc_size(xf, heap, addr, &size, &usable))
		return 0;
	return xmemsim_dma_check_host(xf, addr, size, true, XMEMSIM_HAZARD_FREE,
				      "HEAP_FREE", false);
}
