// SPDX-License-Identifier: GPL-2.0
/*
 * passes.c - the DRAM passes: find_start_addr, cc_buffer_size and
 * coloring_allocator_dram (which includes the dram_shared placement).
 *
 * THE ADDRESS MAP (one per core; shared tensors have the same address in
 * every core's map).  F is the floor, find_start_addr(hwm):
 *
 *   [0, F)                    pre-placed tensors (inputs, outputs, weights)
 *   [F, F + real_cc)          CC buffer region: every collective operand
 *       [F, sh_cc_end)          shared collective operands (placed once)
 *       [sh_cc_end, ...)        each core's private collective operands
 *   [F + real_cc, shared_end) shared region: other shared tensors (once)
 *   [shared_end, ceiling)     each core's private tensors
 *
 * --allreduce-buffer-size is the CC region's limit: collective operands are
 * placed first fit in [F, F + limit) and one that does not fit is an error.
 * The region then ends where its placements really end ("Real CC buffer
 * size", rounded to 4 KiB), so an unused limit costs no memory and nothing
 * that is not a collective operand is ever inside it.  -1 sizes the limit
 * automatically: the shared collective operands once, plus, for the core
 * that needs most, the sum over its collective instructions of their
 * distinct operands' aligned sizes, rounded up to 4 KiB -- enough for the
 * worst case where nothing shares bytes.
 *
 * Shared tensors are placed once, by their owner, before any private
 * tensor of their region: their liveness is the union of every core's
 * accesses (owner and links), each core's times shifted so that cores never
 * overlap in time -- two shared tensors may share bytes only if no single
 * core has them live at once.  Accesses from different cores to the same
 * bytes are not ordered by this; post_shared_hazards reports them (and,
 * with events declared, the static proof checks them; such a model's
 * shared tensors never share bytes: shared_intervals).  Private
 * tensors start above the shared tensors of their region (the seed's second
 * DRAM pass counts the now-addressed shared tensors into its floor), so
 * private bytes never alias bytes another core may touch at any time.
 *
 * --dram-shared-mode 1 (the seed's dram_shared mode 1, select's per-core
 * slab partitioning): the same layout, but one address map for all cores.
 * Each core's private collective operands go in the CC region above the
 * previous core's, and the private tensors of core c first fit into its
 * slab [private_base + c * coreCap, + coreCap), coreCap = --core-mib << 20
 * (default: the even split of [private_base, ceiling), 4 KiB down).  A
 * tensor that does not fit in its slab is an error naming it: a slab never
 * spills into a neighbour's.  Mode 0 (default) keeps one map per core.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "plan/plan.h"

struct dp_shobj {
	uint32_t core, t;	/* owner */
	uint32_t link_first, nlinks;
};

struct link {
	uint32_t core, t;
};

static uint64_t round_page(uint64_t x)
{
	return (x + DP_PAGE - 1) & ~(DP_PAGE - 1);
}

/* Region of every tensor; part of the number pass (always in the pipeline). */
int dp_classify(struct dp_model *m, struct dp_err *e)
{
	uint32_t ci, i, j;

	(void)e;
	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];

		for (i = 0; i < c->ni; i++) {
			struct dp_inst *in = &c->in[i];

			if (!in->collective)
				continue;
			for (j = 0; j < in->ndefs + in->nuses; j++)
				c->t[c->ops[in->op_first + j]].collective = 1;
		}
	}
	/* a shared object is a collective operand if any core uses it so */
	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];

		for (i = 0; i < c->nt; i++)
			if (c->t[i].has_remote && c->t[i].collective &&
			    c->t[i].remote_idx >= 0)
				m->c[c->t[i].remote_core].t[c->t[i].remote_idx].collective = 1;
	}
	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];

		for (i = 0; i < c->nt; i++) {
			struct dp_tensor *t = &c->t[i];

			if (t->mem != DP_MEM_DRAM)
				t->region = DP_REG_NONE;
			else if (t->has_remote)
				t->region = DP_REG_LINKED;
			else if (t->has_addr)
				t->region = DP_REG_PRE;
			else if (t->collective)
				t->region = DP_REG_CC;
			else if (t->shared)
				t->region = DP_REG_SHARED;
			else
				t->region = DP_REG_GENERAL;
		}
	}
	return 0;
}

