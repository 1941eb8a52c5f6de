/* slog_ahead.c — read, and parse when there is time, on a second thread.
 *
 * A report's work on a line is reading it (the kernel's copy into our
 * buffer and the search for its newline), parsing it (slog_fast.c or
 * yajl), and attributing and printing it.  A reader thread fills a ring of
 * blocks with whole lines while the caller's thread parses and attributes
 * them.  Which of the two is the bottleneck depends on the file: with
 * large payloads reading is most of the work, with small ones parsing is.
 * So parsing a block goes to whichever thread comes to it first: the
 * reader parses filled blocks, newest first, whenever the ring is full (it
 * would only wait), and the caller parses a block it reaches unparsed
 * itself, line by line, as it would without this thread.  Every block is
 * parsed exactly once, by one thread, and the work divides itself.
 *
 * A mapped file (slog_read.c) is not read into buffers: a block is a
 * range of about IPS__SLOG_BUF bytes of the mapping, ending after a
 * newline, and the thread that parses it cuts it into lines as it goes,
 * so each byte comes from memory once, into the cache of the thread that
 * parses it (finding the lines on the reader's thread and parsing them on
 * the other read the file twice: a fifth of the CPU time).  The reader
 * cuts at most BLOCK_LINES lines of a range it parses; the caller cuts and
 * parses the rest, and all of a range it takes unparsed.
 *
 * Lines and records come out in file order with the flags and results the
 * plain reader and ips__slog_parse() give, so the output is the same; only
 * where the work runs moved.  Memory is NBLOCK blocks: each holds a
 * buffer of IPS__SLOG_BUF (or one longer line, up to max_line; none when
 * mapped) and what at most BLOCK_LINES lines parse to, which is bounded by
 * their bytes (a stamp takes at least two bytes of text).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "bus_guard.h"
#include "slog.h"
#include "slog_block.h"

#define NBLOCK 8
/* Following, how often the reader looks for more: a line shows within this
 * of being written, and an idle follower wakes 20 times a second. */
#define FOLLOW_POLL_NS 50000000L

/* Blocks go round the ring: filled at tail, handed out at head (counters
 * taken mod NBLOCK; tail - head <= NBLOCK). */
struct ips__slog_ahead {
  ips__slog_in_t *in;      /* the reader thread's only */
  ips__parser_t *rparser;  /* the reader thread's only */
  ips__parser_t *cparser;  /* the caller's only */
  pthread_t thread;
  int started;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned head, tail;
  int stop, eof;           /* eof: the reader has filled its last block */
  int follow;              /* tail -F: the end of the file is not the end */
  unsigned long reopened;  /* under the lock: the reader's count */
  block_t *b[NBLOCK];
  block_t *cur;            /* the block being handed out, or NULL */
  size_t next;
  long lineno;
  uint64_t total;
  char cerr[256];          /* the caller's last parse error */
  ips__rec_t out;          /* the record handed out last, when the reader
                              parsed it */
  int out_cold;            /* out's cold part is not all zero */
  long by_reader, by_caller; /* blocks parsed by each */
  int noparse;             /* under the lock: the reader parses no more */
  const char *map;         /* a mapped file: the lines are in [map, +len) */
  size_t map_len;
  int fault;               /* the caller's: the file shrank under it */
  char ferr[256];          /* what the caller says then, on every call */
  size_t pos;              /* mapped: the caller's next line in cur */
  size_t map_done;         /* under the lock: the end of the last range */
  const char *last;        /* the line handed out last (NULL: none), */
  size_t last_len;         /* its length */
};

/* ---- reading -------------------------------------------------------- */

/* The lines of b, up to BLOCK_LINES of them and about a buffer's worth
 * of bytes.  Mapped, a block would otherwise have no bound in bytes: it
 * ends where a buffer would, so that parsing one takes about as long
 * either way (a thread may wait for the other's block).  Returns what
 * ips__slog_next returned last; the lines found are b->n. */
