// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim plan checks: a submitted plan's fields and names, and the
 * overlap check. Pure functions on kernel copies; sync_shared, the byte
 * accounting and the backing layout are in plan_sync.c.
 *
 * The overlap check. Each tensor is a set of rectangles: its merged live
 * ranges (time, closed) times its bytes [addr, addr + size). A plan is
 * valid when no two rectangles of different tensors intersect. A sweep over
 * time keeps the rectangles live at the current instant in an interval tree
 * keyed by address: while the plan is valid those are pairwise disjoint in
 * address, so a single stabbing query per rectangle finds a conflict if
 * there is one. O(n log n) for n rectangles, however many tensors are live
 * at once, where a pairwise check of every time-overlapping pair is
 * quadratic when a plan keeps many tensors live together.
 */
#include <kunit/visibility.h>
#include <linux/bsearch.h>
#include <linux/interval_tree_generic.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "plan_internal.h"

struct xmemsim_plan_node {
	struct rb_node rb;
	u64 start;		/* first byte */
	u64 last;		/* last byte */
	u64 subtree_last;
	u32 tensor;
	u32 lo, hi;		/* the live range */
};

#define PN_START(n) ((n)->start)
#define PN_LAST(n) ((n)->last)

INTERVAL_TREE_DEFINE(struct xmemsim_plan_node, rb, u64, subtree_last,
		     PN_START, PN_LAST, static inline, xmemsim_pn)

struct xmemsim_plan_ev {
	u32 time;		/* instant of the event */
	u32 kind;		/* 0: a range ends before time, 1: one starts */
	u32 node;
};

/*
 * The sweep's events: up to 2 * XMEMSIM_PLAN_MAX_INTERVALS of them, whose
 * sort() alone runs for seconds in a debug kernel. sort() has no resched
 * point of its own, so the comparison gives one (as list_sort() expects of
 * its callers): the checks run in process context with no lock held.
 */
static int ev_cmp(const void *a, const void *b)
{
	const struct xmemsim_plan_ev *x = a, *y = b;

	cond_resched();

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;	/* ends first */
	return x->node < y->node ? -1 : x->node > y->node;
}

static int iv_cmp(const void *a, const void *b)
{
	const struct xmemsim_interval *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/**
 * xmemsim_plan_mem() - kernel memory a plan of this shape holds at its peak
 * @count: tensors
 * @nr_iv: submitted intervals, all tensors
 *
 * The plan itself (tensors, intervals and their merged copy, the name
 * index) and the overlap check's working arrays. The limits on plan
 * memory are enforced against this figure.
 *
 * Return: bytes.
 */
u64 xmemsim_plan_mem(u32 count, u32 nr_iv)
{
	return sizeof(struct xmemsim_core_plan) +
	       (u64)count * (sizeof(struct xmemsim_ptensor) +
			     sizeof(struct xmemsim_ptensor *)) +
	       max_t(u64, 2ULL * nr_iv, 1) * sizeof(struct xmemsim_interval) +
	       (u64)nr_iv * (sizeof(struct xmemsim_plan_node) +
			     2 * sizeof(struct xmemsim_plan_ev));
}

struct xmemsim_core_plan *xmemsim_plan_alloc(u32 count, u32 nr_iv)
{
	struct xmemsim_core_plan *p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);

	if (!p)
		return NULL;
	p->count = count;
	p->nr_iv = nr_iv;
	p->t = kvcalloc(count, sizeof(*p->t), GFP_KERNEL_ACCOUNT);
	/* room for the merged copy of every tensor's intervals too */
	p->iv = kvcalloc(max_t(u32, 2 * nr_iv, 1), sizeof(*p->iv), GFP_KERNEL_ACCOUNT);
	if (!p->t || !p->iv) {
		xmemsim_plan_free(p);
		return NULL;
	}
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_alloc);	/* plan_test.c builds plans */

void xmemsim_plan_free(struct xmemsim_core_plan *p)
{
	if (!p)
		return;
	kvfree(p->by_name);
	kvfree(p->t);
	kvfree(p->iv);
	kfree(p);
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_free);	/* plan_test.c frees them */

static struct xmemsim_interval *merged(const struct xmemsim_core_plan *p,
				       const struct xmemsim_ptensor *t)
{
	return p->iv + p->nr_iv + t->first_iv;
}

