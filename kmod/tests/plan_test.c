// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DRAM plan validation, the overlap sweep against a brute-force
 * check, sync_shared equalization and its failures, and byte accounting.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "suite.h"
#include "../plan_internal.h"

#define CORE_SIZE	(64ULL << 20)
#define MAXIV		8

/* A tensor as a test writes it: name, addr, size, intervals. */
struct tdef {
	const char *name;
	u64 addr;
	u64 size;
	u32 flags;
	u32 remote_core;
	const char *remote;
	u32 n;
	struct xmemsim_interval iv[MAXIV];
};

static struct xmemsim_core_plan *mk(struct kunit *test, u32 core,
				    const struct tdef *d, u32 count)
{
	struct xmemsim_core_plan *p;
	u32 i, nr = 0;

	for (i = 0; i < count; i++)
		nr += d[i].n;
	p = xmemsim_plan_alloc(count, nr);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->core = core;
	nr = 0;
	for (i = 0; i < count; i++) {
		struct xmemsim_ptensor *t = &p->t[i];

		strscpy(t->name, d[i].name, sizeof(t->name));
		if (d[i].remote)
			strscpy(t->remote_name, d[i].remote, sizeof(t->remote_name));
		t->addr = d[i].addr;
		t->size = d[i].size;
		t->flags = d[i].flags;
		t->remote_core = d[i].remote_core;
		t->first_iv = nr;
		t->nr_iv = d[i].n;
		memcpy(p->iv + nr, d[i].iv, d[i].n * sizeof(*p->iv));
		nr += d[i].n;
	}
	return p;
}

#define IV(a, b) { (a), (b) }
#define SH XMEMSIM_TENSOR_SHARED
#define RM (XMEMSIM_TENSOR_SHARED | XMEMSIM_TENSOR_REMOTE)

static int check(struct kunit *test, const struct tdef *d, u32 count,
		 struct xmemsim_plan_err *err)
{
	struct xmemsim_core_plan *p = mk(test, 0, d, count);
	int ret;

	memset(err, 0, sizeof(*err));
	err->bad[0] = U32_MAX;
	err->bad[1] = U32_MAX;
	ret = xmemsim_plan_check(p, CORE_SIZE, 2, err);
	xmemsim_plan_free(p);
	return ret;
}

static void plan_valid_and_lifetime_sharing(struct kunit *test)
{
	/* a and c never live together: they may share bytes */
	const struct tdef d[] = {
		{ "a", 0x0000, 0x2000, 0, 0, NULL, 1, { IV(0, 3) } },
		{ "b", 0x2000, 0x1000, 0, 0, NULL, 1, { IV(2, 6) } },
		{ "c", 0x0000, 0x1000, 0, 0, NULL, 1, { IV(4, 9) } },
		{ "dead", 0x2000, 0x1000, 0, 0, NULL, 0, {} },
	};
	struct xmemsim_plan_err err;

	KUNIT_EXPECT_EQ(test, check(test, d, ARRAY_SIZE(d), &err), 0);
}

static void plan_overlap_rejected_naming_both(struct kunit *test)
{
	const struct tdef d[] = {
		{ "weights", 0x0000, 0x4000, 0, 0, NULL, 1, { IV(0, 10) } },
		{ "act0", 0x8000, 0x1000, 0, 0, NULL, 1, { IV(0, 2) } },
		{ "act1", 0x3000, 0x2000, 0, 0, NULL, 1, { IV(10, 12) } },
	};
	struct xmemsim_plan_err err;

	KUNIT_EXPECT_EQ(test, check(test, d, ARRAY_SIZE(d), &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.bad[0], 0U);
	KUNIT_EXPECT_EQ(test, err.bad[1], 2U);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'weights'"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'act1'"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "[10, 10]"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "[0x3000, 0x4000)"));
}

