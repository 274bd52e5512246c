# Host unit tests: the heap reference model (test infrastructure), libxmemsim's
# handle and xmemctl's command line (both against /dev/null).
MODEL_OBJS := $(O)/tests/model/xmem_model.o
HOST_TESTS += $(O)/tests/host/test_xmem_model $(O)/tests/host/test_libxmemsim \
	$(O)/tests/host/test_xmemctl

$(O)/tests/host/test_%: $(O)/tests/host/test_%.o $(MODEL_OBJS)
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS)

# libxmemsim's handle, against /dev/null (no device needed)
$(O)/tests/host/test_libxmemsim: $(O)/tests/host/test_libxmemsim.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring

# xmemctl's command line, against /dev/null; runs the xmemctl of this build
$(O)/tests/host/test_xmemctl.o: XCFLAGS += -DXMEMCTL=\"$(abspath $(O))/xmemctl\"
$(O)/tests/host/test_xmemctl: $(O)/tests/host/test_xmemctl.o | $(O)/xmemctl
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS)

# xmemctl's device view (top, stats --prometheus) on made-up snapshots
HOST_TESTS += $(O)/tests/host/test_xmstat
$(O)/tests/host/test_xmstat.o: XCFLAGS += -I$(CURDIR)/userspace/tools
$(O)/tests/host/test_xmstat: $(O)/tests/host/test_xmstat.o $(O)/userspace/tools/xmstat.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring

# The host's reduction, the reference of the DMA engines' reduce and of
# the KUnit suite's table (kmod/tests/dma_reduce_table.h)
HOST_TESTS += $(O)/tests/host/test_reduce_ref
$(O)/tests/host/test_reduce_ref.o: XCFLAGS += \
	-DREDUCE_TABLE=\"$(CURDIR)/kmod/tests/dma_reduce_table.h\"
$(O)/tests/host/test_reduce_ref: $(O)/tests/host/test_reduce_ref.o $(O)/userspace/bridge/dp_reduce.o
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -lm

# The collectives' schedules (libxmemsim's comm_sched.c) run on host
# memory against the host reduction in the ring's order
HOST_TESTS += $(O)/tests/host/test_comm_sched
$(O)/tests/host/test_comm_sched: $(O)/tests/host/test_comm_sched.o \
		$(O)/userspace/bridge/dp_reduce.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring
