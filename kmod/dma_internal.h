/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued DMA: what its files share, and nobody else sees.
 *   dma.c        the commands: a file's DMA state, DMA_SUBMIT, DMA_WAIT,
 *                DMA_REAP, poll, SEM_*, DMA_RESET, DMA_INFO, COPY's
 *                transfer, release;
 *   dma_sched.c  the engines, the modeled clock and the scheduler;
 *   dma_check.c  the hazard checker, which reasons in happens-before;
 *   dma_sem.c    a file's semaphores: values, arrival times, signallers
 *                and what waits on them;
 *   dma_model.c  the scheduler without a device, for KUnit alone.
 * The arrows run one way: dma.c uses the other three, dma_sched.c and
 * dma_check.c use dma_sem.c, and dma_sem.c uses none of them; dma_model.c
 * uses dma.c, dma_sched.c and dma_sem.c.
 * The model as users see it is in uapi/xmemsim.h and xmemsim(4).
 *
 * The clock. There is no device-wide "now". Each engine is free from
 * free_ns, each queue from end_ns (its last transfer's end), and each file
 * has its own now: the latest modeled time it has observed (a reaped
 * completion, a semaphore value it read or waited for). A transfer is
 * submitted at its file's now and starts at the latest of: its submission,
 * its queue reaching it, its engine being free, its wait condition
 * arriving (ready_ns: the modeled time its semaphore reached the value),
 * its not_before_ns, and its links being free (below).
 * So modeled times follow from the descriptors and what the program has
 * observed, never from how fast the host ran between calls. With
 * time_scale = N a modeled ns lasts N wall ns: a transfer is submitted at
 * the modeled time of the wall clock and completes when the wall reaches
 * its end.
 *
 * Links. A transfer to or from the aperture (kmod/peer.c) crosses the
 * links of its route (kmod/topo.h) and holds each while its bytes move,
 * the last link_ns of its time (its latency before them holds no link): a
 * transfer whose bytes would meet a held link starts later, so that they
 * move once the link is free. Link clocks are per user and per device, like
 * engines. Across devices, whose clocks differ, a user's transfers book
 * the intervals their bytes hold each link in the user's book
 * (kmod/link_book.h), and a transfer's bytes go into the first gap that
 * no other device's booking covers.
 *
 * Users. Modeled time is per user: each user (the real uid that opened
 * a file) has engines of its own in modeled time, so its transfers start
 * and end as its programs alone decide, whatever other users queue, hang
 * or push, and its clocks show nothing of them. The engines' bytes and
 * CPU are shared in wall time: each user's steps are taken by one of its
 * own tasks waiting for DMA (DMA_WAIT, DMA_REAP, SEM_WAIT, COPY), so that
 * its copying is charged to it at its priority, or, while none waits, by
 * its own work item on an unbound workqueue, a bounded turn at a time.
 * Users never wait for each other's steps.
 *
 * The scheduler (dma_sched.c) is, per user, a discrete-event loop over one
 * step at a time: an idle engine may start its next transfer at P, the
 * earliest time any of its ready queue heads could start, once every
 * running transfer of the user that ends at or before P has completed;
 * completions run in modeled-time order (ties: engine order).
 *
 * Locking. du->lock (a mutex, one per user) protects the user's engines
 * and their active lists, its files' queues, semaphores (dma_sem.c asserts
 * it through sems->lock), ticket indexes and now, its inflight count and
 * its driver state. dma->lock protects the lists of users and files
 * alone; it is taken before a du->lock, never after. The user's link
 * book's lock (du->links->lock) is taken under du->lock, for a step's
 * pick and its links' booking, and nothing is taken under it. A driver takes
 * du->lock for one step (one pick and start, or one completion) and drops
 * it between steps; a transfer's bytes move with the lock dropped, while
 * the transfer is "moving": its access (kmod/access.h) keeps both ranges
 * pinned, it stays on its engine, and nothing frees or cancels it
 * (release and a killed COPY wait for moving to clear). Neither lock
 * nests with dev->lock (an access begins before one is taken and ends
 * without either) nor is held across a user copy. Waiters sleep on their
 * user's wait queue (du->wq, woken by the user's completions, semaphores,
 * reaps and driver wake-ups) without a lock and read what they wait for
 * locklessly (READ_ONCE; transfers are freed after an RCU grace period).
 * Nothing reads a transfer after done is set, except under du->lock.
 */
