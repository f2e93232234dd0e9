/* strtab.h - string interning: equal strings become equal pointers. */
#ifndef PPROF_STRTAB_H
#define PPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "util.h"

/* Strings live in the arena given to strtab_new and stay valid as long as it. */
struct strtab;

struct strtab *strtab_new(struct arena *a);
void strtab_free(struct strtab *t);
const char *strtab_intern(struct strtab *t, const char *s, size_t n);
/* The same, and the string's number: 0, 1, 2 ... in the order strings were first interned. */
const char *strtab_intern_id(struct strtab *t, const char *s, size_t n, uint32_t *id);
/*
 * The same without the copy, and with h = strtab_hash(s, n) computed before
 * (by another thread, say): s itself becomes the string, so it must be
 * NUL-terminated and last as long as the strtab's arena.
 * strtab_prefetch(t, h) a few strings ahead hides the table's miss.
 */
static inline uint64_t strtab_hash(const char *s, size_t n)
{
	return hash_bytes(s, n);
}
const char *strtab_intern_stored(struct strtab *t, const char *s, size_t n, uint64_t h,
				 uint32_t *id);
void strtab_prefetch(const struct strtab *t, uint64_t h);
/* Room for more strings without growing. */
void strtab_reserve(struct strtab *t, size_t more);
/* The string of number id (< the number of strings interned). */
const char *strtab_string(const struct strtab *t, uint32_t id);

#endif
