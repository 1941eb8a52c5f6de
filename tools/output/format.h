/* format.h — an output format as one interface: what `report` (and any
 * command that shows attributed deliveries) drives, instead of an if-chain
 * per format at each step.  As a babeltrace sink takes messages, a format
 * takes, in this order:
 *
 *   begin     once, before the first delivery: a header (CSV's), a
 *             generator (JSON's), a page's state (HTML's).  0, or -1 when
 *             out of memory (then end is still called).
 *   delivery  per delivery the command shows (after its filters; with
 *             --slowest, the kept ones at the end).
 *   skip      per skipped line or delivery, with its reason and line.
 *   summary   once, after the input was read to its end (not after a
 *             fault that left no analysis, nor when a filter named nothing:
 *             a summary of nothing would read as a finding).
 *   end       once, last, whatever happened: writes what the format kept
 *             (the page) and frees its state.  0, or -1 when memory ran
 *             out on the way.
 *
 * Every step takes the command's report_out_t (output.h): the stream, the
 * options a format reads (summary_only, color, vat, top, the groups by
 * method) and the format's own state.  A format's delivery writes the
 * fields of the list in ipcstamp-analyze-fields.h (IPS_DELIVERY_FIELDS):
 * expand it (report/delivery_json.c's JSON and CSV show how) rather than
 * naming fields, so that a field added there appears in the new format
 * too.
 *
 * To add a format: write its five functions (skip and summary may be
 * NULL: nothing to say), add its table to the list in formats.c, and it
 * is a --format value of every command that takes report_formats.  A
 * command with records of its own (blocks, a diff of two runs) makes a
 * table of the same shape over its own type. */
#ifndef IPCSTAMP_TOOLS_FORMAT_H
#define IPCSTAMP_TOOLS_FORMAT_H

#include "ipcstamp-analyze.h"

struct report_out_s;

typedef struct report_format_s {
  const char *name; /* --format's value */
  int (*begin)(struct report_out_s *r);
  void (*delivery)(struct report_out_s *r, const ips_delivery_t *d);
  void (*skip)(struct report_out_s *r, const ips_skip_t *s); /* or NULL */
  void (*summary)(struct report_out_s *r, const ips_analysis_t *a); /* or NULL */
  int (*end)(struct report_out_s *r);
} report_format_t;

/* The format named name (text, json, csv, html), or NULL. */
const report_format_t *report_format(const char *name);

#endif
