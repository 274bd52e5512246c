// SPDX-License-Identifier: GPL-2.0
/*
 * dramplan_submit.c - dramplan --submit: the plan through /dev/xmemsim.
 *
 * Each core's plan goes to the device (PLAN_SUBMIT), the device links the
 * shared tensors (PLAN_SYNC) and hands back every placement (PLAN_GET) and
 * its totals (PLAN_STATS). The planner and the device must agree:
 *
 *  - each tensor comes back as submitted (name, id, size, flags, target,
 *    interval count), with the planner's address (linked tensors: the
 *    owner's, which the planner's own sync_shared gave them) and a device
 *    address;
 *  - a linked tensor has its owner's device address (one copy of the bytes);
 *  - in device memory, a private tensor never shares a byte with a tensor
 *    of another core (private or shared);
 *  - PLAN_SYNC linked as many tensors as the planner did, and PLAN_STATS
 *    gives the planner's totals per core and for the device (shared bytes
 *    counted once).
 *
 * --check-shared then writes through one core's view of each shared tensor
 * and reads through the others', and gives one private tensor per core, at
 * the same core-relative bytes, a pattern of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_device.h"
#include "dramplan_submit.h"
#include "xorshift.h"

#define U(x) ((unsigned long long)(x))
#define CHECK_MAX (4ULL << 20)	/* bytes compared per shared tensor */
#define PRIV_MAX (1ULL << 20)	/* bytes compared per private tensor */
#define NONE UINT32_MAX

/* "ENOMEM" for ENOMEM; "E?" for what glibc has no name for. */
static const char *errname(int e)
{
	const char *n = e > 0 ? strerrorname_np(e) : NULL;

	return n ? n : "E?";
}

void dp_submit_close(struct dp_submit *s)
{
	if (s->fd < 0)
		return;
	if (s->uring) {
		xms_attach_ring(s->fd, NULL);
		xms_ring_exit(&s->ring);
	}
	xms_close(s->fd);	/* releases the plans too */
	s->fd = -1;
}

int dp_submit_open(struct dp_submit *s)
{
	int ret;

	memset(&s->ring, 0, sizeof(s->ring));
	s->fd = xms_open(s->dev);
	if (s->fd < 0) {
		fprintf(stderr, "dramplan: --submit: %s: %s\n", s->dev, strerror(-s->fd));
		return 1;
	}
	if (s->uring) {
		ret = xms_ring_init(&s->ring, s->fd, 8);
		if (!ret)
			ret = xms_attach_ring(s->fd, &s->ring);
		if (ret) {
			fprintf(stderr, "dramplan: --uring: io_uring: %s\n", strerror(-ret));
			dp_submit_close(s);
			return 1;
		}
	}
	ret = xms_get_info(s->fd, &s->info);
	if (ret) {
		fprintf(stderr, "dramplan: --submit: %s: GET_INFO: %s\n", s->dev, strerror(-ret));
		dp_submit_close(s);
		return 1;
	}
	if (!s->info.plan_core_size || !s->info.plan_max_tensors) {
		fprintf(stderr, "dramplan: --submit: %s takes no plans (plan_core_size %llu, plan_max_tensors %u)\n",
			s->dev, U(s->info.plan_core_size), s->info.plan_max_tensors);
		dp_submit_close(s);
		return 1;
	}
	return 0;
}

/* ---- what the device said, and how it compares ------------------------ */

struct view {
	struct xmemsim_plan_tensor *got;	/* PLAN_GET, n entries */
	const char **why;	/* per tensor: NULL agrees, else the reason */
	uint32_t *byname;	/* planner tensor indexes sorted by name */
	int have;		/* submitted and read back */
};

struct run {
	struct dp_submit *s;
	const struct dp_plan *p;
	struct dp_dev_plan d;
	struct view *v;
	FILE *out;
	char *alias;		/* lines about aliased device bytes */
	size_t alias_len;
	unsigned int disagree;	/* rows and totals that do not agree */
	unsigned int mismatch;	/* --check-shared checks that failed */
};

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct dp_core_plan *c = arg;

	return strcmp(c->t[*(const uint32_t *)a].name, c->t[*(const uint32_t *)b].name);
}

