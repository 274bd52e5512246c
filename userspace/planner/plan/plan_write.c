// SPDX-License-Identifier: GPL-2.0
/*
 * plan_write.c - a plan as JSON (read back by plan_read.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io/jdoc.h"

#define U(x) ((unsigned long long)(x))

static const char *b(int v)
{
	return v ? "true" : "false";
}

/* One tensor of core plan c: its placement, flags, link and intervals */
static void write_tensor(FILE *f, const struct dp_core_plan *c,
			 const struct dp_plan_tensor *t)
{
	uint32_t q;

	fprintf(f, "{\"id\": %u, \"name\": ", t->id);
	dp_json_str(f, t->name);
	if (t->placed)
		fprintf(f, ", \"address\": %llu", U(t->addr));
	if (t->partition)
		fprintf(f, ", \"partition\": %u", t->partition);
	if (t->bank)
		fprintf(f, ", \"bank\": %u", t->bank);
	fprintf(f, ", \"size\": %llu, \"bytes\": %llu, \"region\": \"%s\", \"collective\": %s, \"shared\": %s, \"reads\": %s, \"writes\": %s",
		U(t->size), U(t->bytes), dp_region_name(t->region),
		b(t->collective), b(t->shared), b(t->reads), b(t->writes));
	if (t->has_remote) {
		fprintf(f, ", \"remote\": {\"core\": %u, \"name\": ", t->remote_core);
		dp_json_str(f, t->remote_name);
		fprintf(f, "}");
	}
	fprintf(f, ", \"intervals\": [");
	for (q = 0; q < t->iv_count; q++)
		fprintf(f, "%s[%llu, %llu]", q ? ", " : "",
			U(c->iv[t->iv_first + q].lo), U(c->iv[t->iv_first + q].hi));
	fprintf(f, "]}");
}

/* One core: its totals, its slab (mode 1) and its tensors */
static void write_core(FILE *f, const struct dp_plan *p,
		       const struct dp_core_plan *c)
{
	uint32_t k;

	fprintf(f, "{\"core\": %u, \"function\": ", c->core);
	dp_json_str(f, c->function);
	fprintf(f, ", \"private_bytes\": %llu, \"shared_bytes\": %llu, \"footprint\": %llu, \"peak\": %llu, \"lower_bound\": %llu",
		U(c->private_bytes), U(c->shared_bytes), U(c->footprint),
		U(c->peak), U(c->lower_bound));
	if (p->dram_shared_mode)
		fprintf(f, ", \"slab\": {\"base\": %llu, \"end\": %llu}",
			U(c->slab_base), U(c->slab_end));
	fprintf(f, ",\n     \"tensors\": [");
	for (k = 0; k < c->n; k++) {
		fprintf(f, "%s\n      ", k ? "," : "");
		write_tensor(f, c, &c->t[k]);
	}
	fprintf(f, "\n     ]}");
}

/* An access as {"core": C, "tensor": NAME */
static void write_access(FILE *f, const struct dp_plan *p, uint32_t core,
			 uint32_t t)
{
	fprintf(f, "{\"core\": %u, \"tensor\": ", core);
	dp_json_str(f, p->core[core].t[t].name);
}

/* The hazard groups, and with --hazard-pairs the pairs */
static void write_hazards(FILE *f, const struct dp_plan *p)
{
	size_t i, k;

	fprintf(f, "\n  \"hazard_groups\": [");
	for (i = 0; i < p->nhg; i++) {
		const struct dp_hazard_group *g = &p->hg[i];

		fprintf(f, "%s\n    {\"lo\": %llu, \"hi\": %llu, \"cores\": %u, \"accesses\": [",
			i ? "," : "", U(g->lo), U(g->hi), g->ncores);
		for (k = 0; k < g->n; k++) {
			const struct dp_hazard_access *h = &p->ha[g->first + k];

			fprintf(f, "%s\n      ", k ? "," : "");
			write_access(f, p, h->core, h->t);
			fprintf(f, ", \"reads\": %s, \"writes\": %s}", b(h->reads), b(h->writes));
		}
		fprintf(f, "]}");
	}
	fprintf(f, "%s]", p->nhg ? "\n  " : "");
	if (!p->has_pairs)
		return;
	fprintf(f, ",\n  \"hazards\": [");
	for (i = 0; i < p->nhz; i++) {
		const struct dp_hazard *h = &p->hz[i];

		fprintf(f, "%s\n    {\"a\": ", i ? "," : "");
		write_access(f, p, h->core_a, h->ta);
		fprintf(f, ", \"writes\": %s}, \"b\": ", b(h->a_writes));
		write_access(f, p, h->core_b, h->tb);
		fprintf(f, ", \"writes\": %s}, \"lo\": %llu, \"hi\": %llu}",
			b(h->b_writes), U(h->lo), U(h->hi));
	}
	fprintf(f, "%s]", p->nhz ? "\n  " : "");
}

/* A model with order: its events and the pairs left unordered */
static void write_order(FILE *f, const struct dp_plan *p)
{
	size_t i, k;
	int side;

	fprintf(f, ",\n  \"events\": [");
	for (i = 0; i < p->nev; i++) {
		const struct dp_plan_event *ev = &p->ev[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		dp_json_str(f, ev->name);
		for (side = 1; side >= 0; side--) {
			int n = 0;

			fprintf(f, ", \"%s\": [", side ? "signal" : "wait");
			for (k = 0; k < ev->n; k++) {
				const struct dp_event_site *s = &p->es[ev->first + k];

				if (s->signal != side)
					continue;
				fprintf(f, "%s{\"core\": %u, \"inst\": ", n++ ? ", " : "",
					s->core);
				dp_json_str(f, s->inst);
				fputc('}', f);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
	fprintf(f, "%s],\n  \"unordered\": [", p->nev ? "\n  " : "");
	for (i = 0; i < p->nuo; i++) {
		const struct dp_unordered *u = &p->uo[i];

		fprintf(f, "%s\n    {\"a\": ", i ? "," : "");
		write_access(f, p, u->core_a, u->ta);
		fputs(", \"inst\": ", f);
		dp_json_str(f, u->inst_a);
		fprintf(f, ", \"writes\": %s}, \"b\": ", b(u->a_writes));
		write_access(f, p, u->core_b, u->tb);
		fputs(", \"inst\": ", f);
		dp_json_str(f, u->inst_b);
		fprintf(f, ", \"writes\": %s}, \"lo\": %llu, \"hi\": %llu}",
			b(u->b_writes), U(u->lo), U(u->hi));
	}
	fprintf(f, "%s]", p->nuo ? "\n  " : "");
}

int dp_plan_write_json(const struct dp_plan *p, FILE *f)
{
	uint32_t ci;

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
	if (p->dram_shared_mode)	/* per-core slabs; mode 0 writes nothing */
		fprintf(f, "  \"dram_shared_mode\": %d,\n  \"core_cap\": %llu,\n",
			p->dram_shared_mode, U(p->core_cap));
	fprintf(f, "  \"totals\": {\"private\": %llu, \"shared\": %llu, \"bytes\": %llu},\n",
		U(p->total_private), U(p->total_shared), U(p->total_bytes));
	fprintf(f, "  \"cores\": [");
	for (ci = 0; ci < p->ncores; ci++) {
		fprintf(f, "%s\n    ", ci ? "," : "");
		write_core(f, p, &p->core[ci]);
	}
	fprintf(f, "\n  ],");
	write_hazards(f, p);
	if (p->ordered)
		write_order(f, p);
	fprintf(f, "\n}\n");
	return ferror(f) ? -1 : 0;
}
