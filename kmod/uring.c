// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim io_uring front end: IORING_OP_URING_CMD runs any device command
 * through the same table, copies and checks as ioctl().
 *
 * The SQE's command area holds struct xmemsim_uring_cmd (16 bytes, so no
 * IORING_SETUP_SQE128 needed): it is read once into a local copy, since
 * the SQE is shared with user space. Commands that may take long (DUMP,
 * COPY) answer -EAGAIN to an IO_URING_F_NONBLOCK issue, and io_uring issues
 * them again from a worker; everything else completes inline, and the
 * result lands in cqe->res.
 */
/*
 * The io_uring_cmd API moved between kernel versions. Rather than test
 * LINUX_VERSION_CODE (which says nothing about backports: Debian's 6.1 has
 * the 4-argument io_uring_cmd_done() of 6.2), kmod/Kbuild probes the
 * headers of the kernel being built against and defines what it found.
 */
#ifdef XMEMSIM_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#include "xmemsim.h"

/*
 * Where the command area is. Every command but DMA_SUBMIT completes
 * inline; DMA_SUBMIT completes later where the kernel's API allows it
 * (XMEMSIM_URING_DEFERRED, probed by kmod/Kbuild).
 */
static const void *xmemsim_sqe_cmd(struct io_uring_cmd *ioucmd)
{
#ifdef XMEMSIM_IOUCMD_HAS_SQE
	return ioucmd->sqe->cmd;
#else
	return ioucmd->cmd;
#endif
}

int xmemsim_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	const struct xmemsim_uring_cmd *sqe_cmd = xmemsim_sqe_cmd(ioucmd);
	struct xmemsim_file *xf = ioucmd->file->private_data;
	struct xmemsim_uring_cmd c;

	BUILD_BUG_ON(sizeof(c) != 16);
	c.arg = READ_ONCE(sqe_cmd->arg);
	c.reserved = READ_ONCE(sqe_cmd->reserved);
	if (c.reserved)
		return -EINVAL;
#ifdef XMEMSIM_URING_DEFERRED
	/* completes when its transfers do (kmod/dma.c) */
	if (ioucmd->cmd_op == XMEMSIM_IOC_DMA_SUBMIT)
		return xmemsim_dma_submit_uring(xf, ioucmd, u64_to_user_ptr(c.arg),
						issue_flags & IO_URING_F_NONBLOCK);
#endif
	return xmemsim_dispatch(xf, ioucmd->cmd_op, u64_to_user_ptr(c.arg),
				issue_flags & IO_URING_F_NONBLOCK);
}
