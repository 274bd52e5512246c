// SPDX-License-Identifier: GPL-2.0
/*
 * dram_shared mode 1 (--dram-shared-mode 1): the seed's per-core slabs in
 * one address map.  Core c's private tensors go first fit into
 * [private_base + c * cap, + cap), cap = --core-mib << 20 or the even split
 * of what lies above the shared region; a tensor that does not fit in its
 * slab is an error naming it (never placed in a neighbour's slab).  Mode 0,
 * the default, is today's map per core, byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "planner_util.h"
#include "tap.h"

/* 2-4 cores, shared owners and links, spills of up to 64 KiB */
static const struct model_shape shape = {	/* see model_shape */
	2, 4, 0, 5, 3, 24, 4, 4096, 8192, 131072, 3, 0
};

/* Plans m (a model is planned once: placing writes its addresses, so each
 * plan here gets a fresh model). */
static struct dp_plan *plan(struct dp_model *m, int mode, uint64_t core_mib,
			    uint64_t dram_mib, struct dp_err *e, char **log)
{
	struct dp_opts o;
	struct dp_plan *p;
	size_t len = 0;
	FILE *f = log ? open_memstream(log, &len) : NULL;

	dp_opts_default(&o);
	o.dram_shared_mode = mode;
	o.core_mib = core_mib;
	if (dram_mib)
		o.dram_mib = dram_mib;
	p = dp_plan_model(m, &o, f, e);
	if (f)
		fclose(f);
	return p;
}

/*
 * The slab rules checked here by brute force, not by dp_verify: slabs
 * where they should be, general tensors inside their core's, private
 * (neither shared nor pre-placed) bytes of different cores disjoint.
 * Returns the number of broken rules (printed).
 */
static int slab_rules(const struct dp_plan *p, uint64_t cap)
{
	uint32_t a, b, i, j;
	int bad = 0;

	if (p->dram_shared_mode != 1 || p->core_cap != cap) {
		printf("# mode %d cap %llu, want cap %llu\n", p->dram_shared_mode,
		       (unsigned long long)p->core_cap, (unsigned long long)cap);
		bad++;
	}
	for (a = 0; a < p->ncores; a++) {
		const struct dp_core_plan *c = &p->core[a];

		if (c->slab_base != p->private_base + a * cap ||
		    c->slab_end != c->slab_base + cap || c->slab_end > p->ceiling) {
			printf("# core %u slab [0x%llx, 0x%llx)\n", a,
			       (unsigned long long)c->slab_base,
			       (unsigned long long)c->slab_end);
			bad++;
		}
		for (i = 0; i < c->n; i++)
			if (c->t[i].region == DP_REG_GENERAL &&
			    (c->t[i].addr < c->slab_base ||
			     c->t[i].addr + c->t[i].size > c->slab_end)) {
				printf("# core %u '%s' outside its slab\n", a, c->t[i].name);
				bad++;
			}
	}
	for (a = 0; a < p->ncores; a++)
		for (b = a + 1; b < p->ncores; b++)
			for (i = 0; i < p->core[a].n; i++)
				for (j = 0; j < p->core[b].n; j++) {
					const struct dp_plan_tensor *x = &p->core[a].t[i];
					const struct dp_plan_tensor *y = &p->core[b].t[j];

					if (x->shared || y->shared || x->region == DP_REG_PRE ||
					    y->region == DP_REG_PRE)
						continue;
					if (x->addr < y->addr + y->size && y->addr < x->addr + x->size) {
						printf("# core %u '%s' and core %u '%s' share bytes\n",
						       a, x->name, b, y->name);
						bad++;
					}
				}
	return bad;
}

