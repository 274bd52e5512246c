/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmemsim internals shared by the module's files.
 */
#ifndef XMEMSIM_INTERNAL_H
#define XMEMSIM_INTERNAL_H

#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/uio.h>
#include <linux/wait.h>

#include "../uapi/xmemsim.h"
#include "plan_internal.h"
#include "xmem_heap.h"

#define XMEMSIM_HBM_POOL_OFF		0x228
#define XMEMSIM_DATARAM_POOL_OFF	0x42c
#define XMEMSIM_DATARAM_POOL_SIZE	0x4000
#define XMEMSIM_STAGING_LO		0x80000
#define XMEMSIM_STAGING_HI		0x90000
#define XMEMSIM_BOUNCE_SIZE		4096
#define XMEMSIM_MEM_LINE		64	/* the ECC granule */
/*
 * The libc heap (the seed's _dataram_libc_heap_mgr) is carved from dataram
 * too; the seed gives no address. Ours: the upper half of the default
 * window, [base + 0x8000, base + 0xc000), clear of the xmem dataram pool
 * [base + 0x42c, base + 0x442c) that the DMA bounce buffers come from.
 */
#define XMEMSIM_LIBC_POOL_OFF		0x8000
#define XMEMSIM_LIBC_POOL_SIZE		0x4000

/*
 * Devices of one module (the devices parameter): /dev/xmemsim, then
 * /dev/xmemsim1 and on, each a struct xmemsim_dev with nothing shared.
 */
#define XMEMSIM_MAX_DEVICES		32

/*
 * Fault sites: the uapi's and one of the module's own after them (see
 * kmod/fault.c).
 */
#define XMEMSIM_FAULT_DMA_STALL		XMEMSIM_NUM_FAULTS
#define XMEMSIM_FAULT_SITES		(XMEMSIM_NUM_FAULTS + 1)

/* A device's fault sites: calls failed on purpose, the framework's knobs. */
struct xmemsim_fault_dev {
	atomic64_t injected[XMEMSIM_FAULT_SITES];
#ifdef CONFIG_FAULT_INJECTION
	struct fault_attr attrs[XMEMSIM_FAULT_SITES];
#endif
};

/* The device's shape, from module parameters; checked before use. */
struct xmemsim_geometry {
	u64 hbm_base;
	u64 hbm_size;
	u64 hbm_pool_off;
	u64 dataram_base;
	u64 dataram_size;
	u64 dataram_pool_off;
	u64 dataram_pool_size;
	u64 libc_pool_off;	/* the libc heap, inside the dataram window */
	u64 libc_pool_size;
	u64 staging_lo;
	u64 staging_hi;
	u32 num_blocks;
	u32 cores;
	u32 heap_mode;		/* enum xmem_heap_mode */
};

/*
 * What one open file, and one user over all its open files, may take, from
 * module parameters; 0 = no limit. Read once at load: they stay fixed for
 * the device's life. A request must fit every limit that applies.
 */
struct xmemsim_limits {
	u64 file_bytes[XMEMSIM_NUM_HEAPS];	/* heap bytes a file may own */
	u32 file_allocs;			/* live allocations a file may own */
	u32 user_allocs;			/* ... a user, over its files */
	u64 user_bytes[XMEMSIM_NUM_HEAPS];	/* heap bytes a user may own */
	u64 plan_file_bytes;	/* kernel memory for one file's plans */
	u64 plan_user_bytes;	/* ... for one user's plans, all files */
	u64 plan_dev_bytes;	/* kernel memory for every file's plans */
};

int xmemsim_geometry_check(const struct xmemsim_geometry *g, const char **why);
int xmemsim_limits_check(const struct xmemsim_limits *l, const char **why);

struct xmemsim_dev;
struct xmemsim_dma;
struct xmemsim_dma_file;

/* The DMA staging block: a block of the dataram heap in the staging range. */
struct xmemsim_bounce {
	u64 addr;
	u64 end;
	u64 cost;		/* the whole block, as the heap gave it */
};

/* The queued-DMA model's parameters, from module parameters. */
struct xmemsim_dma_params {
	u32 engines_per_core;
	u32 queues;
	u32 sems;
	u32 depth;		/* file_dma_depth */
	u32 user_depth;		/* user_dma_depth, 0 = no limit */
	u64 latency_ns;
	u64 bw[XMEMSIM_NUM_HEAPS][XMEMSIM_NUM_HEAPS];	/* bytes/s by kind */
	u64 time_scale;
	u32 check;		/* dma_check: 0 off, 1 report, 2 refuse */
};

