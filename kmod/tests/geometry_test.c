// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the device geometry and limit checks that decide whether insmod
 * succeeds.
 */
#include <kunit/test.h>

#include "suite.h"
#include "../xmemsim.h"

static const struct xmemsim_geometry geo_default = {
	.hbm_base = 0x400000000ULL,
	.hbm_size = 64ULL << 20,
	.hbm_pool_off = XMEMSIM_HBM_POOL_OFF,
	.dataram_base = XMEMSIM_STAGING_LO,
	.dataram_size = XMEMSIM_STAGING_HI - XMEMSIM_STAGING_LO,
	.dataram_pool_off = XMEMSIM_DATARAM_POOL_OFF,
	.dataram_pool_size = XMEMSIM_DATARAM_POOL_SIZE,
	.libc_pool_off = XMEMSIM_LIBC_POOL_OFF,
	.libc_pool_size = XMEMSIM_LIBC_POOL_SIZE,
	.staging_lo = XMEMSIM_STAGING_LO,
	.staging_hi = XMEMSIM_STAGING_HI,
	.num_blocks = XMEM_HEAP_DEFAULT_NUM_BLOCKS,
	.cores = 2,
};

struct geo_set {
	size_t off;
	u8 width;		/* 0: unused, 4 or 8 bytes */
	u64 val;
};

struct geo_case {
	const char *name;
	struct geo_set set[2];
	int expect;
};

#define SET64(field, v) { offsetof(struct xmemsim_geometry, field), 8, (v) }
#define SET32(field, v) { offsetof(struct xmemsim_geometry, field), 4, (v) }

static const struct geo_case geo_cases[] = {
	{ "defaults", {}, 0 },
	{ "hbm empty", { SET64(hbm_size, 0) }, -EINVAL },
	{ "hbm wraps", { SET64(hbm_base, U64_MAX - 4095) }, -EINVAL },
	{ "hbm ends at 2^64", { SET64(hbm_base, U64_MAX - (64ULL << 20) + 1) }, -EINVAL },
	{ "hbm only the pool offset", { SET64(hbm_size, XMEMSIM_HBM_POOL_OFF) }, -EINVAL },
	{ "hbm overlaps dataram", { SET64(hbm_base, 0x88000) }, -EINVAL },
	{ "hbm at 2^63", { SET64(hbm_base, 1ULL << 63) }, -EINVAL },
	{ "hbm ends at 2^63", { SET64(hbm_base, (1ULL << 63) - (64ULL << 20)) }, 0 },
	{ "hbm starts where dataram ends", { SET64(hbm_base, XMEMSIM_STAGING_HI) }, 0 },
	{ "hbm ends where dataram starts",
	  { SET64(hbm_base, 0), SET64(hbm_size, XMEMSIM_STAGING_LO) }, 0 },
	{ "hbm ends one byte into dataram",
	  { SET64(hbm_base, 0), SET64(hbm_size, XMEMSIM_STAGING_LO + 1) }, -EINVAL },
	{ "dataram smaller than its pool", { SET64(dataram_size, 0x4000) }, -EINVAL },
	{ "libc pool empty", { SET64(libc_pool_size, 0) }, -EINVAL },
	{ "libc pool past the window", { SET64(libc_pool_off, 0xe000) }, -EINVAL },
	{ "libc pool at the window's end", { SET64(libc_pool_off, 0xc000) }, 0 },
	{ "libc pool overlaps the dataram pool", { SET64(libc_pool_off, 0x4000) }, -EINVAL },
	{ "libc pool right after the dataram pool",
	  { SET64(libc_pool_off, XMEMSIM_DATARAM_POOL_OFF + XMEMSIM_DATARAM_POOL_SIZE) }, 0 },
	{ "libc pool offset wraps", { SET64(libc_pool_off, U64_MAX - 0x1000) }, -EINVAL },
	{ "staging outside dataram", { SET64(dataram_base, 0x90000) }, -EINVAL },
	{ "no descriptors", { SET32(num_blocks, 0) }, -EINVAL },
	{ "2^20 descriptors", { SET32(num_blocks, XMEM_HEAP_MAX_NUM_BLOCKS) }, 0 },
	{ "2^20+1 descriptors", { SET32(num_blocks, XMEM_HEAP_MAX_NUM_BLOCKS + 1) }, -EINVAL },
	{ "heap mode list", { SET32(heap_mode, XMEM_HEAP_LIST) }, 0 },
	{ "heap mode 2", { SET32(heap_mode, 2) }, -EINVAL },
	{ "no cores", { SET32(cores, 0) }, -EINVAL },
	{ "65 cores", { SET32(cores, 65) }, -EINVAL },
};

static void geo_apply(struct xmemsim_geometry *g, const struct geo_set *s)
{
	void *p = (u8 *)g + s->off;

	if (s->width == 8)
		*(u64 *)p = s->val;
	else if (s->width == 4)
		*(u32 *)p = s->val;
}

static void geo_case_desc(const struct geo_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(geo, geo_cases, geo_case_desc);

static void geometry_check_test(struct kunit *test)
{
	const struct geo_case *c = test->param_value;
	struct xmemsim_geometry g = geo_default;
	const char *why = NULL;
	int ret;

	geo_apply(&g, &c->set[0]);
	geo_apply(&g, &c->set[1]);
	ret = xmemsim_geometry_check(&g, &why);
	KUNIT_EXPECT_EQ(test, ret, c->expect);
	if (c->expect)
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

/* plan budgets in MiB: file, user, device; and whether insmod takes them */
struct lim_case {
	const char *name;
	u64 file_mb, user_mb, dev_mb;
	int expect;
};

static const struct lim_case lim_cases[] = {
	{ "defaults: the user's half of the device's", 64, 0, 128, 0 },
	{ "user one below the device", 64, 127, 128, 0 },
	{ "user fills the device", 64, 128, 128, -EINVAL },
	{ "user above the device", 0, 256, 128, -EINVAL },
	{ "device of 1 MiB, user's half of it", 0, 0, 1, 0 },
	{ "no device cap, no user limit", 0, 0, 0, 0 },
	{ "no device cap, a user limit", 0, 4096, 0, 0 },
};

static void lim_case_desc(const struct lim_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(lim, lim_cases, lim_case_desc);

static void limits_check_test(struct kunit *test)
{
	const struct lim_case *c = test->param_value;
	struct xmemsim_limits l = {
		.plan_file_bytes = c->file_mb << 20,
		.plan_user_bytes = c->user_mb << 20,
		.plan_dev_bytes = c->dev_mb << 20,
	};
	const char *why = NULL;
	int ret = xmemsim_limits_check(&l, &why);

	KUNIT_EXPECT_EQ(test, ret, c->expect);
	if (c->expect)
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

XMEMSIM_SUITE(geometry, "xmemsim_geometry", NULL, NULL,
	      KUNIT_CASE_PARAM(geometry_check_test, geo_gen_params),
	      KUNIT_CASE_PARAM(limits_check_test, lim_gen_params));
