// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim plan commands: PLAN_SUBMIT, PLAN_SYNC, PLAN_GET, PLAN_STATS and
 * PLAN_RELEASE. They copy plans in once, check the copies with
 * kmod/plan_check.c, and back synced plans with an HBM allocation owned by
 * the file (so the data plane's ownership rules cover the plan's bytes).
 *
 * Locking: xmemsim_file.plan_lock serialises the plans of one file and is
 * taken before dev->lock (which the backing allocation takes). It is held
 * across no user copy: arguments are copied in before and out after.
 *
 * Memory: every allocation here is charged to the caller's memory cgroup
 * (GFP_KERNEL_ACCOUNT) and counted against three limits: one per file,
 * one per user over all its files, and one for the device (module
 * parameters plan_file_mb, plan_user_mb and plan_dev_mb; the user's is
 * below the device's, so no one user fills it).
 * A submit reserves the user array it copies in, then the plan at its
 * peak (xmemsim_plan_mem()); the first goes when the call returns, the
 * second when the plan is replaced or released. Over the file's or the
 * user's limit: -EDQUOT; over the device's: -ENOSPC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "xmemsim.h"

static struct xmemsim_plan_set *plan_set(struct xmemsim_file *xf)
{
	struct xmemsim_plan_set *set = xf->plans;

	if (set)
		return set;
	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set)
		return NULL;
	set->ncores = xf->dev->geo.cores;
	xf->plans = set;
	return set;
}

/* The message may hold user strings (tensor names): escaped. */
static void report(struct xmemsim_file *xf, const char *what,
		   const struct xmemsim_plan_err *err)
{
	pr_info_ratelimited("pid %d: %s rejected: %*pE\n", xf->pid, what,
			    (int)strnlen(err->msg, sizeof(err->msg)), err->msg);
}

/*
 * Add bytes to a shared atomic budget unless that takes it over max (0:
 * no limit). Two racing takers may both be refused near the limit, never
 * both let over it.
 */
static bool budget_take(atomic64_t *used, u64 max, u64 bytes)
{
	if (max && (bytes > max ||
		    (u64)atomic64_add_return(bytes, used) > max)) {
		if (bytes <= max)
			atomic64_sub(bytes, used);
		return false;
	}
	if (!max)
		atomic64_add(bytes, used);
	return true;
}

/*
 * Take bytes of plan memory for xf, within the file's, its user's and the
 * device's limits; plan_lock held.
 */
static int plan_mem_get_locked(struct xmemsim_file *xf, u64 bytes)
{
	struct xmemsim_dev *d = xf->dev;
	u64 file_max = d->lim.plan_file_bytes;

	lockdep_assert_held(&xf->plan_lock);
	if (file_max && (bytes > file_max || xf->plan_mem > file_max - bytes))
		return -EDQUOT;
	if (!budget_take(&xf->user->plan_mem, d->lim.plan_user_bytes, bytes))
		return -EDQUOT;
	if (!budget_take(&d->plan_mem, d->lim.plan_dev_bytes, bytes)) {
		atomic64_sub(bytes, &xf->user->plan_mem);
		return -ENOSPC;
	}
	xf->plan_mem += bytes;
	return 0;
}

static void plan_mem_put_locked(struct xmemsim_file *xf, u64 bytes)
{
	lockdep_assert_held(&xf->plan_lock);
	xf->plan_mem -= bytes;
	atomic64_sub(bytes, &xf->user->plan_mem);
	atomic64_sub(bytes, &xf->dev->plan_mem);
}

static int plan_mem_get(struct xmemsim_file *xf, u64 bytes)
{
	int ret;

	mutex_lock(&xf->plan_lock);
	ret = plan_mem_get_locked(xf, bytes);
	mutex_unlock(&xf->plan_lock);
	return ret;
}

static void plan_mem_put(struct xmemsim_file *xf, u64 bytes)
{
	mutex_lock(&xf->plan_lock);
	plan_mem_put_locked(xf, bytes);
	mutex_unlock(&xf->plan_lock);
}

