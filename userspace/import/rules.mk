# dramplan-import: a PyTorch network or an ONNX graph -> a dramplan model.
# The Python package userspace/import/dramplan_import (its pyproject.toml
# beside it installs it with pip), built into one executable zip
# application for Debian's /usr/bin/python3 (python3-torch,
# python3-torchvision, python3-onnx): the package with the version filled
# in, dramplan-import.py as its __main__.  Installed with the tools; the
# zip is also importable (PYTHONPATH=build/dramplan-import).  Without
# PyTorch it still builds and installs, and says in one line what is
# missing when run.
TOOLS += $(O)/dramplan-import

IMPORT_PY := $(sort $(wildcard userspace/import/dramplan_import/*.py))
ZIPAPP_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

$(O)/dramplan-import: $(IMPORT_PY) userspace/import/dramplan-import.py VERSION
	@rm -rf $@.d && mkdir -p $@.d/dramplan_import
	cp $(IMPORT_PY) $@.d/dramplan_import/
	sed -e 's|@VERSION@|$(VERSION)|' userspace/import/dramplan_import/_version.py \
		> $@.d/dramplan_import/_version.py
	cp userspace/import/dramplan-import.py $@.d/__main__.py
	$(ZIPAPP_PYTHON) -m zipapp $@.d -p /usr/bin/python3 -o $@.tmp
	@rm -rf $@.d
	chmod 755 $@.tmp && mv $@.tmp $@
