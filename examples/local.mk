# examples/: small programs on the libraries, for a reader to copy from.
# make builds them against the libraries in the tree; make check runs the
# host driving the worker; make installcheck (so make distcheck) builds them
# again from outside, through pkg-config, against the installed libraries
# (with a worker that calls ips_strerror(): ipcstamp-worker.pc must bring
# ipcstamp-proto along).
noinst_PROGRAMS += examples/host examples/worker
examples_host_SOURCES = examples/host.c
examples_host_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
examples_host_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la $(UV_LIBS)
examples_worker_SOURCES = examples/worker.c
examples_worker_LDADD = worker/libipcstamp-worker.la proto/libipcstamp-proto.la
TESTS += examples/host.test
EXTRA_DIST += examples/host.test

PHONY_TARGETS += installcheck-examples
installcheck-examples:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	PKG_CONFIG_PATH='$(DESTDIR)$(pkgconfigdir)'; export PKG_CONFIG_PATH; \
	pc() { $(PKG_CONFIG) --define-variable=prefix='$(DESTDIR)$(prefix)' "$$@"; }; \
	$(CC) -o $$tmp/host $(srcdir)/examples/host.c $$(pc --cflags --libs ipcstamp-parent); \
	$(CC) -o $$tmp/worker $(srcdir)/examples/worker.c $$(pc --cflags --libs ipcstamp-worker); \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' $$tmp/host $$tmp/worker $$tmp/run.slog; \
	n=$$(grep -c '"type":"deliver-result".*"dr":\["ok"' $$tmp/run.slog); \
	test "$$n" = 3 || { echo "installcheck: host+worker: $$n ok deliveries, not 3" >&2; exit 1; }; \
	printf '#include <ipcstamp-worker.h>\nint main(void) { return ips_strerror(IPS_EINVAL)[0] == 0; }\n' > $$tmp/strerror.c; \
	$(CC) -o $$tmp/strerror $$tmp/strerror.c $$(pc --cflags --libs ipcstamp-worker); \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' $$tmp/strerror; \
	echo "installcheck: examples/host.c and worker.c against the installed libraries: ok"
