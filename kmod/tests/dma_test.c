// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the queued-DMA timing model. The duration every modeled time is
 * built from; and the device's scheduler (xmemsim_dma_model(): its own
 * pick, start and completion steps with no bytes moved) against a small
 * reference scheduler written here from the model's rules, on random
 * descriptor sets, with the rules' consequences checked on their own.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "suite.h"
#include "../dma_model.h"
#include "../xmemsim.h"

struct dur_case {
	const char *name;
	u64 latency, bw, len, expect;
};

static const struct dur_case dur_cases[] = {
	{ "latency only", 2000, 16000000000ULL, 0, 2000 },
	{ "16 KB at 16 GB/s: 1 us", 2000, 16000000000ULL, 16000, 3000 },
	{ "1 MiB at 16 GB/s", 2000, 16000000000ULL, 1 << 20, 2000 + 65536 },
	{ "rounds down", 0, 3, 1, 333333333 },
	{ "one byte a second", 0, 1, 5, 5000000000ULL },
	{ "len * 1e9 past 2^64, no overflow", 0, 1000000000, U64_MAX / 2, U64_MAX / 2 },
	{ "saturates", U64_MAX - 1, 1, 1, U64_MAX },
};

static void dur_desc(const struct dur_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dur, dur_cases, dur_desc);

static void duration_test(struct kunit *test)
{
	const struct dur_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xmemsim_dma_duration(c->latency, c->bw, c->len),
			c->expect);
}

/* more bytes never take less time; more bandwidth never takes more */
static void duration_monotonic_test(struct kunit *test)
{
	u64 len, prev = 0;

	for (len = 0; len < (1ULL << 40); len = len * 3 + 1) {
		u64 t = xmemsim_dma_duration(100, 7000000001ULL, len);

		KUNIT_EXPECT_GE(test, t, prev);
		KUNIT_EXPECT_LE(test, t, xmemsim_dma_duration(100, 7000000000ULL, len));
		prev = t;
	}
}

/* --- the scheduler against a reference ------------------------------------ */

#define REF_E 4
#define REF_Q 3
#define REF_F 4
#define REF_S 3
#define REF_N 48

/*
 * The reference: the rules of uapi/xmemsim.h and kmod/dma.c, as a plain
 * event loop over arrays, run for each user on engines of its own. At
 * modeled time now every idle engine, in engine order, starts the ready
 * queue head (the first transfer of its (file, engine, queue) in
 * submission order not yet started, whose wait semaphore has reached its
 * value) of the user's pair it served least recently, then the lowest
 * file and queue; then now moves to the earliest end, where the transfers
 * ending complete in engine order and signal.
 */
struct ref {
	u32 engines, queues, files;
	const u32 *user;
	u32 who;			/* the user running now */
	u64 pstamp[REF_E][REF_F][REF_Q], serial[REF_E];
	u64 sem[REF_F][REF_S];
	int cur[REF_E];
	bool started[REF_N];
};

static int ref_head(const struct ref *r, const struct xmemsim_dma_model_xfer *t,
		    u32 n, u32 f, u32 e, u32 q)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (!r->started[i] && t[i].file == f && t[i].d.engine == e &&
		    t[i].d.queue == q)
			return i;
	return -1;
}

static bool ref_ready(const struct ref *r, const struct xmemsim_dma_model_xfer *x)
{
	return x->d.wait_sem == XMEMSIM_SEM_NONE ||
	       r->sem[x->file][x->d.wait_sem] >= x->d.wait_value;
}

/* Was (f, q) served by engine e less recently than the head x? */
static bool ref_before(const struct ref *r, u32 e, u32 f, u32 q,
		       const struct xmemsim_dma_model_xfer *x)
{
	return r->pstamp[e][f][q] < r->pstamp[e][x->file][x->d.queue];
}

static int ref_pick(struct ref *r, const struct xmemsim_dma_model_xfer *t,
		    u32 n, u32 e)
{
	int best = -1, h;
	u32 f, q;

	for (f = 0; f < r->files; f++)
		for (q = 0; q < r->queues && r->user[f] == r->who; q++) {
			h = ref_head(r, t, n, f, e, q);
			if (h < 0 || !ref_ready(r, &t[h]))
				continue;
			if (best < 0 || ref_before(r, e, f, q, &t[best]))
				best = h;
		}
	if (best >= 0) {
		f = t[best].file;
		r->serial[e]++;
		r->pstamp[e][f][t[best].d.queue] = r->serial[e];
		r->started[best] = true;
	}
	return best;
}

