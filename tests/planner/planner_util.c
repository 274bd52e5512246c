// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "search/search.h"
#include "plan/plan.h"
#include "planner_util.h"
#include "xorshift.h"

void run_json(struct run *r, const char *json, const struct dp_opts *o)
{
	struct dp_opts def;
	struct dp_pipeline pl;
	struct dp_ctx x;
	FILE *log;

	memset(r, 0, sizeof(*r));
	if (!o) {
		dp_opts_default(&def);
		o = &def;
	}
	r->m = dp_model_parse_json("t.json", json, strlen(json), &r->e);
	if (!r->m)
		return;
	log = open_memstream(&r->log, &r->loglen);
	dp_pipeline_build(&pl, o);
	dp_ctx_init(&x, r->m, o, log, &r->e);
	if (!dp_pipeline_run(&pl, &x)) {
		r->p = x.plan;
		x.plan = NULL;
		r->ok = 1;
	}
	r->tree_built = x.tree_built;
	r->early_exit = x.early_exit;
	dp_ctx_fini(&x);
	fclose(log);
}

void run_free(struct run *r)
{
	dp_plan_free(r->p);
	dp_model_free(r->m);
	free(r->log);
	memset(r, 0, sizeof(*r));
}

const struct dp_plan_tensor *pt(const struct dp_plan *p, uint32_t core,
				const char *name)
{
	uint32_t i;

	if (!p || core >= p->ncores)
		return NULL;
	for (i = 0; i < p->core[core].n; i++)
		if (!strcmp(p->core[core].t[i].name, name))
			return &p->core[core].t[i];
	return NULL;
}

const struct dp_tensor *mt(const struct dp_model *m, uint32_t core,
			   const char *name)
{
	int64_t i;

	if (!m || core >= m->nc)
		return NULL;
	i = dp_tensor_find(&m->c[core], name);
	return i < 0 ? NULL : &m->c[core].t[i];
}

const char *ivstr(const struct dp_model *m, uint32_t core, const char *name)
{
	static char buf[512];
	const struct dp_tensor *t = mt(m, core, name);
	size_t len = 0;
	uint32_t k;

	buf[0] = 0;
	if (!t)
		return "(no tensor)";
	for (k = 0; k < t->iv_count && len < sizeof(buf) - 48; k++) {
		const struct dp_iv *v = &m->c[core].iv[t->iv_first + k];

		len += snprintf(buf + len, sizeof(buf) - len, "%s[%llu,%llu]",
				k ? " " : "", (unsigned long long)v->lo,
				(unsigned long long)v->hi);
	}
	return buf;
}

const char *ivsof(const struct dp_model *m, uint32_t core, const char *names)
{
	static char buf[1024];
	char name[256];
	size_t len = 0;
	int n;

	buf[0] = 0;
	while (*names && sscanf(names, "%255s%n", name, &n) == 1) {
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s %s",
				len ? "; " : "", name, ivstr(m, core, name));
		if (len >= sizeof(buf))
			break;
		names += n;
		while (*names == ' ')
			names++;
	}
	return buf;
}

int contains(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle);
}

const char *J(const char *s)
{
	static char *buf;
	size_t i, n = strlen(s);

	free(buf);
	buf = malloc(n + 1);
	for (i = 0; i <= n; i++)
		buf[i] = s[i] == '\'' ? '"' : s[i];
	return buf;
}

const char *core1(const char *tensors, const char *blocks)
{
	static char *buf;
	size_t n = strlen(tensors) + strlen(blocks) + 128;

	free(buf);
	buf = malloc(n);
	snprintf(buf, n, "{'cores': [{'function': 'f', 'tensors': [%s], 'blocks': [%s]}]}",
		 tensors, blocks);
	return J(buf);
}

/* ---- outputs as text ------------------------------------------------------ */

enum text_kind { T_PLAN, T_MODEL, T_REPORT, T_TABLE };

static char *as_text(enum text_kind k, const void *obj)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f)
		abort();
	if (k == T_PLAN)
		rc = dp_plan_write_json(obj, f);
	else if (k == T_MODEL)
		rc = dp_model_write_json(obj, f);
	else
		dp_plan_write_report(obj, f, k == T_TABLE);
	if (fclose(f) || rc)
		abort();
	return buf;
}

char *plan_json_text(const struct dp_plan *p)
{
	return as_text(T_PLAN, p);
}

char *model_json_text(const struct dp_model *m)
{
	return as_text(T_MODEL, m);
}

