// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: a file's DMA state, DMA_SUBMIT, DMA_WAIT, DMA_REAP,
 * poll readiness, SEM_SET/GET/WAIT, DMA_RESET, DMA_INFO, COPY's transfer
 * and release. kmod/dma_internal.h has the clock and the locking rules;
 * the scheduler is in dma_sched.c, the hazard checker in dma_check.c,
 * the semaphores in dma_sem.c.
 *
 * Ownership: a transfer pins both its ranges (HEAP_FREE: -EBUSY) from
 * submit until it is completed or cancelled. Completed transfers wait in
 * their file's ticket index until DMA_WAIT or DMA_REAP reaps them;
 * queued, running and unreaped transfers together are bounded by
 * file_dma_depth per file and user_dma_depth per user. Every path
 * (ioctl() and io_uring alike) returns from DMA_SUBMIT once the transfers
 * are queued. Closing the file cancels what is queued and stops what is
 * running (its bytes do not move; a transfer whose bytes are moving
 * finishes first), and frees everything.
 */
#include <kunit/visibility.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma_internal.h"
#include "trace.h"

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
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_duration);	/* KUnit: the time formula */

/*
 * The file's modeled now: what it has observed; on a scaled clock also
 * the wall clock's modeled time. du->lock held.
 */
static u64 df_now(struct xmemsim_dma *dma, struct xmemsim_dma_file *df)
{
	lockdep_assert_held(&df->du->lock);
	if (dma->time_scale)
		df->now = max(df->now,
			      div64_u64(ktime_to_ns(ktime_sub(ktime_get(), dma->epoch)),
					dma->time_scale));
	return df->now;
}

/* A file's transfers are reaped (or dropped): its depth and its user's. */
static void df_reaped(struct xmemsim_dma_file *df, u32 n)
{
	df->inflight -= n;
	df->du->inflight -= n;
}

/*
 * x leaves the file: out of its semaphore's signaller list (the highest
 * value a reaped signal reached is kept) and the ticket index.
 * du->lock held.
 */
static void xfer_unlink(struct xmemsim_dma_file *df, struct xmemsim_xfer *x)
{
	xmemsim_sem_reaped(&df->sems, x);
	xa_erase(&df->xfers, x->ticket);
}

static void df_free(struct xmemsim_dma_file *df)
{
	if (!df)
		return;
	xmemsim_dma_file_fini(df);
	kfree(df);
}

static void du_free(struct xmemsim_dma_user *du)
{
	if (du)
		xmemsim_dma_user_fini(du);
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

/**
 * xmemsim_dma_file_init() - a file's DMA state
 * @dma: the device's DMA, or the KUnit model's
 * @df: zeroed
 * @gfp: for its arrays
 *
 * Its queues, semaphores and transfer index: the one initialiser of the
 * device's files and of the model's (dma_model.c), which then give it its
 * user (df->du) and its semaphores their lock (df->sems.lock).
 *
 * Return: 0 or -ENOMEM; either way xmemsim_dma_file_fini() frees what
 * there is.
 */
int xmemsim_dma_file_init(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			  gfp_t gfp)
{
	u32 i, nq = dma->engines * xmemsim_dma_nq(dma);

	xa_init(&df->xfers);
	df->q = kvcalloc(nq, sizeof(*df->q), gfp);
	if (xmemsim_sems_init(&df->sems, dma->sems, NULL, gfp) || !df->q)
		return -ENOMEM;
	for (i = 0; i < nq; i++) {
		INIT_LIST_HEAD(&df->q[i].xfers);
		INIT_LIST_HEAD(&df->q[i].node);
		df->q[i].df = df;
		df->q[i].engine = i / xmemsim_dma_nq(dma);
		df->q[i].index = i;
	}
	return 0;
}

void xmemsim_dma_file_fini(struct xmemsim_dma_file *df)
{
	kvfree(df->q);
	xmemsim_sems_free(&df->sems);
}

/*
 * The latest modeled time the user's engines have reached: what its file
 * that has observed nothing yet takes as its now. du->lock held.
 */
static u64 du_horizon(struct xmemsim_dma_user *du)
{
	u64 t = 0;
	u32 e;

	lockdep_assert_held(&du->lock);
	for (e = 0; e < du->dma->engines; e++)
		t = max(t, du->eng[e].free_ns);
	return t;
}

/*
 * Among several devices, the user's link book, which its DMA on every
 * device shares: 0, or -ENOMEM.
 */
static int dma_user_links(struct xmemsim_dma_user *du, struct xmemsim_file *xf)
{
	const struct xmemsim_topo *t = xmemsim_topology();

	du->dev = xf->dev->index;
	if (!t || t->n < 2)
		return 0;
	du->links = xmemsim_link_book_get(xf->user->uid);
	return du->links ? 0 : -ENOMEM;
}

/* The file's DMA state, made at its first DMA or semaphore command. */
static struct xmemsim_dma_file *dma_file(struct xmemsim_file *xf)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_user *du;
	struct xmemsim_dma_file *df;

	df = READ_ONCE(xf->dma);	/* set once, under dma->lock */
	if (df)
		return df;
	df = kzalloc(sizeof(*df), GFP_KERNEL_ACCOUNT);
	du = kzalloc(sizeof(*du), GFP_KERNEL_ACCOUNT);
	if (!df || !du)
		goto nomem;
	if (xmemsim_dma_user_init(dma, du, GFP_KERNEL_ACCOUNT) ||
	    xmemsim_dma_file_init(dma, df, GFP_KERNEL_ACCOUNT) ||
	    dma_user_links(du, xf))
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
	df->sems.lock = &df->du->lock;
	df->order = ++dma->files_made;
	mutex_lock(&df->du->lock);
	df->now = du_horizon(df->du);	/* its clock starts at its user's present */
	mutex_unlock(&df->du->lock);
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

static struct xmemsim_xfer *xfer_new(struct xmemsim_dma_file *df)
{
	struct xmemsim_xfer *x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);

	if (!x)
		return NULL;
	x->df = df;
	x->fault = -1;
	INIT_LIST_HEAD(&x->node);
	INIT_LIST_HEAD(&x->sig_node);
	INIT_LIST_HEAD(&x->wait_node);
	return x;
}

