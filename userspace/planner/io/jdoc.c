// SPDX-License-Identifier: GPL-2.0
/*
 * jdoc.c - strict JSON into a compact document, with yajl (see jdoc.h).
 *
 * yajl does the lexing and the grammar (it rejects comments unless asked,
 * single quotes, trailing commas, leading zeros and invalid UTF-8) and hands
 * every number over as its text.  This file builds the flat arrays: while a
 * container is open, its finished children wait on a stack (objects: key
 * offset and value, in pairs); when it closes they move to `kids` in one
 * piece.  Duplicate keys are caught as each key arrives (a linear scan of
 * the open object's keys, which JDOC_MAX_KEYS bounds).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "internal.h"
#include "io/jdoc.h"

struct frame {
	uint32_t node;
	size_t base;	/* first pending child on the stack */
	int obj;
};

struct build {
	struct jdoc *d;
	uint32_t *stk;
	size_t nstk, cstk;
	struct frame *fr;
	size_t nfr, cfr;
	char why[160];	/* a rule broken inside a callback */
	int nomem;	/* the callback that cancelled ran out of memory */
	yajl_handle h;
	/* short texts already in the arena: open addressing, offset + 1 */
	uint32_t *ht;
	size_t hcap, hn;
};

#define INTERN_MAX_LEN 16	/* longer texts are rarely repeated */
#define INTERN_MAX (1u << 20)	/* texts remembered: a table of 8 MB at most */

/*
 * The document's three arrays live in their own mappings: growing one is
 * an mremap (the pages move, nothing is copied), pages never touched are
 * never resident, and they may be transparent huge pages: on a large
 * model the copies of realloc and the 4 KiB page faults would cost the
 * reader much of its time.  cap counts elements of sz bytes.
 */
#if defined(__SANITIZE_ADDRESS__)
#define JDOC_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JDOC_MALLOC 1
#endif
#endif

static void *grow(void *p, size_t *cap, size_t need, size_t sz);

/* The array p grown to hold need elements of sz bytes (*cap updated), or
 * NULL, p and *cap untouched, when out of memory. */
