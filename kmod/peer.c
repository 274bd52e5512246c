// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim aperture: what a file maps that is not its device's memory (the
 * uapi's "Many devices"). A mapping is one slot of the file's aperture:
 * its process's pages, pinned long-term (HOST_MAP), or a dma-buf, attached
 * and mapped through the kernel's dma-buf framework (DMABUF_IMPORT). The
 * exporter half is here too: a range of an allocation as a dma-buf whose
 * fd is the capability (DMABUF_EXPORT).
 *
 * Lifetimes. A mapping is counted (kref): its slot holds one count, each
 * DMA transfer that reaches it one more (xmemsim_map_get(), from the
 * access bracket), so UNMAP or the file's release never pulls memory from
 * under a transfer in flight. An exported dma-buf holds its allocation
 * (rec->exports), which then outlives its file and is freed at the
 * dma-buf's release; it holds no file, so two files importing each
 * other's buffers make no cycle.
 *
 * Locking: xf->ap_lock guards the slots and is a leaf. A mapping's
 * release may sleep (dma-buf detach, unpin): it runs where the last count
 * drops, in process context, under no lock of ours but du->lock (a
 * transfer dropped by DMA_RESET or release).
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/kref.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "topo.h"
#include "xmemsim.h"

struct xmemsim_map {
	struct kref ref;
	u64 len;
	void *vaddr;			/* the CPU's view of its bytes */
	u32 peer;			/* device index, or XMEMSIM_PEER_HOST */
	/* HOST_MAP: the pages pinned, counted against the mm's locked_vm */
	struct page **pages;
	unsigned long npages;
	struct mm_struct *mm;
	/* DMABUF_IMPORT */
	struct dma_buf *buf;
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
	struct iosys_map vmap;
};

bool xmemsim_in_aperture(u64 addr)
{
	return addr >= XMEMSIM_APERTURE_BASE;
}

static u64 slot_base(u32 slot)
{
	return XMEMSIM_APERTURE_BASE + (u64)slot * XMEMSIM_APERTURE_SLOT_SIZE;
}

/* The slot an aperture address lies in, and its offset there; or -1. */
static int slot_of(u64 addr, u64 *off)
{
	u64 slot;

	if (!xmemsim_in_aperture(addr))
		return -1;
	slot = div64_u64_rem(addr - XMEMSIM_APERTURE_BASE,
			     XMEMSIM_APERTURE_SLOT_SIZE, off);
	return slot < XMEMSIM_APERTURE_SLOTS ? (int)slot : -1;
}

static void host_release(struct xmemsim_map *m)
{
	vunmap(m->vaddr);
	unpin_user_pages(m->pages, m->npages);
	account_locked_vm(m->mm, m->npages, false);
	mmdrop(m->mm);
	kvfree(m->pages);
}

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
MODULE_IMPORT_NS(DMA_BUF);

static void import_release(struct xmemsim_map *m)
{
	if (m->vmap.vaddr)
		dma_buf_vunmap_unlocked(m->buf, &m->vmap);
	if (!IS_ERR_OR_NULL(m->sgt))
		dma_buf_unmap_attachment_unlocked(m->att, m->sgt,
						  DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(m->att))
		dma_buf_detach(m->buf, m->att);
	dma_buf_put(m->buf);
}
#else
static void import_release(struct xmemsim_map *m)
{
}
#endif

static void map_release(struct kref *ref)
{
	struct xmemsim_map *m = container_of(ref, struct xmemsim_map, ref);

	if (m->pages)
		host_release(m);
	if (m->buf)
		import_release(m);
	kfree(m);
}

void xmemsim_map_put(struct xmemsim_map *m)
{
	kref_put(&m->ref, map_release);
}

