// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libxmemsim: thin wrappers over the /dev/xmemsim ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "libxmemsim.h"

int xms_attach_ring(struct xms_dev *dev, struct xms_ring *r)
{
	if (r && (!r->ring || r->fd != dev->fd))
		return -EINVAL;
	dev->ring = r;
	return 0;
}

int xms_cmd(struct xms_dev *dev, unsigned long cmd, void *arg)
{
	struct xms_ring *r = dev->ring;
	struct xms_result res;
	int ret;

	if (!r)
		return ioctl(dev->fd, cmd, arg) < 0 ? -errno : 0;
	ret = xms_ring_queue(r, cmd, arg, 0);
	if (!ret)
		ret = xms_ring_submit(r);
	if (ret < 0)
		return ret;
	ret = xms_ring_reap(r, &res, 1, 1);
	if (ret < 0)
		return ret;
	return res.res;
}

int xms_ring_init(struct xms_ring *r, const struct xms_dev *dev,
		  unsigned int entries)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->ring = calloc(1, sizeof(*r->ring));
	if (!r->ring)
		return -ENOMEM;
	/*
	 * One task submits and reaps: let completions run when it asks for
	 * them (DEFER_TASKRUN, 6.1+) rather than interrupting it; older
	 * kernels get the cooperative mode or plain defaults.
	 */
	ret = io_uring_queue_init(entries, r->ring, IORING_SETUP_SINGLE_ISSUER |
				  IORING_SETUP_DEFER_TASKRUN);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(entries, r->ring, IORING_SETUP_COOP_TASKRUN);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(entries, r->ring, 0);
	if (ret < 0) {
		free(r->ring);
		r->ring = NULL;
		return ret;
	}
	r->fd = dev->fd;
	r->entries = entries;
	return 0;
}

void xms_ring_exit(struct xms_ring *r)
{
	if (!r->ring)
		return;
	io_uring_queue_exit(r->ring);
	free(r->ring);
	r->ring = NULL;
}

/*
 * The SQE flags a command may carry: order (link, drain) and where it runs
 * (async). Not a fixed file (the ring's file is not registered), not a
 * buffer selection, and not CQE_SKIP_SUCCESS: every command queued gives
 * one result to reap, which is what r->inflight counts.
 */
#define XMS_RING_SQE_FLAGS (IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_IO_DRAIN | \
			    IOSQE_ASYNC)

int xms_ring_queue_flags(struct xms_ring *r, unsigned long cmd, void *arg,
			 uint64_t tag, unsigned int sqe_flags)
{
	struct xmemsim_uring_cmd uc = { .arg = (uint64_t)(uintptr_t)arg };
	struct io_uring_sqe *sqe;

	if (sqe_flags & ~XMS_RING_SQE_FLAGS)
		return -EINVAL;
	sqe = io_uring_get_sqe(r->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, r->fd, NULL, 0, 0);
	sqe->cmd_op = (uint32_t)cmd;	/* overlays off: set after the prep */
	memcpy(sqe->cmd, &uc, sizeof(uc));
	io_uring_sqe_set_data64(sqe, tag);
	io_uring_sqe_set_flags(sqe, sqe_flags);
	r->queued++;
	return 0;
}

int xms_ring_queue(struct xms_ring *r, unsigned long cmd, void *arg,
		   uint64_t tag)
{
	return xms_ring_queue_flags(r, cmd, arg, tag, 0);
}

int xms_ring_submit(struct xms_ring *r)
{
	int ret = io_uring_submit(r->ring);

	if (ret < 0)
		return ret;
	r->queued -= (unsigned int)ret <= r->queued ? (unsigned int)ret : r->queued;
	r->inflight += ret;
	return ret;
}

/* Monotonic now in ns. */
static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Wait for one CQE until deadline (ns, CLOCK_MONOTONIC; < 0: for ever),
 * in io_uring's own timed wait: 0, -ETIMEDOUT or another -errno.
 */
static int wait_cqe_until(struct io_uring *ring, struct io_uring_cqe **cqe,
			  int64_t deadline)
{
	struct __kernel_timespec ts;
	int64_t left;
	int ret;

	if (deadline < 0)
		return io_uring_wait_cqe(ring, cqe);
	left = deadline - mono_ns();
	if (left < 0)
		left = 0;
	ts.tv_sec = left / 1000000000;
	ts.tv_nsec = left % 1000000000;
	ret = io_uring_wait_cqe_timeout(ring, cqe, &ts);
	return ret == -ETIME ? -ETIMEDOUT : ret;
}

