// SPDX-License-Identifier: GPL-2.0
/*
 * N cores: shared tensors placed once by the owner and linked elsewhere,
 * sync_shared equalization on the plain plan, shared bytes counted once,
 * the union-of-cores interference rule and the post-shared hazard report.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

/* core 0: S (8 KiB, shared owner), P0 (4 KiB); core 1: L -> {0, S}, P1.
 * core 0: 0 def S | 1 def P0 use S | 2 use P0
 * core 1: 0 def P1 use L | 1 use P1 */
static const char *two_core =
	"{'cores': ["
	" {'function': 'r0', 'tensors': ["
	"   {'name': 'S', 'elems': 2048, 'elem_size': 4, 'shared': true},"
	"   {'name': 'P0', 'elems': 1024, 'elem_size': 4}],"
	"  'blocks': [{'name': 'e', 'insts': ["
	"   {'name': 'w', 'defs': ['S']}, {'defs': ['P0'], 'uses': ['S']}, {'uses': ['P0']}]}]},"
	" {'function': 'r1', 'tensors': ["
	"   {'name': 'L', 'elems': 2048, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'S'}},"
	"   {'name': 'P1', 'elems': 1024, 'elem_size': 4}],"
	"  'blocks': [{'name': 'e', 'insts': ["
	"   {'name': 'rd', 'defs': ['P1'], 'uses': ['L']}, {'uses': ['P1']}]}]}]}";

TEST(shared_placed_once_and_linked)
{
	struct run r;
	const struct dp_plan_tensor *s, *l;

	run_json(&r, J(two_core), NULL);
	REQUIRE(r.ok);
	s = pt(r.p, 0, "S");
	l = pt(r.p, 1, "L");
	REQUIRE(s && l);
	/* no pre-placed, no CC: shared region at 0, S at 0, ends at 8192 */
	CHECK_EQ_U64(s->addr, 0);
	CHECK_EQ_U64(l->addr, 0);
	CHECK(l->has_remote && l->remote_core == 0);
	CHECK_STR(l->remote_name, "S");
	CHECK(s->region == DP_REG_SHARED && l->region == DP_REG_LINKED);
	CHECK_EQ_U64(r.p->shared_base, 0);
	CHECK_EQ_U64(r.p->shared_end, 8192);
	/* private tensors start above the shared region on every core */
	CHECK_EQ_U64(pt(r.p, 0, "P0")->addr, 8192);
	CHECK_EQ_U64(pt(r.p, 1, "P1")->addr, 8192);
	/* only the owner's object is placed: one shared placement */
	CHECK_HAS(r.log, "[shared] core 0 'S' -> 0x0 (1 link)",
		  "Skipping shared tensor allocations on core 1",
		  "Assigned memloc L to address 0x0 based on its remote local target");
	CHECK(!dp_verify(r.p, NULL, &r.e));
	run_free(&r);
}

TEST(shared_counted_once)
{
	struct run r;

	run_json(&r, J(two_core), NULL);
	REQUIRE(r.ok);
	/* core 0: private 4096, sees 8192 shared; core 1 the same.
	 * device: 4096 + 4096 + 8192 once = 16384, not 24576 */
	CHECK_EQ_U64(r.p->core[0].private_bytes, 4096);
	CHECK_EQ_U64(r.p->core[1].private_bytes, 4096);
	CHECK_EQ_U64(r.p->core[0].shared_bytes, 8192);
	CHECK_EQ_U64(r.p->core[1].shared_bytes, 8192);
	CHECK_EQ_U64(r.p->total_shared, 8192);
	CHECK_EQ_U64(r.p->total_private, 8192);
	CHECK_EQ_U64(r.p->total_bytes, 16384);
	run_free(&r);
}

/* Hazard pair k of p as "core C 'T' writes|reads, core C 'T' ..., [lo, hi)" */
static const char *pairstr(const struct dp_plan *p, size_t k)
{
	static char buf[600];
	const struct dp_hazard *h = &p->hz[k];

	snprintf(buf, sizeof(buf), "core %u '%s' %s, core %u '%s' %s, [%llu, %llu)",
		 h->core_a, p->core[h->core_a].t[h->ta].name,
		 h->a_writes ? "writes" : "reads", h->core_b,
		 p->core[h->core_b].t[h->tb].name,
		 h->b_writes ? "writes" : "reads",
		 (unsigned long long)h->lo, (unsigned long long)h->hi);
	return buf;
}

TEST(hazard_write_read_across_cores)
{
	struct run r;

	RUN_JSON_WITH(&r, hazard_pairs, 1, J(two_core));
	REQUIRE(r.ok);
	/* core 0 writes S, core 1 reads L: one pair on [0, 8192) */
	REQUIRE(r.p->nhz == 1);
	CHECK_STR(pairstr(r.p, 0), "core 0 'S' writes, core 1 'L' reads, [0, 8192)");
	CHECK(contains(r.log, "1 cross-core access pair"));
	run_free(&r);
}

