// SPDX-License-Identifier: GPL-2.0
/*
 * The dramplan command: each example gives a report, a plan and an SVG that
 * `dramplan verify` accepts; MiniMalloc mode writes a verified solution;
 * bad input exits 1 with one message and writes no file at all.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner_util.h"
#include "tap.h"

#ifndef DP_DRAMPLAN
#define DP_DRAMPLAN "build/dramplan"
#endif

static char dir[] = "/tmp/dramplan_cli_XXXXXX";
static char out[65536], err[65536];

/* Runs dramplan with args; returns its exit status, fills out/err. */
static int dp(const char *args)
{
	return run_captured(dir, "", DP_DRAMPLAN, args, out, sizeof(out), err,
			    sizeof(err));
}

static int exists(const char *name)
{
	char p[600];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !stat(p, &st);
}

static int leftovers(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".tmp."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void write_file(const char *name, const char *text)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

TEST(examples_plan_svg_verify)
{
	static const char *const ex[] = { "mlp", "transformer", "allreduce_2core" };
	size_t i;

	for (i = 0; i < 3; i++) {
		char a[1024], svg[600];

		snprintf(a, sizeof(a), "examples/%s.json -o %s/%s.plan.json --svg %s/%s.svg",
			 ex[i], dir, ex[i], dir, ex[i]);
		CHECK_EQ_U64(dp(a), 0);
		CHECK_HAS(out, "DRAM allocation successful", "Num intervals",
			  "IntervalTree Build Done", "reserved space =",
			  "Real CC buffer size", "wrote plan");
		snprintf(svg, sizeof(svg), "%s/%s.svg", dir, ex[i]);
		read_text(svg, out, sizeof(out));
		CHECK(!strncmp(out, "<?xml", 5) && contains(out, "<svg") &&
		      contains(out, "</svg>\n") && contains(out, "<rect class="));
		snprintf(a, sizeof(a), "verify %s/%s.plan.json", dir, ex[i]);
		CHECK_EQ_U64(dp(a), 0);
		CHECK(contains(out, ": OK:"));
	}
	/* the 2-core example marks shared tensors in the chart */
	{
		char p[600];

		snprintf(p, sizeof(p), "%s/allreduce_2core.svg", dir);
		read_text(p, out, sizeof(out));
		CHECK_HAS(out, "shared", "url(#hatch)");
	}
	CHECK(!leftovers());
}

TEST(bad_input_writes_nothing)
{
	char a[1024];

	write_file("bad.json", "{\"cores\": [{\"tensors\": [{\"name\": \"a\", \"elems\": 0, \"elem_size\": 4}], \"blocks\": [{\"name\": \"e\"}]}]}\n");
	snprintf(a, sizeof(a), "%s/bad.json -o %s/bad.plan.json --svg %s/bad.svg", dir, dir, dir);
	CHECK_EQ_U64(dp(a), 1);
	CHECK_HAS(err, "bad.json", "'a'", "zero or negative size");
	CHECK(!contains(out, "pipeline"));
	CHECK(!exists("bad.plan.json"));
	CHECK(!exists("bad.svg"));
	CHECK(!leftovers());
	/* malformed */
	write_file("broken.json", "{\n  \"cores\": [\n    {\"tensors\": [}\n");
	snprintf(a, sizeof(a), "%s/broken.json -o %s/broken.plan.json", dir, dir);
	CHECK_EQ_U64(dp(a), 1);
	CHECK_HAS(err, "broken.json:3:", "malformed JSON");
	CHECK(!exists("broken.plan.json"));
	CHECK(!leftovers());
}

TEST(disable_flag)
{
	char a[1024];

	snprintf(a, sizeof(a), "--disable-dram-allocation examples/mlp.json -o %s/d.plan.json", dir);
	CHECK_EQ_U64(dp(a), 1);
	CHECK_HAS(err, "'h1'", "--disable-dram-allocation");
	CHECK(!exists("d.plan.json"));
}

TEST(minimalloc_mode)
{
	char a[1024], p[600];
	struct dp_err e;
	struct dp_csv *c;

	snprintf(a, sizeof(a), "--format=minimalloc tests/data/minimalloc/A.1048576.csv -o %s/a.csv", dir);
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(out, "peak") && contains(out, "lower bound 1048576") &&
	      contains(out, "ratio"));
	snprintf(p, sizeof(p), "%s/a.csv", dir);
	read_text(p, out, sizeof(out));
	CHECK(!strncmp(out, "id,lower,upper,size,offset\n", 27));
	c = dp_csv_load(p, &e);
	REQUIRE(c);
	CHECK(c->has_offset);
	CHECK_EQ_U64(c->n, 154);
	CHECK(!dp_csv_verify(c, &e));
	dp_csv_free(c);
	snprintf(a, sizeof(a), "verify --format=minimalloc %s/a.csv", dir);
	CHECK_EQ_U64(dp(a), 0);
	CHECK(contains(out, "OK"));
	/* an overlapping solution is rejected, naming both buffers */
	write_file("ov.csv", "id,lower,upper,size,offset\nx,0,10,8,0\ny,5,12,8,4\n");
	snprintf(a, sizeof(a), "verify --format=minimalloc %s/ov.csv", dir);
	CHECK_EQ_U64(dp(a), 1);
	CHECK(contains(err, "'x'") && contains(err, "'y'") && contains(err, "overlap"));
}

TEST(verify_rejects_tampered_plan)
{
	char a[1024], p[600];
	struct dp_err e;
	struct dp_plan *pl;
	FILE *f;
	uint32_t k;

	snprintf(a, sizeof(a), "examples/mlp.json -q --no-svg -o %s/t.plan.json", dir);
	REQUIRE(dp(a) == 0);
	snprintf(p, sizeof(p), "%s/t.plan.json", dir);
	pl = dp_plan_load_json(p, &e);
	REQUIRE(pl);
	/* h1 [0,1] and a1 [1,2] interfere: put a1 on h1's bytes */
	for (k = 0; k < pl->core[0].n; k++)
		if (!strcmp(pl->core[0].t[k].name, "a1"))
			pl->core[0].t[k].addr = pt(pl, 0, "h1")->addr;
	f = fopen(p, "w");
	dp_plan_write_json(pl, f);
	fclose(f);
	dp_plan_free(pl);
	snprintf(a, sizeof(a), "verify %s", p);
	CHECK_EQ_U64(dp(a), 1);
	CHECK(contains(err, "'h1'") && contains(err, "'a1'") && contains(err, "overlap"));
}

TEST(usage_errors)
{
	CHECK_EQ_U64(dp("--no-such-option examples/mlp.json"), 2);
	CHECK_EQ_U64(dp("--allreduce-buffer-size -5 examples/mlp.json"), 2);
	CHECK(contains(err, "-1 for auto"));
	CHECK_EQ_U64(dp("--allreduce-buffer-size 12x examples/mlp.json"), 2);
	CHECK_EQ_U64(dp(""), 2);
	CHECK_EQ_U64(dp("--help"), 0);
	CHECK(contains(out, "usage: dramplan"));
}

int main(void)
{
	return run_in_tmpdir(dir, tap_run);
}
