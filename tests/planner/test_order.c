// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-core order: the examples that declare it plan cleanly with the
 * static proof; bugs planted in copies of them are caught by the planner,
 * naming the tensor and both instructions (a missing wait, a wait on the
 * wrong event); malformed events and collectives are one-line errors that
 * name the instruction; a model without events says nothing new.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner_util.h"
#include "tap.h"

#ifndef DP_DRAMPLAN
#define DP_DRAMPLAN "build/dramplan"
#endif

static char dir[] = "/tmp/dramplan_order_XXXXXX";
static char out[65536], err[65536];

static int dp(const char *fmt, const char *a1)
{
	char args[2048];

	snprintf(args, sizeof(args), fmt, a1, a1, a1);
	return run_captured(dir, "", DP_DRAMPLAN, args, out, sizeof(out), err,
			    sizeof(err));
}

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/*
 * A copy of examples/NAME.json with the text from replaced by to (once,
 * where it must be), written as DIR/bug.json; its path is returned.
 */
static const char *plant(const char *name, const char *from, const char *to)
{
	static char path[600];
	char src[600], *text, *at;
	FILE *f;

	snprintf(src, sizeof(src), DP_SRCROOT "/examples/%s.json", name);
	text = strdup(slurp(src));
	at = text ? strstr(text, from) : NULL;
	snprintf(path, sizeof(path), "%s/bug.json", dir);
	f = fopen(path, "w");
	if (!at || !f) {
		printf("#   cannot plant \"%s\" in %s\n", from, src);
		tap_cur_failed = 1;
	} else {
		fwrite(text, 1, at - text, f);
		fputs(to, f);
		fputs(at + strlen(from), f);
	}
	if (f)
		fclose(f);
	free(text);
	return path;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int exists(const char *name)
{
	char p[600];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !stat(p, &st);
}

TEST(examples_prove_their_order)
{
	static const char *const ex[] = { "allreduce_2core", "pipeline_4core" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char a[1024];

		snprintf(a, sizeof(a), "examples/%s.json --no-svg -o %s/p.json",
			 ex[i], dir);
		CHECK(dp(a, "") == 0);
		CHECK_HAS(out, " unordered access pairs to shared bytes", "order: ");
		CHECK_HAS(out, "; 0 unordered access pairs");
		CHECK(!strstr(err, "unordered"));
		snprintf(a, sizeof(a), "examples/%s.json --strategy search --no-svg -o %s/p.json",
			 ex[i], dir);
		CHECK(dp(a, "") == 0);
		CHECK_HAS(out, "; 0 unordered access pairs");
		CHECK(dp("verify %s/p.json", dir) == 0);
		CHECK(!strstr(err, "unordered"));
		CHECK_HAS(slurp(strcat(strcpy(a, dir), "/p.json")),
			  "\"events\": [", "\"unordered\": []");
		unlink(a);
	}
}

#define MISSING_WAIT \
	"unordered: core 0 'sum_loss' reads 'loss_in' / core 1 'send_loss' writes 'loss_out' [0x701000, 0x702000)"

TEST(missing_wait_is_refused)
{
	const char *bug = plant("allreduce_2core", "\"wait\": [\"loss_sent\"], ", "");
	char a[1024];

	snprintf(a, sizeof(a), "%s -q --no-svg -o %s/p.json", bug, dir);
	CHECK(dp(a, "") == 1);
	CHECK_HAS(err, "dramplan: " MISSING_WAIT "\n");
	CHECK_EQ_U64(lines(err), 2);	/* the pair, then the verdict */
	CHECK(!exists("p.json"));
	/* --allow-unordered: planned, warned, recorded in the plan */
	snprintf(a, sizeof(a), "%s -q --allow-unordered --no-svg -o %s/p.json",
		 bug, dir);
	CHECK(dp(a, "") == 0);
	CHECK_HAS(err, "dramplan: warning: " MISSING_WAIT "\n");
	CHECK_EQ_U64(lines(err), 1);
	CHECK_HAS(slurp(strcat(strcpy(a, dir), "/p.json")),
		  "\"unordered\": [\n    {\"a\": {\"core\": 0, \"tensor\": \"loss_in\", \"inst\": \"sum_loss\", \"writes\": false}");
	CHECK(dp("verify %s/p.json", dir) == 0);
	CHECK_HAS(err, "dramplan: warning: " MISSING_WAIT "\n");
	unlink(strcat(strcpy(a, dir), "/p.json"));
}

TEST(wait_on_the_wrong_event_is_refused)
{
	/* stage 2 waits for stage 0's activations, not stage 1's */
	const char *bug = plant("pipeline_4core",
				"\"wait\": [\"act1_ready\"]",
				"\"wait\": [\"act0_ready\"]");
	char a[1024];

	snprintf(a, sizeof(a), "%s -q --no-svg -o %s/p.json", bug, dir);
	CHECK(dp(a, "") == 1);
	CHECK_HAS(err,
		  "dramplan: unordered: core 1 'send_act' writes 'act1' / core 2 'forward' reads 'x_in' [",
		  "dramplan: unordered: core 1 'send_act' writes 'act1' / core 2 'backward' reads 'x_in' [");
	CHECK_EQ_U64(lines(err), 3);
	CHECK(!exists("p.json"));
}

/* A planted malformation: exit 1, one line, naming what it must */
static void one_error(const char *name, const char *from, const char *to,
		      const char *want, const char *want2)
{
	const char *bug = plant(name, from, to);
	char a[1024];

	snprintf(a, sizeof(a), "%s -q --no-svg -o %s/p.json", bug, dir);
	CHECK(dp(a, "") == 1);
	CHECK_EQ_U64(lines(err), 1);
	CHECK_HAS(err, "dramplan: ", want, want2);
	if (lines(err) != 1 || !strstr(err, want) || !strstr(err, want2))
		printf("#   planted \"%s\": %s", to, err);
	CHECK(!exists("p.json"));
}

#define AR_EXAMPLE "allreduce_2core"
#define SUM_LOSS_WAIT "\"wait\": [\"loss_sent\"]"
#define AR_COLL "{\"kind\": \"all_reduce\", \"reduction\": \"sum\", \"type\": \"f32\", \"cores\": [0, 1]}"

/*
 * A malformation planted in examples/allreduce_2core.json: its text from
 * replaced by to; the one line on stderr holds want and want2
 */
struct planted {
	const char *from, *to, *want, *want2;
};

static void one_error_each(const struct planted *p, size_t n)
{
	for (; n; n--, p++)
		one_error(AR_EXAMPLE, p->from, p->to, p->want, p->want2);
}

TEST(malformed_events_are_one_line)
{
	static const struct planted bugs[] = {
		{ SUM_LOSS_WAIT, "\"waits\": [\"loss_sent\"]", "insts[2]: unknown key \"waits\"",
		  "(allowed: name, defs, uses, collective, wait, signal, compute_ns)" },
		{ SUM_LOSS_WAIT, "\"wait\": \"loss_sent\"", "'sum_loss'", "wait" },
		{ SUM_LOSS_WAIT, "\"wait\": [7]", "'sum_loss'.wait[0]", "string" },
		{ SUM_LOSS_WAIT, "\"wait\": [\"loss_snt\"]",
		  "core 0 'sum_loss': waits for event 'loss_snt' that no instruction signals", "" },
		{ SUM_LOSS_WAIT, "\"wait\": [\"loss_sent\", \"loss_sent\"]", "'sum_loss'",
		  "event 'loss_sent' listed twice" },
		{ SUM_LOSS_WAIT, "\"wait\": [\"\"]", "'sum_loss'", "an event name is 1 to 255 characters" },
		{ SUM_LOSS_WAIT, "\"wait\": [\"loss\\u0007sent\"]", "'sum_loss'",
		  "event name has a control character" },
		/* send_loss waits for what waits for it: the first instruction
		 * that can never start is named */
		{ "\"signal\": [\"loss_sent\"]", "\"signal\": [\"loss_sent\"], \"wait\": [\"loss_done\"]",
		  "core 0 'sum_loss': deadlock: what it waits for (an event, a collective) waits for it in turn", "" },
	};

	one_error_each(bugs, sizeof(bugs) / sizeof(bugs[0]));
}

TEST(malformed_collectives_are_one_line)
{
	static const struct planted bugs[] = {
		{ "\"kind\": \"all_reduce\"", "\"kind\": \"all_reduse\"", "'all_reduce'.collective",
		  "unknown value \"all_reduse\"" },
		{ "\"type\": \"f32\"", "\"type\": \"f64\"", "'all_reduce'.collective", "unknown value \"f64\"" },
		{ "\"reduction\": \"sum\"", "\"op\": \"sum\"", "'all_reduce'.collective", "unknown key \"op\"" },
		{ "\"kind\": \"all_reduce\"", "\"kind\": \"all_gather\"", "'all_reduce'.collective",
		  "an all_gather takes no \"reduction\"" },
		{ "\"cores\": [0, 1]", "\"cores\": [1]", "'all_reduce'.collective: ",
		  "must list this core (0) and at least one other" },
		{ "\"cores\": [0, 1]", "\"cores\": [0, 0]", "'all_reduce'", "core 0 listed twice" },
		{ "\"cores\": [0, 1]", "\"cores\": [0, 1, 5]",
		  "core 0 'all_reduce': all_reduce over core 5, but the model has 2 cores", "" },
		/* the halves disagree; a half is missing */
		{ AR_COLL, "{\"kind\": \"all_reduce\", \"reduction\": \"max\", \"type\": \"f32\", \"cores\": [0, 1]}",
		  "core 0 'all_reduce': all_reduce max f32: core 1 has no collective 'all_reduce' of the same kind, reduction, type and cores", "" },
		{ "{\"name\": \"all_reduce\", ", "{\"name\": \"all_reduce0\", ",
		  "core 0 'all_reduce0': all_reduce sum f32: core 1 has no collective 'all_reduce0'", "" },
	};

	one_error_each(bugs, sizeof(bugs) / sizeof(bugs[0]));
}

/* Rule 3: a collective orders what comes before it on one core before
 * what comes after it on another, so read_loss needs no event of its
 * own: the all_reduce already put sum_loss before it */
TEST(a_collective_orders_across_cores)
{
	const char *ok = plant(AR_EXAMPLE, ", \"wait\": [\"loss_done\"]", "");
	char a[1024];

	snprintf(a, sizeof(a), "%s --no-svg -o %s/p.json", ok, dir);
	CHECK(dp(a, "") == 0);
	CHECK_HAS(out, "order: 2 events; 0 unordered access pairs");
	unlink(strcat(strcpy(a, dir), "/p.json"));
}

/* Two collectives met in opposite orders on two cores never finish */
TEST(collectives_in_opposite_orders_deadlock)
{
	static const char *const model =
		"{\"cores\": [\n"
		" {\"tensors\": [{\"name\": \"x\", \"elems\": 4, \"elem_size\": 4}],\n"
		"  \"blocks\": [{\"name\": \"e\", \"insts\": [\n"
		"   {\"name\": \"a\", \"defs\": [\"x\"], \"uses\": [], \"collective\": %s},\n"
		"   {\"name\": \"b\", \"defs\": [\"x\"], \"uses\": [\"x\"], \"collective\": %s}]}]},\n"
		" {\"tensors\": [{\"name\": \"x\", \"elems\": 4, \"elem_size\": 4}],\n"
		"  \"blocks\": [{\"name\": \"e\", \"insts\": [\n"
		"   {\"name\": \"%s\", \"defs\": [\"x\"], \"uses\": [], \"collective\": %s},\n"
		"   {\"name\": \"%s\", \"defs\": [\"x\"], \"uses\": [\"x\"], \"collective\": %s}]}]}]}\n";
	char text[2048], path[600], a[1024];
	FILE *f;
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/bug.json", dir);
		f = fopen(path, "w");
		REQUIRE(f);
		snprintf(text, sizeof(text), model, AR_COLL, AR_COLL,
			 k ? "b" : "a", AR_COLL, k ? "a" : "b", AR_COLL);
		fputs(text, f);
		fclose(f);
		snprintf(a, sizeof(a), "%s -q --no-svg -o %s/p.json", path, dir);
		if (!k) {	/* the same order: fine */
			CHECK(dp(a, "") == 0);
			unlink(strcat(strcpy(a, dir), "/p.json"));
			continue;
		}
		CHECK(dp(a, "") == 1);
		CHECK_HAS(err, "core 0 'a': deadlock");
		CHECK_EQ_U64(lines(err), 1);
	}
}