static void xfer_free(struct xmemsim_dev *d, struct xmemsim_xfer *x)
{
	if (!x->done)
		xms_access_end(&x->acc, 0);
	kfree_rcu(x, rcu);
}

/*
 * A transfer's modeled time: the engines' latency and bandwidth between
 * its two memories; through the aperture, also each link's latency and at
 * most the lowest link bandwidth on its route (its side of the device
 * counts as the device's own memory of the other end's kind). Its links
 * carry its bytes for the last link_ns of it: latency is pipelined,
 * bandwidth is not.
 */
static void xfer_time(struct xmemsim_file *xf, struct xmemsim_xfer *x)
{
	const struct xmemsim_dma *dma = xf->dev->dma;
	const struct xms_access *a = &x->acc;
	u32 sk = kind_of((a->srec ?: a->drec)->heap);
	u32 dk = kind_of((a->drec ?: a->srec)->heap);
	u64 bw = dma->bw[sk][dk], lat = dma->latency_ns;

	if (a->smap || a->dmap)
		xmemsim_map_route(xf, a->smap ?: a->dmap, a->dmap, &x->route);
	if (x->route.n) {
		lat += x->route.latency_ns;
		bw = min(bw, x->route.mbps * 1000000);
	}
	x->dur = xmemsim_dma_duration(lat, bw, x->d.len);
	x->link_ns = x->dur - min(lat, x->dur);
}

/* Check one descriptor and pin its ranges: 0 or -errno, nothing pinned. */
static int xfer_prepare(struct xmemsim_file *xf, struct xmemsim_xfer *x)
{
	const struct xmemsim_dma *dma = xf->dev->dma;
	const struct xmemsim_dma_desc *d = &x->d;
	u64 send, dend;
	int ret;

	if (d->engine >= dma->engines || d->queue >= dma->queues ||
	    (d->wait_sem != XMEMSIM_SEM_NONE && d->wait_sem >= dma->sems) ||
	    (d->signal_sem != XMEMSIM_SEM_NONE && d->signal_sem >= dma->sems) ||
	    !d->len ||
	    xmemsim_dma_reduce_check(d) ||
	    check_add_overflow(d->src, d->len, &send) ||
	    check_add_overflow(d->dst, d->len, &dend) ||
	    (d->src < dend && d->dst < send))
		return -EINVAL;
	if (xmemsim_in_aperture(d->src) && xmemsim_in_aperture(d->dst))
		return -EINVAL;	/* one end is the device's own memory */
	x->acc = (struct xms_access){
		.xf = xf, .src = d->src, .dst = d->dst, .len = d->len,
		.flags = XMS_ACCESS_READ | XMS_ACCESS_WRITE | XMS_ACCESS_HOLD |
			 XMS_ACCESS_APERTURE,
	};
	ret = xms_access_begin(&x->acc);
	if (ret)
		return ret;
	xfer_time(xf, x);
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
		XMEMSIM_FAULT_DMA_STALL,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++)
		if (xmemsim_fault(xf, sites[i]))
			return sites[i];
	return -1;
}

