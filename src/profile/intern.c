/* intern.c - string interning for the profile model. */
#include <string.h>
#include <stdlib.h>

#include "strtab.h"
#include "util.h"

struct entry {
	uint64_t hash;
	const char *s;
	size_t len;
};

struct strtab {
	struct arena *arena;
	struct entry *slot;
	size_t mask, used;
};

struct strtab *strtab_new(struct arena *a)
{
	struct strtab *t = xcalloc(1, sizeof(*t));

	t->arena = a;
	t->mask = 1023;
	t->slot = xcalloc(t->mask + 1, sizeof(*t->slot));
	return t;
}

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	free(t->slot);
	free(t);
}

static void grow(struct strtab *t)
{
	size_t cap = (t->mask + 1) * 2, i;
	struct entry *n = xcalloc(cap, sizeof(*n));

	for (i = 0; i <= t->mask; i++) {
		size_t j;

		if (!t->slot[i].s)
			continue;
		for (j = t->slot[i].hash & (cap - 1); n[j].s; j = (j + 1) & (cap - 1))
			;
		n[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = n;
	t->mask = cap - 1;
}

const char *strtab_intern(struct strtab *t, const char *s, size_t n)
{
	uint64_t h = hash_bytes(s, n);
	size_t i;

	for (i = h & t->mask; t->slot[i].s; i = (i + 1) & t->mask) {
		struct entry *e = &t->slot[i];

		if (e->hash == h && e->len == n && !memcmp(e->s, s, n))
			return e->s;
	}
	t->slot[i].hash = h;
	t->slot[i].len = n;
	t->slot[i].s = arena_strndup(t->arena, s, n);
	if (++t->used * 4 > (t->mask + 1) * 3) {
		const char *r = t->slot[i].s;

		grow(t);
		return r;
	}
	return t->slot[i].s;
}
