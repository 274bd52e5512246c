/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev.h - the device as the tests open it: a libxmemsim handle, and its fd
 * for the system calls the tests make directly (mmap, ioctl, pread).
 */
#ifndef XMEMSIM_TESTS_DEV_H
#define XMEMSIM_TESTS_DEV_H

#include <stdio.h>

#include "libxmemsim.h"

/* /sys/module/xmemsim/parameters/NAME as a number; 0 when it is absent. */
static inline unsigned long long test_param(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/xmemsim/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

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
