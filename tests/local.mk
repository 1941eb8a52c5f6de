# tests/ mirrors the libraries: the tests of proto/ are in tests/proto/, of
# worker/ in tests/worker/, of parent/ in tests/parent/, of analyze/ in
# tests/analyze/, and of the ipcstamp commands (tools/) in tests/tools/,
# each folder with its own fragment (local.mk) included below.  A helper
# lives with the library it drives (the test workers' driver in
# tests/worker/, the test peer in tests/parent/); a folder that borrows it
# names it by its path.  Here at the top: what belongs to no one library
# (the peers, the public headers together, the tree, the docs).

# The test suite's peers (Debian packages, the test-only npm projects),
# which neither the build nor make demo needs: installed by make check
# first, cached (tests/peers.sh).  The stamp changes only when what is
# installed does: a rule building from the npm packages depends on it.
check_DATA += tests/peers.stamp
EXTRA_DIST += tests/peers.sh tests/peers.test tests/npm-ci.sh \
	tests/npm-addon/addon.c tests/npm-addon/binding.gyp \
	tests/npm-addon/package.json tests/npm-addon/package-lock.json
TESTS += tests/peers.test
CLEANFILES += tests/peers.stamp
# What the tests run once per tree (not again in a sanitizer build or
# make distcheck) source to know it (tests/once.sh).
EXTRA_DIST += tests/once.sh
tests/peers.stamp: FORCE
	@$(MKDIR_P) tests && \
	if test -z "$${IPCSTAMP_INTEROP_DIR-}" && test -n '$(INTEROP_DIR)'; then \
	  IPCSTAMP_INTEROP_DIR='$(INTEROP_DIR)'; export IPCSTAMP_INTEROP_DIR; fi; \
	$(SHELL) $(srcdir)/tests/peers.sh '$(abs_top_srcdir)' $@
FORCE:
PHONY_TARGETS += FORCE
# The public headers together, and what the shared libraries export.
check_PROGRAMS += tests/check_api
TESTS += tests/check_api
tests_check_api_SOURCES = tests/check_api.c
tests_check_api_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS)
tests_check_api_LDADD = analyze/libipcstamp-analyze.la parent/libipcstamp-parent.la \
	worker/libipcstamp-worker.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) -ldl

# The tree itself: git tracks no build output (tests/tracked.test).
TESTS += tests/tracked.test
EXTRA_DIST += tests/tracked.test
# The code's layout as it is to stay, over the whole tree: no file over 600
# lines, no function over 80, no private analysis header used outside
# analyze/, no two files of a library or program calling each other
# (tests/layout.test).
TESTS += tests/layout.test
EXTRA_DIST += tests/layout.test

# The documentation as tests: every relative link of the docs (in the tree
# and, by make installcheck, as installed), and every sh block of the README
# and docs run as written.  (The report's JSON against its schema is in
# tests/tools/, the ABI rule of docs/embedding.md in tests/worker/.)
TESTS += tests/doclinks.test tests/readme.test
# What make (and so make demo) builds: tests/readme.test follows the README
# in a tree that has only these.
AM_TESTS_ENVIRONMENT += IPCSTAMP_MADE='$(bin_PROGRAMS) $(pkglibexec_PROGRAMS) $(noinst_PROGRAMS)'; \
	export IPCSTAMP_MADE;
EXTRA_DIST += tests/doclinks.test tests/doclinks.py tests/readme.test

PHONY_TARGETS += installcheck-docs
installcheck-docs:
	@if ! command -v python3 >/dev/null 2>&1; then \
	  echo "installcheck: python3 is not installed: the docs' links are not checked"; exit 0; fi; \
	python3 $(srcdir)/tests/doclinks.py '$(DESTDIR)$(docdir)' && \
	for f in docs/report.schema.json examples/host.c LICENSE NEWS; do \
	  test -f '$(DESTDIR)$(docdir)'/$$f || { echo "installcheck: $$f is not installed in $(docdir)" >&2; exit 1; }; \
	done && echo "installcheck: the docs' links work in $(docdir)"

include tests/proto/local.mk
include tests/worker/local.mk
include tests/parent/local.mk
include tests/analyze/local.mk
include tests/tools/local.mk
include tests/interop/local.mk
include tests/viewers/local.mk
include tests/bench/local.mk
include tests/fuzz/local.mk
include tests/os/local.mk
include tests/metrics/local.mk
include tests/pkg/local.mk
