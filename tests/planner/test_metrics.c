// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's messages and metrics: simplify's "hi ratio" and "new
 * candidates = N" (a node is high while its pressure is above the bytes of
 * its region), the spill / aligned spill / dram cost metrics per core, and
 * the true shared footprint (bytes under at least one shared tensor)
 * beside the counted-once total.  The same counts from both simplify
 * engines (the reference heap and dense.c's k-d tree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

static void run_with(struct run *r, const char *json, uint64_t dram_mib,
		     enum dp_engine eng)
{
	struct dp_opts o;

	dp_opts_default(&o);
	o.dram_mib = dram_mib;
	o.engine = eng;
	run_json(r, json, &o);
}

static const enum dp_engine engines[] = { DP_ENGINE_REFERENCE,
					  DP_ENGINE_INCREMENTAL };

/* A, B, C of 512 KiB; B overlaps A and C, which do not overlap.  With a
 * 1 MiB region: pressures A 1 MiB, B 1.5 MiB (high), C 1 MiB.  A goes
 * first (smallest, lowest index), B drops to 1 MiB: a new candidate. */
TEST(a_chain_in_one_mib_one_high_node_becomes_a_candidate)
{
	const char *m = core1(
		"{'name': 'A', 'elems': 524288, 'elem_size': 1},"
		"{'name': 'B', 'elems': 524288, 'elem_size': 1},"
		"{'name': 'C', 'elems': 524288, 'elem_size': 1}",
		"{'name': 'e', 'insts': [{'defs': ['A']}, {'defs': ['B'], 'uses': ['A']},"
		" {'defs': ['C'], 'uses': ['B']}, {'uses': ['C']}]}");
	size_t k;

	for (k = 0; k < 2; k++) {
		struct run r;

		run_with(&r, m, 1, engines[k]);
		REQUIRE(r.ok);
		CHECK_HAS(r.log, "[core 0 dram] simplify: hi ratio = 1/3 = 0.333 (pressure above the region's 1048576 bytes; highest pressure 1572864)\n",
			  "[core 0 dram] simplify: new candidates = 1\n");
		CHECK(!dp_verify(r.p, NULL, &r.e));
		run_free(&r);
	}
}

/* X and Y of 768 KiB live at once in 1 MiB: both high; X goes (still
 * high: not a candidate), Y drops to 768 KiB (a candidate); then the plan
 * fails -- the messages come first. */
TEST(two_high_nodes_one_new_candidate_then_the_cap)
{
	const char *m = core1(
		"{'name': 'X', 'elems': 786432, 'elem_size': 1},"
		"{'name': 'Y', 'elems': 786432, 'elem_size': 1}",
		"{'name': 'e', 'insts': [{'defs': ['X', 'Y']}, {'uses': ['X', 'Y']}]}");
	size_t k;

	for (k = 0; k < 2; k++) {
		struct run r;

		run_with(&r, m, 1, engines[k]);
		CHECK(!r.ok);
		CHECK_HAS(r.log, "simplify: hi ratio = 2/2 = 1.000 (pressure above the region's 1048576 bytes; highest pressure 1572864)\n",
			  "simplify: new candidates = 1\n");
		CHECK(contains(r.e.msg, "no gap fits below the ceiling"));
		run_free(&r);
	}
}

TEST(nothing_high_in_a_large_region)
{
	struct run r;

	run_json(&r, core1("{'name': 'A', 'elems': 4096, 'elem_size': 4}",
			   "{'name': 'e', 'insts': [{'defs': ['A']}, {'uses': ['A']}]}"),
		 NULL);
	REQUIRE(r.ok);
	CHECK_HAS(r.log, "simplify: hi ratio = 0/1 = 0.000 (pressure above the region's 17179869184 bytes; highest pressure 16384)\n",
		  "simplify: new candidates = 0\n");
	run_free(&r);
}

/* The lines of text that contain key, in order. */
static char *lines_with(const char *text, const char *key)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *s = text;

	if (!f)
		abort();
	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) + 1 : strlen(s);

		if (memmem(s, n, key, strlen(key)))
			fwrite(s, 1, n, f);
		s += n;
	}
	fclose(f);
	return out;
}

