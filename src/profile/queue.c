/* queue.c - adding samples on a second thread while a reader parses. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

#define QUEUE_RECORDS 512  /* records per batch */
#define QUEUE_SLOTS 32     /* batches in flight */
#define WAKE_AT 4          /* a waiting thread is woken this many batches on */
#define DISTANCE 16        /* records between the stages of a lookup's hints */

struct batch {
	size_t n;
	uint32_t *depth;
	uint64_t *hash;
	int64_t *value;        /* n * nvalue */
	uint32_t *ids;         /* all stacks as location indexes, back to back */
	size_t nids, cap_ids;
};

struct sample_queue {
	struct profile *p;
	size_t nvalue;
	struct batch b[QUEUE_SLOTS];
	size_t head, tail, filled; /* fill at head, drain at tail */
	int done, threaded, started;
	int filler_waits, drainer_waits;
	void (*follow)(void *);   /* after each batch (sample_queue_follow) */
	void *follow_arg;
	/*
	 * Sizing the index by stack once (growth_estimate): the filler's
	 * estimate of the records (under mu), the drainer's copy of it, the
	 * records drained and the count watched.
	 */
	uint64_t expect, expect_seen, records;
	struct growth samples;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t can_fill, can_drain;
};

/*
 * Hashes the batch's stacks, then adds its samples.  Each lookup's two
 * dependent misses are hinted ahead in stages, DISTANCE records apart, so
 * that they overlap.
 */
static void drain(struct sample_queue *q, struct batch *b)
{
	const uint32_t *ids = b->ids;
	size_t k;

	for (k = 0; k < b->n; k++) {
		b->hash[k] = profile_stack_hash(ids, b->depth[k]);
		ids += b->depth[k];
	}
	for (k = 0, ids = b->ids; k < b->n; k++) {
		if (k + 2 * DISTANCE < b->n)
			profile_prefetch_sample(q->p, b->hash[k + 2 * DISTANCE]);
		if (k + DISTANCE < b->n)
			profile_prefetch_sample_body(q->p, b->hash[k + DISTANCE]);
		profile_add_sample_hashed(q->p, ids, b->depth[k], b->value + k * q->nvalue,
					  b->hash[k]);
		ids += b->depth[k];
	}
	q->records += b->n;
	if (q->follow)
		q->follow(q->follow_arg);
	if (!q->samples.done) {
		size_t n = growth_watch(&q->samples, q->records, q->p->nsample, q->expect_seen);

		/* The index by stack sized once for the estimate. */
		if (n)
			profile_expect_samples(q->p, n);
	}
	b->n = 0;
	b->nids = 0;
}

static void *worker(void *arg)
{
	struct sample_queue *q = arg;

	for (;;) {
		struct batch *b;

		pthread_mutex_lock(&q->mu);
		if (!q->filled && !q->done) {
			q->drainer_waits = 1;
			while (q->filled < WAKE_AT && !q->done)
				pthread_cond_wait(&q->can_drain, &q->mu);
			q->drainer_waits = 0;
		}
		if (!q->filled) {
			pthread_mutex_unlock(&q->mu);
			return NULL;
		}
		b = &q->b[q->tail];
		q->expect_seen = q->expect;
		pthread_mutex_unlock(&q->mu);
		drain(q, b);
		pthread_mutex_lock(&q->mu);
		q->tail = (q->tail + 1) % QUEUE_SLOTS;
		q->filled--;
		if (q->filler_waits && q->filled <= QUEUE_SLOTS - WAKE_AT)
			pthread_cond_signal(&q->can_fill);
		pthread_mutex_unlock(&q->mu);
	}
}

struct sample_queue *sample_queue_start(struct profile *p)
{
	struct sample_queue *q = xcalloc(1, sizeof(*q));

	q->p = p;
	q->nvalue = p->nsample_type;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->can_fill, NULL);
	pthread_cond_init(&q->can_drain, NULL);
	return q;
}

/* A batch's arrays, when the filler first comes to it: a small profile fills one. */
static void batch_alloc(struct sample_queue *q, struct batch *b)
{
	b->depth = xcalloc(QUEUE_RECORDS, sizeof(*b->depth));
	b->hash = xcalloc(QUEUE_RECORDS, sizeof(*b->hash));
	b->value = xcalloc(QUEUE_RECORDS * (q->nvalue + 1), sizeof(*b->value));
	/* Never NULL: drain steps through it even when every stack is empty. */
	GROW(b->ids, b->cap_ids, QUEUE_RECORDS);
}

/*
 * Hands the batch at head to the worker and waits for a free one.  Each
 * side sleeps until the other is WAKE_AT batches on (or done), not one:
 * with the threads nearly even, waking for every batch cost a switch each.
 */
