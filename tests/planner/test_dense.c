// SPDX-License-Identifier: GPL-2.0
/*
 * The placement engines give the same answer (place.c, dense.c).
 *
 * REFERENCE is the seed's select (adjacency, a heap for simplify, the
 * placed neighbours' ranges sorted again for every placement); INCREMENTAL
 * forces dense.c (no adjacency: a k-d tree for simplify with multi-interval
 * items as listed exceptions, the address tree for every placement); AUTO
 * is what dramplan runs.  On random item sets of many shapes (sparse, windows, all live,
 * nested, several intervals, items without intervals; page rule on and
 * off, alignments, tight ceilings that make placements fail, every order)
 * and on random and all-live models through the whole pipeline (pre-placed
 * tensors, the CC buffer, several cores, shared tensors), every address,
 * every failure, the edge counts and the whole report must be equal.
 * Also: the k-d order against the heap on a brute-force adjacency, and
 * verify's O(log n) sweep against the previous O(n^2) one (kept here).
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "internal.h"
#include "place/place.h"
#include "plan/plan.h"
#include "tap.h"
#include "xorshift.h"

#define PG 4096ULL

enum family { F_SPARSE, F_WINDOW, F_ALL_LIVE, F_NESTED, F_MIXED, F_MULTI,
	      F_COUNT };

static const char *const fname[] = { "sparse", "window", "all-live", "nested",
				     "mixed", "multi" };

struct inst {
	struct dp_item *it;
	struct dp_iv *iv;
	size_t n, niv;
	uint64_t start, ceiling, page;
};

static uint64_t R(uint64_t *rs, uint64_t n)
{
	return xorshift64_below(rs, n);
}

static void gen(struct inst *x, enum family f, size_t n, uint64_t *rs)
{
	size_t i, cap = 3 * n + 1;
	uint64_t T = 1 + R(rs, 4 * n + 1), W = 1 + R(rs, n + 1);
	int page_mode = R(rs, 3) != 0, pagesz = R(rs, 2);
	int dense_multi = f == F_MULTI && R(rs, 2);

	x->n = n;
	x->it = calloc(n ? n : 1, sizeof(*x->it));
	x->iv = calloc(cap, sizeof(*x->iv));
	x->niv = 0;
	x->page = page_mode ? PG : 0;
	x->start = R(rs, 2) ? 0 : (R(rs, 2) ? PG * R(rs, 8) : R(rs, 20000));
	x->ceiling = UINT64_MAX;
	for (i = 0; i < n; i++) {
		struct dp_item *t = &x->it[i];
		uint32_t k, nk = 1;
		uint64_t lo = 0, hi = 0;

		if (pagesz)
			t->size = PG * (1 + R(rs, 16));
		else
			t->size = 1 + R(rs, R(rs, 2) ? 5000 : 70000);
		t->align = page_mode ? 1 : (R(rs, 2) ? 1 : 1ULL << R(rs, 13));
		t->addr = DP_UNSET;
		t->iv_first = x->niv;
		if (f == F_MULTI)
			nk = R(rs, 8) ? 1 + R(rs, 3) : 0;	/* some without */
		for (k = 0; k < nk; k++) {
			switch (f) {
			case F_SPARSE:
				lo = R(rs, T);
				hi = lo + R(rs, 4);
				break;
			case F_WINDOW:
				lo = R(rs, T);
				hi = lo + R(rs, W);
				break;
			case F_ALL_LIVE:	/* every interval holds time T */
				lo = R(rs, T + 1);
				hi = T + R(rs, 50);
				break;
			case F_NESTED:
				lo = i;
				hi = 2 * n - i;
				break;
			case F_MIXED:
				lo = R(rs, T);
				hi = lo + (R(rs, 4) ? R(rs, 5) : R(rs, 4 * n + 1));
				break;
			default:		/* several, any order */
				lo = R(rs, T);
				hi = lo + R(rs, 1 + W / 4);
				if (dense_multi && k == 0) {	/* most hold T */
					lo = R(rs, T + 1);
					hi = T + R(rs, 50);
				}
				break;
			}
			x->iv[x->niv].lo = lo;
			x->iv[x->niv].hi = hi;
			x->niv++;
		}
		t->iv_count = x->niv - t->iv_first;
	}
	if (!R(rs, 30)) {	/* times up against 2^64 - 1 */
		uint64_t top = 0;

		for (i = 0; i < x->niv; i++)
			if (x->iv[i].hi > top)
				top = x->iv[i].hi;
		for (i = 0; i < x->niv; i++) {
			x->iv[i].lo += UINT64_MAX - top;
			x->iv[i].hi += UINT64_MAX - top;
		}
	}
}

