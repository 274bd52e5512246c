// SPDX-License-Identifier: GPL-2.0
/*
 * bench-file - the dramplan command on a model file against planning the
 * same model in-process.  For each N: build the
 * synthetic model of bench-planner (one core, N tensors, each instruction
 * defines one and reads 1-3 of the previous W, blocks of 512, one in 8 a
 * self-loop), plan it in-process, write it as JSON, then run
 *
 *   dramplan FILE -q --no-svg -o PLAN      and      dramplan verify PLAN
 *
 * as child processes: wall time and peak RSS (wait4's ru_maxrss) of each,
 * and the ratio of the command's time to the in-process planning time.
 * A benchmark: it never gates.
 *
 *   bench-file DRAMPLAN DIR N...
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-synth.h"
#include "libdramplan.h"

/* Runs argv; wall seconds and peak RSS in MiB; -1 if it failed. */
static int run(char *const argv[], double *sec, double *rss_mib)
{
	struct rusage ru;
	double t0 = dp_now();
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*sec = dp_now() - t0;
	*rss_mib = ru.ru_maxrss / 1024.0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: bench-file DRAMPLAN DIR N...\n");
		return 2;
	}
	printf("%9s %9s %9s | %9s %7s %9s | %9s %9s\n", "tensors", "file MB",
	       "in-proc", "command", "ratio", "peak RSS", "verify", "peak RSS");
	for (i = 3; i < argc; i++) {
		uint32_t n = strtoul(argv[i], NULL, 0);
		char model[4096], plan[4096];
		struct dp_model *m = bench_synth(n, 16, 1);
		struct dp_opts o;
		struct dp_err e;
		struct dp_plan *p;
		struct stat st;
		double t0, tin, tcmd, tver, rcmd, rver;
		FILE *f;

		if (!m)
			return 1;
		dp_opts_default(&o);
		t0 = dp_now();
		p = dp_plan_model(m, &o, NULL, &e);
		tin = dp_now() - t0;
		if (!p) {
			fprintf(stderr, "bench-file: n=%u: %s\n", n, e.msg);
			return 1;
		}
		dp_plan_free(p);
		snprintf(model, sizeof(model), "%s/bench-%u.json", argv[2], n);
		snprintf(plan, sizeof(plan), "%s/bench-%u.plan.json", argv[2], n);
		f = fopen(model, "w");
		if (!f || dp_model_write_json(m, f) || fclose(f)) {
			perror(model);
			return 1;
		}
		dp_model_free(m);
		stat(model, &st);
		{
			char *cmd[] = { argv[1], model, "-q", "--no-svg", "-o", plan, NULL };
			char *ver[] = { argv[1], "verify", plan, NULL };
			int devnull = dup(1);

			fflush(stdout);
			if (run(cmd, &tcmd, &rcmd)) {
				fprintf(stderr, "bench-file: n=%u: the command failed\n", n);
				return 1;
			}
			/* verify prints one line: keep it off the table */
			if (!freopen("/dev/null", "w", stdout)) {
				fprintf(stderr, "bench-file: /dev/null: %s\n", strerror(errno));
				return 1;
			}
			if (run(ver, &tver, &rver)) {
				dup2(devnull, 1);
				fprintf(stderr, "bench-file: n=%u: verify failed\n", n);
				return 1;
			}
			fflush(stdout);
			dup2(devnull, 1);
			close(devnull);
		}
		printf("%9u %9.1f %9.3f | %9.3f %6.2fx %6.0f MB | %9.3f %6.0f MB\n",
		       n, st.st_size / 1e6, tin, tcmd, tcmd / tin, rcmd, tver, rver);
		fflush(stdout);
		if (!getenv("BENCH_FILE_KEEP")) {
			unlink(model);
			unlink(plan);
		}
	}
	return 0;
}
