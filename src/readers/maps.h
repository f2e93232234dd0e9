/* maps.h - the mapped-object list that ends legacy profiles (readers' internal). */
#ifndef PPROF_READERS_MAPS_H
#define PPROF_READERS_MAPS_H

#include <stddef.h>

#include "profile.h"
#include "err.h"

/*
 * Adds to p a mapping for every executable, named mapping in text (len
 * bytes): /proc/self/maps lines, cooked "start-end: path" lines, and
 * "build=PATH" lines that set what "$build" in later paths stands for.
 * Other lines are ignored; malformed mapping lines are warned about,
 * naming the file.
 */
void maps_parse(struct profile *p, const char *name, const char *text, size_t len);
/* The same, silent: -1 at the first malformed line (p has the mappings before it). */
int maps_parse_clean(struct profile *p, const char *text, size_t len);

#endif
