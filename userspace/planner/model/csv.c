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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"
#include "place/place.h"
#include "search/search.h"
#include "plan/plan.h"

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
static int problem_of(const struct dp_csv *c, uint64_t capacity,
		      struct dp_problem *p)
{
	struct dp_item *it = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*it));
	struct dp_iv *iv = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*iv));
	size_t i;

	*p = (struct dp_problem){ .it = it, .n = c->n, .iv = iv, .start = 0,
				  .ceiling = capacity ? capacity : UINT64_MAX,
				  .page = 0 };
	if (!it || !iv)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		iv[i].lo = c->b[i].lower;
		iv[i].hi = c->b[i].upper - 1;
		it[i].size = c->b[i].size;
		it[i].align = c->b[i].align;
		it[i].iv_first = i;
		it[i].iv_count = 1;
		it[i].addr = DP_UNSET;
	}
	return 0;
}

/* The items' addresses as the buffers' offsets. */
static void take_offsets(struct dp_csv *c, const struct dp_item *it)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		c->b[i].offset = it[i].addr;
		c->b[i].has_offset = 1;
	}
	c->has_offset = 1;
}

int dp_csv_solve(struct dp_csv *c, uint64_t capacity, enum dp_order order,
		 struct dp_place_stats *st, struct dp_err *e)
{
	struct dp_problem p;
	size_t failed = 0;
	int rc = problem_of(c, capacity, &p);
	struct dp_item *it = p.it;
	const struct dp_iv *iv = p.iv;

	if (rc)
		goto nomem;
	rc = dp_place(&p, order, DP_ENGINE_AUTO, st, &failed, NULL, "");
	if (rc == -ENOMEM)
		goto nomem;
	if (rc) {
		if (capacity)
			dp_fail(e, "%s: buffer '%s' (%llu bytes): no offset fits below the capacity %llu (--capacity)",
				c->file, c->b[failed].id,
				(unsigned long long)c->b[failed].size,
				(unsigned long long)capacity);
		else
			dp_fail(e, "%s: buffer '%s' (%llu bytes): no offset fits in the 64-bit address space (no --capacity given)",
				c->file, c->b[failed].id,
				(unsigned long long)c->b[failed].size);
		goto out;
	}
	take_offsets(c, it);
	rc = 0;
	if (st && dp_lower_bound_r(it, c->n, iv, &st->lower_bound))
		goto nomem;
	goto out;
nomem:
	dp_nomem(e);
	rc = -ENOMEM;
out:
	free(it);
	free((void *)iv);
	return rc;
}

int dp_csv_solve_best(struct dp_csv *c, uint64_t capacity,
		      struct dp_place_stats *st, enum dp_order *used,
		      struct dp_err *e)
{
	static const enum dp_order orders[] = { DP_ORDER_SIMPLIFY,
		DP_ORDER_SIZE, DP_ORDER_AREA, DP_ORDER_START };
	uint64_t *best = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*best));
	uint64_t best_peak = 0;
	size_t k, i;
	int ok = 0;	/* best[] holds a solution (its peak may be 2^64 - 1) */
	int r;

	if (!best)
		return dp_nomem(e);
	for (k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		struct dp_place_stats s = { 0 };
		uint64_t peak;

		r = dp_csv_solve(c, capacity, orders[k], &s, NULL);
		if (r == -ENOMEM) {
			free(best);
			return dp_nomem(e);
		}
		if (r)
			continue;
		peak = dp_csv_peak(c);
		if (!ok || peak < best_peak) {
			best_peak = peak;
			for (i = 0; i < c->n; i++)
				best[i] = c->b[i].offset;
			if (used)
				*used = orders[k];
			if (st)
				*st = s;
		}
		ok = 1;
	}
	if (!ok) {
		free(best);
		return dp_csv_solve(c, capacity, DP_ORDER_SIMPLIFY, st, e);
	}
	for (i = 0; i < c->n; i++)
		c->b[i].offset = best[i];
	free(best);
	return 0;
}

int dp_csv_solve_search(struct dp_csv *c, uint64_t capacity, uint64_t nodes,
			struct dp_search_stats *st, struct dp_err *e)
{
	return dp_csv_solve_search_off(c, capacity, nodes, NULL, st, e);
}

int dp_csv_solve_search_off(struct dp_csv *c, uint64_t capacity,
			    uint64_t nodes, const char *off,
			    struct dp_search_stats *st, struct dp_err *e)
{
	struct dp_search_params par;
	struct dp_problem p;
	int rc = problem_of(c, capacity, &p);
	struct dp_item *it = p.it;
	const struct dp_iv *iv = p.iv;

	if (rc) {
		rc = dp_nomem(e);
		goto out;
	}
	rc = dp_search_off_check(off, e);
	if (rc)
		goto out;
	dp_search_params_of(off, &par);
	rc = dp_search_run(&(struct dp_search){ .problem = p, .nodes = nodes,
						.engine = DP_ENGINE_AUTO,
						.params = &par,
						.within = !!capacity }, st);
	if (rc == -ENOMEM) {
		rc = dp_nomem(e);
		goto out;
	}
	if (rc) {
		char v[160];

		dp_fail(e, "%s: no placement within the capacity %llu (--capacity): %s",
			c->file, (unsigned long long)capacity,
			dp_search_verdict(st, v, sizeof(v)));
		goto out;
	}
	take_offsets(c, it);
	rc = 0;
out:
	free(it);
	free((void *)iv);
	return rc;
}

