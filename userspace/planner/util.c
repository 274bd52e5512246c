// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - errors, allocation, escaping, file reading.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int dp_fail(struct dp_err *e, const char *fmt, ...)
{
	va_list ap;

	char raw[sizeof(e->msg)];
	size_t i, o = 0;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* one line, whatever the names in it hold: control characters are
	 * written as C escapes (a name with a newline stays on the line) */
	for (i = 0; raw[i] && o + 5 < sizeof(e->msg); i++) {
		unsigned char ch = raw[i];

		if (ch == '\n' || ch == '\t' || ch == '\r') {
			e->msg[o++] = '\\';
			e->msg[o++] = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
		} else if (ch < 0x20 || ch == 0x7f) {
			o += snprintf(e->msg + o, 5, "\\x%02x", ch);
		} else {
			e->msg[o++] = ch;
		}
	}
	e->msg[o] = 0;
	return -1;
}

/*
 * RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF
 * (yajl lets all three through; other JSON readers reject them, and a
 * plan or model must read back anywhere).  The offset of the first byte
 * of the first bad sequence, or len when all is valid.
 */
size_t dp_utf8_bad(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i], need, cp, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		if (len - i <= need)
			return i;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += need + 1;
	}
	return len;
}

double dp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int dp_nomem(struct dp_err *e)
{
	if (e)
		snprintf(e->msg, sizeof(e->msg), "%s", DP_NOMEM_MSG);
	return -ENOMEM;
}

int dp_err_code(const struct dp_err *e)
{
	return strcmp(e->msg, DP_NOMEM_MSG) ? -EINVAL : -ENOMEM;
}

void *dp_realloc_array(void *p, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		return NULL;
	return realloc(p, n * sz > 0 ? n * sz : 1);
}

void dp_free_each(void *const *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(p[i]);
}

int dp_cmp_u64(const void *x, const void *y)
{
	return dp_cmp(*(const uint64_t *)x, *(const uint64_t *)y);
}

void dp_item_hull(const struct dp_item *it, const struct dp_iv *iv,
		  uint64_t *lo, uint64_t *hi)
{
	const struct dp_iv *x = &iv[it->iv_first];
	uint32_t k;

	*lo = UINT64_MAX;
	*hi = 0;
	for (k = 0; k < it->iv_count; k++) {
		*lo = x[k].lo < *lo ? x[k].lo : *lo;
		*hi = x[k].hi > *hi ? x[k].hi : *hi;
	}
}

int dp_grow(void *pp, size_t *cap, size_t need, size_t sz, size_t first)
{
	void **p = pp, *q;
	size_t c = *cap ? *cap : first;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	q = dp_realloc_array(*p, c, sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

char *dp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int dp_read_file(const char *path, char **text, size_t *len, struct dp_err *e)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, r;
	char *buf;

	if (!f)
		return dp_fail(e, "%s: cannot open: %s", path, strerror(errno));
	buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return dp_nomem(e);
	}
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0 && dp_grow(&buf, &cap, cap + 1, 1, cap)) {
			fclose(f);
			free(buf);
			return dp_nomem(e);
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return dp_fail(e, "%s: read error", path);
	}
	fclose(f);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

const char *dp_mem_name(int mem)
{
	static const char *const n[] = { "dram", "sbuf", "psum" };

	return mem >= 0 && mem < 3 ? n[mem] : "?";
}

const char *dp_usage_name(int usage)
{
	static const char *const n[] = { "spill", "internal", "input",
					 "output", "weight" };

	return usage >= 0 && usage < 5 ? n[usage] : "?";
}

const char *dp_region_name(int region)
{
	static const char *const n[] = { "none", "pre", "linked", "cc",
					 "shared", "general" };

	return region >= 0 && region < 6 ? n[region] : "?";
}
