// SPDX-License-Identifier: GPL-2.0
/*
 * plan_io.c - the plan as JSON (write and read back), as an SVG chart and
 * as a text table.
 */
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"

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
	fprintf(f, "\n  ],\n  \"hazard_groups\": [");
	for (i = 0; i < p->nhg; i++) {
		const struct dp_hazard_group *g = &p->hg[i];
		size_t k;

		fprintf(f, "%s\n    {\"lo\": %llu, \"hi\": %llu, \"cores\": %u, \"accesses\": [",
			i ? "," : "", U(g->lo), U(g->hi), g->ncores);
		for (k = 0; k < g->n; k++) {
			const struct dp_hazard_access *h = &p->ha[g->first + k];

			fprintf(f, "%s\n      {\"core\": %u, \"tensor\": ", k ? "," : "", h->core);
			dp_json_str(f, p->core[h->core].t[h->t].name);
			fprintf(f, ", \"reads\": %s, \"writes\": %s}", b(h->reads), b(h->writes));
		}
		fprintf(f, "]}");
	}
	fprintf(f, "%s]", p->nhg ? "\n  " : "");
	if (p->has_pairs) {	/* --hazard-pairs */
		fprintf(f, ",\n  \"hazards\": [");
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
		fprintf(f, "%s]", p->nhz ? "\n  " : "");
	}
	fprintf(f, "\n}\n");
	return ferror(f) ? -1 : 0;
}

/* ---- reading a plan back (for verify) ------------------------------- */

/*
 * Strict like the model reader (jdoc.c): exact u64 numbers, no duplicate
 * keys.  Totals and hazards are not read: they are recomputed from the
 * tensors, so a plan written, read and written again is the same bytes.
 */
struct rd {
	const struct jdoc *d;
	const char *file;
	struct dp_err *e;
};

static int get(struct rd *r, uint32_t o, const char *key, enum jtype ty,
	       const char *where, uint32_t *out)
{
	enum jtype t;

	*out = jdoc_get(r->d, o, key);
	if (*out == JNONE)
		return dp_fail(r->e, "%s: %s: missing \"%s\"", r->file, where, key);
	t = jdoc_type(r->d, *out);
	if (ty == J_TRUE ? t != J_TRUE && t != J_FALSE : t != ty)
		return dp_fail(r->e, "%s: %s.%s: must be %s", r->file, where, key,
			       ty == J_TRUE ? "true or false" : jdoc_type_name(ty));
	return 0;
}

static int num_u(struct rd *r, uint32_t v, const char *where, const char *key,
		 uint64_t *out)
{
	switch (jdoc_u64(r->d, v, out)) {
	case 0:
		return 0;
	case -2:
		return dp_fail(r->e, "%s: %s%s%s: negative", r->file, where,
			       key ? "." : "", key ? key : "");
	case -3:
		return dp_fail(r->e, "%s: %s%s%s: integer %s out of range (above 2^64-1)",
			       r->file, where, key ? "." : "", key ? key : "",
			       jdoc_str(r->d, v));
	default:
		return dp_fail(r->e, "%s: %s%s%s: must be an integer", r->file,
			       where, key ? "." : "", key ? key : "");
	}
}

static int get_u(struct rd *r, uint32_t o, const char *key,
		 const char *where, uint64_t *out)
{
	uint32_t v = jdoc_get(r->d, o, key);

	if (v == JNONE)
		return dp_fail(r->e, "%s: %s: missing \"%s\"", r->file, where, key);
	return num_u(r, v, where, key, out);
}

static int get_b(struct rd *r, uint32_t o, const char *key,
		 const char *where, uint8_t *out)
{
	uint32_t v;

	if (get(r, o, key, J_TRUE, where, &v))
		return -1;
	*out = jdoc_type(r->d, v) == J_TRUE;
	return 0;
}

static int read_tensor(struct rd *r, struct dp_core_plan *c, uint32_t o,
		       const char *where, size_t *cap)
{
	static const char *const regions[] = { "none", "pre", "linked", "cc",
					       "shared", "general" };
	struct dp_plan_tensor *t = &c->t[c->n];
	uint32_t v, ivs;
	uint64_t x;
	size_t q;
	int i;

	memset(t, 0, sizeof(*t));
	if (jdoc_type(r->d, o) != J_OBJ)
		return dp_fail(r->e, "%s: %s: must be an object", r->file, where);
	if (get(r, o, "name", J_STR, where, &v))
		return -1;
	t->name = dp_strdup(jdoc_str(r->d, v));
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
	if (get_u(r, o, "size", where, &t->size) ||
	    get_u(r, o, "bytes", where, &t->bytes) ||
	    get_b(r, o, "collective", where, &t->collective) ||
	    get_b(r, o, "shared", where, &t->shared) ||
	    get_b(r, o, "reads", where, &t->reads) ||
	    get_b(r, o, "writes", where, &t->writes) ||
	    get(r, o, "region", J_STR, where, &v))
		return -1;
	for (i = 0; i < 6; i++)
		if (!strcmp(jdoc_str(r->d, v), regions[i]))
			break;
	if (i == 6)
		return dp_fail(r->e, "%s: %s.region: unknown region \"%s\"",
			       r->file, where, jdoc_str(r->d, v));
	t->region = i;
	if ((v = jdoc_get(r->d, o, "remote")) != JNONE) {
		uint32_t rn;
		uint64_t core;

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
	}
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
		if (c->niv == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			c->iv = dp_xrealloc(c->iv, *cap, sizeof(*c->iv));
		}
		c->iv[c->niv].lo = lo;
		c->iv[c->niv].hi = hi;
		c->niv++;
	}
	if (c->niv - t->iv_first > UINT32_MAX)
		return dp_fail(r->e, "%s: %s: too many intervals", r->file, where);
	t->iv_count = c->niv - t->iv_first;
	return 0;
}