/*
 * Give count new transfers their tickets in the index and queue them, at
 * the file's now: all or none. du->lock held. 0, -EAGAIN (depth), -EBUSY
 * (the checker refuses) or -ENOMEM.
 */
static int dma_queue_batch(struct xmemsim_file *xf, struct xmemsim_dma_file *df,
			   struct xmemsim_xfer **x, u32 count)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	u64 now;
	u32 i;
	int ret = 0;

	lockdep_assert_held(&df->du->lock);
	if (df->inflight + count > dma->depth ||
	    (dma->user_depth && df->du->inflight + count > dma->user_depth))
		return -EAGAIN;
	ret = xmemsim_dma_check_batch(dma, df, x, count);
	if (ret)
		return ret;
	for (i = 0; i < count && !ret; i++) {
		x[i]->ticket = df->next_ticket + i;
		ret = xa_insert(&df->xfers, x[i]->ticket, x[i], GFP_KERNEL_ACCOUNT);
	}
	if (ret) {		/* nothing queued: take the index back */
		while (--i > 0)
			xa_erase(&df->xfers, x[i - 1]->ticket);
		return ret;
	}
	now = df_now(dma, df);
	df->next_ticket += count;
	df->inflight += count;
	df->du->inflight += count;
	for (i = 0; i < count; i++) {
		x[i]->fault = xfer_fault(xf);
		x[i]->submit_ns = now;
		xmemsim_dma_enqueue(df->du, x[i]);
		trace_xmemsim_dma_submit(xf->pid, x[i]->ticket, x[i]->d.engine,
					 x[i]->d.queue, x[i]->d.len, now);
	}
	xmemsim_dma_drain(df);	/* a file in error: what reached a doomed head */
	return 0;
}

/**
 * xmemsim_dma_submit() - DMA_SUBMIT: queue count transfers, all or none
 * @xf: the caller
 * @s: the command, copied in
 *
 * Returns once the transfers are queued, through ioctl() and io_uring
 * alike; each one's end is learnt from DMA_WAIT, DMA_REAP or poll().
 *
 * Return: 0 (s->ticket set), -EINVAL (a bad descriptor: engine, queue or
 * semaphore out of range, len 0, a range that wraps, overlapping ranges,
 * reserved bits), -EACCES (a range the caller does not own), -E2BIG (more
 * than file_dma_depth), -EAGAIN (the file's depth is full: reap first),
 * -EBUSY (dma_check=2 refuses a race), -EFAULT or -ENOMEM.
 */
int xmemsim_dma_submit(struct xmemsim_file *xf, struct xmemsim_dma_submit *s)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_desc *ud;
	struct xmemsim_xfer **x;
	struct xmemsim_dma_file *df;
	u32 n = 0;
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
	if (!ud || !x) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(ud, u64_to_user_ptr(s->descs),
			   array_size(s->count, sizeof(*ud)))) {
		ret = -EFAULT;
		goto out;
	}
	for (n = 0; n < s->count; n++) {
		x[n] = xfer_new(df);
		if (!x[n]) {
			ret = -ENOMEM;
			break;
		}
		x[n]->d = ud[n];
		ret = xfer_prepare(xf, x[n]);
		if (ret) {
			kfree(x[n]);
			break;
		}
	}
	if (!ret) {
		mutex_lock(&df->du->lock);
		ret = dma_queue_batch(xf, df, x, s->count);
		if (!ret)
			s->ticket = x[0]->ticket;
		mutex_unlock(&df->du->lock);
	}
	if (!ret) {
		xmemsim_dma_caller(df->du);
		xmemsim_dma_run_inline(df->du, df, 2 * min_t(u32, s->count, 64) + 2);
		goto out;
	}
	while (n--)
		xfer_free(xf->dev, x[n]);
out:
	kvfree(x);
	kvfree(ud);
	return ret;
}

/* COPY's wait condition: its transfer is done. */
static bool copy_done(const void *arg)
{
	const struct xmemsim_xfer *x = arg;

	/* acquire: pairs with xfer_finish()'s release of done */
	return smp_load_acquire(&x->done);
}

/*
 * A COPY's task is killed: its transfer is dropped unless done, once its
 * bytes (or poison) are not moving. -EINTR, or 0 if it is done.
 */
