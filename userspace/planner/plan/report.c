// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - a plan as a text table.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define U(x) ((unsigned long long)(x))

/* ---- text table ---------------------------------------------------------- */

void dp_plan_write_report(const struct dp_plan *p, FILE *f, int tensors)
{
	uint32_t ci, k;

	fprintf(f, "floor 0x%llx (hwm 0x%llx), CC region [0x%llx, 0x%llx) limit %llu, shared region [0x%llx, 0x%llx), private from 0x%llx\n",
		U(p->floor), U(p->hwm), U(p->cc_base), U(p->cc_base + p->cc_size),
		U(p->cc_limit), U(p->shared_base), U(p->shared_end),
		U(p->private_base));
	if (p->dram_shared_mode)
		fprintf(f, "dram_shared mode %d: per-core slabs of %llu bytes (core cap) from 0x%llx\n",
			p->dram_shared_mode, U(p->core_cap), U(p->private_base));
	for (ci = 0; ci < p->ncores && tensors; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		fprintf(f, "core %u (%s): %u DRAM tensors", ci, c->function, c->n);
		if (p->dram_shared_mode)
			fprintf(f, ", slab [0x%llx, 0x%llx)", U(c->slab_base),
				U(c->slab_end));
		fputc('\n', f);
		fprintf(f, "  %-24s %-8s %18s %12s  %s\n", "tensor", "region",
			"address", "size", "live");
		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];
			char live[64] = "-", addr[24] = "-";

			if (t->iv_count)
				snprintf(live, sizeof(live), "[%llu,%llu]%s",
					 U(c->iv[t->iv_first].lo),
					 U(c->iv[t->iv_first].hi),
					 t->iv_count > 1 ? " +" : "");
			if (t->placed)
				snprintf(addr, sizeof(addr), "0x%llx", U(t->addr));
			fprintf(f, "  %-24s %-8s %18s %12llu  %s%s%s", t->name,
				dp_region_name(t->region), addr, U(t->size), live,
				t->shared ? " shared" : "",
				t->has_remote ? " (linked)" : "");
			if (t->partition || t->bank)	/* the rest of the triple */
				fprintf(f, " partition %u bank %u", t->partition,
					t->bank);
			fputc('\n', f);
		}
	}
}