int dp_pass_find_start_addr(struct dp_ctx *x)
{
	uint64_t hwm = 0;
	uint32_t ci, i;

	/* pre-placed DRAM tensors of every core (the seed's sibling scan) */
	for (ci = 0; ci < x->m->nc; ci++) {
		struct dp_core *c = &x->m->c[ci];

		for (i = 0; i < c->nt; i++) {
			struct dp_tensor *t = &c->t[i];

			if (t->region == DP_REG_PRE && t->addr + t->size - 1 > hwm)
				hwm = t->addr + t->size - 1;
		}
	}
	x->hwm = hwm;
	x->floor = dp_find_start_addr(hwm);
	if (x->log) {
		if (hwm)
			fprintf(x->log, "Already used DRAM hwm: 0x%llx\n",
				(unsigned long long)hwm);
		fprintf(x->log, "reserved space = %llu bytes\n",
			(unsigned long long)hwm);
	}
	return 0;
}

int dp_pass_cc_buffer_size(struct dp_ctx *x)
{
	struct dp_model *m = x->m;
	uint64_t shared = 0, most = 0, limit;
	uint32_t ci, i, j, k;

	if (x->o.cc_mib >= 0) {
		if ((uint64_t)x->o.cc_mib > (UINT64_MAX >> 20))
			return dp_fail(x->err, "--allreduce-buffer-size %lld MiB is too large",
				       (long long)x->o.cc_mib);
		limit = (uint64_t)x->o.cc_mib << 20;
	} else {
		for (ci = 0; ci < m->nc; ci++) {
			struct dp_core *c = &m->c[ci];
			uint64_t sum = 0;

			for (i = 0; i < c->nt; i++)
				if (c->t[i].region == DP_REG_CC && c->t[i].shared)
					shared += c->t[i].size;
			for (i = 0; i < c->ni; i++) {
				struct dp_inst *in = &c->in[i];
				uint32_t *ops = c->ops ? c->ops + in->op_first : NULL;
				uint32_t n = in->ndefs + in->nuses;

				if (!in->collective)
					continue;
				for (j = 0; j < n; j++) {
					struct dp_tensor *t = &c->t[ops[j]];
					int dup = 0;

					if (t->region != DP_REG_CC || t->shared)
						continue;
					for (k = 0; k < j; k++)
						if (ops[k] == ops[j])
							dup = 1;
					if (!dup)
						sum += t->size;
				}
			}
			if (sum > most)
				most = sum;
		}
		limit = round_page(shared + most);
		if (x->log)
			fprintf(x->log, "CC buffer size limit %llu\n",
				(unsigned long long)limit);
	}
	x->cc_limit = limit;
	if (x->log)
		fprintf(x->log, "CC buffer size %llu bytes (--allreduce-buffer-size %lld%s)\n",
			(unsigned long long)limit, (long long)x->o.cc_mib,
			x->o.cc_mib < 0 ? ", auto" : " MiB");
	return 0;
}

/* ---- placement helpers ---------------------------------------------- */

/* What closes the CC region [cc_base, ceiling): the CC buffer's limit, or
 * the DRAM ceiling when that comes first (whatever the limit is, -1 too). */
/*
 * The DRAM passes' placement: the seed's first fit in simplify order, or
 * with --strategy search the search on the same items, the same region
 * [start, ceiling) and the 4 KiB page rule (p's page unused).  The log's
 * lines start with tag (log NULL: none).  On failure *failed names the
 * item the seed's order could not place and *why is what the search
 * found, for the end of the error message ("" in seed mode).
 */
struct dp_why {
	char s[200];
};

