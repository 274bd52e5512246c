// SPDX-License-Identifier: GPL-2.0
/*
 * json_model.c - the model file, read with json-c.
 *
 * Malformed JSON is reported as file:line:column from the tokener's offset;
 * schema and semantic errors name the file and the JSON path of the
 * offending value (cores[0].blocks[1].insts[2].uses[0]) and the tensor.
 * Unknown keys are errors, so a typo never silently drops a field.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dramplan.h"

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
	struct dp_model *m;
	struct dp_err *e;
	const char *file;
};

static void line_col(const char *text, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int check_keys(struct jp *p, struct json_object *o, const char *where,
		      const char *const *allowed)
{
	json_object_object_foreach(o, key, val) {
		const char *const *a;

		(void)val;
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
			return dp_fail(p->e, "%s: %s: unknown key \"%s\" (allowed: %s)",
				       p->file, where, key, list);
		}
	}
	return 0;
}

static int need_type(struct jp *p, struct json_object *o, json_type ty,
		     const char *where, const char *what)
{
	if (!json_object_is_type(o, ty))
		return dp_fail(p->e, "%s: %s: must be %s", p->file, where, what);
	return 0;
}

static int get_u64(struct jp *p, struct json_object *o, const char *where,
		   uint64_t *out)
{
	int64_t v;

	if (!json_object_is_type(o, json_type_int))
		return dp_fail(p->e, "%s: %s: must be an integer", p->file, where);
	errno = 0;
	v = json_object_get_int64(o);
	if (v < 0)
		return dp_fail(p->e, "%s: %s: negative value %lld (sizes and addresses must be >= 0)",
			       p->file, where, (long long)v);
	if (v == INT64_MAX && errno == ERANGE)
		return dp_fail(p->e, "%s: %s: integer out of range", p->file, where);
	/* json-c saturates values above INT64_MAX to INT64_MAX */
	*out = (uint64_t)v;
	return 0;
}

static int get_str(struct jp *p, struct json_object *o, const char *where,
		   const char **out)
{
	if (need_type(p, o, json_type_string, where, "a string"))
		return -1;
	*out = json_object_get_string(o);
	return 0;
}

static int lookup_enum(struct jp *p, struct json_object *o, const char *where,
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
	return dp_fail(p->e, "%s: %s: unknown value \"%s\"", p->file, where, s);
}

static int parse_tensor(struct jp *p, struct dp_core *c,
			struct json_object *o, const char *where)
{
	static const char *const keys[] = { "name", "elems", "elem_size",
		"memory", "usage", "address", "shared", "remote", NULL };
	static const char *const mems[] = { "dram", "sbuf", "psum" };
	static const char *const uses[] = { "spill", "internal", "input",
					     "output", "weight" };
	struct dp_tensor_spec s = { .mem = DP_MEM_DRAM, .usage = DP_USE_SPILL };
	struct json_object *v;
	char w[256];
	int en = 0;

