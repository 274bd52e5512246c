// SPDX-License-Identifier: GPL-2.0
/*
 * dramplan_submit.c - dramplan --submit: the plan through /dev/xmemsim.
 *
 * The bridge's dp_agree_run (userspace/bridge/dp_agree.c) runs the whole
 * submission into one struct dp_agree: each core's plan submitted, the
 * sync, the placements and totals read back and compared with the
 * planner's (with --check-shared, the bytes too), what each phase
 * answered.  This file opens the device, makes that one call, then
 * prints the result once: the agreement table, the totals beside the
 * planner's, the hazards and the cross-core read-back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_device.h"
#include "dramplan_submit.h"

#define U(x) ((unsigned long long)(x))

/* "ENOMEM" for ENOMEM; "E?" for what glibc has no name for. */
static const char *errname(int e)
{
	const char *n = e > 0 ? strerrorname_np(e) : NULL;

	return n ? n : "E?";
}

void dp_submit_close(struct dp_submit *s)
{
	if (s->xd.fd < 0)
		return;
	if (s->uring) {
		xms_attach_ring(&s->xd, NULL);
		xms_ring_exit(&s->ring);
	}
	xms_close(&s->xd);	/* releases the plans too; xd.fd becomes -1 */
}

int dp_submit_open(struct dp_submit *s)
{
	int ret;

	memset(&s->ring, 0, sizeof(s->ring));
	ret = xms_open(&s->xd, s->dev);
	if (ret) {
		fprintf(stderr, "dramplan: --submit: %s: %s\n", s->dev, strerror(-ret));
		return 1;
	}
	if (s->uring) {
		ret = xms_ring_init(&s->ring, &s->xd, 8);
		if (!ret)
			ret = xms_attach_ring(&s->xd, &s->ring);
		if (ret) {
			fprintf(stderr, "dramplan: --uring: io_uring: %s\n", strerror(-ret));
			dp_submit_close(s);
			return 1;
		}
	}
	ret = xms_get_info(&s->xd, &s->info);
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

/* ---- printing the result of dp_agree_run --------------------------------- */

struct run {
	struct dp_submit *s;
	const struct dp_plan *p;
	struct dp_agree a;
	FILE *out;
};

/* The device's error line for a failed PLAN_* command. */
static void print_fail(struct run *r)
{
	const struct dp_agree_fail *f = &r->a.fail;
	const char *sep = f->msg[0] ? ": " : "";

	char why[256];

	switch (f->step) {
	case DP_AG_STEP_SYNC:
		/* the backing did not fit HBM: say how much and what to raise */
		if (f->err != -ENOMEM ||
		    xms_nomem_reason(&r->s->xd, XMEMSIM_HEAP_HBM,
				     dp_dev_plan_backing(&r->a.d), why, sizeof(why)))
			why[0] = 0;
		fprintf(stderr, "dramplan: device: PLAN_SYNC failed: %s (%s)%s%s%s%s\n",
			errname(-f->err), strerror(-f->err), sep, f->msg,
			why[0] ? ": the plan's bytes are one HBM allocation; " : "", why);
		break;
	case DP_AG_STEP_GET:
		fprintf(stderr, "dramplan: device: PLAN_GET core %u: %s (%s)\n",
			f->core, errname(-f->err), strerror(-f->err));
		break;
	case DP_AG_STEP_STATS:
		if (f->core == XMEMSIM_PLAN_ALL_CORES)
			fprintf(stderr, "dramplan: device: PLAN_STATS all cores: %s (%s)\n",
				errname(-f->err), strerror(-f->err));
		else
			fprintf(stderr, "dramplan: device: PLAN_STATS core %u: %s (%s)\n",
				f->core, errname(-f->err), strerror(-f->err));
		break;
	default:
		break;
	}
}

static int print_submit(struct run *r, int ret)
{
	const struct dp_agree_fail *f = &r->a.fail;
	uint32_t ci, k;

	for (ci = 0; ci < r->p->ncores; ci++) {
		const struct dp_dev_core *dc = &r->a.d.core[ci];

		if (!dc->n)
			fprintf(r->out, "PLAN_SUBMIT core %u: no DRAM tensors, nothing to submit\n", ci);
		else if (r->a.core[ci].have)
			fprintf(r->out, "PLAN_SUBMIT core %u: %u tensors, %zu intervals: accepted\n",
				ci, dc->n, dc->niv);
		else
			break;	/* the one the device rejected */
	}
	if (!ret)
		return 0;
	ci = f->core;
	fprintf(stderr, "dramplan: device: PLAN_SUBMIT core %u (%u tensors) rejected: %s (%s)%s%s\n",
		ci, r->a.d.core[ci].n, errname(-ret), strerror(-ret),
		f->msg[0] ? ": " : "", f->msg);
	for (k = 0; k < 2; k++)
		if (f->bad[k] < r->a.d.core[ci].n)
			fprintf(stderr, "dramplan: device: at fault: core %u tensor %u '%s'\n",
				ci, f->bad[k], r->a.d.core[ci].t[f->bad[k]].name);
	if (ret == -E2BIG)
		fprintf(stderr, "dramplan: device: it takes at most %u tensors and %u intervals per core; core %u has %u and %zu\n",
			r->s->info.plan_max_tensors, r->s->info.plan_max_intervals,
			ci, r->a.d.core[ci].n, r->a.d.core[ci].niv);
	return -1;
}

/* PLAN_GET's count and sync flag, core by core, up to a failed one. */
static int print_read_back(struct run *r, int ret)
{
	uint32_t ci;

	for (ci = 0; ci < r->p->ncores; ci++) {
		const struct dp_agree_core *v = &r->a.core[ci];

		if (!v->have)
			continue;
		if (ret && ci == r->a.fail.core)
			break;
		if (v->count != r->a.d.core[ci].n || !v->synced)
			fprintf(stderr, "dramplan: device: PLAN_GET core %u: %u tensors%s, %u submitted\n",
				ci, v->count, v->synced ? "" : " and not synced",
				r->a.d.core[ci].n);
	}
	if (ret)
		print_fail(r);
	return ret ? -1 : 0;
}

static void print_row(struct run *r, uint32_t ci, uint32_t i)
{
	const struct dp_plan_tensor *t = &r->p->core[ci].t[i];
	const struct xmemsim_plan_tensor *g = &r->a.core[ci].got[i];
	uint8_t k = r->a.core[ci].why[i];
	const char *why = k ? dp_agree_why(k - 1) : NULL;
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
	if (g->partition || g->bank)	/* the device's, after SYNC */
		fprintf(r->out, "  partition %u bank %u", g->partition, g->bank);
	fputc('\n', r->out);
}

static void print_alias(struct run *r, const struct dp_agree_alias *x)
{
	fprintf(r->out, "  alias: core %u '%s' [0x%llx, 0x%llx) and core %u '%s' [0x%llx, 0x%llx) share device bytes\n",
		x->a_core, r->p->core[x->a_core].t[x->a_t].name, U(x->a_lo), U(x->a_hi),
		x->b_core, r->p->core[x->b_core].t[x->b_t].name, U(x->b_lo), U(x->b_hi));
}

static void print_table(struct run *r)
{
	const struct dp_plan *p = r->p;
	uint32_t ci, i, n = 0, nbad = 0;
	size_t k;

	fprintf(r->out, "\n== agreement: the planner's addresses beside the device's (PLAN_GET after PLAN_SYNC)\n");
	fprintf(r->out, "%4s  %-24s %-7s %12s %12s %14s %10s  %s\n", "core", "tensor",
		"kind", "planner", "device", "dev_addr", "size", "verdict");
	for (ci = 0; ci < p->ncores; ci++) {
		if (!r->a.core[ci].have)
			continue;
		for (i = 0; i < p->core[ci].n; i++, n++) {
			nbad += r->a.core[ci].why[i] != 0;
			if (r->s->tensors || r->a.core[ci].why[i])
				print_row(r, ci, i);
		}
	}
	if (!r->s->tensors)
		fprintf(r->out, "  (%u rows that agree not shown; --tensors shows them)\n",
			n - nbad);
	fprintf(r->out, "agreement: %u of %u tensors agree%s\n", n - nbad, n,
		nbad ? "" : " (device address = planner address, links share their owner's bytes, no private bytes aliased across cores)");
	for (k = 0; k < r->a.nalias; k++)
		print_alias(r, &r->a.alias[k]);
}

static void print_totals_pair(struct run *r, const char *scope,
			      const struct dp_agree_totals *dev,
			      const struct dp_agree_totals *pl)
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
}

