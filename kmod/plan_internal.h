/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DRAM plans: per-core tensor placements checked and equalized by the
 * device. The logic here works on kernel copies only (no files, no user
 * memory, no locks) so KUnit can test it alone: kmod/plan_check.c checks a
 * submitted plan, kmod/plan_sync.c syncs, counts and lays plans out;
 * kmod/plan.c holds the commands that copy plans in and out. Arrows:
 * plan.c -> plan_sync.c -> plan_check.c, and plan.c -> plan_check.c;
 * xmemsim.h takes the types.
 */
#ifndef XMEMSIM_PLAN_INTERNAL_H
#define XMEMSIM_PLAN_INTERNAL_H

#include <linux/bits.h>
#include <linux/types.h>

#include "../uapi/xmemsim.h"

#define XMEMSIM_MAX_CORES		64
#define XMEMSIM_PLAN_MAX_TENSORS	65536U
#define XMEMSIM_PLAN_MAX_INTERVALS	BIT(20)

struct xmemsim_ptensor {
	char name[XMEMSIM_NAME_LEN];
	char remote_name[XMEMSIM_NAME_LEN];
	u64 addr;
	u64 size;
	u32 flags;
	u32 remote_core;
	u32 id;
	u32 partition;
	u32 bank;
	u32 first_iv;		/* into the core plan's iv[] */
	u32 nr_iv;		/* as submitted */
	u32 nr_merged;		/* after merging: live ranges, disjoint */
	/* sync: the target of a linked tensor, resolved once */
	const struct xmemsim_ptensor *owner;
};

struct xmemsim_core_plan {
	u64 mem;		/* charged against the plan memory limits */
	u32 core;
	u32 count;
	u32 nr_iv;
	struct xmemsim_ptensor *t;
	/* per tensor: nr_iv submitted intervals, then nr_merged merged ones */
	struct xmemsim_interval *iv;
	/* the tensors sorted by name, made by xmemsim_plan_check() */
	const struct xmemsim_ptensor **by_name;
};

/* What was wrong with a rejected plan or sync. */
struct xmemsim_plan_err {
	u32 core;
	u32 bad[2];
	char msg[XMEMSIM_PLAN_ERR_LEN];
};

/*
 * The plans of one open file; cores[c] is NULL until core c submits. Once
 * synced, the plan is backed by one HBM allocation at @base: shared tensors
 * at base + (addr - shared_lo), core c's private tensors at
 * base + slab_off[c] + (addr - slab_lo[c]).
 */
struct xmemsim_plan_set {
	u32 ncores;		/* cores the device has */
	bool synced;
	u64 total_bytes;	/* counted in xmemsim_dev.plan_bytes once synced */
	u64 base;
	u64 size;
	u64 shared_lo;
	u64 slab_lo[XMEMSIM_MAX_CORES];
	u64 slab_off[XMEMSIM_MAX_CORES];
	struct xmemsim_core_plan *cores[XMEMSIM_MAX_CORES];
};

/* plan_check.c */
u64 xmemsim_plan_mem(u32 count, u32 nr_iv);
struct xmemsim_core_plan *xmemsim_plan_alloc(u32 count, u32 nr_iv);
void xmemsim_plan_free(struct xmemsim_core_plan *p);
int xmemsim_plan_check(struct xmemsim_core_plan *p, u64 core_size, u32 ncores,
		       struct xmemsim_plan_err *err);
int xmemsim_plan_check_overlaps(const struct xmemsim_core_plan *p,
				bool with_remote, struct xmemsim_plan_err *err);
__printf(5, 6)
int xmemsim_plan_reject(struct xmemsim_plan_err *err, u32 a, u32 b, int ret,
			const char *fmt, ...);

/* plan_sync.c */
int xmemsim_plan_sync(struct xmemsim_plan_set *set, u32 *linked,
		      struct xmemsim_plan_err *err);
void xmemsim_plan_stats(const struct xmemsim_core_plan *p,
			struct xmemsim_plan_stats *st);
void xmemsim_plan_layout(struct xmemsim_plan_set *set);
u64 xmemsim_plan_dev_addr(const struct xmemsim_plan_set *set, u32 core,
			  const struct xmemsim_ptensor *t);
void xmemsim_plan_set_clear(struct xmemsim_plan_set *set);
u32 xmemsim_plan_links(const struct xmemsim_plan_set *set);
void xmemsim_plan_unlink(struct xmemsim_plan_set *set);

#endif /* XMEMSIM_PLAN_INTERNAL_H */
