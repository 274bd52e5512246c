// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: the engines, the modeled clock and the scheduler
 * (kmod/dma_internal.h says how they fit; uapi/xmemsim.h says it to users).
 *
 * Each user has its engines in its own modeled time, and its own driver:
 * one of its tasks waiting for DMA, else its work item. Within a user an
 * engine serves its (file, queue) pairs round-robin among the heads that
 * could start earliest. Only queues with transfers queued are looked at:
 * each engine keeps them on its active list, so idle files cost the
 * scheduler nothing, and a file in an error state is drained when the
 * error comes or new transfers reach it, never at every step.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "dma_internal.h"
#include "trace.h"

/**
 * xmemsim_dma_kick() - the user has a step to take now
 * @du: the user
 *
 * A task of its own waiting for DMA takes it (woken here); while none
 * waits, its work item does. Any context.
 */
void xmemsim_dma_kick(struct xmemsim_dma_user *du)
{
	WRITE_ONCE(du->due, true);
	smp_mb();	/* due before waiters: pairs with xmemsim_dma_sleep() */
	if (atomic_read(&du->waiters))
		wake_up_all(&du->wq);
	else if (du->dma->wq)
		queue_work(du->dma->wq, &du->work);
}

/**
 * xmemsim_dma_caller() - a task of the user gives it work
 * @du: the user
 *
 * Its priority is what the user's work item takes while it moves the
 * user's bytes (a SCHED_IDLE task counts as nice 19): work that nobody
 * waits for runs no higher than the task that gave it.
 */
void xmemsim_dma_caller(struct xmemsim_dma_user *du)
{
	WRITE_ONCE(du->nice, current->policy == SCHED_IDLE ? MAX_NICE :
						      task_nice(current));
}

/*
 * Queue x on its queue, which joins its engine's active list if it was
 * empty. x->d, x->df, x->submit_ns are set. du->lock held.
 */
void xmemsim_dma_enqueue(struct xmemsim_dma_user *du, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_queue *q = xmemsim_dma_q(x->df, du->dma, x->d.engine,
						    x->d.queue);

	lockdep_assert_held(&du->lock);
	x->q = q;
	x->seq = ++q->seq;
	xmemsim_sem_wait_add(&x->df->sems, x);
	if (list_empty(&q->xfers))
		list_add_tail(&q->node, &du->eng[q->engine].active);
	list_add_tail(&x->node, &q->xfers);
}

/* Take x off its queue (and the queue off the active list if it empties). */
void xmemsim_dma_dequeue(struct xmemsim_xfer *x)
{
	if (list_empty(&x->node))
		return;
	list_del_init(&x->node);
	xmemsim_sem_wait_del(x);
	if (list_empty(&x->q->xfers))
		list_del_init(&x->q->node);
}

/* The earliest modeled time queue head x could start on its engine. */
static u64 xfer_earliest(const struct xmemsim_dma_user *du,
			 const struct xmemsim_xfer *x)
{
	u64 t = max3(x->submit_ns, x->q->end_ns, du->eng[x->q->engine].free_ns);

	t = max(t, x->d.not_before_ns);
	if (x->route.n) {
		u64 lead = x->dur - x->link_ns;	/* its latency: no link held */
		u64 bytes = xmemsim_link_start(du->link_free, &x->route, t + lead);

		if (du->links)
			bytes = xmemsim_link_book_fit(du->links, du->dev, &x->route,
						      bytes, x->link_ns);
		t = bytes - lead;
	}
	return x->d.wait_sem == XMEMSIM_SEM_NONE ? t : max(t, x->ready_ns);
}

/* Is queue a before b in its engine's round robin? */
static bool q_before(const struct xmemsim_dma_queue *a,
		     const struct xmemsim_dma_queue *b)
{
	if (a->stamp != b->stamp)
		return a->stamp < b->stamp;	/* the queue served least recently */
	if (a->df->order != b->df->order)
		return a->df->order < b->df->order;
	return a->index < b->index;
}

/*
 * The queue whose head the user's engine e would start next, and when
 * (*at): among the ready heads that could start earliest, the round
 * robin's choice. NULL if no head is ready. du->lock held.
 */
