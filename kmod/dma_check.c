// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: the hazard checker (dma_check=1 reports, 2 also
 * refuses with -EBUSY). It reasons in happens-before, not in time.
 *
 * What a process has observed: a transfer it reaped (DMA_WAIT, DMA_REAP),
 * the transfers before it on its queue, and the signallers of a semaphore
 * value it read or waited for (SEM_GET, SEM_WAIT), or that a transfer it
 * observed waited for. A transfer it has not observed is "in flight" for
 * the checker, done or not:
 * - a host access (pread/pwrite and io_uring's READ/WRITE, COPY, MEMSET,
 *   HEAP_FREE) to bytes such a transfer writes, or that writes bytes it
 *   reads, is a hazard, on any clock and however long ago it ended;
 * - a submitted transfer that touches bytes such a transfer on another
 *   queue writes (or writes bytes it reads) is a hazard unless it is
 *   ordered after it: it waits on a semaphore that the other's queue
 *   signals, at or after the other, or on one whose signaller is ordered
 *   after the other in the same way, through any chain of semaphores.
 * The checker cannot see mappings (their pages are entered at mmap()
 * time) nor the order a program keeps by other means (a pipe, a thread
 * join): those it reports, or misses, as the rules above say.
 */
#include <linux/bitmap.h>
#include <linux/printk.h>
#include <linux/sysfs.h>

#include "dma_internal.h"

/* Has the process observed x's completion? */
static bool xfer_seen(const struct xmemsim_xfer *x)
{
	return x->done && (x->seen || x->seq <= x->q->seen);
}

static void observe_one(struct xmemsim_dma_file *df, struct xmemsim_xfer *x)
{
	x->seen = true;
	x->q->seen = max(x->q->seen, x->seq);
	df->now = max(df->now, x->end_ns);
}

/**
 * xmemsim_dma_observe_sem() - the process saw a semaphore's value
 * @dma: the device's DMA
 * @df: the file
 * @sem: its semaphore
 * @value: the value seen (or waited for)
 *
 * The signallers that took the semaphore to @value are observed, and so
 * is the modeled time the value arrived. du->lock held.
 */
void xmemsim_dma_observe_sem(struct xmemsim_dma *dma,
			     struct xmemsim_dma_file *df, u32 sem, u64 value)
{
	struct xmemsim_xfer *x;

	lockdep_assert_held(&df->du->lock);
	xmemsim_sem_for_each_signaller(x, &df->sems, sem)
		if (x->sem_after <= value)
			observe_one(df, x);
	df->now = max(df->now, xmemsim_sem_arrival(&df->sems, sem, value));
}

/**
 * xmemsim_dma_observe() - the process saw transfer x complete
 * @dma: the device's DMA
 * @x: a done transfer, about to be reaped
 *
 * x, what came before it on its queue, and the signallers its wait
 * needed are observed; the file's now reaches x's end. du->lock held.
 */
void xmemsim_dma_observe(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&x->df->du->lock);
	observe_one(x->df, x);
	if (x->d.wait_sem != XMEMSIM_SEM_NONE && !x->status)
		xmemsim_dma_observe_sem(dma, x->df, x->d.wait_sem, x->d.wait_value);
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

static void hazard(struct xmemsim_dma *dma, enum xmemsim_dma_hazard kind)
{
	atomic64_inc(&dma->hazards[kind]);
}

/* Is the checker on (dma_check=1 or 2)? */
bool xmemsim_dma_checks(const struct xmemsim_dev *d)
{
	return d->dma->check != XMEMSIM_CHECK_OFF;
}

/* sysfs dma_check_reports: the hazards counted, by kind */
int xmemsim_dma_check_show(struct xmemsim_dev *d, char *buf)
{
	atomic64_t *h = d->dma->hazards;

	return sysfs_emit(buf, "host %lld free %lld race %lld\n",
			  (long long)atomic64_read(&h[XMEMSIM_HAZARD_HOST]),
			  (long long)atomic64_read(&h[XMEMSIM_HAZARD_FREE]),
			  (long long)atomic64_read(&h[XMEMSIM_HAZARD_RACE]));
}

/**
 * xmemsim_dma_check_host() - the hazard checker on a host access
 * @xf: the file making it
 * @addr: its first byte
 * @len: its bytes
 * @write: it changes them
 * @kind: XMEMSIM_HAZARD_HOST, or _FREE for a free
 * @what: its name, for the report
 * @nowait: the caller cannot sleep on its user's lock (io_uring inline):
 *	the check is skipped if the lock is busy
 *
 * Return: 0, or -EBUSY when dma_check=2 and a transfer of @xf that the
 * process has not observed complete writes bytes the access touches, or
 * reads bytes it writes.
 */
