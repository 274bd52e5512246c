// SPDX-License-Identifier: GPL-2.0
/*
 * plan_read.c - a plan's JSON read back, strictly (for verify).
 */
#include <stdlib.h>
#include <string.h>

#include "io/jdoc.h"
#include "internal.h"

#define U(x) ((unsigned long long)(x))

/* ---- reading a plan back (for verify) ------------------------------- */

/*
 * Strict like the model reader (jdoc.c): exact u64 numbers, no duplicate
 * keys.  Totals and hazards are not read: they are recomputed from the
 * tensors, so a plan written, read and written again is the same bytes.
 * The typed reads (jrd_*) are jdoc.c's, shared with the model reader.
 */
/* Member key of o, present and of type ty. */
static int get(struct jrd *r, uint32_t o, const char *key, enum jtype ty,
	       const char *where, uint32_t *out)
{
	*out = jdoc_get(r->d, o, key);
	if (*out == JNONE)
		return dp_fail(r->e, "%s: %s: missing \"%s\"", r->file, where, key);
	return jrd_type(r, *out, ty, where, key, NULL);
}

static int num_u(struct jrd *r, uint32_t v, const char *where, const char *key,
		 uint64_t *out)
{
	return jrd_u64(r, v, where, key, NULL, out);
}

static int get_u(struct jrd *r, uint32_t o, const char *key,
		 const char *where, uint64_t *out)
{
	uint32_t v = jdoc_get(r->d, o, key);

	if (v == JNONE)
		return dp_fail(r->e, "%s: %s: missing \"%s\"", r->file, where, key);
	return num_u(r, v, where, key, out);
}

/* Optional, 0 when absent: partition and bank (32 bits, as the device). */
static int get_u32(struct jrd *r, uint32_t o, const char *key,
		   const char *where, uint32_t *out)
{
	uint32_t v = jdoc_get(r->d, o, key);
	uint64_t x = 0;

	if (v != JNONE && num_u(r, v, where, key, &x))
		return -1;
	if (x > UINT32_MAX)
		return dp_fail(r->e, "%s: %s.%s: out of range", r->file, where, key);
	*out = x;
	return 0;
}

static int get_b(struct jrd *r, uint32_t o, const char *key,
		 const char *where, uint8_t *out)
{
	uint32_t v;

	if (get(r, o, key, J_TRUE, where, &v))
		return -1;
	*out = jdoc_type(r->d, v) == J_TRUE;
	return 0;
}

/* "region": one of the region names (dp_region_name) */
static int read_region(struct jrd *r, uint32_t o, const char *where,
		       uint8_t *out)
{
	static const char *const regions[] = { "none", "pre", "linked", "cc",
					       "shared", "general" };
	uint32_t v;
	int i;

	if (get(r, o, "region", J_STR, where, &v))
		return -1;
	for (i = 0; i < 6; i++)
		if (!strcmp(jdoc_str(r->d, v), regions[i]))
			break;
	if (i == 6)
		return dp_fail(r->e, "%s: %s.region: unknown region \"%s\"",
			       r->file, where, jdoc_str(r->d, v));
	*out = i;
	return 0;
}

/* "remote" (optional): {"core": C, "name": NAME} of a linked tensor */
static int read_remote(struct jrd *r, uint32_t o, const char *where,
		       struct dp_plan_tensor *t)
{
	uint32_t v = jdoc_get(r->d, o, "remote"), rn;
	uint64_t core;

	if (v == JNONE)
		return 0;
	if (jdoc_type(r->d, v) != J_OBJ)
		return dp_fail(r->e, "%s: %s.remote: must be an object", r->file, where);
	if (get_u(r, v, "core", where, &core) ||
	    get(r, v, "name", J_STR, where, &rn))
		return -1;
	if (core > UINT32_MAX)
		return dp_fail(r->e, "%s: %s.remote.core: out of range", r->file, where);
	t->has_remote = 1;
	t->remote_core = core;
	t->remote_name = dp_strdup(jdoc_str(r->d, rn));
	return t->remote_name ? 0 : dp_nomem(r->e);
}

/* "intervals": [[lo, hi], ...], appended to c->iv (*cap its capacity) */
static int read_intervals(struct jrd *r, uint32_t o, const char *where,
			  struct dp_core_plan *c, size_t *cap,
			  struct dp_plan_tensor *t)
{
	uint32_t ivs;
	size_t q;

