/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev.h - the device as the tests open it: a libxmemsim handle, and its fd
 * for the system calls the tests make directly (mmap, ioctl, pread).
 */
#ifndef XMEMSIM_TESTS_DEV_H
#define XMEMSIM_TESTS_DEV_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libxmemsim.h"

/* The number a file (sysfs, debugfs, procfs) holds; -1 if none. */
static inline long long test_read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * How often fault site name (kmod/fault.c) has failed a call on purpose,
 * from debugfs "faults"; -1 without debugfs (a stock kernel, not root).
 */
static inline long long test_fault_count(const char *site)
{
	FILE *f = fopen("/sys/kernel/debug/xmemsim/faults", "r");
	char line[64], name[32];
	long long n, found = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %lld", name, &n) == 2 && !strcmp(name, site)) {
			found = n;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

/* Write s to a file (a knob) in one write(2): 0, or -1. */
static inline int test_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* /sys/module/xmemsim/parameters/NAME as a number; 0 when it is absent. */
static inline unsigned long long test_param(const char *name)
{
	char path[128];
	long long v;

	snprintf(path, sizeof(path), "/sys/module/xmemsim/parameters/%s", name);
	v = test_read_ll(path);
	return v < 0 ? 0 : (unsigned long long)v;
}

/* /dev/xmemsim into *xd: its fd, or -errno when it would not open. */
/*
 * Poll ok(arg) every 10 ms for up to 5 s; its last answer. A file used
 * through io_uring is released when io_uring frees the ring's requests,
 * from a worker, after close() returned: what it held goes a moment later.
 */
static inline int test_settle(int (*ok)(void *), void *arg)
{
	int i;

	for (i = 0; i < 500 && !ok(arg); i++)
		usleep(10000);
	return ok(arg);
}

/*
 * The DMA model every DMA test reads first (TAP_ONLY may run any test
 * alone): 0, or -1 with a TAP plan that skips the binary.
 */
static inline int test_dma_model(struct xmemsim_dma_info *info)
{
	struct xms_dev xd;

	if (!xms_open(&xd, NULL)) {
		xms_dma_info(&xd, info);
		xms_close(&xd);
	}
	if (info->engines)
		return 0;
	printf("1..0 # SKIP no DMA_INFO\n");
	return -1;
}

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

/*
 * A valid plan of n 4 KiB tensors "t0".."t<n-1>" at address 0, live one at
 * a time: tensor i at instruction i, its one interval iv[i] (the caller's,
 * n of them).  calloc'd; NULL if out of memory.
 */
static inline struct xmemsim_plan_tensor *
test_serial_plan(uint32_t n, struct xmemsim_interval *iv)
{
	struct xmemsim_plan_tensor *t = calloc(n, sizeof(*t));
	uint32_t i;

	for (i = 0; t && i < n; i++) {
		snprintf(t[i].name, sizeof(t[i].name), "t%u", i);
		t[i].size = 4096;
		iv[i].lo = iv[i].hi = i;
		t[i].intervals = (uintptr_t)&iv[i];
		t[i].nr_intervals = 1;
		t[i].id = i;
	}
	return t;
}

#endif /* XMEMSIM_TESTS_DEV_H */
