// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA engines' reduce (kmod/reduce_elem.h, which the host's
 * userspace/bridge/dp_reduce.c compiles too) against an independent
 * oracle: the host's own float and _Float16 sums.
 *
 *   test_reduce_ref           TAP: this reference against the host's own
 *                             float and _Float16 sums, and the KUnit
 *                             suite's table against this reference
 *   test_reduce_ref --table   prints that table,
 *                             kmod/tests/dma_reduce_table.h
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dp_device.h"
#include "xorshift.h"

static const char *const type_name[] = {
	[XMEMSIM_DMA_T_F32] = "F32", [XMEMSIM_DMA_T_BF16] = "BF16",
	[XMEMSIM_DMA_T_F16] = "F16", [XMEMSIM_DMA_T_I32] = "I32",
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next(void)
{
	return (uint32_t)(xorshift64(&rng) >> 16);
}

/* an operand worth testing: edges, near the other, tiny, or any bits */
static uint32_t operand(uint32_t t, uint32_t other)
{
	static const uint32_t e32[] = { 0, 0x80000000, 0x7f800000, 0xff800000,
		0x7fc00000, 0x7f800001, 0x00000001, 0x807fffff, 0x7f7fffff,
		0x3f800000, 0xbf800000, 0x33800000, 0x00800000 };
	static const uint32_t e16[] = { 0, 0x8000, 0x7c00, 0xfc00, 0x7e00,
		0x7c01, 0x0001, 0x83ff, 0x7bff, 0x3c00, 0xbc00, 0x1400, 0x0400 };
	static const uint32_t eb16[] = { 0, 0x8000, 0x7f80, 0xff80, 0x7fc0,
		0x7f81, 0x0001, 0x807f, 0x7f7f, 0x3f80, 0xbf80, 0x3380, 0x0080 };
	uint32_t wide = t == XMEMSIM_DMA_T_F32 || t == XMEMSIM_DMA_T_I32;
	uint32_t mask = wide ? 0xffffffffU : 0xffffU, r = next();

	switch (r % 6) {
	case 0:
		return t == XMEMSIM_DMA_T_F32 || t == XMEMSIM_DMA_T_I32 ?
		       e32[r / 8 % 13] : t == XMEMSIM_DMA_T_F16 ?
		       e16[r / 8 % 13] : eb16[r / 8 % 13];
	case 1:		/* near the other, either sign: cancellation, ties */
		return (other ^ (r >> 8) % 16) ^
		       (r & 0x80 ? (wide ? 0x80000000U : 0x8000U) : 0);
	case 2:		/* small: subnormals and their edge */
		return next() & (wide ? 0x80ffffffU :
				 t == XMEMSIM_DMA_T_F16 ? 0x87ffU : 0x80ffU);
	default:
		return next() & mask;
	}
}

static int native(void)
{
	long i, bad = 0;

	for (i = 0; i < 4000000; i++) {
		uint32_t a = next(), b = i & 1 ? (a & 0xff800000U) | (next() & 0x7fffff) : next();
		uint16_t ha = (uint16_t)a, hb = (uint16_t)(b >> 16), hr;
		float x, y, z;
		_Float16 p, q, r;
		uint32_t w;

		memcpy(&x, &a, 4);
		memcpy(&y, &b, 4);
		z = x + y;
		memcpy(&w, &z, 4);
		if (isnan(z))
			w = 0x7fc00000;
		bad += w != dp_reduce_elem(XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F32, a, b);
		memcpy(&p, &ha, 2);
		memcpy(&q, &hb, 2);
		r = p + q;
		memcpy(&hr, &r, 2);
		if (r != r)
			hr = 0x7e00;
		bad += hr != dp_reduce_elem(XMEMSIM_DMA_OP_SUM, XMEMSIM_DMA_T_F16, ha, hb);
	}
	printf("%s - reduce reference = host float and _Float16 sums (%ld of 8000000 differ)\n",
	       bad ? "not ok 1" : "ok 1", bad);
	return bad ? 1 : 0;
}

static void table(FILE *out)
{
	uint32_t t, op, i;

	fprintf(out, "/* SPDX-License-Identifier: GPL-2.0 */\n"
		"/* Made by tests/host/test_reduce_ref.c --table: the host's reductions. */\n");
	for (t = XMEMSIM_DMA_T_F32; t <= XMEMSIM_DMA_T_I32; t++)
		for (op = XMEMSIM_DMA_OP_SUM; op <= XMEMSIM_DMA_OP_MAX; op++)
			for (i = 0; i < 64; i++) {
				uint32_t a = operand(t, 0), b = operand(t, a);

				fprintf(out, "{ %s, XMEMSIM_DMA_T_%s, 0x%08x, 0x%08x, 0x%08x },\n",
				       op == XMEMSIM_DMA_OP_SUM ? "XMEMSIM_DMA_OP_SUM" :
				       "XMEMSIM_DMA_OP_MAX", type_name[t], a, b,
				       dp_reduce_elem(op, t, a, b));
			}
}

/* the committed table is what this reference prints */
static int table_check(void)
{
	char want[65536], got[65536];
	FILE *f = fopen(REDUCE_TABLE, "r"), *m = fmemopen(want, sizeof(want), "w");
	size_t n = 0, w;

	if (f) {
		n = fread(got, 1, sizeof(got), f);
		fclose(f);
	}
	if (!m)
		return 1;
	table(m);
	w = (size_t)ftell(m);
	fclose(m);
	printf("%s - %s is the reference's table\n",
	       f && n == w && !memcmp(want, got, n) ? "ok 2" : "not ok 2", REDUCE_TABLE);
	return !(f && n == w && !memcmp(want, got, n));
}

int main(int argc, char **argv)
{
	int bad;

	if (argc > 1 && !strcmp(argv[1], "--table")) {
		table(stdout);
		return 0;
	}
	printf("1..2\n");
	bad = native();
	rng = 0x9e3779b97f4a7c15ULL;
	bad |= table_check();
	return bad;
}
