// SPDX-License-Identifier: GPL-2.0
/*
 * dramplan verify --format=minimalloc (dp_csv_verify) shares the plan
 * verifier's sweep (the sweep it had before compared each buffer with every open one,
 * O(n^2) when all are live).  Its verdicts and messages must be those of
 * that quadratic check, kept here as the oracle, on solved and mutated
 * problems of several shapes, all-live ones included.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan/plan.h"
#include "planner_util.h"
#include "tap.h"
#include "xorshift.h"

/* The previous verifier: the open list scanned for every buffer. */
static int oracle(const struct dp_csv *c, struct dp_err *e)
{
	const struct dp_csv_buf **s = calloc(c->n + 1, sizeof(*s));
	const struct dp_csv_buf **act = calloc(c->n + 1, sizeof(*act));
	size_t i, j, nact = 0;
	int rc = 0;

	rc = dp_csv_sorted(c, s, e);	/* the per-buffer rules are shared */
	if (rc)
		goto out;
	for (i = 0; i < c->n; i++) {
		size_t w = 0;

		for (j = 0; j < nact; j++)
			if (act[j]->upper > s[i]->lower)
				act[w++] = act[j];
		nact = w;
		for (j = 0; j < nact; j++)
			if (act[j]->offset < s[i]->offset + s[i]->size &&
			    s[i]->offset < act[j]->offset + act[j]->size) {
				rc = dp_fail(e, "%s: buffers '%s' and '%s' overlap: both live at time %llu, offsets [%llu, %llu) and [%llu, %llu)",
					     c->file, act[j]->id, s[i]->id,
					     (unsigned long long)s[i]->lower,
					     (unsigned long long)act[j]->offset,
					     (unsigned long long)(act[j]->offset + act[j]->size),
					     (unsigned long long)s[i]->offset,
					     (unsigned long long)(s[i]->offset + s[i]->size));
				goto out;
			}
		act[nact++] = s[i];
	}
out:
	free(s);
	free(act);
	return rc;
}

/* n buffers; shape 0: short lives, 1: windows, 2: all live, 3: nested */
static struct dp_csv *problem(uint64_t *rs, size_t n, int shape, int align)
{
	struct csv_row *r = calloc(n, sizeof(*r));
	struct dp_csv *c;
	size_t i;

	for (i = 0; r && i < n; i++) {
		uint64_t lo, hi;

		switch (shape) {
		case 0: lo = xorshift64_below(rs, 4 * n); hi = lo + 1 + xorshift64_below(rs, 6); break;
		case 1: lo = i; hi = lo + 1 + xorshift64_below(rs, 40); break;
		case 2: lo = xorshift64_below(rs, 3); hi = 3 * n + xorshift64_below(rs, 3); break;
		default: lo = i; hi = 2 * n - i; break;
		}
		r[i] = (struct csv_row){ .id = (n - i) * 13, .lo = lo, .hi = hi,
					 .size = 1 + xorshift64_below(rs, 64) };
		if (align)
			r[i].align = 1u << xorshift64_below(rs, 3);
	}
	c = r ? csv_of_rows("v.csv", 'x', r, n, align) : NULL;
	free(r);
	return c;
}

TEST(csv_verify_agrees_with_the_quadratic_check)
{
	uint64_t rs = 0x5eed2024, seed;
	int bad = 0, good = 0;

	for (seed = 0; seed < 1200; seed++) {
		size_t n = 1 + xorshift64_below(&rs, seed % 10 ? 40 : 400);
		struct dp_csv *c = problem(&rs, n, seed % 4, seed % 3 == 0);
		struct dp_err e1 = { "" }, e2 = { "" };
		size_t k, m;
		int r1, r2;

		REQUIRE(c);
		REQUIRE(!dp_csv_solve_best(c, 0, NULL, NULL, &e1));
		/* mutate: up to 3 buffers moved onto another's bytes, or off
		 * their alignment, or one offset made to wrap */
		m = seed % 2 ? 1 + xorshift64_below(&rs, 3) : 0;
		for (k = 0; k < m; k++) {
			struct dp_csv_buf *a = &c->b[xorshift64_below(&rs, n)];
			struct dp_csv_buf *b = &c->b[xorshift64_below(&rs, n)];

			a->offset = b->offset + xorshift64_below(&rs, b->size);
			if (seed % 50 == 1)
				a->offset = UINT64_MAX - xorshift64_below(&rs, 3);
		}
		r1 = dp_csv_verify(c, &e1);
		r2 = oracle(c, &e2);
		CHECK_EQ_U64(r1, r2);
		CHECK_STR(e1.msg, e2.msg);
		if (r1)
			bad++;
		else
			good++;
		dp_csv_free(c);
	}
	printf("# %d valid, %d rejected\n", good, bad);
	CHECK(good > 500 && bad > 300);
}

/* Everything live at once, 20,000 buffers: valid, then one overlap made
 * at the end of the address range is still the pair the oracle names. */
TEST(csv_verify_all_live)
{
	uint64_t rs = 99;
	struct dp_csv *c = problem(&rs, 20000, 2, 0);
	struct dp_err e1 = { "" }, e2 = { "" };
	size_t i, hi = 0;

	REQUIRE(c);
	REQUIRE(!dp_csv_solve(c, 0, DP_ORDER_SIZE, NULL, &e1));
	CHECK(!dp_csv_verify(c, &e1));
	for (i = 1; i < c->n; i++)
		if (c->b[i].offset > c->b[hi].offset)
			hi = i;
	c->b[0].offset = c->b[hi].offset;
	CHECK(dp_csv_verify(c, &e1));
	CHECK(oracle(c, &e2));
	CHECK_STR(e1.msg, e2.msg);
	dp_csv_free(c);
}

int main(void)
{
	return tap_run();
}