static int place_items(const struct dp_opts *o, const struct dp_problem *p,
		       struct dp_place_stats *st, size_t *failed, FILE *log,
		       const char *tag, struct dp_why *why)
{
	struct dp_search_params par;
	struct dp_search s = { .problem = *p, .nodes = o->search_nodes,
			       .engine = o->engine, .params = &par };
	struct dp_problem *q = &s.problem;
	struct dp_search_stats ss;
	double t0 = dp_now();
	size_t n = p->n;
	int r;

	q->page = DP_PAGE;
	if (o->strategy != DP_STRATEGY_SEARCH)
		return dp_place(q, DP_ORDER_SIMPLIFY, o->engine, st, failed,
				log, tag);
	/* the names were checked (dp_plan_model): an unknown one is ignored */
	dp_search_params_of(o->search_off, &par);
	r = dp_search_run(&s, &ss);
	if (r == -ENOMEM)
		return r;
	if (r) {
		char v[160];

		snprintf(why->s, sizeof(why->s), "; --strategy search: %s",
			 dp_search_verdict(&ss, v, sizeof(v)));
		r = dp_place(q, DP_ORDER_SIMPLIFY, o->engine, st, failed,
			     NULL, tag);
		return r == -ENOMEM ? r : -1;
	}
	if (st && n && ss.end > st->peak)	/* as dp_place: max(addr + size) */
		st->peak = ss.end;
	if (log)
		fprintf(log, "%ssearch: %zu items, end 0x%llx (seed 0x%llx, lower bound 0x%llx%s), %s, %llu nodes, %.3f s\n",
			tag, n, (unsigned long long)ss.end,
			(unsigned long long)ss.seed_end,
			(unsigned long long)ss.lower_bound,
			ss.proven ? ", optimal" : "", ss.how,
			(unsigned long long)ss.nodes, dp_now() - t0);
	return 0;
}

static void cc_blame(const struct dp_ctx *x, uint64_t ceiling, char *buf,
		     size_t len)
{
	if (ceiling == x->ceiling && x->cc_limit >= x->ceiling - x->cc_base)
		snprintf(buf, len, "the DRAM ceiling 0x%llx closes it, --dram-size %llu MiB",
			 (unsigned long long)x->ceiling,
			 (unsigned long long)x->o.dram_mib);
	else
		snprintf(buf, len, "limit %llu bytes, --allreduce-buffer-size",
			 (unsigned long long)x->cc_limit);
}

/* Why an item of region found no gap in [lo, ceiling), one phrase in buf:
 * the CC region (and what closes it), a core's slab (slab: mode 1's
 * private tensors) or the DRAM ceiling. */
static void no_fit(const struct dp_ctx *x, int region, int slab, uint64_t lo,
		   uint64_t ceiling, char *buf, size_t len)
{
	char blame[128];

	if (region == DP_REG_CC) {
		cc_blame(x, ceiling, blame, sizeof(blame));
		snprintf(buf, len, "collective operand does not fit in the CC buffer region [0x%llx, 0x%llx) (%s)",
			 (unsigned long long)lo, (unsigned long long)ceiling,
			 blame);
	} else if (slab) {
		snprintf(buf, len, "DRAM allocation failed: no gap fits in the core's slab [0x%llx, 0x%llx) (core cap %llu bytes, --core-mib; dram_shared mode 1 never places into another core's slab)",
			 (unsigned long long)lo, (unsigned long long)ceiling,
			 (unsigned long long)x->core_cap);
	} else {
		snprintf(buf, len, "DRAM allocation failed: no gap fits below the ceiling 0x%llx (--dram-size %llu MiB)",
			 (unsigned long long)ceiling,
			 (unsigned long long)x->o.dram_mib);
	}
}

/* The items of one placement of a region: it[k] is tensor map[k] (of a
 * core, or a shared object), over the batch's own intervals iv (shared
 * objects) or the core's; placed in [start, ceiling), the log's lines
 * starting with tag.  On failure: the item that found no gap, and what
 * the search said. */
struct batch {
	struct dp_item *it;
	uint32_t *map;
	uint32_t n;
	struct dp_iv *iv;
	size_t niv, cap;
	uint64_t start, ceiling;
	const char *tag;
	size_t failed;
	struct dp_why why;
};

static int batch_new(struct batch *b, uint32_t n, uint64_t start,
		     uint64_t ceiling, const char *tag)
{
	*b = (struct batch){ .it = dp_realloc_array(NULL, n, sizeof(*b->it)),
			     .map = dp_realloc_array(NULL, n, sizeof(*b->map)),
			     .start = start, .ceiling = ceiling, .tag = tag,
			     .why = { "" } };
	return b->it && b->map ? 0 : -ENOMEM;
}

