// SPDX-License-Identifier: GPL-2.0
/*
 * test_comm_sched: the collectives' schedules (userspace/lib/comm_sched.c)
 * without a device. Each schedule runs on host memory in the latest order
 * its dependencies allow (the highest-numbered transfer whose waits are
 * done goes first), so a wait the schedule forgot shows as wrong bytes;
 * the result must equal xms_coll_expect_algo's, the host reduction in the
 * schedule's order (the ring's, or the tree's at small sizes), bit for
 * bit, on every rank. The model's estimate of a schedule's time and the
 * pick between the two; and nccl-tests' busbw factors.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_sched.h"
#include "dp_device.h"
#include "tap.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint8_t next_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

struct host {
	uint32_t n;
	uint8_t *buf[64][XMS_NUM_BUFS];
};

/* Transfer j of s on host memory: dst (of its rank, or its peer) op= src. */
static int apply(struct host *h, const struct xms_sched *s, size_t j,
		 uint32_t op, uint32_t dtype)
{
	const struct xms_cop *o = &s->ops[j];
	uint32_t q = o->link ? o->peer : o->rank;
	uint8_t *src = h->buf[o->rank][o->sbuf], *dst = h->buf[q][o->dbuf];

	if (o->soff + o->len > s->buf_len[o->sbuf] ||
	    o->doff + o->len > s->buf_len[o->dbuf] || o->rank >= h->n || q >= h->n ||
	    (o->link && q == o->rank))
		return -1;
	if (o->reduce)
		dp_reduce_buf(dst + o->doff, src + o->soff, o->len, op, dtype);
	else
		memmove(dst + o->doff, src + o->soff, o->len);
	return 0;
}

/* Run s in the latest order its waits allow; -1 if a wait is not earlier. */
static int run_late(struct host *h, const struct xms_sched *s, uint32_t op,
		    uint32_t dtype)
{
	uint8_t *done = calloc(s->n + 1, 1);
	size_t left = s->n, j;
	int ret = done ? 0 : -1;

	for (j = 0; !ret && j < s->n; j++)
		if (s->ops[j].dep[0] >= (int32_t)j || s->ops[j].dep[1] >= (int32_t)j)
			ret = -1;
	while (!ret && left) {
		for (j = s->n; j-- > 0;) {
			const struct xms_cop *o = &s->ops[j];

			if (!done[j] && (o->dep[0] < 0 || done[o->dep[0]]) &&
			    (o->dep[1] < 0 || done[o->dep[1]]))
				break;
		}
		ret = apply(h, s, j, op, dtype);
		done[j] = 1;
		left--;
	}
	free(done);
	return ret;
}

/* One collective on n host ranks against xms_coll_expect_algo; 0 if equal. */
static int one_algo(int algo, int coll, uint32_t n, uint64_t count,
		    uint32_t dtype, uint32_t op, uint32_t slices, uint32_t root,
		    int in_place)
{
	uint32_t es = dp_reduce_size(dtype), r, b;
	struct host h = { .n = n };
	const void *send[64];
	void *want[64];
	struct xms_sched s;
	int ret = xms_sched_build_algo(&s, coll, algo, n, count, es, slices, root);

	for (r = 0; !ret && r < n; r++) {
		for (b = 0; b < XMS_NUM_BUFS; b++) {
			h.buf[r][b] = malloc(s.buf_len[b] + 1);
			for (uint64_t i = 0; i < s.buf_len[b]; i++)
				h.buf[r][b][i] = next_byte();
		}
		want[r] = malloc(s.buf_len[XMS_BUF_RECV] + 1);
		if (in_place && s.buf_len[XMS_BUF_SEND] == s.buf_len[XMS_BUF_RECV]) {
			free(h.buf[r][XMS_BUF_RECV]);
			h.buf[r][XMS_BUF_RECV] = h.buf[r][XMS_BUF_SEND];
		}
		send[r] = h.buf[r][XMS_BUF_SEND];
	}
	/* an in-place run's send buffer is its receive buffer: expect from a copy */
	for (r = 0; !ret && in_place && r < n; r++) {
		void *c = malloc(s.buf_len[XMS_BUF_SEND] + 1);

		memcpy(c, send[r], s.buf_len[XMS_BUF_SEND]);
		send[r] = c;
	}
	if (!ret)
		ret = xms_coll_expect_algo(algo, coll, (int)n, send, want, count, dtype,
					   op, (int)root);
	if (!ret)
		ret = run_late(&h, &s, op, dtype);
	for (r = 0; r < n && !ret; r++)
		ret = memcmp(want[r], h.buf[r][XMS_BUF_RECV], s.buf_len[XMS_BUF_RECV]) ? 1 : 0;
	/* an all-reduce leaves the same bits on every rank */
	for (r = 1; r < n && !ret && coll == XMS_COLL_ALL_REDUCE; r++)
		ret = memcmp(h.buf[0][XMS_BUF_RECV], h.buf[r][XMS_BUF_RECV],
			     s.buf_len[XMS_BUF_RECV]) ? 2 : 0;
	for (r = 0; r < n && s.n; r++) {
		if (h.buf[r][XMS_BUF_RECV] != h.buf[r][XMS_BUF_SEND])
			free(h.buf[r][XMS_BUF_RECV]);
		else
			free((void *)send[r]);
		free(h.buf[r][XMS_BUF_SEND]);
		free(h.buf[r][XMS_BUF_SCRATCH]);
		free(want[r]);
	}
	xms_sched_free(&s);
	return ret;
}

