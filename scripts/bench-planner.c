// SPDX-License-Identifier: GPL-2.0
/*
 * bench-planner - plan time against tensor count on synthetic models with
 * bounded overlap, the time of each pass, a naive O(V^2) interference
 * baseline, and peak / lower bound for every run and MiniMalloc CSV.
 * Driven by scripts/bench-planner.sh.  A benchmark: it never gates.
 *
 *   bench-planner [-s SEED] [-W WINDOW] [--baseline-limit SEC]
 *                 [--family sparse|all-live|both] [--reference-limit N]
 *                 [--all-live-max N] [--engine auto|reference|incremental]
 *                 N... [-m DIR]
 *
 * The synthetic model: one core, N tensors, one instruction per tensor.
 * Instruction i defines tensor i and uses 1-3 tensors defined at most W
 * instructions earlier, so at most about W tensors are live at any time.
 * Instructions are cut into blocks of 512; one block in 8 loops back to
 * itself, so the CFG dataflow and the loop extension of intervals are on
 * the measured path.  Sizes: 1 B to 4 MiB (rounded to 4 KiB).
 *
 * The all-live family (synth_all_live) has every tensor live at once.  Its
 * rows also plan the same model with the reference engine (the seed's
 * select, place.c) up to --reference-limit tensors, check that the
 * addresses are the same and print the time ratio.  "norm" is the time per
 * n log2 n divided by that of the smallest size: flat means n log n.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-synth.h"
#include "internal.h"
#include "plan/plan.h"

/* The naive baseline: every pair of tensors, every pair of intervals. */
static uint64_t naive_edges(const struct dp_core *c, uint32_t n)
{
	uint64_t edges = 0;
	uint32_t i, j, a, b;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			const struct dp_tensor *x = &c->t[i], *y = &c->t[j];
			int ov = 0;

			for (a = 0; a < x->iv_count && !ov; a++)
				for (b = 0; b < y->iv_count && !ov; b++) {
					const struct dp_iv *p = &c->iv[x->iv_first + a];
					const struct dp_iv *q = &c->iv[y->iv_first + b];

					ov = p->lo <= q->hi && q->lo <= p->hi;
				}
			edges += ov;
		}
	return edges;
}

static struct dp_model *make_sparse(uint32_t n, uint32_t W, uint64_t seed);

/* --engine: what the rows are measured with (default auto) */
static enum dp_engine bench_engine = DP_ENGINE_AUTO;

/* One planning run of a fresh model: the pipeline's total time and plan. */
struct outcome {
	double gen, total;
	struct dp_pipeline pl;
	struct dp_ctx x;
	struct dp_model *m;
	struct dp_err e;
};

static int plan_once(struct dp_model *(*make)(uint32_t, uint32_t, uint64_t),
		     uint32_t n, uint32_t W, uint64_t seed, enum dp_engine eng,
		     struct outcome *r)
{
	struct dp_opts o;
	double t0 = dp_now();
	int i;

	memset(r, 0, sizeof(*r));
	r->m = make(n, W, seed);
	if (!r->m)
		return -1;
	r->gen = dp_now() - t0;
	dp_opts_default(&o);
	if (make != make_sparse)	/* all live: n * 2 MiB on average */
		o.dram_mib = 1ULL << 26;
	o.engine = eng;
	dp_pipeline_build(&r->pl, &o);
	dp_ctx_init(&r->x, r->m, &o, NULL, &r->e);
	i = dp_pipeline_run(&r->pl, &r->x);
	if (i) {
		fprintf(stderr, "bench-planner: n=%u: %s\n", n, r->e.msg);
		dp_ctx_fini(&r->x);
		dp_model_free(r->m);
		return -1;
	}
	for (i = 0; i < r->pl.n; i++)
		r->total += r->pl.sec[i];
	return 0;
}

static void outcome_free(struct outcome *r)
{
	dp_ctx_fini(&r->x);
	dp_model_free(r->m);
}

static struct dp_model *make_sparse(uint32_t n, uint32_t W, uint64_t seed)
{
	return bench_synth(n, W, seed);
}

static struct dp_model *make_all_live(uint32_t n, uint32_t W, uint64_t seed)
{
	(void)W;
	return bench_synth_all_live(n, seed);
}

/* What the side-by-side summary needs of one row. */
struct row {
	uint32_t n;
	double plan, per, ref;	/* ref < 0: not run */
	int same;
};

