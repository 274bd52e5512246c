// SPDX-License-Identifier: GPL-2.0
/*
 * xmem heap benchmark: mean ns per alloc+free pair on one fragmented trace,
 * for the seed's list walk (XMEM_HEAP_LIST), the production path
 * (XMEM_HEAP_TREE: the lists while the heap has at most 64 blocks, the
 * augmented rbtrees above), the rbtrees alone (XMEM_HEAP_TREE with
 * list_max 0) and lib/genalloc's gen_pool with first fit, at several
 * numbers of live blocks. Runs at load; the table is in
 * /sys/kernel/debug/xmem_heap_bench/results. scripts/bench-heap.sh drives it
 * in the test VM.
 *
 * The trace: 2 * N blocks of 16..256 bytes (multiples of 16) are allocated
 * in a pool of their total size plus a quarter, then a random half is
 * freed, leaving N live blocks and about N / 2 holes. Each measured pair
 * allocates 16..256 bytes (alignment 16) and frees a random live block,
 * the new one included, so N stays constant. Sizes and alignment are
 * multiples of gen_pool's 16-byte granule and the heap never runs out of
 * descriptors, so all three make the same first-fit choices: the bench
 * checks that they return the same addresses. The list heap is set up in
 * tree mode and switched (xmem_heap_set_mode()): building a fragmented list
 * heap by its own O(n) walks would take O(n^2). Each trace runs reps
 * times, the four allocators taking turns; the fastest run counts. The
 * test VM may have only a jiffies clocksource (4 ms): runs are long.
 */

#include <linux/debugfs.h>
#include <linux/genalloc.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../xmem_heap.h"

static unsigned int pairs_small = 131072;
module_param(pairs_small, uint, 0444);
MODULE_PARM_DESC(pairs_small, "measured pairs at up to 1024 live blocks");
static unsigned int pairs_large = 8192;
module_param(pairs_large, uint, 0444);
MODULE_PARM_DESC(pairs_large, "measured pairs above 1024 live blocks");
static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "runs of each trace; the fastest counts");
static unsigned long long seed = 0xbe4c4;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "trace seed");

#define BENCH_BASE	0x100000000ULL
#define GRAN_ORDER	4
#define GRAN		BIT(GRAN_ORDER)

static const u32 live_counts[] = { 32, 1024, 65536 };

enum { B_LIST, B_TREE, B_PURE, B_GENPOOL, B_NR };
static const char * const bench_names[B_NR] = {
	"list", "tree", "pure tree", "gen_pool",
};

struct bench_trace {
	u32 live;
	u32 pairs;
	u64 pool;
	u32 *setup_size;	/* 2 * live */
	u32 *setup_keep;	/* 2 * live: 1 = survives the setup */
	u32 *size;		/* pairs */
	u32 *victim;		/* pairs: slot in [0, live] */
};

struct bench_result {
	u64 pool;
	u32 pairs;
	u64 ns[B_NR];
	u64 csum[B_NR];
	u32 fails[B_NR];
	int err[B_NR];
};

static struct bench_result results[ARRAY_SIZE(live_counts)];
static struct dentry *bench_dir;

