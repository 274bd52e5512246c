// SPDX-License-Identifier: GPL-2.0
/*
 * xmem heap: the Tensilica xmem first-fit heap on u64 device addresses,
 * with an O(log n) production path that returns exactly what the seed's
 * list walk returns. "The seed" is seed A, written down with its errata in
 * docs/seed-behaviour.md, part A.
 */

/**
 * DOC: xmem heap
 *
 * **Model.** The pool [base, base + size) is tiled by blocks. Every block
 * owns one descriptor from a fixed pool of num_blocks (32 by default, at
 * most 2^20), allocated once with kvcalloc(); a bitmap (bit set = spare)
 * hands out the lowest spare index, as the seed's bit-vector scan does. A
 * second bitmap with one bit per word of the first (set: the word has a
 * spare) keeps that scan O(num_blocks / 4096) words instead of
 * O(num_blocks / 64): 4 words for 2^20 descriptors.
 * The initial free block uses one descriptor, each split takes one more,
 * and every block absorbed by a coalesce gives its descriptor back. So
 * with 32 descriptors 31 splits succeed and the 32nd would-be split hands
 * the caller the whole block instead.
 *
 * **Allocation (the seed's xmem_heap_alloc).** Alignment 0 means 64; an
 * alignment that is not a power of two is XMEM_ERR_ILLEGAL_ALIGN, checked
 * before the size; size 0 is XMEM_ERR_INVALID_ARGS. First fit over the free
 * blocks in address order: for each candidate the slack
 * align_up(start) - start is recomputed and the block fits when
 * slack + size <= block size. The returned address is start + slack (the
 * seed's _buffer + new_size - size); the slack stays in the allocated block
 * and is counted in unused_bytes. The remainder becomes a new free block
 * only if it is larger than XMEM_HEAP_MIN_ALLOC_SIZE (4) and a descriptor
 * is spare; otherwise the caller gets the whole block, and if the only
 * reason was the missing descriptor, split_refused is incremented.
 *
 * **Free.** Matches the aligned address of a live block (a raw block start
 * that differs from it, an interior address or a double free is
 * XMEM_ERR_PTR_OUT_OF_BOUNDS; 0 is a valid address if the pool holds it).
 * unused_bytes loses the block's slack (docs/seed-behaviour.md, A.1: the seed's
 * ``buffer - aligned_buffer`` would add it). The block then merges with both
 * physical neighbours at once: if the left one is free it absorbs the
 * freed block, if the right one is free the survivor absorbs it, and the
 * absorbed descriptors return to the pool.
 *
 * **Overflow.** init refuses a pool whose end base + size does not fit in
 * u64, so every block end is representable. The fit test computes the
 * slack as (-start) & (align - 1) and checks slack <= block size and
 * size <= block size - slack: nothing can wrap, whatever size (up to
 * U64_MAX) or alignment (up to 2^63) is asked. A request that is well
 * formed but larger than any block, including a size near U64_MAX or an
 * alignment whose first aligned address lies beyond every block, is
 * XMEM_ERR_ALLOC_FAILED: it is a valid request the heap cannot satisfy,
 * just as the seed's walk ends on its tail sentinel.
 *
 * **Modes.** XMEM_HEAP_LIST keeps the seed's structures and walks: the
 * address-sorted free list walked for first fit and for the insertion point
 * on free, and the unsorted alloc list (newest first) scanned on free.
 * XMEM_HEAP_TREE keeps instead an rbtree of free blocks by start address,
 * augmented with the largest block size in each subtree (subtree_max, as
 * mm/vmalloc.c), and an rbtree of allocated blocks by aligned address.
 * While the heap has few blocks, though, XMEM_HEAP_TREE keeps and walks the
 * lists: it switches to the trees above 2 * list_max blocks and back at
 * list_max or fewer (list_max is 32 by default, 0 for trees always; see
 * xh_adapt()), because a walk over a few dozen blocks is cheaper than
 * rbtree updates (scripts/bench-heap.sh; docs/device.md has the figures);
 * the default 32-descriptor heap never leaves the lists.
 * No checking mode ships: the KUnit suite (kmod/tests/xmem_heap_test.c)
 * drives a LIST heap and TREE heaps side by side on long random runs and
 * compares every status, address, stat and dump. Both modes also link
 * all blocks in address order
 * (physical neighbours, O(1) to maintain); it gives the tree path its
 * coalescing neighbours in O(1) and gives dump and verify one address-
 * ordered walk in every mode. Descriptor choice, split and merge are the
 * same code in every mode, so results, stats and dumps are identical by
 * construction once the search returns the same block. xmem_heap_set_mode()
 * switches a live heap, building the structures the new mode needs from the
 * address order.
 *
 * **Tree search.** A block can only fit if its size is >= size, since the
 * slack is >= 0. The search enumerates, in address order, the free blocks
 * whose size is >= size, pruning every subtree whose subtree_max is
 * smaller, and tests the real fit (with that block's own slack) on each;
 * the first that fits is the answer, which is by definition the block the
 * list walk stops at. Finding the first candidate and each next one is a
 * descent or an ascent of the tree, O(log n). If k candidates below the
 * answer are large enough on size but fail once aligned (their size is in
 * [size, size + align - 1) and their start is badly aligned), the search
 * costs O((k + 1) log n), and never more than O(n) because it is one
 * pruned in-order traversal, which visits each node a bounded number of
 * times. With align = 1, or whenever the candidates are at least
 * size + align - 1 bytes, k = 0 and alloc is O(log n). The worst case,
 * O(n) like the list, needs n free blocks that are just big enough and all
 * misaligned for the request. Updating the tree is O(log n): a split puts
 * the remainder in its block's place (rb_replace_node() and a propagation
 * of subtree_max), a merge grows a node in place or replaces/erases one.
 * Free finds the block in the alloc tree in O(log n) and its neighbours in
 * O(1). Stats are O(1) in the tree modes (largest free = root's
 * subtree_max) and O(n) in the list mode.
 *
 * The heap does no locking: the caller serialises every call on one heap.
 */

