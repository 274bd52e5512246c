# Host unit tests of shared test infrastructure (the heap reference model).
MODEL_OBJS := $(O)/tests/model/xmem_model.o
HOST_TESTS += $(O)/tests/host/test_xmem_model $(O)/tests/host/test_libxmemsim

$(O)/tests/host/test_%: $(O)/tests/host/test_%.o $(MODEL_OBJS)
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS)

# libxmemsim's handle, against /dev/null (no device needed)
$(O)/tests/host/test_libxmemsim: $(O)/tests/host/test_libxmemsim.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring
