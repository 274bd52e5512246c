// SPDX-License-Identifier: GPL-2.0
/*
 * bench-synth.c - the synthetic models of the planner benchmarks
 * (bench-planner.c plans them in-process, bench-file.c writes them out and
 * runs the command on them): one generator, so both measure one model.
 *
 * bench_synth: one core, n tensors in blocks of 512 instructions;
 * instruction i defines tensor i and uses up to 3 of the W tensors defined
 * before it, and every 8th block loops on itself (bounded overlap).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench-synth.h"
#include "xorshift.h"

/* The benchmark's own allocations: out of memory ends the run. */
static void *xrealloc(void *p, size_t n, size_t sz)
{
	p = realloc(p, n * sz > 0 ? n * sz : 1);
	if (!p) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * Both families' tensors t0..t(n-1), drawn in a fixed order (up to 4 MiB
 * each), and their empty blocks b0..b(nb-1).
 */
static int tensors_and_blocks(struct dp_model *m, struct dp_core *c,
			      uint32_t n, uint32_t nb, uint64_t *rs,
			      struct dp_err *e)
{
	char name[32];
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct dp_tensor_spec s = { .name = name };

		/* two statements: the draws' order is fixed */
		s.elems = 1 + xorshift64_below(rs, 1u << 20);
		s.elem_size = 1u << xorshift64_below(rs, 3);
		snprintf(name, sizeof(name), "t%u", i);
		if (s.elems * s.elem_size > (4u << 20))
			s.elem_size = 1;
		if (dp_tensor_add(m, c, &s, "synth", e) < 0)
			return -1;
	}
	for (i = 0; i < nb; i++) {
		snprintf(name, sizeof(name), "b%u", i);
		if (dp_block_add(m, c, name, "synth", e) < 0)
			return -1;
	}
	return 0;
}

/* m linked, or NULL (freed, the error on stderr) when err or linking fails */
static struct dp_model *linked(struct dp_model *m, int err, struct dp_err *e)
{
	if (!err && !dp_model_link(m, e))
		return m;
	fprintf(stderr, "bench: generator: %s\n", e->msg);
	dp_model_free(m);
	return NULL;
}

struct dp_model *bench_synth(uint32_t n, uint32_t W, uint64_t seed)
{
	uint64_t rs = seed | 1;
	struct dp_model *m = dp_model_new("synthetic", "synthetic");
	struct dp_err e;
	struct dp_core *c = dp_core_add(m, "f", &e);
	uint32_t i, nb = (n + 511) / 512, b;

	if (tensors_and_blocks(m, c, n, nb, &rs, &e))
		goto fail;
	for (i = 0; i < n; i++) {
		uint32_t uses[3], nu = 0, k, want = 1 + xorshift64_below(&rs, 3);

		b = i / 512;
		for (k = 0; k < want && i > 0; k++)
			uses[nu++] = i - 1 - xorshift64_below(&rs, i < W ? i : W);
		if (dp_inst_add(m, c, b, NULL, &i, 1, uses, nu, 0, "synth", &e))
			goto fail;
		if (i % 512 == 511 || i == n - 1) {
			if (b % 8 == 7 && dp_succ_add(c, b, b, &e))
				goto fail;
			if (b + 1 < nb && dp_succ_add(c, b, b + 1, &e))
				goto fail;
		}
	}
	return linked(m, 0, &e);
fail:
	return linked(m, -1, &e);
}

/*
 * The all-live family: the same tensors and blocks, but instruction i
 * defines tensor i and uses nothing, and one last instruction uses every
 * tensor -- so all n are live at once (every pair interferes, n^2/2
 * edges), the case where the live set is the whole model (training graphs,
 * big collectives).  No loops: one interval per tensor.
 */
struct dp_model *bench_synth_all_live(uint32_t n, uint64_t seed)
{
	uint64_t rs = seed | 1;
	struct dp_model *m = dp_model_new("all-live", "all-live");
	struct dp_err e;
	struct dp_core *c = dp_core_add(m, "f", &e);
	uint32_t i, nb = (n + 511) / 512, b, *all;

