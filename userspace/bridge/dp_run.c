// SPDX-License-Identifier: GPL-2.0
/*
 * dp_run.c - a plan run: the model's program executed on the device as
 * DMA, with the plan's addresses, and checked (dp_device.h, "plan run").
 *
 * The program. Every core's instructions run in program order on one
 * queue of their own (model core c: device core c % cores, its engine
 * (c / cores) % engines-per-core, queue c / (cores x engines-per-core);
 * docs/plan-run.md "The plan run"). An instruction is its waits (each a
 * marker: 8 bytes of the core's own scratch copied), its uses, its
 * compute time (a copy in the core's own pad that lasts it), then its
 * defs, then its signals: a use copies the tensor's bytes to a sink of
 * its own, a def writes the tensor from the pattern pool. Event k is
 * semaphore k; each signaller adds 1 when its last transfer ends, and a
 * waiter waits for the count of its signallers. Each data transfer also
 * waits, for the checker, on an event already met (order_wait()). A
 * collective is the ring (emit_ring()) on the members' two engines.
 *
 * The check. Each def writes a pattern no other writes: the pool is one
 * non-repeating sequence of 64-bit words and each version (def, or the
 * bytes a tensor holds before the run) starts at its own 64-byte offset
 * in it. Each use's expected version is the last write to its tensor
 * (a linked one: its owner) that happens before it (dp_happens_before:
 * program order, events and collectives, the relation the static proof
 * uses); a collective's result is the host's reduction (dp_reduce.c) in
 * the ring's order. After the run the sinks are read back and compared;
 * a word that does not match names, through the pool, its version.
 *
 * Submission follows happens-before (a signaller before its waiters), so
 * the device's hazard checker sees each ordered pair as ordered; with the
 * checker on, one transfer a submit, so that a race it counts is named.
 * With more transfers than file_dma_depth the run reaps between submits,
 * and a reap moves the file's clock (uapi/xmemsim.h, "The clock").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"

#define NONE32		UINT32_MAX
#define RUN_SYSFS	"/sys/class/misc/xmemsim"
#define RUN_CHECK_PARAM	"/sys/module/xmemsim/parameters/dma_check"

enum xkind { X_USE, X_DEF, X_MARK, X_REDUCE, X_GATHER, X_COMPUTE };

struct xfer {			/* one descriptor of the run */
	struct xmemsim_dma_desc d;
	uint32_t core, inst;	/* model core and instruction */
	uint32_t t;		/* tensor (use, def), or NONE32 */
	uint8_t kind;		/* enum xkind */
	uint64_t ticket, start, end;
	int32_t status;
	int done;
};

struct ver {			/* a version: what one write leaves */
	uint32_t core, inst, t;	/* the writer; core NONE32: before the run */
	uint64_t key;		/* the object written (obj_key()) */
	uint64_t addr, bytes;	/* the bytes it covers */
	uint64_t pool;		/* pattern: pool offset; or */
	uint8_t *buf;		/* explicit bytes (a reduction's result) */
	int own;		/* buf is this version's to free (members share) */
	int wanted;		/* some read wants it */
};

struct use {			/* a read to check */
	uint32_t core, inst, t;
	uint64_t addr, bytes, sink;
	int64_t want;		/* index in vers */
};

struct run {
	struct xms_dev *dev;
	const struct dp_model *m;
	struct dp_happens *hb;
	const struct dp_run_opts *o;
	struct dp_run_result *r;
	struct dp_err *e;
	struct dp_loaded l;
	struct xmemsim_info info;
	struct xmemsim_dma_info di;
	uint64_t **addr;	/* [core][tensor]: device address, 0 not DRAM */
	struct xfer *x;
	size_t nx, capx;
	struct ver *v;
	size_t nv, capv;
	struct use *u;
	size_t nu, capu;
	uint8_t *pool;		/* host copy */
	uint64_t pool_bytes, pool_dev, sink_dev, sink_bytes, sink_used;
	uint64_t scratch_dev;
	uint64_t pad_dev, pad_bytes;	/* compute pads: 2 x pad_bytes a core */
	uint32_t *nsig;		/* [event]: its signallers */
	uint32_t *sent;		/* [core]: its ring semaphore's signals so far;
				 * [cores + core]: its done semaphore's;
				 * [2 cores + core]: its second ring one's */
	uint32_t coll_sem;	/* core 0's ring semaphore; core c's + c, its
				 * done semaphore + cores + c, its second
				 * engine's ring semaphore + 2 cores + c */
	uint64_t *fin;		/* [core]: critical path: its last finish */
	uint64_t *evfin;	/* [event]: the latest of its signallers */
	uint32_t *next;		/* [core]: next instruction to emit */
	uint32_t *evdone;	/* [event]: signallers emitted */
	int counting;		/* the sizing pass: no pool, no results */
	int two;		/* rings on both engines (semaphores enough) */
	int64_t *lastsig;	/* [core * nev + event]: its last signaller there */
	uint64_t hz_seen;	/* dma_check_reports' sum as last read */
	uint64_t seed;		/* the pool's first index: each device its own */
	const char *sysfs;	/* the device's sysfs folder */
	const char *who;	/* "" or "device D ": the log lines' prefix */
	/* submission (submit_to()): how far it went */
	uint64_t *tk;		/* [transfer]: its ticket */
	size_t sub_next, sub_done;
	uint32_t inflight;
	uint64_t not_before;	/* every transfer starts no earlier */
	uint64_t bounce;	/* the cross-device step's receive buffers */
	/* many devices: the results come after every device's emission */
	int defer;
	struct crec *crec;	/* the collectives that reduce across devices */
	size_t ncrec, capcrec;
	uint64_t (*step)[2];	/* [crec]: its cross-device step's start, end */
};

/* splitmix64's finalizer: a bijection, so a word names its place */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t unmix(uint64_t z)
{
	z ^= z >> 31 ^ z >> 62;
	z *= 0x319642b2d24d8ec3ULL;
	z ^= z >> 27 ^ z >> 54;
	z *= 0x96de1b173f119089ULL;
	z ^= z >> 30 ^ z >> 60;
	return z;
}

#define POOL_SEED	0x786d656d73696dULL	/* device 0's pool's first index */

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

static const char *inst_name(const struct run *r, uint32_t c, uint32_t i)
{
	return r->m->c[c].in[i].name;
}

static const char *tensor_name(const struct run *r, uint32_t c, uint32_t t)
{
	return r->m->c[c].t[t].name;
}

/* The object core c's tensor t is: a linked tensor is its owner's bytes. */
static uint64_t obj_key(const struct run *r, uint32_t c, uint32_t t)
{
	const struct dp_tensor *x = &r->m->c[c].t[t];

	if (x->has_remote && x->remote_idx >= 0)
		return (uint64_t)x->remote_core << 32 | (uint64_t)x->remote_idx;
	return (uint64_t)c << 32 | t;
}

/* model core c's engine and queue */
static void core_queue(const struct run *r, uint32_t c, uint32_t *eng,
		       uint32_t *q)
{
	uint32_t dc = r->info.cores ? r->info.cores : 1;
	uint32_t epc = r->di.engines / dc ? r->di.engines / dc : 1;

	*eng = (c % dc) * epc + (c / dc) % epc;
	*q = (c / (dc * epc)) % (r->di.queues ? r->di.queues : 1);
}

/* the engine of the same device core after eng (eng itself if only one) */
static uint32_t other_engine(const struct run *r, uint32_t eng)
{
	uint32_t dc = r->info.cores ? r->info.cores : 1;
	uint32_t epc = r->di.engines / dc ? r->di.engines / dc : 1;

	return eng - eng % epc + (eng % epc + 1) % epc;
}

static uint64_t dur(const struct run *r, uint64_t len)
{
	uint64_t bw = r->di.bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_HBM];

	return r->di.latency_ns + (bw ? (uint64_t)((unsigned __int128)len * 1000000000ULL / bw) : 0);
}

static struct xfer *add_x(struct run *r, uint32_t c, uint32_t i, uint32_t t,
			  int kind, uint64_t src, uint64_t dst, uint64_t len)
{
	struct xfer *x;
	uint32_t eng, q;

	r->x = grow(r->x, &r->capx, r->nx + 1, sizeof(*r->x));
	if (!r->x)
		return NULL;
	x = &r->x[r->nx];
	memset(x, 0, sizeof(*x));
	core_queue(r, c, &eng, &q);
	x->d = (struct xmemsim_dma_desc){
		.src = src, .dst = dst, .len = len, .engine = eng, .queue = q,
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
		.tag = r->nx,
	};
	x->core = c;
	x->inst = i;
	x->t = t;
	x->kind = (uint8_t)kind;
	r->nx++;
	return x;
}

static struct xfer *add_mark(struct run *r, uint32_t c, uint32_t i)
{
	uint64_t s = r->scratch_dev + (uint64_t)c * 64;

	return add_x(r, c, i, NONE32, X_MARK, s, s + 8, 8);
}

static int64_t add_ver(struct run *r, uint32_t c, uint32_t i, uint32_t t,
		       uint64_t addr, uint64_t bytes, uint64_t key)
{
	struct ver *v;

	r->v = grow(r->v, &r->capv, r->nv + 1, sizeof(*r->v));
	if (!r->v)
		return -1;
	v = &r->v[r->nv];
	*v = (struct ver){ .core = c, .inst = i, .t = t, .key = key, .addr = addr,
			   .bytes = bytes, .pool = r->nv * 64 };
	return (int64_t)r->nv++;
}

/* Does version v's write happen before core c's instruction i starts? */
static int ver_before(const struct run *r, const struct ver *v, uint32_t c,
		      uint32_t i)
{
	if (v->core == NONE32)
		return 1;
	if (v->core == c)
		return v->inst < i;
	return dp_happens_before(r->hb, v->core, v->inst, c, i);
}

/*
 * The version core c's instruction i must read of object key: the last
 * write to it that happens before it (the first version, the bytes
 * before the run, happens before everything). By the model's objects,
 * not the device's addresses: a tensor placed on another's bytes reads
 * what the other wrote, and that is the mismatch to find.
 */
static int64_t want_ver(struct run *r, uint32_t c, uint32_t i,
			uint64_t key)
{
	int64_t best = -1;
	size_t k;

	for (k = 0; k < r->nv; k++) {
		const struct ver *v = &r->v[k];

		if (v->key != key || !ver_before(r, v, c, i))
			continue;
		if (best < 0 || r->v[best].core == NONE32 ||
		    (v->core != NONE32 && ver_before(r, &r->v[best], v->core, v->inst)))
			best = (int64_t)k;
	}
	if (best >= 0)
		r->v[best].wanted = 1;
	return best;
}

/* version k's bytes, on the host */
static const uint8_t *ver_bytes(const struct run *r, int64_t k)
{
	return r->v[k].buf ? r->v[k].buf : r->pool + r->v[k].pool;
}

static uint64_t sink_take(struct run *r, uint64_t bytes)
{
	uint64_t a = r->sink_dev + r->sink_used;

	r->sink_used += (bytes + 63) & ~63ULL;
	return a;
}

static const uint32_t *inst_ops(const struct dp_core *c, const struct dp_inst *in)
{
	return &c->ops[in->op_first];
}