static int copy_cancel(struct xmemsim_dma_user *du, struct xmemsim_xfer *x)
{
	int ret = 0;

	mutex_lock(&du->lock);
	while (x->moving) {	/* bytes moving or poison filling: short */
		mutex_unlock(&du->lock);
		wait_event(du->wq, !READ_ONCE(x->moving));
		mutex_lock(&du->lock);
	}
	if (!x->done) {
		if (du->eng[0].cur == x)
			du->eng[0].cur = NULL;
		xmemsim_dma_dequeue(x);
		ret = -EINTR;
	}
	mutex_unlock(&du->lock);
	xmemsim_dma_kick(du);		/* the engine may be free */
	return ret;
}

/**
 * xmemsim_dma_copy() - COPY's DMA method through an engine
 * @xf: the caller, holding pins on both ranges
 * @src: the source's device address
 * @dst: the destination's
 * @len: bytes, > 0, ranges not overlapping
 * @bounce: the caller's bounce buffer, XMEMSIM_BOUNCE_SIZE bytes
 *
 * One transfer on engine 0, in the file's COPY queue: it takes its turn
 * with the user's other transfers on that engine and lasts the modeled
 * time of any transfer; its bytes move at completion, through the bounce
 * buffer in 4 KiB steps as the seed's DMA copy does, on the caller's own
 * time (it takes its user's steps while it waits). The caller waits for
 * it, and so observes its end.
 *
 * Return: 0, -EIO (a memory error in the source, or an injected COPY_DMA
 * fault: the first half moved), -EINTR (a fatal signal: the transfer is
 * dropped and no byte has moved), -EACCES or -ENOMEM.
 */
int xmemsim_dma_copy(struct xmemsim_file *xf, u64 src, u64 dst, u64 len,
		     u8 *bounce)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = dma_file(xf);
	long left = MAX_SCHEDULE_TIMEOUT;
	struct xmemsim_dma_user *du;
	struct xmemsim_xfer *x;
	int ret;

	if (!df)
		return -ENOMEM;
	if (xmemsim_in_aperture(src) || xmemsim_in_aperture(dst))
		return -EACCES;	/* COPY knows nothing of the aperture */
	du = df->du;
	x = xfer_new(df);
	if (!x)
		return -ENOMEM;
	x->d = (struct xmemsim_dma_desc){
		.src = src, .dst = dst, .len = len,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
	};
	x->bounce = bounce;
	x->ticket = XMEMSIM_COPY_TICKET;
	if (xmemsim_fault(xf, XMEMSIM_FAULT_COPY_DMA))
		x->fault = XMEMSIM_FAULT_COPY_DMA;
	else if (xmemsim_fault(xf, XMEMSIM_FAULT_DMA_STALL))
		x->fault = XMEMSIM_FAULT_DMA_STALL;
	ret = xfer_prepare(xf, x);
	if (ret) {
		kfree(x);
		return ret;
	}
	x->d.queue = dma->queues;	/* the COPY queue */
	mutex_lock(&du->lock);
	x->submit_ns = df_now(dma, df);
	xmemsim_dma_enqueue(du, x);
	trace_xmemsim_dma_submit(xf->pid, x->ticket, 0, x->d.queue, len,
				 x->submit_ns);
	WRITE_ONCE(du->due, true);	/* for this task's wait to take */
	mutex_unlock(&du->lock);
	if (xmemsim_dma_sleep(du, copy_done, x, &left, XMEMSIM_SLEEP_KILLABLE))
		ret = copy_cancel(du, x);
	if (!ret) {
		ret = x->status;
		mutex_lock(&du->lock);
		df->now = max(df->now, x->end_ns);
		mutex_unlock(&du->lock);
	}
	xfer_free(xf->dev, x);
	return ret;
}

/* DMA_WAIT's wait: the file and the ticket. */
struct wait_arg {
	struct xmemsim_dma_file *df;
	u64 ticket;
};

/* A wait condition: no sleeping lock (the task is not running). */
static bool xfer_done(struct xmemsim_dma_file *df, u64 ticket)
{
	struct xmemsim_xfer *x;
	bool done;

	rcu_read_lock();
	x = xa_load(&df->xfers, ticket);
	/* gone: another waiter reaped it; claimed: a reaper may give it back */
	/* pairs with xfer_finish()'s release: its status and times are set */
	done = !x || (smp_load_acquire(&x->done) && !READ_ONCE(x->claimed));
	rcu_read_unlock();
	return done;
}

static bool wait_done(const void *arg)
{
	const struct wait_arg *w = arg;

	return xfer_done(w->df, w->ticket);
}

