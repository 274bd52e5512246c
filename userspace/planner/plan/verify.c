// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c - re-check a plan with nothing but the plan.
 *
 * Deliberately a different algorithm from the planner's: no interval tree,
 * no search.  Per core, a time sweep over every interval sorted by start,
 * with the set of tensors still open; each new interval's bytes must be
 * disjoint from every open tensor's but its own (dp_verify_sweep: the open
 * tensors by address in a Fenwick tree, so O(log n) a step).
 *
 * Rules (each failure names the file, core, tensor(s) and the rule):
 *  1. every DRAM tensor has an address, and address + size does not wrap;
 *  2. 4 KiB: size is bytes rounded up to 4096, address is a multiple of
 *     4096 (pre-placed addresses are required aligned, the floor hwm + 1 is
 *     then aligned too, and search only ever returns page-aligned starts for
 *     page-multiple sizes -- so every address of a JSON plan is aligned);
 *  3. floor: recomputed from the pre-placed tensors (hwm + 1, or 0) and
 *     equal to the plan's; every other tensor at or above it, and below
 *     the ceiling;
 *  4. CC region: collective operands inside [cc_base, cc_base + cc_size),
 *     every other planned tensor outside it, cc_size <= cc_limit;
 *  5. interfering tensors (a shared instruction time) are byte-disjoint;
 *  6. shared: a linked tensor's address (and partition and bank: the
 *     seed's triple) equals its remote target's, the
 *     target exists, is shared and not itself linked; no private tensor of
 *     any core overlaps the bytes of a shared tensor;
 *  7. dram_shared mode 1 only: the per-core slabs (slabs_check).
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "plan/plan.h"

int dp_sweep_iv_cmp(const void *a, const void *b)
{
	const struct dp_sweep_iv *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(x->t, y->t);
}

/*
 * Rule 5's sweep, shared by the plan and the MiniMalloc verifier.  A time
 * sweep over every interval sorted by start (ties: item); the intervals
 * still open are those that end at or after the current start.  Each new
 * interval must not share a byte with an open interval of another item.
 *
 * Until the first violation, the open intervals of different items are
 * byte-disjoint (each was checked against the others when it opened), so
 * one question answers "does the new one overlap any": among the open
 * items, the one with the highest address below the new one's end --
 * does it end after the new one's start?  (If the new interval's own
 * item is open, nothing else overlaps it.)  The open items live in a
 * Fenwick tree (hand-rolled: add, prefix count, k-th) over the items
 * ranked by address, so each step is O(log n) instead of a pass over
 * everything open (O(n^2) when all are live at once).  On a violation,
 * the open intervals are scanned in the order they opened, to name the
 * same pair as a scan of the open list would.
 */
struct fen {
	uint32_t *f;		/* 1-based Fenwick tree of counts */
	uint32_t n, top;	/* top: highest power of two <= n */
};

static void fen_add(struct fen *F, uint32_t i, int32_t d)
{
	for (i++; i <= F->n; i += i & -i)
		F->f[i] += d;
}

static uint32_t fen_prefix(const struct fen *F, uint32_t r)	/* [0, r) */
{
	uint32_t s = 0;

	for (; r; r -= r & -r)
		s += F->f[r];
	return s;
}

static uint32_t fen_kth(const struct fen *F, uint32_t k)	/* k >= 1 */
{
	uint32_t pos = 0, step;

	for (step = F->top; step; step >>= 1)
		if (pos + step <= F->n && F->f[pos + step] < k) {
			pos += step;
			k -= F->f[pos];
		}
	return pos;		/* 0-based index of the k-th */
}

struct arank {
	uint64_t addr;
	uint32_t t;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct arank *x = a, *y = b;

	return dp_cmp(x->addr, y->addr) ?: dp_cmp(x->t, y->t);
}

static int cmp_vi_hi(const void *a, const void *b)
{
	const struct dp_sweep_iv *x = a, *y = b;

	return dp_cmp(x->hi, y->hi);
}