	if (get(r, o, "intervals", J_ARR, where, &ivs))
		return -1;
	t->iv_first = c->niv;
	for (q = 0; q < jdoc_len(r->d, ivs); q++) {
		uint32_t pair = jdoc_at(r->d, ivs, q);
		uint64_t lo, hi;
		char w[160];

		snprintf(w, sizeof(w), "%s.intervals[%zu]", where, q);
		if (jdoc_type(r->d, pair) != J_ARR || jdoc_len(r->d, pair) != 2)
			return dp_fail(r->e, "%s: %s: must be [lo, hi] with integers >= 0",
				       r->file, w);
		if (num_u(r, jdoc_at(r->d, pair, 0), w, NULL, &lo) ||
		    num_u(r, jdoc_at(r->d, pair, 1), w, NULL, &hi))
			return -1;
		if (dp_grow(&c->iv, cap, c->niv + 1, sizeof(*c->iv), 64))
			return dp_nomem(r->e);
		c->iv[c->niv].lo = lo;
		c->iv[c->niv].hi = hi;
		c->niv++;
	}
	if (c->niv - t->iv_first > UINT32_MAX)
		return dp_fail(r->e, "%s: %s: too many intervals", r->file, where);
	t->iv_count = c->niv - t->iv_first;
	return 0;
}

static int read_tensor(struct jrd *r, struct dp_core_plan *c, uint32_t o,
		       const char *where, size_t *cap)
{
	struct dp_plan_tensor *t = &c->t[c->n];
	uint32_t v;
	uint64_t x;

	memset(t, 0, sizeof(*t));
	if (jdoc_type(r->d, o) != J_OBJ)
		return dp_fail(r->e, "%s: %s: must be an object", r->file, where);
	if (get(r, o, "name", J_STR, where, &v))
		return -1;
	t->name = dp_strdup(jdoc_str(r->d, v));
	if (!t->name)
		return dp_nomem(r->e);
	c->n++;		/* owned from here on, freed with the plan */
	if (get_u(r, o, "id", where, &x))
		return -1;
	if (x > UINT32_MAX)
		return dp_fail(r->e, "%s: %s.id: out of range", r->file, where);
	t->id = x;
	t->addr = DP_UNSET;
	if (jdoc_get(r->d, o, "address") != JNONE) {
		if (get_u(r, o, "address", where, &t->addr))
			return -1;
		t->placed = 1;
	}
	if (get_u32(r, o, "partition", where, &t->partition) ||
	    get_u32(r, o, "bank", where, &t->bank))
		return -1;
	if (get_u(r, o, "size", where, &t->size) ||
	    get_u(r, o, "bytes", where, &t->bytes) ||
	    get_b(r, o, "collective", where, &t->collective) ||
	    get_b(r, o, "shared", where, &t->shared) ||
	    get_b(r, o, "reads", where, &t->reads) ||
	    get_b(r, o, "writes", where, &t->writes) ||
	    read_region(r, o, where, &t->region) ||
	    read_remote(r, o, where, t))
		return -1;
	return read_intervals(r, o, where, c, cap, t);
}

/* The plan's top level, up to its cores (*cores). */
static int plan_header(struct jrd *r, struct dp_plan *p, uint32_t *cores)
{
	const struct jdoc *d = r->d;
	const char *path = r->file;
	uint32_t root = d->root, v;
	struct dp_err *e = r->e;

	if (jdoc_type(d, root) != J_OBJ)
		return dp_fail(e, "%s: top level: must be an object", path);
	if (get(r, root, "format", J_STR, "top level", &v))
		return -1;
	if (strcmp(jdoc_str(d, v), "dramplan-plan/1"))
		return dp_fail(e, "%s: format: \"%s\" is not \"dramplan-plan/1\"",
			       path, jdoc_str(d, v));
	v = jdoc_get(d, root, "model");
	p->model = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
			     jdoc_str(d, v) : "model");
	v = jdoc_get(d, root, "source");
	p->source = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
			      jdoc_str(d, v) : path);
	if (!p->model || !p->source)
		return dp_nomem(e);
	if (get_u(r, root, "page_size", "top level", &p->page) ||
	    get_u(r, root, "hwm", "top level", &p->hwm) ||
	    get_u(r, root, "floor", "top level", &p->floor) ||
	    get(r, root, "cc", J_OBJ, "top level", &v) ||
	    get_u(r, v, "base", "cc", &p->cc_base) ||
	    get_u(r, v, "limit", "cc", &p->cc_limit) ||
	    get_u(r, v, "size", "cc", &p->cc_size) ||
	    get_u(r, root, "ceiling", "top level", &p->ceiling) ||
	    get(r, root, "cores", J_ARR, "top level", cores))
		return -1;
	if ((v = jdoc_get(d, root, "private_base")) != JNONE &&
	    num_u(r, v, "top level", "private_base", &p->private_base))
		return -1;
	if ((v = jdoc_get(d, root, "shared_region")) != JNONE &&
	    (jdoc_type(d, v) != J_OBJ ||
	     get_u(r, v, "base", "shared_region", &p->shared_base) ||
	     get_u(r, v, "end", "shared_region", &p->shared_end))) {
		if (jdoc_type(d, v) != J_OBJ)
			dp_fail(e, "%s: shared_region: must be an object", path);
		return -1;
	}
	if ((v = jdoc_get(d, root, "dram_shared_mode")) != JNONE) {
		uint64_t mode;

		if (num_u(r, v, "top level", "dram_shared_mode", &mode) ||
		    get_u(r, root, "core_cap", "top level", &p->core_cap))
			return -1;
		if (mode > 1)
			return dp_fail(e, "%s: dram_shared_mode: %llu is not 0 or 1",
				       path, U(mode));
		p->dram_shared_mode = mode;
	}
	return 0;
}