static int lines(ips__slog_ahead_t *a, block_t *b) {
  int r = 1;
  size_t bytes = 0;
  while (b->n < BLOCK_LINES && (!a->map || bytes < IPS__SLOG_BUF)) {
    line_t *l = &b->lines[b->n];
    r = ips__slog_next(a->in, &l->p, &l->len, &l->flags, b->err,
                       sizeof b->err);
    if (r != 1)
      break;
    l->parsed = 1;
    bytes += l->len;
    b->n++;
  }
  return r;
}

/* Fills b with the next lines.  They are read in place (the reader holds
 * them, slog_read.c) and the buffer they are in becomes the block's: its
 * old buffer, whose lines the caller is done with, goes back to the
 * reader.  So a line is never copied.  Mapped, the lines are found under
 * one guard for the block.  Returns b->status. */
static int fill(ips__slog_ahead_t *a, block_t *b) {
  uint64_t total;
  char *data;
  volatile int r = -1; /* set after the guard's entry */
  ips__guard_t g;
  b->n = 0;
  if (!a->map) {
    r = lines(a, b);
  } else if (IPS__GUARD(&g, a->map, a->map_len) == 0) {
    ips__slog_range(a->in, &b->from, &b->to);
    ips__guard_leave(&g);
    b->cut = b->from;
    r = b->to < a->map_len; /* the last range ends the input */
  } else {
    ips__slog_shrank(a->in, g.at, b->err, sizeof b->err);
    b->from = b->to = b->cut = 0;
  }
  b->status = r == IPS__SLOG_FULL ? 1 : r;
  data = ips__slog_detach(a->in, b->data, &b->cap);
  if (data) {
    b->data = data;
  } else {
    /* The lines stay in the reader's buffer, which no one touches again:
     * this is the last block. */
    b->status = -1;
    snprintf(b->err, sizeof b->err, "out of memory");
  }
  ips__slog_progress(a->in, &b->done, &total);
  return b->status;
}

/* ---- parsing a block ahead ------------------------------------------ */

/* parse_block on the reader's thread.  Mapped, the range is cut into
 * lines here, up to BLOCK_LINES of them (the caller cuts the rest), as the
 * reader would have found them, and they are read under a guard: if the
 * file shrank under them, returns -1 like parse_block does out of memory,
 * and the caller, parsing the block itself, finds out and says so.  The
 * parser it leaves in the middle of a line is not used again (the reader
 * stops parsing). */
static int parse_ahead(ips__slog_ahead_t *a, block_t *b) {
  ips__guard_t g;
  volatile int r = -1; /* set after the guard's entry */
  if (!a->map)
    return ips__block_parse(a->rparser, b);
  if (IPS__GUARD(&g, a->map, a->map_len) == 0) {
    /* cut() and ips__block_parse() in one: each line parsed as soon as it is
     * found, while it is in this core's first-level cache. */
    size_t pos = b->from;
    int ok = 0; /* r stays -1 until the end: a fault jumps back above */
    b->n = 0;
    b->stamps.used = b->text.used = 0;
    while (pos < b->to && b->n < BLOCK_LINES && ok == 0) {
      line_t *l = &b->lines[b->n++];
      pos = ips__slog_line_at(a->in, pos, b->to, &l->p, &l->len, &l->flags);
      l->parsed = 1;
      ok = ips__block_parse_line(a->rparser, b, l);
    }
    b->cut = pos;
    ips__guard_leave(&g);
    r = ok;
  }
  return r;
}

/* The newest filled block no one parses yet, or NULL; the lock is held.
 * Newest first keeps the reader away from the block the caller reaches
 * next, and the head block, the one the caller takes next, is always left
 * to it: so the caller never waits for the reader to parse what it could
 * have parsed itself. */
static block_t *unclaimed(ips__slog_ahead_t *a) {
  unsigned i;
  for (i = a->tail; i - a->head > 1; i--) {
    block_t *b = a->b[(i - 1) % NBLOCK];
    if (b->state == FILLED)
      return b;
  }
  return NULL;
}

