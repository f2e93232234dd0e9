/* test_util.c - unit tests for util's radix sorts, byte hash, line-aligned arrays, run_both, make_dirs. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "htab.h"
#include "util.h"

/* Elements of 8 to 40 bytes: a key first, then where the element started. */
struct elem {
	uint64_t key;
	uint64_t from;
	uint64_t pad[3];
};

static size_t elem_size;

static uint64_t elem_key(const void *p)
{
	return ((const struct elem *)p)->key;
}

static int by_key_then_from(const void *a, const void *b)
{
	const struct elem *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (elem_size == 8)
		return 0;
	return x->from < y->from ? -1 : x->from > y->from;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Each element size sort_by_key copies by its own path, and one more;
 * keys that differ in a few bytes only (ties among them), in all bytes,
 * and all alike; by a key function and by the first eight bytes (no
 * function).  The result must equal qsort's by key, then by the
 * original position: the sort is stable.
 */
TEST(sort_by_key_sizes)
{
	static const size_t sizes[] = { 8, 16, 24, 32, 40 };
	static const uint64_t masks[] = { 0xff00000000ff00ffULL, UINT64_MAX, 0 };
	size_t si, mi, i, n = 5000;
	uint64_t seed = 88172645463325252ULL;
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);

	/* Every size twice: by the key function, then without one. */
	for (si = 0; si < 2 * nsizes; si++)
		for (mi = 0; mi < sizeof(masks) / sizeof(masks[0]); mi++) {
			size_t sz = sizes[si % nsizes];
			int fn = si < nsizes;
			char *v = calloc(n, sz), *want = calloc(n, sz);
			int bad = 0;

			for (i = 0; i < n; i++) {
				struct elem e = { next(&seed) & masks[mi], i, { 0 } };

				/* A few hundred distinct keys in the narrow mask: many ties. */
				if (mi == 0)
					e.key &= 0x0f00000000030001ULL;
				memcpy(v + i * sz, &e, sz);
			}
			memcpy(want, v, n * sz);
			elem_size = sz;
			qsort(want, n, sz, by_key_then_from);
			sort_by_key(v, n, sz, fn ? elem_key : NULL);
			for (i = 0; i < n; i++)
				bad += memcmp(v + i * sz, want + i * sz, sz) != 0;
			if (bad)
				TEST_NOTE("    size %zu, mask %zu, %s: %d out of place", sz, mi,
					  fn ? "key function" : "first bytes", bad);
			CHECK_EQ_INT(bad, 0);
			free(v);
			free(want);
		}
}

static uint64_t elem_pad0(const void *p)
{
	return ((const struct elem *)p)->pad[0];
}

static uint64_t elem_pad1(const void *p)
{
	return ((const struct elem *)p)->pad[1];
}

/* By pad[0], then key, then pad[1], then the original position. */
static int by_three_keys(const void *a, const void *b)
{
	const struct elem *x = a, *y = b;

	if (x->pad[0] != y->pad[0])
		return x->pad[0] < y->pad[0] ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->pad[1] != y->pad[1])
		return x->pad[1] < y->pad[1] ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * sort_by_keys by three keys (one of them the first eight bytes, read
 * without a function), with ties in each and in all three, and with a
 * key all alike: qsort's order by the three, then the original position.
 */
TEST(sort_by_keys_three)
{
	static uint64_t (*const keys[])(const void *) = { elem_pad0, NULL, elem_pad1 };
	size_t i, n = 20000, pass;
	uint64_t seed = 1234567ULL;

	for (pass = 0; pass < 2; pass++) {
		struct elem *v = calloc(n, sizeof(*v)), *want = calloc(n, sizeof(*v));
		int bad = 0;

		for (i = 0; i < n; i++) {
			v[i].key = next(&seed) & 0x0300000000000701ULL;
			v[i].from = i;
			v[i].pad[0] = pass ? 7 : next(&seed) % 5;
			v[i].pad[1] = next(&seed) & 0x0001000000000003ULL;
		}
		memcpy(want, v, n * sizeof(*v));
		qsort(want, n, sizeof(*want), by_three_keys);
		sort_by_keys(v, n, sizeof(*v), keys, 3);
		for (i = 0; i < n; i++)
			bad += memcmp(&v[i], &want[i], sizeof(*v)) != 0;
		CHECK_EQ_INT(bad, 0);
		free(v);
		free(want);
	}
}

/* Equal bytes hash equal; every byte, the tail's included, and the length change the hash. */
TEST(hash_bytes_every_byte)
{
	unsigned char a[40], b[40];
	size_t n, i;
	int same = 0, unequal = 0;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 37 + 1);
	for (n = 0; n <= sizeof(a); n++) {
		memcpy(b, a, sizeof(a));
		unequal += hash_bytes(a, n) != hash_bytes(b, n);
		for (i = 0; i < n; i++) {
			b[i] ^= 0x40;
			same += hash_bytes(a, n) == hash_bytes(b, n);
			b[i] ^= 0x40;
		}
	}
	CHECK_EQ_INT(unequal, 0);
	CHECK_EQ_INT(same, 0);
	/* Zero bytes pad the last word: the length tells "a" from "a\0". */
	CHECK(hash_bytes("a", 1) != hash_bytes("a\0", 2));
	CHECK(hash_bytes("", 0) != hash_bytes("\0", 1));
	CHECK(hash_bytes("abcdefgh", 8) != hash_bytes("abcdefgh\0", 9));
}

