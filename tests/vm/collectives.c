// SPDX-License-Identifier: GPL-2.0
/*
 * collectives: libxmemsim's communicator (xms_comm_init(3)) over every
 * device of the module. Every collective at several sizes and types,
 * against the host reduction in the order of the algorithm the call took
 * (the ring, or the all-reduce's tree), bit for bit (#wrong 0);
 * busbw against the link bandwidth and the small-size time against the
 * latency bound, as ratios of modeled time; the tree against the ring at
 * small sizes; and teardown with transfers
 * in flight on every device: a process killed mid-collective leaves no
 * byte behind and nothing hangs. tests/vm/run.sh loads the module with
 * devices=4 and devices=16 and runs this.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define MAXR 32

static int ndev, have_dmabuf;
static struct xms_comm *comm;
static uint64_t sendb[MAXR], recvb[MAXR], cap;
static uint8_t *hsend[MAXR], *hrecv[MAXR], *hwant[MAXR];

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static void fill(uint8_t *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		p[i] = (uint8_t)(rng >> 32);
	}
}

static long long hbm_used(int i)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/misc/xmemsim%.0u/hbm_used", (unsigned int)i);
	return test_read_ll(path);
}

/* Every device's HBM back to before[] within 5 s (files closed by exits). */
static int hbm_back(const long long *before)
{
	int i, r, back = 0;

	for (i = 0; i < 500 && !back; i++) {
		for (r = 0, back = 1; r < ndev; r++)
			back &= hbm_used(r) == before[r];
		if (!back)
			usleep(10000);
	}
	return back;
}

/* Each rank's send and receive buffers, cap bytes each. */
static int setup(uint64_t bytes)
{
	int r, ret = xms_comm_init_all(&comm, ndev, NULL);

	cap = bytes;
	for (r = 0; !ret && r < ndev; r++) {
		struct xms_dev *d = xms_comm_dev(comm, r);

		ret = xms_alloc(d, HBM, cap, 4096, 0, &sendb[r], NULL);
		if (!ret)
			ret = xms_alloc(d, HBM, cap, 4096, 0, &recvb[r], NULL);
		hsend[r] = malloc(cap);
		hrecv[r] = malloc(cap);
		hwant[r] = malloc(cap);
		if (!hsend[r] || !hrecv[r] || !hwant[r])
			ret = -ENOMEM;
	}
	return ret;
}

/* The bytes coll's send and receive buffers take, per rank. */
static void sizes(int coll, uint64_t count, uint32_t es, uint64_t *s, uint64_t *r)
{
	uint64_t one = count * es, all = one * (uint64_t)ndev;

	*s = coll == XMS_COLL_REDUCE_SCATTER ? all : one;
	*r = coll == XMS_COLL_ALL_GATHER ? all : one;
}

static int call_on(struct xms_comm *c, int coll, const uint64_t *s,
		   const uint64_t *r, uint64_t count, uint32_t t, uint32_t op,
		   uint64_t *ns)
{
	switch (coll) {
	case XMS_COLL_ALL_REDUCE:
		return xms_all_reduce(c, s, r, count, t, op, ns);
	case XMS_COLL_REDUCE_SCATTER:
		return xms_reduce_scatter(c, s, r, count, t, op, ns);
	case XMS_COLL_ALL_GATHER:
		return xms_all_gather(c, s, r, count, t, ns);
	default:
		return xms_broadcast(c, s, r, count, t, ndev - 1, ns);
	}
}

static int call(int coll, const uint64_t *s, const uint64_t *r, uint64_t count,
		uint32_t t, uint32_t op, uint64_t *ns)
{
	return call_on(comm, coll, s, r, count, t, op, ns);
}

/*
 * One collective with fresh random send buffers (in place: the receive
 * buffers are the send buffers): the elements that differ from the host's
 * reduction (-errno if it failed), its modeled time in *ns.
 */
