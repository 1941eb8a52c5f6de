/* slog_ahead.c — the slog reader on a second thread.
 *
 * Reading a slogfile is the kernel's copy into our buffer and the search
 * for newlines: over a third of `ipcstamp report`'s time on a slogfile of
 * large payloads.  A reader thread does both and hands over blocks of whole
 * lines while the calling thread parses, attributes and prints.  Lines come
 * out in order with the flags the plain reader gives, so the output is the
 * same; only the reading moved.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slog.h"

#define NBLOCK 3             /* one being read, one being parsed, one spare */
#define BLOCK_BYTES (1u << 20)
#define BLOCK_LINES 16384u

typedef struct {
  size_t off, len;
  int flags;
} line_t;

typedef struct {
  char *data;      /* the lines' bytes (a dropped long line has none) */
  size_t used, cap;
  line_t lines[BLOCK_LINES];
  size_t n;
  int status;      /* after these lines: 1 more to come, 0 end, -1 error */
  char err[256];
  uint64_t done;   /* input consumed when the block was filled */
} block_t;

struct ips__slog_ahead {
  ips__slog_in_t *in;   /* the reader thread's only */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned head, tail;  /* filled blocks are [head, tail), counted mod NBLOCK */
  int stop;
  block_t *b[NBLOCK];
  block_t *cur;         /* the block being handed out, or NULL */
  size_t next;
  long lineno;
  uint64_t total;
};

/* Copies a line into b.  Returns 0, or -1 when it does not fit in a block
 * that already has lines (it starts the next block), or when out of memory
 * (status set). */
static int add(block_t *b, const char *line, size_t len, int flags) {
  size_t keep = (flags & IPS__LINE_TOOLONG) ? 0 : len;
  if (b->n == BLOCK_LINES || (b->used + keep > b->cap && b->n > 0))
    return -1;
  if (b->used + keep > b->cap) { /* one line longer than a block */
    char *d = realloc(b->data, keep);
    if (!d) {
      b->status = -1;
      snprintf(b->err, sizeof b->err, "out of memory");
      return -1;
    }
    b->data = d;
    b->cap = keep;
  }
  memcpy(b->data + b->used, line, keep);
  b->lines[b->n].off = b->used;
  b->lines[b->n].len = len;
  b->lines[b->n].flags = flags;
  b->used += keep;
  b->n++;
  return 0;
}

static void *reader(void *arg) {
  ips__slog_ahead_t *a = arg;
  const char *line = NULL;
  size_t len = 0;
  int flags = 0, r = 1, pending = 0;
  for (;;) {
    block_t *b;
    uint64_t total;
    pthread_mutex_lock(&a->mu);
    while (a->tail - a->head == NBLOCK && !a->stop)
      pthread_cond_wait(&a->cv, &a->mu);
    if (a->stop) {
      pthread_mutex_unlock(&a->mu);
      return NULL;
    }
    b = a->b[a->tail % NBLOCK];
    pthread_mutex_unlock(&a->mu);
    b->used = b->n = 0;
    b->status = 1;
    /* The line that did not fit the last block is still valid: the
     * plain reader keeps it until its next call. */
    if (pending && add(b, line, len, flags) < 0 && b->status < 0)
      r = -1;
    pending = 0;
    while (r > 0) {
      r = ips__slog_next(a->in, &line, &len, &flags, b->err, sizeof b->err);
      if (r <= 0) {
        b->status = r;
        break;
      }
      if (add(b, line, len, flags) < 0) {
        if (b->status < 0)
          r = -1;
        else
          pending = 1;
        break;
      }
    }
    ips__slog_progress(a->in, &b->done, &total);
    pthread_mutex_lock(&a->mu);
    a->tail++;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    if (r <= 0)
      return NULL;
  }
}

ips__slog_ahead_t *ips__slog_ahead_open(const char *path, size_t max_line,
                                        char *err, size_t errlen) {
  ips__slog_ahead_t *a = calloc(1, sizeof *a);
  uint64_t done;
  int i;
  if (!a) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  for (i = 0; i < NBLOCK; i++) {
    a->b[i] = calloc(1, sizeof *a->b[i]);
    if (!a->b[i] || !(a->b[i]->data = malloc(BLOCK_BYTES)))
      goto nomem;
    a->b[i]->cap = BLOCK_BYTES;
  }
  a->in = ips__slog_open(path, max_line, err, errlen);
  if (!a->in)
    goto fail;
  ips__slog_progress(a->in, &done, &a->total);
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->cv, NULL);
  if (pthread_create(&a->thread, NULL, reader, a) != 0) {
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    ips__slog_close(a->in);
    goto nomem;
  }
  return a;
nomem:
  snprintf(err, errlen, "out of memory");
fail:
  for (i = 0; i < NBLOCK; i++)
    if (a->b[i]) {
      free(a->b[i]->data);
      free(a->b[i]);
    }
  free(a);
  return NULL;
}

int ips__slog_ahead_next(ips__slog_ahead_t *a, const char **line, size_t *len,
                         int *flags, char *err, size_t errlen) {
  for (;;) {
    block_t *b = a->cur;
    if (b && a->next < b->n) {
      const line_t *l = &b->lines[a->next++];
      *line = b->data + l->off;
      *len = l->len;
      *flags = l->flags;
      a->lineno++;
      return 1;
    }
    if (b) {
      if (b->status <= 0) { /* the last block: say so on every call */
        if (b->status < 0)
          snprintf(err, errlen, "%s", b->err);
        return b->status;
      }
      pthread_mutex_lock(&a->mu);
      a->head++;
      pthread_cond_broadcast(&a->cv);
      pthread_mutex_unlock(&a->mu);
    }
    pthread_mutex_lock(&a->mu);
    while (a->head == a->tail)
      pthread_cond_wait(&a->cv, &a->mu);
    a->cur = a->b[a->head % NBLOCK];
    a->next = 0;
    pthread_mutex_unlock(&a->mu);
  }
}

long ips__slog_ahead_lineno(const ips__slog_ahead_t *a) { return a->lineno; }

void ips__slog_ahead_progress(const ips__slog_ahead_t *a, uint64_t *done,
                              uint64_t *total) {
  *done = a->cur ? a->cur->done : 0;
  *total = a->total;
}

void ips__slog_ahead_close(ips__slog_ahead_t *a) {
  int i;
  if (!a)
    return;
  pthread_mutex_lock(&a->mu);
  a->stop = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->thread, NULL);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->cv);
  ips__slog_close(a->in);
  for (i = 0; i < NBLOCK; i++) {
    free(a->b[i]->data);
    free(a->b[i]);
  }
  free(a);
}
