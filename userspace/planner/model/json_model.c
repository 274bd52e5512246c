// SPDX-License-Identifier: GPL-2.0
/*
 * json_model.c - the model file, read strictly (jdoc.c, on yajl).
 *
 * Malformed JSON (and duplicate keys, NUL in strings, invalid UTF-8) is
 * reported as file:line:column;
 * schema and semantic errors name the file and the JSON path of the
 * offending value (cores[0].blocks[1].insts[2].uses[0]) and the tensor.
 * Unknown keys are errors, so a typo never silently drops a field.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/jdoc.h"
#include "internal.h"

/* snprintf for JSON paths: a long path is cut, never an error. */
static void pathf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

struct jp {
	struct jrd r;		/* the document, the file, the error */
	struct dp_model *m;
};

static int check_keys(struct jp *p, uint32_t o, const char *where,
		      const char *const *allowed)
{
	uint32_t i;

	for (i = 0; i < jdoc_len(p->r.d, o); i++) {
		const char *key = jdoc_key(p->r.d, o, i);
		const char *const *a;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a) {
			char list[256] = "";

			for (a = allowed; *a; a++) {
				strncat(list, *a, sizeof(list) - strlen(list) - 3);
				if (a[1])
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			}
			return dp_fail(p->r.e, "%s: %s: unknown key \"%s\" (allowed: %s)",
				       p->r.file, where, key, list);
		}
	}
	return 0;
}

static int need_type(struct jp *p, uint32_t o, enum jtype ty,
		     const char *where, const char *what)
{
	return jrd_type(&p->r, o, ty, where, NULL, what);
}

/* Exact: the whole u64 range, nothing saturates. */
static int get_u64(struct jp *p, uint32_t o, const char *where, uint64_t *out)
{
	return jrd_u64(&p->r, o, where, NULL,
		       "sizes and addresses must be >= 0", out);
}

/* partition, bank: 0 .. 2^32-1 (the device's __u32 fields). */
static int get_u32(struct jp *p, uint32_t o, const char *where,
		   const char *key, uint32_t *out)
{
	uint64_t x;

	if (jrd_u64(&p->r, o, where, key, "partition and bank are >= 0", &x))
		return -1;
	if (x > UINT32_MAX)
		return dp_fail(p->r.e, "%s: %s.%s: %llu out of range (0 .. 4294967295)",
			       p->r.file, where, key, (unsigned long long)x);
	*out = x;
	return 0;
}

/* A positive size: elems or elem_size. */
static int get_size(struct jp *p, uint32_t o, const char *where,
		    const char *what, uint64_t *out)
{
	int rc = jdoc_u64(p->r.d, o, out);

	if ((rc == 0 && *out == 0) || rc == -2)
		return dp_fail(p->r.e, "%s: %s: %s %s: zero or negative size (elems and elem_size must be positive)",
			       p->r.file, where, what, jdoc_str(p->r.d, o));
	return get_u64(p, o, where, out);
}

static int get_bool(struct jp *p, uint32_t o, const char *where,
		    const char *what, int *out)
{
	if (need_type(p, o, J_TRUE, where, what))
		return -1;
	*out = jdoc_type(p->r.d, o) == J_TRUE;
	return 0;
}

static int get_str(struct jp *p, uint32_t o, const char *where,
		   const char **out)
{
	if (need_type(p, o, J_STR, where, "a string"))
		return -1;
	*out = jdoc_str(p->r.d, o);
	return 0;
}

static int lookup_enum(struct jp *p, uint32_t o, const char *where,
		       const char *const *names, int n, int *out)
{
	const char *s;
	int i;

	if (get_str(p, o, where, &s))
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return dp_fail(p->r.e, "%s: %s: unknown value \"%s\"", p->r.file, where, s);
}

/*
 * The member key of o, one of names[0..n), as its index into *out; a
 * missing one is an error that lists the names
 */
static int need_enum(struct jp *p, uint32_t o, const char *where,
		     const char *key, const char *const *names, int n, int *out)
{
	uint32_t v = jdoc_get(p->r.d, o, key);
	char list[256] = "";
	size_t len = 0;
	int i;

	if (v != JNONE)
		return lookup_enum(p, v, where, names, n, out);
	for (i = 0; i < n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? ", " : "", names[i]);
	return dp_fail(p->r.e, "%s: %s: missing \"%s\" (%s)", p->r.file, where,
		       key, list);
}

#define GET(o, key) ((v = jdoc_get(p->r.d, (o), (key))) != JNONE)

