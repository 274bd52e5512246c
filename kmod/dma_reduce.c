// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: the reducing engines. A transfer whose op is not
 * COPY accumulates, dst[i] = dst[i] op src[i] (uapi/xmemsim.h, "Reduce").
 *
 * The kernel uses no floating point unit here: f32, bf16 and f16 are
 * added in integers, exactly, then rounded once to nearest even, so the
 * result is the one an IEEE 754 host computes bit for bit (NaNs made the
 * type's default quiet NaN). The three float types are one algorithm over
 * a format (exponent and fraction widths) held in a u32.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "dma_internal.h"

struct rfmt {
	u32 ebits, mbits;
};

static const struct rfmt fmt_f32 = { 8, 23 };
static const struct rfmt fmt_bf16 = { 8, 7 };
static const struct rfmt fmt_f16 = { 5, 10 };

static u32 fmt_qnan(const struct rfmt *f)
{
	return ((1U << f->ebits) - 1) << f->mbits | 1U << (f->mbits - 1);
}

static bool fmt_nan(const struct rfmt *f, u32 x)
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
static u32 rf_add(const struct rfmt *f, u32 a, u32 b)
{
	u32 emax = (1U << f->ebits) - 1, mmask = (1U << f->mbits) - 1;
	u32 sa = a >> (f->ebits + f->mbits) & 1, sb = b >> (f->ebits + f->mbits) & 1;
	u32 ea = a >> f->mbits & emax, eb = b >> f->mbits & emax;
	u32 ma = a & mmask, mb = b & mmask, d, low;
	u64 sig_a, sig_b, s, top = 1ULL << (f->mbits + 3);
	u32 e;

	if (fmt_nan(f, a) || fmt_nan(f, b))
		return fmt_qnan(f);
	if (ea == emax)		/* a infinite */
		return eb == emax && sa != sb ? fmt_qnan(f) : a;
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
static u32 rf_max(const struct rfmt *f, u32 a, u32 b)
{
	u32 sign = 1U << (f->ebits + f->mbits);
	u32 ka, kb;

	if (fmt_nan(f, a) || fmt_nan(f, b))
		return fmt_qnan(f);
	ka = a & sign ? ~a & (sign - 1) : a | sign;	/* a total order */
	kb = b & sign ? ~b & (sign - 1) : b | sign;
	return ka >= kb ? a : b;
}

static u32 reduce_one(u32 op, u32 dtype, u32 a, u32 b)
{
	const struct rfmt *f;

	switch (dtype) {
	case XMEMSIM_DMA_T_I32:
		return op == XMEMSIM_DMA_OP_SUM ? a + b :
		       (s32)a >= (s32)b ? a : b;
	case XMEMSIM_DMA_T_F32:
		f = &fmt_f32;
		break;
	case XMEMSIM_DMA_T_BF16:
		f = &fmt_bf16;
		break;
	default:
		f = &fmt_f16;
		break;
	}
	return op == XMEMSIM_DMA_OP_SUM ? rf_add(f, a, b) : rf_max(f, a, b);
}

/**
 * xmemsim_dma_elem_size() - the element size of a reduce's type
 * @dtype: XMEMSIM_DMA_T_*
 *
 * Return: 4 or 2 bytes; 0 for XMEMSIM_DMA_T_NONE or an unknown type.
 */
u32 xmemsim_dma_elem_size(u32 dtype)
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
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_elem_size);	/* dma_reduce_test.c */

/**
 * xmemsim_dma_reduce_check() - a descriptor's op, dtype and length
 * @d: the descriptor
 *
 * A copy has op and dtype 0; a reduce a known op and type, and whole
 * elements.
 *
 * Return: 0 or -EINVAL.
 */
int xmemsim_dma_reduce_check(const struct xmemsim_dma_desc *d)
{
	u32 size = xmemsim_dma_elem_size(d->dtype);

	if (d->op == XMEMSIM_DMA_OP_COPY)
		return d->dtype ? -EINVAL : 0;
	if (d->op != XMEMSIM_DMA_OP_SUM && d->op != XMEMSIM_DMA_OP_MAX)
		return -EINVAL;
	return size && !(d->len % size) ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_reduce_check);	/* dma_reduce_test.c */

/**
 * xmemsim_dma_reduce() - dst[i] = dst[i] op src[i] over n bytes
 * @dst: the accumulator
 * @src: the operand, not overlapping @dst
 * @n: bytes, whole elements of @dtype
 * @op: XMEMSIM_DMA_OP_SUM or _MAX
 * @dtype: XMEMSIM_DMA_T_*, not NONE
 *
 * Elements are little-endian and may be unaligned.
 */
void xmemsim_dma_reduce(u8 *dst, const u8 *src, size_t n, u32 op, u32 dtype)
{
	size_t i;

	if (xmemsim_dma_elem_size(dtype) == 4) {
		for (i = 0; i + 4 <= n; i += 4) {
			__le32 a, b;

			memcpy(&a, dst + i, 4);
			memcpy(&b, src + i, 4);
			a = cpu_to_le32(reduce_one(op, dtype, le32_to_cpu(a),
						   le32_to_cpu(b)));
			memcpy(dst + i, &a, 4);
		}
		return;
	}
	for (i = 0; i + 2 <= n; i += 2) {
		__le16 a, b;

		memcpy(&a, dst + i, 2);
		memcpy(&b, src + i, 2);
		a = cpu_to_le16(reduce_one(op, dtype, le16_to_cpu(a),
					   le16_to_cpu(b)));
		memcpy(dst + i, &a, 2);
	}
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_reduce);	/* dma_reduce_test.c */

/**
 * xmemsim_dma_move() - a transfer's bytes move: copied, or reduced
 * @dst: destination
 * @src: source
 * @n: bytes (whole elements for a reduce)
 * @d: the transfer's descriptor, checked by xmemsim_dma_reduce_check()
 */
void xmemsim_dma_move(u8 *dst, const u8 *src, size_t n,
		      const struct xmemsim_dma_desc *d)
{
	if (d->op == XMEMSIM_DMA_OP_COPY)
		memcpy(dst, src, n);
	else
		xmemsim_dma_reduce(dst, src, n, d->op, d->dtype);
}
