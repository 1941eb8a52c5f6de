/* diff_html.c — `ipcstamp diff --format html`: one self-contained page, a
 * heat map of blocks x nodes (each cell a node's time over the block's
 * fastest node) and, on a click, the block's most different delivery side
 * by side.
 *
 * The page holds at most MAX_ROWS rows whatever the files' length: when
 * full, each two neighbouring rows become one (a row is then a range of
 * blocks), so memory stays bounded.  The data goes in as JSON with every
 * '<' escaped (out_flush_script, the report page's rule), so that no text
 * from the input can close the script.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define MAX_ROWS 1024

typedef struct {
  long long lo, hi;          /* the blocks it holds */
  uint64_t n;
  int diverged;
  int64_t total[IPS_DIFF_MAX_NODES];
  int64_t part[IPS_DIFF_MAX_NODES][IPS_DIFF_NPARTS];
  /* its most different delivery */
  int has_x;
  int64_t spread;
  char vat[64], method[64];
  long long dnum;
  int64_t xtotal[IPS_DIFF_MAX_NODES];
  int64_t xpart[IPS_DIFF_MAX_NODES][IPS_DIFF_NPARTS];
  unsigned xmask;
  /* --os: its OS parts on each node that has them, and the one that made
   * the slowest slower (-1: none) */
  unsigned xosmask;
  int xos_part;
  int64_t xos[IPS_DIFF_MAX_NODES][IPS_DIFF_OS_DELIVERY];
} row_t;

struct diff_html {
  row_t *rows;
  size_t n;
  row_t cur;                 /* the deliveries of the block being read */
  int cur_open;
};

int diff_html_open(diff_out_t *o) {
  if (!(o->html = calloc(1, sizeof *o->html)) ||
      !(o->html->rows = calloc(MAX_ROWS, sizeof *o->html->rows)) ||
      !(o->g = yajl_gen_alloc(NULL)))
    return -1;
  yajl_gen_config(o->g, yajl_gen_escape_solidus, 1);
  return 0;
}

void diff_html_free(diff_out_t *o) {
  if (o->html)
    free(o->html->rows);
  free(o->html);
  o->html = NULL;
}

/* The block's most different delivery is kept on the side until the
 * block's row comes (the block callback follows its deliveries). */
void diff_html_delivery(diff_out_t *o, const ips_diff_delivery_t *x) {
  row_t *c = &o->html->cur;
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  int64_t spread;
  if (x->n_present < 2 || !x->has_block)
    return;
  if (!o->html->cur_open || c->lo != x->block) {
    memset(c, 0, sizeof *c);
    c->lo = x->block;
    o->html->cur_open = 1;
  }
  spread = x->side[x->slowest].total - x->side[x->fastest].total;
  if (c->has_x && spread <= c->spread)
    return;
  c->has_x = 1;
  c->spread = spread;
  out_copy_cut(c->vat, sizeof c->vat, x->vat);
  out_copy_cut(c->method, sizeof c->method, x->method);
  c->dnum = x->dnum;
  c->xmask = 0;
  c->xosmask = 0;
  c->xos_part = x->os_part;
  for (i = 0; i < n; i++) {
    if (!x->side[i].present)
      continue;
    c->xmask |= 1u << i;
    c->xtotal[i] = x->side[i].total;
    memcpy(c->xpart[i], x->side[i].part, sizeof c->xpart[i]);
    if (x->side[i].has_os) {
      c->xosmask |= 1u << i;
      memcpy(c->xos[i], x->side[i].os, sizeof c->xos[i]);
    }
  }
}

static void merge(row_t *a, const row_t *b, size_t n) {
  size_t i;
  int p;
  a->hi = b->hi;
  a->n += b->n;
  a->diverged |= b->diverged;
  for (i = 0; i < n; i++) {
    a->total[i] += b->total[i];
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      a->part[i][p] += b->part[i][p];
  }
  if (b->has_x && (!a->has_x || b->spread > a->spread)) {
    memcpy(&a->has_x, &b->has_x, sizeof *a - offsetof(row_t, has_x));
  }
}

