# dramplan-import's host tests: a shell script run like the
# other host tests (TAP into $(O)/results/), with this build's dramplan and
# importer; they skip without PyTorch. Not in the sanitizer build: the
# importer is Python, and the dramplan it calls is the planner the
# sanitized planner tests cover (the run costs 45 s of torch tracing).
ifneq ($(SAN),1)
HOST_TESTS += $(O)/tests/import/test_import
endif

$(O)/tests/import/test_import: tests/import/test_import.sh | $(O)/dramplan $(O)/dramplan-import
	@mkdir -p $(dir $@)
	sed -e 's|@DRAMPLAN@|$(abspath $(O))/dramplan|' \
		-e 's|@IMPORT@|$(abspath $(O))/dramplan-import|' \
		-e 's|@SRC@|$(CURDIR)|' $< > $@.tmp && chmod 755 $@.tmp && mv $@.tmp $@
