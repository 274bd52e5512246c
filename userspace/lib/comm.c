// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * comm.c - collectives across devices (xms_comm_init(3)): a communicator
 * of one process over several devices, and a schedule (comm_sched.c: the
 * ring, or the all-reduce's tree at small sizes) run on them from peer DMA
 * and the engines' reduce.
 *
 * Each rank's file imports the destination buffers its link transfers
 * write (the next rank's for the ring, its parent's and children's for
 * the tree: dma-buf export there, import here) for the length of a call.
 * A transfer that needs another's end is submitted with not_before_ns at
 * that end, which the host reaps first: the order in modeled time is the
 * order in which the bytes moved. Every transfer is reaped before a call
 * returns, on error too, so nothing of a call outlives it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libxmemsim.h"
#include "comm_run.h"
#include "ktypes.h"
#include "../../kmod/reduce_elem.h"

#define COMM_FEATS	(XMEMSIM_FEAT_DMA_REDUCE | XMEMSIM_FEAT_PEER | \
			 XMEMSIM_FEAT_DMABUF | XMEMSIM_FEAT_DMA_NOT_BEFORE)


int comm_open(struct comm_rank *cr, int dev)
{
	struct xmemsim_dma_info di;
	struct xmemsim_info in;
	char path[32];
	int ret;

	if (dev)
		snprintf(path, sizeof(path), "/dev/xmemsim%d", dev);
	else
		snprintf(path, sizeof(path), XMEMSIM_DEFAULT_PATH);
	ret = xms_open(&cr->dev, path);
	if (ret)
		return ret;
	ret = xms_get_info(&cr->dev, &in);
	if (!ret)
		ret = xms_dma_info(&cr->dev, &di);
	if (!ret && (in.features & COMM_FEATS) != COMM_FEATS)
		ret = -EOPNOTSUPP;
	cr->index = dev;
	cr->engines = ret ? 0 : di.engines;
	cr->depth = ret ? 0 : di.depth;
	cr->dma_ns = ret ? 0 : di.latency_ns;
	cr->local_bps = ret ? 0 : di.bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_HBM];
	return ret;
}

/* A communicator of n ranks, none open yet; me: its rank, -1 every one. */
struct xms_comm *comm_alloc(int n, int me)
{
	struct xms_comm *c = calloc(1, sizeof(*c));
	int i;

	if (c)
		c->r = calloc((unsigned int)n, sizeof(*c->r));
	if (!c || !c->r) {
		free(c);
		return NULL;
	}
	for (i = 0; i < n; i++)
		c->r[i].dev.fd = -1;
	c->n = n;
	c->me = me;
	return c;
}

/*
 * Device dev's routes from its sysfs peers (a header naming the link's
 * bandwidth, then "B hops H via V latency_ns L" a device B): lat[B], and
 * the link's bytes/s in *bps. 0 or -errno.
 */
static int read_peers(int dev, uint64_t *lat, int ndev, uint64_t *bps)
{
	char path[64], line[256], *p;
	unsigned long long v = 0;
	unsigned int b;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/misc/xmemsim%.0u/peers",
		 (unsigned int)dev);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) || !(p = strstr(line, "link_mbps ")) ||
	    sscanf(p, "link_mbps %llu", &v) != 1)
		ret = -EPROTO;
	*bps = v * 1000000ull;
	while (!ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%u hops %*u via %*u latency_ns %llu", &b, &v) == 2 &&
		    (int)b < ndev)
			lat[b] = v;
	fclose(f);
	return ret;
}

#define ROUTES_MAX	64	/* ranks whose routes a communicator keeps */

/*
 * The model the all-reduce's algorithm is picked by: the engines' latency
 * and bandwidth (the slowest rank's), the link's bandwidth and each
 * route's latency. Left unknown (the ring every time) where sysfs does
 * not say, or beyond ROUTES_MAX ranks.
 */
