// SPDX-License-Identifier: GPL-2.0
/*
 * Reference model of the xmem heap; see xmem_model.h.
 */
#include <stdlib.h>
#include <string.h>

#include "xmem_model.h"

int xm_init(struct xm_heap *h, uint64_t base, uint64_t size, uint32_t num_blocks)
{
	memset(h, 0, sizeof(*h));
	if (!size || base + size < base || !num_blocks)
		return -1;
	h->base = base;
	h->size = size;
	h->num_blocks = num_blocks;
	h->free_b = calloc(num_blocks, sizeof(*h->free_b));
	h->alloc_b = calloc(num_blocks, sizeof(*h->alloc_b));
	if (!h->free_b || !h->alloc_b) {
		xm_destroy(h);
		return -1;
	}
	h->free_b[0] = (struct xm_block){ base, base, size };
	h->nfree = 1;
	h->free_bytes = size;
	return 0;
}

void xm_destroy(struct xm_heap *h)
{
	free(h->free_b);
	free(h->alloc_b);
	h->free_b = h->alloc_b = NULL;
}

/* size + alignment slack needed in a block starting at buf; 0 if impossible */
static int need_in(uint64_t buf, uint64_t size, uint64_t align, uint64_t *need)
{
	uint64_t up;

	if (buf > UINT64_MAX - (align - 1))
		return 0;
	up = (buf + align - 1) & ~(align - 1);
	if (size > UINT64_MAX - (up - buf))
		return 0;
	*need = size + (up - buf);
	return 1;
}

int xm_alloc(struct xm_heap *h, uint64_t size, uint64_t align, uint64_t *addr)
{
	uint64_t need = 0;
	uint32_t i;
	struct xm_block b;

	if (!align)
		align = 64;
	if (align & (align - 1))
		return XM_ILLEGAL_ALIGN;
	if (!size)
		return XM_INVALID_ARGS;
	for (i = 0; i < h->nfree; i++)
		if (need_in(h->free_b[i].buf, size, align, &need) &&
		    h->free_b[i].size >= need)
			break;
	if (i == h->nfree)
		return XM_ALLOC_FAILED;

	b = h->free_b[i];
	b.aligned = b.buf + need - size;
	h->unused_bytes += need - size;
	if (b.size - need > 4 && h->nfree + h->nalloc < h->num_blocks) {
		/* the remainder stays in the free list, in b's place */
		h->free_b[i].buf = b.buf + need;
		h->free_b[i].aligned = b.buf + need;
		h->free_b[i].size = b.size - need;
		b.size = need;
	} else {
		if (b.size - need > 4)
			h->split_refused++;
		memmove(&h->free_b[i], &h->free_b[i + 1],
			(h->nfree - i - 1) * sizeof(b));
		h->nfree--;
	}
	memmove(&h->alloc_b[1], &h->alloc_b[0], h->nalloc * sizeof(b));
	h->alloc_b[0] = b;
	h->nalloc++;
	h->free_bytes -= b.size;
	h->allocated_bytes += b.size;
	*addr = b.aligned;
	return XM_OK;
}

int xm_free(struct xm_heap *h, uint64_t addr)
{
	struct xm_block b;
	uint32_t i, at;
	int left, right;

	for (i = 0; i < h->nalloc; i++)
		if (h->alloc_b[i].aligned == addr)
			break;
	if (i == h->nalloc)
		return XM_PTR_OUT_OF_BOUNDS;
	b = h->alloc_b[i];
	memmove(&h->alloc_b[i], &h->alloc_b[i + 1], (h->nalloc - i - 1) * sizeof(b));
	h->nalloc--;
	h->free_bytes += b.size;
	h->allocated_bytes -= b.size;
	h->unused_bytes -= b.aligned - b.buf;	/* docs/seed-behaviour.md, A.1 */
	b.aligned = b.buf;

	for (at = 0; at < h->nfree && h->free_b[at].buf < b.buf; at++)
		;
	left = at > 0 && h->free_b[at - 1].buf + h->free_b[at - 1].size == b.buf;
	right = at < h->nfree && b.buf + b.size == h->free_b[at].buf;
	if (left && right) {
		h->free_b[at - 1].size += b.size + h->free_b[at].size;
		memmove(&h->free_b[at], &h->free_b[at + 1],
			(h->nfree - at - 1) * sizeof(b));
		h->nfree--;
	} else if (left) {
		h->free_b[at - 1].size += b.size;
	} else if (right) {
		h->free_b[at].buf = b.buf;
		h->free_b[at].aligned = b.buf;
		h->free_b[at].size += b.size;
	} else {
		memmove(&h->free_b[at + 1], &h->free_b[at],
			(h->nfree - at) * sizeof(b));
		h->free_b[at] = b;
		h->nfree++;
	}
	return XM_OK;
}

uint64_t xm_largest_free(const struct xm_heap *h)
{
	uint64_t m = 0;
	uint32_t i;

	for (i = 0; i < h->nfree; i++)
		if (h->free_b[i].size > m)
			m = h->free_b[i].size;
	return m;
}

uint32_t xm_dump(const struct xm_heap *h, struct xm_block *out, int *allocated,
		 uint32_t max)
{
	uint32_t n = 0, fi = 0, ai, k;
	uint32_t total = h->nfree + h->nalloc;
	char *taken = calloc(h->nalloc + 1, 1);

	if (!taken)
		return 0;
	/* merge the sorted free list with the allocated blocks by address */
	while (n < total) {
		uint64_t best = UINT64_MAX;
		int bi = -1;

		for (ai = 0; ai < h->nalloc; ai++)
			if (!taken[ai] && h->alloc_b[ai].buf <= best) {
				best = h->alloc_b[ai].buf;
				bi = ai;
			}
		k = n++;
		if (fi < h->nfree && (bi < 0 || h->free_b[fi].buf < best)) {
			if (k < max) {
				out[k] = h->free_b[fi];
				allocated[k] = 0;
			}
			fi++;
		} else {
			taken[bi] = 1;
			if (k < max) {
				out[k] = h->alloc_b[bi];
				allocated[k] = 1;
			}
		}
	}
	free(taken);
	return total;
}
