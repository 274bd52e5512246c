/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * comm_sched.h - a collective as a list of transfers (comm_sched.c), with
 * nothing of the device in it: which rank submits each, from which of its
 * buffers to which buffer of itself or of the next rank, and which earlier
 * transfers it waits for. comm.c runs the list on the devices; the host
 * unit test (tests/host/test_comm_sched.c) checks it without one.
 *
 * The ring: rank r writes only to rank r + 1 (mod n). A buffer of count
 * elements is cut into n chunks (chunk c: elements [count c / n,
 * count (c + 1) / n)), each chunk into `slices` slices; a step moves one
 * slice of one chunk a hop. Step s of rank r is transfer i = s * slices + k
 * of its list, and it waits for transfer i - slices of rank r - 1 (the same
 * slice one hop back). The list is in the order comm.c submits it: round
 * i, ranks 0 .. n - 1 (broadcast: the diagonal rounds of a chain, see
 * comm_sched.c), each transfer after the transfers it waits for.
 *
 * The tree (all-reduce at small sizes, XMS_ALGO_TREE): a binomial tree
 * rooted at rank 0, whole buffers, a reduce phase to the root and a
 * broadcast phase back (comm_sched.c says why a tree). A link transfer
 * writes rank `peer`'s buffer, which for the ring is always rank + 1.
 */
#ifndef XMS_COMM_SCHED_H
#define XMS_COMM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "libxmemsim.h"

enum { XMS_BUF_SEND, XMS_BUF_RECV, XMS_BUF_SCRATCH, XMS_NUM_BUFS };

struct xms_cop {
	uint32_t rank;		/* submits it */
	uint32_t peer;		/* link: the rank whose dbuf it writes */
	uint8_t link;		/* 1: writes peer's dbuf over the link; 0: its own */
	uint8_t reduce;		/* 1: dst = dst op src; 0: a copy */
	uint8_t sbuf, dbuf;	/* XMS_BUF_* */
	uint64_t soff, doff, len;	/* bytes */
	int32_t dep[2];		/* earlier transfers it starts after, or -1 */
};

struct xms_sched {
	struct xms_cop *ops;
	size_t n, cap;
	uint32_t nranks, slices;
	int algo;		/* XMS_ALGO_RING or _TREE */
	uint64_t buf_len[XMS_NUM_BUFS];	/* bytes each rank's buffer needs */
};

/* How many slices a chunk of chunk_bytes takes for collective coll. */
uint32_t xms_sched_slices(int coll, uint32_t nranks, uint64_t chunk_bytes);
/*
 * Build coll's schedule (XMS_COLL_*) over nranks for count elements of
 * esize bytes (count as the collective's call takes it), slices per
 * chunk (0: xms_sched_slices' choice), root for a broadcast. 0 or -errno.
 */
int xms_sched_build(struct xms_sched *s, int coll, uint32_t nranks,
		    uint64_t count, uint32_t esize, uint32_t slices, uint32_t root);
/* The same with algo (XMS_ALGO_RING, or _TREE for an all-reduce). */
int xms_sched_build_algo(struct xms_sched *s, int coll, int algo,
			 uint32_t nranks, uint64_t count, uint32_t esize,
			 uint32_t slices, uint32_t root);
void xms_sched_free(struct xms_sched *s);

/*
 * The model a schedule's time is estimated in: each transfer takes the
 * engine's latency, the route's (link transfers), and its bytes at the
 * lower of the engine's and the link's bandwidth, once what it waits for
 * has ended. Engines and links are taken as free: it is the critical
 * path of the schedule's waits, which is the modeled time of a small
 * collective (one transfer a rank at a time) and a lower bound of a
 * large one.
 */
struct xms_cost {
	uint64_t dma_ns;		/* an engine's latency */
	uint64_t local_bps, link_bps;	/* bytes/s: on a device, and over a link */
	const uint64_t *route_ns;	/* [rank * nranks + peer]: the route's latency */
};

/* The critical path of s under m, in modeled ns. */
uint64_t xms_sched_time(const struct xms_sched *s, const struct xms_cost *m);
/*
 * The all-reduce algorithm of count elements of esize bytes over nranks
 * under m: the tree where its estimate is below the ring's, else the
 * ring. XMS_ALGO_RING or _TREE, or -errno.
 */
int xms_sched_pick(uint32_t nranks, uint64_t count, uint32_t esize,
		   const struct xms_cost *m);

#endif /* XMS_COMM_SCHED_H */
