/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the three libFuzzer harnesses share.  A harness returns 0
 * for every input it can judge, and abort()s when an invariant breaks:
 * a plan the planner made that verify rejects, a plan or model that does
 * not read back as written, a message with a newline in it.
 */
#ifndef DRAMPLAN_FUZZ_H
#define DRAMPLAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_die(const char *what, const char *msg)
{
	fprintf(stderr, "fuzz invariant broken: %s%s%s\n", what,
		msg ? ": " : "", msg ? msg : "");
	abort();
}

/* Every message is one line. */
static inline void fuzz_msg(const struct dp_err *e)
{
	if (strchr(e->msg, '\n'))
		fuzz_die("a message with a newline", e->msg);
}

/* Runs fn(arg, f) into memory; returns the bytes (caller frees). */
static inline char *fuzz_mem(int (*fn)(const void *, FILE *), const void *arg,
			     size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (fn(arg, f))
		fuzz_die("a writer failed", NULL);
	fclose(f);
	return buf;
}

static inline int fuzz_plan_json(const void *p, FILE *f)
{
	return dp_plan_write_json(p, f);
}

static inline int fuzz_plan_svg(const void *p, FILE *f)
{
	return dp_plan_write_svg_max(p, f, 500);
}

static inline int fuzz_plan_report(const void *p, FILE *f)
{
	dp_plan_write_report(p, f, 1);
	return 0;
}

/*
 * A plan: written, read back, written again -- the same bytes; what was
 * read back verifies exactly as the original did; the SVG and the report
 * can be drawn.  must_verify: the planner made it, verify must accept it.
 */
static inline void fuzz_check_plan(const struct dp_plan *p, int must_verify)
{
	struct dp_err e = { "" };
	struct dp_plan *q;
	size_t na, nb, ns;
	char *a, *b, *s;
	int v1, v2;

	v1 = dp_verify(p, "fuzz", &e);
	fuzz_msg(&e);
	if (must_verify && v1)
		fuzz_die("verify rejects a plan the planner made", e.msg);
	a = fuzz_mem(fuzz_plan_json, p, &na);
	q = dp_plan_parse_json("fuzz.plan.json", a, na, &e);
	if (!q)
		fuzz_die("a written plan does not read back", e.msg);
	b = fuzz_mem(fuzz_plan_json, q, &nb);
	if (na != nb || memcmp(a, b, na))
		fuzz_die("a plan read back writes different bytes", NULL);
	v2 = dp_verify(q, "fuzz", &e);
	if (!v1 != !v2)
		fuzz_die("verify judges a plan read back differently", e.msg);
	dp_plan_free(q);
	s = fuzz_mem(fuzz_plan_svg, p, &ns);
	free(s);
	s = fuzz_mem(fuzz_plan_report, p, &ns);
	free(s);
	free(a);
	free(b);
}

#endif
