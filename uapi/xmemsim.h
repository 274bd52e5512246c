/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xmemsim: the user ABI of /dev/xmemsim, a simulated accelerator memory.
 *
 * One header for the kernel module and every user of the device. Rules that
 * hold for every command:
 *  - all fields are fixed width and naturally aligned; structs have no
 *    implicit padding (the module checks every size with BUILD_BUG_ON);
 *  - every field named reserved*, and every flag bit not defined here, must
 *    be zero or the command fails with -EINVAL; output fields are ignored
 *    on input (callers may leave anything there);
 *  - outputs are written only when the command succeeds, with one
 *    exception: heap commands also write @status (the xmem status code) when
 *    the heap itself refused the request, so callers see why;
 *  - an unknown command fails with -ENOTTY.
 *
 * Device addresses are 64-bit. The HBM scratch window and the dataram window
 * live in one device address space and never overlap; the file offset of
 * pread()/pwrite() is a device address, and mmap() maps one allocation whose
 * device address is given as the offset.
 */
#ifndef _UAPI_XMEMSIM_H
#define _UAPI_XMEMSIM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define XMEMSIM_ABI_VERSION	1
/*
 * 0xB9 is free in Documentation/userspace-api/ioctl/ioctl-number.rst of
 * Linux 6.1 (0xB0-0xB7 are taken); an out-of-tree driver cannot register
 * there, so make check greps the table of the kernel it builds against and
 * fails if the number is ever taken.
 */
#define XMEMSIM_IOC_MAGIC	0xB9

/*
 * GET_INFO's features: what this module offers beyond ABI version 1 as it
 * first shipped. A new command or flag adds a bit here, not a version bump.
 */
#define XMEMSIM_FEAT_URING	0x01ULL	/* IORING_OP_URING_CMD */
#define XMEMSIM_FEAT_PLAN	0x02ULL	/* PLAN_* commands */
#define XMEMSIM_FEAT_LIBC_HEAP	0x04ULL	/* XMEMSIM_HEAP_LIBC */
#define XMEMSIM_FEAT_MEMSET	0x08ULL	/* XMEMSIM_IOC_MEMSET */
#define XMEMSIM_FEAT_FREE_CLEAR	0x10ULL	/* XMEMSIM_FREE_CLEAR */
#define XMEMSIM_FEAT_ALLOC_SIZE	0x20ULL	/* XMEMSIM_IOC_ALLOC_SIZE */
#define XMEMSIM_FEAT_USER_LIMITS 0x40ULL /* per-user limits, USER_STATS */
#define XMEMSIM_FEAT_DMA_QUEUES	0x80ULL	/* DMA_SUBMIT/WAIT, SEM_* */
#define XMEMSIM_FEAT_FAULTS	0x100ULL /* FAULT_ARM, MEM_ERROR */
#define XMEMSIM_FEAT_DMA_REAP	0x200ULL /* DMA_REAP, poll() readiness */
#define XMEMSIM_FEAT_DMA_ERRORS	0x400ULL /* queue error states, DMA_RESET */
#define XMEMSIM_FEAT_DMA_CLOCK	0x800ULL /* per-file clock; every DMA_SUBMIT returns once queued */
#define XMEMSIM_FEAT_DMA_REDUCE	0x1000ULL /* xmemsim_dma_desc op and dtype */
#define XMEMSIM_FEAT_PEER	0x2000ULL /* the aperture: HOST_MAP, UNMAP, links */
#define XMEMSIM_FEAT_DMABUF	0x4000ULL /* DMABUF_EXPORT, DMABUF_IMPORT */
#define XMEMSIM_FEAT_DMA_NOT_BEFORE 0x8000ULL /* xmemsim_dma_desc not_before_ns */

/* Heaps */
#define XMEMSIM_HEAP_HBM	0	/* HBM scratch window */
#define XMEMSIM_HEAP_DATARAM	1	/* on-core dataram window */
#define XMEMSIM_HEAP_LIBC	2	/* dataram too: the on-core libc arena */
#define XMEMSIM_NUM_HEAPS	3

/* xmem status codes, reported beside the errno */
#define XMEMSIM_XMEM_OK			0
#define XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS	(-97)	/* -ENOENT */
#define XMEMSIM_XMEM_INVALID_ARGS	(-98)	/* -EINVAL */
#define XMEMSIM_XMEM_ILLEGAL_ALIGN	(-99)	/* -EINVAL */
#define XMEMSIM_XMEM_ALLOC_FAILED	(-100)	/* -ENOMEM */

/* Copy methods (the seed's data_transfer_method_table) */
#define XMEMSIM_COPY_C_MEMCPY	0
#define XMEMSIM_COPY_VEC_MEMCPY	1
#define XMEMSIM_COPY_DMA	2	/* through a 4 KiB dataram bounce buffer */

