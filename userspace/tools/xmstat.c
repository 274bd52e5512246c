// SPDX-License-Identifier: GPL-2.0
/*
 * xmstat.c - one snapshot of the device for xmemctl top and
 * stats --prometheus (xmstat.h), and the two outputs.
 *
 * Engines are numbered core-major: engine e is core e / per's engine,
 * per = DMA_INFO's engines / GET_INFO's cores (the module's dma_engines).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xmstat.h"

#define SYSFS_DIR "/sys/class/misc/xmemsim"
#define U(x) ((unsigned long long)(x))

/* A sysfs file into buf (NUL-terminated): 0, or -errno. */
static int read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	size_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return 0;
}

static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char buf[64];
	char *end;

	if (read_text(dir, name, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, &end, 10);
	return end == buf ? -1 : 0;
}

int xm_parse_dma(struct xm_snap *s, const char *text)
{
	const char *p = text;
	unsigned long long now;

	s->have_engines = 0;
	s->nengines = 0;
	s->engines_truncated = 0;
	if (sscanf(p, "now_ns %llu", &now) != 1)
		return -EINVAL;
	s->dma_now = now;
	while ((p = strchr(p, '\n')) && *++p) {
		unsigned long long q, c, b, t;
		unsigned int e;
		char state[16];

		if (!strncmp(p, "truncated", 9)) {
			s->engines_truncated = 1;
			break;
		}
		if (sscanf(p, "engine %u %15s queued %llu completed %llu bytes %llu busy_ns %llu",
			   &e, state, &q, &c, &b, &t) != 6 || e != s->nengines)
			return -EINVAL;
		if (e >= XM_MAX_ENGINES) {
			s->engines_truncated = 1;
			break;
		}
		s->eng[e] = (struct xm_engine){ !strcmp(state, "running"), q, c, b, t };
		s->nengines++;
	}
	s->have_engines = 1;
	return 0;
}

int xm_parse_users(struct xm_snap *s, const char *text)
{
	const char *p = strchr(text, '\n');

	s->have_users = 0;
	s->nusers = 0;
	s->users_truncated = 0;
	if (strncmp(text, "uid ", 4) || !p)
		return -EINVAL;
	while (*++p) {
		struct xm_user *u = &s->users[s->nusers];
		unsigned long long h, d, l, pm, bo, qr;
		unsigned int uid, files, allocs;

		if (!strncmp(p, "truncated", 9) || s->nusers == XM_MAX_USERS) {
			s->users_truncated = 1;
			break;
		}
		if (sscanf(p, "%u %u %u %llu %llu %llu %llu %llu %llu", &uid, &files,
			   &allocs, &h, &d, &l, &pm, &bo, &qr) != 9)
			return -EINVAL;
		*u = (struct xm_user){ uid, files, allocs, { h, d, l }, pm, bo, qr };
		s->nusers++;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	s->have_users = 1;
	return 0;
}

int xm_snap_read(struct xms_dev *dev, const char *sysfs, struct xm_snap *s)
{
	static char buf[1 << 16];
	struct timespec ts;
	unsigned long long a, b, c;
	unsigned int h;
	int ret;

	memset(s, 0, sizeof(*s));
	s->device = -1;
	if (!sysfs)
		sysfs = getenv("XMEMSIM_SYSFS") ? getenv("XMEMSIM_SYSFS") : SYSFS_DIR;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->wall = ts.tv_sec + ts.tv_nsec / 1e9;
	ret = xms_get_info(dev, &s->info);
	for (h = 0; !ret && h < XMEMSIM_NUM_HEAPS; h++)
		ret = xms_stats(dev, h, &s->heap[h]);
	if (!ret)
		ret = xms_user_stats(dev, &s->user);
	if (ret)
		return ret;
	s->have_dma = !xms_dma_info(dev, &s->dma);
	s->have_edac = 1;
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++) {
		char name[32];

		snprintf(name, sizeof(name), "%s/ce_count", xms_heap_name(h));
		s->have_edac &= !read_u64(sysfs, name, &s->ce[h]);
		snprintf(name, sizeof(name), "%s/ue_count", xms_heap_name(h));
		s->have_edac &= !read_u64(sysfs, name, &s->ue[h]);
	}
	s->have_plan_bytes = !read_u64(sysfs, "plan_bytes", &s->plan_bytes);
	if (!read_text(sysfs, "dma_check_reports", buf, sizeof(buf)) &&
	    sscanf(buf, "host %llu free %llu race %llu", &a, &b, &c) == 3) {
		s->hazards[0] = a;
		s->hazards[1] = b;
		s->hazards[2] = c;
		s->have_hazards = 1;
	}
	if (!read_text(sysfs, "dma", buf, sizeof(buf)))
		xm_parse_dma(s, buf);
	if (!read_text(sysfs, "users", buf, sizeof(buf)))
		xm_parse_users(s, buf);
	return 0;
}

