// SPDX-License-Identifier: GPL-2.0
/*
 * plan_io.c - the plan as JSON (write and read back), as an SVG chart and
 * as a text table.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dramplan.h"

#define U(x) ((unsigned long long)(x))

static const char *b(int v)
{
	return v ? "true" : "false";
}

int dp_plan_write_json(const struct dp_plan *p, FILE *f)
{
	uint32_t ci, k, q;
	size_t i;

	fprintf(f, "{\n  \"format\": \"dramplan-plan/1\",\n  \"model\": ");
	dp_json_str(f, p->model);
	fprintf(f, ",\n  \"source\": ");
	dp_json_str(f, p->source);
	fprintf(f, ",\n  \"page_size\": %llu,\n  \"hwm\": %llu,\n  \"floor\": %llu,\n",
		U(p->page), U(p->hwm), U(p->floor));
	fprintf(f, "  \"cc\": {\"base\": %llu, \"limit\": %llu, \"size\": %llu},\n",
		U(p->cc_base), U(p->cc_limit), U(p->cc_size));
	fprintf(f, "  \"shared_region\": {\"base\": %llu, \"end\": %llu},\n",
		U(p->shared_base), U(p->shared_end));
	fprintf(f, "  \"private_base\": %llu,\n  \"ceiling\": %llu,\n",
		U(p->private_base), U(p->ceiling));
	fprintf(f, "  \"totals\": {\"private\": %llu, \"shared\": %llu, \"bytes\": %llu},\n",
		U(p->total_private), U(p->total_shared), U(p->total_bytes));
	fprintf(f, "  \"cores\": [");
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		fprintf(f, "%s\n    {\"core\": %u, \"function\": ", ci ? "," : "", c->core);
		dp_json_str(f, c->function);
		fprintf(f, ", \"private_bytes\": %llu, \"shared_bytes\": %llu, \"footprint\": %llu, \"peak\": %llu, \"lower_bound\": %llu,\n     \"tensors\": [",
			U(c->private_bytes), U(c->shared_bytes), U(c->footprint),
			U(c->peak), U(c->lower_bound));
		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];

			fprintf(f, "%s\n      {\"id\": %u, \"name\": ", k ? "," : "", t->id);
			dp_json_str(f, t->name);
			if (t->placed)
				fprintf(f, ", \"address\": %llu", U(t->addr));
			fprintf(f, ", \"size\": %llu, \"bytes\": %llu, \"region\": \"%s\", \"collective\": %s, \"shared\": %s, \"reads\": %s, \"writes\": %s",
				U(t->size), U(t->bytes), dp_region_name(t->region),
				b(t->collective), b(t->shared), b(t->reads),
				b(t->writes));
			if (t->has_remote) {
				fprintf(f, ", \"remote\": {\"core\": %u, \"name\": ", t->remote_core);
				dp_json_str(f, t->remote_name);
				fprintf(f, "}");
			}
			fprintf(f, ", \"intervals\": [");
			for (q = 0; q < t->iv_count; q++)
				fprintf(f, "%s[%llu, %llu]", q ? ", " : "",
					U(c->iv[t->iv_first + q].lo),
					U(c->iv[t->iv_first + q].hi));
			fprintf(f, "]}");
		}
		fprintf(f, "\n     ]}");
	}
	fprintf(f, "\n  ],\n  \"hazards\": [");
	for (i = 0; i < p->nhz; i++) {
		const struct dp_hazard *h = &p->hz[i];

		fprintf(f, "%s\n    {\"a\": {\"core\": %u, \"tensor\": ", i ? "," : "", h->core_a);
		dp_json_str(f, p->core[h->core_a].t[h->ta].name);
		fprintf(f, ", \"writes\": %s}, \"b\": {\"core\": %u, \"tensor\": ",
			b(h->a_writes), h->core_b);
		dp_json_str(f, p->core[h->core_b].t[h->tb].name);
		fprintf(f, ", \"writes\": %s}, \"lo\": %llu, \"hi\": %llu}",
			b(h->b_writes), U(h->lo), U(h->hi));
	}
	fprintf(f, "%s]\n}\n", p->nhz ? "\n  " : "");
	return ferror(f) ? -1 : 0;
}

/* ---- reading a plan back (for verify) ------------------------------- */

struct rd {
	const char *file;
	struct dp_err *e;
};

