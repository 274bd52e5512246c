/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libxmemsim: the user library of /dev/xmemsim.
 *
 * Every call returns 0 or a negative errno, like liburing. Heap calls also
 * report the xmem status code through *status when the caller passes one.
 */
#ifndef LIBXMEMSIM_H
#define LIBXMEMSIM_H

#include <stddef.h>
#include <stdint.h>

#include <xmemsim.h>

#define XMEMSIM_DEFAULT_PATH "/dev/xmemsim"

/* Open the device (path NULL means /dev/xmemsim); returns an fd or -errno. */
int xms_open(const char *path);
int xms_close(int fd);

int xms_get_info(int fd, struct xmemsim_info *info);

/*
 * Heap commands. *status (if not NULL) gets the xmem status code whenever
 * the device reports one; *addr is written only on success.
 */
int xms_alloc(int fd, unsigned int heap, uint64_t size, uint64_t align,
	      uint32_t flags, uint64_t *addr, int *status);
int xms_free(int fd, unsigned int heap, uint64_t addr, int *status);
int xms_stats(int fd, unsigned int heap, struct xmemsim_heap_stats *st);
/* Fills up to cap blocks; *count gets the heap's block count. */
int xms_dump(int fd, unsigned int heap, struct xmemsim_block *blocks,
	     uint32_t cap, uint32_t *count);
/* flags: XMEMSIM_FREE_CLEAR (every free scrubs anyway; see xmemsim.h) */
int xms_free_flags(int fd, unsigned int heap, uint64_t addr, uint32_t flags,
		   int *status);
/* One of fd's allocations: bytes asked for and bytes to its block's end. */
int xms_alloc_size(int fd, unsigned int heap, uint64_t addr, uint64_t *size,
		   uint64_t *usable);
int xms_stack_alloc(int fd, uint64_t size, uint64_t *addr, int *status);
/* Sets [addr, addr + len) of one of fd's allocations to value (0..255). */
int xms_memset(int fd, uint64_t addr, unsigned int value, uint64_t len);
int xms_copy(int fd, uint64_t src, uint64_t dst, uint64_t len,
	     unsigned int method);

/*
 * DRAM plans. xms_plan_submit sends one core's plan; on a rejected plan
 * bad[0..1] (if not NULL) get the indexes of the tensors at fault
 * (0xffffffff where none) and err (if not NULL) the device's sentence.
 * xms_plan_sync equalizes shared addresses across the submitted cores;
 * *linked gets the number of linked tensors, err the reason on failure.
 * On success err is set to "" and bad[] to 0xffffffff.
 */
int xms_plan_submit(int fd, uint32_t core, const struct xmemsim_plan_tensor *t,
		    uint32_t count, uint32_t bad[2], char *err, size_t errlen);
int xms_plan_sync(int fd, uint32_t *linked, char *err, size_t errlen);
/* Up to cap tensors of core's plan; *count gets the plan's tensor count,
 * *synced 1 once PLAN_SYNC succeeded (either may be NULL). */
int xms_plan_get(int fd, uint32_t core, struct xmemsim_plan_tensor *out,
		 uint32_t cap, uint32_t *count, uint32_t *synced);
/* core: a core or XMEMSIM_PLAN_ALL_CORES. */
int xms_plan_stats(int fd, uint32_t core, struct xmemsim_plan_stats *st);
int xms_plan_release(int fd);

/* Bytes at device addresses (whole transfers or -errno). */
int xms_read(int fd, uint64_t addr, void *buf, size_t len);
int xms_write(int fd, uint64_t addr, const void *buf, size_t len);

/*
 * The one path every command wrapper takes: ioctl(), or a ring attached to
 * fd with xms_attach_ring() (one command submitted and reaped at a time,
 * same results). Returns 0 or -errno.
 */
int xms_cmd(int fd, unsigned long cmd, void *arg);

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

int xms_ring_init(struct xms_ring *r, int fd, unsigned int entries);
void xms_ring_exit(struct xms_ring *r);
/* -EBUSY when the submission queue is full: submit (and reap) first. */
int xms_ring_queue(struct xms_ring *r, unsigned long cmd, void *arg,
		   uint64_t tag);
/* Submits what is queued; returns how many or -errno. */
int xms_ring_submit(struct xms_ring *r);
/* Waits for at least min results, returns up to max of them (or -errno). */
int xms_ring_reap(struct xms_ring *r, struct xms_result *res, unsigned int max,
		  unsigned int min);
/* Route fd's commands through r (NULL: back to ioctl). */
int xms_attach_ring(int fd, struct xms_ring *r);

/* Name of an xmem status code ("ALLOC_FAILED", ...). */
const char *xms_status_name(int status);
/* Heap id from "hbm"/"dataram"/"libc"/"0"/"1"/"2"; -EINVAL if unknown. */
int xms_heap_id(const char *name);
const char *xms_heap_name(unsigned int heap);

#endif /* LIBXMEMSIM_H */
