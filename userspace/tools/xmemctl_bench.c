// SPDX-License-Identifier: GPL-2.0
/*
 * xmemctl_bench.c - `xmemctl bench COLLECTIVE`: libxmemsim's collectives
 * over the module's devices, measured as nccl-tests measures them (its
 * -b, -e, -f and -c; its columns; its busbw factors), in modeled time.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libxmemsim.h"
#include "xmemctl_bench.h"

#define MAXR 32

static const char *const coll_names[] = {
	"all-reduce", "reduce-scatter", "all-gather", "broadcast",
};

static const char *const algo_names[] = { "auto", "ring", "tree" };

static const struct {
	const char *name;
	uint32_t t, size;
} types[] = {
	{ "float", XMEMSIM_DMA_T_F32, 4 }, { "bfloat16", XMEMSIM_DMA_T_BF16, 2 },
	{ "half", XMEMSIM_DMA_T_F16, 2 }, { "int32", XMEMSIM_DMA_T_I32, 4 },
};

struct bench {
	int coll, n, check, root, algo;
	uint64_t min, max, factor;
	unsigned int type;	/* index in types[] */
	uint32_t op;
	struct xms_comm *comm;
	uint64_t send[MAXR], recv[MAXR];
	uint8_t *hsend[MAXR], *hgot[MAXR], *hwant[MAXR];
	char topo[256];
	double link_bps;
};

/* nccl-tests' sizes: 8, 64K, 128M, 1G */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 0);

	switch (*end) {
	case 'K': case 'k': n <<= 10; end++; break;
	case 'M': case 'm': n <<= 20; end++; break;
	case 'G': case 'g': n <<= 30; end++; break;
	}
	if (end == s || *end)
		return -EINVAL;
	*v = n;
	return 0;
}

/* Device 0's sysfs peers: its first line, and the link bandwidth in it. */
static int read_topo(struct bench *b, int *ndev)
{
	FILE *f = fopen("/sys/class/misc/xmemsim/peers", "r");
	unsigned long long mbps = 0;
	char *p;

	if (!f)
		return -ENOENT;
	if (!fgets(b->topo, sizeof(b->topo), f))
		b->topo[0] = 0;
	fclose(f);
	b->topo[strcspn(b->topo, "\n")] = 0;
	p = strstr(b->topo, "link_mbps ");
	if (sscanf(b->topo, "topology %*s devices %d", ndev) != 1 || !p ||
	    sscanf(p, "link_mbps %llu", &mbps) != 1)
		return -EPROTO;
	b->link_bps = (double)mbps * 1e6;
	return 0;
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	unsigned int i;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, "b:e:f:c:n:g:d:o:r:A:")) != -1) {
		switch (c) {
		case 'b': if (parse_size(optarg, &b->min)) return -EINVAL; break;
		case 'e': if (parse_size(optarg, &b->max)) return -EINVAL; break;
		case 'f': if (parse_size(optarg, &b->factor) || b->factor < 2) return -EINVAL; break;
		case 'c': b->check = atoi(optarg); break;
		case 'n': case 'g': b->n = atoi(optarg); if (b->n < 1) return -EINVAL; break;
		case 'r': b->root = atoi(optarg); break;
		case 'A':	/* nccl-tests' NCCL_ALGO */
			for (i = 0; i < 3 && strcasecmp(optarg, algo_names[i]); i++)
				;
			if (i == 3)
				return -EINVAL;
			b->algo = (int)i;
			break;
		case 'd':
			for (i = 0; i < 4 && strcasecmp(optarg, types[i].name); i++)
				;
			if (i == 4)
				return -EINVAL;
			b->type = i;
			break;
		case 'o':
			if (strcasecmp(optarg, "sum") && strcasecmp(optarg, "max"))
				return -EINVAL;
			b->op = strcasecmp(optarg, "sum") ? XMEMSIM_DMA_OP_MAX : XMEMSIM_DMA_OP_SUM;
			break;
		default:
			return -EINVAL;
		}
	}
	return optind == argc && b->min && b->min <= b->max ? 0 : -EINVAL;
}

/* Send and receive buffers of max bytes on each rank; host copies. */
static int setup(struct bench *b)
{
	int r, ret = xms_comm_init_all(&b->comm, b->n, NULL);

	if (!ret)
		ret = xms_comm_set_algo(b->comm, b->algo);

	for (r = 0; !ret && r < b->n; r++) {
		struct xms_dev *d = xms_comm_dev(b->comm, r);

		ret = xms_alloc(d, XMEMSIM_HEAP_HBM, b->max, 4096, 0, &b->send[r], NULL);
		if (!ret)
			ret = xms_alloc(d, XMEMSIM_HEAP_HBM, b->max, 4096, 0, &b->recv[r], NULL);
		b->hsend[r] = malloc(b->max);
		b->hgot[r] = malloc(b->max);
		b->hwant[r] = malloc(b->max);
		if (!ret && (!b->hsend[r] || !b->hgot[r] || !b->hwant[r]))
			ret = -ENOMEM;
	}
	return ret;
}

