/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * neuron_compat.h: the custom-op allocator wrappers of the device seed
 * (seed A, docs/seed-behaviour.md: libneuroncustomop's allocator.o and
 * stack_switch.o), with their shapes
 * and quirks, over /dev/xmemsim, so memory code written against them runs
 * on the simulator unchanged.
 *
 * As on the device, the heaps are process-wide: the init calls open
 * /dev/xmemsim once (the path in $XMEMSIM_DEV, else /dev/xmemsim) and every
 * wrapper uses that one open file; the allocations belong to it and go
 * when the process exits. Calls are serialised by one mutex.
 *
 * Status words as in the seed: 0 on success, -1 on failure (errno is set
 * to the device's errno). Where the seed gives no signature (the
 * deallocate and init calls, allocate_hbm_stack's three unsigned ints,
 * xmem_heap_get_free_space's manager), the choice is written beside the
 * declaration.
 *
 * Dataram pointers: on the device, dataram is the management core's own
 * 32-bit address space and neuron_dataram_allocate hands out the dataram
 * address itself. Here too *out_ptr is the device address carried in a
 * pointer ((void *)(uintptr_t)0x804..), not host memory: never dereference
 * it; reach its bytes with neuron_dataram_read()/neuron_dataram_write() or
 * XMEMSIM_IOC_COPY (neuron_compat_fd()). The dataram window sits below
 * 4 GiB, so the address fits a pointer as it fits the core's.
 */
#ifndef NEURON_COMPAT_H
#define NEURON_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NEURON_STACK_SIZE	4196		/* the seed's STACK_SIZE */
#define NEURON_MAX_STACK_SIZE	0x400000	/* MAX_STACK_SIZE, 4 MiB */

/* Open the device if no init call has yet (both are the same): 0 or -1. */
int init_neuron_hbm_allocator(void);
int init_neuron_dataram_allocator(void);

/*
 * size bytes of HBM scratch aligned to align (0 means 64); the 64-bit
 * device address goes to *out_addr, on success only. 0 or -1.
 */
int neuron_hbm_allocate(unsigned int size, uint64_t *out_addr,
			unsigned int align);
/* Ours: by the address neuron_hbm_allocate gave; 0 or -1. */
int neuron_hbm_deallocate(uint64_t addr);

/*
 * size bytes of dataram aligned to align (0 means 64). *out_ptr is written
 * even on failure, as the seed's wrapper does (the GOTCHA): NULL then, so
 * test the return value, not the pointer. 0 or -1.
 */
int neuron_dataram_allocate(unsigned int size, void **out_ptr,
			    unsigned int align);
/* Ours: by the pointer neuron_dataram_allocate gave; 0 or -1. */
int neuron_dataram_deallocate(void *ptr);

/*
 * The switched stack in HBM: size 0 means NEURON_STACK_SIZE, above
 * NEURON_MAX_STACK_SIZE fails; align 0 means 64. The seed gives only
 * (uint, uint, uint): ours is (size, align, flags), flags must be 0, and
 * the result is the stack's device address, 0 on failure (HBM addresses
 * are never 0).
 */
uint64_t allocate_hbm_stack(unsigned int size, unsigned int align,
			    unsigned int flags);

/*
 * The heaps, for xmem_heap_get_free_space(). The seed passes its heap
 * manager; ours names the heap by its XMEMSIM_HEAP_* id.
 */
#define NEURON_HBM_HEAP		0
#define NEURON_DATARAM_HEAP	1
#define NEURON_LIBC_HEAP	2

/* Free bytes of a heap, in all (of the two readings the seed leaves open,
 * docs/seed-behaviour.md A, the total; the largest block below); 0 on
 * error. */
uint64_t xmem_heap_get_free_space(unsigned int heap);

/*
 * The dataram libc arena (the seed's _dataram_libc_heap_mgr): allocate
 * (64-byte aligned), free, the bytes asked for at a pointer, and the
 * largest block a single allocation could get.
 */
int _init_libc_heap_allocator(void);
void *_libc_heap_allocate(size_t size);
void _libc_heap_deallocate(void *ptr);
size_t _libc_heap_get_alloc_size(void *ptr);
size_t _libc_heap_max_free_space(void);

/* The bytes behind a dataram pointer (whole transfers): 0 or -1. */
int neuron_dataram_read(const void *ptr, void *buf, size_t len);
int neuron_dataram_write(void *ptr, const void *buf, size_t len);

/* The open file behind the wrappers (after an init call), or -1. */
int neuron_compat_fd(void);

#ifdef __cplusplus
}
#endif

#endif /* NEURON_COMPAT_H */
