// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * neuron_compat: the seed's custom-op allocator wrappers over libxmemsim.
 * The shapes and choices are documented in neuron_compat.h.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "libxmemsim.h"
#include "neuron_compat.h"

/* The process's one handle, as the seed's heaps are process-wide. */
static pthread_mutex_t compat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xms_dev compat_dev = { .fd = -1 };

/* 0, or -1 with errno set from a library result. */
static int status_of(int ret)
{
	if (!ret)
		return 0;
	errno = -ret;
	return -1;
}

static int compat_open(void)
{
	const char *path = getenv("XMEMSIM_DEV");
	int ret = 0;

	pthread_mutex_lock(&compat_lock);
	if (compat_dev.fd < 0) {
		ret = xms_open(&compat_dev, path && *path ? path : NULL);
		if (ret)
			compat_dev.fd = -1;
	}
	pthread_mutex_unlock(&compat_lock);
	return status_of(ret);
}

int init_neuron_hbm_allocator(void)
{
	return compat_open();
}

int init_neuron_dataram_allocator(void)
{
	return compat_open();
}

int _init_libc_heap_allocator(void)
{
	return compat_open();
}

int neuron_compat_fd(void)
{
	int fd;

	pthread_mutex_lock(&compat_lock);
	fd = compat_dev.fd;
	pthread_mutex_unlock(&compat_lock);
	return fd;
}

/*
 * The handle, locked, or NULL (unlocked) before any init call: every
 * wrapper runs one library call under the lock, since a handle serves one
 * thread at a time.
 */
static struct xms_dev *compat_get(void)
{
	pthread_mutex_lock(&compat_lock);
	if (compat_dev.fd >= 0)
		return &compat_dev;
	pthread_mutex_unlock(&compat_lock);
	return NULL;
}

static int compat_put(int ret)
{
	pthread_mutex_unlock(&compat_lock);
	return ret;
}

/* -EBADF without an open file: the caller never called an init. */
static int compat_alloc(unsigned int heap, uint64_t size, unsigned int align,
			uint64_t *addr)
{
	struct xms_dev *d = compat_get();

	/* align 0: the device's default, 64, as the wrappers substitute */
	return d ? compat_put(xms_alloc(d, heap, size, align, 0, addr, NULL)) : -EBADF;
}

static int compat_free(unsigned int heap, uint64_t addr)
{
	struct xms_dev *d = compat_get();

	return d ? compat_put(xms_free(d, heap, addr, NULL)) : -EBADF;
}

int neuron_hbm_allocate(unsigned int size, uint64_t *out_addr,
			unsigned int align)
{
	return status_of(compat_alloc(XMEMSIM_HEAP_HBM, size, align, out_addr));
}

int neuron_hbm_deallocate(uint64_t addr)
{
	return status_of(compat_free(XMEMSIM_HEAP_HBM, addr));
}

int neuron_dataram_allocate(unsigned int size, void **out_ptr,
			    unsigned int align)
{
	uint64_t addr = 0;
	int ret = compat_alloc(XMEMSIM_HEAP_DATARAM, size, align, &addr);

	/* written before the status is looked at, as the seed's s32i.n is */
	*out_ptr = ret ? NULL : (void *)(uintptr_t)addr;
	return status_of(ret);
}

int neuron_dataram_deallocate(void *ptr)
{
	return status_of(compat_free(XMEMSIM_HEAP_DATARAM, (uintptr_t)ptr));
}

uint64_t allocate_hbm_stack(unsigned int size, unsigned int align,
			    unsigned int flags)
{
	uint64_t addr;

	if (!size)
		size = NEURON_STACK_SIZE;
	if (flags || size > NEURON_MAX_STACK_SIZE) {
		errno = EINVAL;
		return 0;
	}
	return neuron_hbm_allocate(size, &addr, align) ? 0 : addr;
}

static int compat_stats(unsigned int heap, struct xmemsim_heap_stats *st)
{
	struct xms_dev *d = compat_get();

	return d ? compat_put(xms_stats(d, heap, st)) : -EBADF;
}

uint64_t xmem_heap_get_free_space(unsigned int heap)
{
	struct xmemsim_heap_stats st;

	return status_of(compat_stats(heap, &st)) ? 0 : st.free_bytes;
}

void *_libc_heap_allocate(size_t size)
{
	uint64_t addr;

	if (status_of(compat_alloc(XMEMSIM_HEAP_LIBC, size, 0, &addr)))
		return NULL;
	return (void *)(uintptr_t)addr;
}

void _libc_heap_deallocate(void *ptr)
{
	if (ptr)
		status_of(compat_free(XMEMSIM_HEAP_LIBC, (uintptr_t)ptr));
}

size_t _libc_heap_get_alloc_size(void *ptr)
{
	struct xms_dev *d = compat_get();
	uint64_t size = 0;
	int ret = -EBADF;

	if (d)
		ret = compat_put(xms_alloc_size(d, XMEMSIM_HEAP_LIBC, (uintptr_t)ptr,
						&size, NULL));
	return status_of(ret) ? 0 : size;
}

size_t _libc_heap_max_free_space(void)
{
	struct xmemsim_heap_stats st;

	return status_of(compat_stats(XMEMSIM_HEAP_LIBC, &st)) ? 0 : st.largest_free;
}

int neuron_dataram_read(const void *ptr, void *buf, size_t len)
{
	struct xms_dev *d = compat_get();

	return status_of(d ? compat_put(xms_read(d, (uintptr_t)ptr, buf, len)) : -EBADF);
}

int neuron_dataram_write(void *ptr, const void *buf, size_t len)
{
	struct xms_dev *d = compat_get();

	return status_of(d ? compat_put(xms_write(d, (uintptr_t)ptr, buf, len)) : -EBADF);
}