static struct xmemsim_dma_queue *dma_pick(struct xmemsim_dma_user *du, u32 e,
					  u64 *at)
{
	struct xmemsim_dma_queue *q, *best = NULL;
	u64 best_t = U64_MAX;

	lockdep_assert_held(&du->lock);
	list_for_each_entry(q, &du->eng[e].active, node) {
		struct xmemsim_xfer *x = list_first_entry(&q->xfers,
							  struct xmemsim_xfer, node);
		u64 t;

		if (!x->ready)
			continue;
		t = xfer_earliest(du, x);
		if (!best || t < best_t || (t == best_t && q_before(q, best))) {
			best = q;
			best_t = t;
		}
	}
	*at = best_t;
	return best;
}

/*
 * How a completing transfer ends: 0 (all its bytes move), or -EIO with
 * *len the bytes that move first: an injected error or an uncorrectable
 * line in the source moves none, an injected COPY_DMA fault half, in
 * whole bounce steps.
 */
static int xfer_outcome(struct xmemsim_dev *d, const struct xmemsim_xfer *x,
			u64 *len)
{
	u32 heap = x->acc.srec ? x->acc.srec->heap : 0;
	int ret;

	*len = 0;
	if (!x->acc.srec) {	/* the aperture: another's memory, its errors */
		if (x->fault == XMEMSIM_FAULT_DMA_ERROR)
			return -EIO;
		*len = x->d.len;
		return 0;
	}
	switch (x->fault) {
	case XMEMSIM_FAULT_DMA_ERROR:
		return -EIO;
	case XMEMSIM_FAULT_MEM_UE:
	case XMEMSIM_FAULT_MEM_CE:
		ret = xmemsim_mem_check(d, heap, x->d.src, x->d.len);
		if (!ret)
			ret = xmemsim_mem_error(x->df->xf, heap, x->d.src, x->d.len,
						x->fault == XMEMSIM_FAULT_MEM_UE ?
						XMEMSIM_MEM_UE : XMEMSIM_MEM_CE);
		break;
	default:
		ret = xmemsim_mem_check(d, heap, x->d.src, x->d.len);
		break;
	}
	if (ret)
		return ret;
	if (x->fault == XMEMSIM_FAULT_COPY_DMA) {
		*len = round_down(x->d.len / 2, XMEMSIM_BOUNCE_SIZE);
		return -EIO;
	}
	*len = x->d.len;
	return 0;
}

/*
 * Move a moving transfer's bytes and drop its pins (a model's have none),
 * du->lock not held: the pins keep both ranges. Its status.
 */
static int xfer_move(struct xmemsim_xfer *x)
{
	u8 *src = x->acc.sp, *dst = x->acc.dp;
	u64 off, len;
	int ret;

	if (!x->df->xf)
		return 0;
	ret = xfer_outcome(x->df->xf->dev, x, &len);
	for (off = 0; x->bounce && off < len; off += XMEMSIM_BOUNCE_SIZE) {
		size_t n = min_t(u64, len - off, XMEMSIM_BOUNCE_SIZE);

		memcpy(x->bounce, src + off, n);
		memcpy(dst + off, x->bounce, n);
		cond_resched();
	}
	for (off = 0; !x->bounce && off < len; off += SZ_1M) {
		xmemsim_dma_move(dst + off, src + off,
				 min_t(u64, len - off, SZ_1M), &x->d);
		cond_resched();
	}
	xms_access_end(&x->acc, len);
	return ret;
}

/*
 * x failed: its queue enters the error state (its first error kept) and
 * the semaphore it would have signalled is broken (uapi/xmemsim.h, the
 * error states). COPY's queue never does: COPY reports its own error.
 * du->lock held.
 */
static void xfer_stops_queue(struct xmemsim_xfer *x)
{
	struct xmemsim_dma_file *df = x->df;

	if (x->ticket == XMEMSIM_COPY_TICKET)
		return;
	if (!x->q->err)
		x->q->err = x->status;
	if (x->d.signal_sem != XMEMSIM_SEM_NONE)
		xmemsim_sem_break(&df->sems, x->d.signal_sem);
	df->errors = true;
}

/*
 * x has ended with x->status: signal, or stop its queue; then mark it
 * done and wake its user's waiters. The last touch of x: once done is
 * set, a COPY's waiter may free it without the lock. du->lock held.
 */
