// SPDX-License-Identifier: GPL-2.0
/*
 * dp_agree.c - a plan through /dev/xmemsim and back: do the planner and the
 * device agree?
 *
 * Each core's plan goes to the device (PLAN_SUBMIT), the device links the
 * shared tensors (PLAN_SYNC) and hands back every placement (PLAN_GET) and
 * its totals (PLAN_STATS). They agree when:
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
 * The byte checks then write through one core's view of each shared tensor
 * and read through the others', and give one private tensor per core, at
 * the same core-relative bytes, a pattern of its own.
 *
 * Nothing here prints: struct dp_agree holds the verdict and what the
 * device said, for dramplan --submit to print and the VM tests to check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_device.h"
#include "libxmemsim.h"
#include "xorshift.h"

/* The bridge uses libdramplan's public API only, so its own helpers. */
#define cmp3(a, b) (((a) > (b)) - ((a) < (b)))

#define CHECK_MAX (4ULL << 20)	/* bytes compared per shared tensor */
#define PRIV_MAX (1ULL << 20)	/* bytes compared per private tensor */
#define NONE UINT32_MAX

static const char *const why_text[DP_AG_NKINDS] = {
	[DP_AG_NAME] = "name differs",
	[DP_AG_ID] = "id differs",
	[DP_AG_SIZE] = "size differs",
	[DP_AG_FLAGS] = "flags differ",
	[DP_AG_REMOTE] = "remote target differs",
	[DP_AG_NR_IV] = "interval count differs",
	[DP_AG_ADDR] = "address differs",
	[DP_AG_TRIPLE] = "partition or bank differs",
	[DP_AG_NO_DEV_ADDR] = "no device address",
	[DP_AG_DEV_WRAPS] = "device range wraps",
	[DP_AG_MISSING] = "missing from the device's plan",
	[DP_AG_OWNER_MISSING] = "owner not on the device",
	[DP_AG_OWNER_ADDR] = "device address is not its owner's",
	[DP_AG_OWNER_TRIPLE] = "partition or bank is not its owner's",
	[DP_AG_ALIAS_PRIVATE] = "private bytes alias another core's in device memory",
	[DP_AG_ALIAS_OTHER] = "bytes alias another core's private tensor in device memory",
	[DP_AG_SYNC_COUNT] = "PLAN_SYNC linked another count",
	[DP_AG_GET_COUNT] = "PLAN_GET gave another count or no sync",
	[DP_AG_TOTALS] = "PLAN_STATS differs",
	[DP_AG_SHARED_BYTES] = "shared bytes differ across cores",
	[DP_AG_PRIVATE_BYTES] = "private bytes clobbered",
};

const char *dp_agree_why(enum dp_agree_kind k)
{
	return (unsigned int)k < DP_AG_NKINDS ? why_text[k] : "?";
}

/* One more of kind k; the first one is kept. */
static void count(struct dp_agree *a, enum dp_agree_kind k, uint32_t core,
		  uint32_t t)
{
	if (!a->count[k]++)
		a->first[k] = (struct dp_agree_ref){ core, t };
	if (k < DP_AG_SHARED_BYTES)
		a->disagree++;
	else
		a->mismatch++;
}

/* Tensor i of core ci disagrees, if it did not already. */
static void mark(struct dp_agree *a, uint32_t ci, uint32_t i,
		 enum dp_agree_kind k)
{
	if (!a->core[ci].why[i]) {
		a->core[ci].why[i] = (uint8_t)(k + 1);
		count(a, k, ci, i);
	}
}

static void set_fail(struct dp_agree *a, enum dp_agree_step step, int err,
		     uint32_t core)
{
	a->fail.step = step;
	a->fail.err = err;
	a->fail.core = core;
}

void dp_agree_free(struct dp_agree *a)
{
	uint32_t ci;

	for (ci = 0; ci < a->ncores && a->core; ci++) {
		free(a->core[ci].got);
		free(a->core[ci].why);
	}
	free(a->core);
	free(a->alias);
	free(a->link);
	free(a->priv_pick);
	free(a->priv_bad);
	dp_dev_plan_free(&a->d);
	memset(a, 0, sizeof(*a));
	a->dev = NULL;
}