static void publish(struct sample_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->filled++;
	q->head = (q->head + 1) % QUEUE_SLOTS;
	if (q->drainer_waits && q->filled >= WAKE_AT)
		pthread_cond_signal(&q->can_drain);
	if (q->filled == QUEUE_SLOTS) {
		q->filler_waits = 1;
		while (q->filled > QUEUE_SLOTS - WAKE_AT)
			pthread_cond_wait(&q->can_fill, &q->mu);
		q->filler_waits = 0;
	}
	pthread_mutex_unlock(&q->mu);
}

/* Hands the full batch at head on: to the thread, or adds it here without one. */
static void batch_full(struct sample_queue *q, struct batch *b)
{
	/* The worker starts with the first full batch: small profiles need none. */
	if (!q->started) {
		q->started = 1;
		q->threaded = pthread_create(&q->thread, NULL, worker, q) == 0;
	}
	if (q->threaded) {
		publish(q);
	} else {
		q->expect_seen = q->expect;
		drain(q, b);
	}
}

void sample_queue_push_many(struct sample_queue *q, const uint32_t *ids, const uint32_t *depth,
			    size_t n, const int64_t *value)
{
	while (n) {
		struct batch *b = &q->b[q->head];
		size_t room = QUEUE_RECORDS - b->n, k = n < room ? n : room, nids = 0, i;

		if (!b->depth)
			batch_alloc(q, b);
		for (i = 0; i < k; i++)
			nids += depth[i];
		/* Empty stacks (profile.proto has them) may come as NULL: nothing to copy. */
		if (nids) {
			GROW(b->ids, b->cap_ids, b->nids + nids);
			memcpy(b->ids + b->nids, ids, nids * sizeof(*ids));
			b->nids += nids;
		}
		memcpy(b->depth + b->n, depth, k * sizeof(*depth));
		memcpy(b->value + b->n * q->nvalue, value, k * q->nvalue * sizeof(*value));
		b->n += k;
		ids += nids;
		depth += k;
		value += k * q->nvalue;
		n -= k;
		if (b->n == QUEUE_RECORDS)
			batch_full(q, b);
	}
}

uint32_t *sample_queue_room(struct sample_queue *q, size_t n, size_t nids)
{
	struct batch *b = &q->b[q->head];

	if (!b->depth)
		batch_alloc(q, b);
	if (QUEUE_RECORDS - b->n < n)
		return NULL;
	GROW(b->ids, b->cap_ids, b->nids + nids);
	return b->ids + b->nids;
}

void sample_queue_push_written(struct sample_queue *q, const uint32_t *depth, size_t n,
			       size_t nids, const int64_t *value)
{
	struct batch *b = &q->b[q->head];

	b->nids += nids;
	memcpy(b->depth + b->n, depth, n * sizeof(*depth));
	memcpy(b->value + b->n * q->nvalue, value, n * q->nvalue * sizeof(*value));
	b->n += n;
	if (b->n == QUEUE_RECORDS)
		batch_full(q, b);
}

void sample_queue_push(struct sample_queue *q, const uint32_t *ids, size_t n, const int64_t *value)
{
	uint32_t depth = (uint32_t)n;

	sample_queue_push_many(q, ids, &depth, 1, value);
}

void sample_queue_expect(struct sample_queue *q, uint64_t records)
{
	pthread_mutex_lock(&q->mu);
	q->expect = records;
	pthread_mutex_unlock(&q->mu);
}

void sample_queue_follow(struct sample_queue *q, void (*follow)(void *), void *arg)
{
	/* The worker reads it without a lock: set before the worker starts. */
	if (q->started)
		BUG("sample_queue_follow after the first batch");
	q->follow = follow;
	q->follow_arg = arg;
}

void sample_queue_finish(struct sample_queue *q)
{
	size_t i;

	if (q->b[q->head].n) {
		if (q->threaded) {
			pthread_mutex_lock(&q->mu);
			q->filled++;
			q->head = (q->head + 1) % QUEUE_SLOTS;
			pthread_cond_signal(&q->can_drain);
			pthread_mutex_unlock(&q->mu);
		} else {
			drain(q, &q->b[q->head]);
		}
	}
	if (q->threaded) {
		pthread_mutex_lock(&q->mu);
		q->done = 1;
		pthread_cond_signal(&q->can_drain);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->thread, NULL);
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->can_fill);
	pthread_cond_destroy(&q->can_drain);
	for (i = 0; i < QUEUE_SLOTS; i++) {
		free(q->b[i].depth);
		free(q->b[i].hash);
		free(q->b[i].value);
		free(q->b[i].ids);
	}
	free(q);
}
