/* kernel.c — see kernel.h.  One crank at a time, in queue order, as in
 * SwingSet: a delivery's sends are queued behind everything already
 * waiting, and the kernel's own work between two deliveries is real. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "cli.h"
#include "kernel.h"
#include "json.h"

static unsigned hash(const char *s) {
  return (unsigned)(ips_fnv1a_str(s) % KERNEL_STORE_BUCKETS);
}

static kv_t **store_find(vat_t *v, const char *key) {
  kv_t **p = &v->store[hash(key)];
  while (*p && strcmp((*p)->key, key))
    p = &(*p)->next;
  return p;
}

static void store_free(vat_t *v) {
  int i;
  for (i = 0; i < KERNEL_STORE_BUCKETS; i++) {
    kv_t *e = v->store[i], *n;
    for (; e; e = n) {
      n = e->next;
      free(e->key);
      free(e->val);
      free(e);
    }
    v->store[i] = NULL;
  }
}

void kernel_item_free(run_item_t *it) {
  if (it) {
    free(it->vd);
    free(it->src);
    free(it);
  }
}

void kernel_push(kernel_t *k, run_item_t *it) {
  it->next = NULL;
  if (k->tail)
    k->tail->next = it;
  else
    k->head = it;
  k->tail = it;
  k->queued++;
}

static run_item_t *pop(kernel_t *k) {
  run_item_t *it = k->head;
  if (it) {
    k->head = it->next;
    if (!k->head)
      k->tail = NULL;
    k->queued--;
  }
  return it;
}

int kernel_vat_index(const kernel_t *k, const char *id) {
  int i;
  for (i = 0; i < k->nvats; i++)
    if (!strcmp(k->vats[i].id, id))
      return i;
  return -1;
}

int kernel_slog_check(kernel_t *k, int rc) {
  if (rc == 0)
    return 0;
  if (!k->slog_failed) {
    k->slog_failed = rc;
    fprintf(stderr, "ipcstamp run: cannot write the slogfile %s: %s\n",
            k->slog_path, ips_strerror(rc));
    kernel_stop(k);
  }
  return 1;
}

/* ["ok", value] or ["error", message], generated (never pasted). */
static char *make_reply(const char *ok_json, const char *err, size_t *len) {
  return err ? run_json_pair("error", err, strlen(err), NULL, len)
             : run_json_pair("ok", NULL, 0, ok_json, len);
}

static const char *str_arg(const run_jsplit_t *s, size_t i) {
  if (i >= s->count || i >= RUN_JSON_MAX_ITEMS || !s->item[i].str ||
      strlen(s->item[i].str) != s->item[i].slen)
    return NULL;
  return s->item[i].str;
}

/* The syscall's work.  Returns the reply (owned by the caller). */
static char *do_syscall(kernel_t *k, vat_t *v, const char *p, size_t n,
                     size_t *len) {
  run_jsplit_t s;
  char err[200];
  const char *op, *key;
  char *reply;
  /* The name and key first, nothing else copied: "log" and the reads need
   * no more, and a huge argument then costs no copies. */
  if (run_json_split_head(p, n, &s, err, sizeof err, 2, 4096) != 0)
    return make_reply(NULL, err, len);
  if (!s.is_object && (op = str_arg(&s, 0)) != NULL &&
      (!strcmp(op, "vatstoreSet") || !strcmp(op, "send")) && s.count >= 3) {
    /* these keep their third argument: split again, whole */
    run_json_free(&s);
    if (run_json_split(p, n, &s, err, sizeof err) != 0)
      return make_reply(NULL, err, len);
  }
  if (s.is_object || !(op = str_arg(&s, 0))) {
    run_json_free(&s);
    return make_reply(NULL, "a syscall is [\"name\", args...]", len);
  }
  key = str_arg(&s, 1);
  if (!strcmp(op, "vatstoreGet") && key) {
    kv_t **e = store_find(v, key);
    reply = make_reply(*e ? (*e)->val : NULL, NULL, len);
  } else if (!strcmp(op, "vatstoreSet") && key && s.count >= 3) {
    kv_t **e = store_find(v, key);
    char *val = strdup(s.item[2].json);
    if (!val) {
      reply = NULL;
    } else if (*e) {
      free((*e)->val);
      (*e)->val = val;
      reply = make_reply(NULL, NULL, len);
    } else if ((*e = calloc(1, sizeof **e)) && ((*e)->key = strdup(key))) {
      (*e)->val = val;
      reply = make_reply(NULL, NULL, len);
    } else {
      free(*e);
      *e = NULL;
      free(val);
      reply = NULL;
    }
  } else if (!strcmp(op, "vatstoreDelete") && key) {
    kv_t **e = store_find(v, key), *d = *e;
    if (d) {
      *e = d->next;
      free(d->key);
      free(d->val);
      free(d);
    }
    reply = make_reply(NULL, NULL, len);
  } else if (!strcmp(op, "send") && key && s.count >= 3) {
    int t = kernel_vat_index(k, key);
    run_item_t *it;
    if (t < 0) {
      snprintf(err, sizeof err, "send: no vat named '%.40s'", key);
      reply = make_reply(NULL, err, len);
    } else if ((it = calloc(1, sizeof *it)) &&
               (it->vd = strdup(s.item[2].json))) {
      it->vat = t;
      it->vdlen = s.item[2].len;
      kernel_push(k, it);
      k->sends++;
      reply = make_reply(NULL, NULL, len);
    } else {
      free(it);
      reply = NULL;
    }
  } else if (!strcmp(op, "log")) {
    reply = make_reply(NULL, NULL, len);
  } else {
    snprintf(err, sizeof err, "unknown syscall '%.40s' or wrong arguments",
             op);
    reply = make_reply(NULL, err, len);
  }
  run_json_free(&s);
  return reply;
}

