// SPDX-License-Identifier: GPL-2.0
/*
 * Pipeline behaviours of seed B (docs/seed-behaviour.md) with hand-computed
 * placements:
 * the floor, the early exit, the --disable-dram-allocation gate, CC sizing
 * (fixed and -1 auto) and CC region placement, the ceiling, 4 KiB sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/model.h"
#include "plan/plan.h"
#include "planner_util.h"
#include "tap.h"

TEST(sizes_round_to_4k)
{
	struct run r;

	/* 5000 bytes -> 8192; 4096 -> 4096; 1 -> 4096 */
	run_json(&r, core1(
		"{'name': 'a', 'elems': 1250, 'elem_size': 4},"
		"{'name': 'b', 'elems': 1024, 'elem_size': 4},"
		"{'name': 'c', 'elems': 1, 'elem_size': 1}",
		"{'name': 'e', 'insts': [{'defs': ['a', 'b', 'c']}, {'uses': ['a', 'b', 'c']}]}"),
		NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(pt(r.p, 0, "a")->bytes, 5000);
	CHECK_EQ_U64(pt(r.p, 0, "a")->size, 8192);
	CHECK_EQ_U64(pt(r.p, 0, "b")->size, 4096);
	CHECK_EQ_U64(pt(r.p, 0, "c")->size, 4096);
	/* all three live together: 16 KiB from the floor 0, disjoint */
	CHECK_EQ_U64(r.p->core[0].peak, 16384);
	CHECK_EQ_U64(r.p->core[0].lower_bound, 16384);
	run_free(&r);
}

TEST(floor_above_preplaced)
{
	struct run r;

	/* x at 0x10000, 5000 bytes -> 8192: hwm 0x11fff, floor 0x12000.
	 * w at 0x4000, 4096: below.  y (spill) lands exactly on the floor. */
	run_json(&r, core1(
		"{'name': 'x', 'elems': 5000, 'elem_size': 1, 'usage': 'input', 'address': 65536},"
		"{'name': 'w', 'elems': 4096, 'elem_size': 1, 'usage': 'weight', 'address': 16384},"
		"{'name': 'y', 'elems': 100, 'elem_size': 4}",
		"{'name': 'e', 'insts': [{'defs': ['y'], 'uses': ['x', 'w']}, {'uses': ['y']}]}"),
		NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->hwm, 0x11fff);
	CHECK_EQ_U64(r.p->floor, 0x12000);
	CHECK_EQ_U64(pt(r.p, 0, "y")->addr, 0x12000);
	/* pre-placed addresses are kept */
	CHECK_EQ_U64(pt(r.p, 0, "x")->addr, 0x10000);
	CHECK_EQ_U64(pt(r.p, 0, "w")->addr, 0x4000);
	CHECK_HAS(r.log, "Already used DRAM hwm: 0x11fff",
		  "reserved space = 73727 bytes");
	run_free(&r);
}

TEST(floor_zero_without_preplaced)
{
	struct run r;

	run_json(&r, core1("{'name': 'y', 'elems': 1, 'elem_size': 4}",
			   "{'name': 'e', 'insts': [{'defs': ['y']}]}"), NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->floor, 0);
	CHECK_EQ_U64(pt(r.p, 0, "y")->addr, 0);
	CHECK(!contains(r.log, "Already used DRAM hwm"));
	run_free(&r);
}

TEST(floor_over_every_core)
{
	struct run r;

	/* core 1's pre-placed tensor (0x20000 + 4096 - 1 = 0x20fff) sets the
	 * floor for core 0 too: the seed scans every sibling function */
	run_json(&r, J("{'cores': ["
		"{'tensors': [{'name': 'a', 'elems': 1, 'elem_size': 4}],"
		" 'blocks': [{'name': 'e', 'insts': [{'defs': ['a']}]}]},"
		"{'tensors': [{'name': 'in', 'elems': 1, 'elem_size': 4, 'usage': 'input', 'address': 131072}],"
		" 'blocks': [{'name': 'e', 'insts': [{'uses': ['in']}]}]}]}"), NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->floor, 0x21000);
	CHECK_EQ_U64(pt(r.p, 0, "a")->addr, 0x21000);
	run_free(&r);
}

static const char *all_preplaced =
	"{'name': 'x', 'elems': 1024, 'elem_size': 4, 'usage': 'input', 'address': 0},"
	"{'name': 'y', 'elems': 1024, 'elem_size': 4, 'usage': 'output', 'address': 4096},"
	"{'name': 's', 'elems': 64, 'elem_size': 4, 'memory': 'sbuf'}";

