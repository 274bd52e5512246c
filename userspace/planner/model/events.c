// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - cross-core order in the model: the events an instruction
 * waits for and signals, and the collectives that name their kind,
 * reduction, element type and cores.  Built by dp_inst_sync and
 * dp_inst_coll, checked by dp_events_check once every core is in.  The
 * relation they define is order.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"

static const char *const kind_names[] = { "", "all_reduce", "reduce_scatter",
					  "all_gather" };
static const char *const op_names[] = { "sum", "max" };
static const char *const elem_names[] = { "f32", "bf16", "f16", "i32" };

#define NAME_OF(tab, i) \
	((i) >= 0 && (size_t)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : "?")

const char *dp_coll_kind_name(int kind) { return NAME_OF(kind_names, kind); }
const char *dp_coll_op_name(int op) { return NAME_OF(op_names, op); }
const char *dp_elem_name(int type) { return NAME_OF(elem_names, type); }

/* The index of event name in m->ev, added when new; -1 when out of memory */
static int64_t event_index(struct dp_model *m, const char *name)
{
	size_t cap = m->cap_ev;
	uint32_t i;

	for (i = 0; i < m->nev; i++)
		if (!strcmp(m->ev[i], name))
			return i;
	if (dp_grow(&m->ev, &cap, m->nev + 1, sizeof(*m->ev), 8))
		return -1;
	m->cap_ev = cap > UINT32_MAX ? UINT32_MAX : cap;
	m->ev[m->nev] = dp_strdup(name);
	if (!m->ev[m->nev])
		return -1;
	return m->nev++;
}

/* Appends the event names of list[0..n) to c->sync: 0 or -1 (e set). */
static int add_events(struct dp_model *m, struct dp_core *c,
		      const char *const *list, uint32_t n, const char *kind,
		      const char *where, struct dp_err *e)
{
	size_t first = c->nsync;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const unsigned char *ch = (const unsigned char *)list[i];
		int64_t ev;
		size_t k;

		if (!list[i] || !*list[i] || strlen(list[i]) > DP_NAME_MAX)
			return dp_fail(e, "%s: %s: %s[%u]: an event name is 1 to %d characters",
				       m->file, where, kind, i, DP_NAME_MAX);
		for (; *ch; ch++)
			if (*ch < 0x20 || *ch == 0x7f)
				return dp_fail(e, "%s: %s: %s[%u]: event name has a control character",
					       m->file, where, kind, i);
		ev = event_index(m, list[i]);
		if (ev < 0 || dp_grow(&c->sync, &c->cap_sync, c->nsync + 1,
				      sizeof(*c->sync), 16))
			return dp_nomem(e);
		for (k = first; k < c->nsync; k++)
			if (c->sync[k] == ev)
				return dp_fail(e, "%s: %s: %s: event '%s' listed twice",
					       m->file, where, kind, list[i]);
		c->sync[c->nsync++] = ev;
	}
	return 0;
}

static struct dp_inst *last_inst(struct dp_model *m, struct dp_core *c,
				 const char *what, const char *where,
				 struct dp_err *e)
{
	struct dp_inst *in = c->ni ? &c->in[c->ni - 1] : NULL;

	if (!in) {
		dp_fail(e, "%s: %s: %s without an instruction", m->file, where, what);
		return NULL;
	}
	if (!*in->name) {
		dp_fail(e, "%s: %s: %s: an instruction with events needs a \"name\"",
			m->file, where, what);
		return NULL;
	}
	if (in->nwait || in->nsignal || in->ncores || in->coll_kind) {
		dp_fail(e, "%s: %s: %s: the instruction's order is given once",
			m->file, where, what);
		return NULL;
	}
	return in;
}

int dp_inst_sync(struct dp_model *m, struct dp_core *c,
		 const char *const *wait, uint32_t nwait,
		 const char *const *sig, uint32_t nsig, const char *where,
		 struct dp_err *e)
{
	struct dp_inst *in = last_inst(m, c, "events", where, e);

	if (!in)
		return -1;
	in->sync_first = c->nsync;
	if (c->nsync + (size_t)nwait + nsig >= UINT32_MAX)
		return dp_fail(e, "%s: %s: too many events", m->file, where);
	if (add_events(m, c, wait, nwait, "wait", where, e))
		goto fail;
	in->nwait = nwait;
	if (add_events(m, c, sig, nsig, "signal", where, e))
		goto fail;
	in->nsignal = nsig;
	m->ordered = 1;
	return 0;
fail:
	c->nsync = in->sync_first;
	in->nwait = 0;
	return -1;
}

int dp_inst_coll(struct dp_model *m, struct dp_core *c,
		 const struct dp_coll_spec *s, const char *where,
		 struct dp_err *e)
{
	struct dp_inst *in = c->ni ? &c->in[c->ni - 1] : NULL;
	uint32_t i, k, self = 0;

