/* strtab.c - string interning (strtab.h): equal strings become equal pointers. */
#include <string.h>
#include <stdlib.h>

#include "htab.h"
#include "strtab.h"
#include "util.h"

struct str {
	const char *s;
	size_t len;
};

struct strtab {
	struct arena *arena;
	struct htab index;
	struct str *str;
	size_t n, cap;
};

struct strtab *strtab_new(struct arena *a)
{
	struct strtab *t = xcalloc(1, sizeof(*t));

	t->arena = a;
	htab_init(&t->index, 1024);
	return t;
}

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	htab_release(&t->index);
	free(t->str);
	free(t);
}

const char *strtab_intern(struct strtab *t, const char *s, size_t n)
{
	uint32_t id;

	return strtab_intern_id(t, s, n, &id);
}

const char *strtab_string(const struct strtab *t, uint32_t id)
{
	if (id >= t->n)
		BUG("strtab_string: no such string");
	return t->str[id].s;
}

void strtab_reserve(struct strtab *t, size_t more)
{
	htab_reserve(&t->index, more);
	GROW(t->str, t->cap, t->n + more);
}

void strtab_prefetch(const struct strtab *t, uint64_t h)
{
	htab_prefetch(&t->index, h);
}

/* The string of n bytes at s with hash h, copied into the arena unless stored. */
static const char *intern(struct strtab *t, const char *s, size_t n, uint64_t h, int stored,
			  uint32_t *id)
{
	struct str *e;
	size_t i;

	HTAB_FIND(&t->index, h, i,
		  t->str[t->index.slot[i].idx - 1].len == n &&
			  !memcmp(t->str[t->index.slot[i].idx - 1].s, s, n));
	if (t->index.slot[i].idx) {
		*id = t->index.slot[i].idx - 1;
		return t->str[*id].s;
	}
	GROW(t->str, t->cap, t->n + 1);
	e = &t->str[t->n++];
	e->s = stored ? s : arena_strndup(t->arena, s, n);
	e->len = n;
	htab_insert(&t->index, i, h, (uint32_t)t->n);
	*id = (uint32_t)(t->n - 1);
	return e->s;
}

const char *strtab_intern_id(struct strtab *t, const char *s, size_t n, uint32_t *id)
{
	return intern(t, s, n, hash_bytes(s, n), 0, id);
}

const char *strtab_intern_stored(struct strtab *t, const char *s, size_t n, uint64_t h,
				 uint32_t *id)
{
	return intern(t, s, n, h, 1, id);
}
