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
	c = (struct xms_cop){ .rank = q, .peer = q, .sbuf = XMS_BUF_SEND,
			      .dbuf = t.dbuf, .doff = t.doff, .len = t.len,
			      .dep = { -1, -1 } };
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
		c.peer = q;
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
	struct xms_cop c = { .rank = r, .peer = r, .sbuf = XMS_BUF_SEND,
			     .soff = soff, .dbuf = XMS_BUF_RECV, .doff = doff,
			     .len = len, .dep = { -1, -1 } };

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
				.peer = (root + j + 1) % n,
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

/*
 * All-reduce at small sizes: a binomial tree rooted at rank 0. Reduce
 * phase, level k = 0, 1, ..: rank r = 2^k (mod 2^(k+1)) adds its whole
 * buffer into rank r - 2^k's receive buffer over the link (its send
 * buffer if nothing was added into it yet), after the previous addition
 * into that buffer; the buffer first holds its own rank's send buffer (a
 * local copy, skipped in place). Broadcast phase, level k from the top
 * down: rank r = 0 (mod 2^(k+1)) copies the result to rank r + 2^k, after
 * its copy of the level above (the farthest subtree first, and a rank's
 * routes one at a time: on a ring topology they overlap).
 * ceil(log2 n) levels each way, a transfer's latency a level, where the
 * ring takes 2 (n - 1).
 *
 * Why a tree and not recursive doubling (log2 n exchanges, each rank
 * reducing what its partner sent). An exchange here is a copy over the
 * link and then a local reduce, since the engines reduce into their own
 * destination (two transfers a step where the tree has one a level), and
 * both partners must add in the same order, which needs buffers that
 * alternate, a scratch buffer and extra ranks folded in and out: a
 * little ahead of the tree in modeled time where routes are long, for a
 * schedule unlike the ring's. Every step here is one transfer into the
 * peer's buffer, a reduce or a copy, as a ring step is, for any n. And
 * the sum is made
 * once, on the root, in one order, (v0 op v1) op (v2 op v3) ..., each
 * addition dst = dst op src with the lower rank's partial as dst; every
 * other rank receives a copy of those bytes, so every rank holds the
 * same bits whatever the arithmetic. xms_coll_expect_algo() is that order.
 */
static int build_tree(struct xms_sched *s, uint64_t bytes)
{
	uint32_t n = s->nranks, k, r, m;
	int32_t *last = malloc(2 * n * sizeof(*last));	/* [r]: last write of r's recv */
	int32_t *sent = last ? last + n : NULL;		/* [r]: its reduce phase send */
	int ret = 0;

	if (!last)
		return -ENOMEM;
	for (m = 0; (1ull << m) < n; m++)
		;
	for (r = 0; r < n; r++) {
		sent[r] = -1;
		last[r] = -1;
		if (r % 2 == 0 && r + 1 < n) {	/* a rank that others add into */
			struct xms_cop c = { .rank = r, .peer = r, .sbuf = XMS_BUF_SEND,
					     .dbuf = XMS_BUF_RECV, .len = bytes,
					     .dep = { -1, -1 } };

			last[r] = emit(s, &c);
			if (last[r] < -1)
				ret = -ENOMEM;
		}
	}
	for (k = 0; !ret && k < m; k++)
		for (r = 1u << k; !ret && r < n; r += 2u << k) {
			uint32_t p = r - (1u << k);
			struct xms_cop c = { .rank = r, .peer = p, .link = 1, .reduce = 1,
					     .dbuf = XMS_BUF_RECV, .len = bytes,
					     .dep = { last[r], last[p] } };

			/* a rank with no child in the tree sends its own buffer */
			c.sbuf = k && r + 1 < n ? XMS_BUF_RECV : XMS_BUF_SEND;
			if (c.sbuf == XMS_BUF_SEND)
				c.dep[0] = -1;
			sent[r] = last[p] = emit(s, &c);
			if (last[p] < -1)
				ret = -ENOMEM;
		}
	for (k = m; !ret && k-- > 0;)
		for (r = 0; !ret && r + (1u << k) < n; r += 2u << k) {
			uint32_t q = r + (1u << k);
			struct xms_cop c = { .rank = r, .peer = q, .link = 1,
					     .sbuf = XMS_BUF_RECV, .dbuf = XMS_BUF_RECV,
					     .len = bytes, .dep = { last[r], sent[q] } };

			/* last[r]: what r received, then its own latest copy out */
			last[q] = last[r] = emit(s, &c);
			if (last[q] < -1)
				ret = -ENOMEM;
		}
	free(last);
	return ret;
}