static const uint32_t *inst_sync(const struct dp_core *c, const struct dp_inst *in)
{
	return &c->sync[in->sync_first];
}

/*
 * An instruction's waits: each on a marker before its transfers (FIFO:
 * they start after). Its data transfers then wait, for the checker, on
 * an event already met (order_wait()).
 */
static int open_inst(struct run *r, uint32_t c, uint32_t i, size_t *first)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *sy = inst_sync(core, in);
	uint32_t w;

	*first = r->nx;
	for (w = 0; w < in->nwait; w++) {
		struct xfer *x = add_mark(r, c, i);

		if (!x)
			return -ENOMEM;
		x->d.wait_sem = sy[w];
		x->d.wait_value = r->nsig[sy[w]];
	}
	return 0;
}

/*
 * Its signals: the first on its last transfer, the others on markers
 * after it; and its finish on the critical path, extra (a ring's time,
 * the compute time) added to its own transfers' times.
 */
static int close_inst(struct run *r, uint32_t c, uint32_t i, size_t first,
		      uint64_t start, uint64_t extra)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *sy = inst_sync(core, in);
	size_t k, last = SIZE_MAX;
	uint64_t d = extra;
	uint32_t s;

	for (k = first; k < r->nx; k++)
		if (r->x[k].core == c)
			last = k;
	if (last == SIZE_MAX) {
		if (!add_mark(r, c, i))
			return -ENOMEM;
		last = r->nx - 1;
	}
	for (s = 0; s < in->nsignal; s++) {
		struct xfer *x = !s && r->x[last].d.signal_sem == XMEMSIM_SEM_NONE ?
				 &r->x[last] : add_mark(r, c, i);

		if (!x)
			return -ENOMEM;
		x->d.signal_sem = sy[in->nwait + s];
		x->d.signal_inc = 1;
	}
	for (k = first; k < r->nx; k++)
		if (r->x[k].core == c && r->x[k].kind < X_REDUCE)
			d += dur(r, r->x[k].d.len);
	r->fin[c] = start + d;
	for (s = 0; s < in->nsignal; s++) {
		uint32_t ev = sy[in->nwait + s];

		r->evdone[ev]++;
		if (r->evfin[ev] < r->fin[c])
			r->evfin[ev] = r->fin[c];
	}
	return 0;
}

/* when core c's instruction i may start, on the critical path */
static uint64_t inst_start(const struct run *r, uint32_t c, uint32_t i)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *sy = inst_sync(core, in);
	uint64_t t = r->fin[c];
	uint32_t w;

	for (w = 0; w < in->nwait; w++)
		if (t < r->evfin[sy[w]])
			t = r->evfin[sy[w]];
	return t;
}

static uint32_t coll_data(const struct dp_core *core, const struct dp_inst *in);
static uint32_t done_sem(const struct run *r, uint32_t c);

/*
 * Have other members read [a, a + b) of core c's bytes in a collective
 * so far: does it meet the tensor of one of core c's collectives, and
 * has one of them run?
 */
static int ring_read(const struct run *r, uint32_t c, uint64_t a, uint64_t b)
{
	const struct dp_core *core = &r->m->c[c];
	uint32_t i, t;

	if (!r->sent[r->m->nc + c])
		return 0;
	for (i = 0; i < core->ni; i++) {
		if (core->in[i].coll_kind == DP_COLL_NONE)
			continue;
		t = coll_data(core, &core->in[i]);
		if (t != NONE32 && r->addr[c][t] < a + b && a < r->addr[c][t] + core->t[t].bytes)
			return 1;
	}
	return 0;
}

/*
 * The wait a data transfer of core c's instruction i on [a, a + b) carries
 * for the hazard checker, which orders two transfers of different queues
 * only by a semaphore that the later one waits on and the earlier one's
 * queue signals at or after it. The program may order them through a
 * chain instead (core c waited for the event at an earlier instruction,
 * or the writer signalled it later on): any event that core c has waited
 * for by i and that each other core touching those bytes before i (a
 * write, or any access if this one writes) signals at or after its last
 * such access is already met, and says the order directly. None such:
 * the instruction's own first wait, or none. A write of bytes that other
 * members read in a collective of core c waits on core c's done
 * semaphore instead (ring_read(); met since the collective's end).
 */
static void order_wait(const struct run *r, uint32_t c, uint32_t i, uint32_t t,
		       int writes, struct xfer *x)
{
	const struct dp_core *core = &r->m->c[c];
	uint64_t a = r->addr[c][t], b = core->t[t].bytes;
	uint32_t nev = r->m->nev, c2, k, w, conflicts = 0;
	int64_t *last = NULL;

	if (writes && ring_read(r, c, a, b)) {
		x->d.wait_sem = done_sem(r, c);
		x->d.wait_value = r->sent[r->m->nc + c];
		return;
	}
	if (!nev || r->counting || !(core->t[t].shared || core->t[t].has_remote))
		goto dflt;
	last = calloc(r->m->nc, sizeof(*last));
	if (!last)
		goto dflt;
	for (c2 = 0; c2 < r->m->nc; c2++) {
		const struct dp_core *o = &r->m->c[c2];

		last[c2] = -1;
		for (k = 0; c2 != c && k < o->ni; k++) {
			const struct dp_inst *in = &o->in[k];
			const uint32_t *ops = inst_ops(o, in);
			uint32_t n;

			for (n = 0; n < in->ndefs + in->nuses; n++) {
				uint64_t a2 = r->addr[c2][ops[n]], b2 = o->t[ops[n]].bytes;

				if (!a2 || a2 >= a + b || a >= a2 + b2 || (!writes && n >= in->ndefs))
					continue;
				if (dp_happens_before(r->hb, c2, k, c, i)) {
					last[c2] = k;
					conflicts++;
				}
				break;
			}
		}
	}
	for (k = i + 1; conflicts && k-- > 0;) {	/* core c's waits, latest first */
		const struct dp_inst *in = &core->in[k];
		const uint32_t *sy = inst_sync(core, in);

		for (w = 0; w < in->nwait; w++) {
			for (c2 = 0; c2 < r->m->nc; c2++)
				if (last[c2] >= 0 && r->lastsig[(size_t)c2 * nev + sy[w]] < last[c2])
					break;
			if (c2 == r->m->nc) {
				x->d.wait_sem = sy[w];
				x->d.wait_value = r->nsig[sy[w]];
				free(last);
				return;
			}
		}
	}
	free(last);
dflt:
	if (core->in[i].nwait) {
		x->d.wait_sem = inst_sync(core, &core->in[i])[0];
		x->d.wait_value = r->nsig[x->d.wait_sem];
	}
}

/* a use of tensor t (a bytes at a) to a sink */
static int emit_use(struct run *r, uint32_t c, uint32_t i, uint32_t t,
		    uint64_t a, uint64_t b)
{
	struct xfer *x;
	struct use *u;

	r->u = grow(r->u, &r->capu, r->nu + 1, sizeof(*r->u));
	if (!r->u)
		return -ENOMEM;
	u = &r->u[r->nu++];
	*u = (struct use){ .core = c, .inst = i, .t = t, .addr = a,
			   .bytes = b, .sink = sink_take(r, b),
			   .want = want_ver(r, c, i, obj_key(r, c, t)) };
	x = add_x(r, c, i, t, X_USE, a, u->sink, b);
	if (!x)
		return -ENOMEM;
	order_wait(r, c, i, t, 0, x);
	return 0;
}

/* a def of tensor t: a new version, its bytes from the pool */
static int emit_def(struct run *r, uint32_t c, uint32_t i, uint32_t t,
		    uint64_t a, uint64_t b)
{
	int64_t v = add_ver(r, c, i, t, a, b, obj_key(r, c, t));
	struct xfer *x;

	x = v < 0 ? NULL : add_x(r, c, i, t, X_DEF, r->pool_dev + r->v[v].pool, a, b);
	if (!x)
		return -ENOMEM;
	order_wait(r, c, i, t, 1, x);
	return 0;
}

/* the defs, else the uses, of DRAM tensors (not skip), in order */
static int emit_ops(struct run *r, uint32_t c, uint32_t i, uint32_t skip,
		    int defs)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *ops = inst_ops(core, in) + (defs ? 0 : in->ndefs);
	uint32_t k, n = defs ? in->ndefs : in->nuses;

	for (k = 0; k < n; k++) {
		uint32_t t = ops[k];
		uint64_t a = r->addr[c][t], b = core->t[t].bytes;
		int ret;

		if (!a || !b || t == skip)
			continue;
		ret = defs ? emit_def(r, c, i, t, a, b) : emit_use(r, c, i, t, a, b);
		if (ret)
			return ret;
	}
	return 0;
}

static int emit_uses(struct run *r, uint32_t c, uint32_t i, uint32_t skip)
{
	return emit_ops(r, c, i, skip, 0);
}

static int emit_defs(struct run *r, uint32_t c, uint32_t i, uint32_t skip)
{
	return emit_ops(r, c, i, skip, 1);
}

/* an instruction's compute time: the model's, plus the run's for each */
static uint64_t inst_compute(const struct run *r, uint32_t c, uint32_t i)
{
	return r->m->c[c].in[i].compute_ns + r->o->compute_ns;
}

/*
 * Its compute time on the device: a copy within the core's own pad that
 * lasts as long (dma_latency_ns plus its bytes at the HBM-to-HBM rate),
 * between the instruction's uses and its defs, so that the span holds
 * it as the bound does. The critical path counts compute_ns itself.
 */
static int emit_compute(struct run *r, uint32_t c, uint32_t i)
{
	uint64_t ns = inst_compute(r, c, i), bw = r->di.bw[XMEMSIM_HEAP_HBM][XMEMSIM_HEAP_HBM];
	uint64_t len = 8, pad = r->pad_dev + (uint64_t)c * 2 * r->pad_bytes;
	struct xfer *x;

	if (!ns)
		return 0;
	if (ns > r->di.latency_ns)
		len = (uint64_t)(((unsigned __int128)(ns - r->di.latency_ns) * bw + 999999999) /
				 1000000000ULL);
	len = (len + 7) & ~7ULL;
	if (r->counting) {
		if (r->pad_bytes < len)
			r->pad_bytes = len;
		return 0;
	}
	x = add_x(r, c, i, NONE32, X_COMPUTE, pad, pad + r->pad_bytes, len);
	return x ? 0 : -ENOMEM;
}

static int emit_plain(struct run *r, uint32_t c, uint32_t i)
{
	uint64_t start = inst_start(r, c, i);
	size_t first;
	int ret;

	ret = open_inst(r, c, i, &first);
	if (!ret)
		ret = emit_uses(r, c, i, NONE32);
	if (!ret)
		ret = emit_compute(r, c, i);
	if (!ret)
		ret = emit_defs(r, c, i, NONE32);
	if (!ret)
		ret = close_inst(r, c, i, first, start, inst_compute(r, c, i));
	return ret;
}

/* ---- the ring ------------------------------------------------------- */

struct member {			/* a ring's member */
	uint32_t core, inst, data;	/* its core, instruction and tensor */
	uint64_t base[2];		/* its semaphores before the ring */
	int64_t inv;			/* the version it reduces */
	size_t first;			/* its instruction's first transfer */
	uint8_t *res;			/* its result (one for all: AR, AG) */
};

