# xmemctl (dramplan's rule lives with the planner)
TOOLS += $(O)/xmemctl

# plan load: the bridge and the planner (to read plan.json)
$(O)/xmemctl: $(O)/userspace/tools/xmemctl.o $(O)/userspace/tools/xmstat.o \
		$(O)/userspace/tools/xmemctl_bench.o \
		$(O)/libdramplan-device.a $(O)/libdramplan.a $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS) -luring
