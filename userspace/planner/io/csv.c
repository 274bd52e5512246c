// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - a MiniMalloc instance written back as CSV, its offsets in the
 * last column (the solution dramplan --format=minimalloc writes, and
 * dramplan verify reads with model/csv.c).
 */
#include <stdio.h>

#include "libdramplan.h"

int dp_csv_write(const struct dp_csv *c, FILE *f)
{
	size_t i;

	fprintf(f, "id,lower,upper,size%s,offset\n", c->has_align ? ",alignment" : "");
	for (i = 0; i < c->n; i++) {
		const struct dp_csv_buf *b = &c->b[i];

		fprintf(f, "%s,%llu,%llu,%llu", b->id, (unsigned long long)b->lower,
			(unsigned long long)b->upper, (unsigned long long)b->size);
		if (c->has_align)
			fprintf(f, ",%llu", (unsigned long long)b->align);
		fprintf(f, ",%llu\n", (unsigned long long)b->offset);
	}
	return ferror(f) ? -1 : 0;
}