struct ring {
	uint32_t n, op, type, esz;
	int rs, ag;			/* its reduce-scatter, its all-gather */
	uint32_t eng;			/* engines a member: 2, or 1 if the
					 * semaphores do not go round */
	struct member *mb;		/* [n] */
	uint64_t bytes, elems, per;	/* per: elements a segment */
	uint64_t slot;			/* bytes a segment */
	size_t split;			/* transfers emitted by its reduce-scatter's end */
};

/*
 * With many devices, a collective: its ring, whose result is computed
 * once every device's ring is known (cross_results()), and, if it
 * reduces (all_reduce, reduce_scatter), goes across devices: its
 * device's transfers stop for that step after the reduce-scatter's
 * steps (the transfers [0, g.split) end first), before the all-gather's.
 */
struct crec {
	int cross;
	struct ring g;
};

static void seg(const struct ring *g, uint32_t k, uint64_t *off, uint64_t *len)
{
	uint64_t lo = (uint64_t)k * g->per, hi = lo + g->per;

	if (lo > g->elems)
		lo = g->elems;
	if (hi > g->elems)
		hi = g->elems;
	*off = lo * g->esz;
	*len = (hi - lo) * g->esz;
}

/* half h of segment k: its first half (elements) on engine 0, the rest 1 */
static void seg_half(const struct ring *g, uint32_t k, uint32_t h,
		     uint64_t *off, uint64_t *len)
{
	uint64_t e;

	seg(g, k, off, len);
	e = g->eng < 2 ? *len : (*len / g->esz + 1) / 2 * g->esz;
	if (h) {
		*off += e;
		*len -= e;
	} else {
		*len = e;
	}
}

/*
 * One ring transfer of member p on its engine h (0: its program's queue,
 * 1: the same queue of its core's other engine): a copy or reduce of len
 * bytes, or a marker if none (engine 1's on its own scratch bytes).
 */
static struct xfer *ring_x(struct run *r, const struct ring *g, uint32_t p,
			   uint32_t h, int kind, uint64_t src, uint64_t dst,
			   uint64_t len, int reduce)
{
	struct xfer *x;

	if (!len) {
		x = add_mark(r, g->mb[p].core, g->mb[p].inst);
		if (x) {
			x->kind = (uint8_t)kind;
			x->d.src += 16 * h;
			x->d.dst += 16 * h;
		}
	} else {
		x = add_x(r, g->mb[p].core, g->mb[p].inst, g->mb[p].data, kind, src, dst, len);
		if (x && reduce) {
			x->d.op = g->op;
			x->d.dtype = g->type;
		}
	}
	if (x && h)
		x->d.engine = other_engine(r, x->d.engine);
	return x;
}

/* the semaphore of member p's ring transfers on its engine h */
static uint32_t ring_sem(const struct run *r, const struct ring *g, uint32_t p,
			 uint32_t h)
{
	return r->coll_sem + 2 * h * r->m->nc + g->mb[p].core;
}

/*
 * Member p pulls half h of segment k from member `from`'s tensor into its
 * own (a reduce, or a copy) on its engine h, once that member's engine h
 * semaphore reaches step + 1 over its base; it signals its own.
 */
static int ring_pull(struct run *r, const struct ring *g, uint32_t p,
		     uint32_t h, uint32_t from, uint32_t k, int reduce,
		     uint64_t step)
{
	uint64_t off, len;
	struct xfer *x;

	seg_half(g, k, h, &off, &len);
	x = ring_x(r, g, p, h, reduce ? X_REDUCE : X_GATHER,
		   r->addr[g->mb[from].core][g->mb[from].data] + off,
		   r->addr[g->mb[p].core][g->mb[p].data] + off, len, reduce);
	if (!x)
		return -ENOMEM;
	x->d.wait_sem = ring_sem(r, g, from, h);
	x->d.wait_value = g->mb[from].base[h] + 1 + step;
	x->d.signal_sem = ring_sem(r, g, p, h);
	x->d.signal_inc = 1;
	return 0;
}

/* core c's done semaphore: the members that read its tensor are done */
static uint32_t done_sem(const struct run *r, uint32_t c)
{
	return r->coll_sem + r->m->nc + c;
}

/* the signals member p's ring gives an engine: its opening and its steps */
static uint64_t ring_signals(const struct ring *g)
{
	return 1 + (uint64_t)(g->rs + g->ag) * (g->n - 1);
}

/*
 * A marker on member p's engine 0: it has read member owner's tensor.
 * The first waits for its engine 1's last step, so that it and what
 * follows it on engine 0 are ordered after that engine's transfers
 * (the checker follows that chain).
 */
static int ring_mark_done(struct run *r, const struct ring *g, uint32_t p,
			  uint32_t owner)
{
	struct xfer *x = ring_x(r, g, p, 0, g->ag ? X_GATHER : X_REDUCE, 0, 0, 0, 0);

	if (!x)
		return -ENOMEM;
	if (g->eng > 1 && owner == (g->rs ? (p + g->n - 1) % g->n : (p + 1) % g->n)) {
		x->d.wait_sem = ring_sem(r, g, p, 1);
		x->d.wait_value = g->mb[p].base[1] + ring_signals(g);
	}
	x->d.signal_sem = done_sem(r, g->mb[owner].core);
	x->d.signal_inc = 1;
	return 0;
}

/* the signals of a member's done semaphore in a ring: its readers' */
static uint32_t ring_dones(const struct ring *g)
{
	return (uint32_t)(g->rs + g->ag);
}

/*
 * The openings: on each member's engine 0 a marker signals its engine 0
 * ring semaphore (the program before the collective is done), and on
 * its engine 1 a marker waits on that and signals its engine 1 one.
 */
static int ring_opening(struct run *r, struct ring *g)
{
	uint32_t p, h;

	for (h = 0; h < g->eng; h++)
		for (p = 0; p < g->n; p++) {
			struct xfer *x = ring_x(r, g, p, h, g->rs ? X_REDUCE : X_GATHER,
						0, 0, 0, 0);

			if (!x)
				return -ENOMEM;
			if (h) {
				x->d.wait_sem = ring_sem(r, g, p, 0);
				x->d.wait_value = g->mb[p].base[0] + 1;
			}
			x->d.signal_sem = ring_sem(r, g, p, h);
			x->d.signal_inc = 1;
		}
	return 0;
}

/*
 * The ring over n members, every transfer a pull on the puller's core,
 * straight from the other member's tensor: no inbox, no copy but the
 * 2(n - 1) segments a member must move, each split in two halves of
 * whole elements, the first on the member's own queue (engine 0), the
 * second on the same queue of its core's other engine (engine 1): two
 * rings over disjoint bytes, each with its own semaphore a member, at
 * both engines' bandwidth. The order of the reduction per element is
 * the one-engine ring's.
 *
 * First (ring_opening()) a marker on engine 0 signals the member's
 * engine 0 semaphore: its program before the collective is done; one on
 * engine 1 waits on that and signals the engine 1 semaphore, so that
 * engine 1's steps after it are ordered after the program (the checker
 * follows the chain). Reduce-scatter, n - 1 steps: at step s member p
 * reduces half h of segment (p - 2 - s) mod n of its left neighbour's
 * tensor into its own on its engine h, once the left one's engine h
 * semaphore says it reduced that half itself (its step s - 1, or its
 * opening). So segment k is accumulated from member k + 1 on and ends,
 * whole, at member k. All-gather, n - 1 steps, the other way round: at
 * step s member p copies segment (p + 1 + s) mod n from its right
 * neighbour, once that one holds it final. Last, on engine 0, each
 * member says on the done semaphore of each member whose tensor it read
 * (the left one in the reduce-scatter, the right one in the all-gather)
 * that it has read it all, the first such marker waiting for its
 * engine 1's last step; and a marker on engine 0 waits for its readers'
 * word: what the member does after the collective cannot touch bytes
 * still read or written by either engine, and a later write of those
 * bytes waits on that semaphore for the checker (order_wait()).
 *
 * Why the device's checker sees every pair ordered: a member's half h
 * bytes are written only on its engine h, and read by its neighbours'
 * engine h, each waiting on the member's engine h semaphore. In the
 * reduce-scatter p reads its left one's half only once that one wrote
 * it (and nobody writes it after), and in the all-gather p overwrites a
 * half the right one read in its reduce-scatter only after waiting on
 * the right one's semaphore, which its later steps signal; what p reads
 * in the all-gather is final. Every member signals each of its ring
 * semaphores from one queue only, so a wait value counts one queue's
 * transfers exactly.
 */
static int emit_ring(struct run *r, struct ring *g)
{
	uint32_t n = g->n, s, p, h;
	int ret = ring_opening(r, g);

	for (s = 0; g->rs && s < n - 1 && !ret; s++)
		for (p = 0; p < n && !ret; p++)
			for (h = 0; h < g->eng && !ret; h++)
				ret = ring_pull(r, g, p, h, (p + n - 1) % n,
						(p + 2 * n - 2 - s) % n, 1, s);
	g->split = r->nx;	/* many devices: the cross-device step goes here */
	for (s = 0; g->ag && s < n - 1 && !ret; s++)
		for (p = 0; p < n && !ret; p++)
			for (h = 0; h < g->eng && !ret; h++)
				ret = ring_pull(r, g, p, h, (p + 1) % n, (p + 1 + s) % n, 0,
						(uint64_t)g->rs * (n - 1) + s);
	for (p = 0; p < n && !ret; p++) {	/* the tensors it read may change */
		if (g->rs)
			ret = ring_mark_done(r, g, p, (p + n - 1) % n);
		if (g->ag && !ret)
			ret = ring_mark_done(r, g, p, (p + 1) % n);
	}
	for (p = 0; p < n && !ret; p++) {	/* its readers are done */
		uint32_t c = g->mb[p].core;
		struct xfer *x = ring_x(r, g, p, 0, g->ag ? X_GATHER : X_REDUCE, 0, 0, 0, 0);

		if (!x)
			return -ENOMEM;
		x->d.wait_sem = done_sem(r, c);
		x->d.wait_value = r->sent[r->m->nc + c] + ring_dones(g);
	}
	return ret;
}

/*
 * The host's reduction in the ring's order, segment k of member p's
 * result: the reduce-scatter's fold from member k + 1 on over cnt
 * members (each dst = its own op the partial it pulls), or, after an
 * all-gather alone, member k's own segment.
 */
static int ring_seg_result(struct run *r, const struct ring *g, uint32_t k,
			   uint32_t cnt, uint8_t *out)
{
	uint64_t off, len;
	uint8_t *tmp;
	uint32_t j;

	seg(g, k, &off, &len);
	if (!g->rs) {
		memcpy(out + off, ver_bytes(r, g->mb[k].inv) + off, len);
		return 0;
	}
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return -ENOMEM;
	memcpy(out + off, ver_bytes(r, g->mb[(k + 1) % g->n].inv) + off, len);
	for (j = 2; j <= cnt; j++) {
		memcpy(tmp, ver_bytes(r, g->mb[(k + j) % g->n].inv) + off, len);
		dp_reduce_buf(tmp, out + off, len, g->op, g->type);
		memcpy(out + off, tmp, len);
	}
	free(tmp);
	return 0;
}

/* the members with a result of their own: all after a reduce-scatter
 * alone, else member 0 (the others share its) */
