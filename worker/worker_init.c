/* worker_init.c — the worker's start-up and its undo: the options
 * checked, the fds claimed, and everything the worker needs allocated
 * here once (the stamp table, the marks, the buffers, the ring), so that
 * the command loop (worker.c) never allocates. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-ring.h"
#include "ipcstamp-worker.h"
#include "worker-int.h"

/* The vat in a SwingSet worker's name: its kernel starts each worker with
 * "vatID:vatName" as the first argument (xsnap's name, shown by ps), the
 * only place the protocol says which vat a worker serves before its first
 * delivery.  "v12:bank" gives "v12" in buf; anything else NULL. */
static const char *vat_of_name(const char *name, char *buf, size_t size) {
  size_t n = 1;
  if (!name || name[0] != 'v' || name[1] < '0' || name[1] > '9')
    return NULL;
  while (name[n] >= '0' && name[n] <= '9')
    n++;
  if ((name[n] != ':' && name[n] != '\0') || n >= size)
    return NULL;
  memcpy(buf, name, n);
  buf[n] = '\0';
  return buf;
}

void ips_worker_close(ips_worker_t *w) {
  if (!w->ready) return;
  w->ready = 0;
  ips_ns_decoder_free(&w->dec);
  if (ips__stamping(w)) {
    ips_stamps_free(&w->stamps);
    ips_marks_free(&w->marks);
  }
  ips_ring_close(w->ring);
  w->ring = NULL;
  ips_runq_close(&w->runq);
  free(w->rbuf);
  free(w->meter);
  w->rbuf = NULL;
  w->meter = NULL;
}

/* Check that fd is open and mark it close-on-exec. */
static int claim_fd(ips_worker_t *w, int fd) {
  int fl;
  if (fd < 0 || (fl = fcntl(fd, F_GETFD)) < 0 ||
      fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0) {
    snprintf(w->msg, sizeof w->msg,
             "fd %d is not open: a worker is started with fd 3 = parent to "
             "worker and fd 4 = worker to parent",
             fd);
    return -EBADF;
  }
  return 0;
}

/* The options into w (defaults for the zero ones) and checked: the
 * command tags the VM keeps ('R' and 'q' are the library's) and the stamp
 * capacity, returned in *cap. */
static int init_options(ips_worker_t *w, const ips_worker_options_t *o,
                        uint32_t *cap) {
  w->runq.fd = -1;
  w->fd_in = o->fd_in;
  w->fd_out = o->fd_out;
  w->flags = o->flags;
  w->name = o->name;
  w->tags = o->tags ? o->tags : "?e";
  w->max_fields =
      o->max_meter_fields ? o->max_meter_fields : IPS__WORKER_DEFAULT_FIELDS;
  w->rsize = o->read_size ? o->read_size : IPS__WORKER_DEFAULT_READ;
  *cap = o->stamp_capacity ? o->stamp_capacity : IPS_DEFAULT_STAMP_CAPACITY;
  if (strchr(w->tags, 'R') || strchr(w->tags, 'q')) {
    snprintf(w->msg, sizeof w->msg,
             "'R' and 'q' are answered by the library, they cannot be "
             "command tags for the VM");
    return IPS_EINVAL;
  }
  if (*cap < 2 || *cap > IPS__WORKER_MAX_STAMPS) {
    snprintf(w->msg, sizeof w->msg, "stamp capacity %u: expected 2 to %u",
             *cap, IPS__WORKER_MAX_STAMPS);
    return IPS_EINVAL;
  }
  return 0;
}

/* What stamping needs, all made now so that the steady state allocates
 * nothing: the stamp table, the marks, and the run-queue reader when
 * asked for.  A failure frees what this made and says why in w->msg. */
