// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's placement triple (address, partition, bank): optional per
 * tensor fields of the model (default 0), carried into the plan, copied by
 * sync_shared from a shared owner into every linked tensor, written and
 * read back in the plan JSON, checked by verify, shown in the report and
 * put into the device's PLAN_SUBMIT arrays (links with 0: the device's
 * SYNC copies the owner's).  A model without the fields plans, writes and
 * reports exactly as before.
 */
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"
#include "planner_util.h"
#include "tap.h"

/* Three cores; the owner S is on core 1 with partition 5, bank 3; cores 0
 * and 2 link it.  P has a triple of its own (private). */
static const char *three_core =
	"{'cores': ["
	" {'function': 'c0', 'tensors': ["
	"   {'name': 'L0', 'elems': 2048, 'elem_size': 4, 'shared': true, 'remote': {'core': 1, 'name': 'S'}},"
	"   {'name': 'A', 'elems': 1024, 'elem_size': 4}],"
	"  'blocks': [{'name': 'e', 'insts': [{'defs': ['A'], 'uses': ['L0']}, {'uses': ['A']}]}]},"
	" {'function': 'c1', 'tensors': ["
	"   {'name': 'S', 'elems': 2048, 'elem_size': 4, 'shared': true, 'partition': 5, 'bank': 3},"
	"   {'name': 'P', 'elems': 1024, 'elem_size': 4, 'partition': 7}],"
	"  'blocks': [{'name': 'e', 'insts': [{'defs': ['S']}, {'defs': ['P'], 'uses': ['S']}, {'uses': ['P']}]}]},"
	" {'function': 'c2', 'tensors': ["
	"   {'name': 'L2', 'elems': 2048, 'elem_size': 4, 'shared': true, 'remote': {'core': 1, 'name': 'S'}}],"
	"  'blocks': [{'name': 'e', 'insts': [{'uses': ['L2']}]}]}]}";

TEST(every_linked_core_gets_the_owners_triple)
{
	const struct dp_plan_tensor *s, *l0, *l2, *p;
	struct run r;

	run_json(&r, J(three_core), NULL);
	REQUIRE(r.ok);
	s = pt(r.p, 1, "S");
	l0 = pt(r.p, 0, "L0");
	l2 = pt(r.p, 2, "L2");
	p = pt(r.p, 1, "P");
	REQUIRE(s && l0 && l2 && p);
	CHECK(s->partition == 5 && s->bank == 3);
	CHECK(l0->addr == s->addr && l0->partition == 5 && l0->bank == 3);
	CHECK(l2->addr == s->addr && l2->partition == 5 && l2->bank == 3);
	CHECK(p->partition == 7 && p->bank == 0);
	CHECK(pt(r.p, 0, "A")->partition == 0 && pt(r.p, 0, "A")->bank == 0);
	CHECK_HAS(r.log, "Assigned memloc L0 to address 0x0 partition 5 bank 3 based on its remote local target {core 1, S}",
		  "Assigned memloc L2 to address 0x0 partition 5 bank 3 based on");
	CHECK(!dp_verify(r.p, NULL, &r.e));
	run_free(&r);
}