static long long run_one(int coll, uint64_t count, uint32_t t, uint32_t op,
			 int in_place, uint64_t *ns)
{
	uint32_t es = t == XMEMSIM_DMA_T_F32 || t == XMEMSIM_DMA_T_I32 ? 4 : 2;
	uint64_t sl, rl, i, *rb = in_place ? sendb : recvb;
	long long wrong = 0;
	int r, ret = 0;

	sizes(coll, count, es, &sl, &rl);
	if (sl > cap || rl > cap || (in_place && sl != rl))
		return -EINVAL;
	for (r = 0; !ret && r < ndev; r++) {
		fill(hsend[r], sl);
		ret = xms_write(xms_comm_dev(comm, r), sendb[r], hsend[r], sl);
	}
	if (!ret)
		ret = xms_comm_algo(comm, coll, count, t);
	if (ret >= 0)
		ret = xms_coll_expect_algo(ret, coll, ndev, (const void *const *)hsend,
					   (void *const *)hwant, count, t, op, ndev - 1);
	if (!ret)
		ret = call(coll, sendb, rb, count, t, op, ns);
	for (r = 0; !ret && r < ndev; r++) {
		ret = xms_read(xms_comm_dev(comm, r), rb[r], hrecv[r], rl);
		for (i = 0; !ret && i < rl; i += es)
			wrong += !!memcmp(hrecv[r] + i, hwant[r] + i, es);
	}
	return ret ? ret : wrong;
}

/* The latest (last = 1) or earliest modeled now of the ranks' files. */
static uint64_t ranks_now(int last)
{
	struct xmemsim_dma_info di;
	uint64_t t = last ? 0 : UINT64_MAX;
	int r;

	for (r = 0; r < ndev; r++)
		if (!xms_dma_info(xms_comm_dev(comm, r), &di))
			t = last ? (di.now_ns > t ? di.now_ns : t) :
				   (di.now_ns < t ? di.now_ns : t);
	return t;
}

static const char *const coll_name[] = {
	"all-reduce", "reduce-scatter", "all-gather", "broadcast",
};

/* every type and op of coll at counts that divide and do not */
static void every(int coll)
{
	static const uint32_t types[] = { XMEMSIM_DMA_T_F32, XMEMSIM_DMA_T_BF16,
					  XMEMSIM_DMA_T_F16, XMEMSIM_DMA_T_I32 };
	static const uint64_t counts[] = { 1, 1031, 16384 };
	size_t c, t;
	int place;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	for (c = 0; c < 3; c++)
		for (t = 0; t < 4; t++)
			for (place = 0; place < 2; place++) {
				uint32_t op = (c + t) & 1 ? XMEMSIM_DMA_OP_MAX : XMEMSIM_DMA_OP_SUM;
				uint64_t ns = 0;
				long long wrong;

				if (place && (coll == XMS_COLL_REDUCE_SCATTER ||
					      coll == XMS_COLL_ALL_GATHER))
					continue;
				wrong = run_one(coll, counts[c], types[t], op, place, &ns);
				if (wrong)
					printf("#   %s count %llu type %u op %u%s: #wrong %lld\n",
					       coll_name[coll], (unsigned long long)counts[c],
					       types[t], op, place ? " in place" : "", wrong);
				CHECK(wrong == 0 && ns > 0);
			}
}

TEST(all_reduce_every_type_wrong_0) { every(XMS_COLL_ALL_REDUCE); }
TEST(reduce_scatter_every_type_wrong_0) { every(XMS_COLL_REDUCE_SCATTER); }
TEST(all_gather_every_type_wrong_0) { every(XMS_COLL_ALL_GATHER); }
TEST(broadcast_every_type_wrong_0) { every(XMS_COLL_BROADCAST); }

/* A size that cuts each chunk into slices, pipelined: still #wrong 0. */
TEST(sliced_sizes_wrong_0)
{
	uint64_t count = cap / 4 / (uint64_t)ndev * (uint64_t)ndev - 3, ns;
	int coll;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	CHECK(run_one(XMS_COLL_ALL_REDUCE, count, XMEMSIM_DMA_T_F32,
		      XMEMSIM_DMA_OP_SUM, 0, &ns) == 0);
	for (coll = 1; coll < 4; coll++)
		CHECK(run_one(coll, coll == XMS_COLL_BROADCAST ? count :
			      count / (uint64_t)ndev, XMEMSIM_DMA_T_BF16,
			      XMEMSIM_DMA_OP_SUM, 0, &ns) == 0);
}

/*
 * busbw at the largest size of the test (cap bytes a rank) against the
 * link's bandwidth: at least 0.9 and at most 1, as a ratio of modeled time.
 */
