/* arena.h - bump allocator: many small allocations, freed all at once. */
#ifndef PPROF_ARENA_H
#define PPROF_ARENA_H

#include <stddef.h>

/*
 * Invariant: every pointer returned by an arena stays valid until
 * arena_release().  Individual objects are never freed.
 * Lifecycle: zero-initialise (or arena_init), allocate, arena_release.
 */
struct arena_block;
struct arena {
	struct arena_block *head;
	char *next;     /* free space in head */
	size_t left;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Aligned to 16 bytes; contents undefined. */
void *arena_alloc(struct arena *a, size_t n);
/* Aligned to 8 bytes only, for many small records of pointers and integers. */
void *arena_alloc8(struct arena *a, size_t n);
/* Zeroed. */
void *arena_calloc(struct arena *a, size_t n, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
void *arena_memdup(struct arena *a, const void *p, size_t n);
/*
 * How blocks grow, here and in other stores of many small objects (the
 * profile's samples): the size of the block after one of last bytes (0:
 * none yet), twice that, from ARENA_BLOCK to ARENA_MAX_BLOCK bytes.  What
 * a store does with an object too big for it is the store's: the arena
 * gives one over a quarter of the block a block of its own.
 */
#define ARENA_BLOCK ((size_t)64 << 10)
#define ARENA_MAX_BLOCK ((size_t)8 << 20)
size_t arena_grow(size_t last);
/* A block of at least *size bytes, *size set to what it holds; free() frees it. */
void *arena_block_memory(size_t *size);
/* Gives dst every block of src (what src allocated lives as long as dst); src is left empty. */
void arena_adopt(struct arena *dst, struct arena *src);

#endif
