// SPDX-License-Identifier: GPL-2.0
/*
 * dp_plan_run (userspace/bridge/dp_run.c) on the host, against fake_dev.c's
 * plans and memory and a DMA engine defined here: it runs the submitted
 * descriptors when the run reaps, each queue in order, a transfer once
 * its semaphore holds its wait value, copying or reducing (dp_reduce_buf,
 * the kernel's arithmetic) the fake device's bytes. Which ready queue
 * goes next: the one that can start earliest in modeled time (the
 * device's own rule: engines one transfer at a time, a transfer
 * dma_latency_ns plus its bytes at the HBM-to-HBM rate), or one drawn at
 * random, so that a program whose order rests on anything but its
 * semaphores shows it; and it counts the races the device's checker
 * would (kmod/dma_check.c's rule). The run's content check holds every use,
 * the collectives' results among them, against the host's reduction in
 * the ring's order, bit for bit. The real device is tests/vm/planrun.sh's.
 *
 *  - the examples run clean in any order, no race for the checker:
 *    all_reduce, reduce_scatter and all_gather (bf16, f32), the imported
 *    GPT-2's tensor-parallel decode (collective tensors' bytes reused);
 *  - every type and reduction on 2, 3 and 4 cores, segments uneven;
 *  - an engine that ignores the semaphores gets mismatches (the check
 *    can fail);
 *  - the all-reduce ring at 0.9 or more of both engines' bandwidth bound;
 *  - compute_ns adds to the bound and to the span;
 *  - on 2 to 4 devices (the fake device's state a device, a communicator
 *    that reduces element by element in the ring's order) the examples
 *    run clean in any order, and a device with a wrong gradient is
 *    caught on every core of every device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_device.h"
#include "fake_dev.h"
#include "libxmemsim.h"
#include "planner_util.h"
#include "tap.h"
#include "xorshift.h"

/* ---- the DMA engine ------------------------------------------------------ */

#define MAXX	8192		/* transfers a run */
#define ENG	(2 * NC)	/* two engines a core */
#define QUEUES	4
#define SEMS	64
#define MAXV	4096		/* a semaphore's values that keep their time */
#define LAT	2000ULL
#define BW	16000000000ULL	/* bytes/s */

enum pick { PICK_EARLIEST, PICK_RANDOM, PICK_NO_WAITS };

static struct {
	struct xmemsim_dma_desc d[MAXX];
	uint64_t start[MAXX], end[MAXX];
	uint8_t done[MAXX], reaped[MAXX];
	uint64_t n;
	uint64_t sem[SEMS], semt[SEMS][MAXV];	/* value, when each came */
	uint64_t efree[ENG], qend[ENG * QUEUES];
	enum pick pick;
	uint64_t rng;
	uint64_t races;		/* the checker's count */
} q;

static void dma_reset(enum pick p, uint64_t seed)
{
	memset(&q, 0, sizeof(q));
	q.pick = p;
	q.rng = seed | 1;
}

/*
 * Many devices: the communicator's NDEV handles, each device's fake_dev
 * and engine kept aside while another's are in dev and q (swapped in by
 * the handle each fake call is given: fake_dev_hook).
 */
#define NDEV	4
static struct xms_dev fdev[NDEV];
static struct fake_dev *dsave[NDEV];
static __typeof__(q) *qsave[NDEV];
static uint32_t ndev;		/* devices of the run; 0: fake_dev alone */
static uint32_t active;		/* whose state dev and q hold */

static void many_pick(struct xms_dev *xd)
{
	uint32_t i = xd >= fdev && xd < fdev + NDEV ? (uint32_t)(xd - fdev) : 0;

	if (!ndev || i == active)
		return;
	memcpy(dsave[active], &dev, sizeof(dev));
	memcpy(qsave[active], &q, sizeof(q));
	memcpy(&dev, dsave[i], sizeof(dev));
	memcpy(&q, qsave[i], sizeof(q));
	active = i;
}

static void pick(struct xms_dev *xd)
{
	if (fake_dev_hook)
		fake_dev_hook(xd);
}

/* n devices, each the fake device as reset now, with a heap of its own */
static void many_start(uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		dsave[i] = malloc(sizeof(dev));
		qsave[i] = malloc(sizeof(q));
		if (!dsave[i] || !qsave[i])
			abort();
		memcpy(dsave[i], &dev, sizeof(dev));
		memcpy(qsave[i], &q, sizeof(q));
		if (i)
			dsave[i]->heap = NULL;	/* fake_dev_alloc makes one */
	}
	ndev = n;
	active = 0;
	fake_dev_hook = many_pick;
}

