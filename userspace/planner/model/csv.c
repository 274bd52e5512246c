// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - MiniMalloc's CSV: id,lower,upper,size[,alignment][,offset].
 *
 * A pure placement problem: buffer i is live over the half-open time range
 * [lower, upper) and needs size bytes; find offsets such that buffers live
 * at the same time do not overlap.  The CSV's own sizes are used (no 4 KiB
 * rounding); an alignment column makes offsets multiples of it.  The same
 * interval tree, simplify and first-fit search as the DRAM planner do the
 * work, with the page-straddle rule off (page = 0): it is a DRAM rule, not
 * part of MiniMalloc's problem.  Times become closed [lower, upper - 1].
 * This file reads and checks an instance (plan/csv_plan.c solves and
 * verifies it, io/csv.c writes it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"

enum { C_ID, C_LOWER, C_UPPER, C_SIZE, C_ALIGN, C_OFFSET, C_N };
static const char *const col_names[C_N] = { "id", "lower", "upper", "size",
					    "alignment", "offset" };

void dp_csv_free(struct dp_csv *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->b[i].id);
	free(c->b);
	free(c->file);
	free(c);
}

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (s[i] - '0')) / 10)
			return -2;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int cmp_ids(const void *a, const void *b)
{
	const struct dp_csv_buf *x = a, *y = b;

	return strcmp(x->id, y->id);
}

/* One line of the file, split on commas, each field trimmed of blanks. */
struct csv_line {
	const char *file;
	const char *start;	/* the line's first byte: columns count from it */
	int no;			/* line number, from 1 */
	int nf;
	const char *f[16];
	size_t fl[16];
};

/* Splits [l->start, le); a NUL byte or more than 16 fields is an error. */
static int csv_split(struct csv_line *l, const char *le, struct dp_err *e)
{
	const char *p = l->start, *q = p;
	const char *nul = memchr(p, 0, le - p);

	if (nul) {
		dp_fail(e, "%s:%d:%d: malformed CSV: NUL byte", l->file, l->no,
			(int)(nul - p) + 1);
		return -1;
	}
	l->nf = 0;
	for (;;) {
		const char *comma = memchr(q, ',', le - q), *fe = comma ? comma : le;

		if (l->nf == 16) {
			dp_fail(e, "%s:%d: malformed CSV: more than 16 columns",
				l->file, l->no);
			return -1;
		}
		while (q < fe && (*q == ' ' || *q == '\t'))
			q++;
		l->f[l->nf] = q;
		while (fe > q && (fe[-1] == ' ' || fe[-1] == '\t'))
			fe--;
		l->fl[l->nf++] = fe - q;
		if (!comma)
			return 0;
		q = comma + 1;
	}
}

/* The header: every column known, none twice, id/lower/upper/size there;
 * col_of[k] is the field of column k (-1: absent). */
static int csv_header(struct dp_csv *c, const struct csv_line *l,
		      int col_of[C_N], struct dp_err *e)
{
	int i;

	for (i = 0; i < l->nf; i++) {
		int k;

		for (k = 0; k < C_N; k++)
			if (l->fl[i] == strlen(col_names[k]) &&
			    !memcmp(l->f[i], col_names[k], l->fl[i]))
				break;
		if (k == C_N) {
			dp_fail(e, "%s:%d:%d: malformed CSV: unknown column \"%.*s\" (expected id,lower,upper,size[,alignment][,offset])",
				l->file, l->no, (int)(l->f[i] - l->start) + 1,
				(int)l->fl[i], l->f[i]);
			return -1;
		}
		if (col_of[k] >= 0) {
			dp_fail(e, "%s:%d:%d: malformed CSV: duplicate column \"%s\"",
				l->file, l->no, (int)(l->f[i] - l->start) + 1,
				col_names[k]);
			return -1;
		}
		col_of[k] = i;
	}
	for (i = 0; i < C_OFFSET; i++)
		if (i != C_ALIGN && col_of[i] < 0) {
			dp_fail(e, "%s:%d: malformed CSV: header lacks the \"%s\" column (expected id,lower,upper,size[,alignment])",
				l->file, l->no, col_names[i]);
			return -1;
		}
	c->has_align = col_of[C_ALIGN] >= 0;
	c->has_offset = col_of[C_OFFSET] >= 0;
	return 0;
}

