// SPDX-License-Identifier: GPL-2.0
/*
 * VM test: the device node and GET_INFO against the module's parameters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"

static unsigned long long param(const char *name)
{
	char path[128], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/xmemsim/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoull(buf, NULL, 0);
}

TEST(get_info_matches_parameters)
{
	struct xms_dev xd;
	struct xmemsim_info in;
	int fd = test_open(&xd);

	REQUIRE(fd >= 0);
	memset(&in, 0xff, sizeof(in));
	CHECK(xms_get_info(&xd, &in) == 0);
	CHECK_EQ_U64(in.abi_version, XMEMSIM_ABI_VERSION);
	CHECK_EQ_U64(in.num_heaps, XMEMSIM_NUM_HEAPS);
	CHECK_EQ_U64(in.cores, param("cores"));
	CHECK_EQ_U64(in.num_blocks, param("num_blocks"));
	CHECK_EQ_U64(in.hbm_base, param("hbm_base"));
	CHECK_EQ_U64(in.hbm_size, param("hbm_size"));
	CHECK_EQ_U64(in.hbm_pool_base, in.hbm_base + 0x228);
	CHECK_EQ_U64(in.hbm_pool_size, in.hbm_size - 0x228);
	CHECK_EQ_U64(in.dataram_base, param("dataram_base"));
	CHECK_EQ_U64(in.dataram_pool_base, in.dataram_base + 0x42c);
	CHECK_EQ_U64(in.dataram_pool_size, 0x4000);
	CHECK_EQ_U64(in.staging_lo, 0x80000);
	CHECK_EQ_U64(in.staging_hi, 0x90000);
	CHECK_EQ_U64(in.stack_default, 4196);
	CHECK_EQ_U64(in.stack_max, 4 << 20);
	CHECK_EQ_U64(in.bounce_size, 4096);
	CHECK_EQ_U64(in.default_align, 64);
	for (unsigned int i = 0; i < sizeof(in.reserved) / sizeof(in.reserved[0]); i++)
		CHECK_EQ_U64(in.reserved[i], 0);
	xms_close(&xd);
}

TEST(unknown_command_is_enotty)
{
	struct xms_dev xd;
	int fd = test_open(&xd);
	char buf[64];

	REQUIRE(fd >= 0);
	errno = 0;
	CHECK(ioctl(fd, _IOR(XMEMSIM_IOC_MAGIC, 0x7f, buf), buf) == -1 && errno == ENOTTY);
	errno = 0;
	CHECK(ioctl(fd, _IOR('x', 0x00, struct xmemsim_info), buf) == -1 && errno == ENOTTY);
	xms_close(&xd);
}

TEST(get_info_to_unmapped_memory_is_efault)
{
	struct xms_dev xd;
	long pg = sysconf(_SC_PAGESIZE);
	int fd = test_open(&xd);
	char *p;

	REQUIRE(fd >= 0);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(p != MAP_FAILED);
	REQUIRE(munmap(p + pg, pg) == 0);
	/* The struct would end one page past the last mapped byte. */
	errno = 0;
	CHECK(ioctl(fd, XMEMSIM_IOC_GET_INFO, p + pg - 8) == -1 && errno == EFAULT);
	/* Ending on the last mapped byte works. */
	CHECK(ioctl(fd, XMEMSIM_IOC_GET_INFO,
		    p + pg - sizeof(struct xmemsim_info)) == 0);
	munmap(p, pg);
	xms_close(&xd);
}

int main(void)
{
	return tap_run();
}
