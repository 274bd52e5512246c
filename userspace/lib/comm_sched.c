// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * comm_sched.c - the ring's schedule: the transfers of a collective, in
 * the order comm.c submits them (see comm_sched.h).
 *
 * Why this order. Devices keep their own modeled clocks, and a file's
 * clock moves to the end of any transfer it reaps. comm.c reaps a
 * transfer only when a transfer of a later round needs its end (a rank's
 * step after its neighbour's, `slices` rounds on), so the ranks it reaps
 * on have already submitted everything that should start before that end:
 * the engines keep a transfer's latency under the previous one's bytes,
 * and the links stay busy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "comm_sched.h"

#define SLICE_MIN	(256u << 10)	/* below: a slice's latency shows */
#define RING_SLICES	16u
#define CHAIN_SLICE	(64u << 10)
#define CHAIN_SLICES	1024u

uint32_t xms_sched_slices(int coll, uint32_t nranks, uint64_t chunk_bytes)
{
	uint64_t k;

	(void)nranks;
	if (coll == XMS_COLL_BROADCAST) {
		k = chunk_bytes / CHAIN_SLICE;
		return k < 1 ? 1 : k > CHAIN_SLICES ? CHAIN_SLICES : (uint32_t)k;
	}
	/* two slices in flight hide one's latency under the other's bytes */
	if (chunk_bytes < 2 * (64u << 10))
		return 1;
	k = chunk_bytes / SLICE_MIN;
	return k < 2 ? 2 : k > RING_SLICES ? RING_SLICES : (uint32_t)k;
}

/* Append a transfer; its index, or -1 for an empty one (nothing to wait for). */
static int32_t emit(struct xms_sched *s, const struct xms_cop *c)
{
	if (!c->len)
		return -1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct xms_cop *ops = realloc(s->ops, cap * sizeof(*ops));

		if (!ops)
			return -2;
		s->ops = ops;
		s->cap = cap;
	}
	s->ops[s->n] = *c;
	return (int32_t)s->n++;
}

/* What a ring's step moves: one slice of one chunk, as byte offsets. */
struct ring {
	int coll;
	uint32_t n, k;
	uint64_t count, esize;
	int32_t *idx;		/* [rank][step * k + slice] */
	int32_t *init;		/* [rank][step * k + slice]: its destination's first copy */
};

/* Slice k of chunk c: its first byte and length in a whole buffer. */
static void region(const struct ring *g, uint32_t c, uint32_t k, uint64_t *off,
		   uint64_t *len)
{
	uint64_t per = g->coll == XMS_COLL_ALL_REDUCE ? 0 : g->count;
	uint64_t a = per ? per * c : g->count * c / g->n;
	uint64_t b = per ? per * (c + 1) : g->count * (c + 1) / g->n;
	uint64_t lo = a + (b - a) * k / g->k, hi = a + (b - a) * (k + 1) / g->k;

	*off = lo * g->esize;
	*len = (hi - lo) * g->esize;
}

static uint32_t mod(int64_t a, uint32_t n)
{
	return (uint32_t)(((a % n) + n) % n);
}

/*
 * Reduce-scatter step s of rank r, slice k: chunk c goes to rank r + 1,
 * which adds it to its own. The destination is rank r + 1's receive
 * buffer (all-reduce, or reduce-scatter's last step) or its scratch, which
 * first holds rank r + 1's own slice: a copy from its send buffer (skipped
 * where the two are one).
 */
static void rs_step(const struct ring *g, uint32_t r, uint32_t s, uint32_t k,
		    struct xms_cop *c)
{
	int ar = g->coll == XMS_COLL_ALL_REDUCE;
	uint32_t ch = mod((int64_t)r - s - (ar ? 0 : 1), g->n);
	uint64_t off, len, mine = ar ? 0 : ch * g->count * g->esize;

	region(g, ch, k, &off, &len);
	*c = (struct xms_cop){ .rank = r, .link = 1, .reduce = 1, .len = len,
			       .dep = { -1, -1 } };
	c->sbuf = s == 0 ? XMS_BUF_SEND : ar ? XMS_BUF_RECV : XMS_BUF_SCRATCH;
	c->soff = off;
	c->dbuf = ar || s == g->n - 2 ? XMS_BUF_RECV : XMS_BUF_SCRATCH;
	c->doff = c->dbuf == XMS_BUF_RECV ? off - mine : off;
}