	if (need_type(p, o, json_type_object, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (!json_object_object_get_ex(o, "name", &v))
		return dp_fail(p->e, "%s: %s: missing \"name\"", p->file, where);
	pathf(w, sizeof(w), "%s.name", where);
	if (get_str(p, v, w, &s.name))
		return -1;
	pathf(w, sizeof(w), "%s '%s'", where, s.name);
	where = w;
	if (!json_object_object_get_ex(o, "elems", &v))
		return dp_fail(p->e, "%s: %s: missing \"elems\"", p->file, where);
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) <= 0)
		return dp_fail(p->e, "%s: %s: elems %lld: zero or negative size (elems and elem_size must be positive)",
			       p->file, where, (long long)json_object_get_int64(v));
	if (get_u64(p, v, where, &s.elems))
		return -1;
	if (!json_object_object_get_ex(o, "elem_size", &v))
		return dp_fail(p->e, "%s: %s: missing \"elem_size\"", p->file, where);
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) <= 0)
		return dp_fail(p->e, "%s: %s: elem_size %lld: zero or negative size (elems and elem_size must be positive)",
			       p->file, where, (long long)json_object_get_int64(v));
	if (get_u64(p, v, where, &s.elem_size))
		return -1;
	if (json_object_object_get_ex(o, "memory", &v)) {
		if (lookup_enum(p, v, where, mems, 3, &en))
			return -1;
		s.mem = en;
	}
	if (json_object_object_get_ex(o, "usage", &v)) {
		if (lookup_enum(p, v, where, uses, 5, &en))
			return -1;
		s.usage = en;
	}
	if (json_object_object_get_ex(o, "address", &v)) {
		if (get_u64(p, v, where, &s.addr))
			return -1;
		s.has_addr = 1;
	}
	if (json_object_object_get_ex(o, "shared", &v)) {
		if (need_type(p, v, json_type_boolean, where,
			      "\"shared\" must be true or false"))
			return -1;
		s.shared = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "remote", &v)) {
		static const char *const rkeys[] = { "core", "name", NULL };
		struct json_object *rc, *rn;
		uint64_t core;
		char rw[300];

		pathf(rw, sizeof(rw), "%s.remote", where);
		if (need_type(p, v, json_type_object, rw, "an object {\"core\": N, \"name\": \"...\"}") ||
		    check_keys(p, v, rw, rkeys))
			return -1;
		if (!json_object_object_get_ex(v, "core", &rc) ||
		    !json_object_object_get_ex(v, "name", &rn))
			return dp_fail(p->e, "%s: %s: remote target needs \"core\" and \"name\"",
				       p->file, rw);
		if (get_u64(p, rc, rw, &core) || get_str(p, rn, rw, &s.remote_name))
			return -1;
		if (core > UINT32_MAX)
			return dp_fail(p->e, "%s: %s: core out of range", p->file, rw);
		s.remote_core = core;
		s.has_remote = 1;
	}
	return dp_tensor_add(p->m, c, &s, where, p->e) < 0 ? -1 : 0;
}

static int name_list(struct jp *p, struct dp_core *c, struct json_object *o,
		     const char *where, const char *kind, uint32_t **out,
		     uint32_t *n)
{
	size_t i, len;

	if (need_type(p, o, json_type_array, where, "an array of tensor names"))
		return -1;
	len = json_object_array_length(o);
	*out = dp_xrealloc(NULL, len, sizeof(**out));
	*n = len;
	for (i = 0; i < len; i++) {
		struct json_object *v = json_object_array_get_idx(o, i);
		char w[300];
		const char *s;
		int64_t ti;

		pathf(w, sizeof(w), "%s.%s[%zu]", where, kind, i);
		if (get_str(p, v, w, &s))
			return -1;
		ti = dp_tensor_find(c, s);
		if (ti < 0)
			return dp_fail(p->e, "%s: %s: unknown tensor '%s' (every def and use must name a tensor declared in core %u's \"tensors\")",
				       p->file, w, s, c->index);
		(*out)[i] = ti;
	}
	return 0;
}

static int parse_inst(struct jp *p, struct dp_core *c, uint32_t bi,
		      struct json_object *o, const char *where)
{
	static const char *const keys[] = { "name", "defs", "uses",
					    "collective", NULL };
	struct json_object *v;
	uint32_t *defs = NULL, *uses = NULL, nd = 0, nu = 0;
	const char *name = "";
	int coll = 0, rc = -1;