/* While the ring is full (and after the last block), the reader parses
 * ahead.  Returns with the lock held: 1 when there is a slot to fill, 0
 * when the thread is done. */
static int help(ips__slog_ahead_t *a) {
  for (;;) {
    block_t *b;
    if (a->stop)
      return 0;
    if (!a->eof && a->tail - a->head < NBLOCK)
      return 1;
    if (!a->noparse && (b = unclaimed(a)) != NULL) {
      int ok;
      b->state = BY_READER;
      pthread_mutex_unlock(&a->mu);
      ok = parse_ahead(a, b) == 0;
      pthread_mutex_lock(&a->mu);
      /* Out of memory, or the file shrank: the caller's, and the reader
       * only reads from now on (it still fills the blocks the caller
       * waits for). */
      b->state = ok ? PARSED : FILLED;
      a->by_reader += ok;
      a->noparse |= !ok;
      pthread_cond_broadcast(&a->cv);
      continue;
    }
    if (a->eof)
      return 0;
    pthread_cond_wait(&a->cv, &a->mu);
  }
}

static void *reader(void *arg) {
  ips__slog_ahead_t *a = arg;
  pthread_mutex_lock(&a->mu);
  while (help(a)) {
    block_t *b = a->b[a->tail % NBLOCK];
    /* Mapped: the ranges of the blocks the caller is done with (all
     * before the head block, or every range so far) are read no more. */
    size_t done = a->head < a->tail ? a->b[a->head % NBLOCK]->from
                                    : a->map_done;
    int r;
    pthread_mutex_unlock(&a->mu);
    if (a->map)
      ips__slog_release(a->in, done);
    r = fill(a, b);
    pthread_mutex_lock(&a->mu);
    a->reopened = ips__slog_reopened(a->in);
    if (r == IPS__SLOG_AGAIN && b->n == 0) {
      /* Nothing new: look again later (or when closed). */
      struct timespec t;
      clock_gettime(CLOCK_REALTIME, &t);
      t.tv_nsec += FOLLOW_POLL_NS;
      if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
      }
      if (!a->stop)
        pthread_cond_timedwait(&a->cv, &a->mu, &t);
      continue;
    }
    b->state = FILLED;
    a->map_done = b->to;
    a->tail++;
    a->eof = r <= 0;
    pthread_cond_broadcast(&a->cv);
  }
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

/* ---- the caller's side ---------------------------------------------- */

static void free_blocks(ips__slog_ahead_t *a) {
  int i;
  for (i = 0; i < NBLOCK; i++)
    if (a->b[i]) {
      free(a->b[i]->data);
      free(a->b[i]->lines);
      free(a->b[i]->stamps.p);
      free(a->b[i]->text.p);
      free(a->b[i]);
    }
}

ips__slog_ahead_t *ips__slog_ahead_open(const char *path, size_t max_line,
                                        int mode, int follow, char *err,
                                        size_t errlen) {
  ips__slog_ahead_t *a = calloc(1, sizeof *a);
  uint64_t done;
  int i;
  if (!a) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  for (i = 0; i < NBLOCK; i++) {
    block_t *b = a->b[i] = calloc(1, sizeof *b);
    if (!b || !(b->data = malloc(IPS__SLOG_BUF)) ||
        !(b->lines = malloc(BLOCK_LINES * sizeof *b->lines)))
      goto nomem;
    b->cap = IPS__SLOG_BUF;
  }
  if (!(a->rparser = ips__parser_new(mode)) ||
      !(a->cparser = ips__parser_new(mode)))
    goto nomem;
  a->in = ips__slog_open(path, max_line, err, errlen);
  if (!a->in)
    goto fail;
  ips__slog_hold(a->in);
  if (follow && ips__slog_follow(a->in, path) != 0) {
    snprintf(err, errlen, "%s: cannot follow a flight recorder file", path);
    goto fail;
  }
  a->follow = follow;
  /* Not followed: the file as it is now, mapped when it can be. */
  if (!follow && ips__slog_map(a->in, path) == 1) {
    ips__slog_mapping(a->in, &a->map, &a->map_len);
    ips__slog_guarded(a->in);
  }
  ips__slog_progress(a->in, &done, &a->total);
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->cv, NULL);
  if (pthread_create(&a->thread, NULL, reader, a) != 0) {
    ips__slog_ahead_close(a);
    snprintf(err, errlen, "cannot start a thread");
    return NULL;
  }
  a->started = 1;
  return a;