static int parse_tensor(struct jp *p, struct dp_core *c, uint32_t o,
			const char *where)
{
	static const char *const keys[] = { "name", "elems", "elem_size",
		"memory", "usage", "address", "shared", "remote", "partition",
		"bank", NULL };
	static const char *const mems[] = { "dram", "sbuf", "psum" };
	static const char *const uses[] = { "spill", "internal", "input",
					     "output", "weight" };
	struct dp_tensor_spec s = { .mem = DP_MEM_DRAM, .usage = DP_USE_SPILL };
	uint32_t v;
	char w[256];
	int en = 0;

	if (need_type(p, o, J_OBJ, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (!GET(o, "name"))
		return dp_fail(p->r.e, "%s: %s: missing \"name\"", p->r.file, where);
	pathf(w, sizeof(w), "%s.name", where);
	if (get_str(p, v, w, &s.name))
		return -1;
	pathf(w, sizeof(w), "%s '%s'", where, s.name);
	where = w;
	if (!GET(o, "elems"))
		return dp_fail(p->r.e, "%s: %s: missing \"elems\"", p->r.file, where);
	if (get_size(p, v, where, "elems", &s.elems))
		return -1;
	if (!GET(o, "elem_size"))
		return dp_fail(p->r.e, "%s: %s: missing \"elem_size\"", p->r.file, where);
	if (get_size(p, v, where, "elem_size", &s.elem_size))
		return -1;
	if (GET(o, "memory")) {
		if (lookup_enum(p, v, where, mems, 3, &en))
			return -1;
		s.mem = en;
	}
	if (GET(o, "usage")) {
		if (lookup_enum(p, v, where, uses, 5, &en))
			return -1;
		s.usage = en;
	}
	if (GET(o, "address")) {
		if (get_u64(p, v, where, &s.addr))
			return -1;
		s.has_addr = 1;
	}
	if (GET(o, "partition") && get_u32(p, v, where, "partition", &s.partition))
		return -1;
	if (GET(o, "bank") && get_u32(p, v, where, "bank", &s.bank))
		return -1;
	if (GET(o, "shared") &&
	    get_bool(p, v, where, "\"shared\" must be true or false", &s.shared))
		return -1;
	if (GET(o, "remote")) {
		static const char *const rkeys[] = { "core", "name", NULL };
		uint32_t rc, rn;
		uint64_t core;
		char rw[300];

		pathf(rw, sizeof(rw), "%s.remote", where);
		if (need_type(p, v, J_OBJ, rw, "an object {\"core\": N, \"name\": \"...\"}") ||
		    check_keys(p, v, rw, rkeys))
			return -1;
		rc = jdoc_get(p->r.d, v, "core");
		rn = jdoc_get(p->r.d, v, "name");
		if (rc == JNONE || rn == JNONE)
			return dp_fail(p->r.e, "%s: %s: remote target needs \"core\" and \"name\"",
				       p->r.file, rw);
		if (get_u64(p, rc, rw, &core) || get_str(p, rn, rw, &s.remote_name))
			return -1;
		if (core > UINT32_MAX)
			return dp_fail(p->r.e, "%s: %s: core out of range", p->r.file, rw);
		s.remote_core = core;
		s.has_remote = 1;
	}
	return dp_tensor_add(p->m, c, &s, where, p->r.e) < 0 ? -1 : 0;
}

static int name_list(struct jp *p, struct dp_core *c, uint32_t o,
		     const char *where, const char *kind, uint32_t **out,
		     uint32_t *n)
{
	size_t i, len;

	if (need_type(p, o, J_ARR, where, "an array of tensor names"))
		return -1;
	len = jdoc_len(p->r.d, o);
	*out = dp_realloc_array(NULL, len, sizeof(**out));
	if (!*out)
		return dp_nomem(p->r.e);
	*n = len;
	for (i = 0; i < len; i++) {
		uint32_t v = jdoc_at(p->r.d, o, i);
		char w[300];
		const char *s;
		int64_t ti;

		pathf(w, sizeof(w), "%s.%s[%zu]", where, kind, i);
		if (get_str(p, v, w, &s))
			return -1;
		ti = dp_tensor_find(c, s);
		if (ti < 0)
			return dp_fail(p->r.e, "%s: %s: unknown tensor '%s' (every def and use must name a tensor declared in core %u's \"tensors\")",
				       p->r.file, w, s, c->index);
		(*out)[i] = ti;
	}
	return 0;
}

/* "wait" or "signal": an array of event names, into *out (freed by the
 * caller) */
static int event_list(struct jp *p, uint32_t o, const char *where,
		      const char *kind, const char ***out, uint32_t *n)
{
	uint32_t i, len;

	if (jrd_type(&p->r, o, J_ARR, where, kind, "an array of event names"))
		return -1;
	len = jdoc_len(p->r.d, o);
	*out = dp_realloc_array(NULL, len ? len : 1, sizeof(**out));
	if (!*out)
		return dp_nomem(p->r.e);
	for (i = 0; i < len; i++) {
		char w[400];

		pathf(w, sizeof(w), "%s.%s[%u]", where, kind, i);
		if (get_str(p, jdoc_at(p->r.d, o, i), w, &(*out)[i]))
			return -1;
	}
	*n = len;
	return 0;
}

/* The instruction's "wait" and "signal" (either may be absent) */
static int parse_events(struct jp *p, struct dp_core *c, uint32_t o,
			const char *where)
{
	uint32_t w = jdoc_get(p->r.d, o, "wait");
	uint32_t s = jdoc_get(p->r.d, o, "signal");
	const char **wl = NULL, **sl = NULL;
	uint32_t nw = 0, ns = 0;
	int rc = -1;

	if (w == JNONE && s == JNONE)
		return 0;
	if ((w == JNONE || !event_list(p, w, where, "wait", &wl, &nw)) &&
	    (s == JNONE || !event_list(p, s, where, "signal", &sl, &ns)))
		rc = dp_inst_sync(p->m, c, wl, nw, sl, ns, where, p->r.e);
	free(wl);
	free(sl);
	return rc;
}

/* The collective's "cores": an array of core indices (at most 4096) */
static int coll_cores(struct jp *p, uint32_t o, const char *where,
		      uint32_t *cores, uint32_t *n)
{
	uint32_t i, len;

	if (jrd_type(&p->r, o, J_ARR, where, "cores", "an array of core indices"))
		return -1;
	len = jdoc_len(p->r.d, o);
	if (len > 4096)
		return dp_fail(p->r.e, "%s: %s.cores: more than 4096 cores",
			       p->r.file, where);
	for (i = 0; i < len; i++) {
		uint64_t x;

		if (jrd_u64(&p->r, jdoc_at(p->r.d, o, i), where, "cores",
			    "core indices are >= 0", &x))
			return -1;
		if (x > UINT32_MAX)
			return dp_fail(p->r.e, "%s: %s.cores[%u]: out of range",
				       p->r.file, where, i);
		cores[i] = x;
	}
	*n = len;
	return 0;
}

/*
 * "collective": true (the old form: an operand of the CC buffer, no
 * order), or {"kind", "reduction", "type", "cores"}.  *coll: the flag for
 * dp_inst_add; *spec_at: the object, for after it (JNONE: none).
 */
static int parse_coll_flag(struct jp *p, uint32_t v, const char *where,
			   int *coll, uint32_t *spec_at)
{
	*spec_at = JNONE;
	if (jdoc_type(p->r.d, v) == J_OBJ) {
		*coll = 1;
		*spec_at = v;
		return 0;
	}
	return get_bool(p, v, where, "\"collective\" must be true, false or an object {\"kind\", \"reduction\", \"type\", \"cores\"}",
			coll);
}

static int parse_coll(struct jp *p, struct dp_core *c, uint32_t o,
		      const char *where)
{
	static const char *const keys[] = { "kind", "reduction", "type",
					    "cores", NULL };
	static const char *const kinds[] = { "all_reduce", "reduce_scatter",
					     "all_gather" };
	static const char *const ops[] = { "sum", "max" };
	static const char *const types[] = { "f32", "bf16", "f16", "i32" };
	struct dp_coll_spec s = { 0 };
	uint32_t cores[4096], v;
	char w[400];

	pathf(w, sizeof(w), "%s.collective", where);
	if (check_keys(p, o, w, keys))
		return -1;
	if (need_enum(p, o, w, "kind", kinds, 3, &s.kind))
		return -1;
	s.kind++;
	if (GET(o, "reduction") != (s.kind != DP_COLL_ALL_GATHER))
		return dp_fail(p->r.e, "%s: %s: %s", p->r.file, w,
			       s.kind == DP_COLL_ALL_GATHER ?
			       "an all_gather takes no \"reduction\"" :
			       "missing \"reduction\" (sum, max)");
	if (s.kind != DP_COLL_ALL_GATHER && lookup_enum(p, v, w, ops, 2, &s.op))
		return -1;
	if (need_enum(p, o, w, "type", types, 4, &s.type))
		return -1;
	if (!GET(o, "cores"))
		return dp_fail(p->r.e, "%s: %s: missing \"cores\"", p->r.file, w);
	if (coll_cores(p, v, w, cores, &s.ncores))
		return -1;
	s.cores = cores;
	return dp_inst_coll(p->m, c, &s, w, p->r.e);
}

static int parse_inst(struct jp *p, struct dp_core *c, uint32_t bi,
		      uint32_t o, const char *where)
{
	static const char *const keys[] = { "name", "defs", "uses",
					    "collective", "wait", "signal",
					    "compute_ns", NULL };
	uint32_t spec = JNONE;
	uint64_t compute = 0;
	char iw[600];
	uint32_t v;
	uint32_t *defs = NULL, *uses = NULL, nd = 0, nu = 0;
	const char *name = "";
	int coll = 0, rc = -1;

	if (need_type(p, o, J_OBJ, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (GET(o, "name") && get_str(p, v, where, &name))
		return -1;
	if (GET(o, "collective") && parse_coll_flag(p, v, where, &coll, &spec))
		return -1;
	if (GET(o, "compute_ns") && jrd_u64(&p->r, v, where, NULL,
					      "\"compute_ns\" must be an integer >= 0", &compute))
		return -1;
	if (GET(o, "defs") && name_list(p, c, v, where, "defs", &defs, &nd))
		goto out;
	if (GET(o, "uses") && name_list(p, c, v, where, "uses", &uses, &nu))
		goto out;
	rc = dp_inst_add(p->m, c, bi, name, defs, nd, uses, nu, coll, where, p->r.e);
	if (!rc)
		c->in[c->ni - 1].compute_ns = compute;
	pathf(iw, sizeof(iw), "%s '%s'", where, name);
	if (!rc)
		rc = parse_events(p, c, o, iw);
	if (!rc && spec != JNONE)
		rc = parse_coll(p, c, spec, iw);
out:
	free(defs);
	free(uses);
	return rc;
}

/* Core c's "tensors", an array. */
static int parse_tensors(struct jp *p, struct dp_core *c, uint32_t o,
			 const char *where)
{
	uint32_t tensors;
	size_t i;

	if ((tensors = jdoc_get(p->r.d, o, "tensors")) == JNONE)
		return dp_fail(p->r.e, "%s: %s: missing \"tensors\"", p->r.file, where);
	if (need_type(p, tensors, J_ARR, where, "\"tensors\" must be an array"))
		return -1;
	for (i = 0; i < jdoc_len(p->r.d, tensors); i++) {
		char w[256];

		pathf(w, sizeof(w), "%s.tensors[%zu]", where, i);
		if (parse_tensor(p, c, jdoc_at(p->r.d, tensors, i), w))
			return -1;
	}
	return 0;
}

/* Pass 1 over the blocks: their names, so successors can point forward. */
static int block_names(struct jp *p, struct dp_core *c, uint32_t blocks,
		       const char *where)
{
	static const char *const bkeys[] = { "name", "succ", "insts", NULL };
	size_t i, nb = jdoc_len(p->r.d, blocks);
	uint32_t v;

	for (i = 0; i < nb; i++) {
		uint32_t b = jdoc_at(p->r.d, blocks, i);
		const char *name;
		char w[256];

		pathf(w, sizeof(w), "%s.blocks[%zu]", where, i);
		if (need_type(p, b, J_OBJ, w, "an object") ||
		    check_keys(p, b, w, bkeys))
			return -1;
		if (!GET(b, "name"))
			return dp_fail(p->r.e, "%s: %s: missing \"name\"", p->r.file, w);
		if (get_str(p, v, w, &name) || dp_block_add(p->m, c, name, w, p->r.e) < 0)
			return -1;
	}
	return 0;
}

/* Block i's successors ("succ"), by name. */
static int block_succ(struct jp *p, struct dp_core *c, size_t i,
		      uint32_t succ, const char *w)
{
	size_t j;

	if (need_type(p, succ, J_ARR, w, "\"succ\" must be an array of block names"))
		return -1;
	for (j = 0; j < jdoc_len(p->r.d, succ); j++) {
		uint32_t s = jdoc_at(p->r.d, succ, j);
		const char *sn;
		char sw[300];
		int64_t si;

		pathf(sw, sizeof(sw), "%s.succ[%zu]", w, j);
		if (get_str(p, s, sw, &sn))
			return -1;
		si = dp_block_find(c, sn);
		if (si < 0)
			return dp_fail(p->r.e, "%s: %s: unknown block '%s' (successors must name a block of the same function)",
				       p->r.file, sw, sn);
		if (dp_succ_add(c, i, si, p->r.e))
			return -1;
	}
	return 0;
}

/* Pass 2 for block i (JSON b): its instructions, then its successors. */
static int block_body(struct jp *p, struct dp_core *c, size_t i, uint32_t b,
		      const char *where)
{
	uint32_t insts, succ;
	char w[256];
	size_t j;

	pathf(w, sizeof(w), "%s.blocks[%zu] '%s'", where, i, c->b[i].name);
	if ((insts = jdoc_get(p->r.d, b, "insts")) != JNONE) {
		if (need_type(p, insts, J_ARR, w, "\"insts\" must be an array"))
			return -1;
		for (j = 0; j < jdoc_len(p->r.d, insts); j++) {
			char iw[300];

			pathf(iw, sizeof(iw), "%s.insts[%zu]", w, j);
			if (parse_inst(p, c, i, jdoc_at(p->r.d, insts, j), iw))
				return -1;
		}
	}
	if ((succ = jdoc_get(p->r.d, b, "succ")) != JNONE)
		return block_succ(p, c, i, succ, w);
	return 0;
}

static int parse_core(struct jp *p, uint32_t o, uint32_t ci)
{
	static const char *const keys[] = { "core", "function", "tensors",
					    "blocks", NULL };
	uint32_t v, blocks;
	struct dp_core *c;
	const char *fn = "main";
	char where[256];
	size_t i, nb;

	pathf(where, sizeof(where), "cores[%u]", ci);
	if (need_type(p, o, J_OBJ, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (GET(o, "core")) {
		uint64_t idx;

		if (get_u64(p, v, where, &idx))
			return -1;
		if (idx != ci)
			return dp_fail(p->r.e, "%s: %s: \"core\": %llu but this is core %u (cores are listed in order)",
				       p->r.file, where, (unsigned long long)idx, ci);
	}
	if (GET(o, "function") && get_str(p, v, where, &fn))
		return -1;
	c = dp_core_add(p->m, fn, p->r.e);
	if (!c || parse_tensors(p, c, o, where))
		return -1;
	if ((blocks = jdoc_get(p->r.d, o, "blocks")) == JNONE)
		return dp_fail(p->r.e, "%s: %s: missing \"blocks\"", p->r.file, where);
	if (need_type(p, blocks, J_ARR, where, "\"blocks\" must be an array"))
		return -1;
	nb = jdoc_len(p->r.d, blocks);
	if (!nb)
		return dp_fail(p->r.e, "%s: %s: no blocks (a function needs an entry block)",
			       p->r.file, where);
	if (block_names(p, c, blocks, where))
		return -1;
	for (i = 0; i < nb; i++)
		if (block_body(p, c, i, jdoc_at(p->r.d, blocks, i), where))
			return -1;
	return 0;
}

/* A jdoc_from_fn: the model, or NULL. */
static void *model_from(const struct jdoc *d, const char *file,
			struct dp_err *e)
{
	static const char *const keys[] = { "model", "format", "cores", NULL };
	struct jp p = { .r = { .d = d, .file = file, .e = e } };
	const char *name = "model";
	uint32_t root = d->root, cores, v;
	size_t i;

	if (jdoc_type(d, root) != J_OBJ) {
		dp_fail(e, "%s: top level: must be an object with \"cores\"", file);
		return NULL;
	}
	if (check_keys(&p, root, "top level", keys))
		return NULL;
	if ((v = jdoc_get(d, root, "model")) != JNONE && get_str(&p, v, "model", &name))
		return NULL;
	if ((v = jdoc_get(d, root, "format")) != JNONE) {
		const char *fmt;

		if (get_str(&p, v, "format", &fmt))
			return NULL;
		if (strcmp(fmt, "dramplan-model/1")) {
			dp_fail(e, "%s: format: \"%s\" is not \"dramplan-model/1\"", file, fmt);
			return NULL;
		}
	}
	cores = jdoc_get(d, root, "cores");
	if (cores == JNONE || jdoc_type(d, cores) != J_ARR || !jdoc_len(d, cores)) {
		dp_fail(e, "%s: top level: \"cores\" must be a non-empty array", file);
		return NULL;
	}
	p.m = dp_model_new(file, name);
	if (!p.m) {
		dp_nomem(e);
		return NULL;
	}
	for (i = 0; i < jdoc_len(d, cores); i++)
		if (parse_core(&p, jdoc_at(d, cores, i), i))
			goto fail;
	if (dp_model_link(p.m, e))
		goto fail;
	return p.m;
fail:
	dp_model_free(p.m);
	return NULL;
}

struct dp_model *dp_model_parse_json(const char *file, const char *text,
				     size_t len, struct dp_err *e)
{
	return jdoc_parse_with(file, text, len, model_from, e);
}

struct dp_model *dp_model_load_json(const char *path, struct dp_err *e)
{
	return jdoc_load_with(path, model_from, e);
}
