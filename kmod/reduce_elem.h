/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DMA engines' reduce on one element and on a buffer (uapi/xmemsim.h,
 * "Reduce"): one source for the kernel (kmod/dma_reduce.c) and the host
 * (userspace/bridge/dp_reduce.c, which provides u8, u32, u64, s32, bool
 * and swap() first, by userspace/bridge/ktypes.h). tests/host/
 * test_reduce_ref.c holds it against the host's own float sums.
 *
 * No floating point unit is used: f32, bf16 and f16 are added in
 * integers, exactly, then rounded once to nearest even, so the result is
 * the one an IEEE 754 host computes bit for bit (NaNs made the type's
 * default quiet NaN). The three float types are one algorithm over a
 * format (exponent and fraction widths).
 */
#ifndef XMEMSIM_REDUCE_ELEM_H
#define XMEMSIM_REDUCE_ELEM_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#endif

#include "../uapi/xmemsim.h"

struct xmemsim_rfmt {
	u32 ebits, mbits;
};

static const struct xmemsim_rfmt xmemsim_rfmt_f32 = { 8, 23 };
static const struct xmemsim_rfmt xmemsim_rfmt_bf16 = { 8, 7 };
static const struct xmemsim_rfmt xmemsim_rfmt_f16 = { 5, 10 };

static inline u32 xmemsim_rf_qnan(const struct xmemsim_rfmt *f)
{
	return ((1U << f->ebits) - 1) << f->mbits | 1U << (f->mbits - 1);
}

static inline bool xmemsim_rf_nan(const struct xmemsim_rfmt *f, u32 x)
{
	u32 emax = (1U << f->ebits) - 1;

	return (x >> f->mbits & emax) == emax && (x & ((1U << f->mbits) - 1));
}

/*
 * a + b in format f, rounded to nearest even. The significands carry
 * three more bits (guard, round, sticky): the smaller operand's bits
 * shifted out stick in the lowest, which is enough for one rounding of
 * a sum or a difference.
 */
static inline u32 xmemsim_rf_add(const struct xmemsim_rfmt *f, u32 a, u32 b)
{
	u32 emax = (1U << f->ebits) - 1, mmask = (1U << f->mbits) - 1;
	u32 sa = a >> (f->ebits + f->mbits) & 1, sb = b >> (f->ebits + f->mbits) & 1;
	u32 ea = a >> f->mbits & emax, eb = b >> f->mbits & emax;
	u32 ma = a & mmask, mb = b & mmask, d, low;
	u64 sig_a, sig_b, s, top = 1ULL << (f->mbits + 3);
	u32 e;

	if (xmemsim_rf_nan(f, a) || xmemsim_rf_nan(f, b))
		return xmemsim_rf_qnan(f);
	if (ea == emax)		/* a infinite */
		return eb == emax && sa != sb ? xmemsim_rf_qnan(f) : a;
	if (eb == emax)
		return b;
	/* value = sig * 2^(e - bias - mbits - 3); a subnormal has e 1 */
	sig_a = (u64)(ea ? ma | 1U << f->mbits : ma) << 3;
	sig_b = (u64)(eb ? mb | 1U << f->mbits : mb) << 3;
	ea = ea ?: 1;
	eb = eb ?: 1;
	if (ea < eb || (ea == eb && sig_a < sig_b)) {	/* |a| >= |b| */
		swap(sa, sb);
		swap(ea, eb);
		swap(sig_a, sig_b);
	}
	d = ea - eb;
	if (d > f->mbits + 4)
		sig_b = sig_b != 0;
	else if (d)
		sig_b = sig_b >> d | ((sig_b & ((1ULL << d) - 1)) != 0);
	s = sa == sb ? sig_a + sig_b : sig_a - sig_b;
	if (!s)			/* x - x is +0; -0 + -0 is -0 */
		return sa == sb ? sa << (f->ebits + f->mbits) : 0;
	e = ea;
	if (s >= top << 1) {	/* carried */
		s = s >> 1 | (s & 1);
		e++;
	}
	while (s < top && e > 1) {
		s <<= 1;
		e--;
	}
	low = s & 7;
	s >>= 3;
	if (low > 4 || (low == 4 && (s & 1)))
		s++;
	if (s >> (f->mbits + 1)) {	/* rounding carried */
		s >>= 1;
		e++;
	}
	if (e >= emax)
		return (sa << f->ebits | emax) << f->mbits;
	if (!(s >> f->mbits))	/* subnormal */
		e = 0;
	return (sa << f->ebits | e) << f->mbits | (u32)(s & mmask);
}

/* max(a, b) in format f: -0 below +0, a NaN gives the default NaN */
static inline u32 xmemsim_rf_max(const struct xmemsim_rfmt *f, u32 a, u32 b)
{
	u32 sign = 1U << (f->ebits + f->mbits);
	u32 ka, kb;

	if (xmemsim_rf_nan(f, a) || xmemsim_rf_nan(f, b))
		return xmemsim_rf_qnan(f);
	ka = a & sign ? ~a & (sign - 1) : a | sign;	/* a total order */
	kb = b & sign ? ~b & (sign - 1) : b | sign;
	return ka >= kb ? a : b;
}

static inline u32 xmemsim_reduce_elem(u32 op, u32 dtype, u32 a, u32 b)
{
	const struct xmemsim_rfmt *f;

	switch (dtype) {
	case XMEMSIM_DMA_T_I32:
		return op == XMEMSIM_DMA_OP_SUM ? a + b :
		       (s32)a >= (s32)b ? a : b;
	case XMEMSIM_DMA_T_F32:
		f = &xmemsim_rfmt_f32;
		break;
	case XMEMSIM_DMA_T_BF16:
		f = &xmemsim_rfmt_bf16;
		break;
	default:
		f = &xmemsim_rfmt_f16;
		break;
	}
	return op == XMEMSIM_DMA_OP_SUM ? xmemsim_rf_add(f, a, b) : xmemsim_rf_max(f, a, b);
}

/* the element size of a reduce's type: 4 or 2; 0 for none or unknown */
static inline u32 xmemsim_reduce_size(u32 dtype)
{
	switch (dtype) {
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

/* a little-endian element of size bytes, at any alignment */
static inline u32 xmemsim_reduce_get(const u8 *p, u32 size)
{
	u32 v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

static inline void xmemsim_reduce_put(u8 *p, u32 size, u32 v)
{
	u32 i;

	for (i = 0; i < size; i++, v >>= 8)
		p[i] = (u8)v;
}

/* dst[i] = dst[i] op src[i] over the whole elements of n bytes */
static inline void xmemsim_reduce_buf(u8 *dst, const u8 *src, size_t n,
				      u32 op, u32 dtype)
{
	u32 size = xmemsim_reduce_size(dtype);
	size_t i;

	for (i = 0; size && i + size <= n; i += size) {
		u32 a = xmemsim_reduce_get(dst + i, size);
		u32 b = xmemsim_reduce_get(src + i, size);

		xmemsim_reduce_put(dst + i, size,
				   xmemsim_reduce_elem(op, dtype, a, b));
	}
}

#endif /* XMEMSIM_REDUCE_ELEM_H */