static void batch_free(struct batch *b)
{
	DP_FREE(b->it, b->map, b->iv);
}

/* Item b->n: a tensor of size bytes, tensor idx of the batch, intervals
 * from iv_first on */
static void batch_add(struct batch *b, uint64_t size, uint32_t idx,
		      uint32_t iv_first)
{
	b->it[b->n] = (struct dp_item){ .size = size, .align = 1,
					.iv_first = iv_first,
					.addr = DP_UNSET };
	b->map[b->n++] = idx;
}

/* The batch placed over intervals iv (place_items); *end raised to its
 * highest end.  0, -ENOMEM, or -1 with b->failed and b->why set. */
static int batch_place(struct dp_ctx *x, struct batch *b,
		       const struct dp_iv *iv, uint64_t *end)
{
	uint32_t i;
	int rc;

	x->tree_built = 1;
	rc = place_items(&x->o, DP_PROBLEM(.it = b->it, .n = b->n, .iv = iv,
					   .start = b->start,
					   .ceiling = b->ceiling),
			 &x->st, &b->failed, x->log, b->tag, &b->why);
	for (i = 0; !rc && i < b->n; i++)
		if (b->it[i].addr + b->it[i].size > *end)
			*end = b->it[i].addr + b->it[i].size;
	return rc;
}

static int place_private(struct dp_ctx *x, struct dp_core *c, int region,
			 uint64_t start, uint64_t ceiling, uint64_t *end)
{
	struct batch b;
	uint32_t i, n = 0;
	char tag[64], what[320];
	int rc;

	for (i = 0; i < c->nt; i++)
		if (c->t[i].region == region && !c->t[i].shared)
			n++;
	if (!n)
		return 0;
	snprintf(tag, sizeof(tag), "[core %u %s] ", c->index,
		 region == DP_REG_CC ? "cc" : "dram");
	rc = batch_new(&b, n, start, ceiling, tag);
	for (i = 0; !rc && i < c->nt; i++)
		if (c->t[i].region == region && !c->t[i].shared) {
			batch_add(&b, c->t[i].size, i, c->t[i].iv_first);
			b.it[b.n - 1].iv_count = c->t[i].iv_count;
		}
	if (!rc)
		rc = batch_place(x, &b, c->iv, end);
	if (rc == -ENOMEM) {
		rc = dp_nomem(x->err);
	} else if (rc) {
		const struct dp_tensor *t = &c->t[b.map[b.failed]];

		no_fit(x, region, x->o.dram_shared_mode == 1,
		       region == DP_REG_CC ? x->cc_base : start, ceiling,
		       what, sizeof(what));
		rc = dp_fail(x->err, "%s: core %u (%s): tensor '%s' (%llu bytes): %s%s",
			     x->m->file, c->index, c->function, t->name,
			     (unsigned long long)t->size, what, b.why.s);
	}
	for (i = 0; !rc && i < b.n; i++)
		c->t[b.map[i]].addr = b.it[i].addr;
	batch_free(&b);
	return rc;
}

/* Shared object o's intervals into b->iv: the union of every core's
 * accesses (owner and links), core ci's times shifted by off[ci] so that
 * cores never overlap in time.  A model that declares order (events) gets
 * one interval over all time instead: its shared tensors never share
 * bytes, so a placement cannot put one's write between another's write
 * and read on other cores, which order alone would not show.  0, or
 * -ENOMEM. */
static int shared_intervals(const struct dp_model *m, const struct dp_shobj *o,
			    const struct link *links, const uint64_t *off,
			    struct batch *b)
{
	uint32_t l, k;

	if (m->ordered) {
		if (dp_grow(&b->iv, &b->cap, b->niv + 1, sizeof(*b->iv), 64))
			return -ENOMEM;
		b->iv[b->niv++] = (struct dp_iv){
			.lo = 0, .hi = off[m->nc - 1] + m->c[m->nc - 1].ni };
		return 0;
	}

