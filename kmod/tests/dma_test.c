// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the queued-DMA timing model's duration, the one pure function
 * every modeled time is built from.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "../xmemsim.h"

struct dur_case {
	const char *name;
	u64 latency, bw, len, expect;
};

static const struct dur_case dur_cases[] = {
	{ "latency only", 2000, 16000000000ULL, 0, 2000 },
	{ "16 KB at 16 GB/s: 1 us", 2000, 16000000000ULL, 16000, 3000 },
	{ "1 MiB at 16 GB/s", 2000, 16000000000ULL, 1 << 20, 2000 + 65536 },
	{ "rounds down", 0, 3, 1, 333333333 },
	{ "one byte a second", 0, 1, 5, 5000000000ULL },
	{ "len * 1e9 past 2^64, no overflow", 0, 1000000000, U64_MAX / 2, U64_MAX / 2 },
	{ "saturates", U64_MAX - 1, 1, 1, U64_MAX },
};

static void dur_desc(const struct dur_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dur, dur_cases, dur_desc);

static void duration_test(struct kunit *test)
{
	const struct dur_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xmemsim_dma_duration(c->latency, c->bw, c->len),
			c->expect);
}

/* more bytes never take less time; more bandwidth never takes more */
static void duration_monotonic_test(struct kunit *test)
{
	u64 len, prev = 0;

	for (len = 0; len < (1ULL << 40); len = len * 3 + 1) {
		u64 t = xmemsim_dma_duration(100, 7000000001ULL, len);

		KUNIT_EXPECT_GE(test, t, prev);
		KUNIT_EXPECT_LE(test, t, xmemsim_dma_duration(100, 7000000000ULL, len));
		prev = t;
	}
}

static struct kunit_case dma_cases[] = {
	KUNIT_CASE_PARAM(duration_test, dur_gen_params),
	KUNIT_CASE(duration_monotonic_test),
	{}
};

static struct kunit_suite dma_suite = {
	.name = "xmemsim_dma",
	.test_cases = dma_cases,
};

kunit_test_suite(dma_suite);
