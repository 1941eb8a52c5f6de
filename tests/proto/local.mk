# Tests of proto/ (tests/proto/): the netstring framing, the clock and the
# stamp table, the metering and mark writers in one binary; the live ring's
# format, producer (proto/ring.c) against reader (analyze/ring_read.c), in
# two more.  Run one alone: make check TESTS=tests/proto/check_proto
check_PROGRAMS += tests/proto/check_proto
TESTS += tests/proto/check_proto
tests_proto_check_proto_SOURCES = \
	tests/proto/check_proto.c \
	tests/proto/check_netstring.c \
	tests/proto/check_stamps.c \
	tests/proto/check_metering.c \
	tests/proto/check_marks.c \
	tests/proto/suites.h
tests_proto_check_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_proto_check_proto_LDADD = proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)

# The live ring: producer against reader, in-process, across threads and
# processes, and a real worker (driven by tests/worker/worker_driver.c)
# writing its stamps into one.
RING_TEST_UTIL = tests/proto/ring_util.c tests/proto/ring_util.h
check_PROGRAMS += tests/proto/check_ring
TESTS += tests/proto/check_ring
tests_proto_check_ring_SOURCES = tests/proto/check_ring.c $(RING_TEST_UTIL) $(WORKER_DRIVER)
tests_proto_check_ring_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/worker
tests_proto_check_ring_CFLAGS = $(AM_CFLAGS) -pthread $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_proto_check_ring_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(YAJL_LIBS) -lpthread

# The ring against whoever else can write its directory or its file:
# planted names, a full filesystem, FIFOs and devices, truncation under a
# reader, stamps going back.
check_PROGRAMS += tests/proto/check_ring_hostile
TESTS += tests/proto/check_ring_hostile
tests_proto_check_ring_hostile_SOURCES = tests/proto/check_ring_hostile.c \
	$(RING_TEST_UTIL) $(WORKER_DRIVER)
tests_proto_check_ring_hostile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/worker
tests_proto_check_ring_hostile_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_proto_check_ring_hostile_LDADD = analyze/libanalyze-core.la \
	proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS) -lpthread