static void xfer_finish(struct xmemsim_dma_user *du, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_file *df = x->df;

	lockdep_assert_held(&du->lock);
	if (!x->status && x->d.signal_sem != XMEMSIM_SEM_NONE)
		xmemsim_sem_signal(&df->sems, x);
	if (x->status)
		xfer_stops_queue(x);
	trace_xmemsim_dma_end(df->pid, x->ticket, x->d.engine, x->d.queue,
			      x->d.len, x->start_ns, x->end_ns);
	if (x->ticket != XMEMSIM_COPY_TICKET)
		WRITE_ONCE(df->ready, df->ready + 1);
	/* pairs with the waiters' smp_load_acquire(): all of the above first */
	smp_store_release(&x->done, true);
	wake_up_all(&du->wq);	/* its transfer, its semaphores, a mover's wait */
}

/*
 * Why queue head x must end without running, or 0: its queue is in the
 * error state (-ECANCELED), or it waits on a broken semaphore whose value
 * has not come (-EPIPE).
 */
static int xfer_doomed(const struct xmemsim_xfer *x)
{
	if (x->q->err)
		return -ECANCELED;
	if (!x->ready && xmemsim_sem_broken(&x->df->sems, x->d.wait_sem))
		return -EPIPE;
	return 0;
}

/*
 * End x without running it, when its queue reaches it: no byte moves, no
 * engine time; its own queue and signal follow it into the error state.
 * du->lock held.
 */
static void xfer_end_unrun(struct xmemsim_dma_user *du, struct xmemsim_xfer *x,
			   int status)
{
	xmemsim_dma_dequeue(x);
	xms_access_end(&x->acc, 0);	/* a model's transfer holds nothing */
	x->status = status;
	x->start_ns = max(x->submit_ns, x->q->end_ns);
	x->end_ns = x->start_ns;
	xfer_finish(du, x);
}

/* End q's heads while they must end without running: did any? */
static bool q_drain(struct xmemsim_dma_user *du, struct xmemsim_dma_queue *q)
{
	struct xmemsim_xfer *x;
	bool ended = false;
	int st;

	while (!list_empty(&q->xfers)) {
		x = list_first_entry(&q->xfers, struct xmemsim_xfer, node);
		st = xfer_doomed(x);
		if (!st)
			break;
		xfer_end_unrun(du, x, st);
		ended = true;
	}
	return ended;
}

/**
 * xmemsim_dma_drain() - end a file's doomed queue heads
 * @df: a file with an error state (df->errors), or any
 *
 * Every head that must end without running (xfer_doomed()) ends, until
 * none is left: each may break another semaphore of the file. Called when
 * an error comes and when new transfers reach a file in error, so the
 * scheduler's steps never look for them. du->lock held.
 */
void xmemsim_dma_drain(struct xmemsim_dma_file *df)
{
	struct xmemsim_dma_user *du = df->du;
	u32 i, nq = du->dma->engines * xmemsim_dma_nq(du->dma);
	bool again;

	lockdep_assert_held(&du->lock);
	if (!df->errors)
		return;
	do {
		again = false;
		for (i = 0; i < nq; i++)
			again |= q_drain(du, &df->q[i]);
	} while (again);
}

/* The wall time at which modeled time t arrives (time_scale > 0). */
static ktime_t dma_wall(const struct xmemsim_dma *dma, u64 t)
{
	u64 ns;

	if (check_mul_overflow(t, dma->time_scale, &ns) || ns > KTIME_MAX)
		return KTIME_MAX;
	return ktime_add_safe(dma->epoch, ns_to_ktime(ns));
}

/*
 * Work on a running transfer is done with du->lock dropped, between
 * these two: x is "moving" meanwhile and stays on its engine, and nothing
 * frees or cancels it (those wait on the user's queue for moving to
 * clear).
 */
static void xfer_work_begin(struct xmemsim_dma_user *du, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&du->lock);
	WRITE_ONCE(x->moving, true);
	mutex_unlock(&du->lock);
}

static void xfer_work_end(struct xmemsim_dma_user *du, struct xmemsim_xfer *x)
{
	mutex_lock(&du->lock);
	WRITE_ONCE(x->moving, false);
	wake_up_all(&du->wq);
}

