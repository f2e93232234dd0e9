/* strtab.h - string interning: equal strings become equal pointers. */
#ifndef PPROF_STRTAB_H
#define PPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* Strings live in the arena given to strtab_new and stay valid as long as it. */
struct strtab;

struct strtab *strtab_new(struct arena *a);
void strtab_free(struct strtab *t);
const char *strtab_intern(struct strtab *t, const char *s, size_t n);
/* The same, and the string's number: 0, 1, 2 ... in the order strings were first interned. */
const char *strtab_intern_id(struct strtab *t, const char *s, size_t n, uint32_t *id);
/* The string of number id (< the number of strings interned). */
const char *strtab_string(const struct strtab *t, uint32_t id);

#endif
