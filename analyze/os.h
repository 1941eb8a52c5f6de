/* os.h — inside the analysis: a recording of `ipcstamp record` as read
 * (os_read.c) and as the join uses it (os_split.c).  Internal to
 * libipcstamp-analyze. */
#ifndef IPCSTAMP_ANALYZE_OS_INTERNAL_H
#define IPCSTAMP_ANALYZE_OS_INTERNAL_H

#include "ipcstamp-analyze-os.h"

/* The tags of the frames a delivery is made of: a delivery (? or e), an
 * upcall (?), a reply (/), a result (. or !).  A recorded frame of no
 * delivery is counted (unmatched_frames) by these, not by a result's: a
 * result also answers the parent's other commands (xsnap's R, a
 * snapshot...), which no slogfile records. */
#define IPS__OS_COUNTED_TAGS "?e/"

/* One side of a frame as the file has it. */
typedef struct {
  uint64_t pipe, len;
  int64_t enter, last_ret, last_enter;
  uint32_t pid, tid;
  unsigned char tag, write;
} ips__os_side_t;

/* A frame, both sides paired: written by wpid/wtid, read by rpid/rtid. */
typedef struct {
  int64_t w_enter, w_ret;   /* the writer's first call entered, its last
                               returned */
  int64_t r_enter, r_ret;   /* the reader's first call entered, the call
                               with the last byte returned */
  int64_t r_last_enter;
  uint64_t len;
  uint32_t wpid, wtid, rpid, rtid;
  unsigned char tag;
  unsigned char used;       /* taken by a delivery's split */
} ips__os_frame_t;

/* A process whose first argument names its vat, "VATID:NAME" (SwingSet
 * starts every xsnap worker so): its pid and when it began. */
typedef struct {
  char vat[24];
  int64_t ns;
  uint32_t pid;
} ips__os_proc_t;

/* One time a thread was off its CPU. */
typedef struct {
  int64_t off, wake, on;    /* wake 0: not woken (preempted) */
  uint32_t tid;
  int why;                  /* 0 cpu, 1 sleep, 2 disk */
  char sc[24];              /* the system call, "" outside any */
} ips__os_wait_t;

struct ips_os_s {
  ips__os_frame_t *frames;  /* by w_enter */
  size_t nframes, capframes;
  ips__os_side_t *sides;    /* while reading, then paired and freed */
  size_t nsides, capsides;
  ips__os_wait_t *waits;    /* by (tid, on) */
  size_t nwaits, capwaits;
  ips__os_proc_t *procs;    /* by (vat, ns) */
  size_t nprocs, capprocs;
  int64_t start, end;       /* what the recording covers */
  int64_t wall_minus_mono;  /* CLOCK_REALTIME - CLOCK_MONOTONIC when it
                               began (ns); 0 when the file does not say */
  ips_os_info_t info;
};

/* os_split.c: pairs the sides into frames and sorts frames and waits
 * (after reading).  Returns 0 or -ENOMEM. */
int ips__os_index(ips_os_t *os);

#endif