char *report_text(const struct dp_plan *p, int tensors)
{
	return as_text(tensors ? T_TABLE : T_REPORT, p);
}

/* ---- random models -------------------------------------------------------- */

#define PG 4096ULL

struct owner {
	uint32_t core;
	char name[16];
	uint64_t elems, esz;
	uint32_t partition, bank;
};

/* min..max */
static uint32_t between(uint64_t *rs, uint32_t min, uint32_t max)
{
	return min + xorshift64_below(rs, max - min + 1);
}

/* Core ci's tensors: inputs, then shared owners and links, then spills. */
static int random_tensors(struct dp_model *m, struct dp_core *c, uint32_t ci,
			  const struct model_shape *s, const struct owner *own,
			  uint32_t nown, uint32_t nin, uint32_t nspill,
			  uint64_t *rs, struct dp_err *e)
{
	uint64_t addr = 0;
	char name[32];
	uint32_t i;

	for (i = 0; i < nin; i++) {
		struct dp_tensor_spec t = { .name = name, .elem_size = 4,
			.usage = i ? DP_USE_WEIGHT : DP_USE_INPUT,
			.has_addr = 1, .addr = addr };

		t.elems = 1 + xorshift64_below(rs, s->input_elems);
		snprintf(name, sizeof(name), "in%u", i);
		addr += (t.elems * 4 + PG - 1) / PG * PG + PG * xorshift64_below(rs, 2);
		if (dp_tensor_add(m, c, &t, "gen", e) < 0)
			return -1;
	}
	for (i = 0; i < nown; i++) {
		struct dp_tensor_spec t = { .name = name, .elems = own[i].elems,
			.elem_size = own[i].esz, .shared = 1 };

		if (own[i].core == ci) {
			snprintf(name, sizeof(name), "%s", own[i].name);
			t.partition = own[i].partition;
			t.bank = own[i].bank;
		} else {
			if (!xorshift64_below(rs, 3))
				continue;
			snprintf(name, sizeof(name), "peer_%s", own[i].name);
			t.has_remote = 1;
			t.remote_core = own[i].core;
			t.remote_name = own[i].name;
		}
		if (dp_tensor_add(m, c, &t, "gen", e) < 0)
			return -1;
	}
	for (i = 0; i < nspill; i++) {
		struct dp_tensor_spec t = { .name = name };

		t.elems = 1 + xorshift64_below(rs, s->spill_elems);
		t.elem_size = 1ULL << xorshift64_below(rs, s->elem_sizes);
		t.mem = xorshift64_below(rs, 8) ? DP_MEM_DRAM : DP_MEM_SBUF;
		snprintf(name, sizeof(name), "t%u", i);
		if (dp_tensor_add(m, c, &t, "gen", e) < 0)
			return -1;
	}
	return 0;
}

/* nb blocks of instructions defining tensors first_def.. (not inputs). */
static int random_blocks(struct dp_model *m, struct dp_core *c, uint32_t nb,
			 uint32_t first_def, uint64_t *rs, struct dp_err *e)
{
	uint8_t *defined = calloc(c->nt, 1);
	uint32_t b, i, q;
	char name[32];
	int ret = -1;

	if (!defined)
		abort();
	for (i = 0; i < c->nt; i++)	/* inputs, weights, shared */
		defined[i] = c->t[i].usage != DP_USE_SPILL || c->t[i].shared;
	for (b = 0; b < nb; b++) {
		snprintf(name, sizeof(name), "bb%u", b);
		if (dp_block_add(m, c, name, "gen", e) < 0)
			goto out;
	}
	for (b = 0; b < nb; b++) {
		uint32_t ni = 1 + xorshift64_below(rs, 8);

		for (i = 0; i < ni; i++) {
			uint32_t defs[3], uses[4], nuse = 0;
			uint32_t nd = xorshift64_below(rs, 3), nu = xorshift64_below(rs, 4);

			for (q = 0; q < nu; q++) {
				uint32_t t = xorshift64_below(rs, c->nt);

				if (defined[t])
					uses[nuse++] = t;
			}
			for (q = 0; q < nd; q++)
				defs[q] = first_def + xorshift64_below(rs, c->nt - first_def);
			if (dp_inst_add(m, c, b, "op", defs, nd, uses, nuse,
					!xorshift64_below(rs, 10), "gen", e))
				goto out;
			for (q = 0; q < nd; q++)
				defined[defs[q]] = 1;
		}
		if (b + 1 < nb && dp_succ_add(c, b, b + 1, e))
			goto out;
		if (!xorshift64_below(rs, 3) &&
		    dp_succ_add(c, b, xorshift64_below(rs, b + 1), e))
			goto out;	/* a back edge: a loop */
	}
	ret = 0;
out:
	free(defined);
	return ret;
}