/* XMEMSIM_IOC_GET_INFO: the device's geometry and limits. */
struct xmemsim_info {
	__u32 abi_version;
	__u32 num_heaps;
	__u32 cores;
	__u32 num_blocks;		/* descriptors per heap */
	__u64 hbm_base;			/* HBM scratch window */
	__u64 hbm_size;
	__u64 hbm_pool_base;		/* HBM heap pool */
	__u64 hbm_pool_size;
	__u64 dataram_base;		/* dataram window */
	__u64 dataram_size;
	__u64 dataram_pool_base;	/* dataram heap pool */
	__u64 dataram_pool_size;
	__u64 staging_lo;		/* DMA staging range [lo, hi) */
	__u64 staging_hi;
	__u64 stack_default;		/* STACK_ALLOC size 0 means this */
	__u64 stack_max;
	__u32 bounce_size;		/* DMA bounce buffer */
	__u32 default_align;		/* HEAP_ALLOC align 0 means this */
	__u64 plan_core_size;		/* each core's DRAM window for plans */
	__u32 plan_max_tensors;		/* per PLAN_SUBMIT */
	__u32 plan_max_intervals;	/* per PLAN_SUBMIT, all tensors */
	__u64 features;			/* XMEMSIM_FEAT_* */
	__u64 libc_pool_base;		/* libc heap pool, in the dataram window */
	__u64 libc_pool_size;
	__u64 reserved[3];
};

/* XMEMSIM_IOC_HEAP_ALLOC */
#define XMEMSIM_ALLOC_ZERO	0x1U	/* clear the bytes handed out */
#define XMEMSIM_ALLOC_FLAGS	(XMEMSIM_ALLOC_ZERO)

struct xmemsim_alloc {
	__u32 heap;		/* in: XMEMSIM_HEAP_* */
	__u32 flags;		/* in: XMEMSIM_ALLOC_* */
	__u64 size;		/* in: bytes, > 0 */
	__u64 align;		/* in: power of two, 0 = 64 */
	__u64 addr;		/* out: device address */
	__s32 status;		/* out: xmem status */
	__u32 reserved0;
	__u64 reserved[2];
};

/*
 * XMEMSIM_IOC_HEAP_FREE. The device clears every freed block before the
 * heap can hand it out again, flag or not (no file reads another's
 * bytes); CLEAR is the seed's xmem_heap_free_internal(..., clear = 1),
 * accepted so code written against it passes it through.
 */
#define XMEMSIM_FREE_CLEAR	0x1U
#define XMEMSIM_FREE_FLAGS	(XMEMSIM_FREE_CLEAR)

struct xmemsim_free {
	__u32 heap;		/* in */
	__u32 flags;		/* in: XMEMSIM_FREE_* */
	__u64 addr;		/* in: the address HEAP_ALLOC returned */
	__s32 status;		/* out: xmem status */
	__u32 reserved0;
	__u64 reserved[2];
};

/* XMEMSIM_IOC_HEAP_STATS */
struct xmemsim_heap_stats {
	__u32 heap;		/* in */
	__u32 reserved0;
	__u64 pool_base;	/* out, from here on */
	__u64 pool_size;
	__u64 free_bytes;
	__u64 allocated_bytes;	/* whole blocks handed out, slack included */
	__u64 unused_bytes;	/* alignment slack inside allocated blocks */
	__u64 largest_free;	/* largest free block */
	__u64 split_refused;	/* splits skipped: no spare descriptor */
	__u64 owned_bytes;	/* allocated_bytes held by this open file */
	__u32 num_blocks;	/* descriptor pool */
	__u32 blocks_in_use;
	__u32 free_blocks;
	__u32 alloc_blocks;
	/* this open file's limits on this heap (0 = none), what it holds,
	 * and how many of its allocations the limits refused (-EDQUOT)
	 */
	__u64 limit_bytes;
	__u32 file_allocs;	/* live allocations, both heaps */
	__u32 limit_allocs;
	__u64 quota_refused;
	__u64 user_owned_bytes;	/* allocated_bytes held by this file's user */
};

/*
 * XMEMSIM_IOC_USER_STATS: what the user this file is charged to (the real
 * uid that opened it) holds over all its open files, and that user's
 * limits (0 = none). Arrays are indexed by XMEMSIM_HEAP_*.
 */
struct xmemsim_user_stats {
	__u32 uid;		/* out, from here on */
	__u32 files;		/* open files on this account */
	__u64 owned_bytes[XMEMSIM_NUM_HEAPS];
	__u64 limit_bytes[XMEMSIM_NUM_HEAPS];
	__u32 allocs;		/* live allocations, every heap */
	__u32 limit_allocs;
	__u64 plan_mem;		/* kernel memory of the user's plans */
	__u64 limit_plan_mem;
	__u64 bounce_bytes;	/* DMA bounce buffers in use */
	__u64 quota_refused;	/* allocations refused by a limit */
	__u32 dma_inflight;	/* transfers queued, running or unreaped */
	__u32 limit_dma;	/* user_dma_depth, 0: none */
	/* memory errors met in the user's own allocations, every heap,
	 * since its account was made (once reserved: 0 from older modules)
	 */
	__u64 mem_ce;
	__u64 mem_ue;
	__u64 reserved0;
};

/* XMEMSIM_IOC_HEAP_DUMP: the heap's blocks in address order. */
#define XMEMSIM_BLOCK_ALLOCATED	0x1U
#define XMEMSIM_BLOCK_OWNED	0x2U	/* allocated by this file */

struct xmemsim_block {
	__u64 start;		/* true start of the block */
	__u64 aligned;		/* address handed out (start if free) */
	__u64 size;		/* whole block */
	__u32 flags;		/* XMEMSIM_BLOCK_* */
	__u32 reserved;
};

struct xmemsim_heap_dump {
	__u32 heap;		/* in */
	__u32 capacity;		/* in: entries at @blocks */
	__u64 blocks;		/* in: user pointer to struct xmemsim_block[] */
	__u32 count;		/* out: blocks in the heap (may be > capacity) */
	__u32 reserved0;
	__u64 reserved[2];
};

