// SPDX-License-Identifier: GPL-2.0
/*
 * dp_agree (planner/dp_agree.c) on the host, against a device made of the
 * xms_* calls it makes (fake_dev.c): it keeps each core's submitted
 * plan, gives every core its own window of device memory (links: their
 * owner's address), answers PLAN_GET and PLAN_STATS from what it kept,
 * and has one fault switched on at a time. The real device is
 * tests/vm/test_plan's.
 *
 *  - a faithful device: every seeded model agrees, with and without the
 *    model's name index, whatever core goes first;
 *  - each fault shows as its kind, counted, with the first offender;
 *  - a failed command stops the run with its -errno and says which.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_device.h"
#include "fake_dev.h"
#include "libxmemsim.h"
#include "planner_util.h"
#include "tap.h"

/* ---- the planner's side ------------------------------------------------- */

static const struct model_shape shape = {
	.min_cores = 2, .max_cores = NC,
	.min_owners = 1, .max_owners = 6,
	.min_spills = 3, .max_spills = 32,
	.max_blocks = 4,
	.input_elems = 1024, .owner_elems = 1024, .spill_elems = 1024,
	.elem_sizes = 3,
};

static const struct model_shape *cur_shape = &shape;

struct one {
	struct dp_model *m;
	struct dp_plan *p;
	struct dp_agree a;
	int ret;
};

/* Plans seed's model and runs it through the device with fault f. */
static int one_run(struct one *o, uint64_t seed, enum fault f, int with_model,
		   uint32_t first)
{
	struct dp_err e = { "" };
	struct dp_opts opts;

	memset(o, 0, sizeof(*o));
	o->m = random_model(cur_shape, seed, &e);
	if (!o->m)
		return -1;
	dp_opts_default(&opts);
	opts.dram_mib = WIN >> 20;
	o->p = dp_plan_model(o->m, &opts, NULL, &e);
	if (!o->p || dp_agree_init(&o->a, &fake_dev, o->p, with_model ? o->m : NULL, &e)) {
		printf("# seed %llu: %s\n", (unsigned long long)seed, e.msg);
		return -1;
	}
	dev_reset(f);
	o->ret = dp_agree_run(&o->a, first % o->p->ncores, 1);
	return 0;
}

static void one_free(struct one *o)
{
	dp_agree_free(&o->a);
	dp_plan_free(o->p);
	dp_model_free(o->m);
	dev_reset(F_NONE);
}

static uint32_t linked(const struct dp_plan *p)
{
	uint32_t ci, i, n = 0;

	for (ci = 0; ci < p->ncores; ci++)
		for (i = 0; i < p->core[ci].n; i++)
			n += p->core[ci].t[i].has_remote;
	return n;
}

TEST(a_faithful_device_agrees_with_and_without_the_model)
{
	uint64_t seed;
	struct one o;
	int bad = 0;

	for (seed = 1; seed <= 40; seed++) {
		int wm;

		for (wm = 0; wm < 2; wm++) {
			REQUIRE(one_run(&o, seed, F_NONE, wm, (uint32_t)seed) == 0);
			if (o.ret || o.a.disagree || o.a.mismatch ||
			    o.a.linked != linked(o.p) || o.a.nlink != o.a.linked) {
				printf("# seed %llu model %d: %d, %u disagree, %u mismatch, %u/%zu links\n",
				       (unsigned long long)seed, wm, o.ret, o.a.disagree,
				       o.a.mismatch, o.a.linked, o.a.nlink);
				bad++;
			}
			one_free(&o);
		}
	}
	CHECK(bad == 0);
}

/* The first seed whose plan has what fault f needs. */
static int run_fault(struct one *o, enum fault f)
{
	uint64_t seed;

	for (seed = 1; seed <= 40; seed++) {
		if (one_run(o, seed, f, 1, 0))
			return -1;
		if (o->a.submitted >= 2 && linked(o->p))
			return 0;
		one_free(o);
	}
	return -1;
}

TEST(each_fault_is_its_kind_with_the_first_offender)
{
	static const struct { enum fault f; enum dp_agree_kind k; } cases[] = {
		{ F_ALIAS, DP_AG_ALIAS_PRIVATE }, { F_ADDR, DP_AG_ADDR },
		{ F_OWNER, DP_AG_OWNER_ADDR }, { F_TOTALS, DP_AG_TOTALS },
		{ F_SHORT_GET, DP_AG_MISSING }, { F_FLIP, DP_AG_SHARED_BYTES },
	};
	size_t i;
	struct one o;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct dp_agree_ref *r;
		enum dp_agree_kind k = cases[i].k;

		REQUIRE(run_fault(&o, cases[i].f) == 0);
		r = &o.a.first[k];
		if (o.ret != 1 || !o.a.count[k])
			printf("# fault %d: run %d, %u x %s\n", cases[i].f, o.ret,
			       o.a.count[k], dp_agree_why(k));
		CHECK(o.ret == 1 && o.a.count[k] > 0);
		CHECK(r->core < o.p->ncores || r->core == XMEMSIM_PLAN_ALL_CORES);
		if (k < DP_AG_NTENSOR) {
			/* a tensor kind: marked on its first offender */
			REQUIRE(r->core < o.p->ncores && r->t < o.p->core[r->core].n);
			CHECK(o.a.core[r->core].why[r->t] == k + 1);
		}
		one_free(&o);
	}
	/* the aliasing pairs name a private tensor and another core's */
	REQUIRE(run_fault(&o, F_ALIAS) == 0);
	CHECK(o.a.nalias > 0);
	for (i = 0; i < o.a.nalias; i++) {
		const struct dp_agree_alias *x = &o.a.alias[i];

		CHECK(x->a_core != x->b_core && !o.p->core[x->a_core].t[x->a_t].shared);
		CHECK(x->a_lo < x->b_hi && x->b_lo < x->a_hi);
	}
	one_free(&o);
	/* a flipped byte also clobbers the private patterns */
	REQUIRE(run_fault(&o, F_FLIP) == 0);
	CHECK(!o.a.priv_found || o.a.count[DP_AG_PRIVATE_BYTES] > 0);
	CHECK(o.a.mismatch == o.a.count[DP_AG_SHARED_BYTES] +
			      o.a.count[DP_AG_PRIVATE_BYTES]);
	one_free(&o);
}

