# SPDX-License-Identifier: GPL-2.0
#
# xmemsim top level.
#
#   make              module (against KDIR) and userspace
#   make userspace    libxmemsim, libdramplan, xmemctl, dramplan, tests
#   make module       xmemsim.ko against KDIR (default: the running kernel)
#   make check        every test: host (plain and ASan/UBSan), KUnit, VM, lint
#   make demo         the main job, in the test VM
#
# Userspace objects go to $(O) (default build/); O=build/asan SAN=1 and
# O=build/static STATIC=1 are the sanitizer and static (VM) variants.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0
O ?= build
CC ?= gcc
AR ?= ar
SAN ?= 0
STATIC ?= 0

CFLAGS ?= -O2 -g
XCFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(CURDIR)/uapi -I$(CURDIR)/userspace/lib -I$(CURDIR)/userspace/planner \
	-I$(CURDIR)/tests
XLDFLAGS := $(LDFLAGS)
ifeq ($(SAN),1)
XCFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
XLDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(STATIC),1)
XLDFLAGS += -static
endif

# Filled in by the rules.mk fragments below.
LIBS :=
TOOLS :=
HOST_TESTS :=
VM_TESTS :=

.PHONY: all userspace vm-userspace module check demo clean install host-tests

all: module userspace

include $(sort $(wildcard userspace/*/rules.mk tests/*/rules.mk))

userspace: $(LIBS) $(TOOLS) $(HOST_TESTS) $(VM_TESTS)

# What the test VM carries: tools and VM tests (scripts/vm.sh, static).
vm-userspace: $(TOOLS) $(VM_TESTS)

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Runs every host test binary; TAP goes to $(O)/results/.
host-tests: $(HOST_TESTS)
	@mkdir -p $(O)/results
	@rc=0; for t in $(HOST_TESTS); do \
		n=$$(basename $$t); \
		$$t > $(O)/results/$$n.tap 2>&1 || rc=1; \
		grep -E '^(not )?ok ' $(O)/results/$$n.tap | sed "s|^|$$n: |" | grep '^.*: not ok' || true; \
	done; exit $$rc

check:
	@bash scripts/check.sh

demo:
	@bash scripts/demo.sh

# The ABI header, both libraries, the pkg-config file and the tools.
install: $(LIBS) $(TOOLS)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	install -m 644 uapi/xmemsim.h userspace/lib/libxmemsim.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(O)/libxmemsim.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(O)/libxmemsim.so.$(LIBXMEMSIM_SOVER) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libxmemsim.so.$(LIBXMEMSIM_SOVER) $(DESTDIR)$(PREFIX)/lib/libxmemsim.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		userspace/lib/libxmemsim.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libxmemsim.pc
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true

# Keep objects that pattern rules chain through (tests/model, helpers).
.SECONDARY:

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(O) -name '*.d' 2>/dev/null)
