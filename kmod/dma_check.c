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
 *   signals, at or after the other.
 * The checker cannot see mappings (their pages are entered at mmap()
 * time) nor the order a program keeps by other means (a pipe, a thread
 * join): those it reports, or misses, as the rules above say.
 */
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
 * is the modeled time the value arrived. dma->lock held.
 */
void xmemsim_dma_observe_sem(struct xmemsim_dma *dma,
			     struct xmemsim_dma_file *df, u32 sem, u64 value)
{
	struct xmemsim_xfer *x;

	lockdep_assert_held(&dma->lock);
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
 * needed are observed; the file's now reaches x's end. dma->lock held.
 */
void xmemsim_dma_observe(struct xmemsim_dma *dma, struct xmemsim_xfer *x)
{
	lockdep_assert_held(&dma->lock);
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
 * @nowait: the caller cannot sleep on dma->lock (io_uring inline): the
 *	check is skipped if the lock is busy
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
		mutex_lock(&dma->lock);
	else if (!mutex_trylock(&dma->lock))
		return 0;
	xa_for_each(&df->xfers, ticket, x) {
		if (!xfer_seen(x) && xfer_meets(x, addr, len, write)) {
			hit = x;
			d = x->d;
			done = x->done;
			break;
		}
	}
	mutex_unlock(&dma->lock);
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
 * Is new transfer batch[i] ordered after y, an unobserved transfer of the
 * file (y->q set) or batch[j] (y->q NULL)? Only if it waits on a semaphore
 * that y, or a transfer after y on y's queue, signals. The batch comes
 * after every queued transfer, in array order. dma->lock held.
 */
static bool ordered_after(struct xmemsim_dma_file *df, struct xmemsim_xfer *y,
			  u32 j, struct xmemsim_xfer **batch, u32 n, u32 i)
{
	u32 s = batch[i]->d.wait_sem, k;
	struct xmemsim_xfer *z;
	unsigned long t;

	if (s == XMEMSIM_SEM_NONE)
		return false;
	if (y->q) {
		xa_for_each(&df->xfers, t, z)
			if (z->q == y->q && z->seq >= y->seq && z->d.signal_sem == s)
				return true;
		j = 0;
	}
	for (k = j; k < n; k++) {
		z = batch[k];
		if (k != i && same_queue(&z->d, &y->d) && z->d.signal_sem == s)
			return true;
	}
	return false;
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

/**
 * xmemsim_dma_check_batch() - the hazard checker on a DMA_SUBMIT
 * @dma: the device's DMA
 * @df: the submitting file
 * @x: the new transfers, not queued yet
 * @n: how many
 *
 * Each new transfer against the file's unobserved transfers on other
 * queues and against the batch's earlier ones. dma->lock held.
 *
 * Return: 0, or -EBUSY when dma_check=2 and one races.
 */
int xmemsim_dma_check_batch(struct xmemsim_dma *dma,
			    struct xmemsim_dma_file *df,
			    struct xmemsim_xfer **x, u32 n)
{
	struct xmemsim_xfer *y, *hit;
	unsigned long t;
	u64 yt;
	u32 i, j;
	int ret = 0;

	lockdep_assert_held(&dma->lock);
	if (!dma->check)
		return 0;
	for (i = 0; i < n; i++) {
		hit = NULL;
		xa_for_each(&df->xfers, t, y) {
			if (xfer_seen(y) || same_queue(&y->d, &x[i]->d) ||
			    !xfers_meet(x[i], y) || ordered_after(df, y, 0, x, n, i))
				continue;
			hit = y;
			yt = t;
			break;
		}
		for (j = 0; !hit && j < i; j++) {
			y = x[j];
			if (same_queue(&y->d, &x[i]->d) || !xfers_meet(x[i], y) ||
			    ordered_after(df, y, j, x, n, i))
				continue;
			hit = y;
			yt = df->next_ticket + j;	/* the tickets to be */
		}
		if (!hit)
			continue;
		hazard(dma, XMEMSIM_HAZARD_RACE);
		report_race(df, df->next_ticket + i, x[i], yt, hit);
		if (dma->check == XMEMSIM_CHECK_REFUSE)
			ret = -EBUSY;
	}
	return ret;
}
