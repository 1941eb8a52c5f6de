/* output.h — the output formats of `report`, `trace` and `latency`.  Each
 * takes attributed deliveries and the analysis's statistics (from
 * libipcstamp-analyze) and writes one format; none reads input or options. */
#ifndef IPCSTAMP_TOOLS_OUTPUT_H
#define IPCSTAMP_TOOLS_OUTPUT_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-analyze.h"
#include "ipcstamp-analyze-os.h"
#include "format.h"

/* ---- JSON helpers shared by the formats (json.c) --------------------- */

void out_str(yajl_gen g, const char *s);                  /* "s" */
void out_int(yajl_gen g, const char *key, long long v);   /* "key": v */
void out_kv(yajl_gen g, const char *key, const char *v);  /* "key": "v" */
/* The summary's pipe split: its sums where there are any, and
 * "kernel_stamps" ("pipe", or "records" on SwingSet's own slogfiles). */
void out_wait_totals(yajl_gen g, const ips_stats_t *st);
void out_us(yajl_gen g, const char *key, int64_t ns);     /* "key": 1.234 */
/* Writes what g holds to f and empties g; with nl, that was one whole
 * JSON line: a newline follows and g is ready for the next value. */
void out_flush(yajl_gen g, FILE *f, int nl);
/* The same for JSON that a page embeds in its <script> element (the
 * report's page, diff's): every '<' written as \u003c, so that no text
 * from the input ("</script>", "<!--" in a vat name or a method) can end
 * or confuse the script.  '<' appears in JSON only inside strings, where
 * \u003c means the same.  The one rule for every page that embeds JSON. */
void out_flush_script(yajl_gen g, FILE *f);
/* CSV text: quoted, quotes doubled (vats and methods come from the
 * input), and a leading ' when it begins with = + - @, a tab or a
 * carriage return, which a spreadsheet would take as a formula.  The one
 * writer of every CSV text cell (docs/report.md, "CSV and spreadsheets"). */
void out_csv_text(FILE *f, const char *s);
/* The same for a column's name "NAME_suffix" (diff's per node: NAME comes
 * from the user), written as one cell without joining the two first. */
void out_csv_column(FILE *f, const char *name, const char *suffix);
/* The same for a cell that is most often plain and kept so ("fsync=1
 * read=2"): quoted only when it holds a comma or a quote, begins with a
 * space, or would be a formula; else as it is. */
void out_csv_maybe(FILE *f, const char *s);
/* --format's value as REPORT_* (below), or -1. */
int out_format(const char *arg);
/* A generator for output: no UTF-8 validation (strings come from the
 * slogfile's parser, which kept them valid), NULL when out of memory. */
yajl_gen out_gen(void);
/* A copy of s into dst (n bytes), cut to fit before a UTF-8 continuation
 * byte, so that a kept name or description never ends inside a
 * character. */
void out_copy_cut(char *dst, size_t n, const char *s);

/* ---- a skip (skip.c), from its fields' list (IPS_SKIP_FIELDS) -------- */

/* "prog: path:line: message: detail (skipped)" on f: what every command
 * says of each skip. */
void out_skip_text(FILE *f, const char *prog, const char *path,
                   const ips_skip_t *s);
/* The list's names, as a JSON array; a skip's values, in that order (into
 * the caller's array). */
void out_skip_names(yajl_gen g);
void out_skip_values(yajl_gen g, const ips_skip_t *s);

/* ---- report (report.c) ----------------------------------------------- */

enum { REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_HTML };

/* ---- the N slowest deliveries, kept whole (keep.c) -------------------- */

/* The most bytes kept: beyond, keep_add fails (a hostile file's
 * deliveries may have 2^19 upcalls each). */
#define KEEP_BUDGET ((size_t)256 << 20)

struct kept;
typedef struct {
  ips_slowest_t keeper;  /* which slot a delivery takes (the one keeper) */
  struct kept **slot;    /* keeper.cap copies, as the keeper placed them */
  struct kept **sorted;  /* keep_sort's order */
  size_t *order;
  uint64_t seq;
  size_t bytes;
} keep_t;

