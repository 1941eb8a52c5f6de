/* cli.h — the `ipcstamp` command line: its exit codes, its subcommands and
 * the options that the analysis subcommands share.
 *
 * Each subcommand is `int cmd_<name>(int argc, char **argv)`; argv[0] is
 * the subcommand's name, options follow (getopt_long; main resets optind).
 * It returns one of the exit codes below and prints its own messages,
 * prefixed "ipcstamp <name>: ".
 */
#ifndef IPCSTAMP_TOOLS_CLI_H
#define IPCSTAMP_TOOLS_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdio.h>

#include "ipcstamp-analyze.h"
#include "ipcstamp-analyze-os.h"

/* Exit codes of the command (docs/cli.md).  They are the program's own, so
 * they do not use the libraries' IPS_ prefix; the workers' exit codes are
 * another table (IPS_WORKER_EXIT_* in ipcstamp-worker.h). */
enum {
  CLI_EXIT_OK = 0,  /* done, nothing skipped */
  CLI_EXIT_FAIL = 1, /* the run failed (a worker fault, a failed delivery) */
  CLI_EXIT_USAGE = 2, /* bad option or value */
  CLI_EXIT_INPUT = 3, /* bad input: records were skipped, each reported */
  CLI_EXIT_IO = 4,  /* cannot read the input or write the output */
  CLI_EXIT_SEND = 5, /* otel: the receiver did not take the spans */
  CLI_EXIT_DIVERGE = 6, /* diff: a delivery differs between the nodes */
  CLI_EXIT_DISJOINT = 7 /* diff: the files have no delivery in common */
};

/* name, one-line summary.  One line per subcommand. */
#define CLI_COMMANDS(XX)                                                   \
  XX(run, "drive a workload through workers and write a slogfile")        \
  XX(report, "where the time of each delivery went: pipe, worker, kernel") \
  XX(blocks, "where the time of each block of a chain node went")           \
  XX(diff, "the same deliveries compared across nodes and runs")            \
  XX(trace, "a Chrome/Perfetto trace of a slogfile")                      \
  XX(latency, "percentiles of pipe, worker, kernel or total time")       \
  XX(top, "live view of the rings of stamps of running processes")       \
  XX(watch, "every event of the rings of stamps, as JSON lines")       \
  XX(otel, "send the deliveries as OpenTelemetry spans (OTLP/HTTP)")       \
  XX(metrics, "serve the deliveries' times to Prometheus (GET /metrics)")  \
  XX(xsnap, "install ipcstamp-worker-xs in a SwingSet node, or restore")  \
  XX(record, "record a parent's and its workers' frames and waits (eBPF)")

#define XX(name, summary) int cmd_##name(int argc, char **argv);
CLI_COMMANDS(XX)
#undef XX

/* Untrusted text (a ring's names, a worker's output) made safe for a
 * terminal, in place: every control character but '\n' and '\t' (C0,
 * DEL, and the C1 controls U+0080..U+009F, CSI among them) and every byte
 * that is not part of strict UTF-8 becomes '?'; valid UTF-8 text stays. */
void cli_term_clean(char *buf, size_t len);

/* outfile.c: the output file path, opened for writing as `-o` asks, but
 * never through a symbolic link: a name planted in a shared directory (a
 * link to another file of the user's) must not be followed.  A regular
 * file (or a new name) is written under a temporary name beside it
 * (PATH.ipcstamp-XXXXXX, with PATH's mode, or 0644 less the umask) that
 * cli_output_close puts in its place, so PATH keeps what it held until
 * then.  A FIFO or device named directly is written as such, a FIFO
 * without a reader refused at once instead of waited on.  NULL with a
 * message "ipcstamp PROG: cannot write PATH: why" said. */
FILE *cli_create(const char *path, const char *prog);
/* -o PATH: stdout for NULL or "-", else cli_create(path, prog). */
FILE *cli_output(const char *path, const char *prog);
/* Puts every output still under its temporary name in its place now,
 * while it is written on (--follow: the file is watched as it grows). */
void cli_output_publish(void);
/* Ends an output of cli_output (closes f; stdout is flushed and left
 * open): what was written checked, and with keep the temporary renamed
 * over PATH; without keep (the input could not be opened) PATH is left
 * as it was.  0, or -1 after "ipcstamp PROG: cannot write PATH: why". */
int cli_output_close(FILE *f, const char *prog, int keep);
/* stdout flushed and checked: 0, or -1 after "ipcstamp PROG: cannot write
 * the standard output: why" (said once however often it is called).
 * main() calls it after every command, so that no output is lost
 * unsaid. */
