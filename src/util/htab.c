/* htab.c - growing the one hash table (see htab.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "htab.h"
#include "util.h"

/*
 * Every slot array has this header before it.  A big one (HUGE_PAGE and
 * more) is the start of a mapping that reserves many times its size: the
 * pages past the slots are never touched, so they cost neither memory nor
 * time, and the table doubles into them in place (htab_slots_double).  A
 * table that grew into a fresh one instead would fault in and clear twice
 * its old size and write every element again; in place, only the new half
 * is cleared, and elements already at their new home stay.
 */
struct slots_head {
	void *map;        /* the mapping, from the header's page on; NULL when malloc'd */
	size_t mapped;    /* its length */
	size_t room;      /* bytes of slots that fit in it */
	char pad[64 - 3 * sizeof(size_t)];
};

#define RESERVE_TIMES 64  /* a big table's reservation: this many times its first size */

/*
 * A mapping for a header and bytes of slots, untouched, the slots aligned
 * to a huge page and the header at the end of the small page before them
 * (the huge pages then hold slots alone); the header, or NULL when refused.
 */
static struct slots_head *reserve_huge(size_t bytes)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m, *slots;
	struct slots_head *h;
	size_t lead;

	if (bytes > SIZE_MAX - 2 * HUGE_PAGE || page > HUGE_PAGE)
		return NULL;
	m = mmap(NULL, bytes + 2 * HUGE_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	slots = (unsigned char *)(((uintptr_t)m + page + HUGE_PAGE - 1) &
				  ~(uintptr_t)(HUGE_PAGE - 1));
	lead = (size_t)(slots - page - m);
	if (lead)
		munmap(m, lead);
	munmap(slots + bytes, 2 * HUGE_PAGE - page - lead);
#ifdef MADV_HUGEPAGE
	madvise(slots, bytes, MADV_HUGEPAGE);
#endif
	h = (struct slots_head *)slots - 1;
	h->map = slots - page;
	h->mapped = page + bytes;
	h->room = bytes;
	return h;
}

/* Zeroed slots of bytes in all, after a header. */
static void *slots_alloc(size_t bytes)
{
	struct slots_head *h;

	if (bytes > SIZE_MAX - HUGE_PAGE)
		out_of_memory(SIZE_MAX);
	if (bytes < HUGE_PAGE) {
		h = xcalloc_lines(1, sizeof(*h) + bytes);
		h->map = NULL;
		return h + 1;
	}
	/* Only what it needs when the system will not reserve more (strict overcommit, a limit). */
	if ((bytes > SIZE_MAX / RESERVE_TIMES || !(h = reserve_huge(bytes * RESERVE_TIMES))) &&
	    !(h = reserve_huge(bytes)))
		out_of_memory(bytes);
	return h + 1;
}

void htab_slots_free(void *slots)
{
	struct slots_head *h;

	if (!slots)
		return;
	h = (struct slots_head *)slots - 1;
	if (h->map)
		munmap(h->map, h->mapped);
	else
		free(h);
}

void *htab_slots(size_t cap, size_t size, size_t *mask)
{
	size_t n = 16;

	while (n < cap)
		n *= 2;
	*mask = n - 1;
	if (size && n > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	return slots_alloc(n * size);
}

void *htab_slots_room(void *slots, size_t n, size_t size)
{
	const struct slots_head *h = (const struct slots_head *)slots - 1;
	void *grown;

	if (n > SIZE_MAX / 2 / size)
		out_of_memory(SIZE_MAX);
	/* The reservation's pages past the old slots were never touched: zero. */
	if (h->map && 2 * n * size <= h->room)
		return slots;
	grown = slots_alloc(2 * n * size);
	memcpy(grown, slots, n * size);
	htab_slots_free(slots);
	return grown;
}

void htab_init(struct htab *t, size_t cap)
{
	t->slot = htab_slots(cap, sizeof(*t->slot), &t->mask);
	t->used = 0;
}

void htab_release(struct htab *t)
{
	htab_slots_free(t->slot);
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

/* Slots keep 32 bits of the hash: positions need no more (indexes are 32-bit). */
static uint64_t slot_hash(const void *slot)
{
	struct htab_slot s;

	memcpy(&s, slot, sizeof(s));
	return s.hash;
}

static void grow(struct htab *t)
{
	t->slot = htab_slots_double(t->slot, &t->mask, sizeof(*t->slot),
				    offsetof(struct htab_slot, idx), slot_hash);
}

void htab_reserve(struct htab *t, size_t more)
{
	while ((t->used + more + 1) * 4 > (t->mask + 1) * 3)
		grow(t);
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