static u64 rng(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static u32 rand_size(u64 *s)
{
	return GRAN * (1 + rng(s) % 16);
}

/* Keep the fastest run; every run must return the same addresses. */
static void bench_record(struct bench_result *r, int which, u64 ns, u64 csum)
{
	if (!r->ns[which] || ns < r->ns[which])
		r->ns[which] = ns;
	if (r->csum[which] && r->csum[which] != csum)
		r->err[which] = -EIO;
	r->csum[which] = csum;
}

static void trace_free(struct bench_trace *t)
{
	kvfree(t->setup_size);
	kvfree(t->setup_keep);
	kvfree(t->size);
	kvfree(t->victim);
}

static int trace_make(struct bench_trace *t, u32 live, u32 pairs)
{
	u64 s = seed ^ live, total = 0;
	u32 i, j, n = 2 * live, kept = 0;

	memset(t, 0, sizeof(*t));
	t->live = live;
	t->pairs = pairs;
	t->setup_size = kvcalloc(n, sizeof(u32), GFP_KERNEL);
	t->setup_keep = kvcalloc(n, sizeof(u32), GFP_KERNEL);
	t->size = kvcalloc(pairs, sizeof(u32), GFP_KERNEL);
	t->victim = kvcalloc(pairs, sizeof(u32), GFP_KERNEL);
	if (!t->setup_size || !t->setup_keep || !t->size || !t->victim) {
		trace_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		t->setup_size[i] = rand_size(&s);
		total += t->setup_size[i];
	}
	/* keep exactly half, chosen at random */
	while (kept < live) {
		j = rng(&s) % n;
		if (!t->setup_keep[j]) {
			t->setup_keep[j] = 1;
			kept++;
		}
	}
	t->pool = round_up(total + total / 4, 4096);
	for (i = 0; i < pairs; i++) {
		t->size[i] = rand_size(&s);
		t->victim[i] = rng(&s) % (live + 1);
	}
	return 0;
}

/*
 * Build the fragmented heap in tree mode; slot[] gets the live blocks in
 * setup order, sz[] their sizes.
 */
static int heap_layout(struct xmem_heap *h, const struct bench_trace *t,
		       u64 *slot, u32 *sz)
{
	u32 i, n = 2 * t->live, k = 0;
	u64 *all;
	int ret;

	ret = xmem_heap_init(h, BENCH_BASE, t->pool, 4 * t->live + 64,
			     XMEM_HEAP_TREE);
	if (ret)
		return ret;
	all = kvcalloc(n, sizeof(u64), GFP_KERNEL);
	if (!all) {
		xmem_heap_destroy(h);
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++)
		if (xmem_heap_alloc(h, t->setup_size[i], GRAN, &all[i], NULL))
			ret = -ENOSPC;
	for (i = 0; i < n && !ret; i++) {
		if (t->setup_keep[i]) {
			slot[k] = all[i];
			sz[k++] = t->setup_size[i];
		} else if (xmem_heap_free(h, all[i])) {
			ret = -EIO;
		}
	}
	kvfree(all);
	if (ret)
		xmem_heap_destroy(h);
	return ret;
}

/*
 * The arrays for a run's live blocks (one spare slot each) and the heap
 * laid out in them; on failure nothing is left to free.
 */
static int heap_setup(struct xmem_heap *h, const struct bench_trace *t,
		      u64 **slot, u32 **sz)
{
	int ret = -ENOMEM;

	*slot = kvcalloc(t->live + 1, sizeof(u64), GFP_KERNEL);
	*sz = kvcalloc(t->live + 1, sizeof(u32), GFP_KERNEL);
	if (*slot && *sz)
		ret = heap_layout(h, t, *slot, *sz);
	if (ret) {
		kvfree(*slot);
		kvfree(*sz);
		*slot = NULL;
		*sz = NULL;
	}
	return ret;
}

/* which: B_LIST, B_TREE (XMEM_HEAP_TREE as is) or B_PURE (list_max 0) */
static void heap_run(const struct bench_trace *t, struct bench_result *r,
		     int which)
{
	struct xmem_heap h;
	u64 *slot, t0, t1, a, csum = 0;
	u32 *sz, i, v, n = t->live;
	int ret;

	ret = heap_setup(&h, t, &slot, &sz);
	if (ret)
		goto out;
	if (which == B_PURE)
		h.list_max = 0;
	ret = xmem_heap_set_mode(&h, which == B_LIST ? XMEM_HEAP_LIST :
				 XMEM_HEAP_TREE);
	if (ret) {
		xmem_heap_destroy(&h);
		goto out;
	}

	t0 = ktime_get_ns();
	for (i = 0; i < t->pairs; i++) {
		if (xmem_heap_alloc(&h, t->size[i], GRAN, &a, NULL)) {
			r->fails[which]++;
			continue;
		}
		csum = csum * 31 + a;
		slot[n] = a;
		v = t->victim[i];
		xmem_heap_free(&h, slot[v]);
		slot[v] = slot[n];
		if ((i & 63) == 63)
			cond_resched();
	}
	t1 = ktime_get_ns();
	bench_record(r, which, t1 - t0, csum);
	ret = xmem_heap_verify(&h);
	xmem_heap_destroy(&h);
out:
	r->err[which] = r->err[which] ?: ret;
	kvfree(slot);
	kvfree(sz);
}

static void genpool_run(const struct bench_trace *t, struct bench_result *r)
{
	struct genpool_data_fixed fixed;
	struct gen_pool *gp = NULL;
	struct xmem_heap h;
	u64 *slot, t0, t1, csum = 0;
	u32 *sz, i, v, n = t->live;
	unsigned long a;
	int ret;

	ret = heap_setup(&h, t, &slot, &sz);
	if (ret)
		goto out;
	xmem_heap_destroy(&h);	/* only its layout was wanted */

	ret = -ENOMEM;
	gp = gen_pool_create(GRAN_ORDER, -1);
	if (!gp || gen_pool_add(gp, BENCH_BASE, t->pool, -1))
		goto out;
	/* the same layout: each live block at its address */
	for (i = 0; i < n; i++) {
		fixed.offset = slot[i] - BENCH_BASE;
		if (gen_pool_alloc_algo(gp, sz[i], gen_pool_fixed_alloc,
					&fixed) != slot[i]) {
			ret = -EIO;
			goto out;
		}
	}

	t0 = ktime_get_ns();
	for (i = 0; i < t->pairs; i++) {
		a = gen_pool_alloc(gp, t->size[i]);	/* first fit */
		if (!a) {
			r->fails[B_GENPOOL]++;
			continue;
		}
		csum = csum * 31 + a;
		slot[n] = a;
		sz[n] = t->size[i];
		v = t->victim[i];
		gen_pool_free(gp, slot[v], sz[v]);
		slot[v] = slot[n];
		sz[v] = sz[n];
		if ((i & 63) == 63)
			cond_resched();
	}
	t1 = ktime_get_ns();
	bench_record(r, B_GENPOOL, t1 - t0, csum);
	ret = 0;
	/* free the rest, or gen_pool_destroy() BUGs on the busy chunk */
	for (i = 0; i < n; i++)
		gen_pool_free(gp, slot[i], sz[i]);
out:
	if (gp)
		gen_pool_destroy(gp);
	r->err[B_GENPOOL] = r->err[B_GENPOOL] ?: ret;
	kvfree(slot);
	kvfree(sz);
}

/*
 * What scrubbing costs: the device clears every freed block before the
 * heap gets it back. Mean ns per alloc+free pair of one size on an empty
 * tree heap over a vmalloc'd window, without and with the memset of the
 * freed block; the fastest of reps runs counts.
 */
static const u32 scrub_sizes[] = { 256, 4096, 65536, 1U << 20 };
static u64 scrub_ns[ARRAY_SIZE(scrub_sizes)][2];
static u32 scrub_n[ARRAY_SIZE(scrub_sizes)];
static unsigned int scrub_pairs = 2048;
module_param(scrub_pairs, uint, 0444);
MODULE_PARM_DESC(scrub_pairs, "measured pairs per size in the scrub rows (times 64 KiB / size below 64 KiB)");

static int scrub_run(u32 size, u32 pairs, bool scrub, u64 *ns)
{
	u64 pool = 4ULL << 20, a, end, t0, t1;
	struct xmem_heap h;
	u8 *win;
	u32 i;
	int ret;

	win = vzalloc(pool);
	if (!win)
		return -ENOMEM;
	ret = xmem_heap_init(&h, BENCH_BASE, pool, 64, XMEM_HEAP_TREE);
	if (ret)
		goto out;
	t0 = ktime_get_ns();
	for (i = 0; i < pairs; i++) {
		if (xmem_heap_alloc(&h, size, 64, &a, &end)) {
			ret = -ENOSPC;
			break;
		}
		win[a - BENCH_BASE] = 1;	/* the owner wrote something */
		if (scrub)
			memset(win + (a - BENCH_BASE), 0, end - a);
		xmem_heap_free(&h, a);
		if ((i & 63) == 63)
			cond_resched();
	}
	t1 = ktime_get_ns();
	xmem_heap_destroy(&h);
	if (!ret && (!*ns || t1 - t0 < *ns))
		*ns = t1 - t0;
out:
	vfree(win);
	return ret;
}

static int scrub_bench(void)
{
	unsigned int i, k;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(scrub_sizes) && !ret; i++) {
		/* small blocks run longer: the VM's clock may tick at 4 ms */
		scrub_n[i] = scrub_pairs * max(1U, 65536 / scrub_sizes[i]);
		for (k = 0; k < max(reps, 1U) && !ret; k++) {
			ret = scrub_run(scrub_sizes[i], scrub_n[i], false,
					&scrub_ns[i][0]);
			if (!ret)
				ret = scrub_run(scrub_sizes[i], scrub_n[i], true,
						&scrub_ns[i][1]);
		}
	}
	return ret;
}

