/* blocks_html.c — `ipcstamp blocks --format html`: one self-contained page,
 * a per-block timeline of swingset time stacked by part, the percentiles
 * and the slowest blocks explained (docs/blocks.md).
 *
 * The page is SVG and CSS only, no script, nothing fetched.  It stays
 * small on a long file: at most BARS bars; when they are full, neighbours
 * merge pairwise and a bar stands for more consecutive blocks (the mean of
 * each part, and the slowest of them in its tooltip), so the choice does
 * not depend on anything but the file. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define BARS 512

/* The bars are stacked by the addends of swingset (the list's fields
 * marked IPS_IN_SPLIT, in its order), each named as the text's table
 * names it and coloured in turn. */
#define P_MAX 16
static const char *const pcolors[] = {
    "#e0b000", "#3070d0", "#30a050", "#999999", "#c03030", "#e08080",
    "#70c090", "#a070c0"};
#define P_COLOR(k) pcolors[(k) % (sizeof pcolors / sizeof pcolors[0])]

typedef struct {
  long long first, last;  /* heights */
  uint64_t n;
  int64_t sum[P_MAX];
  int64_t max_ns;         /* the slowest block's swingset, and its height */
  long long max_h;
} bar_t;

struct blocks_html {
  FILE *f;
  char *title;
  bar_t bar[BARS];
  size_t nbar;
  uint64_t width;         /* blocks per bar (a power of two) */
  int part[P_MAX];        /* the fields of the parts */
  const char *pname[P_MAX];
  int np;
};

blocks_html_t *blocks_html_open(FILE *f, const char *title) {
  blocks_html_t *h = calloc(1, sizeof *h);
  int i;
  if (!h || !(h->title = strdup(title))) {
    free(h);
    return NULL;
  }
  h->f = f;
  h->width = 1;
  for (i = 0; i < BLK_NFIELDS && h->np < P_MAX; i++)
    if (blocks_fields[i].in & IPS_IN_SPLIT) {
      const char *t = blocks_fields[i].text;
      h->pname[h->np] = t ? t + (*t == '(') : blocks_fields[i].name;
      h->part[h->np++] = i;
    }
  return h;
}

static void parts(const blocks_html_t *h, const ips_block_t *b, int64_t *p) {
  int k;
  for (k = 0; k < h->np; k++)
    if (!blocks_value(b, h->part[k], &p[k]))
      p[k] = 0;
}

void blocks_html_block(blocks_html_t *h, const ips_block_t *b) {
  bar_t *x;
  int64_t p[P_MAX];
  int i;
  if (b->bootstrap)
    return; /* the summary says it; a bar would dwarf every block */
  if (h->nbar == 0 || h->bar[h->nbar - 1].n == h->width) {
    if (h->nbar == BARS) { /* full: neighbours merge, bars widen */
      size_t j;
      for (j = 0; j < BARS / 2; j++) {
        bar_t *a = &h->bar[2 * j], *c = &h->bar[2 * j + 1];
        bar_t m = *a;
        m.last = c->last;
        m.n += c->n;
        for (i = 0; i < h->np; i++)
          m.sum[i] += c->sum[i];
        if (c->max_ns > m.max_ns) {
          m.max_ns = c->max_ns;
          m.max_h = c->max_h;
        }
        h->bar[j] = m;
      }
      h->nbar = BARS / 2;
      h->width *= 2;
    }
    if (h->nbar == 0 || h->bar[h->nbar - 1].n == h->width) {
      x = &h->bar[h->nbar++];
      memset(x, 0, sizeof *x);
      x->first = b->height;
      x->max_ns = -1;
    }
  }
  x = &h->bar[h->nbar - 1];
  x->last = b->height;
  x->n++;
  parts(h, b, p);
  for (i = 0; i < h->np; i++)
    x->sum[i] += p[i];
  if (b->swingset_ns > x->max_ns) {
    x->max_ns = b->swingset_ns;
    x->max_h = b->height;
  }
}

void blocks_html_esc(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*s, f);
    }
  }
}

static double msf(int64_t ns) { return (double)ns / 1e6; }

/* The page's head, title and legend. */
static void page_head(blocks_html_t *h, const blocks_out_t *o) {
  FILE *f = h->f;
  int k;
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
        "'none'; style-src 'unsafe-inline'\">\n<title>ipcstamp blocks: ", f);
  blocks_html_esc(f, h->title);
  fputs("</title>\n<style>body{font:14px sans-serif;margin:1em 2em}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
        "th{border-bottom:1px solid #888}.l{text-align:left}"
        ".k{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}"
        "</style></head><body>\n<h1>Blocks of ", f);
  blocks_html_esc(f, h->title);
  fprintf(f, "</h1>\n<p>%" PRIu64 " blocks; each bar is the swingset time of "
             "%" PRIu64 " consecutive block%s (the mean of each part), "
             "stacked by where it went (hover for the figures).</p>\n<p>",
          o->n, h->width, h->width > 1 ? "s" : "");
  for (k = 0; k < h->np; k++)
    fprintf(f, "<span class=\"k\" style=\"background:%s\"></span>%s",
            P_COLOR(k), h->pname[k]);
}