/* Put m in a free slot of xf's aperture: its base, or -ENOSPC. */
static int slot_take(struct xmemsim_file *xf, struct xmemsim_map *m, u64 *addr)
{
	int ret = -ENOSPC;
	u32 i;

	mutex_lock(&xf->ap_lock);
	for (i = 0; i < XMEMSIM_APERTURE_SLOTS; i++) {
		if (!xf->ap[i]) {
			xf->ap[i] = m;
			*addr = slot_base(i);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&xf->ap_lock);
	return ret;
}

/**
 * xmemsim_map_get() - the mapping a transfer's range lies in, counted
 * @xf: the file
 * @addr: an aperture address
 * @len: bytes, > 0
 * @mp: the mapping, to give back with xmemsim_map_put()
 * @kaddr: the kernel address of @addr
 *
 * Return: 0, or -EACCES when the range is not inside one mapping of @xf.
 */
int xmemsim_map_get(struct xmemsim_file *xf, u64 addr, u64 len,
		    struct xmemsim_map **mp, void **kaddr)
{
	struct xmemsim_map *m = NULL;
	int slot;
	u64 off, end;

	slot = slot_of(addr, &off);
	if (slot < 0)
		return -EACCES;
	mutex_lock(&xf->ap_lock);
	if (xf->ap[slot] && !check_add_overflow(off, len, &end) &&
	    end <= xf->ap[slot]->len) {
		m = xf->ap[slot];
		kref_get(&m->ref);
	}
	mutex_unlock(&xf->ap_lock);
	if (!m)
		return -EACCES;
	*mp = m;
	*kaddr = m->vaddr + off;
	return 0;
}

/*
 * The route of a transfer between xf's device and mapping m: to m
 * (@to_map) or from it. Empty for a mapping of the device's own memory.
 */
void xmemsim_map_route(const struct xmemsim_file *xf,
		       const struct xmemsim_map *m, bool to_map,
		       struct xmemsim_route *r)
{
	const struct xmemsim_topo *t = xmemsim_topology();
	u32 me = xf->dev->index;

	if (m->peer == XMEMSIM_PEER_HOST)
		xmemsim_topo_host_route(t, me, !to_map, r);
	else if (to_map)
		xmemsim_topo_route(t, me, m->peer, r);
	else
		xmemsim_topo_route(t, m->peer, me, r);
}

/* Pin and map the caller's pages of hm: a mapping, or an ERR_PTR. */
static struct xmemsim_map *host_pin(const struct xmemsim_host_map *hm)
{
	struct xmemsim_map *m;
	long got;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->npages = hm->len >> PAGE_SHIFT;
	m->pages = kvcalloc(m->npages, sizeof(*m->pages), GFP_KERNEL_ACCOUNT);
	ret = m->pages ? account_locked_vm(current->mm, m->npages, true) : -ENOMEM;
	if (ret)
		goto err_free;
	m->mm = current->mm;
	mmgrab(m->mm);
	got = pin_user_pages_fast(hm->uaddr, m->npages,
				  FOLL_WRITE | FOLL_LONGTERM, m->pages);
	if (got != m->npages) {
		if (got > 0)
			unpin_user_pages(m->pages, got);
		ret = got < 0 ? got : -EFAULT;
		goto err_account;
	}
	m->vaddr = vmap(m->pages, m->npages, VM_MAP, PAGE_KERNEL);
	if (m->vaddr)
		return m;
	unpin_user_pages(m->pages, m->npages);
	ret = -ENOMEM;
err_account:
	account_locked_vm(m->mm, m->npages, false);
	mmdrop(m->mm);
err_free:
	kvfree(m->pages);
	kfree(m);
	return ERR_PTR(ret);
}

/**
 * xmemsim_host_map() - XMEMSIM_IOC_HOST_MAP
 * @xf: the caller's file
 * @hm: the command, checked here; @hm->addr set on success
 *
 * Return: 0 or -errno, as the uapi says.
 */
int xmemsim_host_map(struct xmemsim_file *xf, struct xmemsim_host_map *hm)
{
	struct xmemsim_map *m;
	int ret;

	if (hm->flags || hm->reserved || !hm->len ||
	    hm->len > XMEMSIM_HOST_MAP_MAX || !PAGE_ALIGNED(hm->uaddr) ||
	    !PAGE_ALIGNED(hm->len))
		return -EINVAL;
	m = host_pin(hm);
	if (IS_ERR(m))
		return PTR_ERR(m);
	kref_init(&m->ref);
	m->len = hm->len;
	m->peer = XMEMSIM_PEER_HOST;
	ret = slot_take(xf, m, &hm->addr);
	if (ret)
		xmemsim_map_put(m);
	return ret;
}

/* XMEMSIM_IOC_UNMAP: the slot's count goes; transfers keep theirs. */
int xmemsim_unmap(struct xmemsim_file *xf, u64 addr)
{
	struct xmemsim_map *m = NULL;
	int slot;
	u64 off;

	slot = slot_of(addr, &off);
	if (slot < 0 || off)	/* a slot's base alone */
		return -ENOENT;
	mutex_lock(&xf->ap_lock);
	swap(m, xf->ap[slot]);
	mutex_unlock(&xf->ap_lock);
	if (!m)
		return -ENOENT;
	xmemsim_map_put(m);
	return 0;
}

/* A closing file's mappings; its transfers are gone already. */
void xmemsim_file_release_maps(struct xmemsim_file *xf)
{
	u32 i;

	for (i = 0; i < XMEMSIM_APERTURE_SLOTS; i++) {
		if (xf->ap[i])
			xmemsim_map_put(xf->ap[i]);
		xf->ap[i] = NULL;
	}
}

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
/* One exported range: the dma-buf's priv. */
struct xmemsim_export {
	struct xmemsim_dev *dev;
	struct xmemsim_alloc_rec *rec;	/* counted in rec->exports */
	void *kaddr;			/* the range in its window */
	u64 len;
};

static const struct dma_buf_ops xmemsim_dmabuf_ops;

/* The range's pages: a vmalloc window, page by page. */
static struct sg_table *export_map(struct dma_buf_attachment *att,
				   enum dma_data_direction dir)
{
	struct xmemsim_export *ex = att->dmabuf->priv;
	unsigned long first = (unsigned long)ex->kaddr & PAGE_MASK;
	unsigned long off = offset_in_page(ex->kaddr), i, n;
	struct sg_table *sgt;
	struct page **pages;
	int ret;

	n = DIV_ROUND_UP(off + ex->len, PAGE_SIZE);
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	ret = pages && sgt ? 0 : -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		pages[i] = vmalloc_to_page((void *)(first + i * PAGE_SIZE));
	if (!ret)
		ret = sg_alloc_table_from_pages(sgt, pages, n, off, ex->len,
						GFP_KERNEL);
	kvfree(pages);
	if (!ret) {
		ret = dma_map_sgtable(att->dev, sgt, dir, 0);
		if (ret)
			sg_free_table(sgt);
	}
	if (ret) {
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

static void export_unmap(struct dma_buf_attachment *att, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	dma_unmap_sgtable(att->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void export_release(struct dma_buf *buf)
{
	struct xmemsim_export *ex = buf->priv;

	xmemsim_rec_unexport(ex->dev, ex->rec);
	kfree(ex);
}

static int export_vmap(struct dma_buf *buf, struct iosys_map *map)
{
	struct xmemsim_export *ex = buf->priv;

	iosys_map_set_vaddr(map, ex->kaddr);
	return 0;
}

/* mmap: a page-aligned range, its window's pages one by one. */
static int export_mmap(struct dma_buf *buf, struct vm_area_struct *vma)
{
	struct xmemsim_export *ex = buf->priv;
	unsigned long i, n = vma_pages(vma);
	int ret = 0;

	if (!PAGE_ALIGNED(ex->kaddr) || !PAGE_ALIGNED(ex->len))
		return -EINVAL;
	if (vma->vm_pgoff + n > ex->len >> PAGE_SHIFT)
		return -EINVAL;
	for (i = 0; !ret && i < n; i++)
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     vmalloc_to_page(ex->kaddr +
						     (vma->vm_pgoff + i) * PAGE_SIZE));
	return ret;
}

static const struct dma_buf_ops xmemsim_dmabuf_ops = {
	.map_dma_buf = export_map,
	.unmap_dma_buf = export_unmap,
	.release = export_release,
	.vmap = export_vmap,
	.mmap = export_mmap,
};

/**
 * xmemsim_dmabuf_export() - XMEMSIM_IOC_DMABUF_EXPORT, but the fd
 * @xf: the exporter
 * @ex: the command; @ex->fd set to a reserved fd on success
 * @filep: the dma-buf's file, to install at @ex->fd once the caller has
 *	the command's answer (or to put, with the fd, if it has not)
 *
 * Return: 0 or -errno, as the uapi says.
 */
int xmemsim_dmabuf_export(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_export *ex, struct file **filep)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct xmemsim_export *priv;
	struct dma_buf *buf;
	int fd, ret;

	if (ex->flags & ~XMEMSIM_EXPORT_NOCLOEXEC || !ex->len)
		return -EINVAL;
	priv = kzalloc(sizeof(*priv), GFP_KERNEL_ACCOUNT);
	if (!priv)
		return -ENOMEM;
	ret = xmemsim_rec_export(xf, ex->addr, ex->len, &priv->rec);
	if (ret) {
		kfree(priv);
		return ret;
	}
	priv->dev = xf->dev;
	priv->len = ex->len;
	priv->kaddr = xmemsim_kaddr(xf->dev, priv->rec->heap, ex->addr);
	info.ops = &xmemsim_dmabuf_ops;
	info.size = ex->len;
	info.flags = O_RDWR;
	info.priv = priv;
	buf = dma_buf_export(&info);
	if (IS_ERR(buf)) {
		xmemsim_rec_unexport(xf->dev, priv->rec);
		kfree(priv);
		return PTR_ERR(buf);
	}
	/* from here the dma-buf's release owns priv and the count */
	fd = get_unused_fd_flags(ex->flags & XMEMSIM_EXPORT_NOCLOEXEC ?
				 0 : O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(buf);
		return fd;
	}
	ex->fd = fd;
	*filep = buf->file;
	return 0;
}

/* CPU access to an attached and mapped dma-buf: 0 or -errno. */
static int import_attach(struct xmemsim_file *xf, struct xmemsim_map *m)
{
	int ret;

	m->att = dma_buf_attach(m->buf, xf->dev->misc.this_device);
	if (IS_ERR(m->att))
		return PTR_ERR(m->att);
	m->sgt = dma_buf_map_attachment_unlocked(m->att, DMA_BIDIRECTIONAL);
	if (IS_ERR(m->sgt))
		return PTR_ERR(m->sgt);
	ret = dma_buf_vmap_unlocked(m->buf, &m->vmap);
	if (ret)
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	if (m->vmap.is_iomem)
		return -EOPNOTSUPP;
	m->vaddr = m->vmap.vaddr;
	return 0;
}

/**
 * xmemsim_dmabuf_import() - XMEMSIM_IOC_DMABUF_IMPORT
 * @xf: the importer
 * @im: the command; its outputs set on success
 *
 * Return: 0 or -errno, as the uapi says.
 */
int xmemsim_dmabuf_import(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_import *im)
{
	const struct xmemsim_topo *t = xmemsim_topology();
	struct xmemsim_map *m;
	int ret;

	if (im->flags)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	kref_init(&m->ref);
	m->buf = dma_buf_get(im->fd);
	if (IS_ERR(m->buf)) {
		ret = PTR_ERR(m->buf);
		m->buf = NULL;
		goto err;
	}
	m->len = m->buf->size;
	m->peer = XMEMSIM_PEER_HOST;
	if (m->buf->ops == &xmemsim_dmabuf_ops)
		m->peer = ((struct xmemsim_export *)m->buf->priv)->dev->index;
	ret = import_attach(xf, m);
	if (ret)
		goto err;
	ret = slot_take(xf, m, &im->addr);
	if (ret)
		goto err;
	im->len = m->len;
	im->peer = m->peer;
	im->hops = m->peer == XMEMSIM_PEER_HOST ? 1 :
		   t->hops[xf->dev->index][m->peer];
	return 0;
err:
	xmemsim_map_put(m);
	return ret;
}
#else
int xmemsim_dmabuf_export(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_export *ex, struct file **filep)
{
	return -EOPNOTSUPP;
}

int xmemsim_dmabuf_import(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_import *im)
{
	return -EOPNOTSUPP;
}
#endif