static void plan_closed_intervals_touching_in_time(struct kunit *test)
{
	/* [0,3] and [3,5] share instant 3; [0,3] and [4,5] do not */
	const struct tdef bad[] = {
		{ "x", 0, 0x1000, 0, 0, NULL, 1, { IV(0, 3) } },
		{ "y", 0, 0x1000, 0, 0, NULL, 1, { IV(3, 5) } },
	};
	const struct tdef good[] = {
		{ "x", 0, 0x1000, 0, 0, NULL, 1, { IV(0, 3) } },
		{ "y", 0, 0x1000, 0, 0, NULL, 1, { IV(4, 5) } },
		{ "z", 0x1000, 0x1000, 0, 0, NULL, 1, { IV(0, 5) } },
	};
	struct xmemsim_plan_err err;

	KUNIT_EXPECT_EQ(test, check(test, bad, 2, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, check(test, good, 3, &err), 0);
}

static void plan_own_intervals_overlap_is_fine(struct kunit *test)
{
	const struct tdef d[] = {
		{ "loop", 0, 0x1000, 0, 0, NULL, 3, { IV(0, 5), IV(3, 8), IV(8, 8) } },
		{ "other", 0x1000, 0x1000, 0, 0, NULL, 2, { IV(0, 1), IV(7, 9) } },
	};
	struct xmemsim_plan_err err;

	KUNIT_EXPECT_EQ(test, check(test, d, 2, &err), 0);
}

struct field_case {
	const char *what;
	struct tdef t;
	const char *msg;
};

static const struct field_case field_cases[] = {
	{ "empty name", { "", 0, 0x1000, 0, 0, NULL, 0, {} }, "name empty" },
	{ "size 0", { "t", 0, 0, 0, 0, NULL, 0, {} }, "not a positive multiple" },
	{ "size not 4 KiB", { "t", 0, 0x1001, 0, 0, NULL, 0, {} }, "not a positive multiple" },
	{ "address unaligned", { "t", 0x800, 0x1000, 0, 0, NULL, 0, {} }, "not 4 KiB aligned" },
	{ "beyond the window", { "t", CORE_SIZE - 0x1000, 0x2000, 0, 0, NULL, 0, {} },
	  "outside the core" },
	{ "address + size wraps", { "t", 0xfffffffffffff000ULL, 0x2000, 0, 0, NULL, 0, {} },
	  "outside the core" },
	{ "unknown flag", { "t", 0, 0x1000, 0x4, 0, NULL, 0, {} }, "unknown flags" },
	{ "linked but not shared", { "t", 0, 0x1000, XMEMSIM_TENSOR_REMOTE, 1, "u", 0, {} },
	  "linked but not shared" },
	{ "linked with an address", { "t", 0x1000, 0x1000, RM, 1, "u", 0, {} },
	  "get their address, partition and bank from sync" },
	{ "linked to itself", { "t", 0, 0x1000, RM, 0, "u", 0, {} }, "is not another core" },
	{ "linked to core 2 of 2", { "t", 0, 0x1000, RM, 2, "u", 0, {} }, "is not another core" },
	{ "linked without a name", { "t", 0, 0x1000, RM, 1, "", 0, {} }, "remote name empty" },
	{ "target but not linked", { "t", 0, 0x1000, SH, 1, "u", 0, {} },
	  "remote target set but not linked" },
	{ "interval lo > hi", { "t", 0, 0x1000, 0, 0, NULL, 1, { IV(5, 4) } }, "lo > hi" },
};

static void field_desc(const struct field_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(field, field_cases, field_desc);

static void plan_field_rejected(struct kunit *test)
{
	const struct field_case *c = test->param_value;
	struct xmemsim_plan_err err;
	struct tdef d[2] = {
		{ "first", 0x10000, 0x1000, 0, 0, NULL, 1, { IV(0, 1) } },
		c->t,
	};

	KUNIT_EXPECT_EQ(test, check(test, d, 2, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.bad[0], 1U);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(err.msg, c->msg), "%s", err.msg);
}

static void plan_duplicate_and_unterminated_names(struct kunit *test)
{
	const struct tdef d[] = {
		{ "a", 0, 0x1000, 0, 0, NULL, 0, {} },
		{ "b", 0x1000, 0x1000, 0, 0, NULL, 0, {} },
		{ "a", 0x2000, 0x1000, 0, 0, NULL, 0, {} },
	};
	struct xmemsim_core_plan *p;
	struct xmemsim_plan_err err;

	KUNIT_EXPECT_EQ(test, check(test, d, 3, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.bad[0], 0U);
	KUNIT_EXPECT_EQ(test, err.bad[1], 2U);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'a' is named twice"));

	p = mk(test, 0, d, 1);
	memset(p->t[0].name, 'n', sizeof(p->t[0].name));	/* no NUL */
	KUNIT_EXPECT_EQ(test, xmemsim_plan_check(p, CORE_SIZE, 2, &err), -EINVAL);
	xmemsim_plan_free(p);
}

/* Two cores: core 0 owns "grad" (shared), core 1 links "peer" to it. */
static struct xmemsim_plan_set *two_cores(struct kunit *test, const struct tdef *c0,
					  u32 n0, const struct tdef *c1, u32 n1)
{
	struct xmemsim_plan_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct xmemsim_plan_err err;

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->ncores = 2;
	set->cores[0] = mk(test, 0, c0, n0);
	set->cores[1] = mk(test, 1, c1, n1);
	KUNIT_ASSERT_EQ(test, xmemsim_plan_check(set->cores[0], CORE_SIZE, 2, &err), 0);
	KUNIT_ASSERT_EQ(test, xmemsim_plan_check(set->cores[1], CORE_SIZE, 2, &err), 0);
	return set;
}

static const struct tdef core0[] = {
	{ "in", 0x0000, 0x4000, 0, 0, NULL, 1, { IV(0, 4) } },
	{ "grad", 0x8000, 0x2000, SH, 0, NULL, 1, { IV(2, 6) } },
	{ "flags", 0xa000, 0x1000, SH, 0, NULL, 1, { IV(0, 9) } },
	{ "out", 0x0000, 0x2000, 0, 0, NULL, 1, { IV(7, 9) } },
};

static void plan_sync_equalizes(struct kunit *test)
{
	const struct tdef core1[] = {
		{ "x", 0x0000, 0x8000, 0, 0, NULL, 1, { IV(0, 8) } },
		{ "peer", 0, 0x2000, RM, 0, "grad", 1, { IV(3, 5) } },
		{ "f", 0, 0x1000, RM, 0, "flags", 1, { IV(0, 9) } },
	};
	struct xmemsim_plan_set *set = two_cores(test, core0, 4, core1, 3);
	struct xmemsim_plan_stats s0 = {}, s1 = {}, all = {};
	struct xmemsim_plan_err err = {};
	u32 linked = 0;

	set->cores[0]->t[1].partition = 3;	/* the whole triple is copied */
	set->cores[0]->t[1].bank = 7;
	KUNIT_EXPECT_EQ(test, xmemsim_plan_sync(set, &linked, &err), 0);
	KUNIT_EXPECT_EQ(test, linked, 2U);
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[1].addr, 0x8000ULL);
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[1].partition, 3U);
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[1].bank, 7U);
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[2].addr, 0xa000ULL);
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[2].bank, 0U);

	/* counting once: the linked bytes are the owner's */
	xmemsim_plan_stats(set->cores[0], &s0);
	xmemsim_plan_stats(set->cores[1], &s1);
	xmemsim_plan_stats(set->cores[0], &all);
	xmemsim_plan_stats(set->cores[1], &all);
	KUNIT_EXPECT_EQ(test, s0.shared_bytes, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, s0.private_bytes, 0x6000ULL);
	KUNIT_EXPECT_EQ(test, s1.linked_bytes, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, s1.total_bytes, 0x8000ULL);
	KUNIT_EXPECT_EQ(test, all.total_bytes, 0x6000ULL + 0x3000 + 0x8000);
	KUNIT_EXPECT_EQ(test, all.tensors, 7U);
	KUNIT_EXPECT_EQ(test, s1.footprint, 0xb000ULL);

	/* the layout: one shared span, then each core's private span */
	set->synced = true;
	set->base = 0x400000000ULL;
	xmemsim_plan_layout(set);
	KUNIT_EXPECT_EQ(test, set->size, 0x3000ULL + 0x4000 + 0x8000);
	KUNIT_EXPECT_EQ(test, xmemsim_plan_dev_addr(set, 0, &set->cores[0]->t[1]),
			xmemsim_plan_dev_addr(set, 1, &set->cores[1]->t[1]));
	KUNIT_EXPECT_EQ(test, xmemsim_plan_dev_addr(set, 0, &set->cores[0]->t[1]),
			0x400000000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_plan_dev_addr(set, 0, &set->cores[0]->t[0]),
			0x400003000ULL);
	KUNIT_EXPECT_EQ(test, xmemsim_plan_dev_addr(set, 1, &set->cores[1]->t[0]),
			0x400007000ULL);
	xmemsim_plan_set_clear(set);
}

