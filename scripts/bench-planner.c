// SPDX-License-Identifier: GPL-2.0
/*
 * bench-planner - plan time against tensor count on synthetic models with
 * bounded overlap, the time of each pass, a naive O(V^2) interference
 * baseline, and peak / lower bound for every run and MiniMalloc CSV.
 * Driven by scripts/bench-planner.sh.  A benchmark: it never gates.
 *
 *   bench-planner [-s SEED] [-W WINDOW] [--baseline-limit SEC] N... [-m DIR]
 *
 * The synthetic model: one core, N tensors, one instruction per tensor.
 * Instruction i defines tensor i and uses 1-3 tensors defined at most W
 * instructions earlier, so at most about W tensors are live at any time.
 * Instructions are cut into blocks of 512; one block in 8 loops back to
 * itself, so the CFG dataflow and the loop extension of intervals are on
 * the measured path.  Sizes: 1 B to 4 MiB (rounded to 4 KiB).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dramplan.h"
#include "xorshift.h"

static struct dp_model *synth(uint32_t n, uint32_t W, uint64_t seed)
{
	uint64_t rs = seed | 1;
	struct dp_model *m = dp_model_new("synthetic", "synthetic");
	struct dp_err e;
	struct dp_core *c = dp_core_add(m, "f", &e);
	uint32_t i, nb = (n + 511) / 512, b;
	char name[32];

	for (i = 0; i < n; i++) {
		struct dp_tensor_spec s = { .name = name,
			.elems = 1 + xorshift64_below(&rs, 1u << 20),
			.elem_size = 1 << xorshift64_below(&rs, 3) };

		snprintf(name, sizeof(name), "t%u", i);
		if (s.elems * s.elem_size > (4u << 20))
			s.elem_size = 1;
		if (dp_tensor_add(m, c, &s, "synth", &e) < 0)
			goto fail;
	}
	for (b = 0; b < nb; b++) {
		snprintf(name, sizeof(name), "b%u", b);
		if (dp_block_add(m, c, name, "synth", &e) < 0)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		uint32_t uses[3], nu = 0, k, want = 1 + xorshift64_below(&rs, 3);

		b = i / 512;
		for (k = 0; k < want && i > 0; k++)
			uses[nu++] = i - 1 - xorshift64_below(&rs, i < W ? i : W);
		if (dp_inst_add(m, c, b, NULL, &i, 1, uses, nu, 0, "synth", &e))
			goto fail;
		if (i % 512 == 511 || i == n - 1) {
			if (b % 8 == 7 && dp_succ_add(c, b, b, &e))
				goto fail;
			if (b + 1 < nb && dp_succ_add(c, b, b + 1, &e))
				goto fail;
		}
	}
	if (dp_model_link(m, &e))
		goto fail;
	return m;
fail:
	fprintf(stderr, "bench-planner: generator: %s\n", e.msg);
	dp_model_free(m);
	return NULL;
}

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

static int run_size(uint32_t n, uint32_t W, uint64_t seed, double base_limit,
		    double *base_per_pair)
{
	struct dp_pipeline pl;
	struct dp_opts o;
	struct dp_ctx x;
	struct dp_err e;
	struct dp_model *m;
	double t0 = dp_now(), tgen, total = 0;
	const struct dp_core_plan *cp;
	int i;

	m = synth(n, W, seed);
	if (!m)
		return -1;
	tgen = dp_now() - t0;
	dp_opts_default(&o);
	dp_pipeline_build(&pl, &o);
	dp_ctx_init(&x, m, &o, NULL, &e);
	if (dp_pipeline_run(&pl, &x)) {
		fprintf(stderr, "bench-planner: n=%u: %s\n", n, e.msg);
		return -1;
	}
	for (i = 0; i < pl.n; i++)
		total += pl.sec[i];
	cp = &x.plan->core[0];
	printf("%9u %8.3f %8.3f |", n, tgen, total);
	for (i = 0; i < pl.n; i++)
		printf(" %7.3f", pl.sec[i]);
	printf(" | %6.3f %6.3f %6.3f | %7.3f |", x.st.t_tree, x.st.t_simplify,
	       x.st.t_select, total * 1e6 / (n * log2((double)n)));
	printf(" %10zu %12llu %12llu %6.3f",
	       x.st.edges, (unsigned long long)cp->peak,
	       (unsigned long long)cp->lower_bound,
	       cp->lower_bound ? (double)cp->peak / cp->lower_bound : 1.0);
	{
		/* naive O(V^2) baseline while it stays under the limit */
		double pairs = (double)n * (n - 1) / 2, est;

		if (*base_per_pair <= 0) {	/* calibrate on a prefix */
			uint32_t k = n < 3000 ? n : 3000;
			double b0 = dp_now();

			naive_edges(&m->c[0], k);
			*base_per_pair = (dp_now() - b0) / ((double)k * (k - 1) / 2 + 1);
		}
		est = pairs * *base_per_pair;

		if (est < base_limit) {
			double b0 = dp_now();
			uint64_t ne = naive_edges(&m->c[0], n);
			double bt = dp_now() - b0;

			*base_per_pair = bt / pairs;
			printf(" | naive %8.3f s%s\n", bt,
			       ne == x.st.edges ? " (same edges)" : " (EDGES DIFFER)");
		} else {
			printf(" | naive skipped (est. %.0f s)\n", est);
		}
	}
	fflush(stdout);
	dp_ctx_fini(&x);
	dp_model_free(m);
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
	uint32_t sizes[32], ns = 0, W = 16;
	uint64_t seed = 1;
	double limit = 60, per_pair = 0;
	const char *mdir = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-W") && i + 1 < argc)
			W = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--baseline-limit") && i + 1 < argc)
			limit = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			mdir = argv[++i];
		else if (ns < 32)
			sizes[ns++] = strtoul(argv[i], NULL, 0);
	}
	if (ns) {
		printf("synthetic single-core models, window W=%u (bounded overlap), seed %llu; times in seconds\n",
		       W, (unsigned long long)seed);
		printf("passes: number liveness find_start_addr cc_buffer_size coloring_allocator_dram build_plan sync_shared check_placed post_shared_hazards totals\n");
		printf("  (inside coloring_allocator_dram: tree = build + neighbour queries, simplify, select)\n");
		printf("%9s %8s %8s | %-79s | %-20s | %7s | %10s %12s %12s %6s | baseline\n",
		       "tensors", "generate", "plan", "per pass", "tree   simpl  select",
		       "us/nlgn", "edges", "peak", "lower bound", "ratio");
		for (i = 0; i < (int)ns; i++)
			if (run_size(sizes[i], W, seed, limit, &per_pair))
				return 1;
	}
	if (mdir)
		run_minimalloc(mdir);
	return 0;
}