int cli_stdout_close(const char *prog);

/* ---- the analysis subcommands' shared options ------------------------ */

/* Option codes above any character, so a subcommand's own short options
 * never collide with them. */
enum {
  OPT_VAT = 0x100,
  OPT_CLOCK,
  OPT_STRICT,
  OPT_MAX_LINE,
  OPT_QUAKE_US,
  OPT_SINCE,
  OPT_UNTIL,
  OPT_CRANK,
  OPT_LIMIT,
  OPT_FOLLOW,
  OPT_METHOD,
  OPT_OVER,
  OPT_RING,
  OPT_WORKER_RINGS,
  OPT_OS,
  OPT_FIRST_OWN /* a subcommand numbers its own long options from here */
};

/* The long options every analysis subcommand takes, to put first in its
 * table (then its own, then {NULL, 0, NULL, 0}). */
#define CLI_INPUT_OPTIONS                                 \
  {"vat", required_argument, NULL, OPT_VAT},              \
  {"clock", required_argument, NULL, OPT_CLOCK},          \
  {"strict", no_argument, NULL, OPT_STRICT},              \
  {"max-line", required_argument, NULL, OPT_MAX_LINE},    \
  {"quake-us", required_argument, NULL, OPT_QUAKE_US},    \
  {"since", required_argument, NULL, OPT_SINCE},          \
  {"until", required_argument, NULL, OPT_UNTIL},          \
  {"crank", required_argument, NULL, OPT_CRANK},          \
  {"limit", required_argument, NULL, OPT_LIMIT},          \
  {"follow", no_argument, NULL, OPT_FOLLOW},              \
  {"method", required_argument, NULL, OPT_METHOD},        \
  {"over", required_argument, NULL, OPT_OVER},            \
  {"ring", required_argument, NULL, OPT_RING},            \
  {"worker-rings", required_argument, NULL, OPT_WORKER_RINGS}, \
  {"help", no_argument, NULL, 'h'}

/* --os FILE, for the subcommands that join a recording of `ipcstamp
 * record` (docs/os.md): put after CLI_INPUT_OPTIONS, CLI_OS_HELP in the
 * help; cli_next_option takes it into cli_input_t.os_path and cli_analyze
 * joins it with the analysis (cli_os_join). */
#define CLI_OS_OPTION {"os", required_argument, NULL, OPT_OS}
#define CLI_OS_HELP                                                        \
  "  --os FILE         split each delivery with what `ipcstamp record`\n" \
  "                    saw (docs/os.md)\n"

/* --ring's lines in --help (otel says its own). */
#ifndef CLI_RING_HELP
#define CLI_RING_HELP                                                      \
  "  --ring DIR        instead of SLOG: what the live rings of DIR hold\n" \
  "                    (docs/ring.md), joined into deliveries; with\n"    \
  "                    --follow, new ones until Ctrl-C\n"
#endif

/* Their lines in --help. */
#define CLI_INPUT_HELP                                                     \
  "  --vat V           only deliveries to vat V (and only its skips)\n"  \
  "  --method M        only deliveries of method M (a message's method,\n" \
  "                    notify, or the delivery type: bringOutYourDead...)\n" \
  "  --over D          only deliveries whose total is over D (250us, 1.5ms,\n" \
  "                    2s; bare: microseconds)\n" \
  "  --clock C         auto (default), mono or wall\n"                   \
  "  --since S         only deliveries from S seconds after the first record\n" \
  "  --until S         only deliveries before S seconds after the first record\n" \
  "  --crank A..B      only deliveries of cranks A to B (A.. or ..B: open)\n" \
  "  --limit N         only the first N deliveries (reading stops there)\n" \
  "  --follow          keep reading a file being written, through rotation\n" \
  "                    and truncation; each delivery shows when its result\n" \
  "                    arrives; Ctrl-C ends\n" \
  CLI_RING_HELP \
  "  --worker-rings DIR  the stamps of xsnap workers whose metering is\n" \
  "                    xsnap's exactly (IPCSTAMP_XS_METERING=xsnap) from\n" \
  "                    their rings in DIR (docs/xsnap.md)\n" \
  "  --quake-us US     timequake threshold in microseconds (default 1000)\n" \
  "  --strict          validate every byte as JSON (slower)\n"           \
  "  --max-line BYTES  longest line read (default 67108864)\n"           \
  "  -h, --help        this text\n"

/* What an analysis subcommand reads and how: the slogfile, the source's
 * and the analysis's options, and where messages go. */