static int get(struct rd *r, struct json_object *o, const char *key,
	       json_type ty, const char *where, struct json_object **out)
{
	if (!json_object_object_get_ex(o, key, out))
		return dp_fail(r->e, "%s: %s: missing \"%s\"", r->file, where, key);
	if (!json_object_is_type(*out, ty))
		return dp_fail(r->e, "%s: %s.%s: wrong type", r->file, where, key);
	return 0;
}

static int get_u(struct rd *r, struct json_object *o, const char *key,
		 const char *where, uint64_t *out)
{
	struct json_object *v;
	int64_t x;

	if (get(r, o, key, json_type_int, where, &v))
		return -1;
	x = json_object_get_int64(v);
	if (x < 0)
		return dp_fail(r->e, "%s: %s.%s: negative", r->file, where, key);
	*out = x;
	return 0;
}

static int get_b(struct rd *r, struct json_object *o, const char *key,
		 const char *where, uint8_t *out)
{
	struct json_object *v;

	if (get(r, o, key, json_type_boolean, where, &v))
		return -1;
	*out = json_object_get_boolean(v);
	return 0;
}

static int read_tensor(struct rd *r, struct dp_core_plan *c,
		       struct json_object *o, const char *where, size_t *cap)
{
	static const char *const regions[] = { "none", "pre", "linked", "cc",
					       "shared", "general" };
	struct dp_plan_tensor *t = &c->t[c->n];
	struct json_object *v, *ivs;
	uint64_t x;
	size_t q;
	int i;

	memset(t, 0, sizeof(*t));
	if (!json_object_is_type(o, json_type_object))
		return dp_fail(r->e, "%s: %s: must be an object", r->file, where);
	if (get(r, o, "name", json_type_string, where, &v))
		return -1;
	t->name = dp_strdup(json_object_get_string(v));
	c->n++;		/* owned from here on, freed with the plan */
	if (get_u(r, o, "id", where, &x))
		return -1;
	t->id = x;
	t->addr = DP_UNSET;
	if (json_object_object_get_ex(o, "address", &v)) {
		if (get_u(r, o, "address", where, &t->addr))
			return -1;
		t->placed = 1;
	}
	if (get_u(r, o, "size", where, &t->size) ||
	    get_u(r, o, "bytes", where, &t->bytes) ||
	    get_b(r, o, "collective", where, &t->collective) ||
	    get_b(r, o, "shared", where, &t->shared) ||
	    get_b(r, o, "reads", where, &t->reads) ||
	    get_b(r, o, "writes", where, &t->writes) ||
	    get(r, o, "region", json_type_string, where, &v))
		return -1;
	for (i = 0; i < 6; i++)
		if (!strcmp(json_object_get_string(v), regions[i]))
			break;
	if (i == 6)
		return dp_fail(r->e, "%s: %s.region: unknown region \"%s\"",
			       r->file, where, json_object_get_string(v));
	t->region = i;
	if (json_object_object_get_ex(o, "remote", &v)) {
		struct json_object *rn;
		uint64_t core;

		if (get_u(r, v, "core", where, &core) ||
		    get(r, v, "name", json_type_string, where, &rn))
			return -1;
		if (core > UINT32_MAX)
			return dp_fail(r->e, "%s: %s.remote.core: out of range", r->file, where);
		t->has_remote = 1;
		t->remote_core = core;
		t->remote_name = dp_strdup(json_object_get_string(rn));
	}
	if (get(r, o, "intervals", json_type_array, where, &ivs))
		return -1;
	t->iv_first = c->niv;
	for (q = 0; q < json_object_array_length(ivs); q++) {
		struct json_object *pair = json_object_array_get_idx(ivs, q);
		struct json_object *lo, *hi;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2 ||
		    !json_object_is_type(lo = json_object_array_get_idx(pair, 0), json_type_int) ||
		    !json_object_is_type(hi = json_object_array_get_idx(pair, 1), json_type_int) ||
		    json_object_get_int64(lo) < 0 || json_object_get_int64(hi) < 0)
			return dp_fail(r->e, "%s: %s.intervals[%zu]: must be [lo, hi] with integers >= 0",
				       r->file, where, q);
		if (c->niv == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			c->iv = dp_xrealloc(c->iv, *cap, sizeof(*c->iv));
		}
		c->iv[c->niv].lo = json_object_get_int64(lo);
		c->iv[c->niv].hi = json_object_get_int64(hi);
		c->niv++;
	}
	t->iv_count = c->niv - t->iv_first;
	return 0;
}

