// SPDX-License-Identifier: GPL-2.0
/*
 * liveness.c - flat numbering and liveness intervals.
 *
 * Numbering (docs/seed-behaviour.md, B.1): instructions get flat times in
 * program order -- blocks in file order, instructions in block order -- so
 * that a def comes before its uses in straight-line code and no interval
 * has lo > hi.
 *
 * Liveness (B.3): a standard backward dataflow over the CFG,
 *   live_in(b)  = use(b) | (live_out(b) & ~def(b))
 *   live_out(b) = OR of live_in(s) over successors s  (outputs at exits)
 * iterated to a fixpoint, so a tensor live around a loop's back edge is live
 * over the whole loop.  Only "global" tensors need the bitsets (the
 * seed's STEP C, docs/seed-behaviour.md B: a tensor accessed in one block
 * whose first access there is a def is local, its intervals come from that
 * block alone).
 *
 * Intervals: each block is walked backward with the live-out set; a def at t
 * closes [t, end] (a dead def gives [t, t]), a use opens a range ending at
 * t, and whatever is still open at the block start becomes [t_first, end].
 * A tensor's intervals are then sorted and merged (touching ones too), so
 * the intervals of one tensor are disjoint and ordered.  Closed intervals:
 * two tensors interfere iff some instruction time is in both.
 *
 * Implicit defs and uses: "input" and "weight" tensors, and shared tensors
 * (another core may have written them), are defined at the function entry; "output" tensors are used at every exit block (a block
 * without successors).  Any other tensor live into the entry block is a use
 * with no reaching def, an error naming the first such use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"

int dp_number(struct dp_model *m, struct dp_err *e)
{
	uint32_t ci, bi, k;

	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];
		uint64_t t = 0;

		for (bi = 0; bi < c->nb; bi++) {
			struct dp_block *b = &c->b[bi];

			b->t_first = t;
			for (k = 0; k < b->ninst; k++)
				c->in[b->inst_first + k].t = t++;
			b->t_last = t - 1;	/* < t_first when empty */
		}
		if (t != c->ni)
			return dp_fail(e, "%s: core %u: internal: numbered %llu of %u instructions",
				       m->file, ci, (unsigned long long)t, c->ni);
	}
	return 0;
}

struct emit {
	uint32_t tensor;
	uint64_t lo, hi;
};

/* One core's liveness: the phases of core_liveness share this. */
struct lv {
	struct dp_core *c;
	uint32_t *gidx;		/* tensor -> global index or UINT32_MAX */
	uint32_t *gten;		/* global index -> tensor */
	uint32_t G, W;		/* globals, 64-bit words per set */
	uint64_t *use, *def, *in, *out;	/* per block, W words each */
	uint64_t *outputs;	/* globals live out of the exits */
	struct emit *em;
	size_t nem, cap;
	size_t *last;		/* tensor -> its latest emitted interval */
	/* emission */
	uint64_t *open;		/* tensor -> end of its open interval */
	uint32_t *touched;	/* tensors the current block touches */
	uint32_t *stamp;	/* tensor -> block + 1 that touched it */
	uint32_t ntouched;
	uint64_t *pass;		/* globals live through the current run */
	uint64_t *run_lo;	/* tensor -> start of its run */
	uint64_t prev_last;	/* last time of the previous block */
	int nomem;		/* an emit found no memory: the core fails */
};

#define SET(s, b, i)	((s)[(size_t)(b) * L->W + ((i) >> 6)] |= 1ULL << ((i) & 63))
#define TST(s, b, i)	(((s)[(size_t)(b) * L->W + ((i) >> 6)] >> ((i) & 63)) & 1)

/*
 * An interval that overlaps or touches the tensor's latest one is merged
 * into it on the spot: the final sort-and-merge gives the same intervals
 * (it merges touching ones too), but a tensor live through many blocks --
 * every tensor, when all are live at once -- no longer leaves one interval
 * per block behind (O(n * blocks) memory and sorting).
 */