/* How many of the nt items by address start below end */
static size_t ranked_below(const struct arank *byaddr, size_t nt, uint64_t end)
{
	size_t lo = 0, hi = nt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (byaddr[mid].addr < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Interval v[i] overlaps an open one: blame the first open interval, in
 * opening order, whose bytes meet its item's (its own item alone when
 * none does), at v[i]'s start */
static void first_blame(const struct dp_sweep_iv *v, size_t i,
			const uint64_t *addr, const uint64_t *size,
			uint32_t blame[2], uint64_t *when)
{
	uint32_t a = v[i].t;
	size_t j;

	blame[0] = blame[1] = a;
	*when = v[i].lo;
	for (j = 0; j < i; j++) {
		uint32_t b = v[j].t;

		if (v[j].hi < v[i].lo || b == a ||
		    !(addr[a] < addr[b] + size[b] &&
		      addr[b] < addr[a] + size[a]))
			continue;
		blame[0] = b;
		blame[1] = a;
		break;
	}
}

int dp_sweep_disjoint(struct dp_sweep_iv *v, size_t n, const uint64_t *addr,
		      const uint64_t *size, uint32_t nt, uint32_t blame[2],
		      uint64_t *when)
{
	struct dp_sweep_iv *byhi = dp_realloc_array(NULL, n ? n : 1, sizeof(*byhi));
	struct arank *byaddr = dp_realloc_array(NULL, nt ? nt : 1, sizeof(*byaddr));
	uint32_t *rank = dp_realloc_array(NULL, nt ? nt : 1, sizeof(*rank));
	uint32_t *open = calloc(nt ? nt : 1, sizeof(*open));
	struct fen F = { calloc((size_t)nt + 1, sizeof(uint32_t)), nt, 1 };
	size_t i, x = 0;
	uint32_t k;
	int rc = 0;

	if (!byhi || !byaddr || !rank || !open || !F.f) {
		rc = -ENOMEM;
		goto out;
	}
	while (F.top * 2 <= F.n)
		F.top *= 2;
	for (k = 0; k < nt; k++)
		byaddr[k] = (struct arank){ addr[k], k };
	qsort(byaddr, nt, sizeof(*byaddr), cmp_rank);
	for (k = 0; k < nt; k++)
		rank[byaddr[k].t] = k;
	qsort(v, n, sizeof(*v), dp_sweep_iv_cmp);
	memcpy(byhi, v, n * sizeof(*v));
	qsort(byhi, n, sizeof(*byhi), cmp_vi_hi);
	for (i = 0; i < n && !rc; i++) {
		uint32_t a = v[i].t;
		uint64_t aend = addr[a] + size[a];

		/* close what ended before this start (all opened already) */
		for (; x < n && byhi[x].hi < v[i].lo; x++)
			if (!--open[byhi[x].t])
				fen_add(&F, rank[byhi[x].t], -1);
		if (!open[a]) {
			/* open items ranked below the first at or past aend */
			uint32_t below = fen_prefix(&F, ranked_below(byaddr, nt,
								     aend));

			if (below) {
				uint32_t b = byaddr[fen_kth(&F, below)].t;

				rc = addr[b] + size[b] > addr[a];
			}
		}
		if (rc) {
			first_blame(v, i, addr, size, blame, when);
			rc = -1;
			break;
		}
		if (!open[a]++)
			fen_add(&F, rank[a], 1);
	}
out:
	free(byhi);
	free(byaddr);
	free(rank);
	free(open);
	free(F.f);
	return rc;
}

int dp_verify_sweep(const struct dp_core_plan *c, const char *file,
		    struct dp_err *e)
{
	struct dp_sweep_iv *v = dp_realloc_array(NULL, c->niv ? c->niv : 1,
						 sizeof(*v));
	uint64_t *addr = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*addr));
	uint64_t *size = dp_realloc_array(NULL, c->n ? c->n : 1, sizeof(*size));
	uint32_t k, q, blame[2];
	uint64_t when;
	size_t n = 0;
	int rc = -ENOMEM;

	if (!v || !addr || !size)
		goto out;
	for (k = 0; k < c->n; k++) {
		addr[k] = c->t[k].addr;
		size[k] = c->t[k].size;
		for (q = 0; q < c->t[k].iv_count; q++) {
			const struct dp_iv *iv = &c->iv[c->t[k].iv_first + q];

			v[n++] = (struct dp_sweep_iv){ iv->lo, iv->hi, k };
		}
	}
	rc = dp_sweep_disjoint(v, n, addr, size, c->n, blame, &when);
	if (rc && rc != -ENOMEM) {
		const struct dp_plan_tensor *b = &c->t[blame[0]], *a = &c->t[blame[1]];

		dp_fail(e, "%s: core %u: tensors '%s' [0x%llx, 0x%llx) and '%s' [0x%llx, 0x%llx) overlap in DRAM while both live at time %llu (interfering tensors must be disjoint)",
			file, c->core, b->name, (unsigned long long)b->addr,
			(unsigned long long)(b->addr + b->size), a->name,
			(unsigned long long)a->addr,
			(unsigned long long)(a->addr + a->size),
			(unsigned long long)when);
	}
