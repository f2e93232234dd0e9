/* symlist.h - gperftools pprof's symbol lists of locations, for the outputs that print them (report-internal). */
#ifndef PPROF_REPORT_SYMLIST_H
#define PPROF_REPORT_SYMLIST_H

#include <stdio.h>

#include "arena.h"
#include "profile.h"
#include "report.h"

/*
 * One frame of an address as pprof lists it: its short name, "file:line"
 * ("??:0" when unknown, "?" in symbolized profiles) and full name (the
 * name, with "<ADDRESS>" when it came from the symbol table).
 */
struct symframe {
	const char *shrt, *fileline, *full;
};

/*
 * The frames of every location of a profile, outermost first, by location
 * id; a location whose object was never read has none (pprof has no list
 * for it).  Strings live in the arena.
 */
struct symlists {
	struct arena arena;
	struct symframe **frame;
	uint32_t *nframe;
};

void symlists_init(struct symlists *s, const struct profile *p, int keep_templates);
void symlists_release(struct symlists *s);

/*
 * --text --stacks: every stack of p (after frame removal and focus) with
 * its value, "%-8d" and "(ADDRESS) FILE:LINE:SHORT" per frame, as pprof
 * prints them.
 */
int report_stacks(FILE *out, const struct profile *p, const struct report_options *o,
		  struct err *e);

#endif
