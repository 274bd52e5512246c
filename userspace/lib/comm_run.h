/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * comm_run.h - a communicator and one call's run of a schedule, shared by
 * comm.c (the run, every rank in this process) and comm_rank.c (a rank of
 * its own process: the ends of other ranks' steps and the dma-buf fds come
 * over Unix sockets from its neighbours).
 */
#ifndef XMS_COMM_RUN_H
#define XMS_COMM_RUN_H

#include "comm_sched.h"

#define WAIT_NS		60000000000LL	/* a minute of wall time: it hangs */

struct comm_rank {
	struct xms_dev dev;
	uint32_t engines, depth;
	uint64_t scratch, scratch_len;	/* reduce-scatter's partial sums */
};

struct xms_comm {
	int n;
	int me;			/* this process's rank, or -1: every rank */
	int sock_prev, sock_next;	/* to rank me - 1 and me + 1 (me >= 0) */
	struct comm_rank *r;	/* [n]; with me >= 0 only r[me] is open */
};

/* One call's run of a schedule. */
struct run {
	struct xms_comm *c;
	const struct xms_sched *s;
	uint32_t op, dtype;
	uint64_t (*base)[XMS_NUM_BUFS];	/* [rank]: its own buffers */
	uint64_t (*imp)[XMS_NUM_BUFS];	/* [rank]: rank + 1's, in its aperture */
	uint64_t *ticket, *end;		/* [op] */
	uint8_t *state;			/* [op]: 0 not submitted, 1 in flight, 2 known */
	uint32_t *inflight, *nlink, *nlocal;	/* [rank] */
	size_t *oldest;			/* [rank]: no op of it before this is in flight */
	uint64_t t0, tmax;
	int err;
};

struct xms_comm *comm_alloc(int n, int me);
int comm_open(struct comm_rank *cr, int dev);
int comm_reap(struct run *x, size_t j);
/* comm_rank.c: a rank of its own process */
int rank_link_all(struct run *x);
int rank_dep(struct run *x, size_t d);
int rank_serve(struct run *x, size_t j);
int rank_barrier(struct run *x);
void rank_fail(struct run *x);

#endif /* XMS_COMM_RUN_H */
