// SPDX-License-Identifier: GPL-2.0
/*
 * VM test: a seeded random trace of heap commands replayed through
 * `xmemctl replay`, every output line checked against the userspace
 * reference model of the heap (tests/model). XMEMSIM_SEED picks the seed;
 * XMEMSIM_OPS the trace length (default 10^4).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "libxmemsim.h"
#include "tap.h"
#include "xorshift.h"
#include "xmem_model.h"

#define MAXLIVE 4096

static uint64_t rng;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static const char *status_line(int st)
{
	switch (st) {
	case XM_ILLEGAL_ALIGN:
		return "err EINVAL ILLEGAL_ALIGN";
	case XM_INVALID_ARGS:
		return "err EINVAL INVALID_ARGS";
	case XM_ALLOC_FAILED:
		return "err ENOMEM ALLOC_FAILED";
	case XM_PTR_OUT_OF_BOUNDS:
		return "err ENOENT PTR_OUT_OF_BOUNDS";
	default:
		return "err ?";
	}
}

/* The line xmemctl prints for "stats HEAP", from the model. */
static void stats_line(FILE *f, const struct xm_heap *h)
{
	uint64_t owned = 0;
	uint32_t i;

	for (i = 0; i < h->nalloc; i++)
		owned += h->alloc_b[i].size;	/* whole blocks, slack included */
	fprintf(f, "stats pool=0x%" PRIx64 "+0x%" PRIx64 " free=%" PRIu64
		" allocated=%" PRIu64 " unused=%" PRIu64 " largest=%" PRIu64
		" descriptors=%u/%u free_blocks=%u alloc_blocks=%u split_refused=%"
		PRIu64 " owned=%" PRIu64 "\n", h->base, h->size, h->free_bytes,
		h->allocated_bytes, h->unused_bytes, xm_largest_free(h),
		h->nfree + h->nalloc, h->num_blocks, h->nfree, h->nalloc,
		h->split_refused, owned);
}

static void dump_line(FILE *f, const struct xm_heap *h)
{
	static struct xm_block b[1 << 16];
	static int al[1 << 16];
	uint32_t n = xm_dump(h, b, al, 1 << 16), i;

	fprintf(f, "dump %u", n);
	for (i = 0; i < n; i++)
		fprintf(f, " %c:0x%" PRIx64 ":0x%" PRIx64 ":%" PRIu64,
			al[i] ? 'a' : 'f', b[i].buf, b[i].aligned, b[i].size);
	fprintf(f, "\n");
}

static const char *names[2] = { "hbm", "dataram" };
static uint64_t live[2][MAXLIVE];

/*
 * Write a trace of ops commands to /tmp/replay.in and the model's answers
 * to /tmp/replay.expect. The trace depends on the seed only; refused[]
 * seeds the model's split_refused counters with the device's.
 */
static int generate(const struct xmemsim_info *in, uint64_t seed, long ops,
		    const uint64_t refused[2])
{
	uint32_t nlive[2] = { 0, 0 };
	struct xm_heap h[2];
	FILE *trace, *exp;
	long i;

	rng = seed | 1;
	if (xm_init(&h[0], in->hbm_pool_base, in->hbm_pool_size, in->num_blocks) ||
	    xm_init(&h[1], in->dataram_pool_base, in->dataram_pool_size, in->num_blocks))
		return -1;
	h[0].split_refused = refused[0];
	h[1].split_refused = refused[1];
	trace = fopen("/tmp/replay.in", "w");
	exp = fopen("/tmp/replay.expect", "w");
	if (!trace || !exp)
		return -1;

	for (i = 0; i < ops; i++) {
		unsigned int hp = next() % 4 == 0;	/* a quarter on dataram */
		uint64_t r = next() % 100, size, align, addr = 0;
		int s;

		if (r < 50) {
			uint64_t k = next() % 100;

			size = hp ? 1 + next() % 1500 : 1 + next() % (k < 90 ? 4096 : 1 << 20);
			align = next() % 4 ? 1ULL << (next() % 13) : 0;
			if (k == 0)
				size = 0;
			else if (k == 1)
				align = 3 + 2 * (next() % 100);
			else if (k == 2)
				size = UINT64_MAX - next() % 64;
			else if (k == 3)
				size = h[hp].size + 1;
			fprintf(trace, "alloc %s %" PRIu64 " %" PRIu64 "\n", names[hp], size, align);
			s = xm_alloc(&h[hp], size, align, &addr);
			if (s == XM_OK) {
				fprintf(exp, "ok 0x%" PRIx64 "\n", addr);
				if (nlive[hp] < MAXLIVE)
					live[hp][nlive[hp]++] = addr;
			} else {
				fprintf(exp, "%s\n", status_line(s));
			}
		} else if (r < 90) {
			if (nlive[hp] && next() % 20) {
				uint32_t k = next() % nlive[hp];

				addr = live[hp][k];
				live[hp][k] = live[hp][--nlive[hp]];
			} else {
				addr = h[hp].base + next() % h[hp].size;
			}
			fprintf(trace, "free %s 0x%" PRIx64 "\n", names[hp], addr);
			s = xm_free(&h[hp], addr);
			if (s == XM_OK)
				fprintf(exp, "ok\n");
			else
				fprintf(exp, "%s\n", status_line(s));
		} else if (r < 96) {
			fprintf(trace, "stats %s\n", names[hp]);
			stats_line(exp, &h[hp]);
		} else {
			fprintf(trace, "dump %s\n", names[hp]);
			dump_line(exp, &h[hp]);
		}
	}
	fclose(trace);
	fclose(exp);
	xm_destroy(&h[0]);
	xm_destroy(&h[1]);
	return 0;
}

