// SPDX-License-Identifier: GPL-2.0
/*
 * search_util.c - the helpers of the search's tests (search_util.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_util.h"
#include "xorshift.h"
#include "../../scripts/bench-synth.h"

/* A perfect packing of n buffers as a parsed CSV. */
struct dp_csv *perfect(uint32_t n, uint64_t seed)
{
	struct dp_csv *c = NULL;
	struct dp_err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	bench_synth_perfect(f, n, seed);
	if (!fclose(f))
		c = dp_csv_parse("perfect.csv", buf, len, &e);
	free(buf);
	return c;
}

int prob_of(const struct dp_csv *c, struct prob *p)
{
	size_t i;

	p->n = c->n;
	p->it = calloc(c->n + 1, sizeof(*p->it));
	p->iv = calloc(c->n + 1, sizeof(*p->iv));
	p->key = calloc(c->n + 1, sizeof(*p->key));
	if (!p->it || !p->iv || !p->key)
		return -1;
	for (i = 0; i < c->n; i++) {
		p->iv[i] = (struct dp_iv){ c->b[i].lower, c->b[i].upper - 1 };
		p->it[i] = (struct dp_item){ c->b[i].size, 1, i, 1, DP_UNSET };
		p->key[i] = c->b[i].size;
	}
	return 0;
}

void prob_free(struct prob *p)
{
	free(p->it);
	free(p->iv);
	free(p->key);
}

/* Every item placed, and items live at a common time byte-disjoint
 * (all pairs: the test's own check, not the library's). */
int valid(const struct prob *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		if (p->it[i].addr == DP_UNSET)
			return 0;
		for (j = i + 1; j < p->n; j++) {
			const struct dp_item *a = &p->it[i], *b = &p->it[j];

			if (p->iv[i].lo > p->iv[j].hi || p->iv[j].lo > p->iv[i].hi)
				continue;
			if (a->addr < b->addr + b->size && b->addr < a->addr + a->size)
				return 0;
		}
	}
	return 1;
}

uint64_t end_of(const struct prob *p)
{
	return dp_items_end(p->it, p->n, 0);
}


/* A skyline pass on p (chain: the chain pass), the work added to *w */
int sky(struct prob *p, int chain, uint64_t ceiling, uint64_t *w)
{
	return chain ? dp_skyline_chain(DP_PROBLEM(.it = p->it, .n = p->n,
						   .iv = p->iv,
						   .ceiling = ceiling),
					&dp_search_defaults, p->key, 0, w,
					NULL) :
		       dp_skyline(DP_PROBLEM(.it = p->it, .n = p->n, .iv = p->iv,
					      .ceiling = ceiling),
				  &dp_search_defaults, p->key, NULL);
}

/* c's problem placed by the chain pass, two arrays of its size for
 * placements, its lower bound; 0, or -1. */
int chain_start(const struct dp_csv *c, struct prob *p, uint64_t *b[2],
		uint64_t *lb, uint64_t *w)
{
	if (prob_of(c, p))
		return -1;
	b[0] = calloc(p->n, sizeof(uint64_t));
	b[1] = calloc(p->n, sizeof(uint64_t));
	if (!b[0] || !b[1])
		return -1;
	*lb = dp_lower_bound(p->it, p->n, p->iv);
	return sky(p, 1, UINT64_MAX, w);
}

/* A random problem of k blocks of 32-47 items, each block in its own
 * window of 24 times: one interval an item, or two apart (the first in
 * the window's first half, the second in its second), sizes 1-200,
 * alignments 1-8; page 64 on odd seeds (the page rule). */
int random_blocks(uint64_t seed, struct prob *p, size_t k,
		  uint64_t *page)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t j, c, n = 0, m;

	p->it = calloc(k * 48 + 1, sizeof(*p->it));
	p->iv = calloc(2 * k * 48 + 1, sizeof(*p->iv));
	p->key = NULL;
	if (!p->it || !p->iv)
		return -1;
	*page = seed % 2 ? 64 : 0;
	for (m = j = 0; j < k; j++) {
		size_t cnt = 32 + xorshift64_below(&rs, 16);

		for (c = 0; c < cnt; c++, n++) {
			uint32_t v, nv = 1 + (xorshift64_below(&rs, 4) == 0);

			p->it[n] = (struct dp_item){
				1 + xorshift64_below(&rs, 200),
				1ULL << xorshift64_below(&rs, 4), m, nv,
				DP_UNSET };
			for (v = 0; v < nv; v++, m++) {
				uint64_t w = nv == 2 ? 12 : 24;
				uint64_t lo = 30 * j + 12 * v +
					      xorshift64_below(&rs, w);
				uint64_t end = 30 * j + 12 * v + w;

				p->iv[m] = (struct dp_iv){ lo, lo +
					xorshift64_below(&rs, end - lo) };
			}
		}
	}
	p->n = n;
	return 0;
}

/* Items live at a common time byte-disjoint, any number of intervals;
 * every address aligned. */
int valid_iv(const struct prob *p)
{
	size_t i, j, a, b;

	for (i = 0; i < p->n; i++) {
		const struct dp_item *x = &p->it[i];

		if (x->addr == DP_UNSET || x->addr % x->align)
			return 0;
		for (j = i + 1; j < p->n; j++) {
			const struct dp_item *y = &p->it[j];

			if (x->addr >= y->addr + y->size ||
			    y->addr >= x->addr + x->size)
				continue;
			for (a = 0; a < x->iv_count; a++)
				for (b = 0; b < y->iv_count; b++) {
					const struct dp_iv *u, *w;

					u = &p->iv[x->iv_first + a];
					w = &p->iv[y->iv_first + b];
					if (u->lo <= w->hi && w->lo <= u->hi)
						return 0;
				}
		}
	}
	return 1;
}

/* No item of at most a page straddles a page boundary (page 0: none). */
int paged(const struct prob *p, uint64_t page)
{
	size_t i;

	for (i = 0; page && i < p->n; i++) {
		const struct dp_item *x = &p->it[i];

		if (x->size <= page &&
		    x->addr / page != (x->addr + x->size - 1) / page)
			return 0;
	}
	return 1;
}

const struct dp_search_params *glue_params(int glue)
{
	static struct dp_search_params off;

	const struct dp_phase *ph;

	off = dp_search_defaults;
	for (ph = dp_search_phases; ph->kind != DP_PHASE_END; ph++)
		if (ph->kind == DP_PHASE_GLUE)
			dp_search_off(&off, ph->name);
	return glue ? &dp_search_defaults : &off;
}

int search(struct prob *p, uint64_t ceiling, uint64_t page, uint64_t nodes,
	   const struct dp_search_params *par, struct dp_search_stats *st)
{
	struct dp_search s = {
		.problem = { .it = p->it, .n = p->n, .iv = p->iv,
			     .ceiling = ceiling, .page = page },
		.nodes = nodes,
		.params = par,
	};

	return dp_search_run(&s, st);
}
