/* lineahead.h - units' line tables decoded on a second thread ahead of their lookups (symbolizer internal). */
#ifndef PPROF_LINEAHEAD_H
#define PPROF_LINEAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "linetab.h"

/*
 * A unit whose table is wanted: its DIE's offset (how lineahead_take
 * names it) and what linetab_decode_at takes, read from libdw beforehand.
 */
struct lineahead_unit {
	uint64_t cu;
	uint64_t off;
	unsigned address_size;
	const char *comp_dir;
};

struct lineahead;

/*
 * Starts decoding the n units' tables on a thread of their own, from the
 * last given back (the caller takes them from the first on); NULL when no
 * thread could start.  s and want are copied (want
 * NULL: every row); want's addresses and the strings must outlive
 * lineahead_stop.
 */
struct lineahead *lineahead_start(const struct linesections *s, const struct lineahead_unit *u,
				  size_t n, const struct linewant *want);

/*
 * The table of unit cu, into t: 1 when decoded, 0 when its decoding failed
 * (libdw's to read), -1 when it is not decoded ahead (the caller's to
 * read: a unit not asked for, or one the thread has not reached, which it
 * then leaves alone).  Waits while the thread decodes it.
 */
int lineahead_take(struct lineahead *a, uint64_t cu, struct linetab *t);

/* Waits until the thread has decoded every unit not taken before. */
void lineahead_wait(struct lineahead *a);

/* Stops the thread and frees the tables nobody took; NULL is nothing. */
void lineahead_stop(struct lineahead *a);

#endif
