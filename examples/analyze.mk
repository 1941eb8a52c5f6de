# examples/slowest.c: the analysis library's example (docs/analyze.md).
# make check builds it against the library in the tree and runs it on a
# slogfile; make installcheck (so make distcheck) builds it again from
# outside, through pkg-config, against the installed library, and runs it.
check_PROGRAMS += examples/slowest
examples_slowest_SOURCES = examples/slowest.c
examples_slowest_LDADD = analyze/libipcstamp-analyze.la proto/libipcstamp-proto.la
TESTS += examples/slowest.test
EXTRA_DIST += examples/slowest.test tests/data/ours.slowest.txt

PHONY_TARGETS += installcheck-analyze
installcheck-analyze:
	@set -e; tmp=$$(mktemp -d); \
	PKG_CONFIG_PATH='$(DESTDIR)$(pkgconfigdir)' \
	  && export PKG_CONFIG_PATH; \
	flags=$$($(PKG_CONFIG) --define-variable=prefix='$(DESTDIR)$(prefix)' \
	  --cflags --libs ipcstamp-analyze); \
	$(CC) -o $$tmp/slowest $(srcdir)/examples/slowest.c $$flags; \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' $$tmp/slowest \
	  $(srcdir)/tests/data/ours.slog > $$tmp/out; \
	diff -u $(srcdir)/tests/data/ours.slowest.txt $$tmp/out; \
	rm -rf $$tmp; echo "installcheck: examples/slowest.c against the installed libipcstamp-analyze: ok"
