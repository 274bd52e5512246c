# dramplan-import: a PyTorch network -> a dramplan model.  A
# Python 3 script for Debian's /usr/bin/python3 (python3-torch,
# python3-torchvision); built = the version filled in, installed with the
# tools.  Without PyTorch it still builds and installs, and says in one
# line what is missing when run.
TOOLS += $(O)/dramplan-import

$(O)/dramplan-import: userspace/import/dramplan-import.py VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(VERSION)|' $< > $@.tmp && chmod 755 $@.tmp && mv $@.tmp $@
