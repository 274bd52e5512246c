// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: a file's semaphores (uapi/xmemsim.h says what a
 * program sees of them; kmod/dma_internal.h has the clock and the lock).
 *
 * A semaphore has a value, which a transfer's completion raises by its
 * signal_inc and SEM_SET sets; a history, from which the modeled time a
 * value arrived follows (the SEM_SET, and the signallers since, done and
 * not yet reaped); a broken bit, set when a transfer that would have
 * signalled it fails and cleared by SEM_SET; and its waiters: the queued
 * transfers whose wait condition is sem >= value, each stamped with the
 * modeled time the condition came to hold (ready_ns), and the tasks in
 * SEM_WAIT. Since its SEM_SET a semaphore only grows.
 *
 * The scheduler (dma_sched.c) signals, breaks and queues waiters; the
 * checker (dma_check.c) reads the signallers and arrival times; the
 * commands (dma.c) set, read and wait. None of them touches the fields.
 * Every function here runs under du->lock but xmemsim_sem_settled(), a
 * wait condition that reads the values locklessly.
 */
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "dma_internal.h"

/**
 * xmemsim_sems_init() - a file's semaphores, all 0, none broken
 * @s: zeroed
 * @n: how many
 * @lock: the du->lock that guards them, for lockdep (set later if NULL)
 * @gfp: for the arrays
 *
 * Return: 0 or -ENOMEM; either way xmemsim_sems_free() frees what there is.
 */
int xmemsim_sems_init(struct xmemsim_dma_sems *s, u32 n, struct mutex *lock,
		      gfp_t gfp)
{
	u32 i;

	s->lock = lock;
	s->val = kvcalloc(n, sizeof(*s->val), gfp);
	s->set_ns = kvcalloc(n, sizeof(*s->set_ns), gfp);
	s->set_val = kvcalloc(n, sizeof(*s->set_val), gfp);
	s->reaped = kvcalloc(n, sizeof(*s->reaped), gfp);
	s->sig = kvmalloc_array(n, sizeof(*s->sig), gfp);
	s->broken = bitmap_zalloc(n, gfp);
	INIT_LIST_HEAD(&s->waiters);
	if (!s->val || !s->set_ns || !s->set_val || !s->reaped || !s->sig ||
	    !s->broken)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&s->sig[i]);
	s->n = n;
	return 0;
}

void xmemsim_sems_free(struct xmemsim_dma_sems *s)
{
	kvfree(s->val);
	kvfree(s->set_ns);
	kvfree(s->set_val);
	kvfree(s->reaped);
	kvfree(s->sig);
	bitmap_free(s->broken);
}

/* No semaphore is broken. */
bool xmemsim_sems_whole(const struct xmemsim_dma_sems *s)
{
	lockdep_assert_held(s->lock);
	return bitmap_empty(s->broken, s->n);
}

u64 xmemsim_sem_value(const struct xmemsim_dma_sems *s, u32 sem)
{
	lockdep_assert_held(s->lock);
	return s->val[sem];
}

/**
 * xmemsim_sem_arrival() - when a semaphore's present value arrived
 * @s: the file's semaphores
 * @sem: a semaphore whose value is at least @value
 * @value: the value asked about
 *
 * Since SEM_SET a semaphore only grows, so its value has been >= @value
 * since the first signal that took it there, or since the SEM_SET. A
 * signaller the file has reaped ended at or before the file's now, which
 * bounds every later submission from below: 0 stands for it.
 *
 * Return: the modeled time from which sem >= @value has held.
 */
u64 xmemsim_sem_arrival(const struct xmemsim_dma_sems *s, u32 sem, u64 value)
{
	struct xmemsim_xfer *x;
	u64 t = U64_MAX;

	lockdep_assert_held(s->lock);
	if (s->set_val[sem] >= value)
		return s->set_ns[sem];
	if (s->reaped[sem] >= value)
		return 0;
	xmemsim_sem_for_each_signaller(x, s, sem)
		if (x->sem_after >= value)
			t = min(t, x->end_ns);
	return t == U64_MAX ? 0 : t;
}

/*
 * Semaphore sem changed at modeled time t: its queued waiters see the new
 * value, stamped when it reaches theirs (unstamped when SEM_SET takes it
 * below).
 */
