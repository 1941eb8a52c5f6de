/* check_worker_run_delay.c — the worker's run-queue delay
 * (IPCSTAMP_RUN_DELAY): its shape in the metering, and a forced wait on a
 * loaded CPU.  Only what is certain is asserted: the delay a worker
 * reports for its own stretch of work can never exceed that stretch, and
 * on a CPU taken by a busy process of higher priority a spinning worker
 * waits for most of its spin. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "loaded_cpu.h"
#include "worker_suites.h"

static const char *const on[] = {"IPCSTAMP_RUN_DELAY=1", NULL};

/* Every stamp has its delay, none negative; a stamp the worker takes
 * before a write (u, e) closes a stretch of its own work, read from its
 * previous stamp's reading (taken after that stamp's clocks) to its own
 * (taken before its clocks): its delay fits inside the stretch. */
static void check_delays(const wd_meter_t *m) {
  uint32_t k;
  ck_assert_ptr_nonnull(m->run_delay_ns);
  for (k = 0; k < m->n; k++) {
    ck_assert_int_ge(m->run_delay_ns[k], 0);
    if (k > 0 && (m->kinds[k] == 'u' || m->kinds[k] == 'e'))
      ck_assert_int_le(m->run_delay_ns[k], m->mono_ns[k] - m->mono_ns[k - 1]);
  }
}

START_TEST(rd_in_the_metering) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, on);
  deliver_ok(&d, '?', "{\"upcalls\":3,\"spin_us\":500}", 27, NULL, NULL, NULL,
             &r, &m);
  ck_assert_str_eq(m.kinds, "dururure");
  check_delays(&m);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "de");
  check_delays(&m);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* Off unless asked; and IPCSTAMP_DISABLE reads nothing at all. */
START_TEST(rd_only_when_asked) {
  static const char *const off[] = {"IPCSTAMP_RUN_DELAY=0", NULL};
  static const char *const disabled[] = {"IPCSTAMP_RUN_DELAY=1",
                                         "IPCSTAMP_DISABLE=1", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, off);
  deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
  ck_assert_ptr_null(m.run_delay_ns);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
  start(&d, WORKER_C, disabled);
  deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
  ck_assert(!m.has_ipcstamp);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(rd_bad_value) {
  static const char *const bad[] = {"IPCSTAMP_RUN_DELAY=yes", NULL};
  wd_t d;
  start(&d, WORKER_C, bad);
  expect_exit(&d, 1, "IPCSTAMP_RUN_DELAY=\"yes\": expected 1");
  wd_free(&d);
}
END_TEST

/* The worker spins 20 ms of wall time on a CPU held by a busy process of
 * higher priority: it is runnable the whole time and gets about a tenth
 * of the CPU, so it waits for most of the spin (99% here).  A quarter is
 * asserted: the scheduler cannot give a nice-10 thread three quarters of
 * a CPU contended by a nice-0 one, and more load elsewhere only makes it
 * wait longer. */
START_TEST(rd_forced_wait) {
  loaded_cpu_t l;
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  int64_t work;
  ck_assert_int_eq(loaded_cpu_start(&l), 0);
  start(&d, WORKER_C, on);
  deliver_ok(&d, '?', "{\"spin_us\":20000}", 17, NULL, NULL, NULL, &r, &m);
  loaded_cpu_stop(&l);
  ck_assert_str_eq(m.kinds, "de");
  check_delays(&m);
  work = m.mono_ns[1] - m.mono_ns[0];
  ck_assert_int_ge(work, 20000000);
  fprintf(stderr, "forced wait: worker %.3f ms, of which waiting for a CPU "
          "%.3f ms\n", work / 1e6, m.run_delay_ns[1] / 1e6);
  ck_assert_int_ge(m.run_delay_ns[1], work / 4);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

Suite *worker_run_delay_suite(void) {
  Suite *s = suite_create("Worker run-queue delay");
  TCase *core = tcase_create("Core");
  TCase *bad = tcase_create("Bad input");
  tcase_add_test(core, rd_in_the_metering);
  tcase_add_test(core, rd_only_when_asked);
  tcase_add_test(core, rd_forced_wait);
  tcase_add_test(bad, rd_bad_value);
  suite_add_tcase(s, core);
  suite_add_tcase(s, bad);
  return s;
}