#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/rbtree_augmented.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "xmem_heap.h"

struct xmem_heap_block {
	struct xmem_heap_block *next;		/* free list, or alloc list */
	struct xmem_heap_block *phys_prev;	/* all blocks, address order */
	struct xmem_heap_block *phys_next;
	struct rb_node rb;			/* free_tree, or alloc_tree */
	u64 start;
	u64 aligned;		/* address handed out; start while free */
	u64 size;		/* whole block, slack included */
	u64 subtree_max;	/* free_tree: largest size in this subtree */
	bool allocated;
};

static inline bool xh_lists(const struct xmem_heap *h)
{
	return h->lists_on;
}

static inline bool xh_trees(const struct xmem_heap *h)
{
	return h->trees_on;
}

static inline bool xh_mode_ok(enum xmem_heap_mode mode)
{
	return mode == XMEM_HEAP_TREE || mode == XMEM_HEAP_LIST;
}

static u64 xh_addr_or_none(const struct xmem_heap_block *b)
{
	return b ? b->start : U64_MAX;
}

static inline u64 xh_block_size(struct xmem_heap_block *b)
{
	return b->size;
}

RB_DECLARE_CALLBACKS_MAX(static, xh_free_cb, struct xmem_heap_block, rb,
			 u64, subtree_max, xh_block_size)

static inline struct xmem_heap_block *xh_rb_block(const struct rb_node *n)
{
	return n ? rb_entry(n, struct xmem_heap_block, rb) : NULL;
}

static inline u64 xh_subtree_max(const struct rb_node *n)
{
	return n ? rb_entry(n, struct xmem_heap_block, rb)->subtree_max : 0;
}

/*
 * Would @size bytes aligned to @align fit in @b? On success *slack is
 * align_up(start) - start. start + b->size never overflows (init checks
 * the pool end), and slack <= b->size is tested before it is used, so
 * nothing here can wrap.
 */
static inline bool xh_fits(const struct xmem_heap_block *b, u64 size,
			   u64 align, u64 *slack)
{
	u64 s = (0 - b->start) & (align - 1);

	if (s > b->size || size > b->size - s)
		return false;
	*slack = s;
	return true;
}

/* Descriptors */

/* The lowest spare descriptor, or NULL. */
static struct xmem_heap_block *xh_get_desc(struct xmem_heap *h)
{
	unsigned long nwords = BITS_TO_LONGS(h->num_blocks);
	unsigned long w = find_first_bit(h->spare_words, nwords), idx;

	if (w >= nwords)
		return NULL;
	idx = w * BITS_PER_LONG + __ffs(h->free_bitmap[w]);
	__clear_bit(idx, h->free_bitmap);
	if (!h->free_bitmap[w])
		__clear_bit(w, h->spare_words);
	h->blocks_in_use++;
	return &h->blocks[idx];
}

static void xh_put_desc(struct xmem_heap *h, struct xmem_heap_block *b)
{
	unsigned long idx = b - h->blocks;

	__set_bit(idx, h->free_bitmap);
	__set_bit(BIT_WORD(idx), h->spare_words);
	h->blocks_in_use--;
	memset(b, 0, sizeof(*b));
}

/* Physical (address-order) chain of every block */