/* back to device 0 alone: the others' plans and heaps freed; the
 * checker's races of every device in *races */
static void many_end(uint64_t *races)
{
	uint32_t i;

	*races = 0;
	for (i = ndev; i-- > 0;) {
		many_pick(&fdev[i]);
		*races += q.races;
		dev_reset(F_NONE);
		if (i)
			free(dev.heap);
	}
	ndev = 0;
	fake_dev_hook = NULL;
	for (i = 0; i < NDEV; i++) {
		free(dsave[i]);
		free(qsave[i]);
		dsave[i] = NULL;
		qsave[i] = NULL;
	}
}

int xms_get_info(struct xms_dev *xd, struct xmemsim_info *info)
{
	pick(xd);
	memset(info, 0, sizeof(*info));
	info->cores = NC;
	info->features = XMEMSIM_FEAT_DMA_REDUCE;
	return 0;
}

int xms_dma_info(struct xms_dev *xd, struct xmemsim_dma_info *di)
{
	uint64_t k;

	pick(xd);
	memset(di, 0, sizeof(*di));
	di->engines = ENG;
	di->queues = QUEUES;
	di->sems = SEMS;
	di->depth = MAXX;
	di->latency_ns = LAT;
	di->bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_HBM] = BW;
	for (k = 0; k < q.n; k++)	/* what the reaps observed */
		if (q.reaped[k] && di->now_ns < q.end[k])
			di->now_ns = q.end[k];
	return 0;
}

int xms_sem_set(struct xms_dev *xd, uint32_t sem, uint64_t value)
{
	pick(xd);
	if (sem >= SEMS)
		return -EINVAL;
	q.sem[sem] = value;
	return 0;
}

int xms_alloc(struct xms_dev *xd, unsigned int heap, uint64_t size, uint64_t align,
	      uint32_t flags, uint64_t *addr, int *status)
{
	pick(xd);
	(void)heap;
	(void)flags;
	(void)status;
	return fake_dev_alloc(size, align, addr);
}

static int meet(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	return a < b + bl && b < a + al;
}

/* queue index of a descriptor */
static uint32_t qix(const struct xmemsim_dma_desc *d)
{
	return d->engine * QUEUES + d->queue;
}

/*
 * kmod/dma_check.c's chains, followed backwards from transfer k over the
 * unreaped transfers before it: reach[queue] is the last transfer there
 * that k is ordered after (-1 none). At first k's own queue up to k; the
 * waiters within reach want their semaphores; the wanted semaphores'
 * signallers raise reach; until nothing changes.
 */
static void chain(uint64_t k, int64_t *reach)
{
	uint8_t want[SEMS] = { 0 };
	int changed = 1;
	uint64_t z;

	for (z = 0; z < ENG * QUEUES; z++)
		reach[z] = -1;
	reach[qix(&q.d[k])] = (int64_t)k;
	while (changed) {
		changed = 0;
		for (z = 0; z <= k; z++) {
			const struct xmemsim_dma_desc *d = &q.d[z];

			if ((z == k || !q.reaped[z]) && d->wait_sem < SEMS &&
			    (int64_t)z <= reach[qix(d)] && !want[d->wait_sem])
				want[d->wait_sem] = 1, changed = 1;
		}
		for (z = 0; z < k; z++) {
			const struct xmemsim_dma_desc *d = &q.d[z];

			if (!q.reaped[z] && d->signal_sem < SEMS && want[d->signal_sem] &&
			    (int64_t)z > reach[qix(d)])
				reach[qix(d)] = (int64_t)z, changed = 1;
		}
	}
}

/*
 * The device's checker (kmod/dma_check.c) on transfer k: each earlier
 * unreaped transfer of another queue that writes bytes k touches, or
 * touches bytes k writes, must be ordered before k: k's wait semaphore
 * signalled by that queue at or after it, or through a chain of them
 * (chain()). 1: a race.
 */
