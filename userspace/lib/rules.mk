# libxmemsim
LIBXMEMSIM_OBJS := $(O)/userspace/lib/libxmemsim.o
LIBS += $(O)/libxmemsim.a

$(O)/libxmemsim.a: $(LIBXMEMSIM_OBJS)
	$(AR) rcs $@ $^