/* Reap done transfer x: observed, out of the index. du->lock held. */
static void xfer_reap(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&x->df->du->lock);
	xmemsim_dma_observe(dma, x);
	xfer_unlink(x->df, x);
}

/**
 * xmemsim_dma_wait() - DMA_WAIT: wait for a transfer and reap it
 * @xf: the caller
 * @w: the command, copied in
 * @nowait: an io_uring inline issue: -EAGAIN rather than sleep
 *
 * Return: 0 (the times, tag and status written), -ENOENT (no such ticket,
 * or already reaped), -ETIMEDOUT, -ERESTARTSYS, -EINVAL, -EAGAIN.
 */
int xmemsim_dma_wait(struct xmemsim_file *xf, struct xmemsim_dma_wait *w,
		     bool nowait)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	long left = xmemsim_dma_jiffies(w->timeout_ns);
	struct wait_arg arg = { .df = df, .ticket = w->ticket };
	struct xmemsim_xfer *x;
	int ret;

	if (w->reserved0 || !mem_is_zero(w->reserved, sizeof(w->reserved)))
		return -EINVAL;
	if (!df)
		return -ENOENT;
	if (nowait && !xfer_done(df, w->ticket))
		return -EAGAIN;
	ret = xmemsim_dma_sleep(df->du, wait_done, &arg, &left,
				XMEMSIM_SLEEP_INTERRUPTIBLE);
	if (ret)
		return ret;
	mutex_lock(&df->du->lock);
	x = xa_load(&df->xfers, w->ticket);
	if (x && x->done && !x->claimed) {
		xfer_reap(dma, x);
		df_reaped(df, 1);
		df->ready--;
	} else {
		x = NULL;
	}
	mutex_unlock(&df->du->lock);
	if (!x)
		return -ENOENT;
	wake_up_all(&df->du->wq);	/* room for a poller's POLLOUT */
	w->start_ns = x->start_ns;
	w->end_ns = x->end_ns;
	w->tag = x->d.tag;
	w->status = x->status;
	kfree_rcu(x, rcu);
	return 0;
}

static bool reap_ready(const void *arg)
{
	const struct xmemsim_dma_file *df = arg;

	return READ_ONCE(df->ready);
}

/*
 * Claim up to cap completed transfers of df that no other reaper owns, in
 * ticket order. du->lock held.
 */
static u32 reap_claim(struct xmemsim_dma_file *df, struct xmemsim_xfer **xs,
		      u32 cap)
{
	struct xmemsim_xfer *x;
	unsigned long ticket;
	u32 n = 0;

	xa_for_each(&df->xfers, ticket, x) {
		if (!x->done || x->claimed)
			continue;
		WRITE_ONCE(x->claimed, true);
		df->ready--;
		xs[n++] = x;
		if (n == cap)
			break;
	}
	return n;
}

/*
 * Claim what is completed, waiting as r says (nowait: not at all): n
 * claimed, or an error.
 */
static int reap_gather(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
		       struct xmemsim_dma_reap *r, struct xmemsim_xfer **xs,
		       u32 *n, bool nowait)
{
	long left = xmemsim_dma_jiffies(r->timeout_ns);
	int ret = 0;

	for (;;) {
		mutex_lock(&df->du->lock);
		*n = reap_claim(df, xs, r->capacity);
		if (!*n && !df->inflight)
			ret = -ENOENT;
		mutex_unlock(&df->du->lock);
		if (*n || ret)
			return ret;
		if (!r->timeout_ns || nowait)
			return -EAGAIN;
		ret = xmemsim_dma_sleep(df->du, reap_ready, df, &left,
					XMEMSIM_SLEEP_INTERRUPTIBLE);
		if (ret)
			return ret;
	}
}

/**
 * xmemsim_dma_reap() - DMA_REAP: reap the file's completed transfers
 * @xf: the caller
 * @r: the command, copied in
 * @nowait: an io_uring inline issue: -EAGAIN rather than sleep
 *
 * The records are copied out while their transfers are claimed (DMA_WAIT
 * and other reapers pass them by), and reaped only once the copy worked:
 * a buffer that faults gives -EFAULT and loses nothing.
 *
 * Return: 0 (r->count records written), -EAGAIN (timeout 0 or @nowait,
 * none completed), -ETIMEDOUT, -ERESTARTSYS, -ENOENT (nothing in flight),
 * -EINVAL, -EFAULT or -ENOMEM.
 */