static void teardown(struct bench *b)
{
	int r;

	for (r = 0; r < MAXR; r++) {
		free(b->hsend[r]);
		free(b->hgot[r]);
		free(b->hwant[r]);
	}
	if (b->comm)
		xms_comm_destroy(b->comm);
}

/*
 * A call's count (elements a rank contributes or receives, as the API takes
 * it) for nccl-tests' size: all-gather's is the receive buffer's, reduce-
 * scatter's the send buffer's, each of n chunks.
 */
static uint64_t call_count(const struct bench *b, uint64_t size)
{
	uint64_t es = types[b->type].size;

	if (b->coll == XMS_COLL_ALL_GATHER || b->coll == XMS_COLL_REDUCE_SCATTER)
		return size / es / (uint64_t)b->n;
	return size / es;
}

/* The buffers of one run: in place as nccl-tests places them. */
static void buffers(const struct bench *b, int in_place, uint64_t count,
		    uint64_t *s, uint64_t *r)
{
	uint64_t es = types[b->type].size;
	int i;

	for (i = 0; i < b->n; i++) {
		uint64_t mine = (uint64_t)i * count * es;

		s[i] = b->send[i];
		r[i] = in_place ? b->send[i] : b->recv[i];
		if (in_place && b->coll == XMS_COLL_REDUCE_SCATTER)
			r[i] = b->send[i] + mine;
		if (in_place && b->coll == XMS_COLL_ALL_GATHER)
			s[i] = b->send[i] + mine;
	}
}

static int call(struct bench *b, const uint64_t *s, const uint64_t *r,
		uint64_t count, uint64_t *ns)
{
	uint32_t t = types[b->type].t;

	switch (b->coll) {
	case XMS_COLL_ALL_REDUCE:
		return xms_all_reduce(b->comm, s, r, count, t, b->op, ns);
	case XMS_COLL_REDUCE_SCATTER:
		return xms_reduce_scatter(b->comm, s, r, count, t, b->op, ns);
	case XMS_COLL_ALL_GATHER:
		return xms_all_gather(b->comm, s, r, count, t, ns);
	default:
		return xms_broadcast(b->comm, s, r, count, t, b->root, ns);
	}
}

/* Random bytes, written to each rank's send buffer (sl bytes at s). */
static int fill(struct bench *b, const uint64_t *s, uint64_t sl)
{
	static uint64_t rng = 0x9e3779b97f4a7c15ULL;
	uint64_t i;
	int r, ret = 0;

	for (r = 0; !ret && r < b->n; r++) {
		for (i = 0; i < sl; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			b->hsend[r][i] = (uint8_t)(rng >> 32);
		}
		ret = xms_write(xms_comm_dev(b->comm, r), s[r], b->hsend[r], sl);
	}
	return ret;
}

/* The elements of the receive buffers that differ from the host's reduction. */
static long long wrong(struct bench *b, const uint64_t *r, uint64_t count,
		       uint64_t rl)
{
	uint64_t es = types[b->type].size, i;
	long long bad = 0;
	int k, ret = xms_comm_algo(b->comm, b->coll, count, types[b->type].t);

	if (ret >= 0)
		ret = xms_coll_expect_algo(ret, b->coll, b->n,
					   (const void *const *)b->hsend,
					   (void *const *)b->hwant, count,
					   types[b->type].t, b->op, b->root);
	for (k = 0; !ret && k < b->n; k++) {
		ret = xms_read(xms_comm_dev(b->comm, k), r[k], b->hgot[k], rl);
		for (i = 0; !ret && i < rl; i += es)
			bad += !!memcmp(b->hgot[k] + i, b->hwant[k] + i, es);
	}
	return ret ? ret : bad;
}

