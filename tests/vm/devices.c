// SPDX-License-Identifier: GPL-2.0
/*
 * devices: several devices of one module (the devices parameter). Each
 * has its node, sysfs and debugfs directories; heaps, bytes, DMA
 * engines, users and their limits, and fault counts of one device are
 * not seen on another. tests/vm/run.sh loads the module with devices=4
 * and with devices=16 and runs this on each load.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

#define HBM XMEMSIM_HEAP_HBM
#define NONE XMEMSIM_SEM_NONE
#define MAXD 32

static unsigned int ndev;

/* Device i's name: xmemsim, xmemsim1, ... */
static void dev_name(unsigned int i, char *buf, size_t len)
{
	if (i)
		snprintf(buf, len, "xmemsim%u", i);
	else
		snprintf(buf, len, "xmemsim");
}

static int open_dev(unsigned int i, struct xms_dev *xd)
{
	char name[32], path[64];

	dev_name(i, name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/%s", name);
	return xms_open(xd, path);
}

/* /sys/class/misc/<device i>/<file> as a number */
static long long sys_ll(unsigned int i, const char *file)
{
	char name[32], path[128];

	dev_name(i, name, sizeof(name));
	snprintf(path, sizeof(path), "/sys/class/misc/%s/%s", name, file);
	return test_read_ll(path);
}

/* Sum of a "word N" field over the lines of a sysfs or debugfs file. */
static long long field_sum(const char *path, const char *word)
{
	char line[512], *p;
	long long sum = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, word);
		if (p)
			sum += strtoll(p + strlen(word), NULL, 10);
	}
	fclose(f);
	return sum;
}

static long long engines_completed(unsigned int i)
{
	char name[32], path[128];

	dev_name(i, name, sizeof(name));
	snprintf(path, sizeof(path), "/sys/class/misc/%s/dma", name);
	return field_sum(path, " completed ");
}

static long long faults_injected(unsigned int i, const char *site)
{
	char name[32], path[128], word[64];

	dev_name(i, name, sizeof(name));
	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/faults", name);
	snprintf(word, sizeof(word), "%s ", site);
	return field_sum(path, word);
}

TEST(every_device_has_its_node_sysfs_and_debugfs)
{
	char name[32], path[128];
	struct stat st;
	unsigned int i;

	REQUIRE(ndev >= 2);
	for (i = 0; i < ndev; i++) {
		dev_name(i, name, sizeof(name));
		snprintf(path, sizeof(path), "/dev/%s", name);
		CHECK(!stat(path, &st) && S_ISCHR(st.st_mode));
		snprintf(path, sizeof(path), "/sys/class/misc/%s/geometry", name);
		CHECK(!access(path, R_OK));
		CHECK(sys_ll(i, "hbm_used") >= 0);
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verify", name);
		CHECK(!access(path, R_OK));
	}
	snprintf(path, sizeof(path), "/dev/xmemsim%u", ndev);
	CHECK(stat(path, &st) && errno == ENOENT);
	printf("# %u devices\n", ndev);
}

/* The same first-fit answers on every device: the heaps are apart. */
TEST(heaps_are_independent)
{
	struct xms_dev xd[MAXD];
	uint64_t a[MAXD], b;
	unsigned int i;

	for (i = 0; i < ndev; i++)
		REQUIRE(open_dev(i, &xd[i]) == 0);
	for (i = 0; i < ndev; i++) {
		CHECK(sys_ll(i, "hbm_used") == 0);
		CHECK(xms_alloc(&xd[i], HBM, 8192, 4096, 0, &a[i], NULL) == 0);
		CHECK_EQ_U64(a[i], a[0]);
		/* only this device's heap moved */
		CHECK(sys_ll(i, "hbm_used") > 0);
		if (i + 1 < ndev)
			CHECK(sys_ll(i + 1, "hbm_used") == 0);
	}
	CHECK(xms_free(&xd[0], HBM, a[0], NULL) == 0);
	CHECK(sys_ll(0, "hbm_used") == 0 && sys_ll(1, "hbm_used") > 0);
	CHECK(xms_alloc(&xd[0], HBM, 8192, 4096, 0, &b, NULL) == 0);
	CHECK_EQ_U64(b, a[0]);
	for (i = 0; i < ndev; i++)
		xms_close(&xd[i]);
	for (i = 0; i < ndev; i++)
		CHECK(sys_ll(i, "hbm_used") == 0);
}

/*
 * Bytes written, and moved by DMA, on device 1 are device 1's: device 2
 * hands out the same address with zeros, its engines ran nothing, and a
 * file of device 2 cannot read device 1's allocation at all.
 */
