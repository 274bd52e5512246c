// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: engines, per-file queues and semaphores, and a
 * modeled clock (DMA_SUBMIT, DMA_WAIT, SEM_SET/GET/WAIT, DMA_INFO).
 *
 * The model (uapi/xmemsim.h says it to users): cores x dma_engines
 * engines; every open file has dma_queues FIFO queues on each engine and
 * dma_sems semaphores. An engine runs one transfer at a time and serves
 * users round-robin (the real uid that opened a file, as for every other
 * limit), and within a user its (file, queue) pairs round-robin, so one
 * user's deep queues or many files delay another user's queue by at most
 * one transfer per turn; engines run in parallel. A transfer starts when
 * its queue reaches it, its engine is free and its wait condition holds;
 * it lasts dma_latency_ns + len / bandwidth(src heap, dst heap); its
 * bytes move when it completes (never before), then its signal semaphore
 * is incremented.
 *
 * The clock: the device keeps one modeled time, now. The scheduler, a
 * work item on system_unbound_wq, starts what can start at now, then
 * advances now to the earliest end among running transfers and completes
 * them, in modeled-time order (ties: engine order). With time_scale=0
 * (virtual clock) it advances at once, as fast as the host allows; with
 * time_scale=N a modeled ns lasts N wall ns, and an hrtimer wakes the
 * scheduler at the wall time of the next end. A batch queued by one
 * DMA_SUBMIT starts from one now, so on the virtual clock a program that
 * submits and then waits sees the same order and times on every run.
 *
 * Ownership: a transfer pins both its ranges (HEAP_FREE: -EBUSY) from
 * submit until it is completed or cancelled. Completed transfers wait in
 * their file's ticket index until DMA_WAIT reaps them; queued, running
 * and unreaped transfers together are bounded by file_dma_depth per file
 * and user_dma_depth per user. Closing the file cancels what is queued
 * and stops what is running (its bytes do not move), and frees
 * everything.
 *
 * The timing checker (dma_check=1 reports, 2 also refuses with -EBUSY):
 * a host access (pread/pwrite and io_uring's READ/WRITE, COPY, MEMSET,
 * HEAP_FREE) to bytes that a queued or running transfer of the same file
 * writes, or writes bytes it reads; and a submitted transfer that
 * touches bytes another queued or running transfer of the file writes
 * (or writes bytes it reads) on another queue, when the new one waits on
 * no semaphore (a wait on any semaphore counts as the synchronization;
 * one queue is ordered by itself). Each report is a ratelimited log
 * line naming the pid, both operations and the ranges, and a count in
 * sysfs dma_check_reports. A destination holds XMEMSIM_DMA_POISON from
 * the transfer's modeled start, so a premature read shows it (with
 * time_scale > 0, where a running transfer lasts). Mappings are not
 * watched: their pages are entered at mmap() time.
 *
 * Locking: dma->lock (a mutex) protects the engines, every file's queues,
 * semaphores and ticket index, the users' shares, and now. The scheduler holds it while it
 * moves a transfer's bytes (in 1 MiB steps with resched points), so a
 * cancel never races a copy. It never nests with dev->lock (pins are
 * taken before it and dropped without either) and is never held across
 * a user copy. Waiters sleep on their file's wait queue (df->wq, woken
 * by that file's completions, semaphores and reaps alone) without it and
 * read what they wait for locklessly (READ_ONCE; transfers are freed
 * after an RCU grace period).
 */
#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "compat.h"
#include "xmemsim.h"
#include "trace.h"

/*
 * The transfers of one DMA_SUBMIT issued through io_uring: its CQE comes
 * when the last is done, or -ECANCELED when the issuing task exits or the
 * ring is closed first. io_uring says so itself where it can cancel a
 * uring_cmd (IO_URING_F_CANCEL, 6.7); on older kernels the monitor looks
 * every 20 ms.
 */
struct xmemsim_dma_batch {
	struct list_head node;		/* in df->batches until finished */
	struct io_uring_cmd *cmd;
	struct xmemsim_dma_file *df;
	u32 left;			/* transfers not done, +1 until written back */
	int err;
	bool finished;			/* its CQE is decided */
	bool cancel_inline;		/* the cancel callback posts the CQE */
};

/*
 * One user's share of the engines: the user's files with DMA state, and
 * when each engine served the user last (a stamp of the engine's serial).
 */
struct xmemsim_dma_user {
	struct list_head node;		/* in dma->users */
	const struct xmemsim_user *user;
	u32 files;			/* its files in dma->files */
	u32 inflight;			/* over those files */
	u64 *stamp;			/* [engine] */
};

struct xmemsim_xfer {
	struct rcu_head rcu;		/* waiters look it up without the lock */
	struct list_head node;		/* in its queue while queued */
	struct xmemsim_dma_batch *batch;	/* io_uring's, reaped by its CQE */
	struct xmemsim_dma_file *df;
	struct xmemsim_alloc_rec *srec, *drec;	/* pinned */
	struct xmemsim_dma_desc d;
	u64 ticket;
	u64 dur;			/* modeled ns */
	u8 *bounce;			/* COPY's: moves through it */
	int fault;			/* XMEMSIM_FAULT_* injected, or -1 */
	u64 start_ns, end_ns;
	int status;
	bool done;
	bool claimed;			/* a DMA_REAP is copying it out */
};

/* One open file's queues, semaphores and transfers. */
struct xmemsim_dma_file {
	struct list_head node;		/* in dma->files */
	struct xmemsim_file *xf;	/* NULL in xmemsim_dma_model() */
	pid_t pid;			/* for reports and traces */
	struct xmemsim_dma_user *du;	/* its opener's share */
	struct list_head *q;		/* [engine * queues + queue] */
	u64 *stamp;			/* [engine * queues + queue]: last served */
	u64 *sem;
	int *qerr;			/* [engine * queues + queue]: error state */
	unsigned long *broken;		/* [sem]: its signal will not come */
	struct xarray xfers;		/* ticket -> transfer, until reaped */
	struct list_head batches;	/* io_uring submits not yet completed */
	struct list_head err_node;	/* in dma->err_files, or empty */
	wait_queue_head_t wq;		/* its completions, semaphores, room */
	u64 next_ticket;
	u32 inflight;			/* queued, running or unreaped */
	u32 ready;			/* done, unreaped, unclaimed, no batch */
};

struct xmemsim_dma_engine {
	struct xmemsim_xfer *cur;	/* running, or NULL */
	u64 serial;			/* transfers it has started */
	u64 completed, bytes, busy_ns;
};

/* A heap's kind for the bandwidth table: the libc heap is dataram. */
static u32 kind_of(u32 heap)
{
	return heap == XMEMSIM_HEAP_HBM ? XMEMSIM_HEAP_HBM : XMEMSIM_HEAP_DATARAM;
}

/**
 * xmemsim_dma_duration() - modeled time of one transfer
 * @latency_ns: the fixed cost
 * @bw: bytes per second, > 0
 * @len: bytes
 *
 * Return: latency_ns + len / bw seconds, in ns, saturating at U64_MAX.
 */
u64 xmemsim_dma_duration(u64 latency_ns, u64 bw, u64 len)
{
	u64 t = mul_u64_u64_div_u64(len, NSEC_PER_SEC, bw), sum;

	return check_add_overflow(latency_ns, t, &sum) ? U64_MAX : sum;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_duration);

/* A file's transfers are reaped (or dropped): its depth and its user's. */
static void df_reaped(struct xmemsim_dma_file *df, u32 n)
{
	df->inflight -= n;
	df->du->inflight -= n;
}

/*
 * Per engine, a file has dma_queues queues and one more, its COPY queue,
 * which only COPY's DMA method uses: no semaphore holds it back.
 */
static u32 dma_nq(const struct xmemsim_dma *dma)
{
	return dma->queues + 1;
}

static u32 qidx(const struct xmemsim_dma *dma, u32 e, u32 q)
{
	return e * dma_nq(dma) + q;
}

static void dma_kick(struct xmemsim_dma *dma)
{
	queue_work(system_unbound_wq, &dma->work);
}

static bool xfer_ready(const struct xmemsim_xfer *x)
{
	u32 s = x->d.wait_sem;

	return s == XMEMSIM_SEM_NONE || x->df->sem[s] >= x->d.wait_value;
}