int xmemsim_dma_check_host(struct xmemsim_file *xf, u64 addr, u64 len,
			   bool write, enum xmemsim_dma_hazard kind,
			   const char *what, bool nowait)
{
	struct xmemsim_dma *dma = xf->dev->dma;
	struct xmemsim_dma_file *df = READ_ONCE(xf->dma);
	struct xmemsim_xfer *x, *hit = NULL;
	struct xmemsim_dma_desc d;
	unsigned long ticket;
	bool done = false;

	if (!dma->check || !df || !len)
		return 0;
	if (!nowait)
		mutex_lock(&df->du->lock);
	else if (!mutex_trylock(&df->du->lock))
		return 0;
	xa_for_each(&df->xfers, ticket, x) {
		if (!xfer_seen(x) && xfer_meets(x, addr, len, write)) {
			hit = x;
			d = x->d;
			done = x->done;
			break;
		}
	}
	mutex_unlock(&df->du->lock);
	if (!hit)
		return 0;
	hazard(dma, kind);
	pr_warn_ratelimited("xmemsim: pid %d: %s [%#llx, +%llu) while DMA ticket %llu [%#llx -> %#llx, +%llu) tag %llu is %s\n",
			    xf->pid, what, addr, len, (u64)ticket, d.src, d.dst,
			    d.len, d.tag,
			    done ? "done but not observed (no wait, reap or semaphore)" :
				   "in flight");
	return dma->check == XMEMSIM_CHECK_REFUSE ? -EBUSY : 0;
}

/* Do x and y touch common bytes, one of them writing? */
static bool xfers_meet(const struct xmemsim_xfer *x, const struct xmemsim_xfer *y)
{
	return xfer_meets(y, x->d.dst, x->d.len, true) ||
	       xfer_meets(y, x->d.src, x->d.len, false);
}

static bool same_queue(const struct xmemsim_dma_desc *a,
		       const struct xmemsim_dma_desc *b)
{
	return a->engine == b->engine && a->queue == b->queue;
}

/*
 * What orders a new transfer after the transfers of other queues: for its
 * wait semaphore, per queue (df->q's index), the last seq of an
 * unobserved transfer there that signals it (sig), and the last batch
 * index of one in the batch (bat, -1 none). One pass over the file's
 * transfers and the batch makes it, for each new transfer that has a wait
 * semaphore and meets another queue's transfer: the check is linear in
 * the transfers per new transfer, where it was quadratic.
 */
struct check_order {
	u64 *sig;
	s32 *bat;
	u32 nq;
	u32 sem;		/* what they hold, or XMEMSIM_SEM_NONE */
	/* chains (chained_after()) */
	u64 *pseq;		/* [batch index]: the seq it will have */
	u64 *reach;		/* [queue]: the last seq a new transfer follows */
	unsigned long *want;	/* semaphores whose signallers it follows */
	s64 chain_for;		/* the batch index reach[] is for, or -1 */
};

static u32 q_index(const struct xmemsim_dma *dma, const struct xmemsim_dma_desc *d)
{
	return d->engine * xmemsim_dma_nq(dma) + d->queue;
}

static void order_build(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			struct check_order *o, u32 sem,
			struct xmemsim_xfer **batch, u32 n)
{
	struct xmemsim_xfer *z;
	unsigned long t;
	u32 k, qi;

	if (o->sem == sem)
		return;
	o->sem = sem;
	memset(o->sig, 0, o->nq * sizeof(*o->sig));
	memset(o->bat, 0xff, o->nq * sizeof(*o->bat));
	xa_for_each(&df->xfers, t, z)
		if (z->d.signal_sem == sem && z->q)
			o->sig[z->q->index] = max(o->sig[z->q->index], z->seq);
	for (k = 0; k < n; k++) {
		if (batch[k]->d.signal_sem != sem)
			continue;
		qi = q_index(dma, &batch[k]->d);
		o->bat[qi] = max_t(s32, o->bat[qi], k);
	}
}

/*
 * Is new transfer batch[i] ordered after y, an unobserved transfer of the
 * file (y->q set) or batch[j] (y->q NULL), on another queue? Only if it
 * waits on a semaphore that y, or a transfer after y on y's queue,
 * signals. The batch comes after every queued transfer, in array order.
 */
