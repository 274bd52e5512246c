# Fuzzing in the tree.  Four libFuzzer harnesses -- the JSON
# model, the MiniMalloc CSV, the plan reader, and --strategy search against
# an exhaustive oracle -- and their seed corpus in
# tests/fuzz/corpus/<harness>/.
#
#   host tests   replay_<harness>: the harness with a small main that feeds
#                it every corpus file (TAP), in every userspace build, so
#                `make check` replays the corpus in the plain and the
#                ASan/UBSan host builds.
#   make fuzz-replay-clang   the same replays built with clang and
#                -fsanitize=address,undefined (gcc misses NULL + 0).
#   make fuzz    builds the libFuzzer binaries with clang in build/fuzz and
#                runs each for FUZZ_TIME seconds (default 60), new inputs in
#                build/fuzz/corpus/<harness>/; crashes land in build/fuzz/.

FUZZ_HARNESSES := model csv plan search
FUZZ_TIME ?= 60
FUZZ_REPLAYS := $(patsubst %,$(O)/tests/fuzz/replay_%,$(FUZZ_HARNESSES))
HOST_TESTS += $(FUZZ_REPLAYS)

$(O)/tests/fuzz/%.o: XCFLAGS += -DDP_SRCROOT=\"$(CURDIR)\"

# planner_util.o: the exhaustive oracle and CSV builder fuzz_search shares
# with the planner tests
$(O)/tests/fuzz/%.o: XCFLAGS += -I$(CURDIR)/tests/planner

$(O)/tests/fuzz/replay_%: $(O)/tests/fuzz/replay.o $(O)/tests/fuzz/fuzz_%.o \
		$(O)/tests/planner/planner_util.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

# The libFuzzer build: every object instrumented, the harness linked with
# libFuzzer's main.
ifeq ($(FUZZ),1)
XCFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
endif

$(O)/fuzz_%: $(O)/tests/fuzz/fuzz_%.o $(O)/tests/planner/planner_util.o $(O)/libdramplan.a
	$(CC) $(XCFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(XLDFLAGS) $(DRAMPLAN_LDLIBS)

.PHONY: fuzz fuzz-binaries fuzz-replay fuzz-replay-clang
fuzz-binaries: $(patsubst %,$(O)/fuzz_%,$(FUZZ_HARNESSES))

fuzz:
	@command -v clang >/dev/null || { echo "make fuzz: needs clang (scripts/deps.sh)"; exit 1; }
	$(MAKE) -s O=build/fuzz CC=clang FUZZ=1 fuzz-binaries
	@for h in $(FUZZ_HARNESSES); do \
		mkdir -p build/fuzz/corpus/$$h; \
		echo "== fuzz_$$h for $(FUZZ_TIME) s"; \
		build/fuzz/fuzz_$$h -max_total_time=$(FUZZ_TIME) -timeout=10 \
			-artifact_prefix=build/fuzz/$$h- \
			build/fuzz/corpus/$$h tests/fuzz/corpus/$$h \
			> build/fuzz/$$h.log 2>&1; rc=$$?; \
		tail -3 build/fuzz/$$h.log; \
		[ $$rc -eq 0 ] || { echo "fuzz_$$h: failed, see build/fuzz/$$h.log"; exit 1; }; \
	done

# Runs the replays of this build, like host-tests.
fuzz-replay: $(FUZZ_REPLAYS)
	@mkdir -p $(O)/results
	@rc=0; for t in $(FUZZ_REPLAYS); do \
		n=$$(basename $$t); \
		$$t > $(O)/results/$$n.tap 2>&1 || rc=1; \
		grep '^not ok' $(O)/results/$$n.tap | sed "s|^|$$n: |" || true; \
	done; exit $$rc

fuzz-replay-clang:
	@command -v clang >/dev/null || { echo "make fuzz-replay-clang: needs clang (scripts/deps.sh)"; exit 1; }
	$(MAKE) -s O=build/clang-san CC=clang SAN=1 fuzz-replay