/* One size, out of place or in place: its columns. */
static int one(struct bench *b, uint64_t size, int in_place, double *busbw)
{
	uint64_t count = call_count(b, size), es = types[b->type].size, ns = 0;
	uint64_t s[MAXR], r[MAXR], sl = count * es, rl = count * es;
	double alg;
	long long bad = 0;
	int ret;

	if (b->coll == XMS_COLL_REDUCE_SCATTER)
		sl *= (uint64_t)b->n;
	if (b->coll == XMS_COLL_ALL_GATHER)
		rl *= (uint64_t)b->n;
	buffers(b, in_place, count, s, r);
	ret = b->check ? fill(b, s, sl) : 0;
	if (!ret)
		ret = call(b, s, r, count, &ns);
	if (!ret && b->check)
		bad = wrong(b, r, count, rl);
	if (ret || bad < 0) {
		fprintf(stderr, "xmemctl: bench: %s\n", strerror(ret ? -ret : (int)-bad));
		return 1;
	}
	alg = ns ? (double)size / (double)ns : 0;	/* bytes/ns: GB/s */
	*busbw = alg * xms_coll_busbw_factor(b->coll, b->n);
	printf(" %8.2f %7.2f %7.2f", ns / 1e3, alg, *busbw);
	if (b->check)
		printf(" %6lld", bad);
	else
		printf(" %6s", "N/A");
	return bad ? 2 : 0;
}

static void header(const struct bench *b)
{
	printf("# xmemctl bench %s: %d devices, %s\n", coll_names[b->coll], b->n, b->topo);
	printf("# modeled time (the devices' clocks, not wall time); link %.2f GB/s\n",
	       b->link_bps / 1e9);
	if (b->coll == XMS_COLL_ALL_REDUCE)
		printf("# algorithm %s\n", algo_names[b->algo]);
	printf("#\n#%64s%34s\n", "out-of-place", "in-place");
	printf("#%11s %12s %8s %6s %5s %8s %7s %7s %6s %8s %7s %7s %6s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
	       "time", "algbw", "busbw", "#wrong");
	printf("#%11s %12s %8s %6s %5s %8s %7s %7s %6s %8s %7s %7s %6s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
	       "(us)", "(GB/s)", "(GB/s)", "");
}

/* Every size from min to max by factor: one line each, nccl-tests' footer. */
static int sweep(struct bench *b)
{
	uint64_t es = types[b->type].size, size, step = es * (uint64_t)b->n, prev = 0;
	double bw = 0, sum = 0, last = 0;
	int lines = 0, rc = 0, place;

	header(b);
	for (size = b->min; size <= b->max; size *= b->factor) {
		uint64_t sz = size < step ? step : size / step * step;

		if (sz == prev)		/* sizes below a whole element a rank: one line */
			goto next;
		prev = sz;
		printf(" %11llu %12llu %8s %6s %5d", (unsigned long long)sz,
		       (unsigned long long)(sz / es), types[b->type].name,
		       b->coll == XMS_COLL_ALL_GATHER || b->coll == XMS_COLL_BROADCAST ?
		       "none" : b->op == XMEMSIM_DMA_OP_SUM ? "sum" : "max",
		       b->coll == XMS_COLL_BROADCAST ? b->root : -1);
		for (place = 0; place < 2 && rc != 1; place++) {
			int r = one(b, sz, place, &bw);

			rc = r > rc ? r : rc;
			sum += bw;
			last = place ? bw : last;
		}
		printf("\n");
		lines++;
next:
		if (rc == 1 || size > b->max / b->factor)
			break;
	}
	printf("# Out of bounds values : %s\n", rc ? "some FAILED" : "0 OK");
	printf("# Avg bus bandwidth    : %.4f\n", lines ? sum / (2 * lines) : 0);
	printf("# Largest size: busbw %.4f GB/s, %.3f of the link\n#\n", last,
	       b->link_bps ? last * 1e9 / b->link_bps : 0);
	return rc;
}

int xmemctl_bench(int argc, char **argv)
{
	struct bench b = { .n = 0, .check = 1, .min = 32 << 20, .max = 32 << 20,
			   .factor = 2, .op = XMEMSIM_DMA_OP_SUM };
	int i, ndev = 0, ret;

	if (argc < 2)
		return 2;
	for (i = 0; i < 4 && strcmp(argv[1], coll_names[i]); i++)
		;
	if (i == 4 || parse_args(&b, argc - 1, argv + 1))
		return 2;
	b.coll = i;
	ret = read_topo(&b, &ndev);
	if (ret) {
		fprintf(stderr, "xmemctl: bench: /sys/class/misc/xmemsim/peers: %s\n",
			strerror(-ret));
		return 1;
	}
	b.n = b.n ? b.n : ndev;
	if (b.n > ndev || b.n > MAXR || b.root < 0 || b.root >= b.n)
		return 2;
	ret = setup(&b);
	if (ret) {
		fprintf(stderr, "xmemctl: bench: %d devices of %llu bytes: %s\n", b.n,
			(unsigned long long)b.max, strerror(-ret));
		teardown(&b);
		return 1;
	}
	ret = sweep(&b);
	teardown(&b);
	return ret ? 1 : 0;
}