int xmemsim_plan_reject(struct xmemsim_plan_err *err, u32 a, u32 b, int ret,
			const char *fmt, ...)
{
	va_list args;

	err->bad[0] = a;
	err->bad[1] = b;
	va_start(args, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, args);
	va_end(args);
	return ret;
}

static bool name_ok(const char *name)
{
	return name[0] && strnlen(name, XMEMSIM_NAME_LEN) < XMEMSIM_NAME_LEN;
}

/* Merge a tensor's intervals into disjoint live ranges (after its inputs). */
static void merge_intervals(struct xmemsim_core_plan *p, struct xmemsim_ptensor *t)
{
	struct xmemsim_interval *out = merged(p, t);
	u32 i, n = 0;

	memcpy(out, p->iv + t->first_iv, t->nr_iv * sizeof(*out));
	sort(out, t->nr_iv, sizeof(*out), iv_cmp, NULL);
	for (i = 0; i < t->nr_iv; i++) {
		/* closed ranges: [0,3] and [4,6] touch, not overlap */
		if (n && out[i].lo <= out[n - 1].hi) {
			out[n - 1].hi = max(out[n - 1].hi, out[i].hi);
			continue;
		}
		out[n++] = out[i];
	}
	t->nr_merged = n;
}

static int name_cmp(const void *a, const void *b)
{
	const struct xmemsim_ptensor *x = *(const struct xmemsim_ptensor * const *)a;
	const struct xmemsim_ptensor *y = *(const struct xmemsim_ptensor * const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x < y ? -1 : x > y);
}

/*
 * Sort the tensors by name into p->by_name (kept: sync looks targets up
 * there) and reject a name given twice.
 */
static int check_names_unique(struct xmemsim_core_plan *p,
			      struct xmemsim_plan_err *err)
{
	const struct xmemsim_ptensor **by_name;
	u32 i;

	kvfree(p->by_name);
	p->by_name = NULL;
	by_name = kvmalloc_array(p->count, sizeof(*by_name), GFP_KERNEL_ACCOUNT);
	if (!by_name)
		return -ENOMEM;
	for (i = 0; i < p->count; i++)
		by_name[i] = &p->t[i];
	sort(by_name, p->count, sizeof(*by_name), name_cmp, NULL);
	p->by_name = by_name;
	for (i = 1; i < p->count; i++)
		if (!strcmp(by_name[i - 1]->name, by_name[i]->name))
			return xmemsim_plan_reject(err, by_name[i - 1] - p->t,
						   by_name[i] - p->t, -EINVAL,
						   "tensor '%s' is named twice",
						   by_name[i]->name);
	return 0;
}

/**
 * xmemsim_plan_check() - check one core's plan as submitted
 * @p: the plan (tensors and intervals copied in)
 * @core_size: bytes of the core's DRAM window
 * @ncores: cores of the device
 * @err: what was wrong, on failure
 *
 * Checks every field, then that no two tensors placed here (linked ones
 * have no address yet) live at once share a byte.
 *
 * Return: 0 or -EINVAL.
 */
int xmemsim_plan_check(struct xmemsim_core_plan *p, u64 core_size, u32 ncores,
		       struct xmemsim_plan_err *err)
{
	u32 i, j;
	u64 end;
	int ret;

	err->core = p->core;
	for (i = 0; i < p->count; i++) {
		struct xmemsim_ptensor *t = &p->t[i];

		cond_resched();
		if (!name_ok(t->name))
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor %u: name empty or not NUL-terminated",
						   i);
		if (t->flags & ~XMEMSIM_TENSOR_FLAGS)
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor '%s': unknown flags %#x",
						   t->name, t->flags);
		if (!t->size || t->size % XMEMSIM_PLAN_ALIGN)
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor '%s': size %llu is not a positive multiple of 4096",
						   t->name, t->size);
		if (t->addr % XMEMSIM_PLAN_ALIGN)
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor '%s': address %#llx is not 4 KiB aligned",
						   t->name, t->addr);
		if (check_add_overflow(t->addr, t->size, &end) || end > core_size)
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor '%s': [%#llx, +%#llx) is outside the core's %#llx-byte window",
						   t->name, t->addr, t->size, core_size);
		if (t->flags & XMEMSIM_TENSOR_REMOTE) {
			if (!(t->flags & XMEMSIM_TENSOR_SHARED))
				return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
							   "tensor '%s': linked but not shared",
							   t->name);
			if (t->addr || t->partition || t->bank)
				return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
							   "tensor '%s': linked tensors get their address, partition and bank from sync",
							   t->name);
			if (t->remote_core >= ncores || t->remote_core == p->core)
				return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
							   "tensor '%s': remote core %u is not another core of %u",
							   t->name, t->remote_core, ncores);
			if (!name_ok(t->remote_name))
				return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
							   "tensor '%s': remote name empty or not NUL-terminated",
							   t->name);
		} else if (t->remote_core ||
			   !mem_is_zero(t->remote_name, sizeof(t->remote_name))) {
			return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
						   "tensor '%s': remote target set but not linked",
						   t->name);
		}
		for (j = 0; j < t->nr_iv; j++) {
			const struct xmemsim_interval *v = &p->iv[t->first_iv + j];

			if (v->lo > v->hi)
				return xmemsim_plan_reject(err, i, U32_MAX, -EINVAL,
							   "tensor '%s': interval [%u, %u] has lo > hi",
							   t->name, v->lo, v->hi);
		}
		merge_intervals(p, t);
	}
	ret = check_names_unique(p, err);
	if (ret)
		return ret;
	return xmemsim_plan_check_overlaps(p, false, err);
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_plan_check);	/* plan_test.c: the checks */