/* One user's transfers on its own engines. */
static void ref_run_user(struct ref *r, struct xmemsim_dma_model_xfer *t, u32 n)
{
	u64 now = 0, end;
	u32 e;

	memset(r->serial, 0, sizeof(r->serial));
	for (e = 0; e < r->engines; e++)
		r->cur[e] = -1;
	for (;;) {
		end = U64_MAX;
		for (e = 0; e < r->engines; e++) {
			if (r->cur[e] < 0) {
				r->cur[e] = ref_pick(r, t, n, e);
				if (r->cur[e] >= 0) {
					t[r->cur[e]].start_ns = now;
					t[r->cur[e]].end_ns = now + t[r->cur[e]].dur;
				}
			}
			if (r->cur[e] >= 0)
				end = min(end, t[r->cur[e]].end_ns);
		}
		if (end == U64_MAX)
			return;
		now = end;
		for (e = 0; e < r->engines; e++) {
			const struct xmemsim_dma_model_xfer *x;

			if (r->cur[e] < 0 || t[r->cur[e]].end_ns != now)
				continue;
			x = &t[r->cur[e]];
			if (x->d.signal_sem != XMEMSIM_SEM_NONE)
				r->sem[x->file][x->d.signal_sem] += x->d.signal_inc;
			r->cur[e] = -1;
		}
	}
}

static void ref_run(struct ref *r, struct xmemsim_dma_model_xfer *t, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		t[i].start_ns = U64_MAX;
		t[i].end_ns = U64_MAX;
	}
	for (r->who = 0; r->who < r->files; r->who++)
		ref_run_user(r, t, n);
}

struct model_case {
	u32 engines, queues, files, n;
	u32 user[REF_F];
	struct xmemsim_dma_model_xfer t[REF_N];
};

static void random_case(struct rnd_state *rs, struct model_case *c)
{
	u32 i, f;

	memset(c, 0, sizeof(*c));
	c->engines = 1 + prandom_u32_state(rs) % REF_E;
	c->queues = 1 + prandom_u32_state(rs) % REF_Q;
	c->files = 1 + prandom_u32_state(rs) % REF_F;
	c->n = 1 + prandom_u32_state(rs) % REF_N;
	for (f = 0; f < c->files; f++)	/* users 0 .. f, so some share */
		c->user[f] = prandom_u32_state(rs) % (f + 1);
	for (i = 0; i < c->n; i++) {
		struct xmemsim_dma_model_xfer *x = &c->t[i];

		x->file = prandom_u32_state(rs) % c->files;
		x->d.engine = prandom_u32_state(rs) % c->engines;
		x->d.queue = prandom_u32_state(rs) % c->queues;
		/* few distinct durations, so that ends tie */
		x->dur = 1 + (prandom_u32_state(rs) % 4) * 1000;
		x->d.wait_sem = XMEMSIM_SEM_NONE;
		x->d.signal_sem = XMEMSIM_SEM_NONE;
		if (prandom_u32_state(rs) % 3 == 0) {
			x->d.wait_sem = prandom_u32_state(rs) % REF_S;
			x->d.wait_value = 1 + prandom_u32_state(rs) % 3;
		}
		if (prandom_u32_state(rs) % 2 == 0) {
			x->d.signal_sem = prandom_u32_state(rs) % REF_S;
			x->d.signal_inc = 1 + prandom_u32_state(rs) % 2;
		}
	}
}

/* What the model's rules say, checked on the device's answer alone. */
static void check_rules(struct kunit *test, const struct model_case *c,
			const struct xmemsim_dma_model_xfer *t)
{
	u32 i, j;

	for (i = 0; i < c->n; i++) {
		const struct xmemsim_dma_model_xfer *x = &t[i];
		u64 sem = 0;

		if (x->start_ns == U64_MAX)
			continue;
		KUNIT_EXPECT_EQ(test, x->end_ns - x->start_ns, x->dur);
		for (j = 0; j < c->n; j++) {
			const struct xmemsim_dma_model_xfer *y = &t[j];

			if (j == i || y->start_ns == U64_MAX)
				continue;
			/* a user's engine runs one transfer at a time */
			if (y->d.engine == x->d.engine &&
			    c->user[y->file] == c->user[x->file])
				KUNIT_EXPECT_TRUE(test, y->end_ns <= x->start_ns ||
						  x->end_ns <= y->start_ns);
			/* a queue is FIFO */
			if (j < i && y->file == x->file && y->d.engine == x->d.engine &&
			    y->d.queue == x->d.queue)
				KUNIT_EXPECT_LE(test, y->end_ns, x->start_ns);
			if (y->file == x->file && y->d.signal_sem == x->d.wait_sem &&
			    y->end_ns <= x->start_ns)
				sem += y->d.signal_inc;
		}
		/* it waited for its semaphore */
		if (x->d.wait_sem != XMEMSIM_SEM_NONE)
			KUNIT_EXPECT_GE(test, sem, x->d.wait_value);
	}
}