void diff_html_block(diff_out_t *o, const ips_diff_block_t *b) {
  diff_html_t *h = o->html;
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  row_t *r;
  if (h->n == MAX_ROWS) { /* each two neighbours become one */
    for (i = 0; i < MAX_ROWS / 2; i++) {
      h->rows[i] = h->rows[2 * i];
      merge(&h->rows[i], &h->rows[2 * i + 1], n);
    }
    h->n = MAX_ROWS / 2;
  }
  r = &h->rows[h->n++];
  memset(r, 0, sizeof *r);
  if (h->cur_open && h->cur.lo == b->height)
    *r = h->cur;
  h->cur_open = 0;
  r->lo = r->hi = b->height;
  r->n = b->n;
  r->diverged = b->diverged;
  memcpy(r->total, b->total, sizeof r->total);
  memcpy(r->part, b->part, sizeof r->part);
}

static void node_parts(yajl_gen g, int64_t total, const int64_t *part) {
  int p;
  yajl_gen_array_open(g);
  yajl_gen_integer(g, total);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    yajl_gen_integer(g, part[p]);
  yajl_gen_array_close(g);
}

/* --os: the delivery's "os":[[its OS parts] or null per node] and
 * "os_part" (an index into the data's "os_parts"; -1 none). */
static void x_os_json(yajl_gen g, const row_t *r, size_t n) {
  size_t i;
  int p;
  if (!r->xosmask)
    return;
  out_str(g, "os");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    if (!(r->xosmask >> i & 1)) {
      yajl_gen_null(g);
      continue;
    }
    yajl_gen_array_open(g);
    for (p = 0; p < IPS_DIFF_OS_DELIVERY; p++)
      yajl_gen_integer(g, r->xos[i][p]);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "os_part", r->xos_part);
}

/* {"lo","hi","n","div","t":[[total,pipe,worker,kernel,unmatched]...],
 *  "x":{"vat","dnum","method","t":[... or null],"os","os_part"}} */
static void row_json(yajl_gen g, const row_t *r, size_t n) {
  size_t i;
  yajl_gen_map_open(g);
  out_int(g, "lo", r->lo);
  out_int(g, "hi", r->hi);
  out_int(g, "n", (long long)r->n);
  out_int(g, "div", r->diverged);
  out_str(g, "t");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    node_parts(g, r->total[i], r->part[i]);
  yajl_gen_array_close(g);
  if (r->has_x) {
    out_str(g, "x");
    yajl_gen_map_open(g);
    out_kv(g, "vat", r->vat);
    out_int(g, "dnum", r->dnum);
    out_kv(g, "method", r->method);
    out_str(g, "t");
    yajl_gen_array_open(g);
    for (i = 0; i < n; i++) {
      if (r->xmask >> i & 1)
        node_parts(g, r->xtotal[i], r->xpart[i]);
      else
        yajl_gen_null(g);
    }
    yajl_gen_array_close(g);
    x_os_json(g, r, n);
    yajl_gen_map_close(g);
  }
  yajl_gen_map_close(g);
}

static void data_json(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  yajl_gen g = o->g;
  size_t i;
  yajl_gen_map_open(g);
  out_str(g, "nodes");
  yajl_gen_array_open(g);
  for (i = 0; i < st->n_nodes; i++)
    out_str(g, ips_diff_node(o->d, i)->name);
  yajl_gen_array_close(g);
  out_str(g, "os_parts"); /* the OS parts' names, for the rows' "os" */
  yajl_gen_array_open(g);
  for (i = 0; i < IPS_DIFF_OS_DELIVERY; i++)
    out_str(g, ips_diff_os_part_name((int)i));
  yajl_gen_array_close(g);
  out_int(g, "joined", (long long)st->joined);
  out_int(g, "common", (long long)st->common);
  out_int(g, "divergences", (long long)st->divergences);
  out_int(g, "blocks", (long long)st->blocks);
  out_str(g, "rows");
  yajl_gen_array_open(g);
  for (i = 0; i < o->html->n; i++)
    row_json(g, &o->html->rows[i], st->n_nodes);
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
  out_flush_script(g, o->out);
}

