// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim - a simulated accelerator device memory.
 *
 * Module init/exit, the geometry parameters and the misc devices: one
 * per simulated device (the devices parameter), each with its own memory,
 * heaps, cores, DMA engines, plans, users, fault sites and statistics.
 * Every parameter but devices applies to each device alike.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "topo.h"
#include "xmemsim.h"

static unsigned long long hbm_base = 0x400000000ULL;
module_param(hbm_base, ullong, 0444);
MODULE_PARM_DESC(hbm_base, "Device address of the HBM scratch window (default 16 GiB)");

static unsigned long long hbm_size = 64ULL << 20;
module_param(hbm_size, ullong, 0444);
MODULE_PARM_DESC(hbm_size, "Bytes of HBM scratch (default 64 MiB)");

static unsigned long long dataram_base = XMEMSIM_STAGING_LO;
module_param(dataram_base, ullong, 0444);
MODULE_PARM_DESC(dataram_base, "Device address of the dataram window (default 0x80000)");

static unsigned long long dataram_size = XMEMSIM_STAGING_HI - XMEMSIM_STAGING_LO;
module_param(dataram_size, ullong, 0444);
MODULE_PARM_DESC(dataram_size, "Bytes of dataram (default 64 KiB)");

static unsigned long long libc_pool_off = XMEMSIM_LIBC_POOL_OFF;
module_param(libc_pool_off, ullong, 0444);
MODULE_PARM_DESC(libc_pool_off, "Offset of the libc heap's pool in the dataram window (default 0x8000)");

static unsigned long long libc_pool_size = XMEMSIM_LIBC_POOL_SIZE;
module_param(libc_pool_size, ullong, 0444);
MODULE_PARM_DESC(libc_pool_size, "Bytes of the libc heap's pool (default 16 KiB)");

static unsigned int num_blocks = XMEM_HEAP_DEFAULT_NUM_BLOCKS;
module_param(num_blocks, uint, 0444);
MODULE_PARM_DESC(num_blocks, "Descriptors per heap (default 32)");

static unsigned int heap_mode = XMEM_HEAP_TREE;
module_param(heap_mode, uint, 0444);
MODULE_PARM_DESC(heap_mode, "Heap search: 0 tree (default; the lists while a heap is small), 1 the seed's list walk alone");

static unsigned int plan_core_mb = 64;
module_param(plan_core_mb, uint, 0444);
MODULE_PARM_DESC(plan_core_mb, "Each core's DRAM window for plans, MiB (default 64)");

static unsigned int cores = 2;
module_param(cores, uint, 0444);
MODULE_PARM_DESC(cores, "Accelerator cores (default 2)");

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Simulated devices: /dev/xmemsim, then /dev/xmemsim1 and on (default 1, at most 32)");

static char *topology = "ring";
module_param(topology, charp, 0444);
MODULE_PARM_DESC(topology, "How the devices are linked: ring, torus2d or full (default ring)");

static unsigned int link_mbps = 12000;
module_param(link_mbps, uint, 0444);
MODULE_PARM_DESC(link_mbps, "Each device-to-device link's bandwidth, MB/s, each way (default 12000, below the engines')");

static unsigned long long link_latency_ns = 1000;
module_param(link_latency_ns, ullong, 0444);
MODULE_PARM_DESC(link_latency_ns, "Each device-to-device link's latency, ns (default 1000)");

static unsigned int host_mbps = 8000;
module_param(host_mbps, uint, 0444);
MODULE_PARM_DESC(host_mbps, "Each device's host link bandwidth, MB/s, each way (default 8000)");

static unsigned long long host_latency_ns = 2000;
module_param(host_latency_ns, ullong, 0444);
MODULE_PARM_DESC(host_latency_ns, "Each device's host link latency, ns (default 2000)");

static unsigned short dev_mode = 0600;
module_param(dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "Mode of every device node (default 0600: root only; see udev/60-xmemsim.rules for a group)");

static unsigned long long file_hbm_bytes;
module_param(file_hbm_bytes, ullong, 0444);
MODULE_PARM_DESC(file_hbm_bytes, "HBM bytes one open file may hold, 0 = no limit (default)");

static unsigned long long file_dataram_bytes;
module_param(file_dataram_bytes, ullong, 0444);
MODULE_PARM_DESC(file_dataram_bytes, "Dataram bytes one open file may hold, 0 = no limit (default)");

static unsigned long long file_libc_bytes;
module_param(file_libc_bytes, ullong, 0444);
MODULE_PARM_DESC(file_libc_bytes, "libc heap bytes one open file may hold, 0 = no limit (default)");

static unsigned int file_allocs;
module_param(file_allocs, uint, 0444);
MODULE_PARM_DESC(file_allocs, "Live allocations (heap descriptors) one open file may hold, 0 = no limit (default)");

static unsigned long long user_hbm_bytes;
module_param(user_hbm_bytes, ullong, 0444);
MODULE_PARM_DESC(user_hbm_bytes, "HBM bytes one user may hold over all its open files, 0 = no limit (default)");