/**
 * xmemsim_plan_check_overlaps() - no two tensors live at once share a byte
 * @p: a plan whose intervals have been merged by xmemsim_plan_check()
 * @with_remote: include linked tensors (they have addresses after sync)
 * @err: the first conflicting pair found, on failure
 *
 * Return: 0, -EINVAL on a conflict, -ENOMEM.
 */
int xmemsim_plan_check_overlaps(const struct xmemsim_core_plan *p,
				bool with_remote, struct xmemsim_plan_err *err)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct xmemsim_plan_node *nodes;
	struct xmemsim_plan_ev *ev;
	u32 i, j, n = 0, e = 0;
	int ret = 0;

	for (i = 0; i < p->count; i++)
		if (with_remote || !(p->t[i].flags & XMEMSIM_TENSOR_REMOTE))
			n += p->t[i].nr_merged;
	if (!n)
		return 0;
	nodes = kvmalloc_array(n, sizeof(*nodes), GFP_KERNEL_ACCOUNT);
	ev = kvmalloc_array(2 * (size_t)n, sizeof(*ev), GFP_KERNEL_ACCOUNT);
	if (!nodes || !ev) {
		ret = -ENOMEM;
		goto out;
	}
	n = 0;
	for (i = 0; i < p->count; i++) {
		const struct xmemsim_ptensor *t = &p->t[i];
		const struct xmemsim_interval *m = merged(p, t);

		if (!with_remote && (t->flags & XMEMSIM_TENSOR_REMOTE))
			continue;
		for (j = 0; j < t->nr_merged; j++, n++) {
			nodes[n].start = t->addr;
			nodes[n].last = t->addr + t->size - 1;
			nodes[n].tensor = i;
			nodes[n].lo = m[j].lo;
			nodes[n].hi = m[j].hi;
			ev[e++] = (struct xmemsim_plan_ev){ m[j].lo, 1, n };
			/* a range [lo, hi] stops being live at hi + 1 */
			if (m[j].hi != U32_MAX)
				ev[e++] = (struct xmemsim_plan_ev){ m[j].hi + 1, 0, n };
		}
	}
	sort(ev, e, sizeof(*ev), ev_cmp, NULL);
	for (i = 0; i < e; i++) {
		struct xmemsim_plan_node *nd = &nodes[ev[i].node], *hit;

		if (!(i % 1024))
			cond_resched();
		if (!ev[i].kind) {
			xmemsim_pn_remove(nd, &root);
			continue;
		}
		hit = xmemsim_pn_iter_first(&root, nd->start, nd->last);
		if (hit) {
			const struct xmemsim_ptensor *a = &p->t[hit->tensor];
			const struct xmemsim_ptensor *b = &p->t[nd->tensor];

			ret = xmemsim_plan_reject(err, hit->tensor, nd->tensor, -EINVAL,
						  "tensors '%s' and '%s' are live together at [%u, %u] and share bytes [%#llx, %#llx)",
						  a->name, b->name, max(hit->lo, nd->lo),
						  min(hit->hi, nd->hi), max(hit->start, nd->start),
						  min(hit->last, nd->last) + 1);
			goto out;
		}
		xmemsim_pn_insert(nd, &root);
	}
out:
	kvfree(nodes);
	kvfree(ev);
	return ret;
}
