/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmstat.h - xmemctl's view of the whole device, for `top` and
 * `stats --prometheus`: one snapshot of what an unprivileged caller may
 * read (GET_INFO, HEAP_STATS, USER_STATS, DMA_INFO on its open file;
 * sysfs dma, plan_bytes, dma_check_reports, <heap>/ce_count and ue_count;
 * sysfs users when the caller may read it), and the two outputs.
 */
#ifndef XMSTAT_H
#define XMSTAT_H

#include <stdio.h>

#include "libxmemsim.h"

#define XM_MAX_ENGINES 1024
#define XM_MAX_USERS 256

struct xm_engine {
	int running;
	uint64_t queued, completed, bytes, busy_ns;
};

/* One line of sysfs users (every user: root or the udev rule's group). */
struct xm_user {
	uint32_t uid, files, allocs;
	uint64_t owned[XMEMSIM_NUM_HEAPS];
	uint64_t plan_mem, bounce, quota_refused;
};

struct xm_snap {
	int device;			/* named in top when >= 0 (several) */
	double wall;			/* CLOCK_MONOTONIC, seconds */
	struct xmemsim_info info;
	struct xmemsim_heap_stats heap[XMEMSIM_NUM_HEAPS];
	struct xmemsim_user_stats user;	/* the caller's user */
	struct xmemsim_dma_info dma;
	int have_dma;			/* DMA_INFO answered */
	/* sysfs; each have_ flag 0 when the file was not there or unreadable */
	int have_edac, have_plan_bytes, have_hazards, have_engines, have_users;
	uint64_t ce[XMEMSIM_NUM_HEAPS], ue[XMEMSIM_NUM_HEAPS];
	uint64_t plan_bytes;
	uint64_t hazards[3];		/* host, free, race */
	uint64_t dma_now;		/* sysfs dma's modeled now */
	uint32_t nengines;
	int engines_truncated;
	struct xm_engine eng[XM_MAX_ENGINES];
	uint32_t nusers;
	int users_truncated;
	struct xm_user users[XM_MAX_USERS];
};

/*
 * Reads a snapshot through dev and the sysfs folder (NULL: device 0's,
 * /sys/class/misc/xmemsim, or $XMEMSIM_SYSFS). 0, or the -errno of a
 * device command that failed; sysfs files that cannot be read are left
 * out (their have_ flags 0). s->device is -1: the caller names it.
 */
int xm_snap_read(struct xms_dev *dev, const char *sysfs, struct xm_snap *s);
/* The sysfs parts alone, from text (tests feed their own). */
int xm_parse_dma(struct xm_snap *s, const char *text);
int xm_parse_users(struct xm_snap *s, const char *text);

/* Prometheus text exposition format (0.0.4) of one snapshot. */
void xm_prom_write(FILE *f, const struct xm_snap *s);
/*
 * top: the device now and the rates since prev (NULL: no rates yet),
 * as text for a terminal or as one JSON object a line.
 */
void xm_top_text(FILE *f, const struct xm_snap *prev, const struct xm_snap *s);
void xm_top_json(FILE *f, const struct xm_snap *prev, const struct xm_snap *s);

#endif /* XMSTAT_H */