static unsigned long long user_dataram_bytes;
module_param(user_dataram_bytes, ullong, 0444);
MODULE_PARM_DESC(user_dataram_bytes, "Dataram bytes one user may hold over all its open files, 0 = no limit (default)");

static unsigned long long user_libc_bytes;
module_param(user_libc_bytes, ullong, 0444);
MODULE_PARM_DESC(user_libc_bytes, "libc heap bytes one user may hold over all its open files, 0 = no limit (default)");

static unsigned int user_allocs;
module_param(user_allocs, uint, 0444);
MODULE_PARM_DESC(user_allocs, "Live allocations one user may hold over all its open files and heaps, 0 = no limit (default)");

static bool bounce_reserve;
module_param(bounce_reserve, bool, 0444);
MODULE_PARM_DESC(bounce_reserve, "Take the DMA bounce buffer from the dataram heap once, at load, rather than at each DMA COPY (default no: the seed's behaviour)");

static unsigned int plan_file_mb = 64;
module_param(plan_file_mb, uint, 0444);
MODULE_PARM_DESC(plan_file_mb, "Kernel memory for one open file's plans, MiB, 0 = no limit (default 64)");

static unsigned int plan_user_mb;
module_param(plan_user_mb, uint, 0444);
MODULE_PARM_DESC(plan_user_mb, "Kernel memory for one user's plans over all its open files, MiB, below plan_dev_mb (default 0: half of plan_dev_mb)");

static unsigned int plan_dev_mb = 128;
module_param(plan_dev_mb, uint, 0444);
MODULE_PARM_DESC(plan_dev_mb, "Kernel memory for all open files' plans, MiB, 0 = no limit (default 128)");

/*
 * Queued DMA (kmod/dma.c). Defaults: two engines per core, so a pipeline
 * can load and store at once, and four queues per engine per file for
 * double buffering with room to spare; 2 us and 16 GB/s between HBM
 * blocks (8 with dataram at one end, 4 within dataram) are the order of
 * an accelerator's descriptor-ring engine. Model values, not measurements:
 * set them to the device you simulate.
 */
static unsigned int dma_engines = 2;
module_param(dma_engines, uint, 0444);
MODULE_PARM_DESC(dma_engines, "DMA engines per core (default 2, at most 16)");

static unsigned int dma_queues = 4;
module_param(dma_queues, uint, 0444);
MODULE_PARM_DESC(dma_queues, "DMA queues per engine, per open file (default 4, at most 64)");

static unsigned int dma_sems = 16;
module_param(dma_sems, uint, 0444);
MODULE_PARM_DESC(dma_sems, "Semaphores per open file (default 16, at most 4096)");

static unsigned int file_dma_depth = 256;
module_param(file_dma_depth, uint, 0444);
MODULE_PARM_DESC(file_dma_depth, "DMA transfers queued, running or unreaped per open file (default 256, at most 65536)");

static unsigned int user_dma_depth;
module_param(user_dma_depth, uint, 0444);
MODULE_PARM_DESC(user_dma_depth, "DMA transfers queued, running or unreaped per user over all its open files, 0 = no limit (default)");

static unsigned long long dma_latency_ns = 2000;
module_param(dma_latency_ns, ullong, 0444);
MODULE_PARM_DESC(dma_latency_ns, "Fixed cost of every DMA transfer, modeled ns (default 2000)");

static unsigned int dma_mbps_hbm_hbm = 16000;
module_param(dma_mbps_hbm_hbm, uint, 0444);
MODULE_PARM_DESC(dma_mbps_hbm_hbm, "DMA bandwidth HBM to HBM, MB/s (default 16000)");

static unsigned int dma_mbps_hbm_dataram = 8000;
module_param(dma_mbps_hbm_dataram, uint, 0444);
MODULE_PARM_DESC(dma_mbps_hbm_dataram, "DMA bandwidth HBM to dataram, MB/s (default 8000)");

static unsigned int dma_mbps_dataram_hbm = 8000;
module_param(dma_mbps_dataram_hbm, uint, 0444);
MODULE_PARM_DESC(dma_mbps_dataram_hbm, "DMA bandwidth dataram to HBM, MB/s (default 8000)");

static unsigned int dma_mbps_dataram_dataram = 4000;
module_param(dma_mbps_dataram_dataram, uint, 0444);
MODULE_PARM_DESC(dma_mbps_dataram_dataram, "DMA bandwidth within dataram, MB/s (default 4000)");

static unsigned int dma_check;
module_param(dma_check, uint, 0444);
MODULE_PARM_DESC(dma_check, "The DMA hazard checker: 0 off (default), 1 report host accesses to transfers not yet observed done and unordered transfers, 2 also refuse them (-EBUSY)");

static unsigned long long time_scale;
module_param(time_scale, ullong, 0444);
MODULE_PARM_DESC(time_scale, "Wall ns per modeled ns; 0 (default) runs DMA on a virtual clock, as fast as the host allows");

/**
 * xmemsim_limits_check() - validate the limits
 * @l: the limits
 * @why: set to a human-readable reason on failure
 *
 * The device-wide plan budget is a backstop that no single user may fill:
 * with plan_dev_bytes set, plan_user_bytes must be smaller (0 there means
 * half of it, filled in at load).
 *
 * Return: 0 or -EINVAL.
 */