/* Some "KEY N" in text with N > 0. */
static int any_nonzero(const char *text, const char *key)
{
	const char *s = text;

	while ((s = strstr(s, key))) {
		s += strlen(key);
		if (strtoull(s, NULL, 10) > 0)
			return 1;
	}
	return 0;
}

/* Seeded models in small regions (so that nodes are high): the two
 * engines give the same messages, and the counts are consistent. */
static const struct model_shape small_regions = {	/* see model_shape */
	1, 3, 0, 4, 4, 40, 4, 1024, 65536, 65536, 3, 0
};

TEST(both_engines_give_the_same_counts)
{
	const struct model_shape shape = small_regions;
	int seed, same = 0, with_high = 0, with_new = 0, n = 0;

	for (seed = 1; seed <= 120; seed++) {
		char *txt[2];
		size_t k;

		for (k = 0; k < 2; k++) {
			struct dp_err e;
			struct dp_model *m = random_model(&shape, seed, &e);
			struct dp_opts o;
			struct dp_plan *p;
			char *log = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&log, &len);

			REQUIRE(m && f);
			dp_opts_default(&o);
			o.dram_mib = 1;
			o.engine = engines[k];
			p = dp_plan_model(m, &o, f, &e);
			fclose(f);
			txt[k] = lines_with(log, "simplify:");
			free(log);
			dp_plan_free(p);
			dp_model_free(m);
		}
		n++;
		same += !strcmp(txt[0], txt[1]);
		if (strcmp(txt[0], txt[1]))
			printf("# seed %d:\n%s# against\n%s", seed, txt[0], txt[1]);
		with_high += any_nonzero(txt[0], "hi ratio = ");
		with_new += any_nonzero(txt[0], "new candidates = ");
		free(txt[0]);
		free(txt[1]);
	}
	printf("# %d models: same messages in %d; some node high in %d, a new candidate in %d\n",
	       n, same, with_high, with_new);
	CHECK(same == n);
	CHECK(with_high > 0 && with_new > 0);
}

/* ---- cost metrics ------------------------------------------------------- */

TEST(spill_aligned_spill_and_dram_per_core)
{
	struct run r;
	const char *m =
		J("{'cores': ["
		  " {'function': 'f', 'tensors': ["
		  "   {'name': 'in', 'elems': 1000, 'elem_size': 4, 'usage': 'input', 'address': 0},"
		  "   {'name': 'S', 'elems': 5000, 'elem_size': 1, 'shared': true},"
		  "   {'name': 'a', 'elems': 100, 'elem_size': 8},"
		  "   {'name': 'q', 'elems': 9, 'elem_size': 4, 'memory': 'sbuf'}],"
		  "  'blocks': [{'name': 'e', 'insts': [{'defs': ['S', 'a', 'q'], 'uses': ['in']}, {'uses': ['a', 'q']}]}]},"
		  " {'function': 'g', 'tensors': ["
		  "   {'name': 'L', 'elems': 5000, 'elem_size': 1, 'shared': true, 'remote': {'core': 0, 'name': 'S'}},"
		  "   {'name': 'b', 'elems': 3, 'elem_size': 3}],"
		  "  'blocks': [{'name': 'e', 'insts': [{'defs': ['b'], 'uses': ['L']}, {'uses': ['b']}]}]}]}");

	run_json(&r, m, NULL);
	if (!r.ok)
		printf("# %s\n", r.e.msg);
	REQUIRE(r.ok);
	/* core 0 places S (5000) and a (800); 'in' is pre-placed (4000);
	 * the SBUF tensor is not DRAM.  core 1 places b (9); L is linked. */
	CHECK(r.p->core[0].spill == 5800 && r.p->core[0].aligned_spill == 8192 + 4096);
	CHECK(r.p->core[0].dram == 4000);
	CHECK(r.p->core[1].spill == 9 && r.p->core[1].aligned_spill == 4096);
	CHECK(r.p->core[1].dram == 5000);
	CHECK_HAS(r.log, "[core 0] spill = 5800 bytes, aligned spill = 12288 bytes, dram = 4000 bytes\n",
		  "[core 1] spill = 9 bytes, aligned spill = 4096 bytes, dram = 5000 bytes\n");
	run_free(&r);
}

