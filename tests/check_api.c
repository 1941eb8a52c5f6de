/* check_api.c — the four public headers in one program, linked against
 * the four libraries: no name may be declared twice (a host that embeds a
 * worker, or a test harness, uses both sides at once), and only the public
 * API is exported. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdlib.h>

#include "ipcstamp-analyze.h"
#include "ipcstamp-parent.h"
#include "ipcstamp-proto.h"
#include "ipcstamp-slog.h"
#include "ipcstamp-metering.h"
#include "ipcstamp-ring-read.h"
#include "ipcstamp-ring.h"
#include "ipcstamp-worker.h"

START_TEST(test_both_sides_link) {
  /* One symbol of each side's API, resolved from one program. */
  int (*spawn)(uv_loop_t *, const ips_child_options_t *, ips_child_t **) =
      ips_child_spawn;
  int (*init)(ips_worker_t *, const ips_worker_options_t *) = ips_worker_init;
  ck_assert_ptr_nonnull((void *)(uintptr_t)spawn);
  ck_assert_ptr_nonnull((void *)(uintptr_t)init);
  int (*analyse)(ips_analysis_t **, const ips_analysis_options_t *) =
      ips_analysis_new;
  ck_assert_ptr_nonnull((void *)(uintptr_t)analyse);
  ck_assert_str_eq(ips_err_name(IPS_EPIPE), "IPS_EPIPE");
  ck_assert_str_eq(ips_skip_name(IPS_SKIP_ORPHAN), "ORPHAN");
  ck_assert_str_eq(IPS_MK_MONO, "mono"); /* the metering schema installs */
  {
    void (*stamp)(ips_ring_t *, const ips_stamp_t *, uint64_t, uint32_t) =
        ips_ring_stamp;
    int (*poll)(ips_ring_reader_t *, size_t, ips_ring_event_cb,
                ips_ring_lost_cb, void *) = ips_ring_reader_poll;
    ck_assert_ptr_nonnull((void *)(uintptr_t)stamp);
    ck_assert_ptr_nonnull((void *)(uintptr_t)poll);
    ck_assert_str_eq(ips_err_name(IPS_ERING), "IPS_ERING");
  }
}
END_TEST

START_TEST(test_internals_hidden) {
  /* -fvisibility=hidden: internal ips__ functions are not exported. */
  void *self = dlopen(NULL, RTLD_NOW);
  ck_assert_ptr_nonnull(self);
  ck_assert_ptr_nonnull(dlsym(self, "ips_ns_feed"));
  ck_assert_ptr_null(dlsym(self, "ips__json_embed"));
  /* The analysis exports its header only, not its reader and parser. */
  ck_assert_ptr_nonnull(dlsym(self, "ips_analysis_read"));
  ck_assert_ptr_null(dlsym(self, "ips__slog_parse"));
  ck_assert_ptr_null(dlsym(self, "ips__attr_feed"));
  /* The formula's one copy is compiled into the parent and the analysis,
   * hidden in both; the analysis exports its segment walk. */
  ck_assert_ptr_null(dlsym(self, "ips__attribute"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_delivery_segments"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_delivery_upcall_wait"));
  /* The ring: the producer from proto, the reader from the analysis. */
  ck_assert_ptr_nonnull(dlsym(self, "ips_ring_open"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_ring_stamp"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_ring_reader_open"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_ring_reader_poll"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_ring_event_field"));
  ck_assert_ptr_null(dlsym(self, "ips__marks_build"));
  /* Marks: the table and the analysis's totals. */
  ck_assert_ptr_nonnull(dlsym(self, "ips_marks_add"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_metering_write_marks"));
  ck_assert_ptr_nonnull(dlsym(self, "ips_analysis_mark"));
  dlclose(self);
}
END_TEST

int main(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("Core");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, test_both_sides_link);
  tcase_add_test(tc, test_internals_hidden);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
