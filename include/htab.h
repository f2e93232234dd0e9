/* htab.h - the one hash table: 64-bit hashes to the 1-based indexes of the caller's array. */
#ifndef PPROF_HTAB_H
#define PPROF_HTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * Open addressing with linear probing.  The table stores no keys: a slot
 * holds 32 bits of a key's hash and the 1-based index of the caller's
 * element (0 marks an empty slot), so that probing compares hashes without
 * touching the elements and the caller compares keys only on a hash match
 * (always: equal hash bits do not make equal keys).
 *
 * Lookup and insertion share one probe:
 *
 *	size_t i;
 *	HTAB_FIND(t, h, i, same_key(&elem[t->slot[i].idx - 1], key));
 *	if (t->slot[i].idx)
 *		return &elem[t->slot[i].idx - 1];      (found)
 *	add elem[n], then htab_insert(t, i, h, n + 1);   (i is the empty slot)
 *
 * Lifecycle: htab_init, then htab_release.  The table grows by itself at
 * three quarters full; slot positions found before an insertion are stale
 * after it.
 */
struct htab_slot {
	uint32_t hash;  /* the hash's low 32 bits: 8-byte slots halve big tables */
	uint32_t idx;
};

struct htab {
	struct htab_slot *slot;
	size_t mask;   /* capacity - 1; the capacity is a power of two */
	size_t used;
};

/* cap is rounded up to a power of two (at least 16). */
void htab_init(struct htab *t, size_t cap);
/*
 * The zeroed slots of such a table, for one whose slots hold more (the
 * model's index by address keeps the address in its slots): cap rounded
 * up as htab_init does, each of size bytes; *mask is their number - 1.
 */
void *htab_slots(size_t cap, size_t size, size_t *mask);
void htab_release(struct htab *t);
void htab_clear(struct htab *t);

/* Room for more elements without growing: one table of the final size instead of several. */
void htab_reserve(struct htab *t, size_t more);

/* Fills the empty slot i (from HTAB_FIND) with hash h and index idx (>= 1). */
void htab_insert(struct htab *t, size_t i, uint64_t h, uint32_t idx);

static inline void htab_prefetch(const struct htab *t, uint64_t h)
{
	hint_read(&t->slot[h & t->mask]);
}

/*
 * A guess for prefetching: the index in one of the first few slots of h's
 * probe whose hash bits match, else 0.  It may name another key's element.
 */
static inline uint32_t htab_guess(const struct htab *t, uint64_t h)
{
	size_t i = (size_t)h & t->mask;
	int k;

	for (k = 0; k < 4 && t->slot[i].idx; k++, i = (i + 1) & t->mask)
		if (t->slot[i].hash == (uint32_t)h)
			return t->slot[i].idx;
	return 0;
}

/*
 * Sets i to the slot of the element with hash h for which eq (an expression
 * that may read t->slot[i].idx) holds, or to the empty slot where it would go.
 */
#define HTAB_FIND(t, h, i, eq)                                                  \
	for ((i) = (size_t)(h) & (t)->mask;                                     \
	     (t)->slot[i].idx && !((t)->slot[i].hash == (uint32_t)(h) && (eq)); \
	     (i) = ((i) + 1) & (t)->mask)

#endif
