// SPDX-License-Identifier: GPL-2.0
/*
 * dramplan - plan a model's DRAM tensors; re-check a plan.
 *
 *   dramplan [options] MODEL.json          report, PLAN.json and SVG
 *   dramplan --format=minimalloc [options] PROBLEM.csv   offsets CSV
 *   dramplan verify PLAN.json              independent re-check
 *   dramplan verify --format=minimalloc SOLUTION.csv
 *   dramplan --submit[=DEV] [--uring] [--check-shared] MODEL.json
 *                                          ... and through /dev/xmemsim
 *
 * Bad input gives one message on stderr and exit status 1; no output file
 * is written unless everything succeeded (outputs go to temporary files
 * renamed into place at the very end).  Usage errors exit with 2.
 * With --submit, a device error or any disagreement between the device
 * and the planner also exits with 1 (the plan files are written before).
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdramplan.h"
#include "dramplan_submit.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: dramplan [options] MODEL.json\n"
"       dramplan --format=minimalloc [options] PROBLEM.csv\n"
"       dramplan verify [--format=minimalloc] PLAN.json|SOLUTION.csv\n"
"\n"
"  -o, --output FILE             plan JSON / solution CSV\n"
"                                (default ./<name>.plan.json, ./<name>.solution.csv)\n"
"      --svg FILE                SVG chart (default ./<name>.svg)\n"
"      --no-svg                  do not write the chart\n"
"      --svg-max N               above N tensors (default 20000) the default chart\n"
"                                is left out and an explicit --svg draws the N\n"
"                                largest (size x lifetime); 0: no limit\n"
"      --report FILE             the report to FILE instead of standard output\n"
"                                (every FILE may be -, standard output)\n"
"      --format json|minimalloc  input format (default: json)\n"
"      --allreduce-buffer-size MIB  CC buffer limit in MiB, -1 = auto (default 500)\n"
"      --dram-size MIB           DRAM ceiling per core in MiB (default 16384)\n"
"      --dram-page-size N        accepted for compatibility: the SBUF GCA granule;\n"
"                                DRAM alignment stays a hard 4096\n"
"      --disable-dram-allocation build the pipeline without the DRAM passes\n"
"      --dram-shared-mode 0|1    0 (default): one address map per core; 1: the\n"
"                                seed's per-core slabs of one map (--core-mib)\n"
"      --core-mib MIB            (mode 1) each core's slab in MiB; default: the\n"
"                                even split of what is above the shared region\n"
"      --capacity BYTES          (minimalloc) fail if a buffer does not fit below\n"
"      --order best|simplify|size|area|start  (minimalloc) order (default best)\n"
"      --strategy seed|search    seed (default): the seed's first fit (JSON) or\n"
"                                --order (minimalloc); search: a portfolio of\n"
"                                constructive passes, then an exact search for a\n"
"                                lower peak (--capacity: a placement within it)\n"
"      --search-nodes N          (search) node budget per placement; default\n"
"                                2^30 / (items + 1 + 4 x mean overlaps); 0: the\n"
"                                portfolio only\n"
"      --search-off NAME[,NAME]  (search) leave out these portfolio passes or\n"
"                                glue rules (first-fit, skyline, best-fit,\n"
"                                glue-all, glue-long, glue-stacks-first,\n"
"                                glue-fewest, glue-fewest-chains): to measure\n"
"                                what each one brings\n"
"      --tensors / --no-tensors  print the placement table (default: if <= 200)\n"
"      --hazard-pairs            also list every cross-core hazard pair (the plan's\n"
"                                \"hazards\"); by default only the grouped ranges\n"
"      --allow-unordered         (a model with events) plan even when accesses to\n"
"                                shared bytes are left unordered: warnings, exit 0\n"
"  -q, --quiet                   no report on stdout (with --submit, no tables\n"
"                                either: the exit status and stderr say it)\n"
"      --submit[=DEV]            also submit the plan to DEV (default /dev/xmemsim):\n"
"                                PLAN_SUBMIT each core, PLAN_SYNC, PLAN_GET, PLAN_STATS;\n"
"                                the device's window is the DRAM ceiling unless\n"
"                                --dram-size is given; prints the agreement table\n"
"      --uring                   (--submit) every device command through io_uring\n"
"      --check-shared            (--submit) write each shared tensor through its\n"
"                                owner's view, read it through the other cores';\n"
"                                private tensors of different cores must not alias\n"
"  -h, --help\n"
"  -V, --version\n"
"See dramplan(1).\n");
}

enum { O_SVG = 256, O_NOSVG, O_FORMAT, O_CC, O_DRAM, O_PAGE, O_DISABLE,
       O_CAP, O_ORDER, O_TENSORS, O_NOTENSORS, O_SUBMIT, O_URING, O_CHECK,
       O_REPORT, O_SVGMAX, O_PAIRS,
       O_SHMODE, O_COREMIB, O_STRATEGY, O_NODES, O_OFF, O_UNORDERED };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "version", no_argument, NULL, 'V' },
	{ "svg", required_argument, NULL, O_SVG },
	{ "no-svg", no_argument, NULL, O_NOSVG },
	{ "svg-max", required_argument, NULL, O_SVGMAX },
	{ "report", required_argument, NULL, O_REPORT },
	{ "hazard-pairs", no_argument, NULL, O_PAIRS },
	{ "allow-unordered", no_argument, NULL, O_UNORDERED },
	{ "strategy", required_argument, NULL, O_STRATEGY },
	{ "search-nodes", required_argument, NULL, O_NODES },
	{ "search-off", required_argument, NULL, O_OFF },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "allreduce-buffer-size", required_argument, NULL, O_CC },
	{ "dram-size", required_argument, NULL, O_DRAM },
	{ "dram-page-size", required_argument, NULL, O_PAGE },
	{ "disable-dram-allocation", no_argument, NULL, O_DISABLE },
	{ "capacity", required_argument, NULL, O_CAP },
	{ "order", required_argument, NULL, O_ORDER },
	{ "tensors", no_argument, NULL, O_TENSORS },
	{ "no-tensors", no_argument, NULL, O_NOTENSORS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "submit", optional_argument, NULL, O_SUBMIT },
	{ "uring", no_argument, NULL, O_URING },
	{ "check-shared", no_argument, NULL, O_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ "dram-shared-mode", required_argument, NULL, O_SHMODE },
	{ "core-mib", required_argument, NULL, O_COREMIB },
	{ NULL, 0, NULL, 0 },
};

/* A one-line message: whatever a path holds, control characters are
 * escaped (dp_fail does it). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	struct dp_err e;
	char raw[sizeof(e.msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	dp_fail(&e, "%s", raw);
	fprintf(stderr, "dramplan: %s\n", e.msg);
}

static int parse_i64(const char *opt, const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || !*s || *end) {
		say("%s: \"%s\" is not an integer", opt, s);
		return -1;
	}
	return 0;
}

/* An integer of at least min (what says what 0 means, or NULL). */
static int parse_at_least(const char *opt, const char *s, long long min,
			  const char *what, long long *out)
{
	if (parse_i64(opt, s, out))
		return -1;
	if (*out < min && min == 1) {
		fprintf(stderr, "dramplan: %s: must be positive\n", opt);
		return -1;
	}
	if (*out < min) {
		fprintf(stderr, "dramplan: %s: must be >= %lld%s%s%s\n", opt, min,
			what ? " (" : "", what ? what : "", what ? ")" : "");
		return -1;
	}
	return 0;
}

