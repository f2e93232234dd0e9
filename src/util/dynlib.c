/* dynlib.c - libraries opened when first needed (dynlib.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "dynlib.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void open_library(struct dynlib *l)
{
	const struct dynsym *s;
	const char *why;
	void *h = NULL;
	size_t i;

	for (i = 0; l->names[i] && !h; i++)
		h = dlopen(l->names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		why = dlerror();
		snprintf(l->why, sizeof(l->why), "cannot load %s: %s", l->names[0],
			 why ? why : "not found");
		return;
	}
	for (s = l->syms; s->name; s++)
		if (!(*s->addr = dlsym(h, s->name))) {
			/* The library stays open; nothing of it is used. */
			snprintf(l->why, sizeof(l->why), "%s has no %s", l->names[0], s->name);
			return;
		}
	l->ok = 1;
}

int dynlib_load(struct dynlib *l, struct err *e)
{
	pthread_mutex_lock(&lock);
	if (!l->tried) {
		l->tried = 1;
		open_library(l);
	}
	pthread_mutex_unlock(&lock);
	return l->ok ? 0 : err_set(e, "%s", l->why);
}
