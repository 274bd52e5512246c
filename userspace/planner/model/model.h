/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the model stage: the JSON and CSV readers, the model builder
 * and its checks, liveness (the files of model/).  It uses no later stage
 * (place/, search/, plan/); io/ and the top files only.
 * Not installed, like internal.h.
 */
#ifndef DRAMPLAN_MODEL_H
#define DRAMPLAN_MODEL_H

#include "internal.h"

/* liveness.c: the program-order numbering and the liveness passes */
int dp_number(struct dp_model *m, struct dp_err *e);
int dp_liveness(struct dp_model *m, struct dp_err *e);
/* model.c: resolve core ci's links to their owners (a step of
 * dp_model_link, exported for its test) */
int dp_link_targets(struct dp_model *m, uint32_t ci, struct dp_err *e);

/*
 * liveness.c: breadth first over a core's blocks from the entry, marking
 * seen[] (nb bytes, zeroed by the caller).  visit (NULL: go on everywhere)
 * is called once per block reached, in that order: 0 goes on to its
 * successors, > 0 stops there, < 0 ends the walk and is returned.
 */
int dp_cfg_walk(const struct dp_core *c, uint8_t *seen,
		int (*visit)(const struct dp_core *c, uint32_t b, void *arg),
		void *arg);

/* events.c: the events waited for are signalled, the collectives'
 * halves all there (called by dp_model_link) */
int dp_events_check(const struct dp_model *m, struct dp_err *e);

/*
 * order.c: happens-before over the model's instructions (program order,
 * events, collectives), as vector clocks; -1 and a message naming an
 * instruction on a deadlock.  dp_hb_before: does core ca's instruction
 * ia happen before core cb's ib starts?
 */
struct dp_hb {
	uint32_t nc;
	uint32_t *base;		/* core ci's nodes: [base[ci], base[ci + 1]) */
	uint32_t *clk;		/* node n, core d: clk[n * nc + d] */
};
int dp_hb_build(const struct dp_model *m, struct dp_hb *o,
		   struct dp_err *e);
int dp_hb_before(const struct dp_hb *o, uint32_t ca, uint32_t ia,
		    uint32_t cb, uint32_t ib);
void dp_hb_free(struct dp_hb *o);

#endif