nomem:
  snprintf(err, errlen, "out of memory");
fail:
  ips__slog_close(a->in); /* opened, then refused (a flight recorder) */
  ips__parser_free(a->rparser);
  ips__parser_free(a->cparser);
  free_blocks(a);
  free(a);
  return NULL;
}

/* Parses l on the caller's thread: mapped, under a guard.  Returns 0, or
 * -1 when the file shrank under the line (a->ferr says so). */
static int parse_here(ips__slog_ahead_t *a, line_t *l, ips__slog_item_t *it) {
  ips__guard_t g;
  if (!a->map) {
    l->parsed = ips__slog_parse(a->cparser, l->p, l->len, &it->rec, a->cerr,
                                sizeof a->cerr);
    return 0;
  }
  if (IPS__GUARD(&g, a->map, a->map_len)) {
    /* The reader's input, but only what stays as it was at open is read
     * (the path, the mapping, the descriptor). */
    ips__slog_shrank(a->in, g.at, a->ferr, sizeof a->ferr);
    a->fault = 1;
    return -1;
  }
  l->parsed = ips__slog_parse(a->cparser, l->p, l->len, &it->rec, a->cerr,
                              sizeof a->cerr);
  ips__guard_leave(&g);
  return 0;
}

/* Mapped: the next line of the current block past its cut lines, cut and
 * parsed here, under a guard.  Returns 1, or -1 when the file shrank. */
static int cut_here(ips__slog_ahead_t *a, ips__slog_item_t *it) {
  block_t *b = a->cur;
  ips__guard_t g;
  const char *p;
  if (IPS__GUARD(&g, a->map, a->map_len)) {
    ips__slog_shrank(a->in, g.at, a->ferr, sizeof a->ferr);
    a->fault = 1;
    return -1;
  }
  a->pos = ips__slog_line_at(a->in, a->pos, b->to, &p, &it->len, &it->flags);
  a->last = it->flags & IPS__LINE_TOOLONG ? NULL : p;
  a->last_len = it->len;
  it->parsed = 1;
  if (!(it->flags & IPS__LINE_TOOLONG))
    it->parsed = ips__slog_parse(a->cparser, p, it->len, &it->rec, a->cerr,
                                 sizeof a->cerr);
  ips__guard_leave(&g);
  if (it->parsed != 0)
    it->rec = NULL;
  it->err = it->parsed < 0 ? a->cerr : NULL;
  a->lineno++;
  return 1;
}

/* The next line of the current block as an item.  Returns 1, or -1 when
 * the file shrank under it. */
static int hand_out(ips__slog_ahead_t *a, ips__slog_item_t *it) {
  block_t *b = a->cur;
  line_t *l = &b->lines[a->next++];
  /* The reader wrote the lines it parsed on the other core: ask for one a
   * few lines on now (a prefetch past the array's end does not fault). */
  __builtin_prefetch(l + 6);
  it->len = l->len;
  it->flags = l->flags;
  a->last = l->flags & IPS__LINE_TOOLONG ? NULL : l->p;
  a->last_len = l->len;
  if (b->state == BY_CALLER && !(l->flags & IPS__LINE_TOOLONG)) {
    if (parse_here(a, l, it) < 0)
      return -1;
  } else if (l->parsed == 0) {
    it->rec = ips__block_unkeep(&a->out, &a->out_cold, b, l);
  }
  it->parsed = l->parsed;
  if (l->parsed != 0)
    it->rec = NULL;
  it->err = l->parsed >= 0       ? NULL
            : b->state == PARSED ? b->text.p + l->cold
                                 : a->cerr;
  a->lineno++;
  return 1;
}

