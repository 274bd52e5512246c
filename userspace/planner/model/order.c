// SPDX-License-Identifier: GPL-2.0
/*
 * order.c - happens-before: program order plus events plus collectives,
 * the one relation that the planner's static proof (plan/unordered.c)
 * and the docs ("Order" in docs/dramplan.md) use.
 *
 * A node is an instruction finishing, plus one node per collective (its
 * members all arrived).  Edges, u -> v meaning u is done before v starts:
 *
 *   program order   core c's instruction i -> i + 1
 *   events          every instruction that signals E -> every one that
 *                   waits for E (a wait returns once all E's signals ran)
 *   collectives     the instruction before each member -> the group;
 *                   the group -> what follows each member
 *
 * and the group -> each member too, for the deadlock check only (a member
 * cannot finish before all arrived; its own accesses are not ordered with
 * the other members').  A cycle is a deadlock: an error.  Kahn's order
 * gives each node a vector clock: clk[n][d] = 1 + the last instruction of
 * core d that happens before n starts (n itself on its own core), 0 none.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"

struct edge {
	uint32_t u, v;
	uint8_t clock;		/* 0: for the deadlock check only */
};

struct ob {			/* the graph being built */
	const struct dp_model *m;
	struct edge *e;
	size_t n, cap;
	uint32_t nnodes;
	uint32_t *grp;		/* per instruction node: its group node, or -1 */
};

static int edge(struct ob *b, uint32_t u, uint32_t v, int clock)
{
	if (dp_grow(&b->e, &b->cap, b->n + 1, sizeof(*b->e), 64))
		return -ENOMEM;
	b->e[b->n++] = (struct edge){ u, v, (uint8_t)clock };
	return 0;
}

/* The instruction of core d named name with a collective kind, or -1 */
static int64_t coll_member(const struct dp_core *c, const char *name)
{
	uint32_t i;

	for (i = 0; i < c->ni; i++)
		if (c->in[i].coll_kind && !strcmp(c->in[i].name, name))
			return i;
	return -1;
}

/* One node per collective, its edges; members found by name (checked by
 * dp_events_check). */
static int group_edges(struct ob *b, const uint32_t *base)
{
	const struct dp_model *m = b->m;
	uint32_t ci, i, k;

	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++) {
			const struct dp_core *c = &m->c[ci];
			const struct dp_inst *in = &c->in[i];
			const uint32_t *cs;
			uint32_t g = b->nnodes;

			if (!in->coll_kind || b->grp[base[ci] + i] != UINT32_MAX)
				continue;
			cs = c->sync + in->sync_first + in->nwait + in->nsignal;
			b->nnodes++;
			for (k = 0; k < in->ncores; k++) {
				int64_t x = coll_member(&m->c[cs[k]], in->name);
				uint32_t node;

				if (x < 0)
					continue;
				node = base[cs[k]] + x;
				b->grp[node] = g;
				if ((x > 0 && edge(b, node - 1, g, 1)) ||
				    edge(b, g, node, 0) ||
				    ((uint32_t)x + 1 < m->c[cs[k]].ni &&
				     edge(b, g, node + 1, 1)))
					return -ENOMEM;
			}
		}
	return 0;
}

/* The waiters of each event: node w[first[ev] .. first[ev + 1]) */
static int waiters(const struct dp_model *m, const uint32_t *base,
		   uint32_t **first, uint32_t **w)
{
	uint32_t ci, i, k, *fill;

	*first = calloc((size_t)m->nev + 1, sizeof(**first));
	fill = calloc((size_t)m->nev + 1, sizeof(*fill));
	*w = NULL;
	if (!*first || !fill)
		goto fail;
	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++)
			for (k = 0; k < m->c[ci].in[i].nwait; k++)
				(*first)[m->c[ci].sync[m->c[ci].in[i].sync_first + k] + 1]++;
	for (k = 0; k < m->nev; k++)
		(*first)[k + 1] += (*first)[k];
	*w = dp_realloc_array(NULL, (*first)[m->nev] + 1, sizeof(**w));
	if (!*w)
		goto fail;
	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++)
			for (k = 0; k < m->c[ci].in[i].nwait; k++) {
				uint32_t ev = m->c[ci].sync[m->c[ci].in[i].sync_first + k];

				(*w)[(*first)[ev] + fill[ev]++] = base[ci] + i;
			}
	free(fill);
	return 0;
fail:
	free(fill);
	free(*first);
	free(*w);
	return -ENOMEM;
}

/* Program order and the events' edges: each signaller to each waiter */
static int inst_edges(struct ob *b, const uint32_t *base)
{
	const struct dp_model *m = b->m;
	uint32_t ci, i, k, j, *first, *w;
	int rc = 0;

	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i + 1 < m->c[ci].ni; i++)
			if (edge(b, base[ci] + i, base[ci] + i + 1, 1))
				return -ENOMEM;
	if (waiters(m, base, &first, &w))
		return -ENOMEM;
	for (ci = 0; ci < m->nc && !rc; ci++)
		for (i = 0; i < m->c[ci].ni && !rc; i++) {
			const struct dp_inst *in = &m->c[ci].in[i];
			const uint32_t *sig = m->c[ci].sync + in->sync_first + in->nwait;

			for (k = 0; k < in->nsignal && !rc; k++)
				for (j = first[sig[k]]; j < first[sig[k] + 1] && !rc; j++)
					rc = edge(b, base[ci] + i, w[j], 1);
		}
	free(first);
	free(w);
	return rc;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return dp_cmp(x->u, y->u) ?: dp_cmp(x->v, y->v);
}