int keep_init(keep_t *k, size_t cap); /* -1: out of memory */
/* Keeps a copy of d if it is among the cap slowest so far (ties: the
 * earlier).  Returns 0, or -1 when memory or KEEP_BUDGET ran out (then
 * what is kept is incomplete: the caller fails). */
int keep_add(keep_t *k, const ips_delivery_t *d);
/* Sorts what is kept, slowest first (or in file order); returns how
 * many.  keep_get(k, i) is the i-th, owned by k. */
size_t keep_sort(keep_t *k, int in_file_order);
const ips_delivery_t *keep_get(const keep_t *k, size_t i);
void keep_free(keep_t *k);

/* ---- the operating system's split, --os (os.c) ------------------------ */

/* A thread's time per system call, key: {"fsync": ns, ...} (the field
 * list's type BY). */
void os_by_json(yajl_gen g, const char *key, const ips_os_by_t *by);
/* A delivery's lines in the text report (d->os). */
void os_text(FILE *f, const ips_os_split_t *s);
/* The summary's: the analysis's sums of the splits and what the recording
 * holds ("os": {...} in JSON, a block in text).  Nothing without one. */
void os_summary_json(yajl_gen g, const ips_analysis_t *a);
void os_summary_text(FILE *f, const ips_analysis_t *a);
/* One thread's split as os.c writes it: "key": {...} in JSON. */
void os_time_json(yajl_gen g, const char *key, const ips_os_time_t *t);

/* The parts of a thread's time split (an ips_os_time_t), in the order
 * every format writes them: X(key, member, type), type INT (a count or
 * ns) or BY (the by-call list).  os_time_json's keys and blocks' CSV
 * columns both come from it. */
#define OS_TIME_PARTS(X)                  \
  X(on_cpu_ns, on_cpu, INT)               \
  X(steal_ns, steal, INT)                 \
  X(uncharged_ns, uncharged, INT)         \
  X(cpu_wait_ns, cpu_wait, INT)           \
  X(cpu_wait_by, cpu_wait_by, BY)         \
  X(disk_ns, disk, INT)                   \
  X(disk_by, disk_by, BY)                 \
  X(page_fault_ns, fault, INT)            \
  X(major_faults, major_faults, INT)      \
  X(sleep_ns, sleep, INT)                 \
  X(sleep_by, sleep_by, BY)               \
  X(not_measured_ns, not_measured, INT)
/* The text shows at most OS_BY_SHOWN system calls of a part: the first
 * ones seen when there are no more, else the OS_BY_SHOWN largest, largest
 * first.  os_by_shown fills shown with them and returns how many; *more
 * and *more_ns are the rest's count and time (0 when none). */
#define OS_BY_SHOWN 4
size_t os_by_shown(const ips_os_by_t *by, const ips_os_by_t **shown,
                   size_t *more, int64_t *more_ns);
/* A part's time per system call (or CPU holder) in parentheses after it,
 * opened by open (" (" or " (disk: "): the largest few and the rest's
 * count and time (os_by_shown), each time as fmt writes it (report's
 * microseconds, blocks' milliseconds).  Nothing when by is empty. */
void os_by_text(FILE *f, const char *open, const ips_os_by_t *by,
                const char *(*fmt)(char *buf, int64_t ns));
/* A thread's time per system call in one CSV cell: "fsync=ns read=ns". */
void os_by_csv(FILE *f, const ips_os_by_t *by);

/* What the report's formats (format.h) write to and read: set by the
 * command before the format's begin, but for the format's own state. */