TEST(no_hazard_read_read)
{
	struct run r;

	/* a pre-placed shared weight only read on both cores */
	run_json(&r, J("{'cores': ["
		" {'tensors': [{'name': 'W', 'elems': 1024, 'elem_size': 4, 'usage': 'weight', 'shared': true, 'address': 0}],"
		"  'blocks': [{'name': 'e', 'insts': [{'uses': ['W']}]}]},"
		" {'tensors': [{'name': 'W', 'elems': 1024, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'W'}}],"
		"  'blocks': [{'name': 'e', 'insts': [{'uses': ['W']}]}]}]}"), NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->nhz, 0);
	/* the link of a pre-placed owner is resolved too */
	CHECK_EQ_U64(pt(r.p, 1, "W")->addr, 0);
	CHECK(pt(r.p, 1, "W")->placed);
	run_free(&r);
}

/* Core 0: shared S1 and S2, live at different times. */
#define OWNER_S1_S2							\
	" {'tensors': ["							\
	"   {'name': 'S1', 'elems': 1024, 'elem_size': 4, 'shared': true},"	\
	"   {'name': 'S2', 'elems': 1024, 'elem_size': 4, 'shared': true}],"	\
	"  'blocks': [{'name': 'e', 'insts': ["					\
	"   {'defs': ['S1']}, {'uses': ['S1']}, {'defs': ['S2']}, {'uses': ['S2']}]}]},"

/* Two shared objects owned by core 0, live at different times there;
 * core 1 links both and uses them either apart or together. */
static const char *coalesce(int together)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf),
		"{'cores': ["
		OWNER_S1_S2
		" {'tensors': ["
		"   {'name': 'L1', 'elems': 1024, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'S1'}},"
		"   {'name': 'L2', 'elems': 1024, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'S2'}}],"
		"  'blocks': [{'name': 'e', 'insts': [%s]}]}]}",
		together ? "{'uses': ['L1', 'L2']}" :
			   "{'uses': ['L1']}, {'uses': ['L2']}, {}");
	return J(buf);
}

TEST(shared_interference_is_union_over_cores)
{
	struct run apart, together;

	run_json(&apart, coalesce(0), NULL);
	run_json(&together, coalesce(1), NULL);
	REQUIRE(apart.ok && together.ok);
	/* apart: S1 [0,1], S2 [2,3] on core 0; on core 1 L1 [0,0], L2 [0,1]
	 * (links are live from the entry).  L1 and L2 meet at 0 on core 1:
	 * different bytes even though core 0 alone would let them share. */
	CHECK(pt(apart.p, 0, "S1")->addr != pt(apart.p, 0, "S2")->addr);
	CHECK(pt(together.p, 0, "S1")->addr != pt(together.p, 0, "S2")->addr);
	CHECK(!dp_verify(apart.p, NULL, &apart.e));
	CHECK(!dp_verify(together.p, NULL, &together.e));
	run_free(&apart);
	run_free(&together);
}

TEST(shared_coalesced_reports_hazard)
{
	struct run r;

	/* core 1 links only S2, so S1 and S2 never meet on one core: they
	 * share bytes, and core 0 writing S1 vs core 1 reading L2 on the same
	 * bytes is a cross-core pair that needs ordering */
	RUN_JSON_WITH(&r, hazard_pairs, 1, J("{'cores': ["
		OWNER_S1_S2
		" {'tensors': ["
		"   {'name': 'L2', 'elems': 1024, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'S2'}}],"
		"  'blocks': [{'name': 'e', 'insts': [{}, {}, {}, {'uses': ['L2']}]}]}]}"));
	REQUIRE(r.ok);
	/* core 0: S1 [0,1], S2 [2,3]; core 1 (times shifted): L2 [0,3].
	 * S1 and S2 (with L2) never live together on one core: same bytes */
	CHECK_EQ_U64(pt(r.p, 0, "S1")->addr, pt(r.p, 0, "S2")->addr);
	CHECK_EQ_U64(pt(r.p, 1, "L2")->addr, pt(r.p, 0, "S2")->addr);
	/* pairs: S1 (w) vs L2 (r) and S2 (w) vs L2 (r) */
	CHECK_EQ_U64(r.p->nhz, 2);
	CHECK(!dp_verify(r.p, NULL, &r.e));
	run_free(&r);
}

/* A hand-made plan: what the device's SYNC_SHARED will receive. */
static struct dp_plan *mini_plan(const char *target)
{
	struct dp_plan *p = calloc(1, sizeof(*p));
	int c;