/* What the hazard checker reports, counted in sysfs dma_check_reports. */
enum xmemsim_dma_hazard {
	XMEMSIM_HAZARD_HOST,	/* a host access to bytes in flight */
	XMEMSIM_HAZARD_FREE,	/* a free of an allocation in flight */
	XMEMSIM_HAZARD_RACE,	/* two transfers, no semaphore between */
	XMEMSIM_NUM_HAZARDS,
};

/*
 * One heap and the window of device memory its pool lies in. The libc
 * heap's window is the dataram window: it borrows that backing (vaddr
 * owned by the dataram entry) and only its pool differs.
 */
struct xmemsim_window {
	struct xmemsim_dev *dev;
	const char *name;
	u64 base;		/* device address of byte 0 */
	u64 size;
	void *vaddr;		/* vmalloc_user() backing */
	bool borrowed;		/* vaddr belongs to another entry */
	struct xmem_heap heap;
};

/*
 * One user of the device: the open files of one real uid, the opener's
 * (file->f_cred->uid; the kernel's own per-user accounting, user_struct,
 * is keyed the same way). A file keeps the account of the task that opened
 * it for its whole life, whoever uses it later (fork, dup, SCM_RIGHTS,
 * io_uring). What a user holds is the sum over its files; the user_*
 * limits are checked against these sums. Made at a user's first open,
 * freed at its last close.
 */
struct xmemsim_user {
	struct list_head node;		/* in dev->users */
	kuid_t uid;
	u32 files;			/* open files on this account */
	u32 nr_allocs;			/* live allocations */
	u64 owned_bytes[XMEMSIM_NUM_HEAPS];
	u64 bounce_bytes;		/* DMA bounce buffers in use */
	u64 quota_refused;		/* allocations refused by a limit */
	atomic64_t plan_mem;		/* kernel memory of the user's plans */
	atomic64_t mem_ce;		/* memory errors in its allocations */
	atomic64_t mem_ue;
};

/*
 * Locking rules
 *
 * xmemsim_dev.lock (a mutex) protects the heaps, every allocation record
 * (the per-heap address index and each file's list) and the records' pin
 * and map counts. It is never held across copy_{to,from}_user() or any
 * other access that can fault on user memory: ioctl arguments are copied
 * before the lock is taken and results after it is dropped, and the data
 * plane pins the records it copies to or from (kmod/access.c), drops the
 * lock, copies, and unpins. ->mmap() runs with mmap_lock held and takes
 * dev->lock inside it, so the only order is mmap_lock -> dev->lock. A pinned or mapped record
 * cannot be freed (-EBUSY); a file's records go when the file is released,
 * when nothing can hold a pin or a mapping any more.
 *
 * A record's pins count is raised under dev->lock (after the ownership
 * check) and dropped without it (atomic, release ordering), so a copy
 * issued with IOCB_NOWAIT never sleeps on the mutex when it finishes; a
 * free reads the count under dev->lock with acquire ordering.
 *
 * Scrubbing: a freed block is detached from its file and from the address
 * index under dev->lock, cleared with the lock dropped (it is still
 * allocated in the heap, so nobody else can get it), and only then handed
 * back to the heap under dev->lock. Every free byte of every heap is
 * therefore zero, and no file reads a byte that another file wrote.
 * scrub_bytes[] counts the bytes between the two steps.
 *
 * dev->lock also protects the list of users and every counter of a
 * struct xmemsim_user but plan_mem, mem_ce and mem_ue (atomic).
 *
 * dev->lock protects the DMA staging block too (bounce, bounce_refs,
 * bounce_bytes, bounce_failures): the first DMA COPY in flight takes it
 * from the dataram heap and the last gives it back. No lock is held
 * across a COPY's transfer: each COPY moves its bytes through a bounce
 * buffer of its own and takes its turn on its user's engine 0 like any
 * queued transfer (kmod/dma.c).
 *
 * xmemsim_file.plan_lock serialises one file's plans and is taken before
 * dev->lock. plan_mem (per file) is protected by plan_lock; the user's and
 * the device's plan_mem are atomic.
 */