int xmemsim_limits_check(const struct xmemsim_limits *l, const char **why)
{
	if (l->plan_dev_bytes && l->plan_user_bytes >= l->plan_dev_bytes) {
		*why = "plan_user_mb must be below plan_dev_mb (no one user may fill the device)";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_limits_check);	/* geometry_test.c: every refusal */

static bool range_ok(u64 base, u64 size, u64 *end)
{
	return size && !check_add_overflow(base, size, end);
}

/* [a, a_end) and [b, b_end) share a byte */
static bool ranges_overlap(u64 a, u64 a_end, u64 b, u64 b_end)
{
	return a < b_end && b < a_end;
}

/* The pool at off, size bytes, inside the window [base, end): its bounds. */
static bool pool_fits(u64 base, u64 end, u64 off, u64 size, u64 *pool,
		      u64 *pool_end)
{
	*pool = base + off;
	return off < end - base && range_ok(*pool, size, pool_end) &&
	       *pool_end <= end;
}

/**
 * xmemsim_geometry_check() - validate a device geometry
 * @g: the geometry
 * @why: set to a human-readable reason on failure
 *
 * Every window must be non-empty and not wrap the 64-bit address space, the
 * heap pools must lie inside their windows (the dataram and libc pools both
 * in the dataram window, apart), the DMA staging range inside the dataram
 * window, and the two windows must not overlap and must end below 2^63,
 * since file offsets are device addresses.
 *
 * Return: 0 or -EINVAL.
 */
int xmemsim_geometry_check(const struct xmemsim_geometry *g, const char **why)
{
	u64 hbm_end, dr_end, pool, pool_end, libc, libc_end;

	if (!range_ok(g->hbm_base, g->hbm_size, &hbm_end)) {
		*why = "HBM window is empty or wraps the address space";
		return -EINVAL;
	}
	if (g->hbm_size <= g->hbm_pool_off) {
		*why = "HBM window too small for its heap pool offset";
		return -EINVAL;
	}
	if (!range_ok(g->dataram_base, g->dataram_size, &dr_end)) {
		*why = "dataram window is empty or wraps the address space";
		return -EINVAL;
	}
	if (hbm_end - 1 > (u64)LLONG_MAX || dr_end - 1 > (u64)LLONG_MAX) {
		*why = "windows must end below 2^63 (file offsets are device addresses)";
		return -EINVAL;
	}
	if (ranges_overlap(g->hbm_base, hbm_end, g->dataram_base, dr_end)) {
		*why = "HBM and dataram windows overlap";
		return -EINVAL;
	}
	if (!pool_fits(g->dataram_base, dr_end, g->libc_pool_off,
		       g->libc_pool_size, &pool, &pool_end)) {
		*why = "libc heap pool does not fit in the dataram window";
		return -EINVAL;
	}
	libc = pool;
	libc_end = pool_end;
	if (!pool_fits(g->dataram_base, dr_end, g->dataram_pool_off,
		       g->dataram_pool_size, &pool, &pool_end)) {
		*why = "dataram heap pool does not fit in the dataram window";
		return -EINVAL;
	}
	if (ranges_overlap(libc, libc_end, pool, pool_end)) {
		*why = "libc heap pool overlaps the dataram heap pool";
		return -EINVAL;
	}
	if (g->staging_lo >= g->staging_hi || g->staging_lo < g->dataram_base ||
	    g->staging_hi > dr_end) {
		*why = "DMA staging range is not inside the dataram window";
		return -EINVAL;
	}
	if (pool_end <= g->staging_lo || pool >= g->staging_hi ||
	    min(pool_end, g->staging_hi) - max(pool, g->staging_lo) <
	    XMEMSIM_BOUNCE_SIZE) {
		*why = "dataram heap pool cannot hold a bounce buffer inside the staging range";
		return -EINVAL;
	}
	if (!g->num_blocks || g->num_blocks > XMEM_HEAP_MAX_NUM_BLOCKS) {
		*why = "num_blocks must be 1..1048576";
		return -EINVAL;
	}
	if (g->heap_mode > XMEM_HEAP_LIST) {
		*why = "heap_mode must be 0 (tree) or 1 (list)";
		return -EINVAL;
	}
	if (!g->cores || g->cores > XMEMSIM_MAX_CORES) {
		*why = "cores must be 1..64";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_geometry_check);	/* geometry_test.c: every refusal */

/* The devices, [0, devices); written at load and unload only. */
static struct xmemsim_dev *xdevs[XMEMSIM_MAX_DEVICES];
/* Their links, built at load before any device (kmod/topo.h). */
static struct xmemsim_topo *xtopo;

const struct xmemsim_topo *xmemsim_topology(void)
{
	return xtopo;
}

/* The device of a node's sysfs directory: misc_register()'s drvdata. */
static struct xmemsim_dev *to_xdev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct xmemsim_dev, misc);
}

/*
 * Set up one heap over [pool_off, pool_off + pool_size) of a window; the
 * window's bytes are vmalloc'd here, or borrowed from another entry (@from).
 */
