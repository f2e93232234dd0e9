/* htab.h - the one hash table: 64-bit hashes to the 1-based indexes of the caller's array. */
#ifndef PPROF_HTAB_H
#define PPROF_HTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* Frees what htab_slots returned (not with free: the slots follow a header). */
void htab_slots_free(void *slots);
/* htab_slots_double's first step, out of line: room for twice n slots, the old ones first. */
void *htab_slots_room(void *slots, size_t n, size_t size);

static inline int htab_slot_used(const void *slots, size_t i, size_t size, size_t idx_at)
{
	uint32_t idx;

	memcpy(&idx, (const unsigned char *)slots + i * size + idx_at, sizeof(idx));
	return idx != 0;
}

/*
 * Doubles such a table, *mask + 1 slots of size bytes, in place when the
 * address space after it was reserved (big tables reserve it) and otherwise
 * in a new array; returns the slots and sets *mask.  A slot holds an
 * element when the 32 bits at idx_at are not 0; hash gives the hash whose
 * low bits are its home.  Inline, so that the sizes are constants.
 *
 * The old slots are visited in probe order from the first empty one, each
 * cluster from its start, and each element is taken out and put back from
 * its new home.  That probe crosses visited slots alone, whose elements stay
 * where they were put, so no probe is broken later.  From a home that stayed
 * in the lower half it ends at the latest in the slot just emptied.  From
 * one that moved up it runs in the upper half, which visited elements alone
 * fill; it can reach the top only from a cluster that wrapped in the old
 * table (the ones before cannot fill the upper half to its top), and those
 * are visited last, so the bottom slots it wraps to were visited too.
 */
static inline __attribute__((always_inline)) void *
htab_slots_double(void *slots, size_t *mask, size_t size, size_t idx_at,
		  uint64_t (*hash)(const void *slot))
{
	size_t n = *mask + 1, top = 2 * n - 1, s, k, i, j;
	unsigned char tmp[64], *at;

	if (size > sizeof(tmp))
		BUG("htab_slots_double: slots too big");
	slots = htab_slots_room(slots, n, size);
	for (s = 0; s < n && htab_slot_used(slots, s, size, idx_at); s++)
		;
	if (s == n)
		BUG("htab_slots_double: a full table");
	for (k = 1; k < n; k++) {
		i = (s + k) & (n - 1);
		at = (unsigned char *)slots + i * size;
		if (!htab_slot_used(slots, i, size, idx_at))
			continue;
		j = (size_t)hash(at) & top;
		if (j == i)
			continue;  /* at its new home already */
		memcpy(tmp, at, size);
		memset(at, 0, size);
		while (htab_slot_used(slots, j, size, idx_at))
			j = (j + 1) & top;
		memcpy((unsigned char *)slots + j * size, tmp, size);
	}
	*mask = top;
	return slots;
}

void htab_release(struct htab *t);
void htab_clear(struct htab *t);

/* Room for more elements without growing: one table of the final size instead of several. */
void htab_reserve(struct htab *t, size_t more);

/* Fills the empty slot i (from HTAB_FIND) with hash h and index idx (>= 1). */
void htab_insert(struct htab *t, size_t i, uint64_t h, uint32_t idx);

static inline void htab_prefetch(const struct htab *t, uint64_t h)
{
	__builtin_prefetch(&t->slot[h & t->mask]);
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
