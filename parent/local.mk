# parent/: the parent library on libuv (workers, metering reader, slogfile).
lib_LTLIBRARIES += parent/libipcstamp-parent.la
include_HEADERS += parent/ipcstamp-parent.h
noinst_HEADERS += parent/json.h parent/child.h parent/crank.h parent/ring.h parent/metering.h
pkgconfig_DATA += parent/ipcstamp-parent.pc
parent_libipcstamp_parent_la_SOURCES = \
	parent/crank.c \
	parent/json.c \
	parent/metering.c \
	$(METER_SOURCES) \
	parent/slog.c \
	parent/ring.c \
	proto/attribution.h \
	proto/attribution.c \
	parent/child.c \
	parent/child_frames.c \
	parent/child_spawn.c
parent_libipcstamp_parent_la_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
parent_libipcstamp_parent_la_LIBADD = proto/libipcstamp-proto.la $(UV_LIBS) $(YAJL_LIBS)
parent_libipcstamp_parent_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -version-info 0:0:0
EXTRA_DIST += parent/.gitignore
dist_docs_DATA += docs/slogfile.md docs/cli.md docs/faults.md