static uint32_t ring_owners(const struct ring *g)
{
	return g->rs && !g->ag ? g->n : 1;
}

/*
 * Every member's result: one for all after an all-reduce or all-gather;
 * after a reduce-scatter alone each its own, segment p whole and
 * segment k the fold of members k + 1 .. p, the partial the ring left.
 */
static int ring_compute(struct run *r, struct ring *g)
{
	uint32_t p, k;
	int ret = 0;

	for (p = 0; p < ring_owners(g) && !ret; p++)
		for (k = 0; k < g->n && !ret; k++)
			ret = ring_seg_result(r, g, k, g->ag ? g->n :
					      (p + 2 * g->n - 1 - k) % g->n + 1, g->mb[p].res);
	return ret;
}

/* The results' buffers, computed (ring_compute()) unless counting, or
 * deferred to the cross-device step's (cross_results()). */
static int ring_results(struct run *r, struct ring *g)
{
	uint32_t p;

	for (p = 0; p < g->n; p++) {
		if (p >= ring_owners(g)) {
			g->mb[p].res = g->mb[0].res;
			continue;
		}
		g->mb[p].res = malloc(g->bytes ? g->bytes : 1);
		if (!g->mb[p].res)
			return -ENOMEM;
	}
	return r->counting || r->defer ? 0 : ring_compute(r, g);
}

/* the tensor a collective reduces: its first use that it also defines */
static uint32_t coll_data(const struct dp_core *core, const struct dp_inst *in)
{
	const uint32_t *ops = inst_ops(core, in);
	uint32_t u, d;

	for (u = 0; u < in->nuses; u++)
		for (d = 0; d < in->ndefs; d++)
			if (ops[in->ndefs + u] == ops[d])
				return ops[d];
	return NONE32;
}

/* frees the results not handed to a version (handed: members [0, h)) */
static void ring_free(struct ring *g, uint32_t h)
{
	uint32_t p;

	for (p = h; g->mb && p < g->n; p++)
		if (g->mb[p].res && (!p || g->mb[p].res != g->mb[0].res))
			free(g->mb[p].res);
	free(g->mb);
}

/*
 * The members, cores mem[0..n): the instruction each is at and the tensor
 * it reduces, all of one size in whole elements; the segments' size; and
 * *start, the latest of the instructions' starts.
 */
static int ring_members(struct run *r, const struct dp_inst *in0,
			struct ring *g, const uint32_t *mem, uint64_t *start)
{
	uint32_t p;

	for (p = 0; p < g->n; p++) {
		const struct dp_core *c = &r->m->c[mem[p]];
		uint32_t i = r->next[mem[p]], t;

		g->mb[p].core = mem[p];
		g->mb[p].inst = i;
		t = coll_data(c, &c->in[i]);
		g->mb[p].data = t;
		if (t == NONE32 || !r->addr[mem[p]][t])
			return dp_fail(r->e, "core %u '%s': no DRAM tensor that it both uses and defines to reduce",
				       mem[p], c->in[i].name), -EINVAL;
		if (p && c->t[t].bytes != g->bytes)
			return dp_fail(r->e, "core %u '%s': '%s' is %" PRIu64 " bytes, core %u's '%s' %" PRIu64,
				       mem[p], c->in[i].name, c->t[t].name, c->t[t].bytes,
				       mem[0], tensor_name(r, mem[0], g->mb[0].data), g->bytes), -EINVAL;
		g->bytes = c->t[t].bytes;
		if (g->bytes % g->esz)
			return dp_fail(r->e, "core %u '%s': '%s' is not whole %s elements",
				       mem[p], c->in[i].name, c->t[t].name,
				       dp_elem_name(in0->coll_type)), -EINVAL;
		if (*start < inst_start(r, mem[p], i))
			*start = inst_start(r, mem[p], i);
	}
	g->elems = g->bytes / g->esz;
	g->per = (g->elems + g->n - 1) / g->n;
	g->slot = g->per * g->esz;
	return 0;
}

/*
 * Before the ring: each member's semaphore's count and the version it
 * reduces noted, its instruction opened and its other uses sent.
 */
