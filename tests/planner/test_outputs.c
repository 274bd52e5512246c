// SPDX-License-Identifier: GPL-2.0
/*
 * Where dramplan writes: a rename only onto a regular file or a new name;
 * character devices, FIFOs and magic links (/dev/stdout) are written in
 * place; a symlink to a regular file stays a symlink (its target is
 * replaced); `-` is standard output for every output option; new files
 * get 0666 & ~umask.  Everything happens in a private temporary folder:
 * the device node is one this test makes with mknod, never /dev/null.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "planner_util.h"
#include "tap.h"

#ifndef DP_DRAMPLAN
#define DP_DRAMPLAN "build/dramplan"
#endif

static char dir[] = "/tmp/dramplan_out_XXXXXX";
static char out[1 << 20], err[65536];

/* Runs `sh -c "PRE dramplan ARGS"` from the source root. */
static int dp2(const char *pre, const char *args)
{
	return run_captured(dir, pre, DP_DRAMPLAN, args, out, sizeof(out), err,
			    sizeof(err));
}

static int dp(const char *args)
{
	return dp2("", args);
}

static const char *P(const char *name)
{
	static char buf[4][600];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

TEST(char_device_written_in_place)
{
	struct stat null, st;
	char a[1024];

	REQUIRE(!stat("/dev/null", &null) && S_ISCHR(null.st_mode));
	if (mknod(P("nulldev"), S_IFCHR | 0666, null.st_rdev)) {
		SKIP("mknod of a character device is not allowed here (needs CAP_MKNOD)");
	}
	REQUIRE(!chmod(P("nulldev"), 0666));
	snprintf(a, sizeof(a), "examples/mlp.json -q -o %s --svg %s", P("nulldev"), P("nulldev"));
	CHECK_EQ_U64(dp(a), 0);
	REQUIRE(!lstat(P("nulldev"), &st));
	CHECK(S_ISCHR(st.st_mode));
	CHECK(st.st_rdev == null.st_rdev);
	CHECK_EQ_U64(st.st_mode & 07777, 0666);
	/* the minimalloc CSV too */
	snprintf(a, sizeof(a), "--format=minimalloc tests/fuzz/corpus/csv/example.csv -q -o %s",
		 P("nulldev"));
	CHECK_EQ_U64(dp(a), 0);
	REQUIRE(!lstat(P("nulldev"), &st));
	CHECK(S_ISCHR(st.st_mode));
	/* through a symlink: the link and the device both stay */
	REQUIRE(!symlink("nulldev", P("nulllink")));
	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", P("nulllink"));
	CHECK_EQ_U64(dp(a), 0);
	REQUIRE(!lstat(P("nulllink"), &st));
	CHECK(S_ISLNK(st.st_mode));
	REQUIRE(!lstat(P("nulldev"), &st));
	CHECK(S_ISCHR(st.st_mode));
	unlink(P("nulllink"));
	unlink(P("nulldev"));
}

TEST(failed_in_place_write_leaves_nothing)
{
	struct stat full;
	char a[1024];

	/* a node like /dev/full: every write fails with ENOSPC */
	if (stat("/dev/full", &full) || mknod(P("fulldev"), S_IFCHR | 0666, full.st_rdev)) {
		SKIP("no /dev/full, or mknod of a character device is not allowed here");
	}
	snprintf(a, sizeof(a), "examples/mlp.json -q -o %s --svg %s", P("fulldev"), P("f.svg"));
	CHECK_EQ_U64(dp(a), 1);
	CHECK(contains(err, "fulldev: write error"));
	CHECK(!strchr(err, '\n') || !strchr(err, '\n')[1]);
	/* the chart was staged, never renamed into place */
	CHECK(access(P("f.svg"), F_OK));
	snprintf(a, sizeof(a), "ls %s | grep -q tmp", dir);
	CHECK(system(a) != 0);
	unlink(P("fulldev"));
}

TEST(fifo_written_in_place)
{
	char a[1024];
	struct stat st;
	pid_t pid;
	int status, i;

	REQUIRE(!mkfifo(P("fifo"), 0600));
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		/* the reader: copy the FIFO into a file */
		int in = open(P("fifo"), O_RDONLY);
		int o = open(P("fifo.copy"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char buf[4096];
		ssize_t r;

		while (in >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
			if (write(o, buf, r) != r)
				_exit(1);
		_exit(0);
	}
	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", P("fifo"));
	CHECK_EQ_U64(dp(a), 0);
	for (i = 0; i < 200 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 200) {
		/* dramplan never opened the FIFO: the reader still waits */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		CHECK(!"dramplan wrote the FIFO");
	}
	REQUIRE(!lstat(P("fifo"), &st));
	CHECK(S_ISFIFO(st.st_mode));
	read_text(P("fifo.copy"), out, sizeof(out));
	CHECK(contains(out, "\"format\": \"dramplan-plan/1\""));
	unlink(P("fifo"));
	unlink(P("fifo.copy"));
}

TEST(symlink_kept_target_replaced)
{
	char a[1024], tgt[600];
	struct stat st;
	ssize_t n;
	FILE *f;

	f = fopen(P("real.json"), "w");
	REQUIRE(f);
	fputs("old\n", f);
	fclose(f);
	REQUIRE(!symlink("real.json", P("link.json")));
	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", P("link.json"));
	CHECK_EQ_U64(dp(a), 0);
	REQUIRE(!lstat(P("link.json"), &st));
	CHECK(S_ISLNK(st.st_mode));
	n = readlink(P("link.json"), tgt, sizeof(tgt) - 1);
	REQUIRE(n > 0);
	tgt[n] = 0;
	CHECK(!strcmp(tgt, "real.json"));
	read_text(P("real.json"), out, sizeof(out));
	CHECK(contains(out, "\"format\": \"dramplan-plan/1\""));
	/* verify reads through the link */
	snprintf(a, sizeof(a), "verify %s", P("link.json"));
	CHECK_EQ_U64(dp(a), 0);
	unlink(P("link.json"));
	unlink(P("real.json"));
}

TEST(magic_link_to_stdout_written_in_place)
{
	char a[1024];
	struct stat st;

	/* what /dev/stdout is: a link into /proc/self/fd */
	REQUIRE(!symlink("/proc/self/fd/1", P("mystdout")));
	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", P("mystdout"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(out, "\"format\": \"dramplan-plan/1\""));
	REQUIRE(!lstat(P("mystdout"), &st));
	CHECK(S_ISLNK(st.st_mode));
	unlink(P("mystdout"));
}

TEST(dash_is_stdout_for_every_output)
{
	char a[1024];

	CHECK_EQ_U64(dp("examples/mlp.json -q --no-svg -o -"), 0);
	CHECK(!strncmp(out, "{\n  \"format\": \"dramplan-plan/1\"", 31));
	/* not quiet: the report goes to stderr, stdout stays one document */
	CHECK_EQ_U64(dp("examples/mlp.json --no-svg -o -"), 0);
	CHECK(!strncmp(out, "{\n  \"format\": \"dramplan-plan/1\"", 31));
	CHECK(!contains(out, "DRAM allocation successful"));
	CHECK(contains(err, "DRAM allocation successful"));
	/* /dev/stdout by name is the same stream (never opened, never
	 * replaced); here fd 1 is a file, with a socket it would be too */
	CHECK_EQ_U64(dp("examples/mlp.json --no-svg -o /dev/stdout"), 0);
	CHECK(!strncmp(out, "{\n  \"format\": \"dramplan-plan/1\"", 31));
	CHECK(contains(err, "DRAM allocation successful"));
	CHECK(access(DP_SRCROOT "/-", F_OK));
	snprintf(a, sizeof(a), "examples/mlp.json -q -o %s --svg -", P("p.json"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(!strncmp(out, "<?xml", 5) && contains(out, "</svg>"));
	snprintf(a, sizeof(a), "examples/mlp.json --no-svg -o %s --report -", P("p.json"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(out, "DRAM allocation successful"));
	snprintf(a, sizeof(a), "examples/mlp.json --no-svg -o %s --report %s", P("p.json"), P("r.txt"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(!contains(out, "DRAM allocation successful"));
	read_text(P("r.txt"), out, sizeof(out));
	CHECK(contains(out, "DRAM allocation successful"));
	CHECK_EQ_U64(dp("--format=minimalloc tests/fuzz/corpus/csv/example.csv -q -o -"), 0);
	CHECK(!strncmp(out, "id,lower,upper,size,offset\n", 27));
	CHECK(access(DP_SRCROOT "/-", F_OK));
	unlink(P("p.json"));
	unlink(P("r.txt"));
}

TEST(new_files_get_umask_mode)
{
	char a[1024];
	struct stat st;

	snprintf(a, sizeof(a), "examples/mlp.json -q -o %s --svg %s", P("m.json"), P("m.svg"));
	CHECK_EQ_U64(dp2("umask 027;", a), 0);
	REQUIRE(!stat(P("m.json"), &st));
	CHECK_EQ_U64(st.st_mode & 07777, 0640);
	REQUIRE(!stat(P("m.svg"), &st));
	CHECK_EQ_U64(st.st_mode & 07777, 0640);
	CHECK_EQ_U64(dp2("umask 0;", a), 0);
	/* an existing file keeps its mode, and (as root) its owner */
	REQUIRE(!stat(P("m.json"), &st));
	CHECK_EQ_U64(st.st_mode & 07777, 0640);
	if (geteuid() == 0) {
		REQUIRE(!chown(P("m.json"), 4321, 4322));
		CHECK_EQ_U64(dp(a), 0);
		REQUIRE(!stat(P("m.json"), &st));
		CHECK_EQ_U64(st.st_uid, 4321);
		CHECK_EQ_U64(st.st_gid, 4322);
		CHECK_EQ_U64(st.st_mode & 07777, 0640);
	}
	unlink(P("m.json"));
	unlink(P("m.svg"));
	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", P("n.json"));
	CHECK_EQ_U64(dp2("umask 0;", a), 0);
	REQUIRE(!stat(P("n.json"), &st));
	CHECK_EQ_U64(st.st_mode & 07777, 0666);
	unlink(P("n.json"));
}

TEST(directory_is_an_error)
{
	char a[1024];

	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s", dir);
	CHECK_EQ_U64(dp(a), 1);
	CHECK(contains(err, "is a directory"));
}

TEST(svg_titles)
{
	char a[1024];

	snprintf(a, sizeof(a), "examples/mlp.json -q -o %s --svg -", P("p.json"));
	CHECK_EQ_U64(dp(a), 0);
	/* name, address range, size, interval */
	CHECK_HAS(out, "<title>h1 [0x", "size 1048576", "t=[0, 1]");
	unlink(P("p.json"));
}

TEST(large_svg_left_out_or_downsampled)
{
	char a[1024];

	/* above the limit the default chart is left out, with a note */
	snprintf(a, sizeof(a), "cp %s/examples/mlp.json %s", DP_SRCROOT, P("mlp.json"));
	REQUIRE(!system(a));
	snprintf(a, sizeof(a), "--svg-max 3 %s -q -o %s", P("mlp.json"), P("p.json"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(err, "SVG chart is left out above 3 tensors"));
	CHECK(access(DP_SRCROOT "/mlp.svg", F_OK) && access(P("mlp.svg"), F_OK));
	/* asked for: drawn downsampled, and it says so */
	snprintf(a, sizeof(a), "--svg-max 3 %s -q -o %s --svg -", P("mlp.json"), P("p.json"));
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(err, "the chart shows the 3 largest"));
	CHECK_HAS(out, "downsampled: 3 of 8 tensors drawn", "<title>w1 ");
	CHECK(!contains(out, "<title>stats "));
	unlink(P("p.json"));
	unlink(P("mlp.json"));
}

/* Every failing reproducer of the seed corpus, through the command: exit 1,
 * one line "dramplan: FILE...", and no output file. */
static void reproducers(const char *sub, const char *cmd, const char *const *ok)
{
	char path[600], a[2048];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/%s", DP_SRCROOT, sub);
	d = opendir(path);
	REQUIRE(d);
	while ((de = readdir(d))) {
		const char *const *k;
		char *nl;

		if (de->d_name[0] == '.')
			continue;
		for (k = ok; *k && strcmp(*k, de->d_name); k++)
			;
		if (*k)
			continue;	/* accepted, by design */
		snprintf(a, sizeof(a), cmd, path, de->d_name, dir, dir);
		if (dp(a) != 1) {
			printf("#   %s: not exit 1\n", de->d_name);
			CHECK(0);
		}
		nl = strchr(err, '\n');
		if (strncmp(err, "dramplan: ", 10) || !contains(err, de->d_name) ||
		    !nl || nl[1]) {
			printf("#   %s: not one line naming the file: %s\n", de->d_name, err);
			CHECK(0);
		}
		CHECK(access(P("r.out"), F_OK) && access(P("r.svg"), F_OK));
	}
	closedir(d);
}

TEST(every_reproducer_one_line_nothing_written)
{
	static const char *const model_ok[] = { "example_mlp.json",
		"example_transformer.json", "example_allreduce_2core.json",
		"inst_without_operands.json", "unreachable_use.json",
		"untouched_tensor.json", NULL };
	static const char *const csv_ok[] = { "alignment_offsets.csv",
		"bom.csv", "cr_only.csv", "example.csv", "fuzz_peak_2_64.csv",
		"header_only.csv", "solution_overlap.csv", NULL };
	static const char *const plan_ok[] = { "example_mlp.plan.json",
		"example_transformer.plan.json", "example_allreduce_2core.plan.json",
		"untouched.plan.json", NULL };

	reproducers("model", "%s/%s -q -o %s/r.out --svg %s/r.svg", model_ok);
	reproducers("csv", "--format=minimalloc %s/%s -q -o %s/r.out", csv_ok);
	reproducers("plan", "verify %s/%s", plan_ok);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return run_in_tmpdir(dir, tap_run);
}