/* The model writer gives the order back, and it reads in again the same */
/*
 * The model at path, written and read back, reads as the same text, which
 * holds want and want2; core 0's third instruction (sum_loss) computes
 * compute ns, before and after
 */
static void round_trips(const char *path, const char *want, const char *want2,
			uint64_t compute)
{
	struct dp_err e;
	struct dp_model *m = dp_model_load_json(path, &e), *m2;
	char *t1, *t2;

	REQUIRE(m);
	CHECK_EQ_U64(m->c[0].in[2].compute_ns, compute);
	CHECK_EQ_U64(m->c[0].in[1].compute_ns, 0);
	t1 = model_json_text(m);
	REQUIRE(t1);
	CHECK_HAS(t1, want, want2);
	m2 = dp_model_parse_json("again.json", t1, strlen(t1), &e);
	REQUIRE(m2);
	CHECK_EQ_U64(m2->c[0].in[2].compute_ns, compute);
	t2 = model_json_text(m2);
	CHECK_STR(t1, t2);
	free(t1);
	free(t2);
	dp_model_free(m);
	dp_model_free(m2);
}

TEST(order_round_trips_through_the_model_writer)
{
	round_trips(DP_SRCROOT "/examples/allreduce_2core.json",
		    "\"wait\": [\"loss_sent\"], \"signal\": [\"loss_done\"]",
		    "\"collective\": " AR_COLL, 0);
}