/* An integer above 0, for options whose value must be positive. */
static int parse_positive(const char *opt, const char *s, long long *out)
{
	return parse_at_least(opt, s, 1, NULL, out);
}

/* ./<basename without extension><suffix> */
static char *default_out(const char *in, const char *suffix)
{
	const char *base = strrchr(in, '/');
	const char *dot;
	size_t n;
	char *s;

	base = base ? base + 1 : in;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	s = malloc(n + strlen(suffix) + 1);
	if (!s)
		abort();
	memcpy(s, base, n);
	strcpy(s + n, suffix);
	return s;
}

/*
 * Outputs.  The rule (docs/dramplan.md, "Where outputs go"):
 *  - "-" is standard output, for every output option;
 *  - a new name or an existing regular file is written to a temporary file
 *    beside it and renamed over it only when everything succeeded (a new
 *    file gets 0666 & ~umask, an existing one keeps its mode);
 *  - a symlink to a regular file stays a symlink: the temporary file goes
 *    beside the link's final target and is renamed over the target;
 *  - anything else (character or block devices, FIFOs, sockets, dangling
 *    symlinks, /dev/stdout and every other link into /dev or /proc) is
 *    opened and written in place, never replaced;
 *  - a directory is an error.
 * Files that are renamed are staged first; the in-place ones are written
 * after every staged file is complete; the renames come last.  So bad
 * input, a failed plan or a failed staging writes nothing anywhere.
 */
