# worker/xs/: ipcstamp-worker-xs, Agoric's xsnap-worker built from the
# user's copy of @agoric/xsnap with ipcstamp's stamps (docs/xsnap.md), and
# the vanilla xsnap-worker built from the same copy the same way, which the
# consensus tests compare it with.  Whether the sources are there is decided
# at make time: `make` builds it when they are and says why not otherwise;
# `make check` (after the test npm projects are installed) builds both.
#
# Our part is one static archive, linked into the binary by xsnap's own
# makefile: the hooks and libipcstamp-worker's sources, so that the binary,
# like Agoric's, needs no library at run time wherever it is copied.
noinst_LIBRARIES += worker/xs/libipcstamp-xs.a
worker_xs_libipcstamp_xs_a_SOURCES = worker/xs/hooks.c worker/xs/ipcstamp-xs.h \
	$(worker_libipcstamp_worker_la_SOURCES) $(proto_libipcstamp_proto_la_SOURCES)
worker_xs_libipcstamp_xs_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/worker/xs
worker_xs_libipcstamp_xs_a_CFLAGS = $(WARN_CFLAGS)
EXTRA_DIST += worker/xs/build.sh worker/xs/hooks.list worker/xs/upstream.sha256 \
	worker/xs/hooks-dev.list worker/xs/dev.c
dist_docs_DATA += docs/xsnap.md

XSNAP_DIR = @XSNAP_DIR@
XS_SKIP = @XS_SKIP@
# The sources to build from, in $$d: --with-xsnap's, else the interop test
# project's (IPCSTAMP_INTEROP_DIR wins, as for the tests).
XS_FIND = d='$(XSNAP_DIR)'; if test -z "$$d"; then \
	  i=$${IPCSTAMP_INTEROP_DIR:-}; test -n "$$i" || i='$(INTEROP_DIR)'; \
	  test -n "$$i" || i='$(abs_top_srcdir)/tests/interop'; \
	  d=$$i/node_modules/@agoric/xsnap; fi
# With v (variant), b (the binary) and l (our archive) set.  A missing
# source is a message (exit 77 of build.sh), not an error; a mismatch is.
# worker/xs/skip tells the tests why this build has none.
XS_BUILD = $(MKDIR_P) worker/xs; if test -n '$(XS_SKIP)'; then \
	  echo '$(XS_SKIP)' > worker/xs/skip; \
	  echo "ipcstamp-worker-xs: skipped: $(XS_SKIP)"; exit 0; fi; rm -f worker/xs/skip; \
	$(XS_FIND); rc=0; MAKE='$(MAKE)' $(SHELL) $(top_srcdir)/worker/xs/build.sh \
	  "$$d" "$(abs_top_builddir)/worker/xs/tree-$$v" $$v \
	  "$(abs_top_builddir)/$$b" $$l || rc=$$?; \
	test $$rc = 0 || test $$rc = 77 || exit $$rc

all-local: xs-worker
xs-worker: worker/xs/libipcstamp-xs.a
	@+v=ipcstamp b=worker/ipcstamp-worker-xs \
	  l='$(abs_top_builddir)/worker/xs/libipcstamp-xs.a'; $(XS_BUILD)
xs-vanilla:
	@+v=vanilla b=worker/xs/xsnap-worker-vanilla l=; $(XS_BUILD)
# The development build, with performance.mark/measure for JavaScript:
# never for a chain node (docs/xsnap.md); not installed.  Built from the
# ipcstamp build's objects: two files more to compile.
xs-dev: xs-worker
	@+v=dev b=worker/ipcstamp-worker-xs-dev \
	  l='$(abs_top_builddir)/worker/xs/libipcstamp-xs.a'; $(XS_BUILD)
# make check builds all three before the tests, once the test npm projects
# are in place (tests/peers.stamp): on a fresh clone the sources appear only
# then.  (Not xs-worker itself in check_DATA: without Check, check_DATA
# depends on a rule that fails, and plain make builds xs-worker.)
check_DATA += xs-check-build
xs-check-build: tests/peers.stamp
	@+$(MAKE) $(AM_MAKEFLAGS) xs-worker xs-vanilla xs-dev
PHONY_TARGETS += xs-worker xs-vanilla xs-dev xs-check-build

install-exec-local:
	@if test -f worker/ipcstamp-worker-xs; then \
	  $(MKDIR_P) '$(DESTDIR)$(bindir)' && \
	  echo " $(INSTALL_PROGRAM) worker/ipcstamp-worker-xs '$(DESTDIR)$(bindir)'" && \
	  $(INSTALL_PROGRAM) worker/ipcstamp-worker-xs '$(DESTDIR)$(bindir)'; fi
uninstall-hook:
	rm -f '$(DESTDIR)$(bindir)/ipcstamp-worker-xs'
clean-local: clean-xs
clean-xs:
	rm -rf worker/xs/tree-ipcstamp worker/xs/tree-vanilla worker/xs/tree-dev
CLEANFILES += worker/ipcstamp-worker-xs worker/xs/xsnap-worker-vanilla worker/xs/skip \
	worker/ipcstamp-worker-xs-dev
PHONY_TARGETS += clean-xs

# Its tests (tests/interop/xs-*): the swap command on stand-ins (always),
# the build against the vanilla one, and both under Agoric's kernel.
TESTS += tests/interop/xs-swap.test tests/interop/xs-swap-hostile.test tests/interop/xs-consensus.test tests/interop/xs-suite.test \
	tests/interop/xs-swingset-rings.test \
	tests/interop/xs-swingset.test
EXTRA_DIST += tests/interop/xs-swap.test tests/interop/xs-swap-hostile.test tests/interop/xs-consensus.test tests/interop/xs-suite.test \
	tests/interop/xs-swingset-rings.test \
	tests/interop/xs-swingset.test tests/interop/xs-need.sh \
	tests/interop/xs-consensus.mjs tests/interop/xs-suite.mjs tests/interop/xs-harness.mjs \
	tests/interop/strip-ipcstamp.mjs tests/interop/same-deliveries.mjs \
	tests/interop/swingset/dump-store.mjs \
	tests/bench/xs-cost.sh tests/bench/xs-parent.mjs
