/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmem heap: first-fit, address-sorted, immediately coalescing allocator
 * with a fixed descriptor pool, after the Tensilica xmem heap manager.
 *
 * A pure data structure over u64 addresses: no locking (the caller
 * serialises every call on one heap), no device state, no user memory.
 * Addresses are whatever the caller says the pool's base is, so alignment
 * is computed on real device addresses.
 */
#ifndef XMEMSIM_XMEM_HEAP_H
#define XMEMSIM_XMEM_HEAP_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/rbtree.h>

/* Status codes of the xmem contract (never errno values). */
#define XMEM_OK				0
#define XMEM_ERR_PTR_OUT_OF_BOUNDS	(-97)
#define XMEM_ERR_INVALID_ARGS		(-98)
#define XMEM_ERR_ILLEGAL_ALIGN		(-99)
#define XMEM_ERR_ALLOC_FAILED		(-100)

#define XMEM_HEAP_MIN_ALLOC_SIZE	4
#define XMEM_HEAP_DEFAULT_NUM_BLOCKS	32
#define XMEM_HEAP_MAX_NUM_BLOCKS	BIT(20)
#define XMEM_HEAP_DEFAULT_ALIGN		64
/* XMEM_HEAP_TREE walks the lists while the heap has at most this many blocks */
#define XMEM_HEAP_TREE_LIST_MAX		32

/* How xmem_heap_alloc()/xmem_heap_free() search. */
enum xmem_heap_mode {
	XMEM_HEAP_TREE,		/* rbtrees, the lists while small (production) */
	XMEM_HEAP_LIST,		/* the seed's O(n) list walks alone */
};

struct xmem_heap_stats {
	u64 pool_size;
	u64 free_bytes;
	u64 allocated_bytes;	/* includes slack and unsplit remainders */
	u64 unused_bytes;	/* sum of alignment slack of live blocks */
	u64 largest_free;	/* largest free block */
	u64 split_refused;	/* splits skipped for want of a descriptor */
	u32 num_blocks;		/* descriptor pool size */
	u32 blocks_in_use;	/* descriptors on the free or alloc list */
	u32 free_blocks;
	u32 alloc_blocks;
};

struct xmem_heap_block_info {
	u64 start;		/* true start of the block */
	u64 aligned;		/* address handed out (== start when free) */
	u64 size;		/* whole block, slack included */
	bool allocated;
};

struct xmem_heap_block;

struct xmem_heap {
	u64 base;
	u64 size;
	u32 num_blocks;
	enum xmem_heap_mode mode;
	/*
	 * XMEM_HEAP_TREE only: walk the lists while the heap has at most
	 * list_max blocks, the trees above 2 * list_max (hysteresis). Set
	 * by init to XMEM_HEAP_TREE_LIST_MAX; 0 = always the trees. A change
	 * takes effect at the next alloc/free or xmem_heap_set_mode().
	 */
	u32 list_max;
	/*
	 * Set by the caller around one xmem_heap_alloc(): take the block
	 * unsplit, as when no descriptor is spare (fault injection).
	 */
	bool no_split_once;
	/* private below: see xmem_heap.c */
	struct xmem_heap_block *blocks;	/* descriptor pool */
	unsigned long *free_bitmap;	/* bit set = descriptor spare */
	unsigned long *spare_words;	/* bit w set = free_bitmap[w] != 0 */
	struct xmem_heap_block *free_head;	/* address-sorted free list */
	struct xmem_heap_block *alloc_head;	/* alloc list, newest first */
	struct xmem_heap_block *phys_head;	/* every block, address order */
	struct rb_root free_tree;	/* free blocks by address, augmented */
	struct rb_root alloc_tree;	/* allocated blocks by aligned address */
	u64 free_bytes;
	u64 allocated_bytes;
	u64 unused_bytes;
	u64 split_refused;
	u32 blocks_in_use;
	u32 free_count;
	u32 alloc_count;
	bool lists_on;		/* free/alloc lists maintained */
	bool trees_on;		/* free/alloc trees maintained */
};

/*
 * Set up a heap over [base, base + size) with num_blocks descriptors
 * (0 means XMEM_HEAP_DEFAULT_NUM_BLOCKS). Returns 0 or -EINVAL (size 0,
 * base + size overflowing, num_blocks above XMEM_HEAP_MAX_NUM_BLOCKS) or
 * -ENOMEM. May sleep.
 */
int xmem_heap_init(struct xmem_heap *h, u64 base, u64 size, u32 num_blocks,
		   enum xmem_heap_mode mode);
void xmem_heap_destroy(struct xmem_heap *h);

/*
 * Allocate size bytes aligned to align (0 means 64). On XMEM_OK *addr is
 * the aligned address and, if block_end is not NULL, *block_end is the end
 * of the block handed over (the usable extent may exceed size when the
 * heap did not split). On error neither is written.
 */
int xmem_heap_alloc(struct xmem_heap *h, u64 size, u64 align, u64 *addr,
		    u64 *block_end);
/* Free by the aligned address. XMEM_OK or XMEM_ERR_PTR_OUT_OF_BOUNDS. */
int xmem_heap_free(struct xmem_heap *h, u64 addr);

void xmem_heap_get_stats(const struct xmem_heap *h, struct xmem_heap_stats *st);

/* Alignment slack of the live blocks: an allocation's slack is the rise. */
static inline u64 xmem_heap_unused_bytes(const struct xmem_heap *h)
{
	return h->unused_bytes;
}

/*
 * Fill up to max entries, in address order, free and allocated blocks
 * merged. Returns the total number of blocks (may exceed max).
 */
u32 xmem_heap_dump(const struct xmem_heap *h, struct xmem_heap_block_info *out,
		   u32 max);
/* Check every invariant; 0 if all hold, else -EUCLEAN with a pr_err(). */
int xmem_heap_verify(const struct xmem_heap *h);
/*
 * Switch a live heap to another mode: builds the lists or trees that mode
 * needs from the blocks (O(n log n)) and drops the others. Results never
 * depend on the mode. Returns 0 or -EINVAL for an unknown mode.
 */
int xmem_heap_set_mode(struct xmem_heap *h, enum xmem_heap_mode mode);

#endif /* XMEMSIM_XMEM_HEAP_H */