static void emit(struct lv *L, uint32_t t, uint64_t lo, uint64_t hi)
{
	size_t k = L->last[t];

	if (k != SIZE_MAX && lo <= L->em[k].hi + 1 && L->em[k].lo <= hi + 1) {
		if (lo < L->em[k].lo)
			L->em[k].lo = lo;
		if (hi > L->em[k].hi)
			L->em[k].hi = hi;
		return;
	}
	if (dp_grow(&L->em, &L->cap, L->nem + 1, sizeof(*L->em), 1024)) {
		L->nomem = 1;
		return;
	}
	L->last[t] = L->nem;
	L->em[L->nem].tensor = t;
	L->em[L->nem].lo = lo;
	L->em[L->nem].hi = hi;
	L->nem++;
}

static int is_entry_defined(const struct dp_tensor *t)
{
	/* shared tensors may be written by another core before this one runs */
	return t->usage == DP_USE_INPUT || t->usage == DP_USE_WEIGHT || t->shared;
}

int dp_cfg_walk(const struct dp_core *c, uint8_t *seen,
		int (*visit)(const struct dp_core *c, uint32_t b, void *arg),
		void *arg)
{
	uint32_t *queue, qh = 0, qt = 0, i;
	int rc = 0;

	if (!c->nb)
		return 0;
	queue = dp_realloc_array(NULL, c->nb, sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	queue[qt++] = 0;
	seen[0] = 1;
	while (qh < qt) {
		const struct dp_block *b = &c->b[queue[qh]];

		rc = visit ? visit(c, queue[qh], arg) : 0;
		qh++;
		if (rc < 0)
			break;
		for (i = 0; !rc && i < b->nsucc; i++) {
			uint32_t s = c->succ[b->succ_first + i];

			if (!seen[s]) {
				seen[s] = 1;
				queue[qt++] = s;
			}
		}
		rc = 0;
	}
	free(queue);
	return rc;
}

struct use_walk {
	struct dp_model *m;
	uint32_t ti;
	struct dp_err *e;
};

/* A use of the tensor before any def in block bi fails; a def stops there. */
static int use_before_def(const struct dp_core *c, uint32_t bi, void *arg)
{
	const struct use_walk *w = arg;
	const struct dp_block *b = &c->b[bi];
	uint32_t k, j;

	for (k = 0; k < b->ninst; k++) {
		const struct dp_inst *in = &c->in[b->inst_first + k];

		for (j = 0; j < in->nuses; j++)
			if (c->ops[in->op_first + in->ndefs + j] == w->ti)
				return dp_fail(w->e, "%s: core %u (%s): block '%s' inst %u%s%s%s: use of tensor '%s' with no reaching def (a path from the entry reaches this use without a def)",
					       w->m->file, c->index, c->function, b->name,
					       k, *in->name ? " '" : "", in->name,
					       *in->name ? "'" : "", c->t[w->ti].name);
		for (j = 0; j < in->ndefs; j++)
			if (c->ops[in->op_first + j] == w->ti)
				return 1;
	}
	return 0;
}

/* Find and report the first use reached from the entry with no def. */
static int no_reaching_def(struct dp_model *m, struct lv *L, uint32_t ti,
			   struct dp_err *e)
{
	struct use_walk w = { m, ti, e };
	struct dp_core *c = L->c;
	uint8_t *seen = calloc(c->nb ? c->nb : 1, 1);
	int rc;

	if (!seen)
		return dp_nomem(e);
	rc = dp_cfg_walk(c, seen, use_before_def, &w);
	free(seen);
	if (rc == -ENOMEM)
		return dp_nomem(e);
	if (rc < 0)
		return -1;
	return dp_fail(e, "%s: core %u (%s): tensor '%s' (usage output) reaches a function exit with no def on some path (use with no reaching def)",
		       m->file, c->index, c->function, c->t[ti].name);
}

static int cmp_emit(const void *a, const void *b)
{
	const struct emit *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->hi, y->hi);
}

/*
 * Classify: a tensor is local iff one block touches it and its first
 * access is a def; the others (and outputs) are the globals the dataflow
 * tracks, numbered in L->gidx / L->gten.
 */
