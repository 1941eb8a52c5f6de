/* formats.c — the report's four formats as format.h's interface: which of
 * report.c's and html.c's writers each step of each format calls. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

static int none(report_out_t *r) {
  (void)r;
  return 0;
}

/* ---- text: colour only for a person ------------------------------------ */

/* A terminal, and never when NO_COLOR asks not to (https://no-color.org:
 * set and not empty). */
static int text_begin(report_out_t *r) {
  const char *nc = getenv("NO_COLOR");
  r->color = r->out == stdout && isatty(1) && !(nc && *nc);
  return 0;
}

static void text_delivery(report_out_t *r, const ips_delivery_t *d) {
  if (!r->summary_only)
    report_delivery_text(r, d);
}

static void text_summary(report_out_t *r, const ips_analysis_t *a) {
  report_summary_text(r, a, !r->summary_only);
}

/* ---- json ---------------------------------------------------------------- */

static int json_begin(report_out_t *r) { return (r->g = out_gen()) ? 0 : -1; }

static void json_delivery(report_out_t *r, const ips_delivery_t *d) {
  if (!r->summary_only)
    report_delivery_json(r, d);
}

static int json_end(report_out_t *r) {
  if (r->g)
    yajl_gen_free(r->g);
  r->g = NULL;
  return 0;
}

/* ---- csv: the deliveries, or with --summary the table of groups ---------- */

static int csv_begin(report_out_t *r) {
  if (r->summary_only)
    r->grouped = 1;
  else
    report_csv_header(r);
  return 0;
}

static void csv_delivery(report_out_t *r, const ips_delivery_t *d) {
  if (!r->summary_only)
    report_delivery_csv(r, d);
}

static void csv_summary(report_out_t *r, const ips_analysis_t *a) {
  if (r->summary_only)
    report_summary_csv(r, a);
}

/* ---- html: kept until the end, written whole ----------------------------- */

/* The page has the vats from the analysis; it adds the methods. */
static int html_begin(report_out_t *r) {
  r->html = html_open(r->out, r->title, r->top, r->groups.by == IPS_GROUP_METHOD);
  r->grouped = 1;
  r->groups.by = IPS_GROUP_METHOD;
  return r->html ? 0 : -1;
}

static void html_delivery_(report_out_t *r, const ips_delivery_t *d) {
  html_delivery(r->html, ips_analysis_stats(r->a), d);
}

static void html_skip_(report_out_t *r, const ips_skip_t *s) {
  html_skip(r->html, s);
}

static void html_summary(report_out_t *r, const ips_analysis_t *a) {
  r->summarized = a;
}

/* Without a summary (the input could not be read) the page is not
 * written. */
static int html_end(report_out_t *r) {
  int rc = r->html ? html_close(r->html, r->summarized, r->vat, &r->groups) : 0;
  r->html = NULL;
  return rc;
}

static const report_format_t formats[] = {
    {"text", text_begin, text_delivery, NULL, text_summary, none},
    {"json", json_begin, json_delivery, NULL, report_summary_json, json_end},
    {"csv", csv_begin, csv_delivery, NULL, csv_summary, none},
    {"html", html_begin, html_delivery_, html_skip_, html_summary, html_end},
};

const report_format_t *report_format(const char *name) {
  size_t i;
  for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (!strcmp(formats[i].name, name))
      return &formats[i];
  return NULL;
}
