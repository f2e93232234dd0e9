/* htab.c - growing the one hash table (see htab.h). */
#include <stdlib.h>

#include "htab.h"
#include "util.h"

void *htab_slots(size_t cap, size_t size, size_t *mask)
{
	size_t n = 16;

	while (n < cap)
		n *= 2;
	*mask = n - 1;
	/* Big tables are probed at random: on huge pages, from HUGE_FROM on. */
	return xcalloc_lines(n, size);
}

void htab_init(struct htab *t, size_t cap)
{
	t->slot = htab_slots(cap, sizeof(*t->slot), &t->mask);
	t->used = 0;
}

void htab_release(struct htab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->mask = 0;
	t->used = 0;
}

void htab_clear(struct htab *t)
{
	size_t i;

	for (i = 0; i <= t->mask; i++)
		t->slot[i].idx = 0;
	t->used = 0;
}

/* The table again at cap slots (a power of two, more than used). */
static void rehash(struct htab *t, size_t cap)
{
	struct htab n;
	size_t i, j;

	/* Slots keep 32 bits of the hash: positions need no more (indexes are 32-bit). */
	htab_init(&n, cap);
	for (i = 0; i <= t->mask; i++) {
		if (!t->slot[i].idx)
			continue;
		for (j = t->slot[i].hash & n.mask; n.slot[j].idx; j = (j + 1) & n.mask)
			;
		n.slot[j] = t->slot[i];
	}
	n.used = t->used;
	free(t->slot);
	*t = n;
}

static void grow(struct htab *t)
{
	rehash(t, (t->mask + 1) * 2);
}

void htab_reserve(struct htab *t, size_t more)
{
	size_t cap = t->mask + 1;

	while ((t->used + more + 1) * 4 > cap * 3)
		cap *= 2;
	if (cap > t->mask + 1)
		rehash(t, cap);
}

void htab_insert(struct htab *t, size_t i, uint64_t h, uint32_t idx)
{
	if (!idx)
		BUG("htab_insert: index 0 marks an empty slot");
	t->slot[i].hash = (uint32_t)h;
	t->slot[i].idx = idx;
	if (++t->used * 4 > (t->mask + 1) * 3)
		grow(t);
}
