/* builder.c - adding many stacks of raw addresses fast (struct stack_builder). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

#define BATCH 64        /* records whose lookups overlap */
#define AHEAD 8         /* records between a leaf's two hints */
#define PC_CACHE_BITS 14 /* sets of recent callers' addresses and their locations */
#define PC_CACHE (1u << PC_CACHE_BITS)

struct pc_cache {
	uint64_t pc;
	struct location *loc;
};

struct stack_builder {
	struct profile *p;
	struct sample_queue *queue;
	struct pc_cache *cache;
	/* The batch: addresses back to back, then per record its depth and values. */
	uint64_t *addr;
	size_t naddr, cap_addr;
	uint32_t depth[BATCH];
	size_t start[BATCH];   /* each record's first address */
	int64_t *value;        /* BATCH * nsample_type */
	size_t n;
	struct location **stack;
	size_t cap_stack;
	int keep_indexes;
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

static struct location *lookup(struct stack_builder *b, uint64_t pc)
{
	/*
	 * Hot frames repeat in every record: a small cache before the table,
	 * two ways per set (the most recent first), as call sites collide.
	 */
	struct pc_cache *c = &b->cache[2 * ((pc * 0x9e3779b97f4a7c15ULL) >> (64 - PC_CACHE_BITS))];

	if (c[0].loc && c[0].pc == pc)
		return c[0].loc;
	if (c[1].loc && c[1].pc == pc) {
		struct pc_cache t = c[1];

		c[1] = c[0];
		c[0] = t;
		return t.loc;
	}
	c[1] = c[0];
	c[0].pc = pc;
	return c[0].loc = profile_location(b->p, pc);
}

/*
 * Resolves the batch's locations and hashes its stacks (their table misses
 * overlap), then hands the records to the queue.
 */
static void flush(struct stack_builder *b)
{
	size_t nv = b->p->nsample_type, i, first = 0;
	uint64_t hash[BATCH];

	GROW(b->stack, b->cap_stack, b->naddr + 1);
	for (i = b->n > AHEAD ? b->n - AHEAD : 0; i < b->n; i++)
		if (b->depth[i])
			profile_prefetch_location_body(b->p, b->addr[b->start[i]]);
	for (i = 0; i < b->n; i++) {
		uint32_t k;

		/*
		 * Leaves are spread over every instruction, callers' return
		 * addresses over few call sites: only those are cached, so
		 * that leaves do not evict them.
		 */
		if (b->depth[i])
			b->stack[first] = profile_location(b->p, b->addr[first]);
		for (k = 1; k < b->depth[i]; k++)
			b->stack[first + k] = lookup(b, b->addr[first + k]);
		hash[i] = profile_stack_hash(b->stack + first, b->depth[i]);
		first += b->depth[i];
	}
	for (i = 0, first = 0; i < b->n; i++) {
		sample_queue_push(b->queue, b->stack + first, b->depth[i], b->value + i * nv, hash[i]);
		first += b->depth[i];
	}
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
	size_t nv = b->p->nsample_type;

	if (n > UINT32_MAX)
		BUG("stack_builder_commit: stack too deep");
	/* The leaf's table slot now, what it names once the slot has arrived. */
	if (n)
		profile_prefetch_location(b->p, b->addr[b->naddr]);
	if (b->n >= AHEAD && b->depth[b->n - AHEAD])
		profile_prefetch_location_body(b->p, b->addr[b->start[b->n - AHEAD]]);
	b->start[b->n] = b->naddr;
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
	free(b->stack);
	free(b);
}