struct dp_plan *dp_plan_load_json(const char *path, struct dp_err *e)
{
	struct rd r = { .file = path, .e = e };
	struct json_object *root = NULL, *v, *cores;
	struct json_tokener *tok;
	struct dp_plan *p = NULL;
	char *text;
	size_t len, ci;

	if (dp_read_file(path, &text, &len, e))
		return NULL;
	tok = json_tokener_new();
	root = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (!root) {
		size_t off = json_tokener_get_parse_end(tok), i;
		int line = 1, col = 1;

		for (i = 0; i < off && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		dp_fail(e, "%s:%d:%d: malformed JSON: %s", path, line, col,
			json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
		free(text);
		return NULL;
	}
	json_tokener_free(tok);
	free(text);
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	if (!json_object_is_type(root, json_type_object)) {
		dp_fail(e, "%s: top level: must be an object", path);
		goto fail;
	}
	if (get(&r, root, "format", json_type_string, "top level", &v))
		goto fail;
	if (strcmp(json_object_get_string(v), "dramplan-plan/1")) {
		dp_fail(e, "%s: format: \"%s\" is not \"dramplan-plan/1\"", path,
			json_object_get_string(v));
		goto fail;
	}
	p->model = dp_strdup(json_object_object_get_ex(root, "model", &v) &&
			     json_object_is_type(v, json_type_string) ?
			     json_object_get_string(v) : "model");
	p->source = dp_strdup(path);
	if (get_u(&r, root, "page_size", "top level", &p->page) ||
	    get_u(&r, root, "hwm", "top level", &p->hwm) ||
	    get_u(&r, root, "floor", "top level", &p->floor) ||
	    get(&r, root, "cc", json_type_object, "top level", &v) ||
	    get_u(&r, v, "base", "cc", &p->cc_base) ||
	    get_u(&r, v, "limit", "cc", &p->cc_limit) ||
	    get_u(&r, v, "size", "cc", &p->cc_size) ||
	    get_u(&r, root, "ceiling", "top level", &p->ceiling) ||
	    get(&r, root, "cores", json_type_array, "top level", &cores))
		goto fail;
	if (json_object_object_get_ex(root, "shared_region", &v) &&
	    (get_u(&r, v, "base", "shared_region", &p->shared_base) ||
	     get_u(&r, v, "end", "shared_region", &p->shared_end)))
		goto fail;
	p->ncores = json_object_array_length(cores);
	p->core = calloc(p->ncores ? p->ncores : 1, sizeof(*p->core));
	if (!p->core)
		abort();
	for (ci = 0; ci < p->ncores; ci++) {
		struct json_object *co = json_object_array_get_idx(cores, ci), *ts;
		struct dp_core_plan *c = &p->core[ci];
		char where[64];
		size_t k, cap = 0;

		c->core = ci;
		snprintf(where, sizeof(where), "cores[%zu]", ci);
		if (!json_object_is_type(co, json_type_object)) {
			dp_fail(e, "%s: %s: must be an object", path, where);
			goto fail;
		}
		c->function = dp_strdup(json_object_object_get_ex(co, "function", &v) &&
					json_object_is_type(v, json_type_string) ?
					json_object_get_string(v) : "main");
		if (get(&r, co, "tensors", json_type_array, where, &ts))
			goto fail;
		c->t = calloc(json_object_array_length(ts) + 1, sizeof(*c->t));
		if (!c->t)
			abort();
		for (k = 0; k < json_object_array_length(ts); k++) {
			char tw[96];

			snprintf(tw, sizeof(tw), "%s.tensors[%zu]", where, k);
			if (read_tensor(&r, c, json_object_array_get_idx(ts, k), tw, &cap))
				goto fail;
		}
	}
	json_object_put(root);
	dp_plan_totals(p);
	return p;
fail:
	json_object_put(root);
	dp_plan_free(p);
	return NULL;
}

/* ---- SVG: address (up) against time (right), a panel per core -------- */

static unsigned hue(const char *s)
{
	unsigned h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h % 360;
}

/*
 * The address axis is piecewise linear: [0, floor) -- the pre-placed
 * tensors, often large weights -- gets the bottom PRE_FRAC of the panel,
 * [floor, top) the rest, so the planned tensors stay readable.
 */
#define PRE_FRAC 0.18

struct yaxis {
	double y0, H;
	uint64_t floor, top;
};

static double ymap(const struct yaxis *a, uint64_t addr)
{
	double pre = a->floor && a->top > a->floor ? PRE_FRAC * a->H : 0;

	if (addr < a->floor)
		return a->y0 + a->H - pre * (double)addr / (double)a->floor;
	if (a->top <= a->floor)
		return a->y0;
	return a->y0 + a->H - pre - (a->H - pre) * (double)(addr - a->floor) /
					(double)(a->top - a->floor);
}

static double area(const struct dp_core_plan *c, const struct dp_plan_tensor *t)
{
	double a = 0;
	uint32_t q;

	for (q = 0; q < t->iv_count; q++)
		a += (double)(c->iv[t->iv_first + q].hi - c->iv[t->iv_first + q].lo + 1);
	return a * (double)t->size;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

int dp_plan_write_svg(const struct dp_plan *p, FILE *f)
{
	return dp_plan_write_svg_max(p, f, 0);
}

/*
 * Downsampling: with max_tensors != 0 and more placed tensors than that,
 * only the max_tensors largest by size x lifetime are drawn (ties in plan
 * order), and the chart says so.
 */
int dp_plan_write_svg_max(const struct dp_plan *p, FILE *f, size_t max_tensors)
{
	const double W = 960, H = 420, L = 110, T = 70, GAP = 70;
	const size_t max_rects = 200000;
	size_t rects = 0, placed = 0, drawn = 0, above = 0, ties = 0;
	uint32_t ci, k, q;
	double total_h = T + p->ncores * (H + GAP) + 20, thr = -1;

	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++)
			placed += p->core[ci].t[k].placed;
	if (max_tensors && placed > max_tensors) {
		double *a = dp_xrealloc(NULL, placed, sizeof(*a));
		size_t i = 0;

		for (ci = 0; ci < p->ncores; ci++)
			for (k = 0; k < p->core[ci].n; k++)
				if (p->core[ci].t[k].placed)
					a[i++] = area(&p->core[ci], &p->core[ci].t[k]);
		qsort(a, placed, sizeof(*a), cmp_desc);
		thr = a[max_tensors - 1];
		for (i = 0; i < placed && a[i] > thr; i++)
			above++;
		ties = max_tensors - above;
		free(a);
	}

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"11\">\n",
		L + W + 30, total_h, L + W + 30, total_h);
	fprintf(f, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"1.5\" stroke-opacity=\"0.45\"/></pattern></defs>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">dramplan: ", L);
	dp_xml_str(f, p->model);
	fprintf(f, " -- DRAM address (up) against instruction time (right)</text>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"38\">one rectangle per tensor interval; red outline + hatching = shared, grey = pre-placed (below the floor, axis compressed), yellow band = CC region</text>\n", L);
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];
		double y0 = T + ci * (H + GAP);
		uint64_t tmax = 1, amax = 1;
		struct yaxis ax;
		double sx;

		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];