/* Core ci of the plan, from its JSON object co. */
static int read_core(struct jrd *r, uint32_t co, size_t ci,
		     struct dp_core_plan *c)
{
	const struct jdoc *d = r->d;
	const char *path = r->file;
	char where[64];
	size_t k, cap = 0;
	uint32_t v, ts;

	c->core = ci;
	snprintf(where, sizeof(where), "cores[%zu]", ci);
	if (jdoc_type(d, co) != J_OBJ)
		return dp_fail(r->e, "%s: %s: must be an object", path, where);
	v = jdoc_get(d, co, "function");
	c->function = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
				jdoc_str(d, v) : "main");
	if (!c->function)
		return dp_nomem(r->e);
	if ((v = jdoc_get(d, co, "slab")) != JNONE &&
	    (jdoc_type(d, v) != J_OBJ ||
	     get_u(r, v, "base", where, &c->slab_base) ||
	     get_u(r, v, "end", where, &c->slab_end))) {
		if (jdoc_type(d, v) != J_OBJ)
			dp_fail(r->e, "%s: %s.slab: must be an object", path, where);
		return -1;
	}
	if (get(r, co, "tensors", J_ARR, where, &ts))
		return -1;
	c->t = calloc(jdoc_len(d, ts) + 1, sizeof(*c->t));
	if (!c->t)
		return dp_nomem(r->e);
	for (k = 0; k < jdoc_len(d, ts); k++) {
		char tw[96];

		snprintf(tw, sizeof(tw), "%s.tensors[%zu]", where, k);
		if (read_tensor(r, c, jdoc_at(d, ts, k), tw, &cap))
			return -1;
	}
	return 0;
}

/* The tensor of core ci named name (its index in *t), or -1 (e set) */
static int find_tensor(struct jrd *r, const struct dp_plan *p, uint32_t o,
		       const char *where, uint32_t *ci, uint32_t *t)
{
	uint64_t core;
	uint32_t v;
	const char *name;

	if (get_u(r, o, "core", where, &core) ||
	    get(r, o, "tensor", J_STR, where, &v))
		return -1;
	name = jdoc_str(r->d, v);
	if (core >= p->ncores)
		return dp_fail(r->e, "%s: %s: core %llu out of range", r->file,
			       where, U(core));
	*ci = core;
	for (*t = 0; *t < p->core[core].n; (*t)++)
		if (!strcmp(p->core[core].t[*t].name, name))
			return 0;
	return dp_fail(r->e, "%s: %s: core %llu has no tensor '%s'", r->file,
		       where, U(core), name);
}

/* One side ("a" or "b") of an unordered pair */
static int read_side(struct jrd *r, const struct dp_plan *p, uint32_t o,
		     const char *key, const char *where, uint32_t *ci,
		     uint32_t *t, char **inst, uint8_t *w)
{
	uint32_t s, v;

	if (get(r, o, key, J_OBJ, where, &s) ||
	    find_tensor(r, p, s, where, ci, t) ||
	    get(r, s, "inst", J_STR, where, &v))
		return -1;
	*inst = dp_strdup(jdoc_str(r->d, v));
	if (!*inst)
		return dp_nomem(r->e);
	if (get(r, s, "writes", J_TRUE, where, &v))
		return -1;
	*w = jdoc_type(r->d, v) == J_TRUE;
	return 0;
}

static int read_unordered(struct jrd *r, struct dp_plan *p, uint32_t arr)
{
	size_t i, n;

	if (jrd_type(r, arr, J_ARR, "top level", "unordered", NULL))
		return -1;
	n = jdoc_len(r->d, arr);
	p->uo = calloc(n ? n : 1, sizeof(*p->uo));
	if (!p->uo)
		return dp_nomem(r->e);
	for (i = 0; i < n; i++) {
		struct dp_unordered *u = &p->uo[p->nuo++];
		uint32_t o = jdoc_at(r->d, arr, i);
		char w[48];

		snprintf(w, sizeof(w), "unordered[%zu]", i);
		if (jrd_type(r, o, J_OBJ, w, NULL, NULL) ||
		    read_side(r, p, o, "a", w, &u->core_a, &u->ta, &u->inst_a,
			      &u->a_writes) ||
		    read_side(r, p, o, "b", w, &u->core_b, &u->tb, &u->inst_b,
			      &u->b_writes) ||
		    get_u(r, o, "lo", w, &u->lo) || get_u(r, o, "hi", w, &u->hi))
			return -1;
	}
	return 0;
}