static int ring_open(struct run *r, struct ring *g)
{
	uint32_t p;
	int ret;

	for (p = 0; p < g->n; p++) {
		g->mb[p].base[0] = r->sent[g->mb[p].core];
		g->mb[p].base[1] = r->sent[2 * r->m->nc + g->mb[p].core];
		g->mb[p].inv = want_ver(r, g->mb[p].core, g->mb[p].inst,
				     obj_key(r, g->mb[p].core, g->mb[p].data));
		ret = open_inst(r, g->mb[p].core, g->mb[p].inst, &g->mb[p].first);
		if (!ret)
			ret = emit_uses(r, g->mb[p].core, g->mb[p].inst, g->mb[p].data);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * After the ring: each member's other defs sent, its tensor's version
 * its result (handed to the version: *handed members so far), and its
 * instruction closed, as long as one member's steps from start.
 */
static int ring_close(struct run *r, struct ring *g, uint64_t start,
		      uint32_t *handed)
{
	uint64_t d = (uint64_t)(1 + g->eng + g->rs + g->ag) * dur(r, 8) +
		     (ring_signals(g) - 1) * dur(r, (g->per + g->eng - 1) / g->eng * g->esz);
	uint32_t p;
	int ret;

	for (p = 0; p < g->n; p++) {
		uint32_t c = g->mb[p].core, t = g->mb[p].data;
		int64_t v;

		r->sent[c] += ring_signals(g);
		r->sent[2 * r->m->nc + c] += g->eng > 1 ? ring_signals(g) : 0;
		r->sent[r->m->nc + c] += ring_dones(g);
		ret = emit_compute(r, c, g->mb[p].inst);
		if (!ret)
			ret = emit_defs(r, c, g->mb[p].inst, t);
		if (ret)
			return ret;
		v = add_ver(r, c, g->mb[p].inst, t, r->addr[c][t], g->bytes,
			    obj_key(r, c, t));
		if (v < 0)
			return -ENOMEM;
		r->v[v].buf = g->mb[p].res;
		r->v[v].own = !p || g->mb[p].res != g->mb[0].res;
		*handed = p + 1;
		ret = close_inst(r, c, g->mb[p].inst, g->mb[p].first, start,
				 d + inst_compute(r, c, g->mb[p].inst));
		if (ret)
			return ret;
		r->next[c]++;
	}
	return 0;
}

/*
 * Many devices: the ring g, which goes across devices if it reduces; the
 * record keeps g's members.
 */
static int crec_add(struct run *r, struct ring *g)
{
	r->crec = grow(r->crec, &r->capcrec, r->ncrec + 1, sizeof(*r->crec));
	if (!r->crec)
		return -ENOMEM;
	r->crec[r->ncrec].cross = g->rs;
	r->crec[r->ncrec++].g = *g;
	g->mb = NULL;
	return 0;
}

static int emit_coll(struct run *r, uint32_t c0, uint32_t i0)
{
	const struct dp_core *core0 = &r->m->c[c0];
	const struct dp_inst *in0 = &core0->in[i0];
	const uint32_t *mem = inst_sync(core0, in0) + in0->nwait + in0->nsignal;
	struct ring g = { .n = in0->ncores };
	uint64_t start = 0;
	uint32_t handed = 0;
	int ret;

	g.eng = r->two ? 2 : 1;
	g.rs = in0->coll_kind != DP_COLL_ALL_GATHER;
	g.ag = in0->coll_kind != DP_COLL_REDUCE_SCATTER;
	g.op = in0->coll_op == DP_RED_MAX ? XMEMSIM_DMA_OP_MAX : XMEMSIM_DMA_OP_SUM;
	g.type = (uint32_t)in0->coll_type + 1;	/* DP_ELEM_F32.. -> XMEMSIM_DMA_T_F32.. */
	g.esz = dp_reduce_size(g.type);
	g.mb = calloc(g.n, sizeof(*g.mb));
	ret = g.mb ? ring_members(r, in0, &g, mem, &start) : -ENOMEM;
	if (!ret)
		ret = ring_open(r, &g);
	if (!ret)
		ret = emit_ring(r, &g);
	if (!ret)
		ret = ring_results(r, &g);
	if (!ret)
		ret = ring_close(r, &g, start, &handed);
	if (!ret && r->defer && !r->counting)
		ret = crec_add(r, &g);
	if (ret == -ENOMEM && !r->e->msg[0])
		dp_nomem(r->e);
	ring_free(&g, handed);
	return ret;
}

/* ---- the order of submission: happens-before, core by core ----------- */

static int waits_met(const struct run *r, uint32_t c, uint32_t i)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *sy = inst_sync(core, in);
	uint32_t w;

	for (w = 0; w < in->nwait; w++)
		if (r->evdone[sy[w]] < r->nsig[sy[w]])
			return 0;
	return 1;
}

/* May core c's instruction i be emitted: its waits met, its collective's
 * members all at it with theirs met? */
static int ready(const struct run *r, uint32_t c, uint32_t i)
{
	const struct dp_core *core = &r->m->c[c];
	const struct dp_inst *in = &core->in[i];
	const uint32_t *sy = inst_sync(core, in);
	uint32_t p;

	if (!waits_met(r, c, i))
		return 0;
	if (in->coll_kind == DP_COLL_NONE)
		return 1;
	for (p = 0; p < in->ncores; p++) {
		uint32_t mc = sy[in->nwait + in->nsignal + p];
		const struct dp_core *o = &r->m->c[mc];

		if (r->next[mc] >= o->ni || strcmp(o->in[r->next[mc]].name, in->name) ||
		    !waits_met(r, mc, r->next[mc]))
			return 0;
	}
	return 1;
}

/* Where the program cannot go on: the first core's stuck instruction. */
static int stuck(struct run *r)
{
	uint32_t c;

	for (c = 0; c < r->m->nc; c++) {
		const struct dp_core *core = &r->m->c[c];
		const struct dp_inst *in;
		const uint32_t *sy;
		uint32_t w, p;

		if (r->next[c] >= core->ni)
			continue;
		in = &core->in[r->next[c]];
		sy = inst_sync(core, in);
		for (w = 0; w < in->nwait; w++)
			if (r->evdone[sy[w]] < r->nsig[sy[w]])
				return dp_fail(r->e, "core %u '%s' waits for '%s', which no instruction can signal",
					       c, in->name, r->m->ev[sy[w]]), -EDEADLK;
		for (p = 0; p < in->ncores; p++) {
			uint32_t mc = sy[in->nwait + in->nsignal + p];
			const struct dp_core *o = &r->m->c[mc];

			if (r->next[mc] >= o->ni || strcmp(o->in[r->next[mc]].name, in->name))
				return dp_fail(r->e, "core %u '%s': the %s never meets core %u (%s)",
					       c, in->name, dp_coll_kind_name(in->coll_kind), mc,
					       r->next[mc] >= o->ni ? "it has ended" :
					       o->in[r->next[mc]].name), -EDEADLK;
		}
	}
	return dp_fail(r->e, "the program cannot go on"), -EDEADLK;
}

static int emit_all(struct run *r)
{
	uint32_t c, left = 0;
	int ret, moved;

	for (c = 0; c < r->m->nc; c++)
		left += r->m->c[c].ni;
	while (left) {
		moved = 0;
		for (c = 0; c < r->m->nc; c++) {
			const struct dp_core *core = &r->m->c[c];

			while (r->next[c] < core->ni && ready(r, c, r->next[c])) {
				const struct dp_inst *in = &core->in[r->next[c]];

				if (in->coll_kind != DP_COLL_NONE) {
					ret = emit_coll(r, c, r->next[c]);
					left -= in->ncores;
				} else {
					ret = emit_plain(r, c, r->next[c]);
					r->next[c]++;
					left--;
				}
				if (ret)
					return ret == -ENOMEM && !r->e->msg[0] ? dp_nomem(r->e) : ret;
				moved = 1;
			}
		}
		if (!moved)
			return stuck(r);
	}
	return 0;
}

/* ---- the device side -------------------------------------------------- */

static int read_u64s(const char *path, uint64_t *v, int n)
{
	FILE *f = fopen(path, "r");
	char word[64];
	int k = 0;

	if (!f)
		return -errno;
	while (k < n && fscanf(f, "%63s", word) == 1) {
		char *end;
		unsigned long long x = strtoull(word, &end, 10);

		if (end != word && !*end)
			v[k++] = x;
	}
	fclose(f);
	return k == n ? 0 : -EPROTO;
}

static int hazards_now(const struct run *r, uint64_t *h)
{
	char path[96];
	uint64_t v[3];
	int ret;

	snprintf(path, sizeof(path), "%s/dma_check_reports", r->sysfs);
	ret = read_u64s(path, v, 3);

	if (!ret)
		*h = v[0] + v[1] + v[2];
	return ret;
}

static int dev_alloc(struct run *r, uint64_t size, uint64_t *addr, const char *what)
{
	char why[256] = "";
	int ret = xms_alloc(r->dev, XMEMSIM_HEAP_HBM, size ? size : 64, 64, 0, addr, NULL);

	if (!ret)
		return 0;
	if (ret == -ENOMEM && !xms_nomem_reason(r->dev, XMEMSIM_HEAP_HBM, size, why, sizeof(why)))
		return dp_fail(r->e, "%s: %" PRIu64 " bytes of HBM: %s", what, size, why), ret;
	return dp_fail(r->e, "%s: %" PRIu64 " bytes of HBM: %s", what, size, strerror(-ret)), ret;
}

/*
 * The test-only fault site: "C:NAME=C2:NAME2" runs core C's tensor NAME on
 * the device bytes of core C2's NAME2, the misplaced tensor a plan's
 * verify and the device's overlap check both refuse, so that the content
 * check can be shown to catch it.
 */
static int misplace(struct run *r)
{
	char a[128], b[128];
	unsigned int c, c2;
	int64_t t, t2;

	if (sscanf(r->o->fault_misplace, "%u:%127[^=]=%u:%127s", &c, a, &c2, b) != 4 ||
	    c >= r->m->nc || c2 >= r->m->nc ||
	    (t = dp_tensor_find(&r->m->c[c], a)) < 0 || (t2 = dp_tensor_find(&r->m->c[c2], b)) < 0 ||
	    !r->addr[c][t] || !r->addr[c2][t2])
		return dp_fail(r->e, "fault_misplace '%s': not C:TENSOR=C2:TENSOR2 of DRAM tensors",
			       r->o->fault_misplace), -EINVAL;
	r->addr[c][t] = r->addr[c2][t2];
	return 0;
}

/* Counts, for each model core and tensor, its device address. */
static int map_tensors(struct run *r)
{
	uint64_t maxb = 0;
	uint32_t c, t;

	r->addr = calloc(r->m->nc, sizeof(*r->addr));
	if (!r->addr)
		return dp_nomem(r->e);
	for (c = 0; c < r->m->nc; c++) {
		const struct dp_core *core = &r->m->c[c];

		r->addr[c] = calloc(core->nt ? core->nt : 1, sizeof(**r->addr));
		if (!r->addr[c])
			return dp_nomem(r->e);
		for (t = 0; t < core->nt; t++) {
			const struct dp_loaded_tensor *lt;

			if (core->t[t].mem != DP_MEM_DRAM)
				continue;
			lt = dp_loaded_find(&r->l, c, core->t[t].name);
			if (!lt || !lt->dev_addr)
				return dp_fail(r->e, "core %u tensor '%s': not in the plan",
					       c, core->t[t].name), -EINVAL;
			if (lt->size < core->t[t].bytes)
				return dp_fail(r->e, "core %u tensor '%s': %" PRIu64 " bytes in the model, %" PRIu64 " in the plan",
					       c, core->t[t].name, core->t[t].bytes, lt->size), -EINVAL;
			r->addr[c][t] = lt->dev_addr;
			if (maxb < core->t[t].bytes)
				maxb = core->t[t].bytes;
		}
	}
	r->pool_bytes = maxb;	/* + 64 a version, once they are counted */
	return r->o->fault_misplace ? misplace(r) : 0;
}

/* The first version of every distinct address: the bytes before the run. */
static int initial_versions(struct run *r)
{
	uint32_t c, t;
	size_t k;

	for (c = 0; c < r->m->nc; c++)
		for (t = 0; t < r->m->c[c].nt; t++) {
			uint64_t a = r->addr[c][t];

			if (!a || !r->m->c[c].t[t].bytes)
				continue;
			for (k = 0; k < r->nv && r->v[k].key != obj_key(r, c, t); k++)
				;
			if (k < r->nv) {
				if (r->v[k].bytes < r->m->c[c].t[t].bytes)
					r->v[k].bytes = r->m->c[c].t[t].bytes;
				continue;
			}
			if (add_ver(r, NONE32, 0, t, a, r->m->c[c].t[t].bytes, obj_key(r, c, t)) < 0)
				return dp_nomem(r->e);
			r->v[r->nv - 1].inst = c;	/* the core that names it */
		}
	return 0;
}

/* Sizes: count the sinks by emitting once without a device. */
static int count_pass(struct run *r)
{
	int ret;

	r->counting = 1;
	ret = emit_all(r);
	r->counting = 0;
	if (ret)
		return ret;
	r->sink_bytes = r->sink_used;
	r->pool_bytes = ((r->pool_bytes + 7) & ~7ULL) + (uint64_t)r->nv * 64 + 64;
	return 0;
}

static void reset_emit(struct run *r, size_t nv0)
{
	size_t k;

	for (k = nv0; k < r->nv; k++)
		if (r->v[k].own)
			free(r->v[k].buf);
	r->nv = nv0;
	r->nx = 0;
	r->nu = 0;
	r->sink_used = 0;
	memset(r->next, 0, r->m->nc * sizeof(*r->next));
	memset(r->sent, 0, 3 * r->m->nc * sizeof(*r->sent));
	memset(r->fin, 0, r->m->nc * sizeof(*r->fin));
	memset(r->evdone, 0, (r->m->nev ? r->m->nev : 1) * sizeof(*r->evdone));
	memset(r->evfin, 0, (r->m->nev ? r->m->nev : 1) * sizeof(*r->evfin));
}

static int fill_pool(struct run *r)
{
	uint64_t k, n = r->pool_bytes / 8;

	r->pool = malloc(r->pool_bytes);
	if (!r->pool)
		return dp_nomem(r->e);
	for (k = 0; k < n; k++) {
		uint64_t w = mix(r->seed + k);

		memcpy(r->pool + k * 8, &w, 8);
	}
	return 0;
}

/* the version whose pattern holds word w at tensor offset off, or -1 */
static int64_t ver_of_word(const struct run *r, uint64_t w, uint64_t off)
{
	uint64_t idx = unmix(w) - r->seed, at;
	size_t k;

	if (idx >= r->pool_bytes / 8 || idx * 8 < off)
		return -1;
	at = idx * 8 - off;
	for (k = 0; k < r->nv; k++)
		if (!r->v[k].buf && r->v[k].pool == at)
			return (int64_t)k;
	return -1;
}

static void say_ver(const struct run *r, FILE *f, int64_t k)
{
	const struct ver *v = &r->v[k];

	if (v->core == NONE32)
		fprintf(f, "the bytes '%s' held before the run", tensor_name(r, v->inst, v->t));
	else if (v->buf)
		fprintf(f, "core %u '%s' reduces '%s'", v->core, inst_name(r, v->core, v->inst),
			tensor_name(r, v->core, v->t));
	else
		fprintf(f, "core %u '%s' writes '%s'", v->core, inst_name(r, v->core, v->inst),
			tensor_name(r, v->core, v->t));
}

/* Compares one use's sink with its version; 1 if they differ. */
static int check_use(struct run *r, const struct use *u, uint8_t *buf)
{
	const uint8_t *want = ver_bytes(r, u->want);
	FILE *f = r->o->log;
	uint64_t off, w;
	int64_t got;
	int ret;

	ret = xms_read(r->dev, u->sink, buf, u->bytes);
	if (ret)
		return dp_fail(r->e, "reading back core %u '%s': %s", u->core,
			       inst_name(r, u->core, u->inst), strerror(-ret)), ret;
	if (!memcmp(buf, want, u->bytes))
		return 0;
	for (off = 0; off < u->bytes && buf[off] == want[off]; off++)
		;
	if (!f)
		return 1;
	fprintf(f, "mismatch: %score %u '%s' reads '%s' at +0x%" PRIx64 ": wants ", r->who, u->core,
		inst_name(r, u->core, u->inst), tensor_name(r, u->core, u->t), off);
	say_ver(r, f, u->want);
	off &= ~7ULL;
	got = -1;
	if (off + 8 <= u->bytes) {
		memcpy(&w, buf + off, 8);
		got = ver_of_word(r, w, off);
		if (w == 0xdbdbdbdbdbdbdbdbULL) {
			fprintf(f, ", has the DMA poison (read while a write ran)\n");
			return 1;
		}
	}
	fprintf(f, ", has ");
	if (got >= 0)
		say_ver(r, f, got);
	else
		fprintf(f, "other bytes");
	fputc('\n', f);
	return 1;
}

static int ranges_meet(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	return a < b + bl && b < a + al;
}

/*
 * The checker's chains (kmod/dma_check.c, "Chains") from r->x[k] back:
 * reach[queue], the last transfer there that x is ordered after (-1
 * none), at first x's own queue up to x; the waiters within reach want
 * their semaphores, whose signallers raise reach, until nothing changes.
 * NULL if out of memory.
 */
static int64_t *chain_reach(const struct run *r, size_t k)
{
	size_t nq = (size_t)r->di.engines * r->di.queues, z;
	int64_t *reach = malloc((nq ? nq : 1) * sizeof(*reach));
	uint8_t *want = calloc(r->di.sems ? r->di.sems : 1, 1);
	int changed = 1;

	if (!reach || !want)
		return free(want), free(reach), NULL;
	for (z = 0; z < nq; z++)
		reach[z] = -1;
	reach[(size_t)r->x[k].d.engine * r->di.queues + r->x[k].d.queue] = (int64_t)k;
	while (changed) {
		changed = 0;
		for (z = 0; z <= k; z++) {
			const struct xmemsim_dma_desc *d = &r->x[z].d;

			if (d->wait_sem < r->di.sems && !want[d->wait_sem] &&
			    (int64_t)z <= reach[(size_t)d->engine * r->di.queues + d->queue])
				want[d->wait_sem] = 1, changed = 1;
		}
		for (z = 0; z < k; z++) {
			const struct xmemsim_dma_desc *d = &r->x[z].d;
			int64_t *q = &reach[(size_t)d->engine * r->di.queues + d->queue];

			if (d->signal_sem < r->di.sems && want[d->signal_sem] && (int64_t)z > *q)
				*q = (int64_t)z, changed = 1;
		}
	}
	free(want);
	return reach;
}

/*
 * The checker counted a race when r->x[k] was submitted: the earlier
 * transfer it races, found by the checker's rule (another queue, bytes
 * in common with a write, and no semaphore that x waits on signalled by
 * that queue at or after it, nor a chain of them: chain_reach()), as one
 * line naming both instructions.
 */
static void say_race(struct run *r, size_t k)
{
	const struct xfer *x = &r->x[k];
	int64_t *reach = chain_reach(r, k);
	size_t j, z;

	for (j = k; j-- > 0;) {
		const struct xfer *y = &r->x[j];
		int meet, ordered = 0;

		if (y->d.engine == x->d.engine && y->d.queue == x->d.queue)
			continue;
		meet = ranges_meet(x->d.dst, x->d.len, y->d.dst, y->d.len) ||
		       ranges_meet(x->d.src, x->d.len, y->d.dst, y->d.len) ||
		       ranges_meet(x->d.dst, x->d.len, y->d.src, y->d.len);
		if (!meet)
			continue;
		for (z = j; z < k && x->d.wait_sem != XMEMSIM_SEM_NONE && !ordered; z++)
			ordered = r->x[z].d.engine == y->d.engine &&
				  r->x[z].d.queue == y->d.queue &&
				  r->x[z].d.signal_sem == x->d.wait_sem;
		if (ordered || (reach &&
		    reach[(size_t)y->d.engine * r->di.queues + y->d.queue] >= (int64_t)j))
			continue;
		r->r->races++;
		if (r->o->log)
			fprintf(r->o->log, "hazard: %score %u '%s' %s '%s' / core %u '%s' %s '%s': no event orders them\n",
				r->who, x->core, inst_name(r, x->core, x->inst),
				x->kind == X_USE ? "reads" : "writes",
				x->t != NONE32 ? tensor_name(r, x->core, x->t) : "scratch",
				y->core, inst_name(r, y->core, y->inst),
				y->kind == X_USE ? "reads" : "writes",
				y->t != NONE32 ? tensor_name(r, y->core, y->t) : "scratch");
		break;
	}
	free(reach);
}

/* Reaps what ended: at most 64 records, each of this run's noted. */
static int reap_some(struct run *r)
{
	struct xmemsim_dma_completion rec[64];
	uint32_t n, i;
	size_t k;
	int ret = xms_dma_reap(r->dev, rec, 64, r->o->timeout_ns ? r->o->timeout_ns :
			       10000000000LL, &n);

	if (ret) {
		for (k = 0; k < r->sub_next && r->x[k].done; k++)
			;
		if (ret == -ETIMEDOUT && k < r->sub_next)
			dp_fail(r->e, "the run stopped: %score %u '%s' did not finish (%zu of %zu transfers done)",
				r->who, r->x[k].core, inst_name(r, r->x[k].core, r->x[k].inst),
				r->sub_done, r->nx);
		else
			dp_fail(r->e, "DMA_REAP: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		struct xfer *x;

		if (rec[i].tag >= r->nx || r->tk[rec[i].tag] != rec[i].ticket)
			continue;
		x = &r->x[rec[i].tag];
		x->done = 1;
		x->start = rec[i].start_ns;
		x->end = rec[i].end_ns;
		x->status = rec[i].status;
		r->sub_done++;
		r->inflight--;
	}
	return 0;
}

/*
 * Submits the transfers up to end (from where the last call stopped)
 * and reaps every one of them: with the checker, one a submit, so that
 * a race it counts is named; else as many as the depth takes. Reaps
 * only to make room until the last is submitted.
 */
static int submit_to(struct run *r, size_t end)
{
	struct xmemsim_dma_desc *d = NULL;
	uint32_t depth = r->di.depth ? r->di.depth : 1, i;
	uint64_t ticket, h;
	int ret = 0;

	d = malloc(depth * sizeof(*d));
	if (!r->tk)
		r->tk = malloc((r->nx ? r->nx : 1) * sizeof(*r->tk));
	if (!d || !r->tk) {
		free(d);
		return dp_nomem(r->e);
	}
	while (r->sub_done < end) {
		uint32_t room = depth - r->inflight, cnt = 0;

		while (r->sub_next < end && cnt < room && (r->o->no_checker || !cnt)) {
			d[cnt] = r->x[r->sub_next++].d;
			d[cnt++].not_before_ns = r->not_before;
		}
		if (cnt) {
			size_t first = r->sub_next - cnt;

			ret = xms_dma_submit(r->dev, d, cnt, &ticket);
			if (ret) {
				dp_fail(r->e, "DMA_SUBMIT of %score %u '%s': %s%s", r->who, r->x[first].core,
					inst_name(r, r->x[first].core, r->x[first].inst),
					strerror(-ret), ret == -EBUSY ?
					" (the hazard checker refused a race: dma_check=2)" : "");
				break;
			}
			for (i = 0; i < cnt; i++) {
				r->x[first + i].ticket = ticket + i;
				r->tk[first + i] = ticket + i;
			}
			r->inflight += cnt;
			if (!r->o->no_checker && !hazards_now(r, &h) && h > r->hz_seen) {
				r->hz_seen = h;
				say_race(r, r->sub_next - 1);
			}
			if (r->sub_next < end && r->inflight < depth)
				continue;
		}
		ret = reap_some(r);
		if (ret)
			break;
	}
	free(d);
	return ret;
}

static int submit_all(struct run *r)
{
	return submit_to(r, r->nx);
}

/* the earliest start of the devices' transfers */
static uint64_t first_start(const struct run *rs, uint32_t nd)
{
	uint64_t t0 = UINT64_MAX;
	uint32_t d;
	size_t k;

	for (d = 0; d < nd; d++)
		for (k = 0; k < rs[d].nx; k++)
			if (rs[d].x[k].start < t0)
				t0 = rs[d].x[k].start;
	return t0;
}

/* device d's transfers in the trace: process d + 1, a thread a core */
static void trace_device(const struct run *r, uint32_t d, uint64_t t0, int more, FILE *f)
{
	static const char *const kind[] = { "use", "def", "order", "ring reduce", "ring gather", "compute" };
	size_t k;
	uint32_t c;

	for (c = 0; c < r->m->nc; c++)
		fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"core %u\"}},\n",
			d + 1, c, c);
	for (k = 0; k < r->nx; k++) {
		const struct xfer *x = &r->x[k];

		fprintf(f, "{\"name\":\"%s%s%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
			"\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"bytes\":%" PRIu64 ",\"ticket\":%" PRIu64
			",\"status\":%d}}%s\n",
			inst_name(r, x->core, x->inst), x->t != NONE32 ? " " : "",
			x->t != NONE32 ? tensor_name(r, x->core, x->t) : "", kind[x->kind],
			d + 1, x->core, (double)(x->start - t0) / 1000.0,
			(double)(x->end - x->start) / 1000.0, (uint64_t)x->d.len, x->ticket,
			x->status, k + 1 < r->nx || more ? "," : "");
	}
}

/* the cross-device steps (rs[0].step) in the trace: process 0 */
static void trace_steps(const struct run *r, uint64_t t0, FILE *f)
{
	size_t j;

	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"cross-device\"}}");
	for (j = 0; j < r->ncrec; j++) {
		const struct member *mb = &r->crec[j].g.mb[0];

		if (!r->crec[j].cross || !r->step[j][1])
			continue;
		fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"cross-device\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
			"\"ts\":%.3f,\"dur\":%.3f}", inst_name(r, mb->core, mb->inst),
			(double)(r->step[j][0] - t0) / 1000.0,
			(double)(r->step[j][1] - r->step[j][0]) / 1000.0);
	}
	fprintf(f, "\n");
}

