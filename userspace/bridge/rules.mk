# libdramplan-device: the bridge from a plan to the device (dp_device.c:
# a plan as PLAN_SUBMIT's arrays; dp_agree.c: the plan through the device
# and back, compared).  It calls libdramplan (public API) and libxmemsim;
# libdramplan itself knows no device.  Link it before libdramplan.a.
BRIDGE_SRCS := $(wildcard userspace/bridge/*.c)
BRIDGE_OBJS := $(patsubst %.c,$(O)/%.o,$(BRIDGE_SRCS))

LIBS += $(O)/libdramplan-device.a

$(O)/libdramplan-device.a: $(BRIDGE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