static int classify(struct lv *L)
{
	struct dp_core *c = L->c;
	uint32_t *first_block = dp_realloc_array(NULL, c->nt, sizeof(*first_block));
	uint8_t *first_use = calloc(c->nt ? c->nt : 1, 1);
	uint8_t *multi = calloc(c->nt ? c->nt : 1, 1);
	uint32_t bi, k, j, i;
	int rc = -ENOMEM;

	L->gidx = dp_realloc_array(NULL, c->nt, sizeof(*L->gidx));
	L->gten = dp_realloc_array(NULL, c->nt, sizeof(*L->gten));
	if (!first_block || !first_use || !multi || !L->gidx || !L->gten)
		goto out;
	for (i = 0; i < c->nt; i++)
		first_block[i] = UINT32_MAX;
	for (bi = 0; bi < c->nb; bi++) {
		struct dp_block *b = &c->b[bi];

		for (k = 0; k < b->ninst; k++) {
			struct dp_inst *in = &c->in[b->inst_first + k];
			uint32_t *ops = c->ops ? c->ops + in->op_first : NULL;

			for (j = 0; j < in->nuses; j++) {	/* uses read first */
				uint32_t x = ops[in->ndefs + j];

				if (first_block[x] == UINT32_MAX) {
					first_block[x] = bi;
					first_use[x] = 1;
				} else if (first_block[x] != bi) {
					multi[x] = 1;
				}
			}
			for (j = 0; j < in->ndefs; j++) {
				uint32_t x = ops[j];

				if (first_block[x] == UINT32_MAX)
					first_block[x] = bi;
				else if (first_block[x] != bi)
					multi[x] = 1;
			}
		}
	}
	for (i = 0; i < c->nt; i++) {
		int global = multi[i] || first_use[i] ||
			     c->t[i].usage == DP_USE_OUTPUT;

		L->gidx[i] = UINT32_MAX;
		if (global) {
			L->gidx[i] = L->G;
			L->gten[L->G++] = i;
		}
	}
	rc = 0;
out:
	free(first_block);
	free(first_use);
	free(multi);
	return rc;
}

/* The sets, and use/def per block, globals only. */
static int use_def(struct lv *L)
{
	struct dp_core *c = L->c;
	uint32_t bi, k, j, i;
	size_t n;

	L->W = (L->G + 63) / 64;
	n = (size_t)c->nb * L->W;
	L->use = calloc(n ? n : 1, 8);
	L->def = calloc(n ? n : 1, 8);
	L->in = calloc(n ? n : 1, 8);
	L->out = calloc(n ? n : 1, 8);
	L->outputs = calloc(L->W ? L->W : 1, 8);
	if (!L->use || !L->def || !L->in || !L->out || !L->outputs)
		return -ENOMEM;
	for (i = 0; i < c->nt; i++)
		if (c->t[i].usage == DP_USE_OUTPUT)
			L->outputs[L->gidx[i] >> 6] |= 1ULL << (L->gidx[i] & 63);

	for (bi = 0; bi < c->nb; bi++) {
		struct dp_block *b = &c->b[bi];

		for (k = 0; k < b->ninst; k++) {
			struct dp_inst *in = &c->in[b->inst_first + k];
			uint32_t *ops = c->ops ? c->ops + in->op_first : NULL;

			for (j = 0; j < in->nuses; j++) {
				uint32_t g = L->gidx[ops[in->ndefs + j]];

				if (g != UINT32_MAX && !TST(L->def, bi, g))
					SET(L->use, bi, g);
			}
			for (j = 0; j < in->ndefs; j++) {
				uint32_t g = L->gidx[ops[j]];

				if (g != UINT32_MAX)
					SET(L->def, bi, g);
			}
		}
	}
	return 0;
}

/* Backward dataflow to a fixpoint (reverse block order converges fast). */
static void dataflow(struct lv *L)
{
	struct dp_core *c = L->c;
	uint32_t bi, j;
	int changed;

	do {
		changed = 0;
		for (bi = c->nb; bi-- > 0;) {
			struct dp_block *b = &c->b[bi];
			uint64_t *out = &L->out[(size_t)bi * L->W];
			uint64_t *inb = &L->in[(size_t)bi * L->W];
			uint64_t *use = &L->use[(size_t)bi * L->W];
			uint64_t *def = &L->def[(size_t)bi * L->W];
			uint32_t w;

			for (w = 0; w < L->W; w++) {
				uint64_t o = b->nsucc ? 0 : L->outputs[w], ni;

				for (j = 0; j < b->nsucc; j++)
					o |= L->in[(size_t)c->succ[b->succ_first + j] * L->W + w];
				out[w] = o;
				ni = use[w] | (o & ~def[w]);
				if (ni != inb[w]) {
					inb[w] = ni;
					changed = 1;
				}
			}
		}
	} while (changed);
}