	for (l = 0; l <= o->nlinks; l++) {
		uint32_t lc = l ? links[o->link_first + l - 1].core : o->core;
		uint32_t lt = l ? links[o->link_first + l - 1].t : o->t;
		const struct dp_tensor *u = &m->c[lc].t[lt];

		for (k = 0; k < u->iv_count; k++) {
			const struct dp_iv *v = &m->c[lc].iv[u->iv_first + k];

			if (dp_grow(&b->iv, &b->cap, b->niv + 1, sizeof(*b->iv), 64))
				return -ENOMEM;
			b->iv[b->niv++] = (struct dp_iv){ .lo = v->lo + off[lc],
							  .hi = v->hi + off[lc] };
		}
	}
	return 0;
}

/* The shared objects of one region, all cores at once. */
static int place_shared(struct dp_ctx *x, int region, struct link *links,
			uint64_t start, uint64_t ceiling, uint64_t *end)
{
	struct dp_model *m = x->m;
	uint64_t *off;
	struct batch b;
	uint32_t ci, n = 0, i;
	char what[320];
	int rc;

	for (i = 0; i < x->nobj; i++)
		if (m->c[x->obj[i].core].t[x->obj[i].t].region == region)
			n++;
	if (!n)
		return 0;
	off = dp_realloc_array(NULL, m->nc, sizeof(*off));
	rc = batch_new(&b, n, start, ceiling,
		       region == DP_REG_CC ? "[shared cc] " : "[shared] ") ||
	     !off ? -ENOMEM : 0;
	for (ci = 0; !rc && ci < m->nc; ci++)	/* disjoint time ranges per core */
		off[ci] = ci ? off[ci - 1] + m->c[ci - 1].ni + 1 : 0;
	for (i = 0; !rc && i < x->nobj; i++) {
		const struct dp_shobj *o = &x->obj[i];
		const struct dp_tensor *t = &m->c[o->core].t[o->t];

		if (t->region != region)
			continue;
		batch_add(&b, t->size, i, b.niv);
		rc = shared_intervals(m, o, links, off, &b);
		b.it[b.n - 1].iv_count = b.niv - b.it[b.n - 1].iv_first;
	}
	if (!rc)
		rc = batch_place(x, &b, b.iv, end);
	if (rc == -ENOMEM) {
		rc = dp_nomem(x->err);
	} else if (rc) {
		const struct dp_shobj *o = &x->obj[b.map[b.failed]];

		no_fit(x, region, 0, start, ceiling, what, sizeof(what));
		rc = dp_fail(x->err, "%s: core %u: shared tensor '%s' (%llu bytes): %s%s",
			     m->file, o->core, m->c[o->core].t[o->t].name,
			     (unsigned long long)b.it[b.failed].size, what, b.why.s);
	}
	for (i = 0; !rc && i < b.n; i++) {
		const struct dp_shobj *o = &x->obj[b.map[i]];
		struct dp_tensor *t = &m->c[o->core].t[o->t];

		t->addr = b.it[i].addr;
		if (x->log)
			fprintf(x->log, "[shared] core %u '%s' -> 0x%llx (%u link%s)\n",
				o->core, t->name, (unsigned long long)t->addr,
				o->nlinks, o->nlinks == 1 ? "" : "s");
	}
	free(off);
	batch_free(&b);
	return rc;
}

static int slab_cap(struct dp_ctx *x)
{
	uint64_t nc = x->m->nc, avail, cap;

	avail = x->ceiling > x->private_base ? x->ceiling - x->private_base : 0;
	if (x->o.core_mib) {
		if (x->o.core_mib > (UINT64_MAX >> 20) / nc)
			return dp_fail(x->err, "--core-mib %llu MiB is too large",
				       (unsigned long long)x->o.core_mib);
		cap = x->o.core_mib << 20;
	} else {
		cap = avail / nc & ~(DP_PAGE - 1);
	}
	if (!cap || cap * nc > avail)
		return dp_fail(x->err, "%s: dram_shared mode 1: %llu per-core slabs of %llu bytes do not fit between 0x%llx (above the shared region) and the ceiling 0x%llx (--core-mib %llu, --dram-size %llu MiB)",
			       x->m->file, (unsigned long long)nc,
			       (unsigned long long)cap,
			       (unsigned long long)x->private_base,
			       (unsigned long long)x->ceiling,
			       (unsigned long long)x->o.core_mib,
			       (unsigned long long)x->o.dram_mib);
	x->core_cap = cap;
	if (x->log)
		fprintf(x->log, "dram_shared mode 1: coreCap = %llu bytes (%s), %llu per-core slabs from 0x%llx\n",
			(unsigned long long)cap,
			x->o.core_mib ? "--core-mib << 20" : "auto: the even split below the ceiling",
			(unsigned long long)nc, (unsigned long long)x->private_base);
	return 0;
}