int xmemsim_dma_reap(struct xmemsim_file *xf, struct xmemsim_dma_reap *r,
		     bool nowait)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	struct xmemsim_dma_completion *rec = NULL;
	struct xmemsim_xfer **xs = NULL;
	u32 i, n = 0;
	int ret;

	if (r->flags || r->reserved0 || !mem_is_zero(r->reserved, sizeof(r->reserved)) ||
	    !r->capacity || r->capacity > dma->depth)
		return -EINVAL;
	if (!df)
		return -ENOENT;
	xs = kvmalloc_array(r->capacity, sizeof(*xs), GFP_KERNEL_ACCOUNT);
	rec = kvcalloc(r->capacity, sizeof(*rec), GFP_KERNEL_ACCOUNT);
	ret = xs && rec ? reap_gather(dma, df, r, xs, &n, nowait) : -ENOMEM;
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
	mutex_lock(&df->du->lock);
	for (i = 0; i < n; i++) {
		if (ret) {		/* given back, for the next reap */
			WRITE_ONCE(xs[i]->claimed, false);
			df->ready++;
		} else {
			xfer_reap(dma, xs[i]);
		}
	}
	if (!ret)
		df_reaped(df, n);
	mutex_unlock(&df->du->lock);
	wake_up_all(&df->du->wq);	/* DMA_WAITs passed them by; room */
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
 * reaped (DMA_WAIT, DMA_REAP), EPOLLOUT | EPOLLWRNORM while the file holds
 * fewer than file_dma_depth transfers, EPOLLERR if the file's DMA state
 * cannot be allocated.
 */
__poll_t xmemsim_dma_poll(struct xmemsim_file *xf, struct file *file,
			  struct poll_table_struct *pt)
{
	struct xmemsim_dma_file *df = dma_file(xf);
	__poll_t mask = 0;

	if (!df)
		return EPOLLERR;
	poll_wait(file, &df->du->wq, pt);
	if (READ_ONCE(df->ready))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(df->inflight) < xf->dev->dma->depth)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* Has df left the error state? du->lock held. */
static void df_error_check(struct xmemsim_dma *dma, struct xmemsim_dma_file *df)
{
	u32 i;

	lockdep_assert_held(&df->du->lock);
	if (!df->errors || !xmemsim_sems_whole(&df->sems))
		return;
	for (i = 0; i < dma->engines * xmemsim_dma_nq(dma); i++)
		if (df->q[i].err)
			return;
	df->errors = false;
}

/* SEM_WAIT's wait: the file's semaphores, which one, for what value. */
struct sem_arg {
	const struct xmemsim_dma_sems *sems;
	u32 sem;
	u64 value;
};

static bool sem_settled(const void *arg)
{
	const struct sem_arg *a = arg;

	return xmemsim_sem_settled(a->sems, a->sem, a->value);
}

/*
 * SEM_WAIT's sleep, du->lock not held: 0 (the value has come), -EPIPE
 * (broken: its signal will not come), -EAGAIN (nowait), -ETIMEDOUT or
 * -ERESTARTSYS.
 */
static int sem_wait(struct xmemsim_dma_file *df, const struct xmemsim_sem *s,
		    bool nowait)
{
	struct sem_arg a = { .sems = &df->sems, .sem = s->sem, .value = s->value };
	long left = xmemsim_dma_jiffies(s->timeout_ns);
	int ret;

	if (nowait && !sem_settled(&a))
		return -EAGAIN;
	ret = xmemsim_dma_sleep(df->du, sem_settled, &a, &left,
				XMEMSIM_SLEEP_INTERRUPTIBLE);
	if (!ret && READ_ONCE(df->sems.val[s->sem]) < s->value)
		ret = -EPIPE;
	return ret;
}

/**
 * xmemsim_sem_cmd() - SEM_SET, SEM_GET and SEM_WAIT on the caller's semaphores
 * @xf: the caller
 * @cmd: XMEMSIM_IOC_SEM_*
 * @s: the command, copied in
 * @nowait: SEM_WAIT from an io_uring inline issue: -EAGAIN rather than sleep
 *
 * SEM_SET also mends a broken semaphore; SEM_WAIT on a broken one whose
 * value has not come ends at once. A value read or waited for is
 * observed: the file's now reaches the modeled time it arrived.
 *
 * Return: 0, -EINVAL (no such semaphore, flags, reserved), -EPIPE
 * (SEM_WAIT: broken), -ETIMEDOUT, -ERESTARTSYS, -ENOMEM.
 */
