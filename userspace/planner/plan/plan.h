/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - the plan stage: the pipeline and its passes, the plan, its
 * verifiers, the plan's JSON written and read back, its report, and a
 * MiniMalloc instance solved and verified (the files of plan/).
 * Not installed, like internal.h.
 */
#ifndef DRAMPLAN_PLAN_H
#define DRAMPLAN_PLAN_H

#include "internal.h"

/* ---- pipeline -------------------------------------------------------- */

struct dp_ctx;
typedef int (*dp_pass_fn)(struct dp_ctx *);

struct dp_pass {
	const char *name;
	dp_pass_fn run;
	int dram_group;		/* left out by --disable-dram-allocation */
};

#define DP_MAX_PASSES 16
struct dp_pipeline {
	struct dp_pass pass[DP_MAX_PASSES];
	int n;
	double sec[DP_MAX_PASSES];
};

struct dp_shobj;

struct dp_ctx {
	struct dp_model *m;
	struct dp_opts o;
	struct dp_err *err;
	FILE *log;		/* report lines; NULL: none */
	uint64_t hwm, floor, cc_limit, cc_base, cc_real;
	uint64_t shared_base, shared_end, private_base, ceiling;
	uint64_t core_cap;	/* dram_shared mode 1: the slab size */
	int tree_built;		/* an interval tree was built */
	int early_exit;		/* "No candidate" taken */
	struct dp_place_stats st;	/* summed over every placement */
	struct dp_plan *plan;
	struct dp_shobj *obj;
	size_t nobj;
};

/* Builds the pass list from the options (the gate lives here). */
void dp_pipeline_build(struct dp_pipeline *pl, const struct dp_opts *o);
int dp_pipeline_has(const struct dp_pipeline *pl, const char *name);
int dp_pipeline_run(struct dp_pipeline *pl, struct dp_ctx *ctx);
void dp_ctx_init(struct dp_ctx *ctx, struct dp_model *m,
		 const struct dp_opts *o, FILE *log, struct dp_err *e);
void dp_ctx_fini(struct dp_ctx *ctx);
int dp_classify(struct dp_model *m, struct dp_err *e);
int dp_pass_find_start_addr(struct dp_ctx *x);
int dp_pass_cc_buffer_size(struct dp_ctx *x);
int dp_pass_dram(struct dp_ctx *x);
int dp_pass_build_plan(struct dp_ctx *x);
int dp_pass_sync_shared(struct dp_ctx *x);
int dp_pass_check_placed(struct dp_ctx *x);
int dp_pass_hazards(struct dp_ctx *x);
int dp_pass_totals(struct dp_ctx *x);

/* plan.c: a core plan's tensor names, sorted (ties: index); the lookup
 * gives the first tensor (lowest index) of that name, as a scan would. */
struct dp_name_ref {
	const char *name;
	uint32_t i;
};
/* NULL when out of memory */
struct dp_name_ref *dp_plan_name_index(const struct dp_core_plan *c);
const struct dp_plan_tensor *dp_plan_find_name(const struct dp_core_plan *c,
					       const struct dp_name_ref *ix,
					       const char *name);
/* plan.c: the per-core index slots dp_plan_remote fills (NULL: out of
 * memory) */
struct dp_name_ref **dp_plan_names_new(const struct dp_plan *p);
void dp_plan_names_free(const struct dp_plan *p, struct dp_name_ref **ix);
/* plan.c: the owner of core ci's linked tensor t (ix: a name index per
 * core, NULL until needed); NULL and "FILE: ... missing remote target",
 * or NULL with e->code -ENOMEM. */
const struct dp_plan_tensor *dp_plan_remote(const struct dp_plan *p,
					    uint32_t ci,
					    const struct dp_plan_tensor *t,
					    struct dp_name_ref **ix,
					    const char *file, struct dp_err *e);

/* unordered.c: the static proof of a model that declares order: its
 * events into p->ev, p->es, and every access pair of dp_plan_pairs_each
 * that happens-before (model/order.c) leaves unordered into p->uo, with a
 * line to log (may be NULL) of what it found.  0, or -1 (e set). */
struct dp_model;
int dp_plan_prove_order(struct dp_plan *p, const struct dp_model *m,
			FILE *log, struct dp_err *e);

/* verify.c: rule 6a alone (links), for the tests */
int dp_verify_links(const struct dp_plan *p, const char *file,
		    struct dp_err *e);

/*
 * verify.c: the overlap sweep of both verifiers.  Items 0 .. nt at
 * addr[t], size[t] (addr + size must not wrap), their closed live
 * intervals v[0 .. n) (sorted here by start, then item).  0: items live
 * at a common time are byte-disjoint; -1: blame[0] (opened first) and
 * blame[1] overlap while both live at *when.  O((n + nt) log).
 */
struct dp_sweep_iv {
	uint64_t lo, hi;
	uint32_t t;
};
/* the sweep's order of v: by start, then item (a qsort comparator) */
int dp_sweep_iv_cmp(const void *a, const void *b);
/* -ENOMEM when out of memory */
int dp_sweep_disjoint(struct dp_sweep_iv *v, size_t n, const uint64_t *addr,
		      const uint64_t *size, uint32_t nt, uint32_t blame[2],
		      uint64_t *when);

/* verify.c: rule 5 (interfering tensors byte-disjoint) for one core */
int dp_verify_sweep(const struct dp_core_plan *c, const char *file,
		    struct dp_err *e);

/* csv_plan.c: a solution's per-buffer rules, and its buffers in (lower,
 * id) order */
int dp_csv_sorted(const struct dp_csv *c, const struct dp_csv_buf **s,
		  struct dp_err *e);

#endif
