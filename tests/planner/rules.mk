# Planner host tests: one binary per test_*.c, linked with libdramplan.
PLANNER_TEST_SRCS := $(wildcard tests/planner/test_*.c)
PLANNER_TEST_HELPERS := $(O)/tests/planner/planner_util.o
HOST_TESTS += $(patsubst tests/planner/%.c,$(O)/tests/planner/%,$(PLANNER_TEST_SRCS))

# The tests find examples/ and the MiniMalloc instances from the repo root.
$(O)/tests/planner/%.o: XCFLAGS += -DDP_SRCROOT=\"$(CURDIR)\"

$(O)/tests/planner/%: $(O)/tests/planner/%.o $(PLANNER_TEST_HELPERS) $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

# The bridge's tests (the device is fake_dev.c's xms_* functions, and
# test_planrun's DMA): libdramplan-device before libdramplan.
PLANNER_BRIDGE_TESTS := $(O)/tests/planner/test_agree $(O)/tests/planner/test_triple \
	$(O)/tests/planner/test_planrun
$(PLANNER_BRIDGE_TESTS): %: %.o $(PLANNER_TEST_HELPERS) $(O)/libdramplan-device.a $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)
$(O)/tests/planner/test_agree $(O)/tests/planner/test_planrun: $(O)/tests/planner/fake_dev.o

# these run the dramplan binary of the same build
PLANNER_CLI_TESTS := $(addprefix $(O)/tests/planner/,test_cli test_outputs \
	test_slabs test_strategy test_order)
$(PLANNER_CLI_TESTS:%=%.o): XCFLAGS += -DDP_DRAMPLAN=\"$(abspath $(O))/dramplan\"
$(PLANNER_CLI_TESTS): | $(O)/dramplan
# test_mm2model runs the converter of the same build
$(O)/tests/planner/test_mm2model.o: XCFLAGS += -DDP_MM2MODEL=\"$(abspath $(O))/mm2model\"
$(O)/tests/planner/test_mm2model: | $(O)/mm2model
# test_nomem fails the library's allocations one by one: every malloc,
# calloc, realloc and free of the binary (libdramplan's and yajl's too)
# goes through its injector.
$(O)/tests/planner/test_nomem: XLDFLAGS += \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
# and plans one of the benchmark's perfect packings
$(O)/tests/planner/test_nomem: $(O)/scripts/bench-synth.o
# The tests of the search's parts share search_util.c, and plan the
# benchmark's perfect packings (scripts/bench-synth.c)
PLANNER_SEARCH_TESTS := $(patsubst %,$(O)/tests/planner/test_%,slices \
	skyline ruin_recreate blocks glue)
$(PLANNER_SEARCH_TESTS): $(O)/tests/planner/search_util.o $(O)/scripts/bench-synth.o
# test_capacity plans the benchmark's perfect packings too
$(O)/tests/planner/test_capacity: $(O)/scripts/bench-synth.o
