// SPDX-License-Identifier: GPL-2.0
/*
 * Flat numbering in program order and CFG liveness (loops), with the
 * intervals written out by hand for each model.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

#define T(n) "{'name': '" n "', 'elems': 1024, 'elem_size': 4}"

TEST(numbering_program_order)
{
	struct run r;
	const struct dp_core *c;

	run_json(&r, core1(T("a") "," T("b"),
		"{'name': 'b0', 'succ': ['b1'], 'insts': ["
		"  {'name': 'i0', 'defs': ['a']}, {'name': 'i1', 'defs': ['b'], 'uses': ['a']}]},"
		"{'name': 'b1', 'succ': ['b2']},"
		"{'name': 'b2', 'insts': [{'name': 'i2', 'uses': ['b']}]}"), NULL);
	REQUIRE(r.ok);
	c = &r.m->c[0];
	/* i0 = 0, i1 = 1 in b0; b1 is empty; i2 = 2 in b2 */
	CHECK_EQ_U64(c->in[0].t, 0);
	CHECK_EQ_U64(c->in[1].t, 1);
	CHECK_EQ_U64(c->in[2].t, 2);
	CHECK_EQ_U64(c->b[0].t_first, 0);
	CHECK_EQ_U64(c->b[0].t_last, 1);
	CHECK(c->b[1].ninst == 0);
	CHECK_EQ_U64(c->b[2].t_first, 2);
	/* a: def 0, use 1 -> [0,1]; b: def 1, used in b2 at 2 (through the
	 * empty block) -> [1,2]; never lo > hi */
	CHECK_STR(ivsof(r.m, 0, "a b"), "a [0,1]; b [1,2]");
	run_free(&r);
}

TEST(straight_line_def_use_dead_def)
{
	struct run r;

	run_json(&r, core1(T("a") "," T("d") "," T("x"),
		"{'name': 'e', 'insts': ["
		"  {'defs': ['a']},"		/* 0 */
		"  {'defs': ['d']},"		/* 1: d never used */
		"  {'defs': ['x'], 'uses': ['a']},"	/* 2 */
		"  {'uses': ['x']},"		/* 3 */
		"  {'defs': ['x'], 'uses': ['x']},"	/* 4: read-modify-write */
		"  {'uses': ['x']}]}"), NULL);	/* 5 */
	REQUIRE(r.ok);
	/* d: a dead def still occupies its instruction; x: [2,3], then
	 * use+def at 4 -> [4,5]; touching ranges merge */
	CHECK_STR(ivsof(r.m, 0, "a d x"), "a [0,2]; d [1,1]; x [2,5]");
	run_free(&r);
}

/*
 * The model of fmt, a format whose one %s is where block 'loop' lists
 * itself as a successor: the back edge, or nothing without it
 */
static const char *with_back_edge(const char *fmt, int back_edge)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf), fmt, back_edge ? "'loop', " : "");
	return J(buf);
}

/* entry: 0 def a, 1 def acc, 2 def b | loop: 3 def s use a,
 * 4 def acc use acc s | exit: 5 def out use acc, 6 use b */
static const char *loop_model(int back_edge)
{
	return with_back_edge(
		"{'cores': [{'tensors': [" T("a") "," T("acc") "," T("b") "," T("s") ","
		"  {'name': 'out', 'elems': 1, 'elem_size': 4, 'usage': 'output'}],"
		" 'blocks': ["
		"  {'name': 'entry', 'succ': ['loop'], 'insts': ["
		"    {'defs': ['a']}, {'defs': ['acc']}, {'defs': ['b']}]},"
		"  {'name': 'loop', 'succ': [%s'exit'], 'insts': ["
		"    {'defs': ['s'], 'uses': ['a']},"
		"    {'defs': ['acc'], 'uses': ['acc', 's']}]},"
		"  {'name': 'exit', 'insts': [{'defs': ['out'], 'uses': ['acc']}, {'uses': ['b']}]}]}]}",
		back_edge);
}

TEST(loop_liveness_back_edge_extends)
{
	struct run r;

	run_json(&r, loop_model(1), NULL);
	REQUIRE(r.ok);
	/* a is used at 3 and live around the back edge: all of loop [3,4],
	 * plus [0,2] in entry -> [0,4]; acc: entry [1,2], loop live in and
	 * out ([3,4]), exit use at 5; s is defined before its use in every
	 * iteration: not live across; b is never touched in the loop but
	 * live across it; out: def 5, live at the exit -> [5,6] */
	CHECK_STR(ivsof(r.m, 0, "a acc s b out"),
		  "a [0,4]; acc [1,5]; s [3,4]; b [2,6]; out [5,6]");
	run_free(&r);
}

TEST(loop_liveness_without_back_edge)
{
	struct run r;

	run_json(&r, loop_model(0), NULL);
	REQUIRE(r.ok);
	/* same code, no back edge: a dies at its use 3 */
	CHECK_STR(ivsof(r.m, 0, "a acc s"), "a [0,3]; acc [1,5]; s [3,4]");
	run_free(&r);
}

