// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_plan - libFuzzer harness for the plan reader (dramplan verify):
 * read a plan; if it reads, verify it (either answer is fine, once) and
 * check the write/read round trip, the SVG and the report (fuzz.h).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dp_err e = { "" };
	struct dp_plan *p;

	p = dp_plan_parse_json("fuzz.plan.json", (const char *)data, size, &e);
	fuzz_msg(&e);
	if (!p)
		return 0;
	fuzz_check_plan(p, 0);
	dp_plan_free(p);
	return 0;
}