TEST(json_round_trips_keep_the_triple_and_verify_checks_it)
{
	struct dp_model *m2;
	struct dp_plan *q;
	struct dp_err e;
	struct run r;
	char *a, *b, *mj;

	run_json(&r, J(three_core), NULL);
	REQUIRE(r.ok);
	/* the model, written and read back */
	mj = model_json_text(r.m);
	CHECK(contains(mj, "\"partition\": 5, \"bank\": 3"));
	m2 = dp_model_parse_json("m.json", mj, strlen(mj), &e);
	REQUIRE(m2);
	CHECK(mt(m2, 1, "S")->partition == 5 && mt(m2, 1, "S")->bank == 3);
	CHECK(mt(m2, 1, "P")->partition == 7 && mt(m2, 1, "P")->bank == 0);
	CHECK(mt(m2, 0, "L0")->partition == 0);
	dp_model_free(m2);
	free(mj);
	/* the plan */
	a = plan_json_text(r.p);
	CHECK(contains(a, "\"partition\": 5, \"bank\": 3"));
	q = dp_plan_parse_json("p.json", a, strlen(a), &e);
	REQUIRE(q);
	CHECK(pt(q, 2, "L2")->partition == 5 && pt(q, 2, "L2")->bank == 3);
	CHECK(pt(q, 1, "P")->partition == 7);
	CHECK(!dp_verify(q, "p.json", &e));
	b = plan_json_text(q);
	CHECK_STR(a, b);	/* written, read, written: the same bytes */
	free(b);
	/* a link whose bank is not its owner's */
	((struct dp_plan_tensor *)pt(q, 2, "L2"))->bank = 4;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	CHECK(contains(e.msg, "core 2 tensor 'L2' (partition 5, bank 4): differs from its remote target {core 1, 'S'} (partition 5, bank 3)"));
	((struct dp_plan_tensor *)pt(q, 2, "L2"))->bank = 3;
	((struct dp_plan_tensor *)pt(q, 0, "L0"))->partition = 0;
	CHECK(dp_verify(q, "p.json", &e) == -1);
	CHECK(contains(e.msg, "core 0 tensor 'L0' (partition 0, bank 3)"));
	dp_plan_free(q);
	free(a);
	run_free(&r);
}

TEST(without_the_fields_nothing_changes)
{
	static const char *plain =
		"{'cores': ["
		" {'function': 'c0', 'tensors': ["
		"   {'name': 'S', 'elems': 2048, 'elem_size': 4, 'shared': true},"
		"   {'name': 'A', 'elems': 1024, 'elem_size': 4}],"
		"  'blocks': [{'name': 'e', 'insts': [{'defs': ['S']}, {'defs': ['A'], 'uses': ['S']}, {'uses': ['A']}]}]},"
		" {'function': 'c1', 'tensors': ["
		"   {'name': 'L', 'elems': 2048, 'elem_size': 4, 'shared': true, 'remote': {'core': 0, 'name': 'S'}}],"
		"  'blocks': [{'name': 'e', 'insts': [{'uses': ['L']}]}]}]}";
	struct run r;
	char *a, *rep;

	run_json(&r, J(plain), NULL);
	REQUIRE(r.ok);
	CHECK(pt(r.p, 1, "L")->partition == 0 && pt(r.p, 1, "L")->bank == 0);
	a = plan_json_text(r.p);
	CHECK(!contains(a, "partition") && !contains(a, "bank"));
	CHECK(!contains(r.log, "partition"));
	CHECK(contains(r.log, "Assigned memloc L to address 0x0 based on its remote local target {core 0, S}"));
	rep = report_text(r.p, 1);
	CHECK(!contains(rep, "partition"));
	free(rep);
	free(a);
	run_free(&r);
}

TEST(report_shows_the_triple)
{
	struct run r;
	char *rep;

	run_json(&r, J(three_core), NULL);
	REQUIRE(r.ok);
	rep = report_text(r.p, 1);
	CHECK_HAS(rep, " shared partition 5 bank 3\n",
		  " shared (linked) partition 5 bank 3\n",
		  " partition 7 bank 0\n");
	free(rep);
	run_free(&r);
}

TEST(device_arrays_carry_the_owners_triple_links_zero)
{
	struct dp_dev_plan d;
	struct dp_err e;
	struct run r;
	uint32_t i;

	run_json(&r, J(three_core), NULL);
	REQUIRE(r.ok);
	REQUIRE(!dp_dev_plan_build(r.p, &d, &e));
	for (i = 0; i < d.core[1].n; i++) {
		const struct xmemsim_plan_tensor *t = &d.core[1].t[i];

		if (!strcmp(t->name, "S"))
			CHECK(t->partition == 5 && t->bank == 3);
		else
			CHECK(t->partition == 7 && t->bank == 0);
	}
	/* links go with 0: the device refuses anything else (SYNC sets it) */
	CHECK(d.core[0].t[0].flags & XMEMSIM_TENSOR_REMOTE);
	CHECK(d.core[0].t[0].partition == 0 && d.core[0].t[0].bank == 0);
	CHECK(d.core[2].t[0].partition == 0 && d.core[2].t[0].bank == 0);
	dp_dev_plan_free(&d);
	run_free(&r);
}