static void on_upcall(ips_child_t *w, void *arg, const char *p, size_t n,
                      const ips_stamp_t *U) {
  kernel_t *k = arg;
  vat_t *v = ips_child_data(w);
  uint64_t snum;
  size_t len = 0;
  char *reply;
  ips_stamp_t R;
  if (arg == v) {
    /* An upcall while it answers the readiness ping: no delivery of the
     * kernel's to charge it to; a protocol violation (on_ready says). */
    (void)ips_child_kill(w);
    return;
  }
  snum = k->snum++;
  k->upcalls++;
  if (k->slog)
    kernel_slog_check(k, ips_slog_syscall(k->slog, k->crank, v->id, k->dnum,
                                          snum, p, n, U));
  reply = do_syscall(k, v, p, n, &len);
  if (!reply) {
    fprintf(stderr, "ipcstamp run: out of memory\n");
    ips_child_kill(w);
    return;
  }
  if (ips_child_reply(w, reply, len, &R) == 0 && k->slog)
    kernel_slog_check(k, ips_slog_syscall_result(k->slog, k->crank, v->id,
                                                 k->dnum, snum, reply, len,
                                                 &R));
  free(reply);
}

static void on_start(ips_child_t *w, void *arg, const ips_stamp_t *D) {
  kernel_t *k = arg;
  vat_t *v = ips_child_data(w);
  if (arg == v) /* the readiness ping: no delivery of the kernel's */
    return;
  if (k->slog && k->cur)
    kernel_slog_check(k, ips_slog_deliver(k->slog, k->crank, v->id, k->dnum,
                                          k->cur->vd, k->cur->vdlen, D));
}

/* A message that may quote worker bytes (yajl's errors do, and end in a
 * newline), on one line of stderr: control bytes become spaces. */
static void print_message(const char *vat, uint64_t dnum, const char *what,
                          const char *msg) {
  char buf[512];
  size_t i;
  snprintf(buf, sizeof buf, "%s", msg);
  for (i = 0; buf[i]; i++)
    if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
      buf[i] = ' ';
  fprintf(stderr, "ipcstamp run: %s: delivery %llu%s: %s\n", vat,
          (unsigned long long)dnum, what, buf);
}

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  kernel_t *k = arg;
  vat_t *v = ips_child_data(w);
  if (res->nstamps > 0 && k->slog)
    kernel_slog_check(k, ips_slog_deliver_result(k->slog, k->crank, v->id,
                                                 k->dnum, res));
  if (res->kind == IPS_RESULT_ERROR) {
    k->errors++;
  } else if (res->kind == IPS_RESULT_FAULT && res->status != -ECANCELED) {
    k->faults++;
    print_message(v->id, k->dnum, " failed", res->message);
  }
  if (res->metering_error)
    print_message(v->id, k->dnum, "", res->metering_error);
  kernel_item_free(k->cur);
  k->cur = NULL;
  kernel_pump(k);
}

/* A worker's output line on stderr, which is often a terminal: the worker
 * is untrusted, so its escapes are shown, not obeyed (cli_term_clean). */
static void relay(const char *vat, const char *line, size_t n) {
  char *c = malloc(n ? n : 1);
  if (!c) {
    fprintf(stderr, "[%s] (a line of %zu bytes: out of memory)\n", vat, n);
    return;
  }
  memcpy(c, line, n);
  cli_term_clean(c, n);
  fprintf(stderr, "[%s] %.*s\n", vat, (int)n, c);
  free(c);
}

static void on_console(ips_child_t *w, int fd, const char *line, size_t n) {
  vat_t *v = ips_child_data(w);
  kernel_t *k = v->k;
  if (k->slog)
    kernel_slog_check(k, ips_slog_console(k->slog, v->id, fd, line, n));
  else
    relay(v->id, line, n);
}

static void on_exit_(ips_child_t *w, int64_t status, int sig) {
  vat_t *v = ips_child_data(w);
  if (v->k->slog)
    kernel_slog_check(v->k,
                      ips_slog_worker_exit(v->k->slog, v->id, status, sig));
}

