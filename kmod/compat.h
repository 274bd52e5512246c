/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmemsim compatibility with the kernels it builds for (6.1 to 6.12 and,
 * most likely, everything between).
 *
 * The driver is written against the newest API it uses. Where an older
 * kernel lacks a piece of it, this header supplies it, as the kernel's
 * own backports do. No LINUX_VERSION_CODE: distributions backport (Debian's
 * 6.1 has the four-argument io_uring_cmd_done() of 6.2), so kmod/Kbuild
 * probes the headers of the kernel being built against and defines
 * XMEMSIM_HAVE_* for what it found. Every probe is listed here:
 *
 *   XMEMSIM_HAVE_VM_FLAGS_SET     vm_flags_set() (6.3: vm_flags read-only)
 *   XMEMSIM_HAVE_IO_URING_CMD_H   <linux/io_uring/cmd.h> (6.6)
 *   XMEMSIM_IOUCMD_HAS_SQE        struct io_uring_cmd carries the SQE (6.3)
 *   XMEMSIM_HAVE_IO_URING_SQE_CMD io_uring_sqe_cmd() (6.6)
 *   XMEMSIM_HAVE_KUNIT_FAIL_AND_ABORT  the KUnit tests' name for a failed
 *                                 assertion with a message (6.2; 6.1 calls
 *                                 it KUNIT_ASSERT_FAILURE)
 *   XMEMSIM_HAVE_DMA_BUF_VMAP_UNLOCKED  dma_buf_vmap_unlocked() (6.2: the
 *                                 plain one wants the reservation lock held;
 *                                 6.1's takes the dma-buf's own lock)
 */
#ifndef XMEMSIM_COMPAT_H
#define XMEMSIM_COMPAT_H

#include <linux/mm.h>

#ifdef XMEMSIM_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#ifndef XMEMSIM_HAVE_VM_FLAGS_SET
/* before 6.3, vm_flags is written directly (the caller holds mmap_lock) */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#if defined(XMEMSIM_IOUCMD_HAS_SQE) && !defined(XMEMSIM_HAVE_IO_URING_SQE_CMD)
/* 6.3 to 6.5: the SQE is there, its accessor is not */
static inline const void *io_uring_sqe_cmd(const struct io_uring_sqe *sqe)
{
	return sqe->cmd;
}
#endif

/*
 * The command area of a uring_cmd's SQE. 6.1 points at it from the
 * command itself, later kernels hand over the SQE.
 */
static inline const void *xmemsim_uring_cmd_area(const struct io_uring_cmd *ioucmd)
{
#ifdef XMEMSIM_IOUCMD_HAS_SQE
	return io_uring_sqe_cmd(ioucmd->sqe);
#else
	return ioucmd->cmd;
#endif
}

#ifndef XMEMSIM_HAVE_KUNIT_FAIL_AND_ABORT
#define KUNIT_FAIL_AND_ABORT(test, fmt, ...) \
	KUNIT_ASSERT_FAILURE(test, fmt, ##__VA_ARGS__)
#endif

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER) && \
	!defined(XMEMSIM_HAVE_DMA_BUF_VMAP_UNLOCKED)
#include <linux/dma-buf.h>
static inline int dma_buf_vmap_unlocked(struct dma_buf *buf,
					struct iosys_map *map)
{
	return dma_buf_vmap(buf, map);
}

static inline void dma_buf_vunmap_unlocked(struct dma_buf *buf,
					   struct iosys_map *map)
{
	dma_buf_vunmap(buf, map);
}
#endif

#endif /* XMEMSIM_COMPAT_H */