static void comm_model(struct xms_comm *c)
{
	int ndev = 0, r, q, ret = 0;
	uint64_t *lat, *route;

	for (r = 0; r < c->n; r++)
		ndev = c->r[r].index >= ndev ? c->r[r].index + 1 : ndev;
	if (c->n > ROUTES_MAX || ndev > 4096)
		return;
	lat = calloc((size_t)ndev, sizeof(*lat));
	route = calloc((size_t)c->n * c->n, sizeof(*route));
	if (!lat || !route)
		ret = -ENOMEM;
	c->cost.local_bps = UINT64_MAX;
	for (r = 0; r < c->n && !ret; r++) {
		struct comm_rank *cr = &c->r[r];

		if (cr->dma_ns > c->cost.dma_ns)
			c->cost.dma_ns = cr->dma_ns;
		if (cr->local_bps < c->cost.local_bps)
			c->cost.local_bps = cr->local_bps;
		memset(lat, 0, (size_t)ndev * sizeof(*lat));
		ret = read_peers(cr->index, lat, ndev, &c->cost.link_bps);
		for (q = 0; q < c->n && !ret; q++)
			route[(size_t)r * c->n + q] = lat[c->r[q].index];
	}
	free(lat);
	if (ret)
		free(route);
	c->cost.route_ns = ret ? NULL : route;
}

int xms_comm_init_all(struct xms_comm **comm, int ndev, const int *devlist)
{
	struct xms_comm *c;
	int i, j, ret = 0;

	if (!comm || ndev < 1 || ndev > 4096)
		return -EINVAL;
	for (i = 0; devlist && i < ndev; i++)
		for (j = 0; j < i; j++)
			if (devlist[i] < 0 || devlist[i] == devlist[j])
				return -EINVAL;
	c = comm_alloc(ndev, -1);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < ndev && !ret; i++)
		ret = comm_open(&c->r[i], devlist ? devlist[i] : i);
	if (ret) {
		xms_comm_destroy(c);
		return ret;
	}
	comm_model(c);
	*comm = c;
	return 0;
}

int xms_comm_destroy(struct xms_comm *comm)
{
	int i, ret = 0, r;

	if (!comm)
		return -EINVAL;
	for (i = 0; i < comm->n; i++) {
		struct comm_rank *cr = &comm->r[i];

		if (cr->scratch_len)
			xms_free(&cr->dev, XMEMSIM_HEAP_HBM, cr->scratch, NULL);
		if (cr->dev.fd >= 0 && (r = xms_close(&cr->dev)) && !ret)
			ret = r;
	}
	free((void *)comm->cost.route_ns);
	free(comm->r);
	free(comm);
	return ret;
}

int xms_comm_count(const struct xms_comm *comm)
{
	return comm ? comm->n : -EINVAL;
}

struct xms_dev *xms_comm_dev(struct xms_comm *comm, int rank)
{
	return comm && rank >= 0 && rank < comm->n &&
	       (comm->me < 0 || rank == comm->me) ? &comm->r[rank].dev : NULL;
}

uint64_t *comm_imp(struct run *x, uint32_t r, uint32_t q)
{
	struct imp *m = x->imp[r];
	int i;

	for (i = 0; i < IMP_PEERS && m[i].peer1 && m[i].peer1 != q + 1; i++)
		;
	if (i == IMP_PEERS)
		return NULL;
	m[i].peer1 = q + 1;
	return m[i].addr;
}

/* Reap op j: its end; the first failure is the run's. */
int comm_reap(struct run *x, size_t j)
{
	struct xmemsim_dma_wait w;
	uint32_t r = x->s->ops[j].rank;
	int ret;

	if (x->state[j] != 1)
		return 0;
	ret = xms_dma_wait(&x->c->r[r].dev, x->ticket[j], WAIT_NS, &w);
	if (!ret && w.status)
		ret = w.status;
	x->state[j] = 2;
	x->inflight[r]--;
	x->end[j] = ret ? x->t0 : w.end_ns;
	if (!ret && w.end_ns > x->tmax)
		x->tmax = w.end_ns;
	if (ret && !x->err)
		x->err = ret;
	return ret;
}

/* Keep rank r within half its file's depth: reap its oldest in flight. */
static void reap_oldest(struct run *x, uint32_t r)
{
	uint32_t cap = x->c->r[r].depth / 2;

	if (cap < 1)
		cap = 1;
	while (x->inflight[r] >= cap && x->oldest[r] < x->s->n) {
		size_t j = x->oldest[r]++;

		if (x->s->ops[j].rank == r)
			comm_reap(x, j);
	}
}