/* ---- the true shared footprint -------------------------------------- */

TEST(shared_footprint_beside_the_counted_once_total)
{
	struct run r;
	/* S1 and S2 (8 KiB each) never live at once: they share bytes */
	const char *m =
		J("{'cores': ["
		  " {'function': 'f', 'tensors': ["
		  "   {'name': 'S1', 'elems': 8192, 'elem_size': 1, 'shared': true},"
		  "   {'name': 'S2', 'elems': 8192, 'elem_size': 1, 'shared': true},"
		  "   {'name': 'S3', 'elems': 4096, 'elem_size': 1, 'shared': true}],"
		  "  'blocks': [{'name': 'e', 'insts': [{'defs': ['S1', 'S3']}, {'uses': ['S1']},"
		  "   {'defs': ['S2']}, {'uses': ['S2', 'S3']}]}]},"
		  " {'function': 'g', 'tensors': ["
		  "   {'name': 'L1', 'elems': 8192, 'elem_size': 1, 'shared': true, 'remote': {'core': 0, 'name': 'S1'}}],"
		  "  'blocks': [{'name': 'e', 'insts': [{'uses': ['L1']}]}]}]}");

	run_json(&r, m, NULL);
	REQUIRE(r.ok);
	CHECK(pt(r.p, 0, "S1")->addr == pt(r.p, 0, "S2")->addr);
	CHECK_EQ_U64(r.p->total_shared, 8192 + 8192 + 4096);
	CHECK_EQ_U64(r.p->shared_footprint, 8192 + 4096);
	CHECK(contains(r.log, "device: shared footprint 12288 bytes (bytes under at least one shared tensor, beside the 20480 counted once above)\n"));
	run_free(&r);
}

/* Against a page count on seeded models: every shared byte range is page
 * aligned, so the footprint is the number of pages some owner covers. */
TEST(shared_footprint_is_the_union_on_seeded_models)
{
	struct model_shape shape = small_regions;	/* more owners, fewer spills */
	int seed, bad = 0, less = 0;

	shape.min_cores = 2;
	shape.max_cores = 4;
	shape.min_owners = 1;
	shape.max_owners = 8;
	shape.max_spills = 10;

	for (seed = 1; seed <= 100; seed++) {
		struct dp_err e;
		struct dp_model *m = random_model(&shape, seed, &e);
		struct dp_plan *p;
		uint64_t lo = UINT64_MAX, hi = 0, pages = 0, a;
		uint32_t ci, i;

		REQUIRE(m);
		p = plan_default(m, &e);
		REQUIRE(p);
		for (ci = 0; ci < p->ncores; ci++)
			for (i = 0; i < p->core[ci].n; i++) {
				const struct dp_plan_tensor *t = &p->core[ci].t[i];

				if (t->shared && !t->has_remote) {
					lo = t->addr < lo ? t->addr : lo;
					hi = t->addr + t->size > hi ? t->addr + t->size : hi;
				}
			}
		for (a = lo; lo < hi && a < hi; a += 4096) {
			int in = 0;

			for (ci = 0; ci < p->ncores && !in; ci++)
				for (i = 0; i < p->core[ci].n && !in; i++) {
					const struct dp_plan_tensor *t = &p->core[ci].t[i];

					in = t->shared && !t->has_remote &&
					     t->addr <= a && a < t->addr + t->size;
				}
			pages += in;
		}
		if (p->shared_footprint != pages * 4096 ||
		    p->shared_footprint > p->total_shared) {
			printf("# seed %d: footprint %llu, pages %llu, counted once %llu\n",
			       seed, (unsigned long long)p->shared_footprint,
			       (unsigned long long)pages,
			       (unsigned long long)p->total_shared);
			bad++;
		}
		less += p->shared_footprint < p->total_shared;
		dp_plan_free(p);
		dp_model_free(m);
	}
	printf("# 100 models: footprint below the counted-once total in %d\n", less);
	CHECK(bad == 0);
	CHECK(less > 0);
}

int main(void)
{
	return tap_run();
}