struct dp_model *random_model(const struct model_shape *s, uint64_t seed,
			      struct dp_err *e)
{
	struct dp_model *m = dp_model_new("seeded.json", "seeded");
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 77;
	struct owner own[MODEL_MAX_OWNERS];
	uint32_t nc, nown = 0, ci, k;

	if (s->max_owners > MODEL_MAX_OWNERS)
		abort();
	nc = between(&rs, s->min_cores, s->max_cores);
	if (nc > 1)
		nown = between(&rs, s->min_owners, s->max_owners);
	for (k = 0; k < nown; k++) {
		own[k].core = xorshift64_below(&rs, nc);
		snprintf(own[k].name, sizeof(own[k].name), "sh%u", k);
		own[k].elems = 1 + xorshift64_below(&rs, s->owner_elems);
		own[k].esz = 1ULL << xorshift64_below(&rs, s->elem_sizes);
		own[k].partition = own[k].bank = 0;
	}
	for (k = 0; k < nown && s->triples; k++) {	/* after: same draws */
		own[k].partition = between(&rs, 1, s->triples);
		own[k].bank = between(&rs, 1, s->triples);
	}
	for (ci = 0; ci < nc; ci++) {
		struct dp_core *c = dp_core_add(m, "step", e);
		uint32_t nin, nspill, nb;

		if (!c)
			goto fail;
		nin = xorshift64_below(&rs, 3);
		nspill = between(&rs, s->min_spills, s->max_spills);
		nb = between(&rs, 1, s->max_blocks);
		if (random_tensors(m, c, ci, s, own, nown, nin, nspill, &rs, e))
			goto fail;
		if (random_blocks(m, c, nb, nin, &rs, e))
			goto fail;
	}
	return link_or_free(m, e);
fail:
	dp_model_free(m);
	return NULL;
}

/* 1-3 cores of 4-43 spills, up to 5 shared owners, tensors up to 200 KB */
const struct model_shape shape_random = {
	.min_cores = 1, .max_cores = 3,
	.min_owners = 0, .max_owners = 5,
	.min_spills = 4, .max_spills = 43,
	.max_blocks = 5,
	.input_elems = 20000, .owner_elems = 30000, .spill_elems = 50000,
	.elem_sizes = 3,
};

void agree_count(struct agree *a, uint64_t seed, int round,
		 int r1, const struct dp_err *e1, int r2, const struct dp_err *e2)
{
	a->rejected += r1 != 0;
	a->total++;
	if (r1 == r2 && !strcmp(e1->msg, e2->msg))
		a->same++;
	else if (a->total - a->same < 5)
		printf("#   seed %llu round %d:\n#     new: %s\n#     old: %s\n",
		       (unsigned long long)seed, round, e1->msg, e2->msg);
}

int agree_on_mutations(struct agree *a, uint64_t seeds, int rounds,
		       uint64_t *rs,
		       struct dp_model *(*model)(uint64_t seed, struct dp_err *e),
		       mutate_round_fn *round)
{
	uint64_t seed;

	for (seed = 1; seed <= seeds; seed++) {
		struct dp_err e;
		struct dp_model *m = model(seed, &e);
		struct dp_plan *p = m ? plan_default(m, &e) : NULL;
		int k;

		if (!p) {
			printf("#   seed %llu: %s\n", (unsigned long long)seed,
			       e.msg);
			dp_model_free(m);
			return -1;
		}
		for (k = 0; k < rounds; k++) {
			struct dp_core_plan *c =
				&p->core[xorshift64_below(rs, p->ncores)];
			struct dp_err ek[2] = { { "" }, { "" } };
			int r[2];

			if (!round(p, c, k, rs, r, ek))
				agree_count(a, seed, k, r[0], &ek[0], r[1], &ek[1]);
		}
		dp_plan_free(p);
		dp_model_free(m);
	}
	return 0;
}

struct dp_model *link_or_free(struct dp_model *m, struct dp_err *e)
{
	if (dp_model_link(m, e)) {
		dp_model_free(m);
		return NULL;
	}
	return m;
}