TEST(early_exit_no_candidate)
{
	struct run r;

	run_json(&r, core1(all_preplaced,
		"{'name': 'e', 'insts': [{'defs': ['s'], 'uses': ['x']}, {'defs': ['y'], 'uses': ['s']}]}"),
		NULL);
	REQUIRE(r.ok);
	CHECK(r.early_exit);
	CHECK(!r.tree_built);
	CHECK(contains(r.log, "No candidate, DRAM allocation successful"));
	CHECK(!contains(r.log, "IntervalTree Build Done"));
	/* success, addresses untouched; the SBUF tensor is not in the plan */
	CHECK_EQ_U64(pt(r.p, 0, "y")->addr, 4096);
	CHECK(pt(r.p, 0, "s") == NULL);
	CHECK_EQ_U64(r.p->core[0].n, 2);
	run_free(&r);
}

TEST(full_path_builds_tree)
{
	struct run r;

	run_json(&r, core1("{'name': 'a', 'elems': 1, 'elem_size': 4}",
			   "{'name': 'e', 'insts': [{'defs': ['a']}]}"), NULL);
	REQUIRE(r.ok);
	CHECK(!r.early_exit);
	CHECK(r.tree_built);
	CHECK_HAS(r.log, "Num intervals 1  Num locations 1",
		  "IntervalTree Build Done", "DRAM allocation successful");
	run_free(&r);
}

TEST(disable_gate_is_structural)
{
	struct dp_pipeline on, off;
	struct dp_opts o;

	dp_opts_default(&o);
	dp_pipeline_build(&on, &o);
	o.disable_dram = 1;
	dp_pipeline_build(&off, &o);
	CHECK(dp_pipeline_has(&on, "coloring_allocator_dram"));
	CHECK(dp_pipeline_has(&on, "find_start_addr"));
	CHECK(dp_pipeline_has(&on, "cc_buffer_size"));
	CHECK(dp_pipeline_has(&on, "post_shared_hazards"));
	/* the DRAM pass and its companions are not in the list at all */
	CHECK(!dp_pipeline_has(&off, "coloring_allocator_dram"));
	CHECK(!dp_pipeline_has(&off, "find_start_addr"));
	CHECK(!dp_pipeline_has(&off, "cc_buffer_size"));
	CHECK(!dp_pipeline_has(&off, "post_shared_hazards"));
	/* the rest stays */
	CHECK(dp_pipeline_has(&off, "number"));
	CHECK(dp_pipeline_has(&off, "liveness"));
	CHECK(dp_pipeline_has(&off, "sync_shared"));
	CHECK(dp_pipeline_has(&off, "check_placed"));
	CHECK_EQ_U64(on.n - off.n, 4);
}

TEST(disable_gate_not_inside_allocator)
{
	struct dp_model *m;
	struct dp_err e;
	struct dp_opts o;
	struct dp_ctx x;
	const char *js = core1("{'name': 'a', 'elems': 1, 'elem_size': 4}",
			       "{'name': 'e', 'insts': [{'defs': ['a']}]}");

	/* the allocation pass itself ignores the flag: run by hand with the
	 * flag set, it still places (the gate is only the pipeline builder) */
	m = dp_model_parse_json("t.json", js, strlen(js), &e);
	REQUIRE(m);
	dp_opts_default(&o);
	o.disable_dram = 1;
	dp_ctx_init(&x, m, &o, NULL, &e);
	REQUIRE(!dp_number(m, &e) && !dp_classify(m, &e) && !dp_liveness(m, &e));
	REQUIRE(!dp_pass_find_start_addr(&x));
	REQUIRE(!dp_pass_cc_buffer_size(&x));
	REQUIRE(!dp_pass_dram(&x));
	CHECK_EQ_U64(m->c[0].t[0].addr, 0);
	dp_ctx_fini(&x);
	dp_model_free(m);
}

TEST(disable_names_unplaced)
{
	struct run r;

	RUN_JSON_WITH(&r, disable_dram, 1,
		      core1("{'name': 'x', 'elems': 1, 'elem_size': 4, 'usage': 'input', 'address': 0},"
			    "{'name': 'spill_a', 'elems': 1, 'elem_size': 4},"
			    "{'name': 'spill_b', 'elems': 1, 'elem_size': 4}",
			    "{'name': 'e', 'insts': [{'defs': ['spill_a', 'spill_b'], 'uses': ['x']}]}"));
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "t.json", "2 DRAM tensors left without an address",
		  "'spill_a'", "'spill_b'", "--disable-dram-allocation");
	CHECK(!r.tree_built);
	run_free(&r);
}

TEST(disable_ok_when_all_preplaced)
{
	struct run r;

	RUN_JSON_WITH(&r, disable_dram, 1, core1(all_preplaced,
		"{'name': 'e', 'insts': [{'defs': ['s'], 'uses': ['x']}, {'defs': ['y'], 'uses': ['s']}]}"));
	REQUIRE(r.ok);
	CHECK(!contains(r.log, "coloring_allocator_dram"));
	CHECK(!contains(r.log, "No candidate"));
	CHECK_EQ_U64(pt(r.p, 0, "x")->addr, 0);
	/* the plan still records the floor: y ends at 8192 -> hwm 0x1fff */
	CHECK_EQ_U64(r.p->floor, 0x2000);
	CHECK(!dp_verify(r.p, NULL, &r.e));
	run_free(&r);
}

/* T 5000 bytes (8192), U 4096, G 4096.
 * 0 mk: def T U | 1 ar (collective): def T, use T U | 2 def G use T | 3 use G */
static const char *cc_model =
	"{'cores': [{'tensors': ["
	"  {'name': 'T', 'elems': 5000, 'elem_size': 1},"
	"  {'name': 'U', 'elems': 1024, 'elem_size': 4},"
	"  {'name': 'G', 'elems': 1024, 'elem_size': 4}],"
	" 'blocks': [{'name': 'e', 'insts': ["
	"  {'name': 'mk', 'defs': ['T', 'U']},"
	"  {'name': 'ar', 'defs': ['T'], 'uses': ['T', 'U'], 'collective': true},"
	"  {'name': 'cp', 'defs': ['G'], 'uses': ['T']},"
	"  {'uses': ['G']}]}]}]}";

TEST(cc_default_500_mib)
{
	struct run r;

	run_json(&r, J(cc_model), NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->cc_limit, 500ULL << 20);
	CHECK(contains(r.log, "CC buffer size 524288000 bytes"));
	run_free(&r);
}

TEST(cc_region_holds_collective_operands)
{
	struct run r;
	const struct dp_plan_tensor *t, *u, *g;

	run_json(&r, J(cc_model), NULL);
	REQUIRE(r.ok);
	t = pt(r.p, 0, "T");
	u = pt(r.p, 0, "U");
	g = pt(r.p, 0, "G");
	/* T [0,2] and U [0,1] interfere; pressure 12288 each, T (index 0)
	 * removed first so U is placed first: U at 0, T at 4096.
	 * Real CC = 12288; G (not collective) starts at the region's end. */
	CHECK_EQ_U64(u->addr, 0);
	CHECK_EQ_U64(t->addr, 4096);
	CHECK_EQ_U64(r.p->cc_base, 0);
	CHECK_EQ_U64(r.p->cc_size, 12288);
	CHECK_EQ_U64(g->addr, 12288);
	CHECK(t->region == DP_REG_CC && u->region == DP_REG_CC);
	CHECK(g->region == DP_REG_GENERAL);
	CHECK(contains(r.log, "Real CC buffer size 12288"));
	/* peak and lower bound both count the CC buffer whole: the region
	 * is reserved, T and U never share bytes with G.  (The bound from
	 * the bytes live at once alone, 12288, would be no bound on this
	 * layout.)  Labelled, with the figures without it beside. */
	CHECK_EQ_U64(r.p->core[0].peak, 16384);
	CHECK_EQ_U64(r.p->core[0].lower_bound, 16384);
	CHECK(contains(r.log, "peak 16384, lower bound 16384 (both with the CC buffer's 12288 bytes; without: 4096, 4096)"));
	run_free(&r);
}

TEST(cc_auto_size)
{
	struct run r;

	RUN_JSON_WITH(&r, cc_mib, -1, J(cc_model));
	REQUIRE(r.ok);
	/* one collective instruction, distinct operands T (8192) + U (4096) */
	CHECK_EQ_U64(r.p->cc_limit, 12288);
	CHECK(contains(r.log, "CC buffer size limit 12288"));
	CHECK_EQ_U64(r.p->cc_size, 12288);
	run_free(&r);
}

TEST(cc_auto_size_sums_instructions)
{
	struct run r;

	/* two collectives: {T, U} and {T} -> 8192 + 4096 + 8192 = 20480 */
	RUN_JSON_WITH(&r, cc_mib, -1, J(
		"{'cores': [{'tensors': ["
		"  {'name': 'T', 'elems': 5000, 'elem_size': 1},"
		"  {'name': 'U', 'elems': 1024, 'elem_size': 4}],"
		" 'blocks': [{'name': 'e', 'insts': ["
		"  {'defs': ['T', 'U']},"
		"  {'defs': ['T'], 'uses': ['T', 'U'], 'collective': true},"
		"  {'defs': ['T'], 'uses': ['T'], 'collective': true}]}]}]}"));
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->cc_limit, 20480);
	CHECK(r.p->cc_size <= r.p->cc_limit);
	run_free(&r);
}

