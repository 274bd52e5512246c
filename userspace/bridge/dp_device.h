/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dp_device.h - a dp_plan in the shape /dev/xmemsim's PLAN_SUBMIT takes.
 *
 * One array of struct xmemsim_plan_tensor per core, in the core plan's
 * order (index i of the array is tensor i of the core plan), with the
 * intervals in one array per core that the tensors point into. Linked
 * tensors (has_remote) go as SHARED|REMOTE with address, partition and
 * bank 0: the device's SYNC gives them their owner's triple. Pure conversion: no device
 * access in dp_device.c.
 *
 * Then the agreement (dp_agree.c): the plan through the device and back,
 * compared with the planner.
 *
 * The bridge between the planner and the device, its own library
 * (libdramplan-device, userspace/bridge/): the flow is one way, model ->
 * libdramplan -> plan -> this bridge -> libxmemsim -> /dev/xmemsim.
 * libdramplan knows no device; a program that uses this header links
 * libdramplan-device, libdramplan and libxmemsim (pkg-config
 * libdramplan-device).
 */
#ifndef DP_DEVICE_H
#define DP_DEVICE_H

#include <xmemsim/xmemsim.h>

#include "libxmemsim.h"

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
/*
 * The HBM bytes PLAN_SYNC backs d with, in one allocation: the span of the
 * shared tensors once, then each core's span of private tensors (the
 * device's layout, kmod/plan_sync.c). Links are their owner's bytes.
 */
uint64_t dp_dev_plan_backing(const struct dp_dev_plan *d);

/* ---- agreement: planner and device (dp_agree.c) ------------------------- */

/*
 * What can disagree. The tensor kinds come first: a tensor counts once,
 * under its first reason (the order the checks run: the fields PLAN_GET
 * gave back, then its link, then its device bytes against other cores').
 */
enum dp_agree_kind {
	DP_AG_NAME, DP_AG_ID, DP_AG_SIZE, DP_AG_FLAGS, DP_AG_REMOTE,
	DP_AG_NR_IV, DP_AG_ADDR, DP_AG_TRIPLE, DP_AG_NO_DEV_ADDR, DP_AG_DEV_WRAPS,
	DP_AG_MISSING,		/* not in PLAN_GET's answer */
	DP_AG_OWNER_MISSING,	/* a link whose owner is not on the device */
	DP_AG_OWNER_ADDR,	/* a link not at its owner's device address */
	DP_AG_OWNER_TRIPLE,	/* a link without its owner's partition/bank */
	DP_AG_ALIAS_PRIVATE,	/* private bytes that another core's use */
	DP_AG_ALIAS_OTHER,	/* bytes that another core's private use */
	DP_AG_NTENSOR,
	/* not one tensor: first.core is the core (or XMEMSIM_PLAN_ALL_CORES) */
	DP_AG_SYNC_COUNT = DP_AG_NTENSOR, /* PLAN_SYNC linked another count */
	DP_AG_GET_COUNT,	/* PLAN_GET: not every tensor, or not synced */
	DP_AG_TOTALS,		/* PLAN_STATS is not the planner's */
	/* the byte checks (read-back mismatches, not disagreements) */
	DP_AG_SHARED_BYTES,	/* a link did not read its owner's bytes (or back) */
	DP_AG_PRIVATE_BYTES,	/* a private tensor lost its pattern */
	DP_AG_NKINDS
};

/* The reason as the agreement table prints it ("address differs"). */
const char *dp_agree_why(enum dp_agree_kind k);

struct dp_agree_ref {
	uint32_t core, t;	/* t: index in the core plan, or UINT32_MAX */
};

struct dp_agree_totals {
	uint64_t tensors, priv, shared, linked, total, footprint;
};

/* One core: what the device said about it. */
struct dp_agree_core {
	int have;			/* submitted (it has DRAM tensors) */
	struct xmemsim_plan_tensor *got; /* PLAN_GET (have), n entries */
	uint8_t *why;			/* per tensor: 0 agrees, else kind + 1 */
	uint32_t count, synced;		/* PLAN_GET */
	int stats;			/* PLAN_STATS read */
	struct dp_agree_totals dev, pl;	/* PLAN_STATS, the planner's */
};

/* Two tensors of different cores whose device bytes meet. */
struct dp_agree_alias {
	uint32_t a_core, a_t, b_core, b_t;	/* a is private */
	uint64_t a_lo, a_hi, b_lo, b_hi;
};

/* A link's read-back: the owner writes, the link reads; then back. */
struct dp_agree_link {
	uint32_t oc, oi, lc, li;	/* owner core/index, link core/index */
	uint64_t oa, la;		/* their device addresses */
	size_t len;
	int res[2];			/* 0 same, 1 differ, -1 not run */
};

