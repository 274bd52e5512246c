// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the modeled interconnect (kmod/topo.c). Routes are checked
 * against what each topology is on paper: a route only crosses links that
 * exist, its length is the graph distance (checked against a distance
 * computed here another way: Floyd-Warshall over the link table), ties go
 * to the lower next device, and the link model shares a link's time,
 * on one device by its clock and across devices by the user's book.
 */
#include <linux/prandom.h>
#include <kunit/test.h>
#include <linux/slab.h>

#include "suite.h"
#include "../link_book.h"
#include "../topo.h"

static struct xmemsim_topo *topo_new(struct kunit *test, u32 n, u32 kind)
{
	struct xmemsim_topo *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, xmemsim_topo_build(t, n, kind), 0);
	t->link_mbps = 100000;
	t->link_latency_ns = 500;
	return t;
}

/* Every pair's distance, by relaxation over the link table. */
static void floyd(const struct xmemsim_topo *t, u8 (*d)[XMEMSIM_TOPO_MAX])
{
	u32 a, b, c;

	for (a = 0; a < t->n; a++)
		for (b = 0; b < t->n; b++)
			d[a][b] = a == b ? 0 : t->link[a][b] >= 0 ? 1 : 64;
	for (c = 0; c < t->n; c++)
		for (a = 0; a < t->n; a++)
			for (b = 0; b < t->n; b++)
				d[a][b] = min_t(u32, d[a][b], d[a][c] + d[c][b]);
}

/* Walk every route: real links, graph distance, lowest next hop. */
static void routes_check(struct kunit *test, const struct xmemsim_topo *t)
{
	u8 (*d)[XMEMSIM_TOPO_MAX] = kunit_kcalloc(test, XMEMSIM_TOPO_MAX,
						  sizeof(*d), GFP_KERNEL);
	struct xmemsim_route r;
	u32 a, b, c, i, at;

	KUNIT_ASSERT_NOT_NULL(test, d);
	floyd(t, d);
	for (a = 0; a < t->n; a++) {
		for (b = 0; b < t->n; b++) {
			xmemsim_topo_route(t, a, b, &r);
			KUNIT_EXPECT_EQ_MSG(test, r.n, d[a][b], "%u -> %u", a, b);
			KUNIT_EXPECT_EQ(test, r.latency_ns, 500ULL * r.n);
			at = a;
			for (i = 0; i < r.n; i++) {
				c = t->next[at][b];
				KUNIT_EXPECT_EQ(test, (int)r.link[i], t->link[at][c]);
				KUNIT_EXPECT_EQ(test, d[c][b] + 1, d[at][b]);
				/* no lower neighbour was as close */
				while (c--)
					if (t->link[at][c] >= 0)
						KUNIT_EXPECT_NE(test, d[c][b] + 1, d[at][b]);
				at = t->next[at][b];
			}
			KUNIT_EXPECT_EQ(test, at, b);
		}
	}
}

static u32 degree(const struct xmemsim_topo *t, u32 a)
{
	u32 b, deg = 0;

	for (b = 0; b < t->n; b++)
		deg += t->link[a][b] >= 0;
	return deg;
}

static void ring_test(struct kunit *test)
{
	static const u32 sizes[] = { 1, 2, 3, 4, 8, 16, 32 };
	u32 i, a;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct xmemsim_topo *t = topo_new(test, sizes[i], XMEMSIM_TOPO_RING);

		KUNIT_EXPECT_EQ(test, t->dev_links, sizes[i] == 1 ? 0 :
				sizes[i] == 2 ? 2 : 2 * sizes[i]);
		for (a = 0; a < t->n; a++)
			KUNIT_EXPECT_EQ(test, t->hops[a][(a + t->n / 2) % t->n],
					t->n / 2);
		routes_check(test, t);
	}
}

static void torus_test(struct kunit *test)
{
	struct xmemsim_topo *t = topo_new(test, 16, XMEMSIM_TOPO_TORUS2D);
	u32 a;

	KUNIT_EXPECT_EQ(test, t->rows, 4U);	/* trn1's 4 x 4 */
	KUNIT_EXPECT_EQ(test, t->cols, 4U);
	for (a = 0; a < 16; a++)
		KUNIT_EXPECT_EQ(test, degree(t, a), 4U);
	KUNIT_EXPECT_EQ(test, t->hops[0][10], 4);	/* (0,0) to (2,2) */
	KUNIT_EXPECT_EQ(test, t->hops[0][15], 2);	/* both wrap */
	routes_check(test, t);
	t = topo_new(test, 8, XMEMSIM_TOPO_TORUS2D);
	KUNIT_EXPECT_EQ(test, t->rows * 10 + t->cols, 24U);
	KUNIT_EXPECT_EQ(test, degree(t, 0), 3U);	/* a 2-row torus */
	routes_check(test, t);
	t = topo_new(test, 7, XMEMSIM_TOPO_TORUS2D);	/* a prime: a ring */
	KUNIT_EXPECT_EQ(test, t->rows, 1U);
	routes_check(test, t);
}