int ips__slog_ahead_take(ips__slog_ahead_t *a,
                         int (*fn)(void *arg, const char *p, size_t len),
                         void *arg) {
  ips__guard_t g;
  int r;
  if (!a->last)
    return 0;
  if (!a->map)
    return fn(arg, a->last, a->last_len);
  /* Mapped: the file may shrink under the read, as under the parse. */
  if (IPS__GUARD(&g, a->map, a->map_len)) {
    ips__slog_shrank(a->in, g.at, a->ferr, sizeof a->ferr);
    a->fault = 1;
    return 0;
  }
  r = fn(arg, a->last, a->last_len);
  ips__guard_leave(&g);
  return r;
}

int ips__slog_ahead_next(ips__slog_ahead_t *a, ips__slog_item_t *it,
                         char *err, size_t errlen) {
  for (;;) {
    block_t *b = a->cur;
    if (a->fault) { /* the file shrank: say so on every call */
      snprintf(err, errlen, "%s", a->ferr);
      return -1;
    }
    if (b && a->next < b->n) {
      if (hand_out(a, it) < 0)
        continue;
      return 1;
    }
    if (b && a->pos < b->to) {
      if (cut_here(a, it) < 0)
        continue;
      return 1;
    }
    if (b && b->status <= 0) { /* the last block: say so on every call */
      if (b->status < 0)
        snprintf(err, errlen, "%s", b->err);
      return b->status;
    }
    pthread_mutex_lock(&a->mu);
    if (b) {
      a->head++;
      a->cur = NULL;
      pthread_cond_broadcast(&a->cv);
    }
    /* Wait for the next block to be filled, and for the reader if it is
     * parsing it; take it unparsed if no one is. */
    while (a->head == a->tail || a->b[a->head % NBLOCK]->state == BY_READER) {
      if (a->follow && a->head == a->tail) {
        pthread_mutex_unlock(&a->mu);
        return IPS__SLOG_AGAIN; /* nothing more for now: never wait */
      }
      pthread_cond_wait(&a->cv, &a->mu);
    }
    b = a->cur = a->b[a->head % NBLOCK];
    if (b->state == FILLED) {
      b->state = BY_CALLER;
      a->by_caller++;
      if (a->map) { /* the reader may have cut some before it gave up */
        b->n = 0;
        b->cut = b->from;
      }
    }
    a->next = 0;
    a->pos = a->map ? b->cut : 0;
    pthread_mutex_unlock(&a->mu);
  }
}

long ips__slog_ahead_lineno(const ips__slog_ahead_t *a) { return a->lineno; }

unsigned long ips__slog_ahead_reopened(ips__slog_ahead_t *a) {
  unsigned long n;
  pthread_mutex_lock(&a->mu);
  n = a->reopened;
  pthread_mutex_unlock(&a->mu);
  return n;
}

void ips__slog_ahead_progress(const ips__slog_ahead_t *a, uint64_t *done,
                              uint64_t *total) {
  *done = a->cur ? a->cur->done : 0;
  *total = a->total;
}

void ips__slog_ahead_parsed(ips__slog_ahead_t *a, long *by_reader,
                            long *by_caller) {
  pthread_mutex_lock(&a->mu);
  *by_reader = a->by_reader;
  *by_caller = a->by_caller;
  pthread_mutex_unlock(&a->mu);
}

void ips__slog_ahead_close(ips__slog_ahead_t *a) {
  if (!a)
    return;
  pthread_mutex_lock(&a->mu);
  a->stop = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  if (a->started)
    pthread_join(a->thread, NULL);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->cv);
  ips__slog_close(a->in);
  ips__parser_free(a->rparser);
  ips__parser_free(a->cparser);
  free_blocks(a);
  free(a);
}
