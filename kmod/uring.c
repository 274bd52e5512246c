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
/* The io_uring_cmd API of the kernel built against: kmod/compat.h */
#include "compat.h"
#include "xmemsim.h"

/*
 * Every command but DMA_SUBMIT completes inline; DMA_SUBMIT completes
 * later where the kernel's API allows it (XMEMSIM_URING_DEFERRED), and
 * where io_uring can cancel a queued command (XMEMSIM_HAVE_URING_CANCEL)
 * it calls back here with IO_URING_F_CANCEL when the ring or the issuing
 * task goes away.
 */
int xmemsim_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	const struct xmemsim_uring_cmd *sqe_cmd;
	struct xmemsim_file *xf = ioucmd->file->private_data;
	struct xmemsim_uring_cmd c;
	long ret;

	BUILD_BUG_ON(sizeof(c) != 16);
#ifdef XMEMSIM_HAVE_URING_CANCEL
	if (issue_flags & IO_URING_F_CANCEL) {
		xmemsim_dma_cancel_uring(ioucmd, issue_flags);
		return 0;
	}
#endif
	sqe_cmd = xmemsim_uring_cmd_area(ioucmd);
	c.arg = READ_ONCE(sqe_cmd->arg);
	c.reserved = READ_ONCE(sqe_cmd->reserved);
	if (c.reserved)
		return -EINVAL;
#ifdef XMEMSIM_URING_DEFERRED
	/* completes when its transfers do (kmod/dma.c) */
	if (ioucmd->cmd_op == XMEMSIM_IOC_DMA_SUBMIT)
		return xmemsim_dma_submit_uring(xf, ioucmd, u64_to_user_ptr(c.arg),
						issue_flags);
#endif
	ret = xmemsim_dispatch(xf, ioucmd->cmd_op, u64_to_user_ptr(c.arg),
			       issue_flags & IO_URING_F_NONBLOCK);
	/* no syscall to restart: a CQE says what ioctl()'s caller would see */
	return ret == -ERESTARTSYS ? -EINTR : ret;
}
