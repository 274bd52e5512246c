// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - the per-core plans (plain data), sync_shared, check_placed,
 * the post-shared hazard report and the totals.
 *
 * Everything after build_plan works on struct dp_plan only, never on the
 * model: that is the data a device client submits (PLAN_SUBMIT), and
 * dp_sync_shared is the function a device SYNC_SHARED can later replace.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "place/place.h"
#include "plan/plan.h"

void dp_plan_free(struct dp_plan *p)
{
	uint32_t ci, i;

	if (!p)
		return;
	for (ci = 0; ci < p->ncores; ci++) {
		struct dp_core_plan *c = &p->core[ci];

		for (i = 0; i < c->n; i++) {
			free(c->t[i].name);
			free(c->t[i].remote_name);
		}
		DP_FREE(c->t, c->iv, c->function);
	}
	for (i = 0; i < p->nev; i++)
		free(p->ev[i].name);
	for (i = 0; i < p->nes; i++)
		free(p->es[i].inst);
	for (i = 0; i < p->nuo; i++)
		DP_FREE(p->uo[i].inst_a, p->uo[i].inst_b);
	DP_FREE(p->core, p->hz, p->hg, p->ha, p->model, p->source, p->ev,
		p->es, p->uo, p);
}

/* Core ci's plan: its DRAM tensors and their intervals.  0, or -ENOMEM
 * (what it allocated is in cp, for dp_plan_free). */
static int core_plan(const struct dp_plan *p, const struct dp_core *c,
		     uint32_t ci, struct dp_core_plan *cp)
{
	uint32_t n = 0, i, k;
	size_t niv = 0;

	cp->core = ci;
	cp->function = dp_strdup(c->function);
	if (p->dram_shared_mode == 1) {	/* per-core slabs */
		cp->slab_base = p->private_base + ci * p->core_cap;
		cp->slab_end = cp->slab_base + p->core_cap;
	}
	for (i = 0; i < c->nt; i++)
		if (c->t[i].mem == DP_MEM_DRAM) {
			n++;
			niv += c->t[i].iv_count;
		}
	cp->t = calloc(n ? n : 1, sizeof(*cp->t));
	cp->iv = dp_realloc_array(NULL, niv ? niv : 1, sizeof(*cp->iv));
	if (!cp->function || !cp->t || !cp->iv)
		return -ENOMEM;
	for (i = 0; i < c->nt; i++) {
		const struct dp_tensor *t = &c->t[i];
		struct dp_plan_tensor *e;

		if (t->mem != DP_MEM_DRAM)
			continue;
		e = &cp->t[cp->n++];
		e->id = i;
		e->name = dp_strdup(t->name);
		e->remote_name = t->has_remote ? dp_strdup(t->remote_name) : NULL;
		if (!e->name || (t->has_remote && !e->remote_name))
			return -ENOMEM;
		/* links get their address from sync_shared, never here */
		e->addr = t->has_remote ? DP_UNSET : t->addr;
		e->placed = e->addr != DP_UNSET;
		e->size = t->size;
		e->bytes = t->bytes;
		e->region = t->region;
		e->shared = t->shared;
		e->collective = t->collective;
		e->reads = t->nuses > 0;
		e->writes = t->ndefs > 0;
		e->has_remote = t->has_remote;
		e->remote_core = t->remote_core;
		/* links: 0 until sync_shared, as the device takes them */
		e->partition = t->has_remote ? 0 : t->partition;
		e->bank = t->has_remote ? 0 : t->bank;
		e->iv_first = cp->niv;
		e->iv_count = t->iv_count;
		for (k = 0; k < t->iv_count; k++)
			cp->iv[cp->niv++] = c->iv[t->iv_first + k];
	}
	return 0;
}

