/* worker_suites.h — the Check suites of tests/worker/check_worker and the checks
 * they share. */
#ifndef IPCSTAMP_TESTS_WORKER_SUITES_H
#define IPCSTAMP_TESTS_WORKER_SUITES_H

#include <check.h>

#include "worker_driver.h"

Suite *worker_lib_suite(void);
Suite *worker_c_suite(void);
Suite *worker_js_suite(void);
Suite *worker_marks_suite(void);
Suite *worker_run_delay_suite(void);

/* Paths of the programs under test (relative to the build directory). */
#define WORKER_C "worker/ipcstamp-worker-c"
#define WORKER_JS "worker/ipcstamp-worker-js"
#define EMBED_EXAMPLE "worker/embed-example"

/* Start a program with no arguments and env (may be NULL). */
void start(wd_t *d, const char *prog, const char *const *env);

/* Send a command and expect a '.' result; its metering is parsed into m
 * (names: the VM counters to pick up, may be NULL). */
void deliver_ok(wd_t *d, char tag, const char *payload, size_t n,
                wd_upcall_fn fn, void *arg, const char *const *names,
                wd_result_t *r, wd_meter_t *m);

/* Send a command and expect a '!' whose message contains needle. */
void deliver_error(wd_t *d, char tag, const char *payload, size_t n,
                   const char *needle);

/* The stamps of a delivery against the driver's clocks: kinds are
 * d (u r)* e with one pair per recorded upcall, mono and wall never go
 * back, every stamp lies between the driver's clock reads that bound it
 * causally, and the two clocks advance together. */
void check_stamps(const wd_result_t *r, const wd_meter_t *m);

/* An upcall handler for wd_command: closes the worker's input (arg is the
 * wd_t) instead of replying, so the worker sees end of input mid-upcall. */
int hang_up(void *arg, uint32_t i, const char *req, size_t n,
            const char **reply, size_t *reply_len);

/* Expect 'R' to be answered "1:.," (the worker still works). */
void expect_alive(wd_t *d);

/* Expect the worker to exit with status, and (when needle is not NULL)
 * stderr to contain needle. */
void expect_exit(wd_t *d, int status, const char *needle);

/* A bad frame (raw bytes, then end of input when close_after) must make
 * the worker (started with env, may be NULL) exit 2 with the rule's message
 * and "at byte <offset>". */
void expect_framing_error(const char *prog, const char *const *env,
                          const char *raw, size_t n, int close_after, int code,
                          long offset);

#endif
