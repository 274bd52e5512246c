// SPDX-License-Identifier: GPL-2.0
/*
 * dp_device.c - convert a dp_plan into the device's PLAN_SUBMIT arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"

void dp_dev_plan_free(struct dp_dev_plan *d)
{
	uint32_t ci;

	if (!d)
		return;
	for (ci = 0; ci < d->ncores && d->core; ci++) {
		free(d->core[ci].t);
		free(d->core[ci].iv);
	}
	free(d->core);
	d->core = NULL;
	d->ncores = 0;
}

uint64_t dp_dev_plan_backing(const struct dp_dev_plan *d)
{
	uint64_t slo = UINT64_MAX, shi = 0, total = 0;
	uint32_t ci, i;

	for (ci = 0; ci < d->ncores; ci++) {
		const struct dp_dev_core *c = &d->core[ci];
		uint64_t lo = UINT64_MAX, hi = 0;

		for (i = 0; i < c->n; i++) {
			const struct xmemsim_plan_tensor *t = &c->t[i];

			if (t->flags & XMEMSIM_TENSOR_REMOTE)
				continue;
			if (t->flags & XMEMSIM_TENSOR_SHARED) {
				slo = t->addr < slo ? t->addr : slo;
				shi = t->addr + t->size > shi ? t->addr + t->size : shi;
			} else {
				lo = t->addr < lo ? t->addr : lo;
				hi = t->addr + t->size > hi ? t->addr + t->size : hi;
			}
		}
		total += hi ? hi - lo : 0;
	}
	return total + (shi ? shi - slo : 0);
}

static int put_name(char *dst, const char *src, const struct dp_plan *p,
		    uint32_t ci, const char *what, const char *tname,
		    struct dp_err *e)
{
	size_t n = strlen(src);

	if (n >= XMEMSIM_NAME_LEN)
		return dp_fail(e, "%s: core %u tensor '%s': %s '%s' is %zu bytes long; the device takes names of at most %d bytes",
			       p->source, ci, tname, what, src, n,
			       XMEMSIM_NAME_LEN - 1);
	memcpy(dst, src, n + 1);
	return 0;
}

static int build_core(const struct dp_plan *p, uint32_t ci,
		      struct dp_dev_core *dc, struct dp_err *e)
{
	const struct dp_core_plan *c = &p->core[ci];
	uint32_t i, k;

	dc->core = ci;
	dc->n = c->n;
	dc->t = calloc(c->n ? c->n : 1, sizeof(*dc->t));
	dc->iv = calloc(c->niv ? c->niv : 1, sizeof(*dc->iv));
	if (!dc->t || !dc->iv)
		return dp_nomem(e);
	for (i = 0; i < c->n; i++) {
		const struct dp_plan_tensor *t = &c->t[i];
		struct xmemsim_plan_tensor *d = &dc->t[i];

		if (put_name(d->name, t->name, p, ci, "name", t->name, e))
			return -1;
		if (t->has_remote) {
			if (put_name(d->remote_name, t->remote_name, p, ci,
				     "remote target", t->name, e))
				return -1;
			d->flags = XMEMSIM_TENSOR_SHARED | XMEMSIM_TENSOR_REMOTE;
			d->remote_core = t->remote_core;
			d->addr = 0;	/* the device's SYNC sets it */
			dc->linked_bytes += t->size;
		} else {
			if (!t->placed)
				return dp_fail(e, "%s: core %u tensor '%s': has no address to submit",
					       p->source, ci, t->name);
			d->flags = t->shared ? XMEMSIM_TENSOR_SHARED : 0;
			d->addr = t->addr;
			d->partition = t->partition;	/* links: SYNC's */
			d->bank = t->bank;
			if (t->shared)
				dc->shared_bytes += t->size;
			else
				dc->private_bytes += t->size;
		}
		d->size = t->size;
		d->id = t->id;
		d->nr_intervals = t->iv_count;
		d->intervals = (uint64_t)(uintptr_t)(dc->iv + dc->niv);
		for (k = 0; k < t->iv_count; k++) {
			const struct dp_iv *v = &c->iv[t->iv_first + k];

			if (v->hi > UINT32_MAX)
				return dp_fail(e, "%s: core %u tensor '%s': live until time %llu; the device takes 32-bit times",
					       p->source, ci, t->name,
					       (unsigned long long)v->hi);
			dc->iv[dc->niv].lo = (uint32_t)v->lo;
			dc->iv[dc->niv].hi = (uint32_t)v->hi;
			dc->niv++;
		}
	}
	return 0;
}

int dp_dev_plan_build(const struct dp_plan *p, struct dp_dev_plan *d,
		      struct dp_err *e)
{
	uint32_t ci;

	memset(d, 0, sizeof(*d));
	d->core = calloc(p->ncores ? p->ncores : 1, sizeof(*d->core));
	if (!d->core)
		return dp_nomem(e);
	d->ncores = p->ncores;
	for (ci = 0; ci < p->ncores; ci++)
		if (build_core(p, ci, &d->core[ci], e)) {
			dp_dev_plan_free(d);
			return -1;
		}
	return 0;
}
