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

/*
 * Run one command (argv[0] is its name) on fd, printing one result line to
 * out. Returns 0 on success, 1 on a device error, 2 on a usage error.
 */
static int run_cmd(int fd, int argc, char **argv, FILE *out)
{
	const char *c = argv[0];
	uint64_t a = 0, b = 0, n = 0;
	int ret, heap = -1, status = 1;

	if (argc >= 2 && strcmp(c, "stack") && strcmp(c, "read") &&
	    strcmp(c, "write") && strcmp(c, "copy"))
		heap = xms_heap_id(argv[1]);

	if (!strcmp(c, "info") && argc == 1) {
		struct xmemsim_info in;

		ret = xms_get_info(fd, &in);
		if (ret)
			goto err;
		fprintf(out, "info abi=%u cores=%u descriptors=%u hbm=0x%" PRIx64
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
	if (!strcmp(c, "alloc") && (argc == 3 || argc == 4) && heap >= 0 &&
	    !parse_u64(argv[2], &n) && (argc == 3 || !parse_u64(argv[3], &a))) {
		ret = xms_alloc(fd, heap, n, a, 0, &b, &status);
		if (ret)
			goto err;
		fprintf(out, "ok 0x%" PRIx64 "\n", b);
		return 0;
	}
	if (!strcmp(c, "free") && argc == 3 && heap >= 0 && !parse_u64(argv[2], &a)) {
		ret = xms_free(fd, heap, a, &status);
		if (ret)
			goto err;
		fprintf(out, "ok\n");
		return 0;
	}
	if (!strcmp(c, "stats") && argc == 2 && heap >= 0) {
		struct xmemsim_heap_stats st;

		ret = xms_stats(fd, heap, &st);
		if (ret)
			goto err;
		print_stats(out, &st);
		return 0;
	}
	if (!strcmp(c, "dump") && argc == 2 && heap >= 0) {
		struct xmemsim_block *bl;
		uint32_t cnt = 0, i, cap = 1u << 20;

		bl = calloc(cap, sizeof(*bl));
		if (!bl) {
			ret = -ENOMEM;
			goto err;
		}
		ret = xms_dump(fd, heap, bl, cap, &cnt);
		if (ret) {
			free(bl);
			goto err;
		}
		fprintf(out, "dump %u", cnt);
		for (i = 0; i < cnt && i < cap; i++)
			fprintf(out, " %c:0x%" PRIx64 ":0x%" PRIx64 ":%" PRIu64,
				bl[i].flags & XMEMSIM_BLOCK_ALLOCATED ?
				(bl[i].flags & XMEMSIM_BLOCK_OWNED ? 'a' : 'o') : 'f',
				(uint64_t)bl[i].start, (uint64_t)bl[i].aligned,
				(uint64_t)bl[i].size);
		fprintf(out, "\n");
		free(bl);
		return 0;
	}
	if (!strcmp(c, "stack") && argc <= 2 && (argc == 1 || !parse_u64(argv[1], &n))) {
		ret = xms_stack_alloc(fd, n, &b, &status);
		if (ret)
			goto err;
		fprintf(out, "ok 0x%" PRIx64 "\n", b);
		return 0;
	}
	if (!strcmp(c, "read") && argc == 3 && !parse_u64(argv[1], &a) &&
	    !parse_u64(argv[2], &n) && n <= MAX_IO) {
		unsigned char *buf = malloc(n ? n : 1);
		uint64_t i;

		if (!buf) {
			ret = -ENOMEM;
			goto err;
		}
		ret = xms_read(fd, a, buf, n);
		if (ret) {
			free(buf);
			goto err;
		}
		fprintf(out, "ok ");
		for (i = 0; i < n; i++)
			fprintf(out, "%02x", buf[i]);
		fprintf(out, "\n");
		free(buf);
		return 0;
	}
	if (!strcmp(c, "write") && (argc == 3 || argc == 4) && !parse_u64(argv[1], &a)) {
		unsigned char *buf = NULL;
		size_t len = 0;

		if (argc == 4 && !strcmp(argv[2], "--file"))
			ret = read_file(argv[3], &buf, &len);
		else if (argc == 3)
			ret = parse_hex(argv[2], &buf, &len);
		else
			goto usage;
		if (ret == -EINVAL)
			goto usage;
		if (ret)
			goto err;
		ret = xms_write(fd, a, buf, len);
		free(buf);
		if (ret)
			goto err;
		fprintf(out, "ok %zu\n", len);
		return 0;
	}
	if (!strcmp(c, "copy") && argc == 5 && !parse_u64(argv[1], &a) &&
	    !parse_u64(argv[2], &b) && !parse_u64(argv[3], &n)) {
		unsigned int m;

		if (parse_method(argv[4], &m))
			goto usage;
		ret = xms_copy(fd, a, b, n, m);
		if (ret)
			goto err;
		fprintf(out, "ok\n");
		return 0;
	}
usage:
	fprintf(out, "err usage\n");
	return 2;
err:
	print_err(out, ret, status, status != 1);
	return 1;
}

static int replay(int fd, FILE *in, FILE *out)
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
		rc = run_cmd(fd, argc, argv, out);
		if (rc == 2 && worst < 2)
			worst = 2;
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct xms_ring ring = { 0 };
	int fd, rc, i = 1, uring = 0;

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
	fd = xms_open(dev_path);
	if (fd < 0) {
		fprintf(stderr, "xmemctl: %s: %s\n", dev_path ? dev_path :
			XMEMSIM_DEFAULT_PATH, strerror(-fd));
		return 1;
	}
	if (uring) {
		rc = xms_ring_init(&ring, fd, 8);
		if (!rc)
			rc = xms_attach_ring(fd, &ring);
		if (rc) {
			fprintf(stderr, "xmemctl: io_uring: %s\n", strerror(-rc));
			xms_close(fd);
			return 1;
		}
	}
	if (!strcmp(argv[i], "replay") && argc == i + 1) {
		rc = replay(fd, stdin, stdout);
	} else {
		rc = run_cmd(fd, argc - i, argv + i, stdout);
		if (rc == 2)
			usage(stderr);
	}
	if (uring) {
		xms_attach_ring(fd, NULL);
		xms_ring_exit(&ring);
	}
	xms_close(fd);
	return rc;
}