static int races(uint64_t k)
{
	const struct xmemsim_dma_desc *x = &q.d[k];
	int64_t reach[ENG * QUEUES];
	int chained = 0;
	uint64_t j, z;

	for (j = 0; j < k; j++) {
		const struct xmemsim_dma_desc *y = &q.d[j];
		int ordered = 0;

		if (q.reaped[j] || (y->engine == x->engine && y->queue == x->queue) ||
		    !(meet(x->dst, x->len, y->dst, y->len) || meet(x->src, x->len, y->dst, y->len) ||
		      meet(x->dst, x->len, y->src, y->len)))
			continue;
		for (z = j; z < k && x->wait_sem != XMEMSIM_SEM_NONE && !ordered; z++)
			ordered = q.d[z].engine == y->engine && q.d[z].queue == y->queue &&
				  q.d[z].signal_sem == x->wait_sem;
		if (!ordered && !chained) {
			chain(k, reach);
			chained = 1;
		}
		if (!ordered && reach[qix(y)] < (int64_t)j)
			return 1;
	}
	return 0;
}

int xms_dma_submit(struct xms_dev *xd, const struct xmemsim_dma_desc *d,
		   uint32_t count, uint64_t *ticket)
{
	uint32_t i;

	pick(xd);
	if (q.n + count > MAXX)
		return -EAGAIN;
	memcpy(&q.d[q.n], d, count * sizeof(*d));
	*ticket = q.n;
	for (i = 0; i < count; i++)
		q.races += (uint64_t)races(q.n + i);
	q.n += count;
	return 0;
}

/*
 * The communicator over the NDEV fake devices (many_start()): all-reduce
 * is the host's, in the ring's order of libxmemsim's (chunk c of the
 * elements from rank c on, each next rank adding its own to what
 * arrived, as xms_coll_expect() says), read from each rank's send
 * buffer and written to its receive buffer. Without many_start(), there
 * are no devices: -EOPNOTSUPP.
 */
static int comm_inits;

int xms_comm_init_all(struct xms_comm **comm, int n, const int *devlist)
{
	comm_inits++;
	if (!ndev || n != (int)ndev || devlist)
		return -EOPNOTSUPP;
	*comm = (struct xms_comm *)fdev;
	return 0;
}

struct xms_dev *xms_comm_dev(struct xms_comm *comm, int rank)
{
	return comm && rank >= 0 && rank < (int)ndev ? &fdev[rank] : NULL;
}

int xms_comm_destroy(struct xms_comm *comm)
{
	return comm ? 0 : -EINVAL;
}

/* The fake's all-reduce is the ring's whatever the size: the ring alone. */
int xms_comm_set_algo(struct xms_comm *comm, int algo)
{
	return comm && algo == XMS_ALGO_RING ? 0 : -EINVAL;
}

/* ranks' bytes [off, off + len) from each one's device, or to it */
static int comm_move(const uint64_t *addr, uint8_t **buf, uint64_t len, int to)
{
	uint32_t r;

	for (r = 0; r < ndev; r++) {
		unsigned char *p;

		many_pick(&fdev[r]);
		p = at(addr[r], len);
		if (!p)
			return -EFAULT;
		memcpy(to ? p : buf[r], to ? buf[r] : p, len);
	}
	return 0;
}

/* element i of a rank's bytes (little-endian, es bytes) */
static uint32_t elem_at(const uint8_t *b, uint64_t i, uint32_t es)
{
	uint32_t v = 0;

	memcpy(&v, b + i * es, es);
	return v;
}

/*
 * The ring's order element by element (an oracle apart from the run's,
 * which folds whole chunks): element i of chunk c is rank c's, then each
 * next rank's own op what arrived.
 */
int xms_all_reduce(struct xms_comm *comm, const uint64_t *sendbuf,
		   const uint64_t *recvbuf, uint64_t count, uint32_t dtype,
		   uint32_t op, uint64_t *time_ns)
{
	uint32_t es = dp_reduce_size(dtype), r, k, acc;
	uint64_t i;
	uint8_t *buf[NDEV];
	int ret = comm && es ? 0 : -EINVAL;

	for (r = 0; r < ndev; r++)
		buf[r] = malloc(count * es + 1);
	for (r = 0; r < ndev && !ret; r++)
		ret = buf[r] ? 0 : -ENOMEM;
	if (!ret)
		ret = comm_move(sendbuf, buf, count * es, 0);
	for (i = 0; i < count && !ret; i++) {
		for (r = 0; r < ndev && i >= count * (r + 1) / ndev; r++)
			;	/* i's chunk, the rank it starts from */
		acc = elem_at(buf[r], i, es);
		for (k = 1; k < ndev; k++)
			acc = dp_reduce_elem(op, dtype, elem_at(buf[(r + k) % ndev], i, es), acc);
		for (k = 0; k < ndev; k++)	/* element i is done with */
			memcpy(buf[k] + i * es, &acc, es);
	}
	if (!ret)
		ret = comm_move(recvbuf, buf, count * es, 1);
	for (r = 0; r < ndev; r++)
		free(buf[r]);
	if (time_ns)
		*time_ns = 0;
	return ret;
}

