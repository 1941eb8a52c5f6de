# worker/: the worker library (libc + proto only) and the two worker
# programs built on it.
lib_LTLIBRARIES += worker/libipcstamp-worker.la
include_HEADERS += worker/ipcstamp-worker.h
noinst_HEADERS += worker/worker-int.h
pkgconfig_DATA += worker/ipcstamp-worker.pc
worker_libipcstamp_worker_la_SOURCES = \
	worker/worker.c \
	worker/worker_init.c \
	worker/options.c
worker_libipcstamp_worker_la_LIBADD = proto/libipcstamp-proto.la
worker_libipcstamp_worker_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -version-info 1:0:0

bin_PROGRAMS += worker/ipcstamp-worker-c worker/ipcstamp-worker-js

# The two worker programs carry the library inside, as ipcstamp-worker-xs
# does: the USDT probes (docs/probes.md) are then in the program's own
# file, where `bpftrace -l usdt:PROGRAM` and a tracer attached to the
# program find them, and a copied program needs no library.
noinst_LTLIBRARIES += worker/libworker-static.la
worker_libworker_static_la_SOURCES = $(worker_libipcstamp_worker_la_SOURCES) \
	$(proto_libipcstamp_proto_la_SOURCES)

# The C test and benchmark worker: yajl parses its one-line command.
worker_ipcstamp_worker_c_SOURCES = worker/worker-c.c
worker_ipcstamp_worker_c_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
worker_ipcstamp_worker_c_LDADD = worker/libworker-static.la $(YAJL_LIBS)

# The JavaScript worker on Duktape.
worker_ipcstamp_worker_js_SOURCES = worker/js/main.c worker/js/strings.c worker/js/performance.c \
	worker/js/js.h
worker_ipcstamp_worker_js_CFLAGS = $(AM_CFLAGS) $(DUKTAPE_CFLAGS)
worker_ipcstamp_worker_js_LDADD = worker/libworker-static.la $(DUKTAPE_LIBS)

# The embedding guide's example, compiled from docs/embedding.md itself so
# that the guide cannot rot; make builds it (the guide runs it),
# tests/worker/check_worker.c tests it.
noinst_PROGRAMS += worker/embed-example
nodist_worker_embed_example_SOURCES = worker/embed-example.c
worker_embed_example_LDADD = worker/libipcstamp-worker.la \
	proto/libipcstamp-proto.la
dist_docs_DATA += docs/embedding.md docs/worker.md
CLEANFILES += worker/embed-example.c
worker/embed-example.c: $(top_srcdir)/docs/embedding.md
	$(AM_V_GEN)$(MKDIR_P) worker && \
	sed -n '/^<!-- embed-example.c: begin/,/^<!-- embed-example.c: end/{/^<!--/d;/^```/d;p;}' \
	  $(top_srcdir)/docs/embedding.md > $@.tmp && mv $@.tmp $@
