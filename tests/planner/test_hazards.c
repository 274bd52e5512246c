// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-core hazards grouped per shared address range:
 * output linear in the shared tensors, the pair list only on request
 * (--hazard-pairs / dp_opts.hazard_pairs), a range reported only when two
 * accesses in it on different cores overlap and one writes.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"

/* Two cores, n shared owners each, defined and read one after another:
 * all 2n coalesce on the same bytes. */
static char *coalesced(unsigned n)
{
	size_t cap = 400 + (size_t)n * 400, len = 0;
	char *s = malloc(cap);
	unsigned c, i;

	len += sprintf(s + len, "{\"cores\": [");
	for (c = 0; c < 2; c++) {
		len += sprintf(s + len, "%s{\"tensors\": [", c ? ", " : "");
		for (i = 0; i < n; i++)
			len += sprintf(s + len, "%s{\"name\": \"S%u\", \"elems\": 1024, \"elem_size\": 4, \"shared\": true}",
				       i ? ", " : "", i);
		len += sprintf(s + len, "], \"blocks\": [{\"name\": \"e\", \"insts\": [");
		for (i = 0; i < n; i++)
			len += sprintf(s + len, "%s{\"defs\": [\"S%u\"]}, {\"uses\": [\"S%u\"]}",
				       i ? ", " : "", i, i);
		len += sprintf(s + len, "]}]}");
	}
	sprintf(s + len, "]}");
	return s;
}

static size_t json_size(const struct dp_plan *p, char **text)
{
	size_t n = 0;
	FILE *f = open_memstream(text, &n);

	dp_plan_write_json(p, f);
	fclose(f);
	return n;
}

TEST(coalesced_shared_grouped_linearly)
{
	char *m = coalesced(2000), *text;
	struct run r;
	size_t n;

	run_json(&r, m, NULL);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->nhg, 1);
	CHECK_EQ_U64(r.p->nha, 4000);
	CHECK_EQ_U64(r.p->hg[0].ncores, 2);
	CHECK_EQ_U64(r.p->hg[0].lo, pt(r.p, 0, "S0")->addr);
	CHECK_EQ_U64(r.p->hg[0].hi, pt(r.p, 0, "S0")->addr + 4096);
	CHECK_EQ_U64(r.p->nhz, 0);	/* no pairs unless asked */
	n = json_size(r.p, &text);
	/* linear: about 200 bytes per tensor, 60 per access; not 4,000,000
	 * pairs (the pair list was 528 MB) */
	CHECK(n < 2000000);
	CHECK(contains(text, "\"hazard_groups\""));
	CHECK(!contains(text, "\"hazards\""));
	CHECK_HAS(r.log, "1 shared address range accessed from more than one core",
		  "(4000 accesses in all)");
	free(text);
	run_free(&r);
	free(m);
}

TEST(pairs_behind_the_option)
{
	char *m = coalesced(300), *text;
	struct dp_plan *q;
	struct dp_err e;
	struct run r;
	size_t n;

	RUN_JSON_WITH(&r, hazard_pairs, 1, m);
	REQUIRE(r.ok);
	CHECK_EQ_U64(r.p->nhz, 300 * 300);
	CHECK_EQ_U64(r.p->nhg, 1);
	n = json_size(r.p, &text);
	CHECK(contains(text, "\"hazards\""));
	/* a plan with pairs reads back with pairs */
	q = dp_plan_parse_json("p.json", text, n, &e);
	REQUIRE(q);
	CHECK_EQ_U64(q->nhz, 300 * 300);
	CHECK_EQ_U64(q->nha, 600);
	dp_plan_free(q);
	free(text);
	run_free(&r);
	free(m);
}

/* A hand-made plan: three shared tensors on the given cores and bytes. */
static struct dp_plan *three(unsigned ca, int wa, unsigned cb, int wb,
			     unsigned cc, int wc)
{
	char t[4096], *parts[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	FILE *f[2];
	struct dp_err e;
	struct dp_plan *p;
	unsigned k, core[3] = { ca, cb, cc };
	int w[3] = { wa, wb, wc };
	uint64_t lo[3] = { 0, 8192, 4096 };
	const char *name[3] = { "a", "b", "c" };
	int first[2] = { 1, 1 };

	f[0] = open_memstream(&parts[0], &len[0]);
	f[1] = open_memstream(&parts[1], &len[1]);
	for (k = 0; k < 3; k++) {
		fprintf(f[core[k]], "%s{\"id\": %u, \"name\": \"%s\", \"address\": %llu, \"size\": 8192, \"bytes\": 8192, \"region\": \"shared\", \"collective\": false, \"shared\": true, \"reads\": %s, \"writes\": %s, \"intervals\": [[0, 1]]}",
			first[core[k]] ? "" : ", ", k, name[k],
			(unsigned long long)lo[k], w[k] ? "false" : "true",
			w[k] ? "true" : "false");
		first[core[k]] = 0;
	}
	fclose(f[0]);
	fclose(f[1]);
	snprintf(t, sizeof(t), "{\"format\": \"dramplan-plan/1\", \"page_size\": 4096, \"hwm\": 0, \"floor\": 0, "
		 "\"cc\": {\"base\": 0, \"limit\": 0, \"size\": 0}, \"ceiling\": 1048576, "
		 "\"cores\": [{\"tensors\": [%s]}, {\"tensors\": [%s]}]}", parts[0], parts[1]);
	free(parts[0]);
	free(parts[1]);
	p = dp_plan_parse_json("h.json", t, strlen(t), &e);
	if (!p)
		printf("#   %s\n", e.msg);
	return p;
}

/* The number of hazard ranges three() gives; -1 when the plan fails. */
static long ranges_of(int c0, int c1, int c2, int w0, int w1, int w2)
{
	struct dp_plan *p = three(c0, c1, c2, w0, w1, w2);
	long n = p ? (long)p->nhg : -1;

	dp_plan_free(p);
	return n;
}

TEST(range_reported_only_with_a_real_pair)
{
	struct dp_plan *p;

	/* a: core 0 writes [0,8K); b: core 1 reads [8K,16K); c: core 0 reads
	 * [4K,12K) bridges them into one range, but no pair on different
	 * cores overlaps with a write: nothing to order */
	CHECK_EQ_U64(ranges_of(0, 1, 1, 0, 0, 0), 0);
	/* c on core 1 reads a's bytes: a hazard; the range lists all three */
	p = three(0, 1, 1, 0, 1, 0);
	REQUIRE(p);
	REQUIRE(p->nhg == 1);
	CHECK_EQ_U64(p->hg[0].lo, 0);
	CHECK_EQ_U64(p->hg[0].hi, 16384);
	CHECK_EQ_U64(p->hg[0].n, 3);
	CHECK_EQ_U64(p->hg[0].ncores, 2);
	dp_plan_free(p);
	/* b writes on core 1, c reads it on core 0 */
	CHECK_EQ_U64(ranges_of(0, 0, 1, 1, 0, 0), 1);
	/* everything on one core: never a cross-core hazard */
	CHECK_EQ_U64(ranges_of(0, 1, 0, 1, 0, 1), 0);
}

int main(void)
{
	return tap_run();
}