static int step(void);

int xms_dma_wait(struct xms_dev *xd, uint64_t ticket, int64_t timeout_ns,
		 struct xmemsim_dma_wait *done)
{
	pick(xd);
	(void)timeout_ns;
	while (step())
		;
	if (ticket >= q.n || !q.done[ticket] || q.reaped[ticket])
		return -ETIMEDOUT;
	q.reaped[ticket] = 1;
	done->start_ns = q.start[ticket];
	done->end_ns = q.end[ticket];
	done->status = 0;
	return 0;
}

/* the head of each queue (not done, nothing before it not done): -1 none */
static int64_t head(uint32_t qi)
{
	uint64_t k;

	for (k = 0; k < q.n; k++)
		if (q.d[k].engine * QUEUES + q.d[k].queue == qi && !q.done[k])
			return (int64_t)k;
	return -1;
}

/* when transfer k may start; UINT64_MAX: its wait is not met */
static uint64_t may_start(uint64_t k)
{
	const struct xmemsim_dma_desc *d = &q.d[k];
	uint64_t t = q.efree[d->engine];

	if (t < q.qend[d->engine * QUEUES + d->queue])
		t = q.qend[d->engine * QUEUES + d->queue];
	if (d->wait_sem == XMEMSIM_SEM_NONE || !d->wait_value || q.pick == PICK_NO_WAITS)
		return t;
	if (q.sem[d->wait_sem] < d->wait_value)
		return UINT64_MAX;
	if (d->wait_value <= MAXV && t < q.semt[d->wait_sem][d->wait_value - 1])
		t = q.semt[d->wait_sem][d->wait_value - 1];
	return t;
}

static void run_one(uint64_t k, uint64_t start)
{
	const struct xmemsim_dma_desc *d = &q.d[k];
	unsigned char *src = at(d->src, d->len), *dst = at(d->dst, d->len);
	uint64_t v;

	if (!src || !dst)
		abort();
	if (d->op)
		dp_reduce_buf(dst, src, d->len, d->op, d->dtype);
	else
		memmove(dst, src, d->len);
	q.start[k] = start;
	q.end[k] = start + LAT + d->len * 1000000000ULL / BW;
	q.efree[d->engine] = q.end[k];
	q.qend[d->engine * QUEUES + d->queue] = q.end[k];
	q.done[k] = 1;
	if (d->signal_sem == XMEMSIM_SEM_NONE)
		return;
	v = q.sem[d->signal_sem] += d->signal_inc;
	if (v && v <= MAXV)
		q.semt[d->signal_sem][v - 1] = q.end[k];
}

/* one step: a ready head run, by the pick's rule; 0 if none is ready */
static int step(void)
{
	uint64_t best = UINT64_MAX, when = UINT64_MAX, nready = 0;
	uint32_t qi;

	for (qi = 0; qi < ENG * QUEUES; qi++) {
		int64_t k = head(qi);
		uint64_t t;

		if (k < 0 || (t = may_start((uint64_t)k)) == UINT64_MAX)
			continue;
		nready++;
		if (q.pick == PICK_EARLIEST ? t < when :
		    xorshift64(&q.rng) % nready == 0) {
			best = (uint64_t)k;
			when = t;
		}
	}
	if (best == UINT64_MAX)
		return 0;
	run_one(best, when);
	return 1;
}

int xms_dma_reap(struct xms_dev *xd, struct xmemsim_dma_completion *recs,
		 uint32_t cap, int64_t timeout_ns, uint32_t *count)
{
	uint64_t k;

	pick(xd);
	(void)timeout_ns;
	while (step())
		;
	*count = 0;
	for (k = 0; k < q.n && *count < cap; k++) {
		if (!q.done[k] || q.reaped[k])
			continue;
		q.reaped[k] = 1;
		recs[(*count)++] = (struct xmemsim_dma_completion){
			.ticket = k, .tag = q.d[k].tag, .start_ns = q.start[k],
			.end_ns = q.end[k] };
	}
	return *count ? 0 : -ETIMEDOUT;
}

/* ---- runs ---------------------------------------------------------------- */

#define TRACE_LEN (1 << 20)
static char *trace;		/* when set, the runs' trace goes here */