/* XMEMSIM_IOC_STACK_ALLOC: an HBM stack, 64-byte aligned. */
#define XMEMSIM_STACK_DEFAULT	4196
#define XMEMSIM_STACK_MAX	0x400000

struct xmemsim_stack_alloc {
	__u64 size;		/* in: 0 = XMEMSIM_STACK_DEFAULT, <= MAX */
	__u64 addr;		/* out */
	__s32 status;		/* out: xmem status */
	__u32 flags;		/* in: none defined */
	__u64 reserved[2];
};

/*
 * XMEMSIM_IOC_ALLOC_SIZE: one of the caller's allocations, by the address
 * HEAP_ALLOC gave (the seed's _libc_heap_get_alloc_size, on any heap).
 */
struct xmemsim_alloc_size {
	__u32 heap;		/* in */
	__u32 reserved0;
	__u64 addr;		/* in */
	__u64 size;		/* out: bytes asked for */
	__u64 usable;		/* out: bytes to the end of its heap block */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_MEMSET: [addr, addr + len) inside one allocation of the caller. */
struct xmemsim_memset {
	__u64 addr;
	__u64 len;		/* 0 does nothing */
	__u32 value;		/* the byte, 0..255 */
	__u32 flags;		/* none defined */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_COPY: both ranges owned by the caller, not overlapping. */
struct xmemsim_copy {
	__u64 src;
	__u64 dst;
	__u64 len;
	__u32 method;		/* XMEMSIM_COPY_* */
	__u32 flags;		/* none defined */
	__u64 reserved[2];
};

/*
 * DRAM plans. A planner submits one plan per core: tensors with
 * core-relative addresses inside [0, plan_core_size), 4 KiB aligned sizes
 * and their liveness intervals. The device checks each plan (no two tensors
 * live at once share a byte), then SYNC_SHARED gives every linked tensor
 * (XMEMSIM_TENSOR_REMOTE) the address of its owner's shared tensor, and the
 * plan is backed with HBM: the file gets one HBM allocation laid out as
 * the span of the shared tensors (lowest to highest address over every
 * core, one copy that every core sees), then for each core in turn the
 * span of its private tensors; a core with none takes no bytes. PLAN_GET
 * returns each tensor's device address there; pread/pwrite and mmap reach
 * the bytes. PLAN_RELEASE, or closing the file, frees it.
 */
#define XMEMSIM_NAME_LEN		64
#define XMEMSIM_PLAN_ALIGN		4096
#define XMEMSIM_PLAN_ALL_CORES		0xffffffffU
#define XMEMSIM_PLAN_ERR_LEN		160

#define XMEMSIM_TENSOR_SHARED	0x1U	/* one buffer for all cores */
#define XMEMSIM_TENSOR_REMOTE	0x2U	/* linked to remote_core's remote_name */
#define XMEMSIM_TENSOR_FLAGS	(XMEMSIM_TENSOR_SHARED | XMEMSIM_TENSOR_REMOTE)

/* A closed interval [lo, hi] of the core's flat instruction numbering. */
struct xmemsim_interval {
	__u32 lo;
	__u32 hi;
};

struct xmemsim_plan_tensor {
	char name[XMEMSIM_NAME_LEN];	/* NUL-terminated, unique per core */
	char remote_name[XMEMSIM_NAME_LEN]; /* REMOTE only, else all zero */
	__u64 addr;		/* core-relative; REMOTE: 0, SYNC_SHARED sets it */
	__u64 size;		/* bytes, a multiple of 4096, > 0 */
	__u64 intervals;	/* user pointer to xmemsim_interval[nr_intervals] */
	__u32 nr_intervals;
	__u32 flags;		/* XMEMSIM_TENSOR_*; REMOTE needs SHARED */
	__u32 remote_core;	/* REMOTE only */
	__u32 id;		/* the planner's own id, echoed by PLAN_GET */
	__u64 dev_addr;		/* PLAN_GET output; 0 on submit */
	__u32 partition;	/* with addr and bank: the placement triple */
	__u32 bank;		/* that SYNC_SHARED copies; REMOTE: 0 */
	__u64 reserved;
};

/* XMEMSIM_IOC_PLAN_SUBMIT: one core's plan, replacing any earlier one. */
struct xmemsim_plan_submit {
	__u32 core;
	__u32 count;		/* tensors, <= plan_max_tensors */
	__u64 tensors;		/* user pointer to xmemsim_plan_tensor[count] */
	/* out, on a rejected plan: the tensors at fault, as indexes into
	 * tensors[] (0xffffffff where there is none), and why
	 */
	__u32 bad[2];
	char error[XMEMSIM_PLAN_ERR_LEN];
	__u64 reserved[2];
};

/* XMEMSIM_IOC_PLAN_SYNC: equalize shared addresses once every core is in. */
struct xmemsim_plan_sync {
	__u32 flags;		/* none defined */
	__u32 linked;		/* out: tensors given their owner's address */
	__u32 bad_core;		/* out, on failure: the tensor at fault */
	__u32 bad;
	char error[XMEMSIM_PLAN_ERR_LEN]; /* out, on failure */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_PLAN_GET: a core's placements, in submission order. */
struct xmemsim_plan_get {
	__u32 core;
	__u32 capacity;		/* entries at @tensors */
	__u64 tensors;		/* user pointer to xmemsim_plan_tensor[] */
	__u32 count;		/* out: tensors in the plan */
	__u32 synced;		/* out: 1 once PLAN_SYNC succeeded */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_PLAN_STATS: bytes of one core, or of the device (ALL_CORES) */
struct xmemsim_plan_stats {
	__u32 core;		/* in: a core or XMEMSIM_PLAN_ALL_CORES */
	__u32 tensors;		/* out */
	__u64 private_bytes;	/* tensors only this core sees */
	__u64 shared_bytes;	/* shared tensors this core owns (placed) */
	__u64 linked_bytes;	/* linked tensors: the owner's bytes again */
	__u64 total_bytes;	/* private + shared: shared bytes count once */
	__u64 footprint;	/* end of the highest tensor in the window */
	__u64 reserved[2];
};

/*
 * Queued DMA: the one specification (xmemsim(4) says it in prose).
 *
 * Engines and queues. The device has dma_engines engines per core
 * (DMA_INFO says how many in all); each open file has dma_queues FIFO
 * queues on every engine and sems semaphores of its own. Modeled time is
 * per user (the real uid that opened a file): each user has the engines
 * to itself in its own modeled time, where an engine runs one transfer at
 * a time and serves the user's files' queues round-robin; engines run in
 * parallel. Other users' transfers, hangs and clocks never show in a
 * user's modeled times; they share the host's CPUs with it in wall time
 * (a user's bytes move in its own task waiting for DMA, else in its own
 * work item, a turn at a time, no higher in priority than its task that
 * gave the work). A transfer takes dma_latency_ns + len /
 * bandwidth(src heap, dst heap) of modeled time; its bytes move when it
 * completes, never before, then sem[signal_sem] += signal_inc. Both
 * ranges must lie in allocations of the caller (as for COPY), which stay
 * pinned (HEAP_FREE: -EBUSY) until the transfer is done.
 *
 * Completions. DMA_SUBMIT returns once its transfers are queued, through
 * ioctl() and io_uring alike. Each transfer's end (ticket, tag, status,
 * modeled start and end) is a record that DMA_WAIT (one ticket) or
 * DMA_REAP (any) returns and reaps; poll(2)/epoll say when one waits.
 * Every wait has a timeout; through io_uring a wait also ends (-EINTR)
 * when a linked IORING_OP_LINK_TIMEOUT fires or the ring goes.
 *
 * The clock. Each file has its own modeled now: the latest modeled time
 * it has observed (a reaped record's end, a semaphore value it read or
 * waited for, COPY's end), starting at its user's present (the latest
 * end its user's engines have reached) when the file first uses DMA
 * (DMA_INFO, a DMA or semaphore command: DMA_INFO gives a runtime its
 * time base before its first submit). Observing moves it: a record
 * reaped between two submits makes the second start no earlier than
 * that record's end, as a host that waits for a completion
 * before issuing more would; submit, then reap, to model the program
 * alone. A transfer is submitted at its file's now and
 * starts at the latest of: its submission, its queue reaching it (the
 * end of the one before it), its engine being free (the end of the
 * engine's last transfer of the user's), and its wait condition arriving
 * (the modeled time sem[wait_sem] reached wait_value). With time_scale 0
 * (the virtual clock) host time moves nothing: the same descriptors give
 * the same modeled times on any host and however they are split into
 * DMA_SUBMITs, as long as each engine serves one queue of the file and
 * each semaphore is signalled from one queue (otherwise the order in
 * which an engine takes several queues' heads follows what had been
 * submitted when it came free, as on hardware). With time_scale N a
 * modeled ns lasts N wall ns: submission is at the wall clock's modeled
 * time, and a transfer completes when the wall reaches its end.
 *
 * What a file learns of others: its now_ns moves only with what it
 * observes, and starts at its own user's present; its transfers' times
 * depend on its own user's work alone; sysfs "dma" shows every engine's
 * totals to all. Its wall times still show how busy the host is.
 */
#define XMEMSIM_SEM_NONE	0xffffffffU	/* wait_sem/signal_sem: none */
/*
 * With the hazard checker on, a destination holds this from its start
 * until its bytes move at its end; a transfer that fails or hangs once
 * started leaves it there (its destination is undefined, as a DMA engine
 * that stops part way leaves it). Without the checker a failed transfer
 * leaves its destination as it was.
 */
#define XMEMSIM_DMA_POISON	0xdb

struct xmemsim_dma_desc {
	__u64 src;
	__u64 dst;
	__u64 len;		/* > 0; src and dst ranges may not overlap */
	__u32 engine;		/* 0 .. engines - 1 */
	__u32 queue;		/* 0 .. queues - 1 */
	__u32 wait_sem;		/* or XMEMSIM_SEM_NONE */
	__u32 signal_sem;	/* or XMEMSIM_SEM_NONE */
	__u64 wait_value;
	__u64 signal_inc;
	__u64 tag;		/* the caller's, returned by DMA_WAIT */
	__u32 op;		/* XMEMSIM_DMA_OP_*: 0 copies */
	__u32 dtype;		/* XMEMSIM_DMA_T_*: 0 for a copy */
	__u64 not_before_ns;	/* modeled; 0: none (XMEMSIM_FEAT_DMA_NOT_BEFORE) */
};

/*
 * not_before_ns: the transfer starts no earlier than this modeled time.
 * Devices keep their own clocks, and semaphores are one file's: a program
 * that orders a transfer on one device after a completion on another
 * (a collective's step after its neighbour's) waits for that completion
 * and passes its end_ns here. 0 (a descriptor from before the field,
 * whose reserved words were zero) adds nothing.
 */

/*
 * Reduce (XMEMSIM_FEAT_DMA_REDUCE). A transfer whose op is not COPY
 * accumulates instead of copying: when its bytes move, dst[i] = dst[i] op
 * src[i], elementwise over len / size(dtype) elements, little-endian, in
 * the modeled time of a copy of len bytes. A
 * copy has op and dtype 0 (a descriptor from before reduce has them in
 * its reserved words, which were zero); an unknown op or dtype, a dtype
 * with COPY, none with a reduce, or len not a multiple of the element
 * size: -EINVAL. Floating point types add exactly, rounded once to
 * nearest even, with subnormals (never flushed) and overflow to infinity;
 * MAX orders -0 below +0. A NaN operand (or an invalid sum, inf - inf)
 * gives the type's default quiet NaN (sign clear, top fraction bit set),
 * whatever its payload. I32 adds with two's complement wrap-around. The
 * result is bit-exact against a host that does the same (IEEE 754
 * binary32/binary16 and bfloat16 arithmetic, NaNs made default). The
 * hazard checker takes a reduce as what it is: a read and a write of
 * dst (and a read of src). With the checker on, a reduce's destination
 * is not poisoned at its start: it is the reduce's operand.
 */
#define XMEMSIM_DMA_OP_COPY	0
#define XMEMSIM_DMA_OP_SUM	1
#define XMEMSIM_DMA_OP_MAX	2
#define XMEMSIM_DMA_T_NONE	0	/* with COPY */
#define XMEMSIM_DMA_T_F32	1	/* IEEE 754 binary32 */
#define XMEMSIM_DMA_T_BF16	2	/* bfloat16: binary32's top half */
#define XMEMSIM_DMA_T_F16	3	/* IEEE 754 binary16 */
#define XMEMSIM_DMA_T_I32	4	/* two's complement */

/*
 * XMEMSIM_IOC_DMA_SUBMIT: count descriptors, queued all or none. count
 * above file_dma_depth: -E2BIG; more than the file (file_dma_depth) or
 * its user (user_dma_depth) may hold: -EAGAIN, nothing queued; reap
 * (DMA_WAIT, DMA_REAP) or wait for EPOLLOUT, then submit again. Through
 * io_uring a submit is issued inline, so the DMA_SUBMITs of one
 * io_uring_enter take effect in submission-queue order, with two
 * exceptions: one sent to a worker by IOSQE_ASYNC, and one that finds the
 * depth full, which io_uring issues again from its worker (it queues
 * there if a reap has made room meanwhile, after the submits behind it;
 * else it ends -EAGAIN). Where the order matters, link the submits
 * (IOSQE_IO_LINK): a link waits for the one before it, and one that ends
 * -EAGAIN cancels those after it (-ECANCELED).
 */
struct xmemsim_dma_submit {
	__u64 descs;		/* in: user pointer to xmemsim_dma_desc[count] */
	__u32 count;		/* in: 1 .. file_dma_depth */
	__u32 flags;		/* in: 0 */
	__u64 ticket;		/* out: the first descriptor's; the rest follow */
	__u64 reserved[2];
};

/*
 * XMEMSIM_IOC_DMA_WAIT: wait for one transfer (by ticket) to complete and
 * reap it: its modeled start and end, its tag and its status.
 */
struct xmemsim_dma_wait {
	__u64 ticket;		/* in */
	__s64 timeout_ns;	/* in: wall time; < 0 waits for ever */
	__u64 start_ns;		/* out, from here on: modeled times */
	__u64 end_ns;
	__u64 tag;
	__s32 status;		/* 0, or why the transfer failed */
	__u32 reserved0;
	__u64 reserved[2];
};

/*
 * XMEMSIM_IOC_DMA_REAP: reap the caller's completed transfers, whatever
 * their tickets: up to capacity records, in ticket order, waiting up to
 * timeout_ns (wall time) for the first. 0 (count >= 1); -EAGAIN (timeout
 * 0 and nothing completed); -ETIMEDOUT; -EINTR; -ENOENT (nothing in
 * flight: no transfer could complete).
 *
 * Waiting for completions without a thread per wait: poll(2), select(2)
 * and epoll on the file report EPOLLIN while a completed transfer waits
 * to be reaped (DMA_WAIT or DMA_REAP) and EPOLLOUT while the file holds
 * fewer than file_dma_depth transfers. An event loop polls, then reaps
 * every completion in one DMA_REAP: one system call per batch, not per
 * transfer. Readiness on the file, rather than a completion ring mapped
 * into the process, keeps one copy of each record and one owner of its
 * reaping (the kernel), at the cost of that one call.
 */
struct xmemsim_dma_completion {
	__u64 ticket;
	__u64 tag;
	__u64 start_ns;		/* modeled */
	__u64 end_ns;
	__s32 status;		/* 0, or why the transfer failed */
	__u32 reserved;
};

struct xmemsim_dma_reap {
	__u64 recs;		/* in: user pointer to completion[capacity] */
	__u32 capacity;		/* in: 1 .. file_dma_depth */
	__u32 count;		/* out: records written */
	__s64 timeout_ns;	/* in: 0 does not wait, < 0 waits for ever */
	__u32 flags;		/* in: 0 */
	__u32 reserved0;
	__u64 reserved[2];
};

/*
 * Errors stop a queue, as on hardware. A transfer that fails (its status
 * non-zero: -EIO for an injected error or an uncorrectable line of its
 * source) puts its queue into the error state, and a semaphore it would
 * have signalled becomes broken:
 * - every later transfer of that queue, queued then or after, ends
 *   without running, status -ECANCELED, and moves no byte;
 * - a transfer that waits on a broken semaphore, its value not reached,
 *   ends the same way with -EPIPE, and its own queue and signal follow:
 *   the transfers behind it on its queue end with -ECANCELED, and those
 *   waiting on its signal with -EPIPE;
 * - SEM_WAIT on a broken semaphore, its value not reached, gives -EPIPE.
 * Such ends take no engine time: their start and end are when their queue
 * reached them. The state lasts until DMA_RESET clears the queue, or SEM_SET sets
 * the semaphore. COPY's own queue never enters it (COPY reports its
 * error itself), nor does a transfer that hangs (it never ends: a wait's
 * timeout, or closing the file, is what ends it).
 */
struct xmemsim_dma_reset {
	__u32 engine;		/* in */
	__u32 queue;		/* in: 0 .. queues - 1 */
	__s32 status;		/* out: the error that stopped it, or 0 */
	__u32 flags;		/* in: 0 */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_SEM_SET, _GET, _WAIT: one of the caller's semaphores. */
struct xmemsim_sem {
	__u32 sem;		/* in: 0 .. sems - 1 */
	__u32 flags;		/* in: 0 */
	__u64 value;		/* SET: in; GET: out; WAIT: in (>= value) */
	__s64 timeout_ns;	/* WAIT: wall time; < 0 waits for ever */
	__u64 now_ns;		/* out: the caller's modeled now */
	__u64 reserved[2];
};

/* XMEMSIM_IOC_DMA_INFO: the DMA model's shape and parameters. */
struct xmemsim_dma_info {
	__u32 engines;		/* in all: dma_engines x cores */
	__u32 queues;		/* per engine, per open file */
	__u32 sems;		/* per open file */
	__u32 depth;		/* transfers in flight or unreaped per file */
	__u64 latency_ns;
	__u64 bw[XMEMSIM_NUM_HEAPS][XMEMSIM_NUM_HEAPS];	/* bytes/s, src x dst */
	__u64 time_scale;	/* wall ns per modeled ns; 0 = virtual clock */
	__u64 now_ns;		/* the caller's modeled now (see the clock) */
	__u32 user_depth;	/* ... per user over its files, 0 = no limit */
	__u32 reserved0;
	__u64 reserved[3];
};

/*
 * Failures on purpose. Each site is a place where a command fails as the
 * hardware or the kernel would; what the caller sees:
 *
 * HEAP_ALLOC	an allocation (HEAP_ALLOC, STACK_ALLOC, a libc allocation,
 *		a plan's HBM backing) fails as if the pool were full: status
 *		XMEMSIM_XMEM_ALLOC_FAILED, -ENOMEM.
 * HEAP_NOSPLIT	an allocation takes its whole free block unsplit, as when
 *		the heap is out of descriptors (split_refused counts it);
 *		the command succeeds.
 * COPY_DMA	a COPY by XMEMSIM_COPY_DMA fails half way: -EIO; the
 *		destination's first len / 2 bytes, rounded down to a 4 KiB
 *		bounce step, are written and the rest is not.
 * BOUNCE	a COPY by XMEMSIM_COPY_DMA finds no bounce buffer: -EBUSY.
 * DMA_ERROR	a queued transfer completes with status -EIO (its record's
 *		status); no byte moves, its signal semaphore does not go
 *		up, and its queue enters the error state.
 * DMA_HANG	a queued transfer never completes: its engine and queue go
 *		on, a wait for it times out; closing the file frees it.
 * PLAN		PLAN_SUBMIT (the core's plan is not replaced) or PLAN_SYNC
 *		(after every core's links were set, all undone) fails with
 *		-EIO, bad_core naming the core; the device is as before.
 * MEM_CE	a read (below) sees a correctable memory error: the bytes
 *		are right, the heap's ce_count goes up.
 * MEM_UE	a read sees an uncorrectable error: -EIO (a transfer's
 *		status), ue_count goes up, and the read's first 64-byte line
 *		stays bad until rewritten whole or freed.
 *
 * A read is pread() or io_uring READ, the source of a COPY, or the source
 * of a DMA transfer when it completes.
 */
#define XMEMSIM_FAULT_HEAP_ALLOC	0
#define XMEMSIM_FAULT_HEAP_NOSPLIT	1
#define XMEMSIM_FAULT_COPY_DMA		2
#define XMEMSIM_FAULT_BOUNCE		3
#define XMEMSIM_FAULT_DMA_ERROR		4
#define XMEMSIM_FAULT_DMA_HANG		5
#define XMEMSIM_FAULT_PLAN		6
#define XMEMSIM_FAULT_MEM_CE		7
#define XMEMSIM_FAULT_MEM_UE		8
#define XMEMSIM_NUM_FAULTS		9

/* FAULT_ARM flags */
#define XMEMSIM_FAULT_FRAMEWORK	0x1	/* opt in to debugfs fail_<site>/ */

/*
 * XMEMSIM_IOC_FAULT_ARM: arm a site for this open file only. The file's
 * next skip calls of the site pass, then times calls fail; times 0
 * disarms. With XMEMSIM_FAULT_FRAMEWORK (skip 0, times 1 to opt in, 0
 * to opt out) the file instead follows the kernel's fault_attr of the
 * site, /sys/kernel/debug/xmemsim/fail_<site>/, as a task does whose
 * /proc/<pid>/make-it-fail is set. Its counts (interval, times) are the
 * device's, so opting in needs CAP_SYS_ADMIN (-EPERM), as the knobs do.
 */
struct xmemsim_fault_arm {
	__u32 site;		/* XMEMSIM_FAULT_* */
	__u32 flags;		/* XMEMSIM_FAULT_FRAMEWORK or 0 */
	__u64 skip;
	__u64 times;
	__u64 reserved[2];
};

#define XMEMSIM_MEM_CE	1	/* correctable */
#define XMEMSIM_MEM_UE	2	/* uncorrectable */

/*
 * XMEMSIM_IOC_MEM_ERROR: put a memory error on the 64-byte line holding
 * addr, which must lie in an allocation of the caller. A CE is counted
 * and cleared by the next read of the line; a UE fails every read until
 * the line is rewritten whole or its block is freed.
 */
struct xmemsim_mem_error {
	__u64 addr;
	__u32 kind;		/* XMEMSIM_MEM_CE or _UE */
	__u32 flags;		/* 0 */
	__u64 reserved[2];
};

/*
 * Many devices: the aperture (XMEMSIM_FEAT_PEER). Each open file has an
 * aperture of XMEMSIM_APERTURE_SLOTS slots above XMEMSIM_APERTURE_BASE,
 * where it maps memory that is not its device's: its process's own pages
 * (HOST_MAP) and dma-bufs (DMABUF_IMPORT: another xmemsim device's memory,
 * or a host buffer such as udmabuf's). A mapping's device address is its
 * slot's base, XMEMSIM_APERTURE_BASE + slot * XMEMSIM_APERTURE_SLOT_SIZE;
 * a DMA descriptor's src or dst may lie inside one mapping of its file,
 * and pread/pwrite/COPY/mmap know nothing of the aperture (-EACCES). A
 * transfer to or from a mapping takes the modeled route between the
 * devices, or the device's host link, as the topology in sysfs (peers)
 * and xmemsim(4) describe: latency of each link crossed, then the bytes
 * at the lowest bandwidth on the way. The checker sees aperture ranges as
 * its file's; memory errors and poisoning are the owning device's own.
 * Mappings live until UNMAP or the file's release; a transfer in flight
 * keeps its mapping's memory until it ends.
 */
#define XMEMSIM_APERTURE_BASE		0x8000000000000000ULL	/* above every window */
#define XMEMSIM_APERTURE_SLOT_SIZE	0x10000000000ULL	/* 1 TiB */
#define XMEMSIM_APERTURE_SLOTS		64

/*
 * XMEMSIM_IOC_HOST_MAP: pin [uaddr, uaddr + len) of the caller's memory
 * (read and write, page aligned, len a multiple of the page size, at most
 * XMEMSIM_HOST_MAP_MAX) for DMA; counted against RLIMIT_MEMLOCK as the
 * kernel counts pinned memory (-ENOMEM past it, unless CAP_IPC_LOCK).
 * -ENOSPC when every slot is taken, -EFAULT for pages that cannot be
 * pinned (not mapped, not writable, or file-backed where long-term pins
 * are refused).
 */
#define XMEMSIM_HOST_MAP_MAX		0x40000000ULL		/* 1 GiB */
struct xmemsim_host_map {
	__u64 uaddr;		/* in */
	__u64 len;		/* in */
	__u32 flags;		/* in: 0 */
	__u32 reserved;
	__u64 addr;		/* out: its device address in the aperture */
};

/*
 * XMEMSIM_IOC_DMABUF_EXPORT (XMEMSIM_FEAT_DMABUF): a dma-buf of [addr,
 * addr + len), which lies inside one HBM or dataram allocation of the
 * caller's file, as a new fd (O_RDWR; O_CLOEXEC unless XMEMSIM_EXPORT_
 * NOCLOEXEC). The fd is the capability: whoever holds it may import it,
 * on this device or any other, and mmap it (when addr and len are page
 * aligned). While the dma-buf lives, the allocation cannot be freed
 * (-EBUSY) and outlives its file: a closed or dead exporter leaves its
 * bytes to the dma-buf, which frees them at its own release.
 */
#define XMEMSIM_EXPORT_NOCLOEXEC	0x1
struct xmemsim_dmabuf_export {
	__u64 addr;		/* in */
	__u64 len;		/* in: > 0 */
	__u32 flags;		/* in: XMEMSIM_EXPORT_* */
	__s32 fd;		/* out */
};

/*
 * XMEMSIM_IOC_DMABUF_IMPORT: map the dma-buf of fd into the caller's
 * aperture, attached and mapped through the kernel's dma-buf framework
 * (a buffer the kernel cannot map for the CPU: -EOPNOTSUPP). The mapping
 * holds the dma-buf until UNMAP or the file's release. peer says whose
 * memory it is: the exporting xmemsim device's index, or
 * XMEMSIM_PEER_HOST for any other exporter (host memory).
 */
#define XMEMSIM_PEER_HOST	0xffffffffU
struct xmemsim_dmabuf_import {
	__s32 fd;		/* in */
	__u32 flags;		/* in: 0 */
	__u64 addr;		/* out: its device address in the aperture */
	__u64 len;		/* out: the dma-buf's size */
	__u32 peer;		/* out: device index, or XMEMSIM_PEER_HOST */
	__u32 hops;		/* out: links on the route to it (host: 1) */
};

/*
 * XMEMSIM_IOC_UNMAP: end the mapping at addr (a slot's base); -ENOENT if
 * there is none. Transfers in flight on it keep its memory until they end.
 */
struct xmemsim_unmap {
	__u64 addr;		/* in */
};

/*
 * io_uring: IORING_OP_URING_CMD with sqe->cmd_op set to any XMEMSIM_IOC_*
 * number and this struct in the SQE's 16-byte command area. The command's
 * argument struct lives in user memory at @arg, exactly as for ioctl(),
 * and cqe->res carries 0 or the negative errno ioctl() would have given.
 * Outputs are in that struct by the time its CQE is seen: the struct may
 * be reused or freed then, and the kernel writes it no more. Every
 * command completes as its ioctl() returns (DMA_SUBMIT once queued); a
 * wait completes inline if what it waits for is there, else in one of
 * io_uring's workers.
 */
struct xmemsim_uring_cmd {
	__u64 arg;		/* user pointer to the command's struct */
	__u64 reserved;
};

#define XMEMSIM_IOC_GET_INFO	_IOR(XMEMSIM_IOC_MAGIC, 0x00, struct xmemsim_info)
#define XMEMSIM_IOC_HEAP_ALLOC	_IOWR(XMEMSIM_IOC_MAGIC, 0x01, struct xmemsim_alloc)
#define XMEMSIM_IOC_HEAP_FREE	_IOWR(XMEMSIM_IOC_MAGIC, 0x02, struct xmemsim_free)
#define XMEMSIM_IOC_HEAP_STATS	_IOWR(XMEMSIM_IOC_MAGIC, 0x03, struct xmemsim_heap_stats)
#define XMEMSIM_IOC_HEAP_DUMP	_IOWR(XMEMSIM_IOC_MAGIC, 0x04, struct xmemsim_heap_dump)
#define XMEMSIM_IOC_STACK_ALLOC	_IOWR(XMEMSIM_IOC_MAGIC, 0x05, struct xmemsim_stack_alloc)
#define XMEMSIM_IOC_COPY	_IOW(XMEMSIM_IOC_MAGIC, 0x06, struct xmemsim_copy)
#define XMEMSIM_IOC_PLAN_SUBMIT	_IOWR(XMEMSIM_IOC_MAGIC, 0x07, struct xmemsim_plan_submit)
#define XMEMSIM_IOC_PLAN_SYNC	_IOWR(XMEMSIM_IOC_MAGIC, 0x08, struct xmemsim_plan_sync)
#define XMEMSIM_IOC_PLAN_GET	_IOWR(XMEMSIM_IOC_MAGIC, 0x09, struct xmemsim_plan_get)
#define XMEMSIM_IOC_PLAN_STATS	_IOWR(XMEMSIM_IOC_MAGIC, 0x0a, struct xmemsim_plan_stats)
#define XMEMSIM_IOC_PLAN_RELEASE	_IO(XMEMSIM_IOC_MAGIC, 0x0b)
#define XMEMSIM_IOC_MEMSET	_IOW(XMEMSIM_IOC_MAGIC, 0x0c, struct xmemsim_memset)
#define XMEMSIM_IOC_ALLOC_SIZE	_IOWR(XMEMSIM_IOC_MAGIC, 0x0d, struct xmemsim_alloc_size)
#define XMEMSIM_IOC_USER_STATS	_IOR(XMEMSIM_IOC_MAGIC, 0x0e, struct xmemsim_user_stats)
#define XMEMSIM_IOC_DMA_SUBMIT	_IOWR(XMEMSIM_IOC_MAGIC, 0x0f, struct xmemsim_dma_submit)
#define XMEMSIM_IOC_DMA_WAIT	_IOWR(XMEMSIM_IOC_MAGIC, 0x10, struct xmemsim_dma_wait)
#define XMEMSIM_IOC_SEM_SET	_IOW(XMEMSIM_IOC_MAGIC, 0x11, struct xmemsim_sem)
#define XMEMSIM_IOC_SEM_GET	_IOWR(XMEMSIM_IOC_MAGIC, 0x12, struct xmemsim_sem)
#define XMEMSIM_IOC_SEM_WAIT	_IOWR(XMEMSIM_IOC_MAGIC, 0x13, struct xmemsim_sem)
#define XMEMSIM_IOC_DMA_INFO	_IOR(XMEMSIM_IOC_MAGIC, 0x14, struct xmemsim_dma_info)
#define XMEMSIM_IOC_FAULT_ARM	_IOW(XMEMSIM_IOC_MAGIC, 0x15, struct xmemsim_fault_arm)
#define XMEMSIM_IOC_MEM_ERROR	_IOW(XMEMSIM_IOC_MAGIC, 0x16, struct xmemsim_mem_error)
#define XMEMSIM_IOC_DMA_REAP	_IOWR(XMEMSIM_IOC_MAGIC, 0x17, struct xmemsim_dma_reap)
#define XMEMSIM_IOC_DMA_RESET	_IOWR(XMEMSIM_IOC_MAGIC, 0x18, struct xmemsim_dma_reset)
#define XMEMSIM_IOC_HOST_MAP	_IOWR(XMEMSIM_IOC_MAGIC, 0x19, struct xmemsim_host_map)
#define XMEMSIM_IOC_DMABUF_EXPORT	_IOWR(XMEMSIM_IOC_MAGIC, 0x1a, struct xmemsim_dmabuf_export)
#define XMEMSIM_IOC_DMABUF_IMPORT	_IOWR(XMEMSIM_IOC_MAGIC, 0x1b, struct xmemsim_dmabuf_import)
#define XMEMSIM_IOC_UNMAP	_IOW(XMEMSIM_IOC_MAGIC, 0x1c, struct xmemsim_unmap)

#endif /* _UAPI_XMEMSIM_H */