static struct dp_plan *plan_from(const struct jdoc *d, const char *path,
				 struct dp_err *e)
{
	struct rd r = { .d = d, .file = path, .e = e };
	uint32_t root = d->root, v, cores;
	struct dp_plan *p;
	size_t ci;

	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	if (jdoc_type(d, root) != J_OBJ) {
		dp_fail(e, "%s: top level: must be an object", path);
		goto fail;
	}
	if (get(&r, root, "format", J_STR, "top level", &v))
		goto fail;
	if (strcmp(jdoc_str(d, v), "dramplan-plan/1")) {
		dp_fail(e, "%s: format: \"%s\" is not \"dramplan-plan/1\"", path,
			jdoc_str(d, v));
		goto fail;
	}
	v = jdoc_get(d, root, "model");
	p->model = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
			     jdoc_str(d, v) : "model");
	v = jdoc_get(d, root, "source");
	p->source = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
			      jdoc_str(d, v) : path);
	if (get_u(&r, root, "page_size", "top level", &p->page) ||
	    get_u(&r, root, "hwm", "top level", &p->hwm) ||
	    get_u(&r, root, "floor", "top level", &p->floor) ||
	    get(&r, root, "cc", J_OBJ, "top level", &v) ||
	    get_u(&r, v, "base", "cc", &p->cc_base) ||
	    get_u(&r, v, "limit", "cc", &p->cc_limit) ||
	    get_u(&r, v, "size", "cc", &p->cc_size) ||
	    get_u(&r, root, "ceiling", "top level", &p->ceiling) ||
	    get(&r, root, "cores", J_ARR, "top level", &cores))
		goto fail;
	if ((v = jdoc_get(d, root, "private_base")) != JNONE &&
	    num_u(&r, v, "top level", "private_base", &p->private_base))
		goto fail;
	if ((v = jdoc_get(d, root, "shared_region")) != JNONE &&
	    (jdoc_type(d, v) != J_OBJ ||
	     get_u(&r, v, "base", "shared_region", &p->shared_base) ||
	     get_u(&r, v, "end", "shared_region", &p->shared_end))) {
		if (jdoc_type(d, v) != J_OBJ)
			dp_fail(e, "%s: shared_region: must be an object", path);
		goto fail;
	}
	p->ncores = jdoc_len(d, cores);
	p->core = calloc(p->ncores ? p->ncores : 1, sizeof(*p->core));
	if (!p->core)
		abort();
	for (ci = 0; ci < p->ncores; ci++) {
		uint32_t co = jdoc_at(d, cores, ci), ts;
		struct dp_core_plan *c = &p->core[ci];
		char where[64];
		size_t k, cap = 0;

		c->core = ci;
		snprintf(where, sizeof(where), "cores[%zu]", ci);
		if (jdoc_type(d, co) != J_OBJ) {
			dp_fail(e, "%s: %s: must be an object", path, where);
			goto fail;
		}
		v = jdoc_get(d, co, "function");
		c->function = dp_strdup(v != JNONE && jdoc_type(d, v) == J_STR ?
					jdoc_str(d, v) : "main");
		if (get(&r, co, "tensors", J_ARR, where, &ts))
			goto fail;
		c->t = calloc(jdoc_len(d, ts) + 1, sizeof(*c->t));
		if (!c->t)
			abort();
		for (k = 0; k < jdoc_len(d, ts); k++) {
			char tw[96];

			snprintf(tw, sizeof(tw), "%s.tensors[%zu]", where, k);
			if (read_tensor(&r, c, jdoc_at(d, ts, k), tw, &cap))
				goto fail;
		}
	}
	dp_plan_totals(p);
	/* the pair list when the plan has one (--hazard-pairs) */
	if (dp_plan_hazards(p, jdoc_get(d, root, "hazards") != JNONE, e))
		goto fail;
	return p;
fail:
	dp_plan_free(p);
	return NULL;
}

struct dp_plan *dp_plan_load_json(const char *path, struct dp_err *e)
{
	struct dp_plan *p;
	struct jdoc d;

	if (jdoc_load(&d, path, e))
		return NULL;
	p = plan_from(&d, path, e);
	jdoc_free(&d);
	return p;
}

struct dp_plan *dp_plan_parse_json(const char *file, const char *text,
				   size_t len, struct dp_err *e)
{
	struct dp_plan *p;
	struct jdoc d;

	if (jdoc_parse(&d, file, text, len, e))
		return NULL;
	p = plan_from(&d, file, e);
	jdoc_free(&d);
	return p;
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
