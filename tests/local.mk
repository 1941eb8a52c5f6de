# tests/: Check suites, one binary per module (tests/check_<module>.c).
check_PROGRAMS += tests/check_proto
TESTS += tests/check_proto
tests_check_proto_SOURCES = \
	tests/check_proto.c \
	tests/check_netstring.c \
	tests/check_stamps.c \
	tests/check_metering.c \
	tests/suites.h
tests_check_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_proto_LDADD = proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)

include tests/worker.mk
include tests/parent.mk
include tests/tools.mk
