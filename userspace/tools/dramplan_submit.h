/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dramplan_submit.h - dramplan's device client (dramplan --submit).
 */
#ifndef DRAMPLAN_SUBMIT_H
#define DRAMPLAN_SUBMIT_H

#include <stdio.h>

#include "libdramplan.h"
#include "libxmemsim.h"

struct dp_submit {
	const char *dev;	/* device node */
	int uring;		/* every command through io_uring */
	int check_shared;	/* cross-core read-back after the sync */
	int tensors;		/* print every row of the agreement table */
	const struct dp_model *model; /* the plan's, or NULL: finds link owners */
	struct xms_dev xd;	/* xd.fd -1: not open */
	struct xms_ring ring;
	struct xmemsim_info info;
};

/* Opens the device (and the ring), reads GET_INFO. 0, or 1 with a message
 * on stderr. */
int dp_submit_open(struct dp_submit *s);
/* 0 when the device has ncores cores or more, else 1 with a message on
 * stderr: checked before planning, so a model the device cannot take is
 * refused at once. */
int dp_submit_fits(const struct dp_submit *s, uint32_t ncores);
/*
 * The whole submission by the bridge (dp_agree_run: every core's plan
 * submitted, synced, read back, compared; the totals; with check_shared
 * the cross-core read-back), then its result printed to out: the
 * agreement table, the totals beside the planner's, the hazard report
 * and the read-back. Returns 0 when the device took the plan and agrees
 * with the planner on everything, else 1 (the device's error text on
 * stderr).
 */
int dp_submit_run(struct dp_submit *s, const struct dp_plan *p, FILE *out);
void dp_submit_close(struct dp_submit *s);

#endif /* DRAMPLAN_SUBMIT_H */
