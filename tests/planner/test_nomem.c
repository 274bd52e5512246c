// SPDX-License-Identifier: GPL-2.0
/*
 * Out of memory is an error, not an abort.  A compiler that
 * embeds libdramplan must get the failure back and keep running.
 *
 * The binary is linked with -Wl,--wrap=malloc,calloc,realloc,free (see
 * tests/planner/rules.mk), so every allocation the library makes (and
 * yajl's, linked statically) goes through the injector below.  A run of
 * the whole job -- load a model, plan it, verify, write the plan, read it
 * back, report -- counts its allocations (K); then for every N in 1..K the
 * job runs again with the Nth allocation failing.  Each such run must stop
 * with an error whose code is -ENOMEM, and leave no allocation behind (the
 * injector counts the live ones; under ASan LeakSanitizer checks too).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../scripts/bench-synth.h"
#include "internal.h"
#include "place/place.h"
#include "search/search.h"
#include "planner_util.h"
#include "tap.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static int armed;		/* counting (only around the job) */
static long nalloc;		/* allocations seen while armed */
static long fail_at;		/* 1-based; 0: never */
static long live;		/* allocations not yet freed */

static int fail_now(void)
{
	if (!armed)
		return 0;
	return ++nalloc == fail_at;
}

void *__wrap_malloc(size_t n)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __real_malloc(n);
	if (p && armed)
		live++;
	return p;
}

void *__wrap_calloc(size_t n, size_t sz)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __real_calloc(n, sz);
	if (p && armed)
		live++;
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	if (fail_now())
		return NULL;
	q = __real_realloc(p, n);
	if (q && !p && armed)
		live++;
	return q;
}

void __wrap_free(void *p)
{
	if (p && armed)
		live--;
	__real_free(p);
}

/* What a job leaves: its return code (0 or -errno) and its outputs. */
struct job {
	int rc;
	char plan[1 << 16];
	size_t plan_len;
	int searched;		/* the exact search ran (CSV job) */
	int above;		/* the portfolio missed the lower bound */
};

struct job_in {
	const char *model;	/* a model file, or CSV text */
	struct dp_opts o;
};

/* Writes through a FILE on a fixed buffer: no allocation of ours. */
static FILE *buf_file(char *buf, size_t n)
{
	return fmemopen(buf, n, "w");
}

static int err_code(int rc, const struct dp_err *e)
{
	if (rc == -ENOMEM)	/* the writers take no struct dp_err */
		return rc;
	return rc ? dp_err_code(e) : 0;
}

/* A job's answer: rc as an errno, any message but out of memory shown */
static void job_done(struct job *j, int rc, const struct dp_err *e)
{
	j->rc = err_code(rc, e);
	if (j->rc && j->rc != -ENOMEM)
		printf("# %s\n", e->msg);
}

/* The instance c written as CSV into j->plan: dp_csv_write's answer */
static int csv_plan(const struct dp_csv *c, struct job *j)
{
	FILE *f = buf_file(j->plan, sizeof(j->plan));
	int rc = dp_csv_write(c, f);

	fclose(f);
	j->plan_len = strlen(j->plan);
	return rc;
}

/* Load, plan, verify, write, read back, report: the library end to end. */
static void model_job(const struct job_in *in, struct job *j)
{
	const struct dp_opts *o = &in->o;
	const char *model = in->model;
	static char report[1 << 16], again[1 << 16];
	struct dp_model *m;
	struct dp_plan *p, *q = NULL;
	struct dp_err e = { "" };
	FILE *f;
	int rc = -1;

	memset(j->plan, 0, sizeof(j->plan));
	m = dp_model_load_json(model, &e);
	if (!m)
		goto out;
	p = dp_plan_model(m, o, NULL, &e);
	if (!p)
		goto free_model;
	if (dp_verify(p, "plan", &e))
		goto free_plan;
	f = buf_file(j->plan, sizeof(j->plan));
	rc = dp_plan_write_json(p, f);
	fclose(f);
	if (rc)
		goto free_plan;
	rc = -1;
	j->plan_len = strlen(j->plan);
	q = dp_plan_parse_json("plan", j->plan, j->plan_len, &e);
	if (!q)
		goto free_plan;
	if (dp_verify(q, "plan", &e))
		goto free_plan;
	f = buf_file(report, sizeof(report));
	dp_plan_write_report(q, f, 1);
	fclose(f);
	f = buf_file(again, sizeof(again));
	rc = dp_plan_write_json(q, f);
	fclose(f);
	if (!rc && strcmp(again, j->plan))
		rc = dp_fail(&e, "the plan read back differs");
free_plan:
	dp_plan_free(q);
	dp_plan_free(p);
free_model:
	dp_model_free(m);
out:
	job_done(j, rc, &e);
}