/* A fault between commands (the worker died or broke the protocol while
 * idle) fails the run like one during a command. */
static void on_fault(ips_child_t *w, int status, const char *message) {
  vat_t *v = ips_child_data(w);
  kernel_t *k = v->k;
  char buf[512];
  size_t i;
  k->faults++;
  snprintf(buf, sizeof buf, "%s", message);
  for (i = 0; buf[i]; i++)
    if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
      buf[i] = ' ';
  fprintf(stderr, "ipcstamp run: %s: worker fault outside a command: %s\n",
          v->id, buf);
  if (k->slog)
    kernel_slog_check(k, ips_slog_worker_fault(k->slog, v->id, status,
                                               message));
}

static void on_closed(ips_child_t *w) {
  vat_t *v = ips_child_data(w);
  v->w = NULL;
  v->closed = 1;
  v->k->open_workers--;
}

/* The worker answered the readiness ping: its start-up is over (and is
 * not in its first delivery's pipe time). */
static void on_ready(ips_child_t *w, void *arg, const ips_result_t *res) {
  vat_t *v = arg;
  kernel_t *k = v->k;
  (void)w;
  if (res->kind == IPS_RESULT_OK && res->nstamps >= 2) {
    v->ready_ns = res->stamps[res->nstamps - 1].mono_ns - v->spawn_ns;
  } else if (res->kind != IPS_RESULT_FAULT || res->status != -ECANCELED) {
    /* Before any command: a fault outside a command, told and recorded
     * as such. */
    k->faults++;
    fprintf(stderr, "ipcstamp run: %s: start-up failed: %s\n", v->id,
            res->message);
    if (k->slog)
      kernel_slog_check(k, ips_slog_worker_fault(
                               k->slog, v->id,
                               res->kind == IPS_RESULT_FAULT ? res->status
                                                             : IPS_EPROTO,
                               res->message));
  }
}

int kernel_vat_started(kernel_t *k, vat_t *v) {
  ips_stamp_t now;
  (void)k;
  if (ips_clock_read(&now) == 0)
    v->spawn_ns = now.mono_ns;
  return ips_child_ready(v->w, on_ready, v);
}

void kernel_worker_options(kernel_t *k, ips_child_options_t *o) {
  o->upcall_cb = on_upcall;
  o->start_cb = on_start;
  o->console_cb = on_console;
  o->exit_cb = on_exit_;
  o->fault_cb = on_fault;
}

static int any_alive(const kernel_t *k) {
  int i;
  for (i = 0; i < k->nvats; i++)
    if (k->vats[i].w && ips_child_alive(k->vats[i].w))
      return 1;
  return 0;
}

void kernel_pump(kernel_t *k) {
  run_item_t *it;
  int rc = 0;
  while (!k->cur && !k->stopping) {
    vat_t *v;
    /* Once every worker is gone the rest would only be counted as not
     * run, one by one: with --repeat that could take forever. */
    if (!k->head && k->refill &&
        (!any_alive(k) || (rc = k->refill(k)) <= 0)) {
      k->refill = NULL;
      if (rc < 0) {
        fprintf(stderr, "ipcstamp run: out of memory\n");
        k->faults++;
      }
    }
    if ((it = pop(k)) == NULL)
      break;
    v = &k->vats[it->vat];
    if (!v->w || !ips_child_alive(v->w)) {
      k->skipped++;
      kernel_item_free(it);
      continue;
    }
    k->cur = it;
    k->crank++;
    k->dnum = ++v->deliveries;
    k->snum = 0;
    if (it->evaluate) {
      k->evaluations++;
      rc = ips_child_evaluate(v->w, it->src, it->srclen, on_result, k);
    } else {
      k->deliveries++;
      rc = ips_child_deliver(v->w, it->vd, it->vdlen, on_result, k);
    }
    if (rc) {
      fprintf(stderr, "ipcstamp run: %s: cannot deliver: %s\n", v->id,
              ips_strerror(rc));
      k->faults++;
      k->cur = NULL;
      kernel_item_free(it);
    }
  }
  if (!k->cur && (k->stopping || !k->head))
    kernel_stop(k);
}

void kernel_stop(kernel_t *k) {
  int i;
  if (k->stopping == 2)
    return;
  k->stopping = 2;
  for (i = 0; i < k->nvats; i++)
    if (k->vats[i].w)
      ips_child_close(k->vats[i].w, on_closed);
  if (k->on_idle)
    k->on_idle(k);
}

void kernel_free(kernel_t *k) {
  int i;
  run_item_t *it;
  while ((it = pop(k)) != NULL) {
    k->skipped++;
    kernel_item_free(it);
  }
  kernel_item_free(k->cur);
  k->cur = NULL;
  for (i = 0; i < k->nvats; i++)
    store_free(&k->vats[i]);
  free(k->vats);
  k->vats = NULL;
}
