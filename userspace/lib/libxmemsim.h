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
int xms_stack_alloc(int fd, uint64_t size, uint64_t *addr, int *status);
int xms_copy(int fd, uint64_t src, uint64_t dst, uint64_t len,
	     unsigned int method);

/* Bytes at device addresses (whole transfers or -errno). */
int xms_read(int fd, uint64_t addr, void *buf, size_t len);
int xms_write(int fd, uint64_t addr, const void *buf, size_t len);

/* Name of an xmem status code ("ALLOC_FAILED", ...). */
const char *xms_status_name(int status);
/* Heap id from "hbm"/"dataram"/"0"/"1"; -EINVAL if unknown. */
int xms_heap_id(const char *name);
const char *xms_heap_name(unsigned int heap);

#endif /* LIBXMEMSIM_H */
