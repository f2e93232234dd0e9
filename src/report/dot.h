/* dot.h - the call graph as a cgraph graph, shared by the dot format and the gvc renderers. */
#ifndef PPROF_DOT_H
#define PPROF_DOT_H

#include <cgraph.h>

#include "err.h"
#include "profile.h"
#include "report.h"

/* The smallest font of a node: gperftools pprof's 8 points are unreadable in large graphs. */
#define DOT_MIN_FONT 12.0

enum dot_flags {
	DOT_PAGE_SIZE = 1 << 0,  /* size="8,11", as pprof sets for --pdf */
};

/*
 * Runs the report pipeline on p and builds gperftools pprof's DOT graph of
 * it: the legend, nodes N1... and the kept edges.  Prints pprof's
 * "Dropping nodes ..." note on stderr when a limit is above 0 (unless
 * o->quiet).  Returns a graph the caller closes with agclose, or NULL with
 * e set ("no nodes to print" when nothing is left after trimming).
 */
Agraph_t *dot_graph_new(const struct profile *p, const struct report_options *o,
			enum dot_flags flags, struct err *e);

#endif
