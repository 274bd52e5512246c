// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim data plane: device addresses to window bytes, ownership checks,
 * read/write at device addresses and mmap of an allocation.
 *
 * The file offset of read()/write() is a device address. An access must
 * lie inside one allocation of the calling file, [addr, addr + size);
 * anything else fails with -EACCES and moves no byte. mmap() maps one
 * allocation: the offset is its (page-aligned) device address and the
 * mapping may not reach past the heap block behind it.
 *
 * Mappings are MAP_SHARED only and carry VM_IO | VM_PFNMAP: the window's
 * pages are entered as raw PFNs, so get_user_pages() refuses them and no
 * page of a window can be referenced from outside the device (vmsplice,
 * O_DIRECT, RDMA pinning) beyond the life of the mapping. The record's
 * maps count keeps the allocation from being freed while a VMA exists.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "xmemsim.h"

/* Which heap's window holds addr, or -1. */
int xmemsim_heap_of(struct xmemsim_dev *d, u64 addr)
{
	int i;

	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++) {
		struct xmemsim_window *w = &d->win[i];

		if (addr >= w->base && addr - w->base < w->size)
			return i;
	}
	return -1;
}

/* Kernel address of a device address inside window heap (checked by caller). */
void *xmemsim_kaddr(struct xmemsim_dev *d, u32 heap, u64 addr)
{
	struct xmemsim_window *w = &d->win[heap];

	return w->vaddr + (addr - w->base);
}

/* The record with the greatest address <= addr, or NULL. Needs dev->lock. */
struct xmemsim_alloc_rec *xmemsim_rec_find(struct xmemsim_dev *d, u32 heap,
					   u64 addr)
{
	struct rb_node *n = d->allocs[heap].rb_node;
	struct xmemsim_alloc_rec *best = NULL;

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
	int heap, ret = -EACCES;
	u64 end;

	if (check_add_overflow(addr, len, &end))
		return -EINVAL;
	heap = xmemsim_heap_of(d, addr);
	if (heap < 0)
		return -EACCES;
	if (!nowait)
		mutex_lock(&d->lock);
	else if (!mutex_trylock(&d->lock))
		return -EAGAIN;
	rec = xmemsim_rec_find(d, heap, addr);
	if (rec && rec->owner == xf && end <= rec->addr + rec->size) {
		atomic_inc(&rec->pins);
		*recp = rec;
		ret = 0;
	}
	mutex_unlock(&d->lock);
	return ret;
}

/*
 * Drop a pin without dev->lock: the copy's accesses to the window are
 * ordered before the count a free reads (see "Locking rules").
 */
void xmemsim_unpin(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec)
{
	WARN_ON_ONCE(atomic_dec_return_release(&rec->pins) < 0);
}

static ssize_t xmemsim_rw(struct kiocb *iocb, struct iov_iter *iter, bool write)
{
	struct xmemsim_file *xf = iocb->ki_filp->private_data;
	struct xmemsim_alloc_rec *rec;
	size_t len = iov_iter_count(iter), done;
	void *kaddr;
	int ret;

	if (!len)
		return 0;
	if (iocb->ki_pos < 0)
		return -EINVAL;
	ret = xmemsim_pin_range(xf, iocb->ki_pos, len,
				iocb->ki_flags & IOCB_NOWAIT, &rec);
	if (ret)
		return ret;
	kaddr = xmemsim_kaddr(xf->dev, rec->heap, iocb->ki_pos);
	if (write)
		done = copy_from_iter(kaddr, len, iter);
	else
		done = copy_to_iter(kaddr, len, iter);
	xmemsim_unpin(xf->dev, rec);
	if (!done)
		return -EFAULT;
	iocb->ki_pos += done;
	return done;
}

ssize_t xmemsim_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return xmemsim_rw(iocb, to, false);
}

ssize_t xmemsim_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return xmemsim_rw(iocb, from, true);
}

static void xmemsim_vma_open(struct vm_area_struct *vma)
{
	struct xmemsim_alloc_rec *rec = vma->vm_private_data;
	struct xmemsim_file *xf = vma->vm_file->private_data;

	mutex_lock(&xf->dev->lock);
	rec->maps++;
	mutex_unlock(&xf->dev->lock);
}

static void xmemsim_vma_close(struct vm_area_struct *vma)
{
	struct xmemsim_alloc_rec *rec = vma->vm_private_data;
	struct xmemsim_file *xf = vma->vm_file->private_data;

	mutex_lock(&xf->dev->lock);
	rec->maps--;
	mutex_unlock(&xf->dev->lock);
}

static int xmemsim_vma_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;		/* one mapping, one allocation, one count */
}

static const struct vm_operations_struct xmemsim_vm_ops = {
	.open = xmemsim_vma_open,
	.close = xmemsim_vma_close,
	.may_split = xmemsim_vma_split,
};

/* Enter each page of a vmalloc range as a raw PFN: GUP refuses these. */
static int xmemsim_remap(struct vm_area_struct *vma, void *kaddr,
			 unsigned long len)
{
	unsigned long off;
	int ret;

	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = remap_pfn_range(vma, vma->vm_start + off,
				      vmalloc_to_pfn(kaddr + off), PAGE_SIZE,
				      vma->vm_page_prot);
		if (ret)
			return ret;
	}
	return 0;
}

int xmemsim_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct xmemsim_file *xf = file->private_data;
	struct xmemsim_dev *d = xf->dev;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct xmemsim_alloc_rec *rec;
	u64 addr, end;
	int heap, ret = -EACCES;

	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	/* PFN mappings cannot be copied on write: device memory is shared */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	addr = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (check_add_overflow(addr, (u64)len, &end))
		return -EINVAL;
	heap = xmemsim_heap_of(d, addr);
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
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_DONTCOPY;
	ret = xmemsim_remap(vma, xmemsim_kaddr(d, heap, addr), len);
	if (ret)
		goto out;	/* the mm zaps what was entered */
	vma->vm_private_data = rec;
	vma->vm_ops = &xmemsim_vm_ops;
	rec->maps++;
out:
	mutex_unlock(&d->lock);
	return ret;
}