static bool ranges_meet(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * Does x touch [addr, addr + len) in a way that races an access that
 * writes (write) or only reads it? x writes its dst and reads its src.
 */
static bool xfer_meets(const struct xmemsim_xfer *x, u64 addr, u64 len,
		       bool write)
{
	return ranges_meet(addr, len, x->d.dst, x->d.len) ||
	       (write && ranges_meet(addr, len, x->d.src, x->d.len));
}

/* Call fn(x, arg) on each queued or running transfer of df until it says stop. */
static struct xmemsim_xfer *
df_find(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
	bool (*fn)(const struct xmemsim_xfer *x, const void *arg), const void *arg)
{
	struct xmemsim_xfer *x;
	u32 i;

	lockdep_assert_held(&dma->lock);
	for (i = 0; i < dma->engines; i++) {
		x = dma->eng[i].cur;
		if (x && x->df == df && fn(x, arg))
			return x;
	}
	for (i = 0; i < dma->engines * dma_nq(dma); i++)
		list_for_each_entry(x, &df->q[i], node)
			if (fn(x, arg))
				return x;
	return NULL;
}

struct host_access {
	u64 addr, len;
	bool write;
};

static bool meets_host(const struct xmemsim_xfer *x, const void *arg)
{
	const struct host_access *h = arg;

	return xfer_meets(x, h->addr, h->len, h->write);
}

/* y, on another queue, races the new transfer x unless x waits. */
static bool meets_xfer(const struct xmemsim_xfer *y, const void *arg)
{
	const struct xmemsim_xfer *x = arg;

	if (y->d.engine == x->d.engine && y->d.queue == x->d.queue)
		return false;
	return xfer_meets(y, x->d.dst, x->d.len, true) ||
	       xfer_meets(y, x->d.src, x->d.len, false);
}

static void hazard(struct xmemsim_dma *dma, enum xmemsim_dma_hazard kind)
{
	atomic64_inc(&dma->hazards[kind]);
}

/**
 * xmemsim_dma_check_host() - the timing checker on a host access
 * @xf: the file making it
 * @addr: its first byte
 * @len: its bytes
 * @write: it changes them
 * @kind: XMEMSIM_HAZARD_HOST, or _FREE for a free
 * @what: its name, for the report
 * @nowait: the caller cannot sleep on dma->lock (io_uring inline): the
 *	check is skipped if the lock is busy
 *
 * Return: 0, or -EBUSY when dma_check=2 and a queued or running transfer
 * of @xf writes bytes the access touches, or reads bytes it writes.
 */
int xmemsim_dma_check_host(struct xmemsim_file *xf, u64 addr, u64 len,
			   bool write, enum xmemsim_dma_hazard kind,
			   const char *what, bool nowait)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	struct host_access h = { addr, len, write };
	struct xmemsim_xfer *x;
	struct xmemsim_dma_desc d;
	u64 ticket;

	if (!dma->check || !df || !len)
		return 0;
	if (!nowait)
		mutex_lock(&dma->lock);
	else if (!mutex_trylock(&dma->lock))
		return 0;
	x = df_find(dma, df, meets_host, &h);
	if (x) {
		d = x->d;
		ticket = x->ticket;
	}
	mutex_unlock(&dma->lock);
	if (!x)
		return 0;
	hazard(dma, kind);
	pr_warn_ratelimited("xmemsim: pid %d: %s [%#llx, +%llu) while DMA ticket %llu [%#llx -> %#llx, +%llu) tag %llu is in flight\n",
			    xf->pid, what, addr, len, ticket, d.src, d.dst, d.len,
			    d.tag);
	return dma->check == XMEMSIM_CHECK_REFUSE ? -EBUSY : 0;
}

/*
 * The timing checker on a submit: each new transfer that waits on no
 * semaphore against what the file has in flight on other queues, and
 * against the batch's earlier ones. dma->lock held. 0 or -EBUSY.
 */
static int check_batch(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
		       struct xmemsim_xfer **x, u32 n)
{
	u32 i, j;
	int ret = 0;

	lockdep_assert_held(&dma->lock);
	if (!dma->check)
		return 0;
	for (i = 0; i < n; i++) {
		struct xmemsim_xfer *y = NULL;
		u64 yt = 0;

		if (x[i]->d.wait_sem != XMEMSIM_SEM_NONE)
			continue;
		y = df_find(dma, df, meets_xfer, x[i]);
		if (y)
			yt = y->ticket;
		for (j = 0; !y && j < i; j++) {
			if (meets_xfer(x[j], x[i])) {
				y = x[j];
				yt = df->next_ticket + j;	/* the tickets to be */
			}
		}
		if (!y)
			continue;
		hazard(dma, XMEMSIM_HAZARD_RACE);
		pr_warn_ratelimited("xmemsim: pid %d: DMA ticket %llu tag %llu [%#llx -> %#llx, +%llu) on engine %u queue %u races ticket %llu tag %llu [%#llx -> %#llx, +%llu) on engine %u queue %u: no semaphore between them\n",
				    df->xf->pid, df->next_ticket + i, x[i]->d.tag,
				    x[i]->d.src, x[i]->d.dst, x[i]->d.len,
				    x[i]->d.engine, x[i]->d.queue, yt, y->d.tag,
				    y->d.src, y->d.dst, y->d.len, y->d.engine,
				    y->d.queue);
		if (dma->check == XMEMSIM_CHECK_REFUSE)
			ret = -EBUSY;
	}
	return ret;
}

/*
 * The next transfer engine e may start. The engine serves users round
 * robin: among the users with a ready queue head on it, the one it served
 * least recently; within that user, its (file, queue) pair served least
 * recently (never served first, then file and queue order). So one user's
 * many files or deep queues delay another user's queue by at most one
 * transfer per turn. dma->lock held.
 */
static struct xmemsim_xfer *dma_pick(struct xmemsim_dma *dma, u32 e)
{
	struct xmemsim_dma_engine *eng = &dma->eng[e];
	struct xmemsim_xfer *best = NULL, *x;
	struct xmemsim_dma_file *df;
	u64 best_u = 0, best_p = 0;
	u32 q, i;

	lockdep_assert_held(&dma->lock);
	list_for_each_entry(df, &dma->files, node) {
		u64 su = df->du->stamp[e];

		if (best && su > best_u)
			continue;
		for (q = 0; q < dma_nq(dma); q++) {
			i = qidx(dma, e, q);
			if (list_empty(&df->q[i]))
				continue;
			x = list_first_entry(&df->q[i], struct xmemsim_xfer, node);
			if (!xfer_ready(x))
				continue;
			if (best && su == best_u && df->stamp[i] >= best_p)
				continue;
			best = x;
			best_u = su;
			best_p = df->stamp[i];
		}
	}
	if (best) {
		eng->serial++;
		best->df->du->stamp[e] = eng->serial;
		best->df->stamp[qidx(dma, e, best->d.queue)] = eng->serial;
	}
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
	u32 heap = x->srec->heap;
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

/* Move a transfer's bytes and drop its pins (a model's have none): status */
static int xfer_move(struct xmemsim_xfer *x)
{
	struct xmemsim_dev *d;
	u64 off, len;
	u8 *src, *dst;
	int ret;

	if (!x->df->xf)
		return 0;
	d = x->df->xf->dev;
	ret = xfer_outcome(d, x, &len);
	src = xmemsim_kaddr(d, x->srec->heap, x->d.src);
	dst = xmemsim_kaddr(d, x->drec->heap, x->d.dst);
	for (off = 0; x->bounce && off < len; off += XMEMSIM_BOUNCE_SIZE) {
		size_t n = min_t(u64, len - off, XMEMSIM_BOUNCE_SIZE);

		memcpy(x->bounce, src + off, n);
		memcpy(dst + off, x->bounce, n);
		cond_resched();
	}
	for (off = 0; !x->bounce && off < len; off += SZ_1M) {
		memcpy(dst + off, src + off, min_t(u64, len - off, SZ_1M));
		cond_resched();
	}
	xmemsim_mem_written(d, x->d.dst, len);
	xmemsim_unpin(d, x->srec);
	xmemsim_unpin(d, x->drec);
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
	int *qerr;

	lockdep_assert_held(&dma->lock);
	if (x->ticket == XMEMSIM_COPY_TICKET)
		return;
	qerr = &df->qerr[qidx(dma, x->d.engine, x->d.queue)];
	if (!*qerr)
		*qerr = x->status;
	if (x->d.signal_sem != XMEMSIM_SEM_NONE)
		set_bit(x->d.signal_sem, df->broken);
	if (list_empty(&df->err_node))
		list_add_tail(&df->err_node, &dma->err_files);
}

/*
 * Why queue head x must end without running, or 0: its queue is in the
 * error state (-ECANCELED), or it waits on a broken semaphore whose value
 * has not come (-EPIPE).
 */
static int xfer_doomed(struct xmemsim_dma *dma, const struct xmemsim_xfer *x)
{
	const struct xmemsim_dma_file *df = x->df;

	if (df->qerr[qidx(dma, x->d.engine, x->d.queue)])
		return -ECANCELED;
	if (!xfer_ready(x) && test_bit(x->d.wait_sem, df->broken))
		return -EPIPE;
	return 0;
}

/*
 * Move a completed transfer's bytes, then signal; a failed one moves what
 * xfer_outcome() says and does not signal. dma->lock held.
 */
static void xfer_complete(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&dma->lock);
	x->status = xfer_move(x);
	if (!x->status && x->d.signal_sem != XMEMSIM_SEM_NONE)
		WRITE_ONCE(x->df->sem[x->d.signal_sem],
			   x->df->sem[x->d.signal_sem] + x->d.signal_inc);
	if (x->status)
		xfer_stops_queue(dma, x);
	WRITE_ONCE(x->done, true);
	if (!x->batch && x->ticket != XMEMSIM_COPY_TICKET)
		WRITE_ONCE(x->df->ready, x->df->ready + 1);
	/* only the file's own waiters: its transfer, its semaphores */
	wake_up_all(&x->df->wq);
}