/* "compute_ns": read into the instruction, written back, refused when not
 * an integer >= 0, one line */
TEST(compute_ns_reads_writes_back_and_is_checked)
{
	static const struct planted bugs[] = {
		{ SUM_LOSS_WAIT, SUM_LOSS_WAIT ", \"compute_ns\": -5", "insts[2]",
		  "\"compute_ns\" must be an integer >= 0" },
		{ SUM_LOSS_WAIT, SUM_LOSS_WAIT ", \"compute_ns\": \"fast\"", "insts[2]",
		  "must be an integer" },
	};

	round_trips(plant(AR_EXAMPLE, SUM_LOSS_WAIT, SUM_LOSS_WAIT ", \"compute_ns\": 250000"),
		    "\"compute_ns\": 250000", "\"wait\": [\"loss_sent\"]", 250000);
	one_error_each(bugs, sizeof(bugs) / sizeof(bugs[0]));
}

/* A model without events: no "order:" line, no "events" in the plan */
TEST(no_events_nothing_new)
{
	char a[1024];

	snprintf(a, sizeof(a), "examples/mlp.json --no-svg -o %s/p.json", dir);
	CHECK(dp(a, "") == 0);
	CHECK(!strstr(out, "order:"));
	CHECK(!strstr(slurp(strcat(strcpy(a, dir), "/p.json")), "\"events\""));
	unlink(a);
}

int main(void)
{
	char bug[600];
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = tap_run();
	snprintf(bug, sizeof(bug), "%s/bug.json", dir);
	unlink(bug);
	rmdir(dir);
	return rc;
}
