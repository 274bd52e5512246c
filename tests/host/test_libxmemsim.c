// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libxmemsim's handle (no device needed): each struct
 * xms_dev routes its own commands, ioctl or its attached ring, whatever
 * its fd number; a ring on another file is refused. /dev/null stands in
 * for the device: its ioctls fail with ENOTTY, while its uring_cmds succeed
 * (uring_cmd_null, 6.0+) or fail with EOPNOTSUPP, so the result names the
 * path a command took.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "libxmemsim.h"
#include "tap.h"

/* A result that came through a ring, not ioctl(). */
static int ringed(int ret)
{
	return ret == 0 || ret == -EOPNOTSUPP;
}

static int null_fd(void)
{
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

TEST(open_fills_the_handle_or_returns_errno)
{
	struct xms_dev d = { .fd = 7 };

	CHECK(xms_open(&d, "/nonexistent/xmemsim") == -ENOENT);
	CHECK(d.fd == -1 && d.ring == NULL);
	REQUIRE(xms_open(&d, "/dev/null") == 0);
	CHECK(d.fd >= 0 && d.ring == NULL);
	CHECK(xms_close(&d) == 0);
	CHECK(d.fd == -1);
}

TEST(each_handle_routes_its_own_commands)
{
	struct xms_dev a, b;
	struct xms_ring r;
	struct xmemsim_info in;
	int ret;

	xms_dev_init(&a, null_fd());
	xms_dev_init(&b, null_fd());
	REQUIRE(a.fd >= 0 && b.fd >= 0);
	CHECK(xms_get_info(&a, &in) == -ENOTTY);
	ret = xms_ring_init(&r, &a, 4);
	if (ret)
		SKIP("no io_uring here");
	REQUIRE(xms_attach_ring(&a, &r) == 0);
	CHECK(ringed(xms_get_info(&a, &in)));	/* through the ring */
	CHECK(xms_get_info(&b, &in) == -ENOTTY);	/* b: still ioctl */
	CHECK(xms_attach_ring(&b, &r) == -EINVAL);	/* a's file's ring */
	CHECK(b.ring == NULL);
	CHECK(xms_attach_ring(&a, NULL) == 0);
	CHECK(xms_get_info(&a, &in) == -ENOTTY);
	xms_ring_exit(&r);
	close(a.fd);
	close(b.fd);
}

/* The old library kept rings in a table of 1,024 fds. */
TEST(a_high_fd_takes_a_ring_too)
{
	struct xms_dev d;
	struct xms_ring r;
	struct xmemsim_info in;
	int fd = null_fd();

	REQUIRE(fd >= 0);
	REQUIRE(dup2(fd, 1500) == 1500);
	close(fd);
	xms_dev_init(&d, 1500);
	if (xms_ring_init(&r, &d, 4))
		SKIP("no io_uring here");
	CHECK(xms_attach_ring(&d, &r) == 0);
	CHECK(ringed(xms_get_info(&d, &in)));
	xms_ring_exit(&r);
	close(1500);
}

TEST(heap_names_ignore_case_and_take_their_numbers)
{
	CHECK(xms_heap_id("hbm") == XMEMSIM_HEAP_HBM);
	CHECK(xms_heap_id("HBM") == XMEMSIM_HEAP_HBM);
	CHECK(xms_heap_id("DataRAM") == XMEMSIM_HEAP_DATARAM);
	CHECK(xms_heap_id("0") == XMEMSIM_HEAP_HBM);
	CHECK(xms_heap_id("1") == XMEMSIM_HEAP_DATARAM);
	CHECK(xms_heap_id("libc") == XMEMSIM_HEAP_LIBC);
	CHECK(xms_heap_id("2") == XMEMSIM_HEAP_LIBC);
	CHECK(xms_heap_id("01") == -EINVAL);
	CHECK(xms_heap_id("hbm2") == -EINVAL);
}

/* Without a device's figures the reason says why there is none. */
TEST(nomem_reason_on_a_file_that_is_no_device)
{
	struct xms_dev d;
	char buf[200] = "x";

	REQUIRE(xms_open(&d, "/dev/null") == 0);
	CHECK(xms_nomem_reason(&d, XMEMSIM_HEAP_HBM, 4096, buf, sizeof(buf)) == -ENOTTY);
	CHECK(strstr(buf, "hbm heap") && strstr(buf, "unreadable"));
	CHECK(xms_nomem_reason(&d, XMEMSIM_HEAP_HBM, 4096, buf, 0) == -EINVAL);
	xms_close(&d);
}

int main(void)
{
	return tap_run();
}