/* Take x off its queue and start it at now; NULL stays NULL. */
static struct xmemsim_xfer *xfer_start(struct xmemsim_dma *dma,
				       struct xmemsim_xfer *x)
{
	if (!x)
		return NULL;
	list_del_init(&x->node);
	x->start_ns = dma->now;
	x->end_ns = dma->now + min(x->dur, U64_MAX - dma->now);
	if (dma->check)		/* a premature read shows the poison */
		xmemsim_fill(x->df->xf->dev, x->drec->heap, x->d.dst,
			     x->d.dst + x->d.len, XMEMSIM_DMA_POISON);
	trace_xmemsim_dma_start(x->df->pid, x->ticket, x->d.engine,
				x->d.queue, x->d.len, x->start_ns, x->end_ns);
	return x;
}

#ifdef XMEMSIM_URING_DEFERRED
/* In the issuing task (or io_uring's fallback): the CQE. */
static void batch_cqe(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct xmemsim_dma_batch *b = *(struct xmemsim_dma_batch **)cmd->pdu;
	int err = b->err;

	kfree(b);
	io_uring_cmd_done(cmd, err, 0, issue_flags);
}

/*
 * The batch's last count is gone: its CQE goes through task work, or
 * from io_uring's cancel callback, which is running. dma->lock held.
 */
static void batch_finish(struct xmemsim_dma_batch *b)
{
	list_del(&b->node);
	b->finished = true;
	if (!b->cancel_inline)
		io_uring_cmd_complete_in_task(b->cmd, batch_cqe);
}
#else
static void batch_finish(struct xmemsim_dma_batch *b)
{
	WARN_ON_ONCE(1);	/* no batch is ever made */
}
#endif

/*
 * One count of batch b gone (a transfer, or its issuer's hold): the CQE
 * goes with the last. dma->lock held.
 */
static void batch_put(struct xmemsim_dma *dma, struct xmemsim_dma_batch *b)
{
	lockdep_assert_held(&dma->lock);
	if (!--b->left)
		batch_finish(b);
}

/*
 * A transfer of a batch is done (bytes moved) or dropped: it is reaped
 * here, and the batch's CQE goes with its last one. dma->lock held.
 */
static void batch_xfer_gone(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	struct xmemsim_dma_batch *b = x->batch;

	lockdep_assert_held(&dma->lock);
	if (x->done && x->status && !b->err)
		b->err = x->status;	/* the CQE carries the first error */
	xa_erase(&x->df->xfers, x->ticket);
	df_reaped(x->df, 1);
	if (!x->done) {
		xmemsim_unpin(x->df->xf->dev, x->srec);
		xmemsim_unpin(x->df->xf->dev, x->drec);
	}
	kfree_rcu(x, rcu);
	batch_put(dma, b);
}

/* Drop what is left of batch b: queued transfers and a running one. */
static void batch_cancel(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			 struct xmemsim_dma_batch *b)
{
	struct xmemsim_xfer *x;
	unsigned long ticket;
	u32 e;

	lockdep_assert_held(&dma->lock);
	b->err = -ECANCELED;
	xa_for_each(&df->xfers, ticket, x) {
		if (x->batch != b)
			continue;
		for (e = 0; e < dma->engines; e++)
			if (dma->eng[e].cur == x)
				dma->eng[e].cur = NULL;
		list_del_init(&x->node);
		batch_xfer_gone(dma, x);	/* the last one completes b */
	}
}

#if defined(XMEMSIM_URING_DEFERRED) && !defined(XMEMSIM_HAVE_URING_CANCEL)
/* Is the task that issued b exiting, or its ring closing? */
static bool batch_orphaned(const struct xmemsim_dma_batch *b)
{
	const struct io_kiocb *req = cmd_to_io_kiocb(b->cmd);

	return (req->task->flags & PF_EXITING) ||
	       percpu_ref_is_dying(&req->ctx->refs);
}

/*
 * Every 20 ms while batches wait: end those whose task or ring is going
 * away. io_uring waits for them and, before 6.7, cannot cancel a
 * uring_cmd itself.
 */
static void dma_monitor(struct work_struct *work)
{
	struct xmemsim_dma *dma = container_of(to_delayed_work(work),
					       struct xmemsim_dma, monitor);
	struct xmemsim_dma_batch *b, *tmp;
	struct xmemsim_dma_file *df;
	bool more = false;

	mutex_lock(&dma->lock);
	list_for_each_entry(df, &dma->files, node) {
		list_for_each_entry_safe(b, tmp, &df->batches, node) {
			if (batch_orphaned(b))
				batch_cancel(dma, df, b);
			else
				more = true;
		}
	}
	if (more)
		schedule_delayed_work(&dma->monitor, msecs_to_jiffies(20));
	mutex_unlock(&dma->lock);
	dma_kick(dma);		/* engines may be free */
}

static void dma_monitor_start(struct xmemsim_dma *dma)
{
	schedule_delayed_work(&dma->monitor, msecs_to_jiffies(20));
}
#else
static void dma_monitor(struct work_struct *work)
{
}

/* io_uring cancels the batches itself, or none is ever made */
static void dma_monitor_start(struct xmemsim_dma *dma)
{
}
#endif

/*
 * End x at now without running it: no byte moves, no engine time; its
 * own queue and signal follow it into the error state. dma->lock held;
 * x may be freed (a batch's).
 */
static void xfer_end_unrun(struct xmemsim_dma *dma, struct xmemsim_xfer *x,
			   int status)
{
	struct xmemsim_dma_file *df = x->df;

	lockdep_assert_held(&dma->lock);
	list_del_init(&x->node);
	if (df->xf) {
		xmemsim_unpin(df->xf->dev, x->srec);
		xmemsim_unpin(df->xf->dev, x->drec);
	}
	x->status = status;
	x->start_ns = dma->now;
	x->end_ns = dma->now;
	xfer_stops_queue(dma, x);
	WRITE_ONCE(x->done, true);
	if (!x->batch)
		WRITE_ONCE(df->ready, df->ready + 1);
	trace_xmemsim_dma_end(df->pid, x->ticket, x->d.engine, x->d.queue,
			      x->d.len, x->start_ns, x->end_ns);
	wake_up_all(&df->wq);
	if (x->batch)
		batch_xfer_gone(dma, x);
}

/*
 * End every queue head that must end without running (xfer_doomed()),
 * until none is left: each may break another semaphore. Only the files
 * with an error state are walked. dma->lock held.
 */
static void dma_drain_errors(struct xmemsim_dma *dma)
{
	struct xmemsim_dma_file *df, *tmp;
	struct xmemsim_xfer *x;
	bool again;
	u32 i;
	int st;

	lockdep_assert_held(&dma->lock);
	do {
		again = false;
		list_for_each_entry_safe(df, tmp, &dma->err_files, err_node) {
			for (i = 0; i < dma->engines * dma_nq(dma); i++) {
				while (!list_empty(&df->q[i])) {
					x = list_first_entry(&df->q[i], struct xmemsim_xfer,
							     node);
					st = xfer_doomed(dma, x);
					if (!st)
						break;
					xfer_end_unrun(dma, x, st);
					again = true;
				}
			}
		}
	} while (again);
}

