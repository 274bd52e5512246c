// SPDX-License-Identifier: GPL-2.0
/*
 * dp_liveness against an oracle written the plain way: dataflow over the
 * blocks with one byte per tensor, then every instruction time t walked
 * backward, and a tensor is live at t when t defines it or it is live
 * into t.  Its intervals are the maximal runs of such times.  No bit
 * sets, no per-block emission, no run tracking: a different route to the
 * same intervals, on random models with loops and on all-live models over
 * many blocks (where liveness.c handles tensors live through a block a
 * word at a time).  Tensors defined at the entry (inputs, weights, shared)
 * need nothing here: being live into the entry is what they may be.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/model.h"
#include "planner_util.h"
#include "tap.h"
#include "xorshift.h"

/* 0 when every tensor's intervals are the oracle's. */
static int oracle_core(const struct dp_core *c, char *why, size_t whylen)
{
	size_t nt = c->nt, nb = c->nb, ni = c->ni;
	uint8_t *in = calloc(nb * nt + 1, 1), *out = calloc(nb * nt + 1, 1);
	uint8_t *live = calloc(nt + 1, 1), *cover = calloc(ni * nt + 1, 1);
	uint32_t b, j, x;
	int changed, bad = 0;
	size_t t;

	do {
		changed = 0;
		for (b = nb; b-- > 0;) {
			const struct dp_block *B = &c->b[b];
			uint32_t k;

			memset(live, 0, nt);
			if (!B->nsucc) {
				for (x = 0; x < nt; x++)
					live[x] = c->t[x].usage == DP_USE_OUTPUT;
			}
			for (j = 0; j < B->nsucc; j++) {
				uint32_t s = c->succ[B->succ_first + j];

				for (x = 0; x < nt; x++)
					live[x] |= in[(size_t)s * nt + x];
			}
			memcpy(&out[(size_t)b * nt], live, nt);
			for (k = B->ninst; k-- > 0;) {
				const struct dp_inst *I = &c->in[B->inst_first + k];

				for (j = 0; j < I->ndefs; j++)
					live[c->ops[I->op_first + j]] = 0;
				for (j = 0; j < I->nuses; j++)
					live[c->ops[I->op_first + I->ndefs + j]] = 1;
			}
			if (memcmp(&in[(size_t)b * nt], live, nt)) {
				memcpy(&in[(size_t)b * nt], live, nt);
				changed = 1;
			}
		}
	} while (changed);

	/* live at t: defined at t, or live into t */
	for (b = 0; b < nb; b++) {
		const struct dp_block *B = &c->b[b];
		uint32_t k;

		memcpy(live, &out[(size_t)b * nt], nt);
		for (k = B->ninst; k-- > 0;) {
			const struct dp_inst *I = &c->in[B->inst_first + k];

			for (j = 0; j < I->ndefs; j++) {
				live[c->ops[I->op_first + j]] = 0;
				cover[I->t * nt + c->ops[I->op_first + j]] = 1;
			}
			for (j = 0; j < I->nuses; j++)
				live[c->ops[I->op_first + I->ndefs + j]] = 1;
			for (x = 0; x < nt; x++)
				cover[I->t * nt + x] |= live[x];
		}
	}

	for (x = 0; x < nt && !bad; x++) {
		const struct dp_tensor *T = &c->t[x];
		uint32_t q = 0;

		for (t = 0; t < ni && !bad; t++) {
			size_t lo;

			if (!cover[t * nt + x])
				continue;
			lo = t;
			while (t + 1 < ni && cover[(t + 1) * nt + x])
				t++;
			if (q >= T->iv_count || c->iv[T->iv_first + q].lo != lo ||
			    c->iv[T->iv_first + q].hi != t) {
				snprintf(why, whylen, "core %u tensor '%s': oracle run [%zu,%zu] is not interval %u of %u",
					 c->index, T->name, lo, t, q, T->iv_count);
				bad = 1;
			}
			q++;
		}
		if (!bad && q != T->iv_count) {
			snprintf(why, whylen, "core %u tensor '%s': %u intervals, the oracle %u",
				 c->index, T->name, T->iv_count, q);
			bad = 1;
		}
	}
	free(in);
	free(out);
	free(live);
	free(cover);
	return bad;
}

static int check_model(struct dp_model *m, char *why, size_t whylen)
{
	struct dp_err e;
	uint32_t ci;

	if (dp_number(m, &e) || dp_liveness(m, &e)) {
		snprintf(why, whylen, "%.500s", e.msg);
		return -1;
	}
	for (ci = 0; ci < m->nc; ci++)
		if (oracle_core(&m->c[ci], why, whylen))
			return 1;
	return 0;
}