/* ---- Prometheus ------------------------------------------------------------ */

static void prom_head(FILE *f, const char *name, const char *type,
		      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One metric with a value per heap. */
static void prom_heaps(FILE *f, const char *name, const char *type,
		       const char *help, const uint64_t *v)
{
	unsigned int h;

	prom_head(f, name, type, help);
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
		fprintf(f, "%s{heap=\"%s\"} %llu\n", name, xms_heap_name(h), U(v[h]));
}

/* The HEAP_STATS figures, one family each, a sample per heap. */
static const struct heap_metric {
	const char *name, *type, *help;
	size_t off;
	int u32;
} heap_metrics[] = {
#define HM(n, t, h, f) { n, t, h, offsetof(struct xmemsim_heap_stats, f), \
	sizeof(((struct xmemsim_heap_stats *)0)->f) == 4 }
	HM("xmemsim_heap_pool_bytes", "gauge", "Bytes of the heap's pool.", pool_size),
	HM("xmemsim_heap_used_bytes", "gauge", "Bytes in allocated blocks, alignment slack included.", allocated_bytes),
	HM("xmemsim_heap_free_bytes", "gauge", "Bytes in free blocks.", free_bytes),
	HM("xmemsim_heap_largest_free_bytes", "gauge", "The largest free block: the largest allocation that can succeed.", largest_free),
	HM("xmemsim_heap_slack_bytes", "gauge", "Alignment slack inside allocated blocks.", unused_bytes),
	HM("xmemsim_heap_descriptors", "gauge", "Descriptors of the heap (module parameter num_blocks).", num_blocks),
	HM("xmemsim_heap_descriptors_used", "gauge", "Descriptors in use (free and allocated blocks).", blocks_in_use),
	HM("xmemsim_heap_allocated_blocks", "gauge", "Allocated blocks.", alloc_blocks),
	HM("xmemsim_heap_split_refused_total", "counter", "Splits skipped for want of a descriptor, since load.", split_refused),
#undef HM
};

static unsigned int per_core(const struct xm_snap *s)
{
	unsigned int per = s->info.cores && s->have_dma ? s->dma.engines / s->info.cores : 0;

	return per ? per : 1;
}

/* The engines' counters, when the device gives them (per: engines a core) */
static void prom_engines(FILE *f, const struct xm_snap *s, unsigned int per)
{
	static const struct { const char *name, *type, *help; } m[] = {
		{ "xmemsim_dma_engine_busy_seconds_total", "counter", "Modeled time the engine ran transfers." },
		{ "xmemsim_dma_engine_transfers_total", "counter", "Transfers the engine completed." },
		{ "xmemsim_dma_engine_bytes_total", "counter", "Bytes the engine moved." },
		{ "xmemsim_dma_engine_queued", "gauge", "Transfers queued on the engine, every file." },
		{ "xmemsim_dma_engine_running", "gauge", "1 while the engine runs a transfer." },
	};
	unsigned int k, e;

	if (!s->have_engines)
		return;
	for (k = 0; k < 5; k++) {
		prom_head(f, m[k].name, m[k].type, m[k].help);
		for (e = 0; e < s->nengines; e++) {
			const struct xm_engine *g = &s->eng[e];

			fprintf(f, "%s{core=\"%u\",engine=\"%u\"} ", m[k].name, e / per, e);
			if (k == 0)
				fprintf(f, "%.9f\n", g->busy_ns / 1e9);
			else
				fprintf(f, "%llu\n", U(k == 1 ? g->completed : k == 2 ? g->bytes :
						       k == 3 ? g->queued : (uint64_t)g->running));
		}
	}
}