/* The engine of rank r's next transfer: links on the first half, copies on the rest. */
static uint32_t pick_engine(struct run *x, uint32_t r, int link)
{
	uint32_t e = x->c->r[r].engines, nl = e > 1 ? (e + 1) / 2 : 1;

	if (link)
		return x->nlink[r]++ % nl;
	return e > 1 ? nl + x->nlocal[r]++ % (e - nl) : 0;
}

/* Submit op j after what it waits for. */
static int submit(struct run *x, size_t j)
{
	const struct xms_cop *o = &x->s->ops[j];
	struct xmemsim_dma_desc d = { .wait_sem = XMEMSIM_SEM_NONE,
				      .signal_sem = XMEMSIM_SEM_NONE };
	int i, ret;

	d.src = x->base[o->rank][o->sbuf] + o->soff;
	d.dst = (o->link ? comm_imp(x, o->rank, o->peer) : x->base[o->rank])[o->dbuf] +
		o->doff;
	if (!o->link && d.src == d.dst) {	/* in place: nothing to copy */
		x->state[j] = 2;
		x->end[j] = x->t0;
		return 0;
	}
	d.not_before_ns = x->t0;
	for (i = 0; i < 2; i++) {
		if (o->dep[i] < 0)
			continue;
		ret = x->c->me < 0 || x->s->ops[o->dep[i]].rank == (uint32_t)x->c->me ?
		      comm_reap(x, o->dep[i]) : rank_dep(x, o->dep[i]);
		if (ret)
			return ret;
		if (x->end[o->dep[i]] > d.not_before_ns)
			d.not_before_ns = x->end[o->dep[i]];
	}
	d.len = o->len;
	d.op = o->reduce ? x->op : XMEMSIM_DMA_OP_COPY;
	d.dtype = o->reduce ? x->dtype : XMEMSIM_DMA_T_NONE;
	d.engine = pick_engine(x, o->rank, o->link);
	reap_oldest(x, o->rank);
	ret = xms_dma_submit(&x->c->r[o->rank].dev, &d, 1, &x->ticket[j]);
	if (ret)
		return ret;
	x->state[j] = 1;
	x->inflight[o->rank]++;
	return 0;
}

/* The latest modeled now of the ranks: where the call starts. */
static int start_time(struct run *x)
{
	struct xmemsim_dma_info di;
	int r, ret;

	x->t0 = 0;
	for (r = 0; r < x->c->n; r++) {
		if (x->c->me >= 0 && r != x->c->me)
			continue;
		ret = xms_dma_info(&x->c->r[r].dev, &di);
		if (ret)
			return ret;
		if (di.now_ns > x->t0)
			x->t0 = di.now_ns;
	}
	x->tmax = x->t0;
	return 0;
}

/* Rank r maps rank q's buffer b (len bytes) into its aperture, once. */
static int link_buf(struct run *x, uint32_t r, uint32_t q, int b, uint64_t len)
{
	struct xmemsim_dmabuf_export ex = { .addr = x->base[q][b], .len = len };
	struct xmemsim_dmabuf_import im = { 0 };
	uint64_t *imp = comm_imp(x, r, q);
	int ret;

	if (!imp)
		return -ENOSPC;
	if (imp[b])
		return 0;
	ret = xms_cmd(&x->c->r[q].dev, XMEMSIM_IOC_DMABUF_EXPORT, &ex);
	if (ret)
		return ret;
	im.fd = ex.fd;
	ret = xms_cmd(&x->c->r[r].dev, XMEMSIM_IOC_DMABUF_IMPORT, &im);
	close(ex.fd);	/* the import holds the dma-buf */
	if (!ret)
		imp[b] = im.addr;
	return ret;
}

/* Import every buffer a link transfer writes; the first error. */
static int link_all(struct run *x)
{
	int ret = 0;
	size_t j;

	for (j = 0; j < x->s->n && !ret; j++) {
		const struct xms_cop *o = &x->s->ops[j];

		if (o->link)
			ret = link_buf(x, o->rank, o->peer, o->dbuf,
				       x->s->buf_len[o->dbuf]);
	}
	return ret;
}

