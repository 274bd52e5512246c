// SPDX-License-Identifier: GPL-2.0
/*
 * bench-quality - seed vs --strategy search on training-shaped models
 * (bench_synth_train: long-lived weights, nested activations, short
 * temporaries, shared all-reduced gradients over 4 cores), planned
 * in-process: the highest per-core peak and lower bound, the time of each,
 * and whether the search's plan verifies and is never worse.
 *
 *   bench-quality N...      (total tensors, e.g. 10000 100000)
 *   bench-quality --off NAMES N...   the same with those parts of the
 *                                    search left out (dramplan --search-off)
 *   bench-quality --perfect N SEED     a perfect packing, CSV on stdout
 *   bench-quality --staircase N W      a staircase, CSV on stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-synth.h"

/* --off: the parts of the search left out (NULL: none) */
static const char *off;

static int plan(uint32_t n, int strategy, uint64_t *peak, uint64_t *lb,
		double *sec)
{
	struct dp_model *m = bench_synth_train(n, 4, 7);
	struct dp_err e = { "" };
	struct dp_plan *p;
	struct dp_opts o;
	double t0;
	uint32_t ci;
	int rc = 0;

	if (!m)
		return -1;
	dp_opts_default(&o);
	o.cc_mib = -1;
	o.strategy = strategy;
	o.search_off = off;
	t0 = dp_now();
	p = dp_plan_model(m, &o, NULL, &e);
	*sec = dp_now() - t0;
	if (!p || dp_verify(p, "bench", &e)) {
		fprintf(stderr, "bench-quality: %s\n", e.msg);
		rc = -1;
	} else {
		*peak = *lb = 0;
		for (ci = 0; ci < p->ncores; ci++) {
			if (p->core[ci].peak > *peak)
				*peak = p->core[ci].peak;
			if (p->core[ci].lower_bound > *lb)
				*lb = p->core[ci].lower_bound;
		}
	}
	dp_plan_free(p);
	dp_model_free(m);
	return rc;
}

int main(int argc, char **argv)
{
	int i = 1, rc = 0;

	if (argc == 4 && !strcmp(argv[1], "--perfect")) {
		bench_synth_perfect(stdout, strtoul(argv[2], NULL, 10),
				    strtoull(argv[3], NULL, 10));
		return fflush(stdout) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--staircase")) {
		bench_synth_staircase(stdout, strtoul(argv[2], NULL, 10),
				      strtoul(argv[3], NULL, 10));
		return fflush(stdout) ? 1 : 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--off")) {
		off = argv[2];
		i = 3;
	}
	printf("%-9s %14s %14s %14s %7s %9s %9s %s\n", "tensors", "lower bound",
	       "seed peak", "search peak", "ratio", "seed s", "search s",
	       "verify");
	for (; i < argc; i++) {
		uint32_t n = strtoul(argv[i], NULL, 10);
		uint64_t p0 = 0, p1 = 0, t0, t1;
		double s0, s1;

		if (plan(n, DP_STRATEGY_SEED, &p0, &t0, &s0) ||
		    plan(n, DP_STRATEGY_SEARCH, &p1, &t1, &s1)) {
			rc = 1;
			continue;
		}
		printf("%-9u %14llu %14llu %14llu %7.3f %9.2f %9.2f %s\n", n,
		       (unsigned long long)t1, (unsigned long long)p0,
		       (unsigned long long)p1,
		       p0 ? (double)p1 / p0 : 1.0, s0, s1,
		       p1 <= p0 ? "ok, never worse" : "WORSE");
	}
	return rc;
}