static int run_size(int all_live, uint32_t n, uint32_t W, uint64_t seed,
		    double base_limit, double *base_per_pair, uint32_t ref_limit,
		    double per0, struct row *row)
{
	struct outcome r;
	const struct dp_core_plan *cp;
	double per;
	int i;

	int rep, reps = n <= 20000 ? 5 : n <= 200000 ? 3 : 1;

	/* small sizes take milliseconds: keep the fastest of a few runs */
	for (rep = 0; rep < reps; rep++) {
		struct outcome t;

		if (plan_once(all_live ? make_all_live : make_sparse, n, W,
			      seed, bench_engine, &t))
			return -1;
		if (rep && t.total >= r.total) {
			outcome_free(&t);
			continue;
		}
		if (rep)
			outcome_free(&r);
		r = t;
	}
	cp = &r.x.plan->core[0];
	per = r.total * 1e6 / (n * log2((double)n));
	printf("%9u %8.3f %8.3f |", n, r.gen, r.total);
	for (i = 0; i < r.pl.n; i++)
		printf(" %7.3f", r.pl.sec[i]);
	printf(" | %6.3f %6.3f %6.3f | %7.3f %5.2f |", r.x.st.t_tree,
	       r.x.st.t_simplify, r.x.st.t_select, per,
	       per / (per0 > 0 ? per0 : per));
	printf(" %10zu %12llu %12llu %6.3f",
	       r.x.st.edges, (unsigned long long)cp->peak,
	       (unsigned long long)cp->lower_bound,
	       cp->lower_bound ? (double)cp->peak / cp->lower_bound : 1.0);
	row->n = n;
	row->plan = r.total;
	row->per = per;
	row->ref = -1;
	row->same = 1;
	if (all_live) {
		/* the reference engine on the same model, where it is quick */
		struct outcome q;
		uint32_t k;

		if (n > ref_limit) {
			printf(" | reference skipped (n > %u)\n", ref_limit);
		} else if (plan_once(make_all_live, n, W, seed,
				     DP_ENGINE_REFERENCE, &q)) {
			printf(" | reference failed\n");
		} else {
			const struct dp_core_plan *qp = &q.x.plan->core[0];

			for (k = 0; k < cp->n; k++)
				if (cp->t[k].addr != qp->t[k].addr)
					row->same = 0;
			row->ref = q.total;
			printf(" | reference %8.3f s, %6.1fx (%s)\n", q.total,
			       q.total / r.total,
			       row->same ? "same addresses" : "ADDRESSES DIFFER");
			outcome_free(&q);
		}
	} else {
		/* naive O(V^2) baseline while it stays under the limit */
		double pairs = (double)n * (n - 1) / 2, est;

		if (*base_per_pair <= 0) {	/* calibrate on a prefix */
			uint32_t k = n < 3000 ? n : 3000;
			double b0 = dp_now();

			naive_edges(&r.m->c[0], k);
			*base_per_pair = (dp_now() - b0) / ((double)k * (k - 1) / 2 + 1);
		}
		est = pairs * *base_per_pair;

		if (est < base_limit) {
			double b0 = dp_now();
			uint64_t ne = naive_edges(&r.m->c[0], n);
			double bt = dp_now() - b0;

			*base_per_pair = bt / pairs;
			printf(" | naive %8.3f s%s\n", bt,
			       ne == r.x.st.edges ? " (same edges)" : " (EDGES DIFFER)");
		} else {
			printf(" | naive skipped (est. %.0f s)\n", est);
		}
	}
	fflush(stdout);
	outcome_free(&r);
	return 0;
}

static void table_head(void)
{
	printf("%9s %8s %8s | %-79s | %-20s | %7s %5s | %10s %12s %12s %6s | baseline\n",
	       "tensors", "generate", "plan", "per pass", "tree   simpl  select",
	       "us/nlgn", "norm", "edges", "peak", "lower bound", "ratio");
}