/* The devices' transfers as a Chrome/Perfetto trace: a process each (and
 * with many devices, the cross-device steps). */
static void write_trace(const struct run *rs, uint32_t nd, FILE *f)
{
	uint64_t t0 = first_start(rs, nd);
	uint32_t d;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	for (d = 0; d < nd; d++)
		trace_device(&rs[d], d, t0, d + 1 < nd || rs[0].step, f);
	if (rs[0].step)
		trace_steps(&rs[0], t0, f);
	fprintf(f, "]}\n");
}

static int run_check(struct run *r)
{
	uint64_t maxb = 0, t0 = UINT64_MAX, t1 = 0;
	uint8_t *buf;
	size_t k;

	for (k = 0; k < r->nx; k++) {
		const struct xfer *x = &r->x[k];

		if (x->status) {
			r->r->errors++;
			if (r->o->log)
				fprintf(r->o->log, "error: %score %u '%s': a transfer ended with %s\n",
					r->who, x->core, inst_name(r, x->core, x->inst), strerror(-x->status));
		}
		if (x->start < t0)
			t0 = x->start;
		if (x->end > t1)
			t1 = x->end;
	}
	r->r->span_ns = r->nx ? t1 - t0 : 0;
	for (k = 0; k < r->nu; k++)
		if (maxb < r->u[k].bytes)
			maxb = r->u[k].bytes;
	buf = malloc(maxb ? maxb : 1);
	if (!buf)
		return dp_nomem(r->e);
	for (k = 0; k < r->nu; k++) {
		int ret = check_use(r, &r->u[k], buf);

		if (ret < 0) {
			free(buf);
			return ret;
		}
		r->r->mismatches += (uint64_t)ret;
	}
	free(buf);
	return 0;
}

static void run_free(struct run *r)
{
	uint32_t c;
	size_t k;

	for (k = 0; k < r->nv; k++)
		if (r->v[k].own)
			free(r->v[k].buf);
	if (r->addr)
		for (c = 0; c < r->m->nc; c++)
			free(r->addr[c]);
	free(r->addr);
	free(r->x);
	free(r->v);
	free(r->u);
	free(r->pool);
	free(r->nsig);
	free(r->sent);
	free(r->fin);
	free(r->evfin);
	free(r->next);
	free(r->evdone);
	free(r->lastsig);
	free(r->tk);
	for (k = 0; k < r->ncrec; k++)
		free(r->crec[k].g.mb);
	free(r->crec);
	free(r->step);
	dp_happens_free(r->hb);
	dp_loaded_free(&r->l);
}

/*
 * Has the model a collective? Its ring's engine 1 needs a semaphore a
 * core more; without them (dma_sems) the ring runs on engine 0 alone.
 */
static uint32_t has_coll(const struct dp_model *m)
{
	uint32_t c, i;

	for (c = 0; c < m->nc; c++)
		for (i = 0; i < m->c[c].ni; i++)
			if (m->c[c].in[i].coll_kind != DP_COLL_NONE)
				return 1;
	return 0;
}