int dp_agree_init(struct dp_agree *a, struct xms_dev *dev, const struct dp_plan *p,
		  const struct dp_model *m, struct dp_err *e)
{
	memset(a, 0, sizeof(*a));
	a->dev = dev;
	a->p = p;
	a->m = m;
	if (dp_dev_plan_build(p, &a->d, e))
		return -EINVAL;
	a->ncores = p->ncores;
	a->core = calloc(p->ncores ? p->ncores : 1, sizeof(*a->core));
	if (!a->core) {
		dp_dev_plan_free(&a->d);
		dp_nomem(e);
		return -ENOMEM;
	}
	return 0;
}

/* ---- finding a link's owner ------------------------------------------- */

static int cmp_id(const void *key, const void *elem)
{
	uint32_t k = *(const uint32_t *)key;
	uint32_t id = ((const struct dp_plan_tensor *)elem)->id;

	return (k > id) - (k < id);
}

/*
 * Index of tensor name in core ci of the plan, or NONE. With the model,
 * its name index gives the tensor's id, and the core plan holds its DRAM
 * tensors in id order; without, a scan.
 */
static uint32_t find_tensor(const struct dp_agree *a, uint32_t ci,
			    const char *name)
{
	const struct dp_core_plan *c = &a->p->core[ci];
	const struct dp_plan_tensor *t;
	int64_t k;
	uint32_t id, i;

	if (!a->m) {
		for (i = 0; i < c->n; i++)
			if (!strcmp(c->t[i].name, name))
				return i;
		return NONE;
	}
	if (ci >= a->m->nc || (k = dp_tensor_find(&a->m->c[ci], name)) < 0)
		return NONE;
	id = (uint32_t)k;
	t = bsearch(&id, c->t, c->n, sizeof(*c->t), cmp_id);
	return t ? (uint32_t)(t - c->t) : NONE;
}

/* ---- submit, sync, read back -------------------------------------------- */

int dp_agree_submit(struct dp_agree *a, uint32_t first)
{
	uint32_t j, ci, k;
	int ret;

	a->submitted = 0;
	a->want_linked = 0;
	for (j = 0; j < a->ncores; j++) {
		const struct dp_dev_core *dc;

		ci = (first + j) % a->ncores;
		dc = &a->d.core[ci];
		if (!dc->n)
			continue;
		ret = xms_plan_submit(a->dev, ci, dc->t, dc->n, a->fail.bad,
				      a->fail.msg, sizeof(a->fail.msg));
		if (ret) {
			set_fail(a, DP_AG_STEP_SUBMIT, ret, ci);
			return ret;
		}
		for (k = 0; k < dc->n; k++)
			a->want_linked += !!(dc->t[k].flags & XMEMSIM_TENSOR_REMOTE);
		a->core[ci].have = 1;
		a->submitted++;
	}
	return 0;
}

int dp_agree_sync(struct dp_agree *a)
{
	int ret;

	a->linked = 0;
	ret = xms_plan_sync(a->dev, &a->linked, a->fail.msg, sizeof(a->fail.msg));
	if (ret) {
		set_fail(a, DP_AG_STEP_SYNC, ret, 0);
		return ret;
	}
	if (a->linked != a->want_linked)
		count(a, DP_AG_SYNC_COUNT, XMEMSIM_PLAN_ALL_CORES, NONE);
	return 0;
}

int dp_agree_read_back(struct dp_agree *a)
{
	uint32_t ci, i;
	int ret;

	for (ci = 0; ci < a->ncores; ci++) {
		const struct dp_dev_core *dc = &a->d.core[ci];
		struct dp_agree_core *v = &a->core[ci];

		if (!v->have)
			continue;
		v->got = calloc(dc->n, sizeof(*v->got));
		v->why = calloc(dc->n, sizeof(*v->why));
		if (!v->got || !v->why)
			return -ENOMEM;
		ret = xms_plan_get(a->dev, ci, v->got, dc->n, &v->count, &v->synced);
		if (ret) {
			set_fail(a, DP_AG_STEP_GET, ret, ci);
			return ret;
		}
		if (v->count != dc->n || !v->synced)
			count(a, DP_AG_GET_COUNT, ci, NONE);
		for (i = v->count; i < dc->n; i++)
			mark(a, ci, i, DP_AG_MISSING);
	}
	return 0;
}

/* ---- compare ---------------------------------------------------------------- */

/* One tensor as the device returned it against what was submitted: a
 * kind, or -1 when it agrees. */