static void plan_sync_failures_leave_nothing(struct kunit *test)
{
	static const struct {
		const char *what, *remote, *msg;
		u64 size;
		int ret;
	} cases[] = {
		{ "missing", "nope", "does not exist", 0x2000, -ENOENT },
		{ "size", "grad", "has 8192", 0x1000, -EINVAL },
		{ "not shared", "in", "not shared", 0x4000, -EINVAL },
	};
	u32 k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		const struct tdef core1[] = {
			{ "ok", 0, 0x1000, RM, 0, "flags", 1, { IV(0, 9) } },
			{ "bad", 0, cases[k].size, RM, 0, cases[k].remote, 1, { IV(0, 1) } },
		};
		struct xmemsim_plan_set *set = two_cores(test, core0, 4, core1, 2);
		struct xmemsim_plan_err err = {};
		u32 linked = 77;

		KUNIT_EXPECT_EQ_MSG(test, xmemsim_plan_sync(set, &linked, &err),
				    cases[k].ret, "%s", cases[k].what);
		KUNIT_EXPECT_EQ(test, linked, 77U);
		KUNIT_EXPECT_EQ(test, err.core, 1U);
		KUNIT_EXPECT_EQ(test, err.bad[0], 1U);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(err.msg, cases[k].msg), "%s", err.msg);
		KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'bad'"));
		KUNIT_EXPECT_EQ(test, set->cores[1]->t[0].addr, 0ULL);
		xmemsim_plan_set_clear(set);
	}
}