/* Index of tensor name in core ci of the plan, or NONE. */
static uint32_t find_tensor(struct run *r, uint32_t ci, const char *name)
{
	const struct dp_core_plan *c = &r->p->core[ci];
	struct view *v = &r->v[ci];
	size_t lo = 0, hi = c->n;
	uint32_t i;

	if (!v->byname) {
		v->byname = malloc((c->n ? c->n : 1) * sizeof(*v->byname));
		if (!v->byname)
			abort();
		for (i = 0; i < c->n; i++)
			v->byname[i] = i;
		qsort_r(v->byname, c->n, sizeof(*v->byname), cmp_name, (void *)c);
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int k = strcmp(c->t[v->byname[mid]].name, name);

		if (!k)
			return v->byname[mid];
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

static void mark(struct run *r, uint32_t ci, uint32_t i, const char *why)
{
	if (!r->v[ci].why[i]) {
		r->v[ci].why[i] = why;
		r->disagree++;
	}
}

/* One tensor as the device returned it against what was submitted. */
static const char *compare_one(const struct xmemsim_plan_tensor *sub,
			       const struct xmemsim_plan_tensor *got,
			       uint64_t want_addr)
{
	if (strncmp(sub->name, got->name, XMEMSIM_NAME_LEN))
		return "name differs";
	if (got->id != sub->id)
		return "id differs";
	if (got->size != sub->size)
		return "size differs";
	if (got->flags != sub->flags)
		return "flags differ";
	if (got->remote_core != sub->remote_core ||
	    strncmp(sub->remote_name, got->remote_name, XMEMSIM_NAME_LEN))
		return "remote target differs";
	if (got->nr_intervals != sub->nr_intervals)
		return "interval count differs";
	if (got->addr != want_addr)
		return "address differs";
	if (!got->dev_addr)
		return "no device address";
	if (got->dev_addr + got->size < got->dev_addr)
		return "device range wraps";
	return NULL;
}

/* A byte range of device memory and the tensor it belongs to. */
struct drange {
	uint64_t lo, hi;
	uint32_t core, t;
};

static int cmp_drange(const void *a, const void *b)
{
	const struct drange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Core ci's private (want_shared 0) or shared-owner (1) device ranges,
 * sorted by start. */
static struct drange *dev_ranges(struct run *r, uint32_t ci, int want_shared,
				 size_t *n)
{
	const struct dp_dev_core *dc = &r->d.core[ci];
	struct drange *a = malloc((dc->n ? dc->n : 1) * sizeof(*a));
	uint32_t i;

	if (!a)
		abort();
	*n = 0;
	for (i = 0; i < dc->n && r->v[ci].have; i++) {
		const struct xmemsim_plan_tensor *g = &r->v[ci].got[i];
		uint32_t f = dc->t[i].flags;

		if ((f & XMEMSIM_TENSOR_REMOTE) || !!(f & XMEMSIM_TENSOR_SHARED) != want_shared)
			continue;
		if (!g->dev_addr || g->dev_addr + g->size < g->dev_addr)
			continue;	/* already marked */
		a[(*n)++] = (struct drange){ g->dev_addr, g->dev_addr + g->size, ci, i };
	}
	qsort(a, *n, sizeof(*a), cmp_drange);
	return a;
}

/* Every pair (x in a, y in b) whose bytes meet: both marked, one line each
 * pair, at most a few lines. Sweep over two sorted lists. */
static void cross_check(struct run *r, const struct drange *a, size_t na,
			const struct drange *b, size_t nb)
{
	size_t i, j, start = 0;
	unsigned int shown = 0;

	for (i = 0; i < na; i++) {
		/* a is sorted by lo too: a range of b that ends before a[i]
		 * starts ends before every later one, so drop the prefix */
		while (start < nb && b[start].hi <= a[i].lo)
			start++;
		for (j = start; j < nb && b[j].lo < a[i].hi; j++) {
			const struct dp_core_plan *ca = &r->p->core[a[i].core];
			const struct dp_core_plan *cb = &r->p->core[b[j].core];

			if (b[j].hi <= a[i].lo)
				continue;
			mark(r, a[i].core, a[i].t, "private bytes alias another core's in device memory");
			mark(r, b[j].core, b[j].t, "bytes alias another core's private tensor in device memory");
			if (shown++ < 4)
				fprintf(r->out, "  alias: core %u '%s' [0x%llx, 0x%llx) and core %u '%s' [0x%llx, 0x%llx) share device bytes\n",
					a[i].core, ca->t[a[i].t].name, U(a[i].lo), U(a[i].hi),
					b[j].core, cb->t[b[j].t].name, U(b[j].lo), U(b[j].hi));
		}
	}
}

/* Private tensors of one core against every byte another core may use;
 * the lines go to r->alias, printed after the table. */
static void check_aliasing(struct run *r)
{
	FILE *table = r->out, *f = open_memstream(&r->alias, &r->alias_len);
	uint32_t nc = r->p->ncores, a, b;
	struct drange **priv = calloc(nc, sizeof(*priv)), **sh = calloc(nc, sizeof(*sh));
	size_t *np = calloc(nc, sizeof(*np)), *ns = calloc(nc, sizeof(*ns));

	if (!priv || !sh || !np || !ns || !f)
		abort();
	r->out = f;
	for (a = 0; a < nc; a++) {
		priv[a] = dev_ranges(r, a, 0, &np[a]);
		sh[a] = dev_ranges(r, a, 1, &ns[a]);
	}
	for (a = 0; a < nc; a++)
		for (b = 0; b < nc; b++) {
			if (a == b)
				continue;
			if (a < b)
				cross_check(r, priv[a], np[a], priv[b], np[b]);
			cross_check(r, priv[a], np[a], sh[b], ns[b]);
		}
	for (a = 0; a < nc; a++) {
		free(priv[a]);
		free(sh[a]);
	}
	free(priv);
	free(sh);
	free(np);
	free(ns);
	fclose(f);
	r->out = table;
}

static void compare(struct run *r)
{
	const struct dp_plan *p = r->p;
	uint32_t ci, i;

	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_dev_core *dc = &r->d.core[ci];

		if (!r->v[ci].have)
			continue;
		for (i = 0; i < dc->n; i++) {
			const char *why = compare_one(&dc->t[i], &r->v[ci].got[i],
						      p->core[ci].t[i].addr);

			if (why)
				mark(r, ci, i, why);
		}
	}
	/* links: the owner's device address, so the same bytes */
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		if (!r->v[ci].have)
			continue;
		for (i = 0; i < c->n; i++) {
			const struct dp_plan_tensor *t = &c->t[i];
			uint32_t oc = t->remote_core, oi;

			if (!t->has_remote || r->v[ci].why[i])
				continue;
			if (oc >= p->ncores || !r->v[oc].have ||
			    (oi = find_tensor(r, oc, t->remote_name)) == NONE)
				mark(r, ci, i, "owner not on the device");
			else if (r->v[ci].got[i].dev_addr != r->v[oc].got[oi].dev_addr)
				mark(r, ci, i, "device address is not its owner's");
		}
	}
	check_aliasing(r);
}

/* ---- printing ----------------------------------------------------------- */

static void print_row(struct run *r, uint32_t ci, uint32_t i)
{
	const struct dp_plan_tensor *t = &r->p->core[ci].t[i];
	const struct xmemsim_plan_tensor *g = &r->v[ci].got[i];
	const char *why = r->v[ci].why[i];
	char pa[24], da[24], dv[24];

	snprintf(pa, sizeof(pa), "0x%llx", U(t->addr));
	snprintf(da, sizeof(da), "0x%llx", U(g->addr));
	snprintf(dv, sizeof(dv), "0x%llx", U(g->dev_addr));
	fprintf(r->out, "%4u  %-24s %-7s %12s %12s %14s %10llu  %s%s%s",
		ci, t->name, t->has_remote ? "linked" : t->shared ? "shared" : "private",
		pa, da, dv, U(t->size), why ? "DISAGREE (" : "agree",
		why ? why : "", why ? ")" : "");
	if (t->has_remote)
		fprintf(r->out, "  = core %u '%s'", t->remote_core, t->remote_name);
	fputc('\n', r->out);
}

static void print_table(struct run *r)
{
	const struct dp_plan *p = r->p;
	uint32_t ci, i, n = 0, nbad = 0;

	fprintf(r->out, "\n== agreement: the planner's addresses beside the device's (PLAN_GET after PLAN_SYNC)\n");
	fprintf(r->out, "%4s  %-24s %-7s %12s %12s %14s %10s  %s\n", "core", "tensor",
		"kind", "planner", "device", "dev_addr", "size", "verdict");
	for (ci = 0; ci < p->ncores; ci++) {
		if (!r->v[ci].have)
			continue;
		for (i = 0; i < p->core[ci].n; i++, n++) {
			nbad += r->v[ci].why[i] != NULL;
			if (r->s->tensors || r->v[ci].why[i])
				print_row(r, ci, i);
		}
	}
	if (!r->s->tensors)
		fprintf(r->out, "  (%u rows that agree not shown; --tensors shows them)\n",
			n - nbad);
	fprintf(r->out, "agreement: %u of %u tensors agree%s\n", n - nbad, n,
		nbad ? "" : " (device address = planner address, links share their owner's bytes, no private bytes aliased across cores)");
	if (r->alias_len)
		fwrite(r->alias, 1, r->alias_len, r->out);
}

struct totals {
	uint64_t tensors, priv, shared, linked, total, footprint;
};

static void print_totals_pair(struct run *r, const char *scope,
			      const struct totals *dev, const struct totals *pl)
{
	int same = dev->tensors == pl->tensors && dev->priv == pl->priv &&
		   dev->shared == pl->shared && dev->linked == pl->linked &&
		   dev->total == pl->total && dev->footprint == pl->footprint;
	char fd[24], fp[24];

	snprintf(fd, sizeof(fd), "0x%llx", U(dev->footprint));
	snprintf(fp, sizeof(fp), "0x%llx", U(pl->footprint));
	fprintf(r->out, "%-8s %-8s %8llu %14llu %14llu %14llu %14llu %12s\n", scope,
		"device", U(dev->tensors), U(dev->priv), U(dev->shared),
		U(dev->linked), U(dev->total), fd);
	fprintf(r->out, "%-8s %-8s %8llu %14llu %14llu %14llu %14llu %12s  %s\n", "",
		"planner", U(pl->tensors), U(pl->priv), U(pl->shared),
		U(pl->linked), U(pl->total), fp, same ? "agree" : "DISAGREE");
	if (!same)
		r->disagree++;
}

static int print_totals(struct run *r)
{
	const struct dp_plan *p = r->p;
	struct xmemsim_plan_stats st;
	struct totals dev, pl, all = { 0 };
	char scope[16];
	uint32_t ci;
	int ret;

	fprintf(r->out, "\n== totals: PLAN_STATS beside the planner (bytes; total = private + shared, so shared bytes count once)\n");
	fprintf(r->out, "%-8s %-8s %8s %14s %14s %14s %14s %12s\n", "scope", "source",
		"tensors", "private", "shared", "linked", "total", "footprint");
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_dev_core *dc = &r->d.core[ci];
		const struct dp_core_plan *c = &p->core[ci];

		pl = (struct totals){ c->n, c->private_bytes, dc->shared_bytes,
				      dc->linked_bytes,
				      c->private_bytes + dc->shared_bytes, c->footprint };
		all.tensors += pl.tensors;
		all.linked += pl.linked;
		if (pl.footprint > all.footprint)
			all.footprint = pl.footprint;
		snprintf(scope, sizeof(scope), "core %u", ci);
		if (!r->v[ci].have) {
			fprintf(r->out, "%-8s (no DRAM tensors: not submitted)\n", scope);
			continue;
		}
		ret = xms_plan_stats(r->s->fd, ci, &st);
		if (ret) {
			fprintf(stderr, "dramplan: device: PLAN_STATS core %u: %s (%s)\n",
				ci, errname(-ret), strerror(-ret));
			return -1;
		}
		dev = (struct totals){ st.tensors, st.private_bytes, st.shared_bytes,
				       st.linked_bytes, st.total_bytes, st.footprint };
		print_totals_pair(r, scope, &dev, &pl);
	}
	all.priv = p->total_private;
	all.shared = p->total_shared;
	all.total = p->total_bytes;
	ret = xms_plan_stats(r->s->fd, XMEMSIM_PLAN_ALL_CORES, &st);
	if (ret) {
		fprintf(stderr, "dramplan: device: PLAN_STATS all cores: %s (%s)\n",
			errname(-ret), strerror(-ret));
		return -1;
	}
	dev = (struct totals){ st.tensors, st.private_bytes, st.shared_bytes,
			       st.linked_bytes, st.total_bytes, st.footprint };
	print_totals_pair(r, "device", &dev, &all);
	return 0;
}

