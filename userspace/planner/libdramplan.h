/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libdramplan.h - libdramplan, the userspace DRAM planner: what a program
 * that plans calls (the dramplan tool is userspace/tools/dramplan.c).
 *
 *   - load or build a model (dp_model_load_json, dp_model_new and the
 *     builder), write it back (dp_model_write_json);
 *   - plan it with options (dp_opts_default, dp_plan_model);
 *   - verify a plan (dp_verify), write it, read it back, chart it, report
 *     it (dp_plan_write_json, dp_plan_load_json, dp_plan_write_svg,
 *     dp_plan_write_report);
 *   - the same for a MiniMalloc CSV instance (dp_csv_*).
 *
 * A model (N cores, one function per core, tensors, basic blocks with
 * instructions) goes through a pipeline of passes (pipeline.c):
 *
 *   number -> liveness -> find_start_addr -> cc_buffer_size
 *     -> coloring_allocator_dram -> build_plan -> sync_shared -> check_placed
 *     -> post_shared_hazards -> totals
 *
 * --disable-dram-allocation leaves the DRAM group (find_start_addr,
 * cc_buffer_size, coloring_allocator_dram, post_shared_hazards) out.  The
 * result is a dp_plan: per core a plain array of placements (tensor id,
 * name, address, aligned size, liveness intervals, shared flag, remote
 * target {core, name}) that a device client can send as it is
 * (libdramplan-device, <dramplan/dp_device.h>).  libdramplan knows no
 * device.
 *
 * The library's own interfaces (the passes, the placer, the interval tree,
 * the search) are in internal.h and the headers of its stages (model/,
 * place/, search/, plan/, io/), which are not installed.
 *
 * Every function that can fail returns a negative value (or NULL) and
 * fills a struct dp_err with one message that names the file, the JSON
 * path/line/column or the tensor, and the rule broken.  No function aborts
 * or exits: out of memory is an error like the others (dp_err_code(e) is
 * then -ENOMEM; calls that take no struct dp_err return -ENOMEM), and
 * leaves nothing allocated behind.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#ifndef LIBDRAMPLAN_H
#define LIBDRAMPLAN_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#define DP_PAGE		4096ULL		/* hard DRAM alignment (getAlignmentSize) */
#define DP_NAME_MAX	255		/* longest tensor/block/function name */
#define DP_CC_DEFAULT_MIB 500		/* --allreduce-buffer-size default */
#define DP_DRAM_DEFAULT_MIB 16384	/* --dram-size default: 16 GiB per core */
#define DP_UNSET	UINT64_MAX

struct dp_err {
	char msg[1024];
};

