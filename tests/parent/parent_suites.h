/* parent_suites.h — the Check suites of tests/parent/check_parent, the test peer
 * (the test binary re-run as a worker) and small helpers. */
#ifndef IPCSTAMP_TESTS_PARENT_SUITES_H
#define IPCSTAMP_TESTS_PARENT_SUITES_H

#include <check.h>

#include "ipcstamp-parent.h"

Suite *parent_metering_suite(void);
Suite *slog_suite(void);
Suite *worker_suite(void);
Suite *real_worker_suite(void);

/* Run as a worker speaking the protocol on fd 3/4; mode says how to behave
 * (see parent_peer.c).  Returns the exit code. */
int parent_peer_main(const char *mode);

/* The path of this test binary, to re-run it as a peer. */
const char *parent_self_exe(void);

/* A temporary directory for this test, created on first use. */
const char *parent_tmpdir(void);

/* What a result callback saw, copied so it outlives the callback. */
typedef struct {
  int done;
  ips_result_kind_t kind;
  int status;
  char message[512];
  char *data;
  size_t len;
  int has_metering;
  char metering_error[256];
  ips_metering_t m; /* deep copy of the parsed metering when present */
  ips_stamp_t stamps[256];
  size_t nstamps;
} parent_res_t;

void parent_res_copy(parent_res_t *r, const ips_result_t *res);
void parent_res_free(parent_res_t *r);

#endif
