/* assemble.c — records into deliveries: each vat's delivery in progress
 * (its D, then its upcalls' U and R) until its deliver-result, which
 * attribute.c turns into an ips_delivery_t.  Also the kernel's restarts
 * and the end of the input.
 *
 * Only unfinished deliveries are held (one per vat: upcalls nest
 * strictly), so memory follows the number of vats, not the input. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vat.h"


/* The previous delivery of this vat never got its result. */
static void drop_open(ips_analysis_t *a, ips__vat_t *v, const char *why) {
  if (v->open && !v->bad)
    ips__skip_of(a, v, v->line, IPS_SKIP_UNFINISHED, why);
  v->open = 0;
  v->bad = 0;
  v->n_up = 0;
}

static void on_deliver(ips_analysis_t *a, ips__vat_t *v, const ips__rec_t *r,
                       long line) {
  size_t n;
  /* The reason is made only when there is something to say: formatting it
   * for every delivery was 3% of a report's time on the caller's thread. */
  if (v->open && !v->bad) {
    char why[200];
    snprintf(why, sizeof why, "line %ld starts another delivery of %s", line,
             v->name);
    drop_open(a, v, why);
  } else {
    drop_open(a, v, NULL);
  }
  v->open = 1;
  a->delivered = 1;
  /* A replayed delivery has no crank: never the last record's. */
  v->crank = (r->have & IPS__F_CRANK) ? r->crank : -1;
  v->replay = (r->have & IPS__F_REPLAY) != 0;
  v->notify = (r->have & IPS__F_NOTIFY) != 0;
  v->dnum = r->dnum;
  v->line = line;
  v->D = ips__pstamp(r);
  /* Both are IPS__DESC_MAX bytes and r->desc is NUL-terminated in its. */
  n = strlen(r->desc);
  if (n)
    memcpy(v->desc, r->desc, n + 1);
  else
    memcpy(v->desc, "?", 2);
}


/* The next upcall of v's delivery: a syscall (its result comes later) or
 * a console line (the kernel's record is both its arrival and its
 * answer). */
static void add_upcall(ips_analysis_t *a, ips__vat_t *v, const ips__rec_t *r,
                       long line, int console) {
  char d[200];
  ips__up_t *u;
  if (v->n_up > 0 && !v->up[v->n_up - 1].has_R) {
    snprintf(d, sizeof d, "%s at line %ld before the result of the last",
             console ? "console" : "syscall", line);
    ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, d);
    v->bad = 1;
    return;
  }
  if (v->n_up == IPS__MAX_UPCALLS) {
    ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, "more than 2^19 upcalls");
    v->bad = 1;
    return;
  }
  if (v->n_up == v->cap_up) {
    size_t nc = v->cap_up ? v->cap_up * 2 : 16;
    ips__up_t *nu = realloc(v->up, nc * sizeof *nu);
    if (!nu) {
      ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, "out of memory");
      v->bad = 1;
      return;
    }
    v->up = nu;
    v->cap_up = nc;
  }
  u = &v->up[v->n_up++];
  u->U = ips__pstamp(r);
  u->R = u->U;
  u->has_R = console;
  u->console = console;
  u->snum = !console && (r->have & IPS__F_SNUM) ? r->snum : -1;
  u->Uq = !console && (r->have & IPS__F_PRUNQ) ? r->prunq : -1;
}

static void on_syscall(ips_analysis_t *a, ips__vat_t *v, const ips__rec_t *r,
                       long line, int is_result) {
  char d[200];
  ips__up_t *u;
  if (!ips__matches(v, r)) {
    if (ips__cut_at_start(a, v))
      return;
    snprintf(d, sizeof d, "%s of %s (no delivery in progress)",
             is_result ? "syscall-result" : "syscall", v->name);
    ips__skip_of(a, v, line, IPS_SKIP_ORPHAN, d);
    return;
  }
  if (v->bad)
    return;
  if (!is_result) {
    add_upcall(a, v, r, line, 0);
    return;
  }
  if (v->n_up == 0 || v->up[v->n_up - 1].has_R ||
      ((r->have & IPS__F_SNUM) && v->up[v->n_up - 1].snum >= 0 &&
       v->up[v->n_up - 1].snum != r->snum)) {
    snprintf(d, sizeof d, "syscall-result of %s has no pending syscall",
             v->name);
    ips__skip_of(a, v, line, IPS_SKIP_ORPHAN, d);
    return;
  }
  u = &v->up[v->n_up - 1];
  u->R = ips__pstamp(r);
  u->has_R = 1;
}

/* A console line: an upcall of the vat's delivery in progress (SwingSet
 * writes the record as it handles the worker's console upcall); outside a
 * delivery (a vat's start-up, a kernel's own line), another record. */
static void on_console(ips_analysis_t *a, const ips__rec_t *r, long line) {
  ips__vat_t *v =
      (r->have & IPS__F_VAT) ? ips__vat_lookup(a, r->vat, r->vat_len) : NULL;
  if (!v || !ips__matches(v, r) || !(r->have & (IPS__F_TIME | IPS__F_MONO))) {
    a->st.other++;
    return;
  }
  if (!v->bad)
    add_upcall(a, v, r, line, 1);
}

/* SwingSet's monotime counts from the kernel's start: when it goes back,
 * the kernel restarted and appends to the same file.  What was in flight
 * never finishes, and the time between is not the kernel's. */