/* The users' holdings and limits: every user when sysfs users was
 * readable, else the caller's */
static void prom_users(FILE *f, const struct xm_snap *s)
{
	const struct xmemsim_user_stats *u = &s->user;
	unsigned int h, e, k;

	prom_head(f, "xmemsim_user_owned_bytes", "gauge", "Bytes a user holds over all its open files.");
	if (s->have_users)
		for (e = 0; e < s->nusers; e++)
			for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
				fprintf(f, "xmemsim_user_owned_bytes{heap=\"%s\",uid=\"%u\"} %llu\n",
					xms_heap_name(h), s->users[e].uid, U(s->users[e].owned[h]));
	else
		for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
			fprintf(f, "xmemsim_user_owned_bytes{heap=\"%s\",uid=\"%u\"} %llu\n",
				xms_heap_name(h), u->uid, U(u->owned_bytes[h]));
	prom_head(f, "xmemsim_user_limit_bytes", "gauge", "The caller's user's limit per heap, 0 = none.");
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
		fprintf(f, "xmemsim_user_limit_bytes{heap=\"%s\",uid=\"%u\"} %llu\n",
			xms_heap_name(h), u->uid, U(u->limit_bytes[h]));
	for (k = 0; k < 4; k++) {
		static const struct { const char *name, *type, *help; } m[] = {
			{ "xmemsim_user_files", "gauge", "Open files of a user (this one included)." },
			{ "xmemsim_user_allocations", "gauge", "Live allocations of a user, every heap." },
			{ "xmemsim_user_plan_memory_bytes", "gauge", "Kernel memory of a user's plans." },
			{ "xmemsim_user_quota_refused_total", "counter", "A user's allocations refused by a limit." },
		};
		struct xm_user me = { u->uid, u->files, u->allocs, { 0 }, u->plan_mem,
				      u->bounce_bytes, u->quota_refused };
		const struct xm_user *x = s->have_users ? s->users : &me;
		uint32_t n = s->have_users ? s->nusers : 1;

		prom_head(f, m[k].name, m[k].type, m[k].help);
		for (e = 0; e < n; e++)
			fprintf(f, "%s{uid=\"%u\"} %llu\n", m[k].name, x[e].uid,
				U(k == 0 ? x[e].files : k == 1 ? x[e].allocs :
				  k == 2 ? x[e].plan_mem : x[e].quota_refused));
	}
	prom_head(f, "xmemsim_user_allocations_limit", "gauge", "The caller's user's allocation limit, 0 = none.");
	fprintf(f, "xmemsim_user_allocations_limit{uid=\"%u\"} %u\n", u->uid, u->limit_allocs);
	prom_head(f, "xmemsim_user_plan_memory_limit_bytes", "gauge", "The caller's user's plan memory limit.");
	fprintf(f, "xmemsim_user_plan_memory_limit_bytes{uid=\"%u\"} %llu\n", u->uid, U(u->limit_plan_mem));
	prom_head(f, "xmemsim_user_dma_inflight", "gauge", "Transfers the caller's user has queued, running or unreaped.");
	fprintf(f, "xmemsim_user_dma_inflight{uid=\"%u\"} %u\n", u->uid, u->dma_inflight);
	if (s->have_dma) {
		prom_head(f, "xmemsim_user_dma_depth_limit", "gauge", "Transfers one user may have in flight or unreaped, 0 = none.");
		fprintf(f, "xmemsim_user_dma_depth_limit{uid=\"%u\"} %u\n", u->uid, s->dma.user_depth);
	}
}

