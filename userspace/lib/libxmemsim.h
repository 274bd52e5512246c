/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libxmemsim: the user library of /dev/xmemsim (libxmemsim(3)).
 *
 * Every call returns 0 or a negative errno, like liburing. Heap calls also
 * report the xmem status code through *status when the caller passes one.
 * The library keeps no global state: each call takes the caller's handle,
 * struct xms_dev, which carries the open file and (optionally) the ring its
 * commands go through. One handle is used by one thread at a time.
 */
#ifndef LIBXMEMSIM_H
#define LIBXMEMSIM_H

#include <stddef.h>
#include <stdint.h>

#include <xmemsim/xmemsim.h>

#define XMEMSIM_DEFAULT_PATH "/dev/xmemsim"

struct xms_ring;

/*
 * An open device. fd is the open file (the caller may mmap(), poll() or
 * pread() it directly); ring, when not NULL, is the ring every command of
 * this handle goes through (xms_attach_ring()). The handle is the caller's
 * memory: the library allocates nothing for it.
 */
struct xms_dev {
	int fd;
	struct xms_ring *ring;
};

/* Open the device (path NULL means /dev/xmemsim) into *dev: 0 or -errno. */
int xms_open(struct xms_dev *dev, const char *path);
/* A handle on a file the caller opened itself (fd is not duplicated). */
void xms_dev_init(struct xms_dev *dev, int fd);
/* Closes dev->fd (not an attached ring: xms_ring_exit() that). */
int xms_close(struct xms_dev *dev);

int xms_get_info(struct xms_dev *dev, struct xmemsim_info *info);

/*
 * Heap commands. *status (if not NULL) gets the xmem status code whenever
 * the device reports one; *addr is written only on success.
 */
int xms_alloc(struct xms_dev *dev, unsigned int heap, uint64_t size, uint64_t align,
	      uint32_t flags, uint64_t *addr, int *status);
int xms_free(struct xms_dev *dev, unsigned int heap, uint64_t addr, int *status);
int xms_stats(struct xms_dev *dev, unsigned int heap, struct xmemsim_heap_stats *st);
/* What the user this file is charged to holds, and its limits (USER_STATS). */
int xms_user_stats(struct xms_dev *dev, struct xmemsim_user_stats *st);

/*
 * Queued DMA (XMEMSIM_FEAT_DMA_QUEUES): descriptors queued all or none,
 * *ticket the first one's; the submit returns once they are queued, by
 * ioctl() or an attached ring alike (XMEMSIM_FEAT_DMA_CLOCK). A wait
 * reaps one transfer (timeout_ns < 0: for ever). Semaphores are the
 * file's own.
 */
int xms_dma_info(struct xms_dev *dev, struct xmemsim_dma_info *info);
int xms_dma_submit(struct xms_dev *dev, const struct xmemsim_dma_desc *descs,
		   uint32_t count, uint64_t *ticket);
int xms_dma_wait(struct xms_dev *dev, uint64_t ticket, int64_t timeout_ns,
		 struct xmemsim_dma_wait *done);
/*
 * Reap up to cap completed transfers, any tickets, in ticket order,
 * waiting up to timeout_ns for the first (0: not at all, < 0: for ever);
 * *count records written to recs (XMEMSIM_FEAT_DMA_REAP). With poll() on
 * dev->fd (POLLIN: completions wait), an event loop reaps a batch per call.
 */
int xms_dma_reap(struct xms_dev *dev, struct xmemsim_dma_completion *recs,
		 uint32_t cap, int64_t timeout_ns, uint32_t *count);
/*
 * Take a queue out of the error state a failed transfer put it in
 * (XMEMSIM_FEAT_DMA_ERRORS); *status: that error, or 0.
 */
int xms_dma_reset(struct xms_dev *dev, uint32_t engine, uint32_t queue,
		  int32_t *status);
int xms_sem_set(struct xms_dev *dev, uint32_t sem, uint64_t value);
int xms_sem_get(struct xms_dev *dev, uint32_t sem, uint64_t *value);
int xms_sem_wait(struct xms_dev *dev, uint32_t sem, uint64_t value,
		 int64_t timeout_ns);
/*
 * Failures on purpose (XMEMSIM_FEAT_FAULTS): arm a site of this file
 * (skip calls pass, then times fail; flags XMEMSIM_FAULT_FRAMEWORK to
 * follow debugfs fail_<site>/ instead), or put a memory error
 * (XMEMSIM_MEM_CE/_UE) on the 64-byte line at addr of one's own.
 */
int xms_fault_arm(struct xms_dev *dev, uint32_t site, uint32_t flags,
		  uint64_t skip, uint64_t times);