TEST(busbw_at_least_0_9_of_the_link)
{
	double link = (double)test_param("link_mbps") * 1e6, busbw;
	uint64_t count = cap / 4, ns = 0, t0;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	t0 = ranks_now(1);
	REQUIRE(run_one(XMS_COLL_ALL_REDUCE, count, XMEMSIM_DMA_T_F32,
			XMEMSIM_DMA_OP_SUM, 1, &ns) == 0 && ns);
	/* every rank's last step is the ring's last: all end within a slice */
	CHECK(ranks_now(0) - t0 >= ns - ns / 100);
	busbw = (double)cap / (ns / 1e9) * xms_coll_busbw_factor(XMS_COLL_ALL_REDUCE, ndev);
	printf("# all-reduce %llu B on %d devices: %llu ns, busbw %.2f GB/s, %.3f of the link\n",
	       (unsigned long long)cap, ndev, (unsigned long long)ns, busbw / 1e9, busbw / link);
	CHECK(busbw >= 0.9 * link);
	/* and never past the link: a step that starts before the one it needs ended would */
	CHECK(busbw <= link * 1.0001);
}

/*
 * One element a rank: 2 (n - 1) steps one after another, each a
 * transfer's latency (the engine's and the link's). The ratio to the
 * issue's bound of 2 (n - 1) link latencies is printed; the time may not
 * pass 2 (n - 1) whole transfer latencies by more than a tenth.
 */
TEST(small_size_near_the_latency_bound)
{
	uint64_t link = test_param("link_latency_ns"), dma = test_param("dma_latency_ns");
	uint64_t steps = 2 * (uint64_t)(ndev - 1), ns = 0, t0;
	long long wrong;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	REQUIRE(xms_comm_set_algo(comm, XMS_ALGO_RING) == 0);	/* the ring's bound */
	t0 = ranks_now(1);
	wrong = run_one(XMS_COLL_ALL_REDUCE, (uint64_t)ndev, XMEMSIM_DMA_T_F32,
			XMEMSIM_DMA_OP_SUM, 1, &ns);
	REQUIRE(xms_comm_set_algo(comm, XMS_ALGO_AUTO) == 0);
	REQUIRE(wrong == 0 && ns);
	/*
	 * Each rank's steps follow its neighbour's, so every rank ends with
	 * the last: a step started before the one it needs ended (the order
	 * across devices lost) leaves ranks ending early.
	 */
	CHECK(ranks_now(0) == t0 + ns && ranks_now(1) == t0 + ns);
	printf("# all-reduce %d B on %d devices: %llu ns, %.2f x 2(n-1) link latencies, %.2f x 2(n-1) transfer latencies\n",
	       4 * ndev, ndev, (unsigned long long)ns, (double)ns / (steps * link),
	       (double)ns / (steps * (link + dma)));
	CHECK(ns >= steps * (link + dma));
	CHECK(ns * 10 <= 11 * steps * (link + dma) + 1000);
}

/*
 * The tree at every type and op, counts of one element and more, in and
 * out of place: #wrong 0 against the host's reduction in the tree's
 * order, on every rank (so every rank holds the same bits).
 */
TEST(tree_all_reduce_every_type_wrong_0)
{
	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	REQUIRE(xms_comm_set_algo(comm, XMS_ALGO_TREE) == 0);
	CHECK(xms_comm_algo(comm, XMS_COLL_ALL_REDUCE, 1, XMEMSIM_DMA_T_F32) == XMS_ALGO_TREE);
	CHECK(xms_comm_algo(comm, XMS_COLL_ALL_GATHER, 1, XMEMSIM_DMA_T_F32) == XMS_ALGO_RING);
	every(XMS_COLL_ALL_REDUCE);
	REQUIRE(xms_comm_set_algo(comm, XMS_ALGO_AUTO) == 0);
}

/* One all-reduce of bytes (float sum, in place) by algo: its modeled time, 0 if wrong. */
static uint64_t timed(int algo, uint64_t bytes)
{
	uint64_t ns = 0;
	long long wrong;

	if (xms_comm_set_algo(comm, algo))
		return 0;
	wrong = run_one(XMS_COLL_ALL_REDUCE, bytes / 4, XMEMSIM_DMA_T_F32,
			XMEMSIM_DMA_OP_SUM, 1, &ns);
	xms_comm_set_algo(comm, XMS_ALGO_AUTO);
	return wrong ? 0 : ns;
}

