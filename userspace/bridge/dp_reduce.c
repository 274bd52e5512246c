// SPDX-License-Identifier: GPL-2.0
/*
 * dp_reduce.c - the host's reduction, as the DMA engines' reduce is
 * specified (uapi/xmemsim.h, "Reduce"): the reference the device is
 * checked against (the plan run's content check, the KUnit table).
 *
 * Each element is decoded to a double (exactly) and summed there; the
 * sum of two binary32, binary16 or bfloat16 values rounded to double and
 * then to the type is the correctly rounded sum (double has more than
 * twice their precision plus two bits), and the last rounding is the C
 * library's nearbyint() in the default mode, to nearest even. A NaN gives
 * the type's default NaN. No bit twiddling of the kernel's soft-float is
 * shared: the two are independent.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dp_device.h"

struct fmt {
	int ebits, mbits;
	const char *name;
};

static const struct fmt fmts[] = {
	[XMEMSIM_DMA_T_F32] = { 8, 23, "F32" },
	[XMEMSIM_DMA_T_BF16] = { 8, 7, "BF16" },
	[XMEMSIM_DMA_T_F16] = { 5, 10, "F16" },
	[XMEMSIM_DMA_T_I32] = { 0, 0, "I32" },
};

static uint32_t qnan(const struct fmt *f)
{
	return ((1U << f->ebits) - 1) << f->mbits | 1U << (f->mbits - 1);
}

static double decode(const struct fmt *f, uint32_t x)
{
	int bias = (1 << (f->ebits - 1)) - 1;
	uint32_t emax = (1U << f->ebits) - 1;
	uint32_t e = x >> f->mbits & emax, m = x & ((1U << f->mbits) - 1);
	double v;

	if (e == emax)
		v = m ? NAN : INFINITY;
	else if (!e)
		v = ldexp(m, 1 - bias - f->mbits);
	else
		v = ldexp(m | 1U << f->mbits, (int)e - bias - f->mbits);
	return x >> (f->ebits + f->mbits) & 1 ? -v : v;
}

static uint32_t encode(const struct fmt *f, double x)
{
	int bias = (1 << (f->ebits - 1)) - 1, emin = 1 - bias, ex;
	uint32_t sign = (signbit(x) ? 1U : 0U) << (f->ebits + f->mbits);
	uint32_t inf = sign | ((1U << f->ebits) - 1) << f->mbits;
	double ax = fabs(x), y;

	if (isnan(x))
		return qnan(f);
	if (isinf(x))
		return inf;
	if (ax == 0)
		return sign;
	frexp(ax, &ex);
	ex = ex - 1 < emin ? emin : ex - 1;	/* ax < 2^(ex + 1) */
	y = ldexp(nearbyint(ldexp(ax, f->mbits - ex)), ex - f->mbits);
	if (y >= ldexp(1, bias + 1))
		return inf;
	if (y == 0)
		return sign;
	frexp(y, &ex);
	if (ex - 1 < emin)
		return sign | (uint32_t)ldexp(y, f->mbits - emin);
	return sign | (uint32_t)(ex - 1 + bias) << f->mbits |
	       ((uint32_t)ldexp(y, f->mbits - ex + 1) & ((1U << f->mbits) - 1));
}

uint32_t dp_reduce_elem(uint32_t op, uint32_t t, uint32_t a, uint32_t b)
{
	const struct fmt *f = &fmts[t];
	double x, y;

	if (t == XMEMSIM_DMA_T_I32)
		return op == XMEMSIM_DMA_OP_SUM ? a + b :
		       (int32_t)a >= (int32_t)b ? a : b;
	x = decode(f, a);
	y = decode(f, b);
	if (isnan(x) || isnan(y))
		return qnan(f);
	if (op == XMEMSIM_DMA_OP_SUM)
		return encode(f, x + y);
	if (x != y)
		return x > y ? a : b;
	return signbit(x) && !signbit(y) ? b : a;	/* -0 below +0 */
}


uint32_t dp_reduce_size(uint32_t type)
{
	switch (type) {
	case XMEMSIM_DMA_T_F32:
	case XMEMSIM_DMA_T_I32:
		return 4;
	case XMEMSIM_DMA_T_BF16:
	case XMEMSIM_DMA_T_F16:
		return 2;
	default:
		return 0;
	}
}

void dp_reduce_buf(void *dst, const void *src, size_t n, uint32_t op,
		   uint32_t type)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint32_t size = dp_reduce_size(type);
	size_t i;

	for (i = 0; size && i + size <= n; i += size) {
		uint32_t a = 0, b = 0, r;

		memcpy(&a, d + i, size);	/* little-endian hosts */
		memcpy(&b, s + i, size);
		r = dp_reduce_elem(op, type, a, b);
		memcpy(d + i, &r, size);
	}
}
