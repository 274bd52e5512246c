/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dp_device.h - a dp_plan in the shape /dev/xmemsim's PLAN_SUBMIT takes.
 *
 * One array of struct xmemsim_plan_tensor per core, in the core plan's
 * order (index i of the array is tensor i of the core plan), with the
 * intervals in one array per core that the tensors point into. Linked
 * tensors (has_remote) go as SHARED|REMOTE with address 0: the device's
 * SYNC gives them their owner's address. Pure conversion: no device
 * access here, so libdramplan does not depend on libxmemsim.
 */
#ifndef DP_DEVICE_H
#define DP_DEVICE_H

#include <xmemsim.h>

#include "libdramplan.h"

struct dp_dev_core {
	uint32_t core;
	uint32_t n;			/* tensors */
	struct xmemsim_plan_tensor *t;
	size_t niv;
	struct xmemsim_interval *iv;	/* t[i].intervals point in here */
	uint64_t private_bytes;		/* non-shared tensors */
	uint64_t shared_bytes;		/* shared owners (placed here) */
	uint64_t linked_bytes;		/* linked tensors */
};

struct dp_dev_plan {
	uint32_t ncores;
	struct dp_dev_core *core;
};

/*
 * Fills d from p. Fails (naming core and tensor) when a name does not fit
 * the device's 64 bytes, an interval time does not fit 32 bits, or a
 * tensor that is not linked has no address. d is empty on failure.
 */
int dp_dev_plan_build(const struct dp_plan *p, struct dp_dev_plan *d,
		      struct dp_err *e);
void dp_dev_plan_free(struct dp_dev_plan *d);

#endif /* DP_DEVICE_H */