/* Free a core plan that is no longer in the set, with its reservation. */
static void plan_drop(struct xmemsim_file *xf, struct xmemsim_core_plan *p)
{
	if (!p)
		return;
	plan_mem_put(xf, p->mem);
	xmemsim_plan_free(p);
}

/*
 * The submitted tensors' interval count, each tensor checked for fields
 * that must be zero: 0, -EINVAL or -E2BIG, with err filled in.
 */
static int plan_count_intervals(const struct xmemsim_plan_tensor *ut, u32 count,
				u32 *nr_iv, struct xmemsim_plan_err *err)
{
	u32 i;

	*nr_iv = 0;
	for (i = 0; i < count; i++) {
		if (ut[i].dev_addr || ut[i].reserved) {
			snprintf(err->msg, sizeof(err->msg),
				 "tensor %u: dev_addr and reserved must be zero", i);
			err->bad[0] = i;
			return -EINVAL;
		}
		if (check_add_overflow(*nr_iv, ut[i].nr_intervals, nr_iv) ||
		    *nr_iv > XMEMSIM_PLAN_MAX_INTERVALS) {
			snprintf(err->msg, sizeof(err->msg),
				 "more than %lu intervals", XMEMSIM_PLAN_MAX_INTERVALS);
			return -E2BIG;
		}
	}
	return 0;
}

/* Fill p's tensors from the submitted ones, each interval list copied in. */
static int plan_fill(struct xmemsim_core_plan *p,
		     const struct xmemsim_plan_tensor *ut, u32 count)
{
	u32 i, nr_iv = 0;

	for (i = 0; i < count; i++) {
		struct xmemsim_ptensor *t = &p->t[i];

		memcpy(t->name, ut[i].name, sizeof(t->name));
		memcpy(t->remote_name, ut[i].remote_name, sizeof(t->remote_name));
		t->addr = ut[i].addr;
		t->size = ut[i].size;
		t->flags = ut[i].flags;
		t->remote_core = ut[i].remote_core;
		t->id = ut[i].id;
		t->partition = ut[i].partition;
		t->bank = ut[i].bank;
		t->first_iv = nr_iv;
		t->nr_iv = ut[i].nr_intervals;
		if (t->nr_iv &&
		    copy_from_user(p->iv + nr_iv, u64_to_user_ptr(ut[i].intervals),
				   array_size(t->nr_iv, sizeof(*p->iv))))
			return -EFAULT;
		nr_iv += t->nr_iv;
	}
	return 0;
}

/* Copy a submitted plan in: the tensor array once, each interval list once. */
static int plan_copy_in(struct xmemsim_file *xf, const struct xmemsim_plan_submit *ps,
			struct xmemsim_core_plan **out, struct xmemsim_plan_err *err)
{
	u64 ut_mem = (u64)ps->count * sizeof(struct xmemsim_plan_tensor), mem;
	struct xmemsim_plan_tensor *ut;
	struct xmemsim_core_plan *p = NULL;
	u32 nr_iv;
	int ret = 0;

	ret = plan_mem_get(xf, ut_mem);
	if (ret)
		return ret;
	/*
	 * Not vmemdup_array_user(): it allocates with GFP_USER, which is not
	 * charged to the caller's memory cgroup; a plan's arrays must be.
	 */
	ut = kvmalloc_array(ps->count, sizeof(*ut), GFP_KERNEL_ACCOUNT);
	if (!ut) {
		plan_mem_put(xf, ut_mem);
		return -ENOMEM;
	}
	if (copy_from_user(ut, u64_to_user_ptr(ps->tensors),
			   array_size(ps->count, sizeof(*ut)))) {
		ret = -EFAULT;
		goto out;
	}
	ret = plan_count_intervals(ut, ps->count, &nr_iv, err);
	if (ret)
		goto out;
	mem = xmemsim_plan_mem(ps->count, nr_iv);
	ret = plan_mem_get(xf, mem);
	if (ret)
		goto out;
	p = xmemsim_plan_alloc(ps->count, nr_iv);
	if (!p) {
		plan_mem_put(xf, mem);
		ret = -ENOMEM;
		goto out;
	}
	p->mem = mem;
	p->core = ps->core;
	ret = plan_fill(p, ut, ps->count);
out:
	kvfree(ut);
	plan_mem_put(xf, ut_mem);
	if (ret)
		plan_drop(xf, p);
	else
		*out = p;
	return ret;
}