/*
 * The links x's bytes hold if it starts at t, for the last link_ns of its
 * time: the user's on this device, and in its book for other devices.
 * du->lock held, and the book's lock with it.
 */
static void dma_book_links(struct xmemsim_dma_user *du,
			   const struct xmemsim_xfer *x, u64 t)
{
	u64 end = t + min(x->dur, U64_MAX - t);

	lockdep_assert_held(&du->lock);
	xmemsim_link_take(du->link_free, &x->route, end);
	if (du->links) {
		lockdep_assert_held(&du->links->lock);
		xmemsim_link_book_add(du->links, du->dev, &x->route,
				      end - min(x->link_ns, end), end);
	}
}

static void links_lock(struct xmemsim_dma_user *du)
{
	if (du->links)
		mutex_lock(&du->links->lock);
}

static void links_unlock(struct xmemsim_dma_user *du)
{
	if (du->links)
		mutex_unlock(&du->links->lock);
}

/* Start queue q's head on engine e at modeled time t. du->lock held. */
static void dma_start(struct xmemsim_dma_user *du, u32 e,
		      struct xmemsim_dma_queue *q, u64 t)
{
	struct xmemsim_dma_engine *eng = &du->eng[e];
	struct xmemsim_xfer *x = list_first_entry(&q->xfers, struct xmemsim_xfer,
						  node);

	lockdep_assert_held(&du->lock);
	xmemsim_dma_dequeue(x);
	eng->serial++;
	q->stamp = eng->serial;
	x->start_ns = t;
	x->end_ns = t + min(x->dur, U64_MAX - t);
	q->end_ns = x->end_ns;
	eng->free_ns = x->end_ns;
	eng->cur = x;
	trace_xmemsim_dma_start(x->df->pid, x->ticket, x->d.engine, x->d.queue,
				x->d.len, x->start_ns, x->end_ns);
	xmemsim_dma_drain(q->df);	/* a new head on a broken semaphore */
	/* a premature read shows the poison; a reduce's dst is its operand */
	if (du->dma->check && x->df->xf && !x->d.op && x->acc.drec) {
		xfer_work_begin(du, x);
		xmemsim_fill(x->df->xf->dev, x->acc.drec->heap, x->d.dst,
			     x->d.dst + x->d.len, XMEMSIM_DMA_POISON);
		xfer_work_end(du, x);
	}
}

/*
 * Complete the user's engine e's transfer: its bytes move, then it
 * finishes. With the DMA_STALL fault the engine then stalls, the lock
 * dropped, where a COPY's waiter may already free the transfer: nothing
 * here may read it after xfer_finish() (KASAN would say so).
 */
static void dma_complete(struct xmemsim_dma_user *du, u32 e)
{
	struct xmemsim_dma_engine *eng = &du->eng[e];
	struct xmemsim_dma_stats *st = &du->dma->stats[e];
	struct xmemsim_xfer *x = eng->cur;
	bool stall = x->fault == XMEMSIM_FAULT_DMA_STALL;
	struct xmemsim_dma_file *df = x->df;
	int status;

	lockdep_assert_held(&du->lock);
	if (x->fault == XMEMSIM_FAULT_DMA_HANG) {
		eng->cur = NULL;	/* lost: never completes */
		return;
	}
	xfer_work_begin(du, x);
	status = xfer_move(x);
	xfer_work_end(du, x);
	eng->cur = NULL;
	atomic64_inc(&st->completed);
	atomic64_add(x->d.len, &st->bytes);
	atomic64_add(x->end_ns - x->start_ns, &st->busy_ns);
	x->status = status;
	xfer_finish(du, x);
	xmemsim_dma_drain(df);	/* what its error dooms ends now */
	if (unlikely(stall)) {
		mutex_unlock(&du->lock);
		fsleep(XMEMSIM_DMA_STALL_US);
		mutex_lock(&du->lock);
	}
}

enum dma_step { STEP_IDLE, STEP_DONE, STEP_TIMER, STEP_NOT_MINE, STEP_BUSY };

/*
 * May an inline run (xmemsim_dma_run_inline()) for file mine do this
 * step on x? Only the file's own small transfers: a submitting task
 * does not move many bytes, nor another process's.
 */