static void print_hazards(struct run *r)
{
	const struct dp_plan *p = r->p;
	size_t i;

	fprintf(r->out, "\n== hazards: %zu cross-core access pair%s to the same shared bytes need ordering\n",
		p->nhz, p->nhz == 1 ? "" : "s");
	for (i = 0; i < p->nhz; i++) {
		const struct dp_hazard *h = &p->hz[i];
		const struct dp_plan_tensor *a = &p->core[h->core_a].t[h->ta];
		const struct dp_plan_tensor *b = &p->core[h->core_b].t[h->tb];
		uint64_t dev = 0;

		if (r->v[h->core_a].have)
			dev = r->v[h->core_a].got[h->ta].dev_addr + (h->lo - a->addr);
		fprintf(r->out, "  core %u '%s' (%s) <-> core %u '%s' (%s) on [0x%llx, 0x%llx), device [0x%llx, 0x%llx)\n",
			h->core_a, a->name, h->a_writes ? "writes" : "reads",
			h->core_b, b->name, h->b_writes ? "writes" : "reads",
			U(h->lo), U(h->hi), U(dev), U(dev + (h->hi - h->lo)));
	}
}

/* ---- --check-shared ------------------------------------------------------ */

static void fill(unsigned char *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	size_t i;

	for (i = 0; i < len; i += 8) {
		size_t k = len - i < 8 ? len - i : 8;

		xorshift64(&x);
		memcpy(buf + i, &x, k);
	}
}

