// SPDX-License-Identifier: MIT
/*
 * custom_op: a "custom op" written against the device's allocator
 * wrappers (neuron_compat.h), as one would write it for the management
 * core, run against /dev/xmemsim.
 *
 * It switches to an HBM stack (allocate_hbm_stack with the default size),
 * takes a 4 KiB TensorStream bounce buffer from dataram, and moves a
 * tensor from one HBM buffer to another through the bounce buffer with
 * each copy method (C memcpy, vector memcpy, DMA), checking every byte
 * after each. Then it uses the dataram libc arena, and frees everything.
 *
 * Prints one "ok"/"not ok" line per step (TAP), so make check counts it:
 *
 *	cc -o custom_op examples/custom_op.c -lxmemsim -luring
 *	./custom_op
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libxmemsim.h"
#include "neuron_compat.h"

#define TENSOR	10000		/* not a multiple of the bounce buffer */
#define BOUNCE	4096

static int step, failed;

static void report(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++step, what);
	if (!ok) {
		printf("#   errno %d (%s)\n", errno, strerror(errno));
		failed = 1;
	}
}

/* src -> bounce -> dst in bounce-sized pieces with one copy method. */
static int through_bounce(struct xms_dev *d, uint64_t src, uint64_t bounce,
			  uint64_t dst, unsigned int method)
{
	uint64_t off, n;
	int ret;

	for (off = 0; off < TENSOR; off += n) {
		n = TENSOR - off < BOUNCE ? TENSOR - off : BOUNCE;
		ret = xms_copy(d, src + off, bounce, n, method);
		if (!ret)
			ret = xms_copy(d, bounce, dst + off, n, method);
		if (ret) {
			errno = -ret;
			return -1;
		}
	}
	return 0;
}

int main(void)
{
	static const char *const names[] = { "C memcpy", "vector memcpy", "DMA" };
	static unsigned char in[TENSOR], out[TENSOR];
	uint64_t stack, src, dst;
	struct xms_dev d;
	void *bounce, *p;
	unsigned int m;
	char what[96];
	size_t i;
	int fd;

	report(init_neuron_hbm_allocator() == 0 &&
	       init_neuron_dataram_allocator() == 0, "init both allocators");
	fd = neuron_compat_fd();
	if (fd < 0) {
		printf("1..%d\n", step);
		return 1;
	}
	/* the wrappers' open file, for the data moves (libxmemsim's calls) */
	xms_dev_init(&d, fd);

	stack = allocate_hbm_stack(0, 0, 0);
	report(stack && stack % 64 == 0, "allocate_hbm_stack: 4196 bytes, 64-aligned");
	report(allocate_hbm_stack(NEURON_MAX_STACK_SIZE + 1, 0, 0) == 0 && errno == EINVAL,
	       "allocate_hbm_stack: above 4 MiB refused");

	bounce = (void *)1;
	report(neuron_dataram_allocate(1 << 20, &bounce, 0) == -1 && bounce == NULL,
	       "dataram: a failed allocation still writes *out_ptr (NULL)");
	report(neuron_dataram_allocate(BOUNCE, &bounce, 0) == 0 && bounce &&
	       (uintptr_t)bounce % 64 == 0, "dataram: the 4 KiB bounce buffer");

	report(neuron_hbm_allocate(TENSOR, &src, 0) == 0 &&
	       neuron_hbm_allocate(TENSOR, &dst, 4096) == 0 && dst % 4096 == 0,
	       "hbm: a source and a 4 KiB-aligned destination tensor");
	for (i = 0; i < TENSOR; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	report(xms_write(&d, src, in, TENSOR) == 0, "write the source tensor");

	for (m = XMEMSIM_COPY_C_MEMCPY; m <= XMEMSIM_COPY_DMA; m++) {
		memset(out, 0, sizeof(out));
		snprintf(what, sizeof(what), "%s through the bounce buffer: every byte",
			 names[m]);
		report(xms_memset(&d, dst, 0, TENSOR) == 0 &&
		       through_bounce(&d, src, (uintptr_t)bounce, dst, m) == 0 &&
		       xms_read(&d, dst, out, TENSOR) == 0 &&
		       !memcmp(in, out, TENSOR), what);
	}
	report(neuron_dataram_read(bounce, out, BOUNCE) == 0 &&
	       !memcmp(out, in + 2 * BOUNCE, TENSOR - 2 * BOUNCE),
	       "the bounce buffer holds the last piece");

	p = _libc_heap_allocate(100);
	report(p && _libc_heap_get_alloc_size(p) == 100,
	       "libc arena: 100 bytes, and its size by pointer");
	report(_libc_heap_max_free_space() > 0 &&
	       _libc_heap_max_free_space() < xmem_heap_get_free_space(NEURON_LIBC_HEAP) + 1,
	       "libc arena: the largest block is at most the free space");
	_libc_heap_deallocate(p);

	report(neuron_hbm_deallocate(src) == 0 && neuron_hbm_deallocate(dst) == 0 &&
	       neuron_hbm_deallocate(stack) == 0 &&
	       neuron_dataram_deallocate(bounce) == 0, "free everything");
	report(neuron_hbm_deallocate(src) == -1 && errno == ENOENT,
	       "a second free fails (ENOENT)");
	printf("1..%d\n", step);
	return failed;
}