static int compare_one(const struct xmemsim_plan_tensor *sub,
		       const struct xmemsim_plan_tensor *got,
		       const struct dp_plan_tensor *want)
{
	if (strncmp(sub->name, got->name, XMEMSIM_NAME_LEN))
		return DP_AG_NAME;
	if (got->id != sub->id)
		return DP_AG_ID;
	if (got->size != sub->size)
		return DP_AG_SIZE;
	if (got->flags != sub->flags)
		return DP_AG_FLAGS;
	if (got->remote_core != sub->remote_core ||
	    strncmp(sub->remote_name, got->remote_name, XMEMSIM_NAME_LEN))
		return DP_AG_REMOTE;
	if (got->nr_intervals != sub->nr_intervals)
		return DP_AG_NR_IV;
	if (got->addr != want->addr)
		return DP_AG_ADDR;
	/* the planner's triple (a link's: its owner's, from sync_shared) */
	if (got->partition != want->partition || got->bank != want->bank)
		return DP_AG_TRIPLE;
	if (!got->dev_addr)
		return DP_AG_NO_DEV_ADDR;
	if (got->dev_addr + got->size < got->dev_addr)
		return DP_AG_DEV_WRAPS;
	return -1;
}

/* A byte range of device memory and the tensor it belongs to. */
struct drange {
	uint64_t lo, hi;
	uint32_t core, t;
};

static int cmp_drange(const void *a, const void *b)
{
	const struct drange *x = a, *y = b;

	return cmp3(x->lo, y->lo) ?: cmp3(x->hi, y->hi);
}

/* Core ci's private (want_shared 0) or shared-owner (1) device ranges,
 * sorted by start. */
static struct drange *dev_ranges(const struct dp_agree *a, uint32_t ci,
				 int want_shared, size_t *n)
{
	const struct dp_dev_core *dc = &a->d.core[ci];
	struct drange *r = malloc((dc->n ? dc->n : 1) * sizeof(*r));
	uint32_t i;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < dc->n && a->core[ci].have; i++) {
		const struct xmemsim_plan_tensor *g = &a->core[ci].got[i];
		uint32_t f = dc->t[i].flags;

		if ((f & XMEMSIM_TENSOR_REMOTE) || !!(f & XMEMSIM_TENSOR_SHARED) != want_shared)
			continue;
		if (!g->dev_addr || g->dev_addr + g->size < g->dev_addr)
			continue;	/* already marked */
		r[(*n)++] = (struct drange){ g->dev_addr, g->dev_addr + g->size, ci, i };
	}
	qsort(r, *n, sizeof(*r), cmp_drange);
	return r;
}

/* Every pair (x in l, y in o) whose bytes meet: both marked; the first 4
 * pairs of each call kept. Sweep over two sorted lists.  0, or -ENOMEM. */
static int cross_check(struct dp_agree *a, const struct drange *l, size_t nl,
			const struct drange *o, size_t no)
{
	size_t i, j, start = 0;
	unsigned int shown = 0;
	struct dp_agree_alias *al;

	for (i = 0; i < nl; i++) {
		/* l is sorted by lo too: a range of o that ends before l[i]
		 * starts ends before every later one, so drop the prefix */
		while (start < no && o[start].hi <= l[i].lo)
			start++;
		for (j = start; j < no && o[j].lo < l[i].hi; j++) {
			if (o[j].hi <= l[i].lo)
				continue;
			mark(a, l[i].core, l[i].t, DP_AG_ALIAS_PRIVATE);
			mark(a, o[j].core, o[j].t, DP_AG_ALIAS_OTHER);
			if (shown++ >= 4)
				continue;
			al = realloc(a->alias,
				     (a->nalias + 1) * sizeof(*a->alias));
			if (!al)
				return -ENOMEM;
			a->alias = al;
			a->alias[a->nalias++] = (struct dp_agree_alias){
				l[i].core, l[i].t, o[j].core, o[j].t,
				l[i].lo, l[i].hi, o[j].lo, o[j].hi };
		}
	}
	return 0;
}

/* Private tensors of one core against every byte another core may use.
 * r[x] and n[x] are core x's private ranges, r[nc + x], n[nc + x] its
 * shared ones.  0, or -ENOMEM. */
