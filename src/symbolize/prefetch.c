/* prefetch.c - objects' DWARF read on a second thread while the first symbolizes (see objects.h). */
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>

#include "objects.h"
#include "util.h"

struct prefetch {
	pthread_t thread;
	int started;
	pthread_mutex_t lock;
	pthread_cond_t done;   /* an object became PREFETCH_DONE */
	struct object **queue;
	size_t n, cap, next;   /* next: the first the thread has not looked at */
};

void prefetch_queue(struct symbolizer *s, struct object *ob)
{
	struct prefetch *pf = s->prefetch;

	if (!pf) {
		pf = s->prefetch = xcalloc(1, sizeof(*pf));
		pthread_mutex_init(&pf->lock, NULL);
		pthread_cond_init(&pf->done, NULL);
	}
	GROW(pf->queue, pf->cap, pf->n + 1);
	pf->queue[pf->n++] = ob;
	ob->queued = 1;
	ob->prefetch = PREFETCH_QUEUED;
}

static void *run(void *arg)
{
	struct prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	while (pf->next < pf->n) {
		struct object *ob = pf->queue[pf->next++];
		Dwarf_Addr bias;

		/* Taken back by the first thread, which reads it itself. */
		if (ob->prefetch != PREFETCH_QUEUED)
			continue;
		ob->prefetch = PREFETCH_BUSY;
		pthread_mutex_unlock(&pf->lock);
		/* libdwfl keeps the result: the first thread's call returns it. */
		dwfl_module_getdwarf(ob->mod, &bias);
		pthread_mutex_lock(&pf->lock);
		ob->prefetch = PREFETCH_DONE;
		pthread_cond_broadcast(&pf->done);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

void prefetch_start(struct symbolizer *s)
{
	struct prefetch *pf = s->prefetch;

	/* One object is the first thread's work anyway. */
	if (!pf || pf->n < 2 || pf->started)
		return;
	pf->started = pthread_create(&pf->thread, NULL, run, pf) == 0;
}

void prefetch_wait(struct symbolizer *s, struct object *ob)
{
	struct prefetch *pf = s->prefetch;

	/* The thread has only objects queued before it started. */
	if (!ob->queued)
		return;
	pthread_mutex_lock(&pf->lock);
	if (ob->prefetch == PREFETCH_QUEUED)
		ob->prefetch = PREFETCH_DONE;
	while (ob->prefetch != PREFETCH_DONE)
		pthread_cond_wait(&pf->done, &pf->lock);
	pthread_mutex_unlock(&pf->lock);
}

void prefetch_finish(struct symbolizer *s)
{
	struct prefetch *pf = s->prefetch;
	size_t i;

	if (!pf)
		return;
	/* Every queued object is read before the session goes on without the thread. */
	for (i = 0; i < pf->n; i++)
		object_dwarf(s, pf->queue[i]);
	if (pf->started)
		pthread_join(pf->thread, NULL);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->done);
	free(pf->queue);
	free(pf);
	s->prefetch = NULL;
}