int xms_mem_error(struct xms_dev *dev, uint64_t addr, uint32_t kind);
/* Fills up to cap blocks; *count gets the heap's block count. */
int xms_dump(struct xms_dev *dev, unsigned int heap, struct xmemsim_block *blocks,
	     uint32_t cap, uint32_t *count);
/* flags: XMEMSIM_FREE_CLEAR (every free scrubs anyway; see xmemsim.h) */
int xms_free_flags(struct xms_dev *dev, unsigned int heap, uint64_t addr,
		   uint32_t flags, int *status);
/* One of dev's allocations: bytes asked for and bytes to its block's end. */
int xms_alloc_size(struct xms_dev *dev, unsigned int heap, uint64_t addr,
		   uint64_t *size, uint64_t *usable);
int xms_stack_alloc(struct xms_dev *dev, uint64_t size, uint64_t *addr, int *status);
/* Sets [addr, addr + len) of one of dev's allocations to value (0..255). */
int xms_memset(struct xms_dev *dev, uint64_t addr, unsigned int value, uint64_t len);
int xms_copy(struct xms_dev *dev, uint64_t src, uint64_t dst, uint64_t len,
	     unsigned int method);

/*
 * DRAM plans. xms_plan_submit sends one core's plan; on a rejected plan
 * bad[0..1] (if not NULL) get the indexes of the tensors at fault
 * (0xffffffff where none) and err (if not NULL) the device's sentence.
 * xms_plan_sync equalizes shared addresses across the submitted cores;
 * *linked gets the number of linked tensors, err the reason on failure.
 * On success err is set to "" and bad[] to 0xffffffff.
 */
int xms_plan_submit(struct xms_dev *dev, uint32_t core, const struct xmemsim_plan_tensor *t,
		    uint32_t count, uint32_t bad[2], char *err, size_t errlen);
int xms_plan_sync(struct xms_dev *dev, uint32_t *linked, char *err, size_t errlen);
/* Up to cap tensors of core's plan; *count gets the plan's tensor count,
 * *synced 1 once PLAN_SYNC succeeded (either may be NULL). */
int xms_plan_get(struct xms_dev *dev, uint32_t core, struct xmemsim_plan_tensor *out,
		 uint32_t cap, uint32_t *count, uint32_t *synced);
/* core: a core or XMEMSIM_PLAN_ALL_CORES. */
int xms_plan_stats(struct xms_dev *dev, uint32_t core, struct xmemsim_plan_stats *st);
int xms_plan_release(struct xms_dev *dev);

/* Bytes at device addresses (whole transfers or -errno). */
int xms_read(struct xms_dev *dev, uint64_t addr, void *buf, size_t len);
int xms_write(struct xms_dev *dev, uint64_t addr, const void *buf, size_t len);

/*
 * The one path every command wrapper takes: ioctl(), or the ring attached to
 * dev with xms_attach_ring() (one command submitted and reaped at a time,
 * same results). Returns 0 or -errno.
 */
int xms_cmd(struct xms_dev *dev, unsigned long cmd, void *arg);

/*
 * Batched commands over io_uring. Queue any number of commands (each with
 * a tag of the caller's choosing), submit them with one system call, and
 * reap their results in completion order. A queued command's argument
 * struct must stay valid until its result has been reaped. A ring belongs
 * to the thread that created it (IORING_SETUP_SINGLE_ISSUER where the
 * kernel has it): submit and reap from that thread only.
 */
struct io_uring;
struct xms_ring {
	struct io_uring *ring;
	int fd;
	unsigned int entries;
	unsigned int queued;	/* queued, not yet submitted */
	unsigned int inflight;	/* submitted, not yet reaped */
};

struct xms_result {
	uint64_t tag;
	int res;		/* 0 or -errno, as ioctl() would give */
};

/* A ring on dev's file; it carries dev's commands once attached. */
int xms_ring_init(struct xms_ring *r, const struct xms_dev *dev,
		  unsigned int entries);
void xms_ring_exit(struct xms_ring *r);
/* -EBUSY when the submission queue is full: submit (and reap) first. */
int xms_ring_queue(struct xms_ring *r, unsigned long cmd, void *arg,
		   uint64_t tag);
/*
 * The same with SQE flags (IOSQE_IO_LINK, IOSQE_IO_HARDLINK,
 * IOSQE_IO_DRAIN, IOSQE_ASYNC; any other: -EINVAL): a DMA_SUBMIT linked
 * to the DMA_REAP after it, for one.
 */
int xms_ring_queue_flags(struct xms_ring *r, unsigned long cmd, void *arg,
			 uint64_t tag, unsigned int sqe_flags);
/* Submits what is queued; returns how many or -errno. */
int xms_ring_submit(struct xms_ring *r);
/* Waits for at least min results, returns up to max of them (or -errno). */
int xms_ring_reap(struct xms_ring *r, struct xms_result *res, unsigned int max,
		  unsigned int min);