			if (t->placed && t->addr + t->size > amax)
				amax = t->addr + t->size;
			for (q = 0; q < t->iv_count; q++)
				if (c->iv[t->iv_first + q].hi + 1 > tmax)
					tmax = c->iv[t->iv_first + q].hi + 1;
		}
		if (p->cc_size && p->cc_base + p->cc_size > amax)
			amax = p->cc_base + p->cc_size;
		if (amax <= p->floor)
			amax = p->floor + DP_PAGE;
		sx = W / (double)tmax;
		ax = (struct yaxis){ y0, H, p->floor, amax };
		fprintf(f, "<g id=\"core%u\">\n<text x=\"%.0f\" y=\"%.1f\" font-size=\"13\">core %u: ",
			ci, L, y0 - 6, ci);
		dp_xml_str(f, c->function);
		fprintf(f, " (footprint 0x%llx, peak %llu, lower bound %llu)</text>\n",
			U(c->footprint), U(c->peak), U(c->lower_bound));
		fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#888\"/>\n",
			L, y0, W, H);
		if (p->cc_size)
			fprintf(f, "<rect class=\"cc\" x=\"%.0f\" y=\"%.2f\" width=\"%.0f\" height=\"%.2f\" fill=\"#fff3b0\"><title>CC region [0x%llx, 0x%llx)</title></rect><text x=\"4\" y=\"%.2f\" fill=\"#996\">CC end 0x%llx</text>\n",
				L, ymap(&ax, p->cc_base + p->cc_size), W,
				ymap(&ax, p->cc_base) - ymap(&ax, p->cc_base + p->cc_size),
				U(p->cc_base), U(p->cc_base + p->cc_size),
				ymap(&ax, p->cc_base + p->cc_size) + 4,
				U(p->cc_base + p->cc_size));
		if (p->floor)
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text x=\"4\" y=\"%.2f\" fill=\"#c00\">floor 0x%llx</text>\n",
				L, L + W, ymap(&ax, p->floor), ymap(&ax, p->floor),
				ymap(&ax, p->floor) + 4, U(p->floor));
		fprintf(f, "<text x=\"4\" y=\"%.1f\">0x%llx</text><text x=\"4\" y=\"%.1f\">0</text>\n",
			y0 + 10, U(amax), y0 + H);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">t=0</text><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">t=%llu</text>\n",
			L, y0 + H + 14, L + W, y0 + H + 14, U(tmax));
		for (k = 0; k < c->n && rects < max_rects; k++) {
			const struct dp_plan_tensor *t = &c->t[k];
			double y, h;

			if (!t->placed)
				continue;
			if (thr >= 0) {
				double ar = area(c, t);

				if (ar < thr || (ar == thr && !ties))
					continue;
				if (ar == thr)
					ties--;
			}
			drawn++;
			y = ymap(&ax, t->addr + t->size);
			h = ymap(&ax, t->addr) - y;
			if (h < 0.5)
				h = 0.5;
			for (q = 0; q < t->iv_count && rects < max_rects; q++, rects++) {
				const struct dp_iv *iv = &c->iv[t->iv_first + q];
				double x = L + iv->lo * sx, w = (iv->hi - iv->lo + 1) * sx;

				char fill[32];

				if (t->region == DP_REG_PRE)
					snprintf(fill, sizeof(fill), "#bbb");
				else
					snprintf(fill, sizeof(fill), "hsl(%u,60%%,72%%)", hue(t->name));
				fprintf(f, "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>",
					dp_region_name(t->region), t->shared ? " shared" : "",
					x, y, w < 0.5 ? 0.5 : w, h, fill,
					t->shared ? "#b00" : "#333",
					t->shared ? "1.5" : "0.4");
				dp_xml_str(f, t->name);
				fprintf(f, " [0x%llx, 0x%llx) size %llu t=[%llu, %llu] %s%s</title></rect>\n",
					U(t->addr), U(t->addr + t->size), U(t->size),
					U(iv->lo), U(iv->hi), dp_region_name(t->region),
					t->shared ? " shared" : "");
				if (w > 7.0 * (strlen(t->name) + 1) && h > 13) {
					fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" pointer-events=\"none\">",
						x + 3, y + 12);
					dp_xml_str(f, t->name);
					fprintf(f, "</text>\n");
				}
				if (t->shared)
					fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"url(#hatch)\" pointer-events=\"none\"/>\n",
						x, y, w < 0.5 ? 0.5 : w, h);
			}
		}
		fprintf(f, "</g>\n");
	}
	if (thr >= 0)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#c00\">(downsampled: %zu of %zu tensors drawn, the largest by size x lifetime)</text>\n",
			L, 54.0, drawn, placed);
	if (rects >= max_rects)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#c00\">(chart truncated at %zu rectangles)</text>\n",
			L, total_h - 6, max_rects);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}

