// SPDX-License-Identifier: GPL-2.0
/*
 * dp_reduce.c - the host's reduction, as the DMA engines' reduce is
 * specified (uapi/xmemsim.h, "Reduce"): what the plan run's content check
 * expects of an all-reduce.
 *
 * The arithmetic is the kernel's own, kmod/reduce_elem.h (integer soft
 * float, rounded once to nearest even), compiled here over ktypes.h: one
 * source, so the two cannot drift. tests/host/test_reduce_ref.c holds it
 * against the host's own float and _Float16 sums, an independent oracle.
 */
#include <stdint.h>

#include "dp_device.h"
#include "ktypes.h"
#include "../../kmod/reduce_elem.h"

uint32_t dp_reduce_elem(uint32_t op, uint32_t t, uint32_t a, uint32_t b)
{
	return xmemsim_reduce_elem(op, t, a, b);
}

uint32_t dp_reduce_size(uint32_t type)
{
	return xmemsim_reduce_size(type);
}

void dp_reduce_buf(void *dst, const void *src, size_t n, uint32_t op,
		   uint32_t type)
{
	xmemsim_reduce_buf(dst, src, n, op, type);
}
