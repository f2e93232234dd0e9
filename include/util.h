/* util.h - allocation that cannot fail, BUG(), and small helpers shared by all modules. */
#ifndef PPROF_UTIL_H
#define PPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The x-allocators never return NULL: on exhaustion they print one line and
 * stop the program (with out_of_room, the only exit below main.c besides
 * BUG()).
 */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/*
 * xcalloc aligned to a cache line (64 bytes), for arrays of structures sized
 * to share none; from HUGE_FROM on, to a huge page, which the kernel is asked
 * to use (such arrays are read at random).
 */
void *xcalloc_lines(size_t n, size_t size);
#define HUGE_PAGE ((size_t)2 << 20)
/*
 * From this size on the x-allocators give huge pages: a fault per 2 MB
 * instead of one per 4 kB, each of which can cost microseconds (more on a
 * virtual machine than the zeroing), and fewer TLB misses after.  Half a
 * huge page: at least half of the one faulted in is used.
 */
#define HUGE_FROM (HUGE_PAGE / 2)
/* xmalloc, from HUGE_FROM on in whole huge pages (aligned, rounded up). */
void *xmalloc_huge(size_t n);
/* What xmalloc_huge(n) gives: n, or from HUGE_FROM on n rounded up to whole huge pages. */
size_t huge_size(size_t n);
/* The allocator set up for the x-allocators: called first thing by main. */
void xalloc_setup(void);
/* realloc; from HUGE_FROM on, p moves to huge pages (xmalloc_huge) unless it has room for n. */
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The x-allocators' end: "out of memory allocating n bytes", exit status 1. */
void out_of_memory(size_t n) __attribute__((noreturn));
/* The same end at a limit of the program's own, what says which. */
void out_of_room(const char *what) __attribute__((noreturn));

/* Grow *p (holding *cap elements of size sz) so that it holds at least want. */
void grow_array_to(void **p, size_t *cap, size_t want, size_t sz);

/* The check is inline: most calls have room already. */
static inline void grow_array(void **p, size_t *cap, size_t want, size_t sz)
{
	if (want > *cap)
		grow_array_to(p, cap, want, sz);
}
#define GROW(p, cap, want) grow_array((void **)&(p), &(cap), (want), sizeof(*(p)))

/*
 * The cache line at p will be read (hint_read) or written (hint_write)
 * soon.  The empty asm keeps the hint: GCC's dead-code elimination drops
 * a loop whose only effect is __builtin_prefetch (GCC 12 at -O2 left out
 * the report's hints for the stacks ahead, and with them the sums').
 */
static inline void hint_read(const void *p)
{
	__builtin_prefetch(p);
	__asm__ volatile("" : : "r"(p));
}

static inline void hint_write(const void *p)
{
	__builtin_prefetch(p, 1);
	__asm__ volatile("" : : "r"(p));
}

void bug_at(const char *file, int line, const char *msg) __attribute__((noreturn));
#define BUG(msg) bug_at(__FILE__, __LINE__, (msg))

#undef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Opens path for reading only if it is a regular file, never blocking on a
 * FIFO or device named by untrusted input.  Returns the descriptor, or -1
 * with errno set (EINVAL for something that is not a regular file, EISDIR
 * for a directory).
 */
int open_regular(const char *path);
/* Whether path names a regular file (following links). */
int is_regular_file(const char *path);
/*
 * mkdir -p: every missing directory of path, made with mode (path is
 * changed while it works, and restored).  0, or -1 with errno set.
 */
int make_dirs(char *path, unsigned mode);
/* Writes all len bytes at buf to fd, again after EINTR: 0, or -1 with errno set. */
int write_all(int fd, const void *buf, size_t len);

/*
 * Paths named by input (mappings, debug information, build ids) are data.
 * Whether path, read as relative to some directory (a leading "/" is
 * ignored), climbs out of it: more ".." components than names before
 * them.  Such a path must not be joined to a directory.
 */
int path_climbs(const char *path);
/*
 * open_regular for dir/name, only when it stays in dir: name is relative
 * and, after every ".." and symbolic link is resolved, names a file under
 * dir.  Returns the descriptor, or -1 with errno set (EACCES when the name
 * leads out of dir).
 */
int open_beneath(const char *dir, const char *name);

/*
 * The one binary search: over n elements of size sz at base, in ascending
 * order of key(element), the index of the first element whose key is above
 * k (n when none is).  Inline so that each caller's key function is inlined
 * into the loop.
 */
static inline size_t search_above(const void *base, size_t n, size_t sz, uint64_t k,
				  uint64_t (*key)(const void *))
{
	const char *b = base;
	size_t lo = 0;

	while (n > 0) {
		size_t half = n / 2;

		if (key(b + (lo + half) * sz) <= k) {
			lo += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	return lo;
}

static inline uint64_t u64_key(const void *p)
{
	return *(const uint64_t *)p;
}

/* Over an ascending array of uint64_t: the first index above k, and the first at or above it. */
static inline size_t u64_search_above(const uint64_t *v, size_t n, uint64_t k)
{
	return search_above(v, n, sizeof(*v), k, u64_key);
}

static inline size_t u64_search_from(const uint64_t *v, size_t n, uint64_t k)
{
	return k ? u64_search_above(v, n, k - 1) : 0;
}

/*
 * Sorts n elements of size sz at base by key(element), ascending and
 * stable, in linear time (a radix sort: for big arrays, where qsort's
 * comparisons cost more than the memory).  Sorting by a second key and
 * then by a first one orders by both.  Without a key function (NULL), the
 * key is the element's first eight bytes, a uint64_t.
 */
void sort_by_key(void *base, size_t n, size_t sz, uint64_t (*key)(const void *));
/*
 * The same by nkey keys, the first the most significant: as sorting by
 * each in turn from the last, with one reading to count and one buffer.
 */
#define SORT_KEYS_MAX 4
void sort_by_keys(void *base, size_t n, size_t sz, uint64_t (*const *key)(const void *),
		  unsigned nkey);

/*
 * fn(there) on a thread of its own while fn(here) runs on this one; when
 * no thread can start, fn(here) then fn(there) here.  Returns 1 when they
 * ran at once.
 */
int run_both(void *(*fn)(void *), void *here, void *there);

/* 64-bit hashing (a word at a time on bytes, a strong mix for integers). */
uint64_t hash_bytes(const void *p, size_t n);
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Each byte's hexadecimal value plus one, 0 for none (util.c). */
extern const unsigned char hex_value_plus1[256];

/* The value of hexadecimal digit c (either case), or -1: one load. */
static inline int hex_digit(unsigned char c)
{
	return hex_value_plus1[c] - 1;
}

/* The same for lowercase digits only, as gperftools pprof's [0-9a-f]; or -1. */
static inline int lower_hex_digit(unsigned char c)
{
	return c >= 'A' && c <= 'F' ? -1 : hex_digit(c);
}

/* a + b, held at INT64_MIN or INT64_MAX instead of overflowing. */
static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* |v|, INT64_MIN's held at INT64_MAX instead of overflowing. */
static inline int64_t sat_abs(int64_t v)
{
	return v >= 0 ? v : v == INT64_MIN ? INT64_MAX : -v;
}

/* a * b, held at INT64_MIN or INT64_MAX instead of overflowing. */
static inline int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

#endif
