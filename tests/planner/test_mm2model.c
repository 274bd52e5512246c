// SPDX-License-Identifier: GPL-2.0
/*
 * mm2model (dp_csv_model) writes only what dramplan reads: a
 * buffer id that is not valid UTF-8 (RFC 3629, as the JSON reader
 * checks) is refused with one line, exit 1, nothing on stdout; a valid
 * one round-trips through the JSON it writes.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "planner_util.h"
#include "tap.h"

#ifndef DP_MM2MODEL
#define DP_MM2MODEL "build/mm2model"
#endif

static const char *const bad[] = {
	"\xff", "a\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
	"\xf4\x90\x80\x80", "\xe2\x82", "ok\xc3",
};

static struct dp_csv *one(const char *id)
{
	char text[128];
	struct dp_err e;
	int len = snprintf(text, sizeof(text),
			   "id,lower,upper,size\n%s,0,3,8\nb,1,4,4\n", id);

	return dp_csv_parse("u.csv", text, len, &e);
}

TEST(csv_model_refuses_ids_that_are_not_utf8)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dp_csv *c = one(bad[i]);
		struct dp_err e = { "" };
		struct dp_model *m;

		REQUIRE(c);
		m = dp_csv_model(c, 1, &e);
		CHECK(!m);
		CHECK(contains(e.msg, "not valid UTF-8"));
		CHECK(!strchr(e.msg, '\n'));
		dp_model_free(m);
		dp_csv_free(c);
	}
}

/* Valid UTF-8 (two, three and four byte forms) reads back as written. */
TEST(csv_model_utf8_ids_round_trip)
{
	struct dp_csv *c = one("t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	struct dp_err e = { "" };
	struct dp_model *m, *m2;
	char *text;

	REQUIRE(c);
	m = dp_csv_model(c, 1, &e);
	REQUIRE(m);
	text = model_json_text(m);
	m2 = dp_model_parse_json("rt.json", text, strlen(text), &e);
	CHECK(m2);
	if (m2)
		CHECK_STR(m2->c[0].t[0].name, "t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	dp_model_free(m2);
	dp_model_free(m);
	dp_csv_free(c);
	free(text);
}

/* The command: exit 1, one line on stderr naming the file, no JSON. */
TEST(mm2model_cli_one_line_exit_1)
{
	char dir[] = "/tmp/mm2model.XXXXXX", cmd[512], path[300], buf[1024];
	FILE *f;
	size_t n;
	int rc, lines = 0;

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/in.csv", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	fprintf(f, "id,lower,upper,size\nx\xc0\xaf,0,3,8\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s >%s/out.json 2>%s/err.txt", DP_MM2MODEL,
		 path, dir, dir);
	rc = system(cmd);
	CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
	snprintf(path, sizeof(path), "%s/err.txt", dir);
	f = fopen(path, "r");
	REQUIRE(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	CHECK_EQ_U64(lines, 1);
	CHECK_HAS(buf, "mm2model: ", "in.csv", "not valid UTF-8");
	printf("# %s", buf);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	f = fopen(path, "r");
	REQUIRE(f);
	CHECK_EQ_U64(fread(buf, 1, sizeof(buf), f), 0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(!system(cmd));
}

int main(void)
{
	return tap_run();
}
