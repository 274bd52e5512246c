// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim plan sync: sync_shared (linked tensors take their owners'
 * placements), the byte accounting of plans, and the layout of a synced
 * plan in its HBM backing. Pure functions on kernel copies checked by
 * plan_check.c.
 */
#include <kunit/visibility.h>
#include <linux/bsearch.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "plan_internal.h"

/* Linked tensors of every core, and their addresses back to 0. */
u32 xmemsim_plan_links(const struct xmemsim_plan_set *set)
{
	u32 c, i, n = 0;

	for (c = 0; c < set->ncores; c++)
		for (i = 0; set->cores[c] && i < set->cores[c]->count; i++)
			n += !!(set->cores[c]->t[i].flags & XMEMSIM_TENSOR_REMOTE);
	return n;
}

void xmemsim_plan_unlink(struct xmemsim_plan_set *set)
{
	u32 c, i;

	for (c = 0; c < set->ncores; c++) {
		struct xmemsim_core_plan *p = set->cores[c];

		for (i = 0; p && i < p->count; i++) {
			struct xmemsim_ptensor *t = &p->t[i];

			if (t->flags & XMEMSIM_TENSOR_REMOTE) {
				t->addr = 0;
				t->partition = 0;
				t->bank = 0;
			}
		}
	}
}

static int name_key_cmp(const void *key, const void *elt)
{
	return strcmp(key, (*(const struct xmemsim_ptensor * const *)elt)->name);
}

/* The tensor of a checked plan with this name, in O(log n), or NULL. */
static const struct xmemsim_ptensor *find_tensor(const struct xmemsim_core_plan *p,
						 const char *name)
{
	const struct xmemsim_ptensor * const *hit;

	if (WARN_ON_ONCE(!p->by_name))	/* plans are checked before use */
		return NULL;
	hit = bsearch(name, p->by_name, p->count, sizeof(*p->by_name),
		      name_key_cmp);
	return hit ? *hit : NULL;
}

/*
 * Linked tensor i of core c: its remote target, which must exist, be
 * shared and not linked itself, and have its size. 0, and t->owner set;
 * or the rejection.
 */
static int resolve_link(const struct xmemsim_plan_set *set, u32 c, u32 i,
			struct xmemsim_ptensor *t, struct xmemsim_plan_err *err)
{
	const struct xmemsim_core_plan *rp = set->cores[t->remote_core];
	const struct xmemsim_ptensor *o;

	err->core = c;
	o = rp ? find_tensor(rp, t->remote_name) : NULL;
	if (!o)
		return xmemsim_plan_reject(err, i, U32_MAX, -ENOENT,
					   "core %u tensor '%s': remote target {core %u, '%s'} %s",
					   c, t->name, t->remote_core,
					   t->remote_name,
					   rp ? "does not exist" : "has no plan");
	if ((o->flags & (XMEMSIM_TENSOR_SHARED | XMEMSIM_TENSOR_REMOTE)) !=
	    XMEMSIM_TENSOR_SHARED)
		return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
					   "core %u tensor '%s': remote target {core %u, '%s'} is %s",
					   c, t->name, t->remote_core,
					   t->remote_name,
					   o->flags & XMEMSIM_TENSOR_REMOTE ?
					   "itself linked" : "not shared");
	if (o->size != t->size)
		return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
					   "core %u tensor '%s': %llu bytes, but its remote target {core %u, '%s'} has %llu",
					   c, t->name, t->size, t->remote_core,
					   t->remote_name, o->size);
	t->owner = o;
	return 0;
}

/*
 * Every linked tensor takes its owner's placement, the seed's address,
 * partition and bank triple (xmemsim_plan_unlink() undoes it). How many.
 */
static u32 plan_link(struct xmemsim_plan_set *set)
{
	u32 c, i, n = 0;

	for (c = 0; c < set->ncores; c++) {
		struct xmemsim_core_plan *p = set->cores[c];

		for (i = 0; p && i < p->count; i++) {
			struct xmemsim_ptensor *t = &p->t[i];

			if (t->flags & XMEMSIM_TENSOR_REMOTE) {
				t->addr = t->owner->addr;
				t->partition = t->owner->partition;
				t->bank = t->owner->bank;
				n++;
			}
		}
	}
	return n;
}

/**
 * xmemsim_plan_sync() - give every linked tensor its owner's address
 * @set: the submitted plans
 * @linked: number of tensors linked, on success
 * @err: the tensor at fault, on failure
 *
 * Resolves every linked tensor's remote target, then checks each core again
 * with the linked addresses in place. All or nothing: on failure every
 * linked tensor is left as it was (address 0).
 *
 * Return: 0, -ENODATA (no plan at all), -ENOENT (a target is missing),
 * -EINVAL (a target is not shared, has another size, or a linked address
 * conflicts with a tensor of the core), -ENOMEM.
 */
