/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One access of an open file to device bytes, as a bracket (kmod/access.c):
 *
 *	struct xms_access a = {
 *		.xf = xf, .what = "COPY",
 *		.flags = XMS_ACCESS_READ | XMS_ACCESS_WRITE,
 *		.src = src, .dst = dst, .len = len,
 *	};
 *
 *	ret = xms_access_begin(&a);
 *	if (ret)
 *		return ret;
 *	memcpy(a.dp, a.sp, a.len);
 *	xms_access_end(&a, a.len);
 *
 * Between the two, each range the access has (src if it reads, dst if it
 * writes) lies inside one allocation of the file, which is pinned against
 * free (or, with XMS_ACCESS_APERTURE, inside one mapping of its aperture,
 * counted: kmod/peer.c); the hazard checker has seen the access and a read has met the
 * memory errors of its bytes; sp and dp are the ranges' kernel addresses.
 * The end records the bytes written (their whole lines are clean again)
 * and drops the pins. No lock is held between the two: a pin is the
 * allocation's own count (see "Locking rules" in xmemsim.h).
 *
 * Every access of a file to device bytes goes through here: pread and
 * pwrite (window.c), COPY and MEMSET (copy.c), MEM_ERROR (ioctl.c), and a
 * queued DMA transfer (dma.c, dma_sched.c), which begins at its submit and
 * ends when its bytes move or it is dropped.
 */
#ifndef XMEMSIM_ACCESS_H
#define XMEMSIM_ACCESS_H

#include <linux/bits.h>
#include <linux/types.h>

struct xmemsim_file;
struct xmemsim_alloc_rec;
struct xmemsim_map;

#define XMS_ACCESS_READ		BIT(0)	/* reads src */
#define XMS_ACCESS_WRITE	BIT(1)	/* writes dst */
#define XMS_ACCESS_NOWAIT	BIT(2)	/* -EAGAIN rather than sleep on a lock */
/*
 * Pin only: the caller deals with hazards and memory errors itself (a
 * queued transfer: the checker at submit, the errors when it completes).
 */
#define XMS_ACCESS_HOLD		BIT(3)
/* A range may also lie in the file's aperture (a DMA transfer's alone). */
#define XMS_ACCESS_APERTURE	BIT(4)

struct xms_access {
	/* in: the access */
	struct xmemsim_file *xf;
	const char *what;		/* its name in hazard reports */
	unsigned int flags;		/* XMS_ACCESS_* */
	u64 src, dst, len;
	/* out: from begin to end */
	struct xmemsim_alloc_rec *srec, *drec;	/* pinned, or NULL */
	struct xmemsim_map *smap, *dmap;	/* aperture ranges', or NULL */
	void *sp, *dp;			/* kernel addresses of src and dst */
};

int xms_access_begin(struct xms_access *a);
void xms_access_end(struct xms_access *a, u64 written);
int xms_access_free(struct xmemsim_file *xf, u32 heap, u64 addr);

#endif /* XMEMSIM_ACCESS_H */