	if (!in || in->ncores || in->coll_kind)
		return dp_fail(e, "%s: %s: a collective is given once, after its instruction",
			       m->file, where);
	if (!*in->name)
		return dp_fail(e, "%s: %s: a collective needs a \"name\" (its cores' halves share it)",
			       m->file, where);
	if (s->kind <= DP_COLL_NONE || s->kind > DP_COLL_ALL_GATHER ||
	    s->op < DP_RED_SUM || s->op > DP_RED_MAX ||
	    s->type < DP_ELEM_F32 || s->type > DP_ELEM_I32)
		return dp_fail(e, "%s: %s: unknown collective kind, reduction or type",
			       m->file, where);
	for (i = 0; i < s->ncores; i++) {
		for (k = 0; k < i; k++)
			if (s->cores[k] == s->cores[i])
				return dp_fail(e, "%s: %s: collective: core %u listed twice",
					       m->file, where, s->cores[i]);
		self += s->cores[i] == c->index;
	}
	if (!self || s->ncores < 2)
		return dp_fail(e, "%s: %s: collective: \"cores\" must list this core (%u) and at least one other",
			       m->file, where, c->index);
	if (c->nsync + (size_t)s->ncores >= UINT32_MAX ||
	    dp_grow(&c->sync, &c->cap_sync, c->nsync + s->ncores,
		    sizeof(*c->sync), 16))
		return dp_nomem(e);
	/* after the instruction's events, if it has any */
	if (!in->nwait && !in->nsignal)
		in->sync_first = c->nsync;
	else if (in->sync_first + in->nwait + in->nsignal != c->nsync)
		return dp_fail(e, "%s: %s: collective: events of another instruction in between",
			       m->file, where);
	memcpy(c->sync + c->nsync, s->cores, s->ncores * sizeof(*s->cores));
	c->nsync += s->ncores;
	in->ncores = s->ncores;
	in->coll_kind = s->kind;
	in->coll_op = s->op;
	in->coll_type = s->type;
	in->collective = 1;
	m->ordered = 1;
	return 0;
}

/* ---- checks once every core is in ------------------------------------ */

/* Does core d have a collective named like in, of the same shape? */
static int coll_matches(const struct dp_model *m, uint32_t d,
			const struct dp_core *c, const struct dp_inst *in)
{
	const struct dp_core *o = &m->c[d];
	uint32_t i, k;

	for (i = 0; i < o->ni; i++) {
		const struct dp_inst *x = &o->in[i];
		const uint32_t *xs = o->sync + x->sync_first + x->nwait + x->nsignal;
		const uint32_t *cs = c->sync + in->sync_first + in->nwait + in->nsignal;

		if (strcmp(x->name, in->name) || x->coll_kind != in->coll_kind ||
		    x->coll_op != in->coll_op || x->coll_type != in->coll_type ||
		    x->ncores != in->ncores)
			continue;
		for (k = 0; k < in->ncores && xs[k] == cs[k]; k++)
			;
		if (k == in->ncores)
			return 1;
	}
	return 0;
}

static int check_coll(const struct dp_model *m, const struct dp_core *c,
		      const struct dp_inst *in, struct dp_err *e)
{
	const uint32_t *cs = c->sync + in->sync_first + in->nwait + in->nsignal;
	uint32_t k;

	for (k = 0; k < in->ncores; k++)
		if (cs[k] >= m->nc)
			return dp_fail(e, "%s: core %u '%s': %s over core %u, but the model has %u core%s",
				       m->file, c->index, in->name,
				       dp_coll_kind_name(in->coll_kind), cs[k],
				       m->nc, m->nc == 1 ? "" : "s");
	for (k = 0; k < in->ncores; k++) {
		if (cs[k] != c->index && !coll_matches(m, cs[k], c, in))
			return dp_fail(e, "%s: core %u '%s': %s %s %s: core %u has no collective '%s' of the same kind, reduction, type and cores",
				       m->file, c->index, in->name,
				       dp_coll_kind_name(in->coll_kind),
				       dp_coll_op_name(in->coll_op),
				       dp_elem_name(in->coll_type), cs[k], in->name);
	}
	return 0;
}

/*
 * Every event waited for is signalled somewhere; every collective's cores
 * exist and each has its half; collective names are unique on a core.
 * 0, or -1 with the message naming the instruction; -ENOMEM.
 */
int dp_events_check(const struct dp_model *m, struct dp_err *e)
{
	uint8_t *sig = calloc(m->nev ? m->nev : 1, 1);
	uint32_t ci, i, k;
	int rc = -1;

	if (!sig)
		return dp_nomem(e);
	for (ci = 0; ci < m->nc; ci++)
		for (i = 0; i < m->c[ci].ni; i++) {
			const struct dp_inst *in = &m->c[ci].in[i];

			for (k = 0; k < in->nsignal; k++)
				sig[m->c[ci].sync[in->sync_first + in->nwait + k]] = 1;
		}
	for (ci = 0; ci < m->nc; ci++) {
		const struct dp_core *c = &m->c[ci];

		for (i = 0; i < c->ni; i++) {
			const struct dp_inst *in = &c->in[i];

			for (k = 0; k < in->nwait; k++)
				if (!sig[c->sync[in->sync_first + k]]) {
					dp_fail(e, "%s: core %u '%s': waits for event '%s' that no instruction signals",
						m->file, ci, in->name,
						m->ev[c->sync[in->sync_first + k]]);
					goto out;
				}
			if (in->coll_kind && check_coll(m, c, in, e))
				goto out;
			for (k = 0; in->coll_kind && k < i; k++)
				if (c->in[k].coll_kind && !strcmp(c->in[k].name, in->name)) {
					dp_fail(e, "%s: core %u '%s': two collectives of one name on a core",
						m->file, ci, in->name);
					goto out;
				}
		}
	}
	rc = 0;
out:
	free(sig);
	return rc;
}
