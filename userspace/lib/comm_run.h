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
	int index;		/* its device: /dev/xmemsim<index> */
	uint32_t engines, depth;
	uint64_t dma_ns, local_bps;	/* the engines' model (DMA_INFO) */
	uint64_t scratch, scratch_len;	/* reduce-scatter's partial sums */
};

struct xms_comm {
	int n;
	int me;			/* this process's rank, or -1: every rank */
	int sock_prev, sock_next;	/* to rank me - 1 and me + 1 (me >= 0) */
	struct comm_rank *r;	/* [n]; with me >= 0 only r[me] is open */
	int algo;		/* XMS_ALGO_*: the all-reduce's */
	struct xms_cost cost;	/* the model; route_ns NULL: not known */
};

/* What a rank imports of a peer's buffers for a call: [slot] a rank. */
#define IMP_PEERS	16
struct imp {
	uint32_t peer1;		/* the peer + 1; 0: a free slot */
	uint64_t addr[XMS_NUM_BUFS];
};

/* One call's run of a schedule. */
struct run {
	struct xms_comm *c;
	const struct xms_sched *s;
	uint32_t op, dtype;
	uint64_t (*base)[XMS_NUM_BUFS];	/* [rank]: its own buffers */
	struct imp (*imp)[IMP_PEERS];	/* [rank]: its peers', in its aperture */
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
/* Rank r's imports of rank q's buffers (a free slot taken), or NULL. */
uint64_t *comm_imp(struct run *x, uint32_t r, uint32_t q);
/* comm_rank.c: a rank of its own process */
int rank_link_all(struct run *x);
int rank_dep(struct run *x, size_t d);
int rank_serve(struct run *x, size_t j);
int rank_barrier(struct run *x);
void rank_fail(struct run *x);

#endif /* XMS_COMM_RUN_H */