static bool ordered_after(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			  struct check_order *o, struct xmemsim_xfer *y, u32 j,
			  struct xmemsim_xfer **batch, u32 n, u32 i)
{
	u32 s = batch[i]->d.wait_sem, qi = q_index(dma, &y->d);

	if (s == XMEMSIM_SEM_NONE)
		return false;
	order_build(dma, df, o, s, batch, n);
	if (y->q)
		return o->sig[qi] >= y->seq || o->bat[qi] >= 0;
	return o->bat[qi] >= (s32)j;
}

/*
 * Chains. A new transfer x is also ordered after y when something x is
 * ordered after is itself ordered after y: x waits on s (or an earlier
 * transfer of x's queue does); z, on queue Q, signals s; z, or a transfer
 * before it on Q, waits on s2; y's queue signals s2 at or after y. Each
 * queue runs its transfers one after the other, so whatever starts on Q
 * after a wait is satisfied ends after that wait's signallers.
 * chained_after() follows such chains backwards from x, one round at a
 * time: the waiters within reach[] (per queue, the last seq x follows;
 * at first x's own queue up to x) want their semaphores; the signallers
 * of the semaphores wanted raise reach[]; until nothing changes. A
 * round is one pass over the file's transfers and the batch; there are at
 * most as many rounds as semaphores. Signallers count as ordered_after()
 * counts them: any transfer of the file or the batch that signals.
 */
static void chain_one(struct check_order *o, u32 qi, u64 seq,
		      const struct xmemsim_dma_desc *d, bool *raised)
{
	if (d->signal_sem != XMEMSIM_SEM_NONE && test_bit(d->signal_sem, o->want) &&
	    seq > o->reach[qi]) {
		o->reach[qi] = seq;
		*raised = true;
	}
}

static void chain_want(struct check_order *o, u32 qi, u64 seq,
		       const struct xmemsim_dma_desc *d, bool *wanted)
{
	if (d->wait_sem != XMEMSIM_SEM_NONE && seq <= o->reach[qi] &&
	    !__test_and_set_bit(d->wait_sem, o->want))
		*wanted = true;
}

/*
 * One round: want what the transfers within reach wait on, then raise
 * reach[] from the wanted semaphores' signallers. Anything new?
 */
static bool chain_round(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			struct check_order *o, struct xmemsim_xfer **batch,
			u32 n)
{
	struct xmemsim_xfer *z;
	bool changed = false;
	unsigned long t;
	u32 k;

	xa_for_each(&df->xfers, t, z)
		if (z->q)
			chain_want(o, z->q->index, z->seq, &z->d, &changed);
	for (k = 0; k < n; k++)
		chain_want(o, q_index(dma, &batch[k]->d), o->pseq[k], &batch[k]->d,
			   &changed);
	xa_for_each(&df->xfers, t, z)
		if (z->q)
			chain_one(o, z->q->index, z->seq, &z->d, &changed);
	for (k = 0; k < n; k++)
		chain_one(o, q_index(dma, &batch[k]->d), o->pseq[k], &batch[k]->d,
			  &changed);
	return changed;
}

/*
 * Is batch[i] ordered after the transfer at seq yseq of queue yq, by a
 * chain? reach[] is built once for batch[i], whatever the y asked of it.
 */
static bool chained_after(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			  struct check_order *o, struct xmemsim_xfer **batch,
			  u32 n, u32 i, u32 yq, u64 yseq)
{
	u32 s = batch[i]->d.wait_sem;

	if (o->chain_for != i) {
		memset(o->reach, 0, o->nq * sizeof(*o->reach));
		bitmap_zero(o->want, dma->sems);
		if (s != XMEMSIM_SEM_NONE)
			__set_bit(s, o->want);
		/* its queue's earlier transfers, and what they waited for */
		o->reach[q_index(dma, &batch[i]->d)] = o->pseq[i] - 1;
		while (chain_round(dma, df, o, batch, n))
			;
		o->chain_for = i;
	}
	return o->reach[yq] >= yseq;
}

