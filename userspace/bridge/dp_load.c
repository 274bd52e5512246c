// SPDX-License-Identifier: GPL-2.0
/*
 * dp_load.c - a plan.json that dramplan wrote, loaded into the device for
 * a runtime: read and checked (dp_plan_load_json), each core submitted,
 * synced, read back and compared with the file (dp_agree_run_to, the
 * call dramplan --submit makes), and every
 * tensor's device address handed back.
 *
 * The plan lives as long as the open file dev: the device drops a file's
 * plans and frees their HBM when the file closes (or at PLAN_RELEASE),
 * so a runtime that dies leaks nothing, and a runtime keeps the file
 * open for as long as it uses the addresses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"

void dp_loaded_free(struct dp_loaded *l)
{
	if (!l)
		return;
	free(l->t);
	dp_plan_free(l->plan);
	memset(l, 0, sizeof(*l));
}

const struct dp_loaded_tensor *dp_loaded_find(const struct dp_loaded *l,
					      uint32_t core, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->t[i].core == core && !strcmp(l->t[i].name, name))
			return &l->t[i];
	return NULL;
}

/* What failed, as dramplan --submit says it. */
static int load_fail(struct dp_agree *a, int ret, const char *path,
		     struct dp_err *e)
{
	const struct dp_agree_fail *f = &a->fail;
	static const char *const step[] = {
		[DP_AG_STEP_SUBMIT] = "PLAN_SUBMIT", [DP_AG_STEP_SYNC] = "PLAN_SYNC",
		[DP_AG_STEP_GET] = "PLAN_GET",
	};
	const char *what = f->step <= DP_AG_STEP_GET && step[f->step] ? step[f->step] : "device";
	char why[256] = "";

	if (ret == -ENOMEM && f->step == DP_AG_STEP_SYNC &&
	    xms_nomem_reason(a->dev, XMEMSIM_HEAP_HBM, dp_dev_plan_backing(&a->d),
			     why, sizeof(why)))
		why[0] = 0;
	return dp_fail(e, "%s: %s core %u: %s%s%s%s%s", path, what, f->core,
		       strerror(-ret), f->msg[0] ? ": " : "", f->msg,
		       why[0] ? ": the plan's bytes are one HBM allocation; " : "", why);
}

int dp_plan_load_device(struct xms_dev *dev, const char *path,
			struct dp_loaded *out, struct dp_err *e)
{
	struct dp_agree a;
	struct dp_plan *p;
	uint32_t ci, i;
	size_t n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	p = dp_plan_load_json(path, e);
	if (!p)
		return -EINVAL;
	if (dp_agree_init(&a, dev, p, NULL, e)) {
		dp_plan_free(p);
		return -EINVAL;
	}
	/* the submission of dramplan --submit, up to the comparison */
	ret = dp_agree_run_to(&a, 0, DP_AG_RUN_COMPARE);
	if (ret < 0) {
		load_fail(&a, ret, path, e);
		goto fail;
	}
	if (a.disagree) {
		ret = -EPROTO;
		dp_fail(e, "%s: the device placed %u tensor%s otherwise than the plan", path,
			a.disagree, a.disagree == 1 ? "" : "s");
		goto fail;
	}
	for (ci = 0; ci < p->ncores; ci++)
		n += p->core[ci].n;
	out->t = calloc(n ? n : 1, sizeof(*out->t));
	if (!out->t) {
		dp_nomem(e);
		ret = -ENOMEM;
		goto fail;
	}
	for (ci = 0; ci < p->ncores; ci++) {
		for (i = 0; i < p->core[ci].n; i++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[i];
			struct dp_loaded_tensor *o = &out->t[out->n++];

			*o = (struct dp_loaded_tensor){
				.core = ci, .name = t->name, .addr = t->addr,
				.size = t->size, .shared = t->shared,
				.linked = t->has_remote, .pt = t,
				.dev_addr = a.core[ci].have ? a.core[ci].got[i].dev_addr : 0,
			};
		}
	}
	out->plan = p;
	out->linked = a.linked;
	dp_agree_free(&a);
	return 0;
fail:
	/* nothing of it stays on the device */
	if (a.submitted)
		xms_plan_release(dev);
	dp_agree_free(&a);
	dp_plan_free(p);
	free(out->t);
	memset(out, 0, sizeof(*out));
	return ret < 0 ? ret : -EINVAL;
}