int xmemsim_sem_cmd(struct xmemsim_file *xf, unsigned int cmd,
		    struct xmemsim_sem *s, bool nowait)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df;
	int ret = 0;

	if (s->sem >= dma->sems || s->flags ||
	    !mem_is_zero(s->reserved, sizeof(s->reserved)))
		return -EINVAL;
	df = dma_file(xf);
	if (!df)
		return -ENOMEM;
	if (cmd == XMEMSIM_IOC_SEM_WAIT) {
		ret = sem_wait(df, s, nowait);
		if (ret == -EAGAIN)
			return ret;
	}
	mutex_lock(&df->du->lock);
	if (cmd == XMEMSIM_IOC_SEM_SET) {
		xmemsim_sem_set(&df->sems, s->sem, s->value, df_now(dma, df));
		df_error_check(dma, df);
	} else if (cmd == XMEMSIM_IOC_SEM_GET) {
		s->value = xmemsim_sem_value(&df->sems, s->sem);
		xmemsim_dma_observe_sem(dma, df, s->sem, s->value);
	} else if (!ret) {
		xmemsim_dma_observe_sem(dma, df, s->sem, s->value);
	}
	s->now_ns = df_now(dma, df);
	mutex_unlock(&df->du->lock);
	if (cmd == XMEMSIM_IOC_SEM_SET) {
		xmemsim_dma_caller(df->du);
		xmemsim_dma_kick(df->du);	/* a queue may wait on it */
		wake_up_all(&df->du->wq);
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
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_queue *q;
	struct xmemsim_dma_file *df;

	if (r->engine >= dma->engines || r->queue >= dma->queues || r->flags ||
	    !mem_is_zero(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	df = dma_file(xf);
	if (!df)
		return -ENOMEM;
	q = xmemsim_dma_q(df, dma, r->engine, r->queue);
	mutex_lock(&df->du->lock);
	r->status = q->err;
	q->err = 0;
	df_error_check(dma, df);
	mutex_unlock(&df->du->lock);
	xmemsim_dma_caller(df->du);
	xmemsim_dma_kick(df->du);	/* what waits behind it runs again */
	return 0;
}

/*
 * The transfers user u has queued, running or unreaped, over its files;
 * *limit: user_dma_depth.
 */
u32 xmemsim_dma_user_inflight(struct xmemsim_dev *d, const struct xmemsim_user *u,
			      u32 *limit)
{
	struct xmemsim_dma *dma = d->dma;
	struct xmemsim_dma_user *du;
	u32 n = 0;

	*limit = dma->user_depth;

	mutex_lock(&dma->lock);
	list_for_each_entry(du, &dma->users, node) {
		if (du->user == u) {
			n = READ_ONCE(du->inflight);
			break;
		}
	}
	mutex_unlock(&dma->lock);
	return n;
}

/*
 * DMA_INFO: the model's shape, and the caller's modeled now. Like the DMA
 * and semaphore commands it starts the file's clock, so that the now it
 * gives is the base the file's transfers will be measured from. 0 or
 * -ENOMEM.
 */
int xmemsim_dma_info(struct xmemsim_file *xf, struct xmemsim_dma_info *in)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = dma_file(xf);
	u32 i, j;

	if (!df)
		return -ENOMEM;
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
	mutex_lock(&df->du->lock);
	in->now_ns = df_now(dma, df);
	mutex_unlock(&df->du->lock);
	return 0;
}

/*
 * Take df's transfers off its user's engines, and its queues off their
 * active lists. A transfer whose bytes are moving is waited for. Returns
 * with du->lock held.
 */
static void df_detach(struct xmemsim_dma *dma, struct xmemsim_dma_file *df)
{
	struct xmemsim_dma_user *du = df->du;
	u32 e, i;

again:
	mutex_lock(&du->lock);
	for (e = 0; e < dma->engines; e++) {
		struct xmemsim_xfer *x = du->eng[e].cur;

		if (!x || x->df != df)
			continue;
		if (x->moving) {
			mutex_unlock(&du->lock);
			wait_event(du->wq, !READ_ONCE(x->moving));
			goto again;
		}
		du->eng[e].cur = NULL;
	}
	for (i = 0; i < dma->engines * xmemsim_dma_nq(dma); i++)
		list_del_init(&df->q[i].node);
}

/**
 * xmemsim_dma_release() - a closing file's transfers: cancel and free
 * @xf: the file, with no command of it running any more
 *
 * Queued transfers are dropped, a running one is stopped (its bytes do not
 * move), unreaped ones are freed; every pin goes. The user goes with its
 * last file.
 */
void xmemsim_dma_release(struct xmemsim_file *xf)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = xf->dma;
	struct xmemsim_dma_user *du;
	struct xmemsim_xfer *x;
	unsigned long ticket;

	if (!df)
		return;
	du = df->du;
	df_detach(dma, df);
	df_reaped(df, df->inflight);
	xa_for_each(&df->xfers, ticket, x)
		xfer_free(xf->dev, x);
	mutex_unlock(&du->lock);
	mutex_lock(&dma->lock);
	list_del(&df->node);
	if (--du->files) {
		xmemsim_dma_kick(du);	/* its engines may be free now */
		du = NULL;		/* its other files' */
	} else {
		list_del(&du->node);
	}
	mutex_unlock(&dma->lock);
	xa_destroy(&df->xfers);
	df_free(df);
	xf->dma = NULL;
	du_free(du);
}