/*
 * A MiniMalloc instance: parse, the exact search (the staircase below
 * defeats the constructive passes, so it runs), verify, the best of the
 * orders, verify, the instance as a model: written out as CSV.
 */
static void csv_job(const struct job_in *in, struct job *j)
{
	struct dp_search_stats st;
	struct dp_model *m = NULL;
	struct dp_csv *c;
	struct dp_err e = { "" };
	int rc = -1;

	memset(j->plan, 0, sizeof(j->plan));
	c = dp_csv_parse("stair.csv", in->model, strlen(in->model), &e);
	if (!c)
		goto out;
	if (dp_csv_solve_search(c, 0, 300, &st, &e) || dp_csv_verify(c, &e))
		goto free_csv;
	j->searched = st.built && st.searched;
	j->above = st.portfolio_end > st.lower_bound;
	if (dp_csv_solve_best(c, 0, NULL, NULL, &e) || dp_csv_verify(c, &e))
		goto free_csv;
	m = dp_csv_model(c, 1, &e);
	if (!m)
		goto free_csv;
	rc = csv_plan(c, j);
free_csv:
	dp_model_free(m);
	dp_csv_free(c);
out:
	job_done(j, rc, &e);
}

/* The CSV's search alone, with 20 nodes (the slice searches' budgets
 * too), and its plan */
static void search_job(const struct job_in *in, struct job *j)
{
	struct dp_search_stats st;
	struct dp_err e = { "" };
	struct dp_csv *c;
	int rc = -1;

	memset(j->plan, 0, sizeof(j->plan));
	c = dp_csv_parse("glue.csv", in->model, strlen(in->model), &e);
	if (c && !dp_csv_solve_search(c, 0, 20, &st, &e)) {
		j->above = st.portfolio_end > st.lower_bound;
		rc = csv_plan(c, j);
	}
	dp_csv_free(c);
	job_done(j, rc, &e);
}

typedef void job_fn(const struct job_in *in, struct job *j);

/* The job once clean, then once per stride-th allocation (from the
 * first) with that one failing. */
static void allocations_fail(job_fn *run_job, const struct job_in *in,
			     const char *name, long stride)
{
	static struct job clean, j;
	long k, n, bad_rc = 0, leaked = 0;

	armed = 1, nalloc = 0, fail_at = 0, live = 0;
	run_job(in, &clean);
	armed = 0;
	k = nalloc;
	REQUIRE(clean.rc == 0);
	REQUIRE(live == 0);
	REQUIRE(k > 0);
	printf("# %s: %ld allocations, every %ld failing once\n", name, k,
	       stride);
	for (n = 1; n <= k; n += stride) {
		armed = 1, nalloc = 0, fail_at = n, live = 0;
		run_job(in, &j);
		armed = 0;
		if (j.rc != -ENOMEM && bad_rc++ < 5)
			printf("# allocation %ld failing: rc %d\n", n, j.rc);
		if (live && leaked++ < 5)
			printf("# allocation %ld failing: %ld left behind\n",
			       n, live);
	}
	CHECK(bad_rc == 0);
	CHECK(leaked == 0);
	/* and the library still works after all that */
	armed = 1, nalloc = 0, fail_at = 0, live = 0;
	run_job(in, &j);
	armed = 0;
	CHECK(j.rc == 0 && live == 0);
	CHECK(j.plan_len == clean.plan_len && !strcmp(j.plan, clean.plan));
}

static void every_allocation_fails_once(job_fn *run_job,
					const struct job_in *in,
					const char *name)
{
	allocations_fail(run_job, in, name, 1);
}

/* The example models, each with the options that reach the most code
 * for it: hazard pairs, the exact search, per-core slabs, dense.c's
 * engine (its k-d tree and address tree). */
TEST(planning_survives_every_allocation_failure)
{
	static const struct {
		const char *file;
		int pairs, strategy, mode, engine;
	} ex[] = {
		{ "mlp.json", 0, DP_STRATEGY_SEED, 0, DP_ENGINE_AUTO },
		{ "allreduce_2core.json", 1, DP_STRATEGY_SEED, 0, DP_ENGINE_AUTO },
		/* events, collectives, the static proof */
		{ "pipeline_4core.json", 1, DP_STRATEGY_SEED, 0, DP_ENGINE_AUTO },
		{ "transformer.json", 0, DP_STRATEGY_SEARCH, 0, DP_ENGINE_AUTO },
		{ "shared_triple_2core.json", 0, DP_STRATEGY_SEED, 1,
		  DP_ENGINE_AUTO },
		{ "transformer.json", 0, DP_STRATEGY_SEED, 0,
		  DP_ENGINE_INCREMENTAL },
	};
	char path[256];
	size_t k;

	for (k = 0; k < sizeof(ex) / sizeof(ex[0]); k++) {
		struct job_in in = { .model = path };

		snprintf(path, sizeof(path), "%s/examples/%s", DP_SRCROOT,
			 ex[k].file);
		dp_opts_default(&in.o);
		in.o.hazard_pairs = ex[k].pairs;
		in.o.strategy = ex[k].strategy;
		in.o.dram_shared_mode = ex[k].mode;
		in.o.engine = ex[k].engine;
		every_allocation_fails_once(model_job, &in, ex[k].file);
	}
}

