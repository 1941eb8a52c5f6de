/* child.h — the parent's view of one worker process, ips_child_t (internal). */
#ifndef IPCSTAMP_PARENT_CHILD_H
#define IPCSTAMP_PARENT_CHILD_H

#include <yajl/yajl_gen.h>

#include "ipcstamp-parent.h"
#include "metering.h"

/* A command waiting to be written, or in flight: the whole frame, owned. */
typedef struct ips__cmd_s {
  struct ips__cmd_s *next;
  ips_result_cb cb;
  void *arg;
  size_t len;
  int64_t plen; /* the netstring's length: tag and payload */
  int sent;
  char tag;     /* '?', 'e' or 'R' */
  char frame[]; /* header, tag, payload, ',' */
} ips__cmd_t;

/* One write in flight; the bytes live in the request. */
typedef struct {
  uv_write_t req;
  ips__cmd_t *cmd; /* the command whose frame this is, or NULL */
  char bytes[];
} ips__wreq_t;

enum { IPS__ALIVE, IPS__DEAD };

typedef struct {
  uv_pipe_t pipe;
  char *line;      /* IPS_CONSOLE_LINE_MAX bytes, owned */
  size_t len;
  int fd;
  int open, eof;
} ips__console_t;

struct ips_child_s {
  uv_loop_t *loop;
  uv_process_t proc;
  uv_pipe_t to;      /* our end of fd 3 */
  uv_pipe_t from;    /* our end of fd 4 */
  ips__console_t con[2];
  uv_timer_t timeout;  /* per-command timeout */
  uv_timer_t grace;    /* after exit (late frames) and after close ('q') */
  uv_idle_t defer;     /* runs what an API call must not do itself */
  ips_child_options_t o;
  ips_ns_decoder_t dec;
  ips__cmd_t *head, *tail; /* queue; head is in flight when head->sent */
  size_t pending;
  int upcall_pending;
  uint64_t nupcalls;   /* upcalls of the command in flight */
  ips_stamp_t *st;     /* the parent's stamps of the command in flight */
  size_t nst, stcap;
  char *msg;           /* '!' text or fault message, NUL-terminated */
  size_t msgcap;
  char merr[200];      /* why the metering was invalid */
  yajl_gen mgen;       /* the metering re-serialised by its one parse */
  ips__mstore_t mstore; /* the owner of every result's metering arrays,
                           whichever reader filled them (the result's
                           ips_metering_t borrows them), kept for the next
                           result: no allocation per result */
  int state;
  int pid;
  int exited, eof;
  int64_t exit_status;
  int term_signal;
  int closing, handles;
  int grace_expired;
  int in_callback;     /* inside a result callback */
  int cancelled;       /* closed: every queued command is to fail */
  ips_close_cb close_cb;
  struct ips_ring_s *ring;  /* not owned (options.ring) */
  uint64_t ring_delivery;   /* commands sent, for the ring and the probes */
  char ring_vat[16];
  ips_runq_t runq;          /* the loop thread's schedstat (fd owned), or
                               fd -1 without options.run_delay */
  char rbuf[65536];
};

/* Inside the child, its three files, each calling only the ones before
 * it: child.c (commands, writes, faults, the close path), child_frames.c
 * (fd 4 read: what the worker says), child_spawn.c (the process and its
 * pipes).  Everything here runs on the loop's thread;
 * a host's callback is only ever called from the loop (ips__child_complete
 * and the close callback), never from inside an API call. */

/* How long a worker that exited may still deliver frames already in the
 * pipe, and how long a closed worker gets to obey 'q'. */
#define EXIT_GRACE_MS 200
#define QUIT_GRACE_MS 2000

/* A libuv handle's way back to the struct that embeds it. */
#define container_of(ptr, type, member)                                      \
  ((type *)((char *)(ptr) - offsetof(type, member)))

/* child.c */
int ips__child_set_msg(ips_child_t *w, const char *p, size_t n);
int ips__child_push_stamp(ips_child_t *w, char kind, int64_t len,
                          ips_stamp_t *out);
ips__cmd_t *ips__child_dequeue(ips_child_t *w);
void ips__child_complete(ips_child_t *w, ips__cmd_t *c, ips_result_t *res);
/* The one way into DEAD: kill what runs, fail what waits. */
void ips__child_fault(ips_child_t *w, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ips__child_write_bufs(ips_child_t *w, uv_buf_t *bufs, unsigned nb);
void ips__child_start_next(ips_child_t *w);
void ips__child_exit_fault(ips_child_t *w);
void ips__child_stop_reading(ips_child_t *w);
void ips__child_on_grace(uv_timer_t *t);
void ips__child_on_exit_cb(uv_process_t *p, int64_t status, int sig);
void ips__child_free_worker(ips_child_t *w);
void ips__child_close_handle(ips_child_t *w, uv_handle_t *h);
void ips__child_maybe_finish_close(ips_child_t *w);
/* child_frames.c: fd 4's read callbacks (the frames the worker sends). */
void ips__child_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
void ips__child_on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);
/* child_spawn.c: the console pipes' read callbacks. */
void ips__child_console_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
void ips__child_console_read(uv_stream_t *s, ssize_t nread,
                             const uv_buf_t *buf);

#endif
