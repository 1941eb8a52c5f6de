# worker/: the worker library (libc + proto only).
lib_LTLIBRARIES += worker/libipcstamp-worker.la
include_HEADERS += worker/ipcstamp-worker.h
noinst_HEADERS += worker/worker-int.h
pkgconfig_DATA += worker/ipcstamp-worker.pc
worker_libipcstamp_worker_la_SOURCES = \
	worker/worker.c \
	worker/options.c
worker_libipcstamp_worker_la_LIBADD = proto/libipcstamp-proto.la
worker_libipcstamp_worker_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -version-info 0:0:0