static void check_restart(ips_analysis_t *a, const ips__rec_t *r) {
  size_t i;
  if (!(r->have & IPS__F_MONO))
    return;
  if (a->has_mono && r->mono_ns + 1000000 < a->last_mono) {
    a->st.restarts++;
    a->st.run_ok = 0; /* the next record with both clocks anchors it */
    for (i = 0; i < a->nvats; i++) {
      ips__vat_t *v = a->vats[i];
      /* The kernel died in this delivery and the next one makes its crank
       * again: nothing in the file is wrong (docs/report.md, Restarts). */
      if (v->open && !v->bad && ips__counts(a, v))
        a->st.n_restart_cut++;
      v->open = 0;
      drop_open(a, v, NULL);
      memset(a->vats[i]->has_est, 0, sizeof a->vats[i]->has_est);
      /* the old kernel's workers are gone with it */
      a->vats[i]->pid = 0;
      a->vats[i]->pid_line = 0;
    }
    a->has_lastE[0] = a->has_lastE[1] = 0;
    a->has_mono_run = 0; /* a new kernel, a new start */
  }
  a->has_mono = 1;
  a->last_mono = r->mono_ns;
}

/* A vat's worker starts: its deliveries from now on are that process's
 * (ipcstamp's parent names its pid; SwingSet does not, and then the pid is
 * unknown rather than the previous worker's).  Still counted as another
 * record type, as before pids were read. */
static void on_worker(ips_analysis_t *a, const ips__rec_t *r, long line) {
  ips__vat_t *v;
  a->st.other++;
  if ((r->have & IPS__F_VAT) && (v = ips__vat_find(a, r->vat, r->vat_len)) != NULL) {
    v->pid = (r->have & IPS__F_PID) ? r->pid : 0;
    v->pid_line = line;
  }
}

/* The slogfile's start: whether our parent wrote it, and in which
 * version. */
static void on_start(ips_analysis_t *a, const ips__rec_t *r, long line) {
  if (r->have & IPS__F_IPSV)
    a->st.ipcstamp_parent = 1;
  if ((r->have & IPS__F_IPSV) && r->ipsv != 1) {
    char d[80];
    snprintf(d, sizeof d, "the slogfile's start says ipcstamp.v %ld (this "
             "reader knows 1)", r->ipsv);
    ips__skip_of(a, NULL, line, IPS_SKIP_VERSION, d);
  }
}

void ips__attr_feed(ips_analysis_t *a, const ips__rec_t *r, long line) {
  ips__vat_t *v;
  const char *miss = NULL;
  check_restart(a, r);
  ips__snap_feed(&a->snap, r);
  if (a->blocks)
    ips__blocks_record(a->blocks, &a->snap, r, line);
  if (a->st.restarts && !a->st.run_ok &&
      (r->have & (IPS__F_TIME | IPS__F_MONO)) == (IPS__F_TIME | IPS__F_MONO)) {
    a->st.run_ok = 1;
    a->st.run_time = r->time_ns;
    a->st.run_mono = r->mono_ns;
  }
  if (r->type == IPS__REC_OTHER)
    return;
  if (r->type == IPS__REC_BLOCK) {
    const char *no = ips__block_missing(r);
    a->st.other++; /* still other records to the report, as before */
    if (no) /* a block's step that cannot be placed: said, not guessed */
      ips__skip(a, NULL, line, IPS_SKIP_MISSING, no);
    return;
  }
  if (r->type == IPS__REC_CONSOLE) {
    on_console(a, r, line);
    return;
  }
  if (r->type == IPS__REC_WORKER) {
    on_worker(a, r, line);
    return;
  }
  if (r->type == IPS__REC_START) {
    on_start(a, r, line);
    return;
  }
  if (!(r->have & IPS__F_VAT))
    miss = "vatID";
  else if (!(r->have & (IPS__F_TIME | IPS__F_MONO)))
    miss = "time and monotime";
  else if (r->type == IPS__REC_DELIVER && !(r->have & IPS__F_DNUM))
    miss = "deliveryNum";
  else if (r->type == IPS__REC_RESULT && !(r->have & IPS__F_DR))
    miss = "dr";
  if (miss) {
    char d[64];
    snprintf(d, sizeof d, "no %s", miss);
    ips__skip(a, (r->have & IPS__F_VAT) ? r->vat : NULL, line,
              IPS_SKIP_MISSING, d);
    return;
  }
  v = ips__vat_find(a, r->vat, r->vat_len);
  if (!v) {
    ips__skip(a, r->vat, line, IPS_SKIP_MISSING, "out of memory");
    return;
  }
  switch (r->type) {
    case IPS__REC_DELIVER:
      on_deliver(a, v, r, line);
      break;
    case IPS__REC_SYSCALL:
      on_syscall(a, v, r, line, 0);
      break;
    case IPS__REC_SYSCALL_RESULT:
      on_syscall(a, v, r, line, 1);
      break;
    case IPS__REC_RESULT:
      ips__on_result(a, v, r, line);
      break;
  }
}

void ips_analysis_finish(ips_analysis_t *a) {
  size_t i;
  for (i = 0; i < a->nvats; i++)
    drop_open(a, a->vats[i], "the file ends first");
  if (a->blocks)
    ips__blocks_finish(a->blocks);
}