/* df left the error state? Then off dma->err_files. dma->lock held. */
static void df_error_check(struct xmemsim_dma *dma, struct xmemsim_dma_file *df)
{
	u32 i;

	lockdep_assert_held(&dma->lock);
	if (list_empty(&df->err_node) || !bitmap_empty(df->broken, dma->sems))
		return;
	for (i = 0; i < dma->engines * dma_nq(dma); i++)
		if (df->qerr[i])
			return;
	list_del_init(&df->err_node);
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
 * The scheduler's steps: start what can start at now, then complete the
 * earliest ends, until every engine is idle or waits on a semaphore or
 * (time_scale > 0) on the wall clock.
 */
static void dma_run(struct xmemsim_dma *dma)
{
	u64 t;
	u32 e;

	lockdep_assert_held(&dma->lock);
	for (;;) {
		bool running = false;

		dma_drain_errors(dma);
		for (e = 0; e < dma->engines; e++) {
			struct xmemsim_dma_engine *eng = &dma->eng[e];

			if (!eng->cur)
				eng->cur = xfer_start(dma, dma_pick(dma, e));
			running |= !!eng->cur;
		}
		if (!running)
			break;
		t = U64_MAX;
		for (e = 0; e < dma->engines; e++)
			if (dma->eng[e].cur)
				t = min(t, dma->eng[e].cur->end_ns);
		if (dma->time_scale && ktime_before(ktime_get(), dma_wall(dma, t))) {
			hrtimer_start(&dma->timer, dma_wall(dma, t), HRTIMER_MODE_ABS);
			break;
		}
		dma->now = t;
		for (e = 0; e < dma->engines; e++) {
			struct xmemsim_dma_engine *eng = &dma->eng[e];
			struct xmemsim_xfer *x = eng->cur;

			if (!x || x->end_ns != t)
				continue;
			if (x->fault == XMEMSIM_FAULT_DMA_HANG) {
				eng->cur = NULL;	/* lost: never completes */
				continue;
			}
			xfer_complete(dma, x);
			trace_xmemsim_dma_end(x->df->pid, x->ticket, e,
					      x->d.queue, x->d.len, x->start_ns,
					      x->end_ns);
			eng->cur = NULL;
			eng->completed++;
			eng->bytes += x->d.len;
			eng->busy_ns += x->end_ns - x->start_ns;
			if (x->batch)
				batch_xfer_gone(dma, x);
		}
		cond_resched();
	}
}

/* The scheduler's work item. */
static void dma_work(struct work_struct *work)
{
	struct xmemsim_dma *dma = container_of(work, struct xmemsim_dma, work);
	u32 e;

	mutex_lock(&dma->lock);
	/*
	 * A scaled clock keeps pace with the wall while every engine is
	 * idle; while one runs, modeled time only moves from end to end (the
	 * host's time to move the bytes is not the device's).
	 */
	for (e = 0; e < dma->engines && !dma->eng[e].cur; e++)
		;
	if (dma->time_scale && e == dma->engines)
		dma->now = max(dma->now,
			       div64_u64(ktime_to_ns(ktime_sub(ktime_get(), dma->epoch)),
					 dma->time_scale));
	dma_run(dma);
	mutex_unlock(&dma->lock);
}

static enum hrtimer_restart dma_timer_fn(struct hrtimer *timer)
{
	dma_kick(container_of(timer, struct xmemsim_dma, timer));
	return HRTIMER_NORESTART;
}

static void df_free(struct xmemsim_dma_file *df)
{
	if (!df)
		return;
	kvfree(df->q);
	kvfree(df->stamp);
	kvfree(df->sem);
	kvfree(df->qerr);
	bitmap_free(df->broken);
	kfree(df);
}

static void du_free(struct xmemsim_dma_user *du)
{
	if (du)
		kfree(du->stamp);
	kfree(du);
}

/* The user's share, from dma->users or made from spare. dma->lock held. */
static struct xmemsim_dma_user *du_get(struct xmemsim_dma *dma,
				       const struct xmemsim_user *user,
				       struct xmemsim_dma_user **spare)
{
	struct xmemsim_dma_user *du;

	lockdep_assert_held(&dma->lock);
	list_for_each_entry(du, &dma->users, node)
		if (du->user == user)
			goto found;
	du = *spare;
	*spare = NULL;
	du->user = user;
	list_add_tail(&du->node, &dma->users);
found:
	du->files++;
	return du;
}

/* The file's DMA state, made at its first DMA or semaphore command. */
/*
 * A file's DMA state, zeroed: its queues, stamps, semaphores, transfer
 * index and wait queue. The one initialiser of the device's files and of
 * the KUnit model's (xmemsim_dma_model()). 0 or -ENOMEM (the caller
 * frees what was allocated).
 */
static int df_init(const struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
		   gfp_t gfp)
{
	u32 i, nq = dma->engines * dma_nq(dma);

	df->q = kvmalloc_array(nq, sizeof(*df->q), gfp);
	df->stamp = kvcalloc(nq, sizeof(*df->stamp), gfp);
	df->sem = kvcalloc(dma->sems, sizeof(*df->sem), gfp);
	df->qerr = kvcalloc(nq, sizeof(*df->qerr), gfp);
	df->broken = bitmap_zalloc(dma->sems, gfp);
	if (!df->q || !df->stamp || !df->sem || !df->qerr || !df->broken)
		return -ENOMEM;
	for (i = 0; i < nq; i++)
		INIT_LIST_HEAD(&df->q[i]);
	xa_init(&df->xfers);
	INIT_LIST_HEAD(&df->batches);
	INIT_LIST_HEAD(&df->err_node);
	init_waitqueue_head(&df->wq);
	return 0;
}

static struct xmemsim_dma_file *dma_file(struct xmemsim_file *xf)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_user *du;
	struct xmemsim_dma_file *df;

	df = READ_ONCE(xf->dma);	/* set once, under dma->lock */
	if (df)
		return df;
	df = kzalloc(sizeof(*df), GFP_KERNEL_ACCOUNT);
	du = kzalloc(sizeof(*du), GFP_KERNEL_ACCOUNT);
	if (!df || !du)
		goto nomem;
	du->stamp = kcalloc(dma->engines, sizeof(*du->stamp), GFP_KERNEL_ACCOUNT);
	if (df_init(dma, df, GFP_KERNEL_ACCOUNT) || !du->stamp)
		goto nomem;
	df->xf = xf;
	df->pid = xf->pid;
	mutex_lock(&dma->lock);
	if (xf->dma) {			/* another thread of the file won */
		mutex_unlock(&dma->lock);
		df_free(df);
		du_free(du);
		return xf->dma;
	}
	df->du = du_get(dma, xf->user, &du);
	list_add_tail(&df->node, &dma->files);
	WRITE_ONCE(xf->dma, df);
	mutex_unlock(&dma->lock);
	du_free(du);			/* the user had a share already */
	return df;
nomem:
	df_free(df);
	du_free(du);
	return NULL;
}

static void xfer_free(struct xmemsim_dev *d, struct xmemsim_xfer *x)
{
	if (!x->done) {
		xmemsim_unpin(d, x->srec);
		xmemsim_unpin(d, x->drec);
	}
	kfree_rcu(x, rcu);
}

/* Check one descriptor and pin its ranges: 0 or -errno, nothing pinned. */
static int xfer_prepare(struct xmemsim_file *xf, struct xmemsim_xfer *x)
{
	const struct xmemsim_dma *dma = &xf->dev->dma;
	const struct xmemsim_dma_desc *d = &x->d;
	u64 send, dend;
	int ret;

	if (d->engine >= dma->engines || d->queue >= dma->queues ||
	    (d->wait_sem != XMEMSIM_SEM_NONE && d->wait_sem >= dma->sems) ||
	    (d->signal_sem != XMEMSIM_SEM_NONE && d->signal_sem >= dma->sems) ||
	    !mem_is_zero(d->reserved, sizeof(d->reserved)) || !d->len ||
	    check_add_overflow(d->src, d->len, &send) ||
	    check_add_overflow(d->dst, d->len, &dend) ||
	    (d->src < dend && d->dst < send))
		return -EINVAL;
	ret = xmemsim_pin_range(xf, d->src, d->len, false, &x->srec);
	if (ret)
		return ret;
	ret = xmemsim_pin_range(xf, d->dst, d->len, false, &x->drec);
	if (ret) {
		xmemsim_unpin(xf->dev, x->srec);
		return ret;
	}
	x->dur = xmemsim_dma_duration(dma->latency_ns,
				      dma->bw[kind_of(x->srec->heap)][kind_of(x->drec->heap)],
				      d->len);
	return 0;
}