int xms_ring_reap_timeout(struct xms_ring *r, struct xms_result *res,
			  unsigned int max, unsigned int min, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? -1 : mono_ns() + timeout_ns;
	struct io_uring_cqe *cqe;
	unsigned int n = 0;
	int ret;

	while (n < max) {
		if (n < min)
			ret = wait_cqe_until(r->ring, &cqe, deadline);
		else
			ret = io_uring_peek_cqe(r->ring, &cqe);
		if (ret == -EAGAIN)
			break;
		if (ret < 0)
			return n ? (int)n : ret;
		res[n].tag = io_uring_cqe_get_data64(cqe);
		res[n].res = cqe->res;
		io_uring_cqe_seen(r->ring, cqe);
		r->inflight--;
		n++;
	}
	return (int)n;
}

int xms_ring_reap(struct xms_ring *r, struct xms_result *res, unsigned int max,
		  unsigned int min)
{
	return xms_ring_reap_timeout(r, res, max, min, -1);
}

void xms_dev_init(struct xms_dev *dev, int fd)
{
	dev->fd = fd;
	dev->ring = NULL;
}

int xms_open(struct xms_dev *dev, const char *path)
{
	int fd = open(path ? path : XMEMSIM_DEFAULT_PATH, O_RDWR | O_CLOEXEC);

	xms_dev_init(dev, fd);
	return fd < 0 ? -errno : 0;
}

int xms_close(struct xms_dev *dev)
{
	int fd = dev->fd;

	xms_dev_init(dev, -1);
	return close(fd) < 0 ? -errno : 0;
}

int xms_get_info(struct xms_dev *dev, struct xmemsim_info *info)
{
	return xms_cmd(dev, XMEMSIM_IOC_GET_INFO, info);
}

int xms_alloc(struct xms_dev *dev, unsigned int heap, uint64_t size, uint64_t align,
	      uint32_t flags, uint64_t *addr, int *status)
{
	struct xmemsim_alloc a = {
		.heap = heap, .flags = flags, .size = size, .align = align,
		.status = 1,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_HEAP_ALLOC, &a);

	if (status && a.status != 1)
		*status = a.status;
	if (!ret && addr)
		*addr = a.addr;
	return ret;
}

int xms_free_flags(struct xms_dev *dev, unsigned int heap, uint64_t addr,
		   uint32_t flags, int *status)
{
	struct xmemsim_free f = {
		.heap = heap, .flags = flags, .addr = addr, .status = 1,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_HEAP_FREE, &f);

	if (status && f.status != 1)
		*status = f.status;
	return ret;
}

int xms_free(struct xms_dev *dev, unsigned int heap, uint64_t addr, int *status)
{
	return xms_free_flags(dev, heap, addr, 0, status);
}

int xms_alloc_size(struct xms_dev *dev, unsigned int heap, uint64_t addr,
		   uint64_t *size, uint64_t *usable)
{
	struct xmemsim_alloc_size a = { .heap = heap, .addr = addr };
	int ret = xms_cmd(dev, XMEMSIM_IOC_ALLOC_SIZE, &a);

	if (!ret && size)
		*size = a.size;
	if (!ret && usable)
		*usable = a.usable;
	return ret;
}

int xms_memset(struct xms_dev *dev, uint64_t addr, unsigned int value, uint64_t len)
{
	struct xmemsim_memset m = { .addr = addr, .len = len, .value = value };

	return xms_cmd(dev, XMEMSIM_IOC_MEMSET, &m);
}

int xms_stats(struct xms_dev *dev, unsigned int heap, struct xmemsim_heap_stats *st)
{
	struct xmemsim_heap_stats s = { .heap = heap };
	int ret = xms_cmd(dev, XMEMSIM_IOC_HEAP_STATS, &s);

	if (!ret)
		*st = s;
	return ret;
}

int xms_user_stats(struct xms_dev *dev, struct xmemsim_user_stats *st)
{
	struct xmemsim_user_stats s;
	int ret = xms_cmd(dev, XMEMSIM_IOC_USER_STATS, &s);

	if (!ret)
		*st = s;
	return ret;
}

