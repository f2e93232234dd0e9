/* util.c - allocation that cannot fail, BUG() and hashing. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const unsigned char hex_value_plus1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

void out_of_memory(size_t n)
{
	fprintf(stderr, "pprof: out of memory allocating %zu bytes\n", n);
	exit(1);
}

void out_of_room(const char *what)
{
	fprintf(stderr, "pprof: %s\n", what);
	exit(1);
}

void xalloc_setup(void)
{
	/*
	 * Blocks from HUGE_FROM on are mapped each on its own and unmapped
	 * when freed.  glibc would raise its threshold past them once one is
	 * freed and keep later ones on its heap, where what is freed stays
	 * resident: --lines of the bench's 1M profile peaked at 107 MB, with
	 * this at 92.
	 */
	mallopt(M_MMAP_THRESHOLD, (int)HUGE_FROM);
}

static void *plain_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xmalloc(size_t n)
{
	return n >= HUGE_FROM ? xmalloc_huge(n) : plain_malloc(n);
}

void *xcalloc(size_t n, size_t size)
{
	void *p;

	/* n * size >= HUGE_FROM, without overflow: huge pages, as xcalloc_lines gives them. */
	if (size && n > (HUGE_FROM - 1) / size)
		return xcalloc_lines(n, size);
	if (!(p = calloc(n ? n : 1, size ? size : 1)))
		out_of_memory(n * size);
	return p;
}

