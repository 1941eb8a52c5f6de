/* slowest.c — the one keeper of "the N slowest" (ipcstamp-analyze.h): the
 * analysis' slowest list, the HTML page's and the report's marks of the
 * slowest all ask it where a delivery goes.
 *
 * Unsorted slots, with the slot that goes next (the fastest kept, of equal
 * totals the one of largest order) remembered: a delivery that is not
 * among the slowest, nearly all of them, costs one comparison; a
 * replacement looks for the next such slot again (cap is small). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-analyze.h"

int ips_slowest_init(ips_slowest_t *k, size_t cap) {
  memset(k, 0, sizeof *k);
  if (cap == 0)
    return 0;
  k->total = malloc(cap * sizeof *k->total);
  k->order = malloc(cap * sizeof *k->order);
  if (!k->total || !k->order) {
    ips_slowest_free(k);
    return IPS_ENOMEM;
  }
  k->cap = cap;
  return 0;
}

/* Whether slot i goes before slot j: slower, or as slow and earlier. */
static int before(const ips_slowest_t *k, size_t i, size_t j) {
  if (k->total[i] != k->total[j])
    return k->total[i] > k->total[j];
  return k->order[i] < k->order[j];
}

long ips_slowest_slot(ips_slowest_t *k, int64_t total, uint64_t order) {
  size_t i, s;
  if (k->cap == 0)
    return -1;
  if (k->n < k->cap) {
    s = k->n++;
  } else {
    s = k->next;
    if (total <= k->total[s]) /* as slow: the one kept first stays */
      return -1;
  }
  k->total[s] = total;
  k->order[s] = order;
  if (k->n == k->cap) { /* the slot to go next: the last in order */
    k->next = 0;
    for (i = 1; i < k->n; i++)
      if (before(k, k->next, i))
        k->next = i;
  }
  return (long)s;
}

void ips_slowest_order(const ips_slowest_t *k, size_t *slots) {
  size_t i, j, s;
  /* insertion: cap is small (--top, at most 10,000) and this runs once */
  for (i = 0; i < k->n; i++) {
    s = i;
    for (j = i; j > 0 && before(k, s, slots[j - 1]); j--)
      slots[j] = slots[j - 1];
    slots[j] = s;
  }
}

void ips_slowest_free(ips_slowest_t *k) {
  free(k->total);
  free(k->order);
  memset(k, 0, sizeof *k);
}
