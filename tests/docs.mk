# The documentation as tests: the report's JSON against its schema, every
# relative link of the docs (in the tree and, by make installcheck, as
# installed), every sh block of the README and docs run as written, and the
# ABI rule of docs/embedding.md.
TESTS += tests/report_schema.test tests/doclinks.test tests/readme.test
# What make (and so make demo) builds: tests/readme.test follows the README
# in a tree that has only these.
AM_TESTS_ENVIRONMENT += IPCSTAMP_MADE='$(bin_PROGRAMS) $(pkglibexec_PROGRAMS) $(noinst_PROGRAMS)'; \
	export IPCSTAMP_MADE;
EXTRA_DIST += tests/report_schema.test tests/schema_check.py \
	tests/doclinks.test tests/doclinks.py tests/readme.test

PHONY_TARGETS += installcheck-docs
installcheck-docs:
	@if ! command -v python3 >/dev/null 2>&1; then \
	  echo "installcheck: python3 is not installed: the docs' links are not checked"; exit 0; fi; \
	python3 $(srcdir)/tests/doclinks.py '$(DESTDIR)$(docdir)' && \
	for f in docs/report.schema.json examples/host.c LICENSE NEWS; do \
	  test -f '$(DESTDIR)$(docdir)'/$$f || { echo "installcheck: $$f is not installed in $(docdir)" >&2; exit 1; }; \
	done && echo "installcheck: the docs' links work in $(docdir)"

# The worker structs' layout is recorded with the -version-info it was
# released under (docs/embedding.md, "ABI").
check_PROGRAMS += tests/abi_layout
tests_abi_layout_SOURCES = tests/abi_layout.c
TESTS += tests/abi_layout.test
EXTRA_DIST += tests/abi_layout.test tests/data/worker-abi.txt