/*
 * The fault injected into a transfer being queued, if any: at most one,
 * the sites asked in this order. In the submitting task, so that
 * make-it-fail and the file's arms apply.
 */
static int xfer_fault(struct xmemsim_file *xf)
{
	static const int sites[] = {
		XMEMSIM_FAULT_DMA_HANG, XMEMSIM_FAULT_DMA_ERROR,
		XMEMSIM_FAULT_MEM_UE, XMEMSIM_FAULT_MEM_CE,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++)
		if (xmemsim_fault(xf, sites[i]))
			return sites[i];
	return -1;
}

/* DMA_SUBMIT; with cmd (io_uring), the transfers form a batch for its CQE */
static int dma_submit(struct xmemsim_file *xf, struct xmemsim_dma_submit *s,
		      struct io_uring_cmd *cmd)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_batch *b = NULL;
	struct xmemsim_dma_desc *ud;
	struct xmemsim_xfer **x;
	struct xmemsim_dma_file *df;
	u32 i, n = 0;
	int ret = 0;

	if (s->flags || !mem_is_zero(s->reserved, sizeof(s->reserved)) || !s->count)
		return -EINVAL;
	if (s->count > dma->depth ||
	    (dma->user_depth && s->count > dma->user_depth))
		return -E2BIG;
	df = dma_file(xf);
	if (!df)
		return -ENOMEM;
	ud = kvmalloc_array(s->count, sizeof(*ud), GFP_KERNEL_ACCOUNT);
	x = kvcalloc(s->count, sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (cmd)
		b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!ud || !x || (cmd && !b)) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(ud, u64_to_user_ptr(s->descs),
			   array_size(s->count, sizeof(*ud)))) {
		ret = -EFAULT;
		goto out;
	}
	for (n = 0; n < s->count; n++) {
		x[n] = kzalloc(sizeof(*x[n]), GFP_KERNEL_ACCOUNT);
		if (!x[n]) {
			ret = -ENOMEM;
			break;
		}
		x[n]->d = ud[n];
		x[n]->df = df;
		x[n]->fault = -1;
		INIT_LIST_HEAD(&x[n]->node);
		ret = xfer_prepare(xf, x[n]);
		if (ret) {
			kfree(x[n]);
			break;
		}
	}
	if (ret)
		goto unwind;

	mutex_lock(&dma->lock);
	if (df->inflight + s->count > dma->depth ||
	    (dma->user_depth &&
	     df->du->inflight + s->count > dma->user_depth)) {
		ret = -EAGAIN;
	} else if (check_batch(dma, df, x, s->count)) {
		ret = -EBUSY;
	} else {
		for (i = 0; i < s->count && !ret; i++) {
			x[i]->ticket = df->next_ticket + i;
			ret = xa_insert(&df->xfers, x[i]->ticket, x[i],
					GFP_KERNEL_ACCOUNT);
		}
		if (ret) {	/* nothing queued: take the index back */
			while (--i > 0)
				xa_erase(&df->xfers, x[i - 1]->ticket);
		}
	}
	if (!ret && b) {
		b->cmd = cmd;
		/* one more for the issuer: no CQE before its write-back */
		b->left = s->count + 1;
		for (i = 0; i < s->count; i++)
			x[i]->batch = b;
		b->df = df;
		list_add_tail(&b->node, &df->batches);
		memcpy(cmd->pdu, &b, sizeof(b));
		b = NULL;
		dma_monitor_start(dma);
	}
	if (!ret) {
		s->ticket = df->next_ticket;
		df->next_ticket += s->count;
		df->inflight += s->count;
		df->du->inflight += s->count;
		for (i = 0; i < s->count; i++) {
			x[i]->fault = xfer_fault(xf);
			list_add_tail(&x[i]->node,
				      &df->q[qidx(dma, x[i]->d.engine, x[i]->d.queue)]);
			trace_xmemsim_dma_submit(xf->pid, x[i]->ticket,
						 x[i]->d.engine, x[i]->d.queue,
						 x[i]->d.len, dma->now);
		}
	}
	mutex_unlock(&dma->lock);
	if (!ret) {
		dma_kick(dma);
		goto out;
	}
unwind:
	while (n--)
		xfer_free(xf->dev, x[n]);
out:
	kfree(b);
	kvfree(x);
	kvfree(ud);
	return ret;
}

/**
 * xmemsim_dma_submit() - DMA_SUBMIT: queue count transfers, all or none
 * @xf: the caller
 * @s: the command, copied in
 *
 * Return: 0 (s->ticket set), -EINVAL (a bad descriptor: engine, queue or
 * semaphore out of range, len 0, a range that wraps, overlapping ranges,
 * reserved bits), -EACCES (a range the caller does not own), -E2BIG (more
 * than file_dma_depth), -EAGAIN (the file's depth is full: reap first),
 * -EFAULT or -ENOMEM.
 */
int xmemsim_dma_submit(struct xmemsim_file *xf, struct xmemsim_dma_submit *s)
{
	return dma_submit(xf, s, NULL);
}

#ifdef XMEMSIM_URING_DEFERRED
/**
 * xmemsim_dma_submit_uring() - DMA_SUBMIT through io_uring
 * @xf: the caller
 * @cmd: the command, whose CQE comes when its transfers are done
 * @uarg: the caller's struct xmemsim_dma_submit
 * @issue_flags: io_uring's; IO_URING_F_NONBLOCK: it may not block
 *
 * The argument is copied and checked as xmemsim_dispatch() does (its own
 * bytes written back first, the ticket after, always before the CQE).
 * Issued without blocking, it asks io_uring for a worker. Where io_uring
 * can cancel it, the command is marked cancelable before its issuer lets
 * go of the batch, so its CQE cannot come first.
 *
 * Return: -EIOCBQUEUED (the CQE follows: 0, the first transfer's error,
 * -EFAULT if the ticket could not be written back, or -ECANCELED if the
 * task or ring went first), or DMA_SUBMIT's errors at once.
 */
int xmemsim_dma_submit_uring(struct xmemsim_file *xf, struct io_uring_cmd *cmd,
			     void __user *uarg, unsigned int issue_flags)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_batch *b;
	struct xmemsim_dma_submit s;
	int ret;

	if (issue_flags & IO_URING_F_NONBLOCK)
		return -EAGAIN;
	if (copy_from_user(&s, uarg, sizeof(s)) || copy_to_user(uarg, &s, sizeof(s)))
		return -EFAULT;
	ret = dma_submit(xf, &s, cmd);
	if (ret)
		return ret;
	/*
	 * Queued, and the transfers may already be done: the batch holds its
	 * CQE until the ticket is back, so nothing is written into memory the
	 * caller took back on seeing the CQE. A failed write-back is the CQE's
	 * -EFAULT, the transfers having run.
	 */
	ret = copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
	memcpy(&b, cmd->pdu, sizeof(b));
#ifdef XMEMSIM_HAVE_URING_CANCEL
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
#endif
	mutex_lock(&dma->lock);
	if (ret && !b->err)
		b->err = ret;
	batch_put(dma, b);
	mutex_unlock(&dma->lock);
	return -EIOCBQUEUED;
}
#endif

#ifdef XMEMSIM_HAVE_URING_CANCEL
/**
 * xmemsim_dma_cancel_uring() - io_uring cancels a queued DMA_SUBMIT
 * @cmd: the command, marked cancelable and not yet completed
 * @issue_flags: io_uring's (IO_URING_F_CANCEL, its uring_lock held)
 *
 * The ring is closing or its task exiting: the batch's queued and running
 * transfers are dropped (no byte moves) and its CQE, -ECANCELED, is posted
 * here. A batch whose CQE is already on its way through task work is left
 * to it; one whose issuer still holds it (a worker between queueing and
 * write-back) is finished by that issuer, and io_uring calls again until
 * the command is done.
 */
