/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modeled interconnect between the simulated devices (kmod/topo.c):
 * which devices a link joins, the shortest route between two devices, and
 * one host link per device. Pure functions of the parameters: built once
 * at load, read without a lock after.
 *
 * Links are directed. Device links are numbered in (from, to) order over
 * the pairs that the topology joins; host link ids follow them, two per
 * device: host to device (XMEMSIM_TOPO_HOST_IN), then device to host.
 */
#ifndef XMEMSIM_TOPO_H
#define XMEMSIM_TOPO_H

#include <linux/types.h>

#define XMEMSIM_TOPO_MAX	32	/* devices; XMEMSIM_MAX_DEVICES */
#define XMEMSIM_TOPO_MAX_HOPS	(XMEMSIM_TOPO_MAX - 1)

enum xmemsim_topo_kind {
	XMEMSIM_TOPO_RING,	/* i <-> i + 1 mod n */
	XMEMSIM_TOPO_TORUS2D,	/* rows x cols, wrapping both ways */
	XMEMSIM_TOPO_FULL,	/* every pair */
	XMEMSIM_TOPO_KINDS,
};

struct xmemsim_topo {
	u32 n, kind, rows, cols;
	u32 dev_links;			/* directed device links */
	u64 link_mbps, link_latency_ns;	/* each device link */
	u64 host_mbps, host_latency_ns;	/* each host link */
	s16 link[XMEMSIM_TOPO_MAX][XMEMSIM_TOPO_MAX];	/* a->b's id, or -1 */
	u8 hops[XMEMSIM_TOPO_MAX][XMEMSIM_TOPO_MAX];
	u8 next[XMEMSIM_TOPO_MAX][XMEMSIM_TOPO_MAX];	/* first hop a -> b */
};

/* One route: the links it crosses, in order. */
struct xmemsim_route {
	u32 n;
	u16 link[XMEMSIM_TOPO_MAX_HOPS];
	u64 latency_ns, mbps;		/* the sum, and the lowest on the way */
};

int xmemsim_topo_kind(const char *name);
const char *xmemsim_topo_name(u32 kind);
int xmemsim_topo_build(struct xmemsim_topo *t, u32 n, u32 kind);
void xmemsim_topo_route(const struct xmemsim_topo *t, u32 from, u32 to,
			struct xmemsim_route *r);
void xmemsim_topo_host_route(const struct xmemsim_topo *t, u32 dev, bool in,
			     struct xmemsim_route *r);
static inline u32 xmemsim_topo_links(const struct xmemsim_topo *t)
{
	return t->dev_links + 2 * t->n;
}

u64 xmemsim_link_start(const u64 *free_ns, const struct xmemsim_route *r,
		       u64 t);
void xmemsim_link_take(u64 *free_ns, const struct xmemsim_route *r, u64 end);

#endif /* XMEMSIM_TOPO_H */
