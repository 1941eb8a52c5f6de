# The documentation as tests: the report's JSON against its schema, every
# relative link of the docs (in the tree and as installed), and every
# command of the README's sh blocks run as written.
TESTS += tests/report_schema.test
EXTRA_DIST += tests/report_schema.test tests/schema_check.py
TESTS += tests/doclinks.test
EXTRA_DIST += tests/doclinks.test tests/doclinks.py

PHONY_TARGETS += installcheck-docs
installcheck-docs:
	@python3 $(srcdir)/tests/doclinks.py '$(DESTDIR)$(docdir)' && \
	for f in docs/report.schema.json examples/host.c LICENSE NEWS; do \
	  test -f '$(DESTDIR)$(docdir)'/$$f || { echo "installcheck: $$f is not installed in $(docdir)" >&2; exit 1; }; \
	done && echo "installcheck: the docs' links work in $(docdir)"
TESTS += tests/readme.test
EXTRA_DIST += tests/readme.test
# The README's and docs' blocks run programs that make check builds.

# The ABI rule of docs/embedding.md: the worker structs' layout is recorded.
check_PROGRAMS += tests/abi_layout
tests_abi_layout_SOURCES = tests/abi_layout.c
TESTS += tests/abi_layout.test
EXTRA_DIST += tests/abi_layout.test tests/data/worker-abi.txt