	if (need_type(p, o, json_type_object, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (json_object_object_get_ex(o, "name", &v) && get_str(p, v, where, &name))
		return -1;
	if (json_object_object_get_ex(o, "collective", &v)) {
		if (need_type(p, v, json_type_boolean, where,
			      "\"collective\" must be true or false"))
			return -1;
		coll = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "defs", &v) &&
	    name_list(p, c, v, where, "defs", &defs, &nd))
		goto out;
	if (json_object_object_get_ex(o, "uses", &v) &&
	    name_list(p, c, v, where, "uses", &uses, &nu))
		goto out;
	rc = dp_inst_add(p->m, c, bi, name, defs, nd, uses, nu, coll, where, p->e);
out:
	free(defs);
	free(uses);
	return rc;
}

static int parse_core(struct jp *p, struct json_object *o, uint32_t ci)
{
	static const char *const keys[] = { "core", "function", "tensors",
					    "blocks", NULL };
	static const char *const bkeys[] = { "name", "succ", "insts", NULL };
	struct json_object *v, *tensors, *blocks;
	struct dp_core *c;
	const char *fn = "main";
	char where[256];
	size_t i, j, nb;

	pathf(where, sizeof(where), "cores[%u]", ci);
	if (need_type(p, o, json_type_object, where, "an object") ||
	    check_keys(p, o, where, keys))
		return -1;
	if (json_object_object_get_ex(o, "core", &v)) {
		uint64_t idx;

		if (get_u64(p, v, where, &idx))
			return -1;
		if (idx != ci)
			return dp_fail(p->e, "%s: %s: \"core\": %llu but this is core %u (cores are listed in order)",
				       p->file, where, (unsigned long long)idx, ci);
	}
	if (json_object_object_get_ex(o, "function", &v) && get_str(p, v, where, &fn))
		return -1;
	c = dp_core_add(p->m, fn, p->e);
	if (!c)
		return -1;
	if (!json_object_object_get_ex(o, "tensors", &tensors))
		return dp_fail(p->e, "%s: %s: missing \"tensors\"", p->file, where);
	if (need_type(p, tensors, json_type_array, where, "\"tensors\" must be an array"))
		return -1;
	for (i = 0; i < json_object_array_length(tensors); i++) {
		char w[256];

		pathf(w, sizeof(w), "%s.tensors[%zu]", where, i);
		if (parse_tensor(p, c, json_object_array_get_idx(tensors, i), w))
			return -1;
	}
	if (!json_object_object_get_ex(o, "blocks", &blocks))
		return dp_fail(p->e, "%s: %s: missing \"blocks\"", p->file, where);
	if (need_type(p, blocks, json_type_array, where, "\"blocks\" must be an array"))
		return -1;
	nb = json_object_array_length(blocks);
	if (!nb)
		return dp_fail(p->e, "%s: %s: no blocks (a function needs an entry block)",
			       p->file, where);
	/* pass 1: block names, so successors can point forward */
	for (i = 0; i < nb; i++) {
		struct json_object *b = json_object_array_get_idx(blocks, i);
		const char *name;
		char w[256];

		pathf(w, sizeof(w), "%s.blocks[%zu]", where, i);
		if (need_type(p, b, json_type_object, w, "an object") ||
		    check_keys(p, b, w, bkeys))
			return -1;
		if (!json_object_object_get_ex(b, "name", &v))
			return dp_fail(p->e, "%s: %s: missing \"name\"", p->file, w);
		if (get_str(p, v, w, &name) || dp_block_add(p->m, c, name, w, p->e) < 0)
			return -1;
	}
	/* pass 2: instructions, then successors, block by block */
	for (i = 0; i < nb; i++) {
		struct json_object *b = json_object_array_get_idx(blocks, i);
		struct json_object *insts, *succ;
		char w[256];

		pathf(w, sizeof(w), "%s.blocks[%zu] '%s'", where, i, c->b[i].name);
		if (json_object_object_get_ex(b, "insts", &insts)) {
			if (need_type(p, insts, json_type_array, w, "\"insts\" must be an array"))
				return -1;
			for (j = 0; j < json_object_array_length(insts); j++) {
				char iw[300];

				pathf(iw, sizeof(iw), "%s.insts[%zu]", w, j);
				if (parse_inst(p, c, i, json_object_array_get_idx(insts, j), iw))
					return -1;
			}
		}
		if (json_object_object_get_ex(b, "succ", &succ)) {
			if (need_type(p, succ, json_type_array, w, "\"succ\" must be an array of block names"))
				return -1;
			for (j = 0; j < json_object_array_length(succ); j++) {
				struct json_object *s = json_object_array_get_idx(succ, j);
				const char *sn;
				char sw[300];
				int64_t si;

				pathf(sw, sizeof(sw), "%s.succ[%zu]", w, j);
				if (get_str(p, s, sw, &sn))
					return -1;
				si = dp_block_find(c, sn);
				if (si < 0)
					return dp_fail(p->e, "%s: %s: unknown block '%s' (successors must name a block of the same function)",
						       p->file, sw, sn);
				if (dp_succ_add(c, i, si, p->e))
					return -1;
			}
		}
	}
	return 0;
}

struct dp_model *dp_model_parse_json(const char *file, const char *text,
				     size_t len, struct dp_err *e)
{
	static const char *const keys[] = { "model", "format", "cores", NULL };
	struct json_tokener *tok;
	struct json_object *root, *cores, *v;
	struct jp p = { .e = e, .file = file };
	const char *name = "model";
	size_t i, end;

	if (len > INT32_MAX) {
		dp_fail(e, "%s: file too large for the JSON reader", file);
		return NULL;
	}
	tok = json_tokener_new();
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root) {
		enum json_tokener_error je = json_tokener_get_error(tok);
		int line, col;

		end = json_tokener_get_parse_end(tok);
		if (je == json_tokener_continue)
			end = len;
		line_col(text, end, &line, &col);
		dp_fail(e, "%s:%d:%d: malformed JSON: %s", file, line, col,
			je == json_tokener_continue ? "unexpected end of file" :
			json_tokener_error_desc(je));
		json_tokener_free(tok);
		return NULL;
	}
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (end < len && (text[end] == ' ' || text[end] == '\n' ||
			     text[end] == '\t' || text[end] == '\r'))
		end++;
	if (end < len) {
		int line, col;

		line_col(text, end, &line, &col);
		dp_fail(e, "%s:%d:%d: malformed JSON: trailing characters after the top-level value",
			file, line, col);
		json_object_put(root);
		return NULL;
	}
	if (!json_object_is_type(root, json_type_object)) {
		dp_fail(e, "%s: top level: must be an object with \"cores\"", file);
		goto fail_root;
	}
	if (check_keys(&p, root, "top level", keys))
		goto fail_root;
	if (json_object_object_get_ex(root, "model", &v) &&
	    get_str(&p, v, "model", &name))
		goto fail_root;
	if (json_object_object_get_ex(root, "format", &v)) {
		const char *fmt;

		if (get_str(&p, v, "format", &fmt))
			goto fail_root;
		if (strcmp(fmt, "dramplan-model/1")) {
			dp_fail(e, "%s: format: \"%s\" is not \"dramplan-model/1\"", file, fmt);
			goto fail_root;
		}
	}
	if (!json_object_object_get_ex(root, "cores", &cores) ||
	    !json_object_is_type(cores, json_type_array) ||
	    json_object_array_length(cores) == 0) {
		dp_fail(e, "%s: top level: \"cores\" must be a non-empty array", file);
		goto fail_root;
	}
	p.m = dp_model_new(file, name);
	for (i = 0; i < json_object_array_length(cores); i++)
		if (parse_core(&p, json_object_array_get_idx(cores, i), i))
			goto fail;
	if (dp_model_link(p.m, e))
		goto fail;
	json_object_put(root);
	return p.m;
fail:
	dp_model_free(p.m);
fail_root:
	json_object_put(root);
	return NULL;
}

struct dp_model *dp_model_load_json(const char *path, struct dp_err *e)
{
	struct dp_model *m;
	char *text;
	size_t len;

	if (dp_read_file(path, &text, &len, e))
		return NULL;
	m = dp_model_parse_json(path, text, len, e);
	free(text);
	return m;
}