/* Writes a seeded pattern at wa, reads len bytes at ra; 0 same, 1 differ,
 * -1 device error (printed). */
static int write_read(struct run *r, uint64_t wa, uint64_t ra, size_t len,
		      uint64_t seed, unsigned char *w, unsigned char *rd)
{
	int ret;

	fill(w, len, seed);
	ret = xms_write(r->s->fd, wa, w, len);
	if (!ret)
		ret = xms_read(r->s->fd, ra, rd, len);
	if (ret) {
		fprintf(stderr, "dramplan: --check-shared: %zu bytes at 0x%llx/0x%llx: %s\n",
			len, U(wa), U(ra), strerror(-ret));
		return -1;
	}
	return memcmp(w, rd, len) ? 1 : 0;
}

struct link {
	uint32_t oc, oi, lc, li;	/* owner core/index, link core/index */
};

static int cmp_link(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->oc != y->oc)
		return x->oc < y->oc ? -1 : 1;
	if (x->oi != y->oi)
		return x->oi < y->oi ? -1 : 1;
	return (x->lc > y->lc) - (x->lc < y->lc);
}

static int check_shared(struct run *r, unsigned char *w, unsigned char *rd)
{
	const struct dp_plan *p = r->p;
	struct link *l = NULL;
	size_t n = 0, cap = 0, i, j;
	uint32_t ci, k;
	int ret = 0, res;

	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n && r->v[ci].have; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];
			uint32_t oi;

			if (!t->has_remote || t->remote_core >= p->ncores ||
			    !r->v[t->remote_core].have ||
			    (oi = find_tensor(r, t->remote_core, t->remote_name)) == NONE)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				l = realloc(l, cap * sizeof(*l));
				if (!l)
					abort();
			}
			l[n++] = (struct link){ t->remote_core, oi, ci, k };
		}
	qsort(l, n, sizeof(*l), cmp_link);
	fprintf(r->out, "\n== cross-core read-back: shared tensors (%zu link%s)\n", n, n == 1 ? "" : "s");
	if (!n)
		fprintf(r->out, "  no shared tensor is linked from another core\n");
	for (i = 0; i < n && ret >= 0; i = j) {
		const struct dp_plan_tensor *o = &p->core[l[i].oc].t[l[i].oi];
		uint64_t oa = r->v[l[i].oc].got[l[i].oi].dev_addr;
		size_t len = o->size < CHECK_MAX ? o->size : CHECK_MAX;

		for (j = i; j < n && ret >= 0 && l[j].oc == l[i].oc && l[j].oi == l[i].oi; j++) {
			const struct dp_plan_tensor *t = &p->core[l[j].lc].t[l[j].li];
			uint64_t la = r->v[l[j].lc].got[l[j].li].dev_addr;

			/* owner writes, link reads; then the link writes back */
			res = write_read(r, oa, la, len, 2 * j + 1, w, rd);
			if (res < 0) {
				ret = -1;
				break;
			}
			r->mismatch += res;
			fprintf(r->out, "  core %u '%s' -> core %u '%s': %zu bytes written at 0x%llx through core %u, read at 0x%llx through core %u: %s\n",
				l[j].oc, o->name, l[j].lc, t->name, len, U(oa), l[j].oc,
				U(la), l[j].lc, res ? "MISMATCH" : "same bytes");
			res = write_read(r, la, oa, len, 2 * j + 2, w, rd);
			if (res < 0) {
				ret = -1;
				break;
			}
			r->mismatch += res;
			fprintf(r->out, "  core %u '%s' -> core %u '%s': %zu bytes written through core %u, read back through core %u: %s\n",
				l[j].lc, t->name, l[j].oc, o->name, len, l[j].lc,
				l[j].oc, res ? "MISMATCH" : "same bytes");
		}
	}
	free(l);
	return ret;
}