/* xcalloc_lines: zeroed, on a cache line, for sizes from nothing up. */
TEST(calloc_lines_aligned_and_zeroed)
{
	size_t n, i, bad = 0;

	for (n = 0; n < 300; n += 7) {
		unsigned char *p = xcalloc_lines(n, 24);

		CHECK_EQ_INT((uintptr_t)p % 64, 0);
		for (i = 0; i < n * 24; i++)
			bad += p[i] != 0;
		memset(p, 0xff, n * 24);
		free(p);
	}
	CHECK_EQ_INT(bad, 0);
	/* From HUGE_FROM on: on a huge page's boundary, zeroed too. */
	for (n = HUGE_FROM / 32 - 1; n < HUGE_FROM / 32 + 2; n++) {
		unsigned char *p = xcalloc_lines(n, 32);

		CHECK_EQ_INT((uintptr_t)p % 64, 0);
		if (n * 32 >= HUGE_FROM)
			CHECK_EQ_INT((uintptr_t)p % HUGE_PAGE, 0);
		for (i = 0; i < n * 32; i++)
			bad += p[i] != 0;
		memset(p, 0xff, n * 32);
		free(p);
	}
	CHECK_EQ_INT(bad, 0);
}

/* A table's slots: a power of two, at least 16 and at least cap, zeroed; htab_init's the same. */
TEST(htab_slots_rounded)
{
	static const size_t cap[] = { 0, 1, 16, 17, 1000, 1024, 1025 }, want[] = {
		16, 16, 16, 32, 1024, 1024, 2048 };
	struct htab t;
	size_t k, i, mask, bad = 0;

	for (k = 0; k < sizeof(cap) / sizeof(cap[0]); k++) {
		unsigned char *p = htab_slots(cap[k], 12, &mask);

		CHECK_EQ_INT(mask + 1, want[k]);
		for (i = 0; i < (mask + 1) * 12; i++)
			bad += p[i] != 0;
		free(p);
		htab_init(&t, cap[k]);
		CHECK_EQ_INT(t.mask + 1, want[k]);
		CHECK_EQ_INT(t.used, 0);
		htab_release(&t);
	}
	CHECK_EQ_INT(bad, 0);
}

/* What one call of run_both's function did: its argument's sum, and its thread. */
struct half_sum {
	const int *v;
	size_t from, to;
	long sum;
	int calls;
	pthread_t self;
};

static void *sum_half(void *arg)
{
	struct half_sum *h = arg;
	size_t i;

	for (i = h->from; i < h->to; i++)
		h->sum += h->v[i];
	h->calls++;
	h->self = pthread_self();
	return NULL;
}

/* Both halves are done once each, "there" on another thread when run_both says so. */
TEST(run_both_halves)
{
	static int v[1000];
	struct half_sum a = { v, 0, 400, 0, 0, 0 }, b = { v, 400, 1000, 0, 0, 0 };
	size_t i;
	int two;

	for (i = 0; i < 1000; i++)
		v[i] = (int)i;
	two = run_both(sum_half, &a, &b);
	CHECK_EQ_INT(a.calls, 1);
	CHECK_EQ_INT(b.calls, 1);
	CHECK_EQ_INT(a.sum + b.sum, 999 * 1000 / 2);
	CHECK_EQ_INT(a.sum, 399 * 400 / 2);
	CHECK(pthread_equal(a.self, pthread_self()));
	CHECK(two ? !pthread_equal(b.self, pthread_self()) : pthread_equal(b.self, pthread_self()));
}

TEST(make_dirs_nested)
{
	char top[] = "/tmp/test_util.XXXXXX", path[128], file[128];
	struct stat st;
	FILE *f;

	if (!CHECK(mkdtemp(top) != NULL))
		return;
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	CHECK_EQ_INT(make_dirs(path, 0700), 0);
	CHECK_STR(path + strlen(top), "/a/b/c");
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	/* Already there: nothing to do. */
	CHECK_EQ_INT(make_dirs(path, 0700), 0);
	/* A file in the way. */
	snprintf(file, sizeof(file), "%s/a/file", top);
	if ((f = fopen(file, "w")))
		fclose(f);
	snprintf(path, sizeof(path), "%s/a/file/d", top);
	CHECK_EQ_INT(make_dirs(path, 0700), -1);
	CHECK_EQ_INT(errno, ENOTDIR);
	CHECK_STR(path + strlen(top), "/a/file/d");
	path[0] = 0;
	CHECK_EQ_INT(make_dirs(path, 0700), -1);
	unlink(file);
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a/b", top);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a", top);
	rmdir(path);
	rmdir(top);
}

