// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of xmemctl's command line (no device needed): /dev/null is
 * the device, so every command that reaches it fails with ENOTTY (ioctl)
 * and reads of 0 bytes succeed. What is checked is the tool's side: usage
 * errors before the device is opened, options anywhere, decimal numbers,
 * one output line per replay line whatever the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tap.h"

static char out[1 << 16];

/* sh -c CMD with xmemctl as $X: its stdout in out[], its exit status. */
static int run(const char *cmd)
{
	char full[8192];
	size_t n;
	FILE *p;
	int st;

	snprintf(full, sizeof(full), "X=%s; %s", XMEMCTL, cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int starts(const char *prefix)
{
	return !strncmp(out, prefix, strlen(prefix));
}

/* sh -c "$X ARGS 2>&1 >/dev/null": is its exit status status and what it
 * writes on stderr exactly err?  What it did goes with a failure. */
static int says(const char *args, int status, const char *err)
{
	char cmd[256];
	int st;

	snprintf(cmd, sizeof(cmd), "$X %s 2>&1 >/dev/null", args);
	st = run(cmd);
	if (st == status && !strcmp(out, err))
		return 1;
	printf("#   %s: exit %d, stderr \"%s\"\n", cmd, st, out);
	return 0;
}

/* A usage error: exit 2 and the one line err on stderr */
static int usage_error(const char *args, const char *err)
{
	return says(args, 2, err);
}

TEST(version_and_help)
{
	CHECK(run("$X --version") == 0 && !strncmp(out, "xmemctl ", 8));
	CHECK(run("$X -h") == 0 && strstr(out, "usage: xmemctl"));
}

/* Each command line is a usage error, exit 2, before the device (a
 * missing one would be exit 1) is opened. */
static void usage_errors(const char *const *bad, size_t n)
{
	char cmd[256];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "$X --dev=/nonexistent %s 2>/dev/null", bad[i]);
		CHECK(run(cmd) == 2);
	}
}

TEST(usage_errors_do_not_open_the_device)
{
	static const char *const bad[] = {
		"bogus", "alloc hbm", "alloc nosuchheap 64", "", "--bogus info",
	};

	usage_errors(bad, sizeof(bad) / sizeof(bad[0]));
	CHECK(run("$X --dev=/nonexistent info 2>/dev/null") == 1);
}

TEST(errors_go_to_stderr_outside_replay)
{
	CHECK(says("--dev=/dev/null alloc HBM 64", 1, "xmemctl: alloc: ENOTTY -\n"));
	CHECK(run("$X --dev /dev/null alloc hbm 64 2>/dev/null") == 1 && !out[0]);
}

/* A usage error is one line on stderr that says which and where to look. */
TEST(usage_errors_are_one_line)
{
	CHECK(usage_error("--dev=/nonexistent watch", "xmemctl: watch: unknown command (xmemctl --help lists them)\n"));
	CHECK(usage_error("--dev=/nonexistent alloc hbm", "xmemctl: alloc: bad arguments or options (xmemctl --help gives them)\n"));
	CHECK(usage_error("", "xmemctl: no command (xmemctl --help lists them)\n"));
	CHECK(usage_error("--bogus info", "xmemctl: --bogus: unknown option or missing argument (xmemctl --help lists them)\n"));
}

/*
 * bench: nccl-tests' options follow the collective's name, and a bad one
 * is a usage error (one line, exit 2) before any device or sysfs file.
 */
TEST(bench_usage_errors)
{
	static const char *const bad[] = {
		"bench", "bench all-reduces", "bench all-reduce -b 0",
		"bench all-reduce -b 64 -e 8", "bench all-reduce -f 1",
		"bench all-reduce -x", "bench all-reduce -d double",
		"bench all-reduce -o prod", "bench all-reduce extra",
		"bench broadcast -b 1Q", "bench all-gather -n 0",
	};

	usage_errors(bad, sizeof(bad) / sizeof(bad[0]));
	CHECK(usage_error("bench reduce-scatter -c 1 -b 2 -e 1", "xmemctl: bench: bad arguments (xmemctl --help gives them)\n"));
	CHECK(run("$X --help") == 0 && strstr(out, "bench COLL [-b MIN] [-e MAX]"));
}

