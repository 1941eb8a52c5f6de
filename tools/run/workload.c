/* run_workload.c — JSON-lines workloads and the built-in demo.
 *
 *   {"vat":"v1","evaluate":"<source>"}   an 'e' command
 *   {"vat":"v1","vd":<any JSON>}          a delivery of that JSON
 *
 * The file is untrusted input like any other: each line is parsed with the
 * streaming parser and its parts re-serialised; the whole file is checked
 * before anything runs, so a bad line never leaves a half-run workload.
 * The checked file is kept and queued one pass at a time (--repeat), and
 * the demo one round at a time: memory does not grow with the number of
 * deliveries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "cli.h"
#include "demo.h"
#include "json.h"

/* Longest workload line accepted (a delivery must also fit a frame). */
#define LINE_MAX_BYTES (IPS_DEFAULT_MAX_FRAME - 16)

static run_item_t *make_eval(int vat, const char *src, size_t n) {
  run_item_t *it = calloc(1, sizeof *it);
  if (!it)
    return NULL;
  it->vat = vat;
  it->evaluate = 1;
  it->src = run_dup_n(src, n);
  it->srclen = n;
  it->vd = run_json_pair("evaluate", src, n, NULL, &it->vdlen);
  if (!it->src || !it->vd) {
    kernel_item_free(it);
    return NULL;
  }
  return it;
}

static run_item_t *make_delivery(int vat, const char *json, size_t n) {
  run_item_t *it = calloc(1, sizeof *it);
  if (!it)
    return NULL;
  it->vat = vat;
  it->vd = run_dup_n(json, n);
  it->vdlen = n;
  if (!it->vd) {
    free(it);
    return NULL;
  }
  return it;
}

/* One line into an item, or NULL with a message in err. */
static run_item_t *parse_line(kernel_t *k, const char *line, size_t n,
                              char *err, size_t errsize) {
  run_jsplit_t s;
  const run_jitem_t *vat, *ev, *vd;
  run_item_t *it = NULL;
  int v;
  if (run_json_split(line, n, &s, err, errsize) != 0)
    return NULL;
  vat = run_json_get(&s, "vat");
  ev = run_json_get(&s, "evaluate");
  vd = run_json_get(&s, "vd");
  if (!s.is_object)
    snprintf(err, errsize, "a workload line is a JSON object");
  else if (!vat || !vat->str)
    snprintf(err, errsize, "\"vat\" (a string) is missing");
  else if ((v = kernel_vat_index(k, vat->str)) < 0)
    snprintf(err, errsize, "no vat named '%.40s' (there are %d: v1..v%d)",
             vat->str, k->nvats, k->nvats);
  else if ((ev != NULL) == (vd != NULL))
    snprintf(err, errsize, "give exactly one of \"evaluate\" and \"vd\"");
  else if (ev && !ev->str)
    snprintf(err, errsize, "\"evaluate\" is not a string");
  else if (!(it = ev ? make_eval(v, ev->str, ev->slen)
                     : make_delivery(v, vd->json, vd->len)))
    snprintf(err, errsize, "out of memory");
  run_json_free(&s);
  return it;
}

static run_item_t *copy_item(const run_item_t *s) {
  run_item_t *it = calloc(1, sizeof *it);
  if (!it)
    return NULL;
  it->vat = s->vat;
  it->evaluate = s->evaluate;
  it->vdlen = s->vdlen;
  it->srclen = s->srclen;
  it->vd = run_dup_n(s->vd, s->vdlen);
  if (s->src)
    it->src = run_dup_n(s->src, s->srclen);
  if (!it->vd || (s->src && !it->src)) {
    kernel_item_free(it);
    return NULL;
  }
  return it;
}

static uint64_t commands(const kernel_t *k) {
  return k->deliveries + k->evaluations;
}

/* Called as pass (or round) number n (0-based) is queued. */
static void note_pass(run_feed_t *f, const kernel_t *k, uint64_t n) {
  if (n == 1 && commands(k) > f->base_cmds)
    f->first_cmds = commands(k) - f->base_cmds;
}

double run_feed_fraction(const run_feed_t *f, const kernel_t *k) {
  uint64_t total = f->items ? f->passes : (uint64_t)f->rounds;
  uint64_t queued = f->items ? f->queued : (uint64_t)(f->round < 0 ? 0 : f->round);
  double x;
  if (total <= 1)
    return -1;
  if (f->first_cmds) /* smooth: commands run against those all passes take */
    x = (double)(commands(k) - f->base_cmds) /
        ((double)f->first_cmds * (double)total);
  else /* the passes before the one running */
    x = queued ? (double)(queued - 1) / (double)total : 0;
  return x < 0 ? 0 : x > 0.999 ? 0.999 : x;
}