int dp_pass_build_plan(struct dp_ctx *x)
{
	struct dp_model *m = x->m;
	struct dp_plan *p = calloc(1, sizeof(*p));
	uint32_t ci, i;

	if (!p)
		return dp_nomem(x->err);
	if (x->o.disable_dram) {
		/* find_start_addr is not in the pipeline: the plan still records
		 * the floor its pre-placed tensors imply, and empty regions there */
		uint64_t hwm = 0;

		for (ci = 0; ci < m->nc; ci++)
			for (i = 0; i < m->c[ci].nt; i++) {
				struct dp_tensor *t = &m->c[ci].t[i];

				if (t->region == DP_REG_PRE && t->addr + t->size - 1 > hwm)
					hwm = t->addr + t->size - 1;
			}
		x->hwm = hwm;
		x->floor = dp_find_start_addr(hwm);
		x->cc_base = x->shared_base = x->shared_end = x->private_base = x->floor;
		x->ceiling = x->o.dram_mib << 20;
	}
	p->model = dp_strdup(m->name);
	p->source = dp_strdup(m->file);
	p->page = DP_PAGE;
	p->hwm = x->hwm;
	p->floor = x->floor;
	p->cc_base = x->cc_base;
	p->cc_limit = x->cc_limit;
	p->cc_size = x->cc_real;
	p->shared_base = x->shared_base;
	p->shared_end = x->shared_end;
	p->private_base = x->private_base;
	p->ceiling = x->ceiling;
	p->dram_shared_mode = x->o.dram_shared_mode;
	p->core_cap = x->core_cap;
	p->core = calloc(m->nc, sizeof(*p->core));
	if (!p->model || !p->source || !p->core)
		goto nomem;
	p->ncores = m->nc;
	for (ci = 0; ci < m->nc; ci++)
		if (core_plan(p, &m->c[ci], ci, &p->core[ci]))
			goto nomem;
	dp_plan_free(x->plan);
	x->plan = p;
	return 0;
nomem:
	dp_plan_free(p);
	return dp_nomem(x->err);
}

/* ---- the plan's name index ------------------------------------------ */

static int cmp_name_ref(const void *a, const void *b)
{
	const struct dp_name_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * The plan's name index, for sync_shared here and the link rule of
 * verify.c.  This is not the model's name hash (dp_tensor_find) on
 * purpose: both work on a struct dp_plan alone (the data a device client
 * submits, a plan read back from JSON, the tests' hand-made plans), with no
 * model behind it, so the plan's own tensors are what is indexed.  Nothing
 * here looks a model tensor up by name: the model's links are resolved to
 * remote_idx through that hash when the model is loaded (model.c).
 */
struct dp_name_ref *dp_plan_name_index(const struct dp_core_plan *c)
{
	struct dp_name_ref *ix = dp_realloc_array(NULL, c->n ? c->n : 1,
						  sizeof(*ix));
	uint32_t i;

	if (!ix)
		return NULL;
	for (i = 0; i < c->n; i++)
		ix[i] = (struct dp_name_ref){ c->t[i].name, i };
	qsort(ix, c->n, sizeof(*ix), cmp_name_ref);
	return ix;
}

const struct dp_plan_tensor *dp_plan_find_name(const struct dp_core_plan *c,
					       const struct dp_name_ref *ix,
					       const char *name)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && !strcmp(ix[lo].name, name))
		return &c->t[ix[lo].i];
	return NULL;
}

/* One slot per core for dp_plan_remote's name indexes, all NULL. */
struct dp_name_ref **dp_plan_names_new(const struct dp_plan *p)
{
	return calloc(p->ncores ? p->ncores : 1, sizeof(struct dp_name_ref *));
}

void dp_plan_names_free(const struct dp_plan *p, struct dp_name_ref **ix)
{
	uint32_t ci;

	for (ci = 0; ci < p->ncores; ci++)
		free(ix[ci]);
	free(ix);
}

/*
 * The owner of core ci's linked tensor t: by name in its remote core, with
 * ix[] caching one name index per core, built when first needed (so L
 * links cost O(L log n)).  NULL, with the message naming FILE, when the
 * remote core is out of range or t's own, or has no tensor of that name.
 */
