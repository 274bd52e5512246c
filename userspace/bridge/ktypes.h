/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktypes.h - the kernel's names that a header shared with kmod/ uses
 * (kmod/reduce_elem.h), on the host: u8, u32, u64, s32, bool, swap().
 */
#ifndef DP_KTYPES_H
#define DP_KTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#define swap(a, b) \
	do { __typeof__(a) swap_t_ = (a); (a) = (b); (b) = swap_t_; } while (0)

#endif /* DP_KTYPES_H */