enum { OUT_STDOUT, OUT_RENAME, OUT_DIRECT };

typedef int (*out_fn)(FILE *f, void *arg);

struct out {
	const char *path;	/* as given; NULL: this output is off */
	char *target;		/* RENAME: the file the rename replaces */
	char *tmp;		/* RENAME: the staged file */
	int kind, create;	/* DIRECT: create (a dangling link's target) */
	mode_t mode;		/* RENAME: mode of the result */
	uid_t uid;		/* RENAME over a file: its owner, kept */
	gid_t gid;
	int keep_owner;
	FILE *std;		/* STDOUT: the stream ("-": stdout) */
	out_fn fn;
	void *arg;
};

static mode_t new_file_mode(void)
{
	mode_t um = umask(0);

	umask(um);
	return 0666 & ~um;
}

static int magic_prefix(const char *p)
{
	return !strncmp(p, "/dev/", 5) || !strncmp(p, "/proc/", 6);
}

/* Does the path, or a symlink on the way to its target, point into /dev or
 * /proc (/dev/stdout -> /proc/self/fd/1 -> wherever fd 1 is)? */
static int magic_link(const char *path)
{
	char cur[PATH_MAX], lnk[PATH_MAX], nxt[2 * PATH_MAX];
	int hop;

	if (magic_prefix(path) || strlen(path) >= sizeof(cur))
		return magic_prefix(path);
	strcpy(cur, path);
	for (hop = 0; hop < 40; hop++) {
		struct stat st;
		ssize_t n;
		char *slash;

		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return 0;
		n = readlink(cur, lnk, sizeof(lnk) - 1);
		if (n < 0)
			return 0;
		lnk[n] = 0;
		slash = strrchr(cur, '/');
		if (lnk[0] == '/' || !slash)
			snprintf(nxt, sizeof(nxt), "%s", lnk);
		else
			snprintf(nxt, sizeof(nxt), "%.*s/%s", (int)(slash - cur), cur, lnk);
		if (magic_prefix(nxt) || strlen(nxt) >= sizeof(cur))
			return magic_prefix(nxt);
		strcpy(cur, nxt);
	}
	return 0;
}

/* Decides how `path` is written; a message and -1 if it cannot be. */
/* o renamed over target when done (NULL: out of memory), with the mode
 * and owner of the file st (NULL: a new file, 0666 & ~umask) */
static int as_rename(struct out *o, char *target, const struct stat *st)
{
	if (!target) {
		say("%s: out of memory", o->path);
		return -1;
	}
	o->kind = OUT_RENAME;
	o->target = target;
	if (!st) {
		o->mode = new_file_mode();
		return 0;
	}
	o->mode = st->st_mode & 07777;
	o->uid = st->st_uid;
	o->gid = st->st_gid;
	o->keep_owner = 1;
	return 0;
}

static int out_prepare(struct out *o, const char *path, out_fn fn, void *arg)
{
	struct stat st;
	char *real;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fn = fn;
	o->arg = arg;
	if (!path)
		return 0;
	/* "-", and /dev/stdout and /dev/stderr by name: the streams we
	 * have (opening them again fails when fd 1 is a socket) */
	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout") ||
	    !strcmp(path, "/dev/stderr")) {
		o->kind = OUT_STDOUT;
		o->std = strcmp(path, "/dev/stderr") ? stdout : stderr;
		return 0;
	}
	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			say("%s: %s", path, strerror(errno));
			return -1;
		}
		return as_rename(o, dp_strdup(path), NULL);
	}
	if (S_ISLNK(st.st_mode) && magic_link(path)) {
		o->kind = OUT_DIRECT;
		o->create = stat(path, &st) != 0;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st)) {
			/* dangling: write through, creating the target */
			o->kind = OUT_DIRECT;
			o->create = 1;
			return 0;
		}
		if (S_ISREG(st.st_mode)) {
			real = realpath(path, NULL);
			if (!real) {
				say("%s: %s", path, strerror(errno));
				return -1;
			}
			return as_rename(o, real, &st);
		}
	}
	if (S_ISDIR(st.st_mode)) {
		say("%s: is a directory", path);
		return -1;
	}
	if (S_ISREG(st.st_mode) && !magic_prefix(path))
		return as_rename(o, dp_strdup(path), &st);
	o->kind = OUT_DIRECT;	/* device, FIFO, socket, magic link */
	return 0;
}