static int run_setup(struct run *r)
{
	uint32_t nev = r->m->nev ? r->m->nev : 1, c, i, s, need;
	char on[8] = "";
	FILE *f;
	int ret;

	f = fopen(RUN_CHECK_PARAM, "r");
	if (f) {
		if (!fgets(on, sizeof(on), f))
			on[0] = 0;
		fclose(f);
	}
	if (!r->o->no_checker && (!on[0] || on[0] == '0'))
		return dp_fail(r->e, "the DMA hazard checker is off: load xmemsim with dma_check=1"),
		       -EOPNOTSUPP;
	ret = xms_get_info(r->dev, &r->info);
	if (!ret)
		ret = xms_dma_info(r->dev, &r->di);
	if (ret)
		return dp_fail(r->e, "GET_INFO, DMA_INFO: %s", strerror(-ret)), ret;
	if (!(r->info.features & XMEMSIM_FEAT_DMA_REDUCE))
		return dp_fail(r->e, "the device has no reducing DMA (XMEMSIM_FEAT_DMA_REDUCE)"),
		       -EOPNOTSUPP;
	r->nsig = calloc(nev, sizeof(*r->nsig));
	r->evdone = calloc(nev, sizeof(*r->evdone));
	r->evfin = calloc(nev, sizeof(*r->evfin));
	r->sent = calloc(3 * r->m->nc, sizeof(*r->sent));
	r->fin = calloc(r->m->nc, sizeof(*r->fin));
	r->next = calloc(r->m->nc, sizeof(*r->next));
	if (!r->nsig || !r->evdone || !r->evfin || !r->sent || !r->fin || !r->next)
		return dp_nomem(r->e);
	for (c = 0; c < r->m->nc; c++)
		for (i = 0; i < r->m->c[c].ni; i++) {
			const struct dp_inst *in = &r->m->c[c].in[i];

			for (s = 0; s < in->nsignal; s++)
				r->nsig[inst_sync(&r->m->c[c], in)[in->nwait + s]]++;
		}
	r->lastsig = malloc(((size_t)r->m->nc * nev) * sizeof(*r->lastsig));
	if (!r->lastsig)
		return dp_nomem(r->e);
	for (c = 0; c < r->m->nc; c++) {
		for (s = 0; s < nev; s++)
			r->lastsig[(size_t)c * nev + s] = -1;
		for (i = 0; i < r->m->c[c].ni; i++) {
			const struct dp_inst *in = &r->m->c[c].in[i];

			for (s = 0; s < in->nsignal; s++)
				r->lastsig[(size_t)c * nev + inst_sync(&r->m->c[c], in)[in->nwait + s]] = i;
		}
	}
	r->coll_sem = r->m->nev;
	need = r->m->nev + 3 * r->m->nc;
	r->two = has_coll(r->m) && need <= r->di.sems;
	if (!r->two)
		need = r->m->nev + 2 * r->m->nc;
	if (need > r->di.sems)
		return dp_fail(r->e, "%u events and %u cores need %u semaphores, the device gives %u (dma_sems)",
			       r->m->nev, r->m->nc, need, r->di.sems), -ENOSPC;
	for (s = 0; s < need; s++) {
		ret = xms_sem_set(r->dev, s, 0);
		if (ret)
			return dp_fail(r->e, "SEM_SET %u: %s", s, strerror(-ret)), ret;
	}
	return 0;
}

/*
 * Everything before the submission: the plan loaded (r->l), the program
 * emitted (r->x), the device's buffers allocated and the patterns
 * written; the bound in r->r. 0 or -errno (r->e says why).
 */
static int run_prepare(struct run *r, const char *plan_path)
{
	size_t nv0, k;
	uint32_t c;
	int ret = run_setup(r);

	if (!ret)
		ret = dp_plan_load_device(r->dev, plan_path, &r->l, r->e);
	if (!ret)
		ret = map_tensors(r);
	if (!ret)
		ret = initial_versions(r);
	if (ret)
		return ret;
	nv0 = r->nv;
	ret = count_pass(r);
	if (ret)
		return ret;
	reset_emit(r, nv0);
	ret = fill_pool(r);
	if (!ret)
		ret = dev_alloc(r, r->pool_bytes, &r->pool_dev, "the pattern pool");
	if (!ret)
		ret = dev_alloc(r, r->sink_bytes, &r->sink_dev, "the uses' copies");
	if (!ret)
		ret = dev_alloc(r, (uint64_t)r->m->nc * 64, &r->scratch_dev, "the cores' scratch");
	if (!ret && r->pad_bytes)
		ret = dev_alloc(r, (uint64_t)r->m->nc * 2 * r->pad_bytes, &r->pad_dev,
				"the cores' compute pads");
	if (!ret)
		ret = emit_all(r);
	if (ret)
		return ret;
	for (c = 0; c < r->m->nc; c++)
		if (r->r->bound_ns < r->fin[c])
			r->r->bound_ns = r->fin[c];
	ret = xms_write(r->dev, r->pool_dev, r->pool, r->pool_bytes);
	for (k = 0; !ret && k < nv0; k++)	/* the bytes before the run, if read */
		if (r->v[k].wanted)
			ret = xms_write(r->dev, r->v[k].addr, r->pool + r->v[k].pool, r->v[k].bytes);
	if (ret)
		return dp_fail(r->e, "writing the patterns: %s", strerror(-ret)), ret;
	if (hazards_now(r, &r->hz_seen) && !r->o->no_checker)
		return dp_fail(r->e, "cannot read %s/dma_check_reports", r->sysfs), -ENOENT;
	return 0;
}

/* the hazards the checker counted since run_prepare(), added to r->r */
static void count_hazards(struct run *r, uint64_t h0)
{
	uint64_t h1;

	if (!hazards_now(r, &h1))
		r->r->hazards += h1 - h0;
}

/* One device: the program, its check and its trace. */
static int run_one(struct run *r, const char *plan_path)
{
	uint64_t h0;
	int ret;

	r->hb = dp_happens_new(r->m, r->e);
	if (!r->hb)
		return dp_err_code(r->e);
	ret = run_prepare(r, plan_path);
	if (ret)
		goto out;
	h0 = r->hz_seen;
	r->r->transfers = r->nx;
	ret = submit_all(r);
	if (ret)
		goto out;
	count_hazards(r, h0);
	ret = run_check(r);
	if (!ret && r->o->trace)
		write_trace(r, 1, r->o->trace);
out:
	run_free(r);
	return ret;
}

/* ---- many devices --------------------------------------------------------- */

/*
 * The host's reduction across nd devices, in place in every buf[d] (bytes
 * each): the communicator's ring order (xms_coll_expect()), chunk c of
 * the elements, [count c / nd, count (c + 1) / nd), folded from device c
 * on, each next device adding its own to what arrived (dst = own op
 * arrived), and the result copied to every device.
 */
static int reduce_devices(uint8_t *const *buf, uint32_t nd, uint64_t bytes,
			  uint32_t esz, uint32_t op, uint32_t type)
{
	uint64_t count = bytes / esz, off, len;
	uint8_t *out = malloc(bytes ? bytes : 1), *mine = malloc(bytes ? bytes : 1);
	uint32_t c, k;

	if (!out || !mine)
		return free(out), free(mine), -ENOMEM;
	for (c = 0; c < nd; c++) {
		off = count * c / nd * esz;
		len = count * (c + 1) / nd * esz - off;
		memcpy(out + off, buf[c] + off, len);
		for (k = 1; k < nd; k++) {
			memcpy(mine, buf[(c + k) % nd] + off, len);
			dp_reduce_buf(mine, out + off, len, op, type);
			memcpy(out + off, mine, len);
		}
	}
	for (c = 0; c < nd; c++)
		memcpy(buf[c], out, bytes);
	free(out);
	free(mine);
	return 0;
}

/*
 * Collective j's results folded across the devices: segment k, which
 * the reduce-scatter left whole at member k and the cross-device step
 * all-reduces there, in every result that holds it whole (after an
 * all-gather, the one result of all members, every segment; after a
 * reduce-scatter alone, member k's).
 */
static int cross_fold(struct run *rs, uint32_t nd, size_t j, uint8_t **buf)
{
	const struct ring *g = &rs[0].crec[j].g;
	uint64_t off, len;
	uint32_t d, p, k;
	int ret = 0;

	for (p = 0; p < ring_owners(g) && !ret; p++)
		for (k = 0; k < g->n && !ret; k++) {
			if (!g->ag && k != p)
				continue;
			seg(g, k, &off, &len);
			for (d = 0; d < nd; d++)
				buf[d] = rs[d].crec[j].g.mb[p].res + off;
			ret = reduce_devices(buf, nd, len, g->esz, g->op, g->type);
		}
	return ret;
}

/*
 * The collectives' results, in the order they ran: each device's ring's
 * (ring_compute(), from versions earlier collectives' results may
 * already be), then, for a reducing one, folded across the devices.
 */
static int cross_results(struct run *rs, uint32_t nd)
{
	uint8_t **buf = calloc(nd, sizeof(*buf));
	size_t j;
	uint32_t d;
	int ret = buf ? 0 : -ENOMEM;

	for (j = 0; !ret && j < rs[0].ncrec; j++) {
		for (d = 0; d < nd && !ret; d++)
			ret = ring_compute(&rs[d], &rs[d].crec[j].g);
		if (!ret && rs[0].crec[j].cross)
			ret = cross_fold(rs, nd, j, buf);
	}
	free(buf);
	return ret == -ENOMEM ? dp_nomem(rs[0].e) : ret;
}

/* the latest modeled now of the devices' files */
static int devices_now(struct run *rs, uint32_t nd, uint64_t *now)
{
	struct xmemsim_dma_info di;
	uint32_t d;
	int ret;

	*now = 0;
	for (d = 0; d < nd; d++) {
		ret = xms_dma_info(rs[d].dev, &di);
		if (ret)
			return dp_fail(rs[0].e, "DMA_INFO of device %u: %s", d, strerror(-ret)), ret;
		if (*now < di.now_ns)
			*now = di.now_ns;
	}
	return 0;
}

/*
 * The test-only fault site "D:C:NAME": device D's core C's tensor NAME,
 * a collective's, has the first 64 bytes (at most) of the segment it
 * takes across devices, [off, off + len), altered before it goes (a
 * device that contributes a wrong gradient), for the content check to
 * catch on every device.
 */
static int alter(struct run *rs, uint32_t nd, const struct member *mb,
		 uint64_t off, uint64_t len)
{
	const char *f = rs[0].o->fault_alter;
	unsigned int d, c;
	uint8_t b[64];
	char name[128];
	uint64_t a, n = len < sizeof(b) ? len : sizeof(b), k;
	int ret;

	if (!f || sscanf(f, "%u:%u:%127s", &d, &c, name) != 3 || d >= nd || c != mb->core ||
	    strcmp(name, tensor_name(&rs[0], c, mb->data)) || !n)
		return 0;
	a = rs[d].addr[c][mb->data] + off;
	ret = xms_read(rs[d].dev, a, b, n);
	for (k = 0; k < n; k++)
		b[k] ^= 0xa5;
	if (!ret)
		ret = xms_write(rs[d].dev, a, b, n);
	return ret ? dp_fail(rs[0].e, "fault_alter: %s", strerror(-ret)), ret : 0;
}