static int print_totals(struct run *r, int ret)
{
	char scope[16];
	uint32_t ci;

	fprintf(r->out, "\n== totals: PLAN_STATS beside the planner (bytes; total = private + shared, so shared bytes count once)\n");
	fprintf(r->out, "%-8s %-8s %8s %14s %14s %14s %14s %12s\n", "scope", "source",
		"tensors", "private", "shared", "linked", "total", "footprint");
	for (ci = 0; ci < r->p->ncores; ci++) {
		const struct dp_agree_core *v = &r->a.core[ci];

		snprintf(scope, sizeof(scope), "core %u", ci);
		if (!v->have) {
			fprintf(r->out, "%-8s (no DRAM tensors: not submitted)\n", scope);
			continue;
		}
		if (!v->stats)
			break;	/* PLAN_STATS failed here */
		print_totals_pair(r, scope, &v->dev, &v->pl);
	}
	if (ret) {
		print_fail(r);
		return -1;
	}
	print_totals_pair(r, "device", &r->a.all_dev, &r->a.all_pl);
	return 0;
}

static void print_hazards(struct run *r)
{
	const struct dp_plan *p = r->p;
	size_t i, k;

	fprintf(r->out, "\n== hazards: %zu shared address range%s accessed from more than one core, with a write, need%s ordering\n",
		p->nhg, p->nhg == 1 ? "" : "s", p->nhg == 1 ? "s" : "");
	for (i = 0; i < p->nhg; i++) {
		const struct dp_hazard_group *g = &p->hg[i];

		fprintf(r->out, "  [0x%llx, 0x%llx), %u cores:\n", U(g->lo), U(g->hi),
			g->ncores);
		for (k = 0; k < g->n; k++) {
			const struct dp_hazard_access *h = &p->ha[g->first + k];
			const struct dp_plan_tensor *t = &p->core[h->core].t[h->t];
			uint64_t dev = 0;

			if (k == 8 && !r->s->tensors) {
				fprintf(r->out, "    ... %zu more (--tensors lists all)\n", g->n - k);
				break;
			}
			if (r->a.core[h->core].have)
				dev = r->a.core[h->core].got[h->t].dev_addr;
			fprintf(r->out, "    core %u '%s' (%s) on [0x%llx, 0x%llx), device [0x%llx, 0x%llx)\n",
				h->core, t->name,
				h->writes ? (h->reads ? "reads, writes" : "writes") : "reads",
				U(t->addr), U(t->addr + t->size), U(dev), U(dev + t->size));
		}
	}
	for (i = 0; i < p->nhz; i++) {
		const struct dp_hazard *h = &p->hz[i];
		const struct dp_plan_tensor *a = &p->core[h->core_a].t[h->ta];
		const struct dp_plan_tensor *b = &p->core[h->core_b].t[h->tb];
		uint64_t dev = 0;

		if (!i)
			fprintf(r->out, "  pairs (--hazard-pairs): %zu\n", p->nhz);
		if (r->a.core[h->core_a].have)
			dev = r->a.core[h->core_a].got[h->ta].dev_addr + (h->lo - a->addr);
		fprintf(r->out, "  core %u '%s' (%s) <-> core %u '%s' (%s) on [0x%llx, 0x%llx), device [0x%llx, 0x%llx)\n",
			h->core_a, a->name, h->a_writes ? "writes" : "reads",
			h->core_b, b->name, h->b_writes ? "writes" : "reads",
			U(h->lo), U(h->hi), U(dev), U(dev + (h->hi - h->lo)));
	}
}