/* A staircase, buffer i live [i, i + 7), sizes in a fixed pattern: the
 * portfolio (both skyline passes too) misses the lower bound, so the exact
 * search is built and run, then the slice search. */
TEST(minimalloc_search_survives_every_allocation_failure)
{
	static char text[2048];
	struct job_in in = { .model = text };
	static struct job j;
	size_t len, i;

	len = sprintf(text, "id,lower,upper,size\n");
	for (i = 0; i < 24; i++)
		len += sprintf(text + len, "b%zu,%zu,%zu,%zu\n", i, i, i + 7,
			       (i * 7919) % 97 + 1);
	csv_job(&in, &j);
	REQUIRE(j.rc == 0);
	CHECK(j.searched);
	every_allocation_fails_once(csv_job, &in, "staircase.csv");
}

/* Two such staircases of dp_search_defaults.block_min buffers, the second after the
 * first has ended: two time blocks, each searched alone
 * (dp_search_run's place_blocks), then written back. */
TEST(minimalloc_time_blocks_survive_every_allocation_failure)
{
	static char text[4096];
	struct job_in in = { .model = text };
	static struct job j;
	size_t len, i, t;

	len = sprintf(text, "id,lower,upper,size\n");
	for (i = 0; i < 2 * dp_search_defaults.block_min; i++) {
		t = i < dp_search_defaults.block_min ? i : i + 10;
		len += sprintf(text + len, "b%zu,%zu,%zu,%zu\n", i, t,
			       i == dp_search_defaults.block_min - 1 ? t + 1 : t + 7,
			       (i * 7919) % 97 + 1);
	}
	csv_job(&in, &j);
	REQUIRE(j.rc == 0);
	CHECK(j.searched);
	every_allocation_fails_once(csv_job, &in, "two staircases");
}

/* A staircase of 16 steps, each of four buffers live over the same
 * interval and a fifth of their summed size live right after them: 80
 * buffers that glue in two rounds (the four stack, then chain with the
 * fifth), so that a level of one round (2 of each 5) is there to refine
 * (strategy.c).  dp_glue alone with each of its allocations failing,
 * dp_glue_rounds stopped after one round.  Then the search on the
 * benchmark's perfect packing of 200 buffers (seed 6): the portfolio
 * misses the bound and the glued searches (glue.c) run and refine their
 * placement level by level, with every 17th allocation failing (all of
 * them would take minutes under ASan; the stride still fails hundreds
 * inside the glued searches and their refinement). */
#define STEPS 16
TEST(minimalloc_glued_search_survives_every_allocation_failure)
{
	static char text[16384];
	struct job_in in = { .model = text };
	static struct job j;
	struct dp_item it[5 * STEPS];
	struct dp_iv iv[5 * STEPS];
	struct dp_glued g;
	size_t i;
	FILE *f;
	long k;
	int r;

	for (i = 0; i < 5 * STEPS; i++) {
		size_t s = i / 5, z = (s * 7919) % 97 + 1, last = i % 5 == 4;

		iv[i] = (struct dp_iv){ last ? s + 7 : s, last ? s + 9 : s + 6 };
		it[i] = (struct dp_item){ last ? 4 * z : z, 1, i, 1, DP_UNSET };
	}
	REQUIRE(5 * STEPS >= dp_search_defaults.glue_min);
	REQUIRE(!dp_glue(DP_PROBLEM(.it = it, .n = 5 * STEPS, .iv = iv),
			 &dp_search_defaults, DP_GLUE_ALL, &g));
	CHECK(g.k == STEPS && g.rounds == 2);
	dp_glued_free(&g);
	REQUIRE(!dp_glue_rounds(DP_PROBLEM(.it = it, .n = 5 * STEPS, .iv = iv),
				&dp_search_defaults, DP_GLUE_ALL, 1, &g));
	CHECK(g.k == 2 * STEPS && g.rounds == 1 &&
	      g.k * dp_search_defaults.refine_den <= 5 * STEPS * dp_search_defaults.refine_num);
	dp_glued_free(&g);
	for (k = 1;; k++) {
		armed = 1, nalloc = 0, fail_at = k, live = 0;
		r = dp_glue_rounds(DP_PROBLEM(.it = it, .n = 5 * STEPS,
					      .iv = iv), &dp_search_defaults,
				   DP_GLUE_LONG, 1, &g);
		armed = 0;
		if (!r)
			break;
		CHECK(r == -ENOMEM && live == 0);
	}
	CHECK(k > 5);
	dp_glued_free(&g);
	/* DP_GLUE_FEWEST keeps five more arrays across its rounds */
	for (k = 1;; k++) {
		armed = 1, nalloc = 0, fail_at = k, live = 0;
		r = dp_glue(DP_PROBLEM(.it = it, .n = 5 * STEPS, .iv = iv),
			    &dp_search_defaults, DP_GLUE_FEWEST, &g);
		armed = 0;
		if (!r)
			break;
		CHECK(r == -ENOMEM && live == 0);
	}
	CHECK(k > 10 && g.k == STEPS);
	dp_glued_free(&g);
	f = buf_file(text, sizeof(text));
	bench_synth_perfect(f, 200, 6);
	fclose(f);
	REQUIRE(strlen(text) < sizeof(text) - 1);
	search_job(&in, &j);
	REQUIRE(j.rc == 0);
	CHECK(j.above);
	allocations_fail(search_job, &in, "perfect packing of 200", 17);
}

