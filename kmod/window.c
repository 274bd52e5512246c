// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim data plane: read/write at device addresses, each one access
 * (kmod/access.c), and mmap of an allocation (device addresses to window
 * bytes: xmemsim_kaddr()). Which file owns which bytes is kmod/owner.c's.
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
 * A page holding an uncorrectable memory error is left out of the
 * mapping (kmod/fault.c); its fault gives SIGBUS until the line is good.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "access.h"
#include "compat.h"
#include "xmemsim.h"

static ssize_t xmemsim_rw(struct kiocb *iocb, struct iov_iter *iter, bool write)
{
	struct xms_access a = {
		.xf = iocb->ki_filp->private_data,
		.what = write ? "write" : "read",
		.flags = (write ? XMS_ACCESS_WRITE : XMS_ACCESS_READ) |
			 (iocb->ki_flags & IOCB_NOWAIT ? XMS_ACCESS_NOWAIT : 0),
		.src = iocb->ki_pos, .dst = iocb->ki_pos,
		.len = iov_iter_count(iter),
	};
	size_t done;
	int ret;

	if (!a.len)
		return 0;
	if (iocb->ki_pos < 0)
		return -EINVAL;
	/* a memory error fails a read: no byte copied */
	ret = xms_access_begin(&a);
	if (ret)
		return ret;
	if (write) {
		done = copy_from_iter(a.dp, a.len, iter);
		xms_access_end(&a, done);
	} else {
		done = copy_to_iter(a.sp, a.len, iter);
		xms_access_end(&a, 0);
	}
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
	struct xmemsim_file *xf = vma->vm_file->private_data;

	xmemsim_rec_map_get(xf->dev, vma->vm_private_data);
}

static void xmemsim_vma_close(struct vm_area_struct *vma)
{
	struct xmemsim_file *xf = vma->vm_file->private_data;

	xmemsim_rec_map_put(xf->dev, vma->vm_private_data);
}

static int xmemsim_vma_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;		/* one mapping, one allocation, one count */
}

/*
 * A page is missing only where a memory error took it out (kmod/fault.c):
 * while a line of it is bad, a touch of the page gets what the kernel's
 * memory-failure path gives for a poisoned page, VM_FAULT_HWPOISON:
 * SIGBUS with BUS_MCEERR_AR, si_addr the address touched and si_addr_lsb
 * PAGE_SHIFT (the page is the granule, as there; a kernel without
 * CONFIG_MEMORY_FAILURE says BUS_ADRERR). The page comes back once the
 * line was rewritten.
 */
static vm_fault_t xmemsim_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct xmemsim_file *xf = vma->vm_file->private_data;
	struct xmemsim_alloc_rec *rec = vma->vm_private_data;
	unsigned long va = round_down(vmf->address, PAGE_SIZE);
	u64 addr = ((u64)vma->vm_pgoff << PAGE_SHIFT) + (va - vma->vm_start);
	vm_fault_t ret;

	if (xmemsim_mem_page_bad(xf->dev, rec->heap, addr))
		return VM_FAULT_HWPOISON;
	ret = vmf_insert_pfn(vma, va,
			     vmalloc_to_pfn(xmemsim_kaddr(xf->dev, rec->heap, addr)));
	/* a line went bad meanwhile, its unmap before this insert: undo */
	if (ret == VM_FAULT_NOPAGE && xmemsim_mem_bad(xf->dev, addr, PAGE_SIZE))
		zap_vma_ptes(vma, va, PAGE_SIZE);
	return ret;
}

static const struct vm_operations_struct xmemsim_vm_ops = {
	.open = xmemsim_vma_open,
	.close = xmemsim_vma_close,
	.may_split = xmemsim_vma_split,
	.fault = xmemsim_vma_fault,
};

/*
 * Enter each page of a vmalloc range as a raw PFN: GUP refuses these. When
 * a page fails (a page table cannot be had), the pages entered before it
 * are still mapped, and the mm removes them only after ->mmap returns,
 * while the caller is about to drop the maps count that keeps the block
 * from being freed: zap them here first, so no entry can outlive the
 * count (the warning in remap_pfn_range_notrack()).
 */
static int xmemsim_remap(struct vm_area_struct *vma, void *kaddr,
			 unsigned long len)
{
	unsigned long off;
	int ret;

	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = remap_pfn_range(vma, vma->vm_start + off,
				      vmalloc_to_pfn(kaddr + off), PAGE_SIZE,
				      vma->vm_page_prot);
		if (ret) {
			if (off)
				zap_vma_ptes(vma, vma->vm_start, off);
			return ret;
		}
	}
	return 0;
}

int xmemsim_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct xmemsim_file *xf = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct xmemsim_alloc_rec *rec;
	u64 addr, end, off;
	int ret;

	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	/* PFN mappings cannot be copied on write: device memory is shared */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	addr = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (check_add_overflow(addr, (u64)len, &end))
		return -EINVAL;
	ret = xmemsim_rec_map(xf, addr, end, &rec);	/* counts the mapping */
	if (ret)
		return ret;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
		     VM_DONTCOPY);
	ret = xmemsim_remap(vma, xmemsim_kaddr(xf->dev, rec->heap, addr), len);
	if (ret) {
		/* nothing is mapped any more; ->close is not called */
		xmemsim_rec_map_put(xf->dev, rec);
		return ret;
	}
	vma->vm_private_data = rec;
	vma->vm_ops = &xmemsim_vm_ops;
	/* pages with an uncorrectable line stay out: touching one faults */
	for (off = 0; off < len; off += PAGE_SIZE)
		if (xmemsim_mem_bad(xf->dev, addr + off, PAGE_SIZE))
			zap_vma_ptes(vma, vma->vm_start + off, PAGE_SIZE);
	return 0;
}