static void xh_phys_insert_after(struct xmem_heap_block *b,
				 struct xmem_heap_block *nb)
{
	nb->phys_prev = b;
	nb->phys_next = b->phys_next;
	if (b->phys_next)
		b->phys_next->phys_prev = nb;
	b->phys_next = nb;
}

/* Only absorbed blocks are unlinked, and those always have a left block. */
static void xh_phys_unlink(struct xmem_heap_block *b)
{
	b->phys_prev->phys_next = b->phys_next;
	if (b->phys_next)
		b->phys_next->phys_prev = b->phys_prev;
}

/* Trees */

static void xh_free_tree_insert(struct xmem_heap *h, struct xmem_heap_block *b)
{
	struct rb_node **link = &h->free_tree.rb_node, *parent = NULL;
	struct xmem_heap_block *p;

	while (*link) {
		parent = *link;
		p = xh_rb_block(parent);
		if (p->subtree_max < b->size)
			p->subtree_max = b->size;
		link = b->start < p->start ? &parent->rb_left : &parent->rb_right;
	}
	b->subtree_max = b->size;
	rb_link_node(&b->rb, parent, link);
	rb_insert_augmented(&b->rb, &h->free_tree, &xh_free_cb);
}

/* @nb takes @old's place in the free tree; their keys sort alike. */
static void xh_free_tree_replace(struct xmem_heap *h,
				 struct xmem_heap_block *old,
				 struct xmem_heap_block *nb)
{
	nb->subtree_max = old->subtree_max;
	rb_replace_node(&old->rb, &nb->rb, &h->free_tree);
	xh_free_cb_propagate(&nb->rb, NULL);
}

static void xh_alloc_tree_insert(struct xmem_heap *h, struct xmem_heap_block *b)
{
	struct rb_node **link = &h->alloc_tree.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = b->aligned < xh_rb_block(parent)->aligned ?
		       &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&b->rb, parent, link);
	rb_insert_color(&b->rb, &h->alloc_tree);
}

