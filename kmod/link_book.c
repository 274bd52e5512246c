// SPDX-License-Identifier: GPL-2.0
/*
 * The links one user's transfers hold across devices: a calendar per
 * user (see link_book.h for the model and its lock).
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include "link_book.h"

static LIST_HEAD(books);		/* every user's book */
static DEFINE_MUTEX(books_lock);	/* the list and the books' refs */

/**
 * xmemsim_link_book_get() - the user's book, made at its first use
 * @uid: the user
 *
 * Charged to the caller, who opens the user's first DMA state on a
 * device. Return: a reference, or NULL without memory.
 */
struct xmemsim_link_book *xmemsim_link_book_get(kuid_t uid)
{
	struct xmemsim_link_book *b;

	mutex_lock(&books_lock);
	list_for_each_entry(b, &books, node) {
		if (uid_eq(b->uid, uid)) {
			refcount_inc(&b->ref);
			goto out;
		}
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (b) {
		b->uid = uid;
		refcount_set(&b->ref, 1);
		mutex_init(&b->lock);
		list_add(&b->node, &books);
	}
out:
	mutex_unlock(&books_lock);
	return b;
}

void xmemsim_link_book_put(struct xmemsim_link_book *b)
{
	if (!b || !refcount_dec_and_mutex_lock(&b->ref, &books_lock))
		return;
	list_del(&b->node);
	mutex_unlock(&books_lock);
	mutex_destroy(&b->lock);
	kfree(b);
}

static bool on_route(const struct xmemsim_route *r, u32 link)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		if (r->link[i] == link)
			return true;
	return false;
}

/**
 * xmemsim_link_book_fit() - where a transfer's bytes fit among others'
 * @b: the user's book, its lock held (or the caller's own, in KUnit)
 * @dev: the device that runs the transfer: its own bookings are its
 *	scheduler's business (du->link_free), not the book's
 * @r: the links its bytes cross
 * @t: the earliest its bytes could start
 * @len: how long they hold each link
 *
 * Each pass moves @t past every interval of another device that it
 * overlaps on the route; @t only grows, to an interval's end, so there
 * are at most as many passes as intervals.
 *
 * Return: the earliest start at or after @t at which the bytes hold no
 * link of @r that another device's transfer holds.
 */
u64 xmemsim_link_book_fit(const struct xmemsim_link_book *b, u32 dev,
			  const struct xmemsim_route *r, u64 t, u64 len)
{
	const struct xmemsim_link_iv *iv;
	bool moved;
	u32 i;

	if (!len || !r->n)
		return t;
	do {
		u64 end = t + min(len, U64_MAX - t);

		moved = false;
		for (i = 0; i < b->n; i++) {
			iv = &b->iv[i];
			if (iv->dev == dev || iv->start >= end || iv->end <= t ||
			    !on_route(r, iv->link))
				continue;
			t = iv->end;
			end = t + min(len, U64_MAX - t);
			moved = true;
		}
	} while (moved);
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_link_book_fit);	/* topo_test.c */

/**
 * xmemsim_link_book_add() - book a transfer's links
 * @b: the user's book, its lock held
 * @dev: the device that runs it
 * @r: its route
 * @start: when its bytes take the links
 * @end: when they let go
 *
 * When the book is full, the booking that ends first makes room.
 */
void xmemsim_link_book_add(struct xmemsim_link_book *b, u32 dev,
			   const struct xmemsim_route *r, u64 start, u64 end)
{
	u32 i, k, slot;

	if (start >= end)
		return;
	for (k = 0; k < r->n; k++) {
		slot = b->n;
		if (slot == XMEMSIM_LINK_BOOK_MAX) {
			for (slot = 0, i = 1; i < b->n; i++)
				if (b->iv[i].end < b->iv[slot].end)
					slot = i;
		} else {
			b->n++;
		}
		b->iv[slot] = (struct xmemsim_link_iv){
			.start = start, .end = end, .link = r->link[k], .dev = dev,
		};
	}
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_link_book_add);	/* topo_test.c */
