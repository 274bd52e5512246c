// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: the engines, the modeled clock and the scheduler
 * (kmod/dma_internal.h says how they fit; uapi/xmemsim.h says it to users).
 *
 * An engine runs one transfer at a time and serves users round-robin (the
 * real uid that opened a file), and within a user its (file, queue) pairs
 * round-robin, so one user's deep queues or many files delay another
 * user's queue by at most one transfer per turn. Only queues with
 * transfers queued are looked at: each engine keeps them on its active
 * list, so idle files cost the scheduler nothing.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "dma_internal.h"
#include "trace.h"

/*
 * The scheduler's work runs on a high-priority, CPU-bound queue of its
 * own: on the CPU that kicked it (the one whose timer fired, or whose
 * task submitted), so a step waits for no other CPU to wake (what an
 * unbound queue's wake-up costs: docs/device.md, Figures).
 */
void xmemsim_dma_kick(struct xmemsim_dma *dma)
{
	queue_work(dma->wq, &dma->work);
}

/*
 * Queue x on its queue, which joins its engine's active list if it was
 * empty. x->d, x->df, x->submit_ns are set. dma->lock held.
 */
void xmemsim_dma_enqueue(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_queue *q = xmemsim_dma_q(x->df, dma, x->d.engine,
						    x->d.queue);

	lockdep_assert_held(&dma->lock);
	x->q = q;
	x->seq = ++q->seq;
	xmemsim_sem_wait_add(&x->df->sems, x);
	if (list_empty(&q->xfers))
		list_add_tail(&q->node, &dma->eng[q->engine].active);
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
static u64 xfer_earliest(const struct xmemsim_dma *dma,
			 const struct xmemsim_xfer *x)
{
	u64 t = max3(x->submit_ns, x->q->end_ns, dma->eng[x->q->engine].free_ns);

	return x->d.wait_sem == XMEMSIM_SEM_NONE ? t : max(t, x->ready_ns);
}

/* Is queue a before b in engine e's round robin? */
static bool q_before(u32 e, const struct xmemsim_dma_queue *a,
		     const struct xmemsim_dma_queue *b)
{
	u64 ua = a->df->du->stamp[e], ub = b->df->du->stamp[e];

	if (ua != ub)
		return ua < ub;		/* the user served least recently */
	if (a->stamp != b->stamp)
		return a->stamp < b->stamp;	/* then its queue */
	if (a->df->order != b->df->order)
		return a->df->order < b->df->order;
	return a->index < b->index;
}

/*
 * The queue whose head engine e would start next, and when (*at): among
 * the ready heads that could start earliest, the round robin's choice.
 * NULL if no head is ready. dma->lock held.
 */
static struct xmemsim_dma_queue *dma_pick(struct xmemsim_dma *dma, u32 e,
					  u64 *at)
{
	struct xmemsim_dma_queue *q, *best = NULL;
	u64 best_t = U64_MAX;

	lockdep_assert_held(&dma->lock);
	list_for_each_entry(q, &dma->eng[e].active, node) {
		struct xmemsim_xfer *x = list_first_entry(&q->xfers,
							  struct xmemsim_xfer, node);
		u64 t;

		if (!x->ready)
			continue;
		t = xfer_earliest(dma, x);
		if (!best || t < best_t || (t == best_t && q_before(e, q, best))) {
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
	u32 heap = x->acc.srec->heap;
	int ret;

	*len = 0;
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
 * dma->lock not held: the pins keep both ranges. Its status.
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
 * dma->lock held.
 */
static void xfer_stops_queue(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_file *df = x->df;

	lockdep_assert_held(&dma->lock);
	if (x->ticket == XMEMSIM_COPY_TICKET)
		return;
	if (!x->q->err)
		x->q->err = x->status;
	if (x->d.signal_sem != XMEMSIM_SEM_NONE)
		xmemsim_sem_break(&df->sems, x->d.signal_sem);
	if (list_empty(&df->err_node))
		list_add_tail(&df->err_node, &dma->err_files);
}

/*
 * x has ended with x->status: signal, or stop its queue; then mark it
 * done and wake its file. The last touch of x: once done is set, a COPY's
 * waiter may free it without the lock. dma->lock held.
 */
static void xfer_finish(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_file *df = x->df;

	lockdep_assert_held(&dma->lock);
	if (!x->status && x->d.signal_sem != XMEMSIM_SEM_NONE)
		xmemsim_sem_signal(&df->sems, x);
	if (x->status)
		xfer_stops_queue(dma, x);
	trace_xmemsim_dma_end(df->pid, x->ticket, x->d.engine, x->d.queue,
			      x->d.len, x->start_ns, x->end_ns);
	if (x->ticket != XMEMSIM_COPY_TICKET)
		WRITE_ONCE(df->ready, df->ready + 1);
	/* pairs with the waiters' smp_load_acquire(): all of the above first */
	smp_store_release(&x->done, true);
	wake_up_all(&df->wq);	/* its transfer, its semaphores, a mover's wait */
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
 * dma->lock held.
 */
static void xfer_end_unrun(struct xmemsim_dma *dma, struct xmemsim_xfer *x,
			   int status)
{
	lockdep_assert_held(&dma->lock);
	xmemsim_dma_dequeue(x);
	xms_access_end(&x->acc, 0);	/* a model's transfer holds nothing */
	x->status = status;
	x->start_ns = max(x->submit_ns, x->q->end_ns);
	x->end_ns = x->start_ns;
	xfer_finish(dma, x);
}

/*
 * End every queue head that must end without running (xfer_doomed()),
 * until none is left: each may break another semaphore. Only the files
 * with an error state are walked. dma->lock held.
 */
static void dma_drain_errors(struct xmemsim_dma *dma)
{
	struct xmemsim_dma_file *df;
	struct xmemsim_xfer *x;
	bool again;
	u32 i;
	int st;

	lockdep_assert_held(&dma->lock);
	do {
		again = false;
		list_for_each_entry(df, &dma->err_files, err_node) {
			for (i = 0; i < dma->engines * xmemsim_dma_nq(dma); i++) {
				while (!list_empty(&df->q[i].xfers)) {
					x = list_first_entry(&df->q[i].xfers,
							     struct xmemsim_xfer, node);
					st = xfer_doomed(x);
					if (!st)
						break;
					xfer_end_unrun(dma, x, st);
					again = true;
				}
			}
		}
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
 * Work on a running transfer is done with dma->lock dropped, between
 * these two: x is "moving" meanwhile and stays on its engine, and nothing
 * frees or cancels it (those wait on its file's queue for moving to
 * clear).
 */
static void xfer_work_begin(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&dma->lock);
	WRITE_ONCE(x->moving, true);
	mutex_unlock(&dma->lock);
}

static void xfer_work_end(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	mutex_lock(&dma->lock);
	WRITE_ONCE(x->moving, false);
	wake_up_all(&x->df->wq);
}

/* Start queue q's head on engine e at modeled time t. dma->lock held. */
static void dma_start(struct xmemsim_dma *dma, u32 e,
		      struct xmemsim_dma_queue *q, u64 t)
{
	struct xmemsim_dma_engine *eng = &dma->eng[e];
	struct xmemsim_xfer *x = list_first_entry(&q->xfers, struct xmemsim_xfer,
						  node);

	lockdep_assert_held(&dma->lock);
	xmemsim_dma_dequeue(x);
	eng->serial++;
	q->df->du->stamp[e] = eng->serial;
	q->stamp = eng->serial;
	x->start_ns = t;
	x->end_ns = t + min(x->dur, U64_MAX - t);
	q->end_ns = x->end_ns;
	eng->free_ns = x->end_ns;
	eng->cur = x;
	trace_xmemsim_dma_start(x->df->pid, x->ticket, x->d.engine, x->d.queue,
				x->d.len, x->start_ns, x->end_ns);
	/* a premature read shows the poison; a reduce's dst is its operand */
	if (dma->check && x->df->xf && !x->d.op) {
		xfer_work_begin(dma, x);
		xmemsim_fill(x->df->xf->dev, x->acc.drec->heap, x->d.dst,
			     x->d.dst + x->d.len, XMEMSIM_DMA_POISON);
		xfer_work_end(dma, x);
	}
}

/*
 * Complete engine e's transfer: its bytes move, then it finishes. With
 * the DMA_STALL fault the engine then stalls, the lock dropped, where a
 * COPY's waiter may already free the transfer: nothing here may read it
 * after xfer_finish() (KASAN would say so).
 */
static void dma_complete(struct xmemsim_dma *dma, u32 e)
{
	struct xmemsim_dma_engine *eng = &dma->eng[e];
	struct xmemsim_xfer *x = eng->cur;
	bool stall = x->fault == XMEMSIM_FAULT_DMA_STALL;
	int status;

	lockdep_assert_held(&dma->lock);
	if (x->fault == XMEMSIM_FAULT_DMA_HANG) {
		eng->cur = NULL;	/* lost: never completes */
		return;
	}
	xfer_work_begin(dma, x);
	status = xfer_move(x);
	xfer_work_end(dma, x);
	eng->cur = NULL;
	eng->completed++;
	eng->bytes += x->d.len;
	eng->busy_ns += x->end_ns - x->start_ns;
	x->status = status;
	xfer_finish(dma, x);
	if (unlikely(stall)) {
		mutex_unlock(&dma->lock);
		fsleep(XMEMSIM_DMA_STALL_US);
		mutex_lock(&dma->lock);
	}
}

enum dma_step { STEP_IDLE, STEP_DONE, STEP_TIMER, STEP_NOT_MINE };

/*
 * May an inline run (xmemsim_dma_run_inline()) for file mine do this
 * step on x? Only the file's own small transfers: a submitting task
 * never moves another user's bytes, nor many of its own.
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

/*
 * One step of the scheduler: start one transfer, or complete one, in
 * modeled-time order. An idle engine starts its next transfer at P (the
 * earliest any ready head could start) unless a running transfer ends at
 * or before P: that one completes first, and may make more heads ready.
 * dma->lock held (dropped while bytes move).
 */
static enum dma_step dma_step(struct xmemsim_dma *dma,
			      const struct xmemsim_dma_file *mine)
{
	struct xmemsim_dma_queue *q, *start_q = NULL;
	u64 start_t = U64_MAX, end_t = U64_MAX, t;
	u32 e, start_e = 0, end_e = 0;

	lockdep_assert_held(&dma->lock);
	dma_drain_errors(dma);
	for (e = 0; e < dma->engines; e++) {
		struct xmemsim_xfer *cur = dma->eng[e].cur;

		if (cur) {
			if (cur->end_ns < end_t) {
				end_t = cur->end_ns;
				end_e = e;
			}
			continue;
		}
		q = dma_pick(dma, e, &t);
		if (q && t < start_t) {
			start_q = q;
			start_t = t;
			start_e = e;
		}
	}
	if (start_q && start_t < end_t) {
		if (!step_is_mine(dma, mine, list_first_entry(&start_q->xfers,
							      struct xmemsim_xfer,
							      node), false))
			return STEP_NOT_MINE;
		dma_start(dma, start_e, start_q, start_t);
		return STEP_DONE;
	}
	if (end_t == U64_MAX)
		return STEP_IDLE;
	if (dma->time_scale && ktime_before(ktime_get(), dma_wall(dma, end_t))) {
		hrtimer_start(&dma->timer, dma_wall(dma, end_t), HRTIMER_MODE_ABS);
		return STEP_TIMER;
	}
	if (!step_is_mine(dma, mine, dma->eng[end_e].cur, true))
		return STEP_NOT_MINE;
	dma_complete(dma, end_e);
	return STEP_DONE;
}

/*
 * The scheduler's loop, for one runner at a time (dma->sched_running):
 * steps until every engine is idle, waits on a semaphore or (time_scale
 * > 0) on the wall clock, or (an inline run) the next step is not the
 * caller's or its budget is spent. The lock is taken per step, so a
 * command of any file waits for at most one step, however much is
 * queued. Another runner that finds the loop taken leaves the work to
 * it: the loop sees whatever was queued meanwhile. Returns the last step.
 */
static enum dma_step sched_loop(struct xmemsim_dma *dma,
				const struct xmemsim_dma_file *mine, u32 budget)
{
	enum dma_step st = STEP_IDLE;

	mutex_lock(&dma->lock);
	if (dma->sched_running)
		goto out;
	dma->sched_running = true;
	while (budget--) {
		st = dma_step(dma, mine);
		if (st != STEP_DONE)
			break;
		mutex_unlock(&dma->lock);
		cond_resched();
		mutex_lock(&dma->lock);
	}
	dma->sched_running = false;
out:
	mutex_unlock(&dma->lock);
	return st;
}

void xmemsim_dma_sched_run(struct xmemsim_dma *dma)
{
	sched_loop(dma, NULL, U32_MAX);
}

/**
 * xmemsim_dma_run_inline() - a submitter runs its own small transfers
 * @dma: the device's DMA
 * @df: the submitting file
 * @steps: at most this many steps
 *
 * On the virtual clock, where a transfer's end needs no wall time, the
 * submitting task takes the scheduler's steps itself while they start
 * transfers or complete its own of at most XMEMSIM_DMA_INLINE_BYTES:
 * its completion is then ready when the submit returns, without the
 * worker's wake-up. Anything else, or what is left, goes to the worker.
 */
void xmemsim_dma_run_inline(struct xmemsim_dma *dma,
			    const struct xmemsim_dma_file *df, u32 steps)
{
	if (dma->time_scale || sched_loop(dma, df, steps) != STEP_IDLE)
		xmemsim_dma_kick(dma);
}

static void dma_work(struct work_struct *work)
{
	xmemsim_dma_sched_run(container_of(work, struct xmemsim_dma, work));
}

static enum hrtimer_restart dma_timer_fn(struct hrtimer *timer)
{
	xmemsim_dma_kick(container_of(timer, struct xmemsim_dma, timer));
	return HRTIMER_NORESTART;
}

/* The engines and the clock; worker: the device's, not the KUnit model's. */
int xmemsim_dma_sched_init(struct xmemsim_dma *dma, bool worker)
{
	u32 e;

	mutex_init(&dma->lock);
	INIT_LIST_HEAD(&dma->files);
	INIT_LIST_HEAD(&dma->err_files);
	INIT_LIST_HEAD(&dma->users);
	INIT_WORK(&dma->work, dma_work);
	hrtimer_init(&dma->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	dma->timer.function = dma_timer_fn;
	dma->epoch = ktime_get();
	dma->eng = kcalloc(dma->engines, sizeof(*dma->eng), GFP_KERNEL);
	if (worker)
		dma->wq = alloc_workqueue("xmemsim-dma", WQ_HIGHPRI | WQ_CPU_INTENSIVE, 1);
	if (!dma->eng || (worker && !dma->wq)) {
		kfree(dma->eng);
		dma->eng = NULL;
		if (dma->wq)
			destroy_workqueue(dma->wq);
		return -ENOMEM;
	}
	for (e = 0; e < dma->engines; e++)
		INIT_LIST_HEAD(&dma->eng[e].active);
	return 0;
}

/* Every file is closed: nothing is queued or running. */
void xmemsim_dma_sched_fini(struct xmemsim_dma *dma)
{
	hrtimer_cancel(&dma->timer);
	if (dma->wq) {
		cancel_work_sync(&dma->work);
		destroy_workqueue(dma->wq);
	}
	kfree(dma->eng);
	dma->eng = NULL;
	mutex_destroy(&dma->lock);
}
