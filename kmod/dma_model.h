/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DMA scheduler on descriptors alone (kmod/dma_model.c), built only
 * with the KUnit suites, which hold it against a reference.
 */
#ifndef XMEMSIM_DMA_MODEL_H
#define XMEMSIM_DMA_MODEL_H

#include <linux/types.h>

#include "../uapi/xmemsim.h"

/* One transfer of xmemsim_dma_model(). */
struct xmemsim_dma_model_xfer {
	u32 file;
	struct xmemsim_dma_desc d;	/* engine, queue, wait and signal */
	u64 dur;			/* modeled ns */
	u32 call;			/* the DMA_SUBMIT it comes in, from 0 */
	u64 start_ns, end_ns;		/* out */
};

int xmemsim_dma_model(u32 engines, u32 queues, u32 sems,
		      const u32 *file_user, u32 files,
		      struct xmemsim_dma_model_xfer *t, u32 n);

#endif /* XMEMSIM_DMA_MODEL_H */