TEST(liveness_matches_oracle_on_random_models)
{
	static const struct model_shape shapes[] = {
		{ .min_cores = 1, .max_cores = 3, .min_owners = 0, .max_owners = 5,
		  .min_spills = 4, .max_spills = 43, .max_blocks = 5,
		  .input_elems = 20000, .owner_elems = 30000,
		  .spill_elems = 50000, .elem_sizes = 3 },
		{ .min_cores = 1, .max_cores = 2, .min_owners = 0, .max_owners = 8,
		  .min_spills = 20, .max_spills = 200, .max_blocks = 40,
		  .input_elems = 20000, .owner_elems = 30000,
		  .spill_elems = 50000, .elem_sizes = 3 },
		{ .min_cores = 1, .max_cores = 1, .min_owners = 0, .max_owners = 0,
		  .min_spills = 100, .max_spills = 300, .max_blocks = 120,
		  .input_elems = 20000, .owner_elems = 30000,
		  .spill_elems = 50000, .elem_sizes = 3 },
	};
	uint64_t seed;
	int ok = 0;

	for (seed = 1; seed <= 600; seed++) {
		struct dp_err e;
		struct dp_model *m = random_model(&shapes[seed % 3], seed, &e);
		char why[1100] = "";

		REQUIRE(m);
		if (!check_model(m, why, sizeof(why)))
			ok++;
		else if (ok + 5 > (int)seed)
			printf("#   seed %llu: %s\n", (unsigned long long)seed, why);
		dp_model_free(m);
	}
	printf("# 600 random models (up to 120 blocks, loops, 1-3 cores)\n");
	CHECK_EQ_U64(ok, 600);
}

/* Every tensor defined in its own block and all used at the end, over many
 * blocks, some empty, some looping: the live-through runs. */
TEST(liveness_matches_oracle_all_live_blocks)
{
	uint64_t rs = 31;
	int round, ok = 0;

	for (round = 0; round < 60; round++) {
		struct dp_err e;
		struct dp_model *m = dp_model_new("al.json", "al");
		struct dp_core *c = dp_core_add(m, "f", &e);
		uint32_t n = 1 + xorshift64_below(&rs, 300), per = 1 + xorshift64_below(&rs, 9);
		uint32_t nb = 2 * n + 2, i, b, *all;
		char name[32], why[512] = "";

		for (i = 0; i < n; i++) {
			struct dp_tensor_spec s = { .name = name, .elems = 1, .elem_size = 4 };

			snprintf(name, sizeof(name), "t%u", i);
			REQUIRE(dp_tensor_add(m, c, &s, "gen", &e) >= 0);
		}
		for (b = 0; b <= nb; b++) {	/* block nb: the uses */
			snprintf(name, sizeof(name), "b%u", b);
			REQUIRE(dp_block_add(m, c, name, "gen", &e) >= 0);
		}
		all = malloc(n * sizeof(*all));
		b = 0;
		for (i = 0; i < n; i++) {
			REQUIRE(!dp_inst_add(m, c, b, NULL, &i, 1, NULL, 0, 0, "gen", &e));
			if (xorshift64_below(&rs, per) == 0 || i + 1 == n) {
				/* leave b; blocks skipped over stay empty */
				uint32_t to = b + 1 + xorshift64_below(&rs, 2);

				if (to > nb - 1)
					to = nb - 1;
				for (; b < to; b++) {
					if (b && xorshift64_below(&rs, 6) == 0)
						REQUIRE(!dp_succ_add(c, b, b - xorshift64_below(&rs, b), &e));
					REQUIRE(!dp_succ_add(c, b, b + 1, &e));
				}
			}
		}
		for (; b < nb; b++)
			REQUIRE(!dp_succ_add(c, b, b + 1, &e));
		for (i = 0; i < n; i++)
			all[i] = i;
		REQUIRE(!dp_inst_add(m, c, nb, "all", NULL, 0, all, n, 0, "gen", &e));
		free(all);
		REQUIRE(!dp_model_link(m, &e));
		if (!check_model(m, why, sizeof(why)))
			ok++;
		else
			printf("#   round %d: %s\n", round, why);
		dp_model_free(m);
	}
	CHECK_EQ_U64(ok, 60);
}

int main(void)
{
	return tap_run();
}
