# Tests of parent/: tests/check_parent re-runs itself as the worker
# (`check_parent --peer MODE`) to play good and hostile peers.
check_PROGRAMS += tests/check_parent
TESTS += tests/check_parent
tests_check_parent_SOURCES = \
	tests/check_parent.c \
	tests/check_parent_metering.c \
	tests/check_parent_slog.c \
	tests/check_parent_worker.c \
	tests/parent_peer.c \
	tests/parent_suites.h
tests_check_parent_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tests_check_parent_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) $(YAJL_LIBS)