static int check_aliasing(struct dp_agree *a)
{
	uint32_t nc = a->ncores, x, y;
	struct drange **r = calloc(2 * (size_t)nc + 1, sizeof(*r));
	size_t *n = calloc(2 * (size_t)nc + 1, sizeof(*n));
	int ret = r && n ? 0 : -ENOMEM;

	for (x = 0; x < nc && !ret; x++) {
		r[x] = dev_ranges(a, x, 0, &n[x]);
		r[nc + x] = dev_ranges(a, x, 1, &n[nc + x]);
		if (!r[x] || !r[nc + x])
			ret = -ENOMEM;
	}
	for (x = 0; x < nc && !ret; x++)
		for (y = 0; y < nc && !ret; y++) {
			if (x == y)
				continue;
			if (x < y)
				ret = cross_check(a, r[x], n[x], r[y], n[y]);
			if (!ret)
				ret = cross_check(a, r[x], n[x], r[nc + y],
						  n[nc + y]);
		}
	for (x = 0; r && x < 2 * nc; x++)
		free(r[x]);
	free(r);
	free(n);
	return ret;
}

int dp_agree_compare(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	uint32_t ci, i;

	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_dev_core *dc = &a->d.core[ci];

		if (!a->core[ci].have)
			continue;
		for (i = 0; i < dc->n; i++) {
			int k = compare_one(&dc->t[i], &a->core[ci].got[i],
					    &p->core[ci].t[i]);

			if (k >= 0)
				mark(a, ci, i, (enum dp_agree_kind)k);
		}
	}
	/* links: the owner's device address, so the same bytes */
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		if (!a->core[ci].have)
			continue;
		for (i = 0; i < c->n; i++) {
			const struct dp_plan_tensor *t = &c->t[i];
			uint32_t oc = t->remote_core, oi;

			if (!t->has_remote || a->core[ci].why[i])
				continue;
			if (oc >= p->ncores || !a->core[oc].have ||
			    (oi = find_tensor(a, oc, t->remote_name)) == NONE)
				mark(a, ci, i, DP_AG_OWNER_MISSING);
			else if (a->core[ci].got[i].dev_addr != a->core[oc].got[oi].dev_addr)
				mark(a, ci, i, DP_AG_OWNER_ADDR);
			else if (a->core[ci].got[i].partition != a->core[oc].got[oi].partition ||
				 a->core[ci].got[i].bank != a->core[oc].got[oi].bank)
				mark(a, ci, i, DP_AG_OWNER_TRIPLE);
		}
	}
	return check_aliasing(a);
}

/* ---- totals ---------------------------------------------------------------- */

static int same_totals(const struct dp_agree_totals *x,
		       const struct dp_agree_totals *y)
{
	return x->tensors == y->tensors && x->priv == y->priv &&
	       x->shared == y->shared && x->linked == y->linked &&
	       x->total == y->total && x->footprint == y->footprint;
}

static void from_stats(struct dp_agree_totals *t,
		       const struct xmemsim_plan_stats *st)
{
	*t = (struct dp_agree_totals){ st->tensors, st->private_bytes,
				       st->shared_bytes, st->linked_bytes,
				       st->total_bytes, st->footprint };
}

int dp_agree_totals(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	struct xmemsim_plan_stats st;
	struct dp_agree_totals *all = &a->all_pl;
	uint32_t ci;
	int ret;

	memset(all, 0, sizeof(*all));
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_dev_core *dc = &a->d.core[ci];
		const struct dp_core_plan *c = &p->core[ci];
		struct dp_agree_core *v = &a->core[ci];

		v->pl = (struct dp_agree_totals){ c->n, c->private_bytes,
						  dc->shared_bytes, dc->linked_bytes,
						  c->private_bytes + dc->shared_bytes,
						  c->footprint };
		all->tensors += v->pl.tensors;
		all->linked += v->pl.linked;
		if (v->pl.footprint > all->footprint)
			all->footprint = v->pl.footprint;
		if (!v->have)
			continue;
		ret = xms_plan_stats(a->dev, ci, &st);
		if (ret) {
			set_fail(a, DP_AG_STEP_STATS, ret, ci);
			return ret;
		}
		from_stats(&v->dev, &st);
		v->stats = 1;
		if (!same_totals(&v->dev, &v->pl))
			count(a, DP_AG_TOTALS, ci, NONE);
	}
	all->priv = p->total_private;
	all->shared = p->total_shared;
	all->total = p->total_bytes;
	ret = xms_plan_stats(a->dev, XMEMSIM_PLAN_ALL_CORES, &st);
	if (ret) {
		set_fail(a, DP_AG_STEP_STATS, ret, XMEMSIM_PLAN_ALL_CORES);
		return ret;
	}
	from_stats(&a->all_dev, &st);
	if (!same_totals(&a->all_dev, all))
		count(a, DP_AG_TOTALS, XMEMSIM_PLAN_ALL_CORES, NONE);
	return 0;
}