static int xmemsim_window_init(struct xmemsim_dev *d, struct xmemsim_window *w,
			       const char *name, u64 base, u64 size,
			       const struct xmemsim_window *from,
			       u64 pool_off, u64 pool_size, u32 blocks)
{
	int ret;

	if (size > SIZE_MAX)
		return -E2BIG;
	w->dev = d;
	w->name = name;
	w->base = base;
	w->size = size;
	w->borrowed = from;
	w->vaddr = from ? from->vaddr : vmalloc_user(size);
	if (!w->vaddr)
		return -ENOMEM;
	ret = xmem_heap_init(&w->heap, base + pool_off, pool_size, blocks,
			     d->geo.heap_mode);
	if (ret) {
		if (!w->borrowed)
			vfree(w->vaddr);
		w->vaddr = NULL;
	}
	return ret;
}

static void xmemsim_window_fini(struct xmemsim_window *w)
{
	if (!w->vaddr)
		return;
	xmem_heap_destroy(&w->heap);
	if (!w->borrowed)
		vfree(w->vaddr);
	w->vaddr = NULL;
}

static int xmemsim_open(struct inode *inode, struct file *file)
{
	struct xmemsim_file *xf;
	int ret;

	xf = kzalloc(sizeof(*xf), GFP_KERNEL_ACCOUNT);
	if (!xf)
		return -ENOMEM;
	/* misc_open() left the node's miscdevice here */
	xf->dev = container_of(file->private_data, struct xmemsim_dev, misc);
	xf->pid = task_tgid_nr(current);
	INIT_LIST_HEAD(&xf->allocs);
	mutex_init(&xf->plan_lock);
	mutex_init(&xf->ap_lock);
	spin_lock_init(&xf->fault.lock);
	xf->mapping = file->f_mapping;
	ret = xmemsim_user_attach(xf, file->f_cred->uid);
	if (ret) {
		mutex_destroy(&xf->plan_lock);
		kfree(xf);
		return ret;
	}
	file->private_data = xf;
	/* read/write_iter honour IOCB_NOWAIT: io_uring may issue inline */
	file->f_mode |= FMODE_NOWAIT;
	return 0;
}

static int xmemsim_release(struct inode *inode, struct file *file)
{
	struct xmemsim_file *xf = file->private_data;

	xmemsim_dma_release(xf);
	xmemsim_file_release_maps(xf);
	xmemsim_file_release_plans(xf);
	xmemsim_file_release_allocs(xf);
	xmemsim_user_detach(xf);
	mutex_destroy(&xf->ap_lock);
	mutex_destroy(&xf->plan_lock);
	kfree(xf);
	return 0;
}

/* readiness is the DMA engines': completions to reap, room to submit */
static __poll_t xmemsim_poll(struct file *file, struct poll_table_struct *pt)
{
	return xmemsim_dma_poll(file->private_data, file, pt);
}

static long xmemsim_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	return xmemsim_dispatch(file->private_data, cmd,
				(void __user *)arg, false);
}

/*
 * sysfs: /sys/class/misc/xmemsim/{geometry,hbm_used,dataram_used,libc_used},
 * and the same under xmemsim1 and on: each directory is its device's.
 */
static ssize_t geometry_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct xmemsim_dev *xdev = to_xdev(dev);
	const struct xmemsim_geometry *g = &xdev->geo;

	struct xmemsim_window *h = &xdev->win[XMEMSIM_HEAP_HBM];
	struct xmemsim_window *r = &xdev->win[XMEMSIM_HEAP_DATARAM];
	struct xmemsim_window *l = &xdev->win[XMEMSIM_HEAP_LIBC];
	int n;

	n = sysfs_emit(buf, "hbm %#llx %#llx pool %#llx %#llx\n",
		       g->hbm_base, g->hbm_size, h->heap.base, h->heap.size);
	n += sysfs_emit_at(buf, n, "dataram %#llx %#llx pool %#llx %#llx\n",
			   g->dataram_base, g->dataram_size, r->heap.base,
			   r->heap.size);
	n += sysfs_emit_at(buf, n, "libc pool %#llx %#llx\n", l->heap.base,
			   l->heap.size);
	n += sysfs_emit_at(buf, n, "staging %#llx %#llx\n", g->staging_lo,
			   g->staging_hi);
	n += sysfs_emit_at(buf, n, "num_blocks %u\ncores %u\n", g->num_blocks,
			   g->cores);
	return n;
}
static DEVICE_ATTR_RO(geometry);

static ssize_t heap_used_show(struct device *dev, int heap, char *buf)
{
	struct xmemsim_dev *xdev = to_xdev(dev);
	struct xmem_heap_stats st;

	mutex_lock(&xdev->lock);
	xmem_heap_get_stats(&xdev->win[heap].heap, &st);
	mutex_unlock(&xdev->lock);
	return sysfs_emit(buf, "%llu\n", st.allocated_bytes);
}

static ssize_t hbm_used_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return heap_used_show(dev, XMEMSIM_HEAP_HBM, buf);
}
static DEVICE_ATTR_RO(hbm_used);

