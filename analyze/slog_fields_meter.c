/* slog_fields_meter.c — the general reader's tokens inside a
 * deliver-result's metering (slog_parse.h): xsnap's counters and
 * timestamps, and our worker's ipcstamp object with its stamps, kinds,
 * CPU, run delays and marks.
 *
 * slog_fields.c hands every token whose context is inside the metering
 * (ips__in_meter) to the functions here.  Separate because the metering
 * is the worker's part of the line, follows its own schema
 * (ipcstamp-metering.h) and holds the only arrays the reader allocates
 * (the marks'); slog_fast_meter.c is its twin on the fast path, and the
 * equivalence tests hold the two together. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-metering.h"
#include "slog.h"
#include "slog_parse.h"

#define fail ips__parse_fail

/* The mark arrays, allocated once, on the first metering with marks. */
static int marks_ready(ips__parser_t *p) {
  ips__rec_t *r = &p->rec;
  if (r->marks)
    return 1;
  r->marks = malloc(IPS_MAX_MARKS * sizeof *r->marks);
  r->mname_off = malloc(IPS_MAX_MARKS * sizeof *r->mname_off);
  r->mnames = malloc(IPS__MNAMES_BYTES);
  if (r->marks && r->mname_off && r->mnames)
    return 1;
  free(r->marks);
  free(r->mname_off);
  free(r->mnames);
  r->marks = NULL;
  r->mname_off = NULL;
  r->mnames = NULL;
  return fail(p, "out of memory for ipcstamp.marks");
}

int ips__meter_push(ips__parser_t *p, int c) {
  if (c == C_METER)
    p->rec.have |= IPS__F_METER;
  if (c == C_MARKS) {
    if (p->rec.have & IPS__F_MARKS)
      return fail(p, "ipcstamp.marks appears twice");
    p->rec.have |= IPS__F_MARKS;
    return marks_ready(p);
  }
  if (c == C_MEV) {
    if (p->rec.n_marks == IPS_MAX_MARKS)
      return fail(p, "ipcstamp.marks has more than 65536 events");
    p->rec.mev_have = 0;
  }
  return 1;
}

int ips__meter_pop(ips__parser_t *p, int c) {
  if (c == C_MEV) {
    if (p->rec.mev_have != 15)
      return fail(p, "an ipcstamp.marks event is not [kind, name, wall, mono]");
    p->rec.n_marks++;
  }
  return 1;
}

int ips__meter_key(ips__parser_t *p, int c, const unsigned char *s,
                   size_t n) {
  int k = K_NONE;
  switch (c) {
    case C_METER:
      if (is(s, n, IPS_MK_TIMESTAMPS)) k = K_TIMESTAMPS;
      else if (is(s, n, IPS_MK_IPCSTAMP)) k = K_IPCSTAMP;
      else if (is(s, n, "meterType")) p->rec.have |= IPS__F_XSMETER;
      else if (is(s, n, "compute")) k = K_COMPUTE;
      break;
    case C_IPS:
      if (is(s, n, IPS_MK_V)) k = K_V;
      else if (is(s, n, IPS_MK_KINDS)) k = K_KINDS;
      else if (is(s, n, IPS_MK_MONO)) k = K_WMONO;
      else if (is(s, n, IPS_MK_DROPPED)) k = K_DROPPED;
      else if (is(s, n, IPS_MK_CPU_NS)) k = K_CPU;
      else if (is(s, n, IPS_MK_RUN_DELAY_NS)) k = K_WRUNQ;
      else if (is(s, n, IPS_MK_MARKS)) k = K_MARKS;
      break;
    case C_MARKS:
      if (is(s, n, IPS_MK_NAMES)) k = K_MNAMES;
      else if (is(s, n, IPS_MK_EVENTS)) k = K_MEVENTS;
      else if (is(s, n, IPS_MK_DROPPED)) k = K_DROPPED;
      else if (is(s, n, IPS_MK_UNBALANCED)) k = K_MUNBAL;
      break;
  }
  return k;
}

int ips__meter_string(ips__parser_t *p, int c, int k, int i,
                      const unsigned char *s, size_t n) {
  switch (c) {
    case C_MNAMES: {
      ips__rec_t *r = &p->rec;
      if (n == 0 || n > 255)
        return fail(p, "an ipcstamp.marks name is empty or over 255 bytes");
      if (r->n_mnames == IPS_MAX_MARKS ||
          r->mnames_len + n + 1 > IPS__MNAMES_BYTES)
        return fail(p, "ipcstamp.marks has too many names");
      r->mname_off[r->n_mnames++] = (uint32_t)r->mnames_len;
      memcpy(r->mnames + r->mnames_len, s, n);
      r->mnames_len += n;
      r->mnames[r->mnames_len++] = '\0';
      break;
    }
    case C_MEV:
      if (i != 0 || n != 1 || (s[0] != 'm' && s[0] != 'b' && s[0] != 'e'))
        return fail(p, "an ipcstamp.marks event's kind is not \"m\", \"b\" or \"e\"");
      p->rec.marks[p->rec.n_marks].kind = (char)s[0];
      p->rec.mev_have |= 1;
      break;
    case C_IPS:
      if (k == K_KINDS) {
        if (n >= IPS__MAX_STAMPS)
          return fail(p, "ipcstamp.kinds has too many stamps");
        memcpy(p->rec.kinds, s, n);
        p->rec.kinds[n] = '\0';
        p->rec.n_kinds = n;
        p->rec.have |= IPS__F_KINDS;
      }
      break;
  }
  return 1;
}

