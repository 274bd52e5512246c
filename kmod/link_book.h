/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The links one user's transfers hold across devices (kmod/link_book.c).
 *
 * Within a device a user's links are clocks, like its engines
 * (du->link_free): the device's scheduler starts transfers in modeled-time
 * order, so "free from here" is exact. Two devices' clocks are not one
 * clock: each moves with what runs on it. So across devices a link is a
 * calendar: each transfer that crosses it books the interval its bytes
 * hold it, tagged with the device that ran it, and a transfer of another
 * device moves its bytes into the first gap that none of those intervals
 * covers. A device's lead in modeled time is then no wait for another,
 * and two devices that cross one link at the same modeled time take
 * turns on it.
 *
 * One book per user (real uid) for the whole module, shared by its DMA on
 * every device, made only when there are several devices. The book keeps
 * the last XMEMSIM_LINK_BOOK_MAX intervals: when it is full, the one that
 * ends first goes, and the link is free there from then on.
 *
 * Locking: book->lock (a mutex) guards the intervals. It is taken with a
 * du->lock held, never the other way round, and nothing else is taken
 * under it.
 */
#ifndef XMEMSIM_LINK_BOOK_H
#define XMEMSIM_LINK_BOOK_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>

#include "topo.h"

#define XMEMSIM_LINK_BOOK_MAX	256

/* One booking: the link held over [start, end) by device dev's transfer. */
struct xmemsim_link_iv {
	u64 start, end;
	u16 link, dev;
};

struct xmemsim_link_book {
	struct list_head node;		/* in the module's list of books */
	kuid_t uid;
	refcount_t ref;
	struct mutex lock;		/* the intervals */
	u32 n;
	struct xmemsim_link_iv iv[XMEMSIM_LINK_BOOK_MAX];
};

struct xmemsim_link_book *xmemsim_link_book_get(kuid_t uid);
void xmemsim_link_book_put(struct xmemsim_link_book *b);
u64 xmemsim_link_book_fit(const struct xmemsim_link_book *b, u32 dev,
			  const struct xmemsim_route *r, u64 t, u64 len);
void xmemsim_link_book_add(struct xmemsim_link_book *b, u32 dev,
			   const struct xmemsim_route *r, u64 start, u64 end);

#endif /* XMEMSIM_LINK_BOOK_H */