/* model (a file) planned and written to a plan file; its path, or NULL */
static const char *plan_of(struct dp_model *m)
{
	static char path[64];
	struct dp_err e = { "" };
	struct dp_plan *p = plan_default(m, &e);
	FILE *f;
	int fd;

	if (!p) {
		printf("#   plan: %s\n", e.msg);
		return NULL;
	}
	strcpy(path, "/tmp/test_planrun_XXXXXX");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || dp_plan_write_json(p, f)) {
		dp_plan_free(p);
		return NULL;
	}
	fclose(f);
	dp_plan_free(p);
	return path;
}

/*
 * The model's run on the fake device, the pick's way: the run's result
 * (its return value in *ret), its log in log (if not NULL).
 */
static struct dp_run_result run_model(struct dp_model *m, const char *plan,
				      enum pick pick, uint64_t seed, int *ret,
				      char *log, size_t loglen)
{
	struct dp_run_opts o = { .no_checker = 1 };
	struct dp_run_result res;
	struct dp_err e = { "" };
	FILE *f = log ? fmemopen(log, loglen, "w") : NULL;

	o.log = f;
	o.trace = trace ? fmemopen(trace, TRACE_LEN, "w") : NULL;
	dev_reset(F_NONE);
	dma_reset(pick, seed);
	*ret = dp_plan_run(&fake_dev, plan, m, &o, &res, &e);
	if (*ret)
		printf("#   run: %s\n", e.msg);
	if (f)
		fclose(f);
	if (o.trace)
		fclose(o.trace);
	xms_plan_release(&fake_dev);
	return res;
}

/* The model in file name (examples/) runs clean in seeds' orders. */
static void runs_clean(const char *file, int seeds)
{
	struct dp_err e = { "" };
	struct dp_model *m = dp_model_load_json(file, &e);
	const char *plan = m ? plan_of(m) : NULL;
	char log[4096];
	int s, ret;

	REQUIRE(m && plan);
	for (s = 0; s <= seeds; s++) {
		struct dp_run_result r = run_model(m, plan, s ? PICK_RANDOM : PICK_EARLIEST,
						   (uint64_t)s, &ret, log, sizeof(log));

		CHECK(ret == 0);
		CHECK_EQ_U64(r.mismatches, 0);
		CHECK_EQ_U64(r.errors, 0);
		CHECK_EQ_U64(q.races, 0);
		CHECK(r.transfers > 0 && r.span_ns > 0 && r.bound_ns > 0);
		if (r.mismatches || ret)
			printf("#   %s, seed %d:\n%s", file, s, log);
	}
	unlink(plan);
	dp_model_free(m);
}

TEST(examples_run_clean_in_any_order)
{
	runs_clean(DP_SRCROOT "/examples/allreduce_2core.json", 4);
	runs_clean(DP_SRCROOT "/examples/pipeline_4core.json", 4);
	runs_clean(DP_SRCROOT "/examples/zero_4core.json", 8);
	runs_clean(DP_SRCROOT "/examples/gpt2_decode_2core.json", 4);
}

/*
 * A model of n cores: each defines t (elems of type), runs the collective
 * kind (reduction red, or none) over all of them, then uses t; compute_ns
 * on the def when given.
 */
static struct dp_model *coll_model(uint32_t n, uint64_t elems, const char *type,
				   const char *kind, const char *red, uint64_t compute)
{
	static const char *const esz[] = { "f32", "4", "bf16", "2", "f16", "2", "i32", "4" };
	char *json = malloc(4096 * (n + 1)), cores[64] = "", red_kv[64] = "", cns[64] = "";
	const char *size = "4";
	struct dp_err e = { "" };
	struct dp_model *m;
	size_t len = 0, k;
	uint32_t c;

	for (k = 0; k < 8; k += 2)
		if (!strcmp(type, esz[k]))
			size = esz[k + 1];
	for (c = 0; c < n; c++)
		snprintf(cores + strlen(cores), sizeof(cores) - strlen(cores), "%s%u", c ? ", " : "", c);
	if (red)
		snprintf(red_kv, sizeof(red_kv), "\"reduction\": \"%s\", ", red);
	if (compute)
		snprintf(cns, sizeof(cns), ", \"compute_ns\": %llu", (unsigned long long)compute);
	len += sprintf(json, "{\"format\": \"dramplan-model/1\", \"model\": \"coll\", \"cores\": [");
	for (c = 0; c < n; c++)
		len += sprintf(json + len, "%s{\"core\": %u, \"function\": \"rank%u\", \"tensors\": "
			       "[{\"name\": \"t\", \"elems\": %llu, \"elem_size\": %s}], "
			       "\"blocks\": [{\"name\": \"entry\", \"succ\": [], \"insts\": ["
			       "{\"name\": \"produce\", \"defs\": [\"t\"]%s}, "
			       "{\"name\": \"coll\", \"defs\": [\"t\"], \"uses\": [\"t\"], \"collective\": "
			       "{\"kind\": \"%s\", %s\"type\": \"%s\", \"cores\": [%s]}}, "
			       "{\"name\": \"consume\", \"uses\": [\"t\"]}]}]}",
			       c ? ", " : "", c, c, (unsigned long long)elems, size, cns, kind, red_kv,
			       type, cores);
	strcpy(json + len, "]}");
	m = dp_model_parse_json("coll.json", json, strlen(json), &e);
	if (!m)
		printf("#   model: %s\n", e.msg);
	free(json);
	return m;
}