struct html_out;
typedef struct report_out_s {
  FILE *out;
  const report_format_t *fmt;
  int summary_only;    /* --summary: no deliveries (but the page's) */
  const char *vat;     /* the --vat filter, or NULL */
  const char *title;   /* the input's name (the page's title) */
  size_t top;          /* how many of the slowest the summary lists */
  int64_t quake_ns;    /* the threshold, for the summary's text */
  ips_analysis_t *a;   /* the analysis, set before the first delivery */
  int grouped;         /* groups are summed (by method; or a format's begin
                          asks for them) */
  ips_groups_t groups;     /* the summary's table: by vat (text and JSON use
                          the analysis's own), or by method */
  /* The formats' own state. */
  int color;           /* text on a terminal: the shares in colour */
  yajl_gen g;          /* json */
  struct html_out *html;             /* html */
  const ips_analysis_t *summarized;  /* html: the summary's analysis */
  int worker_rings;    /* --worker-rings was given: the summary says
                          what they joined */
  int os;              /* --os: the deliveries carry IPS_OS_FIELDS */
} report_out_t;

void report_delivery_text(report_out_t *r, const ips_delivery_t *d);
void report_delivery_json(report_out_t *r, const ips_delivery_t *d);
void report_delivery_csv(report_out_t *r, const ips_delivery_t *d);
void report_csv_header(report_out_t *r);
/* The summary after the deliveries; gap says whether deliveries were
 * printed before it (text puts a blank line between). */
void report_summary_text(report_out_t *r, const ips_analysis_t *a, int gap);
void report_summary_json(report_out_t *r, const ips_analysis_t *a);
/* CSV's summary: the groups' table, one row per vat or method, busiest
 * first, then "all". */
void report_summary_csv(report_out_t *r, const ips_analysis_t *a);

/* ---- trace (trace.c) --------------------------------------------------- */

typedef struct trace_out trace_out_t;

/* The most tracks one vat gets on each side (docs/report.md). */
#define TRACE_LANES 16

/* Chrome Trace Event JSON on f.  NULL when out of memory. */
trace_out_t *trace_open(FILE *f);
/* One delivery; times are relative to the input's first record (st). */
void trace_delivery(trace_out_t *t, const ips_stats_t *st,
                    const ips_delivery_t *d);
/* Deliveries left out because every lane of their vat was taken (the
 * input's clock went back more than the lanes allow). */
uint64_t trace_dropped(const trace_out_t *t);
/* Closes the JSON and frees t.  Returns 0, or -1 if memory ran out on the
 * way (the trace is then incomplete). */
int trace_close(trace_out_t *t);

/* ---- the HTML page (html.c) -------------------------------------------- */

typedef struct html_out html_out_t;

/* A page on f, titled title (the slogfile's name; kept, not copied), with
 * at most top of the slowest deliveries (and never more than 50), its
 * shares drawn per method at first when by_method (else per vat).  NULL
 * when out of memory.  What it keeps is bounded whatever the input. */
html_out_t *html_open(FILE *f, const char *title, size_t top, int by_method);
/* One delivery; its time is relative to the input's first record (st). */
void html_delivery(html_out_t *h, const ips_stats_t *st,
                   const ips_delivery_t *d);
/* One skip (a skipped delivery is marked where the reading was). */
void html_skip(html_out_t *h, const ips_skip_t *s);
/* Writes the page with the analysis's statistics (only: the --vat filter,
 * or NULL) and the deliveries summed by method (NULL: none), and frees h;
 * a NULL a writes nothing (the input could not be read).  Returns 0, or -1
 * if memory ran out on the way. */
int html_close(html_out_t *h, const ips_analysis_t *a, const char *only,
               ips_groups_t *methods);

/* ---- latency (latency.c) ----------------------------------------------- */

enum { LAT_PIPE, LAT_WORKER, LAT_KERNEL, LAT_TOTAL, LAT_UPCALL, LAT_TRANSIT,
       LAT_WAIT, LAT_RUNNABLE, LAT_BLOCKED, LAT_N };
extern const char *const latency_names[LAT_N];

/* Adds what of d to h (LAT_UPCALL: each upcall as the worker waits). */
void latency_add(ips_hist_t *h, int what, const ips_delivery_t *d);
/* The VM's spans of one name: each span's length. */
void latency_add_span(ips_hist_t *h, const char *name, const ips_delivery_t *d);
/* The OS parts latency takes with --os (--what os, --what os_NAME): the
 * ns fields of IPS_OS_FIELDS, in its order.  latency_os_next: the first
 * at or after *k (its index in *k, its name in *name), 0 after the last;
 * latency_os_find: name's index, or -1. */