static bool step_is_mine(const struct xmemsim_dma *dma,
			 const struct xmemsim_dma_file *mine,
			 const struct xmemsim_xfer *x, bool moves)
{
	if (!mine)
		return true;
	if (!moves && !dma->check)
		return true;	/* a start moves nothing */
	return x->df == mine && x->d.len <= XMEMSIM_DMA_INLINE_BYTES;
}

/* The user's next completion: its engine, and when (U64_MAX: none). */
static u64 next_end(const struct xmemsim_dma_user *du, u32 *end_e)
{
	u64 end_t = U64_MAX;
	u32 e;

	for (e = 0; e < du->dma->engines; e++) {
		const struct xmemsim_xfer *cur = du->eng[e].cur;

		if (cur && cur->end_ns < end_t) {
			end_t = cur->end_ns;
			*end_e = e;
		}
	}
	return end_t;
}

/*
 * One step of the user's scheduler: start one transfer, or complete one,
 * in its modeled-time order. An idle engine starts its next transfer at P
 * (the earliest any ready head could start) unless a running transfer
 * ends at or before P: that one completes first, and may make more heads
 * ready. du->lock held (dropped while bytes move).
 */
static enum dma_step dma_step(struct xmemsim_dma_user *du,
			      const struct xmemsim_dma_file *mine)
{
	struct xmemsim_dma *dma = du->dma;
	struct xmemsim_dma_queue *q, *start_q = NULL;
	u64 start_t = U64_MAX, end_t, t;
	u32 e, start_e = 0, end_e = 0;
	struct xmemsim_xfer *x;
	bool ours;

	lockdep_assert_held(&du->lock);
	end_t = next_end(du, &end_e);
	links_lock(du);		/* what is picked is what is booked */
	for (e = 0; e < dma->engines; e++) {
		if (du->eng[e].cur)
			continue;
		q = dma_pick(du, e, &t);
		if (q && t < start_t) {
			start_q = q;
			start_t = t;
			start_e = e;
		}
	}
	if (start_q && start_t < end_t) {
		x = list_first_entry(&start_q->xfers, struct xmemsim_xfer, node);
		ours = step_is_mine(dma, mine, x, false);
		if (ours)
			dma_book_links(du, x, start_t);
		links_unlock(du);
		if (!ours)
			return STEP_NOT_MINE;
		dma_start(du, start_e, start_q, start_t);
		return STEP_DONE;
	}
	links_unlock(du);
	if (end_t == U64_MAX)
		return STEP_IDLE;
	if (dma->time_scale && ktime_before(ktime_get(), dma_wall(dma, end_t))) {
		hrtimer_start(&du->timer, dma_wall(dma, end_t), HRTIMER_MODE_ABS);
		return STEP_TIMER;
	}
	if (!step_is_mine(dma, mine, du->eng[end_e].cur, true))
		return STEP_NOT_MINE;
	dma_complete(du, end_e);
	return STEP_DONE;
}

/*
 * The user's scheduler loop, for one driver at a time (du->running):
 * steps until every engine of the user is idle, waits on a semaphore or
 * (time_scale > 0) on the wall clock, or (an inline run) the next step is
 * not the caller's, or the budget is spent. The lock is taken per step,
 * so a command of the user waits for at most one step. A driver that
 * finds the loop taken leaves the work to it (STEP_BUSY): the loop sees
 * whatever was queued meanwhile.
 *
 * du->due: a step may be taken now. Each step clears it first, so that a
 * kick during the step (a submit, the timer the step arms) stands; a step
 * that did something, or that was not the caller's, sets it again. A
 * driver that leaves steps behind hands them on (xmemsim_dma_kick()):
 * a waiter that found the loop taken sleeps until then.
 */
static enum dma_step sched_loop(struct xmemsim_dma_user *du,
				const struct xmemsim_dma_file *mine, u32 budget)
{
	enum dma_step st = STEP_BUSY;
	bool left;

	mutex_lock(&du->lock);
	if (du->running) {
		mutex_unlock(&du->lock);
		return st;
	}
	du->running = true;
	while (budget--) {
		WRITE_ONCE(du->due, false);
		st = dma_step(du, mine);
		if (st != STEP_DONE)
			break;
		mutex_unlock(&du->lock);
		cond_resched();
		mutex_lock(&du->lock);
	}
	if (st == STEP_DONE || st == STEP_NOT_MINE)
		WRITE_ONCE(du->due, true);
	WRITE_ONCE(du->running, false);
	smp_mb();	/* running before due: pairs with the kick's barrier */
	left = READ_ONCE(du->due);
	mutex_unlock(&du->lock);
	if (left)
		xmemsim_dma_kick(du);
	return st;
}