/* entry: 0 def a | loop: 1 use a, 2 def s | exit: 3 use s */
static const char *share_model(int back_edge)
{
	return with_back_edge(
		"{'cores': [{'tensors': [" T("a") "," T("s") "], 'blocks': ["
		"  {'name': 'entry', 'succ': ['loop'], 'insts': [{'defs': ['a']}]},"
		"  {'name': 'loop', 'succ': [%s'exit'], 'insts': [{'uses': ['a']}, {'defs': ['s']}]},"
		"  {'name': 'exit', 'insts': [{'uses': ['s']}]}]}]}",
		back_edge);
}

TEST(loop_interference_changes_placement)
{
	struct run with, without;

	run_json(&without, share_model(0), NULL);
	run_json(&with, share_model(1), NULL);
	REQUIRE(with.ok && without.ok);
	/* no back edge: a [0,1], s [2,3] never meet -> the same bytes (floor 0) */
	CHECK_STR(ivsof(without.m, 0, "a s"), "a [0,1]; s [2,3]");
	CHECK_EQ_U64(pt(without.p, 0, "a")->addr, 0);
	CHECK_EQ_U64(pt(without.p, 0, "s")->addr, 0);
	/* back edge: a is needed by the next trip, live over the whole loop
	 * [0,2], and meets s at 2 -> different bytes, 4096 apart */
	CHECK_STR(ivsof(with.m, 0, "a s"), "a [0,2]; s [2,3]");
	CHECK(pt(with.p, 0, "a")->addr != pt(with.p, 0, "s")->addr);
	CHECK_EQ_U64(pt(with.p, 0, "a")->addr + pt(with.p, 0, "s")->addr, 4096);
	run_free(&with);
	run_free(&without);
}

TEST(inputs_outputs_implicit)
{
	struct run r;

	run_json(&r, core1(
		"{'name': 'in', 'elems': 1, 'elem_size': 4, 'usage': 'input'},"
		"{'name': 'w', 'elems': 1, 'elem_size': 4, 'usage': 'weight', 'address': 0},"
		"{'name': 'o', 'elems': 1, 'elem_size': 4, 'usage': 'output'}," T("t"),
		"{'name': 'e', 'insts': ["
		"  {'defs': ['t']},"		/* 0 */
		"  {'defs': ['o'], 'uses': ['t']},"	/* 1 */
		"  {'uses': ['in', 'w']},"	/* 2 */
		"  {}]}"), NULL);		/* 3 */
	REQUIRE(r.ok);
	/* inputs/weights are defined at the entry: live from 0 to last use */
	/* outputs are used at every exit: def 1 to the end, 3 */
	CHECK_STR(ivsof(r.m, 0, "in w o t"),
		  "in [0,2]; w [0,2]; o [1,3]; t [0,1]");
	run_free(&r);
}

TEST(diamond_defined_on_both_paths)
{
	struct run r;

	/* e -> l, r -> m; x defined on both arms, used at the merge */
	run_json(&r, core1(T("c") "," T("x"),
		"{'name': 'e', 'succ': ['l', 'r'], 'insts': [{'defs': ['c']}]},"
		"{'name': 'l', 'succ': ['m'], 'insts': [{'defs': ['x'], 'uses': ['c']}]},"
		"{'name': 'r', 'succ': ['m'], 'insts': [{'defs': ['x'], 'uses': ['c']}]},"
		"{'name': 'm', 'insts': [{'uses': ['x']}]}"), NULL);
	REQUIRE(r.ok);
	/* x: l [1,1] (live out), r [2,2], m [3,3] -> merged [1,3] */
	CHECK_STR(ivstr(r.m, 0, "x"), "[1,3]");
	run_free(&r);
}

TEST(no_reaching_def_one_arm)
{
	struct run r;

	run_json(&r, core1(T("c") "," T("x"),
		"{'name': 'e', 'succ': ['l', 'r'], 'insts': [{'defs': ['c']}]},"
		"{'name': 'l', 'succ': ['m'], 'insts': [{'defs': ['x'], 'uses': ['c']}]},"
		"{'name': 'r', 'succ': ['m'], 'insts': [{'uses': ['c']}]},"
		"{'name': 'm', 'insts': [{'name': 'merge', 'uses': ['x']}]}"), NULL);
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "t.json", "'x'", "block 'm'", "'merge'",
		  "no reaching def");
	run_free(&r);
}

TEST(no_reaching_def_loop_carried)
{
	struct run r;

	/* c is read at the top of the loop before any def on the first trip */
	run_json(&r, core1(T("c"),
		"{'name': 'e', 'succ': ['l']},"
		"{'name': 'l', 'succ': ['l', 'x'], 'insts': [{'name': 'rd', 'uses': ['c']}, {'defs': ['c']}]},"
		"{'name': 'x'}"), NULL);
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "'c'", "block 'l'", "no reaching def");
	run_free(&r);
}

TEST(output_never_defined)
{
	struct run r;

	run_json(&r, core1("{'name': 'o', 'elems': 1, 'elem_size': 4, 'usage': 'output'}",
			   "{'name': 'e', 'insts': [{}]}"), NULL);
	CHECK(!r.ok);
	CHECK_HAS(r.e.msg, "'o'", "no reaching def");
	run_free(&r);
}

int main(void)
{
	return tap_run();
}