int latency_os_next(size_t *k, const char **name);
int latency_os_find(const char *name);
/* OS part k of d into *v: 1, or 0 for a delivery without its split, or
 * without that part (os_before_* without a delivery before it). */
int latency_os_value(size_t k, const ips_delivery_t *d, int64_t *v);
/* Adds OS part k of d to h (latency_os_value's, when it has one). */
void latency_add_os(ips_hist_t *h, size_t k, const ips_delivery_t *d);
/* label: latency_names[what], "span:NAME", or an OS part's name. */
void latency_table(FILE *f, const ips_hist_t *h, const char *label);
void latency_json(FILE *f, const ips_hist_t *h, const char *label);

/* ---- JSON the formats share (json.c) --------------------------------- */

/* One VM mark or span as an object, at: its start as the format has it. */
void out_mark(yajl_gen g, const ips_delivery_mark_t *m, int64_t at);
/* "marks": the analysis's per-name table, then "marks_over". */
void out_mark_names(yajl_gen g, const ips_analysis_t *a);
/* "methods": the groups by method, busiest first, then "methods_over"
 * (NULL: an empty table). */
void out_methods(yajl_gen g, ips_groups_t *gr);

/* ---- blocks.c: `ipcstamp blocks`, one row per block ---------------- */

/* The fields of a block (IPS_BLOCK_FIELDS in ipcstamp-analyze-fields.h)
 * by index, BLK_F_<obj>_<name> (BLK_F_row_lag_ns, BLK_F_busiest_vat), and
 * what the formats read of each.  The summary's parts are the fields
 * marked IPS_IN_PART, each named as its JSON key less "_ns" (all end so:
 * tests/tools/blocks_fields.test). */
#define BLK_ENUM(obj, name, csv, type, unit, in, when, value, text, m) \
  BLK_F_##obj##_##name,
enum { IPS_BLOCK_FIELDS(BLK_ENUM) BLK_NFIELDS };
#undef BLK_ENUM
typedef struct {
  const char *obj, *name, *csv, *text; /* as the list has them */
  unsigned in;
} blocks_field_t;
extern const blocks_field_t blocks_fields[BLK_NFIELDS];
enum { BLK_FIGURES = 5 }; /* p50, p90, p99, max, total */
/* Field i's value in *v when it is an INT field b has: 1, else 0. */
int blocks_value(const ips_block_t *b, int i, int64_t *v);
/* The former name of ips_block_deliveries, for callers not yet moved. */
#define blocks_deliveries ips_block_deliveries

typedef struct {
  FILE *out;
  yajl_gen g;                 /* JSON */
  size_t top;                 /* slowest blocks kept */
  ips_block_t *slow;          /* top of them, slowest first */
  size_t nslow;
  ips_slowest_t keeper;       /* which slot of kept a block takes */
  ips_block_t *kept;          /* top slots, as the keeper placed them */
  size_t *order;              /* top: kept's slots, slowest first */
  uint64_t n, n_boot, n_del, n_skip, n_save, n_load;
  long long computrons;
  int64_t boot_ns;
  /* The first block after a bootstrap block: its lag is the time since
   * the chain's genesis, not a block's lag, so it is said apart. */
  int after_boot, has_first_lag;
  int64_t first_lag_ns;
  int64_t sum[BLK_NFIELDS];   /* the parts' (IPS_IN_PART) */
  ips_hist_t *h[BLK_NFIELDS]; /* owned; the parts' only, NULL else */
  uint64_t saturated;         /* sums held at the bound (ips_sum_add) */
  /* More of each JSON row (summary 0) and of the summary's (1), written
   * before it closes: --os's "os" object (blocks_os.c).  NULL: none. */
  void (*json_more)(void *arg, yajl_gen g, int summary);
  void *json_more_arg;        /* the argument of each of the hooks */
  /* More columns of the CSV header (header 1) and of each row (0),
   * each ",cell", before the line's end: --os's.  NULL: none. */
  void (*csv_more)(void *arg, FILE *f, int header);
  /* More of the page, before its end (--format html): --os's section.
   * NULL: none. */
  void (*html_more)(void *arg, FILE *f);
} blocks_out_t;