int dp_csv_write(const struct dp_csv *c, FILE *f)
{
	size_t i;

	fprintf(f, "id,lower,upper,size%s,offset\n", c->has_align ? ",alignment" : "");
	for (i = 0; i < c->n; i++) {
		const struct dp_csv_buf *b = &c->b[i];

		fprintf(f, "%s,%llu,%llu,%llu", b->id, (unsigned long long)b->lower,
			(unsigned long long)b->upper, (unsigned long long)b->size);
		if (c->has_align)
			fprintf(f, ",%llu", (unsigned long long)b->align);
		fprintf(f, ",%llu\n", (unsigned long long)b->offset);
	}
	return ferror(f) ? -1 : 0;
}

uint64_t dp_csv_peak(const struct dp_csv *c)
{
	uint64_t peak = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->b[i].offset + c->b[i].size > peak)
			peak = c->b[i].offset + c->b[i].size;
	return peak;
}

uint64_t dp_csv_lower_bound(const struct dp_csv *c)
{
	struct dp_problem p;
	uint64_t lb = DP_UNSET;

	if (!problem_of(c, 0, &p))
		lb = dp_lower_bound(p.it, p.n, p.iv);
	free(p.it);
	free((void *)p.iv);
	return lb;
}

static int cmp_lower(const void *a, const void *b)
{
	const struct dp_csv_buf *const *x = a, *const *y = b;

	if ((*x)->lower != (*y)->lower)
		return (*x)->lower < (*y)->lower ? -1 : 1;
	return strcmp((*x)->id, (*y)->id);
}

/*
 * The per-buffer rules of a solution (an offset, no 64-bit overflow, the
 * alignment), and s[] = the buffers in (lower, id) order: 0 or dp_fail().
 */
int dp_csv_sorted(const struct dp_csv *c, const struct dp_csv_buf **s,
		  struct dp_err *e)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct dp_csv_buf *b = &c->b[i];

		if (!b->has_offset)
			return dp_fail(e, "%s: buffer '%s': no offset", c->file, b->id);
		if (b->offset > UINT64_MAX - b->size)
			return dp_fail(e, "%s: buffer '%s': offset %llu + size %llu overflows 64 bits",
				       c->file, b->id, (unsigned long long)b->offset,
				       (unsigned long long)b->size);
		if (b->offset % b->align)
			return dp_fail(e, "%s: buffer '%s': offset %llu is not a multiple of its alignment %llu",
				       c->file, b->id, (unsigned long long)b->offset,
				       (unsigned long long)b->align);
		s[i] = b;
	}
	qsort(s, c->n, sizeof(*s), cmp_lower);
	return 0;
}

/*
 * The rules of a solution, then the overlap sweep the plan verifier uses
 * (dp_sweep_disjoint: O(n log n), where a scan of the open buffers was
 * O(n^2) with everything live).  Buffers are numbered in (lower, id)
 * order, so the pair named is the one the scan in that order met first.
 */
int dp_csv_verify(const struct dp_csv *c, struct dp_err *e)
{
	size_t n = c->n ? c->n : 1, i;
	const struct dp_csv_buf **s = dp_realloc_array(NULL, n, sizeof(*s));
	struct dp_sweep_iv *v = dp_realloc_array(NULL, n, sizeof(*v));
	uint64_t *addr = dp_realloc_array(NULL, n, sizeof(*addr));
	uint64_t *size = dp_realloc_array(NULL, n, sizeof(*size));
	uint32_t blame[2];
	uint64_t when;
	int rc = 0;

	if (!s || !v || !addr || !size) {
		rc = dp_nomem(e);
		goto out;
	}
	rc = dp_csv_sorted(c, s, e);
	if (rc)
		goto out;
	for (i = 0; i < c->n; i++) {	/* live [lower, upper): closed [lower, upper - 1] */
		addr[i] = s[i]->offset;
		size[i] = s[i]->size;
		v[i] = (struct dp_sweep_iv){ s[i]->lower, s[i]->upper - 1, i };
	}
	rc = dp_sweep_disjoint(v, c->n, addr, size, c->n, blame, &when);
	if (rc == -ENOMEM)
		rc = dp_nomem(e);
	else if (rc) {
		const struct dp_csv_buf *x = s[blame[0]], *y = s[blame[1]];

		rc = dp_fail(e, "%s: buffers '%s' and '%s' overlap: both live at time %llu, offsets [%llu, %llu) and [%llu, %llu)",
			     c->file, x->id, y->id, (unsigned long long)when,
			     (unsigned long long)x->offset,
			     (unsigned long long)(x->offset + x->size),
			     (unsigned long long)y->offset,
			     (unsigned long long)(y->offset + y->size));
	}
out:
	free(s);
	free(v);
	free(addr);
	free(size);
	return rc;
}