/*
 * Block bi's globals, word by word: runs of blocks a global lives through
 * untouched start and end here (see emit_all); the ones live out of it
 * and touched in it are open from its end.
 */
static void block_words(struct lv *L, uint32_t bi)
{
	struct dp_block *b = &L->c->b[bi];
	uint64_t *out = &L->out[(size_t)bi * L->W];
	uint64_t *use = &L->use[(size_t)bi * L->W];
	uint64_t *def = &L->def[(size_t)bi * L->W];
	uint32_t w;

	for (w = 0; w < L->W; w++) {
		uint64_t acc = use[w] | def[w];	/* touched in this block */
		uint64_t pt = out[w] & ~acc;	/* live through it */
		uint64_t ended = L->pass[w] & ~pt, started = pt & ~L->pass[w];
		uint64_t bits = out[w] & acc;

		while (ended) {
			uint32_t x = L->gten[w * 64 + __builtin_ctzll(ended)];

			ended &= ended - 1;
			emit(L, x, L->run_lo[x], L->prev_last);
		}
		while (started) {
			uint32_t x = L->gten[w * 64 + __builtin_ctzll(started)];

			started &= started - 1;
			L->run_lo[x] = b->t_first;
		}
		L->pass[w] = pt;
		while (bits) {
			uint32_t g = w * 64 + __builtin_ctzll(bits);
			uint32_t x = L->gten[g];

			bits &= bits - 1;
			L->open[x] = b->t_last;
			L->stamp[x] = bi + 1;
			L->touched[L->ntouched++] = x;
		}
	}
}

/* Block bi's instructions, walking backward: a def closes what is open,
 * a use opens; what is still open at the block's start is live from it. */
static void block_insts(struct lv *L, uint32_t bi)
{
	struct dp_core *c = L->c;
	struct dp_block *b = &c->b[bi];
	uint32_t k, j;

	for (k = b->ninst; k-- > 0;) {
		struct dp_inst *in = &c->in[b->inst_first + k];
		uint32_t *ops = c->ops ? c->ops + in->op_first : NULL;

		for (j = 0; j < in->ndefs; j++) {
			uint32_t x = ops[j];

			if (L->open[x] != DP_UNSET) {
				emit(L, x, in->t, L->open[x]);
				L->open[x] = DP_UNSET;
			} else {
				emit(L, x, in->t, in->t);	/* dead def */
			}
		}
		for (j = 0; j < in->nuses; j++) {
			uint32_t x = ops[in->ndefs + j];

			if (L->open[x] == DP_UNSET) {
				L->open[x] = in->t;
				if (L->stamp[x] != bi + 1) {
					L->stamp[x] = bi + 1;
					L->touched[L->ntouched++] = x;
				}
			}
		}
	}
	for (j = 0; j < L->ntouched; j++) {
		uint32_t x = L->touched[j];

		if (L->open[x] != DP_UNSET) {
			emit(L, x, b->t_first, L->open[x]);
			L->open[x] = DP_UNSET;
		}
	}
}

/* Emission, block by block, walking backward through each. */
static int emit_all(struct lv *L)
{
	struct dp_core *c = L->c;
	uint32_t bi, i, nt = c->nt ? c->nt : 1;

	L->open = dp_realloc_array(NULL, nt, sizeof(*L->open));
	L->touched = dp_realloc_array(NULL, nt, sizeof(*L->touched));
	L->stamp = calloc(nt, sizeof(*L->stamp));
	L->last = dp_realloc_array(NULL, nt, sizeof(*L->last));
	L->pass = calloc(L->W ? L->W : 1, 8);
	L->run_lo = dp_realloc_array(NULL, nt, sizeof(*L->run_lo));
	if (!L->open || !L->touched || !L->stamp || !L->last || !L->pass ||
	    !L->run_lo)
		return -ENOMEM;
	for (i = 0; i < c->nt; i++) {
		L->open[i] = DP_UNSET;
		L->last[i] = SIZE_MAX;
	}
	/*
	 * A tensor live out of a block that does not touch it is live through
	 * the whole block.  Those are most of the live set when many tensors
	 * are live at once, so they are not walked one by one per block: a
	 * run of such blocks (in numbering order, empty blocks in between
	 * change nothing) is found word by word -- a bit that appears starts a
	 * run, a bit that disappears ends it -- and emitted as one interval.
	 * The merge below would have joined the per-block pieces anyway.
	 */
	for (bi = 0; bi < c->nb; bi++) {
		if (!c->b[bi].ninst)
			continue;
		L->ntouched = 0;
		block_words(L, bi);
		block_insts(L, bi);
		L->prev_last = c->b[bi].t_last;
	}
	for (bi = 0; bi < L->W; bi++)		/* runs still going at the end */
		while (L->pass[bi]) {
			uint32_t x = L->gten[bi * 64 + __builtin_ctzll(L->pass[bi])];

			L->pass[bi] &= L->pass[bi] - 1;
			emit(L, x, L->run_lo[x], L->prev_last);
		}
	return L->nomem ? -ENOMEM : 0;
}

