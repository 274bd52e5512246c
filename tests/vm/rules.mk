# VM tests: built static (O=build/static STATIC=1) and run in the guest.
VM_TEST_SRCS := $(wildcard tests/vm/test_*.c)
VM_TESTS += $(patsubst tests/vm/%.c,$(O)/tests/vm/%,$(VM_TEST_SRCS))

$(O)/tests/vm/%: $(O)/tests/vm/%.o $(O)/libxmemsim.a $(O)/tests/model/xmem_model.o
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring -lpthread

# Programs the suite runs with their own module parameters or arguments
# (tests/vm/run.sh), not in its test_* loop: the hostile-user tests and the
# device fuzzer.
VM_TESTS += $(O)/tests/vm/hostile $(O)/tests/vm/xfuzz

# The example custom op (examples/custom_op.c), run by tests/vm/run.sh.
VM_TESTS += $(O)/tests/vm/custom_op

$(O)/tests/vm/custom_op: $(O)/examples/custom_op.o $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring -lpthread

# The example runtime (examples/runtime.c): a plan.json loaded, inputs
# written, shared tensors read across cores; run by tests/vm/run.sh.
VM_TESTS += $(O)/tests/vm/runtime

$(O)/tests/vm/runtime: $(O)/examples/runtime.o $(O)/libdramplan-device.a \
		$(O)/libdramplan.a $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS) -luring -lpthread

# The many-users tests, run by tests/vm/run.sh with the options of
# modprobe.d/xmemsim-multiuser.conf.
VM_TESTS += $(O)/tests/vm/multiuser

# Fair engines (one user's DMA against another's), run with the same
# options as the many-users tests.
VM_TESTS += $(O)/tests/vm/fair

# Many devices on the interconnect (dma-buf export and import, host pages,
# links), run by tests/vm/run.sh with devices=4 and devices=16.
VM_TESTS += $(O)/tests/vm/peers

# Collectives across devices (libxmemsim's communicator), run by
# tests/vm/run.sh with devices=4 and devices=16.
VM_TESTS += $(O)/tests/vm/collectives

# The DMA timing checker's tests, run by tests/vm/run.sh under dma_check=2
# and under dma_check=1 with a slow clock.
VM_TESTS += $(O)/tests/vm/dma_check

# Failures on purpose (fault sites, the framework's knobs, memory errors),
# run by tests/vm/run.sh on a fresh load.
VM_TESTS += $(O)/tests/vm/faults

# Reducing DMA against the host's reduction (libdramplan-device's).
$(O)/tests/vm/test_reduce: $(O)/tests/vm/test_reduce.o $(O)/userspace/bridge/dp_reduce.o \
		$(O)/libxmemsim.a $(O)/tests/model/xmem_model.o
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring -lpthread -lm

# Several devices of one module, run by tests/vm/run.sh on loads with
# devices=4 and devices=16.
VM_TESTS += $(O)/tests/vm/devices