/* One buffer row, appended to c->b (cap: its allocated length). */
static int csv_row(struct dp_csv *c, size_t *cap, const struct csv_line *l,
		   const int col_of[C_N], struct dp_err *e)
{
	const char *file = l->file;
	int line = l->no, id = col_of[C_ID], k;
	uint64_t v[C_N] = { 0 };
	struct dp_csv_buf *b;

	if (dp_grow(&c->b, cap, c->n + 1, sizeof(*c->b), 256))
		return dp_nomem(e);
	b = &c->b[c->n];
	memset(b, 0, sizeof(*b));
	if (!l->fl[id]) {
		dp_fail(e, "%s:%d:%d: empty id", file, line,
			(int)(l->f[id] - l->start) + 1);
		return -1;
	}
	for (k = C_LOWER; k < C_N; k++) {
		int r, j = col_of[k];

		if (j < 0)
			continue;
		r = parse_u64(l->f[j], l->fl[j], &v[k]);
		if (r) {
			dp_fail(e, "%s:%d:%d: %s \"%.*s\": %s", file, line,
				(int)(l->f[j] - l->start) + 1, col_names[k],
				(int)l->fl[j], l->f[j],
				r == -2 ? "integer overflows 64 bits" :
				"not a non-negative integer");
			return -1;
		}
	}
	b->id = malloc(l->fl[id] + 1);
	if (!b->id)
		return dp_nomem(e);
	memcpy(b->id, l->f[id], l->fl[id]);
	b->id[l->fl[id]] = 0;
	c->n++;		/* from here dp_csv_free frees the id */
	b->lower = v[C_LOWER];
	b->upper = v[C_UPPER];
	b->size = v[C_SIZE];
	b->align = c->has_align ? v[C_ALIGN] : 1;
	b->offset = v[C_OFFSET];
	b->has_offset = c->has_offset;
	if (b->upper <= b->lower) {
		dp_fail(e, "%s:%d: buffer '%s': upper %llu <= lower %llu (the live range [lower, upper) must not be empty)",
			file, line, b->id, (unsigned long long)b->upper,
			(unsigned long long)b->lower);
		return -1;
	}
	if (!b->size) {
		dp_fail(e, "%s:%d: buffer '%s': zero size (size must be positive)",
			file, line, b->id);
		return -1;
	}
	if (!b->align || (b->align & (b->align - 1))) {
		dp_fail(e, "%s:%d: buffer '%s': alignment %llu is not a power of two",
			file, line, b->id, (unsigned long long)b->align);
		return -1;
	}
	if (b->has_offset && b->offset > UINT64_MAX - b->size) {
		dp_fail(e, "%s:%d: buffer '%s': offset + size overflows 64 bits",
			file, line, b->id);
		return -1;
	}
	return 0;
}

/* Duplicate ids: sort a copy and compare neighbours. */
static int csv_unique_ids(const struct dp_csv *c, struct dp_err *e)
{
	struct dp_csv_buf *s = dp_realloc_array(NULL, c->n ? c->n : 1,
						sizeof(*s));
	size_t k;

	if (!s)
		return dp_nomem(e);
	if (c->n)	/* c->b is NULL for a header-only file */
		memcpy(s, c->b, c->n * sizeof(*s));
	qsort(s, c->n, sizeof(*s), cmp_ids);
	for (k = 1; k < c->n; k++)
		if (!strcmp(s[k - 1].id, s[k].id)) {
			dp_fail(e, "%s: duplicate buffer id '%s' (ids must be unique)",
				c->file, s[k].id);
			free(s);
			return -1;
		}
	free(s);
	return 0;
}

struct dp_csv *dp_csv_parse(const char *file, const char *text, size_t len,
			    struct dp_err *e)
{
	struct dp_csv *c = calloc(1, sizeof(*c));
	struct csv_line l = { .file = file };
	const char *p = text, *end = text + len;
	int col_of[C_N], header = 0, i;
	size_t cap = 0;

	if (!c) {
		dp_nomem(e);
		return NULL;
	}
	c->file = dp_strdup(file);
	if (!c->file) {
		dp_nomem(e);
		goto fail;
	}
	for (i = 0; i < C_N; i++)
		col_of[i] = -1;
	/* a UTF-8 byte order mark (spreadsheets write one) is not data */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < end) {
		const char *le = p, *nl;

		l.no++;
		l.start = p;
		/* lines end with \n, \r\n or a lone \r (old Mac files) */
		while (le < end && *le != '\n' && *le != '\r')
			le++;
		nl = le < end ? le + (*le == '\r' && le + 1 < end && le[1] == '\n') : NULL;
		if (csv_split(&l, le, e))
			goto fail;
		p = nl ? nl + 1 : end;
		if (l.nf == 1 && l.fl[0] == 0)
			continue;	/* blank line */
		if (!header) {
			if (csv_header(c, &l, col_of, e))
				goto fail;
			header = l.nf;
			continue;
		}
		if (l.nf != header) {
			dp_fail(e, "%s:%d: malformed CSV: %d fields, the header has %d",
				file, l.no, l.nf, header);
			goto fail;
		}
		if (csv_row(c, &cap, &l, col_of, e))
			goto fail;
	}
	if (!header)
		dp_fail(e, "%s:1: malformed CSV: empty file (expected the header id,lower,upper,size)", file);
	else if (!csv_unique_ids(c, e))
		return c;
fail:
	dp_csv_free(c);
	return NULL;
}

struct dp_csv *dp_csv_load(const char *path, struct dp_err *e)
{
	struct dp_csv *c;
	char *text;
	size_t len;

	if (dp_read_file(path, &text, &len, e))
		return NULL;
	c = dp_csv_parse(path, text, len, e);
	free(text);
	return c;
}

/* c's buffers as the problem *p within capacity (0: none), unplaced:
 * 0, or -ENOMEM (p's arrays NULL or not, for free()) */
