// SPDX-License-Identifier: GPL-2.0
/*
 * csv_model.c - a MiniMalloc instance as a model (dp_csv_model): the JSON
 * path can then plan the same problem as the CSV path.
 *
 * One core, one block.  Each time t of the instance becomes up to two
 * instructions: "d<t>" defines the buffers whose lower is t, then "u<t>"
 * uses the buffers whose last time (upper - 1) is t; empty spacer
 * instructions "n<k>" keep the distances between them about the distances
 * between the times (divided by q, so that there are at most about
 * FILL_MAX spacers): the search's preorder weighs live time, so the model
 * keeps the instance's proportions, not only its order.  Buffer i becomes DRAM spill tensor "<id>"
 * of size * scale bytes (elem_size 1), live from its def to its last use:
 * two tensors interfere exactly when the buffers' live ranges meet.  With
 * scale = 4096 / gcd(sizes) (4 for the MiniMalloc instances, whose sizes
 * are multiples of 1 KiB) the 4 KiB page rounding changes nothing, and
 * the JSON peak is scale x the CSV peak.
 */
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"

#define FILL_MAX 16384		/* at most about this many spacers */

struct tr {
	uint64_t t;
	uint32_t i;
	uint8_t end;		/* 0: lower, 1: upper - 1 */
};

static int cmp_tr(const void *a, const void *b)
{
	const struct tr *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->end != y->end)
		return x->end - y->end;
	return (x->i > y->i) - (x->i < y->i);
}

struct dp_model *dp_csv_model(const struct dp_csv *c, uint64_t scale,
			      struct dp_err *e)
{
	struct dp_model *m = dp_model_new(c->file, "minimalloc");
	struct tr *t = dp_realloc_array(NULL, 2 * c->n + 1, sizeof(*t));
	uint32_t *ops = dp_realloc_array(NULL, c->n + 1, sizeof(*ops));
	struct dp_core *core;
	uint64_t q = 1;
	size_t i, j, k;
	char name[32];

	if (!m || !t || !ops) {
		dp_nomem(e);
		goto fail;
	}
	core = dp_core_add(m, "minimalloc", e);
	if (!core || dp_block_add(m, core, "entry", "minimalloc", e) < 0)
		goto fail;
	for (i = 0; i < c->n; i++) {
		size_t len = strlen(c->b[i].id), bad = dp_utf8_bad(c->b[i].id, len);
		struct dp_tensor_spec s = { .name = c->b[i].id,
					    .elem_size = 1,
					    .mem = DP_MEM_DRAM,
					    .usage = DP_USE_SPILL };

		/* the JSON reader takes names in UTF-8 only: refuse what it
		 * would refuse rather than write it */
		if (bad != len) {
			dp_fail(e, "%s: buffer %zu (data row %zu): id is not valid UTF-8 (byte 0x%02x at offset %zu), which a model's names must be",
				c->file, i, i + 1,
				(unsigned char)c->b[i].id[bad], bad);
			goto fail;
		}
		if (__builtin_mul_overflow(c->b[i].size, scale, &s.elems)) {
			dp_fail(e, "%s: buffer '%s': size x %llu overflows 64 bits",
				c->file, c->b[i].id, (unsigned long long)scale);
			goto fail;
		}
		if (dp_tensor_add(m, core, &s, "minimalloc", e) < 0)
			goto fail;
		t[2 * i] = (struct tr){ c->b[i].lower, i, 0 };
		t[2 * i + 1] = (struct tr){ c->b[i].upper - 1, i, 1 };
	}
	qsort(t, 2 * c->n, sizeof(*t), cmp_tr);
	if (c->n && t[2 * c->n - 1].t / FILL_MAX > q)
		q = t[2 * c->n - 1].t / FILL_MAX;
	for (i = 0, k = 0; i < 2 * c->n; i = j, k++) {
		size_t n = 0;

		/* spacers: instruction distances follow the times (/ q) */
		for (; k < t[i].t / q; k++) {
			snprintf(name, sizeof(name), "n%zu", k);
			if (dp_inst_add(m, core, 0, name, NULL, 0, NULL, 0, 0,
					"minimalloc", e))
				goto fail;
		}

		/* one run of equal (time, kind): one instruction */
		for (j = i; j < 2 * c->n && t[j].t == t[i].t &&
		     t[j].end == t[i].end; j++)
			ops[n++] = t[j].i;
		snprintf(name, sizeof(name), "%c%llu", t[i].end ? 'u' : 'd',
			 (unsigned long long)t[i].t);
		if (dp_inst_add(m, core, 0, name, t[i].end ? NULL : ops,
				t[i].end ? 0 : n, t[i].end ? ops : NULL,
				t[i].end ? n : 0, 0, "minimalloc", e))
			goto fail;
	}
	if (dp_model_link(m, e))
		goto fail;
	free(t);
	free(ops);
	return m;
fail:
	free(t);
	free(ops);
	dp_model_free(m);
	return NULL;
}