/*
 * Small all-reduces, 8 B (one element a rank at least) to 64 KiB: the
 * tree's modeled time and its ratio to the ring's at the same size, and
 * what the default takes. At one element a rank the tree is ahead from 4
 * devices on; the default takes whichever the model says, which is never
 * slower than the ring by more than a tenth; and the largest size of the
 * test keeps the ring.
 */
TEST(small_all_reduce_tree_against_the_ring)
{
	uint64_t bytes, min = 4 * (uint64_t)ndev, prev = 0;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	for (bytes = 8; bytes <= 65536; bytes *= 2) {
		uint64_t b = bytes < min ? min : bytes / min * min, ring, tree, dflt;
		int pick;

		if (b == prev)	/* sizes below an element a rank: one line */
			continue;
		prev = b;
		ring = timed(XMS_ALGO_RING, b);
		tree = timed(XMS_ALGO_TREE, b);
		dflt = timed(XMS_ALGO_AUTO, b);
		pick = xms_comm_algo(comm, XMS_COLL_ALL_REDUCE, b / 4, XMEMSIM_DMA_T_F32);
		printf("# all-reduce %llu B on %d devices: ring %llu ns, tree %llu ns, tree/ring %.2f, default %s %llu ns\n",
		       (unsigned long long)b, ndev, (unsigned long long)ring,
		       (unsigned long long)tree, ring ? (double)tree / ring : 0,
		       pick == XMS_ALGO_TREE ? "tree" : "ring", (unsigned long long)dflt);
		CHECK(ring && tree && dflt);
		CHECK(dflt == (pick == XMS_ALGO_TREE ? tree : ring));
		CHECK(dflt * 10 <= ring * 11);
		if (b == min && ndev >= 4)
			CHECK(tree < ring && pick == XMS_ALGO_TREE);
	}
	CHECK(xms_comm_algo(comm, XMS_COLL_ALL_REDUCE, cap / 4, XMEMSIM_DMA_T_F32) ==
	      XMS_ALGO_RING);
}

/* A child that runs all-reduces until it is killed. */
static void spin_child(int ready)
{
	struct xms_comm *c;
	uint64_t s[MAXR];
	int r;

	if (xms_comm_init_all(&c, ndev, NULL))
		_exit(2);
	for (r = 0; r < ndev; r++)
		if (xms_alloc(xms_comm_dev(c, r), HBM, cap, 4096, 0, &s[r], NULL))
			_exit(3);
	if (write(ready, "x", 1) != 1)
		_exit(4);
	for (;;)
		if (xms_all_reduce(c, s, s, cap / 4, XMEMSIM_DMA_T_F32,
				   XMEMSIM_DMA_OP_SUM, NULL))
			_exit(5);
}

/*
 * Killed mid-collective (every device has transfers queued or moving,
 * each file imports its neighbour's buffer): the process goes without a
 * hang, and every device's HBM is back to what it was.
 */
TEST(teardown_with_transfers_in_flight)
{
	long long before[MAXR];
	int p[2], r, st, i;
	pid_t pid;
	char x;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	for (r = 0; r < ndev; r++)
		before[r] = hbm_used(r);
	for (i = 0; i < 3; i++) {
		REQUIRE(pipe(p) == 0);
		pid = fork();
		REQUIRE(pid >= 0);
		if (!pid) {
			close(p[0]);
			spin_child(p[1]);
		}
		close(p[1]);
		CHECK(read(p[0], &x, 1) == 1);
		close(p[0]);
		usleep(20000 + 40000 * i);
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
	}
	CHECK(hbm_back(before));
	/* and the devices still collect */
	CHECK(run_one(XMS_COLL_ALL_REDUCE, 4096, XMEMSIM_DMA_T_F32,
		      XMEMSIM_DMA_OP_SUM, 0, &(uint64_t){ 0 }) == 0);
}

/*
 * Rank r in a process of its own (xms_comm_init_rank): its device, its
 * buffers, the host's send data of every rank (made before the fork) and
 * the expected result; 0 if its receive buffer matches it, bit for bit.
 * With forever set it runs the collective until one fails: 7 if that is
 * the ring breaking (a neighbour gone), anything else otherwise.
 */