/* The private tensor of core ci covering core-relative address x, or NONE. */
static uint32_t private_at(const struct dp_core_plan *c, uint64_t x)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (!c->t[i].shared && c->t[i].addr <= x && x < c->t[i].addr + c->t[i].size)
			return i;
	return NONE;
}

static int check_private(struct run *r, unsigned char *w, unsigned char *rd)
{
	const struct dp_plan *p = r->p;
	uint32_t nc = p->ncores, ci, i, tries = 0, *pick;
	uint64_t x = 0, end = UINT64_MAX;
	size_t len;
	int found = 0, ret;

	fprintf(r->out, "\n== cross-core read-back: private tensors at the same core-relative bytes\n");
	if (nc < 2) {
		fprintf(r->out, "  one core: nothing to alias\n");
		return 0;
	}
	pick = calloc(nc, sizeof(*pick));
	if (!pick)
		abort();
	/* A common byte is the start of the latest-starting tensor of some
	 * covering set, so the starts of private tensors are the candidates. */
	for (ci = 0; ci < nc && !found && tries < 256; ci++)
		for (i = 0; i < p->core[ci].n && !found && tries < 256; i++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[i];
			uint32_t k;

			if (t->shared || !r->v[ci].have)
				continue;
			tries++;
			x = t->addr;
			for (k = 0; k < nc; k++)
				if (!r->v[k].have || (pick[k] = private_at(&p->core[k], x)) == NONE)
					break;
			found = k == nc;
		}
	if (!found) {
		fprintf(r->out, "  no core-relative address holds a private tensor on every core: nothing to compare\n");
		free(pick);
		return 0;
	}
	for (ci = 0; ci < nc; ci++) {
		const struct dp_plan_tensor *t = &p->core[ci].t[pick[ci]];

		if (t->addr + t->size < end)
			end = t->addr + t->size;
	}
	len = end - x < PRIV_MAX ? end - x : PRIV_MAX;
	/* every core writes its own pattern first, then each reads its own */
	for (ci = 0; ci < nc; ci++) {
		const struct dp_plan_tensor *t = &p->core[ci].t[pick[ci]];
		uint64_t da = r->v[ci].got[pick[ci]].dev_addr + (x - t->addr);

		fill(w, len, 1000 + ci);
		ret = xms_write(r->s->fd, da, w, len);
		if (ret) {
			fprintf(stderr, "dramplan: --check-shared: %zu bytes at 0x%llx: %s\n",
				len, U(da), strerror(-ret));
			free(pick);
			return -1;
		}
	}
	for (ci = 0; ci < nc; ci++) {
		const struct dp_plan_tensor *t = &p->core[ci].t[pick[ci]];
		uint64_t da = r->v[ci].got[pick[ci]].dev_addr + (x - t->addr);
		int bad;

		fill(w, len, 1000 + ci);
		ret = xms_read(r->s->fd, da, rd, len);
		if (ret) {
			fprintf(stderr, "dramplan: --check-shared: %zu bytes at 0x%llx: %s\n",
				len, U(da), strerror(-ret));
			free(pick);
			return -1;
		}
		bad = memcmp(w, rd, len) != 0;
		r->mismatch += bad;
		fprintf(r->out, "  core %u '%s' core-relative [0x%llx, 0x%llx) at device 0x%llx: %s\n",
			ci, t->name, U(x), U(x + len), U(da),
			bad ? "CLOBBERED by another core" : "its own pattern, intact");
	}
	free(pick);
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

static int submit_all(struct run *r, unsigned int *nsub, uint32_t *want_linked)
{
	char err[XMEMSIM_PLAN_ERR_LEN + 1];
	uint32_t ci, bad[2], k;
	int ret;

	*nsub = 0;
	*want_linked = 0;
	for (ci = 0; ci < r->p->ncores; ci++) {
		const struct dp_dev_core *dc = &r->d.core[ci];

		if (!dc->n) {
			fprintf(r->out, "PLAN_SUBMIT core %u: no DRAM tensors, nothing to submit\n", ci);
			continue;
		}
		ret = xms_plan_submit(r->s->fd, ci, dc->t, dc->n, bad, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "dramplan: device: PLAN_SUBMIT core %u (%u tensors) rejected: %s (%s)%s%s\n",
				ci, dc->n, errname(-ret), strerror(-ret),
				err[0] ? ": " : "", err);
			for (k = 0; k < 2; k++)
				if (bad[k] < dc->n)
					fprintf(stderr, "dramplan: device: at fault: core %u tensor %u '%s'\n",
						ci, bad[k], dc->t[bad[k]].name);
			if (ret == -E2BIG)
				fprintf(stderr, "dramplan: device: it takes at most %u tensors and %u intervals per core; core %u has %u and %zu\n",
					r->s->info.plan_max_tensors,
					r->s->info.plan_max_intervals, ci, dc->n, dc->niv);
			return -1;
		}
		fprintf(r->out, "PLAN_SUBMIT core %u: %u tensors, %zu intervals: accepted\n",
			ci, dc->n, dc->niv);
		for (k = 0; k < dc->n; k++)
			*want_linked += !!(dc->t[k].flags & XMEMSIM_TENSOR_REMOTE);
		r->v[ci].have = 1;
		(*nsub)++;
	}
	return 0;
}