/* One event's "signal" or "wait" sites */
static int read_sites(struct jrd *r, struct dp_plan *p, uint32_t o,
		      const char *key, const char *where, size_t *cap)
{
	uint32_t arr, v;
	size_t i;

	if (get(r, o, key, J_ARR, where, &arr))
		return -1;
	for (i = 0; i < jdoc_len(r->d, arr); i++) {
		uint32_t s = jdoc_at(r->d, arr, i);
		struct dp_event_site *es;
		uint64_t core;

		if (jrd_type(r, s, J_OBJ, where, key, NULL) ||
		    get_u(r, s, "core", where, &core) ||
		    get(r, s, "inst", J_STR, where, &v))
			return -1;
		if (core >= p->ncores)
			return dp_fail(r->e, "%s: %s: core %llu out of range",
				       r->file, where, U(core));
		if (dp_grow(&p->es, cap, p->nes + 1, sizeof(*p->es), 8))
			return dp_nomem(r->e);
		es = &p->es[p->nes];
		*es = (struct dp_event_site){ core, dp_strdup(jdoc_str(r->d, v)),
					      key[0] == 's' };
		if (!es->inst)
			return dp_nomem(r->e);
		p->nes++;
		p->ev[p->nev - 1].n++;
	}
	return 0;
}

/* "events" and "unordered": both or neither (a model without order) */
static int read_order(struct jrd *r, struct dp_plan *p)
{
	uint32_t evs = jdoc_get(r->d, r->d->root, "events");
	uint32_t uo = jdoc_get(r->d, r->d->root, "unordered");
	size_t i, cap = 0;

	if (evs == JNONE && uo == JNONE)
		return 0;
	if (evs == JNONE || uo == JNONE)
		return dp_fail(r->e, "%s: top level: \"events\" and \"unordered\" go together",
			       r->file);
	p->ordered = 1;
	if (jrd_type(r, evs, J_ARR, "top level", "events", NULL))
		return -1;
	p->ev = calloc(jdoc_len(r->d, evs) + 1, sizeof(*p->ev));
	if (!p->ev)
		return dp_nomem(r->e);
	for (i = 0; i < jdoc_len(r->d, evs); i++) {
		uint32_t o = jdoc_at(r->d, evs, i), v;
		char w[48];

		snprintf(w, sizeof(w), "events[%zu]", i);
		if (jrd_type(r, o, J_OBJ, w, NULL, NULL) ||
		    get(r, o, "name", J_STR, w, &v))
			return -1;
		p->ev[p->nev].first = p->nes;
		p->ev[p->nev].name = dp_strdup(jdoc_str(r->d, v));
		if (!p->ev[p->nev++].name)
			return dp_nomem(r->e);
		if (read_sites(r, p, o, "signal", w, &cap) ||
		    read_sites(r, p, o, "wait", w, &cap))
			return -1;
	}
	return read_unordered(r, p, uo);
}

/* A jdoc_from_fn: the plan, or NULL. */
static void *plan_from(const struct jdoc *d, const char *path,
		       struct dp_err *e)
{
	struct jrd r = { .d = d, .file = path, .e = e };
	struct dp_plan *p;
	uint32_t cores;
	size_t ci, n;

	p = calloc(1, sizeof(*p));
	if (!p) {
		dp_nomem(e);
		return NULL;
	}
	if (plan_header(&r, p, &cores))
		goto fail;
	n = jdoc_len(d, cores);
	p->core = calloc(n ? n : 1, sizeof(*p->core));
	if (!p->core) {
		dp_nomem(e);
		goto fail;
	}
	p->ncores = n;
	for (ci = 0; ci < p->ncores; ci++)
		if (read_core(&r, jdoc_at(d, cores, ci), ci, &p->core[ci]))
			goto fail;
	if (dp_plan_totals(p)) {
		dp_nomem(e);
		goto fail;
	}
	/* the pair list when the plan has one (--hazard-pairs) */
	if (dp_plan_hazards(p, jdoc_get(d, d->root, "hazards") != JNONE, e) ||
	    read_order(&r, p))
		goto fail;
	return p;
fail:
	dp_plan_free(p);
	return NULL;
}

struct dp_plan *dp_plan_load_json(const char *path, struct dp_err *e)
{
	return jdoc_load_with(path, plan_from, e);
}

struct dp_plan *dp_plan_parse_json(const char *file, const char *text,
				   size_t len, struct dp_err *e)
{
	return jdoc_parse_with(file, text, len, plan_from, e);
}
