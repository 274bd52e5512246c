/* SPDX-License-Identifier: GPL-2.0 */
/*
 * planner_util.h - helpers for the planner host tests.
 */
#ifndef PLANNER_UTIL_H
#define PLANNER_UTIL_H

#include "dramplan.h"

#ifndef DP_SRCROOT
#define DP_SRCROOT "."
#endif

/* A planning run with its report captured. */
struct run {
	struct dp_model *m;
	struct dp_plan *p;
	struct dp_err e;
	char *log;
	size_t loglen;
	int ok;
	int tree_built, early_exit;
};

/* Parse JSON text (as file "t.json") and plan it; r->ok says how it went. */
void run_json(struct run *r, const char *json, const struct dp_opts *o);
void run_free(struct run *r);
/* The plan entry of tensor `name` on `core`, or NULL. */
const struct dp_plan_tensor *pt(const struct dp_plan *p, uint32_t core,
				const char *name);
/* Tensor of the model by name. */
const struct dp_tensor *mt(const struct dp_model *m, uint32_t core,
			   const char *name);
/* Closed intervals of a model tensor as "[a,b] [c,d]". */
const char *ivstr(const struct dp_model *m, uint32_t core, const char *name);
int contains(const char *hay, const char *needle);
/* JSON written with ' for " (test readability); returns a static copy. */
const char *J(const char *s);
/* A one-core model: tensors and blocks JSON fragments. */
const char *core1(const char *tensors, const char *blocks);

#endif