int xmemsim_plan_sync(struct xmemsim_plan_set *set, u32 *linked,
		      struct xmemsim_plan_err *err)
{
	u32 c, i, n, any = 0;
	int ret = 0;

	for (c = 0; c < set->ncores; c++)
		any += !!set->cores[c];
	if (!any) {
		err->core = U32_MAX;
		return xmemsim_plan_reject(err, U32_MAX, U32_MAX, -ENODATA,
					   "no plan submitted");
	}
	/* resolve every target before touching anything */
	for (c = 0; c < set->ncores; c++) {
		struct xmemsim_core_plan *p = set->cores[c];

		cond_resched();	/* up to 64 cores of 65536 lookups */
		for (i = 0; p && i < p->count && !ret; i++)
			if (p->t[i].flags & XMEMSIM_TENSOR_REMOTE)
				ret = resolve_link(set, c, i, &p->t[i], err);
		if (ret)
			return ret;
	}
	/* equalize, then check each core with the linked tensors in place */
	n = plan_link(set);
	for (c = 0; c < set->ncores && !ret; c++) {
		if (!set->cores[c])
			continue;
		err->core = c;
		ret = xmemsim_plan_check_overlaps(set->cores[c], true, err);
	}
	if (ret) {
		xmemsim_plan_unlink(set);
		return ret;
	}
	*linked = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_sync);	/* plan_test.c: sync_shared */

/* Byte totals of one core's plan; shared bytes belong to their owner. */
void xmemsim_plan_stats(const struct xmemsim_core_plan *p,
			struct xmemsim_plan_stats *st)
{
	u32 i;

	for (i = 0; i < p->count; i++) {
		const struct xmemsim_ptensor *t = &p->t[i];

		if (t->flags & XMEMSIM_TENSOR_REMOTE)
			st->linked_bytes += t->size;
		else if (t->flags & XMEMSIM_TENSOR_SHARED)
			st->shared_bytes += t->size;
		else
			st->private_bytes += t->size;
		st->footprint = max(st->footprint, t->addr + t->size);
	}
	st->tensors += p->count;
	st->total_bytes = st->private_bytes + st->shared_bytes;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_stats);	/* plan_test.c: the accounting */

/*
 * Lay the synced plan out in one backing allocation: first the span of the
 * shared tensors, once, then each core's span of private tensors. Sets
 * set->size, shared_lo, slab_lo[] and slab_off[]; base is the caller's.
 */
void xmemsim_plan_layout(struct xmemsim_plan_set *set)
{
	u64 shared_lo = U64_MAX, shared_hi = 0, off;
	u32 c, i;

	for (c = 0; c < set->ncores; c++) {
		const struct xmemsim_core_plan *p = set->cores[c];

		for (i = 0; p && i < p->count; i++) {
			const struct xmemsim_ptensor *t = &p->t[i];

			if (!(t->flags & XMEMSIM_TENSOR_SHARED))
				continue;
			shared_lo = min(shared_lo, t->addr);
			shared_hi = max(shared_hi, t->addr + t->size);
		}
	}
	set->shared_lo = shared_hi ? shared_lo : 0;
	off = shared_hi ? shared_hi - shared_lo : 0;
	for (c = 0; c < set->ncores; c++) {
		const struct xmemsim_core_plan *p = set->cores[c];
		u64 lo = U64_MAX, hi = 0;

		for (i = 0; p && i < p->count; i++) {
			const struct xmemsim_ptensor *t = &p->t[i];

			if (t->flags & XMEMSIM_TENSOR_SHARED)
				continue;
			lo = min(lo, t->addr);
			hi = max(hi, t->addr + t->size);
		}
		set->slab_lo[c] = hi ? lo : 0;
		set->slab_off[c] = off;
		off += hi ? hi - lo : 0;
	}
	set->size = off;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_layout);	/* plan_test.c: the backing layout */

u64 xmemsim_plan_dev_addr(const struct xmemsim_plan_set *set, u32 core,
			  const struct xmemsim_ptensor *t)
{
	if (!set->synced)
		return 0;
	if (t->flags & XMEMSIM_TENSOR_SHARED)
		return set->base + (t->addr - set->shared_lo);
	return set->base + set->slab_off[core] + (t->addr - set->slab_lo[core]);
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_dev_addr);	/* plan_test.c: addresses in it */

/* Free every core's plan; the caller frees the backing. */
void xmemsim_plan_set_clear(struct xmemsim_plan_set *set)
{
	u32 c;

	for (c = 0; c < XMEMSIM_MAX_CORES; c++) {
		xmemsim_plan_free(set->cores[c]);
		set->cores[c] = NULL;
	}
	set->synced = false;
	set->base = 0;
	set->size = 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_set_clear);	/* plan_test.c: a set undone */
