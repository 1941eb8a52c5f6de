/* os.h — inside the analysis: a recording of `ipcstamp record` as read
 * (os_read.c) and as the join uses it (os_split.c).  Internal to
 * libipcstamp-analyze. */
#ifndef IPCSTAMP_ANALYZE_OS_INTERNAL_H
#define IPCSTAMP_ANALYZE_OS_INTERNAL_H

#include <stdio.h>

#include "ipcstamp-analyze-os.h"
#include "os-format.h"

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
  int64_t at;               /* where in the file: line (version 1) or
                               byte offset (version 2), to name it bad */
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
  unsigned char used;       /* taken by a delivery's split: the one of */
  long owner_line;          /* ... this deliver line and this D stamp (a */
  int64_t owner_d;          /* ... delivery split again finds its own) */
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
  uint64_t maj_flt;         /* the thread's major faults when it left */
  int has_maj;              /* ... the file says it */
  uint32_t faults;          /* major faults this wait slept in: the next
                               wait's maj_flt less its own (ips__os_index) */
  /* Since version 3 (has_run): the scheduler's run time of the thread
   * (se.sum_exec_runtime) when it left, and the steal clocks of the CPU
   * it left (at off) and came back onto (at on). */
  uint64_t runtime, steal_off, steal_on;
  int has_run;
  uint32_t waker;           /* the thread that woke it; 0 unknown */
  uint32_t took;            /* preempted: the thread that took its CPU */
  uint32_t left;            /* the thread that left the CPU it came onto */
  int64_t at;               /* where in the file, as a side's */
} ips__os_wait_t;

/* A thread a wait names (version 3's task records). */
typedef struct {
  uint32_t tid, pid;
  char comm[OS_COMM + 1];
} ips__os_task_t;

/* A system call's name, as a version 2 file's header gives it. */
typedef struct {
  int32_t nr;
  char name[21];
} ips__os_name_t;

/* A process launched (its exec): what `report --os` lists of the workers
 * (ips_os_launches), and how it ended. */
typedef struct {
  int64_t ns;               /* exec'd */
  uint32_t pid, ppid;
  uint32_t len;             /* args: len bytes, each argument NUL-ended */
  char args[257];
} ips__os_launch_t;

/* A process ended (its exit record): its wait status. */
typedef struct {
  int64_t ns;
  uint32_t pid;
  int status;
} ips__os_exit_t;

/* The most launches (and exits) kept from one file (a chain node starts some tens of
 * workers a day); beyond, counted (info.launches_over), not kept. */
#define IPS__OS_MAX_LAUNCHES ((size_t)1 << 16)

struct ips_os_s {
  ips__os_frame_t *frames;  /* by w_enter */
  size_t nframes, capframes;
  ips__os_side_t *sides;    /* while reading, then paired and freed */
  size_t nsides, capsides;
  ips__os_wait_t *waits;    /* by (tid, on) */
  size_t nwaits, capwaits;
  ips__os_proc_t *procs;    /* by (vat, ns) */
  size_t nprocs, capprocs;
  ips__os_task_t *tasks;    /* by tid (the last name of each) */
  size_t ntasks, captasks;
  int64_t start, end;       /* what the recording covers */
  int64_t wall_minus_mono;  /* CLOCK_REALTIME - CLOCK_MONOTONIC when it
                               began (ns); 0 when the file does not say */
  ips__os_launch_t *launches; /* in the order read */
  size_t nlaunches, caplaunches;
  ips__os_exit_t *exits;    /* in the order read */
  size_t nexits, capexits;
  ips__os_name_t *names;    /* version 2: the header's system calls */
  size_t nnames;
  ips_os_info_t info;
  int64_t at;               /* while reading: the record's line (version
                               1) or byte offset (version 2) */
  int bin;                  /* version 2: at is a byte offset */
};

/* os_store.c: adds one frame side or wait as read, after checking that its
 * times are in order.  0, 1 (not valid: the caller counts it as bad), or
 * -ENOMEM / -E2BIG past IPS_OS_MAX_RECORDS. */
