/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmemsim tracepoints: events/xmemsim/{xmemsim_alloc,xmemsim_free,xmemsim_copy,
 * xmemsim_dma_submit,xmemsim_dma_start,xmemsim_dma_end}. The DMA events
 * carry modeled times; the trace's own timestamps are the wall clock.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xmemsim

#if !defined(_XMEMSIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XMEMSIM_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(xmemsim_alloc,
	    TP_PROTO(u32 heap, u64 size, u64 align, u64 addr, int status),
	    TP_ARGS(heap, size, align, addr, status),
	    TP_STRUCT__entry(__field(u32, heap)
			     __field(int, status)
			     __field(u64, size)
			     __field(u64, align)
			     __field(u64, addr)),
	    TP_fast_assign(__entry->heap = heap;
			   __entry->status = status;
			   __entry->size = size;
			   __entry->align = align;
			   __entry->addr = addr;),
	    TP_printk("heap=%u size=%llu align=%llu addr=%#llx status=%d",
		      __entry->heap, __entry->size, __entry->align,
		      __entry->addr, __entry->status)
);

TRACE_EVENT(xmemsim_free,
	    TP_PROTO(u32 heap, u64 addr, int ret),
	    TP_ARGS(heap, addr, ret),
	    TP_STRUCT__entry(__field(u32, heap)
			     __field(int, ret)
			     __field(u64, addr)),
	    TP_fast_assign(__entry->heap = heap;
			   __entry->ret = ret;
			   __entry->addr = addr;),
	    TP_printk("heap=%u addr=%#llx ret=%d", __entry->heap,
		      __entry->addr, __entry->ret)
);

TRACE_EVENT(xmemsim_copy,
	    TP_PROTO(u64 src, u64 dst, u64 len, u32 method, int ret),
	    TP_ARGS(src, dst, len, method, ret),
	    TP_STRUCT__entry(__field(u64, src)
			     __field(u64, dst)
			     __field(u64, len)
			     __field(u32, method)
			     __field(int, ret)),
	    TP_fast_assign(__entry->src = src;
			   __entry->dst = dst;
			   __entry->len = len;
			   __entry->method = method;
			   __entry->ret = ret;),
	    TP_printk("src=%#llx dst=%#llx len=%llu method=%u ret=%d",
		      __entry->src, __entry->dst, __entry->len,
		      __entry->method, __entry->ret)
);

TRACE_EVENT(xmemsim_dma_submit,
	    TP_PROTO(pid_t pid, u64 ticket, u32 engine, u32 queue, u64 len,
		     u64 now_ns),
	    TP_ARGS(pid, ticket, engine, queue, len, now_ns),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u32, engine)
			     __field(u32, queue)
			     __field(u64, ticket)
			     __field(u64, len)
			     __field(u64, now_ns)),
	    TP_fast_assign(__entry->pid = pid;
			   __entry->engine = engine;
			   __entry->queue = queue;
			   __entry->ticket = ticket;
			   __entry->len = len;
			   __entry->now_ns = now_ns;),
	    TP_printk("pid=%d ticket=%llu engine=%u queue=%u len=%llu now_ns=%llu",
		      __entry->pid, __entry->ticket, __entry->engine,
		      __entry->queue, __entry->len, __entry->now_ns)
);

/* start and end: one transfer on its engine, in modeled time */
DECLARE_EVENT_CLASS(xmemsim_dma_xfer,
		    TP_PROTO(pid_t pid, u64 ticket, u32 engine, u32 queue,
			     u64 len, u64 start_ns, u64 end_ns),
		    TP_ARGS(pid, ticket, engine, queue, len, start_ns, end_ns),
		    TP_STRUCT__entry(__field(pid_t, pid)
				     __field(u32, engine)
				     __field(u32, queue)
				     __field(u64, ticket)
				     __field(u64, len)
				     __field(u64, start_ns)
				     __field(u64, end_ns)),
		    TP_fast_assign(__entry->pid = pid;
				   __entry->engine = engine;
				   __entry->queue = queue;
				   __entry->ticket = ticket;
				   __entry->len = len;
				   __entry->start_ns = start_ns;
				   __entry->end_ns = end_ns;),
		    TP_printk("pid=%d ticket=%llu engine=%u queue=%u len=%llu start_ns=%llu end_ns=%llu",
			      __entry->pid, __entry->ticket, __entry->engine,
			      __entry->queue, __entry->len, __entry->start_ns,
			      __entry->end_ns)
);

DEFINE_EVENT(xmemsim_dma_xfer, xmemsim_dma_start,
	     TP_PROTO(pid_t pid, u64 ticket, u32 engine, u32 queue, u64 len,
		      u64 start_ns, u64 end_ns),
	     TP_ARGS(pid, ticket, engine, queue, len, start_ns, end_ns));

DEFINE_EVENT(xmemsim_dma_xfer, xmemsim_dma_end,
	     TP_PROTO(pid_t pid, u64 ticket, u32 engine, u32 queue, u64 len,
		      u64 start_ns, u64 end_ns),
	     TP_ARGS(pid, ticket, engine, queue, len, start_ns, end_ns));

#endif /* _XMEMSIM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
