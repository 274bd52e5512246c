// SPDX-License-Identifier: GPL-2.0
/*
 * xmemctl: command-line client of /dev/xmemsim.
 *
 * Each invocation is one open file of the device, and the device frees
 * what a file allocated when it closes: use `xmemctl replay` to run a
 * sequence of commands on one file.
 *
 * "The seed": the behaviour xmemsim reproduces, docs/seed-behaviour.md.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#include "dp_device.h"
#include "libxmemsim.h"
#include "xmstat.h"
#include "xmemctl_bench.h"

#define MAX_IO (64u << 20)
#define MAX_ARGS 8

static int json;		/* --json: info, stats and dump as JSON */
static const char *file_arg;	/* --file F: write's bytes */
static int prometheus;		/* --prometheus: stats as metrics */
static int once;		/* --once: top refreshes once */
static double interval = 1;	/* --interval S: top's refresh */
static int chosen;		/* -d or --device: one device, also for top */
static unsigned int plan_devices; /* --devices D: plan run on devices 0 .. D-1 */

#define XM_MAX_DEVICES 32	/* the module's devices parameter, at most */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xmemctl [OPTIONS] COMMAND [ARGS]\n"
		"  -d, --device=N                device N: /dev/xmemsimN (0: " XMEMSIM_DEFAULT_PATH ",\n"
		"                                or /dev/xmemsim0 without it); default 0\n"
		"      --dev=PATH                the device by its node (-d PATH too)\n"
		"  -u, --uring                   send every command through io_uring\n"
		"                                (IORING_OP_URING_CMD, IORING_OP_READ/WRITE)\n"
		"  -j, --json                    info, stats, user, dump and top: one JSON\n"
		"                                object a line\n"
		"  -p, --prometheus              stats: every figure in Prometheus' text format\n"
		"      --once                    top: one refresh, then exit\n"
		"      --devices=D               plan run: data-parallel on devices 0 .. D-1,\n"
		"                                the collectives' gradients all-reduced\n"
		"                                across them too\n"
		"  -i, --interval=SECONDS        top: the refresh (default 1; rates over it)\n"
		"  -h, --help                    this text\n"
		"  -V, --version                 the version\n"
		"commands:\n"
		"  info                          geometry and limits\n"
		"  alloc HEAP SIZE [ALIGN]       allocate (freed again when xmemctl exits)\n"
		"  free HEAP ADDR [clear]        free (clear: the seed's clear flag; every\n"
		"                                free clears the block anyway)\n"
		"  size HEAP ADDR                an allocation's size asked and usable\n"
		"  stats [HEAP]                  heap statistics (no HEAP: every heap)\n"
		"  top                           a live view: heaps, engines by core (busy,\n"
		"                                queued, bytes/s), your user, every user\n"
		"                                (root or group xmemsim); every device, one\n"
		"                                block each, unless -d chose one\n"
		"  user                          what your user holds over all its\n"
		"                                open files, and its limits\n"
		"  dump HEAP                     the heap's blocks in address order\n"
		"  stack [SIZE]                  an HBM stack (default 4196 bytes)\n"
		"  read ADDR LEN                 bytes at ADDR, as hex\n"
		"  write ADDR HEX | --file=F ADDR   bytes to ADDR\n"
		"  copy SRC DST LEN METHOD       METHOD: c_memcpy, vec_memcpy or dma\n"
		"  memset ADDR VALUE LEN         set LEN bytes at ADDR to VALUE (0..255)\n"
		"  dma SRC DST LEN [ENGINE [QUEUE [WAITSEM]]]  one queued DMA transfer,\n"
		"                                waited for: its ticket and modeled start\n"
		"                                and end; WAITSEM: held until that\n"
		"                                semaphore is 1, not waited for\n"
		"  sem get N | sem set N VALUE   one of this open file's semaphores\n"
		"  fault SITE SKIP TIMES         this file's next SKIP calls of SITE\n"
		"                                pass, then TIMES fail (0 disarms)\n"
		"  fault SITE framework [off]    follow debugfs fail_SITE/ instead\n"
		"  memerr ADDR ce|ue             a memory error on ADDR's 64-byte line\n"
		"  plan load FILE                a plan.json dramplan wrote: submitted, synced,\n"
		"                                checked; each tensor's device address (the\n"
		"                                plan lives while this open file does)\n"
		"  plan run PLAN MODEL [TRACE]   run MODEL's program on the device with\n"
		"                                PLAN's addresses: DMA, semaphores, rings,\n"
		"                                the hazard checker and a content check;\n"
		"                                TRACE: a Perfetto (JSON) trace of the run;\n"
		"                                exit 0 only with 0 hazards and mismatches;\n"
		"                                --devices D: on D devices at once\n"
		"  replay                        one command a line from stdin, one\n"
		"                                result line each, all on one open file\n"
		"  bench COLL [-b MIN] [-e MAX] [-f FACTOR] [-c 0|1] [-n N]\n"
		"        [-d TYPE] [-o OP] [-r ROOT] [-A ALGO]\n"
		"                                COLL (all-reduce, reduce-scatter, all-gather,\n"
		"                                broadcast) over N devices (default all), as\n"
		"                                nccl-tests: sizes MIN to MAX bytes by FACTOR,\n"
		"                                -c checks against the host; modeled time;\n"
		"                                ALGO: all-reduce's auto, ring or tree\n"
		"HEAP is hbm, dataram or libc (any case), or 0, 1 or 2; numbers are decimal or\n"
		"0x-prefixed hex. Options go anywhere on the line. See xmemctl(1).\n");
}

/* "ENOMEM" for ENOMEM; "E?" for what glibc has no name for. */
static const char *errno_name(int e)
{
	const char *n = e > 0 ? strerrorname_np(e) : NULL;

	return n ? n : "E?";
}

/* Decimal, or hex after 0x: "010" is ten, never octal. */
static int parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

static int parse_method(const char *s, unsigned int *m)
{
	if (!strcmp(s, "c_memcpy") || !strcmp(s, "0"))
		*m = XMEMSIM_COPY_C_MEMCPY;
	else if (!strcmp(s, "vec_memcpy") || !strcmp(s, "1"))
		*m = XMEMSIM_COPY_VEC_MEMCPY;
	else if (!strcmp(s, "dma") || !strcmp(s, "2"))
		*m = XMEMSIM_COPY_DMA;
	else
		return -EINVAL;
	return 0;
}

