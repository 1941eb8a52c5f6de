/* ipcstamp-analyze-causes.h — what a slogfile's deliver records say
 * besides the times: each delivery's kind and the deliveries that caused
 * it (analyze/causes.c; docs/otel.md, "Causes: span links"), as `ipcstamp
 * otel` names and links its spans.  Included by ipcstamp-analyze.h, whose
 * types and conventions it uses; include that one.
 */
#ifndef IPCSTAMP_ANALYZE_CAUSES_H
#define IPCSTAMP_ANALYZE_CAUSES_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A delivery that caused another. */
typedef struct ips_cause_s {
  char vat[32];
  long long crank, dnum; /* dnum -1: its record had none */
  long line;             /* of its deliver record */
  char why;              /* 's': its syscall send (the message, or the
                            message whose result the notified promise is);
                            'r': its syscall resolve resolved the notified
                            promise */
  char kpid[32];         /* the kernel promise that ties the two */
} ips_cause_t;

#define IPS_MAX_CAUSES 8
/* What a deliver record says that the attribution does not keep. */
typedef struct ips_delivery_causes_s {
  char kind[32]; /* kd[0], else vd[0]: "message", "notify", ...; "" unknown */
  size_t n;      /* causes, at most IPS_MAX_CAUSES (one per delivery and
                    reason), in the order the record names them */
  ips_cause_t c[IPS_MAX_CAUSES];
} ips_delivery_causes_t;

/* Keep each delivery's kind and causes as the lines are read (from the
 * kernel's side of the records: kd and ksc, which SwingSet writes and
 * `ipcstamp run` does not).  Call it before the first read.  Bounded: the
 * causes of at most 131072 promises (then all are forgotten and it begins
 * again: ips_analysis_causes_forgotten), the facts of the latest 1024
 * deliver records.  Returns 0, IPS_EINVAL (after a read) or IPS_ENOMEM. */
IPS_EXTERN int ips_analysis_keep_causes(ips_analysis_t *a);

/* The kind and causes of the deliver record at line (a delivery's line:
 * ips_delivery_t.line) into *out: 1, or 0 when that line is no deliver
 * record the analysis kept (none read there, too long ago, or causes not
 * kept). */
IPS_EXTERN int ips_analysis_causes(const ips_analysis_t *a, long line,
                                   ips_delivery_causes_t *out);

/* Promises whose causes were forgotten at the bound (0 when not kept). */
IPS_EXTERN uint64_t ips_analysis_causes_forgotten(const ips_analysis_t *a);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_CAUSES_H */