int ips__os_add_side(ips_os_t *os, const ips__os_side_t *s);
/* An exec at ns of pid (made by ppid) with args (len bytes, each argument
 * NUL-terminated, at most 256): kept as a launch (ips_os_launches), and
 * its process as a vat's worker when its first argument names one,
 * "VATID:NAME" (SwingSet's xsnap workers).  An exit at ns of pid with wait status code: kept
 * (the end of its launch before it).  0, or -ENOMEM / -E2BIG; past
 * IPS__OS_MAX_LAUNCHES each, counted in info.launches_over. */
int ips__os_add_exec(ips_os_t *os, int64_t ns, uint32_t pid, uint32_t ppid,
                     const char *args, size_t len);
int ips__os_add_exit(ips_os_t *os, int64_t ns, uint32_t pid, int code);
int ips__os_add_wait(ips_os_t *os, const ips__os_wait_t *w);
/* The first argument after the program in args (len bytes, each argument
 * NUL-terminated, the last perhaps cut): its start, and in *n its bytes
 * up to its NUL or the end; NULL when there is none.  The one reading of
 * an exec's arguments (a vat's worker; a launch's vat). */
const char *ips__os_arg1(const char *args, size_t len, size_t *n);
/* Thread tid (of process pid) is called comm (kept printable: each
 * byte as ips__os_printable): 0, or -ENOMEM / -E2BIG. */
int ips__os_add_task(ips_os_t *os, uint32_t tid, uint32_t pid,
                     const char *comm);

/* A name or arguments from the recording, shown as they are: each byte of
 * s[0..n) that is not printable ASCII becomes '?', its NULs kept (they end
 * a name, or separate arguments).  The one rule of every reader. */
void ips__os_printable(char *s, size_t n);

/* os_store.c, for ips__os_index: the records that contradict one before
 * them dropped, each counted as bad (and as contradicting) at its place
 * in the file, so that no part is ever subtracted twice:
 * - sides sorted by (pipe, side, last_ret, enter): a side that began
 *   before the call with the previous frame's last byte of the same
 *   stream (a stream's frames follow each other: the next one begins in
 *   that call at the earliest);
 * - waits sorted by (tid, on): a wait that began before the thread's
 *   previous wait ended (a thread is off its CPU once at a time). */
void ips__os_drop_sides(ips_os_t *os);
void ips__os_drop_waits(ips_os_t *os);

/* os_bin.c: reads a version 3 or 2 file from f, whose first
 * IPS__OS_BIN_HEAD bytes (h) were read and begin with its magic
 * (OS_FILE_MAGIC).  0, or a negative code with err (path and byte
 * offset). */
#define IPS__OS_BIN_HEAD sizeof(struct os_file_header)
int ips__os_read_bin(ips_os_t *os, FILE *f, const unsigned char *h,
                     const char *path, char *err, size_t errlen);

/* os_split.c: pairs the sides into frames and sorts frames and waits
 * (after reading).  Returns 0 or -ENOMEM. */
int ips__os_index(ips_os_t *os);

/* ns added to system call sc's entry of by (a disk_by or sleep_by
 * table): the first IPS_OS_BY - 1 names keep their slots, the last slot
 * takes the next name and becomes "other" when another comes; held at
 * the bound.  One rule for a delivery's split and for every sum of them. */
void ips__os_by_add(ips_os_by_t *by, const char *sc, int64_t ns);

/* os_split.c, for os_between.c: thread tid's time over [a, b] (the
 * recording's clock) added into t, split by its waits; and the offset
 * from d's parent clock to the recording's, known to within *slack. */
void ips__os_thread_split(const ips_os_t *os, uint32_t tid, int64_t a,
                          int64_t b, ips_os_time_t *t);
int64_t ips__os_clock_offset(const ips_os_t *os, const ips_delivery_t *d,
                             int64_t *slack);

#endif