static int read_back(struct run *r)
{
	uint32_t ci, count, synced;
	int ret;

	for (ci = 0; ci < r->p->ncores; ci++) {
		const struct dp_dev_core *dc = &r->d.core[ci];
		struct view *v = &r->v[ci];

		if (!v->have)
			continue;
		v->got = calloc(dc->n, sizeof(*v->got));
		v->why = calloc(dc->n, sizeof(*v->why));
		if (!v->got || !v->why)
			abort();
		ret = xms_plan_get(r->s->fd, ci, v->got, dc->n, &count, &synced);
		if (ret) {
			fprintf(stderr, "dramplan: device: PLAN_GET core %u: %s (%s)\n",
				ci, errname(-ret), strerror(-ret));
			return -1;
		}
		if (count != dc->n || !synced) {
			fprintf(stderr, "dramplan: device: PLAN_GET core %u: %u tensors%s, %u submitted\n",
				ci, count, synced ? "" : " and not synced", dc->n);
			r->disagree++;
		}
		if (count < dc->n) {
			uint32_t i;

			for (i = count; i < dc->n; i++)
				mark(r, ci, i, "missing from the device's plan");
		}
	}
	return 0;
}

int dp_submit_run(struct dp_submit *s, const struct dp_plan *p, FILE *out)
{
	struct run r = { .s = s, .p = p, .out = out };
	struct dp_err e = { "" };
	char err[XMEMSIM_PLAN_ERR_LEN + 1];
	unsigned char *w = NULL, *rd = NULL;
	uint32_t linked = 0, want_linked, ci;
	unsigned int nsub;
	int rc = 1, ret;

	if (p->ncores > s->info.cores) {
		fprintf(stderr, "dramplan: --submit: the model has %u cores, %s has %u\n",
			p->ncores, s->dev, s->info.cores);
		return 1;
	}
	if (dp_dev_plan_build(p, &r.d, &e)) {
		fprintf(stderr, "dramplan: --submit: %s\n", e.msg);
		return 1;
	}
	r.v = calloc(p->ncores ? p->ncores : 1, sizeof(*r.v));
	if (!r.v)
		abort();
	fprintf(out, "\n== device %s (%s): %u cores, plan window 0x%llx bytes per core\n",
		s->dev, s->uring ? "io_uring" : "ioctl", s->info.cores,
		U(s->info.plan_core_size));
	if (submit_all(&r, &nsub, &want_linked))
		goto out;
	if (!nsub) {
		fprintf(out, "the model has no DRAM tensors: nothing to submit\n");
		rc = 0;
		goto out;
	}
	ret = xms_plan_sync(s->fd, &linked, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dramplan: device: PLAN_SYNC failed: %s (%s)%s%s\n",
			errname(-ret), strerror(-ret), err[0] ? ": " : "", err);
		goto out;
	}
	fprintf(out, "PLAN_SYNC: %u linked tensor%s given their owner's address (the planner linked %u)%s\n",
		linked, linked == 1 ? "" : "s", want_linked,
		linked == want_linked ? "" : "  DISAGREE");
	if (linked != want_linked)
		r.disagree++;
	if (read_back(&r))
		goto out;
	compare(&r);
	print_table(&r);
	if (print_totals(&r))
		goto out;
	print_hazards(&r);
	if (s->check_shared) {
		w = malloc(CHECK_MAX);
		rd = malloc(CHECK_MAX);
		if (!w || !rd)
			abort();
		if (check_shared(&r, w, rd) || check_private(&r, w, rd))
			goto out;
	}
	if (r.disagree || r.mismatch) {
		fprintf(stderr, "dramplan: the device and the planner disagree: %u disagreement%s, %u read-back mismatch%s\n",
			r.disagree, r.disagree == 1 ? "" : "s", r.mismatch,
			r.mismatch == 1 ? "" : "es");
		goto out;
	}
	fprintf(out, "\ndramplan: the device agrees with the planner on every address and total%s\n",
		s->check_shared ? "; shared bytes read back across cores, private bytes not aliased" : "");
	rc = 0;
out:
	free(w);
	free(rd);
	free(r.alias);
	for (ci = 0; ci < p->ncores && r.v; ci++) {
		free(r.v[ci].got);
		free(r.v[ci].why);
		free(r.v[ci].byname);
	}
	free(r.v);
	dp_dev_plan_free(&r.d);
	return rc;
}
