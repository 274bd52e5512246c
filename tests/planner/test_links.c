// SPDX-License-Identifier: GPL-2.0
/*
 * Link resolution (dp_model_link) and the link check of dp_verify look
 * owners up by name through an index instead of comparing every pair.
 * The previous O(L^2) versions are kept here (the link check whole; the
 * model's pairwise duplicate scan, after the shared dp_link_targets) to
 * show that the messages are the same on random link sets (good ones and
 * every error), and a model with 20,000 links is linked and verified.
 */
#include <stdlib.h>
#include <string.h>

#include "planner_util.h"
#include "internal.h"
#include "model/model.h"
#include "plan/plan.h"
#include "tap.h"
#include "xorshift.h"

/* ---- the previous implementations ------------------------------------- */

static int old_model_link(struct dp_model *m, struct dp_err *e)
{
	uint32_t ci, i, j;

	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];

		if (dp_link_targets(m, ci, e))
			return -1;
		/* one link per owner per core */
		for (i = 0; i < c->nt; i++) {
			if (!c->t[i].has_remote)
				continue;
			for (j = i + 1; j < c->nt; j++)
				if (c->t[j].has_remote &&
				    c->t[j].remote_core == c->t[i].remote_core &&
				    c->t[j].remote_idx == c->t[i].remote_idx)
					return dp_fail(e, "%s: core %u: tensors '%s' and '%s' both link to {core %u, '%s'} (a core links to an owner once)",
						       m->file, ci, c->t[i].name,
						       c->t[j].name,
						       c->t[i].remote_core,
						       c->t[i].remote_name);
		}
	}
	return 0;
}

static int old_verify_links(const struct dp_plan *p, const char *file,
			    struct dp_err *e)
{
	uint32_t ci, k;

	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k], *r = NULL;
			const struct dp_core_plan *rc;
			uint32_t j;

			if (!t->has_remote)
				continue;
			if (!t->shared)
				return dp_fail(e, "%s: core %u tensor '%s': has a remote target but is not shared",
					       file, ci, t->name);
			if (t->remote_core >= p->ncores || t->remote_core == ci)
				return dp_fail(e, "%s: core %u tensor '%s': missing remote target {core %u, '%s'}",
					       file, ci, t->name, t->remote_core,
					       t->remote_name);
			rc = &p->core[t->remote_core];
			for (j = 0; j < rc->n; j++)
				if (!strcmp(rc->t[j].name, t->remote_name)) {
					r = &rc->t[j];
					break;
				}
			if (!r)
				return dp_fail(e, "%s: core %u tensor '%s': missing remote target {core %u, '%s'}",
					       file, ci, t->name, t->remote_core,
					       t->remote_name);
			if (!r->shared || r->has_remote)
				return dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} is not a shared owner",
					       file, ci, t->name, t->remote_core,
					       t->remote_name);
			if (r->addr != t->addr || r->size != t->size)
				return dp_fail(e, "%s: core %u tensor '%s' at 0x%llx: shared address differs from its remote target {core %u, '%s'} at 0x%llx (shared addresses must be equal)",
					       file, ci, t->name,
					       (unsigned long long)t->addr,
					       t->remote_core, t->remote_name,
					       (unsigned long long)r->addr);
		}
	}
	return 0;
}

/* ---- random link sets ----------------------------------------------------- */

/*
 * nc cores; each has owners o<k> (shared), plain tensors p<k> and links
 * l<k> whose target is drawn at random: mostly a real owner (often one
 * this core already links: duplicates), sometimes a plain tensor, another
 * link, a missing name, its own core, a core that does not exist, or an
 * owner of another size (in one model of three), and in half of the models
 * some links repeat an owner.  With `clean`, only distinct good targets.
 */
static struct dp_model *link_model(uint64_t seed, uint32_t per, int clean,
				   struct dp_err *e)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ULL + 3;
	uint32_t nc = 2 + xorshift64_below(&rs, 3), ci, k;
	int errs = xorshift64_below(&rs, 3) == 0, dups = xorshift64_below(&rs, 2);
	struct dp_model *m = dp_model_new("links.json", "links");
	char name[32], rname[32];