/* The figures of the blocks' summary, listed once as a block's fields
 * are (IPS_BLOCK_FIELDS), in the order of the JSON summary's keys, before
 * its "parts", "slowest" and (--os) "os":
 *
 *     X(name, unit, when, value, text, meaning)
 *
 * o a const blocks_out_t *; when: the summary has it (JSON leaves it out
 * otherwise); text: the words the text summary says it with (where it
 * is not 0), or NULL.  tests/tools/blocks_fields.test holds the JSON, the
 * text, docs/blocks.md and docs/blocks.schema.json to it. */
#define BLOCKS_SUMMARY_FIELDS(X)                                             \
  X(blocks, "count", 1, (long long)(o)->n, "blocks:",                        \
    "blocks, the bootstrap block apart")                                     \
  X(bootstrap_blocks, "count", 1, (long long)(o)->n_boot, "bootstrap block", \
    "bootstrap blocks (the chain's first run)")                              \
  X(bootstrap_swingset_ns, "ns", 1, (o)->boot_ns, "bootstrap block",         \
    "their swingset (not in the parts)")                                     \
  X(first_block_lag_ns, "ns", (o)->has_first_lag, (o)->first_lag_ns,        \
    "first block after bootstrap: lag",                                      \
    "the first block after bootstrap's lag: the time since genesis")         \
  X(deliveries, "count", 1, (long long)(o)->n_del, "attributed",             \
    "attributed deliveries in the blocks")                                   \
  X(not_attributed, "count", 1, (long long)(o)->n_skip, "not attributed",    \
    "deliveries not attributed (each said on stderr)")                       \
  X(computrons, "count", 1, (o)->computrons, "computrons:",                  \
    "the deliveries' compute")                                               \
  X(saves, "count", 1, (long long)(o)->n_save, "saves", "heap snapshot saves") \
  X(loads, "count", 1, (long long)(o)->n_load, "loads", "heap snapshot loads") \
  X(saturated, "count", (o)->saturated, (long long)(o)->saturated,          \
    "saturated:", "sums held at the bound of 64 bits (hostile input only)")

/* o->out and o->g are the caller's; init allocates the rest (-1: out of
 * memory, nothing to free), free releases it. */
int blocks_out_init(blocks_out_t *o, size_t top);
void blocks_out_free(blocks_out_t *o);
/* ns as milliseconds with three decimals, exact to the microsecond (the
 * rest cut, never rounded up), in buf (IPS_US_BUF bytes).  Returns buf. */
const char *blocks_ms(char *buf, int64_t ns);
/* Part i's figures (field i, IPS_IN_PART) over the blocks: p50, p90,
 * p99, max and total, in ns, and its name in *name (its key less "_ns",
 * not NUL-ended there).  Returns the name's length, or 0 when i is not a
 * part or no block had it (v and *name unset). */
int blocks_part(const blocks_out_t *o, size_t i, int64_t v[BLK_FIGURES],
                const char **name);
/* A block into the summary's figures (each block once, printed or not);
 * a sum that passes int64 is held at the bound and counted in
 * o->saturated. */
void blocks_add(blocks_out_t *o, const ips_block_t *b);
void blocks_header_text(blocks_out_t *o);
void blocks_row_text(blocks_out_t *o, const ips_block_t *b);
void blocks_row_json(blocks_out_t *o, const ips_block_t *b);
void blocks_header_csv(blocks_out_t *o);
void blocks_row_csv(blocks_out_t *o, const ips_block_t *b);
void blocks_summary_text(blocks_out_t *o);
void blocks_summary_json(blocks_out_t *o);

/* ---- blocks_os.c: `ipcstamp blocks --os FILE` ----------------------- */

/* The longest gaps of the whole run kept for the page (--format html). */
#define BLOCKS_OS_RUN_GAPS 10

/* One delivery's span on its parent's clock, its line, crank (-1: a
 * replay) and vat. */