static int init_stamping(ips_worker_t *w, const ips_worker_options_t *o,
                         uint32_t cap) {
  uint32_t nm = o->max_marks ? o->max_marks : IPS_DEFAULT_MAX_MARKS;
  size_t nb = o->max_mark_bytes ? o->max_mark_bytes
                                : IPS_DEFAULT_MAX_MARK_BYTES;
  int rc = ips_stamps_init(&w->stamps, cap);
  if (rc != 0) {
    snprintf(w->msg, sizeof w->msg, "cannot allocate %u stamps: %s", cap,
             ips_strerror(rc));
    return rc;
  }
  rc = ips_marks_init(&w->marks, nm, nb);
  if (rc != 0) {
    ips_stamps_free(&w->stamps);
    snprintf(w->msg, sizeof w->msg,
             rc == IPS_EINVAL ? "mark bounds %u events, %zu bytes: expected "
                                "1 to 65536 events and 1 to 1048576 bytes"
                              : "cannot allocate %u marks of %zu bytes",
             nm, nb);
    return rc;
  }
  if ((w->flags & IPS_WORKER_RUN_DELAY) && ips_runq_open(&w->runq) != 0) {
    int e = errno;
    ips_stamps_free(&w->stamps);
    ips_marks_free(&w->marks);
    snprintf(w->msg, sizeof w->msg,
             "IPCSTAMP_RUN_DELAY: cannot read /proc/thread-self/schedstat: "
             "%s (a kernel without CONFIG_SCHED_INFO, or no /proc)",
             strerror(e));
    return IPS_ERUNQ;
  }
  return 0;
}

/* The live ring, in the header the worker's name and vat; a failure's
 * message in m. */
static int init_ring(ips_worker_t *w, const ips_worker_options_t *o,
                     char *m, size_t msize) {
  ips_ring_options_t ro;
  char vat[16];
  ips_ring_options_init(&ro);
  ro.dir = o->ring_dir;
  ro.size = o->ring_size;
  ro.role = IPS_RING_ROLE_WORKER;
  ro.program = ips__worker_name(w);
  /* In the header from the start, so every event carries it. */
  ro.vat = o->ring_vat ? o->ring_vat : vat_of_name(o->name, vat, sizeof vat);
  return ips_ring_open(&w->ring, &ro, m, msize);
}

int ips__probe_pid;
char ips__probe_vat[16];

/* The probes' pid and vat (worker-int.h), as the ring names the vat. */
static void init_probes(const ips_worker_options_t *o) {
  char vat[16];
  const char *v = o->ring_vat ? o->ring_vat : vat_of_name(o->name, vat, sizeof vat);
  ips__probe_pid = (int)getpid();
  snprintf(ips__probe_vat, sizeof ips__probe_vat, "%s", v ? v : "");
}

/* In stages: the options (init_options), the descriptors claimed, the
 * decoder, what stamping needs (init_stamping), the buffers, the ring
 * (init_ring), SIGPIPE.  Before the buffers a failure has freed what it
 * made; from them on it goes through ips_worker_close. */
int ips_worker_init(ips_worker_t *w, const ips_worker_options_t *o) {
  ips_worker_options_t d;
  uint32_t cap;
  int rc;

  if (!o) {
    ips_worker_options_init(&d);
    o = &d;
  }
  memset(w, 0, sizeof *w);
  if ((rc = init_options(w, o, &cap)) != 0)
    return rc;
  /* A VM that does its own I/O keeps its fds as they are. */
  if (!(w->flags & IPS_WORKER_HOST_IO) &&
      ((rc = claim_fd(w, w->fd_in)) != 0 || (rc = claim_fd(w, w->fd_out)) != 0))
    return rc;

  ips_ns_decoder_init(&w->dec, o->max_frame);
  init_probes(o);
  if (ips__stamping(w) && (rc = init_stamping(w, o, cap)) != 0)
    return rc;
  w->meter_cap =
      ips_metering_max_size_marks(ips__stamping(w) ? cap : 0, w->max_fields,
                                  w->marks.cap, w->marks.name_cap) + 1;
  w->rbuf = (w->flags & IPS_WORKER_HOST_IO) ? NULL : malloc(w->rsize);
  w->meter = malloc(w->meter_cap);
  w->ready = 1;
  if ((!w->rbuf && !(w->flags & IPS_WORKER_HOST_IO)) || !w->meter) {
    ips_worker_close(w);
    snprintf(w->msg, sizeof w->msg, "cannot allocate the worker's buffers");
    return IPS_ENOMEM;
  }
  if (ips__stamping(w) && o->ring_dir && *o->ring_dir) {
    /* Asked for explicitly, so a ring that cannot be made stops the
     * worker at start-up rather than leaving the watcher blind. */
    char m[256];
    if ((rc = init_ring(w, o, m, sizeof m)) != 0) {
      ips_worker_close(w);
      w->ready = 0;
      snprintf(w->msg, sizeof w->msg, "%s", m);
      return rc;
    }
  }

  if (!(w->flags & (IPS_WORKER_KEEP_SIGPIPE | IPS_WORKER_HOST_IO))) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
  }
  return 0;
}