enum dp_agree_step {
	DP_AG_STEP_NONE, DP_AG_STEP_SUBMIT, DP_AG_STEP_SYNC, DP_AG_STEP_GET,
	DP_AG_STEP_STATS, DP_AG_STEP_WRITE, DP_AG_STEP_READ
};

/* The device command that failed (a step returned its -errno). */
struct dp_agree_fail {
	enum dp_agree_step step;
	int err;			/* -errno */
	uint32_t core;			/* SUBMIT, GET, STATS */
	uint32_t bad[2];		/* SUBMIT: tensors at fault */
	char msg[XMEMSIM_PLAN_ERR_LEN + 1]; /* SUBMIT, SYNC: the device's */
	uint64_t wa, ra;		/* WRITE, READ: written at, read at */
	size_t len;
};

/* The phases of a submission, in the order dp_agree_run runs them */
enum dp_agree_phase {
	DP_AG_RUN_SUBMIT,	/* dp_agree_submit */
	DP_AG_RUN_SYNC,		/* dp_agree_sync */
	DP_AG_RUN_READ_BACK,	/* dp_agree_read_back */
	DP_AG_RUN_COMPARE,	/* dp_agree_compare */
	DP_AG_RUN_TOTALS,	/* dp_agree_totals */
	DP_AG_RUN_SHARED,	/* dp_agree_check_shared */
	DP_AG_RUN_PRIVATE,	/* dp_agree_check_private */
	DP_AG_NPHASES
};

/*
 * One plan through the device, and the whole result of it. Fill with
 * dp_agree_init, then dp_agree_run (or dp_agree_run_to) runs the phases
 * in order, each reading what the ones before left, and records what
 * each one answered; a caller prints or checks the result afterwards,
 * from this structure alone. The verdict is the counts (count[kind],
 * disagree, mismatch) with the first offender of each kind, the
 * per-tensor reasons (core[].why), the aliasing pairs and the
 * read-backs.
 */
struct dp_agree {
	struct xms_dev *dev;		/* xms_open()'s, ring attached or not */
	const struct dp_plan *p;
	const struct dp_model *m;	/* p's model, or NULL */
	struct dp_dev_plan d;		/* what PLAN_SUBMIT took */
	uint32_t ncores;
	struct dp_agree_core *core;
	uint32_t submitted;		/* cores submitted */
	uint32_t linked, want_linked;	/* PLAN_SYNC's, the planner's */
	struct dp_agree_totals all_dev, all_pl; /* every core */
	/* the verdict */
	unsigned int count[DP_AG_NKINDS];
	struct dp_agree_ref first[DP_AG_NKINDS];
	unsigned int disagree;		/* tensors, counts and totals */
	unsigned int mismatch;		/* byte read-backs */
	struct dp_agree_alias *alias;	/* at most 4 per pair of lists */
	size_t nalias;
	struct dp_agree_link *link;	/* dp_agree_check_shared */
	size_t nlink;
	/* dp_agree_check_private: one core-relative range, on every core */
	int priv_found;
	uint64_t priv_x;
	size_t priv_len;
	uint32_t *priv_pick;		/* per core: the tensor covering it */
	int *priv_bad;			/* per core: 1 clobbered, -1 not read */
	struct dp_agree_fail fail;
	/* what dp_agree_run did: the phases [0, ran) ran, each answering
	 * ret[phase] (0, or the failing command's -errno; after a failure
	 * or when no core was submitted, no more phases run) */
	unsigned int ran;
	int ret[DP_AG_NPHASES];
};

/*
 * Converts p (dp_dev_plan_build; its message in e on failure, -EINVAL).
 * m, when given, is p's model: its name index finds link owners (without
 * it, a scan of the owner's core).
 */
int dp_agree_init(struct dp_agree *a, struct xms_dev *dev, const struct dp_plan *p,
		  const struct dp_model *m, struct dp_err *e);
void dp_agree_free(struct dp_agree *a);

/*
 * The steps. Each returns 0, or the failing command's -errno (a->fail
 * says which; later steps are then meaningless). Cores without DRAM
 * tensors are not submitted; first is the core submitted first (SYNC must
 * not care about the order).
 */
int dp_agree_submit(struct dp_agree *a, uint32_t first);
int dp_agree_sync(struct dp_agree *a);
int dp_agree_read_back(struct dp_agree *a);
int dp_agree_compare(struct dp_agree *a);	/* no device commands; -ENOMEM */
int dp_agree_totals(struct dp_agree *a);
/* Byte read-backs, with up to 4 MiB per shared and 1 MiB per private
 * tensor; -ENOMEM if the buffers cannot be had. */
int dp_agree_check_shared(struct dp_agree *a);
int dp_agree_check_private(struct dp_agree *a);

