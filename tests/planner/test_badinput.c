// SPDX-License-Identifier: GPL-2.0
/*
 * The bad-input table: every rule, one message that names the file, the
 * place (line:column, JSON path or tensor) and the rule.  Never a crash
 * (the ASan/UBSan build runs this too), never a plan.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

struct bad {
	const char *name;
	const char *json;	/* ' for " */
	int raw;		/* use json as is (malformed cases) */
	int cc_mib;		/* 0: default; -2: 0 MiB; -3: auto, --dram-size 1 */
	const char *want[4];	/* substrings of the message */
};

#define TS(x) "{'cores': [{'tensors': [" x "], 'blocks': [{'name': 'e', 'insts': [{}]}]}]}"
#define A(n) "{'name': '" n "', 'elems': 1, 'elem_size': 4}"

static const struct bad json_cases[] = {
	{ "malformed_eof", "{\"cores\": [", 1, 0,
	  { "t.json:1:12: malformed JSON", "unexpected end" } },
	{ "malformed_line_col", "{\n  \"cores\": [\n    {,\n", 1, 0,
	  { "t.json:3:6: malformed JSON" } },
	{ "malformed_trailing", "{\"cores\": []}\n  x", 1, 0,
	  { "t.json:2:3: malformed JSON", "trailing" } },
	{ "empty_file", "", 1, 0, { "t.json:1:1: malformed JSON" } },
	{ "top_not_object", "[1, 2]", 0, 0, { "t.json", "top level", "\"cores\"" } },
	{ "no_cores", "{'model': 'x'}", 0, 0, { "t.json", "\"cores\" must be a non-empty array" } },
	{ "unknown_top_key", "{'cores': [], 'cor': 1}", 0, 0, { "unknown key \"cor\"" } },
	{ "bad_format", "{'format': 'v2', 'cores': []}", 0, 0, { "format", "dramplan-model/1" } },
	{ "unknown_key", TS("{'name': 'a', 'elems': 1, 'elem_sz': 4}"), 0, 0,
	  { "t.json", "cores[0].tensors[0]", "unknown key \"elem_sz\"" } },
	{ "missing_name", TS("{'elems': 1, 'elem_size': 4}"), 0, 0,
	  { "cores[0].tensors[0]", "missing \"name\"" } },
	{ "empty_name", TS("{'name': '', 'elems': 1, 'elem_size': 4}"), 0, 0,
	  { "tensor name is empty" } },
	{ "zero_elems", TS("{'name': 'z', 'elems': 0, 'elem_size': 4}"), 0, 0,
	  { "t.json", "'z'", "zero or negative size" } },
	{ "negative_elem_size", TS("{'name': 'n', 'elems': 4, 'elem_size': -4}"), 0, 0,
	  { "'n'", "elem_size -4", "zero or negative size" } },
	{ "zero_elem_size", TS("{'name': 'n', 'elems': 4, 'elem_size': 0}"), 0, 0,
	  { "'n'", "zero or negative size" } },
	{ "mul_overflow", TS("{'name': 'big', 'elems': 4611686018427387904, 'elem_size': 8}"), 0, 0,
	  { "t.json", "'big'", "elems * elem_size overflows" } },
	{ "roundup_overflow", TS("{'name': 'big', 'elems': 9223372036854775807, 'elem_size': 2}"), 0, 0,
	  { "'big'", "overflows" } },
	{ "string_size", TS("{'name': 's', 'elems': '10', 'elem_size': 4}"), 0, 0,
	  { "'s'", "must be an integer" } },
	{ "float_size", TS("{'name': 's', 'elems': 1.5, 'elem_size': 4}"), 0, 0,
	  { "'s'", "must be an integer" } },
	{ "bad_memory", TS("{'name': 'm', 'elems': 1, 'elem_size': 4, 'memory': 'hbm'}"), 0, 0,
	  { "'m'", "unknown value \"hbm\"" } },
	{ "bad_usage", TS("{'name': 'u', 'elems': 1, 'elem_size': 4, 'usage': 'temp'}"), 0, 0,
	  { "'u'", "unknown value \"temp\"" } },
	{ "duplicate_tensor", TS(A("a") "," A("b") "," A("a")), 0, 0,
	  { "t.json", "cores[0].tensors[2]", "duplicate tensor name 'a'" } },
	{ "unaligned_address", TS("{'name': 'x', 'elems': 1, 'elem_size': 4, 'address': 100}"), 0, 0,
	  { "'x'", "0x64", "not 4 KiB aligned" } },
	{ "unknown_tensor_use",
	  "{'cores': [{'tensors': [" A("a") "], 'blocks': [{'name': 'e', 'insts': [{'defs': ['a'], 'uses': ['nope']}]}]}]}", 0, 0,
	  { "t.json", "cores[0].blocks[0] 'e'.insts[0].uses[0]", "unknown tensor 'nope'" } },
	{ "unknown_tensor_def",
	  "{'cores': [{'tensors': [], 'blocks': [{'name': 'e', 'insts': [{'defs': ['ghost']}]}]}]}", 0, 0,
	  { "insts[0].defs[0]", "unknown tensor 'ghost'" } },
	{ "duplicate_block",
	  "{'cores': [{'tensors': [], 'blocks': [{'name': 'e'}, {'name': 'e'}]}]}", 0, 0,
	  { "cores[0].blocks[1]", "duplicate block name 'e'" } },
	{ "unknown_succ",
	  "{'cores': [{'tensors': [], 'blocks': [{'name': 'e', 'succ': ['nowhere']}]}]}", 0, 0,
	  { "succ[0]", "unknown block 'nowhere'" } },
	{ "no_blocks", "{'cores': [{'tensors': [], 'blocks': []}]}", 0, 0,
	  { "cores[0]", "no blocks" } },
	{ "wrong_core_index", "{'cores': [{'core': 3, 'tensors': [], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "cores[0]", "\"core\": 3" } },
	{ "use_no_reaching_def",
	  "{'cores': [{'tensors': [" A("a") "," A("z") "], 'blocks': [{'name': 'e', 'insts': [{'name': 'add', 'defs': ['a'], 'uses': ['z']}]}]}]}", 0, 0,
	  { "t.json", "tensor 'z'", "inst 0 'add'", "no reaching def" } },
	{ "missing_remote_tensor",
	  "{'cores': [{'tensors': [" A("s") "], 'blocks': [{'name': 'e'}]},"
	  "{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'ghost'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "t.json", "core 1 tensor 'l'", "missing remote target {core 0, 'ghost'}" } },
	{ "missing_remote_core",
	  "{'cores': [{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 5, 'name': 'x'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "missing remote target {core 5, 'x'}", "1 core" } },
	{ "remote_same_core",
	  "{'cores': [{'tensors': [{'name': 's', 'elems': 1, 'elem_size': 4, 'shared': true},"
	  "{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "same core" } },
	{ "remote_not_shared",
	  "{'cores': [{'tensors': [" A("s") "], 'blocks': [{'name': 'e'}]},"
	  "{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "{core 0, 's'}", "not shared" } },
	{ "remote_size_mismatch",
	  "{'cores': [{'tensors': [{'name': 's', 'elems': 2, 'elem_size': 4, 'shared': true}], 'blocks': [{'name': 'e'}]},"
	  "{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "8 bytes, this one 4", "same size" } },
	{ "remote_without_shared",
	  "{'cores': [{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'remote': {'core': 0, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "not shared" } },
	{ "linked_with_address",
	  "{'cores': [{'tensors': [{'name': 'l', 'elems': 1, 'elem_size': 4, 'shared': true, 'address': 0, 'remote': {'core': 1, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l'", "remove \"address\"" } },
	{ "two_links_one_owner",
	  "{'cores': [{'tensors': [{'name': 's', 'elems': 1, 'elem_size': 4, 'shared': true}], 'blocks': [{'name': 'e'}]},"
	  "{'tensors': [{'name': 'l1', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 's'}},"
	  "{'name': 'l2', 'elems': 1, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 's'}}], 'blocks': [{'name': 'e'}]}]}", 0, 0,
	  { "'l1'", "'l2'", "links to an owner once" } },
	{ "shared_sbuf",
	  TS("{'name': 'q', 'elems': 1, 'elem_size': 4, 'memory': 'sbuf', 'shared': true}"), 0, 0,
	  { "'q'", "only DRAM tensors can be shared" } },
	{ "preplaced_overlap",
	  "{'cores': [{'tensors': [{'name': 'in1', 'elems': 1, 'elem_size': 4, 'usage': 'input', 'address': 0},"
	  "{'name': 'in2', 'elems': 1, 'elem_size': 4, 'usage': 'input', 'address': 0}],"
	  " 'blocks': [{'name': 'e', 'insts': [{'uses': ['in1', 'in2']}]}]}]}", 0, 0,
	  { "t.json", "'in1'", "'in2'", "interfering tensors must be disjoint" } },
	{ "cc_too_small",
	  "{'cores': [{'tensors': [" A("c") "], 'blocks': [{'name': 'e', 'insts': [{'defs': ['c'], 'collective': true}]}]}]}", 0, -2,
	  { "t.json", "'c'", "does not fit in the CC buffer", "--allreduce-buffer-size" } },
	/* the DRAM ceiling closes the CC region first: --dram-size is to blame */
	{ "cc_above_dram_size",
	  "{'cores': [{'tensors': [{'name': 'c', 'elems': 1048576, 'elem_size': 4}], 'blocks': [{'name': 'e', 'insts': [{'defs': ['c'], 'collective': true}]}]}]}", 0, -3,
	  { "'c'", "does not fit in the CC buffer", "DRAM ceiling 0x100000 closes it, --dram-size 1 MiB" } },
	{ "shared_cc_above_dram_size",
	  "{'cores': [{'tensors': [{'name': 'c', 'elems': 1048576, 'elem_size': 4, 'shared': true}], 'blocks': [{'name': 'e', 'insts': [{'defs': ['c'], 'collective': true}]}]}]}", 0, -3,
	  { "shared tensor 'c'", "does not fit in the CC buffer", "DRAM ceiling 0x100000 closes it, --dram-size 1 MiB" } },
};

TEST(bad_json_table)
{
	size_t i;

	for (i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		const struct bad *b = &json_cases[i];
		struct dp_opts o;
		struct run r;
		int k, failed_here = 0;

		dp_opts_default(&o);
		if (b->cc_mib == -2)
			o.cc_mib = 0;
		if (b->cc_mib == -3) {
			o.cc_mib = -1;
			o.dram_mib = 1;
		}
		if (b->raw) {
			memset(&r, 0, sizeof(r));
			r.m = dp_model_parse_json("t.json", b->json, strlen(b->json), &r.e);
			CHECK(!r.m);
		} else {
			run_json(&r, J(b->json), &o);
			/* the planner's last word is verify: some rules live there */
			if (r.ok && dp_verify(r.p, "t.json", &r.e))
				r.ok = 0;
		}
		if (r.ok) {
			printf("#   case %s: accepted\n", b->name);
			failed_here = 1;
		}
		for (k = 0; k < 4 && b->want[k]; k++)
			if (!contains(r.e.msg, b->want[k])) {
				printf("#   case %s: \"%s\" not in: %s\n", b->name,
				       b->want[k], r.e.msg);
				failed_here = 1;
			}
		CHECK(!failed_here);
		CHECK(!r.ok);
		run_free(&r);
	}
}

struct badcsv {
	const char *name, *csv;
	const char *want[3];
};

static const struct badcsv csv_cases[] = {
	{ "unknown_column", "id,lower,upper,sise\n", { "c.csv:1:16", "unknown column \"sise\"" } },
	{ "missing_column", "id,lower,upper\n", { "c.csv:1", "lacks the \"size\" column" } },
	{ "duplicate_column", "id,lower,upper,size,size\n", { "c.csv:1:21", "duplicate column" } },
	{ "not_integer", "id,lower,upper,size\nb0,0,x3,4\n", { "c.csv:2:6", "upper \"x3\"", "not a non-negative integer" } },
	{ "negative", "id,lower,upper,size\nb0,-1,3,4\n", { "c.csv:2:4", "lower \"-1\"" } },
	{ "overflow", "id,lower,upper,size\nb0,0,3,99999999999999999999\n", { "c.csv:2:8", "overflows" } },
	{ "empty_range", "id,lower,upper,size\nb0,0,3,4\nb1,5,5,4\n", { "c.csv:3", "'b1'", "must not be empty" } },
	{ "zero_size", "id,lower,upper,size\nb0,0,3,0\n", { "c.csv:2", "'b0'", "zero size" } },
	{ "field_count", "id,lower,upper,size\nb0,0,3\n", { "c.csv:2", "3 fields, the header has 4" } },
	{ "duplicate_id", "id,lower,upper,size\nb0,0,3,4\nb0,1,2,4\n", { "c.csv", "duplicate buffer id 'b0'" } },
	{ "bad_alignment", "id,lower,upper,size,alignment\nb0,0,3,4,3\n", { "c.csv:2", "'b0'", "not a power of two" } },
	{ "empty_id", "id,lower,upper,size\n,0,3,4\n", { "c.csv:2:1", "empty id" } },
	{ "empty_csv", "", { "c.csv:1", "empty file" } },
};

TEST(bad_csv_table)
{
	size_t i;

	for (i = 0; i < sizeof(csv_cases) / sizeof(csv_cases[0]); i++) {
		const struct badcsv *b = &csv_cases[i];
		struct dp_err e = { "" };
		struct dp_csv *c = dp_csv_parse("c.csv", b->csv, strlen(b->csv), &e);
		int k, bad = 0;

		if (c) {
			printf("#   case %s: accepted\n", b->name);
			bad = 1;
		}
		for (k = 0; k < 3 && b->want[k]; k++)
			if (!contains(e.msg, b->want[k])) {
				printf("#   case %s: \"%s\" not in: %s\n", b->name,
				       b->want[k], e.msg);
				bad = 1;
			}
		CHECK(!bad);
		dp_csv_free(c);
	}
}

TEST(csv_accepts_good_and_crlf)
{
	struct dp_err e;
	const char *s = "id,lower,upper,size,alignment\r\nb1,0,3,4,1\r\n b2 , 3 , 9 , 4 , 2 \r\n\r\n";
	struct dp_csv *c = dp_csv_parse("c.csv", s, strlen(s), &e);

	REQUIRE(c);
	CHECK_EQ_U64(c->n, 2);
	CHECK_STR(c->b[1].id, "b2");
	CHECK_EQ_U64(c->b[1].upper, 9);
	CHECK_EQ_U64(c->b[1].align, 2);
	dp_csv_free(c);
}

TEST(missing_file_named)
{
	struct dp_err e;

	CHECK(!dp_model_load_json("/nonexistent/m.json", &e));
	CHECK(contains(e.msg, "/nonexistent/m.json") && contains(e.msg, "cannot open"));
	CHECK(!dp_csv_load("/nonexistent/c.csv", &e));
	CHECK(contains(e.msg, "/nonexistent/c.csv"));
	CHECK(!dp_plan_load_json("/nonexistent/p.json", &e));
	CHECK(contains(e.msg, "/nonexistent/p.json"));
}

int main(void)
{
	return tap_run();
}