/* The first instruction Kahn's order never reached, as an error */
static int deadlock(const struct dp_model *m, const uint32_t *base,
		    const uint32_t *indeg, struct dp_err *e)
{
	uint32_t ci, i;

	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++)
			if (indeg[base[ci] + i])
				return dp_fail(e, "%s: core %u '%s': deadlock: what it waits for (an event, a collective) waits for it in turn",
					       m->file, ci, m->c[ci].in[i].name);
	return dp_fail(e, "%s: deadlock between collectives", m->file);
}

/* Kahn's order over the sorted edges, merging clocks along them */
static int walk(struct ob *b, struct dp_hb *o, const uint32_t *first,
		struct dp_err *e)
{
	uint32_t nc = o->nc, *indeg, *queue, head = 0, tail = 0, n;
	size_t k;
	int rc = -1;

	indeg = calloc(b->nnodes, sizeof(*indeg));
	queue = dp_realloc_array(NULL, b->nnodes, sizeof(*queue));
	if (!indeg || !queue) {
		rc = dp_nomem(e);
		goto out;
	}
	for (k = 0; k < b->n; k++)
		indeg[b->e[k].v]++;
	for (n = 0; n < b->nnodes; n++)
		if (!indeg[n])
			queue[tail++] = n;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (k = first[u]; k < first[u + 1]; k++) {
			uint32_t v = b->e[k].v, d;

			if (b->e[k].clock)
				for (d = 0; d < nc; d++)
					if (o->clk[(size_t)v * nc + d] < o->clk[(size_t)u * nc + d])
						o->clk[(size_t)v * nc + d] = o->clk[(size_t)u * nc + d];
			if (!--indeg[v])
				queue[tail++] = v;
		}
	}
	rc = tail == b->nnodes ? 0 : deadlock(b->m, o->base, indeg, e);
out:
	free(indeg);
	free(queue);
	return rc;
}

static int order_graph(struct ob *b, struct dp_hb *o, struct dp_err *e)
{
	const struct dp_model *m = b->m;
	uint32_t *first = NULL, ci, i;
	size_t k;
	int rc;

	if (inst_edges(b, o->base) || group_edges(b, o->base))
		return dp_nomem(e);
	o->clk = calloc((size_t)b->nnodes * m->nc, sizeof(*o->clk));
	first = calloc((size_t)b->nnodes + 1, sizeof(*first));
	if (!o->clk || !first) {
		free(first);
		return dp_nomem(e);
	}
	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++)
			o->clk[(size_t)(o->base[ci] + i) * m->nc + ci] = i + 1;
	qsort(b->e, b->n, sizeof(*b->e), cmp_edge);
	for (k = 0; k < b->n; k++)
		first[b->e[k].u + 1]++;
	for (i = 0; i < b->nnodes; i++)
		first[i + 1] += first[i];
	rc = walk(b, o, first, e);
	free(first);
	return rc;
}

int dp_hb_build(const struct dp_model *m, struct dp_hb *o,
		   struct dp_err *e)
{
	struct ob b = { .m = m };
	uint32_t ci;
	size_t n = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	o->nc = m->nc;
	o->base = calloc((size_t)m->nc + 1, sizeof(*o->base));
	if (!o->base)
		return dp_nomem(e);
	for (ci = 0; ci < m->nc; ci++) {
		o->base[ci] = n;
		n += m->c[ci].ni;
	}
	o->base[m->nc] = n;
	/* a collective node at most per instruction */
	if (2 * n >= UINT32_MAX) {
		dp_hb_free(o);
		return dp_fail(e, "%s: too many instructions to order", m->file);
	}
	b.nnodes = n;
	b.grp = dp_realloc_array(NULL, n ? n : 1, sizeof(*b.grp));
	if (!b.grp) {
		dp_hb_free(o);
		return dp_nomem(e);
	}
	memset(b.grp, 0xff, (n ? n : 1) * sizeof(*b.grp));
	rc = order_graph(&b, o, e);
	free(b.grp);
	free(b.e);
	if (rc)
		dp_hb_free(o);
	return rc;
}

int dp_hb_before(const struct dp_hb *o, uint32_t ca, uint32_t ia,
		    uint32_t cb, uint32_t ib)
{
	if (ca == cb)
		return ia < ib;
	return o->clk[(size_t)(o->base[cb] + ib) * o->nc + ca] > ia;
}

void dp_hb_free(struct dp_hb *o)
{
	free(o->base);
	free(o->clk);
	o->base = NULL;
	o->clk = NULL;
}

/* The relation for a caller outside the planner (libdramplan.h). */
struct dp_happens {
	struct dp_hb hb;
};

struct dp_happens *dp_happens_new(const struct dp_model *m, struct dp_err *e)
{
	struct dp_happens *h = calloc(1, sizeof(*h));

	if (!h) {
		dp_nomem(e);
		return NULL;
	}
	if (dp_hb_build(m, &h->hb, e)) {
		free(h);
		return NULL;
	}
	return h;
}

int dp_happens_before(const struct dp_happens *h, uint32_t ca, uint32_t ia,
		      uint32_t cb, uint32_t ib)
{
	return dp_hb_before(&h->hb, ca, ia, cb, ib);
}

void dp_happens_free(struct dp_happens *h)
{
	if (!h)
		return;
	dp_hb_free(&h->hb);
	free(h);
}
