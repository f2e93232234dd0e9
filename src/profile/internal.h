/* internal.h - the model's private speed plumbing: hashing, prefetching, the sample queue. */
#ifndef PPROF_PROFILE_INTERNAL_H
#define PPROF_PROFILE_INTERNAL_H

#include "profile.h"

/*
 * The hash of a stack (as location indexes, id - 1), hints that an address
 * or stack will be looked up soon, and profile_add_sample of indexes with
 * the stack's hash already known: for the stack builder and the sample
 * queue, which batch records to overlap memory latency.
 * A stack's lookup misses the cache up to twice in a row (the table slot,
 * the sample it names), so hints come in two stages, the second given once
 * the first has had time to arrive: prefetch_sample, then _body.  An
 * address's slot holds the address itself: prefetch_location is all a
 * lookup by index needs, and prefetch_location_body brings the location
 * too, for callers that read it.
 */
uint64_t profile_stack_hash(const uint32_t *ids, size_t n);
/* profile_location's index (id - 1), without reading the location when it exists. */
uint32_t profile_location_index(struct profile *p, uint64_t addr);
void profile_prefetch_location(const struct profile *p, uint64_t addr);
void profile_prefetch_location_body(const struct profile *p, uint64_t addr);
void profile_prefetch_sample(const struct profile *p, uint64_t stack_hash);
void profile_prefetch_sample_body(const struct profile *p, uint64_t stack_hash);
struct sample *profile_add_sample_hashed(struct profile *p, const uint32_t *ids, size_t n,
					 const int64_t *value, uint64_t stack_hash);

/*
 * The indexes by address and by stack are needed only while locations and
 * samples are added: a big read drops them when it ends (profile.h), and
 * the next addition makes them again.  Builders need them at hand (ensure).
 */
void profile_index_ensure(struct profile *p);

/*
 * Growing those indexes while a big read goes on costs it dearly: every
 * doubling moves all that the table holds while the other thread waits.
 * A reader that can tell how far through its input it is says so, and
 * once the first records show how fast new locations and stacks still
 * come, each index is sized once for the estimate of its final count
 * (growth_estimate), and grows on from there only if that was short.
 */
void profile_expect_locations(struct profile *p, size_t n);
void profile_expect_samples(struct profile *p, size_t n);

#define ESTIMATE_AT 32768  /* records: a first count here, the estimate at twice as many */
#define GROWTH_LIMIT 16    /* an estimate is at most this many times the second count */

/*
 * The final count of distinct things (locations, stacks) after total
 * records, from first of them after at_first records and second after
 * at_second: the growth between the two continued as a power of the
 * records (new things come ever more slowly), at most linear and at most
 * GROWTH_LIMIT times second.  0 when total is not known or not more than
 * at_second, or nothing new came.
 */
size_t growth_estimate(size_t first, uint64_t at_first, size_t second, uint64_t at_second,
		       uint64_t total);

/* A count watched as records go by, for one estimate. */
struct growth {
	uint64_t at_first;
	size_t first;
	int done;
};

/*
 * Called after each batch with the records so far and the count: notes the
 * first count at ESTIMATE_AT records, and at twice as many returns the
 * estimate for total records (0 for none) and sets done.
 */
size_t growth_watch(struct growth *g, uint64_t records, size_t count, uint64_t total);

/*
 * A queue that adds samples on a second thread while the caller goes on
 * reading: push copies the stack (location indexes) and values, the thread
 * hashes and adds them; finish waits until all are added.  Between start
 * and finish only the queue may add samples, and the caller must not add
 * functions or lines (locations and mappings are fine).
 * The thread starts with the first full batch (a small profile is added
 * by finish alone); without one, push adds each full batch itself.
 */
struct sample_queue;
struct sample_queue *sample_queue_start(struct profile *p);
void sample_queue_push(struct sample_queue *q, const uint32_t *ids, size_t n, const int64_t *value);
/* n records at once: their stacks back to back in ids, depth[i] indexes each, their values. */
void sample_queue_push_many(struct sample_queue *q, const uint32_t *ids, const uint32_t *depth,
			    size_t n, const int64_t *value);
/*
 * Room for the stacks of n records, nids indexes in all, in the batch
 * being filled, to be written there in place and then pushed by
 * sample_queue_push_written; NULL when the batch has no room for n.
 */
uint32_t *sample_queue_room(struct sample_queue *q, size_t n, size_t nids);
void sample_queue_push_written(struct sample_queue *q, const uint32_t *depth, size_t n,
			       size_t nids, const int64_t *value);
void sample_queue_finish(struct sample_queue *q);
/* How many records there will be in all (the reader's estimate), for sizing the index by stack. */
void sample_queue_expect(struct sample_queue *q, uint64_t records);
/* follow(arg) after each batch added (stack_builder_follow). */
void sample_queue_follow(struct sample_queue *q, void (*follow)(void *), void *arg);

#endif
