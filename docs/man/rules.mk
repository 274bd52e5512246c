# Man pages (docs/man/*.[1-8], the version filled in into $(O)/man/), the
# render gate, and install-data: man pages with a .so page for each
# function of a family page (docs/man/links), the udev rule, bash
# completion, the modprobe.d example.
MAN_SRCS := $(wildcard docs/man/*.[1-8])
MAN_PAGES := $(patsubst docs/man/%,$(O)/man/%,$(MAN_SRCS))

$(O)/man/%: docs/man/% VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(VERSION)|g' $< > $@

.PHONY: man man-check install-data
man: $(MAN_PAGES)
userspace: man

# Each page renders at 80 columns without a single groff or man warning.
man-check: $(MAN_PAGES)
	@rc=0; for p in $(MAN_PAGES); do \
		w=$$(MANWIDTH=80 man --warnings -l $$p 2>&1 >/dev/null); \
		[ -z "$$w" ] || { echo "$$p: $$w"; rc=1; }; \
	done; exit $$rc

install-data: $(MAN_PAGES)
	for p in $(MAN_PAGES); do \
		d=$(DESTDIR)$(MANDIR)/man$${p##*.}; \
		install -d $$d && install -m 644 $$p $$d/ || exit 1; \
	done
	grep -v '^#' docs/man/links | while read -r name page; do \
		echo ".so man3/$$page.3" > $(DESTDIR)$(MANDIR)/man3/$$name.3; \
	done
	install -d $(DESTDIR)$(UDEVDIR) $(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/doc/xmemsim
	install -m 644 udev/60-xmemsim.rules $(DESTDIR)$(UDEVDIR)/
	install -m 644 completions/xmemctl completions/dramplan \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/
	install -m 644 modprobe.d/xmemsim.conf $(DESTDIR)$(DATADIR)/doc/xmemsim/modprobe-xmemsim.conf
	install -m 644 modprobe.d/xmemsim-multiuser.conf $(DESTDIR)$(DATADIR)/doc/xmemsim/modprobe-xmemsim-multiuser.conf
