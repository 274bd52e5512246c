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

/*
 * fuzz_write_NAME and fuzz_read_NAME: a library writer and reader (of
 * TYPE, reading as file FILE) in the shapes fuzz_mem and fuzz_round_trip
 * take.
 */
#define FUZZ_CODEC(name, type, writer, reader, file)			\
static inline int fuzz_write_##name(const void *obj, FILE *f)		\
{									\
	return writer((const type *)obj, f);				\
}									\
static inline void *fuzz_read_##name(const char *text, size_t n,	\
				     struct dp_err *e)			\
{									\
	return reader(file, text, n, e);				\
}

FUZZ_CODEC(plan, struct dp_plan, dp_plan_write_json, dp_plan_parse_json,
	   "fuzz.plan.json")

/*
 * obj written (write), the text read back (read), and what was read
 * written again: the same bytes.  Returns what was read back, for the
 * caller's further checks and to free; what names the kind in messages.
 */
static inline void *fuzz_round_trip(int (*write)(const void *, FILE *),
				    void *(*read)(const char *, size_t, struct dp_err *),
				    const void *obj, const char *what)
{
	struct dp_err e = { "" };
	size_t na, nb;
	char msg[80], *a, *b;
	void *back;

	a = fuzz_mem(write, obj, &na);
	back = read(a, na, &e);
	snprintf(msg, sizeof(msg), "a written %s does not read back", what);
	if (!back)
		fuzz_die(msg, e.msg);
	b = fuzz_mem(write, back, &nb);
	snprintf(msg, sizeof(msg), "a %s read back writes different bytes", what);
	if (na != nb || memcmp(a, b, na))
		fuzz_die(msg, NULL);
	free(a);
	free(b);
	return back;
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
	size_t ns;
	char *s;
	int v1, v2;

	v1 = dp_verify(p, "fuzz", &e);
	fuzz_msg(&e);
	if (must_verify && v1)
		fuzz_die("verify rejects a plan the planner made", e.msg);
	q = fuzz_round_trip(fuzz_write_plan, fuzz_read_plan, p, "plan");
	v2 = dp_verify(q, "fuzz", &e);
	if (!v1 != !v2)
		fuzz_die("verify judges a plan read back differently", e.msg);
	dp_plan_free(q);
	s = fuzz_mem(fuzz_plan_svg, p, &ns);
	free(s);
	s = fuzz_mem(fuzz_plan_report, p, &ns);
	free(s);
}

#endif