TEST(seeded_models_on_2_to_4_cores_keep_to_their_slabs)
{
	int seed, bad = 0, cores[5] = { 0 }, fails_at_cap = 0, fit = 0;

	for (seed = 1; seed <= 150; seed++) {
		struct dp_err e;
		struct dp_model *m = random_model(&shape, seed, &e);
		struct dp_plan *p;
		uint64_t avail, cap;

		REQUIRE(m);
		/* auto: the even split above the shared region, 4 KiB down */
		p = plan(m, 1, 0, 64, &e, NULL);
		if (!p) {
			printf("# seed %d: %s\n", seed, e.msg);
			bad++;
			dp_model_free(m);
			continue;
		}
		cores[p->ncores]++;
		avail = p->ceiling - p->private_base;
		cap = avail / p->ncores / 4096 * 4096;
		bad += slab_rules(p, cap);
		if (dp_verify(p, NULL, &e)) {
			printf("# seed %d: verify: %s\n", seed, e.msg);
			bad++;
		}
		dp_plan_free(p);
		dp_model_free(m);
		/* a 1 MiB cap: fits or fails naming a tensor and its slab */
		m = random_model(&shape, seed, &e);
		REQUIRE(m);
		p = plan(m, 1, 1, 64, &e, NULL);
		if (p) {
			fit++;
			bad += slab_rules(p, 1 << 20);
			bad += !!dp_verify(p, NULL, &e);
		} else if (contains(e.msg, "no gap fits in the core's slab") &&
			   contains(e.msg, "(core cap 1048576 bytes, --core-mib; dram_shared mode 1 never places into another core's slab)")) {
			fails_at_cap++;
		} else {
			printf("# seed %d, 1 MiB: %s\n", seed, e.msg);
			bad++;
		}
		dp_plan_free(p);
		dp_model_free(m);
	}
	printf("# 150 models: %d of 2 cores, %d of 3, %d of 4; at a 1 MiB cap %d fit, %d fail at the cap\n",
	       cores[2], cores[3], cores[4], fit, fails_at_cap);
	CHECK(bad == 0);
	CHECK(cores[2] && cores[3] && cores[4]);
	CHECK(fit > 0 && fails_at_cap > 0);	/* both sides of the cap seen */
}

/* Core c: a private tensor of (c + 1) MiB, live at once with a second one
 * of 1 MiB; one shared owner on core 0, linked from the others. */
static const char *model_n(uint32_t nc)
{
	static char buf[4096];
	size_t len = 0;
	uint32_t c;

	len += snprintf(buf + len, sizeof(buf) - len, "{'cores': [");
	for (c = 0; c < nc; c++)
		len += snprintf(buf + len, sizeof(buf) - len,
				"%s{'function': 'f%u', 'tensors': ["
				"{'name': 'S', 'elems': 4096, 'elem_size': 1, 'shared': true%s},"
				"{'name': 'a', 'elems': %u, 'elem_size': 1048576},"
				"{'name': 'b', 'elems': 1, 'elem_size': 1048576}],"
				" 'blocks': [{'name': 'e', 'insts': [{'defs': ['a', 'b'], 'uses': [%s]}, {'uses': ['a', 'b']}]}]}",
				c ? ", " : "", c,
				c ? ", 'remote': {'core': 0, 'name': 'S'}" : "",
				c + 1, c ? "'S'" : "");
	snprintf(buf + len, sizeof(buf) - len, "]}");
	return J(buf);
}

static struct dp_model *parse(const char *json)
{
	struct dp_err e;
	struct dp_model *m = dp_model_parse_json("t.json", json, strlen(json), &e);

	if (!m)
		printf("# %s\n", e.msg);
	return m;
}