void xmemsim_dma_cancel_uring(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct xmemsim_file *xf = cmd->file->private_data;
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_batch *b;
	bool post;

	memcpy(&b, cmd->pdu, sizeof(b));
	mutex_lock(&dma->lock);
	post = false;
	if (!b->finished) {
		b->cancel_inline = true;
		batch_cancel(dma, b->df, b);
		b->cancel_inline = false;
		post = b->finished;
	}
	mutex_unlock(&dma->lock);
	dma_kick(dma);		/* engines may be free */
	if (post) {
		kfree(b);
		io_uring_cmd_done(cmd, -ECANCELED, 0, issue_flags);
	}
}
#endif

/**
 * xmemsim_dma_copy() - COPY's DMA method through an engine
 * @xf: the caller, holding pins on both ranges and the bounce buffer
 * @src: the source's device address
 * @dst: the destination's
 * @len: bytes, > 0, ranges not overlapping
 * @bounce: the bounce buffer, XMEMSIM_BOUNCE_SIZE bytes
 *
 * One transfer on engine 0, in the file's COPY queue: it takes its turn
 * with every other transfer on that engine and lasts the modeled time of
 * any transfer; its bytes move at completion, through the bounce buffer
 * in 4 KiB steps as the seed's DMA copy does. The caller waits for it.
 *
 * Return: 0, -EIO (a memory error in the source, or an injected COPY_DMA
 * fault: the first half moved), -EINTR (a fatal signal: the transfer is
 * dropped and no byte has moved), -EACCES or -ENOMEM.
 */
int xmemsim_dma_copy(struct xmemsim_file *xf, u64 src, u64 dst, u64 len,
		     u8 *bounce)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df = dma_file(xf);
	struct xmemsim_xfer *x;
	int ret;

	if (!df)
		return -ENOMEM;
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	x->d = (struct xmemsim_dma_desc){
		.src = src, .dst = dst, .len = len,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
	};
	x->df = df;
	x->bounce = bounce;
	x->ticket = XMEMSIM_COPY_TICKET;
	x->fault = xmemsim_fault(xf, XMEMSIM_FAULT_COPY_DMA) ?
		   XMEMSIM_FAULT_COPY_DMA : -1;
	INIT_LIST_HEAD(&x->node);
	ret = xfer_prepare(xf, x);
	if (ret) {
		kfree(x);
		return ret;
	}
	x->d.queue = dma->queues;	/* the COPY queue */
	mutex_lock(&dma->lock);
	list_add_tail(&x->node, &df->q[qidx(dma, 0, x->d.queue)]);
	trace_xmemsim_dma_submit(xf->pid, x->ticket, 0, x->d.queue, len, dma->now);
	mutex_unlock(&dma->lock);
	dma_kick(dma);
	if (wait_event_killable(df->wq, READ_ONCE(x->done))) {
		mutex_lock(&dma->lock);
		if (!x->done) {
			if (dma->eng[0].cur == x)
				dma->eng[0].cur = NULL;
			list_del_init(&x->node);
			ret = -EINTR;
		}
		mutex_unlock(&dma->lock);
		dma_kick(dma);		/* the engine may be free */
	}
	if (!ret)
		ret = x->status;
	xfer_free(xf->dev, x);
	return ret;
}

static long timeout_jiffies(s64 ns)
{
	return ns < 0 ? MAX_SCHEDULE_TIMEOUT : (long)nsecs_to_jiffies64(ns) + 1;
}

/*
 * Sleep on the file's queue until cond: 0, -ETIMEDOUT or -ERESTARTSYS.
 * The last is a signal, or only task work (io_uring's notifications set
 * TIF_NOTIFY_SIGNAL): the syscall restarts after it, and a caller sees
 * -EINTR only for a handler without SA_RESTART. Waiting changes nothing,
 * so a restart begins the wait anew, with its whole timeout.
 */
#define dma_wait_event(df, cond, ns) ({				\
	long __t = wait_event_interruptible_timeout((df)->wq, cond,	\
						    timeout_jiffies(ns));	\
	__t > 0 ? 0 : __t == 0 ? -ETIMEDOUT : -ERESTARTSYS;		\
})

/* A wait condition: no sleeping lock (the task is not running). */
static bool xfer_done(struct xmemsim_dma_file *df, u64 ticket)
{
	struct xmemsim_xfer *x;
	bool done;

	rcu_read_lock();
	x = xa_load(&df->xfers, ticket);
	/* gone: another waiter reaped it; claimed: a reaper may give it back */
	done = !x || (READ_ONCE(x->done) && !READ_ONCE(x->claimed));
	rcu_read_unlock();
	return done;
}

/**
 * xmemsim_dma_wait() - DMA_WAIT: wait for a transfer and reap it
 * @xf: the caller
 * @w: the command, copied in
 *
 * Return: 0 (the times, tag and status written), -ENOENT (no such ticket,
 * or already reaped), -ETIMEDOUT, -ERESTARTSYS, -EINVAL.
 */
int xmemsim_dma_wait(struct xmemsim_file *xf, struct xmemsim_dma_wait *w)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	struct xmemsim_xfer *x;
	int ret;

	if (w->reserved0 || !mem_is_zero(w->reserved, sizeof(w->reserved)))
		return -EINVAL;
	if (!df)
		return -ENOENT;
	ret = dma_wait_event(df, xfer_done(df, w->ticket), w->timeout_ns);
	if (ret)
		return ret;
	mutex_lock(&dma->lock);
	x = xa_load(&df->xfers, w->ticket);
	if (x && x->done && !x->claimed) {
		xa_erase(&df->xfers, w->ticket);
		df_reaped(df, 1);
		if (!x->batch)
			df->ready--;
	} else {
		x = NULL;
	}
	mutex_unlock(&dma->lock);
	if (x)
		wake_up_all(&df->wq);	/* room for a poller's POLLOUT */
	if (!x)
		return -ENOENT;
	w->start_ns = x->start_ns;
	w->end_ns = x->end_ns;
	w->tag = x->d.tag;
	w->status = x->status;
	kfree_rcu(x, rcu);
	return 0;
}

/* How long is left of a wait that began with left jiffies. */
static int reap_wait(struct xmemsim_dma_file *df, long *left)
{
	long t;

	t = wait_event_interruptible_timeout(df->wq, READ_ONCE(df->ready), *left);
	if (t < 0)
		return -ERESTARTSYS;	/* as dma_wait_event() */
	if (!t)
		return -ETIMEDOUT;
	*left = t;
	return 0;
}

/*
 * Claim up to cap completed transfers of df that no batch and no other
 * reaper owns, in ticket order. dma->lock held.
 */
static u32 reap_claim(struct xmemsim_dma_file *df, struct xmemsim_xfer **xs,
		      u32 cap)
{
	struct xmemsim_xfer *x;
	unsigned long ticket;
	u32 n = 0;

	xa_for_each(&df->xfers, ticket, x) {
		if (!x->done || x->batch || x->claimed)
			continue;
		WRITE_ONCE(x->claimed, true);
		df->ready--;
		xs[n++] = x;
		if (n == cap)
			break;
	}
	return n;
}

/**
 * xmemsim_dma_reap() - DMA_REAP: reap the file's completed transfers
 * @xf: the caller
 * @r: the command, copied in
 *
 * The records are copied out while their transfers are claimed (DMA_WAIT
 * and other reapers pass them by), and reaped only once the copy worked:
 * a buffer that faults gives -EFAULT and loses nothing.
 *
 * Return: 0 (r->count records written), -EAGAIN (timeout 0, none
 * completed), -ETIMEDOUT, -ERESTARTSYS, -ENOENT (nothing in flight),
 * -EINVAL, -EFAULT or -ENOMEM.
 */