void xm_prom_write(FILE *f, const struct xm_snap *s)
{
	uint64_t v[XMEMSIM_NUM_HEAPS];
	unsigned int h, e, k, per = per_core(s);

	prom_head(f, "xmemsim_info", "gauge", "The device: ABI version, cores, features (always 1).");
	fprintf(f, "xmemsim_info{abi=\"%u\",cores=\"%u\",features=\"0x%llx\",version=\"%s\"} 1\n",
		s->info.abi_version, s->info.cores, U(s->info.features), XMEMSIM_VERSION);
	for (k = 0; k < sizeof(heap_metrics) / sizeof(heap_metrics[0]); k++) {
		const struct heap_metric *m = &heap_metrics[k];

		for (h = 0; h < XMEMSIM_NUM_HEAPS; h++) {
			const char *p = (const char *)&s->heap[h] + m->off;
			uint32_t w;

			if (m->u32) {
				memcpy(&w, p, sizeof(w));
				v[h] = w;
			} else {
				memcpy(&v[h], p, sizeof(v[h]));
			}
		}
		prom_heaps(f, m->name, m->type, m->help, v);
	}
	if (s->have_edac) {
		prom_head(f, "xmemsim_heap_memory_errors_total", "counter", "Memory errors reads met, since load, by kind (ce correctable, ue uncorrectable).");
		for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
			fprintf(f, "xmemsim_heap_memory_errors_total{heap=\"%s\",kind=\"ce\"} %llu\n"
				"xmemsim_heap_memory_errors_total{heap=\"%s\",kind=\"ue\"} %llu\n",
				xms_heap_name(h), U(s->ce[h]), xms_heap_name(h), U(s->ue[h]));
	}
	if (s->have_plan_bytes) {
		prom_head(f, "xmemsim_plan_bytes", "gauge", "Bytes of synced plans, shared tensors once.");
		fprintf(f, "xmemsim_plan_bytes %llu\n", U(s->plan_bytes));
	}
	if (s->have_hazards) {
		static const char *const kind[] = { "host", "free", "race" };

		prom_head(f, "xmemsim_dma_check_reports_total", "counter", "DMA timing checker reports since load, by kind.");
		for (e = 0; e < 3; e++)
			fprintf(f, "xmemsim_dma_check_reports_total{kind=\"%s\"} %llu\n", kind[e], U(s->hazards[e]));
	}
	if (s->have_dma) {
		prom_head(f, "xmemsim_dma_engines", "gauge", "DMA engines (dma_engines x cores).");
		fprintf(f, "xmemsim_dma_engines %u\n", s->dma.engines);
		prom_head(f, "xmemsim_dma_modeled_seconds_total", "counter", "The device's modeled clock.");
		fprintf(f, "xmemsim_dma_modeled_seconds_total %.9f\n", s->dma.now_ns / 1e9);
	}
	prom_engines(f, s, per);
	prom_users(f, s);
}

/* ---- top ------------------------------------------------------------------- */

/* Rates of engine e between prev and s: busy in modeled and wall time (a
 * fraction, or -1 when not known) and bytes per wall second. */
static void engine_rates(const struct xm_snap *prev, const struct xm_snap *s,
			 unsigned int e, double *busy_m, double *busy_w, double *bps)
{
	const struct xm_engine *a, *b = &s->eng[e];
	double dwall, dmod, dbusy;

	*busy_m = *busy_w = *bps = -1;
	if (!prev || !prev->have_engines || e >= prev->nengines)
		return;
	a = &prev->eng[e];
	dwall = s->wall - prev->wall;
	dmod = (double)s->dma_now - (double)prev->dma_now;
	dbusy = (double)b->busy_ns - (double)a->busy_ns;
	if (dmod > 0)
		*busy_m = dbusy / dmod;
	else if (dmod == 0)
		*busy_m = 0;
	if (dwall > 0) {
		*bps = ((double)b->bytes - (double)a->bytes) / dwall;
		/* a modeled ns lasts time_scale wall ns; the virtual clock none */
		if (s->have_dma && s->dma.time_scale)
			*busy_w = dbusy * s->dma.time_scale / (dwall * 1e9);
	}
}

/* "12.3 MiB" */
static const char *human(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int k = 0;

	while (x >= 1024 && k < 4) {
		x /= 1024;
		k++;
	}
	if (k)
		snprintf(buf, len, "%.1f %s", x, unit[k]);
	else
		snprintf(buf, len, "%llu B", U(v));
	return buf;
}

static const char *pct(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", v * 100);
	return buf;
}

