# libxmemsim: static and shared, with a pkg-config file.
LIBXMEMSIM_OBJS := $(O)/userspace/lib/libxmemsim.o $(O)/userspace/lib/neuron_compat.o
LIBXMEMSIM_SOVER := 1
LIBS += $(O)/libxmemsim.a
ifneq ($(STATIC),1)
LIBS += $(O)/libxmemsim.so.$(LIBXMEMSIM_SOVER)
endif

$(O)/libxmemsim.a: $(LIBXMEMSIM_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(O)/libxmemsim.so.$(LIBXMEMSIM_SOVER): $(patsubst $(O)/%,$(O)/pic/%,$(LIBXMEMSIM_OBJS))
	$(CC) $(XCFLAGS) -shared -Wl,-soname,libxmemsim.so.$(LIBXMEMSIM_SOVER) \
		-o $@ $^ $(XLDFLAGS) -luring -lpthread
	ln -sf libxmemsim.so.$(LIBXMEMSIM_SOVER) $(O)/libxmemsim.so