/* Every phase in order up to last, or until one fails or submits no core
 * (the result in a: ran, ret[], the verdict). 0 when the device took the
 * plan and agrees on everything, 1 when it took it and disagrees, else
 * the failing command's -errno. */
int dp_agree_run_to(struct dp_agree *a, uint32_t first,
		    enum dp_agree_phase last);
/* dp_agree_run_to through the totals, then the byte checks if bytes: the
 * whole submission of dramplan --submit */
int dp_agree_run(struct dp_agree *a, uint32_t first, int bytes);

/* ---- a plan file loaded for a runtime (dp_load.c) ------------------------ */

struct dp_loaded_tensor {
	uint32_t core;
	const char *name;	/* the plan's; valid until dp_loaded_free */
	uint64_t addr;		/* the planner's, core-relative */
	uint64_t dev_addr;	/* the device's: pread/pwrite/mmap/DMA here */
	uint64_t size;
	int shared, linked;	/* linked: its owner's bytes, on another core */
	const struct dp_plan_tensor *pt;	/* the plan's entry (region, remote) */
};

struct dp_loaded {
	struct dp_plan *plan;	/* the file, as read */
	size_t n;		/* every tensor, core by core */
	struct dp_loaded_tensor *t;
	uint32_t linked;	/* tensors PLAN_SYNC linked */
};

/*
 * Loads the plan.json at path (as dramplan wrote it) into dev: every
 * core's plan submitted, synced and backed, read back and compared with
 * the file; out gets each tensor's device address. 0, or -errno with the
 * reason in e (the file, the device command and its sentence; for a plan
 * HBM cannot hold, how much it needs and hbm_size), and nothing left on
 * the device. The plan lives as long as dev's open file (or until
 * xms_plan_release()); dp_loaded_free() frees out, not the device's plan.
 */
int dp_plan_load_device(struct xms_dev *dev, const char *path,
			struct dp_loaded *out, struct dp_err *e);
void dp_loaded_free(struct dp_loaded *l);
/* core's tensor name, or NULL. */
const struct dp_loaded_tensor *dp_loaded_find(const struct dp_loaded *l,
					      uint32_t core, const char *name);

/* ---- a plan run (dp_run.c) ------------------------------------------------- */

/*
 * dp_plan_run() loads the plan.json at plan_path into dev
 * (dp_plan_load_device) and runs m, the model it was made from, on the
 * device: every core's instructions in program order as DMA on a queue
 * of the core's own (each use copies its tensor out, each def writes a
 * pattern of its own into it), every event a semaphore, every collective
 * (all_reduce, reduce_scatter, all_gather) a ring of reducing and plain
 * copies that each member pulls from its neighbour's tensor, with the
 * hazard checker on (dma_check=1; dma_check=2 refuses the first race and
 * ends the run). Then each use's copy is compared with the version that
 * program order and events say it reads (docs/plan-run.md, "The plan
 * run"), each mismatch one line to opts->log naming the tensor, the
 * instruction that reads it, the one it wants and the one whose bytes it
 * has; and each race the hazard checker counts as a transfer is submitted
 * (one at a time, with the checker on) one line too, naming both
 * instructions and their tensors.
 *
 * Returns 0 when the run ran to its end (res says how it went: hazards
 * and mismatches), or -errno with e's message: the plan, the device
 * (-EOPNOTSUPP: no checker or no reduce; -ENOSPC: too few semaphores;
 * -ENOMEM: HBM for the patterns, copies and compute pads), a program that
 * cannot go on (-EDEADLK, naming the instruction), a transfer that does
 * not finish within opts->timeout_ns (-ETIMEDOUT). The plan stays on dev
 * as with dp_plan_load_device; the run's own allocations are freed with
 * dev's file.
 *
 * The modeled times. A transfer takes dma_latency_ns + len / bandwidth
 * (the device's model, xmemsim(4)); an instruction the sum of its
 * transfers' times plus its compute time, the model's compute_ns plus
 * opts->compute_ns (on the device a copy within the core's own pad that
 * lasts as long); a collective its ring's steps on one member. span_ns
 * is the device's: from the first transfer's
 * start to the last one's end. bound_ns is the critical path: the
 * longest chain through program order, events and collectives of those
 * durations, as if every core had its engine to itself.
 *
 * Many devices (opts->devices D > 1): a data-parallel step. The run opens
 * devices 0 to D - 1 as a communicator (xms_comm_init_all(), so the module
 * must be loaded with devices=D or more, and the devices need peer DMA,
 * dma-buf and not_before_ns) and runs the same plan on each, with the
 * same per-core programs at the same addresses; dev is not used, and the
 * plans go with the communicator's files at the end of the run. Each
 * device writes patterns of its own (its data), so every device's
 * gradients differ. A collective that reduces (all_reduce,
 * reduce_scatter) is hierarchical, as NCCL's is over nodes: the device's
 * reduce-scatter over its cores (the ring's first half, as on one
 * device), which leaves segment p whole at member p; then segment p of
 * member p all-reduced across the devices, the same core of every device,
 * by xms_all_reduce() (peer DMA over the links through dma-buf, the
 * engines' reduce; out of place into a buffer of the run's, since a
 * plan's bytes cannot be exported, and copied back on the member's
 * queue); then, for an all_reduce, the device's all-gather (the ring's
 * second half) hands every member every segment. A reduce_scatter alone
 * ends with member p's segment p reduced over all devices and the other
 * segments the device's partials. An all_gather alone reduces nothing
 * and stays within its device. The cross-device step is a barrier: each
 * device's program is cut after the reduce-scatter steps of each
 * reducing collective; segment k runs on every device and every transfer
 * of it is reaped, then collective k's cross-device all-reduces run (one
 * a member, one after another, each of one segment's bytes), then segment
 * k + 1, each of its transfers submitted with not_before_ns at the
 * latest device's end of the step, so that modeled time stays causal: no
 * device reads the reduction before the last device has written it. The
 * check is the single device's on every device (hazards and content):
 * the expected segment k is the device's ring fold of it (as on one
 * device) on every device, folded across the devices in the
 * communicator's ring order (chunk c of the segment's elements from
 * device c on, each next device adding its own: xms_coll_expect()'s
 * order), bit for bit. Log lines name the device ("mismatch: device 2
 * core 0 ..."); the trace has a process a device (pid d + 1) and the
 * cross-device steps' (pid 0). What it does not do: overlap the step with the devices'
 * other work (the barrier holds every device's next segment).
 */