static int out_write(struct out *o, FILE *f, int do_close)
{
	int rc = o->fn(f, o->arg), bad;

	bad = fflush(f) || ferror(f);
	if (do_close && fclose(f))
		bad = 1;
	if (rc || bad) {
		say("%s: write error%s%s", o->path,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

/* RENAME outputs: write the whole file beside its target. */
static int out_stage(struct out *o)
{
	FILE *f;
	int fd;

	if (!o->path || o->kind != OUT_RENAME)
		return 0;
	o->tmp = malloc(strlen(o->target) + 16);
	if (!o->tmp) {
		say("%s: out of memory", o->path);
		return -1;
	}
	sprintf(o->tmp, "%s.tmp.XXXXXX", o->target);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		say("%s: cannot create: %s", o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* the replaced file's owner too, when we may (root); else ours */
	if (o->keep_owner && (o->uid != geteuid() || o->gid != getegid()) &&
	    fchown(fd, o->uid, o->gid) && errno != EPERM) {
		say("%s: %s", o->path, strerror(errno));
		close(fd);
		return -1;
	}
	if (fchmod(fd, o->mode) || !(f = fdopen(fd, "w"))) {
		say("%s: %s", o->path, strerror(errno));
		close(fd);
		return -1;
	}
	errno = 0;
	return out_write(o, f, 1);
}

/* STDOUT and DIRECT outputs: written now, in place. */
static int out_direct(struct out *o)
{
	FILE *f;
	int fd;

	if (!o->path || o->kind == OUT_RENAME)
		return 0;
	errno = 0;
	if (o->kind == OUT_STDOUT)
		return out_write(o, o->std, 0);
	fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
		  (o->create ? O_CREAT | O_TRUNC : O_APPEND), new_file_mode());
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		say("%s: cannot open: %s", o->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return out_write(o, f, 1);
}

static int out_commit(struct out *o)
{
	if (!o->path || o->kind != OUT_RENAME || !o->tmp)
		return 0;
	if (rename(o->tmp, o->target)) {
		say("%s: %s", o->path, strerror(errno));
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

static void out_abort(struct out *o)
{
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
	}
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
}

/* Every output in the order above; on failure no staged file survives. */
static int out_all(struct out *o, int n)
{
	int i, rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = out_stage(&o[i]);
	for (i = 0; i < n && !rc; i++)
		rc = out_direct(&o[i]);
	for (i = 0; i < n && !rc; i++)
		rc = out_commit(&o[i]);
	for (i = 0; i < n; i++)
		out_abort(&o[i]);
	return rc;
}

/* The static proof's unordered pairs on stderr, one line each (as
 * warnings when allowed): 0, or 1 when they refuse the plan. */
static int report_unordered(const struct dp_plan *p, int allow)
{
	size_t i;

	for (i = 0; i < p->nuo; i++) {
		char line[sizeof(((struct dp_err *)0)->msg)] = "";
		FILE *f = fmemopen(line, sizeof(line), "w");

		/* one line whatever an instruction's name holds: say()
		 * escapes it */
		if (f) {
			dp_unordered_line(p, &p->uo[i], f);
			fclose(f);
		}
		say("%s%s", allow ? "warning: " : "", line);
	}
	if (p->nuo && !allow)
		fprintf(stderr, "dramplan: %zu access pair%s to shared bytes not ordered by program order and events (--allow-unordered plans anyway)\n",
			p->nuo, p->nuo == 1 ? "" : "s");
	return p->nuo && !allow;
}

static int cmd_verify(int json, const char *path)
{
	struct dp_err e = { "" };

	if (json) {
		struct dp_plan *p = dp_plan_load_json(path, &e);
		size_t n = 0;
		uint32_t ci;

		if (!p || dp_verify(p, path, &e)) {
			fprintf(stderr, "dramplan: %s\n", e.msg);
			dp_plan_free(p);
			return 1;
		}
		for (ci = 0; ci < p->ncores; ci++)
			n += p->core[ci].n;
		report_unordered(p, 1);
		printf("%s: OK: %u core%s, %zu DRAM tensors; interfering tensors disjoint, 4 KiB aligned, floor 0x%llx respected, CC region and shared addresses consistent\n",
		       path, p->ncores, p->ncores == 1 ? "" : "s", n,
		       (unsigned long long)p->floor);
		dp_plan_free(p);
		return 0;
	} else {
		struct dp_csv *c = dp_csv_load(path, &e);

		if (!c || dp_csv_verify(c, &e)) {
			fprintf(stderr, "dramplan: %s\n", e.msg);
			dp_csv_free(c);
			return 1;
		}
		printf("%s: OK: %zu buffers, no two live buffers overlap; peak %llu, lower bound %llu\n",
		       path, c->n, (unsigned long long)dp_csv_peak(c),
		       (unsigned long long)dp_csv_lower_bound(c));
		dp_csv_free(c);
		return 0;
	}
}

static int csv_fn(FILE *f, void *arg)
{
	return dp_csv_write(arg, f);
}

static int plan_fn(FILE *f, void *arg)
{
	return dp_plan_write_json(arg, f);
}

struct svg_arg {
	const struct dp_plan *p;
	size_t max;
};

static int svg_fn(FILE *f, void *arg)
{
	struct svg_arg *a = arg;

	return dp_plan_write_svg_max(a->p, f, a->max);
}

struct report_arg {
	const char *log;
	size_t loglen;
	const struct dp_plan *p;
	int tensors;
	const char *outp, *svgp;
};

static int report_fn(FILE *f, void *arg)
{
	struct report_arg *a = arg;

	fwrite(a->log, 1, a->loglen, f);
	dp_plan_write_report(a->p, f, a->tensors);
	fprintf(f, "wrote plan %s%s%s\n",
		strcmp(a->outp, "-") ? a->outp : "(standard output)",
		a->svgp ? ", chart " : "",
		a->svgp ? (strcmp(a->svgp, "-") ? a->svgp : "(standard output)") : "");
	return ferror(f) ? -1 : 0;
}

static int cmd_minimalloc(const char *in, const char *outp, uint64_t cap,
			  const char *order, const struct dp_opts *so, int quiet)
{
	struct dp_search_stats ss = { 0 };
	static const char *const names[] = { "simplify", "size", "area", "start" };
	struct dp_err e = { "" };
	struct dp_place_stats st = { 0 };
	struct dp_csv *c = dp_csv_load(in, &e);
	enum dp_order used = DP_ORDER_SIMPLIFY;
	char *def = NULL;
	struct out o = { 0 };
	double t0 = dp_now(), t;
	uint64_t peak, lb;
	int rc;

	if (!c) {
		fprintf(stderr, "dramplan: %s\n", e.msg);
		return 1;
	}
	if (so->strategy == DP_STRATEGY_SEARCH) {
		rc = dp_csv_solve_search_off(c, cap, so->search_nodes,
					     so->search_off, &ss, &e);
	} else if (!strcmp(order, "best")) {
		rc = dp_csv_solve_best(c, cap, &st, &used, &e);
	} else {
		int k;

		for (k = 0; k < 4 && strcmp(order, names[k]); k++)
			;
		if (k == 4) {
			fprintf(stderr, "dramplan: --order: unknown order \"%s\"\n", order);
			dp_csv_free(c);
			return 2;
		}
		used = k;
		rc = dp_csv_solve(c, cap, used, &st, &e);
	}
	t = dp_now() - t0;
	if (rc || dp_csv_verify(c, &e)) {
		fprintf(stderr, "dramplan: %s\n", e.msg);
		dp_csv_free(c);
		return 1;
	}
	if (!outp)
		outp = def = default_out(in, ".solution.csv");
	if (out_prepare(&o, outp, csv_fn, c) || out_all(&o, 1)) {
		free(def);
		dp_csv_free(c);
		return 1;
	}
	peak = dp_csv_peak(c);
	lb = dp_csv_lower_bound(c);
	if (!quiet && so->strategy == DP_STRATEGY_SEARCH)
		fprintf(o.std == stdout ? stderr : stdout,
			"%s: %zu buffers, strategy search (%s, %llu nodes%s): peak %llu, lower bound %llu, ratio %.3f (%.3f s); wrote %s\n",
			in, c->n, ss.how, (unsigned long long)ss.nodes,
			ss.proven ? ", optimal" : "", (unsigned long long)peak,
			(unsigned long long)lb, lb ? (double)peak / lb : 1.0, t,
			o.std == stdout ? "standard output" : outp);
	else if (!quiet)	/* beside a solution on stdout, the summary goes to stderr */
		fprintf(o.std == stdout ? stderr : stdout,
			"%s: %zu buffers, order %s: peak %llu, lower bound %llu, ratio %.3f (%.3f s); wrote %s\n",
			in, c->n, names[used], (unsigned long long)peak,
			(unsigned long long)lb, lb ? (double)peak / lb : 1.0, t,
			o.std == stdout ? "standard output" : outp);
	free(def);
	dp_csv_free(c);
	return 0;
}

/* What cmd_plan takes from the command line. */
struct plan_cli {
	struct dp_opts o;
	struct dp_submit sub;
	const char *outp, *svgp, *reportp;
	size_t svg_max;
	int nosvg, quiet, tensors, submit, dram_set;
	int allow_unordered;	/* --allow-unordered */
};

/* --submit: open the device, check that it has the model's ncores cores
 * before anything is planned; without --dram-size its plan window is the
 * DRAM ceiling.  On failure the message is out and the caller closes. */
static int plan_open_device(struct plan_cli *a, uint32_t ncores)
{
	if (dp_submit_open(&a->sub) || dp_submit_fits(&a->sub, ncores))
		return 1;
	if (a->dram_set)
		return 0;
	if (a->sub.info.plan_core_size >> 20 == 0) {
		fprintf(stderr, "dramplan: --submit: the device's plan window (%llu bytes) is below 1 MiB; give --dram-size\n",
			(unsigned long long)a->sub.info.plan_core_size);
		return 1;
	}
	a->o.dram_mib = a->sub.info.plan_core_size >> 20;
	return 0;
}

/* The plan JSON, the chart and the report (the planner's log, then the
 * report): defaults picked, every output written or none.  Settles
 * a->tensors (default: the table when there are at most 200). */
static int plan_outputs(struct plan_cli *a, const char *in, struct dp_plan *p,
			const char *logbuf, size_t loglen)
{
	const char *outp = a->outp, *svgp = a->svgp;
	char *def_out = NULL, *def_svg = NULL;
	struct out outs[3] = { { 0 } };
	struct svg_arg sa = { p, a->svg_max };
	struct report_arg ra;
	int nosvg = a->nosvg, rc = 1;
	size_t n = 0;
	uint32_t ci;

	if (!outp)
		outp = def_out = default_out(in, ".plan.json");
	for (ci = 0; ci < p->ncores; ci++)
		n += p->core[ci].n;
	if (a->tensors < 0)
		a->tensors = n <= 200;
	if (!nosvg && a->svg_max && n > a->svg_max) {
		if (!svgp) {
			fprintf(stderr, "dramplan: note: %zu tensors: the SVG chart is left out above %zu tensors (--svg FILE draws the %zu largest, --svg-max 0 all of them)\n",
				n, a->svg_max, a->svg_max);
			nosvg = 1;
		} else {
			fprintf(stderr, "dramplan: note: %s: %zu tensors: the chart shows the %zu largest by size x lifetime (--svg-max 0 draws all of them)\n",
				svgp, n, a->svg_max);
		}
	}
	if (!svgp && !nosvg)
		svgp = def_svg = default_out(in, ".svg");
	ra = (struct report_arg){ logbuf, loglen, p, a->tensors, outp,
				  nosvg ? NULL : svgp };
	if (out_prepare(&outs[0], outp, plan_fn, p) ||
	    out_prepare(&outs[1], nosvg ? NULL : svgp, svg_fn, &sa) ||
	    out_prepare(&outs[2], a->reportp ? a->reportp : a->quiet ? NULL : "-",
			report_fn, &ra))
		goto out;
	/* the plan or the chart on stdout: the default report moves
	 * to stderr so that stdout stays one document */
	if (!a->reportp && ((outs[0].path && outs[0].std == stdout) ||
			    (outs[1].path && outs[1].std == stdout)))
		outs[2].std = stderr;
	if (out_all(outs, 3))
		goto out;
	rc = 0;
out:
	for (ci = 0; ci < 3; ci++)
		out_abort(&outs[ci]);
	free(def_out);
	free(def_svg);
	return rc;
}

/* dramplan MODEL.json: load, (open the device,) plan, verify, write the
 * outputs, (submit). */
static int cmd_plan(struct plan_cli *a, const char *in)
{
	struct dp_err e = { "" };
	struct dp_model *m = dp_model_load_json(in, &e);
	struct dp_plan *p = NULL;
	char *logbuf = NULL;
	size_t loglen = 0;
	FILE *log;
	int rc = 1;

	if (!m) {
		fprintf(stderr, "dramplan: %s\n", e.msg);
		return 1;
	}
	if (a->submit && plan_open_device(a, m->nc)) {
		dp_submit_close(&a->sub);
		dp_model_free(m);
		return 1;
	}
	log = open_memstream(&logbuf, &loglen);
	if (!log) {
		fprintf(stderr, "dramplan: out of memory\n");
		goto out;
	}
	fprintf(log, "dramplan: model '%s' (%s), %u core%s\n", m->name, in,
		m->nc, m->nc == 1 ? "" : "s");
	if (a->submit)
		fprintf(log, "device %s: plan window 0x%llx bytes per core; DRAM ceiling %llu MiB%s\n",
			a->sub.dev, (unsigned long long)a->sub.info.plan_core_size,
			(unsigned long long)a->o.dram_mib,
			a->dram_set ? " (--dram-size)" : " (the device's window)");
	p = dp_plan_model(m, &a->o, log, &e);
	fclose(log);
	if (!p || dp_verify(p, in, &e)) {
		fprintf(stderr, "dramplan: %s\n", e.msg);
		goto out;
	}
	if (report_unordered(p, a->allow_unordered) ||
	    plan_outputs(a, in, p, logbuf, loglen))
		goto out;
	rc = 0;
	if (a->submit) {
		/* -q: the agreement tables too stay off stdout; the verdict
		 * is the exit status and any error line on stderr */
		FILE *sout = a->quiet ? fopen("/dev/null", "w") : stdout;

		fflush(stdout);
		a->sub.tensors = a->tensors;
		a->sub.model = m;
		rc = sout ? dp_submit_run(&a->sub, p, sout) : 1;
		if (!sout)
			fprintf(stderr, "dramplan: /dev/null: %s\n", strerror(errno));
		else if (sout != stdout)
			fclose(sout);
	}
out:
	free(logbuf);
	dp_submit_close(&a->sub);
	dp_plan_free(p);
	dp_model_free(m);
	return rc;
}

/* The command line, as main reads it. */
struct cli {
	struct plan_cli a;
	const char *order;	/* --order */
	int json, verify;
	uint64_t cap;		/* --capacity */
};

#define OPT_DONE (-1)	/* one_opt: --help or --version printed, exit 0 */

/* "--NAME" of option c (longopts), for the messages. */
static const char *opt_name(int c, char *buf, size_t len)
{
	size_t i;

	for (i = 0; longopts[i].name; i++)
		if (longopts[i].val == c)
			break;
	snprintf(buf, len, "--%s", longopts[i].name ? longopts[i].name : "?");
	return buf;
}

/* The options that take a number: 0, or 2 (the message is out). */
static int number_opt(struct cli *x, int c)
{
	struct plan_cli *a = &x->a;
	char name[32];
	long long v;
	int bad;

	opt_name(c, name, sizeof(name));
	if (c == O_SVGMAX || c == O_NODES)
		bad = parse_at_least(name, optarg, 0,
				     c == O_SVGMAX ? "0: no limit" : NULL, &v);
	else if (c == O_CC || c == O_DRAM)
		bad = parse_i64(name, optarg, &v);
	else if (c == O_PAGE || c == O_CAP || c == O_COREMIB)
		bad = parse_positive(name, optarg, &v);
	else
		bad = (usage(stderr), 1);
	if (bad)
		return 2;
	if (c == O_CC && v < -1) {
		fprintf(stderr, "dramplan: --allreduce-buffer-size: %lld: must be >= 0 MiB, or -1 for auto\n", v);
		return 2;
	}
	if (c == O_DRAM && (v <= 0 || (unsigned long long)v > (UINT64_MAX >> 21))) {
		fprintf(stderr, "dramplan: --dram-size: %lld MiB is out of range\n", v);
		return 2;
	}
	switch (c) {
	case O_SVGMAX: a->svg_max = v; break;
	case O_NODES: a->o.search_nodes = v; break;
	case O_CC: a->o.cc_mib = v; break;
	case O_DRAM: a->o.dram_mib = v; a->dram_set = 1; break;
	case O_PAGE: a->o.dram_page_size = v; break;	/* SBUF only: DRAM stays 4096 */
	case O_CAP: x->cap = v; break;
	case O_COREMIB: a->o.core_mib = v; break;
	}
	return 0;
}

/* The options that take a word (a format, a strategy, a mode): 0, or 2. */
static int word_opt(struct cli *x, int c)
{
	struct plan_cli *a = &x->a;

	switch (c) {
	case O_FORMAT:
		if (!strcmp(optarg, "json")) {
			x->json = 1;
		} else if (!strcmp(optarg, "minimalloc") || !strcmp(optarg, "csv")) {
			x->json = 0;
		} else {
			fprintf(stderr, "dramplan: --format: unknown format \"%s\" (json or minimalloc)\n", optarg);
			return 2;
		}
		return 0;
	case O_STRATEGY:
		if (!strcmp(optarg, "seed") || !strcmp(optarg, "search")) {
			a->o.strategy = strcmp(optarg, "seed") ?
					DP_STRATEGY_SEARCH : DP_STRATEGY_SEED;
			return 0;
		}
		fprintf(stderr, "dramplan: --strategy: unknown strategy \"%s\" (seed or search)\n", optarg);
		return 2;
	case O_SHMODE:	/* the seed's dram_shared mode: 0 or 1 */
		if (strcmp(optarg, "0") && strcmp(optarg, "1")) {
			say("--dram-shared-mode: '%s': must be 0 or 1", optarg);
			return 2;
		}
		a->o.dram_shared_mode = optarg[0] - '0';
		return 0;
	case O_SUBMIT:
		a->submit = 1;
		if (optarg && *optarg)
			a->sub.dev = optarg;
		return 0;
	}
	return number_opt(x, c);
}

/* One option: 0 (go on), 2 (usage error, message out) or OPT_DONE. */
static int one_opt(struct cli *x, int c)
{
	struct plan_cli *a = &x->a;

	switch (c) {
	case 'o': a->outp = optarg; break;
	case O_SVG: a->svgp = optarg; break;
	case O_NOSVG: a->nosvg = 1; break;
	case O_REPORT: a->reportp = optarg; break;
	case O_PAIRS: a->o.hazard_pairs = 1; break;
	case O_UNORDERED: a->allow_unordered = 1; break;
	case O_OFF: a->o.search_off = optarg; break;
	case O_DISABLE: a->o.disable_dram = 1; break;
	case O_ORDER: x->order = optarg; break;
	case O_TENSORS: a->tensors = 1; break;
	case O_NOTENSORS: a->tensors = 0; break;
	case 'q': a->quiet = 1; break;
	case O_URING: a->sub.uring = 1; break;
	case O_CHECK: a->sub.check_shared = 1; break;
	case 'h': usage(stdout); return OPT_DONE;
	case 'V': printf("dramplan %s\n", XMEMSIM_VERSION); return OPT_DONE;
	case '?': usage(stderr); return 2;
	default: return word_opt(x, c);
	}
	return 0;
}

/* The options that go together: 0, or 2 with the message out. */
static int check_cli(const struct cli *x)
{
	const struct plan_cli *a = &x->a;

	if (a->o.core_mib && a->o.dram_shared_mode != 1) {
		fprintf(stderr, "dramplan: --core-mib goes with --dram-shared-mode 1\n");
		return 2;
	}
	if ((a->sub.uring || a->sub.check_shared) && !a->submit) {
		fprintf(stderr, "dramplan: --uring and --check-shared go with --submit\n");
		return 2;
	}
	if (a->submit && (x->verify || !x->json)) {
		fprintf(stderr, "dramplan: --submit takes a JSON model, not %s\n",
			x->verify ? "verify" : "a MiniMalloc CSV");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli x = {
		.a = {
			.sub = { .dev = XMEMSIM_DEFAULT_PATH, .xd = { .fd = -1 } },
			.svg_max = 20000,
			.tensors = -1,
		},
		.order = "best",
		.json = 1,
	};
	int c, rc;

	dp_opts_default(&x.a.o);
	if (argc > 1 && !strcmp(argv[1], "verify")) {
		x.verify = 1;
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
		rc = one_opt(&x, c);
		if (rc)
			return rc == OPT_DONE ? 0 : rc;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	rc = check_cli(&x);
	if (rc)
		return rc;
	if (x.verify)
		return cmd_verify(x.json, argv[optind]);
	if (!x.json)
		return cmd_minimalloc(argv[optind], x.a.outp, x.cap, x.order,
				      &x.a.o, x.a.quiet);
	return cmd_plan(&x.a, argv[optind]);
}