/* ---- the byte checks --------------------------------------------------- */

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
 * else the failing command's -errno (a->fail). */
static int write_read(struct dp_agree *a, uint64_t wa, uint64_t ra, size_t len,
		      uint64_t seed, unsigned char *w, unsigned char *rd)
{
	int ret;

	fill(w, len, seed);
	ret = xms_write(a->dev, wa, w, len);
	if (!ret) {
		ret = xms_read(a->dev, ra, rd, len);
		if (ret)
			set_fail(a, DP_AG_STEP_READ, ret, 0);
	} else {
		set_fail(a, DP_AG_STEP_WRITE, ret, 0);
	}
	if (ret) {
		a->fail.wa = wa;
		a->fail.ra = ra;
		a->fail.len = len;
		return ret;
	}
	return memcmp(w, rd, len) ? 1 : 0;
}

static int cmp_link(const void *x, const void *y)
{
	const struct dp_agree_link *l = x, *m = y;

	return cmp3(l->oc, m->oc) ?: cmp3(l->oi, m->oi) ?:
	       cmp3(l->lc, m->lc);
}

/* Every link whose owner is on the device, by owner then linking core.
 * 0, or -ENOMEM. */
static int collect_links(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	size_t cap = 0;
	uint32_t ci, k;

	a->nlink = 0;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n && a->core[ci].have; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];
			uint32_t oi;

			if (!t->has_remote || t->remote_core >= p->ncores ||
			    !a->core[t->remote_core].have ||
			    (oi = find_tensor(a, t->remote_core, t->remote_name)) == NONE)
				continue;
			if (a->nlink == cap) {
				struct dp_agree_link *l;

				l = realloc(a->link, (cap ? 2 * cap : 16) *
					    sizeof(*a->link));
				if (!l)
					return -ENOMEM;
				a->link = l;
				cap = cap ? 2 * cap : 16;
			}
			a->link[a->nlink++] = (struct dp_agree_link){
				.oc = t->remote_core, .oi = oi, .lc = ci, .li = k,
				.res = { -1, -1 } };
		}
	if (a->nlink)
		qsort(a->link, a->nlink, sizeof(*a->link), cmp_link);
	return 0;
}

int dp_agree_check_shared(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	unsigned char *w = malloc(CHECK_MAX), *rd = malloc(CHECK_MAX);
	size_t j;
	int ret = 0, res;

	if (!w || !rd) {
		free(w);
		free(rd);
		return -ENOMEM;
	}
	if (collect_links(a)) {
		free(w);
		free(rd);
		return -ENOMEM;
	}
	for (j = 0; j < a->nlink; j++) {
		struct dp_agree_link *l = &a->link[j];
		const struct dp_plan_tensor *o = &p->core[l->oc].t[l->oi];

		l->oa = a->core[l->oc].got[l->oi].dev_addr;
		l->la = a->core[l->lc].got[l->li].dev_addr;
		l->len = o->size < CHECK_MAX ? o->size : CHECK_MAX;
	}
	/* owner writes, link reads (dir 0); then the link writes back (1) */
	for (j = 0; j < 2 * a->nlink; j++) {
		struct dp_agree_link *l = &a->link[j / 2];
		int back = j % 2;

		res = write_read(a, back ? l->la : l->oa, back ? l->oa : l->la,
				 l->len, j + 1, w, rd);
		if (res < 0) {
			ret = res;
			break;
		}
		l->res[back] = res;
		if (res)
			count(a, DP_AG_SHARED_BYTES, l->lc, l->li);
	}
	free(w);
	free(rd);
	return ret;
}

/* The private tensor of core c covering core-relative address x, or NONE. */
static uint32_t private_at(const struct dp_core_plan *c, uint64_t x)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (!c->t[i].shared && c->t[i].addr <= x && x < c->t[i].addr + c->t[i].size)
			return i;
	return NONE;
}

/* A core-relative address where every core has a private tensor: its
 * tensors in a->priv_pick. */