static int run_family(int all_live, const uint32_t *sizes, uint32_t ns,
		      uint32_t W, uint64_t seed, double limit,
		      uint32_t ref_limit, uint32_t max, struct row *rows)
{
	double per_pair = 0;
	uint32_t i;

	table_head();
	for (i = 0; i < ns; i++) {
		rows[i].n = 0;
		if (sizes[i] > max) {
			printf("%9u skipped (above --all-live-max %u)\n", sizes[i], max);
			continue;
		}
		if (run_size(all_live, sizes[i], W, seed, limit, &per_pair,
			     ref_limit, i ? rows[0].per : 0, &rows[i]))
			return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_minimalloc(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *names[256];
	int n = 0, i;
	double worst = 0, sum = 0;
	int cnt = 0;

	if (!d) {
		printf("minimalloc: %s: cannot open\n", dir);
		return;
	}
	while ((de = readdir(d)) && n < 256)
		if (strstr(de->d_name, ".csv"))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	printf("\nMiniMalloc instances (%s): best of simplify/size/area/start orders\n", dir);
	printf("%-22s %7s %10s %12s %7s %9s %-8s\n", "instance", "buffers", "peak",
	       "lower bound", "ratio", "time s", "order");
	for (i = 0; i < n; i++) {
		static const char *const on[] = { "simplify", "size", "area", "start" };
		char path[1024];
		struct dp_err e;
		struct dp_place_stats st = { 0 };
		enum dp_order used = DP_ORDER_SIMPLIFY;
		struct dp_csv *c;
		double t0, t;
		uint64_t peak, lb;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		c = dp_csv_load(path, &e);
		if (!c) {
			printf("%-22s %s\n", names[i], e.msg);
			free(names[i]);
			continue;
		}
		t0 = dp_now();
		if (dp_csv_solve_best(c, 0, &st, &used, &e) || dp_csv_verify(c, &e)) {
			printf("%-22s %s\n", names[i], e.msg);
		} else {
			t = dp_now() - t0;
			peak = dp_csv_peak(c);
			lb = dp_csv_lower_bound(c);
			printf("%-22s %7zu %10llu %12llu %7.3f %9.4f %-8s\n", names[i],
			       c->n, (unsigned long long)peak, (unsigned long long)lb,
			       (double)peak / lb, t, on[used]);
			if (c->n > 12) {
				sum += (double)peak / lb;
				cnt++;
				if ((double)peak / lb > worst)
					worst = (double)peak / lb;
			}
		}
		dp_csv_free(c);
		free(names[i]);
	}
	if (cnt)
		printf("mean ratio %.3f, worst %.3f over %d challenging instances\n",
		       sum / cnt, worst, cnt);
}

int main(int argc, char **argv)
{
	uint32_t sizes[32], ns = 0, W = 16, ref_limit = 5000, al_max = 100000, i;
	uint64_t seed = 1;
	double limit = 60;
	const char *mdir = NULL, *family = "both";
	struct row sp[32], al[32];
	int do_sparse, do_all;

	for (i = 1; i < (uint32_t)argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < (uint32_t)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-W") && i + 1 < (uint32_t)argc)
			W = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--baseline-limit") && i + 1 < (uint32_t)argc)
			limit = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--family") && i + 1 < (uint32_t)argc)
			family = argv[++i];
		else if (!strcmp(argv[i], "--reference-limit") && i + 1 < (uint32_t)argc)
			ref_limit = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--engine") && i + 1 < (uint32_t)argc) {
			i++;
			bench_engine = !strcmp(argv[i], "reference") ? DP_ENGINE_REFERENCE :
				       !strcmp(argv[i], "incremental") ? DP_ENGINE_INCREMENTAL :
				       DP_ENGINE_AUTO;
		} else if (!strcmp(argv[i], "--all-live-max") && i + 1 < (uint32_t)argc)
			al_max = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-m") && i + 1 < (uint32_t)argc)
			mdir = argv[++i];
		else if (ns < 32)
			sizes[ns++] = strtoul(argv[i], NULL, 0);
	}
	do_sparse = strcmp(family, "all-live") != 0;
	do_all = strcmp(family, "sparse") != 0;
	if (ns) {
		printf("passes: number liveness find_start_addr cc_buffer_size coloring_allocator_dram build_plan sync_shared check_placed post_shared_hazards totals\n");
		printf("  (inside coloring_allocator_dram: tree = build + neighbour queries, simplify, select)\n");
		printf("  norm = us/nlgn divided by that of the smallest size (flat = n log n growth)\n");
	}
	if (ns && do_sparse) {
		printf("\nsparse: synthetic single-core models, window W=%u (bounded overlap), seed %llu; times in seconds\n",
		       W, (unsigned long long)seed);
		if (run_family(0, sizes, ns, W, seed, limit, ref_limit,
			       UINT32_MAX, sp))
			return 1;
	}
	if (ns && do_all) {
		printf("\nall-live: every tensor live at once (n^2/2 edges), --dram-size 64 TiB, seed %llu; reference = the seed's select (engine REFERENCE) on the same model, up to %u tensors\n",
		       (unsigned long long)seed, ref_limit);
		if (run_family(1, sizes, ns, W, seed, limit, ref_limit, al_max,
			       al))
			return 1;
	}
	if (ns && do_sparse && do_all) {
		printf("\nside by side (plan seconds; norm as above; reference/new on the all-live model)\n");
		printf("%9s | %8s %6s | %8s %6s | %9s %8s\n", "tensors",
		       "sparse", "norm", "all-live", "norm", "reference", "ref/new");
		for (i = 0; i < ns; i++) {
			printf("%9u | %8.3f %6.2f |", sizes[i], sp[i].plan,
			       sp[i].per / sp[0].per);
			if (!al[i].n || !al[0].n) {
				printf(" %8s %6s | %9s %8s\n", "-", "-", "-", "-");
				continue;
			}
			printf(" %8.3f %6.2f |", al[i].plan, al[i].per / al[0].per);
			if (al[i].ref >= 0)
				printf(" %9.3f %7.1fx%s\n", al[i].ref,
				       al[i].ref / al[i].plan,
				       al[i].same ? "" : " ADDRESSES DIFFER");
			else
				printf(" %9s %8s\n", "-", "-");
		}
	}
	if (mdir)
		run_minimalloc(mdir);
	return 0;
}
