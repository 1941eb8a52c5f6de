/* vats.c — the vats by name: an open-addressing table over the analysis'
 * vats (attribute.h), and their release. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "marks.h"
#include "vat.h"

void ips__attr_free(ips_analysis_t *a) {
  size_t i;
  for (i = 0; i < a->nvats; i++) {
    free(a->vats[i]->up);
    free(a->vats[i]);
  }
  free(a->vats);
  free(a->hash);
  free(a->P);
  free(a->W);
  free(a->PQ);
  free(a->WQ);
  ips__marks_free(a);
  ips__blocks_free(a->blocks);
}

size_t ips_analysis_nvats(const ips_analysis_t *a) { return a->nvats; }
const ips_vat_stats_t *ips_analysis_vat(const ips_analysis_t *a, size_t i) {
  return i < a->nvats ? &a->vats[i]->s : NULL;
}

/* Vat names are short and few: FNV-1a. */
static size_t hash_str(const char *s, size_t n) {
  return (size_t)ips_fnv1a(IPS_FNV1A_BASIS, s, n);
}

/* Whether v is the vat named by the n bytes at name.  A loop, not
 * strcmp: names are a few bytes, and strcmp's call was a tenth of the
 * attribution. */
static int is_vat(const ips__vat_t *v, const char *name, size_t n) {
  size_t i;
  if (v->name_len != n)
    return 0;
  for (i = 0; i < n; i++)
    if (v->name[i] != name[i])
      return 0;
  return 1;
}

/* The vat's state; hash slots hold index + 1 so zero means empty.  Most
 * records are of the vat the record before was of (a delivery's syscalls
 * and results): that one is tried first. */
ips__vat_t *ips__vat_lookup(ips_analysis_t *a, const char *name, size_t n) {
  size_t m, i;
  if (a->last_vat && is_vat(a->last_vat, name, n))
    return a->last_vat;
  m = a->hcap - 1;
  i = hash_str(name, n) & m;
  while (a->hash[i]) {
    ips__vat_t *v = a->vats[a->hash[i] - 1];
    if (is_vat(v, name, n))
      return a->last_vat = v;
    i = (i + 1) & m;
  }
  return NULL;
}

/* The vat named by the n bytes at name (n < IPS__VAT_MAX), made if it is
 * new (NULL when out of memory). */
ips__vat_t *ips__vat_find(ips_analysis_t *a, const char *name, size_t n) {
  size_t m, i;
  ips__vat_t *v = ips__vat_lookup(a, name, n);
  if (v)
    return v;
  m = a->hcap - 1;
  i = hash_str(name, n) & m;
  while (a->hash[i])
    i = (i + 1) & m;
  if (a->nvats == a->capvats) {
    size_t nc = a->capvats ? a->capvats * 2 : 16;
    ips__vat_t **nv = realloc(a->vats, nc * sizeof *nv);
    if (!nv)
      return NULL;
    a->vats = nv;
    a->capvats = nc;
  }
  if ((a->nvats + 1) * 2 > a->hcap) {
    size_t j, nh = a->hcap * 2;
    size_t *h = calloc(nh, sizeof *h);
    if (!h)
      return NULL;
    for (j = 0; j < a->nvats; j++) {
      size_t k = hash_str(a->vats[j]->name, a->vats[j]->name_len) & (nh - 1);
      while (h[k])
        k = (k + 1) & (nh - 1);
      h[k] = j + 1;
    }
    free(a->hash);
    a->hash = h;
    a->hcap = nh;
    m = nh - 1;
    i = hash_str(name, n) & m;
    while (a->hash[i])
      i = (i + 1) & m;
  }
  v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  memcpy(v->name, name, n); /* n < IPS__VAT_MAX: the callers' bound */
  v->name[n] = '\0';
  v->name_len = n;
  v->s.vat = v->name;
  v->shown = !a->vat_filter || !strcmp(a->vat_filter, v->name);
  a->vats[a->nvats++] = v;
  a->hash[i] = a->nvats;
  return a->last_vat = v;
}
