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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "xmemsim.h"

static bool zeroed(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

static struct xmemsim_plan_set *plan_set(struct xmemsim_file *xf)
{
	struct xmemsim_plan_set *set = xf->plans;

	if (set)
		return set;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return NULL;
	set->ncores = xf->dev->geo.cores;
	xf->plans = set;
	return set;
}

static void report(struct xmemsim_file *xf, const char *what,
		   const struct xmemsim_plan_err *err)
{
	pr_info_ratelimited("pid %d: %s rejected: %s\n", xf->pid, what, err->msg);
}

/* Copy a submitted plan in: the tensor array once, each interval list once. */
static int plan_copy_in(struct xmemsim_file *xf, const struct xmemsim_plan_submit *ps,
			struct xmemsim_core_plan **out, struct xmemsim_plan_err *err)
{
	struct xmemsim_plan_tensor *ut;
	struct xmemsim_core_plan *p = NULL;
	u32 i, nr_iv = 0;
	int ret = 0;

	ut = kvmalloc_array(ps->count, sizeof(*ut), GFP_KERNEL);
	if (!ut)
		return -ENOMEM;
	if (copy_from_user(ut, u64_to_user_ptr(ps->tensors),
			   array_size(ps->count, sizeof(*ut)))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < ps->count; i++) {
		if (ut[i].dev_addr || ut[i].reserved) {
			snprintf(err->msg, sizeof(err->msg),
				 "tensor %u: dev_addr and reserved must be zero", i);
			err->bad[0] = i;
			ret = -EINVAL;
			goto out;
		}
		if (check_add_overflow(nr_iv, ut[i].nr_intervals, &nr_iv) ||
		    nr_iv > XMEMSIM_PLAN_MAX_INTERVALS) {
			snprintf(err->msg, sizeof(err->msg),
				 "more than %lu intervals", XMEMSIM_PLAN_MAX_INTERVALS);
			ret = -E2BIG;
			goto out;
		}
	}
	p = xmemsim_plan_alloc(ps->count, nr_iv);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	p->core = ps->core;
	nr_iv = 0;
	for (i = 0; i < ps->count; i++) {
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
				   array_size(t->nr_iv, sizeof(*p->iv)))) {
			ret = -EFAULT;
			goto out;
		}
		nr_iv += t->nr_iv;
	}
out:
	kvfree(ut);
	if (ret)
		xmemsim_plan_free(p);
	else
		*out = p;
	return ret;
}

int xmemsim_cmd_plan_submit(struct xmemsim_file *xf,
			    struct xmemsim_plan_submit *ps, int *wb)
{
	struct xmemsim_dev *d = xf->dev;
	struct xmemsim_plan_err err = { .bad = { U32_MAX, U32_MAX } };
	struct xmemsim_core_plan *p = NULL;
	struct xmemsim_plan_set *set;
	int ret;

	if (ps->core >= d->geo.cores || !zeroed(ps->reserved, sizeof(ps->reserved)) ||
	    !ps->count)
		return -EINVAL;
	if (ps->count > XMEMSIM_PLAN_MAX_TENSORS)
		return -E2BIG;
	ret = plan_copy_in(xf, ps, &p, &err);
	if (!ret) {
		err.core = ps->core;
		ret = xmemsim_plan_check(p, d->plan_core_size, d->geo.cores, &err);
	}
	if (!ret) {
		mutex_lock(&xf->plan_lock);
		set = plan_set(xf);
		if (!set) {
			ret = -ENOMEM;
		} else if (set->synced) {
			ret = -EBUSY;
		} else {
			xmemsim_plan_free(set->cores[ps->core]);
			set->cores[ps->core] = p;
			p = NULL;
		}
		mutex_unlock(&xf->plan_lock);
	}
	xmemsim_plan_free(p);
	if (ret == -EINVAL || (ret == -E2BIG && err.msg[0])) {
		ps->bad[0] = err.bad[0];
		ps->bad[1] = err.bad[1];
		strscpy(ps->error, err.msg, sizeof(ps->error));
		report(xf, "plan", &err);
		*wb = 1;
	}
	return ret;
}

/* Back a synced plan with HBM; plan_lock held. */
static int plan_back(struct xmemsim_file *xf, struct xmemsim_plan_set *set)
{
	u64 addr;
	int st;

	int ret;

	xmemsim_plan_layout(set);
	if (!set->size)
		return 0;
	ret = xmemsim_alloc_for(xf, XMEMSIM_HEAP_HBM, set->size,
				XMEMSIM_PLAN_ALIGN, true, true, &addr, &st);
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

	if (sy->flags || !zeroed(sy->reserved, sizeof(sy->reserved)))
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
		if (!ret) {
			ret = plan_back(xf, set);
			if (ret) {
				xmemsim_plan_unlink(set);	/* no partial state */
			} else {
				set->synced = true;
				set->total_bytes = plan_total(set);
				atomic64_add(set->total_bytes, &xf->dev->plan_bytes);
			}
		}
	}
	mutex_unlock(&xf->plan_lock);
	if (!ret) {
		sy->linked = linked;
		return 0;
	}
	if (ret == -ENODATA || ret == -ENOENT || ret == -EINVAL) {
		sy->bad_core = err.core;
		sy->bad = err.bad[0];
		strscpy(sy->error, err.msg, sizeof(sy->error));
		report(xf, "sync", &err);
		*wb = 1;
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
	    !zeroed(pg->reserved, sizeof(pg->reserved)))
		return -EINVAL;
	if (pg->capacity) {
		out = kvcalloc(min(pg->capacity, XMEMSIM_PLAN_MAX_TENSORS),
			       sizeof(*out), GFP_KERNEL);
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
	    !zeroed(ps->reserved, sizeof(ps->reserved)))
		return -EINVAL;
	/* outputs are ignored on input: start the sums from zero */
	memset(&ps->tensors, 0, offsetof(typeof(*ps), reserved) -
	       offsetof(typeof(*ps), tensors));
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

/* Drop every plan of xf and free its backing; plan_lock held or unneeded. */
static void plan_release_locked(struct xmemsim_file *xf)
{
	struct xmemsim_plan_set *set = xf->plans;

	if (!set)
		return;
	if (set->synced && set->size)
		xmemsim_free_for(xf, XMEMSIM_HEAP_HBM, set->base, true);
	if (set->synced)
		atomic64_sub(set->total_bytes, &xf->dev->plan_bytes);
	xmemsim_plan_set_clear(set);
}

int xmemsim_cmd_plan_release(struct xmemsim_file *xf)
{
	mutex_lock(&xf->plan_lock);
	plan_release_locked(xf);
	mutex_unlock(&xf->plan_lock);
	return 0;
}

void xmemsim_file_release_plans(struct xmemsim_file *xf)
{
	plan_release_locked(xf);
	kfree(xf->plans);
	xf->plans = NULL;
}
