/* lineahead.c - units' line tables decoded on a second thread ahead of their lookups (see lineahead.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lineahead.h"
#include "util.h"

enum job_state { QUEUED, BUSY, DONE, TAKEN };

struct job {
	struct lineahead_unit u;
	enum job_state state;
	int ok;                /* DONE: decoded */
	struct linetab t;
};

struct lineahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done;   /* a job became DONE */
	struct linesections s;
	struct linewant want;
	int all;               /* no want: every row */
	struct job *job;
	size_t n;
	int stop;
	int joined;
};

static void *run(void *arg)
{
	struct lineahead *a = arg;
	size_t i;

	/*
	 * From the last unit back: the lookups meet the units from the first
	 * on, and one the first thread reaches before this one is its own.
	 */
	pthread_mutex_lock(&a->lock);
	for (i = a->n; i-- > 0 && !a->stop;) {
		struct job *j = &a->job[i];

		/* Taken by the first thread, which decodes it itself. */
		if (j->state != QUEUED)
			continue;
		j->state = BUSY;
		pthread_mutex_unlock(&a->lock);
		j->ok = linetab_decode_at(&j->t, &a->s, j->u.off, j->u.address_size, j->u.comp_dir,
					  a->all ? NULL : &a->want) == 0;
		pthread_mutex_lock(&a->lock);
		j->state = DONE;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct lineahead *lineahead_start(const struct linesections *s, const struct lineahead_unit *u,
				  size_t n, const struct linewant *want)
{
	struct lineahead *a = xcalloc(1, sizeof(*a));
	size_t i;

	a->s = *s;
	if (want)
		a->want = *want;
	a->all = !want;
	a->job = xcalloc(n + 1, sizeof(*a->job));
	for (i = 0; i < n; i++)
		a->job[i].u = u[i];
	a->n = n;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->done, NULL);
	if (pthread_create(&a->thread, NULL, run, a) != 0) {
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->done);
		free(a->job);
		free(a);
		return NULL;
	}
	return a;
}

int lineahead_take(struct lineahead *a, uint64_t cu, struct linetab *t)
{
	struct job *j = NULL;
	size_t i;
	int ret = -1;

	for (i = 0; i < a->n && !j; i++)
		if (a->job[i].u.cu == cu)
			j = &a->job[i];
	if (!j)
		return -1;
	pthread_mutex_lock(&a->lock);
	if (j->state == QUEUED)
		j->state = TAKEN;
	while (j->state == BUSY)
		pthread_cond_wait(&a->done, &a->lock);
	if (j->state == DONE) {
		*t = j->t;
		memset(&j->t, 0, sizeof(j->t));
		j->state = TAKEN;
		ret = j->ok;
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}

void lineahead_wait(struct lineahead *a)
{
	if (!a->joined)
		pthread_join(a->thread, NULL);
	a->joined = 1;
}

void lineahead_stop(struct lineahead *a)
{
	size_t i;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_mutex_unlock(&a->lock);
	lineahead_wait(a);
	for (i = 0; i < a->n; i++)
		linetab_free(&a->job[i].t);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->done);
	free(a->job);
	free(a);
}
