// SPDX-License-Identifier: GPL-2.0
/*
 * --capacity and the minimiser agree: whenever --strategy search without
 * a capacity ends at a peak P, --capacity P finds a placement within P
 * (dp_search_run with .within runs the minimiser's phases first). On the
 * instances scripts/bench-quality.sh plans -- the eleven MiniMalloc ones
 * and its perfect packings (a 1,000-buffer one used to fail: the passes
 * found nothing within the capacity, so the skyline top that reaches it
 * never ran) -- and on 200 random problems, half perfect packings of
 * random sizes and seeds, half uniform.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "planner_util.h"
#include "tap.h"
#include "xorshift.h"
#include "../../scripts/bench-synth.h"

#ifdef __SANITIZE_ADDRESS__
#define RANDOM 40		/* 200 took minutes under ASan */
#define PERFECT_MAX 300
#else
#define RANDOM 200
#define PERFECT_MAX 1000
#endif

static char text[1 << 20];

/* Solves text as CSV, at capacity (0: minimise); the peak, or 0 if none. */
static uint64_t solve(const char *name, size_t len, uint64_t capacity,
		      struct dp_search_stats *st)
{
	struct dp_err e = { "" };
	struct dp_csv *c = dp_csv_parse(name, text, len, &e);
	uint64_t peak = 0;

	if (!c)
		return 0;
	memset(st, 0, sizeof(*st));
	if (!dp_csv_solve_search(c, capacity, DP_UNSET, st, &e) &&
	    !dp_csv_verify(c, &e))
		peak = dp_csv_peak(c);
	else if (capacity)
		printf("#   %s at %llu: %s\n", name, (unsigned long long)capacity, e.msg);
	dp_csv_free(c);
	return peak;
}

/* The minimiser's peak P, then --capacity P: a placement within P. */
static int agree(const char *name, size_t len)
{
	struct dp_search_stats st;
	uint64_t p = solve(name, len, 0, &st), q;

	if (!p) {
		printf("#   %s: the minimiser found nothing\n", name);
		return 0;
	}
	q = solve(name, len, p, &st);
	if (!q || q > p) {
		printf("#   %s: minimiser %llu, --capacity %llu: %llu\n", name,
		       (unsigned long long)p, (unsigned long long)p, (unsigned long long)q);
		return 0;
	}
	return 1;
}

static size_t perfect(uint32_t n, uint64_t seed)
{
	FILE *f = fmemopen(text, sizeof(text) - 1, "w");
	size_t len;

	bench_synth_perfect(f, n, seed);
	len = (size_t)ftell(f);
	fclose(f);
	return len;
}

TEST(bench_quality_perfect_packings)
{
	static const uint32_t sizes[] = { 100, 300, 1000 };
	char name[64];
	int bad = 0;
	size_t i;
	uint64_t sd;

	for (i = 0; i < 3; i++) {
		if (sizes[i] > PERFECT_MAX)
			continue;
		/* of the 1,000s only seed 2, one that failed (7 s a seed) */
		for (sd = sizes[i] == 1000 ? 2 : 1; sd <= (sizes[i] == 1000 ? 2u : 3u); sd++) {
			snprintf(name, sizeof(name), "perfect-%u-%llu.csv", sizes[i],
				 (unsigned long long)sd);
			bad += !agree(name, perfect(sizes[i], sd));
		}
	}
	CHECK_EQ_U64(bad, 0);
}

TEST(bench_quality_minimalloc_instances)
{
#ifdef __SANITIZE_ADDRESS__
	static const char inst[] = "";	/* 35 s plain: not under ASan */
#else
	static const char inst[] = "ABCDEFGHIJK";
#endif
	char path[512];
	int bad = 0;
	const char *x;

	for (x = inst; *x; x++) {
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path), "%s/tests/data/minimalloc/%c.1048576.csv",
			 DP_SRCROOT, *x);
		f = fopen(path, "r");
		if (!f) {
			printf("# %s: %s\n", path, strerror(errno));
			bad++;
			continue;
		}
		len = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		bad += !agree(path, len);
	}
	CHECK_EQ_U64(bad, 0);
}

/* Uniform problems: n buffers with random lifetimes in [0, 60) and sizes. */
static size_t uniform(uint64_t *s, uint32_t n)
{
	size_t len = (size_t)snprintf(text, sizeof(text), "id,lower,upper,size\n");
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t lo = xorshift64_below(s, 60), hi = lo + 1 + xorshift64_below(s, 20);

		len += (size_t)snprintf(text + len, sizeof(text) - len, "b%u,%llu,%llu,%llu\n",
					i, (unsigned long long)lo, (unsigned long long)hi,
					(unsigned long long)(1 + xorshift64_below(s, 1000)));
	}
	return len;
}

TEST(random_problems)
{
	uint64_t s = 35 * 0x9e3779b97f4a7c15ULL + 1;
	char name[64];
	int bad = 0, k;

	for (k = 0; k < RANDOM; k++) {
		size_t len;

		if (k % 2) {
			uint32_t n = 10 + (uint32_t)xorshift64_below(&s, 150);
			uint64_t sd = xorshift64(&s);

			snprintf(name, sizeof(name), "random-perfect-%u-%llx.csv", n,
				 (unsigned long long)sd);
			len = perfect(n, sd);
		} else {
			uint32_t n = 5 + (uint32_t)xorshift64_below(&s, 120);

			snprintf(name, sizeof(name), "random-uniform-%d-%u.csv", k, n);
			len = uniform(&s, n);
		}
		bad += !agree(name, len);
	}
	CHECK_EQ_U64(bad, 0);
}

int main(void)
{
	return tap_run();
}