static int rank_child(int r, int prev, int next, int coll, uint64_t count,
		      uint32_t t, int forever)
{
	uint32_t es = t == XMEMSIM_DMA_T_F32 || t == XMEMSIM_DMA_T_I32 ? 4 : 2;
	uint64_t s, d, sl, rl, ns = 0;
	struct xms_comm *c;
	struct xms_dev *dev;
	int ret;

	sizes(coll, count, es, &sl, &rl);
	ret = xms_comm_init_rank(&c, ndev, r, r, prev, next);
	if (ret)
		return 2;
	dev = xms_comm_dev(c, r);
	if (xms_comm_user_rank(c) != r || xms_comm_dev(c, (r + 1) % ndev) ||
	    xms_comm_set_algo(c, XMS_ALGO_TREE) != -EOPNOTSUPP ||
	    xms_comm_algo(c, XMS_COLL_ALL_REDUCE, count, t) != XMS_ALGO_RING ||
	    xms_alloc(dev, HBM, cap, 4096, 0, &s, NULL) ||
	    xms_alloc(dev, HBM, cap, 4096, 0, &d, NULL) ||
	    xms_write(dev, s, hsend[r], sl))
		return 3;
	do
		ret = call_on(c, coll, &s, &d, count, t, XMEMSIM_DMA_OP_SUM, &ns);
	while (forever && !ret);
	if (forever)
		return ret == -ECONNRESET || ret == -EPIPE ? 7 : 8;
	if (ret || !ns || xms_read(dev, d, hrecv[r], rl))
		return 4;
	return memcmp(hrecv[r], hwant[r], rl) ? 5 : 0;
}

/*
 * Every rank a process: socketpairs between neighbours, rank r's
 * children forked; each rank's exit status in st[]. kill_at >= 0: kill
 * that rank after 50 ms of its collectives (the others then run forever
 * until the ring breaks). 0, or -1 if one took over two minutes.
 */
static int ranks_forked(int coll, uint64_t count, uint32_t t, int kill_at, int *st)
{
	int sp[MAXR][2], r, left, i, w;
	pid_t pid[MAXR];

	for (r = 0; r < ndev; r++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp[r]))
			return -1;
	for (r = 0; r < ndev; r++) {
		pid[r] = fork();
		if (!pid[r]) {	/* its two ends alone: a neighbour's exit is EOF */
			int prev = sp[(r + ndev - 1) % ndev][1], next = sp[r][0], q;

			for (q = 0; q < ndev; q++) {
				if (sp[q][0] != next)
					close(sp[q][0]);
				if (sp[q][1] != prev)
					close(sp[q][1]);
			}
			_exit(rank_child(r, prev, next, coll, count, t, kill_at >= 0));
		}
	}
	for (r = 0; r < ndev; r++) {
		close(sp[r][0]);
		close(sp[r][1]);
	}
	if (kill_at >= 0) {
		usleep(50000);
		kill(pid[kill_at], SIGKILL);
	}
	for (i = 0, left = ndev; left && i < 12000; i++) {
		for (r = 0; r < ndev; r++)
			if (pid[r] > 0 && waitpid(pid[r], &w, WNOHANG) == pid[r]) {
				st[r] = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
				pid[r] = 0;
				left--;
			}
		if (left)
			usleep(10000);
	}
	for (r = 0; r < ndev; r++)
		if (pid[r] > 0) {
			kill(pid[r], SIGKILL);
			waitpid(pid[r], &w, 0);
			st[r] = -1;
		}
	return left ? -1 : 0;
}

/* One collective, every rank a process: #wrong 0 on every rank. */
static int forked_one(int coll, uint64_t count, uint32_t t)
{
	uint32_t es = t == XMEMSIM_DMA_T_F32 || t == XMEMSIM_DMA_T_I32 ? 4 : 2;
	int st[MAXR], r, bad = 0;
	uint64_t sl, rl;

	sizes(coll, count, es, &sl, &rl);
	for (r = 0; r < ndev; r++)
		fill(hsend[r], sl);
	if (xms_coll_expect(coll, ndev, (const void *const *)hsend,
			    (void *const *)hwant, count, t, XMEMSIM_DMA_OP_SUM, ndev - 1))
		return -1;
	if (ranks_forked(coll, count, t, -1, st))
		return -1;
	for (r = 0; r < ndev; r++)
		if (st[r]) {
			printf("#   %s count %llu: rank %d exit %d\n", coll_name[coll],
			       (unsigned long long)count, r, st[r]);
			bad++;
		}
	return bad;
}