const struct dp_plan_tensor *dp_plan_remote(const struct dp_plan *p,
					    uint32_t ci,
					    const struct dp_plan_tensor *t,
					    struct dp_name_ref **ix,
					    const char *file, struct dp_err *e)
{
	const struct dp_plan_tensor *r = NULL;
	uint32_t rc = t->remote_core;

	if (rc < p->ncores && rc != ci) {
		if (!ix[rc])
			ix[rc] = dp_plan_name_index(&p->core[rc]);
		if (!ix[rc]) {
			dp_nomem(e);
			return NULL;
		}
		r = dp_plan_find_name(&p->core[rc], ix[rc], t->remote_name);
	}
	if (!r)
		dp_fail(e, "%s: core %u tensor '%s': missing remote target {core %u, '%s'}",
			file, ci, t->name, t->remote_core, t->remote_name);
	return r;
}

/* ---- sync_shared ----------------------------------------------------- */

int dp_sync_shared(struct dp_plan *p, FILE *log, struct dp_err *e)
{
	struct dp_name_ref **ix;
	uint32_t ci, i;
	int rc = -1;

	if (p->ncores <= 1)
		return 0;	/* the seed's trivial single-core path */
	ix = dp_plan_names_new(p);
	if (!ix)
		return dp_nomem(e);
	for (ci = 0; ci < p->ncores; ci++) {
		struct dp_core_plan *c = &p->core[ci];

		for (i = 0; i < c->n; i++) {
			struct dp_plan_tensor *t = &c->t[i];
			const struct dp_plan_tensor *r;

			if (!t->has_remote)
				continue;
			r = dp_plan_remote(p, ci, t, ix, p->source, e);
			if (!r)
				goto out;
			if (!r->shared || r->has_remote || r->size != t->size) {
				dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} %s",
					p->source, ci, t->name, t->remote_core,
					t->remote_name,
					!r->shared ? "is not shared" :
					r->has_remote ? "is itself linked" :
					"has a different size");
				goto out;
			}
			if (!r->placed)
				continue;	/* check_placed names both */
			/* the seed's triple: address, partition, bank */
			t->addr = r->addr;
			t->partition = r->partition;
			t->bank = r->bank;
			t->placed = 1;
			if (!log)
				continue;
			fprintf(log, "[core %u] Assigned memloc %s to address 0x%llx",
				ci, t->name, (unsigned long long)t->addr);
			if (t->partition || t->bank)
				fprintf(log, " partition %u bank %u",
					t->partition, t->bank);
			fprintf(log, " based on its remote local target {core %u, %s}\n",
				t->remote_core, t->remote_name);
		}
	}
	rc = 0;
out:
	dp_plan_names_free(p, ix);
	return rc;
}

int dp_pass_sync_shared(struct dp_ctx *x)
{
	return dp_sync_shared(x->plan, x->log, x->err);
}

int dp_pass_check_placed(struct dp_ctx *x)
{
	struct dp_plan *p = x->plan;
	char list[512] = "";
	size_t len = 0, n = 0;
	uint64_t ceiling;
	uint32_t ci, i;

	/* pre-placed tensors fit below --dram-size on every path, the
	 * "No candidate" early exit and --disable-dram-allocation included */
	ceiling = x->o.dram_mib > (UINT64_MAX >> 20) ? UINT64_MAX : x->o.dram_mib << 20;
	for (ci = 0; ci < x->m->nc; ci++)
		for (i = 0; i < x->m->c[ci].nt; i++) {
			struct dp_tensor *t = &x->m->c[ci].t[i];

			if (t->region != DP_REG_PRE)
				continue;
			if (t->addr > ceiling || t->size > ceiling - t->addr)
				return dp_fail(x->err, "%s: core %u tensor '%s': pre-placed at [0x%llx, +0x%llx) is above the DRAM ceiling 0x%llx (--dram-size %llu MiB)",
					       p->source, ci, t->name,
					       (unsigned long long)t->addr,
					       (unsigned long long)t->size,
					       (unsigned long long)ceiling,
					       (unsigned long long)x->o.dram_mib);
		}
	for (ci = 0; ci < p->ncores; ci++)
		for (i = 0; i < p->core[ci].n; i++) {
			struct dp_plan_tensor *t = &p->core[ci].t[i];

			if (t->placed)
				continue;
			if (n < 8 && len < sizeof(list) - 1)
				len += snprintf(list + len, sizeof(list) - len,
						"%score %u '%s'", n ? ", " : "",
						ci, t->name);
			n++;
		}
	if (!n)
		return 0;
	if (len >= sizeof(list))
		len = sizeof(list) - 1;
	return dp_fail(x->err, "%s: %zu DRAM tensor%s left without an address%s: %s%s",
		       p->source, n, n == 1 ? "" : "s",
		       x->o.disable_dram ?
		       " (DRAM allocation is disabled by --disable-dram-allocation; give them an \"address\" or enable it)" :
		       "", list, n > 8 ? ", ..." : "");
}