/* Sets e->msg (if e) and returns -1. */
int dp_fail(struct dp_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets e->msg to DP_NOMEM_MSG (if e) and returns -ENOMEM. */
#define DP_NOMEM_MSG	"out of memory"
int dp_nomem(struct dp_err *e);
/* What a failed call's e holds: -ENOMEM when it ran out of memory,
 * -EINVAL for every other failure. */
int dp_err_code(const struct dp_err *e);

/* ---- model ---------------------------------------------------------- */

enum dp_mem { DP_MEM_DRAM, DP_MEM_SBUF, DP_MEM_PSUM };
enum dp_usage { DP_USE_SPILL, DP_USE_INTERNAL, DP_USE_INPUT, DP_USE_OUTPUT,
		DP_USE_WEIGHT };

/* Where a DRAM tensor lives in its core's address map (see docs). */
enum dp_region {
	DP_REG_NONE,	/* not a DRAM tensor: not planned */
	DP_REG_PRE,	/* pre-placed (input/output/weight at a fixed address) */
	DP_REG_LINKED,	/* shared, linked to its owner on another core */
	DP_REG_CC,	/* collective operand: CC buffer region */
	DP_REG_SHARED,	/* shared owner, not a collective operand */
	DP_REG_GENERAL,	/* everything else */
};

/* A closed interval of flat instruction times (or CSV times). */
struct dp_iv {
	uint64_t lo, hi;
};

struct dp_tensor {
	char *name;
	uint64_t elems, elem_size;
	uint64_t bytes;		/* elems * elem_size */
	uint64_t size;		/* bytes rounded up to DP_PAGE */
	uint64_t addr;		/* DP_UNSET until placed */
	uint8_t mem, usage, region;
	uint8_t has_addr;	/* pre-placed in the model */
	uint8_t shared, has_remote, collective;
	uint32_t remote_core;
	char *remote_name;
	int64_t remote_idx;	/* index in the remote core, -1 if none */
	int32_t obj;		/* shared object index (owners), -1 */
	uint32_t iv_first, iv_count;	/* into core->iv after liveness */
	uint32_t ndefs, nuses;	/* accesses in the function */
	/* with addr, the seed's placement triple that sync_shared copies
	 * into every linked tensor; 0 unless the model gives them */
	uint32_t partition, bank;
};

/* A collective's kind, reduction and element type (dp_inst_coll) */
enum dp_coll_kind { DP_COLL_NONE, DP_COLL_ALL_REDUCE, DP_COLL_REDUCE_SCATTER,
		    DP_COLL_ALL_GATHER };
enum dp_coll_op { DP_RED_SUM, DP_RED_MAX };
enum dp_elem { DP_ELEM_F32, DP_ELEM_BF16, DP_ELEM_F16, DP_ELEM_I32 };

struct dp_inst {
	char *name;
	uint32_t op_first;	/* core->ops[op_first .. +ndefs) defs, then uses */
	uint32_t ndefs, nuses;
	uint8_t collective;
	uint64_t t;		/* flat time (program order) */
	/* core->sync[sync_first ..): nwait event indices (model->ev), then
	 * nsignal, then ncores core indices (a collective's cores) */
	uint32_t sync_first, nwait, nsignal, ncores;
	uint8_t coll_kind, coll_op, coll_type;	/* DP_COLL_NONE: no kind */
	uint64_t compute_ns;	/* "compute_ns": modeled compute time, 0 none */
};

struct dp_block {
	char *name;
	uint32_t inst_first, ninst;
	uint32_t succ_first, nsucc;	/* into core->succ */
	uint64_t t_first, t_last;	/* t_last < t_first for an empty block */
};

struct dp_core {
	uint32_t index;
	char *function;
	struct dp_tensor *t;
	uint32_t nt, cap_t;
	struct dp_block *b;
	uint32_t nb, cap_b;
	struct dp_inst *in;
	uint32_t ni, cap_i;
	uint32_t *ops;
	size_t nops, cap_ops;
	uint32_t *succ;
	size_t nsucc, cap_succ;
	struct dp_iv *iv;	/* merged liveness intervals, per tensor */
	size_t niv;
	uint32_t *hash;		/* tensor name index (open addressing) */
	uint32_t hcap;
	uint32_t *bhash;	/* block name index */
	uint32_t bhcap;
	uint32_t fill_block;	/* builder: block currently taking insts */
	uint32_t *sync;		/* the instructions' events and cores */
	size_t nsync, cap_sync;
};

struct dp_model {
	char *file;		/* for messages ("<builder>" if none) */
	char *name;
	struct dp_core *c;
	uint32_t nc;
	char **ev;		/* event names, model-wide, first use first */
	uint32_t nev, cap_ev;
	/* an event or a collective naming its cores: the static proof runs
	 * (plan/unordered.c) */
	int ordered;
};

/* Builder.  Every call validates and fails with a message naming the rule. */
struct dp_model *dp_model_new(const char *file, const char *name);
void dp_model_free(struct dp_model *m);
struct dp_core *dp_core_add(struct dp_model *m, const char *function,
			    struct dp_err *e);

struct dp_tensor_spec {
	const char *name;
	uint64_t elems, elem_size;
	enum dp_mem mem;
	enum dp_usage usage;
	int has_addr;
	uint64_t addr;
	int shared;
	int has_remote;
	uint32_t remote_core;
	const char *remote_name;
	uint32_t partition, bank;	/* default 0; never on a linked tensor */
};
/* Returns the tensor index or -1.  where: prefix for messages. */
int64_t dp_tensor_add(struct dp_model *m, struct dp_core *c,
		      const struct dp_tensor_spec *s, const char *where,
		      struct dp_err *e);
int64_t dp_tensor_find(const struct dp_core *c, const char *name);
int64_t dp_block_add(struct dp_model *m, struct dp_core *c, const char *name,
		     const char *where, struct dp_err *e);
int64_t dp_block_find(const struct dp_core *c, const char *name);
/* Instructions must be added block by block, in program order. */
int dp_inst_add(struct dp_model *m, struct dp_core *c, uint32_t block,
		const char *name, const uint32_t *defs, uint32_t ndefs,
		const uint32_t *uses, uint32_t nuses, int collective,
		const char *where, struct dp_err *e);
/*
 * Cross-core order of the instruction last added on c: it waits for the
 * events wait[0..nwait) before it runs and signals sig[0..nsig) when it is
 * done (names model-wide, at most once each per instruction).  Sets
 * m->ordered.  The relation is defined in docs/dramplan.md ("Order").
 */
int dp_inst_sync(struct dp_model *m, struct dp_core *c,
		 const char *const *wait, uint32_t nwait,
		 const char *const *sig, uint32_t nsig, const char *where,
		 struct dp_err *e);
/* The instruction last added on c is the collective kind/op/type over
 * cores[0..ncores) (c among them, each once); its defs and uses are c's
 * own operands.  Sets its collective flag and m->ordered.  The cores'
 * instructions of one name make one collective (checked by
 * dp_model_link). */
struct dp_coll_spec {
	int kind, op, type;	/* enum dp_coll_kind (not NONE), _op, dp_elem */
	const uint32_t *cores;
	uint32_t ncores;
};
int dp_inst_coll(struct dp_model *m, struct dp_core *c,
		 const struct dp_coll_spec *s, const char *where,
		 struct dp_err *e);
const char *dp_coll_kind_name(int kind);
const char *dp_coll_op_name(int op);
const char *dp_elem_name(int type);
/* Successors of a block; call after its instructions, in block order. */
int dp_succ_add(struct dp_core *c, uint32_t block, uint32_t succ,
		struct dp_err *e);
/* Resolves remote targets across cores; called once all cores are in. */
int dp_model_link(struct dp_model *m, struct dp_err *e);

/*
 * Happens-before over a linked model (docs/dramplan.md, "Order"): does
 * core ca's instruction ia (its index in the core's in[]) finish before
 * core cb's ib starts?  The relation the static proof uses, for a caller
 * that runs the model (the plan run).  dp_happens_new: NULL with e set
 * on a deadlock or out of memory.
 */
struct dp_happens;
struct dp_happens *dp_happens_new(const struct dp_model *m, struct dp_err *e);
int dp_happens_before(const struct dp_happens *h, uint32_t ca, uint32_t ia,
		      uint32_t cb, uint32_t ib);
void dp_happens_free(struct dp_happens *h);

/* JSON model (strict: io/jdoc.c on yajl).  Malformed JSON names
 * file:line:column; schema and
 * semantic errors name the file and the JSON path / tensor. */
struct dp_model *dp_model_load_json(const char *path, struct dp_err *e);
struct dp_model *dp_model_parse_json(const char *file, const char *text,
				     size_t len, struct dp_err *e);

/* The model as JSON that dp_model_load_json reads back (model_io.c). */
int dp_model_write_json(const struct dp_model *m, FILE *f);

const char *dp_mem_name(int mem);
const char *dp_usage_name(int usage);
const char *dp_region_name(int region);

/* ---- placement: orders, engines, statistics --------------------------- */

struct dp_place_stats {
	size_t intervals, edges;
	double t_tree, t_simplify, t_select;
	uint64_t peak;		/* max(addr + size) */
	uint64_t lower_bound;	/* most bytes live at one time */
};

enum dp_order { DP_ORDER_SIMPLIFY, DP_ORDER_SIZE, DP_ORDER_AREA,
		DP_ORDER_START };

/*
 * The placement engine (place.c): the results are the same, only the cost
 * differs.  AUTO (default) picks per instance; REFERENCE is the seed's
 * adjacency + sort-per-placement select, kept for the tests and the
 * benchmark to compare against; INCREMENTAL forces dense.c's structures.
 * A call's choice (struct dp_opts.engine, dp_place's eng): nothing
 * process-wide.
 */
enum dp_engine { DP_ENGINE_AUTO, DP_ENGINE_REFERENCE, DP_ENGINE_INCREMENTAL };

/* ---- --strategy search (search/) ------------------------------------- */

/* Above this many items (or DP_SEARCH_MAX_EDGES overlap pairs) a
 * placement gets the constructive passes alone. */
#define DP_SEARCH_MAX_ITEMS	3000
#define DP_SEARCH_MAX_EDGES	8388608

enum dp_strategy { DP_STRATEGY_SEED, DP_STRATEGY_SEARCH };

struct dp_search_stats {
	uint64_t lower_bound;	/* start + most bytes live at once */
	uint64_t seed_end;	/* first fit in simplify order (UINT64_MAX: no fit) */
	uint64_t portfolio_end;	/* best constructive pass (UINT64_MAX: none) */
	uint64_t end;		/* the result: max(addr + size) */
	uint64_t budget;	/* the node budget it had (the default resolved) */
	uint64_t nodes;		/* search nodes spent */
	uint64_t work;		/* items and sections visited by them (the cost) */
	uint64_t lns;		/* the slice search's nodes and subproblem
				 * items (slices.c) */
	int searched;		/* the exact search ran */
	int built;		/* the exact search's structures were built */
	const char *skipped;	/* why the search did not run (NULL: it ran, or
				 * a pass met the lower bound) */
	int proven;		/* end is optimal; or, on -1, none exists */
	const char *how;	/* the pass that gave the result */
};

/* Why a failed dp_search_run found nothing, one phrase in buf: proven
 * none, not searched (and why), or the budget spent. */
const char *dp_search_verdict(const struct dp_search_stats *st, char *buf,
			      size_t len);

/* ---- plan: the plain data a device client sends ------------------- */

struct dp_plan_tensor {
	uint32_t id;		/* index of the tensor in its core */
	char *name;
	uint64_t addr;		/* DP_UNSET while unplaced */
	uint64_t size;		/* aligned size */
	uint64_t bytes;
	uint32_t iv_first, iv_count;	/* into the core plan's iv[] */
	uint8_t region, shared, has_remote, placed, collective;
	uint8_t reads, writes;
	uint32_t remote_core;
	char *remote_name;
	/* the triple's other two: links get their owner's from sync_shared */
	uint32_t partition, bank;
};

struct dp_core_plan {
	uint32_t core;
	char *function;
	uint32_t n;
	struct dp_plan_tensor *t;
	size_t niv;
	struct dp_iv *iv;
	/* totals, shared bytes excluded from private_bytes */
	uint64_t private_bytes;	/* sum of aligned sizes, private tensors */
	uint64_t shared_bytes;	/* sum of aligned sizes of shared tensors it sees */
	uint64_t footprint;	/* max(addr + size) over its tensors */
	/* both count the CC buffer [cc_base, +cc_size) whole, as reserved */
	uint64_t peak;		/* footprint - floor, planned tensors */
	uint64_t lower_bound;	/* cc_size + most other planned bytes live at once */
	/* dram_shared mode 1: the core's slab [slab_base, slab_end) of the
	 * one map, holding its private non-collective tensors; 0, 0 else */
	uint64_t slab_base, slab_end;
	/* the seed's cost metrics: spill = bytes of the tensors this core
	 * places (not pre-placed, not linked), aligned_spill = the same
	 * rounded up to 4 KiB, dram = bytes of its other DRAM tensors */
	uint64_t spill, aligned_spill, dram;
};

/* Two accesses on different cores to the same shared bytes. */
struct dp_hazard {
	uint32_t core_a, ta, core_b, tb;	/* ta/tb: index in core plan */
	uint64_t lo, hi;			/* overlapping bytes [lo, hi) */
	uint8_t a_writes, b_writes;
};

/*
 * Hazards grouped by shared address range: a maximal range of bytes that
 * shared tensors cover without a gap (overlapping tensors chain into one
 * range), with every access to it -- tensor, core, reads/writes -- listed
 * once.  Reported when two accesses in it on different cores overlap and
 * one of them writes.  Output grows with the shared tensors, not with
 * the pairs (2 cores x 2,000 coalesced tensors: 1 range, 4,000 accesses,
 * not 4,000,000 pairs).
 */
struct dp_hazard_access {
	uint32_t core, t;		/* t: index in the core plan */
	uint8_t reads, writes;
};

struct dp_hazard_group {
	uint64_t lo, hi;		/* [lo, hi) */
	size_t first, n;		/* into dp_plan.ha */
	uint32_t ncores;		/* distinct cores accessing it */
};

/*
 * The static proof (plan/unordered.c): two accesses from different cores
 * to overlapping shared bytes [lo, hi), one a write, that happens-before
 * (program order, events, collectives) does not order.  ta, tb: indices
 * in the core plans; inst_a, inst_b: the instructions' names.
 */
struct dp_unordered {
	uint32_t core_a, ta, core_b, tb;
	char *inst_a, *inst_b;
	uint64_t lo, hi;
	uint8_t a_writes, b_writes;
};

/* An event of the model and the instructions that signal it and wait for
 * it (es[first .. first + n)), as the plan records them */
struct dp_event_site {
	uint32_t core;
	char *inst;
	uint8_t signal;		/* 1: signals, 0: waits */
};
struct dp_plan_event {
	char *name;
	size_t first, n;
};

struct dp_plan {
	char *model, *source;
	uint64_t page;
	uint64_t hwm, floor;
	uint64_t cc_base, cc_limit, cc_size;	/* CC region [base, base+size) */
	uint64_t shared_base, shared_end;
	uint64_t private_base, ceiling;
	int dram_shared_mode;			/* 0, or 1: per-core slabs */
	uint64_t core_cap;			/* mode 1: each slab's bytes */
	uint32_t ncores;
	struct dp_core_plan *core;
	struct dp_hazard_group *hg;	/* always computed */
	size_t nhg;
	struct dp_hazard_access *ha;
	size_t nha;
	struct dp_hazard *hz;		/* pairs: only with has_pairs */
	size_t nhz;
	int has_pairs;
	/* device totals: shared bytes counted once */
	uint64_t total_private, total_shared, total_bytes;
	/* the true shared footprint: bytes under at least one shared owner
	 * (owners that do not interfere may share bytes, so this can be
	 * below total_shared, which sums their sizes) */
	uint64_t shared_footprint;
	/* the model declared order (events, collectives naming their
	 * cores): its events, and the pairs that order leaves unordered --
	 * a caller refuses a plan with nuo != 0 unless told otherwise */
	int ordered;
	struct dp_plan_event *ev;
	size_t nev;
	struct dp_event_site *es;
	size_t nes;
	struct dp_unordered *uo;
	size_t nuo;
};

void dp_plan_free(struct dp_plan *p);
/* In-process sync_shared: copy each owner's address into its links.
 * log may be NULL. */
int dp_sync_shared(struct dp_plan *p, FILE *log, struct dp_err *e);
/* Hazard groups (always) and, with pairs, the pair list too. */
int dp_plan_hazards(struct dp_plan *p, int pairs, struct dp_err *e);
/* 0, or -ENOMEM */
int dp_plan_totals(struct dp_plan *p);
/* Every pair of shared tensors on different cores whose placed bytes
 * overlap, one of them written (the pairs of dp_plan_hazards), to fn in
 * address order; fn's non-zero return ends the walk and is returned.
 * -ENOMEM when out of memory. */
int dp_plan_pairs_each(const struct dp_plan *p,
		       int (*fn)(const struct dp_hazard *h, void *arg),
		       void *arg);
/* One unordered pair as a line (no newline): "unordered: core A 'inst'
 * writes 'tensor' / core B 'inst2' reads 'tensor2' [0xlo, 0xhi)" */
void dp_unordered_line(const struct dp_plan *p, const struct dp_unordered *u,
		       FILE *f);

/* Independent re-check of a plan (time sweep, not the interval tree). */
int dp_verify(const struct dp_plan *p, const char *file, struct dp_err *e);

/* Plan JSON out/in, SVG chart. */
int dp_plan_write_json(const struct dp_plan *p, FILE *f);
struct dp_plan *dp_plan_load_json(const char *path, struct dp_err *e);
struct dp_plan *dp_plan_parse_json(const char *file, const char *text,
				   size_t len, struct dp_err *e);
int dp_plan_write_svg(const struct dp_plan *p, FILE *f);
/* max_tensors != 0: draw only that many, the largest by size x lifetime. */
int dp_plan_write_svg_max(const struct dp_plan *p, FILE *f, size_t max_tensors);
void dp_plan_write_report(const struct dp_plan *p, FILE *f, int tensors);

/* ---- pipeline -------------------------------------------------------- */

struct dp_opts {
	int64_t cc_mib;		/* --allreduce-buffer-size, -1 = auto */
	uint64_t dram_mib;	/* --dram-size: region ceiling per core */
	uint64_t dram_page_size;	/* accepted; SBUF only, ignored here */
	int disable_dram;	/* --disable-dram-allocation */
	int hazard_pairs;	/* --hazard-pairs: also list every pair */
	/* --dram-shared-mode: 0 (default) one address map per core; 1 the
	 * seed's per-core slabs in one map (see passes.c) */
	int dram_shared_mode;
	uint64_t core_mib;	/* --core-mib: slab cap (seed: MB per core); 0 auto */
	int strategy;		/* --strategy: enum dp_strategy (0: seed) */
	uint64_t search_nodes;	/* --search-nodes; DP_UNSET: dp_search_budget */
	int engine;		/* enum dp_engine (0: AUTO) */
	/* --search-off: the parts of the search switched off, names of
	 * dp_search_part separated by commas (NULL: none) */
	const char *search_off;
};

/* The parts of --strategy search that --search-off switches off, k = 0,
 * 1, ...: the portfolio passes in their order, then the glue rules in
 * theirs; NULL past the last. */
const char *dp_search_part(size_t k);
/* 0 when every comma-separated name of list is a dp_search_part; -1
 * and the message in e when one is not */
int dp_search_off_check(const char *list, struct dp_err *e);

void dp_opts_default(struct dp_opts *o);

/* The whole thing: build, run, hand back the plan (caller frees). */
struct dp_plan *dp_plan_model(struct dp_model *m, const struct dp_opts *o,
			      FILE *log, struct dp_err *e);

/* ---- MiniMalloc CSV ------------------------------------------------- */

struct dp_csv_buf {
	char *id;
	uint64_t lower, upper, size, align;
	uint64_t offset;
	int has_offset;
};

struct dp_csv {
	char *file;
	struct dp_csv_buf *b;
	size_t n;
	int has_align, has_offset;
};

struct dp_csv *dp_csv_load(const char *path, struct dp_err *e);
struct dp_csv *dp_csv_parse(const char *file, const char *text, size_t len,
			    struct dp_err *e);
void dp_csv_free(struct dp_csv *c);
/* Places every buffer; fills offset.  page 0: no straddle rule. */
int dp_csv_solve(struct dp_csv *c, uint64_t capacity, enum dp_order order,
		 struct dp_place_stats *st, struct dp_err *e);
/* Tries every order and keeps the lowest peak. */
int dp_csv_solve_best(struct dp_csv *c, uint64_t capacity,
		      struct dp_place_stats *st, enum dp_order *used,
		      struct dp_err *e);
/* The instance as a one-core model (csv_model.c): buffer i a DRAM spill
 * tensor of size * scale bytes live from its def to its last use. */
struct dp_model *dp_csv_model(const struct dp_csv *c, uint64_t scale,
			      struct dp_err *e);
/* --strategy search: dp_search_run on the buffers (page rule off);
 * nodes: the search budget.  -1 with a message saying whether a placement
 * within the capacity was proven impossible or not found in the budget.
 * _off: with the parts of the search in off switched off (dp_opts'
 * search_off; NULL: none). */
int dp_csv_solve_search_off(struct dp_csv *c, uint64_t capacity,
			    uint64_t nodes, const char *off,
			    struct dp_search_stats *st, struct dp_err *e);
int dp_csv_solve_search(struct dp_csv *c, uint64_t capacity, uint64_t nodes,
			struct dp_search_stats *st, struct dp_err *e);
int dp_csv_write(const struct dp_csv *c, FILE *f);
/* Checks offsets: present, aligned, no two live buffers overlap. */
int dp_csv_verify(const struct dp_csv *c, struct dp_err *e);
uint64_t dp_csv_lower_bound(const struct dp_csv *c);
uint64_t dp_csv_peak(const struct dp_csv *c);

/* ---- small helpers ---------------------------------------------------- */

double dp_now(void);
char *dp_strdup(const char *s);	/* NULL when out of memory */

#endif /* LIBDRAMPLAN_H */
