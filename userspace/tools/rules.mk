# xmemctl (dramplan's rule lives with the planner)
TOOLS += $(O)/xmemctl

$(O)/xmemctl: $(O)/userspace/tools/xmemctl.o $(O)/userspace/tools/xmstat.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring -lyajl_s
