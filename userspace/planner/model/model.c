// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the in-memory model and its builder.
 *
 * The JSON reader and the benchmark generator both go through these calls,
 * so every rule on a tensor (positive sizes, no overflow, aligned
 * pre-placed address, unique names, ...) is checked in one place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libdramplan.h"
#include "internal.h"
#include "model/model.h"

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* NULL when out of memory. */
struct dp_model *dp_model_new(const char *file, const char *name)
{
	struct dp_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->file = dp_strdup(file ? file : "<builder>");
	m->name = dp_strdup(name ? name : "model");
	if (!m->file || !m->name) {
		dp_model_free(m);
		return NULL;
	}
	return m;
}

/* A uint32_t-counted array grown to need elements: 0 or -ENOMEM. */
static int grow32(void *pp, uint32_t *cap, uint32_t need, size_t sz,
		  size_t first)
{
	size_t c = *cap;

	if (dp_grow(pp, &c, need, sz, first))
		return -ENOMEM;
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return 0;
}

void dp_model_free(struct dp_model *m)
{
	uint32_t i, j;

	if (!m)
		return;
	for (i = 0; i < m->nc; i++) {
		struct dp_core *c = &m->c[i];

		for (j = 0; j < c->nt; j++) {
			free(c->t[j].name);
			free(c->t[j].remote_name);
		}
		for (j = 0; j < c->nb; j++)
			free(c->b[j].name);
		for (j = 0; j < c->ni; j++)
			free(c->in[j].name);
		DP_FREE(c->t, c->b, c->in, c->ops, c->succ, c->iv, c->hash,
			c->bhash, c->function, c->sync);
	}
	for (i = 0; i < m->nev; i++)
		free(m->ev[i]);
	DP_FREE(m->c, m->file, m->name, m->ev, m);
}

struct dp_core *dp_core_add(struct dp_model *m, const char *function,
			    struct dp_err *e)
{
	struct dp_core *c;

	if (!function || !*function)
		function = "main";
	if (strlen(function) > DP_NAME_MAX) {
		dp_fail(e, "%s: cores[%u]: function name longer than %d characters",
			m->file, m->nc, DP_NAME_MAX);
		return NULL;
	}
	c = dp_realloc_array(m->c, m->nc + 1, sizeof(*m->c));
	if (!c) {
		dp_nomem(e);
		return NULL;
	}
	m->c = c;
	c = &m->c[m->nc];
	memset(c, 0, sizeof(*c));
	c->function = dp_strdup(function);
	if (!c->function) {
		dp_nomem(e);
		return NULL;
	}
	c->index = m->nc++;
	return c;
}

