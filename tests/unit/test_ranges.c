/* test_ranges.c - unit tests for the lookup among overlapping ranges (include/ranges.h). */
#include <stdlib.h>

#include "harness.h"
#include "ranges.h"

/* The rule by brute force: the latest start holding a, the first given among equals. */
static size_t slow_find(const uint64_t *lo, const uint64_t *last, size_t n, uint64_t a)
{
	size_t i, best = RANGE_NONE;

	for (i = 0; i < n; i++)
		if (lo[i] <= a && a <= last[i] && (best == RANGE_NONE || lo[i] > lo[best]))
			best = i;
	return best;
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

TEST(random_agrees_with_the_rule)
{
	uint64_t seed = 1, lo[40], last[40];
	int round, bad = 0;

	for (round = 0; round < 2000; round++) {
		struct range_index x = { 0 };
		size_t n = rnd(&seed) % 40, i;
		uint64_t a;

		for (i = 0; i < n; i++) {
			lo[i] = rnd(&seed) % 100;
			last[i] = lo[i] + rnd(&seed) % 30 - 3;   /* some empty */
		}
		range_index_build(&x, lo, last, n);
		for (a = 0; a < 140; a++)
			bad += range_index_find(&x, a) != slow_find(lo, last, n, a);
		range_index_release(&x);
	}
	CHECK_EQ_INT(bad, 0);
}

TEST(edges)
{
	struct range_index x = { 0 };
	uint64_t lo[] = { 0, UINT64_MAX - 1, 10, 10 }, last[] = { UINT64_MAX, UINT64_MAX, 20, 30 };

	CHECK_EQ_U64(range_index_find(&x, 5), RANGE_NONE);
	range_index_build(&x, lo, last, 4);
	CHECK_EQ_INT(range_index_find(&x, 0), 0);
	CHECK_EQ_INT(range_index_find(&x, 9), 0);
	CHECK_EQ_INT(range_index_find(&x, 10), 2);   /* equal starts: the first given */
	CHECK_EQ_INT(range_index_find(&x, 20), 2);
	CHECK_EQ_INT(range_index_find(&x, 21), 3);
	CHECK_EQ_INT(range_index_find(&x, 31), 0);
	CHECK_EQ_INT(range_index_find(&x, UINT64_MAX), 1);
	range_index_release(&x);
}

/* One range under many: scanning back would cost each lookup all of them. */
TEST(many_overlapping)
{
	size_t n = 200000, i, bad = 0;
	uint64_t *lo = malloc(n * sizeof(*lo)), *last = malloc(n * sizeof(*last));
	struct range_index x = { 0 };

	lo[0] = 0;
	last[0] = UINT64_MAX / 2;
	for (i = 1; i < n; i++)
		lo[i] = last[i] = 16 * i;
	range_index_build(&x, lo, last, n);
	for (i = 1; i < n; i++)
		bad += range_index_find(&x, 16 * n + i) != 0 || range_index_find(&x, 16 * i) != i;
	CHECK_EQ_INT(bad, 0);
	range_index_release(&x);
	free(lo);
	free(last);
}

int main(void)
{
	RUN(random_agrees_with_the_rule);
	RUN(edges);
	RUN(many_overlapping);
	return test_done();
}