#define R(n) xorshift64_below(&rs, n)
	for (ci = 0; ci < nc; ci++) {
		struct dp_core *c = dp_core_add(m, "f", e);
		uint32_t nl = clean ? per : 1 + R(per);

		if (!c)
			goto fail;
		for (k = 0; k < per; k++) {
			struct dp_tensor_spec s = { .name = name, .elems = 1 + k % 7,
				.elem_size = 4096, .shared = 1 };

			snprintf(name, sizeof(name), "o%u", k);
			if (dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
			s.shared = 0;
			snprintf(name, sizeof(name), "p%u", k);
			if (!clean && dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
		}
		for (k = 0; k < nl; k++) {
			struct dp_tensor_spec s = { .name = name, .elem_size = 4096,
				.shared = 1, .has_remote = 1, .remote_name = rname };
			uint32_t target = clean ? k : R(per), kind = errs ? R(40) : 0;

			if (!clean && dups && R(3) == 0)	/* a duplicate, likely */
				target = R(1 + per / 8);
			s.remote_core = clean ? (ci + 1) % nc : R(nc);
			if (s.remote_core == ci && (clean || !errs || R(8)))
				s.remote_core = (ci + 1) % nc;
			s.elems = 1 + target % 7;
			snprintf(rname, sizeof(rname), "o%u", target);
			if (kind == 1)
				snprintf(rname, sizeof(rname), "p%u", target);
			else if (kind == 2)
				snprintf(rname, sizeof(rname), "l%u", target);
			else if (kind == 3)
				snprintf(rname, sizeof(rname), "missing%u", target);
			else if (kind == 4)
				s.remote_core = nc + R(3);
			else if (kind == 5)
				s.elems++;
			snprintf(name, sizeof(name), "l%u", k);
			if (dp_tensor_add(m, c, &s, "gen", e) < 0)
				goto fail;
		}
	}
#undef R
	return m;
fail:
	dp_model_free(m);
	return NULL;
}

TEST(model_link_same_messages_as_before)
{
	uint64_t seed;
	int errors = 0, dups = 0, same = 0;

	for (seed = 1; seed <= 1500; seed++) {
		struct dp_err e1 = { "" }, e2 = { "" };
		uint32_t per = 1 + seed % 40;
		struct dp_model *a = link_model(seed, per, 0, &e1);
		struct dp_model *b = link_model(seed, per, 0, &e2);
		int r1, r2;

		REQUIRE(a && b);
		r1 = dp_model_link(a, &e1);
		r2 = old_model_link(b, &e2);
		errors += r1 != 0;
		dups += contains(e1.msg, "both link to");
		if (r1 == r2 && !strcmp(e1.msg, e2.msg))
			same++;
		else if (same + 5 > (int)seed)
			printf("#   seed %llu:\n#     new: %s\n#     old: %s\n",
			       (unsigned long long)seed, e1.msg, e2.msg);
		dp_model_free(a);
		dp_model_free(b);
	}
	printf("# 1500 random link sets: %d rejected (%d for two links to one owner)\n",
	       errors, dups);
	CHECK_EQ_U64(same, 1500);
	CHECK(dups > 100 && errors < 1500);
}

/* One tensor of c changed (none when c has none), then both link checks */
static int links_round(struct dp_plan *p, struct dp_core_plan *c, int round,
		       uint64_t *rs, int r[2], struct dp_err e[2])
{
	struct dp_plan_tensor *t;

	(void)round;
	if (!c->n)
		return -1;
	t = &c->t[xorshift64_below(rs, c->n)];
	switch (xorshift64_below(rs, 7)) {
	case 0:		/* a name that exists, maybe twice */
		if (t->name != c->t[0].name) {
			free(t->name);
			t->name = dp_strdup(c->t[0].name);
		}
		break;
	case 1:
		if (t->has_remote) {
			free(t->remote_name);
			t->remote_name = dp_strdup(xorshift64_below(rs, 2) ?
						   "nowhere" : "t0");
		}
		break;
	case 2:
		t->shared = !t->shared;
		break;
	case 3:
		t->addr += 4096;
		break;
	case 4:
		if (t->has_remote)
			t->remote_core = xorshift64_below(rs, p->ncores + 1);
		break;
	case 5:
		t->has_remote = !t->has_remote && t->remote_name;
		break;
	default:
		break;
	}
	r[0] = dp_verify_links(p, "plan", &e[0]);
	r[1] = old_verify_links(p, "plan", &e[1]);
	return 0;
}

/* The models of the mutated plans */
static struct dp_model *links_model(uint64_t seed, struct dp_err *e)
{
	static const struct model_shape shape = {	/* see struct model_shape */
		2, 4, 2, 12, 2, 20, 3, 2000, 3000, 5000, 3, 0
	};

	return random_model(&shape, seed, e);
}

/* Mutations of good plans: wrong names, duplicate names, flags, addresses. */
TEST(verify_links_same_messages_as_before)
{
	uint64_t rs = 42;
	struct agree ag = { 0 };

	REQUIRE(!agree_on_mutations(&ag, 200, 10, &rs, links_model,
				    links_round));
	printf("# %d mutated plans, %d rejected by the link check\n", ag.total, ag.rejected);
	CHECK_EQ_U64(ag.same, ag.total);
	CHECK(ag.rejected > 100);
}

/* A plan of 2 cores: core 0 owns n shared tensors, core 1 links them all. */
static struct dp_plan *link_plan(uint32_t n)
{
	struct dp_plan *p = calloc(1, sizeof(*p));
	uint32_t ci, k;
	char name[32];

	p->model = dp_strdup("links");
	p->source = dp_strdup("links.plan.json");
	p->page = DP_PAGE;
	p->ncores = 2;
	p->ceiling = UINT64_MAX;
	p->core = calloc(2, sizeof(*p->core));
	for (ci = 0; ci < 2; ci++) {
		struct dp_core_plan *c = &p->core[ci];

		c->core = ci;
		c->function = dp_strdup("f");
		c->n = n;
		c->t = calloc(n, sizeof(*c->t));
		c->iv = calloc(n, sizeof(*c->iv));
		c->niv = n;
		for (k = 0; k < n; k++) {
			struct dp_plan_tensor *t = &c->t[k];

			/* names in an order unlike the index order */
			snprintf(name, sizeof(name), "s%u", (k * 7919u) % n);
			t->id = k;
			t->name = dp_strdup(name);
			t->addr = 4096ULL * ((k * 7919u) % n);
			t->size = t->bytes = 4096;
			t->placed = 1;
			t->shared = 1;
			t->region = DP_REG_SHARED;
			t->reads = t->writes = 1;
			t->iv_first = k;
			t->iv_count = 1;
			c->iv[k].lo = c->iv[k].hi = k;
			if (ci) {
				t->has_remote = 1;
				t->remote_core = 0;
				t->remote_name = dp_strdup(name);
				t->region = DP_REG_LINKED;
			}
		}
	}
	return p;
}

TEST(twenty_thousand_links)
{
	struct dp_err e;
	struct dp_model *m = link_model(7, 20000, 1, &e);
	struct dp_plan *p;
	double t0;

	REQUIRE(m);
	t0 = dp_now();
	CHECK(!dp_model_link(m, &e));
	printf("# dp_model_link: %u cores x 20000 links in %.3f s\n", m->nc,
	       dp_now() - t0);
	dp_model_free(m);

	p = link_plan(20000);
	t0 = dp_now();
	CHECK(!dp_verify(p, NULL, &e));
	printf("# dp_verify, 20000 links: %.3f s\n", dp_now() - t0);
	/* the last link's owner missing: found, and named */
	free(p->core[1].t[19999].remote_name);
	p->core[1].t[19999].remote_name = dp_strdup("gone");
	CHECK(dp_verify(p, NULL, &e));
	CHECK_HAS(e.msg, "core 1 tensor 's",
		  "missing remote target {core 0, 'gone'}");
	dp_plan_free(p);

	/* two links to one owner among 20000: the same pair as before */
	m = link_model(7, 20000, 1, &e);
	REQUIRE(m);
	free(m->c[1].t[m->c[1].nt - 1].remote_name);
	m->c[1].t[m->c[1].nt - 1].remote_name = dp_strdup("o123");
	m->c[1].t[m->c[1].nt - 1].bytes = m->c[1].t[20000 + 123].bytes;
	CHECK(dp_model_link(m, &e));
	CHECK(contains(e.msg, "tensors 'l123' and 'l19999' both link to"));
	dp_model_free(m);
}

int main(void)
{
	return tap_run();
}