typedef struct {
  int64_t start, end;
  long line;
  long long crank;
  char vat[16];
} blocks_os_span_t;

/* The longest stretches of a block kept, each split: a stalled block's
 * time in one gap or spread over many cranks. */
#define BLOCKS_OS_GAPS 5

/* One stretch of a block outside its deliveries. */
typedef struct {
  int64_t ns;
  long line;                  /* before the delivery at this line (0: the
                                 block's end, -1: the commit), */
  long long crank;            /* ... its crank (-1: none) */
  char vat[16];               /* ... and vat ("" none) */
  ips_os_time_t t;            /* split */
  long long height;           /* its block's (-1: a bootstrap block) */
} blocks_os_gap_t;

/* One block's time outside its deliveries, split. */
typedef struct {
  int64_t between_ns;         /* the stretches' sum: the parts add up to it */
  int64_t commit_ns;          /* of which the commit */
  ips_os_time_t inside;       /* end-block-start to -finish, less deliveries */
  ips_os_time_t commit;       /* commit-block-start to -finish */
  blocks_os_gap_t gaps[BLOCKS_OS_GAPS]; /* the longest, longest first */
  size_t ngaps;
  long long kernel_pid;       /* 0: no frame of the block's deliveries */
  int overflow;               /* not joined: all "not measured" */
} blocks_os_block_t;

typedef struct blocks_os_s {
  ips_os_t *os;               /* owned */
  ips_os_kernel_t k;          /* the latest delivery's kernel that had one */
  int block_k;                /* one of this block's deliveries gave k */
  blocks_os_span_t *spans;    /* the deliveries since the block before */
  size_t nspans, capspans;
  int overflow;               /* too many deliveries kept, or out of memory */
  blocks_os_block_t cur;      /* the latest block's, for its row */
  uint64_t n;
  int64_t sum_ns;
  ips_os_time_t sum;          /* over the blocks, for the summary */
  blocks_os_gap_t run_gaps[BLOCKS_OS_RUN_GAPS]; /* over the blocks, longest
                                                   first (the page's) */
  size_t nrun_gaps;
} blocks_os_t;

/* The fields of a block's "os" object (--os), listed once as the
 * block's (IPS_BLOCK_FIELDS), in the JSON's order:
 *
 *     X(name, type, unit, when, value, meaning)
 *
 * c a const blocks_os_block_t *; type INT, BOOL, OSTIME (a thread's time
 * split, os_time_json's object; value an ips_os_time_t), GAP (the worst
 * gap's object: where, before_line, ns, cause, syscall, cause_ns; value a
 * blocks_os_gap_t *) or GAPS (the kept gaps' array: where, before_line,
 * crank, vat, ns, split). */
#define BLOCKS_OS_FIELDS(X)                                                  \
  X(kernel_pid, INT, "", 1, (c)->kernel_pid,                                 \
    "the kernel's process, as the block's deliveries' frames say (0: none)") \
  X(between_ns, INT, "ns", 1, (c)->between_ns,                               \
    "the block's time outside deliveries, its commit included")              \
  X(commit_ns, INT, "ns", 1, (c)->commit_ns, "of between_ns: the commit")    \
  X(not_joined, BOOL, "", (c)->overflow, 1,                                  \
    "the block could not be joined: all not measured")                       \
  X(between, OSTIME, "ns", 1, blocks_os_between(c),                          \
    "between_ns split by what the kernel's thread was doing")               \
  X(between_deliveries, OSTIME, "ns", 1, (c)->inside,                        \
    "of between: end-block-start to -finish, less the deliveries")           \
  X(commit, OSTIME, "ns", 1, (c)->commit,                                    \
    "of between: commit-block-start to -finish")                             \
  X(worst_gap, GAP, "ns", (c)->ngaps, &(c)->gaps[0],                         \
    "the longest stretch without a delivery, and its largest part")         \
  X(gaps, GAPS, "ns", 1, c,                                                  \
    "the longest stretches (at most five), longest first, each split")

/* A block's whole time outside its deliveries, split (inside + commit). */
ips_os_time_t blocks_os_between(const blocks_os_block_t *c);

