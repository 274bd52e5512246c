// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_model - libFuzzer harness for the JSON model: read it; if it is a
 * model, write it and read it back (same bytes), plan it (the whole
 * pipeline, with a small --dram-size and an auto CC buffer every other
 * input, so the limits are reached), and check the plan (fuzz.h).
 */
#include "fuzz.h"

FUZZ_CODEC(model, struct dp_model, dp_model_write_json, dp_model_parse_json,
	   "fuzz.json")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dp_err e = { "" };
	struct dp_model *m;
	struct dp_opts o;
	struct dp_plan *p;

	m = dp_model_parse_json("fuzz.json", (const char *)data, size, &e);
	fuzz_msg(&e);
	if (!m)
		return 0;
	dp_model_free(fuzz_round_trip(fuzz_write_model, fuzz_read_model, m, "model"));
	dp_opts_default(&o);
	if (size & 1) {
		o.dram_mib = 64;
		o.cc_mib = -1;
	}
	p = dp_plan_model(m, &o, NULL, &e);
	fuzz_msg(&e);
	if (p) {
		/* not must_verify: some rules live in verify only (pre-placed
		 * tensors that overlap while live), as in the command */
		fuzz_check_plan(p, 0);
		dp_plan_free(p);
	}
	dp_model_free(m);
	return 0;
}
