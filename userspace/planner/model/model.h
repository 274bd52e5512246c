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

#endif
