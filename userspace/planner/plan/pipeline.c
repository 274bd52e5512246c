// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline.c - the pass list, built from the options, then run.
 *
 * THE GATE.  --disable-dram-allocation is checked here, once, when the pass
 * list is assembled (the seed's pipeline builder), not inside any pass: the
 * DRAM allocation pass and its companions (find_start_addr, cc_buffer_size,
 * post_shared_hazards) are simply not in the list.  The always-present
 * passes still run: sync_shared equalizes what already has an address, and
 * check_placed turns every surviving unplaced DRAM tensor into an error
 * that names it.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"
#include "plan/plan.h"

void dp_opts_default(struct dp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cc_mib = DP_CC_DEFAULT_MIB;
	o->dram_mib = DP_DRAM_DEFAULT_MIB;
	o->dram_page_size = 512;
	o->search_nodes = DP_UNSET;
}

static int pass_number(struct dp_ctx *x)
{
	if (dp_number(x->m, x->err))
		return -1;
	return dp_classify(x->m, x->err);
}

/*
 * Two shapes that are accepted (docs/dramplan.md, "Strict inputs"), but
 * never silently: the report gets a note line for each.
 *  - A DRAM spill/internal tensor that no instruction touches has no live
 *    range.  It interferes with nothing, so it gets an address but no bytes
 *    of its own (the seed asserts here; we keep planning).
 *  - A block the entry cannot reach never runs: a use there needs no
 *    reaching def.  Its accesses still give live ranges, so the plan stays
 *    safe if the block is made reachable later.
 */
static int notes(struct dp_ctx *x)
{
	struct dp_model *m = x->m;
	uint32_t ci, i;

	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];
		uint32_t n = 0;
		uint8_t *seen;

		for (i = 0; i < c->nt; i++) {
			struct dp_tensor *t = &c->t[i];

			if (t->mem != DP_MEM_DRAM || t->ndefs || t->nuses ||
			    t->shared || (t->usage != DP_USE_SPILL &&
					  t->usage != DP_USE_INTERNAL))
				continue;
			if (n < 8)
				fprintf(x->log, "%s '%s'", n ? "," : "note: declared but no instruction touches it (no live range, no bytes of its own):",
					t->name);
			n++;
		}
		if (n)
			fprintf(x->log, "%s on core %u\n", n > 8 ? ", ..." : "", ci);
		if (!c->nb)
			continue;
		seen = calloc(c->nb, 1);
		if (!seen || dp_cfg_walk(c, seen, NULL, NULL)) {
			free(seen);
			return dp_nomem(x->err);
		}
		for (n = 0, i = 0; i < c->nb; i++) {
			if (seen[i])
				continue;
			if (n < 8)
				fprintf(x->log, "%s '%s'", n ? "," : "note: unreachable from the entry (never runs; uses there need no def):",
					c->b[i].name);
			n++;
		}
		if (n)
			fprintf(x->log, "%s on core %u\n", n > 8 ? ", ..." : "", ci);
		free(seen);
	}
	return 0;
}

static int pass_liveness(struct dp_ctx *x)
{
	if (dp_liveness(x->m, x->err))
		return -1;
	if (x->log)
		return notes(x);
	return 0;
}

static const struct dp_pass all_passes[] = {
	{ "number",			pass_number,		0 },
	{ "liveness",			pass_liveness,		0 },
	{ "find_start_addr",		dp_pass_find_start_addr, 1 },
	{ "cc_buffer_size",		dp_pass_cc_buffer_size,	1 },
	{ "coloring_allocator_dram",	dp_pass_dram,		1 },
	{ "build_plan",			dp_pass_build_plan,	0 },
	{ "sync_shared",		dp_pass_sync_shared,	0 },
	{ "check_placed",		dp_pass_check_placed,	0 },
	{ "post_shared_hazards",	dp_pass_hazards,	1 },
	{ "totals",			dp_pass_totals,		0 },
};

void dp_pipeline_build(struct dp_pipeline *pl, const struct dp_opts *o)
{
	size_t i;

	memset(pl, 0, sizeof(*pl));
	for (i = 0; i < sizeof(all_passes) / sizeof(all_passes[0]); i++) {
		if (all_passes[i].dram_group && o->disable_dram)
			continue;	/* left out at construction time */
		pl->pass[pl->n++] = all_passes[i];
	}
}

int dp_pipeline_has(const struct dp_pipeline *pl, const char *name)
{
	int i;

	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->pass[i].name, name))
			return 1;
	return 0;
}

int dp_pipeline_run(struct dp_pipeline *pl, struct dp_ctx *x)
{
	int i;

	if (x->log) {
		fprintf(x->log, "pipeline:");
		for (i = 0; i < pl->n; i++)
			fprintf(x->log, " %s", pl->pass[i].name);
		fprintf(x->log, "\n");
	}
	for (i = 0; i < pl->n; i++) {
		double t0 = dp_now();
		int rc = pl->pass[i].run(x);

		pl->sec[i] = dp_now() - t0;
		if (rc)
			return -1;
	}
	return 0;
}

void dp_ctx_init(struct dp_ctx *x, struct dp_model *m, const struct dp_opts *o,
		 FILE *log, struct dp_err *e)
{
	memset(x, 0, sizeof(*x));
	x->m = m;
	x->o = *o;
	x->err = e;
	x->log = log;
}

void dp_ctx_fini(struct dp_ctx *x)
{
	dp_plan_free(x->plan);
	x->plan = NULL;
	free(x->obj);
	x->obj = NULL;
}

struct dp_plan *dp_plan_model(struct dp_model *m, const struct dp_opts *o,
			      FILE *log, struct dp_err *e)
{
	struct dp_pipeline pl;
	struct dp_ctx x;
	struct dp_plan *p = NULL;

	if (dp_search_off_check(o->search_off, e))
		return NULL;
	dp_pipeline_build(&pl, o);
	dp_ctx_init(&x, m, o, log, e);
	if (!dp_pipeline_run(&pl, &x)) {
		p = x.plan;
		x.plan = NULL;
	}
	dp_ctx_fini(&x);
	return p;
}