#ifndef XMEMSIM_DMA_INTERNAL_H
#define XMEMSIM_DMA_INTERNAL_H

#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "access.h"
#include "link_book.h"
#include "topo.h"
#include "xmemsim.h"

/* The hazard checker: off, report, or report and refuse (-EBUSY). */
enum xmemsim_dma_check {
	XMEMSIM_CHECK_OFF,
	XMEMSIM_CHECK_REPORT,
	XMEMSIM_CHECK_REFUSE,
};

/* One engine's totals over all users, for sysfs. */
struct xmemsim_dma_stats {
	atomic64_t completed, bytes, busy_ns;
};

/* The device's DMA: the parameters, the users and their files. */
struct xmemsim_dma {
	struct mutex lock;		/* the lists below; see "Locking" */
	u32 engines, queues, sems, depth, user_depth;
	u64 latency_ns;
	u64 bw[XMEMSIM_NUM_HEAPS][XMEMSIM_NUM_HEAPS];
	u64 time_scale;			/* wall ns per modeled ns, 0 virtual */
	u32 check;			/* enum xmemsim_dma_check */
	atomic64_t hazards[XMEMSIM_NUM_HAZARDS];
	ktime_t epoch;			/* wall time of modeled 0 */
	u64 files_made;			/* files given DMA state, for their order */
	struct xmemsim_dma_stats *stats;	/* [engine] */
	struct list_head files;		/* files with DMA state */
	struct list_head users;		/* their users */
	struct workqueue_struct *wq;	/* the users' work items */
};

/* One engine of one user, in the user's modeled time. */
struct xmemsim_dma_engine {
	struct xmemsim_xfer *cur;	/* running (or moving), or NULL */
	struct list_head active;	/* queues with transfers queued */
	u64 free_ns;			/* modeled: free from here */
	u64 serial;			/* transfers it has started */
};

/*
 * One user's DMA: its engines in its modeled time, and who takes its
 * steps (a waiting task of its own, else its work item).
 */
struct xmemsim_dma_user {
	struct list_head node;		/* in dma->users */
	struct xmemsim_dma *dma;
	const struct xmemsim_user *user;
	struct mutex lock;		/* see "Locking" */
	struct xmemsim_dma_engine *eng;	/* [engine] */
	u64 *link_free;			/* [link]: free from here, modeled */
	struct xmemsim_link_book *links;	/* other devices' holds, or NULL */
	u32 dev;			/* the device's index, in the book */
	wait_queue_head_t wq;		/* its files' waiters and pollers */
	u32 files;			/* its files with DMA state */
	u32 inflight;			/* over those files */
	bool running;			/* a driver takes its steps */
	bool due;			/* a step may be taken now */
	int nice;			/* its latest caller's, for its work item */
	atomic_t waiters;		/* its tasks in a DMA wait: drivers */
	struct work_struct work;	/* its steps while none waits */
	struct hrtimer timer;		/* wakes it at a wall deadline */
};

/* One FIFO queue of one file on one engine. */
struct xmemsim_dma_queue {
	struct list_head xfers;		/* queued transfers, in order */
	struct list_head node;		/* in its engine's active list, or empty */
	struct xmemsim_dma_file *df;
	u32 engine;
	u32 index;			/* its place in df->q */
	u64 stamp;			/* engine serial when served last, 0 never */
	u64 end_ns;			/* modeled end of its last started transfer */
	u64 seq;			/* transfers ever queued on it */
	u64 seen;			/* those up to this seq are observed done */
	int err;			/* its error state: 0, or the first error */
};

