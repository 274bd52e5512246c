// SPDX-License-Identifier: GPL-2.0
/*
 * unordered.c - the static proof.  With order declared in the model
 * (events, collectives naming their cores), every pair of accesses from
 * different cores to overlapping shared bytes, one of them a write, must
 * be ordered by happens-before (model/order.c).  The tensor pairs are
 * post_shared_hazards' own (dp_plan_pairs_each, plan.c); this file looks
 * at the instructions behind each pair.  What it finds goes into the plan
 * (p->uo) with the model's events (p->ev, p->es): the tool refuses such a
 * plan unless --allow-unordered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"
#include "plan/plan.h"

/* One instruction's access to a tensor */
struct acc {
	uint32_t inst;
	uint8_t w;
};

/* Per core, its tensors' accesses: a[first[t] .. first[t] + n[t]) */
struct core_acc {
	uint32_t *first, *n;
	struct acc *a;
};

struct prove {
	struct dp_plan *p;
	const struct dp_model *m;
	struct dp_hb hb;
	struct core_acc *ca;
	size_t cap;
	int nomem;
};

/* Core c's accesses by tensor, each instruction once per tensor (a def
 * and a use of one tensor are one writing access).  0, or -ENOMEM. */
static int core_accesses(const struct dp_core *c, struct core_acc *x)
{
	uint32_t i, k, t;

	x->first = calloc((size_t)c->nt + 1, sizeof(*x->first));
	x->n = calloc((size_t)c->nt + 1, sizeof(*x->n));
	x->a = dp_realloc_array(NULL, c->nops ? c->nops : 1, sizeof(*x->a));
	if (!x->first || !x->n || !x->a)
		return -ENOMEM;
	for (k = 0; k < c->nops; k++)
		x->first[c->ops[k] + 1]++;
	for (t = 0; t < c->nt; t++)
		x->first[t + 1] += x->first[t];
	for (i = 0; i < c->ni; i++) {
		const struct dp_inst *in = &c->in[i];

		for (k = 0; k < in->ndefs + in->nuses; k++) {
			uint32_t tt = c->ops[in->op_first + k];
			struct acc *a = x->a + x->first[tt];
			uint8_t w = k < in->ndefs;

			if (x->n[tt] && a[x->n[tt] - 1].inst == i)
				a[x->n[tt] - 1].w |= w;
			else
				a[x->n[tt]++] = (struct acc){ i, w };
		}
	}
	return 0;
}

static int add_unordered(struct prove *v, const struct dp_hazard *h,
			 const struct acc *x, const struct acc *y)
{
	struct dp_plan *p = v->p;
	struct dp_unordered *u;

	if (dp_grow(&p->uo, &v->cap, p->nuo + 1, sizeof(*p->uo), 16))
		return -ENOMEM;
	u = &p->uo[p->nuo];
	/* the lower core first */
	if (h->core_a > h->core_b)
		*u = (struct dp_unordered){
			.core_a = h->core_b, .ta = h->tb, .core_b = h->core_a,
			.tb = h->ta, .lo = h->lo, .hi = h->hi,
			.a_writes = y->w, .b_writes = x->w };
	else
		*u = (struct dp_unordered){
			.core_a = h->core_a, .ta = h->ta, .core_b = h->core_b,
			.tb = h->tb, .lo = h->lo, .hi = h->hi,
			.a_writes = x->w, .b_writes = y->w };
	u->inst_a = dp_strdup(v->m->c[u->core_a].in[h->core_a == u->core_a ?
						  x->inst : y->inst].name);
	u->inst_b = dp_strdup(v->m->c[u->core_b].in[h->core_a == u->core_a ?
						  y->inst : x->inst].name);
	p->nuo++;
	return u->inst_a && u->inst_b ? 0 : -ENOMEM;
}