static int core_has(const struct dp_core *c, int region, int shared)
{
	uint32_t i;

	for (i = 0; i < c->nt; i++)
		if (c->t[i].region == region && !!c->t[i].shared == shared)
			return 1;
	return 0;
}

/* The shared object a link's owner holds, or -1 (not a link, or no object). */
static int32_t link_object(const struct dp_model *m, const struct dp_tensor *t)
{
	return t->has_remote ? m->c[t->remote_core].t[t->remote_idx].obj : -1;
}

/* FIRST SCAN: is there anything to place? */
static int anything_to_place(const struct dp_model *m)
{
	uint32_t ci, i;

	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].nt; i++)
			if (m->c[ci].t[i].region >= DP_REG_CC &&
			    m->c[ci].t[i].addr == DP_UNSET)
				return 1;
	return 0;
}

/* The shared objects (owners, x->obj) and each one's links in core and
 * tensor order (*links): counted, then placed.  0, or -ENOMEM. */
static int shared_objects(struct dp_ctx *x, struct link **links)
{
	struct dp_model *m = x->m;
	uint32_t ci, i, nlinks = 0, *fill;

	free(x->obj);
	x->obj = NULL;
	x->nobj = 0;
	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].nt; i++) {
			struct dp_tensor *t = &m->c[ci].t[i];

			if (t->has_remote) {
				nlinks++;
			} else if (t->shared && t->region != DP_REG_PRE) {
				struct dp_shobj *ob = dp_realloc_array(x->obj,
					x->nobj + 1, sizeof(*x->obj));

				if (!ob)
					return -ENOMEM;
				x->obj = ob;
				t->obj = x->nobj;
				x->obj[x->nobj++] = (struct dp_shobj){ ci, i, 0, 0 };
			}
		}
	for (ci = 0; ci < m->nc; ci++)		/* count */
		for (i = 0; i < m->c[ci].nt; i++) {
			int32_t ob = link_object(m, &m->c[ci].t[i]);

			if (ob >= 0)
				x->obj[ob].nlinks++;
		}
	for (i = 0; i < x->nobj; i++)
		x->obj[i].link_first = i ? x->obj[i - 1].link_first + x->obj[i - 1].nlinks : 0;
	*links = dp_realloc_array(NULL, nlinks ? nlinks : 1, sizeof(**links));
	fill = calloc(x->nobj ? x->nobj : 1, sizeof(*fill));
	if (!*links || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (ci = 0; ci < m->nc; ci++)		/* place */
		for (i = 0; i < m->c[ci].nt; i++) {
			int32_t ob = link_object(m, &m->c[ci].t[i]);

			if (ob >= 0)
				(*links)[x->obj[ob].link_first + fill[ob]++] = (struct link){ ci, i };
		}
	free(fill);
	return 0;
}

static void log_cores(const struct dp_ctx *x)
{
	const struct dp_model *m = x->m;
	uint32_t ci, i;

	for (ci = 0; ci < m->nc; ci++) {
		fprintf(x->log, "[core %u %s] allocating spills in DRAM pre_link mode for address space dram\n",
			ci, m->c[ci].function);
		for (i = 0; i < m->c[ci].nt; i++)
			if (m->c[ci].t[i].has_remote)
				break;
		if (i < m->c[ci].nt)
			fprintf(x->log, "[core %u] Skipping shared tensor allocations on core %u, marking as remoteLocalTarget instead\n",
				ci, ci);
	}
}

/* CC region [F, cc_ceil): shared collective operands, then each core's
 * own; x->cc_real its rounded size. */
