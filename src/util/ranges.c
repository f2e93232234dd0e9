/* ranges.c - overlapping address ranges cut into disjoint pieces with their winners (ranges.h). */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "util.h"

struct item {
	uint64_t lo, last;
	size_t pos;
};

/* By start, and among equal starts the last given first: ascending priority. */
static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->pos > y->pos ? -1 : x->pos < y->pos;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The winner can change only where a range starts or just past where one
 * ends.  Sweeping those points upwards, the ranges started so far form a
 * stack in order of priority; the winner is the top once the ranges that
 * ended are popped (those below the top wait until they surface).
 */
void range_index_build(struct range_index *x, const uint64_t *lo, const uint64_t *last, size_t n)
{
	struct item *it = xcalloc(n + 1, sizeof(*it));
	uint64_t *pt = xcalloc(2 * n + 1, sizeof(*pt));
	size_t *stack = xcalloc(n + 1, sizeof(*stack));
	size_t m = 0, np = 0, depth = 0, i, j = 0, k;

	range_index_release(x);
	for (i = 0; i < n; i++) {
		if (last[i] < lo[i])
			continue;
		it[m].lo = lo[i];
		it[m].last = last[i];
		it[m++].pos = i;
		pt[np++] = lo[i];
		if (last[i] != UINT64_MAX)
			pt[np++] = last[i] + 1;
	}
	qsort(it, m, sizeof(*it), cmp_item);
	qsort(pt, np, sizeof(*pt), cmp_u64);
	x->start = xcalloc(np + 1, sizeof(*x->start));
	x->who = xcalloc(np + 1, sizeof(*x->who));
	for (k = 0; k < np; k++) {
		size_t who;

		if (k && pt[k] == pt[k - 1])
			continue;
		while (j < m && it[j].lo <= pt[k])
			stack[depth++] = j++;
		while (depth && it[stack[depth - 1]].last < pt[k])
			depth--;
		who = depth ? it[stack[depth - 1]].pos : RANGE_NONE;
		if (x->n ? who != x->who[x->n - 1] : who != RANGE_NONE) {
			x->start[x->n] = pt[k];
			x->who[x->n++] = who;
		}
	}
	free(stack);
	free(pt);
	free(it);
}

size_t range_index_find(const struct range_index *x, uint64_t addr)
{
	size_t k = u64_search_above(x->start, x->n, addr);

	return k ? x->who[k - 1] : RANGE_NONE;
}

void range_index_release(struct range_index *x)
{
	free(x->start);
	free(x->who);
	memset(x, 0, sizeof(*x));
}