static void scheduler_matches_reference_test(struct kunit *test)
{
	struct model_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct xmemsim_dma_model_xfer *want;
	struct rnd_state rs;
	struct ref *r;
	u32 round, i, started = 0, waited = 0;

	want = kunit_kcalloc(test, REF_N, sizeof(*want), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && want && r);
	prandom_seed_state(&rs, 20261201);
	for (round = 0; round < 400; round++) {
		random_case(&rs, c);
		memcpy(want, c->t, sizeof(*want) * c->n);
		memset(r, 0, sizeof(*r));
		r->engines = c->engines;
		r->queues = c->queues;
		r->files = c->files;
		r->user = c->user;
		ref_run(r, want, c->n);
		KUNIT_ASSERT_EQ(test, xmemsim_dma_model(c->engines, c->queues, REF_S,
							c->user, c->files, c->t, c->n), 0);
		for (i = 0; i < c->n; i++) {
			KUNIT_EXPECT_EQ_MSG(test, c->t[i].start_ns, want[i].start_ns,
					    "round %u transfer %u", round, i);
			KUNIT_EXPECT_EQ_MSG(test, c->t[i].end_ns, want[i].end_ns,
					    "round %u transfer %u", round, i);
			started += c->t[i].start_ns != U64_MAX;
			waited += c->t[i].start_ns != U64_MAX &&
				  c->t[i].d.wait_sem != XMEMSIM_SEM_NONE;
		}
		check_rules(test, c, c->t);
	}
	/* the sets exercised what they are for */
	kunit_info(test, "%u transfers started, %u after a semaphore wait\n",
		   started, waited);
	KUNIT_EXPECT_GT(test, waited, 100U);
}

/* The same submissions give the same times on every run. */
static void scheduler_is_deterministic_test(struct kunit *test)
{
	struct model_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct xmemsim_dma_model_xfer *first;
	struct rnd_state rs;
	u32 round;

	first = kunit_kcalloc(test, REF_N, sizeof(*first), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && first);
	prandom_seed_state(&rs, 7);
	for (round = 0; round < 50; round++) {
		random_case(&rs, c);
		KUNIT_ASSERT_EQ(test, xmemsim_dma_model(c->engines, c->queues, REF_S,
							c->user, c->files, c->t, c->n), 0);
		memcpy(first, c->t, sizeof(*first) * c->n);
		KUNIT_ASSERT_EQ(test, xmemsim_dma_model(c->engines, c->queues, REF_S,
							c->user, c->files, c->t, c->n), 0);
		KUNIT_EXPECT_EQ(test, memcmp(first, c->t, sizeof(*first) * c->n), 0);
	}
}

/*
 * A pipeline's modeled times do not depend on how it is split into
 * DMA_SUBMITs, on the virtual clock with nothing observed between them,
 * when each engine serves one queue of the file and each semaphore is
 * signalled from one queue (uapi/xmemsim.h, the clock). Random such
 * pipelines, each split into up to 32 calls at random, against one call.
 */