static void unlink_all(struct run *x)
{
	int r, i, b;

	for (r = 0; r < x->c->n; r++)
		for (i = 0; i < IMP_PEERS; i++)
			for (b = 0; b < XMS_NUM_BUFS; b++) {
				struct xmemsim_unmap u = { .addr = x->imp[r][i].addr[b] };

				if (u.addr)
					xms_cmd(&x->c->r[r].dev, XMEMSIM_IOC_UNMAP, &u);
			}
}

static int run_alloc(struct run *x)
{
	size_t n = x->s->n ? x->s->n : 1, nr = (unsigned int)x->c->n;

	x->imp = calloc(nr, sizeof(*x->imp));
	x->ticket = calloc(n, sizeof(*x->ticket));
	x->end = calloc(n, sizeof(*x->end));
	x->state = calloc(n, 1);
	x->inflight = calloc(nr, sizeof(*x->inflight));
	x->nlink = calloc(nr, sizeof(*x->nlink));
	x->nlocal = calloc(nr, sizeof(*x->nlocal));
	x->oldest = calloc(nr, sizeof(*x->oldest));
	return x->imp && x->ticket && x->end && x->state && x->inflight &&
	       x->nlink && x->nlocal && x->oldest ? 0 : -ENOMEM;
}

static void run_free(struct run *x)
{
	free(x->imp);
	free(x->ticket);
	free(x->end);
	free(x->state);
	free(x->inflight);
	free(x->nlink);
	free(x->nlocal);
	free(x->oldest);
}

/* Run x's schedule: its modeled time in *time_ns. */
static int run(struct run *x, uint64_t *time_ns)
{
	int ret = run_alloc(x), me = x->c->me;
	size_t j;

	if (!ret)
		ret = start_time(x);
	if (!ret)
		ret = me < 0 ? link_all(x) : rank_link_all(x);
	for (j = 0; j < x->s->n && !ret; j++)
		ret = me < 0 || x->s->ops[j].rank == (uint32_t)me ? submit(x, j) :
		      rank_serve(x, j);
	for (j = 0; x->state && j < x->s->n; j++)	/* every one reaped, error or not */
		comm_reap(x, j);
	if (!ret)
		ret = x->err;
	if (!ret && me >= 0)	/* what the previous rank writes here has landed */
		ret = rank_barrier(x);
	if (ret && me >= 0)
		rank_fail(x);
	if (x->imp)
		unlink_all(x);
	if (!ret && time_ns)
		*time_ns = x->tmax - x->t0;
	run_free(x);
	return ret;
}

/* Reduce-scatter's scratch on each rank, at least len bytes. */
static int scratch(struct xms_comm *c, uint64_t len)
{
	int r, ret;

	for (r = 0; r < c->n; r++) {
		struct comm_rank *cr = &c->r[r];

		if (cr->scratch_len >= len || cr->dev.fd < 0)
			continue;
		if (cr->scratch_len)
			xms_free(&cr->dev, XMEMSIM_HEAP_HBM, cr->scratch, NULL);
		cr->scratch_len = 0;
		ret = xms_alloc(&cr->dev, XMEMSIM_HEAP_HBM, len, 64, 0,
				&cr->scratch, NULL);
		if (ret)
			return ret;
		cr->scratch_len = len;
	}
	return 0;
}