static int common_private(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	uint32_t nc = p->ncores, ci, i, k, tries = 0;

	/* A common byte is the start of the latest-starting tensor of some
	 * covering set, so the starts of private tensors are the candidates. */
	for (ci = 0; ci < nc && tries < 256; ci++)
		for (i = 0; i < p->core[ci].n && tries < 256; i++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[i];

			if (t->shared || !a->core[ci].have)
				continue;
			tries++;
			a->priv_x = t->addr;
			for (k = 0; k < nc; k++)
				if (!a->core[k].have ||
				    (a->priv_pick[k] = private_at(&p->core[k], a->priv_x)) == NONE)
					break;
			if (k == nc)
				return 1;
		}
	return 0;
}

int dp_agree_check_private(struct dp_agree *a)
{
	const struct dp_plan *p = a->p;
	uint32_t nc = p->ncores, ci;
	uint64_t end = UINT64_MAX, x;
	unsigned char *w, *rd;
	int ret = 0;

	a->priv_found = 0;
	if (nc < 2)
		return 0;
	a->priv_pick = calloc(nc, sizeof(*a->priv_pick));
	a->priv_bad = malloc(nc * sizeof(*a->priv_bad));
	if (!a->priv_pick || !a->priv_bad)
		return -ENOMEM;
	for (ci = 0; ci < nc; ci++)
		a->priv_bad[ci] = -1;
	if (!common_private(a))
		return 0;
	a->priv_found = 1;
	x = a->priv_x;
	for (ci = 0; ci < nc; ci++) {
		const struct dp_plan_tensor *t = &p->core[ci].t[a->priv_pick[ci]];

		if (t->addr + t->size < end)
			end = t->addr + t->size;
	}
	a->priv_len = end - x < PRIV_MAX ? end - x : PRIV_MAX;
	w = malloc(a->priv_len);
	rd = malloc(a->priv_len);
	if (!w || !rd) {
		free(w);
		free(rd);
		return -ENOMEM;
	}
	/* every core writes its own pattern first, then each reads its own */
	for (ci = 0; ci < nc * 2 && !ret; ci++) {
		uint32_t c = ci % nc;
		const struct dp_plan_tensor *t = &p->core[c].t[a->priv_pick[c]];
		uint64_t da = a->core[c].got[a->priv_pick[c]].dev_addr + (x - t->addr);

		fill(w, a->priv_len, 1000 + c);
		if (ci < nc)
			ret = xms_write(a->dev, da, w, a->priv_len);
		else
			ret = xms_read(a->dev, da, rd, a->priv_len);
		if (ret) {
			set_fail(a, ci < nc ? DP_AG_STEP_WRITE : DP_AG_STEP_READ, ret, c);
			a->fail.wa = a->fail.ra = da;
			a->fail.len = a->priv_len;
		} else if (ci >= nc) {
			a->priv_bad[c] = memcmp(w, rd, a->priv_len) != 0;
			if (a->priv_bad[c])
				count(a, DP_AG_PRIVATE_BYTES, c, a->priv_pick[c]);
		}
	}
	free(w);
	free(rd);
	return ret;
}

int dp_agree_run_to(struct dp_agree *a, uint32_t first,
		    enum dp_agree_phase last)
{
	int ret = 0;

	for (a->ran = 0; a->ran <= (unsigned int)last && !ret &&
	     (!a->ran || a->submitted); a->ran++) {
		switch (a->ran) {
		case DP_AG_RUN_SUBMIT: ret = dp_agree_submit(a, first); break;
		case DP_AG_RUN_SYNC: ret = dp_agree_sync(a); break;
		case DP_AG_RUN_READ_BACK: ret = dp_agree_read_back(a); break;
		case DP_AG_RUN_COMPARE: ret = dp_agree_compare(a); break;
		case DP_AG_RUN_TOTALS: ret = dp_agree_totals(a); break;
		case DP_AG_RUN_SHARED: ret = dp_agree_check_shared(a); break;
		default: ret = dp_agree_check_private(a); break;
		}
		a->ret[a->ran] = ret;
	}
	if (ret)
		return ret;
	return a->disagree || a->mismatch ? 1 : 0;
}

int dp_agree_run(struct dp_agree *a, uint32_t first, int bytes)
{
	return dp_agree_run_to(a, first, bytes ? DP_AG_RUN_PRIVATE :
						 DP_AG_RUN_TOTALS);
}