static ssize_t dataram_used_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return heap_used_show(dev, XMEMSIM_HEAP_DATARAM, buf);
}
static DEVICE_ATTR_RO(dataram_used);

static ssize_t libc_used_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return heap_used_show(dev, XMEMSIM_HEAP_LIBC, buf);
}
static DEVICE_ATTR_RO(libc_used);

static ssize_t plan_bytes_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&to_xdev(dev)->plan_bytes));
}
static DEVICE_ATTR_RO(plan_bytes);

static ssize_t dma_check_reports_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return xmemsim_dma_check_show(to_xdev(dev), buf);
}
static DEVICE_ATTR_RO(dma_check_reports);

/*
 * dma: the engines as debugfs dma gives them (the modeled clock, then per
 * engine whether it runs, its queue depth and its totals: transfers,
 * bytes, busy modeled ns), for everyone: counts and totals of the whole
 * device, no address, pid or uid. One page: at scale the lines that do
 * not fit give way to a last line "truncated".
 */
static ssize_t dma_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	static const char cut[] = "truncated\n";
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };

	xmemsim_dma_show(to_xdev(dev), &m);
	if (!seq_has_overflowed(&m))
		return m.count;
	/* back to the last whole line that leaves room for the marker */
	m.count = PAGE_SIZE - sizeof(cut);
	while (m.count && buf[m.count - 1] != '\n')
		m.count--;
	memcpy(buf + m.count, cut, sizeof(cut) - 1);
	return m.count + sizeof(cut) - 1;
}
static DEVICE_ATTR_RO(dma);

/*
 * users: every user's holdings, as debugfs users, root only (0400; the
 * udev rule gives it to group xmemsim): counts and totals, no address.
 */
static ssize_t users_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct xmemsim_dev *xdev = to_xdev(dev);
	struct xmemsim_user *u;
	int n;

	n = sysfs_emit(buf, "uid files allocs hbm dataram libc plan_mem bounce quota_refused\n");
	mutex_lock(&xdev->lock);
	list_for_each_entry(u, &xdev->users, node) {
		if (n > PAGE_SIZE - 160) {
			n += sysfs_emit_at(buf, n, "truncated\n");
			break;
		}
		n += sysfs_emit_at(buf, n, "%u %u %u %llu %llu %llu %lld %llu %llu\n",
				   from_kuid(&init_user_ns, u->uid), u->files,
				   u->nr_allocs,
				   u->owned_bytes[XMEMSIM_HEAP_HBM],
				   u->owned_bytes[XMEMSIM_HEAP_DATARAM],
				   u->owned_bytes[XMEMSIM_HEAP_LIBC],
				   (long long)atomic64_read(&u->plan_mem),
				   u->bounce_bytes, u->quota_refused);
	}
	mutex_unlock(&xdev->lock);
	return n;
}
static DEVICE_ATTR_ADMIN_RO(users);

/*
 * peers: the device's place on the interconnect, for everyone. A header
 * line (topology, devices, the link and host link models), then one line
 * per device: its index, the links to it, the first hop, and the route's
 * latency; "xmemctl topo" prints them as a matrix.
 */
static ssize_t peers_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	const struct xmemsim_topo *t = xtopo;
	u32 me = to_xdev(dev)->index, b;
	struct xmemsim_route r;
	int n;

	n = sysfs_emit(buf, "topology %s devices %u shape %ux%u ",
		       xmemsim_topo_name(t->kind), t->n, t->rows, t->cols);
	n += sysfs_emit_at(buf, n, "link_mbps %llu link_latency_ns %llu ",
			   t->link_mbps, t->link_latency_ns);
	n += sysfs_emit_at(buf, n, "host_mbps %llu host_latency_ns %llu\n",
			   t->host_mbps, t->host_latency_ns);
	for (b = 0; b < t->n; b++) {
		xmemsim_topo_route(t, me, b, &r);
		n += sysfs_emit_at(buf, n, "%u hops %u via %u latency_ns %llu\n",
				   b, r.n, t->next[me][b], r.latency_ns);
	}
	return n;
}
static DEVICE_ATTR_RO(peers);

/*
 * Memory errors per heap, as EDAC names them: hbm/ce_count, hbm/ue_count,
 * and the same under dataram/ and libc/ (kmod/fault.c). Root only (0400):
 * they count every user's errors, and another user's errors are not a
 * user's business; each user reads its own in USER_STATS.
 */
struct edac_attr {
	struct device_attribute attr;
	u32 heap;
	bool ue;
};

static ssize_t edac_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	const struct edac_attr *e = container_of(attr, struct edac_attr, attr);
	struct xmemsim_dev *xdev = to_xdev(dev);
	atomic64_t *count = e->ue ? xdev->mem_ue : xdev->mem_ce;

	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&count[e->heap]));
}

#define EDAC_ATTR(_name, _heap, _ue) \
	{ .attr = __ATTR(_name, 0400, edac_show, NULL), .heap = _heap, .ue = _ue }