static int print_check_shared(struct run *r, int ret)
{
	const struct dp_plan *p = r->p;
	size_t n = r->a.nlink, j;

	fprintf(r->out, "\n== cross-core read-back: shared tensors (%zu link%s)\n", n, n == 1 ? "" : "s");
	if (!n)
		fprintf(r->out, "  no shared tensor is linked from another core\n");
	for (j = 0; j < n; j++) {
		const struct dp_agree_link *l = &r->a.link[j];
		const struct dp_plan_tensor *o = &p->core[l->oc].t[l->oi];
		const struct dp_plan_tensor *t = &p->core[l->lc].t[l->li];

		if (l->res[0] >= 0)
			fprintf(r->out, "  core %u '%s' -> core %u '%s': %zu bytes written at 0x%llx through core %u, read at 0x%llx through core %u: %s\n",
				l->oc, o->name, l->lc, t->name, l->len, U(l->oa), l->oc,
				U(l->la), l->lc, l->res[0] ? "MISMATCH" : "same bytes");
		if (l->res[1] >= 0)
			fprintf(r->out, "  core %u '%s' -> core %u '%s': %zu bytes written through core %u, read back through core %u: %s\n",
				l->lc, t->name, l->oc, o->name, l->len, l->lc,
				l->oc, l->res[1] ? "MISMATCH" : "same bytes");
	}
	if (ret == -ENOMEM)
		abort();	/* as the buffers' malloc did */
	if (ret) {
		fprintf(stderr, "dramplan: --check-shared: %zu bytes at 0x%llx/0x%llx: %s\n",
			r->a.fail.len, U(r->a.fail.wa), U(r->a.fail.ra), strerror(-ret));
		return -1;
	}
	return 0;
}

