/* arena.c - bump allocator backing every profile and graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "util.h"

struct arena_block {
	struct arena_block *prev;
	size_t size;
	/* Followed by data, aligned like max_align_t. */
	_Alignas(16) char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->next = NULL;
	a->left = 0;
}

size_t arena_grow(size_t last)
{
	return last >= ARENA_MAX_BLOCK / 2 ? ARENA_MAX_BLOCK : last ? 2 * last : ARENA_BLOCK;
}

void *arena_block_memory(size_t *size)
{
	if (*size > SIZE_MAX / 2)
		out_of_memory(*size);
	/*
	 * From HUGE_FROM on, huge pages (xmalloc_huge): a big profile's samples
	 * and locations fill some tens of megabytes, faulted in 512 times
	 * less often, and read at random with fewer TLB misses.  Huge pages
	 * whole: what rounding adds is room.
	 */
	*size = huge_size(*size);
	return xmalloc_huge(*size);
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head, *prev;

	for (; b; b = prev) {
		prev = b->prev;
		free(b);
	}
	arena_init(a);
}

/* n bytes at the given alignment (8 or 16); n is a multiple of it. */
static void *alloc_aligned(struct arena *a, size_t n, size_t align)
{
	struct arena_block *b;
	size_t pad = (size_t)(-(uintptr_t)a->next & (align - 1));
	void *p;

	if (n + pad > a->left) {
		size_t size = arena_grow(a->head ? a->head->size : 0);
		/* An object over a quarter of the block gets one of its own, behind the current one. */
		int own = n > size / 4 && a->head;

		if (n > size / 4)
			size = n;
		if (size > SIZE_MAX / 2)
			out_of_memory(size);
		size += sizeof(*b);
		b = arena_block_memory(&size);
		b->size = size - sizeof(*b);
		if (own) {
			/* A big object gets its own block behind the current one. */
			b->prev = a->head->prev;
			a->head->prev = b;
			return b->data;
		}
		b->prev = a->head;
		a->head = b;
		a->next = b->data;
		a->left = b->size;
		pad = 0;
	}
	p = a->next + pad;
	a->next += pad + n;
	a->left -= pad + n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	/* Zero-size requests still get a distinct, valid pointer. */
	return alloc_aligned(a, n ? (n + 15) & ~(size_t)15 : 16, 16);
}

void *arena_alloc8(struct arena *a, size_t n)
{
	return alloc_aligned(a, n ? (n + 7) & ~(size_t)7 : 8, 8);
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		BUG("arena_calloc overflow");
	p = arena_alloc(a, n * size);
	memset(p, 0, n * size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
	return memcpy(arena_alloc(a, n), p, n);
}

void arena_adopt(struct arena *dst, struct arena *src)
{
	struct arena_block *last = src->head;

	if (!last)
		return;
	if (!dst->head) {
		*dst = *src;
		arena_init(src);
		return;
	}
	/* Behind dst's head, which keeps its free space for what comes next. */
	while (last->prev)
		last = last->prev;
	last->prev = dst->head->prev;
	dst->head->prev = src->head;
	arena_init(src);
}
