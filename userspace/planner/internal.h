/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - the passes, shared between the library's files.
 */
#ifndef DRAMPLAN_INTERNAL_H
#define DRAMPLAN_INTERNAL_H

#include "dramplan.h"

int dp_classify(struct dp_model *m, struct dp_err *e);
int dp_pass_find_start_addr(struct dp_ctx *x);
int dp_pass_cc_buffer_size(struct dp_ctx *x);
int dp_pass_dram(struct dp_ctx *x);
int dp_pass_build_plan(struct dp_ctx *x);
int dp_pass_sync_shared(struct dp_ctx *x);
int dp_pass_check_placed(struct dp_ctx *x);
int dp_pass_hazards(struct dp_ctx *x);
int dp_pass_totals(struct dp_ctx *x);

#endif