static int place_cc(struct dp_ctx *x, struct link *links, uint64_t cc_ceil)
{
	struct dp_model *m = x->m;
	uint64_t F = x->floor, sh_cc_end = F, cc_end, end;
	uint32_t ci;

	if (place_shared(x, DP_REG_CC, links, F, cc_ceil, &sh_cc_end))
		return -1;
	cc_end = sh_cc_end;
	for (ci = 0; ci < m->nc; ci++) {
		/* mode 1 (one map): each core's above the one before */
		uint64_t from = x->o.dram_shared_mode == 1 ? round_page(cc_end) : sh_cc_end;

		end = from;
		if (place_private(x, &m->c[ci], DP_REG_CC, from, cc_ceil, &end))
			return -1;
		if (end > cc_end)
			cc_end = end;
	}
	x->cc_real = round_page(cc_end - F);
	if (x->log) {
		fprintf(x->log, "allreduce_dram_hwm 0x%llx\n",
			(unsigned long long)(F + x->cc_real));
		fprintf(x->log, "Real CC buffer size %llu\n",
			(unsigned long long)x->cc_real);
	}
	return 0;
}

/* The shared region above the CC region, then each core's private
 * tensors above it (mode 1: in its slab). */
static int place_general(struct dp_ctx *x, struct link *links)
{
	struct dp_model *m = x->m;
	uint64_t end;
	uint32_t ci;

	x->shared_base = x->floor + x->cc_real;
	x->shared_end = x->shared_base;
	if (place_shared(x, DP_REG_SHARED, links, x->shared_base, x->ceiling,
			 &x->shared_end))
		return -1;
	x->shared_end = round_page(x->shared_end);
	x->private_base = x->shared_end;
	if (x->o.dram_shared_mode == 1 && slab_cap(x))
		return -1;
	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];
		uint64_t lo = x->private_base, hi = x->ceiling;

		if (x->o.dram_shared_mode == 1) {
			lo = x->private_base + ci * x->core_cap;
			hi = lo + x->core_cap;
			if (x->log)
				fprintf(x->log, "[core %u] slab [0x%llx, 0x%llx)\n", ci,
					(unsigned long long)lo, (unsigned long long)hi);
		}
		end = 0;
		if (place_private(x, c, DP_REG_GENERAL, lo, hi, &end))
			return -1;
		if (x->log) {
			if (!core_has(c, DP_REG_CC, 0) && !core_has(c, DP_REG_GENERAL, 0))
				fprintf(x->log, "[core %u] No candidate, DRAM allocation successful\n", ci);
			else
				fprintf(x->log, "[core %u] DRAM allocation successful\n", ci);
		}
	}
	return 0;
}

/*
 * coloring_allocator_dram.  Seed: allocate(func) for every core, with the
 * dram_shared placement of the owners' shared tensors first in each region.
 */
int dp_pass_dram(struct dp_ctx *x)
{
	struct dp_model *m = x->m;
	struct link *links = NULL;
	uint64_t F = x->floor, cc_ceil;
	int rc;

	if (!x->o.dram_mib || x->o.dram_mib > (UINT64_MAX >> 21))
		return dp_fail(x->err, "--dram-size %llu MiB is out of range",
			       (unsigned long long)x->o.dram_mib);
	x->ceiling = x->o.dram_mib << 20;
	x->cc_base = F;
	x->cc_real = 0;
	x->core_cap = 0;
	x->shared_base = x->shared_end = x->private_base = F;
	if (!anything_to_place(m)) {
		x->early_exit = 1;
		if (x->log)
			fprintf(x->log, "No candidate, DRAM allocation successful\n");
		return 0;
	}
	if (F >= x->ceiling)
		return dp_fail(x->err, "%s: the floor 0x%llx (pre-placed tensors) is above the DRAM ceiling 0x%llx (--dram-size %llu MiB)",
			       m->file, (unsigned long long)F,
			       (unsigned long long)x->ceiling,
			       (unsigned long long)x->o.dram_mib);
	cc_ceil = x->cc_limit > x->ceiling - F ? x->ceiling : F + x->cc_limit;
	if (shared_objects(x, &links)) {
		free(links);
		return dp_nomem(x->err);
	}
	if (x->log)
		log_cores(x);
	rc = place_cc(x, links, cc_ceil) || place_general(x, links) ? -1 : 0;
	free(links);
	return rc;
}