/* Group by tensor (counting sort), sort and merge each tensor's list into
 * c->iv. */
static int collect(struct lv *L)
{
	struct dp_core *c = L->c;
	uint32_t *count = calloc((size_t)c->nt + 1, sizeof(*count));
	uint32_t *pos = dp_realloc_array(NULL, (size_t)c->nt + 1, sizeof(*pos));
	struct emit *sorted = dp_realloc_array(NULL, L->nem ? L->nem : 1,
					       sizeof(*sorted));
	struct dp_iv *iv = dp_realloc_array(NULL, L->nem ? L->nem : 1,
					    sizeof(*c->iv));
	uint32_t i;
	size_t n;

	if (!count || !pos || !sorted || !iv) {
		free(count);
		free(pos);
		free(sorted);
		free(iv);
		return -ENOMEM;
	}
	for (n = 0; n < L->nem; n++)
		count[L->em[n].tensor + 1]++;
	for (i = 0; i < c->nt; i++)
		count[i + 1] += count[i];
	memcpy(pos, count, ((size_t)c->nt + 1) * sizeof(*pos));
	for (n = 0; n < L->nem; n++)
		sorted[pos[L->em[n].tensor]++] = L->em[n];
	free(L->em);
	L->em = sorted;
	free(c->iv);
	c->iv = iv;
	c->niv = 0;
	for (i = 0; i < c->nt; i++) {
		struct emit *a = &L->em[count[i]];
		size_t cnt = count[i + 1] - count[i], q;

		if (cnt > 1)
			qsort(a, cnt, sizeof(*a), cmp_emit);
		c->t[i].iv_first = c->niv;
		for (q = 0; q < cnt; q++) {
			struct dp_iv *last = c->niv > c->t[i].iv_first ?
					     &c->iv[c->niv - 1] : NULL;

			if (last && a[q].lo <= last->hi + 1) {
				if (a[q].hi > last->hi)
					last->hi = a[q].hi;
			} else {
				c->iv[c->niv].lo = a[q].lo;
				c->iv[c->niv].hi = a[q].hi;
				c->niv++;
			}
		}
		c->t[i].iv_count = c->niv - c->t[i].iv_first;
	}
	free(count);
	free(pos);
	return 0;
}

static void lv_free(struct lv *L)
{
	DP_FREE(L->gidx, L->gten, L->use, L->def, L->in, L->out, L->outputs,
		L->em, L->last, L->open, L->touched, L->stamp, L->pass,
		L->run_lo);
}

/* One core: classify, use/def, dataflow, the entry check, emission, the
 * intervals per tensor. */
static int core_liveness(struct dp_model *m, struct dp_core *c,
			 struct dp_err *e)
{
	struct lv LL = { .c = c }, *L = &LL;
	uint32_t j;
	int rc = 0;

	if (classify(L) || use_def(L)) {
		lv_free(L);
		return dp_nomem(e);
	}
	dataflow(L);
	/* live into the entry: only inputs, weights and shared tensors may be */
	for (j = 0; j < L->G && !rc; j++)
		if (TST(L->in, 0, j) && !is_entry_defined(&c->t[L->gten[j]]))
			rc = no_reaching_def(m, L, L->gten[j], e);
	if (!rc && (emit_all(L) || collect(L)))
		rc = dp_nomem(e);
	lv_free(L);
	return rc;
}

int dp_liveness(struct dp_model *m, struct dp_err *e)
{
	uint32_t ci;

	for (ci = 0; ci < m->nc; ci++)
		if (core_liveness(m, &m->c[ci], e))
			return -1;
	return 0;
}
