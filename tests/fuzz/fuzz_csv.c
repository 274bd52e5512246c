// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_csv - libFuzzer harness for MiniMalloc CSV: read it; if it has no
 * offsets, solve it (every order, with a capacity every other input) and
 * the solution must verify; write it, read it back, write it again: the
 * same bytes, and the read-back verifies too.  A CSV with offsets is
 * verified as `dramplan verify --format=minimalloc` does.
 */
#include "fuzz.h"

FUZZ_CODEC(csv, struct dp_csv, dp_csv_write, dp_csv_parse, "fuzz.solution.csv")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dp_err e = { "" };
	struct dp_place_stats st;
	struct dp_csv *c, *c2;
	enum dp_order used;

	c = dp_csv_parse("fuzz.csv", (const char *)data, size, &e);
	fuzz_msg(&e);
	if (!c)
		return 0;
	if (c->has_offset) {
		dp_csv_verify(c, &e);
		fuzz_msg(&e);
		dp_csv_free(c);
		return 0;
	}
	if (dp_csv_solve_best(c, size & 1 ? 1 << 20 : 0, &st, &used, &e)) {
		fuzz_msg(&e);
		dp_csv_free(c);
		return 0;
	}
	if (dp_csv_verify(c, &e))
		fuzz_die("verify rejects a solution the planner made", e.msg);
	c2 = fuzz_round_trip(fuzz_write_csv, fuzz_read_csv, c, "solution");
	if (dp_csv_verify(c2, &e))
		fuzz_die("a solution read back does not verify", e.msg);
	dp_csv_free(c2);
	dp_csv_free(c);
	return 0;
}
