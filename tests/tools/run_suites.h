/* run_suites.h — the suites of tests/tools/check_run besides its own, and the
 * helpers (tests/tools/run_util.c) it shares with tests/tools/check_timequake: run the
 * real `ipcstamp` (stderr to a file) and check the slogfile it leaves. */
#ifndef IPCSTAMP_TESTS_RUN_SUITES_H
#define IPCSTAMP_TESTS_RUN_SUITES_H

#include <check.h>
#include <sys/types.h>

Suite *hostile_suite(void);
Suite *hostile_faults_suite(void);
Suite *run_delay_suite(void);

/* Paths set by run_setup() (a checked fixture), fresh for each test. */
extern char ipcstamp[1024], dir[512], slog[600], errfile[600], wl[600];
extern char worker_good[1200]; /* this binary as the good peer */
void run_setup(void);

void write_file(const char *path, const char *text);
/* The file's bytes, NUL-terminated (malloc'd); "" when it is missing. */
char *slurp(const char *path);
/* Start `ipcstamp ARGS...` (args NULL-terminated); stderr to errfile,
 * stdout to /dev/null. */
pid_t start(const char **args);
/* The same with stdout to the file out. */
pid_t start_to(const char **args, const char *out);
/* Wait for it; its exit code (failing the test if it died of a signal). */
int finish(pid_t pid);
int run(const char **args);
/* Like finish(), and the child's peak RSS in KiB.  Since Linux 6.2 the
 * kernel keeps RSS in per-CPU counters and reads them roughly: on 2 CPUs
 * under load one run's figure moved by 400-900 KiB with the same pages
 * touched.  For a bound of a few hundred KiB use finish_faults. */
int finish_rss(pid_t pid, long *maxrss_kb);
/* Like finish(), and how many pages the child and its workers faulted
 * in (minor and major): exact, and every page memory grows by is one. */
int finish_faults(pid_t pid, long *pages);
/* Fail unless errfile contains words. */
void assert_err(const char *words);
/* Seconds text ("764.404427069") after "key": in line, as integer
 * nanoseconds. */
long long ns_of(const char *line, const char *key);
/* The slogfile check (see run_util.c); returns how many lines of
 * count_type (NULL: none) it has. */
int check_slog(const char *path, const char *count_type);
/* After a run that failed: the slogfile is not at slog (a retry must not
 * stop at it) but at slog + ".failed", whose path this returns (static). */
const char *failed_slog(void);

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#endif