out:
	if (rc == -ENOMEM)
		rc = dp_nomem(e);
	free(v);
	free(addr);
	free(size);
	return rc;
}

struct brange {
	uint64_t lo, hi;
	uint32_t core, t;
	int shared;
};

static int cmp_br(const void *a, const void *b)
{
	const struct brange *x = a, *y = b;

	return dp_cmp(x->lo, y->lo) ?: dp_cmp(y->shared, x->shared);
}

/* Rule 6b: private bytes of any core never overlap shared bytes. */
static int shared_vs_private(const struct dp_plan *p, const char *file,
			     struct dp_err *e)
{
	struct brange *r, *maxp = NULL;
	size_t n = 0, i, j, nsh = 0;
	uint32_t ci, k;
	size_t *sh;
	int rc = 0;

	for (ci = 0; ci < p->ncores; ci++)
		n += p->core[ci].n;
	r = dp_realloc_array(NULL, n ? n : 1, sizeof(*r));
	sh = dp_realloc_array(NULL, n ? n : 1, sizeof(*sh));
	if (!r || !sh) {
		free(r);
		free(sh);
		return dp_nomem(e);
	}
	n = 0;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];

			r[n++] = (struct brange){ t->addr, t->addr + t->size, ci,
						  k, t->shared };
		}
	qsort(r, n, sizeof(*r), cmp_br);
	for (i = 0; i < n && !rc; i++) {
		size_t w = 0;

		for (j = 0; j < nsh; j++)
			if (r[sh[j]].hi > r[i].lo)
				sh[w++] = sh[j];
		nsh = w;
		if (r[i].shared) {
			if (maxp && maxp->hi > r[i].lo) {
				struct brange *a = maxp, *b = &r[i];

				rc = dp_fail(e, "%s: core %u private tensor '%s' overlaps the bytes of core %u shared tensor '%s' (shared bytes belong to every core at every time)",
					     file, a->core, p->core[a->core].t[a->t].name,
					     b->core, p->core[b->core].t[b->t].name);
			}
			sh[nsh++] = i;
		} else {
			if (nsh) {
				struct brange *b = &r[sh[0]];

				rc = dp_fail(e, "%s: core %u private tensor '%s' overlaps the bytes of core %u shared tensor '%s' (shared bytes belong to every core at every time)",
					     file, r[i].core,
					     p->core[r[i].core].t[r[i].t].name,
					     b->core, p->core[b->core].t[b->t].name);
			}
			if (!maxp || r[i].hi > maxp->hi)
				maxp = &r[i];
		}
	}
	free(r);
	free(sh);
	return rc;
}

/* ---- rule 6a: links ------------------------------------------------ */

/*
 * A linked tensor has its owner's address: the owner exists (by name in
 * the remote core, dp_plan_remote: a sorted name index per core, built when
 * first needed, so L links cost O(L log n), not O(L n)), is shared and not
 * itself linked.
 */
int dp_verify_links(const struct dp_plan *p, const char *file,
		    struct dp_err *e)
{
	struct dp_name_ref **ix = dp_plan_names_new(p);
	uint32_t ci, k;
	int rc = -1;

	if (!ix)
		return dp_nomem(e);
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k], *r;

			if (!t->has_remote)
				continue;
			if (!t->shared) {
				dp_fail(e, "%s: core %u tensor '%s': has a remote target but is not shared",
					file, ci, t->name);
				goto out;
			}
			r = dp_plan_remote(p, ci, t, ix, file, e);
			if (!r)
				goto out;
			if (!r->shared || r->has_remote) {
				dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} is not a shared owner",
					file, ci, t->name, t->remote_core,
					t->remote_name);
				goto out;
			}
			if (r->addr != t->addr || r->size != t->size) {
				dp_fail(e, "%s: core %u tensor '%s' at 0x%llx: shared address differs from its remote target {core %u, '%s'} at 0x%llx (shared addresses must be equal)",
					file, ci, t->name,
					(unsigned long long)t->addr,
					t->remote_core, t->remote_name,
					(unsigned long long)r->addr);
				goto out;
			}
			if (r->partition != t->partition || r->bank != t->bank) {
				dp_fail(e, "%s: core %u tensor '%s' (partition %u, bank %u): differs from its remote target {core %u, '%s'} (partition %u, bank %u) (sync_shared copies the whole triple: address, partition, bank)",
					file, ci, t->name, t->partition, t->bank,
					t->remote_core, t->remote_name,
					r->partition, r->bank);
				goto out;
			}
		}
	}
	rc = 0;
out:
	dp_plan_names_free(p, ix);
	return rc;
}

