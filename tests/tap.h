/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the smallest test harness that can honestly count.
 *
 * Each test binary prints TAP: "ok N - name" or "not ok N - name" per test,
 * then the plan "1..N". scripts/check.sh counts those lines across every
 * binary, so a test that crashes before printing its plan is a failure too.
 *
 *	TEST(parse_rejects_zero_size) { ... CHECK(x == 3); ... }
 *	int main(void) { return tap_run(); }
 *
 * CHECK() records a failure and continues; REQUIRE() records it and leaves
 * the current test; SKIP("why") leaves it as skipped ("ok N - name # SKIP
 * why"). Diagnostics go to stdout as "# ..." lines. The output opens with
 * "TAP version 13", as kselftest's does.
 */
#ifndef XMEMSIM_TAP_H
#define XMEMSIM_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
	struct tap_test *next;
};

static struct tap_test *tap_head, **tap_tail = &tap_head;
static int tap_cur_failed;
static const char *tap_cur_skip;

static inline void tap_register(struct tap_test *t)
{
	*tap_tail = t;
	tap_tail = &t->next;
}

#define TEST(name)							\
	static void test_##name(void);					\
	static struct tap_test tap_t_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void tap_reg_##name(void)	\
	{ tap_register(&tap_t_##name); }				\
	static void test_##name(void)

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		tap_cur_failed = 1;					\
	}								\
} while (0)

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: required: %s\n", __FILE__, __LINE__, #cond); \
		tap_cur_failed = 1;					\
		return;							\
	}								\
} while (0)

#define SKIP(why) do {							\
	tap_cur_skip = (why);						\
	return;								\
} while (0)

#define CHECK_EQ_U64(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		printf("#   %s:%d: %s == %s: %llu != %llu\n", __FILE__, __LINE__, \
		       #a, #b, _a, _b);					\
		tap_cur_failed = 1;					\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b)) {				\
		printf("#   %s:%d: %s == %s: \"%s\" != \"%s\"\n", __FILE__, \
		       __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
		tap_cur_failed = 1;					\
	}								\
} while (0)

/* Every string of the list is in text (NULL: none is): a failed check
 * naming each one that is not */
#define CHECK_HAS(text, ...) \
	tap_check_has(__FILE__, __LINE__, (text), \
		      (const char *const[]){ __VA_ARGS__, NULL })

static inline void tap_check_has(const char *file, int line, const char *text,
				 const char *const *want)
{
	for (; *want; want++)
		if (!text || !strstr(text, *want)) {
			printf("#   %s:%d: not found: \"%s\"\n", file, line, *want);
			tap_cur_failed = 1;
		}
}

static inline int tap_run(void)
{
	struct tap_test *t;
	const char *only = getenv("TAP_ONLY");
	int timed = !!getenv("TAP_TIME");	/* each test's wall time */
	int n = 0, failed = 0;
	struct timespec t0, t1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	for (t = tap_head; t; t = t->next) {
		if (only && !strstr(t->name, only))
			continue;
		tap_cur_failed = 0;
		tap_cur_skip = NULL;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		t->fn();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (timed)
			printf("# %s: %.3f s\n", t->name, (double)(t1.tv_sec - t0.tv_sec) +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9);
		n++;
		printf("%sok %d - %s%s%s\n", tap_cur_failed ? "not " : "", n,
		       t->name, tap_cur_skip && !tap_cur_failed ? " # SKIP " : "",
		       tap_cur_skip && !tap_cur_failed ? tap_cur_skip : "");
		failed += tap_cur_failed;
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

#endif /* XMEMSIM_TAP_H */
