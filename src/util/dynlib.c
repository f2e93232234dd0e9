/* dynlib.c - libraries opened when first needed (dynlib.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dynlib.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void open_library(struct dynlib *l)
{
	const struct dynsym *s;
	char first[200] = "not found";
	void *h = NULL;
	size_t i, n;

	for (i = 0; l->names[i] && !h; i++) {
		const char *why;

		h = dlopen(l->names[i], RTLD_NOW | RTLD_LOCAL);
		/* Why the first name failed: "NAME: why" from the loader, NAME said once. */
		if (!h && i == 0 && (why = dlerror())) {
			n = strlen(l->names[0]);
			if (!strncmp(why, l->names[0], n) && !strncmp(why + n, ": ", 2))
				why += n + 2;
			snprintf(first, sizeof(first), "%s", why);
		}
	}
	if (!h) {
		snprintf(l->why, sizeof(l->why), "cannot load %s: %s", l->names[0], first);
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