static void report_race(struct xmemsim_dma_file *df, u64 xt,
			const struct xmemsim_xfer *x, u64 yt,
			const struct xmemsim_xfer *y)
{
	pr_warn_ratelimited("xmemsim: pid %d: DMA ticket %llu tag %llu [%#llx -> %#llx, +%llu) on engine %u queue %u races ticket %llu tag %llu [%#llx -> %#llx, +%llu) on engine %u queue %u: no semaphore orders them\n",
			    df->pid, xt, x->d.tag, x->d.src, x->d.dst, x->d.len,
			    x->d.engine, x->d.queue, yt, y->d.tag, y->d.src,
			    y->d.dst, y->d.len, y->d.engine, y->d.queue);
}

/* The first transfer batch[i] races, and its ticket: NULL if none. */
static struct xmemsim_xfer *first_race(struct xmemsim_dma *dma,
				       struct xmemsim_dma_file *df,
				       struct check_order *o,
				       struct xmemsim_xfer **x, u32 n, u32 i,
				       u64 *yt)
{
	struct xmemsim_xfer *y;
	unsigned long t;
	u32 j;

	xa_for_each(&df->xfers, t, y) {
		if (xfer_seen(y) || same_queue(&y->d, &x[i]->d) ||
		    !xfers_meet(x[i], y) || ordered_after(dma, df, o, y, 0, x, n, i) ||
		    chained_after(dma, df, o, x, n, i, y->q->index, y->seq))
			continue;
		*yt = t;
		return y;
	}
	for (j = 0; j < i; j++) {
		y = x[j];
		if (same_queue(&y->d, &x[i]->d) || !xfers_meet(x[i], y) ||
		    ordered_after(dma, df, o, y, j, x, n, i) ||
		    chained_after(dma, df, o, x, n, i, q_index(dma, &y->d),
				  o->pseq[j]))
			continue;
		*yt = df->next_ticket + j;	/* the tickets to be */
		return y;
	}
	return NULL;
}

/**
 * xmemsim_dma_check_batch() - the hazard checker on a DMA_SUBMIT
 * @dma: the device's DMA
 * @df: the submitting file
 * @x: the new transfers, not queued yet
 * @n: how many
 *
 * Each new transfer against the file's unobserved transfers on other
 * queues and against the batch's earlier ones: per new transfer, a pass
 * over the file's transfers (at most file_dma_depth) and the batch. It
 * runs in the submitter's task under its user's lock alone, so no other
 * user waits for it. du->lock held.
 *
 * Return: 0, -EBUSY when dma_check=2 and one races, or -ENOMEM.
 */
int xmemsim_dma_check_batch(struct xmemsim_dma *dma,
			    struct xmemsim_dma_file *df,
			    struct xmemsim_xfer **x, u32 n)
{
	struct check_order o = { .sem = XMEMSIM_SEM_NONE };
	struct xmemsim_xfer *hit;
	u64 yt;
	u32 i;
	int ret = 0;

	lockdep_assert_held(&df->du->lock);
	if (!dma->check)
		return 0;
	o.nq = dma->engines * xmemsim_dma_nq(dma);
	o.sig = kvmalloc_array(o.nq, sizeof(*o.sig), GFP_KERNEL_ACCOUNT);
	o.bat = kvmalloc_array(o.nq, sizeof(*o.bat), GFP_KERNEL_ACCOUNT);
	o.reach = kvmalloc_array(o.nq, sizeof(*o.reach), GFP_KERNEL_ACCOUNT);
	o.pseq = kvmalloc_array(n, sizeof(*o.pseq), GFP_KERNEL_ACCOUNT);
	o.want = bitmap_alloc(dma->sems, GFP_KERNEL_ACCOUNT);
	if (!o.sig || !o.bat || !o.reach || !o.pseq || !o.want) {
		ret = -ENOMEM;
		goto out;
	}
	/* the seqs the batch will take: after each queue's, in array order */
	memset(o.reach, 0, o.nq * sizeof(*o.reach));
	o.chain_for = -1;
	for (i = 0; i < n; i++) {
		u32 qi = q_index(dma, &x[i]->d);

		o.pseq[i] = df->q[qi].seq + ++o.reach[qi];
	}
	for (i = 0; i < n; i++) {
		hit = first_race(dma, df, &o, x, n, i, &yt);
		if (!hit)
			continue;
		hazard(dma, XMEMSIM_HAZARD_RACE);
		report_race(df, df->next_ticket + i, x[i], yt, hit);
		if (dma->check == XMEMSIM_CHECK_REFUSE)
			ret = -EBUSY;
	}
out:
	kvfree(o.sig);
	kvfree(o.bat);
	kvfree(o.reach);
	kvfree(o.pseq);
	bitmap_free(o.want);
	return ret;
}
