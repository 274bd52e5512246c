/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jdoc.h - a strict, compact JSON document for the model and plan readers.
 *
 * Parsed with yajl's streaming parser, fed 1 MiB at a time, into three
 * flat arrays (16-byte nodes for arrays, objects and literals; 4-byte
 * child links, which hold strings and numbers themselves; one string
 * arena where a short text is stored once), so the document holds about
 * as many bytes as its input, not a node per value (the figures are in
 * docs/dramplan.md).  Strict: RFC 8259 grammar only (no comments, single
 * quotes, trailing commas, leading zeros, NaN), valid UTF-8, no duplicate
 * key in an object, no NUL (\u0000) in a string.  Numbers keep their text,
 * so integers are read exactly (jdoc_u64: the full u64 range, range checked).
 * Errors are one line: "FILE:LINE:COL: malformed JSON: what".
 * Also the readers' common part: the typed reads (jrd_type, jrd_u64) and
 * the read-then-build loader (jdoc_load_with, jdoc_parse_with).
 */
#ifndef DRAMPLAN_JDOC_H
#define DRAMPLAN_JDOC_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "libdramplan.h"

#define JNONE UINT32_MAX
#define JDOC_MAX_KEYS 256	/* members of one object; none of ours has 16 */
#define JDOC_MAX_DEPTH 64	/* nesting; ours is 6 deep */

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

/*
 * A value is a uint32_t.  Strings and numbers are held in the value itself
 * (JV_SCALAR, JV_NUM for a number, the text's arena offset below): no node,
 * so a short string costs its 4-byte slot and its text, and short texts
 * are stored once (the builder interns them).  Arrays, objects and the
 * literals are nodes: the value is the node's index (below 2^31).
 */
#define JV_SCALAR 0x80000000u
#define JV_NUM 0x40000000u
#define JV_OFF(v) ((v) & 0x3fffffffu)
#define JV_ARENA_MAX 0x3fffffffu	/* arena offsets stay below it */

struct jnode {
	uint32_t type;
	uint32_t n;	/* array/object member count */
	uint64_t a;	/* array/object: kids offset */
};

struct jdoc {
	struct jnode *node;
	size_t nn, cn;
	uint32_t *kids;	/* arrays: value; objects: key offset, value */
	size_t nk, ck;
	char *str;	/* NUL-terminated strings and number texts */
	size_t ns, cs;
	uint32_t root;
};

/* Whole document from a file / from memory.  0, or -1 with e set. */
int jdoc_load(struct jdoc *d, const char *path, struct dp_err *e);
int jdoc_parse(struct jdoc *d, const char *file, const char *text, size_t len,
	       struct dp_err *e);
void jdoc_free(struct jdoc *d);
/* The bytes the document holds (its arrays as filled, not their slack). */
size_t jdoc_bytes(const struct jdoc *d);

/*
 * The readers' loader: the document from a file / from memory, handed to
 * from(d, file, e), which builds the result (a model, a plan); the
 * document is freed after.  NULL, with e set, if either step fails.
 */
typedef void *jdoc_from_fn(const struct jdoc *d, const char *file,
			   struct dp_err *e);
void *jdoc_load_with(const char *path, jdoc_from_fn *from, struct dp_err *e);
void *jdoc_parse_with(const char *file, const char *text, size_t len,
		      jdoc_from_fn *from, struct dp_err *e);

static inline enum jtype jdoc_type(const struct jdoc *d, uint32_t v)
{
	if (v & JV_SCALAR)
		return v & JV_NUM ? J_NUM : J_STR;
	return (enum jtype)d->node[v].type;
}

/* String/number text length, array/object member count. */
static inline uint32_t jdoc_len(const struct jdoc *d, uint32_t v)
{
	if (v & JV_SCALAR)
		return strlen(d->str + JV_OFF(v));
	return d->node[v].n;
}

/* Array element i. */
static inline uint32_t jdoc_at(const struct jdoc *d, uint32_t v, uint32_t i)
{
	return d->kids[d->node[v].a + i];
}

/* Object member i: key and value. */
static inline const char *jdoc_key(const struct jdoc *d, uint32_t v, uint32_t i)
{
	return d->str + d->kids[d->node[v].a + 2 * (size_t)i];
}

static inline uint32_t jdoc_val(const struct jdoc *d, uint32_t v, uint32_t i)
{
	return d->kids[d->node[v].a + 2 * (size_t)i + 1];
}

/* String (or number) text. */
static inline const char *jdoc_str(const struct jdoc *d, uint32_t v)
{
	return d->str + JV_OFF(v);
}

/* Object member by key, JNONE if absent. */
uint32_t jdoc_get(const struct jdoc *d, uint32_t obj, const char *key);

/*
 * An integer value: 0 and *out for 0 .. 2^64-1; -1 for anything that is
 * not an integer (strings, fractions, exponents); -2 for a negative integer
 * (*out = its magnitude, saturated); -3 for an integer above 2^64-1.
 */
int jdoc_u64(const struct jdoc *d, uint32_t v, uint64_t *out);

const char *jdoc_type_name(enum jtype t);

/* Writing: s as a JSON string literal (the plan and model writers) */
void dp_json_str(FILE *f, const char *s);

/*
 * Typed reads, shared by the model and the plan readers (json_model.c,
 * plan_read.c).  A failure is one message, "FILE: PATH: ...", where PATH
 * is `where`, or `where.key` when key is not NULL; 0, or -1 with e set.
 */
struct jrd {
	const struct jdoc *d;
	const char *file;	/* for messages */
	struct dp_err *e;
};

/* v is of type ty (J_TRUE: true or false), else "PATH: must be WHAT";
 * what NULL: the type's name ("true or false" for J_TRUE). */
int jrd_type(const struct jrd *r, uint32_t v, enum jtype ty,
	     const char *where, const char *key, const char *what);

/* An integer 0 .. 2^64-1, exactly (jdoc_u64).  A negative one is
 * "PATH: negative", or with neg "PATH: negative value N (NEG)". */
int jrd_u64(const struct jrd *r, uint32_t v, const char *where,
	    const char *key, const char *neg, uint64_t *out);

#endif