/* An injected PLAN fault (fail_plan): -EIO, naming the core. */
static int plan_injected(struct xmemsim_plan_err *err, u32 core, const char *step)
{
	err->core = core;
	snprintf(err->msg, sizeof(err->msg),
		 "core %u: %s failed: fault injected (fail_plan)", core, step);
	return -EIO;
}

/* The last core with a plan: where an injected PLAN_SYNC fault strikes. */
static u32 plan_last_core(const struct xmemsim_plan_set *set)
{
	u32 c = set->ncores;

	while (c && !set->cores[c - 1])
		c--;
	return c ? c - 1 : 0;
}

int xmemsim_cmd_plan_submit(struct xmemsim_file *xf,
			    struct xmemsim_plan_submit *ps, int *wb)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_plan_err err = { .bad = { U32_MAX, U32_MAX } };
	struct xmemsim_core_plan *p = NULL;
	struct xmemsim_plan_set *set;
	int ret;

	if (ps->core >= d->geo.cores || !mem_is_zero(ps->reserved, sizeof(ps->reserved)) ||
	    !ps->count)
		return -EINVAL;
	if (ps->count > XMEMSIM_PLAN_MAX_TENSORS)
		return -E2BIG;
	ret = plan_copy_in(xf, ps, &p, &err);
	if (!ret) {
		err.core = ps->core;
		ret = xmemsim_plan_check(p, d->plan_core_size, d->geo.cores, &err);
	}
	if (!ret && xmemsim_fault(xf, XMEMSIM_FAULT_PLAN))
		ret = plan_injected(&err, ps->core, "submit");
	if (!ret) {
		mutex_lock(&xf->plan_lock);
		set = plan_set(xf);
		if (!set)
			ret = -ENOMEM;
		else if (set->synced)
			ret = -EBUSY;
		else
			swap(set->cores[ps->core], p);	/* p: the old plan */
		mutex_unlock(&xf->plan_lock);
	}
	plan_drop(xf, p);
	if (ret == -EINVAL || ret == -EIO || (ret == -E2BIG && err.msg[0])) {
		ps->bad[0] = err.bad[0];
		ps->bad[1] = err.bad[1];
		strscpy(ps->error, err.msg, sizeof(ps->error));
		report(xf, "plan", &err);
		*wb = XMEMSIM_WRITEBACK;
	}
	return ret;
}

/* Back a synced plan with HBM; plan_lock held. */
static int plan_back(struct xmemsim_file *xf, struct xmemsim_plan_set *set)
{
	u64 addr;
	int ret, st;

	lockdep_assert_held(&xf->plan_lock);
	xmemsim_plan_layout(set);
	if (!set->size)
		return 0;
	ret = xmemsim_alloc_for(xf, XMEMSIM_HEAP_HBM, set->size,
				XMEMSIM_PLAN_ALIGN, true, &addr, &st);
	if (!ret)
		set->base = addr;
	return ret;
}

static u64 plan_total(const struct xmemsim_plan_set *set)
{
	struct xmemsim_plan_stats st = {};
	u32 c;

	for (c = 0; c < set->ncores; c++)
		if (set->cores[c])
			xmemsim_plan_stats(set->cores[c], &st);
	return st.total_bytes;
}