TEST(bytes_and_dma_stay_on_their_device)
{
	struct xmemsim_dma_desc d = {
		.len = 4096, .wait_sem = NONE, .signal_sem = NONE,
	};
	struct xms_dev one, two;
	uint8_t pat[4096], got[4096], zero[4096] = { 0 };
	uint64_t a1, b1, a2, b2, t;
	long long c2;

	REQUIRE(ndev >= 3);
	memset(pat, 0xa5, sizeof(pat));
	REQUIRE(open_dev(1, &one) == 0);
	REQUIRE(open_dev(2, &two) == 0);
	REQUIRE(xms_alloc(&one, HBM, 4096, 4096, 0, &a1, NULL) == 0);
	REQUIRE(xms_alloc(&one, HBM, 4096, 4096, 0, &b1, NULL) == 0);
	CHECK(xms_write(&one, a1, pat, sizeof(pat)) == 0);
	CHECK(xms_read(&two, a1, got, sizeof(got)) < 0);
	c2 = engines_completed(2);
	d.src = a1;
	d.dst = b1;
	CHECK(xms_dma_submit(&one, &d, 1, &t) == 0);
	CHECK(xms_dma_wait(&one, t, -1, NULL) == 0);
	CHECK(xms_read(&one, b1, got, sizeof(got)) == 0 && !memcmp(got, pat, sizeof(pat)));
	CHECK(engines_completed(2) == c2);
	CHECK(engines_completed(1) > 0);
	REQUIRE(xms_alloc(&two, HBM, 4096, 4096, 0, &a2, NULL) == 0);
	REQUIRE(xms_alloc(&two, HBM, 4096, 4096, 0, &b2, NULL) == 0);
	CHECK_EQ_U64(a2, a1);
	CHECK_EQ_U64(b2, b1);
	CHECK(xms_read(&two, a2, got, sizeof(got)) == 0 && !memcmp(got, zero, sizeof(zero)));
	CHECK(xms_read(&two, b2, got, sizeof(got)) == 0 && !memcmp(got, zero, sizeof(zero)));
	xms_close(&two);
	xms_close(&one);
}

/* A user's account is per device: what it holds on one is 0 on another. */
TEST(users_and_limits_are_per_device)
{
	struct xmemsim_user_stats u0, u1;
	unsigned long long lim = test_param("user_hbm_bytes");
	struct xms_dev x0, x1, y0;
	uint64_t a, b;

	REQUIRE(open_dev(0, &x0) == 0);
	REQUIRE(open_dev(1, &x1) == 0);
	REQUIRE(xms_alloc(&x1, HBM, 4096, 4096, 0, &a, NULL) == 0);
	CHECK(xms_user_stats(&x0, &u0) == 0 && xms_user_stats(&x1, &u1) == 0);
	CHECK_EQ_U64(u0.owned_bytes[HBM], 0);
	CHECK(u1.owned_bytes[HBM] >= 4096);
	CHECK_EQ_U64(u0.files, 1);
	CHECK_EQ_U64(u1.files, 1);
	CHECK(xms_free(&x1, HBM, a, NULL) == 0);
	if (lim) {
		/*
		 * Three quarters of the limit on each of two devices: over
		 * it for the host, within it for each device. A second file
		 * on device 0 still meets the limit there.
		 */
		REQUIRE(open_dev(0, &y0) == 0);
		CHECK(xms_alloc(&x0, HBM, lim / 4 * 3, 64, 0, &a, NULL) == 0);
		CHECK(xms_alloc(&x1, HBM, lim / 4 * 3, 64, 0, &b, NULL) == 0);
		CHECK(xms_alloc(&y0, HBM, lim / 2, 64, 0, &b, NULL) == -EDQUOT);
		CHECK(xms_user_stats(&x0, &u0) == 0 && u0.quota_refused == 1);
		CHECK(xms_user_stats(&x1, &u1) == 0 && u1.quota_refused == 0);
		CHECK_EQ_U64(u0.limit_bytes[HBM], lim);
		xms_close(&y0);
		printf("# user_hbm_bytes %llu: 3/4 of it held on two devices at once\n", lim);
	}
	xms_close(&x1);
	xms_close(&x0);
}

/* A fault site of one device counts and fails there alone. */
TEST(fault_counts_are_per_device)
{
	long long f0 = faults_injected(0, "heap_alloc");
	long long f1 = faults_injected(1, "heap_alloc");
	struct xms_dev x1;
	uint64_t a;

	REQUIRE(f0 >= 0 && f1 >= 0);
	REQUIRE(open_dev(1, &x1) == 0);
	CHECK(xms_fault_arm(&x1, XMEMSIM_FAULT_HEAP_ALLOC, 0, 0, 1) == 0);
	CHECK(xms_alloc(&x1, HBM, 64, 64, 0, &a, NULL) == -ENOMEM);
	CHECK(faults_injected(1, "heap_alloc") == f1 + 1);
	CHECK(faults_injected(0, "heap_alloc") == f0);
	xms_close(&x1);
}

int main(void)
{
	ndev = test_param("devices");
	if (ndev > MAXD)
		ndev = MAXD;
	return tap_run();
}
