# Tests of parent/ (tests/parent/): the test binary re-runs itself as the
# worker (`check_parent --peer MODE`, tests/parent/parent_peer.c) to play
# good and hostile peers; the command's tests (tests/tools/check_run)
# borrow that peer.  Run one alone: make check TESTS=tests/parent/check_parent
check_PROGRAMS += tests/parent/check_parent
TESTS += tests/parent/check_parent
PARENT_TEST_PEER = \
	tests/parent/parent_peer.c \
	tests/parent/parent_util.c \
	tests/parent/parent_suites.h
tests_parent_check_parent_SOURCES = \
	tests/parent/check_parent.c \
	tests/parent/check_parent_metering.c \
	tests/parent/check_parent_slog.c \
	tests/parent/check_parent_worker.c \
	tests/parent/check_parent_real.c \
	$(PARENT_TEST_PEER)
tests_parent_check_parent_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tests_parent_check_parent_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) $(YAJL_LIBS)

# The metering decoder's fast path against its general reader, built from the
# decoder's own sources (their internals are not exported).
check_PROGRAMS += tests/parent/check_metering_fast
TESTS += tests/parent/check_metering_fast
tests_parent_check_metering_fast_SOURCES = tests/parent/check_metering_fast.c \
	tests/fuzz/meter_same.h parent/json.c $(METER_SOURCES)
tests_parent_check_metering_fast_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/parent
tests_parent_check_metering_fast_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_parent_check_metering_fast_LDADD = proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)
