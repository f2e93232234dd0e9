/* test_util.c - unit tests for util's radix sort, byte hash, line-aligned arrays, the hash table's growth and run_both. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
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
	/* Two megabytes and more: on a huge page's boundary, zeroed too. */
	for (n = (2u << 20) / 32 - 1; n < (2u << 20) / 32 + 2; n++) {
		unsigned char *p = xcalloc_lines(n, 32);

		CHECK_EQ_INT((uintptr_t)p % 64, 0);
		if (n * 32 >= (2u << 20))
			CHECK_EQ_INT((uintptr_t)p % (2u << 20), 0);
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
		htab_slots_free(p);
		htab_init(&t, cap[k]);
		CHECK_EQ_INT(t.mask + 1, want[k]);
		CHECK_EQ_INT(t.used, 0);
		htab_release(&t);
	}
	CHECK_EQ_INT(bad, 0);
}

/* Slots of 16 bytes, as the model's index by address has: a key, then an index. */
struct wide_slot {
	uint64_t key;
	uint32_t idx;
	uint32_t unused;
};

static uint64_t wide_hash(const void *slot)
{
	struct wide_slot w;

	memcpy(&w, slot, sizeof(w));
	return w.key;
}

static uint64_t narrow_hash(const void *slot)
{
	struct htab_slot h;

	memcpy(&h, slot, sizeof(h));
	return h.hash;
}

/* Puts key (as idx) where linear probing would, in 16-byte slots. */
static void wide_put(struct wide_slot *t, size_t mask, uint64_t key, uint32_t idx)
{
	size_t i = key & mask;

	while (t[i].idx)
		i = (i + 1) & mask;
	t[i].key = key;
	t[i].idx = idx;
}

/*
 * Whether a table of 16-byte slots holds exactly indexes 1..n, each found
 * by a probe from its home that crosses no empty slot.
 */
static int wide_valid(const struct wide_slot *t, size_t mask, const uint64_t *key, size_t n)
{
	size_t k, i, seen = 0;

	for (i = 0; i <= mask; i++)
		seen += t[i].idx != 0;
	if (seen != n)
		return 0;
	for (k = 0; k < n; k++) {
		for (i = key[k] & mask; t[i].idx && t[i].idx != k + 1; i = (i + 1) & mask)
			;
		if (t[i].idx != k + 1 || t[i].key != key[k])
			return 0;
	}
	return 1;
}

/*
 * Doubling in place: clusters that wrap around the end, before and after.
 * Keys are their own hashes, so that the homes are chosen.
 */
TEST(htab_double_wrapping_clusters)
{
	/* 16 slots: three keys whose new home is the last slot, two at 0, one at 14. */
	static const uint64_t key[] = { 31, 31, 31, 0, 16, 14, 46, 3 };
	struct wide_slot *t;
	size_t mask, k;

	t = htab_slots(16, sizeof(*t), &mask);
	for (k = 0; k < ARRAY_SIZE(key); k++)
		wide_put(t, mask, key[k], (uint32_t)(k + 1));
	CHECK(wide_valid(t, mask, key, ARRAY_SIZE(key)));
	t = htab_slots_double(t, &mask, sizeof(*t), offsetof(struct wide_slot, idx), wide_hash);
	CHECK_EQ_INT(mask, 31);
	CHECK(wide_valid(t, mask, key, ARRAY_SIZE(key)));
	/* The three at 31: one there, two wrapped to the bottom, and 0 after them. */
	CHECK_EQ_INT(t[31].idx, 1);
	CHECK_EQ_INT(t[0].idx, 2);
	CHECK_EQ_INT(t[1].idx, 3);
	CHECK_EQ_INT(t[2].idx, 4);
	CHECK_EQ_INT(t[15].idx, 7);
	htab_slots_free(t);
}

/* Every way of filling 16 slots from keys with few homes, at the tables' fullest. */
TEST(htab_double_small_tables)
{
	uint64_t seed = 7, key[12];
	struct wide_slot *t;
	size_t trial, k, mask, bad = 0;

	for (trial = 0; trial < 20000; trial++) {
		t = htab_slots(16, sizeof(*t), &mask);
		for (k = 0; k < ARRAY_SIZE(key); k++) {
			/* Homes crowd the top or bottom half in turns; new homes anywhere. */
			uint64_t r = next(&seed);

			key[k] = (trial % 3 == 0 ? 8 + r % 8 : trial % 3 == 1 ? r % 8 : r % 16) +
				 16 * (r >> 40 & 1);
			wide_put(t, mask, key[k], (uint32_t)(k + 1));
		}
		t = htab_slots_double(t, &mask, sizeof(*t), offsetof(struct wide_slot, idx),
				      wide_hash);
		bad += !wide_valid(t, mask, key, ARRAY_SIZE(key));
		htab_slots_free(t);
	}
	CHECK_EQ_INT(bad, 0);
}