/* the collective on n cores runs clean in seeds' random orders */
static void coll_clean(uint32_t n, uint64_t elems, const char *type,
		       const char *kind, const char *red)
{
	struct dp_model *m = coll_model(n, elems, type, kind, red, 0);
	const char *plan = m ? plan_of(m) : NULL;
	char log[4096];
	int s, ret;

	REQUIRE(m && plan);
	for (s = 0; s < 4; s++) {
		struct dp_run_result r = run_model(m, plan, s ? PICK_RANDOM : PICK_EARLIEST,
						   (uint64_t)s + 100, &ret, log, sizeof(log));

		CHECK(ret == 0);
		CHECK_EQ_U64(r.mismatches, 0);
		CHECK_EQ_U64(q.races, 0);
		if (r.mismatches || ret)
			printf("#   %s %s %s on %u cores, %llu elements, seed %d:\n%s", kind,
			       red ? red : "", type, n, (unsigned long long)elems, s, log);
	}
	unlink(plan);
	dp_model_free(m);
}

TEST(every_collective_type_and_reduction_on_2_to_4_cores)
{
	static const char *const types[] = { "f32", "bf16", "f16", "i32" };
	uint32_t n, k;

	for (n = 2; n <= NC; n++)
		for (k = 0; k < 4; k++) {
			/* elements that do not divide into n segments */
			coll_clean(n, 1000 + 7 * n, types[k], "all_reduce", "sum");
			coll_clean(n, 1000 + 7 * n, types[k], "all_reduce", "max");
			coll_clean(n, 999, types[k], "reduce_scatter", "sum");
			coll_clean(n, 999, types[k], "all_gather", NULL);
		}
	/* fewer elements than cores: empty segments */
	coll_clean(4, 3, "f32", "all_reduce", "sum");
	coll_clean(3, 2, "bf16", "reduce_scatter", "sum");
	coll_clean(4, 2, "i32", "all_gather", NULL);
}

/* An engine that ignores the semaphores: the content check catches it. */
TEST(an_engine_that_ignores_semaphores_is_caught)
{
	static const char *const kinds[] = { "all_reduce", "reduce_scatter", "all_gather" };
	uint32_t k;

	for (k = 0; k < 3; k++) {
		struct dp_model *m = coll_model(4, 4096, "f32", kinds[k], k == 2 ? NULL : "sum", 0);
		const char *plan = m ? plan_of(m) : NULL;
		uint64_t bad = 0;
		char log[4096];
		int s, ret;

		REQUIRE(m && plan);
		for (s = 0; s < 4; s++)
			bad += run_model(m, plan, PICK_NO_WAITS, (uint64_t)s + 7, &ret,
					 log, sizeof(log)).mismatches;
		CHECK(bad > 0);
		CHECK(strstr(log, "reduces 't'") || strstr(log, "writes 't'") || !bad);
		unlink(plan);
		dp_model_free(m);
	}
}

/*
 * In the run's trace, the latest end of a "produce" def and the earliest
 * start of a "consume" use, in ns.
 */
static void between(const char *tr, double *lo, double *hi)
{
	static const char def[] = "{\"name\":\"produce t\",\"cat\":\"def\"";
	static const char use[] = "{\"name\":\"consume t\",\"cat\":\"use\"";
	const char *p;

	*lo = 0;
	*hi = 1e300;
	for (p = tr; (p = strstr(p, "{\"name\":\"")); p++) {
		double ts, dur;
		const char *t = strstr(p, "\"ts\":");

		if (!t || sscanf(t, "\"ts\":%lf,\"dur\":%lf", &ts, &dur) != 2)
			continue;
		if (!strncmp(p, def, sizeof(def) - 1) && ts + dur > *lo)
			*lo = ts + dur;
		if (!strncmp(p, use, sizeof(use) - 1) && ts < *hi)
			*hi = ts;
	}
}

