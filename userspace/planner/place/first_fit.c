// SPDX-License-Identifier: GPL-2.0
/*
 * first_fit.c - the first-fit address selector and the HWM floor.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <stdlib.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"

/*
 * The ranges by lo.  Only lo decides the scan below: of the ranges that
 * share a lo, the first one met tests the gap before it and the others
 * find it closed (prev is past lo by then), so the order among them does
 * not change the answer and the sort need not be stable.  Hand-written
 * instead of qsort because first fit sorts every placement's neighbours
 * and glibc's qsort (a merge sort through a callback) was a third of a
 * dense placement's time: quicksort on the key inline, median of three,
 * insertion sort below 24, heapsort past a depth of 2 log2 n (so never
 * worse than n log n).
 */
static void swap_range(struct dp_range *a, struct dp_range *b)
{
	struct dp_range t = *a;

	*a = *b;
	*b = t;
}

static void insertion_sort(struct dp_range *r, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct dp_range x = r[i];

		for (j = i; j > 0 && r[j - 1].lo > x.lo; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

static void sift_down(struct dp_range *r, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && r[c + 1].lo > r[c].lo)
			c++;
		if (r[i].lo >= r[c].lo)
			return;
		swap_range(&r[i], &r[c]);
		i = c;
	}
}

static void heap_sort(struct dp_range *r, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(r, i, n);
	for (i = n; i-- > 1;) {
		swap_range(&r[0], &r[i]);
		sift_down(r, 0, i);
	}
}

static void intro_sort(struct dp_range *r, size_t n, unsigned int depth)
{
	while (n > 24) {
		size_t m = n / 2, i, j;
		uint64_t p;

		if (!depth--) {
			heap_sort(r, n);
			return;
		}
		/* median of three to r[m], then partition around its key */
		if (r[m].lo < r[0].lo)
			swap_range(&r[m], &r[0]);
		if (r[n - 1].lo < r[m].lo) {
			swap_range(&r[n - 1], &r[m]);
			if (r[m].lo < r[0].lo)
				swap_range(&r[m], &r[0]);
		}
		p = r[m].lo;
		for (i = 0, j = n - 1;; i++, j--) {
			while (r[i].lo < p)
				i++;
			while (r[j].lo > p)
				j--;
			if (i >= j)
				break;
			swap_range(&r[i], &r[j]);
		}
		/* [0, j] <= p <= [j + 1, n): recurse into the smaller part */
		if (j + 1 < n - j - 1) {
			intro_sort(r, j + 1, depth);
			r += j + 1;
			n -= j + 1;
		} else {
			intro_sort(r + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	insertion_sort(r, n);
}

void dp_sort_ranges(struct dp_range *r, size_t n, unsigned int depth)
{
	size_t k;

	if (depth == DP_SORT_DEPTH_AUTO)
		for (depth = 0, k = n; k > 1; k >>= 1)
			depth += 2;
	intro_sort(r, n, depth);
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

int dp_first_fit(struct dp_range *occ, size_t n, uint64_t start,
		 uint64_t ceiling, uint64_t size, uint64_t page, uint64_t align,
		 uint64_t *addr)
{
	if (!size || start >= ceiling)
		return -1;
	dp_sort_ranges(occ, n, DP_SORT_DEPTH_AUTO);
	return dp_first_fit_sorted(occ, n, start, ceiling, size, page, align,
				   addr);
}

int dp_first_fit_sorted(const struct dp_range *occ, size_t n, uint64_t start,
			uint64_t ceiling, uint64_t size, uint64_t page,
			uint64_t align, uint64_t *addr)
{
	uint64_t prev = start;
	size_t i;

	if (!size || start >= ceiling)
		return -1;
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
