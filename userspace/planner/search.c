// SPDX-License-Identifier: GPL-2.0
/*
 * search.c - the first-fit address selector and the HWM floor.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"

static int cmp_range(const void *a, const void *b)
{
	const struct dp_range *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->hi, y->hi);
}

static void sort_ranges(struct dp_range *r, size_t n)
{
	size_t i, j;

	if (n > 24) {
		qsort(r, n, sizeof(*r), cmp_range);
		return;
	}
	for (i = 1; i < n; i++) {
		struct dp_range x = r[i];

		for (j = i; j > 0 && cmp_range(&r[j - 1], &x) > 0; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/*
 * One gap [glo, ghi).  Returns 1 and *addr when the size fits, following
 * the seed's two-arm placement (dram_select.cpp ~263-285).  Shared with
 * dense.c's tree walk, so both paths judge a gap the same way.
 */
int dp_try_gap(uint64_t glo, uint64_t ghi, uint64_t size, uint64_t page,
		   uint64_t align, uint64_t *addr)
{
	uint64_t lo = glo, end_page;

	if (align > 1) {
		uint64_t r = lo % align;

		if (r && __builtin_add_overflow(lo, align - r, &lo))
			return 0;
	}
	if (lo >= ghi || ghi - lo < size)		/* gap too small */
		return 0;
	if (!page) {
		*addr = lo;
		return 1;
	}
	end_page = (lo + size - 1) / page;		/* page of the last byte */
	if (lo / page == end_page || size > page) {
		*addr = lo;				/* raw gap start */
		return 1;
	}
	/* a sub-page size that would straddle: bump to the boundary */
	if (ghi - page * end_page >= size) {
		*addr = page * end_page;
		return 1;
	}
	return 0;
}

int dp_search(struct dp_range *occ, size_t n, uint64_t start,
	      uint64_t ceiling, uint64_t size, uint64_t page, uint64_t align,
	      uint64_t *addr)
{
	uint64_t prev = start;
	size_t i;

	if (!size || start >= ceiling)
		return -1;
	sort_ranges(occ, n);
	for (i = 0; i < n && prev < ceiling; i++) {
		if (occ[i].lo > prev &&
		    dp_try_gap(prev, occ[i].lo < ceiling ? occ[i].lo : ceiling,
			    size, page, align, addr))
			return 0;
		if (occ[i].hi > prev)
			prev = occ[i].hi;
	}
	if (prev < ceiling && dp_try_gap(prev, ceiling, size, page, align, addr))
		return 0;
	return -1;
}

uint64_t dp_find_start_addr(uint64_t hwm)
{
	return hwm ? hwm + 1 : 0;
}
