// SPDX-License-Identifier: GPL-2.0
/*
 * model_io.c - a model written back as JSON (dramplan-model/1), in the form
 * dp_model_load_json reads: the benchmark writes its synthetic models with
 * it, and the fuzz harness checks that a model it read reads back the same.
 */
#include "internal.h"
#include "io/jdoc.h"

static void names(FILE *f, const struct dp_core *c, const uint32_t *ops,
		  uint32_t n)
{
	uint32_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		dp_json_str(f, c->t[ops[i]].name);
	}
	fputc(']', f);
}

/* An instruction's "compute_ns", "wait", "signal" and collective object,
 * when given */
static void write_order(FILE *f, const struct dp_model *m,
			const struct dp_core *c, const struct dp_inst *in)
{
	const uint32_t *x = c->sync ? c->sync + in->sync_first : NULL;
	uint32_t k;

	if (in->compute_ns)
		fprintf(f, ", \"compute_ns\": %llu", (unsigned long long)in->compute_ns);
	if (in->nwait || in->nsignal) {
		fputs(", \"wait\": [", f);
		for (k = 0; k < in->nwait; k++) {
			fputs(k ? ", " : "", f);
			dp_json_str(f, m->ev[x[k]]);
		}
		fputs("], \"signal\": [", f);
		for (k = 0; k < in->nsignal; k++) {
			fputs(k ? ", " : "", f);
			dp_json_str(f, m->ev[x[in->nwait + k]]);
		}
		fputc(']', f);
	}
	if (!in->coll_kind)
		return;
	fprintf(f, ", \"collective\": {\"kind\": \"%s\", ",
		dp_coll_kind_name(in->coll_kind));
	if (in->coll_kind != DP_COLL_ALL_GATHER)
		fprintf(f, "\"reduction\": \"%s\", ", dp_coll_op_name(in->coll_op));
	fprintf(f, "\"type\": \"%s\", \"cores\": [", dp_elem_name(in->coll_type));
	for (k = 0; k < in->ncores; k++)
		fprintf(f, "%s%u", k ? ", " : "", x[in->nwait + in->nsignal + k]);
	fputs("]}", f);
}

int dp_model_write_json(const struct dp_model *m, FILE *f)
{
	uint32_t ci, i, k;

	fputs("{\"format\": \"dramplan-model/1\", \"model\": ", f);
	dp_json_str(f, m->name);
	fputs(",\n \"cores\": [", f);
	for (ci = 0; ci < m->nc; ci++) {
		const struct dp_core *c = &m->c[ci];

		fprintf(f, "%s\n  {\"core\": %u, \"function\": ", ci ? "," : "", ci);
		dp_json_str(f, c->function);
		fputs(", \"tensors\": [", f);
		for (i = 0; i < c->nt; i++) {
			const struct dp_tensor *t = &c->t[i];

			fprintf(f, "%s\n   {\"name\": ", i ? "," : "");
			dp_json_str(f, t->name);
			fprintf(f, ", \"elems\": %llu, \"elem_size\": %llu",
				(unsigned long long)t->elems,
				(unsigned long long)t->elem_size);
			if (t->mem != DP_MEM_DRAM)
				fprintf(f, ", \"memory\": \"%s\"", dp_mem_name(t->mem));
			if (t->usage != DP_USE_SPILL)
				fprintf(f, ", \"usage\": \"%s\"", dp_usage_name(t->usage));
			if (t->has_addr)
				fprintf(f, ", \"address\": %llu", (unsigned long long)t->addr);
			if (t->partition)
				fprintf(f, ", \"partition\": %u", t->partition);
			if (t->bank)
				fprintf(f, ", \"bank\": %u", t->bank);
			if (t->shared)
				fputs(", \"shared\": true", f);
			if (t->has_remote) {
				fprintf(f, ", \"remote\": {\"core\": %u, \"name\": ", t->remote_core);
				dp_json_str(f, t->remote_name);
				fputc('}', f);
			}
			fputc('}', f);
		}
		fputs("],\n   \"blocks\": [", f);
		for (i = 0; i < c->nb; i++) {
			const struct dp_block *b = &c->b[i];

			fprintf(f, "%s\n   {\"name\": ", i ? "," : "");
			dp_json_str(f, b->name);
			fputs(", \"succ\": [", f);
			for (k = 0; k < b->nsucc; k++) {
				if (k)
					fputs(", ", f);
				dp_json_str(f, c->b[c->succ[b->succ_first + k]].name);
			}
			fputs("], \"insts\": [", f);
			for (k = 0; k < b->ninst; k++) {
				const struct dp_inst *in = &c->in[b->inst_first + k];
				const uint32_t *ops = c->ops ? c->ops + in->op_first : NULL;

				fprintf(f, "%s\n    {", k ? "," : "");
				if (in->name && *in->name) {
					fputs("\"name\": ", f);
					dp_json_str(f, in->name);
					fputs(", ", f);
				}
				fputs("\"defs\": ", f);
				names(f, c, ops, in->ndefs);
				fputs(", \"uses\": ", f);
				names(f, c, ops ? ops + in->ndefs : NULL, in->nuses);
				if (in->collective && !in->coll_kind)
					fputs(", \"collective\": true", f);
				write_order(f, m, c, in);
				fputc('}', f);
			}
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("\n ]\n}\n", f);
	return ferror(f) ? -1 : 0;
}