static int one(int coll, uint32_t n, uint64_t count, uint32_t dtype,
	       uint32_t op, uint32_t slices, uint32_t root, int in_place)
{
	return one_algo(XMS_ALGO_RING, coll, n, count, dtype, op, slices, root,
			in_place);
}

static const uint32_t types[] = {
	XMEMSIM_DMA_T_F32, XMEMSIM_DMA_T_BF16, XMEMSIM_DMA_T_F16, XMEMSIM_DMA_T_I32,
};

/* every collective, type, op and shape (counts that do not divide) */
static void sweep(int coll, int in_place)
{
	static const uint32_t ns[] = { 1, 2, 3, 4, 5, 8, 16 };
	static const uint64_t counts[] = { 1, 7, 64, 1000 };
	static const uint32_t slices[] = { 1, 2, 3, 8 };
	size_t a, b, c, t;

	for (a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (b = 0; b < sizeof(counts) / sizeof(counts[0]); b++)
			for (c = 0; c < sizeof(slices) / sizeof(slices[0]); c++)
				for (t = 0; t < 4; t++) {
					uint32_t op = t & 1 ? XMEMSIM_DMA_OP_MAX : XMEMSIM_DMA_OP_SUM;
					int bad = one(coll, ns[a], counts[b], types[t], op,
						      slices[c], ns[a] - 1, in_place);

					if (bad)
						printf("#   coll %d n %u count %llu slices %u type %u: %d\n",
						       coll, ns[a], (unsigned long long)counts[b],
						       slices[c], types[t], bad);
					CHECK(!bad);
				}
}

TEST(all_reduce_out_of_place) { sweep(XMS_COLL_ALL_REDUCE, 0); }
TEST(all_reduce_in_place) { sweep(XMS_COLL_ALL_REDUCE, 1); }
TEST(reduce_scatter) { sweep(XMS_COLL_REDUCE_SCATTER, 0); }
TEST(all_gather) { sweep(XMS_COLL_ALL_GATHER, 0); }
TEST(broadcast) { sweep(XMS_COLL_BROADCAST, 0); }
TEST(broadcast_in_place) { sweep(XMS_COLL_BROADCAST, 1); }

/*
 * The tree's all-reduce on 2 to 17 ranks (powers of two and not), every
 * type and op, counts that are one element and many, in and out of place.
 */
static void sweep_tree(int in_place)
{
	static const uint64_t counts[] = { 1, 3, 64, 1000, 4099 };
	uint32_t n, op;
	size_t b, t;

	for (n = 2; n <= 17; n++)
		for (b = 0; b < sizeof(counts) / sizeof(counts[0]); b++)
			for (t = 0; t < 4; t++)
				for (op = XMEMSIM_DMA_OP_SUM; op <= XMEMSIM_DMA_OP_MAX; op++) {
					int bad = one_algo(XMS_ALGO_TREE, XMS_COLL_ALL_REDUCE, n,
							   counts[b], types[t], op, 0, 0,
							   in_place);

					if (bad)
						printf("#   tree n %u count %llu type %u op %u: %d\n",
						       n, (unsigned long long)counts[b], types[t],
						       op, bad);
					CHECK(!bad);
				}
}

TEST(tree_all_reduce_out_of_place) { sweep_tree(0); }
TEST(tree_all_reduce_in_place) { sweep_tree(1); }

/*
 * The tree's order is not the ring's: sums of floats differ in their last
 * bits, which is why the expectation takes the algorithm.
 */
TEST(tree_order_is_its_own)
{
	static const uint32_t v[4] = { 0x3f800000, 0x33800000, 0x33800000, 0xbf800000 };
	const void *send[4] = { &v[0], &v[1], &v[2], &v[3] };
	uint32_t ring[4], tree[4];
	void *rr[4] = { &ring[0], &ring[1], &ring[2], &ring[3] };
	void *tt[4] = { &tree[0], &tree[1], &tree[2], &tree[3] };

	REQUIRE(!xms_coll_expect_algo(XMS_ALGO_RING, XMS_COLL_ALL_REDUCE, 4, send,
				      rr, 1, XMEMSIM_DMA_T_F32, XMEMSIM_DMA_OP_SUM, 0));
	REQUIRE(!xms_coll_expect_algo(XMS_ALGO_TREE, XMS_COLL_ALL_REDUCE, 4, send,
				      tt, 1, XMEMSIM_DMA_T_F32, XMEMSIM_DMA_OP_SUM, 0));
	/* ((1 + e) + e) - 1 rounds e away twice; (1 + e) + (e - 1) keeps one */
	CHECK_EQ_U64(tree[0], 0x33800000);
	CHECK(ring[0] != tree[0]);
	CHECK(tree[3] == tree[0] && ring[3] == ring[0]);
	CHECK(xms_coll_expect_algo(XMS_ALGO_TREE, XMS_COLL_REDUCE_SCATTER, 4, send,
				   tt, 1, XMEMSIM_DMA_T_F32, XMEMSIM_DMA_OP_SUM, 0) < 0);
	CHECK(xms_coll_expect_algo(XMS_ALGO_AUTO, XMS_COLL_ALL_REDUCE, 4, send,
				   tt, 1, XMEMSIM_DMA_T_F32, XMEMSIM_DMA_OP_SUM, 0) < 0);
}

/* 2 ceil(log2 n) link transfers in a row, one a rank each way */
TEST(tree_shape)
{
	struct xms_sched s;
	size_t j, links, locals;
	uint32_t n;

	for (n = 2; n <= 17; n++) {
		REQUIRE(!xms_sched_build_algo(&s, XMS_COLL_ALL_REDUCE, XMS_ALGO_TREE, n,
					      16, 4, 0, 0));
		for (j = links = locals = 0; j < s.n; j++) {
			links += s.ops[j].link;
			locals += !s.ops[j].link;
			CHECK(!s.ops[j].link || s.ops[j].len == 64);
		}
		CHECK_EQ_U64(links, 2 * (n - 1));
		CHECK_EQ_U64(locals, n / 2);	/* the ranks others add into */
		CHECK_EQ_U64(s.buf_len[XMS_BUF_SCRATCH], 0);
		xms_sched_free(&s);
	}
	CHECK(xms_sched_build_algo(&s, XMS_COLL_ALL_GATHER, XMS_ALGO_TREE, 4, 1, 4,
				   0, 0) < 0);
	CHECK(xms_sched_build_algo(&s, XMS_COLL_ALL_REDUCE, XMS_ALGO_AUTO, 4, 1, 4,
				   0, 0) < 0);
}

/* The default models: engines 2 us, 16 GB/s; links 1 us a hop, 12 GB/s. */
static uint64_t routes[32 * 32];

static struct xms_cost model(uint32_t n, int ring_topology)
{
	struct xms_cost m = { 2000, 16000000000ull, 12000000000ull, routes };
	uint32_t a, b;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			uint32_t d = a > b ? a - b : b - a;

			d = ring_topology && n - d < d ? n - d : d;
			routes[a * n + b] = (ring_topology ? d : a != b) * 1000ull;
		}
	return m;
}