static int check_name(struct dp_model *m, const char *where, const char *what,
		      const char *name, struct dp_err *e)
{
	const unsigned char *p;

	if (!name || !*name)
		return dp_fail(e, "%s: %s: %s name is empty (every %s needs a non-empty name)",
			       m->file, where, what, what);
	if (strlen(name) > DP_NAME_MAX)
		return dp_fail(e, "%s: %s: %s name longer than %d characters",
			       m->file, where, what, DP_NAME_MAX);
	for (p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return dp_fail(e, "%s: %s: %s name has a control character",
				       m->file, where, what);
	return 0;
}

/* Open-addressing name index; slots hold index + 1, 0 = empty.
 * 0, or -ENOMEM with the index as it was. */
static int index_grow(uint32_t **tab, uint32_t *cap, uint32_t count,
		      char *(*name_of)(void *, uint32_t), void *base)
{
	uint32_t ncap, i, h;
	uint32_t *nt;

	if ((uint64_t)(count + 1) * 2 <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		h = hash_str(name_of(base, i)) & (ncap - 1);
		while (nt[h])
			h = (h + 1) & (ncap - 1);
		nt[h] = i + 1;
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static char *tensor_name_of(void *base, uint32_t i)
{
	return ((struct dp_core *)base)->t[i].name;
}

static char *block_name_of(void *base, uint32_t i)
{
	return ((struct dp_core *)base)->b[i].name;
}

static int64_t index_find(const uint32_t *tab, uint32_t cap, const char *name,
			  char *(*name_of)(void *, uint32_t), void *base)
{
	uint32_t h;

	if (!cap)
		return -1;
	h = hash_str(name) & (cap - 1);
	while (tab[h]) {
		if (!strcmp(name_of(base, tab[h] - 1), name))
			return tab[h] - 1;
		h = (h + 1) & (cap - 1);
	}
	return -1;
}

static void index_put(uint32_t *tab, uint32_t cap, const char *name,
		      uint32_t idx)
{
	uint32_t h = hash_str(name) & (cap - 1);

	while (tab[h])
		h = (h + 1) & (cap - 1);
	tab[h] = idx + 1;
}

int64_t dp_tensor_find(const struct dp_core *c, const char *name)
{
	return index_find(c->hash, c->hcap, name, tensor_name_of, (void *)c);
}

int64_t dp_block_find(const struct dp_core *c, const char *name)
{
	return index_find(c->bhash, c->bhcap, name, block_name_of, (void *)c);
}

/* The size rules of spec s: positive, elems * elem_size and a pre-placed
 * address + size within 64 bits, the address 4 KiB aligned; *bytes and
 * *size (rounded up to 4 KiB) */
static int size_rules(const struct dp_model *m, const struct dp_tensor_spec *s,
		      const char *where, uint64_t *bytes, uint64_t *size,
		      struct dp_err *e)
{
	const char *f = m->file;

	if (s->elems == 0 || s->elem_size == 0)
		return dp_fail(e, "%s: %s: tensor '%s': zero size (elems and elem_size must be positive)",
			       f, where, s->name);
	if (__builtin_mul_overflow(s->elems, s->elem_size, bytes) ||
	    *bytes > UINT64_MAX - (DP_PAGE - 1))
		return dp_fail(e, "%s: %s: tensor '%s': elems * elem_size overflows 64 bits (%llu * %llu)",
			       f, where, s->name,
			       (unsigned long long)s->elems,
			       (unsigned long long)s->elem_size);
	*size = (*bytes + DP_PAGE - 1) & ~(DP_PAGE - 1);
	if (s->mem != DP_MEM_DRAM || !s->has_addr)
		return 0;
	if (s->addr % DP_PAGE)
		return dp_fail(e, "%s: %s: tensor '%s': pre-placed address 0x%llx is not 4 KiB aligned (DRAM alignment is a hard 4096)",
			       f, where, s->name, (unsigned long long)s->addr);
	if (s->addr > UINT64_MAX - *size)
		return dp_fail(e, "%s: %s: tensor '%s': address + size overflows 64 bits",
			       f, where, s->name);
	return 0;
}

/* The sharing rules of spec s: a link is a shared tensor that takes its
 * whole triple from its owner; only DRAM tensors are shared or have a
 * partition and bank */
static int sharing_rules(struct dp_model *m,
			 const struct dp_tensor_spec *s, const char *where,
			 struct dp_err *e)
{
	const char *f = m->file;

	if (s->has_remote) {
		if (!s->shared)
			return dp_fail(e, "%s: %s: tensor '%s': has a remote target but is not shared (a remote target links a shared tensor to its owner)",
				       f, where, s->name);
		if (s->has_addr)
			return dp_fail(e, "%s: %s: tensor '%s': linked tensors take their address from the remote target; remove \"address\"",
				       f, where, s->name);
		if (s->partition || s->bank)
			return dp_fail(e, "%s: %s: tensor '%s': linked tensors take their partition and bank from the remote target (sync_shared copies the owner's triple); remove \"partition\" and \"bank\"",
				       f, where, s->name);
		if (check_name(m, where, "remote target", s->remote_name, e))
			return -1;
	}
	if ((s->partition || s->bank) && s->mem != DP_MEM_DRAM)
		return dp_fail(e, "%s: %s: tensor '%s': \"partition\" and \"bank\" are for DRAM tensors (only DRAM tensors are planned)",
			       f, where, s->name);
	if (s->shared && s->mem != DP_MEM_DRAM)
		return dp_fail(e, "%s: %s: tensor '%s': only DRAM tensors can be shared across cores",
			       f, where, s->name);
	return 0;
}

int64_t dp_tensor_add(struct dp_model *m, struct dp_core *c,
		      const struct dp_tensor_spec *s, const char *where,
		      struct dp_err *e)
{
	struct dp_tensor *t;
	uint64_t bytes = 0, size = 0;

	if (check_name(m, where, "tensor", s->name, e))
		return -1;
	if (dp_tensor_find(c, s->name) >= 0)
		return dp_fail(e, "%s: %s: duplicate tensor name '%s' in core %u (tensor names must be unique within a core)",
			       m->file, where, s->name, c->index);
	if (size_rules(m, s, where, &bytes, &size, e) ||
	    sharing_rules(m, s, where, e))
		return -1;
	if (c->nt == UINT32_MAX - 1)
		return dp_fail(e, "%s: %s: too many tensors", m->file, where);
	if (grow32(&c->t, &c->cap_t, c->nt + 1, sizeof(*c->t), 16) ||
	    index_grow(&c->hash, &c->hcap, c->nt, tensor_name_of, c))
		return dp_nomem(e);
	t = &c->t[c->nt];
	*t = (struct dp_tensor){
		.elems = s->elems, .elem_size = s->elem_size,
		.bytes = bytes, .size = size,
		.mem = s->mem, .usage = s->usage,
		.has_addr = !!s->has_addr,
		.addr = s->has_addr ? s->addr : DP_UNSET,
		.shared = !!s->shared, .has_remote = !!s->has_remote,
		.remote_core = s->remote_core, .remote_idx = -1, .obj = -1,
		.partition = s->partition, .bank = s->bank,
	};
	t->name = dp_strdup(s->name);
	t->remote_name = s->has_remote ? dp_strdup(s->remote_name) : NULL;
	if (!t->name || (s->has_remote && !t->remote_name)) {
		free(t->name);
		free(t->remote_name);
		return dp_nomem(e);
	}
	index_put(c->hash, c->hcap, t->name, c->nt);
	return c->nt++;
}

int64_t dp_block_add(struct dp_model *m, struct dp_core *c, const char *name,
		     const char *where, struct dp_err *e)
{
	struct dp_block *b;

	if (check_name(m, where, "block", name, e))
		return -1;
	if (dp_block_find(c, name) >= 0)
		return dp_fail(e, "%s: %s: duplicate block name '%s' in core %u (block names must be unique within a function)",
			       m->file, where, name, c->index);
	if (grow32(&c->b, &c->cap_b, c->nb + 1, sizeof(*c->b), 8) ||
	    index_grow(&c->bhash, &c->bhcap, c->nb, block_name_of, c))
		return dp_nomem(e);
	b = &c->b[c->nb];
	memset(b, 0, sizeof(*b));
	b->name = dp_strdup(name);
	if (!b->name)
		return dp_nomem(e);
	b->inst_first = c->ni;
	b->succ_first = c->nsucc;
	index_put(c->bhash, c->bhcap, b->name, c->nb);
	return c->nb++;
}

static void fill_to(struct dp_core *c, uint32_t block)
{
	/* Blocks between the current one and `block` get no instructions. */
	while (c->fill_block < block) {
		c->fill_block++;
		c->b[c->fill_block].inst_first = c->ni;
		c->b[c->fill_block].succ_first = c->nsucc;
	}
}

int dp_inst_add(struct dp_model *m, struct dp_core *c, uint32_t block,
		const char *name, const uint32_t *defs, uint32_t ndefs,
		const uint32_t *uses, uint32_t nuses, int collective,
		const char *where, struct dp_err *e)
{
	struct dp_inst *in;
	uint32_t i;

	if (block >= c->nb || block < c->fill_block)
		return dp_fail(e, "%s: %s: instructions must be added block by block",
			       m->file, where);
	if (name && strlen(name) > DP_NAME_MAX)
		return dp_fail(e, "%s: %s: instruction name longer than %d characters",
			       m->file, where, DP_NAME_MAX);
	for (i = 0; i < ndefs; i++)
		if (defs[i] >= c->nt)
			return dp_fail(e, "%s: %s: def %u: unknown tensor index %u",
				       m->file, where, i, defs[i]);
	for (i = 0; i < nuses; i++)
		if (uses[i] >= c->nt)
			return dp_fail(e, "%s: %s: use %u: unknown tensor index %u",
				       m->file, where, i, uses[i]);
	if (c->ni == UINT32_MAX - 1 || c->nops + ndefs + nuses >= UINT32_MAX)
		return dp_fail(e, "%s: %s: too many instructions", m->file, where);
	fill_to(c, block);
	if (c->b[block].nsucc)
		return dp_fail(e, "%s: %s: instructions must come before the block's successors",
			       m->file, where);
	if (grow32(&c->in, &c->cap_i, c->ni + 1, sizeof(*c->in), 16) ||
	    dp_grow(&c->ops, &c->cap_ops, c->nops + ndefs + nuses,
		    sizeof(*c->ops), 64))
		return dp_nomem(e);
	in = &c->in[c->ni];
	memset(in, 0, sizeof(*in));
	in->name = dp_strdup(name ? name : "");
	if (!in->name)
		return dp_nomem(e);
	c->ni++;
	in->op_first = c->nops;
	in->ndefs = ndefs;
	in->nuses = nuses;
	in->collective = !!collective;
	for (i = 0; i < ndefs; i++) {
		c->ops[c->nops++] = defs[i];
		c->t[defs[i]].ndefs++;
	}
	for (i = 0; i < nuses; i++) {
		c->ops[c->nops++] = uses[i];
		c->t[uses[i]].nuses++;
	}
	c->b[block].ninst++;
	return 0;
}

int dp_succ_add(struct dp_core *c, uint32_t block, uint32_t succ,
		struct dp_err *e)
{
	if (block >= c->nb || succ >= c->nb || block < c->fill_block)
		return dp_fail(e, "core %u: successors must be added block by block",
			       c->index);
	fill_to(c, block);
	if (dp_grow(&c->succ, &c->cap_succ, c->nsucc + 1, sizeof(*c->succ),
		    16))
		return dp_nomem(e);
	c->succ[c->nsucc++] = succ;
	c->b[block].nsucc++;
	return 0;
}

struct lref {
	uint32_t core;		/* the owner: remote core, index there */
	uint32_t idx;
	uint32_t t;		/* the linking tensor */
};

static int cmp_lref(const void *a, const void *b)
{
	const struct lref *x = a, *y = b;

	return dp_cmp(x->core, y->core) ?: dp_cmp(x->idx, y->idx) ?:
	       dp_cmp(x->t, y->t);
}

/*
 * One link per owner per core.  Sorting the core's links by owner puts two
 * links to one owner side by side: O(L log L) instead of comparing every
 * pair.  The pair reported is the one a scan of every pair in index order
 * finds first: the smallest first link of any owner linked twice, with
 * that owner's second link.
 */
static int one_link_per_owner(struct dp_model *m, struct dp_core *c,
			      struct dp_err *e)
{
	struct lref *l;
	uint32_t i, n = 0, bi = UINT32_MAX, bj = 0;
	size_t k;

	for (i = 0; i < c->nt; i++)
		n += c->t[i].has_remote;
	if (n < 2)
		return 0;
	l = dp_realloc_array(NULL, n, sizeof(*l));
	if (!l)
		return dp_nomem(e);
	n = 0;
	for (i = 0; i < c->nt; i++)
		if (c->t[i].has_remote)
			l[n++] = (struct lref){ c->t[i].remote_core,
						(uint32_t)c->t[i].remote_idx, i };
	qsort(l, n, sizeof(*l), cmp_lref);
	for (k = 0; k + 1 < n; k++)
		if (l[k].core == l[k + 1].core && l[k].idx == l[k + 1].idx &&
		    (k == 0 || l[k - 1].core != l[k].core ||
		     l[k - 1].idx != l[k].idx) && l[k].t < bi) {
			bi = l[k].t;		/* first link of this owner */
			bj = l[k + 1].t;	/* and its second */
		}
	free(l);
	if (bi == UINT32_MAX)
		return 0;
	return dp_fail(e, "%s: core %u: tensors '%s' and '%s' both link to {core %u, '%s'} (a core links to an owner once)",
		       m->file, c->index, c->t[bi].name, c->t[bj].name,
		       c->t[bi].remote_core, c->t[bi].remote_name);
}

/*
 * Remote targets of core ci: every linked tensor (shared, with {core, name})
 * must name an owner on another core, i.e. a shared DRAM tensor of the same
 * byte size that is not itself linked.  Sets each link's remote_idx.
 */
int dp_link_targets(struct dp_model *m, uint32_t ci, struct dp_err *e)
{
	struct dp_core *c = &m->c[ci];
	uint32_t i;

	for (i = 0; i < c->nt; i++) {
		struct dp_tensor *t = &c->t[i];
		struct dp_core *rc;
		struct dp_tensor *r;
		int64_t ri;

		if (!t->has_remote)
			continue;
		if (t->remote_core >= m->nc)
			return dp_fail(e, "%s: core %u tensor '%s': missing remote target {core %u, '%s'}: the model has %u core(s)",
				       m->file, ci, t->name, t->remote_core,
				       t->remote_name, m->nc);
		if (t->remote_core == ci)
			return dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} is on the same core (a link must point to another core's owner)",
				       m->file, ci, t->name, t->remote_core,
				       t->remote_name);
		rc = &m->c[t->remote_core];
		ri = dp_tensor_find(rc, t->remote_name);
		if (ri < 0)
			return dp_fail(e, "%s: core %u tensor '%s': missing remote target {core %u, '%s'}: no such tensor in core %u",
				       m->file, ci, t->name, t->remote_core,
				       t->remote_name, t->remote_core);
		r = &rc->t[ri];
		if (!r->shared || r->has_remote)
			return dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} is %s (it must be the shared owner)",
				       m->file, ci, t->name, t->remote_core,
				       t->remote_name,
				       r->shared ? "itself linked" : "not shared");
		if (r->bytes != t->bytes)
			return dp_fail(e, "%s: core %u tensor '%s': remote target {core %u, '%s'} has %llu bytes, this one %llu (linked tensors must have the same size)",
				       m->file, ci, t->name, t->remote_core,
				       t->remote_name,
				       (unsigned long long)r->bytes,
				       (unsigned long long)t->bytes);
		t->remote_idx = ri;
	}
	return 0;
}

/*
 * Each owner becomes one shared object; one core may link to an owner once.
 */
int dp_model_link(struct dp_model *m, struct dp_err *e)
{
	uint32_t ci;

	for (ci = 0; ci < m->nc; ci++) {
		struct dp_core *c = &m->c[ci];

		fill_to(c, c->nb ? c->nb - 1 : 0);
		if (dp_link_targets(m, ci, e) || one_link_per_owner(m, c, e))
			return -1;
	}
	if (m->ordered) {
		struct dp_hb o;

		if (dp_events_check(m, e) || dp_hb_build(m, &o, e))
			return -1;
		dp_hb_free(&o);
	}
	return 0;
}