static void sem_changed(struct xmemsim_dma_sems *s, u32 sem, u64 t)
{
	struct xmemsim_xfer *x;

	list_for_each_entry(x, &s->waiters, wait_node) {
		bool reached;

		if (x->d.wait_sem != sem)
			continue;
		reached = s->val[sem] >= x->d.wait_value;
		if (reached && !x->ready)
			x->ready_ns = t;
		x->ready = reached;
	}
}

/*
 * Transfer x, done without error, signals its semaphore at its end: the
 * value goes up and x is a signaller until it is reaped. (COPY's transfer
 * never signals: its descriptor has no semaphore.)
 */
void xmemsim_sem_signal(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x)
{
	u32 sem = x->d.signal_sem;

	lockdep_assert_held(s->lock);
	WRITE_ONCE(s->val[sem], s->val[sem] + x->d.signal_inc);
	x->sem_after = s->val[sem];
	list_add_tail(&x->sig_node, &s->sig[sem]);
	sem_changed(s, sem, x->end_ns);
}

/* The signal sem waits for will not come (uapi/xmemsim.h, error states). */
void xmemsim_sem_break(struct xmemsim_dma_sems *s, u32 sem)
{
	lockdep_assert_held(s->lock);
	set_bit(sem, s->broken);
}

/* Lockless too: a bit. */
bool xmemsim_sem_broken(const struct xmemsim_dma_sems *s, u32 sem)
{
	return test_bit(sem, s->broken);
}

/*
 * SEM_SET at modeled time now: the value, a mended semaphore, and a new
 * history (its signallers so far are before the set).
 */
void xmemsim_sem_set(struct xmemsim_dma_sems *s, u32 sem, u64 value, u64 now)
{
	struct xmemsim_xfer *x, *tmp;

	lockdep_assert_held(s->lock);
	WRITE_ONCE(s->val[sem], value);
	clear_bit(sem, s->broken);
	list_for_each_entry_safe(x, tmp, &s->sig[sem], sig_node)
		list_del_init(&x->sig_node);
	s->set_val[sem] = value;
	s->set_ns[sem] = now;
	s->reaped[sem] = 0;
	sem_changed(s, sem, now);
}

/*
 * Done transfer x is reaped: no longer a signaller; the highest value a
 * reaped signal reached is kept, for xmemsim_sem_arrival().
 */
void xmemsim_sem_reaped(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x)
{
	u32 sem = x->d.signal_sem;

	lockdep_assert_held(s->lock);
	if (list_empty(&x->sig_node))
		return;
	list_del_init(&x->sig_node);
	s->reaped[sem] = max(s->reaped[sem], x->sem_after);
}

/*
 * Transfer x is queued: its wait condition as it stands (ready, and since
 * when), and, if it has one, x joins the waiters.
 */
void xmemsim_sem_wait_add(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x)
{
	u32 sem = x->d.wait_sem;

	lockdep_assert_held(s->lock);
	if (sem == XMEMSIM_SEM_NONE) {
		x->ready = true;
		return;
	}
	x->ready = s->val[sem] >= x->d.wait_value;
	if (x->ready)
		x->ready_ns = xmemsim_sem_arrival(s, sem, x->d.wait_value);
	list_add_tail(&x->wait_node, &s->waiters);
}

/* Transfer x leaves its queue: no longer a waiter. */
void xmemsim_sem_wait_del(struct xmemsim_xfer *x)
{
	if (x->d.wait_sem != XMEMSIM_SEM_NONE)
		list_del_init(&x->wait_node);
}

/**
 * xmemsim_sem_settled() - SEM_WAIT's condition, read without du->lock
 * @s: the file's semaphores
 * @sem: the semaphore
 * @value: the value waited for
 *
 * Values change under du->lock and are read without it here.
 *
 * Return: true once sem has reached @value, or is broken (its signal will
 * not come): then the caller tells which by xmemsim_sem_value().
 */
bool xmemsim_sem_settled(const struct xmemsim_dma_sems *s, u32 sem, u64 value)
{
	return READ_ONCE(s->val[sem]) >= value || xmemsim_sem_broken(s, sem);
}