/* Every step the user has now (the KUnit model's driver). */
void xmemsim_dma_sched_run(struct xmemsim_dma_user *du)
{
	sched_loop(du, NULL, U32_MAX);
}

/**
 * xmemsim_dma_run_inline() - a submitter runs its own small transfers
 * @du: its user
 * @df: the submitting file
 * @steps: at most this many steps
 *
 * On the virtual clock, where a transfer's end needs no wall time, the
 * submitting task takes its user's steps itself while they start
 * transfers or complete its file's own of at most
 * XMEMSIM_DMA_INLINE_BYTES: its completion is then ready when the submit
 * returns, without a wake-up. Anything else, or what is left, goes to
 * the user's driver.
 */
void xmemsim_dma_run_inline(struct xmemsim_dma_user *du,
			    const struct xmemsim_dma_file *df, u32 steps)
{
	if (du->dma->time_scale) {
		xmemsim_dma_kick(du);
		return;
	}
	sched_loop(du, df, steps);	/* what is left goes on by a kick */
}

/* How many steps a waiting driver takes between looks at its condition. */
#define DMA_WAIT_STEPS	16
/* A work item's turn: then it queues itself behind the other users'. */
#define DMA_WORK_STEPS	8

/* May a waiter take the user's steps now? */
static bool du_wants_driver(const struct xmemsim_dma_user *du)
{
	return READ_ONCE(du->due) && !READ_ONCE(du->running);
}

/**
 * xmemsim_dma_sleep() - a DMA wait, which takes its user's steps
 * @du: the waiting task's user
 * @cond: what it waits for; read without du->lock
 * @arg: for @cond
 * @left: in: jiffies to wait (MAX_SCHEDULE_TIMEOUT: for ever); out: left
 * @how: what ends it early: any signal, or a fatal one
 *
 * While the user has steps to take and no other driver, the waiting task
 * takes them itself, with no lock held across a copy: the bytes of the
 * user's transfers move on its CPU time and at its priority. It sleeps
 * on the user's wait queue otherwise. Another user's work never runs
 * here.
 *
 * Return: 0 (cond holds), -ETIMEDOUT, or -ERESTARTSYS (a signal, or only
 * task work: io_uring's notifications set TIF_NOTIFY_SIGNAL; the syscall
 * restarts after it, and a caller sees -EINTR only for a handler without
 * SA_RESTART; waiting changes nothing, so a restart waits anew).
 */