TEST(write_all_whole)
{
	static char buf[100000], back[100001];
	FILE *f = tmpfile();
	int w = f ? fileno(f) : -1;
	size_t i, got = 0;
	ssize_t n;

	if (!CHECK(w >= 0))
		return;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	CHECK_EQ_INT(write_all(w, buf, sizeof(buf)), 0);
	lseek(w, 0, SEEK_SET);
	while ((n = read(w, back + got, sizeof(back) - got)) > 0)
		got += (size_t)n;
	CHECK_EQ_INT(got, sizeof(buf));
	CHECK(!memcmp(buf, back, sizeof(buf)));
	fclose(f);
	CHECK_EQ_INT(write_all(-1, buf, 1), -1);
	CHECK_EQ_INT(errno, EBADF);
}

/* An array grown past HUGE_FROM moves to huge pages with its elements; huge_size says how much. */
TEST(grow_past_huge_page)
{
	uint32_t *v = NULL, *was;
	size_t cap = 0, n = HUGE_PAGE / sizeof(*v) + 1000, i, bad = 0;

	for (i = 0; i < n; i++) {
		GROW(v, cap, i + 1);
		v[i] = (uint32_t)(i * 2654435761u);
	}
	CHECK(cap >= n);
	CHECK((uintptr_t)v % HUGE_PAGE == 0);
	for (i = 0; i < n; i++)
		bad += v[i] != (uint32_t)(i * 2654435761u);
	CHECK_EQ_INT(bad, 0);
	/* The whole capacity is there (the sanitizers would catch less). */
	memset(v, 0, cap * sizeof(*v));
	free(v);
	/* 1 MB rounds up to 2: doubling to 2 MB finds the room and stays. */
	v = NULL;
	cap = 0;
	GROW(v, cap, HUGE_FROM / sizeof(*v));
	CHECK_EQ_INT(cap * sizeof(*v), HUGE_FROM);
	was = v;
	v[0] = 7;
	GROW(v, cap, cap + 1);
	CHECK_EQ_INT(cap * sizeof(*v), HUGE_PAGE);
	CHECK(v == was);
	CHECK_EQ_INT(v[0], 7);
	memset(v, 0, cap * sizeof(*v));
	free(v);
	CHECK_EQ_INT(huge_size(3000), 3000);
	CHECK_EQ_INT(huge_size(HUGE_FROM - 1), HUGE_FROM - 1);
	CHECK_EQ_INT(huge_size(HUGE_FROM), HUGE_PAGE);
	CHECK_EQ_INT(huge_size(HUGE_PAGE), HUGE_PAGE);
	CHECK_EQ_INT(huge_size(HUGE_PAGE + 1), 2 * HUGE_PAGE);
	CHECK_EQ_INT(huge_size(3 * HUGE_PAGE - 1), 3 * HUGE_PAGE);
}

/*
 * xmalloc, xcalloc and xrealloc from HUGE_FROM on: huge pages, zeroed
 * for xcalloc, the contents kept by xrealloc both ways across the line.
 */
TEST(x_allocators_huge_from)
{
	unsigned char *p, *q;
	size_t i, bad = 0;

	p = xmalloc(HUGE_FROM);
	CHECK_EQ_INT((uintptr_t)p % HUGE_PAGE, 0);
	memset(p, 0xab, HUGE_FROM);
	free(p);
	p = xcalloc(HUGE_FROM / 8, 8);
	CHECK_EQ_INT((uintptr_t)p % HUGE_PAGE, 0);
	for (i = 0; i < HUGE_FROM; i++)
		bad += p[i] != 0;
	CHECK_EQ_INT(bad, 0);
	free(p);
	/* Small to huge: what it held comes along. */
	p = xmalloc(1000);
	for (i = 0; i < 1000; i++)
		p[i] = (unsigned char)i;
	p = xrealloc(p, 3 * HUGE_FROM);
	CHECK_EQ_INT((uintptr_t)p % HUGE_PAGE, 0);
	for (i = 0; i < 1000; i++)
		bad += p[i] != (unsigned char)i;
	CHECK_EQ_INT(bad, 0);
	/* Within its rounded room it stays; past it, it moves with its bytes. */
	q = xrealloc(p, 2 * HUGE_PAGE);
	CHECK(q == p);
	p = xrealloc(q, 2 * HUGE_PAGE + 1);
	CHECK_EQ_INT((uintptr_t)p % HUGE_PAGE, 0);
	for (i = 0; i < 1000; i++)
		bad += p[i] != (unsigned char)i;
	CHECK_EQ_INT(bad, 0);
	/* Back below the line: realloc's, the first bytes kept. */
	p = xrealloc(p, 100);
	for (i = 0; i < 100; i++)
		bad += p[i] != (unsigned char)i;
	CHECK_EQ_INT(bad, 0);
	free(p);
}

int main(void)
{
	RUN(sort_by_key_sizes);
	RUN(sort_by_keys_three);
	RUN(hash_bytes_every_byte);
	RUN(calloc_lines_aligned_and_zeroed);
	RUN(htab_slots_rounded);
	RUN(run_both_halves);
	RUN(make_dirs_nested);
	RUN(write_all_whole);
	RUN(grow_past_huge_page);
	RUN(x_allocators_huge_from);
	return test_done();
}