static int print_check_private(struct run *r, int ret)
{
	const struct dp_plan *p = r->p;
	uint32_t ci;

	fprintf(r->out, "\n== cross-core read-back: private tensors at the same core-relative bytes\n");
	if (p->ncores < 2) {
		fprintf(r->out, "  one core: nothing to alias\n");
		return 0;
	}
	if (!r->a.priv_found) {
		fprintf(r->out, "  no core-relative address holds a private tensor on every core: nothing to compare\n");
		return 0;
	}
	for (ci = 0; ci < p->ncores && r->a.priv_bad[ci] >= 0; ci++) {
		uint32_t k = r->a.priv_pick[ci];
		const struct dp_plan_tensor *t = &p->core[ci].t[k];
		uint64_t x = r->a.priv_x;

		fprintf(r->out, "  core %u '%s' core-relative [0x%llx, 0x%llx) at device 0x%llx: %s\n",
			ci, t->name, U(x), U(x + r->a.priv_len),
			U(r->a.core[ci].got[k].dev_addr + (x - t->addr)),
			r->a.priv_bad[ci] ? "CLOBBERED by another core" : "its own pattern, intact");
	}
	if (ret == -ENOMEM)
		abort();
	if (ret) {
		fprintf(stderr, "dramplan: --check-shared: %zu bytes at 0x%llx: %s\n",
			r->a.fail.len, U(r->a.fail.wa), strerror(-ret));
		return -1;
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

int dp_submit_fits(const struct dp_submit *s, uint32_t ncores)
{
	if (ncores <= s->info.cores)
		return 0;
	fprintf(stderr, "dramplan: --submit: the model has %u cores, %s has %u\n",
		ncores, s->dev, s->info.cores);
	return 1;
}

/*
 * The result of dp_agree_run, phase by phase in the order they ran, up
 * to the one that failed (its answer in a->ret[]; the phases after it
 * did not run).  0 when the device took the plan and agrees, else 1.
 */
static int print_result(struct run *r)
{
	const struct dp_submit *s = r->s;
	const struct dp_agree *a = &r->a;

	fprintf(r->out, "\n== device %s (%s): %u cores, plan window 0x%llx bytes per core\n",
		s->dev, s->uring ? "io_uring" : "ioctl", s->info.cores,
		U(s->info.plan_core_size));
	if (print_submit(r, a->ret[DP_AG_RUN_SUBMIT]))
		return 1;
	if (!a->submitted) {
		fprintf(r->out, "the model has no DRAM tensors: nothing to submit\n");
		return 0;
	}
	if (a->ret[DP_AG_RUN_SYNC]) {
		print_fail(r);
		return 1;
	}
	fprintf(r->out, "PLAN_SYNC: %u linked tensor%s given their owner's address (the planner linked %u)%s\n",
		a->linked, a->linked == 1 ? "" : "s", a->want_linked,
		a->linked == a->want_linked ? "" : "  DISAGREE");
	if (print_read_back(r, a->ret[DP_AG_RUN_READ_BACK]))
		return 1;
	if (a->ret[DP_AG_RUN_COMPARE]) {
		fprintf(stderr, "dramplan: --submit: out of memory\n");
		return 1;
	}
	print_table(r);
	if (print_totals(r, a->ret[DP_AG_RUN_TOTALS]))
		return 1;
	print_hazards(r);
	if (s->check_shared &&
	    (print_check_shared(r, a->ret[DP_AG_RUN_SHARED]) ||
	     print_check_private(r, a->ret[DP_AG_RUN_PRIVATE])))
		return 1;
	if (a->disagree || a->mismatch) {
		fprintf(stderr, "dramplan: the device and the planner disagree: %u disagreement%s, %u read-back mismatch%s\n",
			a->disagree, a->disagree == 1 ? "" : "s", a->mismatch,
			a->mismatch == 1 ? "" : "es");
		return 1;
	}
	fprintf(r->out, "\ndramplan: the device agrees with the planner on every address and total%s\n",
		s->check_shared ? "; shared bytes read back across cores, private bytes not aliased" : "");
	return 0;
}

int dp_submit_run(struct dp_submit *s, const struct dp_plan *p, FILE *out)
{
	struct run r = { .s = s, .p = p, .out = out };
	struct dp_err e = { "" };
	int rc;

	if (dp_submit_fits(s, p->ncores))
		return 1;
	if (dp_agree_init(&r.a, &s->xd, p, s->model, &e)) {
		fprintf(stderr, "dramplan: --submit: %s\n", e.msg);
		dp_agree_free(&r.a);
		return 1;
	}
	/* the whole submission, then its result printed */
	dp_agree_run(&r.a, 0, s->check_shared);
	rc = print_result(&r);
	dp_agree_free(&r.a);
	return rc;
}