/*
 * Rule 7, dram_shared mode 1 (per-core slabs in one address map): core c's
 * slab is [private_base + c * core_cap, + core_cap), below the ceiling;
 * its general tensors lie inside it; and, the map being one, no two
 * tensors of different cores that are neither shared nor pre-placed share
 * a byte (a sweep by address keeping the two highest ends of different
 * cores).  Pre-placed tensors are the model's.
 */
static int slabs_check(const struct dp_plan *p, const char *file,
		       struct dp_err *e)
{
	struct brange *r, top[2] = { { 0, 0, UINT32_MAX, 0, 0 },
				     { 0, 0, UINT32_MAX, 0, 0 } };
	size_t n = 0, i;
	uint32_t ci, k;
	int rc = 0;

	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];
		uint64_t base = p->private_base + (uint64_t)ci * p->core_cap;

		if (c->slab_base != base || c->slab_end != base + p->core_cap ||
		    (p->ceiling && c->slab_end > p->ceiling))
			return dp_fail(e, "%s: core %u: slab [0x%llx, 0x%llx) is not [private_base + %u * core_cap, + core_cap) = [0x%llx, 0x%llx) below the ceiling",
				       file, ci, (unsigned long long)c->slab_base,
				       (unsigned long long)c->slab_end, ci,
				       (unsigned long long)base,
				       (unsigned long long)(base + p->core_cap));
		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];

			if (t->region == DP_REG_GENERAL &&
			    (t->addr < c->slab_base || t->addr + t->size > c->slab_end))
				return dp_fail(e, "%s: core %u tensor '%s' at [0x%llx, 0x%llx): outside the core's slab [0x%llx, 0x%llx) (dram_shared mode 1)",
					       file, ci, t->name,
					       (unsigned long long)t->addr,
					       (unsigned long long)(t->addr + t->size),
					       (unsigned long long)c->slab_base,
					       (unsigned long long)c->slab_end);
			if (!t->shared && t->region != DP_REG_PRE)
				n++;
		}
	}
	r = dp_realloc_array(NULL, n ? n : 1, sizeof(*r));
	if (!r)
		return dp_nomem(e);
	n = 0;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++) {
			const struct dp_plan_tensor *t = &p->core[ci].t[k];

			if (!t->shared && t->region != DP_REG_PRE)
				r[n++] = (struct brange){ t->addr, t->addr + t->size,
							  ci, k, 0 };
		}
	qsort(r, n, sizeof(*r), cmp_br);
	for (i = 0; i < n && !rc; i++) {
		/* the highest end among the other cores' ranges so far */
		const struct brange *o = top[0].core != r[i].core ? &top[0] : &top[1];

		if (o->core != UINT32_MAX && o->hi > r[i].lo) {
			rc = dp_fail(e, "%s: core %u tensor '%s' and core %u tensor '%s' share bytes at 0x%llx (dram_shared mode 1: one address map, private bytes of different cores are disjoint)",
				     file, o->core, p->core[o->core].t[o->t].name,
				     r[i].core, p->core[r[i].core].t[r[i].t].name,
				     (unsigned long long)r[i].lo);
			break;
		}
		if (r[i].core == top[0].core) {
			if (r[i].hi > top[0].hi)
				top[0] = r[i];
		} else if (top[0].core == UINT32_MAX || r[i].hi > top[0].hi) {
			top[1] = top[0];
			top[0] = r[i];
		} else if (top[1].core == UINT32_MAX || r[i].hi > top[1].hi) {
			top[1] = r[i];
		}
	}
	free(r);
	return rc;
}

/* Rules 1 and 2 for tensor t of core ci, and its intervals' lo <= hi */
static int tensor_rules(const struct dp_core_plan *c, uint32_t ci,
			const struct dp_plan_tensor *t, const char *file,
			struct dp_err *e)
{
	uint32_t q;

	if (!t->placed || t->addr == DP_UNSET)
		return dp_fail(e, "%s: core %u tensor '%s': no address (every DRAM tensor must be placed)",
			       file, ci, t->name);
	if (t->addr > UINT64_MAX - t->size)
		return dp_fail(e, "%s: core %u tensor '%s': address + size wraps around",
			       file, ci, t->name);
	if (!t->size || t->size % DP_PAGE || t->size < t->bytes ||
	    t->size - t->bytes >= DP_PAGE)
		return dp_fail(e, "%s: core %u tensor '%s': size %llu is not %llu bytes rounded up to 4 KiB",
			       file, ci, t->name, (unsigned long long)t->size,
			       (unsigned long long)t->bytes);
	if (t->addr % DP_PAGE)
		return dp_fail(e, "%s: core %u tensor '%s': address 0x%llx is not 4 KiB aligned",
			       file, ci, t->name, (unsigned long long)t->addr);
	for (q = 0; q < t->iv_count; q++) {
		const struct dp_iv *iv = &c->iv[t->iv_first + q];

		if (iv->lo > iv->hi)
			return dp_fail(e, "%s: core %u tensor '%s': interval [%llu, %llu] has lo > hi",
				       file, ci, t->name,
				       (unsigned long long)iv->lo,
				       (unsigned long long)iv->hi);
	}
	return 0;
}