struct xmemsim_xfer {
	struct rcu_head rcu;		/* waiters look it up without the lock */
	struct list_head node;		/* in q->xfers while queued */
	struct list_head sig_node;	/* a signaller of its semaphore once done */
	struct list_head wait_node;	/* a waiter on its semaphore while queued */
	struct xmemsim_dma_queue *q;
	struct xmemsim_dma_file *df;
	struct xms_access acc;		/* its ranges, pinned until it ends */
	struct xmemsim_dma_desc d;
	u64 ticket;
	u64 seq;			/* its place in its queue, from 1 */
	u64 dur;			/* modeled ns */
	struct xmemsim_route route;	/* links it holds while its bytes move */
	u64 link_ns;			/* its bytes' time on them: its end's */
	u64 submit_ns;			/* its file's now when it was queued */
	u64 ready_ns;			/* when its wait condition came to hold */
	u64 sem_after;			/* its signal's value, once done */
	u8 *bounce;			/* COPY's: moves through it */
	int fault;			/* XMEMSIM_FAULT_* injected, or -1 */
	u64 start_ns, end_ns;
	int status;
	bool ready;			/* ready_ns is set */
	bool moving;			/* its bytes move, du->lock dropped */
	bool done;
	bool claimed;			/* a DMA_REAP is copying it out */
	bool seen;			/* observed through a semaphore */
};

/*
 * One file's semaphores (dma_sem.c; nobody else touches the fields). A
 * semaphore's value is written under du->lock and read without it (a
 * wait condition); everything else here is du->lock's.
 */
struct xmemsim_dma_sems {
	u64 *val;			/* [sem] */
	u64 *set_ns;			/* [sem]: the modeled time of its SEM_SET */
	u64 *set_val;			/* [sem]: the value SEM_SET gave it */
	u64 *reaped;			/* [sem]: the highest value of a reaped signal */
	struct list_head *sig;		/* [sem]: done, unreaped signallers */
	unsigned long *broken;		/* [sem]: its signal will not come */
	struct list_head waiters;	/* queued transfers with a wait_sem */
	u32 n;
	struct mutex *lock;		/* du->lock, for lockdep */
};

/* One open file's queues, semaphores and transfers. */
struct xmemsim_dma_file {
	struct list_head node;		/* in dma->files */
	struct xmemsim_file *xf;	/* NULL in xmemsim_dma_model() */
	pid_t pid;			/* for reports and traces */
	u64 order;			/* creation order: ties in the pick */
	struct xmemsim_dma_user *du;	/* its opener's share */
	struct xmemsim_dma_queue *q;	/* [engine * (queues + 1) + queue] */
	struct xmemsim_dma_sems sems;
	struct xarray xfers;		/* ticket -> transfer, until reaped */
	bool errors;			/* a queue in error or a broken semaphore */
	u64 now;			/* the latest modeled time it observed */
	u64 next_ticket;
	u32 inflight;			/* queued, running or unreaped */
	u32 ready;			/* done, unreaped, unclaimed */
};

/*
 * Per engine, a file has dma_queues queues and one more, its COPY queue,
 * which only COPY's DMA method uses: no semaphore holds it back.
 */
static inline u32 xmemsim_dma_nq(const struct xmemsim_dma *dma)
{
	return dma->queues + 1;
}

static inline struct xmemsim_dma_queue *
xmemsim_dma_q(struct xmemsim_dma_file *df, const struct xmemsim_dma *dma,
	      u32 e, u32 q)
{
	return &df->q[e * xmemsim_dma_nq(dma) + q];
}

/* A wait's timeout: ns < 0 waits for ever. */
static inline long xmemsim_dma_jiffies(s64 ns)
{
	return ns < 0 ? MAX_SCHEDULE_TIMEOUT : (long)nsecs_to_jiffies64(ns) + 1;
}

/* dma_sem.c: the semaphores; du->lock held unless said */
int xmemsim_sems_init(struct xmemsim_dma_sems *s, u32 n, struct mutex *lock,
		      gfp_t gfp);