static void split_submits_keep_times_test(struct kunit *test)
{
	struct model_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct xmemsim_dma_model_xfer *one;
	struct rnd_state rs;
	u32 round, i, call, split = 0, waited = 0;

	one = kunit_kcalloc(test, REF_N, sizeof(*one), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && one);
	prandom_seed_state(&rs, 20261203);
	for (round = 0; round < 300; round++) {
		random_case(&rs, c);
		c->files = 1;
		c->user[0] = 0;
		for (i = 0; i < c->n; i++) {
			struct xmemsim_dma_model_xfer *x = &c->t[i];

			x->file = 0;
			if (x->d.signal_sem != XMEMSIM_SEM_NONE)
				x->d.engine = x->d.signal_sem % c->engines;
			x->d.queue = x->d.engine % c->queues;
			x->call = 0;
		}
		KUNIT_ASSERT_EQ(test, xmemsim_dma_model(c->engines, c->queues, REF_S,
							c->user, 1, c->t, c->n), 0);
		memcpy(one, c->t, sizeof(*one) * c->n);
		for (i = 0, call = 0; i < c->n; i++) {
			if (call < 31 && prandom_u32_state(&rs) % 3 == 0)
				call++;
			c->t[i].call = call;
		}
		split += call > 0;
		KUNIT_ASSERT_EQ(test, xmemsim_dma_model(c->engines, c->queues, REF_S,
							c->user, 1, c->t, c->n), 0);
		for (i = 0; i < c->n; i++) {
			KUNIT_EXPECT_EQ_MSG(test, c->t[i].start_ns, one[i].start_ns,
					    "round %u transfer %u call %u", round, i,
					    c->t[i].call);
			KUNIT_EXPECT_EQ_MSG(test, c->t[i].end_ns, one[i].end_ns,
					    "round %u transfer %u", round, i);
			waited += c->t[i].call && c->t[i].start_ns != U64_MAX &&
				  c->t[i].d.wait_sem != XMEMSIM_SEM_NONE;
		}
	}
	kunit_info(test, "%u rounds split, %u later-call transfers waited\n",
		   split, waited);
	KUNIT_EXPECT_GT(test, waited, 50U);
}

/*
 * User 0 with three files of five transfers each on engine 0, user 1 with
 * one file of five: each user has the engine to itself in its modeled
 * time, so user 1's k-th transfer starts at k x 10 whatever user 0's
 * files do, and user 0's three files take turns.
 */
static void users_have_own_engines_test(struct kunit *test)
{
	struct model_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u32 i, k = 0;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->engines = 1;
	c->queues = 1;
	c->files = 4;
	c->user[3] = 1;
	c->n = 20;
	for (i = 0; i < c->n; i++) {
		c->t[i].file = i % 4;
		c->t[i].dur = 10;
		c->t[i].d.wait_sem = XMEMSIM_SEM_NONE;
		c->t[i].d.signal_sem = XMEMSIM_SEM_NONE;
	}
	KUNIT_ASSERT_EQ(test, xmemsim_dma_model(1, 1, 1, c->user, 4, c->t, 20), 0);
	for (i = 3; i < c->n; i += 4, k++)
		KUNIT_EXPECT_EQ(test, c->t[i].start_ns, k * 10);
	/* user 0's three files share its engine in turn */
	KUNIT_EXPECT_EQ(test, c->t[0].start_ns, 0);
	KUNIT_EXPECT_EQ(test, c->t[1].start_ns, 10);
	KUNIT_EXPECT_EQ(test, c->t[2].start_ns, 20);
	KUNIT_EXPECT_EQ(test, c->t[4].start_ns, 30);
}

static void model_refuses_bad_input_test(struct kunit *test)
{
	struct xmemsim_dma_model_xfer t = {
		.d = { .engine = 2, .wait_sem = XMEMSIM_SEM_NONE,
		       .signal_sem = XMEMSIM_SEM_NONE },
		.dur = 1,
	};
	u32 user = 0;

	KUNIT_EXPECT_EQ(test, xmemsim_dma_model(2, 1, 1, &user, 1, &t, 1), -EINVAL);
	t.d.engine = 1;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_model(2, 1, 1, &user, 1, &t, 1), 0);
	KUNIT_EXPECT_EQ(test, t.end_ns, 1);
	t.d.wait_sem = 1;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_model(2, 1, 1, &user, 1, &t, 1), -EINVAL);
	t.d.wait_sem = 0;
	t.d.wait_value = 1;	/* never comes: never starts */
	KUNIT_EXPECT_EQ(test, xmemsim_dma_model(2, 1, 1, &user, 1, &t, 1), 0);
	KUNIT_EXPECT_EQ(test, t.start_ns, U64_MAX);
	user = 1;
	KUNIT_EXPECT_EQ(test, xmemsim_dma_model(2, 1, 1, &user, 1, &t, 1), -EINVAL);
}

XMEMSIM_SUITE(dma, "xmemsim_dma", NULL, NULL,
	      KUNIT_CASE_PARAM(duration_test, dur_gen_params),
	      KUNIT_CASE(duration_monotonic_test),
	      KUNIT_CASE(scheduler_matches_reference_test),
	      KUNIT_CASE(scheduler_is_deterministic_test),
	      KUNIT_CASE(split_submits_keep_times_test),
	      KUNIT_CASE(users_have_own_engines_test),
	      KUNIT_CASE(model_refuses_bad_input_test));