/* ---- post-shared hazards --------------------------------------------- */

struct sacc {
	uint32_t core, t;
	uint64_t lo, hi;
	uint8_t w, r;
};

static int cmp_sacc(const void *a, const void *b)
{
	const struct sacc *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->core, y->core) ?:
	       dp_cmp(x->t, y->t);
}

/*
 * Every pair of shared tensors, on different cores, whose bytes overlap
 * and that at least one side writes: those accesses are not ordered by
 * the placement and need ordering instructions (the seed's
 * anti_dependency_analyzer_post_shared_dram).  Read/read pairs need none.
 */
static int cmp_sacc_hi(const void *a, const void *b)
{
	const struct sacc *x = *(const struct sacc *const *)a;
	const struct sacc *y = *(const struct sacc *const *)b;

	return (x->hi > y->hi) - (x->hi < y->hi);
}

/*
 * One connected address range a[0..n) (sorted by lo): is there a pair on
 * different cores that overlaps, one of them writing?  A sweep: when an
 * access starts, the ones that ended are dropped (ends sorted by hi), and
 * it conflicts iff another core has an access still open (a writer, if it
 * only reads).  Per-core counts make that O(1); O(n log n) in all.
 */
static int group_has_hazard(struct sacc *a, size_t n, struct sacc **ends,
			    uint32_t *open_all, uint32_t *open_w)
{
	size_t i, e = 0, all = 0, w = 0;
	int hit = 0;

	for (i = 0; i < n; i++)
		ends[i] = &a[i];
	qsort(ends, n, sizeof(*ends), cmp_sacc_hi);
	for (i = 0; i < n && !hit; i++) {
		/* lo < hi for every access: what ends by a[i].lo is open */
		for (; e < n && ends[e]->hi <= a[i].lo; e++) {
			open_all[ends[e]->core]--;
			all--;
			if (ends[e]->w) {
				open_w[ends[e]->core]--;
				w--;
			}
		}
		if (a[i].w ? all > open_all[a[i].core] : w > open_w[a[i].core])
			hit = 1;
		open_all[a[i].core]++;
		all++;
		if (a[i].w) {
			open_w[a[i].core]++;
			w++;
		}
	}
	/* leave the counters at zero for the next range */
	for (i = 0; i < n; i++) {
		open_all[a[i].core] = 0;
		open_w[a[i].core] = 0;
	}
	return hit;
}

