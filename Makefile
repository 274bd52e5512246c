# SPDX-License-Identifier: GPL-2.0
#
# xmemsim top level.
#
#   make              module (against KDIR, when its headers are there) and
#                     userspace
#   make userspace    libxmemsim, libdramplan, xmemctl, dramplan, tests
#   make module       xmemsim.ko against KDIR (default: the running kernel)
#   make check        every test: host (plain and ASan/UBSan), KUnit, VM, lint
#   make demo         the main job, in the test VM
#   make install      libraries, headers, pkg-config files, tools, man
#                     pages, udev rule, bash completion (DESTDIR, PREFIX,
#                     BINDIR, LIBDIR, INCLUDEDIR, MANDIR)
#   make modules_install   xmemsim.ko to /lib/modules/KVER/extra/, depmod
#   make deb          the Debian packages (dpkg-buildpackage -us -uc -b)
#
# Userspace objects go to $(O) (default build/); O=build/asan SAN=1 and
# O=build/static STATIC=1 are the sanitizer and static (VM) variants.
# CPPFLAGS, CFLAGS and LDFLAGS are the caller's (a distribution's); WERROR=1
# (make check) turns warnings into errors.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
UDEVDIR ?= /lib/udev/rules.d
DESTDIR ?=
# The one version source: VERSION (dkms.conf, debian/changelog and the
# module's MODULE_VERSION take it too).
VERSION := $(shell cat $(CURDIR)/VERSION)
O ?= build
CC ?= gcc
AR ?= ar
SAN ?= 0
STATIC ?= 0
WERROR ?= 0

CFLAGS ?= -O2 -g
# The library's own include paths; the tests add theirs to their objects.
XCPPFLAGS := -D_GNU_SOURCE -I$(CURDIR)/userspace/include -I$(CURDIR)/uapi \
	-I$(CURDIR)/userspace/lib -I$(CURDIR)/userspace/planner \
	-I$(CURDIR)/userspace/bridge
XCFLAGS := $(XCPPFLAGS) $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra \
	-DXMEMSIM_VERSION=\"$(VERSION)\"
ifeq ($(WERROR),1)
XCFLAGS += -Werror
endif
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

.PHONY: all userspace vm-userspace module modules_install check demo clean \
	install host-tests deb libs tools

# Without the running kernel's headers (no $(KDIR)/Makefile) a plain make
# builds userspace and says how to build the module.
ifeq ($(wildcard $(KDIR)/Makefile),)
all: userspace
	@echo "make: no kernel headers at $(KDIR): built userspace only; the module: make module KDIR=<kernel build dir>"
else
all: module userspace
endif

# Test and benchmark objects: tap.h, the heap model, the planner helpers.
$(O)/tests/%.o $(O)/scripts/%.o: XCFLAGS += -I$(CURDIR)/tests -I$(CURDIR)/tests/model

include $(sort $(wildcard userspace/*/rules.mk tests/*/rules.mk docs/*/rules.mk))

userspace: $(LIBS) $(TOOLS) $(HOST_TESTS) $(VM_TESTS)

# What `make install` installs, without the tests (the Debian build).
libs: $(LIBS)
tools: $(TOOLS)

# What the test VM carries: tools and VM tests (scripts/vm.sh, static).
vm-userspace: $(TOOLS) $(VM_TESTS)

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# extra/xmemsim.ko (Kbuild's INSTALL_MOD_DIR), then depmod for that kernel
# (skipped when staging into INSTALL_MOD_PATH).
# Built with M=kmod so the module sits at the top of its tree.
modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_DIR=extra modules_install
	kver=$$($(MAKE) -s --no-print-directory -C $(KDIR) kernelrelease) && \
		depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $$kver

# Runs every host test binary; TAP goes to $(O)/results/.
# The host tests, HOST_JOBS binaries at a time (each works in its own
# temporary directory): each one's TAP in $(O)/results, its failures shown.
HOST_JOBS ?= $(shell nproc)
host-tests: $(HOST_TESTS)
	@mkdir -p $(O)/results
	@printf '%s\n' $(HOST_TESTS) | xargs -P $(HOST_JOBS) -n 1 sh -c \
		'n=$$(basename "$$0"); "$$0" > $(O)/results/$$n.tap 2>&1; r=$$?; \
		grep -E "^not ok " $(O)/results/$$n.tap | sed "s|^|$$n: |"; \
		exit $$((r != 0))'

check:
	@bash scripts/check.sh

demo:
	@bash scripts/demo.sh

# Libraries, headers, pkg-config files and tools; install-data (man pages,
# udev rule, bash completion) lives in docs/man/rules.mk.
install: $(LIBS) $(TOOLS) install-lib install-data
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/

# The module's sources for DKMS: $(DESTDIR)$(DKMS_SRC)/xmemsim-VERSION/
# with dkms.conf (then `dkms install xmemsim/VERSION`).
DKMS_SRC ?= /usr/src
DKMS_DIR = $(DESTDIR)$(DKMS_SRC)/xmemsim-$(VERSION)
.PHONY: dkms-source
dkms-source:
	install -d $(DKMS_DIR)/kmod/tests $(DKMS_DIR)/uapi
	install -m 644 VERSION Kbuild $(DKMS_DIR)/
	install -m 644 kmod/Kbuild kmod/Kconfig kmod/*.[ch] $(DKMS_DIR)/kmod/
	install -m 644 kmod/tests/*.[ch] $(DKMS_DIR)/kmod/tests/
	install -m 644 uapi/xmemsim.h $(DKMS_DIR)/uapi/
	sed -e 's|@VERSION@|$(VERSION)|g' dkms.conf.in > $(DKMS_DIR)/dkms.conf

# The Debian packages (debian/), built from a copy of the tree (its tracked
# and new files) in $(O)/pkg/xmemsim-VERSION: the .debs land in $(O)/pkg/.
# The distribution's flags, without WERROR.
PKG_DIR = $(abspath $(O))/pkg
deb:
	rm -rf $(PKG_DIR) && mkdir -p $(PKG_DIR)/xmemsim-$(VERSION)
	git ls-files -co --exclude-standard -z | \
		xargs -0 cp -P --parents -t $(PKG_DIR)/xmemsim-$(VERSION)
	cd $(PKG_DIR)/xmemsim-$(VERSION) && env -u WERROR -u MAKEFLAGS -u MAKELEVEL \
		DEB_BUILD_OPTIONS="parallel=2 noautodbgsym $(DEB_BUILD_OPTIONS)" dpkg-buildpackage -us -uc -b

clean:
	rm -rf build debian/.debhelper debian/tmp
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true

# Keep objects that pattern rules chain through (tests/model, helpers).
.SECONDARY:

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(O) -path $(O)/pkg -prune -o -type f -name '*.d' -print 2>/dev/null)
