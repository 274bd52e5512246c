// SPDX-License-Identifier: GPL-2.0
/*
 * xmemctl's device view (userspace/tools/xmstat.c) on made-up snapshots:
 * sysfs dma and users parsed (and refused when malformed), the
 * Prometheus exposition accepted by `promtool check metrics` (skipped
 * without promtool), top's rates over an interval, in text and JSON.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "xmstat.h"

static struct xm_snap a, b;
static char buf[1 << 16];

/* Two snapshots one wall second apart: engine 1 of core 0 ran half the
 * modeled interval and moved 1 MiB; uid 1000 holds 4 KiB of HBM. */
static void fill(void)
{
	unsigned int h;

	memset(&a, 0, sizeof(a));
	a.info.cores = 2;
	a.info.abi_version = 1;
	a.have_dma = 1;
	a.dma.engines = 4;
	a.dma.time_scale = 1;
	a.dma.user_depth = 512;
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++) {
		a.heap[h].pool_size = 65536;
		a.heap[h].free_bytes = 65536;
		a.heap[h].largest_free = 65536;
		a.heap[h].num_blocks = 32;
		a.heap[h].blocks_in_use = 1;
	}
	a.user.uid = 1000;
	a.user.files = 1;
	a.user.dma_inflight = 7;
	a.have_edac = a.have_plan_bytes = a.have_hazards = 1;
	a.wall = 10;
	REQUIRE(xm_parse_dma(&a, "now_ns 1000000 time_scale 1 check 0\n"
			     "engine 0 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n"
			     "engine 1 idle queued 0 completed 2 bytes 8192 busy_ns 1000 bw_mbps 8192\n"
			     "engine 2 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n"
			     "engine 3 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n") == 0);
	b = a;
	b.wall = 11;
	b.heap[0].allocated_bytes = 4096;
	b.heap[0].free_bytes = 61440;
	b.user.owned_bytes[0] = 4096;
	b.ue[0] = 1;
	REQUIRE(xm_parse_dma(&b, "now_ns 1001000000 time_scale 1 check 0\n"
			     "engine 0 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n"
			     "engine 1 running queued 3 completed 9 bytes 1056768 busy_ns 500001000 bw_mbps 2\n"
			     "engine 2 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n"
			     "engine 3 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\n") == 0);
}

static char *render(void (*fn)(FILE *, const struct xm_snap *, const struct xm_snap *),
		    const struct xm_snap *prev, const struct xm_snap *cur)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fn(f, prev, cur);
	fclose(f);
	return buf;
}

TEST(sysfs_text_parsed_or_refused)
{
	struct xm_snap *s = &a;

	fill();
	CHECK_EQ_U64(a.nengines, 4);
	CHECK_EQ_U64(b.eng[1].queued, 3);
	CHECK(b.eng[1].running && !b.eng[0].running);
	CHECK(xm_parse_dma(s, "engine 0 idle\n") == -22 && !s->have_engines);
	CHECK(xm_parse_dma(s, "now_ns 5\nengine 1 idle queued 0 completed 0 bytes 0 busy_ns 0\n") == -22);
	CHECK(xm_parse_dma(s, "now_ns 5\nengine 0 idle queued 0 completed 0 bytes 0 busy_ns 0 bw_mbps 0\ntruncated\n") == 0);
	CHECK(s->engines_truncated && s->nengines == 1);
	CHECK(xm_parse_users(s, "uid files allocs hbm dataram libc plan_mem bounce quota_refused\n"
			     "0 2 1 8192 0 0 0 0 0\n65534 1 1 4096 0 64 0 0 3\n") == 0);
	CHECK(s->have_users && s->nusers == 2 && s->users[1].uid == 65534 &&
	      s->users[1].owned[2] == 64 && s->users[1].quota_refused == 3);
	CHECK(xm_parse_users(s, "nonsense\n") == -22 && !s->have_users);
}

static char *prom(const struct xm_snap *s)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	xm_prom_write(f, s);
	fclose(f);
	return buf;
}

static void promtool_accepts(const char *text, const char *what)
{
	char path[] = "/tmp/xmstat_prom_XXXXXX", cmd[256];
	int fd = mkstemp(path), rc;

	REQUIRE(fd >= 0);
	REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	rc = system(cmd);
	printf("# promtool check metrics (%s): %d\n", what, rc);
	CHECK(rc == 0);
	unlink(path);
}

TEST(prometheus_exposition)
{
	fill();
	prom(&b);
	CHECK_HAS(buf, "# TYPE xmemsim_heap_used_bytes gauge\n",
		  "xmemsim_heap_used_bytes{heap=\"hbm\"} 4096\n",
		  "xmemsim_heap_memory_errors_total{heap=\"hbm\",kind=\"ue\"} 1\n",
		  "xmemsim_dma_engine_bytes_total{core=\"0\",engine=\"1\"} 1056768\n",
		  "xmemsim_dma_engine_busy_seconds_total{core=\"1\",engine=\"2\"} 0.000000000\n",
		  "xmemsim_user_owned_bytes{heap=\"hbm\",uid=\"1000\"} 4096\n",
		  "xmemsim_user_dma_depth_limit{uid=\"1000\"} 512\n",
		  "xmemsim_user_dma_inflight{uid=\"1000\"} 7\n");
	if (system("command -v promtool >/dev/null") == 0)
		promtool_accepts(buf, "the caller's user");
	else
		printf("# promtool absent: the format is checked by the strings above\n");
	/* every user (root): one family each, every uid in it */
	REQUIRE(xm_parse_users(&b, "uid files allocs hbm dataram libc plan_mem bounce quota_refused\n"
			       "0 2 1 8192 0 0 0 0 0\n65534 1 1 4096 0 64 0 0 3\n") == 0);
	prom(&b);
	CHECK_HAS(buf, "xmemsim_user_quota_refused_total{uid=\"65534\"} 3\n",
		  "xmemsim_user_owned_bytes{heap=\"libc\",uid=\"65534\"} 64\n");
	if (system("command -v promtool >/dev/null") == 0)
		promtool_accepts(buf, "every user");
}

TEST(top_rates_over_the_interval)
{
	char *t;

	fill();
	/* engine 1: busy 500000000 of the 1000000000 modeled ns = 50%; at
	 * time_scale 1 a modeled ns is a wall ns: 50% of the 1 s wall too */
	t = render(xm_top_text, &a, &b);
	printf("%s", t);
	CHECK(strstr(t, "\n0     1       running         50.0%       50.0%"));
	CHECK(strstr(t, "1.0 MiB"));		/* 1048576 bytes in 1 s */
	CHECK(strstr(t, "\n1     2       idle"));	/* engine 2 is core 1's */
	CHECK_HAS(t, "you: uid 1000", "DMA in flight 7 of 512");
	t = render(xm_top_json, &a, &b);
	CHECK_HAS(t, "{\"engine\":1,\"core\":0,\"running\":true,\"queued\":3,",
		  "\"dma_inflight\":7,\"dma_depth_limit\":512}",
		  "\"busy_modeled\":0.500000",
		  "\"bytes_per_s\":1048576.000000");
	CHECK(!strstr(t, "\"users\":"));
	/* no earlier snapshot: no rates */
	t = render(xm_top_json, NULL, &b);
	CHECK(strstr(t, "\"busy_modeled\":null"));
}

int main(void)
{
	return tap_run();
}