TEST(the_cap_is_the_core_mib_and_the_slabs_are_where_the_docs_say)
{
	uint32_t nc;

	for (nc = 2; nc <= 4; nc++) {
		struct dp_model *m = parse(model_n(nc));
		struct dp_err e;
		struct dp_plan *p;
		char *log = NULL;
		uint32_t c;

		REQUIRE(m);
		/* core nc-1 needs nc + 1 MiB live at once: a cap of nc + 1 fits */
		p = plan(m, 1, nc + 1, 0, &e, &log);
		REQUIRE(p);
		CHECK(slab_rules(p, (uint64_t)(nc + 1) << 20) == 0);
		CHECK(!dp_verify(p, NULL, &e));
		/* the shared owner is below the slabs, once */
		CHECK(p->private_base == p->shared_end);
		for (c = 0; c < nc; c++) {
			const struct dp_core_plan *cp = &p->core[c];

			/* a (the largest, simplify places it first) at the slab's base */
			CHECK(cp->t[1].addr == cp->slab_base || cp->t[2].addr == cp->slab_base);
			CHECK(cp->t[0].addr == p->shared_base);
		}
		CHECK_HAS(log, "dram_shared mode 1: coreCap = ",
			  "(--core-mib << 20)", "[core 1] slab [0x");
		free(log);
		dp_plan_free(p);
		dp_model_free(m);
		/* one MiB less: the last core's tensors do not fit its slab */
		m = parse(model_n(nc));
		REQUIRE(m);
		p = plan(m, 1, nc, 0, &e, NULL);
		CHECK(!p);
		{
			char want[200];

			snprintf(want, sizeof(want), "core %u (f%u): tensor '", nc - 1, nc - 1);
			CHECK(contains(e.msg, want));
			CHECK(contains(e.msg, "no gap fits in the core's slab"));
		}
		dp_plan_free(p);
		dp_model_free(m);
		/* slabs that do not fit below the ceiling */
		m = parse(model_n(nc));
		REQUIRE(m);
		p = plan(m, 1, 3000, 4096, &e, NULL);
		CHECK(!p && contains(e.msg, "per-core slabs of 3145728000 bytes do not fit"));
		dp_plan_free(p);
		dp_model_free(m);
	}
}

TEST(mode_0_is_the_default_and_unchanged)
{
	struct dp_model *m[3] = { parse(model_n(3)), parse(model_n(3)),
				  parse(model_n(3)) };
	struct dp_err e;
	struct dp_plan *p0, *pd, *p1;
	struct dp_opts o;
	char *a, *b, *c;

	REQUIRE(m[0] && m[1] && m[2]);
	dp_opts_default(&o);
	CHECK(o.dram_shared_mode == 0 && o.core_mib == 0);
	pd = dp_plan_model(m[0], &o, NULL, &e);
	p0 = plan(m[1], 0, 0, 0, &e, NULL);
	p1 = plan(m[2], 1, 0, 0, &e, NULL);
	REQUIRE(pd && p0 && p1);
	a = plan_json_text(pd);
	b = plan_json_text(p0);
	c = plan_json_text(p1);
	CHECK_STR(a, b);
	CHECK(!contains(a, "slab") && !contains(a, "dram_shared_mode"));
	CHECK(contains(c, "\"dram_shared_mode\": 1, \"core_cap\": ") || contains(c, "\"dram_shared_mode\": 1,\n  \"core_cap\": "));
	CHECK(contains(c, "\"slab\": {\"base\": "));
	/* mode 0: every core's private tensors from the same private base;
	 * mode 1: core 2's above core 1's slab */
	CHECK(pd->core[2].t[1].addr < pd->core[0].t[1].addr + (4ULL << 20));
	CHECK(p1->core[2].t[1].addr >= p1->core[2].slab_base &&
	      p1->core[2].slab_base > p1->core[1].slab_base);
	CHECK(pd->core[0].slab_base == 0 && pd->core[0].slab_end == 0);
	free(a);
	free(b);
	free(c);
	dp_plan_free(pd);
	dp_plan_free(p0);
	dp_plan_free(p1);
	dp_model_free(m[0]);
	dp_model_free(m[1]);
	dp_model_free(m[2]);
}

/* Slabs of cap bytes where private_base puts them; model_n's core c:
 * 'a' ((c + 1) MiB) at its slab's base, 'b' just above it. */
static void pack_slabs(struct dp_plan *q, uint64_t cap)
{
	uint32_t c;

	q->core_cap = cap;
	for (c = 0; c < q->ncores; c++) {
		q->core[c].slab_base = q->private_base + c * cap;
		q->core[c].slab_end = q->core[c].slab_base + cap;
		q->core[c].t[1].addr = q->core[c].slab_base;
		q->core[c].t[2].addr = q->core[c].slab_base + ((uint64_t)(c + 1) << 20);
	}
}