/* Lines of /tmp/replay.out that differ from /tmp/replay.expect, or -1. */
static long compare(long *lines)
{
	static char a[1 << 16], b[1 << 16];
	FILE *exp = fopen("/tmp/replay.expect", "r");
	FILE *got = fopen("/tmp/replay.out", "r");
	long line = 0, bad = 0;

	if (!exp || !got)
		return -1;
	while (fgets(a, sizeof(a), exp)) {
		line++;
		if (!fgets(b, sizeof(b), got)) {
			printf("#   line %ld: no output (expected %s", line, a);
			bad++;
			break;
		}
		if (strcmp(a, b) && bad++ < 3)
			printf("#   line %ld: expected %s#   got      %s", line, a, b);
	}
	if (fgets(b, sizeof(b), got)) {
		printf("#   extra output: %s", b);
		bad++;
	}
	fclose(exp);
	fclose(got);
	*lines = line;
	return bad;
}

static void replay_through(const char *how)
{
	struct xms_dev xd;
	struct xmemsim_info in;
	struct xmemsim_heap_stats st;
	uint64_t refused[2];
	const char *env = getenv("XMEMSIM_SEED");
	long ops = getenv("XMEMSIM_OPS") ? atol(getenv("XMEMSIM_OPS")) : 10000;
	uint64_t seed = env ? strtoull(env, NULL, 0) : 20261130;
	char cmd[256];
	long lines = 0, bad;
	int fd = test_open(&xd), i;

	REQUIRE(fd >= 0);
	REQUIRE(xms_get_info(&xd, &in) == 0);
	for (i = 0; i < 2; i++) {
		/* the model starts from empty heaps: so must the device */
		REQUIRE(xms_stats(&xd, i, &st) == 0 && st.free_bytes == st.pool_size);
		refused[i] = st.split_refused;	/* counted since load */
	}
	printf("# seed %" PRIu64 ", %ld commands, %s\n", seed, ops, how);
	REQUIRE(generate(&in, seed, ops, refused) == 0);
	snprintf(cmd, sizeof(cmd), "xmemctl %s replay < /tmp/replay.in > /tmp/replay.out", how);
	REQUIRE(system(cmd) == 0);
	bad = compare(&lines);
	printf("# %ld lines compared, %ld differ\n", lines, bad);
	CHECK(bad == 0);
	CHECK(lines == ops);
	/* xmemctl exited: the device freed what it held */
	CHECK(xms_stats(&xd, 0, &st) == 0 && st.free_bytes == st.pool_size &&
	      st.unused_bytes == 0 && st.free_blocks == 1);
	close(fd);
}

TEST(random_trace_through_ioctl_matches_the_reference_model)
{
	replay_through("");
}

TEST(random_trace_through_io_uring_matches_the_reference_model)
{
	replay_through("--uring");
}

int main(void)
{
	return tap_run();
}