int xms_dump(struct xms_dev *dev, unsigned int heap, struct xmemsim_block *blocks,
	     uint32_t cap, uint32_t *count)
{
	struct xmemsim_heap_dump d = {
		.heap = heap, .capacity = cap,
		.blocks = (uint64_t)(uintptr_t)blocks,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_HEAP_DUMP, &d);

	if (!ret && count)
		*count = d.count;
	return ret;
}

int xms_stack_alloc(struct xms_dev *dev, uint64_t size, uint64_t *addr, int *status)
{
	struct xmemsim_stack_alloc a = { .size = size, .status = 1 };
	int ret = xms_cmd(dev, XMEMSIM_IOC_STACK_ALLOC, &a);

	if (status && a.status != 1)
		*status = a.status;
	if (!ret && addr)
		*addr = a.addr;
	return ret;
}

int xms_copy(struct xms_dev *dev, uint64_t src, uint64_t dst, uint64_t len,
	     unsigned int method)
{
	struct xmemsim_copy c = {
		.src = src, .dst = dst, .len = len, .method = method,
	};

	return xms_cmd(dev, XMEMSIM_IOC_COPY, &c);
}

int xms_dma_info(struct xms_dev *dev, struct xmemsim_dma_info *info)
{
	struct xmemsim_dma_info in;
	int ret = xms_cmd(dev, XMEMSIM_IOC_DMA_INFO, &in);

	if (!ret)
		*info = in;
	return ret;
}

int xms_dma_submit(struct xms_dev *dev, const struct xmemsim_dma_desc *descs,
		   uint32_t count, uint64_t *ticket)
{
	struct xmemsim_dma_submit s = {
		.descs = (uintptr_t)descs, .count = count,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_DMA_SUBMIT, &s);

	if (!ret && ticket)
		*ticket = s.ticket;
	return ret;
}

int xms_dma_wait(struct xms_dev *dev, uint64_t ticket, int64_t timeout_ns,
		 struct xmemsim_dma_wait *done)
{
	struct xmemsim_dma_wait w = { .ticket = ticket, .timeout_ns = timeout_ns };
	int ret = xms_cmd(dev, XMEMSIM_IOC_DMA_WAIT, &w);

	if (!ret && done)
		*done = w;
	return ret;
}

int xms_dma_reap(struct xms_dev *dev, struct xmemsim_dma_completion *recs,
		 uint32_t cap, int64_t timeout_ns, uint32_t *count)
{
	struct xmemsim_dma_reap r = {
		.recs = (uint64_t)(uintptr_t)recs, .capacity = cap,
		.timeout_ns = timeout_ns,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_DMA_REAP, &r);

	if (count)
		*count = ret ? 0 : r.count;
	return ret;
}

int xms_dma_reset(struct xms_dev *dev, uint32_t engine, uint32_t queue,
		  int32_t *status)
{
	struct xmemsim_dma_reset r = { .engine = engine, .queue = queue };
	int ret = xms_cmd(dev, XMEMSIM_IOC_DMA_RESET, &r);

	if (!ret && status)
		*status = r.status;
	return ret;
}

/* SEM_SET, SEM_GET or SEM_WAIT on one of the file's semaphores. */
static int sem_cmd(struct xms_dev *dev, unsigned long cmd, uint32_t sem,
		   uint64_t *value, int64_t timeout_ns)
{
	struct xmemsim_sem s = {
		.sem = sem, .value = *value, .timeout_ns = timeout_ns,
	};
	int ret = xms_cmd(dev, cmd, &s);

	if (!ret)
		*value = s.value;
	return ret;
}

int xms_sem_set(struct xms_dev *dev, uint32_t sem, uint64_t value)
{
	return sem_cmd(dev, XMEMSIM_IOC_SEM_SET, sem, &value, 0);
}

int xms_sem_get(struct xms_dev *dev, uint32_t sem, uint64_t *value)
{
	uint64_t v = 0;
	int ret = sem_cmd(dev, XMEMSIM_IOC_SEM_GET, sem, &v, 0);

	if (!ret)
		*value = v;
	return ret;
}

int xms_sem_wait(struct xms_dev *dev, uint32_t sem, uint64_t value,
		 int64_t timeout_ns)
{
	return sem_cmd(dev, XMEMSIM_IOC_SEM_WAIT, sem, &value, timeout_ns);
}

