/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev.h - the device as the tests open it: a libxmemsim handle, and its fd
 * for the system calls the tests make directly (mmap, ioctl, pread).
 */
#ifndef XMEMSIM_TESTS_DEV_H
#define XMEMSIM_TESTS_DEV_H

#include "libxmemsim.h"

/* /dev/xmemsim into *xd: its fd, or -errno when it would not open. */
static inline int test_open(struct xms_dev *xd)
{
	int ret = xms_open(xd, NULL);

	return ret ? ret : xd->fd;
}

#endif /* XMEMSIM_TESTS_DEV_H */
