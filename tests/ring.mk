# Tests of the live ring: the producer (proto/ring.c) against the reader
# (analyze/ring_read.c), and a real worker writing its stamps into one.
check_PROGRAMS += tests/check_ring
TESTS += tests/check_ring
tests_check_ring_SOURCES = \
	tests/check_ring.c \
	tests/ring_util.c \
	tests/ring_util.h \
	tests/worker_driver.c \
	tests/worker_driver.h
tests_check_ring_CFLAGS = $(AM_CFLAGS) -pthread $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_ring_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(YAJL_LIBS) -lpthread
