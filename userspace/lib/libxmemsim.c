// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libxmemsim: thin wrappers over the /dev/xmemsim ioctls.
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libxmemsim.h"

static int ioctl_ret(int ret)
{
	return ret < 0 ? -errno : 0;
}

int xms_open(const char *path)
{
	int fd = open(path ? path : XMEMSIM_DEFAULT_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int xms_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

int xms_get_info(int fd, struct xmemsim_info *info)
{
	return ioctl_ret(ioctl(fd, XMEMSIM_IOC_GET_INFO, info));
}

int xms_alloc(int fd, unsigned int heap, uint64_t size, uint64_t align,
	      uint32_t flags, uint64_t *addr, int *status)
{
	struct xmemsim_alloc a = {
		.heap = heap, .flags = flags, .size = size, .align = align,
		.status = 1,
	};
	int ret = ioctl_ret(ioctl(fd, XMEMSIM_IOC_HEAP_ALLOC, &a));

	if (status && a.status != 1)
		*status = a.status;
	if (!ret && addr)
		*addr = a.addr;
	return ret;
}

int xms_free(int fd, unsigned int heap, uint64_t addr, int *status)
{
	struct xmemsim_free f = { .heap = heap, .addr = addr, .status = 1 };
	int ret = ioctl_ret(ioctl(fd, XMEMSIM_IOC_HEAP_FREE, &f));

	if (status && f.status != 1)
		*status = f.status;
	return ret;
}

int xms_stats(int fd, unsigned int heap, struct xmemsim_heap_stats *st)
{
	struct xmemsim_heap_stats s = { .heap = heap };
	int ret = ioctl_ret(ioctl(fd, XMEMSIM_IOC_HEAP_STATS, &s));

	if (!ret)
		*st = s;
	return ret;
}

int xms_dump(int fd, unsigned int heap, struct xmemsim_block *blocks,
	     uint32_t cap, uint32_t *count)
{
	struct xmemsim_heap_dump d = {
		.heap = heap, .capacity = cap,
		.blocks = (uint64_t)(uintptr_t)blocks,
	};
	int ret = ioctl_ret(ioctl(fd, XMEMSIM_IOC_HEAP_DUMP, &d));

	if (!ret && count)
		*count = d.count;
	return ret;
}

int xms_stack_alloc(int fd, uint64_t size, uint64_t *addr, int *status)
{
	struct xmemsim_stack_alloc a = { .size = size, .status = 1 };
	int ret = ioctl_ret(ioctl(fd, XMEMSIM_IOC_STACK_ALLOC, &a));

	if (status && a.status != 1)
		*status = a.status;
	if (!ret && addr)
		*addr = a.addr;
	return ret;
}

int xms_copy(int fd, uint64_t src, uint64_t dst, uint64_t len,
	     unsigned int method)
{
	struct xmemsim_copy c = {
		.src = src, .dst = dst, .len = len, .method = method,
	};

	return ioctl_ret(ioctl(fd, XMEMSIM_IOC_COPY, &c));
}

int xms_read(int fd, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (addr > INT64_MAX)
		return -EINVAL;
	n = pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int xms_write(int fd, uint64_t addr, const void *buf, size_t len)
{
	ssize_t n;

	if (addr > INT64_MAX)
		return -EINVAL;
	n = pwrite(fd, buf, len, (off_t)addr);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

const char *xms_status_name(int status)
{
	switch (status) {
	case XMEMSIM_XMEM_OK:
		return "OK";
	case XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS:
		return "PTR_OUT_OF_BOUNDS";
	case XMEMSIM_XMEM_INVALID_ARGS:
		return "INVALID_ARGS";
	case XMEMSIM_XMEM_ILLEGAL_ALIGN:
		return "ILLEGAL_ALIGN";
	case XMEMSIM_XMEM_ALLOC_FAILED:
		return "ALLOC_FAILED";
	default:
		return "UNKNOWN";
	}
}

int xms_heap_id(const char *name)
{
	if (!strcmp(name, "hbm") || !strcmp(name, "0"))
		return XMEMSIM_HEAP_HBM;
	if (!strcmp(name, "dataram") || !strcmp(name, "1"))
		return XMEMSIM_HEAP_DATARAM;
	return -EINVAL;
}

const char *xms_heap_name(unsigned int heap)
{
	switch (heap) {
	case XMEMSIM_HEAP_HBM:
		return "hbm";
	case XMEMSIM_HEAP_DATARAM:
		return "dataram";
	default:
		return "?";
	}
}