	p->model = strdup("m");
	p->source = strdup("plan.json");
	p->page = DP_PAGE;
	p->ncores = 2;
	p->core = calloc(2, sizeof(*p->core));
	for (c = 0; c < 2; c++) {
		p->core[c].core = c;
		p->core[c].function = strdup("f");
		p->core[c].n = 1;
		p->core[c].t = calloc(1, sizeof(struct dp_plan_tensor));
		p->core[c].iv = calloc(1, sizeof(struct dp_iv));
		p->core[c].niv = 1;
		p->core[c].t[0].iv_count = 1;
		p->core[c].t[0].size = 8192;
		p->core[c].t[0].bytes = 8192;
		p->core[c].t[0].shared = 1;
		p->core[c].t[0].region = c ? DP_REG_LINKED : DP_REG_SHARED;
	}
	p->core[0].t[0].name = strdup("buf");
	p->core[0].t[0].addr = 0x5000;
	p->core[0].t[0].placed = 1;
	p->core[1].t[0].name = strdup("buf_link");
	p->core[1].t[0].addr = DP_UNSET;
	p->core[1].t[0].has_remote = 1;
	p->core[1].t[0].remote_core = 0;
	p->core[1].t[0].remote_name = strdup(target);
	return p;
}

TEST(sync_shared_equalizes_plain_plan)
{
	struct dp_plan *p = mini_plan("buf");
	struct dp_err e;

	REQUIRE(!dp_sync_shared(p, NULL, &e));
	CHECK(p->core[1].t[0].placed);
	CHECK_EQ_U64(p->core[1].t[0].addr, 0x5000);
	/* equal addresses pass verify's shared rule */
	p->floor = 0;
	p->cc_limit = 0;
	CHECK(!dp_verify(p, NULL, &e));
	/* a tampered link fails it, naming both ends */
	p->core[1].t[0].addr = 0x6000;
	CHECK(dp_verify(p, NULL, &e));
	CHECK(contains(e.msg, "'buf_link'") && contains(e.msg, "'buf'") &&
	      contains(e.msg, "shared addresses must be equal"));
	dp_plan_free(p);
}

TEST(sync_shared_missing_remote)
{
	struct dp_plan *p = mini_plan("nope");
	struct dp_err e;

	CHECK(dp_sync_shared(p, NULL, &e));
	CHECK_HAS(e.msg, "plan.json", "'buf_link'",
		  "missing remote target {core 0, 'nope'}");
	CHECK(!p->core[1].t[0].placed);
	dp_plan_free(p);
}

TEST(shared_collective_in_cc_region)
{
	struct run r;

	/* G shared owner is an all-reduce operand on core 1 only: still a
	 * collective operand, so the CC region holds it on both cores */
	run_json(&r, J("{'cores': ["
		" {'tensors': [{'name': 'G', 'elems': 1024, 'elem_size': 4, 'shared': true},"
		"              {'name': 'X', 'elems': 1024, 'elem_size': 4}],"
		"  'blocks': [{'name': 'e', 'insts': [{'defs': ['G', 'X']}, {'uses': ['X']}]}]},"
		" {'tensors': [{'name': 'G', 'elems': 1024, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'G'}},"
		"              {'name': 'C', 'elems': 2048, 'elem_size': 4}],"
		"  'blocks': [{'name': 'e', 'insts': [{'defs': ['C']}, {'defs': ['G', 'C'], 'uses': ['G', 'C'], 'collective': true}]}]}]}"),
		NULL);
	REQUIRE(r.ok);
	/* shared CC first: G at 0; core 1's private CC operand C above it at
	 * 4096; real CC = 4096 + 8192 = 12288; X (general) at 12288 */
	CHECK_EQ_U64(pt(r.p, 0, "G")->addr, 0);
	CHECK_EQ_U64(pt(r.p, 1, "G")->addr, 0);
	CHECK_EQ_U64(pt(r.p, 1, "C")->addr, 4096);
	CHECK_EQ_U64(r.p->cc_size, 12288);
	CHECK_EQ_U64(pt(r.p, 0, "X")->addr, 12288);
	CHECK(!dp_verify(r.p, NULL, &r.e));
	run_free(&r);
}

TEST(example_allreduce_2core)
{
	struct dp_err e;
	struct dp_model *m = dp_model_load_json(DP_SRCROOT "/examples/allreduce_2core.json", &e);
	struct dp_opts o;
	struct dp_plan *p;
	uint32_t ci, k;

	REQUIRE(m);
	dp_opts_default(&o);
	o.hazard_pairs = 1;
	p = dp_plan_model(m, &o, NULL, &e);
	REQUIRE(p);
	CHECK(!dp_verify(p, NULL, &e));
	/* every link has its owner's address; every collective operand is in
	 * the CC region and nothing else is */
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];
			int in_cc = t->addr >= p->cc_base &&
				    t->addr + t->size <= p->cc_base + p->cc_size;

			if (t->has_remote)
				CHECK_EQ_U64(t->addr, pt(p, t->remote_core, t->remote_name)->addr);
			if (t->region == DP_REG_PRE)
				continue;
			CHECK(in_cc == (t->collective ||
					(t->has_remote && pt(p, t->remote_core, t->remote_name)->collective)));
		}
	/* the two loss tensors, each written on one core and read on the
	 * other; events order both, the gradients go through the CC buffer */
	CHECK_EQ_U64(p->nhz, 2);
	CHECK(p->ordered);
	CHECK_EQ_U64(p->nev, 2);
	CHECK_EQ_U64(p->nuo, 0);
	dp_plan_free(p);
	dp_model_free(m);
}

int main(void)
{
	return tap_run();
}
