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

/* test_open(), and the device's info into *info on the first success. */
static inline int test_open_info(struct xms_dev *xd, struct xmemsim_info *info)
{
	int fd = test_open(xd);

	if (fd >= 0 && !info->abi_version)
		xms_get_info(xd, info);
	return fd;
}

#endif /* XMEMSIM_TESTS_DEV_H */
