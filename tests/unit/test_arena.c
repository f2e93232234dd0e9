/* test_arena.c - unit tests for the bump allocator (include/arena.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "harness.h"
#include "util.h"

#define NOBJ 2000

TEST(alignment_and_independence)
{
	struct arena a = { 0 };
	unsigned char *obj[NOBJ];
	size_t size[NOBJ];
	int i, misaligned = 0, corrupt = 0;

	/* Sizes from 1 to a few KiB, so that several blocks are used. */
	for (i = 0; i < NOBJ; i++) {
		size[i] = 1 + (size_t)(i * 37) % 3000;
		obj[i] = arena_alloc(&a, size[i]);
		if ((uintptr_t)obj[i] % 16)
			misaligned++;
		memset(obj[i], i & 0xff, size[i]);
	}
	for (i = 0; i < NOBJ; i++) {
		size_t j;

		for (j = 0; j < size[i]; j++)
			if (obj[i][j] != (unsigned char)(i & 0xff)) {
				corrupt++;
				break;
			}
	}
	CHECK_EQ_INT(misaligned, 0);
	CHECK_EQ_INT(corrupt, 0);
	arena_release(&a);
}

/* The growth the arena and the profile's samples share. */
TEST(block_growth)
{
	size_t last = 0, size, n = 0, mem;
	void *p;

	/* Doubling from ARENA_BLOCK, then ARENA_MAX_BLOCK on. */
	while ((size = arena_grow(last)) != ARENA_MAX_BLOCK) {
		CHECK_EQ_INT(size, last ? 2 * last : ARENA_BLOCK);
		if (size <= last || ++n > 20)
			break;
		last = size;
	}
	CHECK_EQ_INT(n, 7);    /* 64 kB to 4 MB */
	CHECK_EQ_INT(arena_grow(ARENA_MAX_BLOCK), ARENA_MAX_BLOCK);
	CHECK_EQ_INT(arena_grow(ARENA_MAX_BLOCK / 2 + 1), ARENA_MAX_BLOCK);
	CHECK_EQ_INT(arena_grow(SIZE_MAX / 2), ARENA_MAX_BLOCK);
	/* Whole huge pages from HUGE_PAGE on; below, the size asked for. */
	mem = 3000;
	p = arena_block_memory(&mem);
	CHECK_EQ_INT(mem, 3000);
	free(p);
	mem = HUGE_PAGE + 1;
	p = arena_block_memory(&mem);
	CHECK_EQ_INT(mem, 2 * HUGE_PAGE);
	CHECK((uintptr_t)p % HUGE_PAGE == 0);
	memset(p, 1, mem);
	free(p);
}

TEST(big_objects)
{
	struct arena a;
	char *s1, *big, *s2, *big2;
	size_t n = 1 << 20, i;
	int bad = 0;

	arena_init(&a);
	s1 = arena_strdup(&a, "before");
	big = arena_alloc(&a, n);
	CHECK((uintptr_t)big % 16 == 0);
	memset(big, 'B', n);
	s2 = arena_strdup(&a, "after");
	big2 = arena_alloc(&a, 100000);
	CHECK((uintptr_t)big2 % 16 == 0);
	memset(big2, 'C', 100000);
	CHECK_STR(s1, "before");
	CHECK_STR(s2, "after");
	for (i = 0; i < n; i++)
		if (big[i] != 'B')
			bad++;
	CHECK_EQ_INT(bad, 0);
	CHECK(s2 < big || s2 >= big + n);
	arena_release(&a);
}

/*
 * Objects of 2 MB and more (their blocks are rounded up to huge pages)
 * still get blocks of their own: what the current block has left is used
 * next, and the room rounding adds is used after.
 */
TEST(huge_objects)
{
	struct arena a;
	char *s1, *huge, *s2, *s3;
	size_t n = (2u << 20) + 100;
	int bad = 0;
	size_t i;

	arena_init(&a);
	s1 = arena_alloc(&a, 16);
	huge = arena_alloc(&a, n);
	s2 = arena_alloc(&a, 16);
	CHECK(s2 == s1 + 16);
	memset(huge, 'H', n);
	/* A run of blocks: sizes double past 2 MB, every byte usable. */
	for (i = 0; i < 64; i++) {
		s3 = arena_alloc(&a, 1 << 18);
		memset(s3, 'x', 1 << 18);
	}
	for (i = 0; i < n; i++)
		bad += huge[i] != 'H';
	CHECK_EQ_INT(bad, 0);
	arena_release(&a);
}