struct xmemsim_dev {
	struct miscdevice misc;
	char name[24];			/* node, sysfs and debugfs name */
	bool registered;		/* the node and debugfs are there */
	struct xmemsim_geometry geo;
	struct mutex lock;		/* see "Locking rules" above */
	struct xmemsim_window win[XMEMSIM_NUM_HEAPS];
	struct rb_root allocs[XMEMSIM_NUM_HEAPS];	/* records by address */
	struct list_head files;				/* open files */
	struct list_head users;				/* their users */
	struct xmemsim_limits lim;
	struct xmemsim_bounce bounce;	/* the staging block, while referenced */
	u32 bounce_refs;		/* DMA COPYs in flight, +1 if reserved */
	u64 bounce_failures;
	u64 scrub_bytes[XMEMSIM_NUM_HEAPS];	/* freed, being cleared */
	u64 export_bytes[XMEMSIM_NUM_HEAPS];	/* kept by dma-bufs alone */
	u32 index;			/* its place among the devices */
	u64 bounce_bytes;			/* the staging block, if taken */
	atomic64_t plan_mem;		/* kernel memory of every file's plans */
	u64 plan_core_size;		/* each core's plan window */
	atomic64_t plan_bytes;		/* synced plans, shared bytes once */
	struct xmemsim_dma *dma;	/* queued DMA (kmod/dma_internal.h) */
	struct xarray poison;		/* bad lines (kmod/fault.c) */
	atomic64_t mem_ce[XMEMSIM_NUM_HEAPS];	/* memory errors seen */
	atomic64_t mem_ue[XMEMSIM_NUM_HEAPS];
	struct xmemsim_fault_dev fault;	/* fault sites (kmod/fault.c) */
	struct dentry *debugfs;
};

/*
 * A file's own fault arms (kmod/fault.c): per site, calls to let pass and
 * calls to fail; and the sites where it follows the framework's attrs.
 */
struct xmemsim_fault_file {
	spinlock_t lock;		/* skip, times; armed, framework written */
	u32 armed;			/* BIT(site): times[site] > 0 */
	u32 framework;			/* BIT(site): opted in */
	u64 skip[XMEMSIM_NUM_FAULTS];
	u64 times[XMEMSIM_NUM_FAULTS];
};

/* One open file of /dev/xmemsim. */
struct xmemsim_file {
	struct xmemsim_dev *dev;
	struct list_head node;		/* in dev->files */
	struct list_head allocs;	/* this file's records */
	struct xmemsim_user *user;	/* the opener's account */
	u64 owned_bytes[XMEMSIM_NUM_HEAPS];
	u32 nr_allocs;
	u64 quota_refused;		/* allocations refused by a limit */
	pid_t pid;
	struct mutex plan_lock;		/* plans; taken before dev->lock */
	struct xmemsim_plan_set *plans;
	u64 plan_mem;			/* kernel memory of plans; plan_lock */
	struct xmemsim_dma_file *dma;	/* queues, semaphores; set once */
	struct xmemsim_fault_file fault;
	struct address_space *mapping;	/* its mappings' (the node's inode) */
	struct mutex ap_lock;		/* ap[]; a leaf */
	struct xmemsim_map *ap[XMEMSIM_APERTURE_SLOTS];	/* kmod/peer.c */
};

/* One live allocation, owned by one open file. */
struct xmemsim_alloc_rec {
	struct rb_node node;		/* in dev->allocs[heap], by addr */
	struct list_head file_node;	/* in owner->allocs */
	struct xmemsim_file *owner;
	u64 addr;			/* aligned address handed out */
	u64 size;			/* bytes asked for: the accessible range */
	u64 block_end;			/* end of the heap block behind it */
	u64 cost;			/* the whole block, slack included */
	u32 heap;
	bool plan;			/* backs the owner's plans */
	atomic_t pins;			/* data-plane copies in flight */
	u32 maps;			/* live VMAs */
	u32 exports;			/* live dma-bufs (kmod/peer.c) */
};

/*
 * What a command handler tells the dispatcher through its *wb: WRITEBACK
 * asks for the status of a failed command to reach the caller; FRESH says
 * a successful command changed state that its undo must revert if the
 * copy back fails.
 */
#define XMEMSIM_WRITEBACK	BIT(0)
#define XMEMSIM_FRESH		BIT(1)

/* ioctl.c: the command table both front ends use */
long xmemsim_dispatch(struct xmemsim_file *xf, unsigned int cmd,
		      void __user *uarg, bool nonblock);

/* owner.c: allocation records, pins and mapping counts */
int xmemsim_heap_take(struct xmemsim_dev *d, u32 heap, u64 size, u64 align,
		      u64 *addr, u64 *end, u64 *cost);
int xmemsim_alloc_for(struct xmemsim_file *xf, u32 heap, u64 size, u64 align,
		      bool plan, u64 *addr, int *status);