/* Each attributed delivery, in order; then each block when committed
 * (before its row is written: the rows show o->cur). */
void blocks_os_delivery(blocks_os_t *o, const ips_delivery_t *d);
void blocks_os_block(blocks_os_t *o, const ips_block_t *b);
/* The block's "os" object in its JSON row; its lines under its text row;
 * the summary's. */
void blocks_os_json(const blocks_os_t *o, yajl_gen g);
void blocks_os_text(const blocks_os_t *o, FILE *f);
void blocks_os_summary_json(const blocks_os_t *o, yajl_gen g);
void blocks_os_summary_text(const blocks_os_t *o, FILE *f);
/* --format csv: the columns' names (header), the block's cells, each
 * ",value" (blocks_out_t's csv_more). */
void blocks_os_csv(const blocks_os_t *o, FILE *f, int header);
/* --format html: the page's section, the split summed over the blocks and
 * the run's longest gaps (blocks_out_t's html_more). */
void blocks_os_html(const blocks_os_t *o, FILE *f);
/* Frees what o holds (o itself is the caller's). */
void blocks_os_free(blocks_os_t *o);

/* blocks_html.c: the page (--format html), written at close from its
 * bars and o's summary; NULL when out of memory.  close frees h. */
typedef struct blocks_html blocks_html_t;
blocks_html_t *blocks_html_open(FILE *f, const char *title);
void blocks_html_block(blocks_html_t *h, const ips_block_t *b);
/* Text from the input (vat names, what was delivered) as HTML text. */
void blocks_html_esc(FILE *f, const char *s);
int blocks_html_close(blocks_html_t *h, blocks_out_t *o);

/* ---- diff (diff_text.c, diff_json.c, diff_csv.c, diff_html.c) ------
 * What `ipcstamp diff` writes: each joined delivery as it comes, then the
 * summaries, from the diff (ipcstamp-analyze-diff.h).  The per-node
 * figures use the report's JSON names (total_ns, pipe_ns, ...). */
#include "ipcstamp-analyze-diff.h"

typedef struct diff_html diff_html_t;
typedef struct {
  int format;          /* REPORT_* */
  FILE *out;
  ips_diff_t *d;
  yajl_gen g;          /* JSON */
  diff_html_t *html;
  int csv_header;      /* written */
  int os;              /* --os: the nodes have recordings (diff_os.c) */
} diff_out_t;

/* What the format needs (a generator, the page's state): 0, or -1 out of
 * memory.  diff_out_free frees it. */
int diff_out_open(diff_out_t *o);
int diff_html_open(diff_out_t *o);   /* -1: out of memory */
void diff_html_free(diff_out_t *o);
void diff_out_free(diff_out_t *o);
void diff_delivery_text(diff_out_t *o, const ips_diff_delivery_t *x);
void diff_summary_text(diff_out_t *o);
void diff_delivery_json(diff_out_t *o, const ips_diff_delivery_t *x);
void diff_summary_json(diff_out_t *o);
void diff_delivery_csv(diff_out_t *o, const ips_diff_delivery_t *x);
void diff_html_delivery(diff_out_t *o, const ips_diff_delivery_t *x);
void diff_html_block(diff_out_t *o, const ips_diff_block_t *b);
void diff_html_close(diff_out_t *o);
/* --os (diff_os.c): a side's "os" object and the delivery's "os_part",
 * "os_part_ns" (JSON); a node's "os" object in the summary; the CSV's
 * columns (header: names after the node's prefix) and cells; the text's
 * part after a delivery's line, and the summary's lines per node. */
void diff_os_side_json(yajl_gen g, const ips_diff_side_t *s);
void diff_os_delivery_json(yajl_gen g, const ips_diff_delivery_t *x);
void diff_os_node_json(yajl_gen g, const ips_diff_node_t *n);
void diff_os_csv_header(FILE *f, const char *name);
void diff_os_csv_side(FILE *f, const ips_diff_side_t *s);
void diff_os_delivery_text(FILE *f, const ips_diff_delivery_t *x);
void diff_os_summary_text(diff_out_t *o);

#endif
