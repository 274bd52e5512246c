# VM tests: built static (O=build/static STATIC=1) and run in the guest.
VM_TEST_SRCS := $(wildcard tests/vm/test_*.c)
VM_TESTS += $(patsubst tests/vm/%.c,$(O)/tests/vm/%,$(VM_TEST_SRCS))

$(O)/tests/vm/%: $(O)/tests/vm/%.o $(O)/libxmemsim.a $(O)/tests/model/xmem_model.o
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) -luring -lpthread
