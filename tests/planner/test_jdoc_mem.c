// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader's memory per input byte.  The document the model is
 * built from must hold at most 2 bytes per input byte on the shapes
 * models have (tensor lists, long def/use lists, the MiniMalloc
 * converter's output, a plan), so that with the model built beside it
 * the reader stays within 4; and it must still read the same values
 * (every reader test runs on it).
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "tap.h"
#include "io/jdoc.h"

static char *text_of(size_t n, int shape, size_t *len)
{
	size_t cap = 200 * (n + 10), o = 0, i;
	char *s = malloc(cap);

	o += sprintf(s + o, "{\"format\": \"dramplan-model/1\", \"model\": \"m\", \"cores\": [{\"core\": 0, \"function\": \"f\", \"tensors\": [\n");
	for (i = 0; i < n; i++)
		o += sprintf(s + o, "%s{\"name\": \"t%zu\", \"elems\": %zu, \"elem_size\": 4%s}",
			     i ? ",\n" : "", i, 1024 + i % 77,
			     shape == 1 ? ", \"usage\": \"spill\"" : "");
	o += sprintf(s + o, "], \"blocks\": [{\"name\": \"entry\", \"succ\": [], \"insts\": [\n");
	if (shape == 2) {	/* one instruction using everything */
		o += sprintf(s + o, "{\"name\": \"all\", \"uses\": [");
		for (i = 0; i < n; i++)
			o += sprintf(s + o, "%s\"t%zu\"", i ? ", " : "", i);
		o += sprintf(s + o, "]}");
	} else {
		for (i = 0; i < n; i++)
			o += sprintf(s + o, "%s{\"name\": \"i%zu\", \"defs\": [\"t%zu\"], \"uses\": [\"t%zu\", \"t%zu\"]}",
				     i ? ",\n" : "", i, i, i / 2, i / 3);
	}
	o += sprintf(s + o, "]}]}]}\n");
	*len = o;
	return s;
}

TEST(document_holds_at_most_two_bytes_per_input_byte)
{
	int shape;

	for (shape = 0; shape < 3; shape++) {
		size_t len;
		char *s = text_of(20000, shape, &len);
		struct dp_err e = { "" };
		struct jdoc d;

		REQUIRE(!jdoc_parse(&d, "m.json", s, len, &e));
		printf("# shape %d: %zu input bytes, %zu held, %.2f a byte\n",
		       shape, len, jdoc_bytes(&d), (double)jdoc_bytes(&d) / len);
		CHECK(jdoc_bytes(&d) <= 2 * len);
		jdoc_free(&d);
		free(s);
	}
}

/* The values read back: types, lengths, strings, keys, numbers. */
TEST(document_reads_back)
{
	static const char text[] = "{\"a\": [1, -2, 3.5, \"x\", true, false, null, [], {}], \"b\": {\"a\": \"\", \"n\": 18446744073709551615}}";
	struct dp_err e = { "" };
	struct jdoc d;
	uint32_t a, b, v;
	uint64_t x;

	REQUIRE(!jdoc_parse(&d, "t.json", text, strlen(text), &e));
	CHECK_EQ_U64(jdoc_type(&d, d.root), J_OBJ);
	CHECK_EQ_U64(jdoc_len(&d, d.root), 2);
	a = jdoc_get(&d, d.root, "a");
	b = jdoc_get(&d, d.root, "b");
	REQUIRE(a != JNONE && b != JNONE);
	CHECK_EQ_U64(jdoc_type(&d, a), J_ARR);
	CHECK_EQ_U64(jdoc_len(&d, a), 9);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 0)), J_NUM);
	CHECK(!jdoc_u64(&d, jdoc_at(&d, a, 0), &x) && x == 1);
	CHECK_EQ_U64(jdoc_u64(&d, jdoc_at(&d, a, 1), &x), -2);
	CHECK_EQ_U64(jdoc_u64(&d, jdoc_at(&d, a, 2), &x), -1);
	CHECK_STR(jdoc_str(&d, jdoc_at(&d, a, 2)), "3.5");
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 3)), J_STR);
	CHECK_STR(jdoc_str(&d, jdoc_at(&d, a, 3)), "x");
	CHECK_EQ_U64(jdoc_u64(&d, jdoc_at(&d, a, 3), &x), -1);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 4)), J_TRUE);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 5)), J_FALSE);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 6)), J_NULL);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 7)), J_ARR);
	CHECK_EQ_U64(jdoc_len(&d, jdoc_at(&d, a, 7)), 0);
	CHECK_EQ_U64(jdoc_type(&d, jdoc_at(&d, a, 8)), J_OBJ);
	CHECK_STR(jdoc_key(&d, b, 0), "a");
	v = jdoc_val(&d, b, 0);
	CHECK_EQ_U64(jdoc_type(&d, v), J_STR);
	CHECK_STR(jdoc_str(&d, v), "");
	CHECK(!jdoc_u64(&d, jdoc_get(&d, b, "n"), &x) && x == UINT64_MAX);
	CHECK(jdoc_get(&d, b, "zz") == JNONE);
	CHECK(jdoc_get(&d, a, "a") == JNONE);
	jdoc_free(&d);
}

int main(void)
{
	return tap_run();
}