/* A number of one of the metering's arrays: xsnap's timestamps, our
 * worker's mono stamps and run delays. */
static int array_number(ips__parser_t *p, int c, const char *s, size_t n) {
  ips__rec_t *r = &p->rec;
  const unsigned char *u = (const unsigned char *)s;
  int64_t ns;
  long long ll;
  switch (c) {
    case C_WALLS:
      if (r->n_walls == IPS__MAX_STAMPS)
        return fail(p, "metering has too many timestamps");
      if (ips__dec_to_ns(s, n, &ns))
        return fail(p, "a metering timestamp is not a decimal number");
      r->walls[r->n_walls++] = ns;
      r->have |= IPS__F_WALLS;
      break;
    case C_WMONO:
      if (r->n_wmono == IPS__MAX_STAMPS)
        return fail(p, "ipcstamp.mono has too many stamps");
      if (ips__to_ll(u, n, &ll))
        return fail(p, "an ipcstamp.mono stamp is not integer nanoseconds");
      r->wmono[r->n_wmono++] = ll;
      r->have |= IPS__F_WMONO;
      break;
    case C_WRUNQ:
      if (r->n_wrunq == IPS__MAX_STAMPS)
        return fail(p, "ipcstamp.run_delay_ns has too many entries");
      if (ips__to_ll(u, n, &ll))
        return fail(p, "an ipcstamp.run_delay_ns entry is not integer "
                       "nanoseconds");
      r->wrunq[r->n_wrunq++] = ll;
      r->have |= IPS__F_WRUNQ;
      break;
  }
  return 1;
}

/* A number of one mark event, [kind, name, wall, mono], at index i. */
static int mark_number(ips__parser_t *p, int i, const char *s, size_t n) {
  ips__rec_t *r = &p->rec;
  ips__mark_t *m = &r->marks[r->n_marks];
  const unsigned char *u = (const unsigned char *)s;
  long long ll;
  if (i == 1) {
    if (ips__to_ll(u, n, &ll) || ll >= IPS_MAX_MARKS)
      return fail(p, "an ipcstamp.marks event's name is not an index");
    m->name = (uint32_t)ll;
  } else if (i == 2) {
    if (ips__dec_to_ns(s, n, &m->wall))
      return fail(p, "an ipcstamp.marks event's wall is not a decimal number");
  } else if (i == 3) {
    if (ips__to_ll(u, n, &ll))
      return fail(p, "an ipcstamp.marks event's mono is not integer nanoseconds");
    m->mono = ll;
  } else {
    return fail(p, "an ipcstamp.marks event is not [kind, name, wall, mono]");
  }
  r->mev_have |= 1 << i;
  return 1;
}

int ips__meter_number(ips__parser_t *p, int c, int k, int i, const char *s,
                      size_t n) {
  ips__rec_t *r = &p->rec;
  const unsigned char *u = (const unsigned char *)s;
  long long ll;
  switch (c) {
    case C_METER:
      /* computrons: xsnap's compute count; another form is left out */
      if (k == K_COMPUTE && !ips__to_ll(u, n, &r->compute))
        r->have |= IPS__F_COMPUTE;
      break;
    case C_WALLS:
    case C_WMONO:
    case C_WRUNQ:
      return array_number(p, c, s, n);
    case C_IPS:
      switch (k) {
        case K_V:
          if (ips__to_ll(u, n, &ll)) return fail(p, "ipcstamp.v is not a number");
          r->ipsv = (long)ll;
          r->have |= IPS__F_IPSV;
          break;
        case K_DROPPED:
          if (ips__to_ll(u, n, &r->dropped)) return fail(p, "ipcstamp.dropped is not a count");
          break;
        case K_CPU:
          if (ips__to_ll(u, n, &ll)) return fail(p, "ipcstamp.cpu_ns is not a count");
          r->cpu_ns = ll;
          r->have |= IPS__F_CPU;
          break;
      }
      break;
    case C_MARKS:
      if (k == K_DROPPED || k == K_MUNBAL) {
        if (ips__to_ll(u, n, &ll))
          return fail(p, "ipcstamp.marks.dropped or .unbalanced is not a count");
        if (k == K_DROPPED)
          r->mdropped = ll;
        else
          r->munbalanced = ll;
      }
      break;
    case C_MEV:
      return mark_number(p, i, s, n);
  }
  return 1;
}
