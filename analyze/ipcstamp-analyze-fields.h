/* ipcstamp-analyze-fields.h — the fields of an attributed delivery, listed
 * once: every output that writes a delivery takes its fields from this
 * list, so that a field added here appears in each format it is meant for,
 * under one name, with one unit and one condition.  Included by
 * ipcstamp-analyze.h, whose types it uses; include that one.
 *
 * IPS_DELIVERY_FIELDS(X) calls
 *
 *     X(name, type, unit, in, when, value, text, otel, meaning)
 *
 * once per field, in the order of `report --format json`'s keys:
 *
 * - name: the key in JSON and the column in CSV (an identifier: #name is
 *   its text).
 * - type: INT (a count or ns), BOOL, STR, or one of the three lists
 *   SEGMENTS (the segments, [kind, ns] each), SEGWAIT (each segment's wait
 *   for a CPU, or null) and MARKS (the VM's marks and spans; a CSV cell
 *   holds their count).  A format names its writers by type (JSON_INT,
 *   JSON_BOOL, ...), so a new type fails to compile until each has one.
 * - unit: "ns", "count", "line", or "" (a name, a flag).
 * - in: where the field appears, IPS_IN_* below ORed.
 * - when: an expression of d (a const ips_delivery_t *) true when the
 *   delivery has the field; a format leaves the field out otherwise (CSV:
 *   an empty cell; a BOOL's cell is then 0).  "1": always there.
 * - value: an expression of d, the field's value when it is there (lists:
 *   their length).
 * - text: the words the text report prints it with (tested: a BOOL's
 *   words are there when it is true, a list's when it is not empty), ""
 *   for a STR printed as itself, or NULL when the text leaves it out.
 * - otel: the attribute of the delivery's span `ipcstamp otel` sends it
 *   as (tested: with the JSON's value, where it is true or not 0), or NULL.
 * - meaning: one line, as docs/report.md's table of fields says it.
 *
 * The tests hold docs/report.md's table, docs/report.schema.json, the CSV
 * header, the text, the trace's args and the OTel attributes to this list
 * (tests/tools/fields.test), so that none of them drifts from it.
 *
 * A format written from the list expands it once into straight-line code
 * (the conditions on `in` are constants), as fast as the code it replaced:
 *
 *     #define JSON_FIELD(name, type, unit, in, when, value, text, otel, m)    \
 *       if (((in) & IPS_IN_JSON) && (when))                                   \
 *         JSON_##type(g, #name, d, value);
 *     IPS_DELIVERY_FIELDS(JSON_FIELD)
 */
#ifndef IPCSTAMP_ANALYZE_FIELDS_H
#define IPCSTAMP_ANALYZE_FIELDS_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

/* Where a field appears. */
#define IPS_IN_JSON 1u  /* report --format json's delivery lines */
#define IPS_IN_CSV 2u   /* report --format csv's rows */
#define IPS_IN_TRACE 4u /* the args of trace's "delivery" instant */
#define IPS_IN_OLD 8u   /* a former name, kept one release (NEWS) */
#define IPS_IN_OS 16u   /* only with --os FILE (IPS_OS_FIELDS) */
#define IPS_IN_ALL (IPS_IN_JSON | IPS_IN_CSV)

/* The clock's name as the outputs write it. */
#define IPS_CLOCK_NAME(c) ((c) == 'm' ? "mono" : "wall")