/*
 * Over the users: what they have queued on engine e (all of them with
 * e == engines), whether one runs there, and the latest modeled end one
 * has reached. dma->lock held.
 */
static u64 engine_users(struct xmemsim_dma *dma, u32 e, bool *running,
			u64 *horizon)
{
	struct xmemsim_dma_queue *q;
	struct xmemsim_dma_user *du;
	struct xmemsim_xfer *x;
	u64 queued = 0;
	u32 i;

	lockdep_assert_held(&dma->lock);
	list_for_each_entry(du, &dma->users, node) {
		mutex_lock(&du->lock);
		for (i = 0; i < dma->engines; i++) {
			*horizon = max(*horizon, du->eng[i].free_ns);
			if (i != e)
				continue;
			list_for_each_entry(q, &du->eng[i].active, node)
				list_for_each_entry(x, &q->xfers, node)
					queued++;
			*running |= !!du->eng[i].cur;
		}
		mutex_unlock(&du->lock);
	}
	return queued;
}

/*
 * debugfs and sysfs "dma": the latest modeled end any user's engine has
 * reached, then per engine what the users have queued on it, whether one
 * runs there, and its totals: transfers, bytes, busy modeled time (summed
 * over the users' timelines) and the bandwidth achieved over it.
 */
void xmemsim_dma_show(struct xmemsim_dev *d, struct seq_file *m)
{
	struct xmemsim_dma *dma = d->dma;
	bool running = false;
	u64 horizon = 0, queued;
	u32 e;

	mutex_lock(&dma->lock);
	engine_users(dma, dma->engines, &running, &horizon);
	seq_printf(m, "now_ns %llu time_scale %llu check %u\n", horizon,
		   dma->time_scale, dma->check);
	for (e = 0; e < dma->engines; e++) {
		const struct xmemsim_dma_stats *st = &dma->stats[e];
		u64 bytes = atomic64_read(&st->bytes);
		u64 busy = atomic64_read(&st->busy_ns);

		running = false;
		queued = engine_users(dma, e, &running, &horizon);
		seq_printf(m, "engine %u %s queued %llu completed %llu bytes %llu busy_ns %llu bw_mbps %llu\n",
			   e, running ? "running" : "idle", queued,
			   (u64)atomic64_read(&st->completed), bytes, busy,
			   busy ? div64_u64(bytes * 1000, busy) : 0);
	}
	mutex_unlock(&dma->lock);
}

/**
 * xmemsim_dma_init() - the device's DMA, from the module parameters
 * @d: the device, at load
 * @p: the parameters
 *
 * Return: 0 (d->dma set), -EINVAL (a parameter out of range) or -ENOMEM.
 */
int xmemsim_dma_init(struct xmemsim_dev *d, const struct xmemsim_dma_params *p)
{
	struct xmemsim_dma *dma;
	u32 i, j;
	int ret;

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
	dma = kzalloc(sizeof(*dma), GFP_KERNEL);
	if (!dma)
		return -ENOMEM;
	dma->engines = p->engines_per_core * d->geo.cores;
	dma->queues = p->queues;
	dma->sems = p->sems;
	dma->depth = p->depth;
	dma->user_depth = p->user_depth;
	dma->latency_ns = p->latency_ns;
	memcpy(dma->bw, p->bw, sizeof(dma->bw));
	dma->time_scale = p->time_scale;
	dma->check = p->check;
	ret = xmemsim_dma_sched_init(dma, true);
	if (ret) {
		kfree(dma);
		return ret;
	}
	d->dma = dma;
	return 0;
}

/* At unload: every file is closed, so nothing is queued or running. */
void xmemsim_dma_fini(struct xmemsim_dev *d)
{
	struct xmemsim_dma *dma = d->dma;

	WARN_ON_ONCE(!list_empty(&dma->files) || !list_empty(&dma->users));
	xmemsim_dma_sched_fini(dma);
	kfree(dma);
	d->dma = NULL;
}