static void full_test(struct kunit *test)
{
	struct xmemsim_topo *t = topo_new(test, 8, XMEMSIM_TOPO_FULL);
	struct xmemsim_route r;

	KUNIT_EXPECT_EQ(test, t->dev_links, 56U);
	routes_check(test, t);
	xmemsim_topo_route(t, 7, 0, &r);
	KUNIT_EXPECT_EQ(test, r.n, 1U);
	KUNIT_EXPECT_EQ(test, r.mbps, 100000ULL);
}

/* Two builds of one topology are one table; bad ones are refused. */
static void determinism_test(struct kunit *test)
{
	struct xmemsim_topo *a = topo_new(test, 12, XMEMSIM_TOPO_TORUS2D);
	struct xmemsim_topo *b = topo_new(test, 12, XMEMSIM_TOPO_TORUS2D);

	KUNIT_EXPECT_EQ(test, memcmp(a->next, b->next, sizeof(a->next)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a->link, b->link, sizeof(a->link)), 0);
	KUNIT_EXPECT_EQ(test, xmemsim_topo_build(a, 0, XMEMSIM_TOPO_RING), -EINVAL);
	KUNIT_EXPECT_EQ(test, xmemsim_topo_build(a, 33, XMEMSIM_TOPO_RING), -EINVAL);
	KUNIT_EXPECT_EQ(test, xmemsim_topo_build(a, 4, XMEMSIM_TOPO_KINDS), -EINVAL);
	KUNIT_EXPECT_EQ(test, xmemsim_topo_kind("torus2d"), XMEMSIM_TOPO_TORUS2D);
	KUNIT_EXPECT_EQ(test, xmemsim_topo_kind("mesh"), -EINVAL);
}

/*
 * The link model: two transfers over a shared link run one after the
 * other; one over other links is not held back; host links are apart.
 */
static void link_share_test(struct kunit *test)
{
	struct xmemsim_topo *t = topo_new(test, 4, XMEMSIM_TOPO_RING);
	u64 *free_ns = kunit_kcalloc(test, xmemsim_topo_links(t),
				     sizeof(u64), GFP_KERNEL);
	struct xmemsim_route r02, r12, r30, h;
	u64 s;

	KUNIT_ASSERT_NOT_NULL(test, free_ns);
	xmemsim_topo_route(t, 0, 2, &r02);	/* 0 -> 1 -> 2 */
	xmemsim_topo_route(t, 1, 2, &r12);	/* shares 1 -> 2 */
	xmemsim_topo_route(t, 3, 0, &r30);	/* shares nothing */
	KUNIT_ASSERT_EQ(test, r02.n, 2U);
	KUNIT_EXPECT_EQ(test, r02.link[1], r12.link[0]);
	s = xmemsim_link_start(free_ns, &r02, 100);
	KUNIT_EXPECT_EQ(test, s, 100ULL);
	xmemsim_link_take(free_ns, &r02, 1100);
	KUNIT_EXPECT_EQ(test, xmemsim_link_start(free_ns, &r12, 200), 1100ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_start(free_ns, &r30, 200), 200ULL);
	xmemsim_topo_host_route(t, 1, true, &h);
	KUNIT_EXPECT_EQ(test, xmemsim_link_start(free_ns, &h, 200), 200ULL);
	KUNIT_EXPECT_GE(test, (u32)h.link[0], t->dev_links);
	/* a take never moves a link's time back */
	xmemsim_link_take(free_ns, &r12, 500);
	KUNIT_EXPECT_EQ(test, xmemsim_link_start(free_ns, &r12, 0), 1100ULL);
}

/*
 * The book across devices: another device's booking moves a transfer's
 * bytes past it on a shared link, its own device's does not (its clock
 * does that), a gap that fits is taken, and a full book makes room.
 */