/* Ruin and recreate (ruin_recreate.c) from first fit by size on a CSV instance:
 * the addresses it leaves, one a line. */
static void rr_job(const struct job_in *in, struct job *j)
{
	struct dp_place_stats ps = { 0 };
	struct dp_err e = { "" };
	struct dp_item *it = NULL;
	struct dp_iv *iv = NULL;
	struct dp_ovl *ol = NULL;
	uint64_t *best = NULL, end, lb;
	size_t i, failed, len = 0;
	struct dp_csv *c;
	int rc = -ENOMEM;

	j->plan[0] = 0;
	c = dp_csv_parse("stair.csv", in->model, strlen(in->model), &e);
	if (c) {
		it = calloc(c->n, sizeof(*it));
		iv = calloc(c->n, sizeof(*iv));
		best = calloc(c->n, sizeof(*best));
	}
	if (!it || !iv || !best)
		goto out;
	for (i = 0; i < c->n; i++) {
		iv[i] = (struct dp_iv){ c->b[i].lower, c->b[i].upper - 1 };
		it[i] = (struct dp_item){ c->b[i].size, 1, i, 1, DP_UNSET };
	}
	rc = dp_place(DP_PROBLEM(.it = it, .n = c->n, .iv = iv,
				 .ceiling = UINT64_MAX), DP_ORDER_SIZE,
		      DP_ENGINE_AUTO, &ps, &failed, NULL, "");
	if (!rc)
		rc = dp_ovl_new(it, c->n, iv, SIZE_MAX, &ol);
	for (i = 0; !rc && i < c->n; i++)
		best[i] = it[i].addr;
	end = dp_items_end(it, c->n, 0);
	if (!rc)
		rc = dp_lower_bound_r(it, c->n, iv, &lb);
	if (!rc)
		rc = dp_ruin_recreate_improve(&(struct dp_improve){
			.p = DP_PROBLEM(.it = it, .n = c->n, .iv = iv,
					.ceiling = UINT64_MAX),
			.ol = ol, .par = &dp_search_defaults, .goal = lb,
			.budget = c->n * dp_search_defaults.ruin_item,
			.best = &(struct dp_best){ .addr = best, .end = end } });
	for (i = 0; !rc && i < c->n; i++)
		len += snprintf(j->plan + len, sizeof(j->plan) - len, "%llu\n",
				(unsigned long long)it[i].addr);
	j->plan_len = len;
out:
	dp_ovl_free(ol);
	free(it);
	free(iv);
	free(best);
	dp_csv_free(c);
	j->rc = rc == -ENOMEM || rc == 0 ? rc : -EINVAL;
}

/* The staircase with 40 buffers: ruin and recreate's own allocations,
 * each failing once, give -ENOMEM, leave nothing behind. */
TEST(ruin_and_recreate_survives_every_allocation_failure)
{
	static char text[2048];
	struct job_in in = { .model = text };
	size_t len, i;

	len = sprintf(text, "id,lower,upper,size\n");
	for (i = 0; i < 40; i++)
		len += sprintf(text + len, "b%zu,%zu,%zu,%zu\n", i, i, i + 7,
			       (i * 7919) % 97 + 1);
	every_allocation_fails_once(rr_job, &in, "staircase40.csv");
}

int main(void)
{
	return tap_run();
}