	if (tensors_and_blocks(m, c, n, nb, &rs, &e))
		goto fail;
	for (i = 0; i < n; i++) {
		b = i / 512;
		if (dp_inst_add(m, c, b, NULL, &i, 1, NULL, 0, 0, "synth", &e))
			goto fail;
		if ((i % 512 == 511 || i == n - 1) && b + 1 < nb &&
		    dp_succ_add(c, b, b + 1, &e))
			goto fail;
	}
	all = xrealloc(NULL, n ? n : 1, sizeof(*all));
	for (i = 0; i < n; i++)
		all[i] = i;
	i = dp_inst_add(m, c, nb - 1, "use_all", NULL, 0, all, n, 0, "synth", &e);
	free(all);
	return linked(m, i ? -1 : 0, &e);
fail:
	return linked(m, -1, &e);
}

/*
 * The training family (bench-quality): `cores` cores, each running the same
 * L-layer training step -- per layer a weight w (defined by "init", used in
 * the forward, the backward and the update: long-lived), a forward
 * temporary t (used again 1-4 layers later: lifetimes that cross), an
 * activation a (even layers: saved, forward to backward, nested lifetimes;
 * odd layers: checkpointed, the backward reads t instead),
 * an activation gradient d and a weight gradient g that every core shares
 * (owner on core 0, linked on the others) and all-reduces with a collective
 * instruction.  About 6 tensors per layer and core; n is the total.
 */
struct dp_model *bench_synth_train(uint32_t n, uint32_t cores, uint64_t seed)
{
	static const char *const kind = "wtadg";
	uint64_t rs = seed | 1, sz[5];
	uint32_t L = n / (6 * cores) ? n / (6 * cores) : 1, ci, l, k, id[5];
	struct dp_model *m = dp_model_new("training", "training");
	struct dp_err e;
	char name[48];

	for (ci = 0; ci < cores; ci++) {
		struct dp_core *c;
		uint32_t *w, u[3], d[2];

		snprintf(name, sizeof(name), "step%u", ci);
		c = dp_core_add(m, name, &e);
		if (!c || dp_block_add(m, c, "entry", "synth", &e) < 0)
			goto fail;
		w = xrealloc(NULL, L, sizeof(*w));
		for (l = 0; l < L; l++) {
			/* the same sizes on every core: the seed is per layer */
			uint64_t r = seed * 1000003 + l;

			rs = r | 1;
			sz[0] = 1 + xorshift64_below(&rs, 1u << 18);	/* w */
			sz[1] = 1 + xorshift64_below(&rs, 1u << 21);	/* t */
			sz[2] = 1 + xorshift64_below(&rs, 1u << 21);	/* a */
			sz[3] = sz[2];					/* d */
			sz[4] = sz[0];					/* g */
			for (k = 0; k < 5; k++) {
				struct dp_tensor_spec s = { .name = name,
					.elems = sz[k], .elem_size = 2 };

				snprintf(name, sizeof(name), "%c%u", kind[k], l);
				s.shared = k == 4;
				if (k == 4 && ci) {
					s.has_remote = 1;
					s.remote_core = 0;
					s.remote_name = name;
				}
				if (dp_tensor_add(m, c, &s, "synth", &e) < 0) {
					free(w);
					goto fail;
				}
			}
			w[l] = 5 * l;
		}
		if (dp_inst_add(m, c, 0, "init", w, L, NULL, 0, 0, "synth", &e))
			goto fail_w;
		for (l = 0; l < L; l++) {	/* forward */
			for (k = 0; k < 5; k++)
				id[k] = 5 * l + k;
			u[0] = id[0];
			u[1] = 5 * (l - 1) + 2;
			/* a temporary of 1-4 layers back: lifetimes that cross */
			rs = (seed * 1000003 + l) | 1;
			k = 1 + xorshift64_below(&rs, 4);
			u[2] = 5 * (l - (k <= l ? k : l)) + 1;
			if (dp_inst_add(m, c, 0, NULL, &id[1], 1, u, l ? 3 : 1, 0, "synth", &e) ||
			    dp_inst_add(m, c, 0, NULL, &id[2], 1, &id[1], 1, 0, "synth", &e))
				goto fail_w;
		}
		for (l = L; l-- > 0;) {		/* backward, all-reduce, update */
			/* checkpointing: odd layers' activations are recomputed */
			u[0] = l % 2 ? 5 * l + 1 : 5 * l + 2;
			u[1] = 5 * l;
			u[2] = 5 * (l + 1) + 3;
			d[0] = 5 * l + 3;
			d[1] = 5 * l + 4;
			if (dp_inst_add(m, c, 0, NULL, d, 2, u, l + 1 < L ? 3 : 2, 0, "synth", &e) ||
			    dp_inst_add(m, c, 0, NULL, NULL, 0, &d[1], 1, 1, "synth", &e))
				goto fail_w;
			u[0] = 5 * l + 4;
			u[1] = 5 * l;
			if (dp_inst_add(m, c, 0, NULL, NULL, 0, u, 2, 0, "synth", &e))
				goto fail_w;
		}
		free(w);
		continue;
fail_w:
		free(w);
		goto fail;
	}
	return linked(m, 0, &e);
fail:
	return linked(m, -1, &e);
}