int run_in_tmpdir(char *dir, int (*run)(void))
{
	char cmd[600];
	int rc;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = run();
	if (!rc) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			rc = 1;
	}
	return rc;
}

void read_text(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t r;

	buf[0] = 0;
	if (!f)
		return;
	r = fread(buf, 1, n - 1, f);
	buf[r] = 0;
	fclose(f);
}

int run_captured(const char *dir, const char *pre, const char *tool,
		 const char *args, char *out, size_t nout, char *err,
		 size_t nerr)
{
	char cmd[4096], o[600], e[600];
	int rc;

	snprintf(o, sizeof(o), "%s/stdout", dir);
	snprintf(e, sizeof(e), "%s/stderr", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s %s >%s 2>%s", DP_SRCROOT,
		 pre, tool, args, o, e);
	rc = system(cmd);
	read_text(o, out, nout);
	read_text(e, err, nerr);
	unlink(o);
	unlink(e);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

struct dp_plan *plan_default(struct dp_model *m, struct dp_err *e)
{
	struct dp_opts o;

	dp_opts_default(&o);
	return dp_plan_model(m, &o, NULL, e);
}

struct dp_csv *csv_of_rows(const char *file, char prefix,
			   const struct csv_row *r, size_t n, int align)
{
	char *text = malloc(112 * (n + 1));
	struct dp_err e;
	struct dp_csv *c;
	size_t len, i;

	if (!text)
		return NULL;
	len = sprintf(text, "id,lower,upper,size%s\n", align ? ",alignment" : "");
	for (i = 0; i < n; i++) {
		len += sprintf(text + len, "%c%llu,%llu,%llu,%llu", prefix,
			       (unsigned long long)r[i].id,
			       (unsigned long long)r[i].lo,
			       (unsigned long long)r[i].hi,
			       (unsigned long long)r[i].size);
		if (align)
			len += sprintf(text + len, ",%llu",
				       (unsigned long long)r[i].align);
		text[len++] = '\n';
	}
	c = dp_csv_parse(file, text, len, &e);
	free(text);
	return c;
}

static uint64_t brute(const struct dp_csv *c, uint32_t *perm, size_t k,
		      uint64_t *off)
{
	uint64_t best = UINT64_MAX, o = 0, r;
	size_t i, j;

	if (k == c->n) {
		for (i = 0; i < c->n; i++)
			if (off[i] + c->b[i].size > o)
				o = off[i] + c->b[i].size;
		return o;
	}
	for (i = k; i < c->n; i++) {
		uint32_t v = perm[i], t = perm[k];
		const struct dp_csv_buf *b = &c->b[v];

		o = 0;
		for (j = 0; j < k; j++) {
			const struct dp_csv_buf *u = &c->b[perm[j]];

			if (u->lower < b->upper && b->lower < u->upper &&
			    off[perm[j]] + u->size > o)
				o = off[perm[j]] + u->size;
		}
		off[v] = (o + b->align - 1) / b->align * b->align;
		perm[k] = v;
		perm[i] = t;
		r = brute(c, perm, k + 1, off);
		perm[i] = v;
		perm[k] = t;
		if (r < best)
			best = r;
	}
	return best;
}

uint64_t csv_brute_peak(const struct dp_csv *c)
{
	uint32_t perm[CSV_BRUTE_MAX];
	uint64_t off[CSV_BRUTE_MAX];
	size_t i;

	if (c->n > CSV_BRUTE_MAX)
		abort();	/* a test's own mistake */
	for (i = 0; i < c->n; i++)
		perm[i] = i;
	return brute(c, perm, 0, off);
}

int glue_nests(const struct dp_glued *part, const struct dp_glued *whole,
	       size_t n)
{
	uint32_t *w = malloc((part->k + 1) * sizeof(*w));
	uint64_t *d = malloc((part->k + 1) * sizeof(*d));
	size_t i;
	int ok = 1;

	if (!w || !d) {
		free(w);
		free(d);
		return -1;
	}
	for (i = 0; i < part->k; i++)
		w[i] = UINT32_MAX;
	for (i = 0; ok && i < n; i++) {
		uint32_t x = part->node[i];
		uint64_t at = whole->off[i] - part->off[i];

		if (whole->off[i] < part->off[i] ||
		    (w[x] != UINT32_MAX && (w[x] != whole->node[i] ||
					    d[x] != at)))
			ok = 0;
		w[x] = whole->node[i];
		d[x] = at;
	}
	free(w);
	free(d);
	return ok;
}