size_t huge_size(size_t bytes)
{
	if (bytes < HUGE_FROM)
		return bytes;
	if (bytes > SIZE_MAX - HUGE_PAGE)
		out_of_memory(bytes);
	return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *xmalloc_huge(size_t bytes)
{
	void *p;

	if (bytes < HUGE_FROM)
		return plain_malloc(bytes);
	/*
	 * Without the advice the kernel backs it page by page, a fault per
	 * 4 kB; with it, a fault per 2 MB, and fewer TLB misses after.  The
	 * size is rounded up to whole huge pages, all advised: a last one
	 * partly used is still one fault instead of up to 511.
	 */
	bytes = huge_size(bytes);
	if (posix_memalign(&p, HUGE_PAGE, bytes))
		out_of_memory(bytes);
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

void *xcalloc_lines(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	bytes = n * size;
	if (bytes >= HUGE_FROM)
		p = xmalloc_huge(bytes);
	else if (posix_memalign(&p, 64, bytes ? bytes : 1))
		out_of_memory(bytes);
	memset(p, 0, bytes);
	return p;
}

/*
 * p, holding its first used bytes, with room for n on huge pages: as it is
 * if it has the room (a huge block is rounded up), else moved.
 */
static void *to_huge(void *p, size_t used, size_t n)
{
	void *q;

	if (p && malloc_usable_size(p) >= n)
		return p;
	q = xmalloc_huge(n);
	if (used)
		memcpy(q, p, used);
	free(p);
	return q;
}

void *xrealloc(void *p, size_t n)
{
	void *q;

	/* As xmalloc: realloc would move a big block to small pages. */
	if (n >= HUGE_FROM)
		return to_huge(p, p ? malloc_usable_size(p) : 0, n);
	if (!(q = realloc(p, n ? n : 1)))
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

void grow_array_to(void **p, size_t *cap, size_t want, size_t sz)
{
	size_t n = *cap ? *cap : 8;

	while (n < want) {
		if (n > SIZE_MAX / 2 / sz)
			out_of_memory(SIZE_MAX);
		n *= 2;
	}
	/* What is used, not what is room: room never touched stays so. */
	*p = n * sz >= HUGE_FROM ? to_huge(*p, *cap * sz, n * sz) : xrealloc(*p, n * sz);
	*cap = n;
}

void bug_at(const char *file, int line, const char *msg)
{
	fprintf(stderr, "pprof: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

int open_regular(const char *path)
{
	struct stat st;
	int fd;

	/*
	 * Devices are never opened (opening one can have effects: a tape
	 * rewinds, a terminal becomes ours); what changed between the stat
	 * and the open is caught by the fstat below, and a FIFO does not
	 * block the open with O_NONBLOCK.
	 */
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;

		close(fd);
		errno = err;
		return -1;
	}
	/* Regular files never block; later reads need no special mode. */
	fcntl(fd, F_SETFL, 0);
	return fd;
}

int is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int make_dirs(char *path, unsigned mode)
{
	char *s;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, (mode_t)mode) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(path, (mode_t)mode) < 0 && errno != EEXIST ? -1 : 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int path_climbs(const char *path)
{
	const char *p = path;
	size_t depth = 0;

	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (!depth)
				return 1;
			depth--;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* Whether resolved path sits in resolved directory dir (or is it). */
static int inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

int open_beneath(const char *dir, const char *name)
{
	char *path, *real_dir = NULL, *real = NULL;
	int fd = -1, err = EACCES;

	if (name[0] == '/' || path_climbs(name)) {
		errno = EACCES;
		return -1;
	}
	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		errno = ENOMEM;
		return -1;
	}
	/* Symbolic links may lead anywhere: compare where both really are. */
	if (!(real_dir = realpath(dir, NULL)) || !(real = realpath(path, NULL)))
		err = errno;
	else if (inside(real, real_dir))
		err = (fd = open_regular(real)) < 0 ? errno : 0;
	free(real);
	free(real_dir);
	free(path);
	errno = err;
	return fd;
}

/* Eight bytes at a time, each word multiplied in; the last zero-padded, the length mixed in. */
uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w = 0;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	return hash_u64(h ^ w);
}

/* The key of an element sorted without a key function: its first eight bytes. */
static inline uint64_t first_u64(const void *e)
{
	uint64_t k;

	memcpy(&k, e, sizeof(k));
	return k;
}

/*
 * One stable pass over byte b of the keys, from src to dst; at[v] is where
 * the first element whose byte is v goes.  Elements of the common sizes
 * are copied by a fixed-size copy the compiler inlines, not by a call,
 * and keys in the first eight bytes are read in place, not by a call.
 */
#define RADIX_SCATTER(SZ, KEY)                                                             \
	for (i = 0; i < n; i++)                                                            \
		memcpy(dst + at[(KEY(src + i * (SZ)) >> (8 * b)) & 0xff]++ * (SZ), src + i * (SZ), \
		       (SZ))

static void radix_pass(const char *src, char *dst, size_t n, size_t sz, unsigned b,
		       uint64_t (*key)(const void *), size_t *at)
{
	size_t i;

	if (!key) {
		if (sz == 16)
			RADIX_SCATTER(16, first_u64);
		else
			RADIX_SCATTER(sz, first_u64);
		return;
	}
	switch (sz) {
	case 8:
		RADIX_SCATTER(8, key);
		break;
	case 16:
		RADIX_SCATTER(16, key);
		break;
	case 24:
		RADIX_SCATTER(24, key);
		break;
	case 32:
		RADIX_SCATTER(32, key);
		break;
	default:
		RADIX_SCATTER(sz, key);
		break;
	}
}

void sort_by_keys(void *base, size_t n, size_t sz, uint64_t (*const *key)(const void *),
		  unsigned nkey)
{
	/* Per key, every byte's counts: 16 kB each. */
	size_t count[SORT_KEYS_MAX][8][256];
	uint64_t all_or[SORT_KEYS_MAX], all_and[SORT_KEYS_MAX];
	char *src = base, *dst, *tmp;
	size_t i;
	unsigned b, k;

	if (n < 2 || nkey == 0)
		return;
	if (nkey > SORT_KEYS_MAX)
		BUG("sort_by_keys: too many keys");
	memset(count, 0, nkey * sizeof(count[0]));
	/* Every byte's counts before the passes: a pass leaves them as they are. */
	for (k = 0; k < nkey; k++) {
		all_or[k] = 0;
		all_and[k] = UINT64_MAX;
	}
	for (k = 0; k < nkey; k++) {
		size_t (*c)[256] = count[k];

		for (i = 0; i < n; i++) {
			uint64_t v = key[k] ? key[k](src + i * sz) : first_u64(src + i * sz);

			all_or[k] |= v;
			all_and[k] &= v;
			c[0][v & 0xff]++;
			c[1][(v >> 8) & 0xff]++;
			c[2][(v >> 16) & 0xff]++;
			c[3][(v >> 24) & 0xff]++;
			c[4][(v >> 32) & 0xff]++;
			c[5][(v >> 40) & 0xff]++;
			c[6][(v >> 48) & 0xff]++;
			c[7][v >> 56]++;
		}
	}
	/* One buffer for every pass. */
	tmp = dst = xmalloc_huge(n * sz);
	/* The last key first, its least significant byte first: each pass is stable. */
	for (k = nkey; k-- > 0;) {
		/* Bytes in which no two keys differ need no pass. */
		for (b = 0; b < 8; b++) {
			size_t sum = 0, v;
			char *t;

			if (!(((all_or[k] ^ all_and[k]) >> (8 * b)) & 0xff))
				continue;
			for (v = 0; v < 256; v++) {
				size_t c = count[k][b][v];

				count[k][b][v] = sum;
				sum += c;
			}
			radix_pass(src, dst, n, sz, b, key[k], count[k][b]);
			t = src;
			src = dst;
			dst = t;
		}
	}
	if (src != base)
		memcpy(base, src, n * sz);
	free(tmp);
}

void sort_by_key(void *base, size_t n, size_t sz, uint64_t (*key)(const void *))
{
	sort_by_keys(base, n, sz, &key, 1);
}

int run_both(void *(*fn)(void *), void *here, void *there)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, there) != 0) {
		fn(here);
		fn(there);
		return 0;
	}
	fn(here);
	pthread_join(t, NULL);
	return 1;
}
