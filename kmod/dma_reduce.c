// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA: the reducing engines. A transfer whose op is not
 * COPY accumulates, dst[i] = dst[i] op src[i] (uapi/xmemsim.h, "Reduce").
 *
 * The arithmetic, element and buffer, is reduce_elem.h, which the host's
 * reference (userspace/bridge/dp_reduce.c) shares.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "dma_internal.h"
#include "reduce_elem.h"

/**
 * xmemsim_dma_elem_size() - the element size of a reduce's type
 * @dtype: XMEMSIM_DMA_T_*
 *
 * Return: 4 or 2 bytes; 0 for XMEMSIM_DMA_T_NONE or an unknown type.
 */
u32 xmemsim_dma_elem_size(u32 dtype)
{
	return xmemsim_reduce_size(dtype);
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
	xmemsim_reduce_buf(dst, src, n, op, dtype);
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