static int parse_hex(const char *s, unsigned char **buf, size_t *len)
{
	size_t n = strlen(s), i;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (!n || n % 2)
		return -EINVAL;
	*buf = malloc(n / 2);
	if (!*buf)
		return -ENOMEM;
	for (i = 0; i < n / 2; i++) {
		unsigned int v;

		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1) {
			free(*buf);
			return -EINVAL;
		}
		(*buf)[i] = v;
	}
	*len = n / 2;
	return 0;
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, r;

	if (!f)
		return -errno;
	*buf = malloc(cap);
	while (*buf && (r = fread(*buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			unsigned char *nb = cap >= MAX_IO ? NULL : realloc(*buf, cap * 2);

			if (!nb) {
				free(*buf);
				*buf = NULL;
				break;
			}
			*buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!*buf)
		return -ENOMEM;
	*len = n;
	return 0;
}

/* One command's call: what the handlers share. */
struct call {
	struct xms_dev *dev;
	int argc;
	char **argv;		/* argv[0] is the command's name */
	FILE *out;		/* result lines */
	FILE *err;		/* failure lines: stdout in replay, else stderr */
	int heap;		/* argv[1]'s heap (commands that take one) */
	int status;		/* the device's XMEM status; 1 if it gave none */
	uint64_t asked;		/* alloc: the bytes asked for */
};

/*
 * A device error as one line, "err ERRNO STATUS": STATUS is the xmem
 * status the heap gave, or "-" when the command was refused before the
 * heap ran (ownership, arguments, limits). On stderr outside replay, as
 * "xmemctl: COMMAND: ERRNO STATUS". Returns 1.
 */
static int failed(struct call *k, int ret)
{
	const char *st = k->status != 1 ? xms_status_name(k->status) : "-";

	if (k->err == stderr && ret == -ENOMEM && k->heap >= 0) {
		char why[256];

		/* the pool, the bytes free and the parameter that sizes it */
		if (xms_nomem_reason(k->dev, k->heap, k->asked, why, sizeof(why)))
			why[0] = 0;
		fprintf(stderr, "xmemctl: %s: %s %s%s%s\n", k->argv[0],
			errno_name(-ret), st, why[0] ? ": " : "", why);
	} else if (k->err == stderr)
		fprintf(stderr, "xmemctl: %s: %s %s\n", k->argv[0], errno_name(-ret), st);
	else
		fprintf(k->err, "err %s %s\n", errno_name(-ret), st);
	return 1;
}

/* A command with nothing to report: "ok", or the failure. */
static int ok_or_failed(struct call *k, int ret)
{
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok\n");
	return 0;
}

/* JSON output: one object a line, through yajl. */
static yajl_gen jopen(void)
{
	yajl_gen g = yajl_gen_alloc(NULL);

	if (g)
		yajl_gen_map_open(g);
	return g;
}

static void jkey(yajl_gen g, const char *k)
{
	yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

static void jnum(yajl_gen g, const char *k, uint64_t v)
{
	jkey(g, k);
	yajl_gen_integer(g, (long long)v);
}

static void jstr(yajl_gen g, const char *k, const char *v)
{
	jkey(g, k);
	yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}

/* "key[i]": val[i], ... */
static void jnums(yajl_gen g, const char *const *key, const uint64_t *val,
		  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		jnum(g, key[i], val[i]);
}

static int jclose(struct call *k, yajl_gen g)
{
	const unsigned char *buf;
	size_t len;

	if (!g)
		return failed(k, -ENOMEM);
	yajl_gen_map_close(g);
	if (yajl_gen_get_buf(g, &buf, &len) != yajl_gen_status_ok) {
		yajl_gen_free(g);
		return failed(k, -ENOMEM);
	}
	fprintf(k->out, "%.*s\n", (int)len, buf);
	yajl_gen_free(g);
	return 0;
}

/* One object, "heap": heap first unless heap is NULL, then key[i]: val[i] */
static int jprint_nums(struct call *k, const char *heap,
		       const char *const *key, const uint64_t *val, size_t n)
{
	yajl_gen g = jopen();

	if (g) {
		if (heap)
			jstr(g, "heap", heap);
		jnums(g, key, val, n);
	}
	return jclose(k, g);
}

static int cmd_info(struct call *k)
{
	struct xmemsim_info in = { 0 };
	int ret = xms_get_info(k->dev, &in);

	if (ret)
		return failed(k, ret);
	if (json) {
		static const char *const key[] = {
			"abi", "cores", "descriptors", "hbm_base", "hbm_size",
			"hbm_pool_base", "hbm_pool_size", "dataram_base",
			"dataram_size", "dataram_pool_base", "dataram_pool_size",
			"staging_lo", "staging_hi", "stack_default", "stack_max",
			"default_align", "plan_core_size", "plan_max_tensors",
			"libc_pool_base", "libc_pool_size", "features",
		};
		const uint64_t val[] = {
			in.abi_version, in.cores, in.num_blocks, in.hbm_base,
			in.hbm_size, in.hbm_pool_base, in.hbm_pool_size,
			in.dataram_base, in.dataram_size, in.dataram_pool_base,
			in.dataram_pool_size, in.staging_lo, in.staging_hi,
			in.stack_default, in.stack_max, in.default_align,
			in.plan_core_size, in.plan_max_tensors, in.libc_pool_base,
			in.libc_pool_size, in.features,
		};

		return jprint_nums(k, NULL, key, val,
				   sizeof(val) / sizeof(val[0]));
	}
	fprintf(k->out, "info abi=%u cores=%u descriptors=%u hbm=0x%" PRIx64
		"+0x%" PRIx64 " hbm_pool=0x%" PRIx64 "+0x%" PRIx64
		" dataram=0x%" PRIx64 "+0x%" PRIx64 " dataram_pool=0x%"
		PRIx64 "+0x%" PRIx64 " staging=[0x%" PRIx64 ",0x%" PRIx64
		") libc_pool=0x%" PRIx64 "+0x%" PRIx64 " features=0x%" PRIx64
		"\n", in.abi_version, in.cores, in.num_blocks,
		(uint64_t)in.hbm_base, (uint64_t)in.hbm_size,
		(uint64_t)in.hbm_pool_base, (uint64_t)in.hbm_pool_size,
		(uint64_t)in.dataram_base, (uint64_t)in.dataram_size,
		(uint64_t)in.dataram_pool_base,
		(uint64_t)in.dataram_pool_size, (uint64_t)in.staging_lo,
		(uint64_t)in.staging_hi, (uint64_t)in.libc_pool_base,
		(uint64_t)in.libc_pool_size, (uint64_t)in.features);
	return 0;
}

static int cmd_alloc(struct call *k)
{
	uint64_t size, align = 0, addr = 0;
	int ret;

	if (parse_u64(k->argv[2], &size) ||
	    (k->argc == 4 && parse_u64(k->argv[3], &align)))
		return 2;
	k->asked = size;
	ret = xms_alloc(k->dev, k->heap, size, align, 0, &addr, &k->status);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok 0x%" PRIx64 "\n", addr);
	return 0;
}

static int cmd_free(struct call *k)
{
	uint32_t flags = 0;
	uint64_t addr;
	int ret;

	if (parse_u64(k->argv[2], &addr))
		return 2;
	if (k->argc == 4) {
		if (strcmp(k->argv[3], "clear"))
			return 2;
		flags = XMEMSIM_FREE_CLEAR;
	}
	ret = xms_free_flags(k->dev, k->heap, addr, flags, &k->status);
	return ok_or_failed(k, ret);
}

static int cmd_stats(struct call *k)
{
	struct xmemsim_heap_stats s = { 0 };
	int ret = xms_stats(k->dev, k->heap, &s);

	if (ret)
		return failed(k, ret);
	if (json) {
		static const char *const key[] = {
			"pool_base", "pool_size", "free", "allocated", "unused",
			"largest", "descriptors", "descriptors_used", "free_blocks",
			"alloc_blocks", "split_refused", "owned", "file_allocs",
			"quota_refused",
		};
		const uint64_t val[] = {
			s.pool_base, s.pool_size, s.free_bytes, s.allocated_bytes,
			s.unused_bytes, s.largest_free, s.num_blocks,
			s.blocks_in_use, s.free_blocks, s.alloc_blocks,
			s.split_refused, s.owned_bytes, s.file_allocs,
			s.quota_refused,
		};

		return jprint_nums(k, xms_heap_name(k->heap), key, val,
				   sizeof(val) / sizeof(val[0]));
	}
	fprintf(k->out, "stats pool=0x%" PRIx64 "+0x%" PRIx64 " free=%" PRIu64
		" allocated=%" PRIu64 " unused=%" PRIu64 " largest=%" PRIu64
		" descriptors=%u/%u free_blocks=%u alloc_blocks=%u split_refused=%"
		PRIu64 " owned=%" PRIu64 "\n",
		(uint64_t)s.pool_base, (uint64_t)s.pool_size,
		(uint64_t)s.free_bytes, (uint64_t)s.allocated_bytes,
		(uint64_t)s.unused_bytes, (uint64_t)s.largest_free,
		s.blocks_in_use, s.num_blocks, s.free_blocks, s.alloc_blocks,
		(uint64_t)s.split_refused, (uint64_t)s.owned_bytes);
	return 0;
}

/* USER_STATS: the caller's user, every heap; "held/limit", 0 = no limit. */
static int cmd_user(struct call *k)
{
	struct xmemsim_user_stats s;
	int ret = xms_user_stats(k->dev, &s);
	unsigned int h;

	if (ret)
		return failed(k, ret);
	if (json) {
		static const char *const key[] = {
			"uid", "files", "allocs", "limit_allocs", "hbm", "limit_hbm",
			"dataram", "limit_dataram", "libc", "limit_libc", "plan_mem",
			"limit_plan_mem", "bounce", "quota_refused",
		};
		const uint64_t val[] = {
			s.uid, s.files, s.allocs, s.limit_allocs,
			s.owned_bytes[XMEMSIM_HEAP_HBM], s.limit_bytes[XMEMSIM_HEAP_HBM],
			s.owned_bytes[XMEMSIM_HEAP_DATARAM],
			s.limit_bytes[XMEMSIM_HEAP_DATARAM],
			s.owned_bytes[XMEMSIM_HEAP_LIBC], s.limit_bytes[XMEMSIM_HEAP_LIBC],
			s.plan_mem, s.limit_plan_mem, s.bounce_bytes, s.quota_refused,
		};

		return jprint_nums(k, NULL, key, val,
				   sizeof(val) / sizeof(val[0]));
	}
	fprintf(k->out, "user uid=%u files=%u allocs=%u/%u", s.uid, s.files,
		s.allocs, s.limit_allocs);
	for (h = 0; h < XMEMSIM_NUM_HEAPS; h++)
		fprintf(k->out, " %s=%" PRIu64 "/%" PRIu64, xms_heap_name(h),
			(uint64_t)s.owned_bytes[h], (uint64_t)s.limit_bytes[h]);
	fprintf(k->out, " plan_mem=%" PRIu64 "/%" PRIu64 " bounce=%" PRIu64
		" quota_refused=%" PRIu64 "\n", (uint64_t)s.plan_mem,
		(uint64_t)s.limit_plan_mem, (uint64_t)s.bounce_bytes,
		(uint64_t)s.quota_refused);
	return 0;
}

static char block_kind(const struct xmemsim_block *b)
{
	if (!(b->flags & XMEMSIM_BLOCK_ALLOCATED))
		return 'f';
	return b->flags & XMEMSIM_BLOCK_OWNED ? 'a' : 'o';
}

static void dump_json(yajl_gen g, unsigned int heap,
		      const struct xmemsim_block *bl, uint32_t n)
{
	static const char *const kind[] = { ['f'] = "free", ['a'] = "mine", ['o'] = "other" };
	uint32_t i;

	jstr(g, "heap", xms_heap_name(heap));
	jnum(g, "count", n);
	jkey(g, "blocks");
	yajl_gen_array_open(g);
	for (i = 0; i < n; i++) {
		yajl_gen_map_open(g);
		jstr(g, "kind", kind[(unsigned char)block_kind(&bl[i])]);
		jnum(g, "start", bl[i].start);
		jnum(g, "aligned", bl[i].aligned);
		jnum(g, "size", bl[i].size);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

/* The heap's blocks: as many as it has, asked for first (no fixed buffer). */
static int cmd_dump(struct call *k)
{
	struct xmemsim_block *bl = NULL, *nb;
	uint32_t cnt = 0, cap = 0, i;
	yajl_gen g;
	int ret;

	for (;;) {
		ret = xms_dump(k->dev, k->heap, bl, cap, &cnt);
		if (ret || cnt <= cap)
			break;
		cap = cnt + 16;		/* room for blocks split meanwhile */
		nb = realloc(bl, (size_t)cap * sizeof(*bl));
		if (!nb) {
			ret = -ENOMEM;
			break;
		}
		bl = nb;
	}
	if (ret) {
		free(bl);
		return failed(k, ret);
	}
	if (json) {
		g = jopen();
		if (g)
			dump_json(g, k->heap, bl, cnt);
		free(bl);
		return jclose(k, g);
	}
	fprintf(k->out, "dump %u", cnt);
	for (i = 0; i < cnt; i++)
		fprintf(k->out, " %c:0x%" PRIx64 ":0x%" PRIx64 ":%" PRIu64,
			block_kind(&bl[i]), (uint64_t)bl[i].start,
			(uint64_t)bl[i].aligned, (uint64_t)bl[i].size);
	fprintf(k->out, "\n");
	free(bl);
	return 0;
}

static int cmd_stack(struct call *k)
{
	uint64_t size = 0, addr = 0;
	int ret;

	if (k->argc == 2 && parse_u64(k->argv[1], &size))
		return 2;
	k->heap = XMEMSIM_HEAP_HBM;	/* for the ENOMEM line */
	k->asked = size;
	ret = xms_stack_alloc(k->dev, size, &addr, &k->status);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok 0x%" PRIx64 "\n", addr);
	return 0;
}

static int cmd_read(struct call *k)
{
	uint64_t addr, n, i;
	unsigned char *buf;
	int ret;

	if (parse_u64(k->argv[1], &addr) || parse_u64(k->argv[2], &n) || n > MAX_IO)
		return 2;
	buf = malloc(n ? n : 1);
	if (!buf)
		return failed(k, -ENOMEM);
	ret = xms_read(k->dev, addr, buf, n);
	if (ret) {
		free(buf);
		return failed(k, ret);
	}
	fprintf(k->out, "ok ");
	for (i = 0; i < n; i++)
		fprintf(k->out, "%02x", buf[i]);
	fprintf(k->out, "\n");
	free(buf);
	return 0;
}

/* write ADDR HEX, or write ADDR with --file F (replay: write ADDR --file F) */
static int cmd_write(struct call *k)
{
	const char *file = file_arg;
	unsigned char *buf = NULL;
	uint64_t addr;
	size_t len = 0;
	int ret;

	if (parse_u64(k->argv[1], &addr))
		return 2;
	if (k->argc == 4 && !strcmp(k->argv[2], "--file"))
		file = k->argv[3];
	else if (k->argc != (file ? 2 : 3))
		return 2;
	if (file)
		ret = read_file(file, &buf, &len);
	else
		ret = parse_hex(k->argv[2], &buf, &len);
	if (ret == -EINVAL)
		return 2;
	if (ret)
		return failed(k, ret);
	ret = xms_write(k->dev, addr, buf, len);
	free(buf);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok %zu\n", len);
	return 0;
}

static int cmd_copy(struct call *k)
{
	uint64_t src, dst, n;
	unsigned int m;
	int ret;

	if (parse_u64(k->argv[1], &src) || parse_u64(k->argv[2], &dst) ||
	    parse_u64(k->argv[3], &n) || parse_method(k->argv[4], &m))
		return 2;
	ret = xms_copy(k->dev, src, dst, n, m);
	return ok_or_failed(k, ret);
}

/*
 * One queued DMA transfer. Waited for, "ok TICKET START_NS END_NS"; with
 * WAITSEM, held until that semaphore is at least 1 and not waited for,
 * "ok TICKET queued".
 */
static int cmd_dma(struct call *k)
{
	struct xmemsim_dma_desc d = {
		.wait_sem = XMEMSIM_SEM_NONE, .signal_sem = XMEMSIM_SEM_NONE,
		.wait_value = 1,
	};
	struct xmemsim_dma_wait w;
	uint64_t src, dst, len, engine = 0, queue = 0, sem = 0, t;
	int ret;

	if (parse_u64(k->argv[1], &src) || parse_u64(k->argv[2], &dst) ||
	    parse_u64(k->argv[3], &len) ||
	    (k->argc > 4 && parse_u64(k->argv[4], &engine)) ||
	    (k->argc > 5 && parse_u64(k->argv[5], &queue)) ||
	    (k->argc > 6 && parse_u64(k->argv[6], &sem)) ||
	    engine > UINT32_MAX || queue > UINT32_MAX || sem >= UINT32_MAX)
		return 2;
	d.src = src;
	d.dst = dst;
	d.len = len;
	d.engine = (uint32_t)engine;
	d.queue = (uint32_t)queue;
	if (k->argc > 6)
		d.wait_sem = (uint32_t)sem;
	ret = xms_dma_submit(k->dev, &d, 1, &t);
	if (!ret && k->argc > 6) {
		fprintf(k->out, "ok %" PRIu64 " queued\n", t);
		return 0;
	}
	if (!ret)
		ret = xms_dma_wait(k->dev, t, -1, &w);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t,
		(uint64_t)w.start_ns, (uint64_t)w.end_ns);
	return 0;
}

/* "sem get N" ("ok VALUE") or "sem set N VALUE" ("ok"): the file's own. */
static int cmd_sem(struct call *k)
{
	uint64_t sem, v = 0;
	int set = !strcmp(k->argv[1], "set"), ret;

	if ((!set && strcmp(k->argv[1], "get")) || k->argc != 3 + set ||
	    parse_u64(k->argv[2], &sem) || sem > UINT32_MAX ||
	    (set && parse_u64(k->argv[3], &v)))
		return 2;
	ret = set ? xms_sem_set(k->dev, (uint32_t)sem, v) :
		    xms_sem_get(k->dev, (uint32_t)sem, &v);
	if (ret)
		return failed(k, ret);
	if (set)
		fprintf(k->out, "ok\n");
	else
		fprintf(k->out, "ok %" PRIu64 "\n", v);
	return 0;
}

static int cmd_size(struct call *k)
{
	uint64_t addr, size, usable;
	int ret;

	if (parse_u64(k->argv[2], &addr))
		return 2;
	ret = xms_alloc_size(k->dev, k->heap, addr, &size, &usable);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok %" PRIu64 " %" PRIu64 "\n", size, usable);
	return 0;
}

static int cmd_memset(struct call *k)
{
	uint64_t addr, v, n;
	int ret;

	if (parse_u64(k->argv[1], &addr) || parse_u64(k->argv[2], &v) ||
	    parse_u64(k->argv[3], &n) || v > 255)
		return 2;
	ret = xms_memset(k->dev, addr, (unsigned int)v, n);
	return ok_or_failed(k, ret);
}

/* A fault site by name (uapi/xmemsim.h, "Failures on purpose") or number. */
static int parse_site(const char *s, uint32_t *site)
{
	static const char * const names[XMEMSIM_NUM_FAULTS] = {
		"heap_alloc", "heap_nosplit", "copy_dma", "bounce", "dma_error",
		"dma_hang", "plan", "mem_ce", "mem_ue",
	};
	uint64_t v;
	uint32_t i;

	for (i = 0; i < XMEMSIM_NUM_FAULTS; i++) {
		if (!strcmp(s, names[i])) {
			*site = i;
			return 0;
		}
	}
	if (parse_u64(s, &v) || v >= XMEMSIM_NUM_FAULTS)
		return -EINVAL;
	*site = (uint32_t)v;
	return 0;
}

/*
 * "fault SITE SKIP TIMES": this file's next SKIP calls of the site pass,
 * then TIMES fail (0 disarms); "fault SITE framework [off]": follow the
 * kernel's fail_SITE knobs in debugfs, or stop. "ok".
 */
static int cmd_fault(struct call *k)
{
	uint64_t skip = 0, times = 1;
	uint32_t site, flags = 0;
	int ret;

	if (parse_site(k->argv[1], &site))
		return 2;
	if (!strcmp(k->argv[2], "framework")) {
		flags = XMEMSIM_FAULT_FRAMEWORK;
		if (k->argc == 4 && strcmp(k->argv[3], "off"))
			return 2;
		times = k->argc == 3;
	} else if (k->argc != 4 || parse_u64(k->argv[2], &skip) ||
		   parse_u64(k->argv[3], &times)) {
		return 2;
	}
	ret = xms_fault_arm(k->dev, site, flags, skip, times);
	return ok_or_failed(k, ret);
}

/* "memerr ADDR ce|ue": a memory error on the 64-byte line at ADDR. "ok". */
static int cmd_memerr(struct call *k)
{
	uint32_t kind;
	uint64_t addr;
	int ret;

	if (parse_u64(k->argv[1], &addr))
		return 2;
	if (!strcmp(k->argv[2], "ce"))
		kind = XMEMSIM_MEM_CE;
	else if (!strcmp(k->argv[2], "ue"))
		kind = XMEMSIM_MEM_UE;
	else
		return 2;
	ret = xms_mem_error(k->dev, addr, kind);
	return ok_or_failed(k, ret);
}

/*
 * The sysfs folder of the node dev has open, found by its device number
 * (so a udev link or --dev=PATH finds the right one), or NULL: the
 * default (device 0's, or $XMEMSIM_SYSFS, which wins).
 */
static const char *node_sysfs(struct xms_dev *dev, char *buf, size_t len)
{
	struct stat st;

	if (getenv("XMEMSIM_SYSFS") || fstat(dev->fd, &st) || !S_ISCHR(st.st_mode))
		return NULL;
	snprintf(buf, len, "/sys/dev/char/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	return access(buf, F_OK) ? NULL : buf;
}

/* "stats" without a heap: each heap's line, or (--prometheus) the metrics. */
static int cmd_stats_all(struct call *k)
{
	static struct xm_snap snap;
	char dir[64];
	int ret, rc = 0;

	if (!prometheus) {
		for (k->heap = 0; k->heap < XMEMSIM_NUM_HEAPS && !rc; k->heap++)
			rc = cmd_stats(k);
		return rc;
	}
	ret = xm_snap_read(k->dev, node_sysfs(k->dev, dir, sizeof(dir)), &snap);
	if (ret)
		return failed(k, ret);
	xm_prom_write(k->out, &snap);
	return 0;
}

/* A plan name on one line: blanks and control characters as '?'. */
static void put_name(FILE *f, const char *name)
{
	for (; *name; name++)
		fputc((unsigned char)*name <= ' ' ? '?' : *name, f);
}

/*
 * "plan load FILE": the plan.json dramplan wrote, submitted, synced and
 * checked (dp_plan_load_device); "ok TENSORS LINKED" then, outside
 * replay, a line per tensor with its device address, in replay
 * CORE:NAME=0xDEV_ADDR on the same line. The plan lives as long as this
 * open file: in replay, the lines after it use the addresses.
 */
/*
 * "plan run PLAN MODEL [TRACE]": the model's program on the device with
 * the plan's addresses (dp_plan_run); its mismatch lines, then the
 * summary line. 1 when it could not run, or found a hazard or mismatch.
 * --devices D: on devices 0 .. D-1 (not the open one), data-parallel.
 */
static int cmd_plan_run(struct call *k)
{
	struct dp_run_opts o = { .log = k->out, .devices = plan_devices,
				 .fault_misplace = getenv("XMEMCTL_FAULT_MISPLACE"),
				 .fault_alter = getenv("XMEMCTL_FAULT_ALTER") };
	struct dp_run_result res;
	struct dp_err e = { "" };
	struct dp_model *m;
	int ret;

	if (k->argc < 4 || k->argc > 5)
		return 2;
	m = dp_model_load_json(k->argv[3], &e);
	if (!m) {
		fprintf(k->err, k->err == stderr ? "xmemctl: plan run: %s\n" : "err EINVAL %s\n",
			e.msg);
		return 1;
	}
	if (k->argc == 5) {
		o.trace = fopen(k->argv[4], "w");
		if (!o.trace) {
			fprintf(k->err, "xmemctl: plan run: %s: %s\n", k->argv[4], strerror(errno));
			dp_model_free(m);
			return 1;
		}
	}
	ret = dp_plan_run(k->dev, k->argv[2], m, &o, &res, &e);
	if (o.trace && fclose(o.trace) && !ret)
		ret = -errno;
	dp_model_free(m);
	if (ret) {
		if (k->err == stderr)
			fprintf(stderr, "xmemctl: plan run: %s\n", e.msg[0] ? e.msg : strerror(-ret));
		else
			fprintf(k->err, "err %s -\n", errno_name(-ret));
		return 1;
	}
	dp_run_summary(&res, k->out);
	return res.hazards || res.mismatches || res.errors ? 1 : 0;
}

static int cmd_plan(struct call *k)
{
	struct dp_err e = { "" };
	struct dp_loaded l;
	size_t i;
	int ret;

	if (!strcmp(k->argv[1], "run"))
		return cmd_plan_run(k);
	if (strcmp(k->argv[1], "load") || k->argc != 3)
		return 2;
	ret = dp_plan_load_device(k->dev, k->argv[2], &l, &e);
	if (ret) {
		if (k->err == stderr)
			fprintf(stderr, "xmemctl: plan load: %s\n", e.msg);
		else
			fprintf(k->err, "err %s -\n", errno_name(-ret));
		return 1;
	}
	fprintf(k->out, "ok %zu %u", l.n, l.linked);
	if (k->err == stderr)
		fprintf(k->out, "\n%-4s %-7s %-24s %12s %14s %10s\n", "core",
			"kind", "tensor", "plan", "device", "size");
	for (i = 0; i < l.n; i++) {
		const struct dp_loaded_tensor *t = &l.t[i];

		if (k->err != stderr) {
			fprintf(k->out, " %u:", t->core);
			put_name(k->out, t->name);
			fprintf(k->out, "=0x%" PRIx64, t->dev_addr);
			continue;
		}
		fprintf(k->out, "%-4u %-7s ", t->core, t->linked ? "linked" :
			t->shared ? "shared" : "private");
		put_name(k->out, t->name);
		fprintf(k->out, "%*s 0x%010" PRIx64 " 0x%012" PRIx64 " %10" PRIu64 "\n",
			(int)(strlen(t->name) < 24 ? 24 - strlen(t->name) : 0), "",
			t->addr, t->dev_addr, t->size);
	}
	if (k->err != stderr)
		fputc('\n', k->out);
	dp_loaded_free(&l);
	return 0;
}

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (!top_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The node of device n: "/dev/xmemsimN", device 0 as its two names give it. */
static void device_path(unsigned int n, char *buf, size_t len)
{
	if (n)
		snprintf(buf, len, "/dev/xmemsim%u", n);
	else
		snprintf(buf, len, "%s", access(XMEMSIM_DEFAULT_PATH, F_OK) ?
			 "/dev/xmemsim0" : XMEMSIM_DEFAULT_PATH);
}

/* How many devices the module made: its devices parameter; 1 if unknown. */
static unsigned int module_devices(void)
{
	FILE *f = fopen("/sys/module/xmemsim/parameters/devices", "r");
	unsigned int n = 1;

	if (f) {
		if (fscanf(f, "%u", &n) != 1 || !n || n > XM_MAX_DEVICES)
			n = 1;
		fclose(f);
	}
	return n;
}

/* The devices top shows: k->dev first, the others opened here. */
struct top_dev {
	struct xms_dev dev, *d;
	char sysfs[64];
	const char *dir;
};

static void top_close(struct top_dev *t, unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++)
		xms_close(&t[i].dev);
	free(t);
}

/* k->dev alone with -d or --dev, else every device: 0 or the failed line */
static int top_open(struct call *k, struct top_dev **tp, unsigned int *np)
{
	unsigned int i, n = chosen ? 1 : module_devices();
	struct top_dev *t = calloc(n, sizeof(*t));
	char path[64];
	int ret;

	if (!t)
		return failed(k, -ENOMEM);
	for (i = 0; i < n; i++) {
		t[i].d = i ? &t[i].dev : k->dev;
		if (i) {
			device_path(i, path, sizeof(path));
			ret = xms_open(&t[i].dev, path);
			if (ret) {
				fprintf(k->err, "xmemctl: %s: %s\n", path, strerror(-ret));
				top_close(t, i);
				return 1;
			}
		}
		t[i].dir = node_sysfs(t[i].d, t[i].sysfs, sizeof(t[i].sysfs));
	}
	*tp = t;
	*np = n;
	return 0;
}

/*
 * top: a snapshot each interval, shown with the rates since the one
 * before (--json: one object a line). --once: two snapshots an interval
 * apart, one view. Until SIGINT or SIGTERM. With several devices, a
 * block (an object) each, named by its number.
 */
static int cmd_top(struct call *k)
{
	struct xm_snap *snap;
	struct top_dev *t = NULL;
	int cur = 0, n = 0, tty = isatty(fileno(k->out)), ret, rc = 0;
	unsigned int nd = 0, i;

	rc = top_open(k, &t, &nd);
	if (rc)
		return rc;
	snap = calloc(2 * nd, sizeof(*snap));
	if (!snap) {
		top_close(t, nd);
		return failed(k, -ENOMEM);
	}
	signal(SIGINT, top_signal);
	signal(SIGTERM, top_signal);
	for (;;) {
		for (i = 0; i < nd; i++) {
			ret = xm_snap_read(t[i].d, t[i].dir, &snap[cur * nd + i]);
			if (ret) {
				rc = failed(k, ret);
				goto out;
			}
			if (nd > 1)
				snap[cur * nd + i].device = i;
		}
		if (!once || n || interval == 0) {
			if (tty && !once && !json)
				fputs("\033[H\033[2J", k->out);
			for (i = 0; i < nd; i++) {
				const struct xm_snap *s = &snap[cur * nd + i];
				const struct xm_snap *prev = n ? &snap[!cur * nd + i] : NULL;

				if (json) {
					xm_top_json(k->out, prev, s);
				} else {
					if (i)
						fputc('\n', k->out);
					xm_top_text(k->out, prev, s);
				}
			}
			fflush(k->out);
			if (once)
				goto out;
		}
		n++;
		cur = !cur;
		nap(interval);
		if (top_stop)
			goto out;
	}
out:
	free(snap);
	top_close(t, nd);
	return rc;
}

/* Device i's peers file, read whole into buf: 0, or -1 if there is none. */
static int peers_read(unsigned int i, char *buf, size_t len)
{
	char path[96];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/sys/class/misc/xmemsim%.0u/peers", i);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

/*
 * topo: the interconnect as a matrix, as nvidia-smi topo -m prints its
 * own: a row per device, "X" for itself and "Ln" for a route of n links.
 */
static int cmd_topo(struct call *k)
{
	static char buf[8192];
	unsigned int i, b, hops, via, nd = 0;
	char *line, *save;

	for (i = 0; i < 32 && !peers_read(i, buf, sizeof(buf)); i++) {
		if (!i) {
			line = strtok_r(buf, "\n", &save);
			if (!line || sscanf(line, "topology %*s devices %u", &nd) != 1)
				return failed(k, -EPROTO);
			fprintf(k->out, "%s\n\n    ", line);
			for (b = 0; b < nd; b++)
				fprintf(k->out, " %5s%-2u", "dev", b);
			fprintf(k->out, "\n");
			if (peers_read(0, buf, sizeof(buf)))
				return failed(k, -ENOENT);
		}
		fprintf(k->out, "dev%-2u", i);
		strtok_r(buf, "\n", &save);
		while ((line = strtok_r(NULL, "\n", &save)) &&
		       sscanf(line, "%u hops %u via %u", &b, &hops, &via) == 3) {
			if (b == i)
				fprintf(k->out, " %7s", "X");
			else
				fprintf(k->out, " %6s%u", "L", hops);
		}
		fprintf(k->out, "\n");
	}
	if (!i)
		return failed(k, -ENOENT);
	fprintf(k->out, "\nX = self, Ln = a route of n device links (shortest; ties to the lower next device); each device has its own host link\n");
	return 0;
}

/*
 * The commands, as the module's xmemsim_cmds[]: each with how many words
 * it takes (its name included) and whether the first argument is a heap.
 * A handler returns 0 done, 1 device error (its line printed), 2 usage.
 */
static const struct xmemctl_cmd {
	const char *name;
	int min_argc, max_argc;
	int takes_heap;
	int (*run)(struct call *k);
} xmemctl_cmds[] = {
	{ "info",  1, 1, 0, cmd_info },
	{ "alloc", 3, 4, 1, cmd_alloc },
	{ "free",  3, 4, 1, cmd_free },
	{ "size",  3, 3, 1, cmd_size },
	{ "stats", 2, 2, 1, cmd_stats },
	{ "stats", 1, 1, 0, cmd_stats_all },
	{ "top",   1, 1, 0, cmd_top },
	{ "topo",  1, 1, 0, cmd_topo },
	{ "plan",  3, 5, 0, cmd_plan },
	{ "user",  1, 1, 0, cmd_user },
	{ "dump",  2, 2, 1, cmd_dump },
	{ "stack", 1, 2, 0, cmd_stack },
	{ "read",  3, 3, 0, cmd_read },
	{ "write", 2, 4, 0, cmd_write },
	{ "copy",  5, 5, 0, cmd_copy },
	{ "memset", 4, 4, 0, cmd_memset },
	{ "dma",   4, 7, 0, cmd_dma },
	{ "sem",   3, 4, 0, cmd_sem },
	{ "fault", 3, 4, 0, cmd_fault },
	{ "memerr", 3, 3, 0, cmd_memerr },
};

/* A command of that name, whatever its arguments. */
static int known_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(xmemctl_cmds) / sizeof(xmemctl_cmds[0]); i++)
		if (!strcmp(name, xmemctl_cmds[i].name))
			return 1;
	return !strcmp(name, "replay");
}

/* The command argv names with a fitting word count and heap, or NULL. */
static const struct xmemctl_cmd *find_cmd(int argc, char **argv, int *heap)
{
	size_t i;

	for (i = 0; i < sizeof(xmemctl_cmds) / sizeof(xmemctl_cmds[0]); i++) {
		const struct xmemctl_cmd *c = &xmemctl_cmds[i];

		if (strcmp(argv[0], c->name) || argc < c->min_argc || argc > c->max_argc)
			continue;
		*heap = -1;
		if (c->takes_heap && (*heap = xms_heap_id(argv[1])) < 0)
			return NULL;
		return c;
	}
	return NULL;
}

/*
 * Run one command (argv[0] is its name) on dev, printing one result line.
 * Returns 0 on success, 1 on a device error, 2 on a usage error (its line
 * "err usage" to err in replay; the caller prints the usage otherwise).
 */
static int run_cmd(struct xms_dev *dev, int argc, char **argv, FILE *out, FILE *err)
{
	struct call k = { dev, argc, argv, out, err, -1, 1, 0 };
	const struct xmemctl_cmd *c = find_cmd(argc, argv, &k.heap);
	int rc = c ? c->run(&k) : 2;

	if (rc == 2 && err != stderr)
		fprintf(err, "err usage\n");
	return rc;
}

/*
 * Exactly one output line per input line, so `paste` pairs them: a blank
 * or comment line ('#' to the end of the line) gives an empty line. Lines
 * are any length. The worst status: 2 if any line was a usage error.
 */
static int replay(struct xms_dev *dev, FILE *in, FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	int worst = 0;

	setvbuf(out, NULL, _IOLBF, 0);
	while (getline(&line, &cap, in) >= 0) {
		char *argv[MAX_ARGS + 1], *tok, *save = NULL;
		int argc = 0, rc;

		line[strcspn(line, "\r\n#")] = 0;
		for (tok = strtok_r(line, " \t", &save); tok && argc <= MAX_ARGS;
		     tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
		if (!argc) {
			fputc('\n', out);
			continue;
		}
		/* top runs until stopped: not a replay line */
		rc = argc > MAX_ARGS || !strcmp(argv[0], "top") ? 2 :
		     run_cmd(dev, argc, argv, out, out);
		if (argc > MAX_ARGS || !strcmp(argv[0], "top"))
			fprintf(out, "err usage\n");
		if (rc == 2)
			worst = 2;
	}
	free(line);
	return worst;
}

/* The options into the globals, the device's path and --uring into *dev
 * and *uring: -1 to go on, or the exit status (--help, --version, a
 * usage error) */
static int parse_options(int argc, char **argv, const char **dev, int *uring)
{
	static const struct option opts[] = {
		{ "dev",     required_argument, NULL, 'P' },
		{ "device",  required_argument, NULL, 'D' },
		{ "uring",   no_argument,       NULL, 'u' },
		{ "json",    no_argument,       NULL, 'j' },
		{ "file",    required_argument, NULL, 'f' },
		{ "prometheus", no_argument,    NULL, 'p' },
		{ "once",    no_argument,       NULL, 'o' },
		{ "devices", required_argument, NULL, 'N' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static char node[64];
	unsigned long n;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:ujpi:hV", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'P': *dev = optarg; chosen = 1; break;
		case 'd':	/* a number is a device, anything else a node */
			if (!isdigit((unsigned char)optarg[0])) {
				*dev = optarg;
				chosen = 1;
				break;
			}
			/* fall through */
		case 'D':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end || errno ||
			    n >= XM_MAX_DEVICES) {
				fprintf(stderr, "xmemctl: --device: '%s': a device number from 0 to %u\n",
					optarg, XM_MAX_DEVICES - 1);
				return 2;
			}
			device_path(n, node, sizeof(node));
			*dev = node;
			chosen = 1;
			break;
		case 'u': *uring = 1; break;
		case 'j': json = 1; break;
		case 'f': file_arg = optarg; break;
		case 'p': prometheus = 1; break;
		case 'o': once = 1; break;
		case 'N':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end || errno || !n ||
			    n > XM_MAX_DEVICES) {
				fprintf(stderr, "xmemctl: --devices: '%s': a number of devices from 1 to %u\n",
					optarg, XM_MAX_DEVICES);
				return 2;
			}
			plan_devices = (unsigned int)n;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (end == optarg || *end || !(interval >= 0 && interval <= 86400)) {
				fprintf(stderr, "xmemctl: --interval: '%s': seconds from 0 to 86400\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("xmemctl %s\n", XMEMSIM_VERSION); return 0;
		default:	/* opterr 0: the one line is ours */
			fprintf(stderr, "xmemctl: %s: unknown option or missing argument (xmemctl --help lists them)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	return -1;
}

/* The command after the options, checked before the device is opened:
 * 0, or 2 with the usage error said.  *is_replay: the command is replay. */
static int check_command(int argc, char **argv, int *is_replay)
{
	int heap;

	*is_replay = argc == 1 && !strcmp(argv[0], "replay");
	if (argc && (*is_replay || find_cmd(argc, argv, &heap)) &&
	    !(file_arg && (*is_replay || strcmp(argv[0], "write"))) &&
	    !(prometheus && (argc != 1 || strcmp(argv[0], "stats"))) &&
	    !(once && strcmp(argv[0], "top")) &&
	    !(plan_devices && (argc < 2 || strcmp(argv[0], "plan") || strcmp(argv[1], "run"))))
		return 0;
	if (!argc)
		fprintf(stderr, "xmemctl: no command (xmemctl --help lists them)\n");
	else if (!known_cmd(argv[0]))
		fprintf(stderr, "xmemctl: %s: unknown command (xmemctl --help lists them)\n", argv[0]);
	else
		fprintf(stderr, "xmemctl: %s: bad arguments or options (xmemctl --help gives them)\n", argv[0]);
	return 2;
}

/* Where the word "bench" is on the line (its options follow it), or 0. */
static int bench_at(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "bench") && strcmp(argv[i - 1], "--file") &&
		    strcmp(argv[i - 1], "--dev") && strcmp(argv[i - 1], "-d"))
			return i;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev_path = NULL;
	struct xms_ring ring = { 0 };
	struct xms_dev dev;
	int rc, uring = 0, is_replay, bench;

	bench = bench_at(argc, argv);
	rc = parse_options(bench ? bench : argc, argv, &dev_path, &uring);
	if (rc >= 0)
		return rc;
	if (bench && optind == bench) {	/* its own options follow it */
		rc = xmemctl_bench(argc - bench, argv + bench);
		if (rc == 2)
			fprintf(stderr, "xmemctl: bench: bad arguments (xmemctl --help gives them)\n");
		return rc;
	}
	argc -= optind;
	argv += optind;
	/* a usage error never opens the device */
	if (check_command(argc, argv, &is_replay))
		return 2;
	rc = xms_open(&dev, dev_path);
	if (rc) {
		fprintf(stderr, "xmemctl: %s: %s\n", dev_path ? dev_path :
			XMEMSIM_DEFAULT_PATH, strerror(-rc));
		return 1;
	}
	if (uring) {
		rc = xms_ring_init(&ring, &dev, 8);
		if (!rc)
			rc = xms_attach_ring(&dev, &ring);
		if (rc) {
			fprintf(stderr, "xmemctl: io_uring: %s\n", strerror(-rc));
			xms_close(&dev);
			return 1;
		}
	}
	if (is_replay) {
		rc = replay(&dev, stdin, stdout);
	} else {
		rc = run_cmd(&dev, argc, argv, stdout, stderr);
		if (rc == 2)
			fprintf(stderr, "xmemctl: %s: bad arguments (xmemctl --help gives them)\n", argv[0]);
	}
	if (uring) {
		xms_attach_ring(&dev, NULL);
		xms_ring_exit(&ring);
	}
	xms_close(&dev);
	return rc;
}