/* The device's message, NUL-terminated whatever it wrote. */
static void copy_err(char *dst, size_t len, const char *src, size_t srclen)
{
	if (dst && len)
		snprintf(dst, len, "%.*s", (int)strnlen(src, srclen), src);
}

int xms_plan_submit(struct xms_dev *dev, uint32_t core, const struct xmemsim_plan_tensor *t,
		    uint32_t count, uint32_t bad[2], char *err, size_t errlen)
{
	struct xmemsim_plan_submit s = {
		.core = core, .count = count,
		.tensors = (uint64_t)(uintptr_t)t,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_PLAN_SUBMIT, &s);

	if (ret)
		copy_err(err, errlen, s.error, sizeof(s.error));
	else
		copy_err(err, errlen, "", 1);
	/* the device writes bad[] with its message, and only then */
	if (bad) {
		bad[0] = ret && s.error[0] ? s.bad[0] : UINT32_MAX;
		bad[1] = ret && s.error[0] ? s.bad[1] : UINT32_MAX;
	}
	return ret;
}

int xms_plan_sync(struct xms_dev *dev, uint32_t *linked, char *err, size_t errlen)
{
	struct xmemsim_plan_sync s = { 0 };
	int ret = xms_cmd(dev, XMEMSIM_IOC_PLAN_SYNC, &s);

	if (ret)
		copy_err(err, errlen, s.error, sizeof(s.error));
	else
		copy_err(err, errlen, "", 1);
	if (!ret && linked)
		*linked = s.linked;
	return ret;
}

int xms_plan_get(struct xms_dev *dev, uint32_t core, struct xmemsim_plan_tensor *out,
		 uint32_t cap, uint32_t *count, uint32_t *synced)
{
	struct xmemsim_plan_get g = {
		.core = core, .capacity = cap,
		.tensors = (uint64_t)(uintptr_t)out,
	};
	int ret = xms_cmd(dev, XMEMSIM_IOC_PLAN_GET, &g);

	if (!ret && count)
		*count = g.count;
	if (!ret && synced)
		*synced = g.synced;
	return ret;
}

int xms_plan_stats(struct xms_dev *dev, uint32_t core, struct xmemsim_plan_stats *st)
{
	struct xmemsim_plan_stats s = { .core = core };
	int ret = xms_cmd(dev, XMEMSIM_IOC_PLAN_STATS, &s);

	if (!ret)
		*st = s;
	return ret;
}

int xms_plan_release(struct xms_dev *dev)
{
	return xms_cmd(dev, XMEMSIM_IOC_PLAN_RELEASE, NULL);
}

