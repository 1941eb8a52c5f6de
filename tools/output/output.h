/* output.h — the output formats of `report`, `trace` and `latency`.  Each
 * takes attributed deliveries and the analysis's statistics (from
 * libipcstamp-analyze) and writes one format; none reads input or options. */
#ifndef IPCSTAMP_TOOLS_OUTPUT_H
#define IPCSTAMP_TOOLS_OUTPUT_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-analyze.h"

/* ---- JSON helpers shared by the formats (json.c) --------------------- */

void out_str(yajl_gen g, const char *s);                  /* "s" */
void out_int(yajl_gen g, const char *key, long long v);   /* "key": v */
void out_kv(yajl_gen g, const char *key, const char *v);  /* "key": "v" */
/* The summary's pipe split (issue 30): its sums where there are any, and
 * "kernel_stamps" ("pipe", or "records" on SwingSet's own slogfiles). */
void out_wait_totals(yajl_gen g, const ips_stats_t *st);
void out_us(yajl_gen g, const char *key, int64_t ns);     /* "key": 1.234 */
/* Writes what g holds to f and empties g; with nl, that was one whole
 * JSON line: a newline follows and g is ready for the next value. */
void out_flush(yajl_gen g, FILE *f, int nl);
/* --format's value as REPORT_* (below), or -1. */
int out_format(const char *arg);
/* Flush f and close it unless it is stdout: 0, or -1 after saying on
 * stderr that PATH (or, for stdout, what) could not be written. */
int out_close(const char *prog, FILE *f, const char *path, const char *what);
/* A generator for output: no UTF-8 validation (strings come from the
 * slogfile's parser, which kept them valid), NULL when out of memory. */
yajl_gen out_gen(void);
/* A copy of s into dst (n bytes), cut to fit before a UTF-8 continuation
 * byte, so that a kept name or description never ends inside a
 * character. */
void out_copy_cut(char *dst, size_t n, const char *s);

/* ---- report (report.c) ----------------------------------------------- */

enum { REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_HTML };

/* The marks of the slowest marked deliveries (slow_marks.c), for the
 * summary's slowest list.  at is relative to the worker's d there. */
struct slow_marks_entry;
typedef struct {
  ips_slowest_t keeper; /* which of e[] goes */
  uint64_t seq;
  struct slow_marks_entry *e;
} slow_marks_t;
int slow_marks_init(slow_marks_t *s, size_t top); /* -1: out of memory */
void slow_marks_add(slow_marks_t *s, const ips_delivery_t *d);
/* The entry of the slow delivery s, or NULL: the one whose deliver record
 * is at its line, of its vat and delivery number (deliveries from rings
 * have no line). */
const struct slow_marks_entry *slow_marks_find(const slow_marks_t *s,
                                               const ips_slow_t *slow);
/* How many marks it shows; *more gets how many it left out. */
size_t slow_marks_count(const struct slow_marks_entry *e, size_t *more);
const ips_delivery_mark_t *slow_marks_get(const struct slow_marks_entry *e,
                                          size_t i);
void slow_marks_free(slow_marks_t *s);

/* ---- the deliveries summed by vat or by method (groups.c) ------------ */

enum { GROUP_VAT, GROUP_METHOD };
#define GROUPS_MAX 4096 /* keys kept; the others' deliveries are counted */

typedef struct group_s {
  char *name;          /* the vat or the method */
  uint64_t n;
  int64_t pipe, worker, kernel, unmatched, total, max;
} group_t;

typedef struct {
  int by;              /* GROUP_* */
  group_t *g;
  size_t n, hcap;
  size_t *hash;        /* index + 1 into g; 0 empty */
  uint64_t over;       /* deliveries under keys past GROUPS_MAX */
} groups_t;

void groups_init(groups_t *g, int by);
void groups_add(groups_t *g, const ips_delivery_t *d);
/* The groups, busiest (largest total) first; *n gets how many.  Valid
 * until the next groups_add or groups_free. */
const group_t *groups_sorted(groups_t *g, size_t *n);
void groups_free(groups_t *g);

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

typedef struct {
  FILE *out;
  int format;          /* REPORT_* */
  const char *vat;     /* the --vat filter, or NULL */
  int64_t quake_ns;    /* the threshold, for the summary's text */
  int color;           /* REPORT_TEXT on a terminal: the shares in colour */
  yajl_gen g;          /* REPORT_JSON */
  slow_marks_t slow;   /* marks of the slowest deliveries */
  groups_t groups;     /* the summary's table: by vat (text and JSON use
                          the analysis's own), or by method */
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
               groups_t *methods);