/* Check, build and run one collective. */
static int collective(struct xms_comm *c, int coll, const uint64_t *send,
		      const uint64_t *recv, uint64_t count, uint32_t dtype,
		      uint32_t op, int root, uint64_t *time_ns)
{
	uint32_t esize = xmemsim_reduce_size(dtype);
	struct xms_sched s;
	struct run x = { .c = c, .s = &s, .op = op, .dtype = dtype };
	int r, ret, algo;

	if (!c || !send || !recv || !esize || root < 0 || root >= c->n ||
	    (op != XMEMSIM_DMA_OP_SUM && op != XMEMSIM_DMA_OP_MAX))
		return -EINVAL;
	algo = xms_comm_algo(c, coll, count, dtype);
	if (algo < 0)
		return algo;
	ret = xms_sched_build_algo(&s, coll, algo, c->n, count, esize, 0, root);
	if (ret)
		return ret;
	if (s.buf_len[XMS_BUF_SCRATCH])
		ret = scratch(c, s.buf_len[XMS_BUF_SCRATCH]);
	x.base = calloc((unsigned int)c->n, sizeof(*x.base));
	if (!x.base)
		ret = -ENOMEM;
	for (r = 0; !ret && r < c->n; r++) {	/* a rank of its own: its one address */
		if (c->me >= 0 && r != c->me)
			continue;
		x.base[r][XMS_BUF_SEND] = send[c->me < 0 ? r : 0];
		x.base[r][XMS_BUF_RECV] = recv[c->me < 0 ? r : 0];
		x.base[r][XMS_BUF_SCRATCH] = c->r[r].scratch;
	}
	if (!ret)
		ret = run(&x, time_ns);
	free(x.base);
	xms_sched_free(&s);
	return ret;
}

int xms_comm_set_algo(struct xms_comm *comm, int algo)
{
	if (!comm || algo < XMS_ALGO_AUTO || algo > XMS_ALGO_TREE)
		return -EINVAL;
	if (algo == XMS_ALGO_TREE && comm->me >= 0)
		return -EOPNOTSUPP;	/* its sockets reach its two neighbours */
	comm->algo = algo;
	return 0;
}

int xms_comm_algo(const struct xms_comm *comm, int coll, uint64_t count,
		  uint32_t dtype)
{
	uint32_t esize = xmemsim_reduce_size(dtype);

	if (!comm || !esize || coll < XMS_COLL_ALL_REDUCE || coll > XMS_COLL_BROADCAST)
		return -EINVAL;
	if (coll != XMS_COLL_ALL_REDUCE || comm->n < 2 || comm->algo == XMS_ALGO_RING)
		return XMS_ALGO_RING;
	if (comm->algo == XMS_ALGO_TREE)
		return XMS_ALGO_TREE;
	if (comm->me >= 0 || !comm->cost.route_ns)
		return XMS_ALGO_RING;
	return xms_sched_pick((uint32_t)comm->n, count, esize, &comm->cost);
}

int xms_all_reduce(struct xms_comm *comm, const uint64_t *sendbuf,
		   const uint64_t *recvbuf, uint64_t count, uint32_t dtype,
		   uint32_t op, uint64_t *time_ns)
{
	return collective(comm, XMS_COLL_ALL_REDUCE, sendbuf, recvbuf, count,
			  dtype, op, 0, time_ns);
}

int xms_reduce_scatter(struct xms_comm *comm, const uint64_t *sendbuf,
		       const uint64_t *recvbuf, uint64_t recvcount,
		       uint32_t dtype, uint32_t op, uint64_t *time_ns)
{
	return collective(comm, XMS_COLL_REDUCE_SCATTER, sendbuf, recvbuf,
			  recvcount, dtype, op, 0, time_ns);
}

int xms_all_gather(struct xms_comm *comm, const uint64_t *sendbuf,
		   const uint64_t *recvbuf, uint64_t sendcount, uint32_t dtype,
		   uint64_t *time_ns)
{
	return collective(comm, XMS_COLL_ALL_GATHER, sendbuf, recvbuf,
			  sendcount, dtype, XMEMSIM_DMA_OP_SUM, 0, time_ns);
}

int xms_broadcast(struct xms_comm *comm, const uint64_t *sendbuf,
		  const uint64_t *recvbuf, uint64_t count, uint32_t dtype,
		  int root, uint64_t *time_ns)
{
	return collective(comm, XMS_COLL_BROADCAST, sendbuf, recvbuf, count,
			  dtype, XMEMSIM_DMA_OP_SUM, root, time_ns);
}

/* nccl-tests' bus bandwidth: algbw times this. */
double xms_coll_busbw_factor(int coll, int nranks)
{
	if (nranks < 1)
		return 0;
	switch (coll) {
	case XMS_COLL_ALL_REDUCE:
		return 2.0 * (nranks - 1) / nranks;
	case XMS_COLL_REDUCE_SCATTER:
	case XMS_COLL_ALL_GATHER:
		return (double)(nranks - 1) / nranks;
	case XMS_COLL_BROADCAST:
		return 1;
	default:
		return 0;
	}
}