static void inst_free(struct inst *x)
{
	free(x->it);
	free(x->iv);
}

struct result {
	int rc;
	size_t failed;
	uint64_t *addr;
	size_t edges;
};

static void run_place(const struct inst *x, enum dp_engine eng,
		      enum dp_order ord, uint64_t ceiling, struct result *r)
{
	struct dp_item *it = malloc((x->n ? x->n : 1) * sizeof(*it));
	struct dp_place_stats st = { 0 };
	size_t i;

	memcpy(it, x->it, x->n * sizeof(*it));
	r->failed = SIZE_MAX;
	r->rc = dp_place(DP_PROBLEM(.it = it, .n = x->n, .iv = x->iv,
				    .start = x->start, .ceiling = ceiling,
				    .page = x->page), ord, eng, &st, &r->failed,
			 NULL, "");
	r->addr = malloc((x->n ? x->n : 1) * sizeof(*r->addr));
	for (i = 0; i < x->n; i++)
		r->addr[i] = it[i].addr;
	r->edges = r->rc ? 0 : st.edges;
	free(it);
}

static int same(const struct inst *x, const struct result *a,
		const struct result *b)
{
	size_t i;

	if (a->rc != b->rc || a->failed != b->failed || a->edges != b->edges)
		return 0;
	for (i = 0; i < x->n; i++)
		if (a->addr[i] != b->addr[i])
			return 0;
	return 1;
}

TEST(engines_agree_on_random_item_sets)
{
	uint64_t rs = 0x5eed;
	int round, fam_runs[F_COUNT] = { 0 }, fails = 0, dense_auto = 0, huge = 0;
	int bad = 0;

	for (round = 0; round < 2400; round++) {
		enum family f = round % F_COUNT;
		size_t n = 1 + R(&rs, round % 10 ? 120 : 700);
		struct inst x;
		enum dp_order ord = R(&rs, 3) ? DP_ORDER_SIMPLIFY : R(&rs, 4);
		struct result ref, inc, aut;
		uint64_t ceiling = UINT64_MAX;

		gen(&x, f, n, &rs);
		if (n > 2 && R(&rs, 25) == 0) {
			/* sizes whose sum would saturate a pressure: AUTO keeps
			 * the adjacency (and still selects through the tree) */
			x.it[0].size = UINT64_MAX / 2;
			x.it[n - 1].size = UINT64_MAX / 2;
			huge++;
		}
		if (R(&rs, 4) == 0) {
			/* a ceiling some placements do not fit under */
			run_place(&x, DP_ENGINE_REFERENCE, ord, UINT64_MAX, &ref);
			{
				uint64_t top = 0;
				size_t i;

				for (i = 0; i < n; i++)
					if (ref.addr[i] + x.it[i].size > top)
						top = ref.addr[i] + x.it[i].size;
				ceiling = x.start + (top - x.start) * (3 + R(&rs, 5)) / 8 + 1;
			}
			free(ref.addr);
		}
		run_place(&x, DP_ENGINE_REFERENCE, ord, ceiling, &ref);
		run_place(&x, DP_ENGINE_INCREMENTAL, ord, ceiling, &inc);
		run_place(&x, DP_ENGINE_AUTO, ord, ceiling, &aut);
		fam_runs[f]++;
		fails += ref.rc != 0;
		if (!same(&x, &ref, &inc) || !same(&x, &ref, &aut)) {
			if (bad++ < 5)
				printf("#   round %d (%s, n %zu, order %d, page %llu): ref rc %d failed %zu edges %zu; inc rc %d failed %zu edges %zu; auto rc %d edges %zu\n",
				       round, fname[f], n, ord,
				       (unsigned long long)x.page, ref.rc,
				       ref.failed, ref.edges, inc.rc, inc.failed,
				       inc.edges, aut.rc, aut.edges);
			CHECK(0);
		}
		if (f != F_MULTI && n >= 64 && ref.edges > 32 * n)
			dense_auto++;
		free(ref.addr);
		free(inc.addr);
		free(aut.addr);
		inst_free(&x);
	}
	printf("# %d item sets: sparse %d, window %d, all-live %d, nested %d, mixed %d, multi %d; %d with failed placements; %d dense enough for AUTO's incremental path; %d with sizes near 2^63\n",
	       round, fam_runs[0], fam_runs[1], fam_runs[2], fam_runs[3],
	       fam_runs[4], fam_runs[5], fails, dense_auto, huge);
	CHECK(fails > 50);
	CHECK(dense_auto > 100);
}