/* 0, or -ENOMEM */
static int hazard_groups(struct dp_plan *p, struct sacc *a, size_t n)
{
	struct sacc **ends = dp_realloc_array(NULL, n, sizeof(*ends));
	uint32_t *open_all = calloc(p->ncores, sizeof(uint32_t));
	uint32_t *open_w = calloc(p->ncores, sizeof(uint32_t));
	uint8_t *seen = calloc(p->ncores, 1);
	size_t i = 0, j, gcap = 0, acap = 0;
	int rc = -ENOMEM;

	if (!ends || !open_all || !open_w || !seen)
		goto out;
	while (i < n) {
		uint64_t hi = a[i].hi;
		struct dp_hazard_group *g;
		uint32_t ncores = 0;

		for (j = i + 1; j < n && a[j].lo < hi; j++)
			if (a[j].hi > hi)
				hi = a[j].hi;
		for (size_t k = i; k < j; k++)
			if (!seen[a[k].core]) {
				seen[a[k].core] = 1;
				ncores++;
			}
		for (size_t k = i; k < j; k++)
			seen[a[k].core] = 0;
		if (ncores > 1 && group_has_hazard(a + i, j - i, ends, open_all, open_w)) {
			if (dp_grow(&p->hg, &gcap, p->nhg + 1, sizeof(*p->hg), 16) ||
			    dp_grow(&p->ha, &acap, p->nha + (j - i),
				    sizeof(*p->ha), 2 * (p->nha + (j - i))))
				goto out;
			g = &p->hg[p->nhg++];
			*g = (struct dp_hazard_group){ a[i].lo, hi, p->nha, j - i, ncores };
			for (size_t k = i; k < j; k++)
				p->ha[p->nha++] = (struct dp_hazard_access){
					a[k].core, a[k].t, a[k].r, a[k].w };
		}
		i = j;
	}
	rc = 0;
out:
	free(ends);
	free(open_all);
	free(open_w);
	free(seen);
	return rc;
}

/* The shared, placed tensors with bytes, sorted by address: *out (n of
 * them, NULL when none), or -ENOMEM */
static int shared_accesses(const struct dp_plan *p, struct sacc **out,
			   size_t *count)
{
	struct sacc *a;
	size_t n = 0;
	uint32_t ci, k;

	*out = NULL;
	*count = 0;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];

			/* no bytes (or a range that wraps, which verify
			 * rejects): nothing to order */
			n += t->shared && t->placed && t->addr + t->size > t->addr;
		}
	if (!n)
		return 0;
	a = dp_realloc_array(NULL, n, sizeof(*a));
	if (!a)
		return -ENOMEM;
	n = 0;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];

			if (!t->shared || !t->placed || t->addr + t->size <= t->addr)
				continue;
			a[n++] = (struct sacc){ ci, k, t->addr, t->addr + t->size,
						t->writes, t->reads };
		}
	qsort(a, n, sizeof(*a), cmp_sacc);
	*out = a;
	*count = n;
	return 0;
}

/* The pair sweep over a[0..n) (sorted by lo): each pair of different
 * cores that overlap, one writing, to fn */
static int pair_sweep(struct sacc *a, size_t n,
		      int (*fn)(const struct dp_hazard *h, void *arg), void *arg)
{
	struct sacc **act = dp_realloc_array(NULL, n ? n : 1, sizeof(*act));
	size_t i, j, nact = 0;
	int rc = 0;

	if (!act)
		return -ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		size_t w = 0;

		for (j = 0; j < nact; j++)	/* drop ranges that ended */
			if (act[j]->hi > a[i].lo)
				act[w++] = act[j];
		nact = w;
		for (j = 0; j < nact && !rc; j++) {
			struct sacc *b = act[j];
			struct dp_hazard h;

			if (b->core == a[i].core || !(b->w || a[i].w))
				continue;
			h = (struct dp_hazard){
				.core_a = b->core, .ta = b->t,
				.core_b = a[i].core, .tb = a[i].t,
				.lo = a[i].lo,
				.hi = a[i].hi < b->hi ? a[i].hi : b->hi,
				.a_writes = b->w, .b_writes = a[i].w };
			rc = fn(&h, arg);
		}
		act[nact++] = &a[i];
	}
	free(act);
	return rc;
}

int dp_plan_pairs_each(const struct dp_plan *p,
		       int (*fn)(const struct dp_hazard *h, void *arg),
		       void *arg)
{
	struct sacc *a;
	size_t n;
	int rc = shared_accesses(p, &a, &n);

	if (!rc)
		rc = pair_sweep(a, n, fn, arg);
	free(a);
	return rc;
}

