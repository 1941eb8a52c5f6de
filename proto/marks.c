/* marks.c — the per-command mark table: named marks and spans
 * from the VM's own code, with the same no-allocation rule as the stamps. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"

#define RECORDED 0x80000000u
#define NAME_MAX_BYTES 255u

int ips_marks_init(ips_marks_t *t, uint32_t cap, size_t name_cap) {
  memset(t, 0, sizeof *t);
  if (cap < 1 || cap > IPS_MAX_MARKS || name_cap < 1 ||
      name_cap > IPS_MAX_MARK_BYTES)
    return IPS_EINVAL;
  t->v = calloc(cap, sizeof *t->v);
  t->names = malloc(name_cap);
  t->name_off = calloc((size_t)cap + 1, sizeof *t->name_off);
  t->open = calloc(cap, sizeof *t->open);
  if (!t->v || !t->names || !t->name_off || !t->open) {
    ips_marks_free(t);
    return IPS_ENOMEM;
  }
  t->cap = cap;
  t->name_cap = name_cap;
  return 0;
}

void ips_marks_free(ips_marks_t *t) {
  free(t->v);
  free(t->names);
  free(t->name_off);
  free(t->open);
  memset(t, 0, sizeof *t);
}

void ips_marks_reset(ips_marks_t *t) {
  t->n = t->nnames = t->nopen = t->nreserved = t->nopen_anon = 0;
  t->dropped = t->unbalanced = 0;
  t->used = 0;
}

uint32_t ips_marks_open(const ips_marks_t *t) {
  return t->nopen + t->nopen_anon;
}


/* The index of name, or nnames when it is not interned.  A linear search:
 * a command uses a handful of distinct names, and the first-byte and length
 * checks make most comparisons one or two loads. */
static uint32_t find(const ips_marks_t *t, const char *name, size_t len) {
  uint32_t i;
  for (i = 0; i < t->nnames; i++) {
    uint32_t a = t->name_off[i], b = t->name_off[i + 1];
    if (b - a == len && t->names[a] == name[0] &&
        memcmp(t->names + a, name, len) == 0)
      return i;
  }
  return t->nnames;
}

/* Intern name: its index, or UINT32_MAX when the name bytes are used up. */
static uint32_t intern(ips_marks_t *t, const char *name, size_t len) {
  uint32_t i = find(t, name, len), end;
  if (i < t->nnames)
    return i;
  end = t->name_off[t->nnames];
  if (t->name_cap - end < len || t->nnames >= t->cap)
    return UINT32_MAX;
  memcpy(t->names + end, name, len);
  t->name_off[++t->nnames] = end + (uint32_t)len;
  return i;
}

/* Record an event at stamp at, or at the clocks' reading when at is NULL. */
static int record(ips_marks_t *t, char kind, uint32_t name,
                  const ips_stamp_t *at) {
  ips_stamp_t s;
  ips_mark_t *e = &t->v[t->n];
  if (at == NULL) {
    if (ips_clock_read(&s) != 0)
      return IPS_ECLOCK;
    at = &s;
  }
  e->wall_us = at->wall_us;
  e->mono_ns = at->mono_ns;
  e->name = name;
  e->kind = kind;
  t->n++;
  return 0;
}

static int dropped(ips_marks_t *t) {
  t->dropped++;
  return 1;
}

/* Close the innermost open span named name (index idx, or none when the
 * name was never interned). */
static int end_span(ips_marks_t *t, uint32_t idx, const ips_stamp_t *at) {
  uint32_t i, e;
  if (idx == UINT32_MAX) {
    /* The only begins that could match had no room for their name. */
    if (t->nopen_anon > 0) {
      t->nopen_anon--;
      return dropped(t);
    }
    t->unbalanced++;
    return 1;
  }
  for (i = t->nopen; i-- > 0;)
    if ((t->open[i] & ~RECORDED) == idx)
      break;
  if (i == UINT32_MAX) {
    if (t->nopen_anon > 0) {
      t->nopen_anon--;
      return dropped(t);
    }
    t->unbalanced++;
    return 1;
  }
  e = t->open[i];
  memmove(t->open + i, t->open + i + 1, (t->nopen - i - 1) * sizeof *t->open);
  t->nopen--;
  if (!(e & RECORDED))
    return dropped(t);
  /* Its slot was reserved when the begin was recorded. */
  t->nreserved--;
  return record(t, 'e', idx, at);
}

static int add(ips_marks_t *t, char kind, const char *name, size_t len,
               const ips_stamp_t *at) {
  uint32_t idx, need;

  if ((kind != 'm' && kind != 'b' && kind != 'e') || name == NULL ||
      len == 0 || len > NAME_MAX_BYTES)
    return IPS_EINVAL;
  if (kind == 'e') {
    uint32_t i = find(t, name, len);
    t->used = 1;
    return end_span(t, i < t->nnames ? i : UINT32_MAX, at);
  }
  /* Check the name once, when it is new: interned names were checked. */
  if (find(t, name, len) == t->nnames &&
      !ips_utf8_valid(name, len) /* names go into JSON strings */)
    return IPS_EINVAL;
  t->used = 1;
  need = kind == 'b' ? 2 : 1;
  if (kind == 'b' && t->nopen >= t->cap) {
    t->nopen_anon++;
    return dropped(t);
  }
  if (t->cap - t->n - t->nreserved < need) {
    if (kind == 'b') {
      idx = intern(t, name, len);
      if (idx == UINT32_MAX)
        t->nopen_anon++;
      else
        t->open[t->nopen++] = idx;
    }
    return dropped(t);
  }
  idx = intern(t, name, len);
  if (idx == UINT32_MAX) {
    if (kind == 'b')
      t->nopen_anon++;
    return dropped(t);
  }
  if (record(t, kind, idx, at) != 0)
    return IPS_ECLOCK;
  if (kind == 'b') {
    t->open[t->nopen++] = idx | RECORDED;
    t->nreserved++;
  }
  return 0;
}

int ips_marks_add(ips_marks_t *t, char kind, const char *name, size_t len) {
  return add(t, kind, name, len, NULL);
}

int ips_marks_put(ips_marks_t *t, char kind, const char *name, size_t len,
                  const ips_stamp_t *s) {
  if (s == NULL)
    return IPS_EINVAL;
  return add(t, kind, name, len, s);
}
