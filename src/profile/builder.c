/* builder.c - adding many stacks of raw addresses fast (struct stack_builder). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

#define BATCH 64        /* records whose lookups overlap */
#define PC_CACHE_BITS 14 /* sets of recent callers' addresses and their locations */
#define PC_CACHE (1u << PC_CACHE_BITS)

struct pc_cache {
	uint64_t pc;
	uint32_t id;    /* its location's id; 0 for an empty entry */
};

struct stack_builder {
	struct profile *p;
	struct sample_queue *queue;
	struct pc_cache *cache;
	/* The batch: addresses back to back, then per record its depth and values. */
	uint64_t *addr;
	size_t naddr, cap_addr;
	uint32_t depth[BATCH];
	int64_t *value;        /* BATCH * nsample_type */
	size_t n;
	uint32_t *ids;         /* the batch's stacks as location indexes */
	size_t cap_ids;
	int keep_indexes;
	/* Sizing the index by address once (growth_estimate). */
	uint64_t records, expect;
	struct growth locations;
};

struct stack_builder *stack_builder_begin(struct profile *p)
{
	struct stack_builder *b = xcalloc(1, sizeof(*b));

	b->p = p;
	profile_index_ensure(p);
	b->cache = xcalloc(2 * PC_CACHE, sizeof(*b->cache));
	b->value = xcalloc(BATCH * (p->nsample_type + 1), sizeof(*b->value));
	b->queue = sample_queue_start(p);
	return b;
}

/* The cache's set for pc. */
static inline struct pc_cache *cache_set(const struct stack_builder *b, uint64_t pc)
{
	return &b->cache[2 * ((pc * 0x9e3779b97f4a7c15ULL) >> (64 - PC_CACHE_BITS))];
}

/* The index (id - 1) of the location at pc. */
static uint32_t lookup(struct stack_builder *b, uint64_t pc)
{
	/*
	 * Hot frames repeat in every record: a small cache before the table,
	 * two ways per set (the most recent first), as call sites collide.
	 */
	struct pc_cache *c = cache_set(b, pc);

	if (c[0].id && c[0].pc == pc)
		return c[0].id - 1;
	if (c[1].id && c[1].pc == pc) {
		struct pc_cache t = c[1];

		c[1] = c[0];
		c[0] = t;
		return t.id - 1;
	}
	c[1] = c[0];
	c[0].pc = pc;
	c[0].id = profile_location_index(b->p, pc) + 1;
	return c[0].id - 1;
}

/* The index by address sized for the estimate, and the queue told how many records come. */
static void estimate(struct stack_builder *b)
{
	size_t n = growth_watch(&b->locations, b->records, b->p->nlocation, b->expect);

	if (n)
		profile_expect_locations(b->p, n);
	if (b->locations.done)
		sample_queue_expect(b->queue, b->expect);
}

/*
 * Resolves the batch's locations (their table misses overlap), then hands
 * the records to the queue, which hashes and adds them on its thread.
 */
static void flush(struct stack_builder *b)
{
	/* Written into the queue's batch in place, when it has room for them. */
	uint32_t *ids = sample_queue_room(b->queue, b->n, b->naddr);
	size_t i, first = 0;

	if (!ids) {
		GROW(b->ids, b->cap_ids, b->naddr + 1);
		ids = b->ids;
	}
	for (i = 0; i < b->n; i++) {
		uint32_t k;

		/*
		 * Leaves are spread over every instruction, callers' return
		 * addresses over few call sites: only those are cached, so
		 * that leaves do not evict them.
		 */
		if (b->depth[i])
			ids[first] = profile_location_index(b->p, b->addr[first]);
		for (k = 1; k < b->depth[i]; k++)
			ids[first + k] = lookup(b, b->addr[first + k]);
		first += b->depth[i];
	}
	b->records += b->n;
	if (!b->locations.done)
		estimate(b);
	if (ids == b->ids)
		sample_queue_push_many(b->queue, ids, b->depth, b->n, b->value);
	else
		sample_queue_push_written(b->queue, b->depth, b->n, b->naddr, b->value);
	b->n = 0;
	b->naddr = 0;
}

uint64_t *stack_builder_reserve(struct stack_builder *b, size_t n)
{
	GROW(b->addr, b->cap_addr, b->naddr + n + 1);
	return b->addr + b->naddr;
}

void stack_builder_commit(struct stack_builder *b, size_t n, const int64_t *value)
{
	size_t nv = b->p->nsample_type, i;

	if (n > UINT32_MAX)
		BUG("stack_builder_commit: stack too deep");
	/*
	 * What flush will read, hinted now: the leaf's table slot and the
	 * callers' cache sets (the cache is as big as a core's L2).
	 */
	if (n)
		profile_prefetch_location(b->p, b->addr[b->naddr]);
	for (i = 1; i < n; i++)
		hint_read(cache_set(b, b->addr[b->naddr + i]));
	b->depth[b->n] = (uint32_t)n;
	memcpy(b->value + b->n * nv, value, nv * sizeof(*value));
	b->naddr += n;
	if (++b->n == BATCH)
		flush(b);
}

void stack_builder_add(struct stack_builder *b, const uint64_t *addr, size_t n,
		       const int64_t *value)
{
	memcpy(stack_builder_reserve(b, n), addr, n * sizeof(*addr));
	stack_builder_commit(b, n, value);
}

void stack_builder_add_indexes(struct stack_builder *b, const uint32_t *ids, size_t n,
			       const int64_t *value)
{
	/* The records before it go first: samples keep the order they came in. */
	if (b->n)
		flush(b);
	sample_queue_push(b->queue, ids, n, value);
}

void stack_builder_expect(struct stack_builder *b, uint64_t records)
{
	b->expect = records;
}

void stack_builder_follow(struct stack_builder *b, void (*follow)(void *), void *arg)
{
	sample_queue_follow(b->queue, follow, arg);
}

void stack_builder_keep_indexes(struct stack_builder *b)
{
	b->keep_indexes = 1;
}

void stack_builder_end(struct stack_builder *b)
{
	if (!b)
		return;
	flush(b);
	sample_queue_finish(b->queue);
	/* Symbolization and reports come next, and look nothing up by address or stack. */
	if (!b->keep_indexes)
		profile_drop_indexes(b->p);
	free(b->cache);
	free(b->value);
	free(b->addr);
	free(b->ids);
	free(b);
}