static uint64_t estimate(int algo, uint32_t n, uint64_t bytes, int ring_topology)
{
	struct xms_cost m = model(n, ring_topology);
	struct xms_sched s;
	uint64_t t;

	if (xms_sched_build_algo(&s, XMS_COLL_ALL_REDUCE, algo, n, bytes / 4, 4, 0, 0))
		return 0;
	t = xms_sched_time(&s, &m);
	xms_sched_free(&s);
	return t;
}

/*
 * One element a rank: the ring's 2 (n - 1) steps of 3 us (after the 2 us
 * of an out-of-place copy), the tree's 2 ceil(log2 n) levels of 2 us and
 * their routes' latency.
 */
TEST(model_estimates)
{
	uint32_t n;

	for (n = 2; n <= 16; n *= 2) {
		uint32_t m = n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : 4;

		CHECK_EQ_U64(estimate(XMS_ALGO_RING, n, 4 * n, 0) / 1000, 2 + 6 * (n - 1));
		CHECK_EQ_U64(estimate(XMS_ALGO_TREE, n, 4 * n, 0) / 1000, 2 + 6 * m);
		/* on a ring topology the tree's peers are 1, 2, 4 .. hops apart */
		CHECK_EQ_U64(estimate(XMS_ALGO_TREE, n, 4 * n, 1) / 1000,
			     2 + 4 * m + 2 * (n - 1));
	}
}