static int items_overlap(const struct inst *x, size_t i, size_t j)
{
	uint32_t a, b;

	for (a = 0; a < x->it[i].iv_count; a++)
		for (b = 0; b < x->it[j].iv_count; b++) {
			const struct dp_iv *p = &x->iv[x->it[i].iv_first + a];
			const struct dp_iv *q = &x->iv[x->it[j].iv_first + b];

			if (p->lo <= q->hi && q->lo <= p->hi)
				return 1;
		}
	return 0;
}

/* The k-d tree simplify (with multi-interval exceptions) against the heap
 * over a brute-force adjacency. */
TEST(kd_simplify_matches_heap)
{
	uint64_t rs = 991;
	int round;

	for (round = 0; round < 900; round++) {
		enum family f = round % F_COUNT;
		size_t n = 1 + R(&rs, 300), i, j, ne = 0;
		struct inst x;
		uint32_t *first, *adj, *o1, *o2;

		gen(&x, f, n, &rs);
		if (round % 7 == 0)	/* many equal sizes: ties everywhere */
			for (i = 0; i < n; i++)
				x.it[i].size = PG;
		first = malloc((n + 1) * sizeof(*first));
		adj = malloc((n * n + 1) * sizeof(*adj));
		o1 = malloc(n * sizeof(*o1));
		o2 = malloc(n * sizeof(*o2));
		for (i = 0; i < n; i++) {
			first[i] = ne;
			for (j = 0; j < n; j++)
				if (j != i && items_overlap(&x, i, j))
					adj[ne++] = j;
		}
		first[n] = ne;
		dp_simplify_order(x.it, n, first, adj, o1);
		REQUIRE(!dp_simplify_order_iv(x.it, n, x.iv, o2));
		if (memcmp(o1, o2, n * sizeof(*o1))) {
			printf("#   round %d (%s, n %zu): orders differ\n", round,
			       fname[f], n);
			CHECK(0);
		}
		free(first);
		free(adj);
		free(o1);
		free(o2);
		inst_free(&x);
	}
}

TEST(kd_simplify_small_cases)
{
	struct dp_item it[3] = { { .size = 1, .iv_first = 0, .iv_count = 2 },
				 { .size = 1, .iv_first = 2, .iv_count = 1 },
				 { .size = 3, .iv_first = 3, .iv_count = 0 } };
	struct dp_iv iv[3] = { { 0, 1 }, { 3, 4 }, { 4, 6 } };
	uint32_t out[3];

	/* 0 and 1 interfere through 0's second interval: pressures 2, 2, 3;
	 * 0 goes first (index), then 1 (pressure 1), then 2: placed 2, 1, 0 */
	REQUIRE(!dp_simplify_order_iv(it, 3, iv, out));
	CHECK(out[0] == 2 && out[1] == 1 && out[2] == 0);
	it[0].size = UINT64_MAX - 1;
	CHECK(dp_simplify_order_iv(it, 3, iv, out) == -1);	/* would saturate */
}

/* Items without intervals are nobody's neighbours, even for an item live
 * over all of time. */
TEST(engines_agree_on_edge_cases)
{
	struct dp_item it[5] = {
		{ .size = 8192, .iv_first = 0, .iv_count = 0 },
		{ .size = 4096, .iv_first = 0, .iv_count = 1 },
		{ .size = 4096, .iv_first = 1, .iv_count = 0 },
		{ .size = 12288, .iv_first = 1, .iv_count = 1 },
		{ .size = 4096, .iv_first = 2, .iv_count = 2 },
	};
	struct dp_iv iv[4] = { { 0, UINT64_MAX }, { 5, 5 }, { 0, 0 },
			       { UINT64_MAX, UINT64_MAX } };
	struct inst x = { .it = it, .iv = iv, .n = 5, .niv = 4, .start = 0,
			  .ceiling = UINT64_MAX, .page = PG };
	int ord;

	for (ord = 0; ord < 4; ord++) {
		struct result ref, inc;

		run_place(&x, DP_ENGINE_REFERENCE, ord, UINT64_MAX, &ref);
		run_place(&x, DP_ENGINE_INCREMENTAL, ord, UINT64_MAX, &inc);
		CHECK(same(&x, &ref, &inc));
		free(ref.addr);
		free(inc.addr);
	}
}