/* -d N and --device N name /dev/xmemsimN; -d PATH is still a node */
TEST(device_numbers)
{
	CHECK(usage_error("-d 99 info", "xmemctl: --device: '99': a device number from 0 to 31\n"));
	CHECK(usage_error("--device=1x info", "xmemctl: --device: '1x': a device number from 0 to 31\n"));
	CHECK(says("--device=31 info", 1, "xmemctl: /dev/xmemsim31: No such file or directory\n"));
	CHECK(says("-d /dev/null info", 1, "xmemctl: info: ENOTTY -\n"));
}

/* top, stats --prometheus and plan run --devices (a count from 1 to
 * 32): their options go with them alone */
TEST(top_prometheus_and_devices_options)
{
	static const char *const bad[] = {
		"--prometheus info", "--prometheus stats hbm", "--once info",
		"--interval -1 top", "--interval x top", "top extra",
		"--devices 4 info", "--devices 2 plan load f", "--devices 0 plan run p m",
		"--devices x plan run p m", "--devices 2 replay", "plan run p --devices",
	};

	usage_errors(bad, sizeof(bad) / sizeof(bad[0]));
	CHECK(says("--dev=/dev/null stats --prometheus", 1, "xmemctl: stats: ENOTTY -\n"));
	CHECK(says("--dev=/dev/null top --once --interval 0", 1, "xmemctl: top: ENOTTY -\n"));
	/* top never runs inside a replay */
	CHECK(run("echo top | $X --dev=/dev/null replay") == 2 && !strcmp(out, "err usage\n"));
	CHECK(run("$X --devices 33 plan run p m 2>&1 >/dev/null") == 2);
	CHECK(!strcmp(out, "xmemctl: --devices: '33': a number of devices from 1 to 32\n"));
	/* --devices anywhere on the line; then the model is read (none: 1) */
	CHECK(run("$X --dev=/dev/null plan run --devices 4 p /nonexistent.json 2>&1 >/dev/null") == 1);
	CHECK(!strncmp(out, "xmemctl: plan run: ", 19));
}

TEST(options_after_the_command)
{
	CHECK(run("echo 'read 0 0' | $X replay --dev=/dev/null --uring") == 0);
	CHECK(!strcmp(out, "ok \n"));
	CHECK(run("$X read 0 0 --dev /dev/null") == 0 && !strcmp(out, "ok \n"));
}

TEST(numbers_are_decimal_or_hex_never_octal)
{
	/* 08 is not octal; 0x1g and -1 are not numbers */
	CHECK(run("printf 'read 08 0\\nread 0x10 0\\nread 0x1g 0\\nread -1 0\\n' | "
		  "$X --dev=/dev/null replay") == 2);
	CHECK(!strcmp(out, "ok \nok \nerr usage\nerr usage\n"));
}

TEST(one_output_line_per_input_line)
{
	CHECK(run("printf 'read 0 0\\n\\n# a comment\\nalloc dataram 64 # hm\\n  \\nbogus\\n' | "
		  "$X --dev=/dev/null replay") == 2);
	CHECK(!strcmp(out, "ok \n\n\nerr ENOTTY -\n\nerr usage\n"));
	/* a 10,000-character line is one command, one result */
	CHECK(run("{ printf 'write 0 '; head -c 5000 /dev/zero | od -An -v -tx1 | "
		  "tr -d ' \\n'; echo; echo 'read 0 0'; } | $X --dev=/dev/null replay") == 0);
	CHECK(!strcmp(out, "ok 5000\nok \n"));
}

/*
 * --json through a ring on /dev/null: its uring_cmd (6.0+) succeeds without
 * writing, so every figure is the tool's zero-filled result.
 */
TEST(json_is_one_object_a_line)
{
	if (run("$X --dev=/dev/null --uring --json dump HBM 2>&1") != 0)
		SKIP("/dev/null takes no uring_cmd here");
	CHECK(!strcmp(out, "{\"heap\":\"hbm\",\"count\":0,\"blocks\":[]}\n"));
	CHECK(run("$X --dev=/dev/null --uring --json info") == 0);
	CHECK(starts("{\"abi\":0,\"cores\":0,\"descriptors\":0,\"hbm_base\":0,"));
	CHECK(strstr(out, ",\"plan_max_tensors\":0,\"libc_pool_base\":0,\"libc_pool_size\":0,\"features\":0}\n") && !strchr(out, ' '));
	CHECK(run("printf 'stats 1\\n\\nstats 0\\n' | $X --dev=/dev/null --uring --json replay") == 0);
	CHECK(starts("{\"heap\":\"dataram\",\"pool_base\":0,"));
	CHECK(strstr(out, "\"quota_refused\":0}\n\n{\"heap\":\"hbm\","));
}

int main(void)
{
	return tap_run();
}