int xmemsim_free_for(struct xmemsim_file *xf, u32 heap, u64 addr, bool plan,
		     int *status);
void xmemsim_file_release_allocs(struct xmemsim_file *xf);
int xmemsim_user_attach(struct xmemsim_file *xf, kuid_t uid);
void xmemsim_user_detach(struct xmemsim_file *xf);
void xmemsim_fill(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end, u8 v);
void xmemsim_scrub(struct xmemsim_dev *d, u32 heap, u64 addr, u64 end);
int xmemsim_alloc_size(struct xmemsim_file *xf, u32 heap, u64 addr,
		       u64 *size, u64 *usable);
struct xmemsim_alloc_rec *xmemsim_rec_find(struct xmemsim_dev *d, u32 heap,
					   u64 addr);
/* pins: called by kmod/access.c alone, every other file goes through it */
int xmemsim_pin_range(struct xmemsim_file *xf, u64 addr, u64 len,
		      bool nowait, struct xmemsim_alloc_rec **recp);
void xmemsim_unpin(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec);
int xmemsim_rec_map(struct xmemsim_file *xf, u64 addr, u64 end,
		    struct xmemsim_alloc_rec **recp);
void xmemsim_rec_map_get(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec);
void xmemsim_rec_map_put(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec);
int xmemsim_dev_verify(struct xmemsim_dev *d, char *why, size_t len);
int xmemsim_rec_export(struct xmemsim_file *xf, u64 addr, u64 len,
		       struct xmemsim_alloc_rec **recp);
void xmemsim_rec_unexport(struct xmemsim_dev *d, struct xmemsim_alloc_rec *rec);

/*
 * peer.c: the aperture (uapi "Many devices"): a file's mappings of host
 * pages and dma-bufs, and the dma-bufs it exports. The topology is the
 * module's (main.c), built at load.
 */
struct xmemsim_map;
struct xmemsim_route;
struct xmemsim_topo;
const struct xmemsim_topo *xmemsim_topology(void);
int xmemsim_host_map(struct xmemsim_file *xf, struct xmemsim_host_map *hm);
int xmemsim_unmap(struct xmemsim_file *xf, u64 addr);
int xmemsim_dmabuf_export(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_export *ex, struct file **filep);
int xmemsim_dmabuf_import(struct xmemsim_file *xf,
			  struct xmemsim_dmabuf_import *im);
void xmemsim_file_release_maps(struct xmemsim_file *xf);
bool xmemsim_in_aperture(u64 addr);
int xmemsim_map_get(struct xmemsim_file *xf, u64 addr, u64 len,
		    struct xmemsim_map **mp, void **kaddr);
void xmemsim_map_put(struct xmemsim_map *m);
void xmemsim_map_route(const struct xmemsim_file *xf,
		       const struct xmemsim_map *m, bool to_map,
		       struct xmemsim_route *r);

/* copy.c: XMEMSIM_IOC_COPY and XMEMSIM_IOC_MEMSET */
int xmemsim_bounce_reserve(struct xmemsim_dev *d);
int xmemsim_copy(struct xmemsim_file *xf, struct xmemsim_copy *c);
int xmemsim_memset(struct xmemsim_file *xf, struct xmemsim_memset *ms);

/*
 * fault.c: failures on purpose, memory errors. The sites are the uapi's
 * and one of the module's own after them, which FAULT_ARM does not know:
 * only the framework drives it (fail_dma_stall/ in debugfs,
 * fail_dma_stall= at load, a task's make-it-fail). A transfer it hits
 * stalls its engine XMEMSIM_DMA_STALL_US of wall time once it is done,
 * no lock held, where its waiter may free it: a test's window.
 */
#define XMEMSIM_DMA_STALL_US		20000
bool xmemsim_fault(struct xmemsim_file *xf, unsigned int site);
int xmemsim_fault_arm(struct xmemsim_file *xf, const struct xmemsim_fault_arm *a);
int xmemsim_mem_check(struct xmemsim_dev *d, u32 heap, u64 addr, u64 len);
int xmemsim_mem_read(struct xmemsim_file *xf, u32 heap, u64 addr, u64 len);
int xmemsim_mem_error(struct xmemsim_file *xf, u32 heap, u64 addr, u64 len,
		      u32 kind);
