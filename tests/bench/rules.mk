# Benchmarks that run in the test VM (built static with the VM tests).
VM_TESTS += $(O)/tests/bench/bench_uring

$(O)/tests/bench/bench_uring: $(O)/tests/bench/bench_uring.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring
VM_TESTS += $(O)/tests/bench/bench_dma

$(O)/tests/bench/bench_dma: $(O)/tests/bench/bench_dma.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring
