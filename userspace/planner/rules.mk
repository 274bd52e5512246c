# libdramplan (the DRAM planner), the dramplan tool, the planner benchmark.
# The dramplan tool's rule lives here, not in userspace/tools/rules.mk.

# A folder a stage (internal.h): model -> place -> search -> plan, and io
# for all of them.
DRAMPLAN_STAGES := model place search plan io
DRAMPLAN_SRCS := $(wildcard userspace/planner/*.c \
	$(patsubst %,userspace/planner/%/*.c,$(DRAMPLAN_STAGES)))
DRAMPLAN_OBJS := $(patsubst %.c,$(O)/%.o,$(DRAMPLAN_SRCS))
# yajl (the strict JSON reader, io/jdoc.c): the static archive, so the static
# VM build and the host build link the same way. libm: libdramplan-device's
# host reduction (userspace/bridge/dp_reduce.c), linked with the planner.
DRAMPLAN_LDLIBS := -lyajl_s -lm

LIBS += $(O)/libdramplan.a
TOOLS += $(O)/dramplan

# (rebuilt when this file changes: an object moved out must leave it)
$(O)/libdramplan.a: $(DRAMPLAN_OBJS) userspace/planner/rules.mk
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

# dramplan --submit talks to the device: the bridge (libdramplan-device,
# userspace/bridge/), then libdramplan, libxmemsim and liburing.
DRAMPLAN_TOOL_OBJS := $(O)/userspace/tools/dramplan.o \
	$(O)/userspace/tools/dramplan_submit.o

$(O)/dramplan: $(DRAMPLAN_TOOL_OBJS) $(O)/libdramplan-device.a \
		$(O)/libdramplan.a $(O)/libxmemsim.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS) -luring

# tests/vm/test_plan plans seeded models in-process and submits them: it
# links the planner tests' helpers (random_model()), the bridge and
# libdramplan (after libxmemsim in its pattern rule), and yajl too.  The
# bridge calls libxmemsim: the one object of libxmemsim.a is already in by
# then (test_plan.o uses it).  PLANNER_TEST_HELPERS comes from
# tests/planner/rules.mk, included before this file.
$(O)/tests/vm/test_plan: $(PLANNER_TEST_HELPERS) $(O)/libdramplan-device.a \
	$(O)/libdramplan.a
$(O)/tests/vm/test_plan: XLDFLAGS += $(DRAMPLAN_LDLIBS)

# scripts/bench-planner.sh drives this; built with userspace so it never rots.
$(O)/bench-planner: $(O)/scripts/bench-planner.o $(O)/scripts/bench-synth.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS) -lm

userspace: $(O)/bench-planner

# scripts/bench-planner.sh runs this too: the command on a model file
# beside in-process planning (time, ratio, peak RSS).
$(O)/bench-file: $(O)/scripts/bench-file.o $(O)/scripts/bench-synth.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

userspace: $(O)/bench-file

# scripts/bench-quality.sh converts the MiniMalloc instances with this.
$(O)/mm2model: $(O)/scripts/mm2model.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

userspace: $(O)/mm2model

# scripts/bench-quality.sh: seed vs search on training-shaped models.
$(O)/bench-quality: $(O)/scripts/bench-quality.o $(O)/scripts/bench-synth.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

userspace: $(O)/bench-quality