int xmemsim_dma_reap(struct xmemsim_file *xf, struct xmemsim_dma_reap *r)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	struct xmemsim_dma_completion *rec = NULL;
	struct xmemsim_xfer **xs = NULL;
	long left = timeout_jiffies(r->timeout_ns);
	u32 i, n = 0;
	int ret = 0;

	if (r->flags || r->reserved0 || !mem_is_zero(r->reserved, sizeof(r->reserved)) ||
	    !r->capacity || r->capacity > dma->depth)
		return -EINVAL;
	if (!df)
		return -ENOENT;
	xs = kvmalloc_array(r->capacity, sizeof(*xs), GFP_KERNEL_ACCOUNT);
	rec = kvcalloc(r->capacity, sizeof(*rec), GFP_KERNEL_ACCOUNT);
	if (!xs || !rec) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		mutex_lock(&dma->lock);
		n = reap_claim(df, xs, r->capacity);
		if (!n && !df->inflight)
			ret = -ENOENT;
		mutex_unlock(&dma->lock);
		if (n || ret)
			break;
		if (!r->timeout_ns) {
			ret = -EAGAIN;
			break;
		}
		ret = reap_wait(df, &left);
		if (ret)
			break;
	}
	if (!n)
		goto out;
	for (i = 0; i < n; i++) {
		rec[i].ticket = xs[i]->ticket;
		rec[i].tag = xs[i]->d.tag;
		rec[i].start_ns = xs[i]->start_ns;
		rec[i].end_ns = xs[i]->end_ns;
		rec[i].status = xs[i]->status;
	}
	if (copy_to_user(u64_to_user_ptr(r->recs), rec, array_size(n, sizeof(*rec))))
		ret = -EFAULT;
	mutex_lock(&dma->lock);
	for (i = 0; i < n; i++) {
		if (ret) {		/* given back, for the next reap */
			WRITE_ONCE(xs[i]->claimed, false);
			df->ready++;
		} else {
			xa_erase(&df->xfers, xs[i]->ticket);
		}
	}
	if (!ret)
		df_reaped(df, n);
	mutex_unlock(&dma->lock);
	wake_up_all(&df->wq);		/* DMA_WAITs passed them by; room */
	if (!ret) {
		for (i = 0; i < n; i++)
			kfree_rcu(xs[i], rcu);
		r->count = n;
	}
out:
	kvfree(rec);
	kvfree(xs);
	return ret;
}

/**
 * xmemsim_dma_poll() - the file's DMA readiness, for poll() and epoll
 * @xf: the caller
 * @file: its file
 * @pt: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM while a completed transfer waits to be
 * reaped (DMA_WAIT, DMA_REAP; io_uring batches reap their own), EPOLLOUT
 * | EPOLLWRNORM while the file holds fewer than file_dma_depth transfers,
 * EPOLLERR if the file's DMA state cannot be allocated.
 */
__poll_t xmemsim_dma_poll(struct xmemsim_file *xf, struct file *file,
			  struct poll_table_struct *pt)
{
	struct xmemsim_dma_file *df = dma_file(xf);
	__poll_t mask = 0;

	if (!df)
		return EPOLLERR;
	poll_wait(file, &df->wq, pt);
	if (READ_ONCE(df->ready))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(df->inflight) < xf->dev->dma.depth)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* A wait condition: semaphores change under dma->lock, are read without. */
static bool sem_reached(struct xmemsim_dma_file *df, u32 sem, u64 value)
{
	return READ_ONCE(df->sem[sem]) >= value;
}

/**
 * xmemsim_sem_cmd() - SEM_SET, SEM_GET and SEM_WAIT on the caller's semaphores
 * @xf: the caller
 * @cmd: XMEMSIM_IOC_SEM_*
 * @s: the command, copied in
 *
 * SEM_SET also mends a broken semaphore; SEM_WAIT on a broken one whose
 * value has not come ends at once.
 *
 * Return: 0, -EINVAL (no such semaphore, flags, reserved), -EPIPE
 * (SEM_WAIT: broken), -ETIMEDOUT, -ERESTARTSYS, -ENOMEM.
 */
int xmemsim_sem_cmd(struct xmemsim_file *xf, unsigned int cmd,
		    struct xmemsim_sem *s)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df;
	int ret = 0;

	if (s->sem >= dma->sems || s->flags ||
	    !mem_is_zero(s->reserved, sizeof(s->reserved)))
		return -EINVAL;
	df = dma_file(xf);
	if (!df)
		return -ENOMEM;
	if (cmd == XMEMSIM_IOC_SEM_WAIT) {
		ret = dma_wait_event(df, sem_reached(df, s->sem, s->value) ||
				     test_bit(s->sem, df->broken), s->timeout_ns);
		if (!ret && !sem_reached(df, s->sem, s->value))
			ret = -EPIPE;	/* broken: its signal will not come */
	}
	mutex_lock(&dma->lock);
	if (cmd == XMEMSIM_IOC_SEM_SET) {
		WRITE_ONCE(df->sem[s->sem], s->value);
		clear_bit(s->sem, df->broken);
		df_error_check(dma, df);
	} else if (cmd == XMEMSIM_IOC_SEM_GET) {
		s->value = df->sem[s->sem];
	}
	s->now_ns = dma->now;
	mutex_unlock(&dma->lock);
	if (cmd == XMEMSIM_IOC_SEM_SET) {
		dma_kick(dma);		/* a queue may wait on it */
		wake_up_all(&df->wq);
	}
	return ret;
}

/**
 * xmemsim_dma_reset() - DMA_RESET: take a queue of the caller out of error
 * @xf: the caller
 * @r: the command, copied in; r->status: the error that stopped it, or 0
 *
 * Return: 0, -EINVAL (engine, queue, flags, reserved), -ENOMEM.
 */
int xmemsim_dma_reset(struct xmemsim_file *xf, struct xmemsim_dma_reset *r)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df;
	u32 i;

	if (r->engine >= dma->engines || r->queue >= dma->queues || r->flags ||
	    !mem_is_zero(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	df = dma_file(xf);
	if (!df)
		return -ENOMEM;
	i = qidx(dma, r->engine, r->queue);
	mutex_lock(&dma->lock);
	r->status = df->qerr[i];
	df->qerr[i] = 0;
	df_error_check(dma, df);
	mutex_unlock(&dma->lock);
	dma_kick(dma);		/* what waits behind it runs again */
	return 0;
}

/* The transfers user u has queued, running or unreaped, over its files. */
u32 xmemsim_dma_user_inflight(struct xmemsim_dev *d, const struct xmemsim_user *u)
{
	struct xmemsim_dma *dma = &d->dma;
	struct xmemsim_dma_user *du;
	u32 n = 0;

	mutex_lock(&dma->lock);
	list_for_each_entry(du, &dma->users, node) {
		if (du->user == u) {
			n = du->inflight;
			break;
		}
	}
	mutex_unlock(&dma->lock);
	return n;
}

/* DMA_INFO */
void xmemsim_dma_info(struct xmemsim_dev *d, struct xmemsim_dma_info *in)
{
	struct xmemsim_dma *dma = &d->dma;
	u32 i, j;

	memset(in, 0, sizeof(*in));
	in->engines = dma->engines;
	in->queues = dma->queues;
	in->sems = dma->sems;
	in->depth = dma->depth;
	in->user_depth = dma->user_depth;
	in->latency_ns = dma->latency_ns;
	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++)
		for (j = 0; j < XMEMSIM_NUM_HEAPS; j++)
			in->bw[i][j] = dma->bw[kind_of(i)][kind_of(j)];
	in->time_scale = dma->time_scale;
	mutex_lock(&dma->lock);
	in->now_ns = dma->now;
	mutex_unlock(&dma->lock);
}

/**
 * xmemsim_dma_release() - a closing file's transfers: cancel and free
 * @xf: the file, with no command of it running any more
 *
 * Queued transfers are dropped, a running one is stopped (its bytes do not
 * move), unreaped ones are freed; every pin goes.
 */
void xmemsim_dma_release(struct xmemsim_file *xf)
{
	struct xmemsim_dma *dma = &xf->dev->dma;
	struct xmemsim_dma_file *df = xf->dma;
	struct xmemsim_xfer *x;
	unsigned long ticket;
	u32 e;

	if (!df)
		return;
	mutex_lock(&dma->lock);
	for (e = 0; e < dma->engines; e++) {
		struct xmemsim_dma_engine *eng = &dma->eng[e];

		if (eng->cur && eng->cur->df == df)
			eng->cur = NULL;
	}
	list_del(&df->node);
	list_del_init(&df->err_node);
	df_reaped(df, df->inflight);
	if (!--df->du->files) {
		list_del(&df->du->node);
		du_free(df->du);
	}
	WARN_ON_ONCE(!list_empty(&df->batches));	/* CQEs hold the file */
	xa_for_each(&df->xfers, ticket, x)
		xfer_free(xf->dev, x);
	mutex_unlock(&dma->lock);
	xa_destroy(&df->xfers);
	df_free(df);
	xf->dma = NULL;
	dma_kick(dma);		/* its engines may be free now */
}

