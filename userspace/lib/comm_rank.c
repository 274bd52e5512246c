// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * comm_rank.c - a rank in a process of its own (xms_comm_init_rank), as
 * NCCL's ncclCommInitRank makes one: the same schedule as every other
 * rank, run for its own transfers, with what it needs of its neighbours
 * over two Unix sockets.
 *
 * Every rank walks the whole schedule in the same order. A transfer of
 * its own that waits for a neighbour's takes that transfer's end from the
 * neighbour's socket; a neighbour's transfer that waits for one of its own
 * makes it reap that one and send the end. Both sides meet each message
 * at the same place of the walk, so each socket carries them in order and
 * nothing waits for what comes later. A ring step's wait goes forward
 * (rank r - 1 to r: its sock_prev), the first copy of a destination
 * backward (r + 1 to r: sock_next). At a call's start each rank sends the
 * dma-buf fds of its destination buffers back to the previous rank
 * (SCM_RIGHTS), which imports them; at its end a rank waits for the
 * previous rank's word that everything it wrote here has landed.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libxmemsim.h"
#include "comm_run.h"

#define MSG_DONE	(-1)
#define MSG_FD		(-2)

struct comm_msg {
	int64_t op;		/* the transfer, or MSG_* */
	uint64_t end_ns;
	int32_t status;
	uint32_t buf;
};

/* Send m (and fd, when >= 0) on sock. */
static int msg_send(int sock, const struct comm_msg *m, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		h.msg_control = ctl;
		h.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &h, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 :
	       errno ? -errno : -EPROTO;
}

/* The next message on sock (and its fd in *fd, or -1), within WAIT_NS. */
static int msg_recv(int sock, struct comm_msg *m, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t n;
	int ret = poll(&p, 1, (int)(WAIT_NS / 1000000));

	if (ret <= 0)
		return ret ? -errno : -ETIMEDOUT;
	n = recvmsg(sock, &h, MSG_WAITALL | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(*m))
		return -ECONNRESET;	/* the neighbour is gone, or failed */
	c = CMSG_FIRSTHDR(&h);
	if (fd)
		*fd = -1;
	if (c && c->cmsg_type == SCM_RIGHTS && fd)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	else if (c && c->cmsg_type == SCM_RIGHTS) {
		int stray;

		memcpy(&stray, CMSG_DATA(c), sizeof(int));
		close(stray);
	}
	return 0;
}

/* Send the fds of this rank's link destinations back; import the next rank's. */
int rank_link_all(struct run *x)
{
	int used[XMS_NUM_BUFS] = { 0 }, me = x->c->me, b, fd, ret = 0;
	struct xms_dev *dev = &x->c->r[me].dev;
	size_t j;

	for (j = 0; j < x->s->n; j++)
		if (x->s->ops[j].link)
			used[x->s->ops[j].dbuf] = 1;
	for (b = 0; b < XMS_NUM_BUFS && !ret; b++) {
		struct xmemsim_dmabuf_export ex = { .addr = x->base[me][b],
						    .len = x->s->buf_len[b] };
		struct comm_msg m = { .op = MSG_FD, .buf = (uint32_t)b };

		if (!used[b])
			continue;
		ret = xms_cmd(dev, XMEMSIM_IOC_DMABUF_EXPORT, &ex);
		if (!ret) {
			ret = msg_send(x->c->sock_prev, &m, ex.fd);
			close(ex.fd);
		}
	}
	for (b = 0; b < XMS_NUM_BUFS && !ret; b++) {
		struct xmemsim_dmabuf_import im = { 0 };
		struct comm_msg m;

		if (!used[b])
			continue;
		ret = msg_recv(x->c->sock_next, &m, &fd);
		if (!ret && (m.op != MSG_FD || m.buf != (uint32_t)b || fd < 0))
			ret = -EPROTO;
		if (ret)
			break;
		im.fd = fd;
		ret = xms_cmd(dev, XMEMSIM_IOC_DMABUF_IMPORT, &im);
		close(fd);
		comm_imp(x, (uint32_t)me, (uint32_t)(me + 1) % (uint32_t)x->c->n)[b] =
			ret ? 0 : im.addr;
	}
	return ret;
}

/* A ring step's wait goes forward, a first copy's backward. */
static int dep_sock(const struct run *x, size_t d, int sending)
{
	int fwd = x->s->ops[d].link;

	return fwd == sending ? x->c->sock_next : x->c->sock_prev;
}

/* The end of a neighbour's transfer d that one of ours waits for. */
int rank_dep(struct run *x, size_t d)
{
	struct comm_msg m;
	int ret;

	if (x->state[d] == 2)
		return 0;
	ret = msg_recv(dep_sock(x, d, 0), &m, NULL);
	if (!ret && m.op != (int64_t)d)
		ret = -EPROTO;
	if (!ret && m.status)
		ret = m.status;
	x->state[d] = 2;
	x->end[d] = ret ? x->t0 : m.end_ns;
	return ret;
}

/* A neighbour's transfer j: send it the ends of ours it waits for. */
int rank_serve(struct run *x, size_t j)
{
	const struct xms_cop *o = &x->s->ops[j];
	int i, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		int32_t d = o->dep[i];
		struct comm_msg m = { .op = d };

		if (d < 0 || x->s->ops[d].rank != (uint32_t)x->c->me)
			continue;
		m.status = comm_reap(x, (size_t)d);
		m.end_ns = x->end[d];
		ret = msg_send(dep_sock(x, (size_t)d, 1), &m, -1);
		if (!ret)
			ret = m.status;
	}
	return ret;
}

/*
 * Tell the next rank ours have landed (and when); wait for the previous
 * rank's word: the call ends here at the later of the two.
 */
int rank_barrier(struct run *x)
{
	struct comm_msg m = { .op = MSG_DONE, .end_ns = x->tmax };
	int ret = x->c->n > 1 ? msg_send(x->c->sock_next, &m, -1) : 0;

	if (!ret && x->c->n > 1)
		ret = msg_recv(x->c->sock_prev, &m, NULL);
	if (!ret && x->c->n > 1 && m.op != MSG_DONE)
		ret = -EPROTO;
	if (!ret && m.end_ns > x->tmax)	/* the last of its transfers into this rank */
		x->tmax = m.end_ns;
	return ret;
}

/* A failed call leaves the ring: the neighbours see their sockets end. */
void rank_fail(struct run *x)
{
	if (x->c->n > 1) {
		shutdown(x->c->sock_prev, SHUT_RDWR);
		shutdown(x->c->sock_next, SHUT_RDWR);
	}
}

int xms_comm_init_rank(struct xms_comm **comm, int nranks, int rank, int dev,
		       int sock_prev, int sock_next)
{
	struct xms_comm *c;
	int ret;

	if (!comm || nranks < 1 || nranks > 4096 || rank < 0 || rank >= nranks ||
	    dev < 0 || (nranks > 1 && (sock_prev < 0 || sock_next < 0)))
		return -EINVAL;
	c = comm_alloc(nranks, rank);
	if (!c)
		return -ENOMEM;
	c->sock_prev = sock_prev;
	c->sock_next = sock_next;
	ret = comm_open(&c->r[rank], dev);
	if (ret) {
		xms_comm_destroy(c);
		return ret;
	}
	*comm = c;
	return 0;
}

int xms_comm_user_rank(const struct xms_comm *comm)
{
	return !comm ? -EINVAL : comm->me < 0 ? 0 : comm->me;
}
