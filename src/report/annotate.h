/* annotate.h - what --list and --disasm share: counts per address, routines, source files. */
#ifndef PPROF_ANNOTATE_H
#define PPROF_ANNOTATE_H

#include <stdio.h>

#include "code.h"
#include "htab.h"
#include "report.h"

/*
 * A profile reduced to addresses as gperftools pprof reduces it for
 * --list and --disasm (frame removal, focus and ignore applied; each
 * address counted once per stack), with the routines that RE selects.
 */
struct annotation {
	struct report r;
	uint64_t *addr;        /* ascending */
	int64_t *flat, *cum;
	size_t n;
	struct code *code;
	int own_code;          /* code is this annotation's, not the report cache's */
	struct routine *routine;
	size_t nroutine;
};

/*
 * Builds it; fails with e set on a bad regex or report failure.  Finding
 * no routine is not a failure here (nroutine is 0).
 */
int annotation_build(struct annotation *a, const struct profile *p, const struct report_options *o,
		     const char *what, struct err *e);
void annotation_release(struct annotation *a);

/* The flat and cumulative sums of the addresses in [lo, hi). */
void annotation_sum(const struct annotation *a, uint64_t lo, uint64_t hi, int64_t *flat,
		    int64_t *cum);

/* A value as pprof prints it in listings: "." for 0. */
void annotation_value(const struct annotation *a, int64_t v, char *buf, size_t n);
/* The unit pprof names in routine headers: "samples". */
const char *annotation_unit(const struct annotation *a);

/* A source file's lines, "\r" removed and without their "\n". */
struct source {
	const char *name;      /* as the debug information names it */
	char *text;
	char **line;           /* line[1] .. line[nline]; NULL when unreadable */
	size_t nline;
};

/*
 * Source files read once per report.  Without --source_path and
 * --trim_path a name is opened as it is, as gperftools pprof does; with
 * them, as Go pprof finds sources: the name's configured prefix (or, with
 * no --trim_path, everything up to a search directory's base name) is
 * trimmed, and a relative name is looked for under each search directory
 * and its parents (the current directory when --source_path is empty),
 * never out of the directory it is looked for in ("..", symbolic links:
 * open_beneath).  An unreadable file is reported once on stderr.
 */
struct sources {
	const char *search, *trim;
	struct source *v;
	size_t n, cap;
	struct htab by_name;   /* v by name: a listing of many routines asks each */
};

void sources_init(struct sources *s, const struct report_options *o);
void sources_release(struct sources *s);
const struct source *sources_get(struct sources *s, const char *name);

#endif