/*
 * debugfs "dma": the clock, then per engine what is queued on it (all
 * files), whether it runs, and its totals: transfers, bytes, busy modeled
 * time and the bandwidth achieved over it.
 */
void xmemsim_dma_show(struct xmemsim_dev *d, struct seq_file *m)
{
	struct xmemsim_dma *dma = &d->dma;
	struct xmemsim_dma_file *df;
	struct xmemsim_xfer *x;
	u32 e, q;

	mutex_lock(&dma->lock);
	seq_printf(m, "now_ns %llu time_scale %llu check %u\n", dma->now,
		   dma->time_scale, dma->check);
	for (e = 0; e < dma->engines; e++) {
		const struct xmemsim_dma_engine *eng = &dma->eng[e];
		u64 queued = 0;

		list_for_each_entry(df, &dma->files, node)
			for (q = 0; q < dma_nq(dma); q++)
				list_for_each_entry(x, &df->q[qidx(dma, e, q)], node)
					queued++;
		seq_printf(m, "engine %u %s queued %llu completed %llu bytes %llu busy_ns %llu bw_mbps %llu\n",
			   e, eng->cur ? "running" : "idle", queued,
			   eng->completed, eng->bytes, eng->busy_ns,
			   eng->busy_ns ? div64_u64(eng->bytes * 1000, eng->busy_ns) : 0);
	}
	mutex_unlock(&dma->lock);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* The model's state: a private device clock with its own engines. */
struct dma_model {
	struct xmemsim_dma dma;
	struct xmemsim_dma_file *df;
	struct xmemsim_dma_user *du;
	struct xmemsim_xfer *x;
	u32 files;
};

static void dma_model_free(struct dma_model *m)
{
	u32 f;

	for (f = 0; f < m->files; f++) {
		kvfree(m->df[f].q);
		kvfree(m->df[f].stamp);
		kvfree(m->df[f].sem);
		kvfree(m->df[f].qerr);
		bitmap_free(m->df[f].broken);
		kfree(m->du[f].stamp);
	}
	kfree(m->dma.eng);
	kfree(m->df);
	kfree(m->du);
	kvfree(m->x);
	mutex_destroy(&m->dma.lock);
	kfree(m);
}

static struct dma_model *dma_model_new(u32 engines, u32 queues, u32 sems,
				       const u32 *file_user, u32 files, u32 n)
{
	struct dma_model *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 f;

	if (!m)
		return NULL;
	mutex_init(&m->dma.lock);
	INIT_LIST_HEAD(&m->dma.files);
	INIT_LIST_HEAD(&m->dma.err_files);
	INIT_LIST_HEAD(&m->dma.users);
	m->dma.engines = engines;
	m->dma.queues = queues;
	m->dma.sems = sems;
	m->dma.eng = kcalloc(engines, sizeof(*m->dma.eng), GFP_KERNEL);
	m->df = kcalloc(files, sizeof(*m->df), GFP_KERNEL);
	m->du = kcalloc(files, sizeof(*m->du), GFP_KERNEL);
	m->x = kvcalloc(n, sizeof(*m->x), GFP_KERNEL);
	if (!m->dma.eng || !m->df || !m->du || !m->x)
		goto nomem;
	for (f = 0; f < files; f++, m->files++) {
		struct xmemsim_dma_file *df = &m->df[f];

		m->du[f].stamp = kcalloc(engines, sizeof(u64), GFP_KERNEL);
		if (df_init(&m->dma, df, GFP_KERNEL) || !m->du[f].stamp) {
			m->files++;
			goto nomem;
		}
		df->du = &m->du[file_user[f]];
		list_add_tail(&df->node, &m->dma.files);
	}
	return m;
nomem:
	dma_model_free(m);
	return NULL;
}

/**
 * xmemsim_dma_model() - the scheduler on descriptors alone
 * @engines: engines in all
 * @queues: queues per engine and file
 * @sems: semaphores per file, all 0 at the start
 * @file_user: [files]: the user (0 .. files - 1) each file belongs to
 * @files: files, in the order the device would have made them
 * @t: [n] transfers, queued at modeled time 0 in array order; in: file,
 *	descriptor (engine, queue, wait, signal) and duration; out: start
 *	and end, or U64_MAX for a transfer that never started
 * @n: transfers
 *
 * The device's own pick, start and completion steps on the virtual clock,
 * with no bytes and no records, for KUnit to hold against a reference.
 *
 * Return: 0, -EINVAL (a descriptor or user out of range) or -ENOMEM.
 */
VISIBLE_IF_KUNIT int xmemsim_dma_model(u32 engines, u32 queues, u32 sems,
				       const u32 *file_user, u32 files,
				       struct xmemsim_dma_model_xfer *t, u32 n)
{
	struct dma_model *m;
	u32 i;

	for (i = 0; i < files; i++)
		if (file_user[i] >= files)
			return -EINVAL;
	for (i = 0; i < n; i++)
		if (t[i].file >= files || t[i].d.engine >= engines ||
		    t[i].d.queue >= queues ||
		    (t[i].d.wait_sem != XMEMSIM_SEM_NONE && t[i].d.wait_sem >= sems) ||
		    (t[i].d.signal_sem != XMEMSIM_SEM_NONE && t[i].d.signal_sem >= sems))
			return -EINVAL;
	m = dma_model_new(engines, queues, sems, file_user, files, n);
	if (!m)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct xmemsim_xfer *x = &m->x[i];

		x->d = t[i].d;
		x->df = &m->df[t[i].file];
		x->dur = t[i].dur;
		x->ticket = i;
		x->fault = -1;
		list_add_tail(&x->node,
			      &x->df->q[qidx(&m->dma, x->d.engine, x->d.queue)]);
	}
	mutex_lock(&m->dma.lock);
	dma_run(&m->dma);
	mutex_unlock(&m->dma.lock);
	for (i = 0; i < n; i++) {
		t[i].start_ns = m->x[i].done ? m->x[i].start_ns : U64_MAX;
		t[i].end_ns = m->x[i].done ? m->x[i].end_ns : U64_MAX;
	}
	dma_model_free(m);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_model);
#endif

int xmemsim_dma_init(struct xmemsim_dev *d, const struct xmemsim_dma_params *p)
{
	struct xmemsim_dma *dma = &d->dma;
	u32 i, j;

	if (p->check > XMEMSIM_CHECK_REFUSE)
		return -EINVAL;
	if (!p->engines_per_core || p->engines_per_core > 16 || !p->queues ||
	    p->queues > 64 || !p->sems || p->sems > 4096 || !p->depth ||
	    p->depth > 65536 || p->user_depth > 1048576)
		return -EINVAL;
	for (i = 0; i < XMEMSIM_NUM_HEAPS; i++)
		for (j = 0; j < XMEMSIM_NUM_HEAPS; j++)
			if (!p->bw[kind_of(i)][kind_of(j)])
				return -EINVAL;
	mutex_init(&dma->lock);
	INIT_LIST_HEAD(&dma->files);
	INIT_LIST_HEAD(&dma->err_files);
	INIT_LIST_HEAD(&dma->users);
	INIT_WORK(&dma->work, dma_work);
	INIT_DELAYED_WORK(&dma->monitor, dma_monitor);
	hrtimer_init(&dma->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	dma->timer.function = dma_timer_fn;
	dma->engines = p->engines_per_core * d->geo.cores;
	dma->queues = p->queues;
	dma->sems = p->sems;
	dma->depth = p->depth;
	dma->user_depth = p->user_depth;
	dma->latency_ns = p->latency_ns;
	memcpy(dma->bw, p->bw, sizeof(dma->bw));
	dma->time_scale = p->time_scale;
	dma->check = p->check;
	dma->epoch = ktime_get();
	dma->eng = kcalloc(dma->engines, sizeof(*dma->eng), GFP_KERNEL);
	return dma->eng ? 0 : -ENOMEM;
}

/* At unload: every file is closed, so nothing is queued or running. */
void xmemsim_dma_fini(struct xmemsim_dev *d)
{
	struct xmemsim_dma *dma = &d->dma;

	cancel_delayed_work_sync(&dma->monitor);
	hrtimer_cancel(&dma->timer);
	cancel_work_sync(&dma->work);
	WARN_ON_ONCE(!list_empty(&dma->files) || !list_empty(&dma->users));
	kfree(dma->eng);
	mutex_destroy(&dma->lock);
}
