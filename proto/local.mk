# proto/: the wire layer (libc only).
lib_LTLIBRARIES += proto/libipcstamp-proto.la
include_HEADERS += proto/ipcstamp-proto.h proto/ipcstamp-slog.h proto/ipcstamp-metering.h \
	proto/ipcstamp-ring.h
noinst_HEADERS += proto/ipcstamp-probes.h proto/ring-format.h proto/cursor.h proto/digits.h proto/attribution.h \
	proto/decimal.h proto/match.h proto/meter.h
pkgconfig_DATA += proto/ipcstamp-proto.pc
proto_libipcstamp_proto_la_SOURCES = \
	proto/errors.c \
	proto/netstring.c \
	proto/clock.c \
	proto/stamps.c \
	proto/metering.c \
	proto/ring.c \
	proto/marks.c \
	proto/utf8.c
proto_libipcstamp_proto_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -version-info 0:0:0
# proto/attribution.c, the formula of the attribution (libc only), is not in
# this library: its symbols are internal, and the two libraries that use it
# (parent/ for its live-ring events, analyze/ for everything else) list it
# among their own sources, so that the one copy is compiled into each.
# So is the metering's one decoder (proto/meter.h: meter_fast.c,
# meter_read.c, meter_check.c), which needs yajl: both libraries read
# meterings, the parent a worker's, the analysis a slogfile's.
METER_SOURCES = proto/meter.h proto/meter_fast.c proto/meter_read.c \
	proto/meter_check.c
dist_docs_DATA += docs/protocol.md docs/ring.md