/* ---- whole models -------------------------------------------------------- */

struct planned {
	struct dp_plan *p;
	char *log;
	size_t loglen;
	char err[1024];
};

static void plan_with(struct dp_model *m, const struct dp_opts *o,
		      enum dp_engine eng, struct planned *r)
{
	struct dp_err e = { "" };
	FILE *log = open_memstream(&r->log, &r->loglen);
	struct dp_opts oe = *o;

	oe.engine = eng;
	r->p = dp_plan_model(m, &oe, log, &e);
	fclose(log);
	snprintf(r->err, sizeof(r->err), "%s", r->p ? "" : e.msg);
}

static int plans_equal(const struct planned *a, const struct planned *b)
{
	uint32_t ci, k;

	if (strcmp(a->err, b->err) || strcmp(a->log, b->log))
		return 0;
	if (!a->p || !b->p)
		return !a->p && !b->p;
	if (a->p->ncores != b->p->ncores || a->p->cc_size != b->p->cc_size ||
	    a->p->shared_end != b->p->shared_end ||
	    a->p->total_bytes != b->p->total_bytes || a->p->nhz != b->p->nhz)
		return 0;
	for (ci = 0; ci < a->p->ncores; ci++) {
		if (a->p->core[ci].n != b->p->core[ci].n ||
		    a->p->core[ci].peak != b->p->core[ci].peak)
			return 0;
		for (k = 0; k < a->p->core[ci].n; k++)
			if (a->p->core[ci].t[k].addr != b->p->core[ci].t[k].addr)
				return 0;
	}
	return 1;
}

static void planned_free(struct planned *r)
{
	dp_plan_free(r->p);
	free(r->log);
}

/*
 * An all-live model: every spill of a core is defined by one instruction
 * and used by the last one, so all are live together.  Pre-placed inputs,
 * some spills are collective operands (CC buffer), and on two or three
 * cores shared owners with links.  Single block: one interval per tensor
 * (shared objects get one per core that touches them).
 */
