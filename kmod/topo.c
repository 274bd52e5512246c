// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim interconnect: the topology parameter made into links and
 * routes (kmod/topo.h). Routes are shortest paths by links crossed; of
 * the shortest, the one whose each next hop is the lowest-numbered device,
 * so that a route is a function of (topology, n, from, to) alone. The
 * tables are small (32 x 32) and built by breadth-first search, by hand:
 * the kernel has no graph library to lean on.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "topo.h"

static const char *const topo_names[XMEMSIM_TOPO_KINDS] = {
	[XMEMSIM_TOPO_RING] = "ring",
	[XMEMSIM_TOPO_TORUS2D] = "torus2d",
	[XMEMSIM_TOPO_FULL] = "full",
};

/* The kind called @name, or -EINVAL. */
int xmemsim_topo_kind(const char *name)
{
	int i = match_string(topo_names, ARRAY_SIZE(topo_names), name);

	return i < 0 ? -EINVAL : i;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_topo_kind);	/* topo_test.c */

const char *xmemsim_topo_name(u32 kind)
{
	return kind < XMEMSIM_TOPO_KINDS ? topo_names[kind] : "?";
}

/* rows x cols for a torus of n: the most square, rows <= cols. */
static void torus_shape(u32 n, u32 *rows, u32 *cols)
{
	u32 r;

	for (r = 1; (r + 1) * (r + 1) <= n; r++)
		;
	while (n % r)
		r--;
	*rows = r;
	*cols = n / r;
}

static bool joined(const struct xmemsim_topo *t, u32 a, u32 b)
{
	u32 ra = a / t->cols, ca = a % t->cols, rb = b / t->cols, cb = b % t->cols;

	if (a == b)
		return false;
	switch (t->kind) {
	case XMEMSIM_TOPO_RING:
		return (a + 1) % t->n == b || (b + 1) % t->n == a;
	case XMEMSIM_TOPO_TORUS2D:
		if (ra == rb)
			return (ca + 1) % t->cols == cb || (cb + 1) % t->cols == ca;
		if (ca == cb)
			return (ra + 1) % t->rows == rb || (rb + 1) % t->rows == ra;
		return false;
	default:
		return true;
	}
}

/* hops[*][to] by breadth-first search from @to over the (symmetric) links */
static void topo_bfs(struct xmemsim_topo *t, u32 to)
{
	u8 queue[XMEMSIM_TOPO_MAX];
	u32 head = 0, tail = 0, a, b;

	for (a = 0; a < t->n; a++)
		t->hops[a][to] = U8_MAX;
	t->hops[to][to] = 0;
	queue[tail++] = to;
	while (head < tail) {
		a = queue[head++];
		for (b = 0; b < t->n; b++) {
			if (t->link[b][a] < 0 || t->hops[b][to] != U8_MAX)
				continue;
			t->hops[b][to] = t->hops[a][to] + 1;
			queue[tail++] = b;
		}
	}
}

/**
 * xmemsim_topo_build() - the links and routes of a topology
 * @t: filled in; its bandwidths and latencies are the caller's to set
 * @n: devices, 1 .. XMEMSIM_TOPO_MAX
 * @kind: enum xmemsim_topo_kind
 *
 * Return: 0, or -EINVAL for a bad @n or @kind.
 */
int xmemsim_topo_build(struct xmemsim_topo *t, u32 n, u32 kind)
{
	u32 a, b, c;

	if (!n || n > XMEMSIM_TOPO_MAX || kind >= XMEMSIM_TOPO_KINDS)
		return -EINVAL;
	t->n = n;
	t->kind = kind;
	t->rows = 1;
	t->cols = n;
	if (kind == XMEMSIM_TOPO_TORUS2D)
		torus_shape(n, &t->rows, &t->cols);
	t->dev_links = 0;
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			t->link[a][b] = joined(t, a, b) ? t->dev_links++ : -1;
	for (b = 0; b < n; b++)
		topo_bfs(t, b);
	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			t->next[a][b] = a;
			for (c = 0; a != b && c < n; c++) {
				if (t->link[a][c] >= 0 &&
				    t->hops[c][b] + 1 == t->hops[a][b]) {
					t->next[a][b] = c;
					break;
				}
			}
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_topo_build);	/* topo_test.c */

/* The route from device @from to device @to: empty when they are one. */
void xmemsim_topo_route(const struct xmemsim_topo *t, u32 from, u32 to,
			struct xmemsim_route *r)
{
	u32 a = from;

	r->n = 0;
	r->latency_ns = 0;
	r->mbps = U64_MAX;
	while (a != to && r->n < XMEMSIM_TOPO_MAX_HOPS) {
		u32 b = t->next[a][to];

		r->link[r->n++] = t->link[a][b];
		r->latency_ns += t->link_latency_ns;
		r->mbps = min(r->mbps, t->link_mbps);
		a = b;
	}
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_topo_route);	/* topo_test.c */

/* Device @dev's host link: into the device (@in) or out of it. */
void xmemsim_topo_host_route(const struct xmemsim_topo *t, u32 dev, bool in,
			     struct xmemsim_route *r)
{
	r->n = 1;
	r->link[0] = t->dev_links + 2 * dev + (in ? 0 : 1);
	r->latency_ns = t->host_latency_ns;
	r->mbps = t->host_mbps;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_topo_host_route);	/* topo_test.c */

/*
 * The link model. A transfer holds every link of its route from its start
 * to its end, as an engine is held: one that needs a link another holds
 * starts when it is free. Transfers that share a link so share its
 * bandwidth in modeled time, one after another, and none crosses a link
 * faster than the link allows. @free_ns: per link id, free from then.
 */
u64 xmemsim_link_start(const u64 *free_ns, const struct xmemsim_route *r,
		       u64 t)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		t = max(t, free_ns[r->link[i]]);
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_link_start);	/* topo_test.c */

void xmemsim_link_take(u64 *free_ns, const struct xmemsim_route *r, u64 end)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		free_ns[r->link[i]] = max(free_ns[r->link[i]], end);
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_link_take);	/* topo_test.c */