/* Rules 1 and 2 for every tensor; *floor recomputed from the pre-placed
 * ones (rule 3) */
static int placed_rules(const struct dp_plan *p, const char *file,
			struct dp_err *e, uint64_t *floor)
{
	uint64_t hwm = 0;
	uint32_t ci, k;

	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		for (k = 0; k < c->n; k++) {
			const struct dp_plan_tensor *t = &c->t[k];

			if (tensor_rules(c, ci, t, file, e))
				return -1;
			if (t->region == DP_REG_PRE && t->addr + t->size - 1 > hwm)
				hwm = t->addr + t->size - 1;
		}
	}
	*floor = hwm ? hwm + 1 : 0;
	if (*floor != p->floor)
		return dp_fail(e, "%s: floor 0x%llx but the pre-placed tensors give hwm 0x%llx, floor 0x%llx (find_start_addr = hwm + 1)",
			       file, (unsigned long long)p->floor,
			       (unsigned long long)hwm, (unsigned long long)*floor);
	return 0;
}

/* Rules 3 and 4 for planned tensor t of core ci: above the floor, below
 * the ceiling, inside the CC region exactly when a collective operand */
static int region_rules(const struct dp_plan *p, uint64_t floor, uint32_t ci,
			const struct dp_plan_tensor *t, const char *file,
			struct dp_err *e)
{
	uint64_t cc_end = p->cc_base + p->cc_size;
	int in_cc = t->addr < cc_end && t->addr + t->size > p->cc_base;

	if (t->addr < floor)
		return dp_fail(e, "%s: core %u tensor '%s': address 0x%llx is below the floor 0x%llx",
			       file, ci, t->name, (unsigned long long)t->addr,
			       (unsigned long long)floor);
	if (p->ceiling && t->addr + t->size > p->ceiling)
		return dp_fail(e, "%s: core %u tensor '%s': ends above the ceiling 0x%llx",
			       file, ci, t->name, (unsigned long long)p->ceiling);
	if ((t->region == DP_REG_CC || t->collective) &&
	    (t->addr < p->cc_base || t->addr + t->size > cc_end))
		return dp_fail(e, "%s: core %u tensor '%s': collective operand at 0x%llx is outside the CC region [0x%llx, 0x%llx)",
			       file, ci, t->name, (unsigned long long)t->addr,
			       (unsigned long long)p->cc_base,
			       (unsigned long long)cc_end);
	if ((t->region == DP_REG_GENERAL || t->region == DP_REG_SHARED) && in_cc)
		return dp_fail(e, "%s: core %u tensor '%s': not a collective operand but inside the CC region [0x%llx, 0x%llx)",
			       file, ci, t->name, (unsigned long long)p->cc_base,
			       (unsigned long long)cc_end);
	return 0;
}

int dp_verify(const struct dp_plan *p, const char *file, struct dp_err *e)
{
	uint64_t floor;
	uint32_t ci, k;

	if (!file)
		file = p->source ? p->source : "plan";
	if (p->page != DP_PAGE)
		return dp_fail(e, "%s: page_size %llu: DRAM alignment is a hard 4096",
			       file, (unsigned long long)p->page);
	if (placed_rules(p, file, e, &floor))
		return -1;
	if (p->cc_size > p->cc_limit)
		return dp_fail(e, "%s: real CC buffer size %llu exceeds its limit %llu",
			       file, (unsigned long long)p->cc_size,
			       (unsigned long long)p->cc_limit);
	for (ci = 0; ci < p->ncores; ci++) {
		const struct dp_core_plan *c = &p->core[ci];

		for (k = 0; k < c->n; k++)
			if (c->t[k].region != DP_REG_PRE &&
			    region_rules(p, floor, ci, &c->t[k], file, e))
				return -1;
		if (dp_verify_sweep(c, file, e))
			return -1;
	}
	if (dp_verify_links(p, file, e))
		return -1;
	if (p->dram_shared_mode == 1 && slabs_check(p, file, e))
		return -1;
	return shared_vs_private(p, file, e);
}
