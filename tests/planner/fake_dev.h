// SPDX-License-Identifier: GPL-2.0
/*
 * fake_dev.c: the plan side of a device, on the host, for the bridge's
 * tests. The real device is tests/vm/test_plan's.
 */
#ifndef FAKE_DEV_H
#define FAKE_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "libxmemsim.h"

#define NC 4
#define WIN (64ULL << 20)
#define BASE 0x100000000ULL
#define SPAN (16ULL << 20)	/* bytes kept per core: the examples fit */
#define HEAP_BASE (BASE + NC * WIN)
#define HEAP (64ULL << 20)	/* what fake_dev_alloc hands out */

enum fault {
	F_NONE, F_ALIAS, F_ADDR, F_OWNER, F_TOTALS, F_SHORT_GET, F_FLIP,
	F_SUBMIT, F_SYNC, F_TRIPLE,
};

struct fake_dev {
	struct xmemsim_plan_tensor *t[NC];
	uint32_t n[NC];
	int synced;
	enum fault fault;
	unsigned char mem[NC][SPAN];
	unsigned char *heap;
	uint64_t heap_used;
};

extern struct fake_dev dev;
extern struct xms_dev fake_dev;	/* the handle the fakes are passed */
extern int released;		/* xms_plan_release calls */
/* called with each fake call's handle first, if set: a test of many
 * devices puts that device's state in dev */
extern void (*fake_dev_hook)(struct xms_dev *xd);

void dev_reset(enum fault f);
uint64_t window(uint32_t c);	/* core c's window (F_ALIAS: all at one) */
unsigned char *at(uint64_t a, size_t len);	/* NULL: not device bytes */
int fake_dev_alloc(uint64_t size, uint64_t align, uint64_t *addr);

#endif /* FAKE_DEV_H */