int xms_sched_build(struct xms_sched *s, int coll, uint32_t nranks,
		    uint64_t count, uint32_t esize, uint32_t slices, uint32_t root)
{
	return xms_sched_build_algo(s, coll, XMS_ALGO_RING, nranks, count, esize,
				    slices, root);
}

int xms_sched_build_algo(struct xms_sched *s, int coll, int algo,
			 uint32_t nranks, uint64_t count, uint32_t esize,
			 uint32_t slices, uint32_t root)
{
	uint64_t whole = count * esize * (coll == XMS_COLL_ALL_REDUCE ||
					  coll == XMS_COLL_BROADCAST ? 1 : nranks);
	uint64_t mine = coll == XMS_COLL_ALL_REDUCE || coll == XMS_COLL_BROADCAST ?
			whole : count * esize;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!nranks || !esize || coll < 0 || coll > XMS_COLL_BROADCAST ||
	    root >= nranks || count > UINT64_MAX / 2 / esize / nranks ||
	    (algo != XMS_ALGO_RING && algo != XMS_ALGO_TREE) ||
	    (algo == XMS_ALGO_TREE && coll != XMS_COLL_ALL_REDUCE))
		return -EINVAL;
	s->nranks = nranks;
	s->algo = algo;
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
	else if (algo == XMS_ALGO_TREE)
		ret = build_tree(s, whole);
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

uint64_t xms_sched_time(const struct xms_sched *s, const struct xms_cost *m)
{
	uint64_t *end = malloc((s->n ? s->n : 1) * sizeof(*end)), t = 0;
	double link = m->link_bps < m->local_bps ? m->link_bps : m->local_bps;
	size_t j;
	int i;

	if (!end)
		return UINT64_MAX;
	for (j = 0; j < s->n; j++) {
		const struct xms_cop *o = &s->ops[j];
		double bps = o->link ? link : m->local_bps;
		uint64_t start = 0;

		for (i = 0; i < 2; i++)
			if (o->dep[i] >= 0 && end[o->dep[i]] > start)
				start = end[o->dep[i]];
		end[j] = start + m->dma_ns + (bps > 0 ? (uint64_t)(o->len * 1e9 / bps) : 0);
		if (o->link)
			end[j] += m->route_ns[(size_t)o->rank * s->nranks + o->peer];
		if (end[j] > t)
			t = end[j];
	}
	free(end);
	return t;
}

/*
 * The tree moves the whole buffer 2 ceil(log2 n) times one after another,
 * the ring 2 (n - 1) / n of it, so the tree is ahead only while latency
 * outweighs bytes: with each step's latency L (engine and route) and the
 * bandwidth B, about while bytes / B < ((n - 1) - ceil(log2 n)) L /
 * (ceil(log2 n) - (n - 1) / n). Rather than that formula, the two
 * schedules themselves are timed under the model (xms_sched_time), which
 * takes each route's own latency: on a ring topology the tree's peers
 * are 2^k hops apart.
 */
int xms_sched_pick(uint32_t nranks, uint64_t count, uint32_t esize,
		   const struct xms_cost *m)
{
	struct xms_sched ring, tree;
	uint64_t tr, tt;
	int ret;

	ret = xms_sched_build_algo(&tree, XMS_COLL_ALL_REDUCE, XMS_ALGO_TREE,
				   nranks, count, esize, 0, 0);
	if (ret)
		return ret;
	ret = xms_sched_build_algo(&ring, XMS_COLL_ALL_REDUCE, XMS_ALGO_RING,
				   nranks, count, esize, 0, 0);
	if (ret) {
		xms_sched_free(&tree);
		return ret;
	}
	tt = xms_sched_time(&tree, m);
	tr = xms_sched_time(&ring, m);
	xms_sched_free(&tree);
	xms_sched_free(&ring);
	return tt < tr ? XMS_ALGO_TREE : XMS_ALGO_RING;
}
