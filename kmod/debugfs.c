// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim debugfs: /sys/kernel/debug/xmemsim/{hbm,dataram} (block maps)
 * and files (each open file's allocations); one directory per device,
 * named as its node (xmemsim, xmemsim1, ...).
 */
#include <linux/debugfs.h>
#include <linux/user_namespace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "xmemsim.h"

static int heap_map_show(struct seq_file *m, void *unused)
{
	struct xmemsim_window *w = m->private;
	struct xmemsim_dev *d = w->dev;
	struct xmem_heap_block_info *bi;
	struct xmem_heap_stats st;
	u32 n, i;

	bi = kvmalloc_array(w->heap.num_blocks, sizeof(*bi), GFP_KERNEL);
	if (!bi)
		return -ENOMEM;
	mutex_lock(&d->lock);
	n = xmem_heap_dump(&w->heap, bi, w->heap.num_blocks);
	xmem_heap_get_stats(&w->heap, &st);
	mutex_unlock(&d->lock);

	seq_printf(m, "# %s pool %#llx+%#llx free %llu allocated %llu unused %llu largest %llu descriptors %u/%u split_refused %llu mode %u\n",
		   w->name, w->heap.base, w->heap.size, st.free_bytes,
		   st.allocated_bytes, st.unused_bytes, st.largest_free,
		   st.blocks_in_use, st.num_blocks, st.split_refused,
		   w->heap.mode);
	for (i = 0; i < min(n, w->heap.num_blocks); i++)
		seq_printf(m, "%#018llx %#018llx %12llu %s\n", bi[i].start,
			   bi[i].aligned, bi[i].size,
			   bi[i].allocated ? "alloc" : "free");
	kvfree(bi);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(heap_map);

static int files_show(struct seq_file *m, void *unused)
{
	struct xmemsim_dev *d = m->private;
	struct xmemsim_file *xf;
	struct xmemsim_alloc_rec *rec;

	mutex_lock(&d->lock);
	list_for_each_entry(xf, &d->files, node) {
		seq_printf(m, "file pid %d allocs %u hbm %llu dataram %llu libc %llu quota_refused %llu\n",
			   xf->pid, xf->nr_allocs,
			   xf->owned_bytes[XMEMSIM_HEAP_HBM],
			   xf->owned_bytes[XMEMSIM_HEAP_DATARAM],
			   xf->owned_bytes[XMEMSIM_HEAP_LIBC],
			   xf->quota_refused);
		list_for_each_entry(rec, &xf->allocs, file_node)
			seq_printf(m, "  %s %#llx size %llu block_end %#llx pins %d maps %u\n",
				   d->win[rec->heap].name, rec->addr, rec->size,
				   rec->block_end, atomic_read(&rec->pins),
				   rec->maps);
	}
	mutex_unlock(&d->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(files);

/* One line per user with open files: what it holds over all of them. */
static int users_show(struct seq_file *m, void *unused)
{
	struct xmemsim_dev *d = m->private;
	struct xmemsim_user *u;

	seq_puts(m, "uid files allocs hbm dataram libc plan_mem bounce quota_refused\n");
	mutex_lock(&d->lock);
	list_for_each_entry(u, &d->users, node)
		seq_printf(m, "%u %u %u %llu %llu %llu %lld %llu %llu\n",
			   from_kuid(&init_user_ns, u->uid), u->files,
			   u->nr_allocs, u->owned_bytes[XMEMSIM_HEAP_HBM],
			   u->owned_bytes[XMEMSIM_HEAP_DATARAM],
			   u->owned_bytes[XMEMSIM_HEAP_LIBC],
			   (long long)atomic64_read(&u->plan_mem),
			   u->bounce_bytes, u->quota_refused);
	mutex_unlock(&d->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(users);

static int dma_show(struct seq_file *m, void *unused)
{
	xmemsim_dma_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dma);

/* "ok", or what xmemsim_dev_verify() found wrong, and the plan totals */
static int verify_show(struct seq_file *m, void *unused)
{
	struct xmemsim_dev *d = m->private;
	char why[128] = "";
	int ret;

	ret = xmemsim_dev_verify(d, why, sizeof(why));
	if (ret == -ENOMEM)
		return ret;
	seq_printf(m, "%s\n", ret ? why : "ok");
	seq_printf(m, "plan_mem %lld plan_bytes %lld\n",
		   (long long)atomic64_read(&d->plan_mem),
		   (long long)atomic64_read(&d->plan_bytes));
	mutex_lock(&d->lock);
	seq_printf(m, "bounce_failures %llu\n", d->bounce_failures);
	mutex_unlock(&d->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(verify);

/* "faults": per site, the calls failed on purpose (kmod/fault.c) */
static int faults_show(struct seq_file *m, void *unused)
{
	xmemsim_fault_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(faults);

void xmemsim_debugfs_init(struct xmemsim_dev *d)
{
	int i;

	d->debugfs = debugfs_create_dir(d->name, NULL);
	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++)
		debugfs_create_file(d->win[i].name, 0444, d->debugfs,
				    &d->win[i], &heap_map_fops);
	debugfs_create_file("files", 0444, d->debugfs, d, &files_fops);
	debugfs_create_file("users", 0444, d->debugfs, d, &users_fops);
	debugfs_create_file("dma", 0444, d->debugfs, d, &dma_fops);
	debugfs_create_file("verify", 0400, d->debugfs, d, &verify_fops);
	debugfs_create_file("faults", 0444, d->debugfs, d, &faults_fops);
	xmemsim_fault_debugfs(d, d->debugfs);
}

void xmemsim_debugfs_fini(struct xmemsim_dev *d)
{
	debugfs_remove_recursive(d->debugfs);
}
