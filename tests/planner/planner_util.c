// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"

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