/*
 * All-gather step s of rank r, slice k: chunk c, whole, copied to rank
 * r + 1's receive buffer. all-reduce's chunk r + 1 is the one rank r
 * completed; all-gather's step 0 sends rank r's own send buffer.
 */
static void ag_step(const struct ring *g, uint32_t r, uint32_t s, uint32_t k,
		    struct xms_cop *c)
{
	int ar = g->coll == XMS_COLL_ALL_REDUCE;
	uint32_t ch = mod((int64_t)r + (ar ? 1 : 0) - s, g->n);
	uint64_t off, len;

	region(g, ch, k, &off, &len);
	*c = (struct xms_cop){ .rank = r, .link = 1, .len = len,
			       .dep = { -1, -1 } };
	c->sbuf = !ar && s == 0 ? XMS_BUF_SEND : XMS_BUF_RECV;
	c->soff = c->sbuf == XMS_BUF_SEND ? off - ch * g->count * g->esize : off;
	c->dbuf = XMS_BUF_RECV;
	c->doff = off;
}

/* The ring's step s of rank r, slice k (reduce-scatter steps first). */
static void ring_step(const struct ring *g, uint32_t r, uint32_t s, uint32_t k,
		      struct xms_cop *c)
{
	if (g->coll == XMS_COLL_ALL_GATHER)
		ag_step(g, r, s, k, c);
	else if (s < g->n - 1)
		rs_step(g, r, s, k, c);
	else
		ag_step(g, r, s - (g->n - 1), k, c);
}

/*
 * The first copy of the destination of transfer i of rank q - 1 (a
 * reduce-scatter step), on rank q: its own send slice into that place.
 * Emitted `slices` rounds early (round 0 for the first ones), on engines
 * of its own, so that it is done before the reduce that needs it.
 */
static int emit_init(struct xms_sched *s, struct ring *g, uint32_t q, uint32_t i)
{
	uint32_t steps = g->coll == XMS_COLL_ALL_GATHER ? 0 : g->n - 1;
	struct xms_cop t, c;
	int32_t j;

	if (i >= steps * g->k)
		return 0;
	ring_step(g, mod((int64_t)q - 1, g->n), i / g->k, i % g->k, &t);
	c = (struct xms_cop){ .rank = q, .sbuf = XMS_BUF_SEND, .dbuf = t.dbuf,
			      .doff = t.doff, .len = t.len, .dep = { -1, -1 } };
	c.soff = g->coll == XMS_COLL_ALL_REDUCE ? t.doff :
		 t.dbuf == XMS_BUF_RECV ? t.doff + q * g->count * g->esize : t.doff;
	j = emit(s, &c);
	g->init[(size_t)q * g->n * 2 * g->k + i] = j;
	return j < -1 ? -ENOMEM : 0;
}

/* Round i of the ring: the first copies it brings forward, then each rank's step. */
static int ring_round(struct xms_sched *s, struct ring *g, uint32_t i)
{
	size_t w = (size_t)g->n * 2 * g->k;
	uint32_t r, a, b;
	int ret = 0;

	for (r = 0; r < g->n && !ret; r++)	/* first copies: [a, b) */
		for (a = i ? i + g->k : 0, b = i ? a + 1 : g->k + 1; a < b && !ret; a++)
			ret = emit_init(s, g, r, a);
	for (r = 0; r < g->n && !ret; r++) {
		uint32_t p = mod((int64_t)r - 1, g->n), q = (r + 1) % g->n;
		struct xms_cop c;
		int32_t j;

		ring_step(g, r, i / g->k, i % g->k, &c);
		c.dep[0] = i >= g->k ? g->idx[p * w + i - g->k] : -1;
		if (g->coll != XMS_COLL_ALL_GATHER && i / g->k < g->n - 1)
			c.dep[1] = g->init[q * w + i];
		j = emit(s, &c);
		g->idx[r * w + i] = j;
		ret = j < -1 ? -ENOMEM : 0;
	}
	return ret;
}

/* A local copy of len bytes, send to recv at off (a rank's own part). */
static int emit_local(struct xms_sched *s, uint32_t r, uint64_t soff,
		      uint64_t doff, uint64_t len)
{
	struct xms_cop c = { .rank = r, .sbuf = XMS_BUF_SEND, .soff = soff,
			     .dbuf = XMS_BUF_RECV, .doff = doff, .len = len,
			     .dep = { -1, -1 } };

	return emit(s, &c) < -1 ? -ENOMEM : 0;
}