int xmemsim_cmd_plan_sync(struct xmemsim_file *xf, struct xmemsim_plan_sync *sy,
			  int *wb)
{
	struct xmemsim_plan_err err = { .bad = { U32_MAX, U32_MAX } };
	struct xmemsim_plan_set *set;
	u32 linked = 0;
	int ret;

	if (sy->flags || !mem_is_zero(sy->reserved, sizeof(sy->reserved)))
		return -EINVAL;
	mutex_lock(&xf->plan_lock);
	set = xf->plans;
	if (!set) {
		ret = -ENODATA;
		strscpy(err.msg, "no plan submitted", sizeof(err.msg));
		err.core = U32_MAX;
	} else if (set->synced) {
		linked = xmemsim_plan_links(set);	/* idempotent */
		ret = 0;
	} else {
		ret = xmemsim_plan_sync(set, &linked, &err);
		/* every core's links are in: a fault now undoes them all */
		if (!ret && xmemsim_fault(xf, XMEMSIM_FAULT_PLAN)) {
			xmemsim_plan_unlink(set);
			ret = plan_injected(&err, plan_last_core(set), "sync");
		}
		if (!ret) {
			ret = plan_back(xf, set);
			if (ret) {
				xmemsim_plan_unlink(set);	/* no partial state */
			} else {
				set->synced = true;
				set->total_bytes = plan_total(set);
				atomic64_add(set->total_bytes, &xf->dev->plan_bytes);
				*wb = XMEMSIM_FRESH;
			}
		}
	}
	mutex_unlock(&xf->plan_lock);
	if (!ret) {
		sy->linked = linked;
		return 0;
	}
	if (ret == -ENODATA || ret == -ENOENT || ret == -EINVAL || ret == -EIO) {
		sy->bad_core = err.core;
		sy->bad = err.bad[0];
		strscpy(sy->error, err.msg, sizeof(sy->error));
		report(xf, "sync", &err);
		*wb = XMEMSIM_WRITEBACK;
	}
	return ret;
}

int xmemsim_cmd_plan_get(struct xmemsim_file *xf, struct xmemsim_plan_get *pg)
{
	struct xmemsim_plan_tensor *out = NULL;
	struct xmemsim_core_plan *p;
	struct xmemsim_plan_set *set;
	u32 n = 0, i;
	int ret = 0;

	if (pg->core >= xf->dev->geo.cores ||
	    !mem_is_zero(pg->reserved, sizeof(pg->reserved)))
		return -EINVAL;
	if (pg->capacity) {
		out = kvcalloc(min(pg->capacity, XMEMSIM_PLAN_MAX_TENSORS),
			       sizeof(*out), GFP_KERNEL_ACCOUNT);
		if (!out)
			return -ENOMEM;
	}
	mutex_lock(&xf->plan_lock);
	set = xf->plans;
	p = set ? set->cores[pg->core] : NULL;
	if (!p) {
		ret = -ENODATA;
		goto unlock;
	}
	n = min3(p->count, pg->capacity, XMEMSIM_PLAN_MAX_TENSORS);
	for (i = 0; i < n; i++) {
		const struct xmemsim_ptensor *t = &p->t[i];

		memcpy(out[i].name, t->name, sizeof(out[i].name));
		memcpy(out[i].remote_name, t->remote_name, sizeof(out[i].remote_name));
		out[i].addr = t->addr;
		out[i].size = t->size;
		out[i].nr_intervals = t->nr_iv;
		out[i].flags = t->flags;
		out[i].remote_core = t->remote_core;
		out[i].id = t->id;
		out[i].partition = t->partition;
		out[i].bank = t->bank;
		out[i].dev_addr = xmemsim_plan_dev_addr(set, pg->core, t);
	}
	pg->count = p->count;
	pg->synced = set->synced;
unlock:
	mutex_unlock(&xf->plan_lock);
	if (!ret && n && copy_to_user(u64_to_user_ptr(pg->tensors), out,
				      array_size(n, sizeof(*out))))
		ret = -EFAULT;
	kvfree(out);
	return ret;
}

