/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace reference model of the xmem heap, written from the seed's
 * pseudocode (docs/seed-behaviour.md, part A) independently of
 * kmod/xmem_heap.c.
 * Plain arrays and linear walks: slow and obviously right. The VM tests
 * replay random traces through the device and check every result against
 * this model.
 */
#ifndef XMEM_MODEL_H
#define XMEM_MODEL_H

#include <stdint.h>

#define XM_OK			0
#define XM_PTR_OUT_OF_BOUNDS	(-97)
#define XM_INVALID_ARGS		(-98)
#define XM_ILLEGAL_ALIGN	(-99)
#define XM_ALLOC_FAILED		(-100)

struct xm_block {
	uint64_t buf;		/* true start */
	uint64_t aligned;	/* handed out */
	uint64_t size;
};

struct xm_heap {
	uint64_t base, size;
	uint32_t num_blocks;
	/* free blocks sorted by buf; allocated blocks newest first */
	struct xm_block *free_b, *alloc_b;
	uint32_t nfree, nalloc;
	uint64_t free_bytes, allocated_bytes, unused_bytes, split_refused;
};

int xm_init(struct xm_heap *h, uint64_t base, uint64_t size, uint32_t num_blocks);
void xm_destroy(struct xm_heap *h);
int xm_alloc(struct xm_heap *h, uint64_t size, uint64_t align, uint64_t *addr);
int xm_free(struct xm_heap *h, uint64_t addr);
uint64_t xm_largest_free(const struct xm_heap *h);
/* Blocks in address order, free and allocated; returns the count. */
uint32_t xm_dump(const struct xm_heap *h, struct xm_block *out, int *allocated,
		 uint32_t max);

#endif