TEST(a_failed_command_stops_the_run_and_says_which)
{
	uint64_t seed;
	struct one o;
	int seen = 0;

	/* core 1 refuses its plan: E2BIG, its fault and text, not submitted */
	for (seed = 1; seed <= 40 && !seen; seed++) {
		REQUIRE(one_run(&o, seed, F_SUBMIT, 1, 0) == 0);
		if (o.p->ncores >= 2 && o.a.d.core[1].n) {
			seen = 1;
			CHECK(o.ret == -E2BIG);
			CHECK(o.a.fail.step == DP_AG_STEP_SUBMIT && o.a.fail.core == 1);
			CHECK(o.a.fail.bad[0] == 0 && !strcmp(o.a.fail.msg, "overlap"));
			CHECK(!o.a.core[1].have && !o.a.core[1].got);
		}
		one_free(&o);
	}
	CHECK(seen);
	REQUIRE(one_run(&o, 3, F_SYNC, 1, 0) == 0);
	CHECK(o.ret == -ENOENT && o.a.fail.step == DP_AG_STEP_SYNC);
	CHECK(!strcmp(o.a.fail.msg, "no target"));
	one_free(&o);
}

TEST(the_triple_agrees_and_a_wrong_one_is_its_kind)
{
	const struct dp_agree_ref *r;
	uint64_t seed;
	struct one o;
	int bad = 0, nonzero = 0;
	struct model_shape shape_triples = shape;	/* with owners' triples */

	shape_triples.triples = 6;
	cur_shape = &shape_triples;
	for (seed = 1; seed <= 40; seed++) {
		uint32_t ci, i;

		REQUIRE(one_run(&o, seed, F_NONE, 1, (uint32_t)seed) == 0);
		if (o.ret || o.a.disagree)
			bad++;
		for (ci = 0; ci < o.p->ncores; ci++)
			for (i = 0; i < o.p->core[ci].n; i++)
				nonzero += o.p->core[ci].t[i].has_remote &&
					   o.a.core[ci].got[i].bank != 0 &&
					   o.a.core[ci].got[i].partition != 0;
		one_free(&o);
	}
	CHECK(bad == 0);
	CHECK(nonzero > 0);	/* links came back with a non-zero triple */
	REQUIRE(run_fault(&o, F_TRIPLE) == 0);
	r = &o.a.first[DP_AG_TRIPLE];
	CHECK(o.ret == 1 && o.a.count[DP_AG_TRIPLE] > 0);
	REQUIRE(r->core < o.p->ncores && r->t < o.p->core[r->core].n);
	CHECK(o.p->core[r->core].t[r->t].has_remote);
	CHECK(o.a.core[r->core].why[r->t] == DP_AG_TRIPLE + 1);
	one_free(&o);
	cur_shape = &shape;
}

/* A plan file through dp_plan_load_device: every tensor with the device
 * address PLAN_GET gave, a link at its owner's; a refused sync says which
 * command and leaves nothing. */
TEST(a_plan_file_loads_with_its_device_addresses)
{
	char path[] = "/tmp/test_agree_plan_XXXXXX";
	struct dp_err e = { "" };
	struct dp_loaded l;
	size_t i, links = 0, bad = 0;
	struct one o;
	FILE *f;
	int fd;

	dev_reset(F_NONE);
	REQUIRE(one_run(&o, 5, F_NONE, 1, 0) == 0 && o.ret == 0);
	fd = mkstemp(path);
	REQUIRE(fd >= 0 && (f = fdopen(fd, "w")) != NULL);
	REQUIRE(dp_plan_write_json(o.p, f) == 0);
	fclose(f);
	dev_reset(F_NONE);
	REQUIRE(dp_plan_load_device(&fake_dev, path, &l, &e) == 0);
	CHECK(l.plan && l.n > 0 && l.linked == o.a.linked);
	for (i = 0; i < l.n; i++) {
		const struct dp_loaded_tensor *t = &l.t[i], *w;

		bad += t->dev_addr != window(t->core) + t->addr && !t->linked;
		if (!t->linked)
			continue;
		links++;
		w = dp_loaded_find(&l, t->pt->remote_core, t->pt->remote_name);
		bad += !w || w->dev_addr != t->dev_addr;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(links > 0);
	CHECK(!dp_loaded_find(&l, 0, "no such tensor"));
	dp_loaded_free(&l);
	released = 0;
	dev_reset(F_SYNC);
	CHECK(dp_plan_load_device(&fake_dev, path, &l, &e) == -ENOENT);
	CHECK(strstr(e.msg, "PLAN_SYNC") && strstr(e.msg, "no target"));
	CHECK(released == 1 && !l.t && !l.plan && !dev.n[0]);
	CHECK(dp_plan_load_device(&fake_dev, "/nonexistent.json", &l, &e) == -EINVAL);
	CHECK(strstr(e.msg, "/nonexistent.json") != NULL);
	unlink(path);
	one_free(&o);
	dev_reset(F_NONE);
}

int main(void)
{
	return tap_run();
}