/*
 * The all-reduce, from the last def's end to the first use's start in
 * the run's trace, whatever the ring moves in between and where, against
 * the bound both engines' bandwidth sets: 2(n - 1)/n of a core's bytes
 * at twice one engine's rate (the ring splits each step over the two).
 */
TEST(the_ring_reaches_the_bandwidth_bound)
{
	uint32_t n;

	trace = malloc(TRACE_LEN);
	REQUIRE(trace);
	for (n = 2; n <= NC; n++) {
		uint64_t elems = 1 << 21, bytes = elems * 4, bound;
		struct dp_model *m = coll_model(n, elems, "f32", "all_reduce", "sum", 0);
		const char *plan = m ? plan_of(m) : NULL;
		double lo, hi, ring;
		int ret;

		REQUIRE(m && plan);
		memset(trace, 0, TRACE_LEN);
		CHECK_EQ_U64(run_model(m, plan, PICK_EARLIEST, 1, &ret, NULL, 0).mismatches, 0);
		between(trace, &lo, &hi);
		ring = (hi - lo) * 1000;
		bound = (n - 1) * (bytes / n) * 1000000000ULL / BW;
		printf("# %u cores: ring %.0f ns, bound %llu ns, ratio %.3f\n", n, ring,
		       (unsigned long long)bound, (double)bound / ring);
		CHECK(ret == 0 && ring > 0 && bound * 10 >= ring * 9);
		unlink(plan);
		dp_model_free(m);
	}
	free(trace);
	trace = NULL;
}

/* compute_ns: the bound grows by it, and the span by about as much */
TEST(compute_ns_adds_to_the_bound_and_the_span)
{
	struct dp_model *m0 = coll_model(2, 4096, "f32", "all_reduce", "sum", 0);
	struct dp_model *m1 = coll_model(2, 4096, "f32", "all_reduce", "sum", 300000);
	const char *p = m0 ? plan_of(m0) : NULL;
	char plan0[64];
	struct dp_run_result r0, r1;
	int ret0, ret1;

	REQUIRE(m0 && m1 && p);
	strcpy(plan0, p);
	r0 = run_model(m0, plan0, PICK_EARLIEST, 1, &ret0, NULL, 0);
	r1 = run_model(m1, plan0, PICK_EARLIEST, 1, &ret1, NULL, 0);
	CHECK(ret0 == 0 && ret1 == 0);
	CHECK_EQ_U64(r1.mismatches, 0);
	CHECK_EQ_U64(r1.bound_ns - r0.bound_ns, 300000);
	CHECK(r1.span_ns >= r0.span_ns + 300000 && r1.span_ns <= r0.span_ns + 300000 + 100);
	printf("# span %llu -> %llu ns, bound %llu -> %llu ns\n",
	       (unsigned long long)r0.span_ns, (unsigned long long)r1.span_ns,
	       (unsigned long long)r0.bound_ns, (unsigned long long)r1.bound_ns);
	unlink(plan0);
	dp_model_free(m0);
	dp_model_free(m1);
}

/*
 * The model in file on n fake devices (opts devices n), the pick's way:
 * its result, its return value in *ret, the races every device's
 * checker counted in *races, its log in log; alter: fault_alter.
 */
static struct dp_run_result run_many(const char *file, uint32_t n, enum pick pick,
				     uint64_t seed, const char *alter, int *ret,
				     uint64_t *races, char *log, size_t loglen)
{
	struct dp_err e = { "" };
	struct dp_model *m = dp_model_load_json(file, &e);
	const char *plan = m ? plan_of(m) : NULL;
	struct dp_run_opts o = { .no_checker = 1, .devices = n, .fault_alter = alter };
	struct dp_run_result res = { 0 };

	*ret = -EINVAL;
	*races = 0;
	if (!m || !plan) {
		dp_model_free(m);
		return res;
	}
	o.log = fmemopen(log, loglen, "w");
	o.trace = trace ? fmemopen(trace, TRACE_LEN, "w") : NULL;
	dev_reset(F_NONE);
	dma_reset(pick, seed);
	many_start(n);
	*ret = dp_plan_run(NULL, plan, m, &o, &res, &e);
	if (*ret)
		printf("#   run: %s\n", e.msg);
	many_end(races);
	if (o.log)
		fclose(o.log);
	if (o.trace)
		fclose(o.trace);
	unlink(plan);
	dp_model_free(m);
	return res;
}