/*
 * A perfect packing: the rectangle time [0, 2n) x bytes
 * [0, 64n) cut n - 1 times, each time a random piece cut at a random
 * point across time or across bytes (a guillotine cut), and each piece a
 * buffer live over its time range with its height as size.  The pieces
 * tile the rectangle, so at every time the live sizes sum to 64n: the
 * lower bound is 64n, and the pieces' own offsets reach it, so the
 * optimum is the lower bound by construction.  MiniMalloc CSV on f.
 */
void bench_synth_perfect(FILE *f, uint32_t n, uint64_t seed)
{
	struct piece {
		uint64_t t0, t1, h0, h1;
	} *p = malloc((n + 1) * sizeof(*p));
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 1;
	uint32_t k = 1, i, tries = 0;

	if (!p)
		abort();
	p[0] = (struct piece){ 0, 2 * (uint64_t)n, 0, 64 * (uint64_t)n };
	while (k < n && tries < 100 * n) {
		struct piece *a = &p[xorshift64_below(&rs, k)], b = *a;
		int across_time = xorshift64_below(&rs, 2);

		tries++;
		if (across_time && a->t1 - a->t0 >= 2) {
			uint64_t c = a->t0 + 1 + xorshift64_below(&rs, a->t1 - a->t0 - 1);

			a->t1 = c;
			b.t0 = c;
		} else if (!across_time && a->h1 - a->h0 >= 2) {
			uint64_t c = a->h0 + 1 + xorshift64_below(&rs, a->h1 - a->h0 - 1);

			a->h1 = c;
			b.h0 = c;
		} else {
			continue;
		}
		p[k++] = b;
	}
	fprintf(f, "id,lower,upper,size\n");
	for (i = 0; i < k; i++)
		fprintf(f, "p%u,%llu,%llu,%llu\n", i, (unsigned long long)p[i].t0,
			(unsigned long long)p[i].t1,
			(unsigned long long)(p[i].h1 - p[i].h0));
	free(p);
}

/* A staircase: buffer i lives [i, i + w], sizes 1..97 in a fixed
 * pattern; each overlaps its w successors.  MiniMalloc CSV on f. */
void bench_synth_staircase(FILE *f, uint32_t n, uint32_t w)
{
	uint32_t i;

	fprintf(f, "id,lower,upper,size\n");
	for (i = 0; i < n; i++)
		fprintf(f, "s%u,%u,%u,%u\n", i, i, i + w + 1, (i * 7919) % 97 + 1);
}
