/* ranges.h - the one lookup of an address among overlapping ranges (mappings, libraries). */
#ifndef PPROF_RANGES_H
#define PPROF_RANGES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Which of many address ranges holds an address, by the rule mappings
 * follow (gperftools pprof's): of the ranges that hold it, the one that
 * starts last, and among equal starts the one given first.  The ranges
 * are cut into disjoint pieces that each know their winner, so that a
 * lookup is one binary search however they overlap; scanning back over
 * overlapping ranges instead costs a lookup up to their number, which a
 * hostile profile can make large.
 *
 * Lifecycle: range_index_build (again whenever the ranges change; a built
 * index is released first), range_index_release.  A zeroed index is empty.
 */
struct range_index {
	uint64_t *start;   /* piece k is [start[k], start[k + 1]), the last to the end */
	size_t *who;       /* its winner, a position in the ranges given, or RANGE_NONE */
	size_t n;
};

#define RANGE_NONE SIZE_MAX

/* n ranges lo[i]..last[i], ends included; a range with last[i] < lo[i] holds nothing. */
void range_index_build(struct range_index *x, const uint64_t *lo, const uint64_t *last, size_t n);
/* The position of the range that holds addr, or RANGE_NONE. */
size_t range_index_find(const struct range_index *x, uint64_t addr);
void range_index_release(struct range_index *x);

#endif