static struct edac_attr edac_attrs[XMEMSIM_NUM_HEAPS][2] = {
	[XMEMSIM_HEAP_HBM] = {
		EDAC_ATTR(ce_count, XMEMSIM_HEAP_HBM, false),
		EDAC_ATTR(ue_count, XMEMSIM_HEAP_HBM, true),
	},
	[XMEMSIM_HEAP_DATARAM] = {
		EDAC_ATTR(ce_count, XMEMSIM_HEAP_DATARAM, false),
		EDAC_ATTR(ue_count, XMEMSIM_HEAP_DATARAM, true),
	},
	[XMEMSIM_HEAP_LIBC] = {
		EDAC_ATTR(ce_count, XMEMSIM_HEAP_LIBC, false),
		EDAC_ATTR(ue_count, XMEMSIM_HEAP_LIBC, true),
	},
};

static struct attribute *hbm_edac[] = {
	&edac_attrs[XMEMSIM_HEAP_HBM][0].attr.attr,
	&edac_attrs[XMEMSIM_HEAP_HBM][1].attr.attr, NULL
};

static struct attribute *dataram_edac[] = {
	&edac_attrs[XMEMSIM_HEAP_DATARAM][0].attr.attr,
	&edac_attrs[XMEMSIM_HEAP_DATARAM][1].attr.attr, NULL
};

static struct attribute *libc_edac[] = {
	&edac_attrs[XMEMSIM_HEAP_LIBC][0].attr.attr,
	&edac_attrs[XMEMSIM_HEAP_LIBC][1].attr.attr, NULL
};

static const struct attribute_group hbm_edac_group = {
	.name = "hbm", .attrs = hbm_edac,
};

static const struct attribute_group dataram_edac_group = {
	.name = "dataram", .attrs = dataram_edac,
};

static const struct attribute_group libc_edac_group = {
	.name = "libc", .attrs = libc_edac,
};

static struct attribute *xmemsim_attrs[] = {
	&dev_attr_dma.attr,
	&dev_attr_peers.attr,
	&dev_attr_users.attr,
	&dev_attr_dma_check_reports.attr,
	&dev_attr_plan_bytes.attr,
	&dev_attr_geometry.attr,
	&dev_attr_hbm_used.attr,
	&dev_attr_dataram_used.attr,
	&dev_attr_libc_used.attr,
	NULL
};

static const struct attribute_group xmemsim_group = {
	.attrs = xmemsim_attrs,
};

static const struct attribute_group *xmemsim_groups[] = {
	&xmemsim_group, &hbm_edac_group, &dataram_edac_group, &libc_edac_group,
	NULL
};

static const struct file_operations xmemsim_fops = {
	.owner = THIS_MODULE,
	.open = xmemsim_open,
	.release = xmemsim_release,
	.unlocked_ioctl = xmemsim_ioctl,
	.poll = xmemsim_poll,
	.compat_ioctl = compat_ptr_ioctl,
	.read_iter = xmemsim_read_iter,
	.write_iter = xmemsim_write_iter,
	.mmap = xmemsim_mmap,
	.uring_cmd = xmemsim_uring_cmd,
	.llseek = default_llseek,
};

/* The geometry of the module parameters, checked: 0 or -EINVAL. */
static int __init geometry_from_params(struct xmemsim_geometry *geo)
{
	const char *why = NULL;
	int ret;

	*geo = (struct xmemsim_geometry){
		.hbm_base = hbm_base,
		.hbm_size = hbm_size,
		.hbm_pool_off = XMEMSIM_HBM_POOL_OFF,
		.dataram_base = dataram_base,
		.dataram_size = dataram_size,
		.dataram_pool_off = XMEMSIM_DATARAM_POOL_OFF,
		.dataram_pool_size = XMEMSIM_DATARAM_POOL_SIZE,
		.libc_pool_off = libc_pool_off,
		.libc_pool_size = libc_pool_size,
		.staging_lo = XMEMSIM_STAGING_LO,
		.staging_hi = XMEMSIM_STAGING_HI,
		.num_blocks = num_blocks,
		.cores = cores,
		.heap_mode = heap_mode,
	};
	ret = xmemsim_geometry_check(geo, &why);
	if (ret)
		pr_err("bad geometry: %s\n", why);
	return ret;
}

/* The per-file and per-user limits of the module parameters, checked. */
static int __init limits_from_params(struct xmemsim_limits *lim)
{
	const char *why = NULL;
	int ret;

	lim->file_bytes[XMEMSIM_HEAP_HBM] = file_hbm_bytes;
	lim->file_bytes[XMEMSIM_HEAP_DATARAM] = file_dataram_bytes;
	lim->file_bytes[XMEMSIM_HEAP_LIBC] = file_libc_bytes;
	lim->file_allocs = file_allocs;
	lim->user_bytes[XMEMSIM_HEAP_HBM] = user_hbm_bytes;
	lim->user_bytes[XMEMSIM_HEAP_DATARAM] = user_dataram_bytes;
	lim->user_bytes[XMEMSIM_HEAP_LIBC] = user_libc_bytes;
	lim->user_allocs = user_allocs;
	lim->plan_file_bytes = (u64)plan_file_mb << 20;
	lim->plan_user_bytes = (u64)plan_user_mb << 20;
	lim->plan_dev_bytes = (u64)plan_dev_mb << 20;
	ret = xmemsim_limits_check(lim, &why);
	/* the default: half the device's budget, so one user never fills it */
	if (!plan_user_mb)
		lim->plan_user_bytes = lim->plan_dev_bytes / 2;
	if (ret)
		pr_err("bad limits: %s\n", why);
	return ret;
}