/* ---- text table ---------------------------------------------------------- */

void dp_plan_write_report(const struct dp_plan *p, FILE *f, int tensors)
{
	uint32_t ci, k;

	fprintf(f, "floor 0x%llx (hwm 0x%llx), CC region [0x%llx, 0x%llx) limit %llu, shared region [0x%llx, 0x%llx), private from 0x%llx\n",
		U(p->floor), U(p->hwm), U(p->cc_base), U(p->cc_base + p->cc_size),
		U(p->cc_limit), U(p->shared_base), U(p->shared_end),
		U(p->private_base));
	for (ci = 0; ci < p->ncores && tensors; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		fprintf(f, "core %u (%s): %u DRAM tensors\n", ci, c->function, c->n);
		fprintf(f, "  %-24s %-8s %18s %12s  %s\n", "tensor", "region",
			"address", "size", "live");
		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];
			char live[64] = "-", addr[24] = "-";

			if (t->iv_count)
				snprintf(live, sizeof(live), "[%llu,%llu]%s",
					 U(c->iv[t->iv_first].lo),
					 U(c->iv[t->iv_first].hi),
					 t->iv_count > 1 ? " +" : "");
			if (t->placed)
				snprintf(addr, sizeof(addr), "0x%llx", U(t->addr));
			fprintf(f, "  %-24s %-8s %18s %12llu  %s%s%s\n", t->name,
				dp_region_name(t->region), addr, U(t->size), live,
				t->shared ? " shared" : "",
				t->has_remote ? " (linked)" : "");
		}
	}
}