bool xmemsim_mem_bad(struct xmemsim_dev *d, u64 addr, u64 len);
bool xmemsim_mem_page_bad(struct xmemsim_dev *d, u32 heap, u64 addr);
void xmemsim_mem_written(struct xmemsim_dev *d, u64 addr, u64 len);
void xmemsim_mem_freed(struct xmemsim_dev *d, u64 addr, u64 end);
int xmemsim_mem_poison(struct xmemsim_file *xf, u64 addr, u32 kind);
void xmemsim_fault_show(struct xmemsim_dev *d, struct seq_file *m);
int xmemsim_fault_init(struct xmemsim_dev *d);
void xmemsim_fault_debugfs(struct xmemsim_dev *d, struct dentry *dir);

/*
 * dma.c, dma_check.c: queued DMA and semaphores, as the rest of the
 * module sees them; the DMA's own files share kmod/dma_internal.h.
 */
struct seq_file;
u64 xmemsim_dma_duration(u64 latency_ns, u64 bw, u64 len);
int xmemsim_dma_init(struct xmemsim_dev *d, const struct xmemsim_dma_params *p);
void xmemsim_dma_fini(struct xmemsim_dev *d);
int xmemsim_dma_submit(struct xmemsim_file *xf, struct xmemsim_dma_submit *s);
int xmemsim_dma_wait(struct xmemsim_file *xf, struct xmemsim_dma_wait *w,
		     bool nowait);
int xmemsim_dma_reap(struct xmemsim_file *xf, struct xmemsim_dma_reap *r,
		     bool nowait);
int xmemsim_dma_reset(struct xmemsim_file *xf, struct xmemsim_dma_reset *r);
u32 xmemsim_dma_user_inflight(struct xmemsim_dev *d, const struct xmemsim_user *u,
			      u32 *limit);
__poll_t xmemsim_dma_poll(struct xmemsim_file *xf, struct file *file,
			  struct poll_table_struct *pt);
/* COPY's DMA method as a transfer: its ticket in traces */
#define XMEMSIM_COPY_TICKET	U64_MAX
int xmemsim_dma_copy(struct xmemsim_file *xf, u64 src, u64 dst, u64 len,
		     u8 *bounce);
int xmemsim_sem_cmd(struct xmemsim_file *xf, unsigned int cmd,
		    struct xmemsim_sem *s, bool nowait);
int xmemsim_dma_info(struct xmemsim_file *xf, struct xmemsim_dma_info *in);
void xmemsim_dma_release(struct xmemsim_file *xf);
void xmemsim_dma_show(struct xmemsim_dev *d, struct seq_file *m);
bool xmemsim_dma_checks(const struct xmemsim_dev *d);
int xmemsim_dma_check_show(struct xmemsim_dev *d, char *buf);
int xmemsim_dma_check_host(struct xmemsim_file *xf, u64 addr, u64 len,
			   bool write, enum xmemsim_dma_hazard kind,
			   const char *what, bool nowait);

/* plan.c: the plan commands */
int xmemsim_cmd_plan_submit(struct xmemsim_file *xf,
			    struct xmemsim_plan_submit *ps, int *wb);
int xmemsim_cmd_plan_sync(struct xmemsim_file *xf, struct xmemsim_plan_sync *sy,
			  int *wb);
int xmemsim_cmd_plan_get(struct xmemsim_file *xf, struct xmemsim_plan_get *pg);
int xmemsim_cmd_plan_stats(struct xmemsim_file *xf, struct xmemsim_plan_stats *ps);
int xmemsim_cmd_plan_release(struct xmemsim_file *xf);
void xmemsim_plan_unsync(struct xmemsim_file *xf);
void xmemsim_file_release_plans(struct xmemsim_file *xf);

/* uring.c */
struct io_uring_cmd;
int xmemsim_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

/*
 * Kernel address of a device address inside a heap's window (the caller
 * has checked it). Here, not in window.c, so that owner.c and access.c
 * reach the bytes without depending on the data plane's file.
 */
static inline void *xmemsim_kaddr(struct xmemsim_dev *d, u32 heap, u64 addr)
{
	struct xmemsim_window *w = &d->win[heap];

	return w->vaddr + (addr - w->base);
}

/* window.c: the data plane */
ssize_t xmemsim_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t xmemsim_write_iter(struct kiocb *iocb, struct iov_iter *from);
int xmemsim_mmap(struct file *file, struct vm_area_struct *vma);

/* debugfs.c */
void xmemsim_debugfs_init(struct xmemsim_dev *d);
void xmemsim_debugfs_fini(struct xmemsim_dev *d);

#endif /* XMEMSIM_INTERNAL_H */