typedef struct {
  const char *prog;            /* "ipcstamp report": message prefix */
  const char *usage;           /* the --help text */
  const char *path;            /* the slogfile; "-" is stdin; with ring,
                                  the ring directory */
  const char *ring;            /* --ring DIR: the live rings instead */
  const char *worker_rings;    /* --worker-rings DIR: exact-mode xsnap
                                  workers' stamps from their rings */
  ips_source_options_t src;
  ips_analysis_options_t an;
  int progress;                /* a progress bar on a terminal */
  FILE *msgs;                  /* skips are reported here (stderr) */
  /* Following: called each time the reader waits for more input (about
   * every 100 ms), so that a subcommand can flush what it holds; NULL
   * for none. */
  void (*on_idle)(void *arg);
  void *idle_arg;
  /* --method and --over (has_over): chosen among the attributed
   * deliveries (ips_analysis_options_t.select). */
  const char *method;
  int has_over;
  int64_t over_ns;
  /* Each block of a chain node (ips_analysis_on_block), with an.arg;
   * NULL for none. */
  ips_block_cb on_block;
  /* Keep each delivery's kind and causes (ips_analysis_keep_causes). */
  int keep_causes;
  /* Set by cli_analyze once the input is open: an output made from an
   * input that could not be opened replaces nothing (cli_output_close). */
  int opened;
  const char *os_path;         /* --os FILE, or NULL */
  ips_os_t *os;                /* read before the output began
                                  (cli_os_first), until cli_os_join */
  int os_rc;                   /* ... and its code */
} cli_input_t;

/* os_file.c: in's --os FILE read (cli_os_open) and joined with the
 * analysis a (ips_analysis_os): CLI_EXIT_OK, or CLI_EXIT_INPUT (bad lines
 * skipped: the analysis goes on); or, with nothing joined, CLI_EXIT_IO
 * (cannot be read) or CLI_EXIT_INPUT (not a recording this ipcstamp
 * reads). */
int cli_os_join(cli_input_t *in, ips_analysis_t *a);
/* os_file.c: in's --os FILE read now, before any output begins, so that a
 * recording that is refused leaves nothing but its error (no empty
 * summary, no CSV header): -1 to go on (read, or no --os; cli_os_join
 * then takes it), else the exit code, said. */
int cli_os_first(cli_input_t *in);
/* read.c: the inputs named beside the slogfile checked before any output
 * begins: --worker-rings must be a folder (else said, CLI_EXIT_IO), and
 * --os read (cli_os_first).  -1 to go on, else the exit code. */
int cli_inputs_first(cli_input_t *in);

/* Defaults for prog, whose --help text is usage. */
void cli_input_init(cli_input_t *in, const char *prog, const char *usage);

/* The next option of argv that is the subcommand's own (getopt_long with
 * shorts and opts, which start with CLI_INPUT_OPTIONS): the shared ones are
 * taken into *in on the way.  Returns the option's code, or -1 when there
 * are no more: then *rc is -1 to go on, or the exit code to return now
 * (CLI_EXIT_OK after -h printed the help, CLI_EXIT_USAGE after a message
 * on stderr). */
int cli_next_option(cli_input_t *in, int argc, char **argv,
                    const char *shorts, const struct option *opts, int *rc);

/* Whether a filter that chooses deliveries was given: --vat, --method,
 * --over, --since, --until, --crank or --limit (the commands that take
 * no such choice refuse them). */
int cli_filters_given(const cli_input_t *in);

/* After the options: exactly one slogfile, or none with --ring.  Returns
 * 0, or -1 after saying what is wrong. */
int cli_input_path(cli_input_t *in, int argc, char **argv);

/* --interval's value, checked the same for every ring follower (otel
 * --ring has options of its own besides): 0, or -1 after saying why. */
int cli_ring_interval(const char *name, const char *arg, long long min_ms,
                      long long *interval);

/* The options of the subcommands that follow a ring directory (top,
 * watch): the directory as --dir DIR or as an argument (default
 * $IPCSTAMP_RING_DIR), process ids to follow as arguments (a number is a
 * pid; a directory named by digits is written ./123), --interval MS from
 * min_ms to 60000, --once, -h, and with with_clean --clean. */
#define CLI_RING_PIDS 64
typedef struct {
  const char *dir;             /* never empty after a successful parse */
  long long interval;          /* preset by the caller: its default */
  int once, clean;
  long pids[CLI_RING_PIDS];
  size_t npids;
} cli_ring_t;