TEST(cc_limit_too_small_names_tensor)
{
	struct run r;

	RUN_JSON_WITH(&r, cc_mib, 0, J(cc_model));
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "t.json",
		  "collective operand does not fit in the CC buffer");
	CHECK(contains(r.e.msg, "'U'") || contains(r.e.msg, "'T'"));
	run_free(&r);
}

TEST(cc_region_above_floor)
{
	struct run r;

	/* floor 0x2000 (pre-placed 8 KiB at 0): CC region starts there */
	run_json(&r, J(
		"{'cores': [{'tensors': ["
		"  {'name': 'in', 'elems': 8192, 'elem_size': 1, 'usage': 'input', 'address': 0},"
		"  {'name': 'C', 'elems': 1, 'elem_size': 4},"
		"  {'name': 'G', 'elems': 1, 'elem_size': 4}],"
		" 'blocks': [{'name': 'e', 'insts': ["
		"  {'defs': ['C', 'G'], 'uses': ['in'], 'collective': false},"
		"  {'defs': ['C'], 'uses': ['C'], 'collective': true},"
		"  {'uses': ['G']}]}]}]}"), NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->floor, 0x2000);
	CHECK_EQ_U64(r.p->cc_base, 0x2000);
	CHECK_EQ_U64(pt(r.p, 0, "C")->addr, 0x2000);
	CHECK_EQ_U64(r.p->cc_size, 4096);
	CHECK_EQ_U64(pt(r.p, 0, "G")->addr, 0x3000);
	run_free(&r);
}

TEST(dram_ceiling_names_tensor)
{
	struct run r;

	RUN_JSON_WITH(&r, dram_mib, 1,
		      core1("{'name': 'big', 'elems': 2097152, 'elem_size': 1}",
			    "{'name': 'e', 'insts': [{'defs': ['big']}]}"));
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "'big'", "ceiling", "--dram-size");
	run_free(&r);
}

TEST(dram_page_size_does_not_change_alignment)
{
	struct run r;

	RUN_JSON_WITH(&r, dram_page_size, 512,
		      core1("{'name': 'a', 'elems': 100, 'elem_size': 1}",
			    "{'name': 'e', 'insts': [{'defs': ['a']}]}"));
	REQUIRE(r.ok);
	CHECK_EQ_U64(pt(r.p, 0, "a")->size, 4096);
	run_free(&r);
}

TEST(verify_catches_corruption)
{
	struct run r;
	struct dp_plan_tensor *a, *b;
	struct dp_err e;
	uint64_t keep;

	run_json(&r, core1("{'name': 'x', 'elems': 1, 'elem_size': 4, 'usage': 'input', 'address': 0},"
			   "{'name': 'a', 'elems': 1, 'elem_size': 4},"
			   "{'name': 'b', 'elems': 1, 'elem_size': 4}",
			   "{'name': 'e', 'insts': [{'defs': ['a', 'b'], 'uses': ['x']}, {'uses': ['a', 'b']}]}"),
		 NULL);
	REQUIRE(r.ok);
	REQUIRE(!dp_verify(r.p, "p.json", &e));
	a = (struct dp_plan_tensor *)pt(r.p, 0, "a");
	b = (struct dp_plan_tensor *)pt(r.p, 0, "b");
	/* interfering a and b on the same bytes */
	keep = b->addr;
	b->addr = a->addr;
	CHECK(dp_verify(r.p, "p.json", &e));
	CHECK(contains(e.msg, "p.json") && contains(e.msg, "'a'") &&
	      contains(e.msg, "'b'") && contains(e.msg, "overlap"));
	b->addr = keep;
	/* below the floor (0x1000) */
	keep = a->addr;
	a->addr = 0;
	CHECK(dp_verify(r.p, "p.json", &e));
	CHECK(contains(e.msg, "below the floor") || contains(e.msg, "overlap"));
	/* unaligned */
	a->addr = keep + 8;
	CHECK(dp_verify(r.p, "p.json", &e));
	CHECK(contains(e.msg, "not 4 KiB aligned"));
	a->addr = keep;
	/* wrong floor */
	r.p->floor += 4096;
	CHECK(dp_verify(r.p, "p.json", &e));
	CHECK(contains(e.msg, "hwm + 1"));
	r.p->floor -= 4096;
	CHECK(!dp_verify(r.p, "p.json", &e));
	run_free(&r);
}

int main(void)
{
	return tap_run();
}