int xmemsim_dma_sleep(struct xmemsim_dma_user *du,
		      bool (*cond)(const void *arg), const void *arg,
		      long *left, enum xmemsim_dma_sleep how)
{
	bool kill = how == XMEMSIM_SLEEP_KILLABLE;
	unsigned long deadline = jiffies + *left;
	long t;
	int ret;

	atomic_inc(&du->waiters);
	smp_mb__after_atomic();	/* waiters before due: pairs with the kick */
	for (;;) {
		if (cond(arg)) {
			ret = 0;
			break;
		}
		if (kill ? fatal_signal_pending(current) : signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (*left != MAX_SCHEDULE_TIMEOUT && time_after_eq(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		if (du_wants_driver(du)) {
			sched_loop(du, NULL, DMA_WAIT_STEPS);
			continue;
		}
		t = *left == MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT :
		    max_t(long, (long)(deadline - jiffies), 1);
		t = kill ? wait_event_killable_timeout(du->wq, cond(arg) ||
						       du_wants_driver(du), t) :
			   wait_event_interruptible_timeout(du->wq, cond(arg) ||
							    du_wants_driver(du), t);
		if (t < 0) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	if (*left != MAX_SCHEDULE_TIMEOUT)
		*left = max_t(long, (long)(deadline - jiffies), 0);
	atomic_dec(&du->waiters);
	smp_mb__after_atomic();	/* pairs with the kick's barrier */
	/* steps left: to another waiter, else to the work item */
	if (du_wants_driver(du))
		xmemsim_dma_kick(du);
	return ret;
}

/*
 * The user's work item: its steps while none of its tasks waits, a turn
 * of DMA_WORK_STEPS at a time, at the priority of the user's latest
 * caller (xmemsim_dma_caller()) or lower. Once a task of the user waits,
 * the item hands over to it between two steps.
 */
static void dma_work(struct work_struct *work)
{
	struct xmemsim_dma_user *du = container_of(work, struct xmemsim_dma_user,
						   work);
	long nice = task_nice(current), as = READ_ONCE(du->nice);
	u32 i;

	if (as > nice)		/* never above the user's own task */
		set_user_nice(current, as);
	for (i = 0; i < DMA_WORK_STEPS; i++) {
		if (atomic_read(&du->waiters)) {	/* one of its tasks takes over */
			wake_up_all(&du->wq);
			break;
		}
		/* if steps are left, it kicked: the item runs again */
		if (sched_loop(du, NULL, 1) != STEP_DONE)
			break;
	}
	if (as > nice)
		set_user_nice(current, nice);
}

static enum hrtimer_restart dma_timer_fn(struct hrtimer *timer)
{
	xmemsim_dma_kick(container_of(timer, struct xmemsim_dma_user, timer));
	return HRTIMER_NORESTART;
}

/**
 * xmemsim_dma_user_init() - a user's engines and driver
 * @dma: the device's DMA, or the KUnit model's
 * @du: zeroed
 * @gfp: for its engines
 *
 * Return: 0 or -ENOMEM; either way xmemsim_dma_user_fini() frees it.
 */
int xmemsim_dma_user_init(struct xmemsim_dma *dma, struct xmemsim_dma_user *du,
			  gfp_t gfp)
{
	const struct xmemsim_topo *t = xmemsim_topology();
	u32 e;

	du->dma = dma;
	mutex_init(&du->lock);
	init_waitqueue_head(&du->wq);
	INIT_WORK(&du->work, dma_work);
	hrtimer_init(&du->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	du->timer.function = dma_timer_fn;
	du->eng = kcalloc(dma->engines, sizeof(*du->eng), gfp);
	du->link_free = kcalloc(t ? xmemsim_topo_links(t) : 1, sizeof(u64), gfp);
	if (!du->eng || !du->link_free) {
		kfree(du->eng);
		kfree(du->link_free);
		return -ENOMEM;
	}
	for (e = 0; e < dma->engines; e++)
		INIT_LIST_HEAD(&du->eng[e].active);
	return 0;
}

/* Its last file is gone: nothing is queued or running, no step is due. */
void xmemsim_dma_user_fini(struct xmemsim_dma_user *du)
{
	hrtimer_cancel(&du->timer);
	cancel_work_sync(&du->work);
	kfree(du->eng);
	kfree(du->link_free);
	xmemsim_link_book_put(du->links);
	mutex_destroy(&du->lock);
}

/* The device's DMA; worker: the device's, not the KUnit model's. */
int xmemsim_dma_sched_init(struct xmemsim_dma *dma, bool worker)
{
	mutex_init(&dma->lock);
	INIT_LIST_HEAD(&dma->files);
	INIT_LIST_HEAD(&dma->users);
	dma->epoch = ktime_get();
	dma->stats = kcalloc(dma->engines, sizeof(*dma->stats), GFP_KERNEL);
	/* unbound, normal priority: users' items run side by side */
	if (worker)
		dma->wq = alloc_workqueue("xmemsim-dma", WQ_UNBOUND, 0);
	if (!dma->stats || (worker && !dma->wq)) {
		kfree(dma->stats);
		dma->stats = NULL;
		if (dma->wq)
			destroy_workqueue(dma->wq);
		return -ENOMEM;
	}
	return 0;
}

/* Every file is closed, every user gone. */
void xmemsim_dma_sched_fini(struct xmemsim_dma *dma)
{
	if (dma->wq)
		destroy_workqueue(dma->wq);
	kfree(dma->stats);
	dma->stats = NULL;
	mutex_destroy(&dma->lock);
}