void xmemsim_sems_free(struct xmemsim_dma_sems *s);
bool xmemsim_sems_whole(const struct xmemsim_dma_sems *s);
u64 xmemsim_sem_value(const struct xmemsim_dma_sems *s, u32 sem);
u64 xmemsim_sem_arrival(const struct xmemsim_dma_sems *s, u32 sem, u64 value);
void xmemsim_sem_signal(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x);
void xmemsim_sem_break(struct xmemsim_dma_sems *s, u32 sem);
bool xmemsim_sem_broken(const struct xmemsim_dma_sems *s, u32 sem);
void xmemsim_sem_set(struct xmemsim_dma_sems *s, u32 sem, u64 value, u64 now);
void xmemsim_sem_reaped(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x);
void xmemsim_sem_wait_add(struct xmemsim_dma_sems *s, struct xmemsim_xfer *x);
void xmemsim_sem_wait_del(struct xmemsim_xfer *x);
bool xmemsim_sem_settled(const struct xmemsim_dma_sems *s, u32 sem, u64 value);
/* The signallers of sem still unreaped, oldest first. du->lock held. */
#define xmemsim_sem_for_each_signaller(x, s, sem) \
	list_for_each_entry(x, &(s)->sig[sem], sig_node)

/* dma_sched.c */
void xmemsim_dma_kick(struct xmemsim_dma_user *du);
void xmemsim_dma_caller(struct xmemsim_dma_user *du);
void xmemsim_dma_enqueue(struct xmemsim_dma_user *du, struct xmemsim_xfer *x);
void xmemsim_dma_dequeue(struct xmemsim_xfer *x);
void xmemsim_dma_drain(struct xmemsim_dma_file *df);
void xmemsim_dma_sched_run(struct xmemsim_dma_user *du);
/* A submitter completes its own transfers of at most this many bytes. */
#define XMEMSIM_DMA_INLINE_BYTES	SZ_64K
void xmemsim_dma_run_inline(struct xmemsim_dma_user *du,
			    const struct xmemsim_dma_file *df, u32 steps);
/* How a DMA wait sleeps: signals end it, or only fatal ones. */
enum xmemsim_dma_sleep { XMEMSIM_SLEEP_INTERRUPTIBLE, XMEMSIM_SLEEP_KILLABLE };
int xmemsim_dma_sleep(struct xmemsim_dma_user *du,
		      bool (*cond)(const void *arg), const void *arg,
		      long *left, enum xmemsim_dma_sleep how);
int xmemsim_dma_user_init(struct xmemsim_dma *dma, struct xmemsim_dma_user *du,
			  gfp_t gfp);
void xmemsim_dma_user_fini(struct xmemsim_dma_user *du);
int xmemsim_dma_sched_init(struct xmemsim_dma *dma, bool worker);
void xmemsim_dma_sched_fini(struct xmemsim_dma *dma);

/* dma_reduce.c: a transfer's bytes move, copied or reduced */
u32 xmemsim_dma_elem_size(u32 dtype);
int xmemsim_dma_reduce_check(const struct xmemsim_dma_desc *d);
void xmemsim_dma_reduce(u8 *dst, const u8 *src, size_t n, u32 op, u32 dtype);
void xmemsim_dma_move(u8 *dst, const u8 *src, size_t n,
		      const struct xmemsim_dma_desc *d);

/* dma_check.c */
int xmemsim_dma_check_batch(struct xmemsim_dma *dma,
			    struct xmemsim_dma_file *df,
			    struct xmemsim_xfer **x, u32 n);
void xmemsim_dma_observe(struct xmemsim_dma *dma, struct xmemsim_xfer *x);
void xmemsim_dma_observe_sem(struct xmemsim_dma *dma,
			     struct xmemsim_dma_file *df, u32 sem, u64 value);

/* dma.c, for dma_model.c: a file's DMA state without a file */
int xmemsim_dma_file_init(struct xmemsim_dma *dma, struct xmemsim_dma_file *df,
			  gfp_t gfp);
void xmemsim_dma_file_fini(struct xmemsim_dma_file *df);

#endif /* XMEMSIM_DMA_INTERNAL_H */