/*
 * Chunk c of a reduction in the ring's order: it starts at rank first and
 * each next rank adds its own, dst = its own op what arrived (the engines'
 * order: dst = dst op src), into out.
 */
static int ring_sum(int n, const void *const *send, uint64_t off, uint64_t len,
		    int first, uint32_t dtype, uint32_t op, uint8_t *out)
{
	uint8_t *mine = malloc(len ? len : 1);
	int k;

	if (!mine)
		return -ENOMEM;
	memcpy(out, (const uint8_t *)send[first % n] + off, len);
	for (k = 1; k < n; k++) {
		memcpy(mine, (const uint8_t *)send[(first + k) % n] + off, len);
		xmemsim_reduce_buf(mine, out, len, op, dtype);
		memcpy(out, mine, len);
	}
	free(mine);
	return 0;
}

/*
 * The tree's all-reduce (comm_sched.c): rank r's partial, from its own
 * send buffer, adds rank r + 2^k's at level k (dst = its partial op what
 * arrived); rank 0's at the end is every rank's.
 */
static int tree_sum(int n, const void *const *send, void *const *recv,
		    uint64_t len, uint32_t dtype, uint32_t op)
{
	uint8_t **part = calloc((size_t)n, sizeof(*part));
	int k, r, ret = part ? 0 : -ENOMEM;

	for (r = 0; !ret && r < n; r++) {
		part[r] = malloc(len ? len : 1);
		if (!part[r])
			ret = -ENOMEM;
		else
			memcpy(part[r], send[r], len);
	}
	for (k = 1; !ret && k < n; k *= 2)
		for (r = 0; r + k < n; r += 2 * k)
			xmemsim_reduce_buf(part[r], part[r + k], len, op, dtype);
	for (r = 0; !ret && r < n; r++)
		memcpy(recv[r], part[0], len);
	for (r = 0; part && r < n; r++)
		free(part[r]);
	free(part);
	return ret;
}

int xms_coll_expect(int coll, int nranks, const void *const *send,
		    void *const *recv, uint64_t count, uint32_t dtype,
		    uint32_t op, int root)
{
	return xms_coll_expect_algo(XMS_ALGO_RING, coll, nranks, send, recv,
				    count, dtype, op, root);
}

int xms_coll_expect_algo(int algo, int coll, int nranks,
			 const void *const *send, void *const *recv,
			 uint64_t count, uint32_t dtype, uint32_t op, int root)
{
	uint64_t es = xmemsim_reduce_size(dtype), off, len;
	int c, r, ret = 0;

	if (nranks < 1 || !send || !recv || !es || root < 0 || root >= nranks ||
	    (algo != XMS_ALGO_RING && algo != XMS_ALGO_TREE) ||
	    (algo == XMS_ALGO_TREE && coll != XMS_COLL_ALL_REDUCE))
		return -EINVAL;
	if (algo == XMS_ALGO_TREE)
		return tree_sum(nranks, send, recv, count * es, dtype, op);
	for (c = 0; c < nranks && !ret; c++) {
		int ar = coll == XMS_COLL_ALL_REDUCE;

		off = (ar ? count * c / nranks : count * c) * es;
		len = (ar ? count * (c + 1) / nranks : count * (c + 1)) * es - off;
		if (ar || coll == XMS_COLL_REDUCE_SCATTER)
			ret = ring_sum(nranks, send, off, len, c + !ar, dtype, op,
				       (uint8_t *)recv[ar ? 0 : c] + (ar ? off : 0));
		for (r = 0; !ret && r < nranks; r++) {
			if (ar && r)
				memcpy((uint8_t *)recv[r] + off, (uint8_t *)recv[0] + off, len);
			else if (coll == XMS_COLL_ALL_GATHER)
				memcpy((uint8_t *)recv[r] + off, send[c], len);
			else if (coll == XMS_COLL_BROADCAST && !c)
				memcpy(recv[r], send[root], count * es);
		}
	}
	return ret;
}