/*
 * Data-parallel on 2 to 4 devices: every device's data its own, each
 * reducing collective's result folded across the devices in the
 * communicator's order, checked on every device bit for bit, in the
 * device's order and in random ones; no race on any device.
 */
TEST(examples_run_clean_on_many_devices)
{
	static const char *const ex[] = { "allreduce_2core", "zero_4core", "gpt2_decode_2core" };
	char file[256], log[4096];
	uint64_t races;
	uint32_t k, n, s;
	int ret;

	for (k = 0; k < 3; k++)
		for (n = 2; n <= NDEV; n++)
			for (s = 0; s < 3; s++) {
				struct dp_run_result r;

				snprintf(file, sizeof(file), DP_SRCROOT "/examples/%s.json", ex[k]);
				r = run_many(file, n, s ? PICK_RANDOM : PICK_EARLIEST, s, NULL, &ret,
					     &races, log, sizeof(log));
				CHECK(ret == 0);
				CHECK_EQ_U64(r.mismatches, 0);
				CHECK_EQ_U64(r.errors, 0);
				CHECK_EQ_U64(races, 0);
				CHECK(r.devices == n && r.span_ns > 0 && r.transfers > 0);
				if (ret || r.mismatches)
					printf("#   %s on %u devices, seed %u:\n%s", ex[k], n, s, log);
			}
}

/*
 * One device's gradient altered before it goes across the devices (core
 * 0's segment of the all-reduce on device 2): the fold across devices
 * carries it to every device and the all-gather to every core, whose
 * reads all mismatch, each line naming its device.
 */
TEST(a_wrong_gradient_on_one_device_is_caught_on_every_device)
{
	char log[8192], want[128];
	struct dp_run_result r;
	uint64_t races;
	uint32_t d;
	int ret;

	trace = calloc(1, TRACE_LEN);
	REQUIRE(trace);
	r = run_many(DP_SRCROOT "/examples/allreduce_2core.json", 4, PICK_EARLIEST, 0,
		     "2:0:grad_buf", &ret, &races, log, sizeof(log));
	/* the trace: a process a device, and the cross-device step */
	CHECK(strstr(trace, "\"pid\":4,") && strstr(trace, "\"cat\":\"cross-device\""));
	CHECK(strlen(trace) > 3 && !strcmp(trace + strlen(trace) - 3, "]}\n"));
	free(trace);
	trace = NULL;
	CHECK(ret == 0);
	CHECK_EQ_U64(r.mismatches, 8);
	for (d = 0; d < 8; d++) {
		snprintf(want, sizeof(want), "mismatch: device %u core %u 'read_grad' reads 'grad_buf'",
			 d / 2, d % 2);
		CHECK(strstr(log, want) != NULL);
	}
	printf("%s", log);
}

/* devices 1 is the one-device run; without the devices, one message */
TEST(one_device_is_the_plain_run_and_missing_devices_say_so)
{
	struct dp_err e = { "" };
	struct dp_model *m = dp_model_load_json(DP_SRCROOT "/examples/allreduce_2core.json", &e);
	const char *plan = m ? plan_of(m) : NULL;
	struct dp_run_opts o = { .no_checker = 1, .devices = 1 };
	struct dp_run_result r0, r1;
	int ret;

	REQUIRE(m && plan);
	r0 = run_model(m, plan, PICK_EARLIEST, 0, &ret, NULL, 0);
	CHECK(ret == 0);
	dev_reset(F_NONE);
	dma_reset(PICK_EARLIEST, 0);
	CHECK(dp_plan_run(&fake_dev, plan, m, &o, &r1, &e) == 0);
	xms_plan_release(&fake_dev);
	CHECK(!memcmp(&r0, &r1, sizeof(r0)));
	o.devices = 3;
	CHECK(dp_plan_run(&fake_dev, plan, m, &o, &r1, &e) == -EOPNOTSUPP);
	CHECK(strstr(e.msg, "devices 0 to 2 as a communicator") != NULL);
	printf("# %s\n", e.msg);
	unlink(plan);
	dp_model_free(m);
}

int main(void)
{
	return tap_run();
}