/* The pick: the tree while latency outweighs bytes, the ring beyond */
TEST(model_pick)
{
	uint64_t bytes, last_tree[17] = { 0 };
	uint32_t n;

	for (n = 2; n <= 16; n++) {
		struct xms_cost m = model(n, 1);

		for (bytes = 4 * n; bytes <= (64u << 20); bytes *= 2) {
			int a = xms_sched_pick(n, bytes / 4, 4, &m);

			CHECK(a == XMS_ALGO_RING || a == XMS_ALGO_TREE);
			if (a == XMS_ALGO_TREE)
				last_tree[n] = bytes;
		}
		/* 2 ranks: a tie, the ring; from 5 the tree at one element */
		CHECK(n != 2 || !last_tree[n]);
		CHECK(n < 5 || last_tree[n] >= 4 * n);
		/* big sizes keep the ring */
		CHECK(xms_sched_pick(n, (32u << 20) / 4, 4, &m) == XMS_ALGO_RING);
		printf("#   n %u: the tree up to %llu B\n", n,
		       (unsigned long long)last_tree[n]);
	}
}

/* a ring step per slice and hop: 2 (n - 1) n slices, each after its predecessor */
TEST(ring_shape)
{
	struct xms_sched s;
	size_t j, links = 0;

	REQUIRE(!xms_sched_build(&s, XMS_COLL_ALL_REDUCE, 4, 4096, 4, 2, 0));
	for (j = 0; j < s.n; j++)
		links += s.ops[j].link;
	CHECK_EQ_U64(links, 2 * 3 * 4 * 2);
	CHECK_EQ_U64(s.n, links + 3 * 4 * 2);	/* each reduce's destination copied in first */
	xms_sched_free(&s);
	CHECK(xms_sched_build(&s, XMS_COLL_BROADCAST + 1, 4, 1, 4, 0, 0) < 0);
	CHECK(xms_sched_build(&s, XMS_COLL_BROADCAST, 4, 1, 4, 0, 4) < 0);
	CHECK(xms_sched_build(&s, XMS_COLL_ALL_REDUCE, 4, UINT64_MAX / 4, 4, 0, 0) < 0);
	CHECK_EQ_U64(xms_sched_slices(XMS_COLL_ALL_REDUCE, 4, 4096), 1);
	CHECK_EQ_U64(xms_sched_slices(XMS_COLL_ALL_REDUCE, 4, 64 << 20), 16);
	CHECK_EQ_U64(xms_sched_slices(XMS_COLL_BROADCAST, 4, 64 << 20), 1024);
}

/* nccl-tests' factors (their doc/PERFORMANCE.md) */
TEST(busbw_factors)
{
	CHECK(xms_coll_busbw_factor(XMS_COLL_ALL_REDUCE, 8) == 2.0 * 7 / 8);
	CHECK(xms_coll_busbw_factor(XMS_COLL_REDUCE_SCATTER, 4) == 0.75);
	CHECK(xms_coll_busbw_factor(XMS_COLL_ALL_GATHER, 16) == 15.0 / 16);
	CHECK(xms_coll_busbw_factor(XMS_COLL_BROADCAST, 16) == 1);
	CHECK(xms_coll_busbw_factor(XMS_COLL_ALL_REDUCE, 1) == 0);
	CHECK(xms_coll_busbw_factor(XMS_COLL_ALL_REDUCE, 0) == 0);
	CHECK(xms_coll_busbw_factor(-1, 4) == 0);
}

int main(void)
{
	return tap_run();
}