static void link_book_test(struct kunit *test)
{
	struct xmemsim_topo *t = topo_new(test, 4, XMEMSIM_TOPO_RING);
	struct xmemsim_link_book *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct xmemsim_route r02, r12, r30;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	xmemsim_topo_route(t, 0, 2, &r02);	/* 0 -> 1 -> 2 */
	xmemsim_topo_route(t, 1, 2, &r12);	/* shares 1 -> 2 */
	xmemsim_topo_route(t, 3, 0, &r30);	/* shares nothing */
	xmemsim_link_book_add(b, 0, &r02, 1000, 2000);
	KUNIT_EXPECT_EQ(test, b->n, 2U);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 100), 2000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 900, 100), 900ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 950, 100), 2000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 0, &r12, 1500, 100), 1500ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 3, &r30, 1500, 100), 1500ULL);
	/* a gap of 100 between two bookings fits a transfer of 100, not 101 */
	xmemsim_link_book_add(b, 2, &r12, 2100, 3000);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 100), 2000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 101), 3000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 0), 1500ULL);
	/* full: the bookings that end first go, device 0's two */
	for (i = b->n; i < XMEMSIM_LINK_BOOK_MAX; i++)
		xmemsim_link_book_add(b, 3, &r30, 10000 + i, 20000);
	KUNIT_EXPECT_EQ(test, b->n, (u32)XMEMSIM_LINK_BOOK_MAX);
	xmemsim_link_book_add(b, 3, &r30, 30000, 40000);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 100), 2000ULL);
	xmemsim_link_book_add(b, 3, &r30, 30000, 40000);
	KUNIT_EXPECT_EQ(test, b->n, (u32)XMEMSIM_LINK_BOOK_MAX);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 600), 1500ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_link_book_fit(b, 1, &r12, 1500, 601), 3000ULL);
}

/* Is [s, s + len) clear of every other device's booking on route r? */
static bool book_clear(const struct xmemsim_link_book *b, u32 dev,
		       const struct xmemsim_route *r, u64 s, u64 len)
{
	u32 i, k;

	for (i = 0; i < b->n; i++)
		for (k = 0; k < r->n; k++)
			if (b->iv[i].dev != dev && b->iv[i].link == r->link[k] &&
			    b->iv[i].start < s + len && s < b->iv[i].end)
				return false;
	return true;
}

/*
 * Random books on a torus of 8, against the definition: the fit is clear,
 * at or after the asked time, and no earlier candidate (the asked time,
 * or a booking's end) is clear.
 */
static void link_book_random_test(struct kunit *test)
{
	struct xmemsim_topo *t = topo_new(test, 8, XMEMSIM_TOPO_TORUS2D);
	struct xmemsim_link_book *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct rnd_state rnd;
	struct xmemsim_route r;
	u64 at, len, fit, s;
	u32 round, i, dev;

	KUNIT_ASSERT_NOT_NULL(test, b);
	prandom_seed_state(&rnd, 48);
	for (round = 0; round < 400; round++) {
		dev = prandom_u32_state(&rnd) % 8;
		xmemsim_topo_route(t, dev, (dev + 1 + prandom_u32_state(&rnd) % 7) % 8, &r);
		at = prandom_u32_state(&rnd) % 100000;
		len = 1 + prandom_u32_state(&rnd) % 3000;
		fit = xmemsim_link_book_fit(b, dev, &r, at, len);
		KUNIT_EXPECT_GE(test, fit, at);
		KUNIT_EXPECT_TRUE(test, book_clear(b, dev, &r, fit, len));
		if (book_clear(b, dev, &r, at, len))
			KUNIT_EXPECT_EQ(test, fit, at);
		for (i = 0; i < b->n; i++) {
			s = b->iv[i].end;
			if (s > at && s < fit)
				KUNIT_EXPECT_FALSE(test, book_clear(b, dev, &r, s, len));
		}
		xmemsim_link_book_add(b, dev, &r, fit, fit + len);
	}
	KUNIT_EXPECT_EQ(test, b->n, (u32)XMEMSIM_LINK_BOOK_MAX);
}

XMEMSIM_SUITE(topo_test, "xmemsim_topo", NULL, NULL,
	      KUNIT_CASE(ring_test),
	      KUNIT_CASE(torus_test),
	      KUNIT_CASE(full_test),
	      KUNIT_CASE(determinism_test),
	      KUNIT_CASE(link_share_test),
	      KUNIT_CASE(link_book_test),
	      KUNIT_CASE(link_book_random_test));
