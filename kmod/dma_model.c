// SPDX-License-Identifier: GPL-2.0
/*
 * xmemsim queued DMA, the scheduler without a device: the device's own
 * pick, start and completion steps (dma_sched.c) and semaphores
 * (dma_sem.c) on the virtual clock, over users and files made by the
 * device's own initialisers, with no bytes, no records and no worker. Built only
 * with the KUnit suites (kmod/tests/dma_test.c), which hold it against a
 * reference written from the rules alone.
 */
#include <kunit/visibility.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "dma_internal.h"
#include "dma_model.h"

/* The model's state: its users, each with its own engines, and files. */
struct dma_model {
	struct xmemsim_dma dma;
	struct xmemsim_dma_file *df;
	struct xmemsim_dma_user *du;
	struct xmemsim_xfer *x;
	u32 files;			/* made, in df and du */
};

static void model_free(struct dma_model *m)
{
	u32 f;

	for (f = 0; f < m->files; f++) {
		xmemsim_dma_file_fini(&m->df[f]);
		xmemsim_dma_user_fini(&m->du[f]);
	}
	kfree(m->df);
	kfree(m->du);
	kvfree(m->x);
	if (m->dma.stats)
		xmemsim_dma_sched_fini(&m->dma);
	kfree(m);
}

static struct dma_model *model_new(u32 engines, u32 queues, u32 sems,
				   const u32 *file_user, u32 files, u32 n)
{
	struct dma_model *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 f;

	if (!m)
		return NULL;
	m->dma.engines = engines;
	m->dma.queues = queues;
	m->dma.sems = sems;
	m->df = kcalloc(files, sizeof(*m->df), GFP_KERNEL);
	m->du = kcalloc(files, sizeof(*m->du), GFP_KERNEL);
	m->x = kvcalloc(n, sizeof(*m->x), GFP_KERNEL);
	if (xmemsim_dma_sched_init(&m->dma, false) || !m->df || !m->du || !m->x)
		goto nomem;
	for (f = 0; f < files; f++) {
		struct xmemsim_dma_file *df = &m->df[f];

		m->files++;
		if (xmemsim_dma_user_init(&m->dma, &m->du[f], GFP_KERNEL) ||
		    xmemsim_dma_file_init(&m->dma, df, GFP_KERNEL))
			goto nomem;
	}
	for (f = 0; f < files; f++) {
		struct xmemsim_dma_file *df = &m->df[f];

		df->du = &m->du[file_user[f]];
		df->sems.lock = &df->du->lock;
		df->order = f + 1;
		list_add_tail(&df->node, &m->dma.files);
	}
	return m;
nomem:
	model_free(m);
	return NULL;
}

static bool sem_ok(u32 sem, u32 sems)
{
	return sem == XMEMSIM_SEM_NONE || sem < sems;
}

/* Queue the transfers of one call, as one DMA_SUBMIT would. */
static void model_call(struct dma_model *m,
		       const struct xmemsim_dma_model_xfer *t, u32 n, u32 call)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct xmemsim_xfer *x = &m->x[i];
		struct xmemsim_dma_user *du = m->df[t[i].file].du;

		if (t[i].call != call)
			continue;
		INIT_LIST_HEAD(&x->node);
		INIT_LIST_HEAD(&x->sig_node);
		INIT_LIST_HEAD(&x->wait_node);
		x->d = t[i].d;
		x->df = &m->df[t[i].file];
		x->dur = t[i].dur;
		x->ticket = i;
		x->fault = -1;
		mutex_lock(&du->lock);
		xmemsim_dma_enqueue(du, x);
		mutex_unlock(&du->lock);
	}
}

/**
 * xmemsim_dma_model() - the scheduler on descriptors alone
 * @engines: engines in all
 * @queues: queues per engine and file
 * @sems: semaphores per file, all 0 at the start
 * @file_user: [files]: the user (0 .. files - 1) each file belongs to
 * @files: files, in the order the device would have made them
 * @t: [n] transfers; in: file, descriptor (engine, queue, wait, signal),
 *	duration and call (the transfers of call k are queued, in array
 *	order, once the scheduler has run calls 0 .. k - 1 as far as it can,
 *	as separate DMA_SUBMITs with nothing observed between them would);
 *	out: start and end, or U64_MAX for a transfer that never started
 * @n: transfers
 *
 * Return: 0, -EINVAL (a descriptor or user out of range) or -ENOMEM.
 */
VISIBLE_IF_KUNIT int xmemsim_dma_model(u32 engines, u32 queues, u32 sems,
				       const u32 *file_user, u32 files,
				       struct xmemsim_dma_model_xfer *t, u32 n)
{
	struct dma_model *m;
	u32 i, call, calls = 0;

	for (i = 0; i < files; i++)
		if (file_user[i] >= files)
			return -EINVAL;
	for (i = 0; i < n; i++) {
		if (t[i].file >= files || t[i].d.engine >= engines ||
		    t[i].d.queue >= queues || !sem_ok(t[i].d.wait_sem, sems) ||
		    !sem_ok(t[i].d.signal_sem, sems))
			return -EINVAL;
		calls = max(calls, t[i].call + 1);
	}
	m = model_new(engines, queues, sems, file_user, files, n);
	if (!m)
		return -ENOMEM;
	for (call = 0; call < calls; call++) {
		model_call(m, t, n, call);
		for (i = 0; i < files; i++)	/* each user on its own engines */
			xmemsim_dma_sched_run(&m->du[i]);
	}
	for (i = 0; i < n; i++) {
		t[i].start_ns = m->x[i].done ? m->x[i].start_ns : U64_MAX;
		t[i].end_ns = m->x[i].done ? m->x[i].end_ns : U64_MAX;
	}
	model_free(m);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xmemsim_dma_model);	/* its one caller: dma_test.c */