static void bad(const char *tensor_json, const char *want)
{
	char buf[1024];
	struct run r;

	snprintf(buf, sizeof(buf),
		 "{'cores': [{'function': 'f', 'tensors': [%s, {'name': 'S', 'elems': 1, 'elem_size': 4, 'shared': true}],"
		 " 'blocks': [{'name': 'e', 'insts': []}]},"
		 " {'function': 'g', 'tensors': [{'name': 'Q', 'elems': 1, 'elem_size': 4}],"
		 " 'blocks': [{'name': 'e', 'insts': []}]}]}", tensor_json);
	run_json(&r, J(buf), NULL);
	CHECK(!r.ok);
	if (!contains(r.e.msg, want))
		printf("# got: %s\n# want: %s\n", r.e.msg, want);
	CHECK(contains(r.e.msg, want));
	run_free(&r);
}

TEST(bad_triples_are_errors_naming_the_rule)
{
	bad("{'name': 'x', 'elems': 1, 'elem_size': 4, 'partition': 4294967296}",
	    "t.json: cores[0].tensors[0] 'x'.partition: 4294967296 out of range (0 .. 4294967295)");
	bad("{'name': 'x', 'elems': 1, 'elem_size': 4, 'bank': -1}",
	    "'x'.bank: negative value -1 (partition and bank are >= 0)");
	bad("{'name': 'x', 'elems': 1, 'elem_size': 4, 'bank': 1.5}",
	    "'x'.bank: must be an integer");
	bad("{'name': 'x', 'elems': 1, 'elem_size': 4, 'memory': 'sbuf', 'bank': 2}",
	    "tensor 'x': \"partition\" and \"bank\" are for DRAM tensors");
	/* a link on core 1 of core 0's S with a bank of its own */
	{
		struct run r;

		run_json(&r, J("{'cores': [{'function': 'f', 'tensors': [{'name': 'S', 'elems': 1, 'elem_size': 4, 'shared': true}],"
			       " 'blocks': [{'name': 'e', 'insts': []}]},"
			       " {'function': 'g', 'tensors': [{'name': 'L', 'elems': 1, 'elem_size': 4, 'shared': true, 'bank': 1, 'remote': {'core': 0, 'name': 'S'}}],"
			       " 'blocks': [{'name': 'e', 'insts': []}]}]}"), NULL);
		CHECK(!r.ok);
		CHECK(contains(r.e.msg, "tensor 'L': linked tensors take their partition and bank from the remote target"));
		run_free(&r);
	}
	/* the plan reader: out of range */
	{
		struct dp_err e;
		const char *pj = J("{'format': 'dramplan-plan/1', 'page_size': 4096, 'hwm': 0, 'floor': 0,"
				   " 'cc': {'base': 0, 'limit': 0, 'size': 0}, 'ceiling': 1048576,"
				   " 'cores': [{'tensors': [{'id': 0, 'name': 'a', 'address': 0, 'size': 4096, 'bytes': 4096,"
				   " 'region': 'general', 'collective': false, 'shared': false, 'reads': true, 'writes': true,"
				   " 'partition': 4294967296, 'intervals': [[0, 1]]}]}]}");
		struct dp_plan *q = dp_plan_parse_json("p.json", pj, strlen(pj), &e);

		CHECK(!q);
		CHECK(contains(e.msg, "p.json: cores[0].tensors[0].partition: out of range"));
		dp_plan_free(q);
	}
}

int main(void)
{
	return tap_run();
}
