/* SPDX-License-Identifier: GPL-2.0 */
/*
 * planner_util.h - helpers for the planner host tests.
 */
#ifndef PLANNER_UTIL_H
#define PLANNER_UTIL_H

#include "libdramplan.h"

#ifndef DP_SRCROOT
#define DP_SRCROOT "."
#endif

/* A planning run with its report captured. */
struct run {
	struct dp_model *m;
	struct dp_plan *p;
	struct dp_err e;
	char *log;
	size_t loglen;
	int ok;
	int tree_built, early_exit;
};

/* Parse JSON text (as file "t.json") and plan it; r->ok says how it went. */
void run_json(struct run *r, const char *json, const struct dp_opts *o);
void run_free(struct run *r);
/* run_json with the default options (dp_opts_default) but for one field:
 *	RUN_JSON_WITH(&r, hazard_pairs, 1, json); */
#define RUN_JSON_WITH(r, field, value, json) do {			\
	struct dp_opts opts_;						\
									\
	dp_opts_default(&opts_);					\
	opts_.field = (value);						\
	run_json((r), (json), &opts_);					\
} while (0)
/* The plan entry of tensor `name` on `core`, or NULL. */
const struct dp_plan_tensor *pt(const struct dp_plan *p, uint32_t core,
				const char *name);
/* Tensor of the model by name. */
const struct dp_tensor *mt(const struct dp_model *m, uint32_t core,
			   const char *name);
/* Closed intervals of a model tensor as "[a,b] [c,d]". */
const char *ivstr(const struct dp_model *m, uint32_t core, const char *name);
/* "NAME IVS; NAME IVS ...": ivstr of each space-separated name of names */
const char *ivsof(const struct dp_model *m, uint32_t core, const char *names);
int contains(const char *hay, const char *needle);
/* JSON written with ' for " (test readability); returns a static copy. */
const char *J(const char *s);
/* What dp_plan_write_json, dp_model_write_json, dp_plan_write_report
 * write, as a malloc'd string (aborts on failure). */
char *plan_json_text(const struct dp_plan *p);
char *model_json_text(const struct dp_model *m);
char *report_text(const struct dp_plan *p, int tensors);
/* A one-core model: tensors and blocks JSON fragments. */
const char *core1(const char *tensors, const char *blocks);

/*
 * The shape of random_model()'s models.  Every count is drawn uniformly
 * from [min, max]; element counts from 1..max.
 */
struct model_shape {
	uint32_t min_cores, max_cores;
	/* shared tensors, each owned by a random core and linked from about
	 * two in three of the others (none on a one-core model) */
	uint32_t min_owners, max_owners;
	uint32_t min_spills, max_spills;	/* private tensors per core */
	uint32_t max_blocks;			/* per core, at least 1 */
	uint64_t input_elems, owner_elems, spill_elems;
	uint32_t elem_sizes;		/* element sizes 1, 2, 4, ...: this many */
	/* owners get a partition in 1..triples and a bank in 1..triples (the
	 * seed's triple; links get it from sync_shared); 0: none, and the
	 * draws of every other field are the same either way */
	uint32_t triples;
};

#define MODEL_MAX_OWNERS 16

/*
 * A seeded random model of the given shape.  Each core has 0-2 pre-placed
 * inputs and weights (4-byte elements), the shared owners and links, then
 * its private spills (one in 8 in SBUF).  Blocks of 1-8 instructions,
 * each defining up to 2 non-input tensors and using up to 3 already
 * defined ones (one in 10 collective); block b falls through to b+1 and
 * one in 3 loops back to a block at or before it.  The same seed and shape
 * always give the same model.  NULL (with e) on a generator error.
 */
struct dp_model *random_model(const struct model_shape *s, uint64_t seed,
			      struct dp_err *e);

/*
 * Two implementations' verdicts on the same input, counted: the return
 * codes and messages must match.  The first few disagreements are printed.
 */
struct agree {
	int same, total, rejected;
};

void agree_count(struct agree *a, uint64_t seed, int round,
		 int r1, const struct dp_err *e1, int r2, const struct dp_err *e2);

/*
 * A check against its previous version on mutated plans.  For seeds 1 to
 * seeds, model(seed) planned with the default options, then rounds rounds
 * on that plan, each on a core drawn from *rs: round() changes the plan
 * and runs both checks (r[0], e[0] the new one's verdict, r[1], e[1] the
 * old one's), or returns nonzero to leave the round out; each verdict
 * pair is counted in a.  0, or -1 (with a message printed) when a model
 * or its plan fails.
 */
typedef int mutate_round_fn(struct dp_plan *p, struct dp_core_plan *c,
			    int round, uint64_t *rs, int r[2],
			    struct dp_err e[2]);
int agree_on_mutations(struct agree *a, uint64_t seeds, int rounds,
		       uint64_t *rs,
		       struct dp_model *(*model)(uint64_t seed, struct dp_err *e),
		       mutate_round_fn *round);

/* m planned with the default options, no log; NULL with e on failure. */
struct dp_plan *plan_default(struct dp_model *m, struct dp_err *e);

/* A model built by hand, linked; freed and NULL if linking fails. */
struct dp_model *link_or_free(struct dp_model *m, struct dp_err *e);

/*
 * Runs the tests (tap_run) in a fresh temporary folder: dir is a mkdtemp()
 * template; the folder is removed when they pass, kept when they fail.
 */
int run_in_tmpdir(char *dir, int (*run)(void));

/* The shape of test_random.c's models, which other tests use too. */
extern const struct model_shape shape_random;

/* A file's text into buf (at most n - 1 bytes, NUL-terminated; "" if absent). */
void read_text(const char *path, char *buf, size_t n);

/*
 * Runs `cd DP_SRCROOT && PRE TOOL ARGS` through the shell, its stdout and
 * stderr captured (through files in dir) into out and err.  The exit
 * status, or -1 when the tool was killed.
 */
int run_captured(const char *dir, const char *pre, const char *tool,
		 const char *args, char *out, size_t nout, char *err,
		 size_t nerr);

/* One MiniMalloc CSV row: id written as "<prefix><id>". */
struct csv_row {
	uint64_t id, lo, hi, size, align;
};

/* The CSV text of n rows (an alignment column when align), parsed as file;
 * NULL if it does not parse (or out of memory). */
struct dp_csv *csv_of_rows(const char *file, char prefix,
			   const struct csv_row *r, size_t n, int align);

/*
 * The optimum peak of a small problem (at most CSV_BRUTE_MAX buffers) by
 * brute force: every order, each buffer stacked on the highest top of its
 * placed overlapping buffers (aligned up).  A placement pushed down as far
 * as it goes is one of these, taken by offset, so the least is optimal.
 */
#define CSV_BRUTE_MAX 10
uint64_t csv_brute_peak(const struct dp_csv *c);

/* Is every rectangle of part (the n items glued in fewer rounds) inside
 * one of whole's, at one offset?  The glue's refinement (strategy.c)
 * places part's rectangles where whole's placement put their items.
 * 1 or 0; -1 when out of memory. */
struct dp_glued;
int glue_nests(const struct dp_glued *part, const struct dp_glued *whole,
	       size_t n);

#endif
