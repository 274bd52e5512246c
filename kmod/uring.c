// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim io_uring front end: IORING_OP_URING_CMD runs any device command
 * through the same table, copies and checks as ioctl().
 *
 * The SQE's command area holds struct xmemsim_uring_cmd (16 bytes, so no
 * IORING_SETUP_SQE128 needed): it is read once into a local copy, since
 * the SQE is shared with user space. Commands that may take long (DUMP,
 * COPY, a wait that would sleep) answer -EAGAIN to an IO_URING_F_NONBLOCK
 * issue, and io_uring issues them again from a worker; everything else
 * completes inline, and the result lands in cqe->res.
 */
/* The io_uring_cmd API of the kernel built against: kmod/compat.h */
#include "compat.h"
#include "xmemsim.h"

/*
 * Every command completes as its ioctl() does: DMA_SUBMIT once its
 * transfers are queued; a wait (DMA_WAIT, DMA_REAP, SEM_WAIT) inline when
 * what it waits for is there, else in a worker, bounded by its own
 * timeout, which io_uring interrupts when the ring or its task goes away
 * (-EINTR) or a linked timeout fires.
 */
int xmemsim_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	const struct xmemsim_uring_cmd *sqe_cmd;
	struct xmemsim_file *xf = ioucmd->file->private_data;
	struct xmemsim_uring_cmd c;
	long ret;

	BUILD_BUG_ON(sizeof(c) != 16);
	sqe_cmd = xmemsim_uring_cmd_area(ioucmd);
	c.arg = READ_ONCE(sqe_cmd->arg);
	c.reserved = READ_ONCE(sqe_cmd->reserved);
	if (c.reserved)
		return -EINVAL;
	ret = xmemsim_dispatch(xf, ioucmd->cmd_op, u64_to_user_ptr(c.arg),
			       issue_flags & IO_URING_F_NONBLOCK);
	/* no syscall to restart: a CQE says what ioctl()'s caller would see */
	return ret == -ERESTARTSYS ? -EINTR : ret;
}