static const char page_head[] =
    "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
    "<title>ipcstamp diff</title>\n<style>\n"
    "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\n"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}\n"
    "#heat td.c{cursor:pointer;min-width:5em}#heat tr:hover{outline:1px solid #888}\n"
    ".div{background:#b00;color:#fff;padding:.5em;font-weight:bold}\n"
    "</style></head><body>\n<h1>ipcstamp diff</h1>\n"
    "<div id=\"top\"></div>\n<p>Each cell: the node's time on the block's "
    "deliveries every node has, over the fastest node's (white 1&times;, "
    "red 10&times; and more). Click a cell for the block's most different "
    "delivery, side by side.</p>\n<div id=\"detail\"></div>\n"
    "<table id=\"heat\"></table>\n<script>\nconst D=";

static const char page_tail[] =
    ";\nconst ms=v=>(v/1e6).toFixed(3),parts=['pipe','worker','kernel','unmatched'];\n"
    "const el=(t,h)=>{const e=document.createElement(t);if(h!==undefined)e.textContent=h;return e;};\n"
    "const hd=document.getElementById('top');\n"
    "hd.append(el('p',`${D.joined} deliveries joined, ${D.common} on every node, ${D.blocks} blocks.`));\n"
    "if(D.divergences){hd.prepend(el('p',`DIVERGENCE: ${D.divergences} deliveries differ between the nodes (method or computrons)`));hd.firstChild.className='div';}\n"
    "const H=document.getElementById('heat'),hr=H.insertRow();\n"
    "hr.append(el('th','block'),el('th','deliveries'));D.nodes.forEach(n=>hr.append(el('th',n)));\n"
    "function show(r){const d=document.getElementById('detail');d.replaceChildren();\n"
    " if(!r.x){d.append(el('p','no delivery on two nodes'));return;}\n"
    " d.append(el('h2',`${r.x.vat} #${r.x.dnum} ${r.x.method} (block ${r.lo}${r.hi!=r.lo?'..'+r.hi:''})`));\n"
    " const t=el('table'),h=t.insertRow();h.append(el('th','node'),el('th','total ms'));parts.forEach(p=>h.append(el('th',p)));\n"
    " r.x.t.forEach((v,i)=>{const w=t.insertRow();w.append(el('td',D.nodes[i]));\n"
    "  if(!v){w.append(el('td','-'));return;}v.forEach(x=>w.append(el('td',ms(x))));});d.append(t);\n"
    " if(r.x.os){d.append(el('h3','what the operating system saw (--os), ms'));const o=el('table'),oh=o.insertRow();oh.append(el('th','part'));D.nodes.forEach(n=>oh.append(el('th',n)));\n"
    "  D.os_parts.forEach((p,k)=>{const w=o.insertRow();w.append(el('td',p));if(k==r.x.os_part)w.style.fontWeight='bold';\n"
    "   r.x.os.forEach(v=>w.append(el('td',v?ms(v[k]):'-')));});d.append(o);\n"
    "  if(r.x.os_part>=0)d.append(el('p',`the slowest node is most over the fastest in ${D.os_parts[r.x.os_part]}`));}}\n"
    "D.rows.forEach(r=>{const w=H.insertRow(),f=Math.min(...r.t.map(v=>v[0]));\n"
    " w.append(el('td',r.lo==r.hi?String(r.lo):`${r.lo}..${r.hi}`),el('td',String(r.n)));\n"
    " if(r.div)w.firstChild.className='div';\n"
    " r.t.forEach(v=>{const q=f>0?v[0]/f:1,a=Math.min(1,Math.max(0,Math.log(q)/Math.log(10)));const c=el('td',q.toFixed(2)+'\\u00d7');\n"
    "  c.className='c';c.title=ms(v[0])+' ms';c.style.background=`rgba(220,40,30,${a})`;c.onclick=()=>show(r);w.append(c);});});\n"
    "</script></body></html>\n";

void diff_html_close(diff_out_t *o) {
  fputs(page_head, o->out);
  data_json(o);
  fputs(page_tail, o->out);
}
