// SPDX-License-Identifier: GPL-2.0
/*
 * A program outside the tree, built against an installed libxmemsim with
 * `pkg-config --cflags --libs libxmemsim` (scripts/check-install.sh): the
 * headers (libxmemsim.h, xmemsim/xmemsim.h) and the shared library resolve.
 * With a device path it prints the device's ABI version; without one it
 * runs the library on /dev/null (no device needed) and prints "ok".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <libxmemsim.h>

int main(int argc, char **argv)
{
	struct xmemsim_info info;
	struct xms_dev dev;
	int ret;

	if (argc > 1) {
		ret = xms_open(&dev, argv[1]);
		if (!ret)
			ret = xms_get_info(&dev, &info);
		if (ret) {
			fprintf(stderr, "consumer: %s: %s\n", argv[1], strerror(-ret));
			return 1;
		}
		printf("abi %u\n", info.abi_version);
		return xms_close(&dev) ? 1 : 0;
	}
	xms_dev_init(&dev, open("/dev/null", O_RDWR));
	if (dev.fd < 0 || xms_get_info(&dev, &info) != -ENOTTY ||
	    xms_heap_id("HBM") != XMEMSIM_HEAP_HBM ||
	    strcmp(xms_status_name(XMEMSIM_XMEM_ALLOC_FAILED), "ALLOC_FAILED"))
		return 1;
	xms_close(&dev);
	printf("ok\n");
	return 0;
}
