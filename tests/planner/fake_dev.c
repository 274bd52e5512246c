// SPDX-License-Identifier: GPL-2.0
/*
 * A device made of the xms_* calls the bridge makes for a plan (fake_dev.h):
 * it keeps each core's submitted plan, gives every core its own window of
 * device memory (links: their owner's address), answers PLAN_GET and
 * PLAN_STATS from what it kept, hands out HBM from a heap of its own, and
 * has one fault switched on at a time. test_agree and test_planrun's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_dev.h"

struct fake_dev dev;

void dev_reset(enum fault f)
{
	uint32_t c;

	for (c = 0; c < NC; c++) {
		free(dev.t[c]);
		dev.t[c] = NULL;
		dev.n[c] = 0;
	}
	dev.synced = 0;
	dev.fault = f;
	dev.heap_used = 0;
}

/* HBM allocations: a bump allocator over HEAP bytes at HEAP_BASE */
int fake_dev_alloc(uint64_t size, uint64_t align, uint64_t *addr)
{
	uint64_t a = (dev.heap_used + align - 1) & ~(align - 1);

	if (!dev.heap)
		dev.heap = calloc(1, HEAP);
	if (!dev.heap)
		abort();
	if (a > HEAP || size > HEAP - a)
		return -ENOMEM;
	dev.heap_used = a + size;
	*addr = HEAP_BASE + a;
	return 0;
}

/* The handle dp_agree passes back to the fakes below. */
struct xms_dev fake_dev = { .fd = -1 };

void (*fake_dev_hook)(struct xms_dev *xd);

/* the calls below are for xd's device: a test of many swaps its state in */
static void pick_dev(struct xms_dev *xd)
{
	if (fake_dev_hook)
		fake_dev_hook(xd);
}

/* F_ALIAS: every core's window at the same device bytes. */
uint64_t window(uint32_t c)
{
	return BASE + (dev.fault == F_ALIAS ? 0 : c * WIN);
}

int xms_plan_submit(struct xms_dev *xd, uint32_t core,
		    const struct xmemsim_plan_tensor *t,
		    uint32_t count, uint32_t bad[2], char *err, size_t errlen)
{
	pick_dev(xd);
	bad[0] = bad[1] = UINT32_MAX;
	err[0] = 0;
	if (dev.fault == F_SUBMIT && core == 1) {
		bad[0] = 0;
		snprintf(err, errlen, "overlap");
		return -E2BIG;
	}
	dev.t[core] = malloc(count * sizeof(*t));
	if (!dev.t[core])
		abort();
	memcpy(dev.t[core], t, count * sizeof(*t));
	dev.n[core] = count;
	return 0;
}

int xms_plan_sync(struct xms_dev *xd, uint32_t *linked, char *err, size_t errlen)
{
	uint32_t c, i, k;

	pick_dev(xd);
	*linked = 0;
	err[0] = 0;
	if (dev.fault == F_SYNC) {
		snprintf(err, errlen, "no target");
		return -ENOENT;
	}
	for (c = 0; c < NC; c++)
		for (i = 0; i < dev.n[c]; i++) {
			dev.t[c][i].intervals = 0;
			if (!(dev.t[c][i].flags & XMEMSIM_TENSOR_REMOTE))
				dev.t[c][i].dev_addr = window(c) + dev.t[c][i].addr;
		}
	for (c = 0; c < NC; c++)
		for (i = 0; i < dev.n[c]; i++) {
			struct xmemsim_plan_tensor *t = &dev.t[c][i];
			uint32_t oc = t->remote_core;

			if (!(t->flags & XMEMSIM_TENSOR_REMOTE))
				continue;
			for (k = 0; k < dev.n[oc]; k++)
				if (!strcmp(dev.t[oc][k].name, t->remote_name)) {
					t->addr = dev.t[oc][k].addr;
					t->dev_addr = dev.t[oc][k].dev_addr;
					t->partition = dev.t[oc][k].partition;
					t->bank = dev.t[oc][k].bank;
					if (dev.fault == F_TRIPLE)
						t->bank++;
					if (dev.fault == F_OWNER)
						t->dev_addr += 4096;
					++*linked;
				}
		}
	dev.synced = 1;
	return 0;
}

int xms_plan_get(struct xms_dev *xd, uint32_t core, struct xmemsim_plan_tensor *out,
		 uint32_t cap, uint32_t *count, uint32_t *synced)
{
	pick_dev(xd);
	*count = dev.n[core];
	*synced = dev.synced;
	if (dev.fault == F_SHORT_GET && core == 0)
		--*count;
	memcpy(out, dev.t[core], (cap < *count ? cap : *count) * sizeof(*out));
	if (dev.fault == F_ADDR && core == 1 && *count)
		out[*count - 1].addr += 4096;
	return 0;
}

int xms_plan_stats(struct xms_dev *xd, uint32_t core, struct xmemsim_plan_stats *st)
{
	uint32_t c, i;

	pick_dev(xd);
	memset(st, 0, sizeof(*st));
	for (c = 0; c < NC; c++) {
		if (core != XMEMSIM_PLAN_ALL_CORES && c != core)
			continue;
		for (i = 0; i < dev.n[c]; i++) {
			const struct xmemsim_plan_tensor *t = &dev.t[c][i];

			st->tensors++;
			if (t->flags & XMEMSIM_TENSOR_REMOTE)
				st->linked_bytes += t->size;
			else if (t->flags & XMEMSIM_TENSOR_SHARED)
				st->shared_bytes += t->size;
			else
				st->private_bytes += t->size;
			if (t->addr + t->size > st->footprint)
				st->footprint = t->addr + t->size;
		}
	}
	st->total_bytes = st->private_bytes + st->shared_bytes;
	if (dev.fault == F_TOTALS && core == 0)
		st->footprint += 4096;
	return 0;
}

/* dp_plan_load_device on a failure: the file's plans dropped. */
int released;

int xms_plan_release(struct xms_dev *xd)
{
	pick_dev(xd);
	released++;
	dev_reset(dev.fault);
	return 0;
}

int xms_nomem_reason(struct xms_dev *xd, unsigned int heap, uint64_t size,
		     char *buf, size_t len)
{
	pick_dev(xd);
	(void)heap;
	(void)size;
	snprintf(buf, len, "no figures here");
	return -ENOTTY;
}

/*
 * Device bytes at a, len long: inside one core's first SPAN bytes, or in
 * the heap that xms_alloc hands out (fake_dev_alloc's bytes).
 */
unsigned char *at(uint64_t a, size_t len)
{
	uint64_t c = (a - BASE) / WIN, off = (a - BASE) % WIN;

	if (a >= HEAP_BASE && a - HEAP_BASE <= dev.heap_used &&
	    len <= dev.heap_used - (a - HEAP_BASE))
		return dev.heap + (a - HEAP_BASE);
	if (a < BASE || c >= NC || off + len > SPAN)
		return NULL;
	return dev.mem[c] + off;
}

int xms_write(struct xms_dev *xd, uint64_t a, const void *buf, size_t len)
{
	unsigned char *p;

	pick_dev(xd);
	p = at(a, len);
	if (!p)
		return -EFAULT;
	memcpy(p, buf, len);
	if (dev.fault == F_FLIP)
		p[len - 1] ^= 1;
	return 0;
}

int xms_read(struct xms_dev *xd, uint64_t a, void *buf, size_t len)
{
	unsigned char *p;

	pick_dev(xd);
	p = at(a, len);
	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}
