// SPDX-License-Identifier: GPL-2.0
/*
 * A program outside the tree that plans, built against the installed
 * libdramplan with `pkg-config --cflags --libs --static libdramplan` alone
 * (scripts/check.sh): the planner needs no device library.  Plans MODEL,
 * verifies the plan, writes it to /dev/null and prints "ok CORES".
 */
#include <stdio.h>

#include <libdramplan.h>

int main(int argc, char **argv)
{
	struct dp_err e = { "" };
	struct dp_model *m;
	struct dp_plan *p = NULL;
	struct dp_opts o;
	FILE *f;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: planner_consumer MODEL.json\n");
		return 2;
	}
	m = dp_model_load_json(argv[1], &e);
	dp_opts_default(&o);
	if (m)
		p = dp_plan_model(m, &o, NULL, &e);
	f = fopen("/dev/null", "w");
	if (p && f && !dp_verify(p, argv[1], &e) && !dp_plan_write_json(p, f)) {
		printf("ok %u\n", p->ncores);
		rc = 0;
	} else {
		fprintf(stderr, "planner_consumer: %s\n", e.msg);
	}
	if (f)
		fclose(f);
	dp_plan_free(p);
	dp_model_free(m);
	return rc;
}