/* The timeline: a bar per BARS' slot, stacked by part, to scale. */
static void timeline(blocks_html_t *h) {
  FILE *f = h->f;
  const double W = 960, H = 320, L = 60, B = 30;
  double top = 0, bw;
  size_t i;
  int k;
  for (i = 0; i < h->nbar; i++) {
    double s = 0;
    for (k = 0; k < h->np; k++)
      s += msf(h->bar[i].sum[k]) / (double)h->bar[i].n;
    if (s > top)
      top = s;
  }
  if (top <= 0)
    top = 1;
  bw = h->nbar ? (W - L) / (double)h->nbar : 1;
  fprintf(f, "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
             "height=\"%.0f\" role=\"img\" aria-label=\"swingset time per block\">\n",
          W, H + B);
  fprintf(f, "<text x=\"0\" y=\"12\" font-size=\"11\">%.3f ms</text>"
             "<text x=\"0\" y=\"%.0f\" font-size=\"11\">0</text>\n", top, H);
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
             "stroke=\"#888\"/>\n", L, H, W, H);
  for (i = 0; i < h->nbar; i++) {
    const bar_t *x = &h->bar[i];
    double y = H, n = (double)x->n;
    fprintf(f, "<g><title>block%s %lld", x->n > 1 ? "s" : "", x->first);
    if (x->n > 1)
      fprintf(f, "-%lld (mean; slowest %lld: %.3f ms)", x->last, x->max_h,
              msf(x->max_ns));
    for (k = 0; k < h->np; k++)
      fprintf(f, "\n%s %.3f ms", h->pname[k], msf(x->sum[k]) / n);
    fputs("</title>\n", f);
    for (k = 0; k < h->np; k++) {
      double hgt = msf(x->sum[k]) / n / top * (H - 16);
      if (hgt <= 0)
        continue;
      y -= hgt;
      fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                 "fill=\"%s\"/>\n", L + (double)i * bw, y, bw > 2 ? bw - 1 : bw,
              hgt, P_COLOR(k));
    }
    fputs("</g>\n", f);
  }
  if (h->nbar)
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%lld</text>"
               "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
               "text-anchor=\"end\">%lld</text>\n",
            L, H + 16, h->bar[0].first, W, H + 16, h->bar[h->nbar - 1].last);
}

/* The table of the parts' percentiles. */
static void parts_table(FILE *f, blocks_out_t *o) {
  char ms[IPS_US_BUF];
  size_t i, j;
  fputs("</svg>\n<h2>Parts (milliseconds)</h2>\n<table><tr><th class=\"l\">"
        "part</th><th>p50</th><th>p90</th><th>p99</th><th>max</th>"
        "<th>total</th></tr>\n", f);
  for (i = 0; i < BLK_NFIELDS; i++) {
    int64_t v[BLK_FIGURES];
    const char *name;
    int len = blocks_part(o, i, v, &name);
    if (!len)
      continue;
    fprintf(f, "<tr><td class=\"l\">%.*s</td>", len, name);
    for (j = 0; j < BLK_FIGURES; j++)
      fprintf(f, "<td>%s</td>", blocks_ms(ms, v[j]));
    fputs("</tr>\n", f);
  }
}

/* The table of the slowest blocks, each explained. */
static void slowest_table(FILE *f, const blocks_out_t *o) {
  char ms[IPS_US_BUF];
  size_t i;
  fputs("</table>\n<h2>Slowest blocks</h2>\n<table><tr><th>height</th>"
        "<th>swingset</th><th>deliveries</th><th>snapshots</th>"
        "<th>kernel own</th><th class=\"l\">longest delivery; snapshots most "
        "of</th></tr>\n", f);
  for (i = 0; i < o->nslow; i++) {
    const ips_block_t *b = &o->slow[i];
    fprintf(f, "<tr><td>%lld</td><td>%s</td>", b->height,
            blocks_ms(ms, b->swingset_ns));
    fprintf(f, "<td>%s</td>",
            blocks_ms(ms, ips_block_deliveries(b)));
    fprintf(f, "<td>%s</td>", blocks_ms(ms, b->snap_save + b->snap_load));
    fprintf(f, "<td>%s</td><td class=\"l\">", blocks_ms(ms, b->kernel_own));
    if (*b->dom_vat) {
      blocks_html_esc(f, b->dom_vat);
      fprintf(f, " #%lld ", b->dom_dnum);
      blocks_html_esc(f, b->dom_desc);
      fprintf(f, " %s ms", blocks_ms(ms, b->dom_ns));
    }
    if (*b->snap_vat) {
      fputs("; ", f);
      blocks_html_esc(f, b->snap_vat);
      fprintf(f, " %s ms", blocks_ms(ms, b->snap_vat_ns));
    }
    fputs("</td></tr>\n", f);
  }
}

int blocks_html_close(blocks_html_t *h, blocks_out_t *o) {
  page_head(h, o);
  timeline(h);
  parts_table(h->f, o);
  slowest_table(h->f, o);
  fputs("</table>\n", h->f);
  if (o->html_more)
    o->html_more(o->json_more_arg, h->f);
  fputs("</body></html>\n", h->f);
  free(h->title);
  free(h);
  return 0;
}