/*
 * The same, waiting at most timeout_ns (wall time, < 0: for ever) for the
 * min results: what came by then, or -ETIMEDOUT if nothing did.
 */
int xms_ring_reap_timeout(struct xms_ring *r, struct xms_result *res,
			  unsigned int max, unsigned int min, int64_t timeout_ns);
/* Route dev's commands through r (NULL: back to ioctl); -EINVAL when r is
 * a ring on another file. */
int xms_attach_ring(struct xms_dev *dev, struct xms_ring *r);

/* Name of an xmem status code ("ALLOC_FAILED", ...). */
const char *xms_status_name(int status);
/* Heap id from "hbm"/"dataram"/"libc" (any case) or "0"/"1"/"2"; -EINVAL if unknown. */
int xms_heap_id(const char *name);
const char *xms_heap_name(unsigned int heap);
/*
 * Why a heap said ENOMEM, as one sentence for the user: the pool, the
 * bytes asked for (size; 0 leaves them out), the bytes free and the
 * largest free block now, and the module parameter that sizes the pool
 * (GET_INFO and HEAP_STATS on dev). 0, or -errno (buf then says why not).
 */
int xms_nomem_reason(struct xms_dev *dev, unsigned int heap, uint64_t size,
		     char *buf, size_t len);

/*
 * Collectives across devices (xms_comm_init(3)): a communicator over
 * several devices of the module, one rank a device, as NCCL's
 * ncclCommInitAll() makes one in a single process. Buffers are device
 * addresses, one per rank, each an allocation the rank's device handle
 * (xms_comm_dev) made (a rank of its own process, xms_comm_init_rank: its
 * one address); count is in elements of dtype (XMEMSIM_DMA_T_*),
 * op XMEMSIM_DMA_OP_SUM or _MAX. Each call returns 0 or -errno, and in
 * *time_ns (when not NULL) the collective's modeled time.
 */
enum {
	XMS_COLL_ALL_REDUCE,
	XMS_COLL_REDUCE_SCATTER,
	XMS_COLL_ALL_GATHER,
	XMS_COLL_BROADCAST,
};

struct xms_comm;

int xms_comm_init_all(struct xms_comm **comm, int ndev, const int *devlist);
int xms_comm_init_rank(struct xms_comm **comm, int nranks, int rank, int dev,
		       int sock_prev, int sock_next);
int xms_comm_user_rank(const struct xms_comm *comm);
int xms_comm_destroy(struct xms_comm *comm);
int xms_comm_count(const struct xms_comm *comm);
struct xms_dev *xms_comm_dev(struct xms_comm *comm, int rank);
int xms_all_reduce(struct xms_comm *comm, const uint64_t *sendbuf,
		   const uint64_t *recvbuf, uint64_t count, uint32_t dtype,
		   uint32_t op, uint64_t *time_ns);
int xms_reduce_scatter(struct xms_comm *comm, const uint64_t *sendbuf,
		       const uint64_t *recvbuf, uint64_t recvcount,
		       uint32_t dtype, uint32_t op, uint64_t *time_ns);
int xms_all_gather(struct xms_comm *comm, const uint64_t *sendbuf,
		   const uint64_t *recvbuf, uint64_t sendcount, uint32_t dtype,
		   uint64_t *time_ns);
int xms_broadcast(struct xms_comm *comm, const uint64_t *sendbuf,
		  const uint64_t *recvbuf, uint64_t count, uint32_t dtype,
		  int root, uint64_t *time_ns);
double xms_coll_busbw_factor(int coll, int nranks);
int xms_coll_expect(int coll, int nranks, const void *const *send,
		    void *const *recv, uint64_t count, uint32_t dtype,
		    uint32_t op, int root);

/*
 * The all-reduce's algorithm: the ring, or at small sizes a tree (the
 * model's choice by size, XMS_ALGO_AUTO, the default); one process's
 * communicator (xms_comm_init_all) only, a rank of its own process keeps
 * the ring. xms_comm_algo() says which a call would take;
 * xms_coll_expect_algo() is xms_coll_expect() in that algorithm's order.
 */
enum {
	XMS_ALGO_AUTO,
	XMS_ALGO_RING,
	XMS_ALGO_TREE,
};

int xms_comm_set_algo(struct xms_comm *comm, int algo);
int xms_comm_algo(const struct xms_comm *comm, int coll, uint64_t count,
		  uint32_t dtype);
int xms_coll_expect_algo(int algo, int coll, int nranks,
			 const void *const *send, void *const *recv,
			 uint64_t count, uint32_t dtype, uint32_t op, int root);

#endif /* LIBXMEMSIM_H */
