/* SPDX-License-Identifier: GPL-2.0 */
/*
 * users.h: the VM tests' other users. run.sh gives the node to a group
 * (XMEMSIM_NODE_GID) as the udev rule does; a child becomes uid 65534 in
 * that group, sets up what it holds, says so on a pipe, and is killed by
 * the parent when the test is done. Shared by multiuser.c and fair.c.
 */
#ifndef XMEMSIM_TEST_USERS_H
#define XMEMSIM_TEST_USERS_H

#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static gid_t node_gid;
static int ready[2];

static inline void users_init(void)
{
	const char *g = getenv("XMEMSIM_NODE_GID");

	node_gid = g ? (gid_t)atoi(g) : 0;
}

/* A page shared between parent and children, zeroed. */
static inline void *shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static inline int become(uid_t uid)
{
	return setgroups(1, &node_gid) || setgid(uid) || setuid(uid) ||
	       getuid() != uid ? -1 : 0;
}

/*
 * Start fn(arg) as uid: it sets up what it holds, calls say_ready() (or
 * hold()) and waits to be killed (still holding it). Returns the child,
 * after its byte came; -1 if it died first.
 */
static inline pid_t start_as(uid_t uid, int (*fn)(void *), void *arg)
{
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(ready[0]);
		if (become(uid))
			_exit(100);
		_exit(fn(arg));
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(ready[0]);
	return pid;
}

/* The attacker: uid 65534. */
static inline pid_t attacker(int (*fn)(void *), void *arg)
{
	return start_as(NOBODY, fn, arg);
}

/*
 * The attacker, given a zeroed shared page of len bytes to report in:
 * the page (NULL if none), *pid the attacker or -1.
 */
static inline void *attacker_reporting(int (*fn)(void *), size_t len, pid_t *pid)
{
	void *res = shared(len);

	*pid = res ? attacker(fn, res) : -1;
	return res;
}

/* In the child: its set-up is done, the parent may go on. */
static inline void say_ready(void)
{
	char c = 'r';

	if (write(ready[1], &c, 1) != 1)
		_exit(99);
}

/* In the child: say_ready(), then hold what it has until killed. */
static inline void hold(void)
{
	say_ready();
	for (;;)
		pause();
}

static inline void finish(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#endif
