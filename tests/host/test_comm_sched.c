// SPDX-License-Identifier: GPL-2.0
/*
 * test_comm_sched: the collectives' schedules (userspace/lib/comm_sched.c)
 * without a device. Each schedule runs on host memory in the latest order
 * its dependencies allow (the highest-numbered transfer whose waits are
 * done goes first), so a wait the schedule forgot shows as wrong bytes;
 * the result must equal xms_coll_expect's, the host reduction in the
 * ring's order, bit for bit. And nccl-tests' busbw factors.
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

/* Transfer j of s on host memory: dst (of its rank, or the next) op= src. */
static int apply(struct host *h, const struct xms_sched *s, size_t j,
		 uint32_t op, uint32_t dtype)
{
	const struct xms_cop *o = &s->ops[j];
	uint32_t q = o->link ? (o->rank + 1) % h->n : o->rank;
	uint8_t *src = h->buf[o->rank][o->sbuf], *dst = h->buf[q][o->dbuf];

	if (o->soff + o->len > s->buf_len[o->sbuf] ||
	    o->doff + o->len > s->buf_len[o->dbuf] || o->rank >= h->n)
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

/* One collective on n host ranks against xms_coll_expect; 0 if equal. */
static int one(int coll, uint32_t n, uint64_t count, uint32_t dtype,
	       uint32_t op, uint32_t slices, uint32_t root, int in_place)
{
	uint32_t es = dp_reduce_size(dtype), r, b;
	struct host h = { .n = n };
	const void *send[64];
	void *want[64];
	struct xms_sched s;
	int ret = xms_sched_build(&s, coll, n, count, es, slices, root);

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
		ret = xms_coll_expect(coll, (int)n, send, want, count, dtype, op, (int)root);
	if (!ret)
		ret = run_late(&h, &s, op, dtype);
	for (r = 0; r < n && !ret; r++)
		ret = memcmp(want[r], h.buf[r][XMS_BUF_RECV], s.buf_len[XMS_BUF_RECV]) ? 1 : 0;
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