#define DP_RUN_MAX_DEVICES	32	/* the module's devices= at most */

struct dp_run_opts {
	FILE *log;		/* mismatch and error lines, or NULL */
	FILE *trace;		/* a Chrome/Perfetto JSON trace, or NULL */
	uint64_t compute_ns;	/* added to each instruction's compute_ns */
	int64_t timeout_ns;	/* a stalled run's limit; 0: 10 s */
	int no_checker;		/* run with the checker off (hazards 0) */
	/* test only, a fault site: "C:NAME=C2:NAME2" runs core C's tensor
	 * NAME on core C2's NAME2's bytes (a misplaced tensor, which verify
	 * and the device refuse), for the content check to catch */
	const char *fault_misplace;
	uint32_t devices;	/* devices 0 .. devices - 1; 0 or 1: dev alone */
	/* test only, a fault site: "D:C:NAME" alters 64 bytes of device D's
	 * core C's collective tensor NAME before it goes across devices
	 * (a device with a wrong gradient), for the content check to catch */
	const char *fault_alter;
};

struct dp_run_result {
	uint64_t ninst;		/* instructions of the model */
	uint32_t ncores;
	uint64_t transfers;	/* DMA transfers submitted */
	uint64_t span_ns, bound_ns;
	uint64_t hazards;	/* dma_check_reports counted during the run */
	uint64_t races;		/* of them, races named in opts->log */
	uint64_t mismatches;	/* uses that read other bytes than wanted */
	uint64_t errors;	/* transfers that ended with an error */
	uint32_t devices;	/* devices the plan ran on (1: dev) */
	uint64_t cross_ns;	/* of span_ns, the cross-device steps' */
};

int dp_plan_run(struct xms_dev *dev, const char *plan_path,
		const struct dp_model *m, const struct dp_run_opts *opts,
		struct dp_run_result *res, struct dp_err *e);
/* "plan run: N instructions on C cores, modeled span S ns, critical-path
 * bound B ns, H hazards, M mismatches" and a newline; on D devices "on C
 * cores x D devices, modeled span S ns (cross-device X ns, P%), ...":
 * N and the bound one device's (the bound without the cross-device
 * steps), the span from the first device's first transfer to the last
 * end on any device, hazards and mismatches summed over the devices */
void dp_run_summary(const struct dp_run_result *res, FILE *f);

/* ---- the host's reduction (dp_reduce.c) ----------------------------------- */

/*
 * What the DMA engines' reduce computes (uapi/xmemsim.h, "Reduce"), on the
 * host: op XMEMSIM_DMA_OP_SUM or _MAX, type XMEMSIM_DMA_T_*. dp_reduce_elem
 * on one element's bits, dp_reduce_buf on n bytes, dst = dst op src
 * elementwise (little-endian). dp_reduce_size: 4, 2, or 0 (no such type).
 */
uint32_t dp_reduce_elem(uint32_t op, uint32_t type, uint32_t a, uint32_t b);
void dp_reduce_buf(void *dst, const void *src, size_t n, uint32_t op,
		   uint32_t type);
uint32_t dp_reduce_size(uint32_t type);

#endif /* DP_DEVICE_H */