/* One tensor pair of dp_plan_pairs_each: its instruction pairs */
static int prove_pair(const struct dp_hazard *h, void *arg)
{
	struct prove *v = arg;
	const struct dp_plan_tensor *ta = &v->p->core[h->core_a].t[h->ta];
	const struct dp_plan_tensor *tb = &v->p->core[h->core_b].t[h->tb];
	const struct core_acc *xa = &v->ca[h->core_a], *xb = &v->ca[h->core_b];
	uint32_t i, j;

	for (i = 0; i < xa->n[ta->id]; i++)
		for (j = 0; j < xb->n[tb->id]; j++) {
			const struct acc *x = &xa->a[xa->first[ta->id] + i];
			const struct acc *y = &xb->a[xb->first[tb->id] + j];

			if (!x->w && !y->w)
				continue;
			if (dp_hb_before(&v->hb, h->core_a, x->inst, h->core_b, y->inst) ||
			    dp_hb_before(&v->hb, h->core_b, y->inst, h->core_a, x->inst))
				continue;
			if (add_unordered(v, h, x, y))
				return -ENOMEM;
		}
	return 0;
}

/* The model's events and their sites, into the plan */
static int record_events(struct dp_plan *p, const struct dp_model *m)
{
	uint32_t ev, ci, i, k;

	p->ev = calloc(m->nev ? m->nev : 1, sizeof(*p->ev));
	if (!p->ev)
		return -ENOMEM;
	for (ev = 0; ev < m->nev; ev++) {
		struct dp_plan_event *pe = &p->ev[p->nev++];
		size_t cap = p->nes;

		pe->name = dp_strdup(m->ev[ev]);
		pe->first = p->nes;
		if (!pe->name)
			return -ENOMEM;
		for (ci = 0; ci < m->nc; ci++)
			for (i = 0; i < m->c[ci].ni; i++) {
				const struct dp_inst *in = &m->c[ci].in[i];
				const uint32_t *x = m->c[ci].sync + in->sync_first;

				for (k = 0; k < in->nwait + in->nsignal; k++) {
					if (x[k] != ev)
						continue;
					if (dp_grow(&p->es, &cap, p->nes + 1,
						    sizeof(*p->es), 8))
						return -ENOMEM;
					p->es[p->nes] = (struct dp_event_site){
						ci, dp_strdup(in->name), k >= in->nwait };
					if (!p->es[p->nes++].inst)
						return -ENOMEM;
					pe->n++;
				}
			}
	}
	return 0;
}

int dp_plan_prove_order(struct dp_plan *p, const struct dp_model *m,
			FILE *log, struct dp_err *e)
{
	struct prove v = { .p = p, .m = m };
	uint32_t ci;
	int rc = -ENOMEM;

	p->ordered = 1;
	if (dp_hb_build(m, &v.hb, e))
		return -1;
	v.ca = calloc(m->nc, sizeof(*v.ca));
	if (!v.ca)
		goto out;
	for (ci = 0; ci < m->nc; ci++)
		if (core_accesses(&m->c[ci], &v.ca[ci]))
			goto out;
	if (record_events(p, m) || dp_plan_pairs_each(p, prove_pair, &v))
		goto out;
	rc = 0;
	if (log)
		fprintf(log, "order: %zu event%s; %zu unordered access pair%s to shared bytes\n",
			p->nev, p->nev == 1 ? "" : "s", p->nuo,
			p->nuo == 1 ? "" : "s");
out:
	for (ci = 0; v.ca && ci < m->nc; ci++)
		DP_FREE(v.ca[ci].first, v.ca[ci].n, v.ca[ci].a);
	free(v.ca);
	dp_hb_free(&v.hb);
	return rc ? dp_nomem(e) : 0;
}

void dp_unordered_line(const struct dp_plan *p, const struct dp_unordered *u,
		       FILE *f)
{
	fprintf(f, "unordered: core %u '%s' %s '%s' / core %u '%s' %s '%s' [0x%llx, 0x%llx)",
		u->core_a, u->inst_a, u->a_writes ? "writes" : "reads",
		p->core[u->core_a].t[u->ta].name,
		u->core_b, u->inst_b, u->b_writes ? "writes" : "reads",
		p->core[u->core_b].t[u->tb].name,
		(unsigned long long)u->lo, (unsigned long long)u->hi);
}