/* name is "top" or "watch"; usage the --help text.  Returns -1 to go on,
 * or the exit code to return now (CLI_EXIT_OK after --help,
 * CLI_EXIT_USAGE after saying what is wrong). */
int cli_ring_options(int argc, char **argv, const char *name,
                     const char *usage, long long min_ms, int with_clean,
                     cli_ring_t *o);

/* rings.c: reads the rings of in->ring into a (on the analysis's own
 * callbacks, as a slogfile), what they hold now or with --follow until
 * *stop; each unreadable ring said.  Returns an exit code (CLI_EXIT_INPUT
 * when a ring could not be read). */
int cli_read_rings(cli_input_t *in, ips_analysis_t *a,
                   volatile sig_atomic_t *stop);

/* os_file.c: --os FILE read whole into *os (ips_os_open).  Returns
 * CLI_EXIT_OK, or CLI_EXIT_INPUT (lines skipped, each said) with *os set;
 * else *os is NULL and the code says why it could not be read
 * (CLI_EXIT_IO, CLI_EXIT_INPUT), said on stderr after prog. */
int cli_os_open(ips_os_t **os, const char *prog, const char *path);

/* rings.c: reads the rings of d (ips_ring_dir_poll) until read through
 * (once), or until *stop (a signal handler sets it), polling every
 * interval_ms: a backlog is read on at once, and on_idle (optional) runs
 * after stdout is flushed each time all that was there has been read.
 * Returns CLI_EXIT_OK, or CLI_EXIT_IO when the directory cannot be read
 * (said on stderr after prog). */
int cli_rings_poll(ips_ring_dir_t *d, const char *prog, int once,
                   long long interval_ms, volatile sig_atomic_t *stop,
                   void (*on_idle)(void *arg), void *arg);

/* Says on stderr that option (e.g. "--vat") with value names no kind
 * ("vat") of the input, and lists the n names it has (more: and others);
 * returns
 * CLI_EXIT_USAGE. */
int cli_names_nothing(const cli_input_t *in, const char *option,
                      const char *value, const char *kind,
                      const char *const *names, size_t n, int more);

/* Says on stderr that an option's value is wrong ("--top takes a count up
 * to 10000, not 'x'") and returns CLI_EXIT_USAGE. */
int cli_bad_value(const cli_input_t *in, const char *what, const char *arg);

/* The flag SIGINT and SIGTERM set while cli_analyze follows (--follow,
 * --ring), non-zero once one came (it counts them): what else waits (a
 * request or retry of otel's) looks at it too, so that a signal ends the
 * run within one wait. */
volatile sig_atomic_t *cli_stop_flag(void);

/* A decimal ("12", "0.25") of unit_ns nanoseconds into ns, exactly (digits
 * past the nanosecond are dropped); -1 if it is not one or is over a
 * century. */
int cli_decimal_ns(const char *s, int64_t unit_ns, int64_t *ns);

/* Waits until SIGINT or SIGTERM sets that flag (at once when one came
 * already).  The signals are blocked but in sigsuspend, so that one coming
 * between the test and the wait is not lost. */
void cli_wait_stop(void);

/* A whole number from 0 to max, or -1. */
int cli_count(const char *s, long long max, long long *out);
/* --clock's value (auto, mono, wall) into *clock (IPS_CLOCK_*), or -1:
 * the caller says what is wrong in its own words. */
int cli_clock(const char *s, int *clock);
/* --max-line's value (bytes, from IPS_MIN_MAX_LINE) into *out, or -1. */
int cli_max_line(const char *s, size_t *out);

/* Reads the whole slogfile, or with --ring what the rings of the directory
 * hold (libipcstamp-analyze's ring directory; an unreadable ring said and
 * CLI_EXIT_INPUT), into a new analysis (callbacks in in->an):
 * every skip reported on in->msgs with its line, a progress bar on a
 * terminal; --method and --over filter the deliveries.  A --vat or
 * --method that names nothing in the input is said on stderr with the
 * names there are, and makes the result CLI_EXIT_USAGE.  With --follow it reads until SIGINT or SIGTERM (then ends as
 * at the end of input: deliveries in flight are reported unfinished),
 * flushing stdout whenever it waits for more.  *out is the analysis, for the summary (free it): it is set
 * before the first callback (so a callback may read its statistics) and
 * also when reading stopped early.  Returns CLI_EXIT_OK, CLI_EXIT_INPUT
 * (something skipped), CLI_EXIT_USAGE (a filter named nothing) or
 * CLI_EXIT_IO. */
int cli_analyze(cli_input_t *in, ips_analysis_t **out);

#endif