/*
 * NCCL's ncclCommInitRank: each rank in its own process, the dma-buf fds
 * of its buffers passed to its neighbour over a Unix socket, and the ends
 * of the steps it waits for: every collective, #wrong 0 on every rank.
 */
TEST(rank_a_process_fds_over_sockets_wrong_0)
{
	int coll;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	for (coll = 0; coll < 4; coll++)
		CHECK(forked_one(coll, 1031, coll & 1 ? XMEMSIM_DMA_T_BF16 :
				 XMEMSIM_DMA_T_F32) == 0);
	CHECK(forked_one(XMS_COLL_ALL_REDUCE, cap / 4 - 5, XMEMSIM_DMA_T_F32) == 0);
}

/* A rank killed mid-collective: the others see the ring break, none hangs. */
TEST(rank_process_killed_breaks_the_ring_without_a_hang)
{
	long long before[MAXR];
	int st[MAXR], r;

	if (!have_dmabuf)
		SKIP("no XMEMSIM_FEAT_DMABUF: the kernel has no dma-buf");
	for (r = 0; r < ndev; r++)
		before[r] = hbm_used(r);
	REQUIRE(ranks_forked(XMS_COLL_ALL_REDUCE, cap / 4, XMEMSIM_DMA_T_F32, 1, st) == 0);
	for (r = 0; r < ndev; r++)
		if (r != 1) {
			if (st[r] != 7)
				printf("#   rank %d exit %d\n", r, st[r]);
			CHECK(st[r] == 7);
		}
	CHECK(st[1] == 128 + SIGKILL);
	CHECK(hbm_back(before));
}

/* Bad arguments: -errno, nothing run. */
TEST(bad_arguments_are_refused)
{
	struct xms_comm *c;

	CHECK(xms_comm_init_all(&c, 0, NULL) == -EINVAL);
	CHECK(xms_comm_init_all(&c, 2, (const int[]){ 1, 1 }) == -EINVAL);
	CHECK(xms_comm_init_all(&c, 1, (const int[]){ 40 }) == -ENOENT);
	CHECK(xms_comm_init_rank(&c, 2, 2, 0, 3, 4) == -EINVAL);
	CHECK(xms_comm_init_rank(&c, 2, 0, 0, -1, 4) == -EINVAL);
	if (!have_dmabuf)
		return;
	CHECK(xms_all_reduce(comm, sendb, recvb, 4, 99, XMEMSIM_DMA_OP_SUM, NULL) == -EINVAL);
	CHECK(xms_all_reduce(comm, sendb, recvb, 4, XMEMSIM_DMA_T_F32, 7, NULL) == -EINVAL);
	CHECK(xms_broadcast(comm, sendb, recvb, 4, XMEMSIM_DMA_T_F32, ndev, NULL) == -EINVAL);
	/* a buffer not the rank's: the export is refused */
	CHECK(xms_all_reduce(comm, sendb, (const uint64_t[MAXR]){ 0x1000 }, 4,
			     XMEMSIM_DMA_T_F32, XMEMSIM_DMA_OP_SUM, NULL) < 0);
	CHECK(xms_comm_count(comm) == ndev && !xms_comm_dev(comm, ndev));
}

int main(int argc, char **argv)
{
	struct xmemsim_info in;
	struct xms_dev x;
	int ret;

	ndev = (int)test_param("devices");
	if (ndev < 2 || ndev > MAXR) {
		printf("1..0 # SKIP needs the module loaded with devices=2..%d\n", MAXR);
		return 0;
	}
	if (xms_open(&x, NULL) == 0) {
		if (xms_get_info(&x, &in) == 0)
			have_dmabuf = !!(in.features & XMEMSIM_FEAT_DMABUF);
		xms_close(&x);
	}
	/* a few MiB a rank: the bench takes the large sizes (scripts/bench-collectives.sh) */
	if (have_dmabuf && setup(argc > 1 ? strtoull(argv[1], NULL, 0) : 4 << 20)) {
		printf("1..0 # SKIP no communicator over %d devices\n", ndev);
		return 1;
	}
	ret = tap_run();
	if (comm)
		xms_comm_destroy(comm);
	return ret;
}