static int results_show(struct seq_file *m, void *v)
{
	unsigned int i, b;

	seq_puts(m, "# live pairs pool ns_list ns_tree ns_pure_tree ns_gen_pool same_addresses fails errors\n");
	for (i = 0; i < ARRAY_SIZE(live_counts); i++) {
		const struct bench_result *r = &results[i];
		bool same = r->csum[B_LIST] == r->csum[B_TREE] &&
			    r->csum[B_TREE] == r->csum[B_PURE] &&
			    r->csum[B_PURE] == r->csum[B_GENPOOL];
		int err = 0;

		for (b = 0; b < B_NR; b++)
			err = err ?: r->err[b];
		seq_printf(m, "%u %u %llu", live_counts[i], r->pairs, r->pool);
		for (b = 0; b < B_NR; b++)
			seq_printf(m, " %llu", r->ns[b] / max(r->pairs, 1U));
		seq_printf(m, " %s %u %d\n", same ? "yes" : "no",
			   r->fails[B_LIST] + r->fails[B_TREE] +
			   r->fails[B_PURE] + r->fails[B_GENPOOL], err);
	}
	seq_puts(m, "# scrub size pairs ns_without ns_with\n");
	for (i = 0; i < ARRAY_SIZE(scrub_sizes); i++)
		seq_printf(m, "scrub %u %u %llu %llu\n", scrub_sizes[i],
			   scrub_n[i], scrub_ns[i][0] / max(scrub_n[i], 1U),
			   scrub_ns[i][1] / max(scrub_n[i], 1U));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

static int __init bench_init(void)
{
	struct bench_trace t;
	unsigned int i, k;
	int ret;

	for (i = 0; i < ARRAY_SIZE(live_counts); i++) {
		u32 live = live_counts[i];

		ret = trace_make(&t, live, live > 1024 ? pairs_large :
				 pairs_small);
		if (ret)
			return ret;
		results[i].pool = t.pool;
		results[i].pairs = t.pairs;
		for (k = 0; k < max(reps, 1U); k++) {
			heap_run(&t, &results[i], B_LIST);
			heap_run(&t, &results[i], B_TREE);
			heap_run(&t, &results[i], B_PURE);
			genpool_run(&t, &results[i]);
		}
		pr_info("xmem_heap_bench: %u live: %s %llu, %s %llu, %s %llu, %s %llu ns\n",
			live, bench_names[B_LIST], results[i].ns[B_LIST],
			bench_names[B_TREE], results[i].ns[B_TREE],
			bench_names[B_PURE], results[i].ns[B_PURE],
			bench_names[B_GENPOOL], results[i].ns[B_GENPOOL]);
		trace_free(&t);
	}
	ret = scrub_bench();
	if (ret)
		return ret;
	bench_dir = debugfs_create_dir("xmem_heap_bench", NULL);
	debugfs_create_file("results", 0444, bench_dir, NULL, &results_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("xmem heap benchmark: list walk, rbtrees and gen_pool");
MODULE_LICENSE("GPL");