/* The queued-DMA model of the module parameters (kmod/dma.c). */
static int __init dma_from_params(struct xmemsim_dev *d)
{
	struct xmemsim_dma_params dp = {
		.engines_per_core = dma_engines,
		.queues = dma_queues,
		.sems = dma_sems,
		.depth = file_dma_depth,
		.user_depth = user_dma_depth,
		.latency_ns = dma_latency_ns,
		.time_scale = time_scale,
		.check = dma_check,
	};
	int ret;

	dp.bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_HBM] = (u64)dma_mbps_hbm_hbm * 1000000;
	dp.bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_DATARAM] = (u64)dma_mbps_hbm_dataram * 1000000;
	dp.bw[XMEMSIM_HEAP_DATARAM][XMEMSIM_HEAP_HBM] = (u64)dma_mbps_dataram_hbm * 1000000;
	dp.bw[XMEMSIM_HEAP_DATARAM][XMEMSIM_HEAP_DATARAM] =
		(u64)dma_mbps_dataram_dataram * 1000000;
	ret = xmemsim_dma_init(d, &dp);
	if (ret)
		pr_err("bad DMA parameters: dma_engines 1..16, dma_queues 1..64, dma_sems 1..4096, file_dma_depth 1..65536, user_dma_depth 0..1048576, bandwidths > 0, dma_check 0..2\n");
	return ret;
}

/* The interconnect of the devices parameter's devices: 0 or -errno. */
static int __init topo_from_params(void)
{
	int kind = xmemsim_topo_kind(topology);

	if (kind < 0 || !link_mbps || !host_mbps ||
	    link_latency_ns > NSEC_PER_SEC || host_latency_ns > NSEC_PER_SEC) {
		pr_err("bad interconnect: topology ring, torus2d or full; link_mbps and host_mbps > 0; latencies at most 1 s\n");
		return -EINVAL;
	}
	xtopo = kzalloc(sizeof(*xtopo), GFP_KERNEL);
	if (!xtopo)
		return -ENOMEM;
	xmemsim_topo_build(xtopo, devices, kind);
	xtopo->link_mbps = link_mbps;
	xtopo->link_latency_ns = link_latency_ns;
	xtopo->host_mbps = host_mbps;
	xtopo->host_latency_ns = host_latency_ns;
	return 0;
}

/* The three heaps in their windows: libc's borrows the dataram window. */
static int __init windows_init(struct xmemsim_dev *d)
{
	const struct xmemsim_geometry *g = &d->geo;
	int ret;

	ret = xmemsim_window_init(d, &d->win[XMEMSIM_HEAP_HBM], "hbm",
				  g->hbm_base, g->hbm_size, NULL,
				  g->hbm_pool_off, g->hbm_size - g->hbm_pool_off,
				  g->num_blocks);
	if (ret)
		return ret;
	ret = xmemsim_window_init(d, &d->win[XMEMSIM_HEAP_DATARAM], "dataram",
				  g->dataram_base, g->dataram_size, NULL,
				  g->dataram_pool_off, g->dataram_pool_size,
				  g->num_blocks);
	if (ret)
		goto err_hbm;
	ret = xmemsim_window_init(d, &d->win[XMEMSIM_HEAP_LIBC], "libc",
				  g->dataram_base, g->dataram_size,
				  &d->win[XMEMSIM_HEAP_DATARAM],
				  g->libc_pool_off, g->libc_pool_size,
				  g->num_blocks);
	if (ret)
		goto err_dataram;
	return 0;

err_dataram:
	xmemsim_window_fini(&d->win[XMEMSIM_HEAP_DATARAM]);
err_hbm:
	xmemsim_window_fini(&d->win[XMEMSIM_HEAP_HBM]);
	return ret;
}

/* The windows again, the borrower first. */
static void windows_fini(struct xmemsim_dev *d)
{
	xmemsim_window_fini(&d->win[XMEMSIM_HEAP_LIBC]);
	xmemsim_window_fini(&d->win[XMEMSIM_HEAP_DATARAM]);
	xmemsim_window_fini(&d->win[XMEMSIM_HEAP_HBM]);
}

/* A device of this geometry with its locks, lists and counters; no heap. */
static struct xmemsim_dev *__init dev_alloc(const struct xmemsim_geometry *geo)
{
	struct xmemsim_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int i;

	if (!d)
		return NULL;
	d->geo = *geo;
	xa_init(&d->poison);
	d->plan_core_size = (u64)plan_core_mb << 20;
	atomic64_set(&d->plan_bytes, 0);
	atomic64_set(&d->plan_mem, 0);
	mutex_init(&d->lock);
	INIT_LIST_HEAD(&d->files);
	INIT_LIST_HEAD(&d->users);
	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++)
		d->allocs[i] = RB_ROOT;
	return d;
}