/* ---- latency (latency.c) ----------------------------------------------- */

enum { LAT_PIPE, LAT_WORKER, LAT_KERNEL, LAT_TOTAL, LAT_UPCALL, LAT_TRANSIT,
       LAT_WAIT, LAT_RUNNABLE, LAT_BLOCKED, LAT_N };
extern const char *const latency_names[LAT_N];

/* Adds what of d to h (LAT_UPCALL: each upcall as the worker waits). */
void latency_add(ips_hist_t *h, int what, const ips_delivery_t *d);
/* The VM's spans of one name (issue 14): each span's length. */
void latency_add_span(ips_hist_t *h, const char *name, const ips_delivery_t *d);
/* label: latency_names[what], or "span:NAME". */
void latency_table(FILE *f, const ips_hist_t *h, const char *label);
void latency_json(FILE *f, const ips_hist_t *h, const char *label);

/* ---- JSON the formats share (json.c) --------------------------------- */

/* One VM mark or span as an object, at: its start as the format has it. */
void out_mark(yajl_gen g, const ips_delivery_mark_t *m, int64_t at);
/* "marks": the analysis's per-name table, then "marks_over". */
void out_mark_names(yajl_gen g, const ips_analysis_t *a);
/* "methods": the groups by method, busiest first, then "methods_over"
 * (NULL: an empty table). */
void out_methods(yajl_gen g, groups_t *gr);

/* ---- blocks.c: `ipcstamp blocks`, one row per block ---------------- */

/* The parts of a block the summary gives percentiles of. */
enum { BLK_BLOCK, BLK_LAG, BLK_SWINGSET, BLK_DELIVERIES, BLK_PIPE,
       BLK_WORKER, BLK_KERNEL, BLK_UNMATCHED, BLK_SAVE, BLK_LOAD, BLK_OWN,
       BLK_COMMIT, BLK_PARTS };
extern const char *const blocks_part_names[BLK_PARTS];
enum { BLK_FIGURES = 5 }; /* p50, p90, p99, max, total */

typedef struct {
  FILE *out;
  yajl_gen g;                 /* JSON */
  size_t top;                 /* slowest blocks kept */
  ips_block_t *slow;          /* top of them, slowest first */
  size_t nslow;
  uint64_t n, n_boot, n_del, n_skip, n_save, n_load;
  long long computrons;
  int64_t boot_ns;
  /* The first block after a bootstrap block: its lag is the time since
   * the chain's genesis, not a block's lag, so it is said apart. */
  int after_boot, has_first_lag;
  int64_t first_lag_ns;
  int64_t sum[BLK_PARTS];
  ips_hist_t *h[BLK_PARTS];   /* owned */
} blocks_out_t;

/* o->out and o->g are the caller's; init allocates the rest (-1: out of
 * memory, nothing to free), free releases it. */
int blocks_out_init(blocks_out_t *o, size_t top);
void blocks_out_free(blocks_out_t *o);
/* ns as milliseconds with three decimals, exact to the microsecond (the
 * rest cut, never rounded up), in buf (IPS_US_BUF bytes).  Returns buf. */
const char *blocks_ms(char *buf, int64_t ns);
/* Part i's figures (BLK_*) over the blocks: p50, p90, p99, max and
 * total, in ns.  Returns 0 when no block had it (v unset). */
int blocks_part(const blocks_out_t *o, int i, int64_t v[BLK_FIGURES]);
/* A block into the summary's figures (each block once, printed or not). */
void blocks_add(blocks_out_t *o, const ips_block_t *b);
void blocks_header_text(blocks_out_t *o);
void blocks_row_text(blocks_out_t *o, const ips_block_t *b);
void blocks_row_json(blocks_out_t *o, const ips_block_t *b);
void blocks_header_csv(blocks_out_t *o);
void blocks_row_csv(blocks_out_t *o, const ips_block_t *b);
void blocks_summary_text(blocks_out_t *o);
void blocks_summary_json(blocks_out_t *o);

/* blocks_html.c: the page (--format html), written at close from its
 * bars and o's summary; NULL when out of memory.  close frees h. */
typedef struct blocks_html blocks_html_t;
blocks_html_t *blocks_html_open(FILE *f, const char *title);
void blocks_html_block(blocks_html_t *h, const ips_block_t *b);
int blocks_html_close(blocks_html_t *h, blocks_out_t *o);

#endif