/*
 * Each device's receive buffer of the cross-device steps: a plan's bytes
 * cannot be exported as a dma-buf (the plan's, not the file's to give),
 * so the communicator reduces out of place, into a buffer of the run's
 * as large as the tensor (each member's segment at its offset), and
 * each member copies its segment back (copy_back()).
 */
static int bounce_alloc(struct run *rs, uint32_t nd)
{
	uint64_t need = 0;
	uint32_t d;
	size_t j;
	int ret = 0;

	for (j = 0; j < rs[0].ncrec; j++)
		if (rs[0].crec[j].cross && need < rs[0].crec[j].g.bytes)
			need = rs[0].crec[j].g.bytes;
	for (d = 0; d < nd && need && !ret; d++)
		ret = dev_alloc(&rs[d], need, &rs[d].bounce, "the cross-device buffers");
	return ret;
}

/*
 * The members' segments back into their tensors on device r, each a DMA
 * on the member's queue that starts no earlier than not_before, waited
 * for (a segment of no elements: a marker on the core's scratch).
 */
static int copy_back(struct run *r, const struct ring *g, uint64_t not_before)
{
	uint64_t tk[64], off, len;
	struct xmemsim_dma_wait w;
	uint32_t p, k, eng, q;
	int ret = 0;

	for (p = 0; p < g->n && !ret; p += k) {
		for (k = 0; p + k < g->n && k < 64; k++) {
			const struct member *mb = &g->mb[p + k];
			uint64_t s = r->scratch_dev + (uint64_t)mb->core * 64 + 32;
			struct xmemsim_dma_desc d = {
				.src = s, .dst = s + 8, .len = 8,
				.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
				.not_before_ns = not_before,
			};

			seg(g, p + k, &off, &len);
			if (len) {
				d.src = r->bounce + off;
				d.dst = r->addr[mb->core][mb->data] + off;
				d.len = len;
			}
			core_queue(r, mb->core, &eng, &q);
			d.engine = eng;
			d.queue = q;
			ret = xms_dma_submit(r->dev, &d, 1, &tk[k]);
			if (ret)
				break;
		}
		while (k-- > 0) {
			int r2 = xms_dma_wait(r->dev, tk[k], r->o->timeout_ns ? r->o->timeout_ns :
					      10000000000LL, &w);

			if (!ret)
				ret = r2 ? r2 : w.status;
		}
	}
	if (ret)
		dp_fail(r->e, "%scopying the cross-device result back: %s", r->who, strerror(-ret));
	return ret;
}

/*
 * The cross-device step of collective j: member p's segment p, which the
 * device's reduce-scatter left whole there, all-reduced across the
 * devices, the same core of every device, by the communicator (the ring
 * over links; one call a member, one after another) into the receive
 * buffer, then copied back on every device.
 */
static int cross_step(struct run *rs, uint32_t nd, struct xms_comm *comm, size_t j)
{
	const struct ring *g = &rs[0].crec[j].g;
	uint64_t *addr = calloc(2 * (size_t)nd, sizeof(*addr)), now = 0, off, len;
	uint32_t p, d;
	int ret = addr ? 0 : dp_nomem(rs[0].e);

	for (p = 0; p < g->n && !ret; p++) {
		const struct member *mb = &g->mb[p];

		seg(g, p, &off, &len);
		for (d = 0; d < nd; d++) {
			addr[d] = rs[d].addr[mb->core][mb->data] + off;
			addr[nd + d] = rs[d].bounce + off;
		}
		ret = alter(rs, nd, mb, off, len);
		if (!ret && len)
			ret = xms_all_reduce(comm, addr, addr + nd, len / g->esz, g->type,
					     g->op, NULL);
		if (ret && !rs[0].e->msg[0])
			dp_fail(rs[0].e, "core %u '%s': '%s' across %u devices (xms_all_reduce): %s",
				mb->core, inst_name(&rs[0], mb->core, mb->inst),
				tensor_name(&rs[0], mb->core, mb->data), nd, strerror(-ret));
	}
	free(addr);
	if (!ret)
		ret = devices_now(rs, nd, &now);
	for (d = 0; d < nd && !ret; d++)
		ret = copy_back(&rs[d], &rs[0].crec[j].g, now);
	return ret;
}

/*
 * The devices' programs, segment by segment: every device's transfers up
 * to the next collective that reduces, all of them reaped; then its
 * cross-device step; then the next segment, whose transfers start no
 * earlier than the step's end (not_before_ns). res->cross_ns: the steps'
 * modeled time, from the latest device's segment end to the latest
 * device's step end.
 */
static int run_segments(struct run *rs, uint32_t nd, struct xms_comm *comm,
			uint64_t *end)
{
	size_t j = 0, n = rs[0].ncrec;
	uint64_t before, after = 0;
	uint32_t d;
	int ret = 0;

	rs[0].step = calloc(n ? n : 1, sizeof(*rs[0].step));
	if (!rs[0].step)
		return dp_nomem(rs[0].e);
	for (;;) {
		while (j < n && !rs[0].crec[j].cross)
			j++;
		for (d = 0; d < nd && !ret; d++)
			ret = submit_to(&rs[d], j < n ? rs[d].crec[j].g.split : rs[d].nx);
		if (ret || j == n)
			break;
		ret = devices_now(rs, nd, &before);
		if (!ret)
			ret = cross_step(rs, nd, comm, j);
		if (!ret)
			ret = devices_now(rs, nd, &after);
		if (ret)
			break;
		rs[0].r->cross_ns += after - before;
		rs[0].step[j][0] = before;
		rs[0].step[j][1] = after;
		for (d = 0; d < nd; d++)
			rs[d].not_before = after;
		j++;
	}
	*end = after;
	return ret;
}

/* The devices' checks: their counts summed, the span over all of them. */
static int check_devices(struct run *rs, uint32_t nd, uint64_t last_cross)
{
	uint64_t t1 = last_cross;
	uint32_t d;
	size_t k;
	int ret = 0;

	for (d = 0; d < nd && !ret; d++) {
		ret = run_check(&rs[d]);
		for (k = 0; k < rs[d].nx; k++)
			if (t1 < rs[d].x[k].end)
				t1 = rs[d].x[k].end;
	}
	rs[0].r->span_ns = rs[0].nx ? t1 - first_start(rs, nd) : 0;
	return ret;
}

static const char *device_sysfs(uint32_t d, char *buf, size_t len)
{
	if (!d)
		return RUN_SYSFS;
	snprintf(buf, len, "%s%u", RUN_SYSFS, d);
	return buf;
}

/* Each device's run: its file, its names, its own pool; emitted. */
static int prepare_devices(struct run *rs, uint32_t nd, struct xms_comm *comm,
			   const char *plan_path, uint64_t *h0, char (*names)[2][48])
{
	uint32_t d;
	int ret = 0;

	for (d = 0; d < nd && !ret; d++) {
		struct run *r = &rs[d];

		r->dev = xms_comm_dev(comm, (int)d);
		r->sysfs = device_sysfs(d, names[d][0], sizeof(names[d][0]));
		snprintf(names[d][1], sizeof(names[d][1]), "device %u ", d);
		r->who = names[d][1];
		r->seed = POOL_SEED + ((uint64_t)d << 48);
		r->defer = 1;
		r->hb = dp_happens_new(r->m, r->e);
		ret = r->hb ? run_prepare(r, plan_path) : dp_err_code(r->e);
		h0[d] = r->hz_seen;
		r->r->transfers += r->nx;
	}
	if (!ret)
		ret = bounce_alloc(rs, nd);
	return ret ? ret : cross_results(rs, nd);
}

/* dp_plan_run() on opts->devices devices (dp_device.h, "Many devices") */
static int run_many(const char *plan_path, struct run *proto)
{
	uint32_t nd = proto->o->devices, d;
	char (*names)[2][48] = calloc(nd, sizeof(*names));
	uint64_t *h0 = calloc(nd, sizeof(*h0)), last = 0;
	struct run *rs = calloc(nd, sizeof(*rs));
	struct xms_comm *comm = NULL;
	int ret = names && h0 && rs ? 0 : dp_nomem(proto->e);

	if (!ret && (ret = xms_comm_init_all(&comm, (int)nd, NULL)))
		dp_fail(proto->e, "devices 0 to %u as a communicator (xms_comm_init_all): %s%s",
			nd - 1, strerror(-ret), ret == -ENOENT ? " (load xmemsim with devices=N)" : "");
	/* the ring at every size: its order is the one the check folds in */
	if (!ret && (ret = xms_comm_set_algo(comm, XMS_ALGO_RING)))
		dp_fail(proto->e, "the communicator's ring (xms_comm_set_algo): %s",
			strerror(-ret));
	for (d = 0; !ret && d < nd; d++)
		rs[d] = *proto;
	if (!ret)
		ret = prepare_devices(rs, nd, comm, plan_path, h0, names);
	if (!ret)
		ret = run_segments(rs, nd, comm, &last);
	for (d = 0; !ret && d < nd; d++)
		count_hazards(&rs[d], h0[d]);
	if (!ret)
		ret = check_devices(rs, nd, last);
	if (!ret && proto->o->trace)
		write_trace(rs, nd, proto->o->trace);
	for (d = 0; rs && d < nd; d++)
		if (rs[d].m)
			run_free(&rs[d]);
	if (comm)
		xms_comm_destroy(comm);
	free(rs);
	free(h0);
	free(names);
	return ret;
}

int dp_plan_run(struct xms_dev *dev, const char *plan_path,
		const struct dp_model *m, const struct dp_run_opts *opts,
		struct dp_run_result *res, struct dp_err *e)
{
	static const struct dp_run_opts none;
	struct run r = { .dev = dev, .m = m, .o = opts ? opts : &none, .r = res, .e = e,
			 .seed = POOL_SEED, .sysfs = RUN_SYSFS, .who = "" };
	uint32_t c;

	memset(res, 0, sizeof(*res));
	res->ncores = m->nc;
	res->devices = r.o->devices > 1 ? r.o->devices : 1;
	for (c = 0; c < m->nc; c++)
		res->ninst += m->c[c].ni;
	if (r.o->devices > DP_RUN_MAX_DEVICES)
		return dp_fail(e, "devices %u: at most %u", r.o->devices, DP_RUN_MAX_DEVICES), -EINVAL;
	return r.o->devices > 1 ? run_many(plan_path, &r) : run_one(&r, plan_path);
}

void dp_run_summary(const struct dp_run_result *res, FILE *f)
{
	if (res->devices > 1)
		fprintf(f, "plan run: %" PRIu64 " instructions on %u cores x %u devices, modeled span %"
			PRIu64 " ns (cross-device %" PRIu64 " ns, %.1f%%), critical-path bound %" PRIu64
			" ns, %" PRIu64 " hazards, %" PRIu64 " mismatches\n", res->ninst, res->ncores,
			res->devices, res->span_ns, res->cross_ns,
			res->span_ns ? 100.0 * (double)res->cross_ns / (double)res->span_ns : 0.0,
			res->bound_ns, res->hazards, res->mismatches);
	else
		fprintf(f, "plan run: %" PRIu64 " instructions on %u cores, modeled span %" PRIu64
			" ns, critical-path bound %" PRIu64 " ns, %" PRIu64 " hazards, %" PRIu64
			" mismatches\n", res->ninst, res->ncores, res->span_ns, res->bound_ns,
			res->hazards, res->mismatches);
}