static const char *held(uint64_t have, uint64_t limit, char *buf, size_t len)
{
	char a[24], b[24];

	if (limit)
		snprintf(buf, len, "%s / %s", human(have, a, sizeof(a)), human(limit, b, sizeof(b)));
	else
		snprintf(buf, len, "%s (no limit)", human(have, a, sizeof(a)));
	return buf;
}

void xm_top_text(FILE *f, const struct xm_snap *prev, const struct xm_snap *s)
{
	const struct xmemsim_user_stats *u = &s->user;
	unsigned int h, e, per = per_core(s);
	char a[32], b[32], c[32], d[48];

	if (s->device >= 0)
		fprintf(f, "device %d\n", s->device);
	fprintf(f, "xmemsim %s: %u cores, %u engines%s, modeled now %.6f s%s\n",
		XMEMSIM_VERSION, s->info.cores, s->have_dma ? s->dma.engines : 0,
		s->have_dma ? "" : " (no DMA_INFO)",
		(s->have_engines ? s->dma_now : s->dma.now_ns) / 1e9,
		s->have_dma && !s->dma.time_scale ? " (virtual clock)" : "");
	fprintf(f, "\n%-8s %11s %11s %11s %12s %5s %5s\n", "heap", "used", "free",
		"largest", "descriptors", "CE", "UE");
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++) {
		const struct xmemsim_heap_stats *t = &s->heap[h];

		snprintf(d, sizeof(d), "%u/%u", t->blocks_in_use, t->num_blocks);
		fprintf(f, "%-8s %11s %11s %11s %12s", xms_heap_name(h),
			human(t->allocated_bytes, a, sizeof(a)),
			human(t->free_bytes, b, sizeof(b)),
			human(t->largest_free, c, sizeof(c)), d);
		if (s->have_edac)
			fprintf(f, " %5llu %5llu\n", U(s->ce[h]), U(s->ue[h]));
		else
			fprintf(f, " %5s %5s\n", "-", "-");
	}
	if (s->have_engines) {
		fprintf(f, "\n%-5s %-7s %-8s %12s %11s %7s %12s\n", "core", "engine",
			"state", "busy(model)", "busy(wall)", "queued", "bytes/s");
		for (e = 0; e < s->nengines; e++) {
			double bm, bw, bps;

			engine_rates(prev, s, e, &bm, &bw, &bps);
			if (bps < 0)
				snprintf(c, sizeof(c), "-");
			else
				snprintf(c, sizeof(c), "%s", human((uint64_t)bps, d, sizeof(d)));
			fprintf(f, "%-5u %-7u %-8s %12s %11s %7llu %12s\n", e / per, e,
				s->eng[e].running ? "running" : "idle",
				pct(bm, a, sizeof(a)), pct(bw, b, sizeof(b)),
				U(s->eng[e].queued), c);
		}
		if (s->engines_truncated)
			fprintf(f, "(more engines than sysfs dma holds: debugfs dma lists them all)\n");
		if (!prev)
			fprintf(f, "(rates from the second refresh on)\n");
	} else {
		fprintf(f, "\nengines: no sysfs dma (a module without it)\n");
	}
	fprintf(f, "\nyou: uid %u, %u file%s, allocations %u", u->uid, u->files,
		u->files == 1 ? "" : "s", u->allocs);
	if (u->limit_allocs)
		fprintf(f, "/%u", u->limit_allocs);
	fprintf(f, ", plan memory %s", held(u->plan_mem, u->limit_plan_mem, d, sizeof(d)));
	if (s->have_dma)
		fprintf(f, ", DMA in flight %u of %s", u->dma_inflight, s->dma.user_depth ?
			(snprintf(a, sizeof(a), "%u", s->dma.user_depth), a) : "no limit");
	fputc('\n', f);
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
		fprintf(f, "  %-8s %s\n", xms_heap_name(h),
			held(u->owned_bytes[h], u->limit_bytes[h], d, sizeof(d)));
	if (!s->have_users)
		return;
	fprintf(f, "\n%-7s %5s %6s %11s %11s %11s %11s %7s\n", "uid", "files",
		"allocs", "hbm", "dataram", "libc", "plan_mem", "refused");
	for (e = 0; e < s->nusers; e++) {
		const struct xm_user *x = &s->users[e];
		char l[32], p[32];

		fprintf(f, "%-7u %5u %6u %11s %11s %11s %11s %7llu\n", x->uid, x->files,
			x->allocs, human(x->owned[0], a, sizeof(a)),
			human(x->owned[1], b, sizeof(b)), human(x->owned[2], l, sizeof(l)),
			human(x->plan_mem, p, sizeof(p)), U(x->quota_refused));
	}
	if (s->users_truncated)
		fprintf(f, "(more users than sysfs users holds)\n");
}