TEST(calloc_zeroes)
{
	struct arena a = { 0 };
	unsigned char *p;
	size_t i;
	int nonzero = 0, round;

	/* Dirty memory first, then release and allocate again. */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 50; i++)
			memset(arena_alloc(&a, 1000), 0xaa, 1000);
		p = arena_calloc(&a, 300, 7);
		CHECK((uintptr_t)p % 16 == 0);
		for (i = 0; i < 300 * 7; i++)
			if (p[i])
				nonzero++;
		CHECK_EQ_INT(nonzero, 0);
		arena_release(&a);
	}
}

TEST(string_helpers)
{
	struct arena a = { 0 };
	static const char bytes[] = { 1, 0, 2, 0, 3 };
	char src[] = "hello";
	char *s, *t;
	unsigned char *m;

	s = arena_strdup(&a, src);
	CHECK(s != src);
	src[0] = 'j';
	CHECK_STR(s, "hello");
	t = arena_strndup(&a, "hello world", 5);
	CHECK_STR(t, "hello");
	CHECK(s != t);
	t = arena_strndup(&a, "abc", 0);
	CHECK_STR(t, "");
	t = arena_strdup(&a, "");
	CHECK_STR(t, "");
	/* strndup copies n bytes; the source needs no terminator. */
	t = arena_strndup(&a, (const char *)bytes + 4, 1);
	CHECK(t[0] == 3 && t[1] == 0);
	m = arena_memdup(&a, bytes, sizeof(bytes));
	CHECK(m != (const unsigned char *)bytes);
	CHECK(!memcmp(m, bytes, sizeof(bytes)));
	arena_release(&a);
}

TEST(release_and_reuse)
{
	struct arena a;
	char *s;
	int i;

	arena_init(&a);
	arena_release(&a);      /* releasing an empty arena is fine */
	for (i = 0; i < 3; i++) {
		s = arena_strdup(&a, "again");
		CHECK_STR(s, "again");
		arena_release(&a);
	}
}

/* What another arena allocated lives on in the one that adopts it, and goes with it. */
TEST(adopt)
{
	struct arena dst, src, empty;
	char *a, *b, *big, *c;

	arena_init(&dst);
	arena_init(&src);
	arena_init(&empty);
	a = arena_strdup(&dst, "kept");
	b = arena_strdup(&src, "adopted");
	big = arena_alloc(&src, 1 << 20);
	memset(big, 'x', 1 << 20);
	arena_alloc(&src, 200000);   /* a second block in src */
	arena_adopt(&dst, &src);
	CHECK(src.head == NULL);
	c = arena_strdup(&dst, "after");
	CHECK_STR(a, "kept");
	CHECK_STR(b, "adopted");
	CHECK_STR(c, "after");
	CHECK(big[0] == 'x' && big[(1 << 20) - 1] == 'x');
	/* Into an empty arena, and from one. */
	arena_adopt(&empty, &dst);
	arena_adopt(&empty, &src);
	CHECK(dst.head == NULL);
	CHECK_STR(b, "adopted");
	CHECK_STR(arena_strdup(&empty, "more"), "more");
	arena_release(&empty);   /* every block once: ASan and valgrind see no leak */
}

TEST(zero_sizes)
{
	struct arena a = { 0 };
	char *s;

	/*
	 * Zero-byte requests are legal.  On a fresh arena they must not hand
	 * memcpy/memset a NULL pointer (UBSan reports that in SANITIZE=1).
	 */
	arena_memdup(&a, "x", 0);
	arena_calloc(&a, 0, 8);
	arena_alloc(&a, 0);
	CHECK(1);   /* reached */
	s = arena_strndup(&a, "abc", 0);
	CHECK_STR(s, "");
	s = arena_strdup(&a, "still works");
	CHECK_STR(s, "still works");
	arena_release(&a);
}

int main(void)
{
	RUN(alignment_and_independence);
	RUN(block_growth);
	RUN(big_objects);
	RUN(huge_objects);
	RUN(calloc_zeroes);
	RUN(string_helpers);
	RUN(release_and_reuse);
	RUN(adopt);
	RUN(zero_sizes);      /* last: under UBSan a failure aborts the run */
	return test_done();
}