/* Random keys, some crowded into a few homes, through doublings from 16 slots to 1M. */
TEST(htab_double_random)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL, *key;
	size_t n = 400000, k, mask, bad = 0, doublings = 0;
	struct wide_slot *t = htab_slots(16, sizeof(*t), &mask);

	key = xcalloc(n, sizeof(*key));
	for (k = 0; k < n; k++) {
		/* One key in 64 from a handful at the top, so that clusters wrap. */
		key[k] = next(&seed);
		if (key[k] % 64 == 0)
			key[k] = (uint64_t)-1 - key[k] % 5;
		wide_put(t, mask, key[k], (uint32_t)(k + 1));
		if ((k + 1) * 4 > (mask + 1) * 3) {
			t = htab_slots_double(t, &mask, sizeof(*t), offsetof(struct wide_slot, idx),
					      wide_hash);
			doublings++;
			if (mask < 65536)
				bad += !wide_valid(t, mask, key, k + 1);
		}
	}
	/* From 16 slots to 1M (16 MB, past the first reservation's huge page). */
	CHECK_EQ_INT(doublings, 16);
	CHECK_EQ_INT(bad, 0);
	CHECK(wide_valid(t, mask, key, n));
	htab_slots_free(t);
	free(key);
}

/*
 * Where the system will not reserve address space ahead (a limit on it, as
 * strict overcommit has in effect), a big table takes what it needs and
 * doubles into a new mapping each time: in a child under such a limit.
 * AddressSanitizer reserves terabytes of its own and cannot run so.
 */
TEST(htab_double_without_reservation)
{
#if defined(__SANITIZE_ADDRESS__)
	CHECK(1);
#else
	pid_t pid = fork();
	int status = -1;

	CHECK(pid >= 0);
	if (pid == 0) {
		uint64_t seed = 99, *key;
		size_t n = 1u << 20, k, mask, vm_kb = 0;
		struct wide_slot *t;
		struct rlimit lim;
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "VmSize: %zu", &vm_kb) == 1)
				break;
		if (f)
			fclose(f);
		key = xcalloc(n, sizeof(*key));
		/* Room for tables of 32 MB, not for the 128 MB reserved at the first 2 MB. */
		lim.rlim_cur = lim.rlim_max = (vm_kb + 96 * 1024) * 1024;
		if (!vm_kb || setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(2);
		t = htab_slots(16, sizeof(*t), &mask);
		for (k = 0; k < n; k++) {
			key[k] = next(&seed);
			wide_put(t, mask, key[k], (uint32_t)(k + 1));
			if ((k + 1) * 4 > (mask + 1) * 3)
				t = htab_slots_double(t, &mask, sizeof(*t),
						      offsetof(struct wide_slot, idx), wide_hash);
		}
		_exit(mask + 1 == 2u << 20 && wide_valid(t, mask, key, n) ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ_INT(WEXITSTATUS(status), 0);
#endif
}

/* The one table, grown by insertions past huge pages: every element found again. */
TEST(htab_grows_keeping_all)
{
	size_t n = 1u << 20, k, i, lost = 0;
	uint64_t seed = 12345;
	uint64_t *hash = xcalloc(n, sizeof(*hash));
	struct htab t;

	htab_init(&t, 0);
	for (k = 0; k < n; k++) {
		/* Low 32 bits repeat often: slots keep only those. */
		hash[k] = next(&seed) & (k % 3 ? UINT64_MAX : 0xffff0000000fffffULL);
		HTAB_FIND(&t, hash[k], i, 0);
		htab_insert(&t, i, hash[k], (uint32_t)(k + 1));
	}
	CHECK_EQ_INT(t.used, n);
	CHECK(t.mask + 1 >= n * 4 / 3);
	for (k = 0; k < n; k++) {
		HTAB_FIND(&t, hash[k], i, t.slot[i].idx == k + 1);
		lost += t.slot[i].idx != k + 1;
	}
	CHECK_EQ_INT(lost, 0);
	CHECK_EQ_INT(narrow_hash(&t.slot[i]), (uint32_t)hash[n - 1]);
	htab_release(&t);
	free(hash);
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

int main(void)
{
	RUN(sort_by_key_sizes);
	RUN(hash_bytes_every_byte);
	RUN(calloc_lines_aligned_and_zeroed);
	RUN(htab_slots_rounded);
	RUN(htab_double_wrapping_clusters);
	RUN(htab_double_small_tables);
	RUN(htab_double_without_reservation);
	RUN(htab_double_random);
	RUN(htab_grows_keeping_all);
	RUN(run_both_halves);
	return test_done();
}
