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
  ips__mstore_t mstore; /* the matched metering's arrays, kept for the
                           next result: no allocation per result */
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
  uint64_t ring_delivery;   /* commands sent, for the ring's events */
  char ring_vat[16];
  ips_runq_t runq;          /* the loop thread's schedstat (fd owned), or
                               fd -1 without options.run_delay */
  char rbuf[65536];
};

#endif