/* The next pass of the workload: copies, since the kernel frees what it
 * has run. */
static int refill_workload(kernel_t *k) {
  run_feed_t *f = k->refill_data;
  const run_item_t *s;
  run_item_t *it;
  if (f->queued >= f->passes || !f->items)
    return 0;
  note_pass(f, k, f->queued);
  f->queued++;
  for (s = f->items; s; s = s->next) {
    if (!(it = copy_item(s)))
      return -1;
    kernel_push(k, it);
  }
  return 1;
}

int run_load_workload(kernel_t *k, run_feed_t *f, const char *path,
                      uint64_t passes) {
  FILE *in = strcmp(path, "-") ? fopen(path, "re") : stdin;
  char *line = NULL, err[300];
  size_t cap = 0;
  ssize_t n;
  unsigned long lineno = 0;
  run_item_t **tail, *it;
  int rc = 0;
  memset(f, 0, sizeof *f);
  tail = &f->items;
  if (!in) {
    fprintf(stderr, "ipcstamp run: cannot read the workload %s: %s\n", path,
            strerror(errno));
    return CLI_EXIT_IO;
  }
  while ((n = getline(&line, &cap, in)) >= 0) {
    lineno++;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      n--;
    if (n == 0)
      continue;
    if ((size_t)n > LINE_MAX_BYTES) {
      fprintf(stderr, "ipcstamp run: %s:%lu: line longer than %u bytes\n",
              path, lineno, (unsigned)LINE_MAX_BYTES);
      rc = CLI_EXIT_INPUT;
      break;
    }
    it = parse_line(k, line, (size_t)n, err, sizeof err);
    if (!it) {
      fprintf(stderr, "ipcstamp run: %s:%lu: %s\n", path, lineno, err);
      rc = CLI_EXIT_INPUT;
      break;
    }
    *tail = it;
    tail = &it->next;
  }
  if (rc == 0 && ferror(in)) {
    fprintf(stderr, "ipcstamp run: cannot read the workload %s: %s\n", path,
            strerror(errno));
    rc = CLI_EXIT_IO;
  }
  free(line);
  if (in != stdin)
    fclose(in);
  if (rc == 0 && !f->items) {
    /* A run that would deliver nothing is not a success. */
    fprintf(stderr, "ipcstamp run: the workload %s has no line to run\n",
            path);
    rc = CLI_EXIT_INPUT;
  }
  if (rc) {
    run_feed_free(f);
    return rc;
  }
  f->passes = passes;
  k->refill = refill_workload;
  k->refill_data = f;
  return 0;
}

void run_feed_free(run_feed_t *f) {
  run_item_t *it;
  while ((it = f->items) != NULL) {
    f->items = it->next;
    kernel_item_free(it);
  }
}

/* The set-up (evaluate the vat code, init) for every vat, then one round of
 * payments per call. */
static int refill_demo(kernel_t *k) {
  run_feed_t *f = k->refill_data;
  char buf[256];
  int i, r = f->round, len;
  run_item_t *it;
  if (r >= f->rounds)
    return 0;
  if (r == 0) /* the set-up is not a round */
    f->base_cmds = commands(k);
  else if (r > 0)
    note_pass(f, k, (uint64_t)r);
  f->round++;
  for (i = 0; i < k->nvats; i++) {
    if (r < 0) {
      if (!(it = make_eval(i, ips__demo_vat_js, strlen(ips__demo_vat_js))))
        return -1;
      kernel_push(k, it);
      len = snprintf(buf, sizeof buf,
                     "[\"message\",\"init\",{\"me\":\"%s\",\"nvats\":%d}]",
                     k->vats[i].id, k->nvats);
    } else {
      len = snprintf(buf, sizeof buf,
                     "[\"message\",\"pay\",{\"amount\":%d,\"hops\":%d,"
                     "\"work\":%d}]",
                     1 + (r * 7 + i * 3) % 50, 1 + (r + i) % 3,
                     2000 + ((r * 37 + i * 101) % 20) * 1000);
    }
    if (!(it = make_delivery(i, buf, (size_t)len)))
      return -1;
    kernel_push(k, it);
  }
  return 1;
}

void run_demo_workload(kernel_t *k, run_feed_t *f, int rounds) {
  memset(f, 0, sizeof *f);
  f->rounds = rounds;
  f->round = -1;
  k->refill = refill_demo;
  k->refill_data = f;
}