static void plan_sync_rejects_a_link_that_collides(struct kunit *test)
{
	/* core 1 keeps "x" at 0x8000 live at 4; "peer" would land there */
	const struct tdef core1[] = {
		{ "x", 0x8000, 0x1000, 0, 0, NULL, 1, { IV(4, 4) } },
		{ "peer", 0, 0x2000, RM, 0, "grad", 1, { IV(3, 5) } },
	};
	struct xmemsim_plan_set *set = two_cores(test, core0, 4, core1, 2);
	struct xmemsim_plan_err err = {};
	u32 linked = 0;

	KUNIT_EXPECT_EQ(test, xmemsim_plan_sync(set, &linked, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.core, 1U);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'x'"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg, "'peer'"));
	KUNIT_EXPECT_EQ(test, set->cores[1]->t[1].addr, 0ULL);
	xmemsim_plan_set_clear(set);
}

static void plan_sync_without_plans(struct kunit *test)
{
	/* on the heap: a set is too big for a test's stack frame */
	struct xmemsim_plan_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct xmemsim_plan_err err = {};
	u32 linked;

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->ncores = 2;
	KUNIT_EXPECT_EQ(test, xmemsim_plan_sync(set, &linked, &err), -ENODATA);
}

/* The sweep agrees with a pairwise check on random plans. */
static bool brute_conflict(const struct xmemsim_core_plan *p)
{
	u32 i, j, a, b;

	for (i = 0; i < p->count; i++)
		for (j = i + 1; j < p->count; j++) {
			const struct xmemsim_ptensor *x = &p->t[i], *y = &p->t[j];

			if (x->addr >= y->addr + y->size || y->addr >= x->addr + x->size)
				continue;
			for (a = 0; a < x->nr_iv; a++)
				for (b = 0; b < y->nr_iv; b++) {
					const struct xmemsim_interval *u = &p->iv[x->first_iv + a];
					const struct xmemsim_interval *v = &p->iv[y->first_iv + b];

					if (u->lo <= v->hi && v->lo <= u->hi)
						return true;
				}
		}
	return false;
}

static void plan_sweep_matches_pairwise(struct kunit *test)
{
	struct rnd_state rs;
	u32 round, agree_bad = 0, agree_good = 0;

	prandom_seed_state(&rs, 20261130);
	for (round = 0; round < 400; round++) {
		u32 n = 2 + prandom_u32_state(&rs) % 40, i, j, nr = 0;
		struct xmemsim_core_plan *p;
		struct xmemsim_plan_err err;
		bool want;
		int ret;

		p = xmemsim_plan_alloc(n, n * 3);
		KUNIT_ASSERT_NOT_NULL(test, p);
		for (i = 0; i < n; i++) {
			struct xmemsim_ptensor *t = &p->t[i];
			u32 k = 1 + prandom_u32_state(&rs) % 3;

			snprintf(t->name, sizeof(t->name), "t%u", i);
			t->addr = (u64)(prandom_u32_state(&rs) % 64) << 12;
			t->size = (u64)(1 + prandom_u32_state(&rs) % 8) << 12;
			t->first_iv = nr;
			t->nr_iv = k;
			for (j = 0; j < k; j++, nr++) {
				p->iv[nr].lo = prandom_u32_state(&rs) % (8 * n);
				p->iv[nr].hi = p->iv[nr].lo + prandom_u32_state(&rs) % 6;
			}
		}
		want = brute_conflict(p);
		ret = xmemsim_plan_check(p, CORE_SIZE, 1, &err);
		KUNIT_EXPECT_EQ(test, ret, want ? -EINVAL : 0);
		if (ret) {
			/* the pair it names really conflicts */
			KUNIT_EXPECT_NE(test, err.bad[0], err.bad[1]);
			agree_bad++;
		} else {
			agree_good++;
		}
		xmemsim_plan_free(p);
	}
	/* both outcomes were exercised */
	KUNIT_EXPECT_GT(test, agree_bad, 20U);
	KUNIT_EXPECT_GT(test, agree_good, 20U);
}

XMEMSIM_SUITE(plan, "xmemsim_plan", NULL, NULL,
	      KUNIT_CASE(plan_valid_and_lifetime_sharing),
	      KUNIT_CASE(plan_overlap_rejected_naming_both),
	      KUNIT_CASE(plan_closed_intervals_touching_in_time),
	      KUNIT_CASE(plan_own_intervals_overlap_is_fine),
	      KUNIT_CASE_PARAM(plan_field_rejected, field_gen_params),
	      KUNIT_CASE(plan_duplicate_and_unterminated_names),
	      KUNIT_CASE(plan_sync_equalizes),
	      KUNIT_CASE(plan_sync_failures_leave_nothing),
	      KUNIT_CASE(plan_sync_rejects_a_link_that_collides),
	      KUNIT_CASE(plan_sync_without_plans),
	      KUNIT_CASE(plan_sweep_matches_pairwise));
