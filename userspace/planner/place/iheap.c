// SPDX-License-Identifier: GPL-2.0
/*
 * iheap.c - the indexed binary min-heap both simplify paths use (place.c's
 * over the adjacency, dense.c's for multi-interval items): slots hold
 * element numbers, pos[] finds an element's slot so a lowered key can be
 * moved up, and ties on the key break by tie[element] (or the element
 * number itself), which keeps the order reproducible.
 */
#include "internal.h"
#include "place/place.h"

static int iheap_less(const struct dp_iheap *H, uint32_t a, uint32_t b)
{
	if (H->key[a] != H->key[b])
		return H->key[a] < H->key[b];
	return H->tie ? H->tie[a] < H->tie[b] : a < b;
}

void dp_iheap_swap(struct dp_iheap *H, size_t i, size_t j)
{
	uint32_t t = H->h[i];

	H->h[i] = H->h[j];
	H->h[j] = t;
	H->pos[H->h[i]] = i;
	H->pos[H->h[j]] = j;
}

void dp_iheap_up(struct dp_iheap *H, size_t i)
{
	while (i && iheap_less(H, H->h[i], H->h[(i - 1) / 2])) {
		dp_iheap_swap(H, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

void dp_iheap_down(struct dp_iheap *H, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < H->n && iheap_less(H, H->h[l], H->h[m]))
			m = l;
		if (r < H->n && iheap_less(H, H->h[r], H->h[m]))
			m = r;
		if (m == i)
			return;
		dp_iheap_swap(H, i, m);
		i = m;
	}
}