static struct xmem_heap_block *xh_alloc_tree_find(const struct xmem_heap *h,
						  u64 addr)
{
	struct rb_node *n = h->alloc_tree.rb_node;

	while (n) {
		struct xmem_heap_block *b = xh_rb_block(n);

		if (addr == b->aligned)
			return b;
		n = addr < b->aligned ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/*
 * Lowest-address block of at least @size bytes in the subtree at @n; the
 * caller has checked that the subtree's subtree_max is >= @size.
 */
static struct xmem_heap_block *xh_lowest_ge(struct rb_node *n, u64 size)
{
	while (n) {
		struct xmem_heap_block *b;

		if (xh_subtree_max(n->rb_left) >= size) {
			n = n->rb_left;
			continue;
		}
		b = xh_rb_block(n);
		if (b->size >= size)
			return b;
		n = n->rb_right;
	}
	return NULL;
}

/* Next block after @b in address order with at least @size bytes. */
static struct xmem_heap_block *xh_next_ge(struct xmem_heap_block *b, u64 size)
{
	struct rb_node *n = &b->rb, *parent;

	if (xh_subtree_max(n->rb_right) >= size)
		return xh_lowest_ge(n->rb_right, size);
	while ((parent = rb_parent(n))) {
		if (parent->rb_left == n) {
			struct xmem_heap_block *p = xh_rb_block(parent);

			if (p->size >= size)
				return p;
			if (xh_subtree_max(parent->rb_right) >= size)
				return xh_lowest_ge(parent->rb_right, size);
		}
		n = parent;
	}
	return NULL;
}

/* First fit in O((k + 1) log n), k = size-only candidates that fail. */
static struct xmem_heap_block *xh_tree_find(struct xmem_heap *h, u64 size,
					    u64 align, u64 *slack)
{
	struct rb_node *root = h->free_tree.rb_node;
	struct xmem_heap_block *b;

	if (xh_subtree_max(root) < size)
		return NULL;
	for (b = xh_lowest_ge(root, size); b; b = xh_next_ge(b, size))
		if (xh_fits(b, size, align, slack))
			return b;
	return NULL;
}

/* The seed's walk; *link is where the block hangs in the free list. */
static struct xmem_heap_block *xh_list_find(struct xmem_heap *h, u64 size,
					    u64 align, u64 *slack,
					    struct xmem_heap_block ***linkp)
{
	struct xmem_heap_block **link;

	for (link = &h->free_head; *link; link = &(*link)->next) {
		if (xh_fits(*link, size, align, slack)) {
			*linkp = link;
			return *link;
		}
	}
	return NULL;
}

/*
 * Maintain the lists, the trees or both from now on: build what is
 * missing from the address order of the blocks (lists O(n), trees
 * O(n log n)) and drop what is no longer wanted. A rebuilt alloc list is
 * in descending address order rather than allocation order; only the cost
 * of scanning it differs.
 */
static void xh_structures(struct xmem_heap *h, bool lists, bool trees)
{
	struct xmem_heap_block *b, **tail;

	if (lists && !h->lists_on) {
		tail = &h->free_head;
		h->alloc_head = NULL;
		for (b = h->phys_head; b; b = b->phys_next) {
			if (b->allocated) {
				b->next = h->alloc_head;
				h->alloc_head = b;
			} else {
				*tail = b;
				tail = &b->next;
			}
		}
		*tail = NULL;
	}
	if (trees && !h->trees_on) {
		h->free_tree = RB_ROOT;
		h->alloc_tree = RB_ROOT;
		for (b = h->phys_head; b; b = b->phys_next) {
			if (b->allocated)
				xh_alloc_tree_insert(h, b);
			else
				xh_free_tree_insert(h, b);
		}
	}
	if (!lists) {
		h->free_head = NULL;
		h->alloc_head = NULL;
	}
	if (!trees) {
		h->free_tree = RB_ROOT;
		h->alloc_tree = RB_ROOT;
	}
	h->lists_on = lists;
	h->trees_on = trees;
}

/*
 * XMEM_HEAP_TREE: lists while the heap is small, trees once it has grown.
 * Switch to the trees above 2 * list_max blocks and back to the lists at
 * list_max or fewer; as an operation changes the block count by at most
 * 2, at least list_max / 2 operations separate two switches, which keeps
 * their O(list_max log list_max) cost amortised O(log list_max).
 */
static void xh_adapt(struct xmem_heap *h)
{
	if (h->mode != XMEM_HEAP_TREE)
		return;
	if (h->lists_on &&
	    (!h->list_max || h->blocks_in_use > 2ULL * h->list_max))
		xh_structures(h, false, true);
	else if (h->trees_on && h->blocks_in_use <= h->list_max)
		xh_structures(h, true, false);
}

/**
 * xmem_heap_set_mode() - change the search structures of a live heap
 * @h: the heap
 * @mode: XMEM_HEAP_TREE or XMEM_HEAP_LIST
 *
 * Builds what @mode needs and the heap lacks, drops what @mode does not
 * use. In XMEM_HEAP_TREE mode the heap starts on the lists if it has at
 * most 2 * list_max blocks, else on the trees. Allocation results never depend
 * on the mode. O(n log n) at worst.
 * Return: 0, or -EINVAL for an unknown mode.
 */
int xmem_heap_set_mode(struct xmem_heap *h, enum xmem_heap_mode mode)
{
	bool small = h->blocks_in_use <= 2ULL * h->list_max;

	if (!xh_mode_ok(mode))
		return -EINVAL;
	h->mode = mode;
	if (mode == XMEM_HEAP_TREE)
		xh_structures(h, small, !small);
	else
		xh_structures(h, true, false);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_set_mode);	/* xmem_heap_test.c: the heap alone */

/**
 * xmem_heap_init() - set up a heap over [@base, @base + @size)
 * @h: the heap; any previous contents are ignored
 * @base: first address of the pool (a device address)
 * @size: pool size in bytes, > 0; @base + @size must not overflow u64
 * @num_blocks: descriptor pool size, 0 for XMEM_HEAP_DEFAULT_NUM_BLOCKS,
 *	at most XMEM_HEAP_MAX_NUM_BLOCKS
 * @mode: XMEM_HEAP_TREE or XMEM_HEAP_LIST
 *
 * The pool starts as one free block, which uses one descriptor.
 * Context: may sleep.
 * Return: 0, -EINVAL for a bad argument, or -ENOMEM.
 */
int xmem_heap_init(struct xmem_heap *h, u64 base, u64 size, u32 num_blocks,
		   enum xmem_heap_mode mode)
{
	struct xmem_heap_block *b;
	u64 end;

	memset(h, 0, sizeof(*h));
	if (!num_blocks)
		num_blocks = XMEM_HEAP_DEFAULT_NUM_BLOCKS;
	if (!size || check_add_overflow(base, size, &end) ||
	    num_blocks > XMEM_HEAP_MAX_NUM_BLOCKS || !xh_mode_ok(mode))
		return -EINVAL;

	h->blocks = kvcalloc(num_blocks, sizeof(*h->blocks), GFP_KERNEL);
	h->free_bitmap = bitmap_zalloc(num_blocks, GFP_KERNEL);
	h->spare_words = bitmap_zalloc(BITS_TO_LONGS(num_blocks), GFP_KERNEL);
	if (!h->blocks || !h->free_bitmap || !h->spare_words) {
		xmem_heap_destroy(h);
		return -ENOMEM;
	}
	/* not bitmap_fill(): bits past num_blocks must stay clear */
	bitmap_set(h->free_bitmap, 0, num_blocks);
	bitmap_set(h->spare_words, 0, BITS_TO_LONGS(num_blocks));
	h->base = base;
	h->size = size;
	h->num_blocks = num_blocks;
	h->mode = mode;
	h->list_max = XMEM_HEAP_TREE_LIST_MAX;
	h->free_tree = RB_ROOT;
	h->alloc_tree = RB_ROOT;

	b = xh_get_desc(h);
	b->start = base;
	b->aligned = base;
	b->size = size;
	h->phys_head = b;
	h->free_bytes = size;
	h->free_count = 1;
	return xmem_heap_set_mode(h, mode);
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_init);	/* xmem_heap_test.c: the heap alone */

/**
 * xmem_heap_destroy() - free the descriptor pool of a heap
 * @h: a heap set up by xmem_heap_init(), or zeroed memory
 *
 * Live allocations are forgotten; the heap is left zeroed. Safe to call
 * twice.
 */
void xmem_heap_destroy(struct xmem_heap *h)
{
	kvfree(h->blocks);
	bitmap_free(h->free_bitmap);
	bitmap_free(h->spare_words);
	memset(h, 0, sizeof(*h));	/* empty roots and lists: RB_ROOT is NULL */
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_destroy);	/* xmem_heap_test.c: the heap alone */

/**
 * xmem_heap_alloc() - first-fit allocation
 * @h: the heap
 * @size: bytes wanted, > 0
 * @align: a power of two, or 0 for XMEM_HEAP_DEFAULT_ALIGN (64)
 * @addr: on XMEM_OK, the aligned address handed out
 * @block_end: if not NULL, on XMEM_OK the end of the block handed over,
 *	which exceeds @addr + @size when the heap did not split
 *
 * Outputs are written only on success.
 * Return: XMEM_OK, XMEM_ERR_ILLEGAL_ALIGN, XMEM_ERR_INVALID_ARGS (size 0)
 * or XMEM_ERR_ALLOC_FAILED (no block fits, including any size or
 * alignment too large for the pool).
 */
int xmem_heap_alloc(struct xmem_heap *h, u64 size, u64 align, u64 *addr,
		    u64 *block_end)
{
	struct xmem_heap_block *b, *nb = NULL;
	struct xmem_heap_block **link = NULL;
	u64 slack = 0, need, rest;

	if (!align)
		align = XMEM_HEAP_DEFAULT_ALIGN;
	if (align & (align - 1))
		return XMEM_ERR_ILLEGAL_ALIGN;
	if (!size)
		return XMEM_ERR_INVALID_ARGS;

	if (xh_lists(h))
		b = xh_list_find(h, size, align, &slack, &link);
	else
		b = xh_tree_find(h, size, align, &slack);
	if (!b)
		return XMEM_ERR_ALLOC_FAILED;

	need = slack + size;	/* <= b->size, see xh_fits() */
	rest = b->size - need;
	if (rest > XMEM_HEAP_MIN_ALLOC_SIZE) {
		nb = h->no_split_once ? NULL : xh_get_desc(h);
		if (!nb)
			h->split_refused++;
	}

	if (nb) {
		/* The remainder takes b's place among the free blocks. */
		nb->start = b->start + need;
		nb->aligned = nb->start;
		nb->size = rest;
		b->size = need;
		xh_phys_insert_after(b, nb);
		if (xh_lists(h)) {
			nb->next = b->next;
			*link = nb;
		}
		if (xh_trees(h))
			xh_free_tree_replace(h, b, nb);
	} else {
		if (xh_lists(h))
			*link = b->next;
		if (xh_trees(h))
			rb_erase_augmented(&b->rb, &h->free_tree, &xh_free_cb);
		h->free_count--;
	}

	b->aligned = b->start + slack;
	b->allocated = true;
	if (xh_lists(h)) {
		b->next = h->alloc_head;
		h->alloc_head = b;
	}
	if (xh_trees(h))
		xh_alloc_tree_insert(h, b);
	h->alloc_count++;
	h->free_bytes -= b->size;
	h->allocated_bytes += b->size;
	h->unused_bytes += slack;

	*addr = b->aligned;
	if (block_end)
		*block_end = b->start + b->size;
	xh_adapt(h);
	return XMEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_alloc);	/* xmem_heap_test.c: the heap alone */

/*
 * Put the no longer allocated block @nb back among the free blocks,
 * merging it with both physical neighbours at once.
 */
static void xh_add_free(struct xmem_heap *h, struct xmem_heap_block *nb)
{
	struct xmem_heap_block *left = NULL, *right = NULL;
	struct xmem_heap_block *prev = NULL, *next = NULL, **plink = NULL;

	if (xh_lists(h)) {
		/* The seed's walk to the insertion point. */
		for (next = h->free_head; next && next->start < nb->start;
		     next = next->next)
			prev = next;
		plink = prev ? &prev->next : &h->free_head;
		if (prev && prev->start + prev->size == nb->start)
			left = prev;
		if (next && nb->start + nb->size == next->start)
			right = next;
	} else {
		if (nb->phys_prev && !nb->phys_prev->allocated)
			left = nb->phys_prev;
		if (nb->phys_next && !nb->phys_next->allocated)
			right = nb->phys_next;
	}

	if (left && right) {
		if (xh_lists(h))
			left->next = right->next;
		if (xh_trees(h))
			rb_erase_augmented(&right->rb, &h->free_tree,
					   &xh_free_cb);
		left->size += nb->size + right->size;
		if (xh_trees(h))
			xh_free_cb_propagate(&left->rb, NULL);
		xh_phys_unlink(nb);
		xh_phys_unlink(right);
		xh_put_desc(h, nb);
		xh_put_desc(h, right);
		h->free_count--;
	} else if (left) {
		left->size += nb->size;
		if (xh_trees(h))
			xh_free_cb_propagate(&left->rb, NULL);
		xh_phys_unlink(nb);
		xh_put_desc(h, nb);
	} else if (right) {
		nb->size += right->size;
		if (xh_lists(h)) {
			nb->next = right->next;
			*plink = nb;
		}
		if (xh_trees(h))
			xh_free_tree_replace(h, right, nb);
		xh_phys_unlink(right);
		xh_put_desc(h, right);
	} else {
		if (xh_lists(h)) {
			nb->next = next;
			*plink = nb;
		}
		if (xh_trees(h))
			xh_free_tree_insert(h, nb);
		h->free_count++;
	}
}

/**
 * xmem_heap_free() - free an allocation
 * @h: the heap
 * @addr: the aligned address xmem_heap_alloc() returned
 *
 * Return: XMEM_OK, or XMEM_ERR_PTR_OUT_OF_BOUNDS if @addr is not the
 * address of a live allocation (the heap is then unchanged).
 */
int xmem_heap_free(struct xmem_heap *h, u64 addr)
{
	struct xmem_heap_block *b, **link = NULL;

	if (xh_lists(h)) {
		for (link = &h->alloc_head; *link; link = &(*link)->next)
			if ((*link)->aligned == addr)
				break;
		b = *link;
	} else {
		b = xh_alloc_tree_find(h, addr);
	}
	if (!b)
		return XMEM_ERR_PTR_OUT_OF_BOUNDS;

	if (xh_lists(h))
		*link = b->next;
	if (xh_trees(h))
		rb_erase(&b->rb, &h->alloc_tree);
	h->alloc_count--;
	h->free_bytes += b->size;
	h->allocated_bytes -= b->size;
	/* docs/seed-behaviour.md A.1: aligned - start, not start - aligned. */
	h->unused_bytes -= b->aligned - b->start;
	b->aligned = b->start;
	b->allocated = false;
	xh_add_free(h, b);
	xh_adapt(h);
	return XMEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_free);	/* xmem_heap_test.c: the heap alone */

/**
 * xmem_heap_get_stats() - snapshot of the heap's counters
 * @h: the heap
 * @st: filled in
 *
 * O(1) in the tree modes; the list mode walks the free list for the
 * largest free block.
 */
void xmem_heap_get_stats(const struct xmem_heap *h, struct xmem_heap_stats *st)
{
	const struct xmem_heap_block *b;

	memset(st, 0, sizeof(*st));
	st->pool_size = h->size;
	st->free_bytes = h->free_bytes;
	st->allocated_bytes = h->allocated_bytes;
	st->unused_bytes = h->unused_bytes;
	st->split_refused = h->split_refused;
	st->num_blocks = h->num_blocks;
	st->blocks_in_use = h->blocks_in_use;
	st->free_blocks = h->free_count;
	st->alloc_blocks = h->alloc_count;
	if (xh_trees(h)) {
		st->largest_free = xh_subtree_max(h->free_tree.rb_node);
	} else {
		for (b = h->free_head; b; b = b->next)
			st->largest_free = max(st->largest_free, b->size);
	}
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_get_stats);	/* xmem_heap_test.c: the heap alone */

/**
 * xmem_heap_dump() - list the blocks in address order
 * @h: the heap
 * @out: array of @max entries (may be NULL if @max is 0)
 * @max: capacity of @out
 *
 * Free and allocated blocks come merged, lowest address first; a free
 * block reports aligned == start.
 * Return: the number of blocks in the heap, which may exceed @max.
 */
u32 xmem_heap_dump(const struct xmem_heap *h, struct xmem_heap_block_info *out,
		   u32 max)
{
	const struct xmem_heap_block *b;
	u32 n = 0;

	for (b = h->phys_head; b; b = b->phys_next, n++) {
		if (n >= max)
			continue;
		out[n].start = b->start;
		out[n].aligned = b->aligned;
		out[n].size = b->size;
		out[n].allocated = b->allocated;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_dump);	/* xmem_heap_test.c: the heap alone */

static int xh_bad(const struct xmem_heap *h, const char *what, u64 a, u64 b)
{
	pr_err("xmem_heap [%#llx, +%#llx): %s (%#llx, %#llx)\n",
	       h->base, h->size, what, a, b);
	return -EUCLEAN;
}

/* One block of the address-order walk: its own invariants. */
static int xh_verify_block(const struct xmem_heap *h,
			   const struct xmem_heap_block *b,
			   const struct xmem_heap_block *prev, u64 addr)
{
	u64 idx;

	if (b < h->blocks || b >= h->blocks + h->num_blocks)
		return xh_bad(h, "block outside the descriptor pool", 0, 0);
	idx = b - h->blocks;
	if (test_bit(idx, h->free_bitmap))
		return xh_bad(h, "live descriptor marked spare", idx, b->start);
	if (b->phys_prev != prev)
		return xh_bad(h, "bad back link at", b->start, 0);
	if (b->start != addr)
		return xh_bad(h, "gap or overlap: expected, got", addr, b->start);
	if (!b->size || b->size > h->base + h->size - b->start)
		return xh_bad(h, "bad block size at", b->start, b->size);
	if (b->allocated) {
		if (b->aligned < b->start || b->aligned - b->start >= b->size)
			return xh_bad(h, "aligned address outside its block",
				      b->start, b->aligned);
		return 0;
	}
	if (prev && !prev->allocated)
		return xh_bad(h, "adjacent free blocks", prev->start, b->start);
	if (b->aligned != b->start)
		return xh_bad(h, "free block with slack", b->start, b->aligned);
	if (xh_trees(h)) {
		u64 m = max3(b->size, xh_subtree_max(b->rb.rb_left),
			     xh_subtree_max(b->rb.rb_right));

		if (b->subtree_max != m)
			return xh_bad(h, "subtree_max wrong at", b->start,
				      b->subtree_max);
	}
	return 0;
}

/* LIST: the lists; TREE: the lists or the trees (xh_adapt()). */
static bool xh_structures_ok(const struct xmem_heap *h)
{
	if (h->mode == XMEM_HEAP_LIST)
		return h->lists_on && !h->trees_on;
	return h->lists_on != h->trees_on;
}

/* The word summary matches the bitmap, and no bit past num_blocks is set. */
static int xh_verify_words(const struct xmem_heap *h)
{
	unsigned long w, nwords = BITS_TO_LONGS(h->num_blocks);

	if (bitmap_weight(h->free_bitmap, nwords * BITS_PER_LONG) !=
	    bitmap_weight(h->free_bitmap, h->num_blocks))
		return xh_bad(h, "spare bits past num_blocks", h->num_blocks, 0);
	for (w = 0; w < nwords; w++)
		if (test_bit(w, h->spare_words) != !!h->free_bitmap[w])
			return xh_bad(h, "spare word summary wrong at", w,
				      h->free_bitmap[w]);
	return 0;
}

/* What one walk of the blocks counts, for xmem_heap_verify() */
struct xh_walk {
	u64 free_sum, alloc_sum, unused, largest;
	u32 n, nfree, nalloc;
};

/*
 * The blocks in address order tile the pool, and the free list (list
 * modes) and both trees (tree modes) hold them in the same order; their
 * totals into *w.
 */
static int xh_verify_walk(const struct xmem_heap *h, struct xh_walk *w)
{
	const struct xmem_heap_block *b, *prev = NULL, *fl = NULL;
	const struct rb_node *fn = NULL, *an = NULL;
	u64 addr = h->base;
	int ret;

	if (xh_lists(h))
		fl = h->free_head;
	if (xh_trees(h)) {
		fn = rb_first(&h->free_tree);
		an = rb_first(&h->alloc_tree);
	}

	for (b = h->phys_head; b; prev = b, b = b->phys_next) {
		if (++w->n > h->num_blocks)
			return xh_bad(h, "more blocks than descriptors", w->n, 0);
		ret = xh_verify_block(h, b, prev, addr);
		if (ret)
			return ret;
		addr = b->start + b->size;
		if (b->allocated) {
			w->alloc_sum += b->size;
			w->unused += b->aligned - b->start;
			w->nalloc++;
			if (xh_trees(h)) {
				if (an != &b->rb)
					return xh_bad(h, "alloc tree differs at",
						      b->start, 0);
				an = rb_next(an);
			}
			continue;
		}
		w->free_sum += b->size;
		w->largest = max(w->largest, b->size);
		w->nfree++;
		if (xh_lists(h)) {
			if (fl != b)
				return xh_bad(h, "free list differs at",
					      b->start, xh_addr_or_none(fl));
			fl = fl->next;
		}
		if (xh_trees(h)) {
			if (fn != &b->rb)
				return xh_bad(h, "free tree differs at",
					      b->start, 0);
			fn = rb_next(fn);
		}
	}
	if (addr != h->base + h->size)
		return xh_bad(h, "blocks end short of the pool end", addr, 0);
	if (fl)
		return xh_bad(h, "extra free list entry", fl->start, 0);
	if (fn || an)
		return xh_bad(h, "extra tree entry", !!fn, !!an);
	return 0;
}

/*
 * The alloc list (list modes), the free tree's root subtree_max (tree
 * modes), the counters and the descriptors against one walk's totals.
 */
static int xh_verify_counts(const struct xmem_heap *h, const struct xh_walk *w)
{
	const struct xmem_heap_block *b;

	if (xh_lists(h)) {
		u32 k = 0;

		for (b = h->alloc_head; b; b = b->next) {
			if (++k > w->nalloc || !b->allocated)
				return xh_bad(h, "alloc list wrong at",
					      b->start, k);
		}
		if (k != w->nalloc)
			return xh_bad(h, "alloc list short", k, w->nalloc);
	}
	if (xh_trees(h) && xh_subtree_max(h->free_tree.rb_node) != w->largest)
		return xh_bad(h, "root subtree_max", w->largest,
			      xh_subtree_max(h->free_tree.rb_node));

	if (w->free_sum != h->free_bytes)
		return xh_bad(h, "free_bytes", h->free_bytes, w->free_sum);
	if (w->alloc_sum != h->allocated_bytes)
		return xh_bad(h, "allocated_bytes", h->allocated_bytes,
			      w->alloc_sum);
	if (h->free_bytes + h->allocated_bytes != h->size)
		return xh_bad(h, "free + allocated != pool size",
			      h->free_bytes, h->allocated_bytes);
	if (w->unused != h->unused_bytes)
		return xh_bad(h, "unused_bytes != sum of slacks",
			      h->unused_bytes, w->unused);
	if (w->nfree != h->free_count || w->nalloc != h->alloc_count)
		return xh_bad(h, "block counts", h->free_count, h->alloc_count);
	if (w->n != h->blocks_in_use ||
	    bitmap_weight(h->free_bitmap, h->num_blocks) !=
	    h->num_blocks - w->n)
		return xh_bad(h, "descriptor accounting", w->n, h->blocks_in_use);
	return 0;
}

/**
 * xmem_heap_verify() - check every invariant of the heap
 * @h: the heap
 *
 * The blocks tile the pool in address order with no gap or overlap, no
 * two free blocks touch, every live descriptor is marked used in the bitmap
 * and no other is, the counters (bytes, blocks, descriptors, unused bytes
 * = sum of slacks) match the blocks, the free list (list modes) holds
 * exactly the free blocks in address order and the alloc list exactly the
 * allocated ones, and the trees (tree modes) hold the same blocks in the
 * same order with correct subtree_max values. O(n).
 * Return: 0, or -EUCLEAN after a pr_err() naming the first violation.
 */
int xmem_heap_verify(const struct xmem_heap *h)
{
	struct xh_walk w = {};
	int ret;

	if (!h->blocks || !h->free_bitmap || !h->spare_words)
		return xh_bad(h, "not initialised", 0, 0);
	if (!xh_structures_ok(h))
		return xh_bad(h, "structures do not match the mode", h->mode,
			      h->lists_on * 2 + h->trees_on);
	ret = xh_verify_walk(h, &w);
	if (!ret)
		ret = xh_verify_counts(h, &w);
	return ret ? ret : xh_verify_words(h);
}
EXPORT_SYMBOL_IF_KUNIT(xmem_heap_verify);	/* xmem_heap_test.c: the heap alone */