static void json_rate(FILE *f, const char *key, double v)
{
	if (v < 0)
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%.6f", key, v);
}

void xm_top_json(FILE *f, const struct xm_snap *prev, const struct xm_snap *s)
{
	const struct xmemsim_user_stats *u = &s->user;
	unsigned int h, e, per = per_core(s);

	fputc('{', f);
	if (s->device >= 0)
		fprintf(f, "\"device\":%d,", s->device);
	fprintf(f, "\"version\":\"%s\",\"cores\":%u,\"modeled_ns\":%llu,\"time_scale\":%llu,\"heaps\":[",
		XMEMSIM_VERSION, s->info.cores,
		U(s->have_engines ? s->dma_now : s->dma.now_ns), U(s->dma.time_scale));
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++) {
		const struct xmemsim_heap_stats *t = &s->heap[h];

		fprintf(f, "%s{\"heap\":\"%s\",\"used\":%llu,\"free\":%llu,\"largest\":%llu,\"descriptors\":%u,\"descriptors_used\":%u",
			h ? "," : "", xms_heap_name(h), U(t->allocated_bytes),
			U(t->free_bytes), U(t->largest_free), t->num_blocks,
			t->blocks_in_use);
		if (s->have_edac)
			fprintf(f, ",\"ce\":%llu,\"ue\":%llu", U(s->ce[h]), U(s->ue[h]));
		fputc('}', f);
	}
	fputc(']', f);
	if (s->have_engines) {
		fprintf(f, ",\"engines\":[");
		for (e = 0; e < s->nengines; e++) {
			const struct xm_engine *g = &s->eng[e];
			double bm, bw, bps;

			engine_rates(prev, s, e, &bm, &bw, &bps);
			fprintf(f, "%s{\"engine\":%u,\"core\":%u,\"running\":%s,\"queued\":%llu,\"completed\":%llu,\"bytes\":%llu,\"busy_ns\":%llu",
				e ? "," : "", e, e / per, g->running ? "true" : "false",
				U(g->queued), U(g->completed), U(g->bytes), U(g->busy_ns));
			json_rate(f, "busy_modeled", bm);
			json_rate(f, "busy_wall", bw);
			json_rate(f, "bytes_per_s", bps);
			fputc('}', f);
		}
		fprintf(f, "]");
	}
	fprintf(f, ",\"user\":{\"uid\":%u,\"files\":%u,\"allocs\":%u,\"limit_allocs\":%u",
		u->uid, u->files, u->allocs, u->limit_allocs);
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
		fprintf(f, ",\"%s\":%llu,\"limit_%s\":%llu", xms_heap_name(h),
			U(u->owned_bytes[h]), xms_heap_name(h), U(u->limit_bytes[h]));
	fprintf(f, ",\"plan_mem\":%llu,\"limit_plan_mem\":%llu,\"dma_inflight\":%u,\"dma_depth_limit\":%u}",
		U(u->plan_mem), U(u->limit_plan_mem), u->dma_inflight, s->dma.user_depth);
	if (s->have_users) {
		fprintf(f, ",\"users\":[");
		for (e = 0; e < s->nusers; e++) {
			const struct xm_user *x = &s->users[e];

			fprintf(f, "%s{\"uid\":%u,\"files\":%u,\"allocs\":%u,\"hbm\":%llu,\"dataram\":%llu,\"libc\":%llu,\"plan_mem\":%llu,\"bounce\":%llu,\"quota_refused\":%llu}",
				e ? "," : "", x->uid, x->files, x->allocs, U(x->owned[0]),
				U(x->owned[1]), U(x->owned[2]), U(x->plan_mem),
				U(x->bounce), U(x->quota_refused));
		}
		fputc(']', f);
	}
	fprintf(f, "}\n");
}