struct pair_list {
	struct dp_plan *p;
	size_t cap;
};

static int add_pair(const struct dp_hazard *h, void *arg)
{
	struct pair_list *l = arg;

	if (dp_grow(&l->p->hz, &l->cap, l->p->nhz + 1, sizeof(*l->p->hz), 16))
		return -ENOMEM;
	l->p->hz[l->p->nhz++] = *h;
	return 0;
}

int dp_plan_hazards(struct dp_plan *p, int pairs, struct dp_err *e)
{
	struct pair_list l = { p, 0 };
	struct sacc *a = NULL;
	size_t n = 0;
	int rc;

	free(p->hz);
	free(p->hg);
	free(p->ha);
	p->hz = NULL;
	p->hg = NULL;
	p->ha = NULL;
	p->nhz = p->nhg = p->nha = 0;
	p->has_pairs = !!pairs;
	rc = shared_accesses(p, &a, &n);
	if (!rc && n)
		rc = hazard_groups(p, a, n);
	if (!rc && n && pairs)
		rc = pair_sweep(a, n, add_pair, &l);
	free(a);
	return rc ? dp_nomem(e) : 0;
}

int dp_pass_hazards(struct dp_ctx *x)
{
	struct dp_plan *p = x->plan;
	size_t i, k;

	if (dp_plan_hazards(p, x->o.hazard_pairs, x->err))
		return -1;
	/* the static proof, on the pairs above (unordered.c) */
	if (x->m->ordered && dp_plan_prove_order(p, x->m, x->log, x->err))
		return -1;
	if (!x->log)
		return 0;
	fprintf(x->log, "post-shared: %zu shared address range%s accessed from more than one core, with a write, need%s ordering (%zu accesses)\n",
		p->nhg, p->nhg == 1 ? "" : "s", p->nhg == 1 ? "s" : "", p->nha);
	for (i = 0; i < p->nhg; i++) {
		const struct dp_hazard_group *g = &p->hg[i];

		fprintf(x->log, "  [0x%llx, 0x%llx) %u cores:",
			(unsigned long long)g->lo, (unsigned long long)g->hi,
			g->ncores);
		for (k = 0; k < g->n && k < 8; k++) {
			const struct dp_hazard_access *h = &p->ha[g->first + k];

			fprintf(x->log, "%s core %u '%s' (%s)", k ? "," : "",
				h->core, p->core[h->core].t[h->t].name,
				h->writes ? (h->reads ? "reads, writes" : "writes") : "reads");
		}
		if (g->n > 8)
			fprintf(x->log, ", ... (%zu accesses in all)", g->n);
		fprintf(x->log, "\n");
	}
	if (p->has_pairs)
		fprintf(x->log, "post-shared: %zu cross-core access pair%s to shared bytes (--hazard-pairs: listed in the plan)\n",
			p->nhz, p->nhz == 1 ? "" : "s");
	return 0;
}

/* ---- totals: shared bytes counted once ------------------------------- */

/* Bytes under at least one placed shared owner: the union of their ranges
 * into *sum; 0, or -ENOMEM. The ranges are shared_accesses()' (sorted by
 * address) less the links, which are their owners' bytes again. */
static int shared_union(const struct dp_plan *p, uint64_t *out)
{
	struct sacc *a;
	uint64_t sum = 0, lo = 0, hi = 0;
	size_t n, k;
	int any = 0;

	if (shared_accesses(p, &a, &n))
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		if (p->core[a[k].core].t[a[k].t].has_remote)
			continue;
		if (any && a[k].lo <= hi) {
			if (a[k].hi > hi)
				hi = a[k].hi;
			continue;
		}
		sum += hi - lo;
		lo = a[k].lo;
		hi = a[k].hi;
		any = 1;
	}
	free(a);
	*out = sum + (hi - lo);
	return 0;
}