static struct dp_model *all_live_model(uint64_t seed, uint32_t n,
				       struct dp_err *e)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 5;
	uint32_t nc = 1 + R(&rs, 3), ci, i, nown = nc > 1 ? R(&rs, 4) : 0;
	struct dp_model *m = dp_model_new("alllive.json", "alllive");
	char name[32], rname[32];

	for (ci = 0; ci < nc; ci++) {
		struct dp_core *c = dp_core_add(m, "f", e);
		uint32_t nin = R(&rs, 3), nt, *all, na = 0;

		if (!c)
			goto fail;
		for (i = 0; i < nin; i++) {
			struct dp_tensor_spec s = { .name = name, .elems = 1 + R(&rs, 9000),
				.elem_size = 4, .usage = DP_USE_INPUT, .has_addr = 1,
				.addr = PG * 16 * i };

			snprintf(name, sizeof(name), "in%u", i);
			if (dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
		}
		for (i = 0; i < nown; i++) {
			struct dp_tensor_spec s = { .name = name, .elems = 1000 + 999 * i,
				.elem_size = 4, .shared = 1 };

			if (i % nc == ci) {
				snprintf(name, sizeof(name), "sh%u", i);
			} else {
				snprintf(name, sizeof(name), "peer_sh%u", i);
				snprintf(rname, sizeof(rname), "sh%u", i);
				s.has_remote = 1;
				s.remote_core = i % nc;
				s.remote_name = rname;
			}
			if (dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
		}
		for (i = 0; i < n; i++) {
			struct dp_tensor_spec s = { .name = name,
				.elems = 1 + R(&rs, R(&rs, 2) ? 4000 : 300000),
				.elem_size = 1 << R(&rs, 3) };

			snprintf(name, sizeof(name), "t%u", i);
			if (dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
		}
		nt = c->nt;
		all = malloc(nt * sizeof(*all));
		if (dp_block_add(m, c, "entry", "gen", e) < 0) {
			free(all);
			goto fail;
		}
		for (i = nin; i < nt; i++) {
			uint32_t def = i, use = nin ? R(&rs, nin) : 0;
			int coll = R(&rs, 12) == 0, rc;

			if (c->t[i].shared)	/* defined at entry: just use it */
				rc = dp_inst_add(m, c, 0, "u", NULL, 0, &def, 1,
						 coll, "gen", e);
			else
				rc = dp_inst_add(m, c, 0, "d", &def, 1, &use,
						 nin ? 1 : 0, coll, "gen", e);
			if (rc)
				break;
			all[na++] = i;
		}
		if (i < nt ||
		    dp_inst_add(m, c, 0, "all", NULL, 0, all, na, 0, "gen", e)) {
			free(all);
			goto fail;
		}
		free(all);
	}
	return link_or_free(m, e);
fail:
	dp_model_free(m);
	return NULL;
}

static int compare_model(struct dp_model *(*make)(uint64_t, void *, struct dp_err *),
			 void *arg, uint64_t seed, const struct dp_opts *o)
{
	static const enum dp_engine eng[] = { DP_ENGINE_REFERENCE,
		DP_ENGINE_INCREMENTAL, DP_ENGINE_AUTO };
	struct planned r[3];
	int i, ok = 1;

	for (i = 0; i < 3; i++) {
		struct dp_err e;
		struct dp_model *m = make(seed, arg, &e);

		if (!m) {
			printf("#   seed %llu: generator: %s\n",
			       (unsigned long long)seed, e.msg);
			return 0;
		}
		memset(&r[i], 0, sizeof(r[i]));
		plan_with(m, o, eng[i], &r[i]);
		dp_model_free(m);
	}
	for (i = 1; i < 3; i++)
		if (!plans_equal(&r[0], &r[i])) {
			printf("#   seed %llu: engine %d differs from the reference%s%s\n",
			       (unsigned long long)seed, eng[i],
			       r[0].err[0] ? ": " : "", r[0].err);
			ok = 0;
		}
	if (ok && r[0].p) {
		struct dp_err e;

		if (dp_verify(r[0].p, NULL, &e)) {
			printf("#   seed %llu: verify: %s\n",
			       (unsigned long long)seed, e.msg);
			ok = 0;
		}
	}
	for (i = 0; i < 3; i++)
		planned_free(&r[i]);
	return ok;
}

static struct dp_model *make_random(uint64_t seed, void *arg, struct dp_err *e)
{
	return random_model(arg, seed, e);
}

static struct dp_model *make_all_live(uint64_t seed, void *arg, struct dp_err *e)
{
	return all_live_model(seed, *(uint32_t *)arg, e);
}

TEST(engines_agree_on_random_models)
{
	/* test_random.c's shape, a denser one and a wide one (cores, owners,
	 * spills a core, blocks, input/owner/spill elements, sizes) */
	static const struct model_shape dense = { 1, 2, 0, 8, 60, 200, 2, 20000, 300000, 400000, 3, 0 };
	static const struct model_shape wide = { 2, 4, 4, 16, 10, 80, 12, 20000, 30000, 50000, 3, 0 };
	const struct model_shape *shapes[] = { &shape_random, &dense, &wide };
	int ok = 0, total = 0;
	uint64_t seed;

	for (seed = 1; seed <= 450; seed++) {
		struct dp_opts o;

		dp_opts_default(&o);
		o.cc_mib = seed % 3 == 0 ? -1 : seed % 3 == 1 ? 500 : 1;
		if (seed % 5 == 0)
			o.dram_mib = 2 + seed % 7;	/* some run out */
		ok += compare_model(make_random, (void *)shapes[seed % 3],
				    seed, &o);
		total++;
	}
	printf("# %d random models (3 shapes, 1-4 cores, shared, CC fixed/auto/tight, small ceilings)\n",
	       total);
	CHECK_EQ_U64(ok, total);
}

TEST(engines_agree_on_all_live_models)
{
	uint64_t seed;
	int ok = 0, total = 0;

	for (seed = 1; seed <= 60; seed++) {
		uint32_t n = 20 + (uint32_t)(seed * 37 % 380);
		struct dp_opts o;

		dp_opts_default(&o);
		o.cc_mib = seed % 2 ? -1 : 64;
		if (seed % 6 == 0)
			o.dram_mib = 40;	/* some do not fit */
		ok += compare_model(make_all_live, &n, seed, &o);
		total++;
	}
	printf("# %d all-live models (20-400 tensors a core, 1-3 cores)\n", total);
	CHECK_EQ_U64(ok, total);
}

/* ---- verify's sweep: the previous version, to compare messages ---------- */

/* Over the same intervals in the same order as dp_sweep_disjoint's */
static int old_sweep(const struct dp_core_plan *c, const char *file,
		     struct dp_err *e)
{
	struct dp_sweep_iv *v = malloc((c->niv ? c->niv : 1) * sizeof(*v));
	struct dp_sweep_iv **act = malloc((c->niv ? c->niv : 1) * sizeof(*act));
	size_t n = 0, i, j, nact = 0;
	uint32_t k, q;
	int rc = 0;

	for (k = 0; k < c->n; k++)
		for (q = 0; q < c->t[k].iv_count; q++) {
			const struct dp_iv *iv = &c->iv[c->t[k].iv_first + q];

			v[n].lo = iv->lo;
			v[n].hi = iv->hi;
			v[n].t = k;
			n++;
		}
	qsort(v, n, sizeof(*v), dp_sweep_iv_cmp);
	for (i = 0; i < n && !rc; i++) {
		const struct dp_plan_tensor *a = &c->t[v[i].t];
		size_t w = 0;

		for (j = 0; j < nact; j++)
			if (act[j]->hi >= v[i].lo)
				act[w++] = act[j];
		nact = w;
		for (j = 0; j < nact; j++) {
			const struct dp_plan_tensor *b = &c->t[act[j]->t];

			if (act[j]->t == v[i].t)
				continue;
			if (a->addr < b->addr + b->size && b->addr < a->addr + a->size) {
				rc = dp_fail(e, "%s: core %u: tensors '%s' [0x%llx, 0x%llx) and '%s' [0x%llx, 0x%llx) overlap in DRAM while both live at time %llu (interfering tensors must be disjoint)",
					     file, c->core, b->name,
					     (unsigned long long)b->addr,
					     (unsigned long long)(b->addr + b->size),
					     a->name, (unsigned long long)a->addr,
					     (unsigned long long)(a->addr + a->size),
					     (unsigned long long)v[i].lo);
				break;
			}
		}
		act[nact++] = &v[i];
	}
	free(v);
	free(act);
	return rc;
}

/* Two in three seeds a random model, the others all live */
static struct dp_model *sweep_model(uint64_t seed, struct dp_err *e)
{
	/* cores, owners, spills, blocks, input/owner/spill elements, sizes */
	static const struct model_shape shape = { 1, 3, 0, 6, 4, 120, 6, 20000, 30000, 50000, 3, 0 };

	return seed % 3 ? random_model(&shape, seed, e) :
	       all_live_model(seed, 30 + seed % 200, e);
}

/* Up to 2 tensors of c moved onto others (none in round 0), then both
 * sweeps */
static int sweep_round(struct dp_plan *p, struct dp_core_plan *c, int round,
		       uint64_t *rs, int r[2], struct dp_err e[2])
{
	int moves = R(rs, 3), mv;

	(void)p;
	for (mv = 0; round && c->n && mv < moves; mv++) {
		struct dp_plan_tensor *t = &c->t[R(rs, c->n)];
		const struct dp_plan_tensor *u = &c->t[R(rs, c->n)];

		switch (R(rs, 4)) {
		case 0:
			t->addr = u->addr;
			break;
		case 3:		/* a tensor's own intervals overlap */
			if (t->iv_count >= 2)
				c->iv[t->iv_first].hi = c->iv[t->iv_first + 1].hi;
			else
				t->addr = u->addr;
			break;
		case 1:
			t->addr = u->addr + u->size - PG * (1 + R(rs, 2));
			break;
		default:
			t->addr = t->addr >= PG ? t->addr - PG : t->addr + PG;
			break;
		}
	}
	r[0] = dp_verify_sweep(c, "plan", &e[0]);
	r[1] = old_sweep(c, "plan", &e[1]);
	return 0;
}

/* Good plans, then tensors moved onto others: both sweeps say the same. */
TEST(verify_sweep_same_messages_as_before)
{
	uint64_t rs = 4242;
	struct agree ag = { 0 };

	REQUIRE(!agree_on_mutations(&ag, 300, 12, &rs, sweep_model,
				    sweep_round));
	printf("# %d plans (random and all-live models, tensors moved), %d rejected by the sweep\n",
	       ag.total, ag.rejected);
	CHECK_EQ_U64(ag.same, ag.total);
	CHECK(ag.rejected > 500);
}

int main(void)
{
	return tap_run();
}
