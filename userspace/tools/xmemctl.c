// SPDX-License-Identifier: GPL-2.0
/*
 * xmemctl: command-line client of /dev/xmemsim.
 *
 * Each invocation is one open file of the device, and the device frees
 * what a file allocated when it closes: use `xmemctl replay` to run a
 * sequence of commands on one file.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libxmemsim.h"

#define MAX_IO (64u << 20)

static const char *dev_path;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xmemctl [--dev PATH] [--uring] COMMAND [ARGS]\n"
		"  --uring                       send every command through io_uring\n"
		"                                (IORING_OP_URING_CMD, IORING_OP_READ/WRITE)\n"
		"  info                          geometry and limits\n"
		"  alloc HEAP SIZE [ALIGN]       allocate (freed again when xmemctl exits)\n"
		"  free HEAP ADDR                free\n"
		"  stats HEAP                    heap statistics\n"
		"  dump HEAP                     the heap's blocks in address order\n"
		"  stack [SIZE]                  an HBM stack (default 4196 bytes)\n"
		"  read ADDR LEN                 bytes at ADDR, as hex\n"
		"  write ADDR HEX | --file F     bytes to ADDR\n"
		"  copy SRC DST LEN METHOD       METHOD: c_memcpy, vec_memcpy or dma\n"
		"  replay                        one command a line from stdin, one\n"
		"                                result line each, all on one open file\n"
		"HEAP is hbm or dataram; numbers are decimal or 0x-prefixed hex.\n");
}

/* "ENOMEM" for ENOMEM; "E?" for what glibc has no name for. */
static const char *errno_name(int e)
{
	const char *n = e > 0 ? strerrorname_np(e) : NULL;

	return n ? n : "E?";
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
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

/* Print a failure as one line: "err ERRNO [XMEM_STATUS]". */
static void print_err(FILE *out, int ret, int status, int have_status)
{
	fprintf(out, "err %s%s%s\n", errno_name(-ret), have_status ? " " : "",
		have_status ? xms_status_name(status) : "");
}

static void print_stats(FILE *out, const struct xmemsim_heap_stats *s)
{
	fprintf(out, "stats pool=0x%" PRIx64 "+0x%" PRIx64 " free=%" PRIu64
		" allocated=%" PRIu64 " unused=%" PRIu64 " largest=%" PRIu64
		" descriptors=%u/%u free_blocks=%u alloc_blocks=%u split_refused=%"
		PRIu64 " owned=%" PRIu64 "\n",
		(uint64_t)s->pool_base, (uint64_t)s->pool_size,
		(uint64_t)s->free_bytes, (uint64_t)s->allocated_bytes,
		(uint64_t)s->unused_bytes, (uint64_t)s->largest_free,
		s->blocks_in_use, s->num_blocks, s->free_blocks, s->alloc_blocks,
		(uint64_t)s->split_refused, (uint64_t)s->owned_bytes);
}

/* One command's call: what the handlers share. */
struct call {
	struct xms_dev *dev;
	int argc;
	char **argv;		/* argv[0] is the command's name */
	FILE *out;
	int heap;		/* argv[1]'s heap (commands that take one) */
	int status;		/* the device's XMEM status; 1 if it gave none */
};

/* A device error: its line, and 1. */
static int failed(struct call *k, int ret)
{
	print_err(k->out, ret, k->status, k->status != 1);
	return 1;
}

static int cmd_info(struct call *k)
{
	struct xmemsim_info in;
	int ret = xms_get_info(k->dev, &in);

	if (ret)
		return failed(k, ret);
	fprintf(k->out, "info abi=%u cores=%u descriptors=%u hbm=0x%" PRIx64
		"+0x%" PRIx64 " hbm_pool=0x%" PRIx64 "+0x%" PRIx64
		" dataram=0x%" PRIx64 "+0x%" PRIx64 " dataram_pool=0x%"
		PRIx64 "+0x%" PRIx64 " staging=[0x%" PRIx64 ",0x%" PRIx64
		")\n", in.abi_version, in.cores, in.num_blocks,
		(uint64_t)in.hbm_base, (uint64_t)in.hbm_size,
		(uint64_t)in.hbm_pool_base, (uint64_t)in.hbm_pool_size,
		(uint64_t)in.dataram_base, (uint64_t)in.dataram_size,
		(uint64_t)in.dataram_pool_base,
		(uint64_t)in.dataram_pool_size, (uint64_t)in.staging_lo,
		(uint64_t)in.staging_hi);
	return 0;
}

static int cmd_alloc(struct call *k)
{
	uint64_t size, align = 0, addr = 0;
	int ret;

	if (parse_u64(k->argv[2], &size) ||
	    (k->argc == 4 && parse_u64(k->argv[3], &align)))
		return 2;
	ret = xms_alloc(k->dev, k->heap, size, align, 0, &addr, &k->status);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok 0x%" PRIx64 "\n", addr);
	return 0;
}

static int cmd_free(struct call *k)
{
	uint64_t addr;
	int ret;

	if (parse_u64(k->argv[2], &addr))
		return 2;
	ret = xms_free(k->dev, k->heap, addr, &k->status);
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok\n");
	return 0;
}

static int cmd_stats(struct call *k)
{
	struct xmemsim_heap_stats st;
	int ret = xms_stats(k->dev, k->heap, &st);

	if (ret)
		return failed(k, ret);
	print_stats(k->out, &st);
	return 0;
}

static int cmd_dump(struct call *k)
{
	uint32_t cnt = 0, i, cap = 1u << 20;
	struct xmemsim_block *bl = calloc(cap, sizeof(*bl));
	int ret;

	if (!bl)
		return failed(k, -ENOMEM);
	ret = xms_dump(k->dev, k->heap, bl, cap, &cnt);
	if (ret) {
		free(bl);
		return failed(k, ret);
	}
	fprintf(k->out, "dump %u", cnt);
	for (i = 0; i < cnt && i < cap; i++)
		fprintf(k->out, " %c:0x%" PRIx64 ":0x%" PRIx64 ":%" PRIu64,
			bl[i].flags & XMEMSIM_BLOCK_ALLOCATED ?
			(bl[i].flags & XMEMSIM_BLOCK_OWNED ? 'a' : 'o') : 'f',
			(uint64_t)bl[i].start, (uint64_t)bl[i].aligned,
			(uint64_t)bl[i].size);
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

static int cmd_write(struct call *k)
{
	unsigned char *buf = NULL;
	uint64_t addr;
	size_t len = 0;
	int ret;

	if (parse_u64(k->argv[1], &addr))
		return 2;
	if (k->argc == 4 && !strcmp(k->argv[2], "--file"))
		ret = read_file(k->argv[3], &buf, &len);
	else if (k->argc == 3)
		ret = parse_hex(k->argv[2], &buf, &len);
	else
		return 2;
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
	if (ret)
		return failed(k, ret);
	fprintf(k->out, "ok\n");
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
	{ "free",  3, 3, 1, cmd_free },
	{ "stats", 2, 2, 1, cmd_stats },
	{ "dump",  2, 2, 1, cmd_dump },
	{ "stack", 1, 2, 0, cmd_stack },
	{ "read",  3, 3, 0, cmd_read },
	{ "write", 3, 4, 0, cmd_write },
	{ "copy",  5, 5, 0, cmd_copy },
};

/*
 * Run one command (argv[0] is its name) on fd, printing one result line to
 * out. Returns 0 on success, 1 on a device error, 2 on a usage error.
 */
static int run_cmd(struct xms_dev *dev, int argc, char **argv, FILE *out)
{
	struct call k = { dev, argc, argv, out, -1, 1 };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(xmemctl_cmds) / sizeof(xmemctl_cmds[0]); i++) {
		const struct xmemctl_cmd *c = &xmemctl_cmds[i];

		if (strcmp(argv[0], c->name) || argc < c->min_argc || argc > c->max_argc)
			continue;
		if (c->takes_heap && (k.heap = xms_heap_id(argv[1])) < 0)
			break;
		rc = c->run(&k);
		if (rc != 2)
			return rc;
		break;
	}
	fprintf(out, "err usage\n");
	return 2;
}

static int replay(struct xms_dev *dev, FILE *in, FILE *out)
{
	char line[4096];
	int worst = 0;

	setvbuf(out, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), in)) {
		char *argv[8], *tok, *save = NULL;
		int argc = 0, rc;

		line[strcspn(line, "\r\n#")] = 0;
		for (tok = strtok_r(line, " \t", &save); tok && argc < 8;
		     tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
		if (!argc)
			continue;
		rc = run_cmd(dev, argc, argv, out);
		if (rc == 2 && worst < 2)
			worst = 2;
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct xms_ring ring = { 0 };
	struct xms_dev dev;
	int rc, i = 1, uring = 0;

	for (;;) {
		if (i + 1 < argc && !strcmp(argv[i], "--dev")) {
			dev_path = argv[i + 1];
			i += 2;
		} else if (i < argc && !strcmp(argv[i], "--uring")) {
			uring = 1;
			i++;
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		usage(stdout);
		return 0;
	}
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
	if (!strcmp(argv[i], "replay") && argc == i + 1) {
		rc = replay(&dev, stdin, stdout);
	} else {
		rc = run_cmd(&dev, argc - i, argv + i, stdout);
		if (rc == 2)
			usage(stderr);
	}
	if (uring) {
		xms_attach_ring(&dev, NULL);
		xms_ring_exit(&ring);
	}
	xms_close(&dev);
	return rc;
}