int dp_plan_totals(struct dp_plan *p)
{
	uint32_t ci, i;

	p->total_private = p->total_shared = 0;
	if (shared_union(p, &p->shared_footprint))
		return -ENOMEM;
	for (ci = 0; ci < p->ncores; ci++) {
		struct dp_core_plan *c = &p->core[ci];
		struct dp_item *it = dp_realloc_array(NULL, c->n ? c->n : 1,
						      sizeof(*it));
		size_t n = 0;
		uint64_t top = 0;

		if (!it)
			return -ENOMEM;
		c->private_bytes = c->shared_bytes = c->footprint = 0;
		c->spill = c->aligned_spill = c->dram = 0;
		for (i = 0; i < c->n; i++) {
			struct dp_plan_tensor *t = &c->t[i];

			if (t->region == DP_REG_PRE || t->has_remote) {
				c->dram += t->bytes;
			} else {
				c->spill += t->bytes;
				c->aligned_spill += t->size;
			}

			if (t->shared)
				c->shared_bytes += t->size;
			else
				c->private_bytes += t->size;
			if (t->shared && !t->has_remote)
				p->total_shared += t->size;	/* owner: once */
			if (!t->placed)
				continue;
			if (t->addr + t->size > c->footprint)
				c->footprint = t->addr + t->size;
			if (t->region == DP_REG_PRE)
				continue;
			if (t->addr + t->size > top)
				top = t->addr + t->size;
			if (t->addr >= p->cc_base &&
			    t->addr < p->cc_base + p->cc_size)
				continue;	/* the CC buffer counts whole */
			it[n].size = t->size;
			it[n].iv_first = t->iv_first;
			it[n].iv_count = t->iv_count;
			n++;
		}
		/* both with the CC buffer: the region is reserved whole
		 * below the rest, whatever of it is live at a time */
		if (top && top < p->floor + p->cc_size)
			top = p->floor + p->cc_size;
		c->peak = top > p->floor ? top - p->floor : 0;
		i = dp_lower_bound_r(it, n, c->iv, &c->lower_bound);
		if (top)
			c->lower_bound += p->cc_size;
		p->total_private += c->private_bytes;
		free(it);
		if (i)
			return -ENOMEM;
	}
	p->total_bytes = p->total_private + p->total_shared;
	return 0;
}

int dp_pass_totals(struct dp_ctx *x)
{
	struct dp_plan *p = x->plan;
	uint32_t ci;

	if (dp_plan_totals(p))
		return dp_nomem(x->err);
	if (x->log) {
		for (ci = 0; ci < p->ncores; ci++) {
			struct dp_core_plan *c = &p->core[ci];

			fprintf(x->log, "[core %u] private %llu bytes, shared %llu bytes (counted once below), footprint 0x%llx, peak %llu, lower bound %llu (both with the CC buffer's %llu bytes; without: %llu, %llu)\n",
				ci, (unsigned long long)c->private_bytes,
				(unsigned long long)c->shared_bytes,
				(unsigned long long)c->footprint,
				(unsigned long long)c->peak,
				(unsigned long long)c->lower_bound,
				(unsigned long long)p->cc_size,
				(unsigned long long)(c->peak - (c->peak ? p->cc_size : 0)),
				(unsigned long long)(c->lower_bound - (c->peak ? p->cc_size : 0)));
			fprintf(x->log, "[core %u] spill = %llu bytes, aligned spill = %llu bytes, dram = %llu bytes\n",
				ci, (unsigned long long)c->spill,
				(unsigned long long)c->aligned_spill,
				(unsigned long long)c->dram);
		}
		fprintf(x->log, "device: %llu bytes = %llu private + %llu shared (shared counted once, not per core)\n",
			(unsigned long long)p->total_bytes,
			(unsigned long long)p->total_private,
			(unsigned long long)p->total_shared);
		fprintf(x->log, "device: shared footprint %llu bytes (bytes under at least one shared tensor, beside the %llu counted once above)\n",
			(unsigned long long)p->shared_footprint,
			(unsigned long long)p->total_shared);
	}
	return 0;
}
