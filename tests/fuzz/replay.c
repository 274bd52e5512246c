// SPDX-License-Identifier: GPL-2.0
/*
 * replay - a libFuzzer harness without libFuzzer: feeds every file of the
 * harness's seed corpus (tests/fuzz/corpus/<harness>/, the harness named by
 * this binary's name, replay_<harness>) to LLVMFuzzerTestOneInput and
 * prints TAP, one test per file.  Built by the normal userspace build, so
 * `make check` replays the corpus in the plain and the ASan/UBSan builds;
 * a broken invariant aborts, and the missing plan line counts as failure.
 * With arguments, replays those files instead (a crash found by `make
 * fuzz`, say).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"

#ifndef DP_SRCROOT
#define DP_SRCROOT "."
#endif

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int one(int k, const char *path)
{
	struct dp_err e;
	char *text;
	size_t len;

	if (dp_read_file(path, &text, &len, &e)) {
		printf("not ok %d - %s # %s\n", k, path, e.msg);
		return 1;
	}
	fflush(stdout);
	LLVMFuzzerTestOneInput((const uint8_t *)text, len);
	free(text);
	printf("ok %d - %s\n", k, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	return 0;
}

/* The test's own allocations: out of memory ends the run. */
static void *xrealloc(void *p, size_t n, size_t sz)
{
	p = realloc(p, n * sz);
	if (!p) {
		fprintf(stderr, "replay: out of memory\n");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *h = strncmp(self, "replay_", 7) ? self : self + 7;
	char dir[4096], **names = NULL;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;
	int bad = 0;

	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++)
			bad |= one(i, argv[i]);
		printf("1..%d\n", argc - 1);
		return bad;
	}
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", DP_SRCROOT, h);
	d = opendir(dir);
	if (!d) {
		printf("not ok 1 - corpus %s: cannot open\n1..1\n", dir);
		return 1;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			names = xrealloc(names, n + 1, sizeof(*names));
			names[n] = xrealloc(NULL, strlen(dir) + strlen(de->d_name) + 2, 1);
			sprintf(names[n++], "%s/%s", dir, de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (i = 0; i < n; i++) {
		bad |= one(i + 1, names[i]);
		free(names[i]);
	}
	free(names);
	printf("1..%zu\n", n);
	return bad;
}