static void *vgrow(void *p, size_t *cap, size_t need, size_t sz)
{
#ifdef JDOC_MALLOC
	/* under ASan: heap arrays, so every access is checked */
	return grow(p, cap, need, sz);
#endif
	size_t old = *cap * sz, c = *cap ? *cap : (1u << 16);
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	if (c > SIZE_MAX / sz)
		return NULL;
	q = p ? mremap(p, old, c * sz, MREMAP_MAYMOVE)
	      : mmap(NULL, c * sz, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(q, c * sz, MADV_HUGEPAGE);	/* a hint; failure is fine */
#endif
	*cap = c;
	return q;
}

static void vfree(void *p, size_t cap, size_t sz)
{
#ifdef JDOC_MALLOC
	(void)cap;
	(void)sz;
	free(p);
	return;
#endif
	if (p)
		munmap(p, cap * sz);
}

static void *grow(void *p, size_t *cap, size_t need, size_t sz)
{
	if (dp_grow(&p, cap, need, sz, 1024))
		return NULL;
	return p;
}

static int fail(struct build *b, const char *why)
{
	snprintf(b->why, sizeof(b->why), "%s", why);
	return 0;	/* yajl: cancel */
}

static int nomem(struct build *b)
{
	b->nomem = 1;
	return fail(b, "out of memory");
}

/* *pp grown (grow, or vgrow when v) to need elements: 1, or 0 (cancel) */
static int grow_to(struct build *b, void *pp, size_t *cap, size_t need,
		   size_t sz, int v)
{
	void **p = pp, *q = v ? vgrow(*p, cap, need, sz)
			      : grow(*p, cap, need, sz);

	if (!q)
		return nomem(b);
	*p = q;
	return 1;
}

static int push_child(struct build *b, uint32_t v)
{
	if (!grow_to(b, &b->stk, &b->cstk, b->nstk + 1, sizeof(*b->stk), 0))
		return 0;
	b->stk[b->nstk++] = v;
	return 1;
}

static int new_node(struct build *b, uint32_t type, uint32_t n, uint64_t a,
		    uint32_t *out)
{
	struct jdoc *d = b->d;

	if (d->nn >= JV_SCALAR - 1)
		return fail(b, "too many values");
	if (!grow_to(b, &d->node, &d->cn, d->nn + 1, sizeof(*d->node), 1))
		return 0;
	d->node[d->nn] = (struct jnode){ type, n, a };
	*out = d->nn++;
	return 1;
}

/* A finished value: the document's root, or a child of the open container. */
static int value(struct build *b, uint32_t v)
{
	if (!b->nfr) {
		b->d->root = v;
		return 1;
	}
	return push_child(b, v);
}

static uint32_t hash_text(const char *s, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot of text s in the table: its entry, or the empty slot for it. */
static uint32_t *slot_of(struct build *b, const char *s, size_t len,
			 uint32_t h)
{
	size_t i = h & (b->hcap - 1);

	for (;; i = (i + 1) & (b->hcap - 1)) {
		uint32_t *e = &b->ht[i];
		const char *t;

		if (!*e)
			return e;
		t = b->d->str + *e - 1;
		if (!memcmp(t, s, len) && !t[len])
			return e;
	}
}

static int rehash(struct build *b)
{
	uint32_t *old = b->ht, *ht;
	size_t n = b->hcap, i;

	ht = calloc(n ? 2 * n : 1024, sizeof(*b->ht));
	if (!ht)
		return nomem(b);
	b->ht = ht;
	b->hcap = n ? 2 * n : 1024;
	for (i = 0; i < n; i++)
		if (old[i]) {
			const char *t = b->d->str + old[i] - 1;
			size_t l = strlen(t);

			*slot_of(b, t, l, hash_text(t, l)) = old[i];
		}
	free(old);
	return 1;
}

/* A string or number text into the arena (a short one seen before is
 * shared): *off its offset. */
static int add_str(struct build *b, const char *s, size_t len, uint32_t *off)
{
	struct jdoc *d = b->d;
	uint32_t *e = NULL, h = 0;

	if (dp_utf8_bad(s, len) != len)
		return fail(b, "invalid UTF8 in a string (overlong form, surrogate or past U+10FFFF)");
	if (memchr(s, 0, len))
		return fail(b, "\\u0000 in a string (NUL is not allowed in names)");
	if (len <= INTERN_MAX_LEN) {
		if (2 * (b->hn + 1) > b->hcap && b->hn < INTERN_MAX &&
		    !rehash(b))
			return 0;
		h = hash_text(s, len);
		e = slot_of(b, s, len, h);
		if (*e) {
			*off = *e - 1;
			return 1;
		}
	}
	if (d->ns + len + 1 > JV_ARENA_MAX)
		return fail(b, "document too large (strings past 1 GiB)");
	if (!grow_to(b, &d->str, &d->cs, d->ns + len + 1, 1, 1))
		return 0;
	memcpy(d->str + d->ns, s, len);
	d->str[d->ns + len] = 0;
	*off = d->ns;
	d->ns += len + 1;
	if (e && b->hn < INTERN_MAX && 2 * (b->hn + 1) <= b->hcap) {
		*e = *off + 1;
		b->hn++;
	}
	return 1;
}

static int cb_null(void *ctx)
{
	uint32_t v;

	return new_node(ctx, J_NULL, 0, 0, &v) && value(ctx, v);
}

static int cb_bool(void *ctx, int t)
{
	uint32_t v;

	return new_node(ctx, t ? J_TRUE : J_FALSE, 0, 0, &v) && value(ctx, v);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	uint32_t off;

	return add_str(ctx, s, len, &off) &&
	       value(ctx, JV_SCALAR | JV_NUM | off);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	uint32_t off;

	return add_str(ctx, (const char *)s, len, &off) &&
	       value(ctx, JV_SCALAR | off);
}

static int open_c(struct build *b, int obj)
{
	uint32_t v;

	if (b->nfr >= JDOC_MAX_DEPTH)
		return fail(b, "nested deeper than 64 levels");
	if (!new_node(b, obj ? J_OBJ : J_ARR, 0, 0, &v))
		return 0;
	if (!grow_to(b, &b->fr, &b->cfr, b->nfr + 1, sizeof(*b->fr), 0))
		return 0;
	b->fr[b->nfr++] = (struct frame){ v, b->nstk, obj };
	return 1;
}

static int close_c(struct build *b)
{
	struct frame f = b->fr[--b->nfr];
	struct jdoc *d = b->d;
	size_t n = b->nstk - f.base;

	if (n) {	/* an empty container: kids may still be NULL */
		if (!grow_to(b, &d->kids, &d->ck, d->nk + n, sizeof(*d->kids), 1))
			return 0;
		memcpy(d->kids + d->nk, b->stk + f.base, n * sizeof(*d->kids));
	}
	d->node[f.node].a = d->nk;
	d->node[f.node].n = f.obj ? n / 2 : n;
	d->nk += n;
	b->nstk = f.base;
	return value(b, f.node);
}

static int cb_start_map(void *ctx)
{
	return open_c(ctx, 1);
}

static int cb_start_array(void *ctx)
{
	return open_c(ctx, 0);
}

static int cb_end(void *ctx)
{
	return close_c(ctx);
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
	struct build *b = ctx;
	struct frame *f = &b->fr[b->nfr - 1];
	uint32_t off;
	size_t i;

	if ((b->nstk - f->base) / 2 >= JDOC_MAX_KEYS)
		return fail(b, "object with more than 256 keys");
	if (memchr(s, 0, len))
		return fail(b, "\\u0000 in a key");
	for (i = f->base; i < b->nstk; i += 2) {
		const char *k = b->d->str + b->stk[i];

		if (strlen(k) == len && !memcmp(k, s, len)) {
			char msg[160];

			snprintf(msg, sizeof(msg), "duplicate key \"%.*s\" in one object",
				 len > 64 ? 64 : (int)len, (const char *)s);
			return fail(b, msg);
		}
	}
	if (!add_str(b, (const char *)s, len, &off))
		return 0;
	return push_child(b, off);
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/*
 * yajl's own memory.  yajl does not check its allocations (yajl_alloc
 * writes through the handle it just allocated, the lexer asserts), so out
 * of memory must not return into it: every block it takes is listed here,
 * and a failed allocation jumps back to feed() (or start()), which frees
 * them all and drops the handle instead of calling yajl_free on a parser
 * stopped half way.
 */
struct ylink {
	struct ylink *prev, *next;
};

struct yblock {
	struct ylink l;		/* first: a block is its link */
	max_align_t data[];
};

struct yheap {
	struct ylink list;	/* the blocks in use, a ring */
	jmp_buf *out;		/* where a failed allocation goes */
};

static struct yblock *yblock_of(void *p)
{
	return (struct yblock *)((char *)p - offsetof(struct yblock, data));
}

static void *y_malloc(void *ctx, size_t sz)
{
	struct yheap *y = ctx;
	struct yblock *b = sz > SIZE_MAX - sizeof(*b) ? NULL :
			   malloc(sizeof(*b) + sz);

	if (!b)
		longjmp(*y->out, 1);
	b->l.prev = &y->list;
	b->l.next = y->list.next;
	b->l.next->prev = &b->l;
	y->list.next = &b->l;
	return b->data;
}

static void y_free(void *ctx, void *p)
{
	struct yblock *b;

	(void)ctx;
	if (!p)
		return;
	b = yblock_of(p);
	b->l.prev->next = b->l.next;
	b->l.next->prev = b->l.prev;
	free(b);
}

static void *y_realloc(void *ctx, void *p, size_t sz)
{
	struct yheap *y = ctx;
	struct yblock *b, *q;

	if (!p)
		return y_malloc(ctx, sz);
	b = yblock_of(p);
	q = sz > SIZE_MAX - sizeof(*b) ? NULL : realloc(b, sizeof(*b) + sz);
	if (!q)
		longjmp(*y->out, 1);	/* b stays listed, and valid */
	q->l.prev->next = &q->l;
	q->l.next->prev = &q->l;
	return q->data;
}

/* Every block yajl still holds: after a jump, in place of yajl_free. */
static void y_drop(struct yheap *y)
{
	while (y->list.next != &y->list)
		y_free(y, ((struct yblock *)y->list.next)->data);
}

struct feeder {
	struct build b;
	const char *file;
	struct dp_err *e;
	unsigned long line, col;	/* of the first byte not yet fed */
	size_t fed;
	struct yheap y;
	yajl_alloc_funcs af;
	jmp_buf out;
};

static void advance(struct feeder *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n') {
			f->line++;
			f->col = 1;
		} else {
			f->col++;
		}
	}
}

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

/* yajl reads 0010 as the number 0 followed by a stray 0010 */
static int leading_zero(const char *s, size_t at, size_t n)
{
	if (at + 1 < n && s[at] == '0' && digit(s[at + 1]) &&
	    (at == 0 || (!digit(s[at - 1]) && s[at - 1] != '.')))
		return 1;
	return at < n && at > 0 && digit(s[at]) && s[at - 1] == '0' &&
	       (at < 2 || (!digit(s[at - 2]) && s[at - 2] != '.'));
}

/* yajl's text, without its "parse error: " prefix and newline, in our words
 * where ours are clearer. */
static void yajl_why(struct feeder *f, const char *chunk, size_t at, size_t n,
		     char *out, size_t outn)
{
	unsigned char *msg = yajl_get_error(f->b.h, 0, NULL, 0);
	const char *m = (const char *)msg, *c;
	size_t l;

	if (!m)
		m = "";
	if ((c = strstr(m, "error: ")))
		m = c + 7;
	l = strcspn(m, "\n");
	if (leading_zero(chunk, at, n))
		snprintf(out, outn, "number with a leading zero");
	else if (!strncmp(m, "trailing garbage", l))
		snprintf(out, outn, "trailing characters after the top-level value");
	else if (strstr(m, "comment"))
		snprintf(out, outn, "comments are not JSON");
	else if (at < n && chunk[at] == '\'')
		snprintf(out, outn, "single quotes are not JSON (strings take double quotes)");
	else if (!strncmp(m, "invalid char in json text", l > 25 ? 25 : l))
		snprintf(out, outn, "'%c' cannot start a JSON value", at < n &&
			 chunk[at] > 0x20 && chunk[at] < 0x7f ? chunk[at] : '?');
	else if (!strncmp(m, "unallowed token", l > 15 ? 15 : l) ||
		 !strncmp(m, "invalid object key", l > 18 ? 18 : l))
		snprintf(out, outn, "%.*s (a trailing comma?)",
			 (int)(l && m[l - 1] == '.' ? l - 1 : l), m);
	else
		snprintf(out, outn, "%.*s", (int)(l && m[l - 1] == '.' ? l - 1 : l), m);
	yajl_free_error(f->b.h, msg);
}

static int feed(struct feeder *f, const char *s, size_t n, int last)
{
	yajl_status st;
	size_t at;
	char why[200];

	if (setjmp(f->out)) {	/* yajl ran out of memory */
		y_drop(&f->y);
		f->b.h = NULL;
		return dp_nomem(f->e);
	}
	st = last ? yajl_complete_parse(f->b.h)
		  : yajl_parse(f->b.h, (const unsigned char *)s, n);
	if (st == yajl_status_ok) {
		advance(f, s, n);
		f->fed += n;
		return 0;
	}
	if (last) {
		at = 0;
		snprintf(why, sizeof(why), "%s", f->b.why[0] ? f->b.why :
			 f->fed ? "unexpected end of file" : "empty file");
	} else {
		at = yajl_get_bytes_consumed(f->b.h);
		if (at > n)
			at = n;
		/* yajl counts the offending token as consumed (point at its
		 * last byte), except a comment it refuses at its first byte */
		if (at > 0 && !(st == yajl_status_error && at < n && s[at] == '/'))
			at--;
		if (st == yajl_status_client_canceled && f->b.nomem)
			return dp_nomem(f->e);
		if (st == yajl_status_client_canceled)
			snprintf(why, sizeof(why), "%s", f->b.why);
		else
			yajl_why(f, s, at, n, why, sizeof(why));
		advance(f, s, at);
	}
	dp_fail(f->e, "%s:%lu:%lu: malformed JSON: %s", f->file, f->line,
		f->col, why);
	return -1;
}

static int start(struct feeder *f, struct jdoc *d, const char *file,
		 struct dp_err *e)
{
	memset(d, 0, sizeof(*d));
	memset(f, 0, sizeof(*f));
	d->root = JNONE;
	f->b.d = d;
	f->file = file;
	f->e = e;
	f->line = f->col = 1;
	f->y.list.prev = f->y.list.next = &f->y.list;
	f->y.out = &f->out;
	f->af = (yajl_alloc_funcs){ y_malloc, y_realloc, y_free, &f->y };
	if (setjmp(f->out)) {
		y_drop(&f->y);
		return dp_nomem(e);
	}
	f->b.h = yajl_alloc(&callbacks, &f->af, &f->b);
	if (!f->b.h)
		return dp_nomem(e);
	return 0;
}

static int finish(struct feeder *f, struct jdoc *d, int rc)
{
	if (f->b.h)
		yajl_free(f->b.h);
	free(f->b.stk);
	free(f->b.fr);
	free(f->b.ht);
	if (rc) {
		jdoc_free(d);
		return -1;
	}
	/* the growth slack was never touched: not resident, nothing to give
	 * back */
	return 0;
}

int jdoc_parse(struct jdoc *d, const char *file, const char *text, size_t len,
	       struct dp_err *e)
{
	struct feeder f;
	int rc;

	if (start(&f, d, file, e))
		return -1;
	rc = feed(&f, text, len, 0);
	if (!rc)
		rc = feed(&f, NULL, 0, 1);
	return finish(&f, d, rc);
}

int jdoc_load(struct jdoc *d, const char *path, struct dp_err *e)
{
	const size_t chunk = 1 << 20;
	struct feeder f;
	char *buf;
	ssize_t r;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dp_fail(e, "%s: cannot open: %s", path, strerror(errno));
	buf = malloc(chunk);
	if (!buf || start(&f, d, path, e)) {
		free(buf);
		close(fd);
		return dp_nomem(e);
	}
	while (!rc && (r = read(fd, buf, chunk)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = dp_fail(e, "%s: read error: %s", path, strerror(errno));
			break;
		}
		rc = feed(&f, buf, r, 0);
	}
	if (!rc)
		rc = feed(&f, NULL, 0, 1);
	free(buf);
	close(fd);
	return finish(&f, d, rc);
}

/* rc: how reading d went (jdoc_load, jdoc_parse); d is freed either way. */
static void *build_with(struct jdoc *d, int rc, const char *file,
			jdoc_from_fn *from, struct dp_err *e)
{
	void *r;

	if (rc)
		return NULL;
	r = from(d, file, e);
	jdoc_free(d);
	return r;
}

void *jdoc_load_with(const char *path, jdoc_from_fn *from, struct dp_err *e)
{
	struct jdoc d;

	return build_with(&d, jdoc_load(&d, path, e), path, from, e);
}

void *jdoc_parse_with(const char *file, const char *text, size_t len,
		      jdoc_from_fn *from, struct dp_err *e)
{
	struct jdoc d;

	return build_with(&d, jdoc_parse(&d, file, text, len, e), file, from, e);
}

void jdoc_free(struct jdoc *d)
{
	vfree(d->node, d->cn, sizeof(*d->node));
	vfree(d->kids, d->ck, sizeof(*d->kids));
	vfree(d->str, d->cs, 1);
	memset(d, 0, sizeof(*d));
	d->root = JNONE;
}

size_t jdoc_bytes(const struct jdoc *d)
{
	return d->nn * sizeof(*d->node) + d->nk * sizeof(*d->kids) + d->ns;
}

uint32_t jdoc_get(const struct jdoc *d, uint32_t obj, const char *key)
{
	uint32_t i;

	if (obj == JNONE || jdoc_type(d, obj) != J_OBJ)
		return JNONE;
	for (i = 0; i < d->node[obj].n; i++)
		if (!strcmp(jdoc_key(d, obj, i), key))
			return jdoc_val(d, obj, i);
	return JNONE;
}

int jdoc_u64(const struct jdoc *d, uint32_t v, uint64_t *out)
{
	const char *s;
	uint64_t x = 0;
	int neg = 0, big = 0;

	if (v == JNONE || jdoc_type(d, v) != J_NUM)
		return -1;
	s = jdoc_str(d, v);
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (strpbrk(s, ".eE"))
		return -1;
	for (; *s; s++) {
		unsigned dig = *s - '0';

		if (x > (UINT64_MAX - dig) / 10)
			big = 1;
		else
			x = x * 10 + dig;
	}
	*out = big ? UINT64_MAX : x;
	if (neg && (x || big))
		return -2;
	return big ? -3 : 0;
}

const char *jdoc_type_name(enum jtype t)
{
	static const char *const n[] = { "null", "false", "true", "a number",
					 "a string", "an array", "an object" };

	return t <= J_OBJ ? n[t] : "?";
}

int jrd_type(const struct jrd *r, uint32_t v, enum jtype ty,
	     const char *where, const char *key, const char *what)
{
	enum jtype t = jdoc_type(r->d, v);

	if (ty == J_TRUE ? t == J_TRUE || t == J_FALSE : t == ty)
		return 0;
	if (!what)
		what = ty == J_TRUE ? "true or false" : jdoc_type_name(ty);
	return dp_fail(r->e, "%s: %s%s%s: must be %s", r->file, where,
		       key ? "." : "", key ? key : "", what);
}

int jrd_u64(const struct jrd *r, uint32_t v, const char *where,
	    const char *key, const char *neg, uint64_t *out)
{
	const char *dot = key ? "." : "", *k = key ? key : "";

	switch (jdoc_u64(r->d, v, out)) {
	case 0:
		return 0;
	case -2:
		if (neg)
			return dp_fail(r->e, "%s: %s%s%s: negative value %s (%s)",
				       r->file, where, dot, k,
				       jdoc_str(r->d, v), neg);
		return dp_fail(r->e, "%s: %s%s%s: negative", r->file, where,
			       dot, k);
	case -3:
		return dp_fail(r->e, "%s: %s%s%s: integer %s out of range (above 2^64-1)",
			       r->file, where, dot, k, jdoc_str(r->d, v));
	default:
		return dp_fail(r->e, "%s: %s%s%s: must be an integer", r->file,
			       where, dot, k);
	}
}

/* ---- writing ------------------------------------------------------------ */

void dp_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}