#define IPS_DELIVERY_FIELDS(X)                                                 \
  X(crank, INT, "count", IPS_IN_ALL | IPS_IN_TRACE, !(d)->replay,              \
    (d)->crank, "crank", "agoric.crankNum",                                    \
    "SwingSet's crankNum (a replayed delivery has none)")                      \
  X(replay, BOOL, "", IPS_IN_ALL, (d)->replay, 1, "replay", "agoric.replay",   \
    "replayed from the vat's transcript after a restart")                      \
  X(vat, STR, "", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->vat, "",                  \
    "agoric.vatID", "the vat's id (v1, ...)")                                  \
  X(deliveryNum, INT, "count", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->dnum, "#",   \
    "agoric.deliveryNum", "the vat's delivery number")                         \
  X(description, STR, "", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->desc, "",         \
    "ipcstamp.description",                                                    \
    "what was delivered: a message's method and its target, notify, ...")      \
  X(method, STR, "", IPS_IN_TRACE, 1, (d)->method, NULL, NULL,                 \
    "a message's method, notify, or the delivery type (--by method's key)")    \
  X(ok, BOOL, "", IPS_IN_ALL, 1, (d)->ok, NULL, NULL,                          \
    "the result was ok (not an error)")                                        \
  X(line, INT, "line", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->line, NULL,          \
    "ipcstamp.line", "the line of the deliver record (1-based)")               \
  X(clock, STR, "", IPS_IN_ALL | IPS_IN_TRACE, 1, IPS_CLOCK_NAME((d)->clock),  \
    "", "ipcstamp.clock",                                                      \
    "mono: both sides' CLOCK_MONOTONIC; wall: an offset estimate")             \
  X(upcalls, INT, "count", IPS_IN_CSV, 1, (long long)(d)->n_up, NULL,          \
    "ipcstamp.upcalls", "syscalls and console lines (JSON: in segments)")      \
  X(segments, SEGMENTS, "ns", IPS_IN_JSON, 1,                                  \
    (long long)ips_delivery_nsegments(d), "send", NULL,                        \
    "the segments in time order, [kind, ns] each")                             \
  X(segments_wait_ns, SEGWAIT, "ns", IPS_IN_JSON, (d)->has_wait,               \
    (long long)ips_delivery_nsegments(d), "waiting for a CPU", NULL,           \
    "each segment's wait for a CPU, null where not measured")                  \
  X(pipe_ns, INT, "ns", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->pipe, "pipe",       \
    "ipcstamp.pipe_ns", "transit and scheduling between the two sides")        \
  X(worker_ns, INT, "ns", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->worker,           \
    "worker", "ipcstamp.worker_ns", "the worker running between upcalls")      \
  X(kernel_ns, INT, "ns", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->kernel,           \
    "kernel", "ipcstamp.kernel_ns", "the kernel handling the syscalls")        \
  X(total_ns, INT, "ns", IPS_IN_ALL | IPS_IN_TRACE, 1, (d)->total, "total",    \
    NULL, "E - D = pipe + worker + kernel + unmatched, exactly")               \
  X(pipe_transit_ns, INT, "ns", IPS_IN_ALL, (d)->has_wait, (d)->pipe_transit,  \
    "transit", "ipcstamp.pipe_transit_ns",                                     \
    "of pipe: in transit (the rest of the split segments)")                    \
  X(pipe_wait_ns, INT, "ns", IPS_IN_ALL, (d)->has_wait, (d)->pipe_wait,        \
    "waiting for a CPU", "ipcstamp.pipe_wait_ns",                              \
    "of pipe: a receiver waiting for a CPU (its run-queue delay)")             \
  X(pipe_wait_worker_ns, INT, "ns", IPS_IN_ALL, (d)->has_wait,                 \
    (d)->wait_worker, "(worker", "ipcstamp.pipe_wait_worker_ns",               \
    "of pipe_wait_ns: the worker's waits")                                     \
  X(pipe_unsplit_ns, INT, "ns", IPS_IN_ALL, (d)->has_wait, (d)->pipe_unsplit,  \
    "not measured", "ipcstamp.pipe_unsplit_ns",                                \
    "of pipe: segments whose receiver measured no wait")                       \
  X(runnable_ns, INT, "ns", IPS_IN_ALL, (d)->has_runnable, (d)->runnable_ns,   \
    "runnable", "ipcstamp.runnable_ns",                                        \
    "the worker runnable but not on a CPU")                                    \
  X(blocked_ns, INT, "ns", IPS_IN_ALL, (d)->has_runnable && (d)->has_cpu,      \
    (d)->blocked_ns, "blocked", "ipcstamp.blocked_ns",                         \
    "the worker off a CPU and not runnable (offcpu - runnable)")               \
  X(unmatched_ns, INT, "ns", IPS_IN_ALL | IPS_IN_TRACE, (d)->n_unmatched,      \
    (d)->unmatched, "unmatched", "ipcstamp.unmatched_ns",                      \
    "waits on upcalls the kernel has no record of, not split")                 \
  X(unmatched_upcalls, INT, "count", IPS_IN_ALL, (d)->n_unmatched,             \
    (long long)(d)->n_unmatched, NULL, "ipcstamp.unmatched_upcalls",           \
    "the upcalls whose time is in unmatched_ns")                               \
  X(truncated, BOOL, "", IPS_IN_ALL, (d)->truncated, 1, NULL,                  \
    "ipcstamp.truncated", "past xsnap's 502 stamps")                           \
  X(cpu_ns, INT, "ns", IPS_IN_ALL, (d)->has_cpu, (d)->cpu_ns, "on-cpu",        \
    "ipcstamp.cpu_ns", "the worker's CPU time over the delivery")              \
  X(offcpu_ns, INT, "ns", IPS_IN_ALL, (d)->has_cpu, (d)->offcpu_ns,            \
    "off-cpu", "ipcstamp.offcpu_ns", "worker time not on a CPU")               \
  X(kernel_before_ns, INT, "ns", IPS_IN_ALL, (d)->has_gap, (d)->gap_ns,        \
    "kernel before", "ipcstamp.kernel_before_ns",                              \
    "the kernel's own time since the previous delivery ended")                 \
  X(snapshot_save_ns, INT, "ns", IPS_IN_ALL,                                   \
    (d)->snap_save_ns || (d)->snap_load_ns, (d)->snap_save_ns,                 \
    "snapshot save", "ipcstamp.snapshot_save_ns",                              \
    "of the time before it: heap snapshots saved")                             \
  X(snapshot_load_ns, INT, "ns", IPS_IN_ALL,                                   \
    (d)->snap_save_ns || (d)->snap_load_ns, (d)->snap_load_ns, "load",         \
    "ipcstamp.snapshot_load_ns",                                               \
    "of the time before it: heap snapshots loaded")                            \
  X(offset_ns, INT, "ns", IPS_IN_ALL, (d)->clock == 'w' || (d)->mono_offset,   \
    (d)->offset_ns, "offset", "ipcstamp.offset_ns",                            \
    "the worker's clock minus the parent's, as estimated")                     \
  X(offset_bound_ns, INT, "ns", IPS_IN_ALL,                                    \
    (d)->clock == 'w' || (d)->mono_offset, (d)->bound_ns, "+-",                \
    "ipcstamp.offset_bound_ns", "the offset's error bound")                    \
  X(offset_mismatch, BOOL, "", IPS_IN_ALL, (d)->offset_mismatch, 1,            \
    "OFFSET MISMATCH", "ipcstamp.offset_mismatch",                             \
    "a transit below -offset_bound_ns: the offset does not fit")               \
  X(ring_lapped, BOOL, "", IPS_IN_ALL, (d)->ring == IPS_RING_LAPPED, 1,        \
    "RING LAPPED", NULL,                                                       \
    "its worker's ring was overwritten before its stamps were read")           \
  X(ring_missing, BOOL, "", IPS_IN_ALL, (d)->ring == IPS_RING_MISSING, 1,      \
    "NO RING", NULL, "--worker-rings: no ring of its worker has it")           \
  X(timequake_ns, INT, "ns", IPS_IN_ALL, (d)->quake, (d)->quake_ns,            \
    "TIMEQUAKE", "ipcstamp.timequake_ns",                                      \
    "wall and mono differ by this much over the delivery")                     \
  X(marks, MARKS, "count", IPS_IN_ALL,                                         \
    (d)->n_marks || (d)->marks_dropped || (d)->marks_unbalanced,               \
    (long long)(d)->n_marks, " at +", NULL,                                    \
    "the VM's marks and spans (CSV: how many)")                                \
  X(marks_dropped, INT, "count", IPS_IN_ALL,                                   \
    (d)->n_marks || (d)->marks_dropped || (d)->marks_unbalanced,               \
    (d)->marks_dropped, "marks dropped", "ipcstamp.marks_dropped",             \
    "marks the worker could not keep")                                         \
  X(marks_unbalanced, INT, "count", IPS_IN_ALL,                                \
    (d)->n_marks || (d)->marks_dropped || (d)->marks_unbalanced,               \
    (d)->marks_unbalanced, "unbalanced", "ipcstamp.marks_unbalanced",          \
    "span ends without their start, or starts without their end")              \
  X(gap_ns, INT, "ns", IPS_IN_CSV | IPS_IN_OLD, (d)->has_gap, (d)->gap_ns,     \
    NULL, NULL, "kernel_before_ns's former CSV name (kept one release)")       \
  X(timequake, BOOL, "", IPS_IN_CSV | IPS_IN_OLD, 1, (d)->quake, NULL, NULL,   \
    "1 with a timequake_ns, else 0 (former CSV column, kept one release)")

