/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xorshift.h - the seeded PRNG of the planner's tests and benchmark:
 * Marsaglia's xorshift64 (13, 7, 17).  Not part of libdramplan's API.
 *
 *	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;	(any nonzero state)
 *	n = xorshift64_below(&s, 10);			(0..9)
 */
#ifndef XORSHIFT_H
#define XORSHIFT_H

#include <stdint.h>

/* Advances *s (which must not be 0) and returns the new state. */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 0..n-1 (n > 0). */
static inline uint64_t xorshift64_below(uint64_t *s, uint64_t n)
{
	return xorshift64(s) % n;
}

#endif