static int build_ring(struct xms_sched *s, int coll, uint64_t count,
		      uint32_t esize)
{
	struct ring g = { coll, s->nranks, s->slices, count, esize, NULL, NULL };
	uint32_t steps = coll == XMS_COLL_ALL_REDUCE ? 2 * (g.n - 1) : g.n - 1;
	size_t w = (size_t)g.n * 2 * g.k;
	uint32_t i, r;
	int ret = 0;

	g.idx = malloc(w * g.n * sizeof(*g.idx));
	g.init = malloc(w * g.n * sizeof(*g.init));
	if (!g.idx || !g.init)
		ret = -ENOMEM;
	for (i = 0; !ret && i < w * g.n; i++)
		g.idx[i] = g.init[i] = -1;
	/* all-gather: each rank's own chunk, home first */
	for (r = 0; !ret && coll == XMS_COLL_ALL_GATHER && r < g.n; r++)
		ret = emit_local(s, r, 0, (uint64_t)r * count * esize, count * esize);
	for (i = 0; !ret && i < steps * g.k; i++)
		ret = ring_round(s, &g, i);
	free(g.idx);
	free(g.init);
	return ret;
}

/*
 * Broadcast: a chain from the root, rank root + j passing slice k to
 * root + j + 1 in round j + k, after it arrived (round j + k - 1): the
 * diagonal keeps every hop busy at once.
 */
static int build_chain(struct xms_sched *s, uint64_t bytes, uint32_t root)
{
	uint32_t n = s->nranks, k = s->slices, g, j;
	int32_t *last = malloc(2 * n * sizeof(*last));	/* [j][slice % 2] */
	int ret;

	if (!last)
		return -ENOMEM;
	ret = emit_local(s, root, 0, 0, bytes);
	for (g = 0; !ret && g + 1 < k + n - 1; g++) {
		for (j = 0; !ret && j + 1 < n; j++) {
			uint64_t lo, hi;
			struct xms_cop c;
			int32_t x;

			if (g < j || g - j >= k)
				continue;
			lo = bytes * (g - j) / k;
			hi = bytes * (g - j + 1) / k;
			c = (struct xms_cop){ .rank = (root + j) % n, .link = 1,
				.sbuf = j ? XMS_BUF_RECV : XMS_BUF_SEND, .soff = lo,
				.dbuf = XMS_BUF_RECV, .doff = lo, .len = hi - lo,
				.dep = { j ? last[2 * (j - 1) + (g - j) % 2] : -1, -1 } };
			x = emit(s, &c);
			ret = x < -1 ? -ENOMEM : 0;
			last[2 * j + (g - j) % 2] = x;
		}
	}
	free(last);
	return ret;
}

int xms_sched_build(struct xms_sched *s, int coll, uint32_t nranks,
		    uint64_t count, uint32_t esize, uint32_t slices, uint32_t root)
{
	uint64_t whole = count * esize * (coll == XMS_COLL_ALL_REDUCE ||
					  coll == XMS_COLL_BROADCAST ? 1 : nranks);
	uint64_t mine = coll == XMS_COLL_ALL_REDUCE || coll == XMS_COLL_BROADCAST ?
			whole : count * esize;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!nranks || !esize || coll < 0 || coll > XMS_COLL_BROADCAST ||
	    root >= nranks || count > UINT64_MAX / 2 / esize / nranks)
		return -EINVAL;
	s->nranks = nranks;
	s->slices = slices ? slices : xms_sched_slices(coll, nranks,
			coll == XMS_COLL_BROADCAST ? whole : whole / nranks);
	s->buf_len[XMS_BUF_SEND] = coll == XMS_COLL_ALL_GATHER ? mine : whole;
	s->buf_len[XMS_BUF_RECV] = coll == XMS_COLL_REDUCE_SCATTER ? mine : whole;
	s->buf_len[XMS_BUF_SCRATCH] = coll == XMS_COLL_REDUCE_SCATTER &&
				      nranks > 2 ? whole : 0;
	if (nranks == 1)	/* nothing to move but a rank's own */
		ret = emit_local(s, 0, 0, 0, mine);
	else if (coll == XMS_COLL_BROADCAST)
		ret = build_chain(s, whole, root);
	else
		ret = build_ring(s, coll, count, esize);
	if (ret)
		xms_sched_free(s);
	return ret;
}

void xms_sched_free(struct xms_sched *s)
{
	free(s->ops);
	memset(s, 0, sizeof(*s));
}