/* The operating system's split of a delivery (docs/os.md), the fields a
 * delivery has when a recording was joined with the analysis
 * (ips_analysis_os: d->os set): a companion of IPS_DELIVERY_FIELDS with
 * the same X(...) and the same meaning of each argument, that every format
 * expands right after it, the same way.  A list apart because its fields
 * come from a second source, all together or not at all (the formats'
 * headers and schemas say them only with --os), and because the formats
 * that name their fields themselves (trace's args, OTel's attributes)
 * expand it whole.  Every field is IPS_IN_OS.  type BY: a thread's time
 * per system call, {"fsync": ns, ...} (CSV: "fsync=ns read=ns").  Every
 * delivery has all of them but os_before_*, which a delivery has when it
 * has kernel_before_ns (a delivery before it). */
#define IPS_OS_IN (IPS_IN_ALL | IPS_IN_TRACE | IPS_IN_OS)
#define IPS_OS_TIME_FIELDS(X, who, W, WHEN)                                   \
  X(os_##who##_on_cpu_ns, INT, "ns", IPS_OS_IN, WHEN,                      \
    (d)->os->who.on_cpu, "on CPU", "ipcstamp.os." #who ".on_cpu_ns",          \
    "of " W ": on a CPU, charged by the scheduler (its CPU clock)")           \
  X(os_##who##_steal_ns, INT, "ns", IPS_OS_IN, WHEN, (d)->os->who.steal,   \
    "stolen", "ipcstamp.os." #who ".steal_ns",                                 \
    "of " W ": on a CPU, stolen by the hypervisor")                            \
  X(os_##who##_uncharged_ns, INT, "ns", IPS_OS_IN, WHEN,                   \
    (d)->os->who.uncharged, "uncharged", "ipcstamp.os." #who ".uncharged_ns", \
    "of " W ": on a CPU, neither charged nor stolen (negative: charged beyond its runs)") \
  X(os_##who##_cpu_wait_ns, INT, "ns", IPS_OS_IN, WHEN,                    \
    (d)->os->who.cpu_wait, "waiting for CPU",                                  \
    "ipcstamp.os." #who ".cpu_wait_ns", "of " W ": runnable, waiting for a CPU") \
  X(os_##who##_cpu_wait_by, BY, "ns", IPS_IN_ALL | IPS_IN_OS, WHEN,        \
    (d)->os->who.cpu_wait_by, "(waiting for CPU: ", NULL,                      \
    "os_" #who "_cpu_wait_ns by the thread that held the CPU (comm:pid)")     \
  X(os_##who##_disk_ns, INT, "ns", IPS_OS_IN, WHEN, (d)->os->who.disk,     \
    "disk", "ipcstamp.os." #who ".disk_ns",                                    \
    "of " W ": asleep uninterruptibly in a system call (disk)")                \
  X(os_##who##_disk_by, BY, "ns", IPS_IN_ALL | IPS_IN_OS, WHEN,            \
    (d)->os->who.disk_by, "(disk: ", NULL,                                     \
    "os_" #who "_disk_ns by system call")                                      \
  X(os_##who##_page_fault_ns, INT, "ns", IPS_OS_IN, WHEN,                  \
    (d)->os->who.fault, "page faults", "ipcstamp.os." #who ".page_fault_ns",   \
    "of " W ": asleep uninterruptibly outside a system call (paging)")         \
  X(os_##who##_major_faults, INT, "count", IPS_OS_IN, WHEN,                  \
    (d)->os->who.major_faults, "major fault",                                  \
    "ipcstamp.os." #who ".major_faults",                                       \
    "of " W ": major page faults slept in (recordings that count them)")       \
  X(os_##who##_sleep_ns, INT, "ns", IPS_OS_IN, WHEN, (d)->os->who.sleep,   \
    "sleeping", "ipcstamp.os." #who ".sleep_ns",                               \
    "of " W ": other sleeps (futex, epoll_wait, a pipe...)")                   \
  X(os_##who##_sleep_by, BY, "ns", IPS_IN_ALL | IPS_IN_OS, WHEN,           \
    (d)->os->who.sleep_by, NULL, NULL, "os_" #who "_sleep_ns by system call")  \
  X(os_##who##_not_measured_ns, INT, "ns", IPS_OS_IN, WHEN,                \
    (d)->os->who.not_measured, "not measured",                                 \
    "ipcstamp.os." #who ".not_measured_ns",                                    \
    "of " W ": not in the recording, or its thread unknown")

#define IPS_OS_FIELDS(X)                                                       \
  X(os_frames, INT, "count", IPS_OS_IN, (d)->os, (long long)(d)->os->frames,  \
    "frames seen", "ipcstamp.os.frames",                                       \
    "of the delivery's frames, those found in the recording")                  \
  X(os_frames_expected, INT, "count", IPS_OS_IN, (d)->os,                     \
    (long long)(d)->os->frames_expected, "frames seen",                        \
    "ipcstamp.os.frames_expected", "its frames: 2 + 2 per upcall")             \
  X(os_worker_pid, INT, "", IPS_OS_IN, (d)->os, (d)->os->worker_pid, NULL,    \
    "ipcstamp.os.worker_pid", "the worker's process, as its frames say (0: unknown)") \
  X(os_kernel_pid, INT, "", IPS_OS_IN, (d)->os, (d)->os->kernel_pid, NULL,    \
    "ipcstamp.os.kernel_pid", "the parent's process, as its frames say (0: unknown)") \
  X(os_pipe_before_write_ns, INT, "ns", IPS_OS_IN, (d)->os,                   \
    (d)->os->pipe_before_write, "before write",                                \
    "ipcstamp.os.pipe.before_write_ns",                                        \
    "of pipe: the sender after its stamp, before its write call")             \
  X(os_pipe_write_ns, INT, "ns", IPS_OS_IN, (d)->os, (d)->os->pipe_write,     \
    "write", "ipcstamp.os.pipe.write_ns", "of pipe: the write calls")          \
  X(os_pipe_in_pipe_ns, INT, "ns", IPS_OS_IN, (d)->os, (d)->os->pipe_in_pipe, \
    "in pipe", "ipcstamp.os.pipe.in_pipe_ns",                                  \
    "of pipe: written, the reader asleep since before, not yet woken")        \
  X(os_pipe_sleep_ns, INT, "ns", IPS_OS_IN, (d)->os, (d)->os->pipe_sleep,     \
    "reader asleep", "ipcstamp.os.pipe.sleep_ns",                              \
    "of pipe: written, the reader asleep on something else")                  \
  X(os_pipe_page_fault_ns, INT, "ns", IPS_OS_IN, (d)->os,                     \
    (d)->os->pipe_page_fault, "reader's faults",                               \
    "ipcstamp.os.pipe.page_fault_ns",                                          \
    "of pipe: written, the reader asleep uninterruptibly (page faults, disk)") \
  X(os_pipe_cpu_wait_ns, INT, "ns", IPS_OS_IN, (d)->os,                       \
    (d)->os->pipe_cpu_wait, "waiting for CPU",                                 \
    "ipcstamp.os.pipe.cpu_wait_ns", "of pipe: the reader runnable, waiting for a CPU") \
  X(os_pipe_reader_ns, INT, "ns", IPS_OS_IN, (d)->os, (d)->os->pipe_reader,   \
    "reader to its stamp", "ipcstamp.os.pipe.reader_ns",                       \
    "of pipe: the reader on a CPU until its stamp (its read; on Node, the event loop and JavaScript), and while the bytes waited") \
  X(os_pipe_not_measured_ns, INT, "ns", IPS_OS_IN, (d)->os,                   \
    (d)->os->pipe_not_measured, "not measured",                                \
    "ipcstamp.os.pipe.not_measured_ns", "of pipe: segments whose frame was not found") \
  IPS_OS_TIME_FIELDS(X, worker, "worker_ns", (d)->os)                          \
  IPS_OS_TIME_FIELDS(X, kernel, "kernel_ns", (d)->os)                          \
  IPS_OS_TIME_FIELDS(X, before, "the gap before it",                          \
                     (d)->os && (d)->os->has_before)

/* The sums over a set of deliveries (ips_totals_t: a vat's, or the whole
 * input's at the head of the summary), in the order of the JSON summary's
 * and its vats' entries: X(name, unit, value, meaning), value an
 * expression of t, a const ips_totals_t *.  Held to the schema and to
 * docs/report.md's table as the delivery's are. */
#define IPS_TOTALS_FIELDS(X)                                                  \
  X(deliveries, "count", (t)->n, "attributed deliveries")                     \
  X(pipe_ns, "ns", (t)->pipe, "their pipe")                                   \
  X(worker_ns, "ns", (t)->worker, "their worker")                             \
  X(kernel_ns, "ns", (t)->kernel, "their kernel")                             \
  X(total_ns, "ns", (t)->total, "their total")                                \
  X(unmatched_ns, "ns", (t)->unmatched, "their unmatched time")               \
  X(replayed, "count", (t)->n_replay, "those replayed from a transcript")     \
  X(truncated, "count", (t)->n_truncated, "those past xsnap's 502 stamps")    \
  X(errors, "count", (t)->n_error, "error results")                           \
  X(local, "count", (t)->n_local, "ok results without metering (local vats)")

/* The fields of a skipped line or delivery (ips_skip_t), listed once:
 * what `report` and the other commands say of each skip on stderr and
 * the page (--format html) marks it with, in this order:
 *
 *     X(name, type, unit, value, meaning)
 *
 * value an expression of s (a const ips_skip_t *); type INT or STR.  The
 * reasons themselves are IPS_SKIP_MAP's.  tests/tools/fields.test holds
 * docs/report.md's table, stderr and the page to it. */
#define IPS_SKIP_FIELDS(X)                                                    \
  X(line, INT, "line", (long long)(s)->line,                                   \
    "the line of the input (a delivery: its deliver record's)")                \
  X(reason, STR, "", ips_skip_name((s)->reason),                               \
    "the reason's stable name (NOT_JSON, ORPHAN, ...: the summary's keys)")    \
  X(message, STR, "", ips_skip_message((s)->reason),                           \
    "the reason in words")                                                     \
  X(detail, STR, "", (s)->detail,                                              \
    "what exactly was wrong, where known (else empty)")

/* The fields of a block (ips_block_t, ipcstamp-analyze-blocks.h), listed
 * once as the delivery's are: `blocks`' JSON rows and CSV are written
 * from this list, its summary's parts and its page's bars take the
 * fields marked for them, and tests/tools/blocks_fields.test holds the
 * text table, docs/blocks.md's table and docs/blocks.schema.json to it.
 * IPS_BLOCK_FIELDS(X) calls
 *
 *     X(obj, name, csv, type, unit, in, when, value, text, meaning)
 *
 * once per field, in the order of the JSON row's keys:
 *
 * - obj: the JSON object the key is in: row (the row itself), or the
 *   name of a nested object (busiest, longest, snapshots_of), which is
 *   there when one of its fields is.
 * - name: the key in JSON (#name).
 * - csv: the CSV column ("height"), or NULL: not in CSV.
 * - type: INT, BOOL or STR.
 * - unit: "ns", "s", "count", "line", or "".
 * - in: IPS_IN_JSON, IPS_IN_PART (a part of the summary's percentiles,
 *   named as the JSON key less "_ns"), IPS_IN_SPLIT (an addend of
 *   swingset_ns: swingset = the sum of the SPLIT fields, exactly; the
 *   page's bars), ORed.  CSV: where csv is not NULL.
 * - when: an expression of b (a const ips_block_t *) true when the block
 *   has the field: JSON leaves it out otherwise, CSV leaves its cell
 *   empty (a BOOL's cell is then 0).
 * - value: an expression of b, the field's value.
 * - text: the text table's column (its header), "(word" when the row
 *   says it after its columns where it is not 0 ("(unmatched 1.000)"),
 *   a STR printed after the columns as itself (""), or NULL: not in the
 *   text.
 * - meaning: one line, as docs/blocks.md's table says it. */
#define IPS_IN_PART 32u
#define IPS_IN_SPLIT 64u
#define IPS_BLOCK_FIELDS(X)                                                   \
  X(row, height, "height", INT, "count", IPS_IN_JSON, !(b)->bootstrap,         \
    (b)->height, "height", "blockHeight (the bootstrap block has none)")      \
  X(row, bootstrap, "bootstrap", BOOL, "", IPS_IN_JSON, (b)->bootstrap, 1,     \
    NULL, "the chain's bootstrap block (its first run; text: height boot)")   \
  X(row, line, "line", INT, "line", IPS_IN_JSON, 1, (b)->line, NULL,           \
    "the line of its begin-block (1-based)")                                   \
  X(row, clock, "clock", STR, "", IPS_IN_JSON, 1, IPS_CLOCK_NAME((b)->clock),  \
    NULL, "wall: the records' time; mono: their monotime")                     \
  X(row, chain_time, "chain_time", INT, "s", IPS_IN_JSON, 1, (b)->chain_time,  \
    NULL, "blockTime: the chain's time, whole seconds")                        \
  X(row, chain_interval_s, "chain_interval_s", INT, "s", IPS_IN_JSON,          \
    (b)->has_prev, (b)->chain_interval, NULL,                                  \
    "blockTime minus the block before's")                                      \
  X(row, block_ns, "block_ns", INT, "ns", IPS_IN_JSON | IPS_IN_PART,           \
    (b)->has_prev, (b)->block_ns, "block",                                     \
    "end-block-finish minus the block before's")                               \
  X(row, lag_ns, "lag_ns", INT, "ns", IPS_IN_JSON | IPS_IN_PART,               \
    !(b)->bootstrap, (b)->lag_ns, "lag",                                       \
    "begin-block's time minus blockTime (wall clock; text: in s)")            \
  X(row, cosmos_ns, "cosmos_ns", INT, "ns", IPS_IN_JSON, !(b)->bootstrap,      \
    (b)->cosmos_ns, NULL, "begin-block to end-block-start")                    \
  X(row, swingset_ns, "swingset_ns", INT, "ns", IPS_IN_JSON | IPS_IN_PART, 1,  \
    (b)->swingset_ns, "swingset", "end-block-start to end-block-finish")      \
  X(row, deliveries_ns, NULL, INT, "ns", IPS_IN_PART, 1,                       \
    ips_block_deliveries(b), "deliveries",                                     \
    "pipe + worker + kernel + unmatched: its deliveries' time")                \
  X(row, pipe_ns, "pipe_ns", INT, "ns", IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, \
    1, (b)->pipe, "pipe", "its deliveries' pipe")                              \
  X(row, worker_ns, "worker_ns", INT, "ns",                                    \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->worker, "worker",        \
    "its deliveries' worker")                                                  \
  X(row, kernel_ns, "kernel_ns", INT, "ns",                                    \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->kernel, "kernel",        \
    "its deliveries' kernel")                                                  \
  X(row, unmatched_ns, "unmatched_ns", INT, "ns",                              \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->unmatched, "(unmatched", \
    "its deliveries' unmatched time")                                          \
  X(row, snap_save_ns, "snap_save_ns", INT, "ns",                              \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->snap_save, "snap save",  \
    "heap snapshots saved")                                                    \
  X(row, snap_load_ns, "snap_load_ns", INT, "ns",                              \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->snap_load, "snap load",  \
    "heap snapshots loaded")                                                   \
  X(row, kernel_own_ns, "kernel_own_ns", INT, "ns",                            \
    IPS_IN_JSON | IPS_IN_PART | IPS_IN_SPLIT, 1, (b)->kernel_own,              \
    "kernel own", "the rest: the kernel outside deliveries and snapshots")    \
  X(row, saves, "saves", INT, "count", IPS_IN_JSON, 1,                         \
    (long long)(b)->n_save, NULL, "heap snapshot saves")                       \
  X(row, loads, "loads", INT, "count", IPS_IN_JSON, 1,                         \
    (long long)(b)->n_load, NULL, "heap snapshot loads")                       \
  X(row, compress_ns, "compress_ns", INT, "ns", IPS_IN_JSON, 1,                \
    (b)->compress_ns, NULL, "of the saves: compressing (SwingSet's figure)")  \
  X(row, db_save_ns, "db_save_ns", INT, "ns", IPS_IN_JSON, 1, (b)->dbsave_ns,  \
    NULL, "of the saves: the database (SwingSet's figure)")                    \
  X(row, commit_ns, "commit_ns", INT, "ns", IPS_IN_JSON | IPS_IN_PART,         \
    (b)->has_commit, (b)->commit_ns, "commit",                                 \
    "commit-block-start to -finish (after swingset)")                          \
  X(row, deliveries, "deliveries", INT, "count", IPS_IN_JSON, 1,               \
    (long long)(b)->n_deliveries, "dlv", "its attributed deliveries")          \
  X(row, not_attributed, "not_attributed", INT, "count", IPS_IN_JSON, 1,       \
    (long long)(b)->n_skipped, "(not attributed",                              \
    "its deliveries not attributed (their time: in kernel_own_ns)")            \
  X(row, computrons, "computrons", INT, "count", IPS_IN_JSON, 1,               \
    (b)->computrons, "computrons", "its deliveries' compute")                  \
  X(busiest, vat, "busiest_vat", STR, "", IPS_IN_JSON, *(b)->busy_vat,         \
    (b)->busy_vat, "", "the vat whose deliveries took longest")                \
  X(busiest, deliveries, NULL, INT, "count", IPS_IN_JSON, *(b)->busy_vat,      \
    (long long)(b)->busy_n, NULL, "its deliveries in the block")               \
  X(busiest, total_ns, "busiest_ns", INT, "ns", IPS_IN_JSON, *(b)->busy_vat,   \
    (b)->busy_ns, NULL, "their time")                                          \
  X(longest, vat, "longest_vat", STR, "", IPS_IN_JSON, *(b)->dom_vat,          \
    (b)->dom_vat, "", "the longest delivery's vat")                            \
  X(longest, crank, NULL, INT, "count", IPS_IN_JSON,                           \
    *(b)->dom_vat && (b)->dom_crank >= 0, (b)->dom_crank, NULL,                \
    "its crankNum (a replayed delivery has none)")                             \
  X(longest, delivery, "longest_delivery", INT, "count", IPS_IN_JSON,          \
    *(b)->dom_vat, (b)->dom_dnum, "#", "its deliveryNum")                      \
  X(longest, desc, "longest_desc", STR, "", IPS_IN_JSON, *(b)->dom_vat,        \
    (b)->dom_desc, "", "what was delivered")                                   \
  X(longest, total_ns, "longest_ns", INT, "ns", IPS_IN_JSON, *(b)->dom_vat,    \
    (b)->dom_ns, NULL, "its total")                                            \
  X(longest, line, NULL, INT, "line", IPS_IN_JSON, *(b)->dom_vat,              \
    (b)->dom_line, NULL, "its deliver record's line")                          \
  X(snapshots_of, vat, NULL, STR, "", IPS_IN_JSON, *(b)->snap_vat,             \
    (b)->snap_vat, NULL, "the vat whose snapshots took longest")               \
  X(snapshots_of, total_ns, NULL, INT, "ns", IPS_IN_JSON, *(b)->snap_vat,      \
    (b)->snap_vat_ns, NULL, "their time (saves and loads)")

/* The fields of one kind of work of no delivery (ips_os_work_t,
 * ipcstamp-analyze-os.h; docs/os.md, "Work of no delivery"), in the order
 * of report --os's JSON summary (its "other_work" object, one per kind)
 * and of the text's line of each kind: X(name, type, unit, value, text,
 * meaning), value an expression of w (a const ips_os_work_t *), type INT
 * or OSTIME (a thread's split, os_time_json's object), text the text's
 * word (NULL: not in the text).  ns = write_ns + pipe_ns + worker_ns +
 * reply_ns exactly. */
#define IPS_OS_WORK_FIELDS(X)                                                 \
  X(exchanges, INT, "count", (long long)(w)->exchanges, "exchanges",          \
    "its commands (no_command: 0)")                                            \
  X(frames, INT, "count", (long long)(w)->frames, "frames",                   \
    "its frames: commands, upcalls, replies, answers")                         \
  X(answered, INT, "count", (long long)(w)->answered, "answered",             \
    "commands answered `.`")                                                   \
  X(errors, INT, "count", (long long)(w)->errors, "errors",                   \
    "commands answered `!`")                                                   \
  X(ns, INT, "ns", (w)->ns, "in all",                                          \
    "the command's write entered to the parent's read of the answer")         \
  X(write_ns, INT, "ns", (w)->write, "write",                                  \
    "of ns: the parent's write call(s) of the command")                       \
  X(pipe_ns, INT, "ns", (w)->pipe, "pipe",                                     \
    "of ns: written to the worker's read returned with it")                   \
  X(worker_ns, INT, "ns", (w)->worker_ns, "worker",                            \
    "of ns: the worker, from its read to its answer's write (upcalls in it)") \
  X(reply_ns, INT, "ns", (w)->reply, "reply",                                  \
    "of ns: the answer's write to the parent's read returned with it")        \
  X(worker, OSTIME, "", &(w)->worker, NULL,                                    \
    "worker_ns split on the worker's thread (the parts of a worker segment)")

#endif /* IPCSTAMP_ANALYZE_FIELDS_H */