int xmemsim_cmd_plan_stats(struct xmemsim_file *xf, struct xmemsim_plan_stats *ps)
{
	struct xmemsim_plan_set *set;
	u32 core = ps->core, c;
	int ret = 0;

	if ((core >= xf->dev->geo.cores && core != XMEMSIM_PLAN_ALL_CORES) ||
	    !mem_is_zero(ps->reserved, sizeof(ps->reserved)))
		return -EINVAL;
	/* outputs are ignored on input: start the sums from zero */
	ps->tensors = 0;
	ps->private_bytes = 0;
	ps->shared_bytes = 0;
	ps->linked_bytes = 0;
	ps->total_bytes = 0;
	ps->footprint = 0;
	mutex_lock(&xf->plan_lock);
	set = xf->plans;
	if (core != XMEMSIM_PLAN_ALL_CORES) {
		if (set && set->cores[core])
			xmemsim_plan_stats(set->cores[core], ps);
		else
			ret = -ENODATA;
	} else {
		for (c = 0; set && c < set->ncores; c++)
			if (set->cores[c])
				xmemsim_plan_stats(set->cores[c], ps);
		if (!ps->tensors)
			ret = -ENODATA;
	}
	mutex_unlock(&xf->plan_lock);
	ps->core = core;
	return ret;
}

/* Free a synced plan's backing and forget its bytes; plan_lock held. */
static int plan_unback_locked(struct xmemsim_file *xf,
			      struct xmemsim_plan_set *set)
{
	int ret, st;

	lockdep_assert_held(&xf->plan_lock);
	if (!set->synced)
		return 0;
	if (set->size) {
		/* -EBUSY while the backing is mapped or copied: keep it all */
		ret = xmemsim_free_for(xf, XMEMSIM_HEAP_HBM, set->base, true,
				       &st);
		if (ret)
			return ret;
	}
	atomic64_sub(set->total_bytes, &xf->dev->plan_bytes);
	set->synced = false;
	set->base = 0;
	set->size = 0;
	set->total_bytes = 0;
	return 0;
}

/*
 * Drop every plan of xf and free its backing, all or nothing: -EBUSY (and
 * nothing changed) while the backing is mapped or in a copy.
 */
static int plan_release_locked(struct xmemsim_file *xf)
{
	struct xmemsim_plan_set *set = xf->plans;
	u32 c;
	int ret;

	lockdep_assert_held(&xf->plan_lock);
	if (!set)
		return 0;
	ret = plan_unback_locked(xf, set);
	if (ret)
		return ret;
	for (c = 0; c < XMEMSIM_MAX_CORES; c++)
		if (set->cores[c])
			plan_mem_put_locked(xf, set->cores[c]->mem);
	xmemsim_plan_set_clear(set);
	return 0;
}

int xmemsim_cmd_plan_release(struct xmemsim_file *xf)
{
	int ret;

	mutex_lock(&xf->plan_lock);
	ret = plan_release_locked(xf);
	mutex_unlock(&xf->plan_lock);
	return ret;
}

/*
 * Undo a PLAN_SYNC whose result the caller could not be told: back to
 * submitted, unlinked and unbacked. If the backing got mapped meanwhile
 * the sync stands (the caller can see it through PLAN_GET).
 */
void xmemsim_plan_unsync(struct xmemsim_file *xf)
{
	struct xmemsim_plan_set *set;

	mutex_lock(&xf->plan_lock);
	set = xf->plans;
	if (set && set->synced && !plan_unback_locked(xf, set))
		xmemsim_plan_unlink(set);
	mutex_unlock(&xf->plan_lock);
}

/* The file is closing: nothing can map or copy its memory any more. */
void xmemsim_file_release_plans(struct xmemsim_file *xf)
{
	mutex_lock(&xf->plan_lock);
	WARN_ON_ONCE(plan_release_locked(xf));
	mutex_unlock(&xf->plan_lock);
	WARN_ON_ONCE(xf->plan_mem);
	kfree(xf->plans);
	xf->plans = NULL;
}