TEST(mode_1_plans_read_back_and_verify_checks_the_slabs)
{
	struct dp_model *m = parse(model_n(3));
	struct dp_plan *p, *q;
	struct dp_err e;
	char *a, *b;

	REQUIRE(m);
	p = plan(m, 1, 4, 0, &e, NULL);
	REQUIRE(p);
	a = plan_json_text(p);
	q = dp_plan_parse_json("p.json", a, strlen(a), &e);
	REQUIRE(q);
	CHECK(q->dram_shared_mode == 1 && q->core_cap == 4ULL << 20);
	CHECK(q->core[2].slab_base == p->core[2].slab_base);
	CHECK(!dp_verify(q, "p.json", &e));
	b = plan_json_text(q);
	CHECK_STR(a, b);
	free(b);
	/* core 1's 'b' moved into core 0's slab: outside its own */
	q->core[1].t[2].addr = q->core[0].slab_base;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	CHECK(contains(e.msg, "core 1 tensor 'b' at [0x") &&
	      contains(e.msg, "outside the core's slab"));
	q->core[1].t[2].addr = p->core[1].t[2].addr;
	/* a slab that is not where private_base and core_cap put it */
	q->core[2].slab_base += 4096;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	CHECK(contains(e.msg, "core 2: slab [0x"));
	q->core[2].slab_base -= 4096;
	/* slabs of twice the cap, each core packed at its base: valid */
	pack_slabs(q, q->core_cap << 1);
	CHECK(!dp_verify(q, "p.json", &e));
	/* core 2's 'b' onto core 1's 'a' (both slabs widened over the other) */
	q->core[2].t[2].addr = q->core[1].t[1].addr;
	q->core[2].slab_base = q->core[1].slab_base;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	pack_slabs(q, 8ULL << 20);	/* consistent again */
	CHECK(!dp_verify(q, "p.json", &e));
	/* core 0's 'b' relabelled out of the general region (so no slab
	 * rule applies to it), onto core 1's 'a': only the one-map rule sees it */
	q->cc_size = 0;
	q->core[0].t[2].region = DP_REG_SHARED;	/* skip the CC and slab rules */
	q->core[0].t[2].addr = q->core[1].t[1].addr;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	CHECK(contains(e.msg, "share bytes at 0x") &&
	      contains(e.msg, "private bytes of different cores are disjoint"));
	dp_plan_free(q);
	free(a);
	dp_plan_free(p);
	dp_model_free(m);
}

/* ---- the command line --------------------------------------------------- */

static int dp(const char *args)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd), "cd %s && %s %s >/dev/null 2>&1", DP_SRCROOT,
		 DP_DRAMPLAN, args);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(the_options)
{
	CHECK(dp("--dram-shared-mode 1 -q --no-svg -o /dev/null examples/allreduce_2core.json") == 0);
	CHECK(dp("--dram-shared-mode 1 --core-mib 16 -q --no-svg -o /dev/null examples/allreduce_2core.json") == 0);
	CHECK(dp("--dram-shared-mode 0 -q --no-svg -o /dev/null examples/allreduce_2core.json") == 0);
	CHECK(dp("--dram-shared-mode 2 -q examples/allreduce_2core.json") == 2);
	CHECK(dp("--dram-shared-mode x -q examples/allreduce_2core.json") == 2);
	CHECK(dp("--core-mib 16 -q examples/allreduce_2core.json") == 2);
	CHECK(dp("--dram-shared-mode 1 --core-mib 0 -q examples/allreduce_2core.json") == 2);
	/* at the cap: one line, exit 1, nothing written */
	CHECK(dp("--dram-shared-mode 1 --core-mib 2 -q --no-svg -o /dev/null examples/allreduce_2core.json") == 1);
}

int main(void)
{
	return tap_run();
}
