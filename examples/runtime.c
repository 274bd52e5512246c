// SPDX-License-Identifier: MIT
/*
 * runtime: what a runtime does with the plan dramplan wrote. It loads
 * PLAN.json into the device with one call (dp_plan_load_device: every
 * core's plan submitted, synced, backed with HBM and checked against the
 * file), writes the inputs (the pre-placed tensors) at the device
 * addresses it got back, and reads every shared tensor through another
 * core: the link on core 1 is its owner's bytes on core 0.
 *
 *	dramplan -o plan.json examples/allreduce_2core.json
 *	cc -o runtime examples/runtime.c $(pkg-config --cflags --libs libdramplan-device)
 *	./runtime plan.json
 *
 * The plan lives as long as the open file: closing it (or exiting, or
 * xms_plan_release) frees the plan and its HBM. Prints one TAP line per
 * step; exit 0 when all passed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"

static int step, failed;

static void report(int ok, const char *fmt, const char *name, unsigned int core)
{
	printf("%sok %d - ", ok ? "" : "not ", ++step);
	printf(fmt, name, core);
	putchar('\n');
	failed |= !ok;
}

/* A byte pattern of its own for each tensor. */
static void pattern(unsigned char *b, size_t n, size_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 131 + i * 7 + 1);
}

/* n bytes of a pattern of its own (seed) written at wa and read at ra:
 * 1 when they came back. */
static int through(struct xms_dev *xd, uint64_t wa, uint64_t ra,
		   unsigned char *w, unsigned char *r, size_t n, size_t seed)
{
	int ret;

	pattern(w, n, seed);
	ret = xms_write(xd, wa, w, n);
	memset(r, 0, n);
	if (!ret)
		ret = xms_read(xd, ra, r, n);
	return !ret && !memcmp(w, r, n);
}

int main(int argc, char **argv)
{
	const size_t chunk = 1 << 20;	/* at most this much of a tensor */
	unsigned char *w = malloc(chunk), *r = malloc(chunk);
	struct dp_err e = { "" };
	struct dp_loaded l;
	struct xms_dev xd;
	size_t i, inputs = 0, shared = 0;
	int ret;

	if (argc != 2 || !w || !r) {
		fprintf(stderr, "usage: runtime PLAN.json\n");
		return 2;
	}
	ret = xms_open(&xd, getenv("XMEMSIM_DEV"));
	if (ret) {
		fprintf(stderr, "runtime: /dev/xmemsim: %s\n", strerror(-ret));
		return 1;
	}
	ret = dp_plan_load_device(&xd, argv[1], &l, &e);
	printf("%sok %d - loaded %s: %zu tensors, %u linked\n", ret ? "not " : "",
	       ++step, argv[1], l.n, l.linked);
	if (ret) {
		printf("#   %s\n", e.msg);
		xms_close(&xd);
		return 1;
	}
	/* the inputs: the tensors the model pre-placed (inputs, weights,
	 * outputs), each written once and read back */
	for (i = 0; i < l.n; i++) {
		const struct dp_loaded_tensor *t = &l.t[i];
		size_t n = t->size < chunk ? t->size : chunk;

		if (t->pt->region != DP_REG_PRE)
			continue;
		report(through(&xd, t->dev_addr, t->dev_addr, w, r, n, i), "pre-placed '%s' of core %u (an input, weight or output) written at its device address", t->name, t->core);
		inputs++;
	}
	/* each link: its owner's bytes, written through the owner's core,
	 * read through the link's */
	for (i = 0; i < l.n; i++) {
		const struct dp_loaded_tensor *t = &l.t[i], *o;
		size_t n;

		if (!t->linked)
			continue;
		o = dp_loaded_find(&l, t->pt->remote_core, t->pt->remote_name);
		if (!o) {
			report(0, "link '%s' of core %u has its owner", t->name, t->core);
			continue;
		}
		n = t->size < chunk ? t->size : chunk;
		report(through(&xd, o->dev_addr, t->dev_addr, w, r, n, i + 1000), "shared '%s' read through core %u: its owner's bytes", t->name, t->core);
		shared++;
	}
	printf("# %zu inputs written, %zu shared tensors read across cores\n", inputs, shared);
	printf("1..%d\n", step);
	dp_loaded_free(&l);
	xms_close(&xd);		/* the plan and its HBM go with the file */
	free(w);
	free(r);
	return failed;
}