/* What dev_alloc() and dma_from_params() made. */
static void dev_free(struct xmemsim_dev *d)
{
	if (d->dma)
		xmemsim_dma_fini(d);
	xa_destroy(&d->poison);
	kfree(d);
}

/* One device's teardown, the reverse of dev_create(); NULL is nothing. */
static void dev_destroy(struct xmemsim_dev *d)
{
	if (!d)
		return;
	if (d->registered) {
		misc_deregister(&d->misc);
		xmemsim_debugfs_fini(d);
	}
	xmemsim_dma_fini(d);
	windows_fini(d);
	dev_free(d);
}

/*
 * Device @index, whole but for its node: its DMA model, heaps and bounce
 * reserve. Device 0 is "xmemsim", as it was before there were more; the
 * others add their index.
 */
static int __init dev_create(unsigned int index,
			     const struct xmemsim_geometry *geo,
			     const struct xmemsim_limits *lim,
			     struct xmemsim_dev **dp)
{
	struct xmemsim_dev *d;
	int ret;

	d = dev_alloc(geo);
	if (!d)
		return -ENOMEM;
	d->index = index;
	if (index)
		snprintf(d->name, sizeof(d->name), "xmemsim%u", index);
	else
		strscpy(d->name, "xmemsim", sizeof(d->name));
	d->lim = *lim;
	ret = xmemsim_fault_init(d);
	if (ret)
		goto err_free;
	ret = dma_from_params(d);
	if (ret)
		goto err_free;
	ret = windows_init(d);
	if (ret)
		goto err_free;
	if (bounce_reserve) {
		ret = xmemsim_bounce_reserve(d);
		if (ret) {
			pr_err("bad geometry: no bounce buffer inside the staging range to reserve\n");
			goto err_windows;
		}
	}
	*dp = d;
	return 0;

err_windows:
	windows_fini(d);
err_free:
	dev_free(d);
	return ret;
}

/* A whole device's node, sysfs and debugfs directories. */
static int __init dev_register(struct xmemsim_dev *d)
{
	int ret;

	d->misc.minor = MISC_DYNAMIC_MINOR;
	d->misc.name = d->name;
	d->misc.fops = &xmemsim_fops;
	d->misc.mode = dev_mode;
	d->misc.groups = xmemsim_groups;
	ret = misc_register(&d->misc);
	if (ret)
		return ret;
	d->registered = true;
	/* an importer's attachments map pages for the device: any address */
	d->misc.this_device->coherent_dma_mask = DMA_BIT_MASK(64);
	d->misc.this_device->dma_mask = &d->misc.this_device->coherent_dma_mask;
	xmemsim_debugfs_init(d);
	return 0;
}

/* Every device, the last made first. */
static void devs_destroy(void)
{
	int i;

	for (i = XMEMSIM_MAX_DEVICES - 1; i >= 0; i--) {
		dev_destroy(xdevs[i]);
		xdevs[i] = NULL;
	}
}

/*
 * Load: the parameters checked, then every device whole, and only then
 * their nodes, so that nobody opens a device that is not whole, and a
 * device that cannot be made (memory) fails the load before any node can
 * be opened.
 */
static int __init xmemsim_init(void)
{
	struct xmemsim_geometry geo;
	struct xmemsim_limits lim = {};
	unsigned int i;
	int ret;

	ret = geometry_from_params(&geo);
	if (ret)
		return ret;
	if (dev_mode & ~0666) {
		pr_err("bad dev_mode %#o: only read/write bits\n", dev_mode);
		return -EINVAL;
	}
	if (!devices || devices > XMEMSIM_MAX_DEVICES) {
		pr_err("bad devices %u: must be 1..%u\n", devices, XMEMSIM_MAX_DEVICES);
		return -EINVAL;
	}
	ret = limits_from_params(&lim);
	if (!ret)
		ret = topo_from_params();
	if (ret)
		return ret;
	for (i = 0; i < devices; i++) {
		ret = dev_create(i, &geo, &lim, &xdevs[i]);
		if (ret)
			goto err;
	}
	for (i = 0; i < devices; i++) {
		ret = dev_register(xdevs[i]);
		if (ret)
			goto err;
	}

	pr_info("HBM %#llx+%#llx, dataram %#llx+%#llx, %u descriptors/heap, %u cores\n",
		geo.hbm_base, geo.hbm_size, geo.dataram_base, geo.dataram_size,
		geo.num_blocks, geo.cores);
	if (devices > 1)
		pr_info("%u devices: xmemsim, xmemsim1 .. xmemsim%u, each as above\n",
			devices, devices - 1);
	return 0;

err:
	devs_destroy();
	kfree(xtopo);
	return ret;
}

static void __exit xmemsim_exit(void)
{
	devs_destroy();
	kfree(xtopo);
}
module_init(xmemsim_init);
module_exit(xmemsim_exit);

MODULE_DESCRIPTION("Simulated accelerator device memory");
MODULE_AUTHOR("xmemsim developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(XMEMSIM_VERSION);