/* IORING_OP_READ/WRITE on an attached ring; -ENOSYS when none is. */
static ssize_t ring_rw(struct xms_dev *dev, uint64_t addr, void *buf,
		       size_t len, int write)
{
	struct xms_ring *r = dev->ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	ssize_t ret;

	if (!r)
		return -ENOSYS;
	sqe = io_uring_get_sqe(r->ring);
	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write(sqe, dev->fd, buf, len, addr);
	else
		io_uring_prep_read(sqe, dev->fd, buf, len, addr);
	io_uring_sqe_set_data64(sqe, 0);
	ret = io_uring_submit_and_wait(r->ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(r->ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(r->ring, cqe);
	return ret;
}

/* The whole of len bytes through the ring if the handle has one, else
 * pread/pwrite: 0, -errno, or -EIO on a short transfer. */
static int rw_all(struct xms_dev *dev, uint64_t addr, void *buf, size_t len,
		  int write)
{
	ssize_t n;

	if (addr > INT64_MAX)
		return -EINVAL;
	n = ring_rw(dev, addr, buf, len, write);
	if (n == -ENOSYS) {
		n = write ? pwrite(dev->fd, buf, len, (off_t)addr) :
			    pread(dev->fd, buf, len, (off_t)addr);
		if (n < 0)
			return -errno;
	}
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

int xms_read(struct xms_dev *dev, uint64_t addr, void *buf, size_t len)
{
	return rw_all(dev, addr, buf, len, 0);
}

int xms_write(struct xms_dev *dev, uint64_t addr, const void *buf, size_t len)
{
	return rw_all(dev, addr, (void *)buf, len, 1);
}

const char *xms_status_name(int status)
{
	switch (status) {
	case XMEMSIM_XMEM_OK:
		return "OK";
	case XMEMSIM_XMEM_PTR_OUT_OF_BOUNDS:
		return "PTR_OUT_OF_BOUNDS";
	case XMEMSIM_XMEM_INVALID_ARGS:
		return "INVALID_ARGS";
	case XMEMSIM_XMEM_ILLEGAL_ALIGN:
		return "ILLEGAL_ALIGN";
	case XMEMSIM_XMEM_ALLOC_FAILED:
		return "ALLOC_FAILED";
	default:
		return "UNKNOWN";
	}
}

int xms_heap_id(const char *name)
{
	if (!strcasecmp(name, "hbm") || !strcmp(name, "0"))
		return XMEMSIM_HEAP_HBM;
	if (!strcasecmp(name, "dataram") || !strcmp(name, "1"))
		return XMEMSIM_HEAP_DATARAM;
	if (!strcasecmp(name, "libc") || !strcmp(name, "2"))
		return XMEMSIM_HEAP_LIBC;
	return -EINVAL;
}

const char *xms_heap_name(unsigned int heap)
{
	switch (heap) {
	case XMEMSIM_HEAP_HBM:
		return "hbm";
	case XMEMSIM_HEAP_DATARAM:
		return "dataram";
	case XMEMSIM_HEAP_LIBC:
		return "libc";
	default:
		return "?";
	}
}

/* The module parameter that sizes a heap's pool, and its value now. */
static const char *pool_param(unsigned int heap, const struct xmemsim_info *in,
			      uint64_t *now)
{
	switch (heap) {
	case XMEMSIM_HEAP_HBM:
		*now = in->hbm_size;
		return "hbm_size";
	case XMEMSIM_HEAP_LIBC:
		*now = in->libc_pool_size;
		return "libc_pool_size";
	default:
		*now = in->dataram_pool_size;
		return NULL;	/* fixed by the seed's layout */
	}
}

int xms_nomem_reason(struct xms_dev *dev, unsigned int heap, uint64_t size,
		     char *buf, size_t len)
{
	struct xmemsim_heap_stats st = { 0 };
	struct xmemsim_info in = { 0 };
	const char *param;
	char asked[48] = "";
	uint64_t now;
	int ret;

	if (!len)
		return -EINVAL;
	ret = xms_get_info(dev, &in);
	if (!ret)
		ret = xms_stats(dev, heap, &st);
	if (ret) {
		snprintf(buf, len, "the %s heap's figures are unreadable: %s",
			 xms_heap_name(heap), strerror(-ret));
		return ret;
	}
	if (size)
		snprintf(asked, sizeof(asked), "%" PRIu64 " bytes asked, ", size);
	param = pool_param(heap, &in, &now);
	if (param)
		snprintf(buf, len, "%s heap: %s%" PRIu64 " free, largest free block %"
			 PRIu64 ", of a %" PRIu64 "-byte pool; its size is module parameter %s (now %" PRIu64 " = 0x%" PRIx64 ")",
			 xms_heap_name(heap), asked, (uint64_t)st.free_bytes,
			 (uint64_t)st.largest_free, (uint64_t)st.pool_size, param,
			 now, now);
	else
		snprintf(buf, len, "%s heap: %s%" PRIu64 " free, largest free block %"
			 PRIu64 ", of a %" PRIu64 "-byte pool; its size is fixed (no module parameter sizes it): use the hbm or libc heap",
			 xms_heap_name(heap), asked, (uint64_t)st.free_bytes,
			 (uint64_t)st.largest_free, (uint64_t)st.pool_size);
	return 0;
}

int xms_fault_arm(struct xms_dev *dev, uint32_t site, uint32_t flags,
		  uint64_t skip, uint64_t times)
{
	struct xmemsim_fault_arm a = {
		.site = site, .flags = flags, .skip = skip, .times = times,
	};

	return xms_cmd(dev, XMEMSIM_IOC_FAULT_ARM, &a);
}

int xms_mem_error(struct xms_dev *dev, uint64_t addr, uint32_t kind)
{
	struct xmemsim_mem_error e = { .addr = addr, .kind = kind };

	return xms_cmd(dev, XMEMSIM_IOC_MEM_ERROR, &e);
}
