// SPDX-License-Identifier: GPL-2.0
/*
 * mm2model - a MiniMalloc CSV instance as a dramplan JSON model
 * (dp_csv_model), for scripts/bench-quality.sh's JSON-path column.
 *
 *   mm2model [--scale N] PROBLEM.csv > MODEL.json
 *
 * Sizes are multiplied by N (default: 4096 / gcd of the sizes, so that the
 * 4 KiB page rounding of the JSON path changes nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"

int main(int argc, char **argv)
{
	struct dp_err e = { "" };
	struct dp_model *m;
	struct dp_csv *c;
	uint64_t scale = 0, g = 0;
	size_t i;
	int rc;

	if (argc == 4 && !strcmp(argv[1], "--scale")) {
		scale = strtoull(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: mm2model [--scale N] PROBLEM.csv\n");
		return 2;
	}
	c = dp_csv_load(argv[1], &e);
	if (!c) {
		fprintf(stderr, "mm2model: %s\n", e.msg);
		return 1;
	}
	for (i = 0; i < c->n; i++) {	/* gcd of the sizes */
		uint64_t a = c->b[i].size, b = g;

		while (b) {
			uint64_t r = a % b;

			a = b;
			b = r;
		}
		g = a;
	}
	if (!scale)
		scale = g && DP_PAGE % g == 0 ? DP_PAGE / g : 1;
	m = dp_csv_model(c, scale, &e);
	dp_csv_free(c);
	if (!m) {
		fprintf(stderr, "mm2model: %s\n", e.msg);
		return 1;
	}
	rc = dp_model_write_json(m, stdout) || fflush(stdout) ? 1 : 0;
	if (rc)
		fprintf(stderr, "mm2model: write error\n");
	dp_model_free(m);
	return rc;
}
