# libxmemsim: static and shared (libxmemsim.so.1.0.0, soname libxmemsim.so.1,
# symbols versioned by libxmemsim.map), with a pkg-config file.
LIBXMEMSIM_SRCS := $(wildcard userspace/lib/*.c)
LIBXMEMSIM_OBJS := $(patsubst %.c,$(O)/%.o,$(LIBXMEMSIM_SRCS))
LIBXMEMSIM_SOVER := 1
LIBXMEMSIM_REAL := libxmemsim.so.$(LIBXMEMSIM_SOVER).0.0
LIBXMEMSIM_MAP := userspace/lib/libxmemsim.map
LIBS += $(O)/libxmemsim.a
ifneq ($(STATIC),1)
LIBS += $(O)/$(LIBXMEMSIM_REAL)
endif

$(O)/libxmemsim.a: $(LIBXMEMSIM_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(O)/$(LIBXMEMSIM_REAL): $(patsubst %.c,$(O)/pic/%.o,$(LIBXMEMSIM_SRCS)) $(LIBXMEMSIM_MAP)
	$(CC) $(XCFLAGS) -shared -Wl,-soname,libxmemsim.so.$(LIBXMEMSIM_SOVER) \
		-Wl,--version-script=$(LIBXMEMSIM_MAP) -Wl,--no-undefined \
		-o $@ $(filter %.o,$^) $(XLDFLAGS) -luring -lpthread
	ln -sf $(LIBXMEMSIM_REAL) $(O)/libxmemsim.so.$(LIBXMEMSIM_SOVER)
	ln -sf libxmemsim.so.$(LIBXMEMSIM_SOVER) $(O)/libxmemsim.so

# libxmemsim.h at the top of INCLUDEDIR, the device's uapi header in its
# own folder (xmemsim/xmemsim.h); libdramplan.h beside it and the bridge's
# dramplan/dp_device.h. libdramplan and libdramplan-device are static
# libraries (their API is not frozen: no soname to keep); libdramplan's .pc
# file names yajl, libdramplan-device's libdramplan and libxmemsim.
.PHONY: install-lib
install-lib: $(LIBS)
	install -d $(DESTDIR)$(INCLUDEDIR)/xmemsim $(DESTDIR)$(INCLUDEDIR)/dramplan \
		$(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 uapi/xmemsim.h $(DESTDIR)$(INCLUDEDIR)/xmemsim/
	install -m 644 userspace/lib/libxmemsim.h userspace/lib/neuron_compat.h \
		userspace/planner/libdramplan.h \
		$(DESTDIR)$(INCLUDEDIR)/
	install -m 644 userspace/bridge/dp_device.h $(DESTDIR)$(INCLUDEDIR)/dramplan/
	install -m 644 $(O)/libxmemsim.a $(O)/libdramplan.a \
		$(O)/libdramplan-device.a $(DESTDIR)$(LIBDIR)/
ifneq ($(STATIC),1)
	install -m 755 $(O)/$(LIBXMEMSIM_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBXMEMSIM_REAL) $(DESTDIR)$(LIBDIR)/libxmemsim.so.$(LIBXMEMSIM_SOVER)
	ln -sf libxmemsim.so.$(LIBXMEMSIM_SOVER) $(DESTDIR)$(LIBDIR)/libxmemsim.so
endif
	for pc in userspace/lib/libxmemsim.pc.in userspace/planner/libdramplan.pc.in \
			userspace/bridge/libdramplan-device.pc.in; do \
		sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
			-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
			$$pc > $(DESTDIR)$(LIBDIR)/pkgconfig/$$(basename $$pc .in) || exit 1; \
	done
