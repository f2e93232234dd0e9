/* views.h - what Go pprof's views (traces, tree, peek, tags, flame) share (private to src/report). */
#ifndef PPROF_VIEWS_H
#define PPROF_VIEWS_H

#include <stdint.h>
#include <stdio.h>

#include "htab.h"
#include "report.h"

/* Room for a name: keys are used as they are, only composed names are cut to it. */
#define VIEW_NAME_MAX 4096

/* The name a report prints for an entry (as --text prints it); buf holds composed ones. */
const char *view_name(const struct entry *e, const struct report_options *o, char *buf, size_t n);

/* The same as Go pprof prints it: " (inline)" at the end ("f file:line (inline)"). */
const char *view_go_name(const struct entry *e, const struct report_options *o, char *buf,
			 size_t n);

/*
 * A value in the style of r, with show as the output unit instead of the
 * report's own ("minimum": each value scaled by itself, as Go pprof's
 * traces and tags print them).
 */
void view_value(const struct report *r, const char *show, int64_t v, char *buf, size_t n);
/* The unit Go pprof prints a view's values in before choosing one: --unit, else "minimum". */
const char *view_show(const struct report_options *o);

/*
 * Go pprof's report header: the format's lines (Type, Duration), the
 * profile's comments, and the active filters ("Active filters:", one
 * "   name=value" line each).
 */
void view_header(FILE *out, const struct profile *p, const struct report_options *o);

/*
 * The call graph of a report's stacks as Go pprof builds it
 * (internal/graph).  Its nodes are entries, but an entry of a function
 * inlined into its caller ("f (inline)", "f (inline) file:line") is one
 * node with the function's other entry ("f"), as Go names it; an edge into
 * such an entry is an inline edge.  Per node a flat and a cumulative value,
 * and weighted edges from caller to callee, each counted once per stack.
 * With kept (by node), other nodes are left out and their callers join
 * their callees (Go's "residual" edges); a stack's flat value goes to its
 * leaf only if the leaf is kept.  Stacks of value 0 add nothing.
 */
struct vedge {
	uint32_t src, dst;       /* nodes */
	int64_t w;
	int inl;                 /* every call it stands for was inlined */
};

struct vgraph {
	const struct report *r;
	uint32_t *rep;           /* per entry: its node (the first entry of its name) */
	const char **name;       /* per entry: its node's name, without "(inline)" */
	struct arena names;      /* the names not the report's own */
	uint8_t *inl;            /* per entry: an inlined function's */
	int shared_names;        /* some entries share a node (f and "f (inline)") */
	int64_t *flat, *cum;     /* per node */
	struct vedge *edge;
	size_t nedge, cap_edge;
	struct htab index;       /* edges by (src, dst) */
	uint32_t *node;          /* the nodes with a value, sorted (vgraph_sort) */
	size_t nnode;
	uint32_t *in_off, *out_off, *in, *out; /* edge indexes per node (vgraph_links) */
};

/*
 * The graph of r's kept stacks (of the entries kept, when kept is not
 * NULL; a stack passing others gets the edges around them).  Without
 * edges, only the nodes and their values: what trimming decides by.
 */
void vgraph_build(struct vgraph *g, const struct report *r, const struct report_options *o,
		  const uint8_t *kept, int edges);
/*
 * g built again on the entries kept only, with its edges; its names and
 * nodes' representatives stay as they were.
 */
void vgraph_keep(struct vgraph *g, const uint8_t *kept);
/*
 * The edges of a graph built without them and without kept: those at a
 * node want has (every edge when want is NULL), each as the whole graph has it.
 */
void vgraph_add_edges(struct vgraph *g, const uint8_t *want);
void vgraph_release(struct vgraph *g);
/* Sorts the nodes as Go does: |flat| (|cum| with cum), name, |cum| (|flat|). */
void vgraph_sort(struct vgraph *g, const struct report_options *o);
/* Drops edges lighter than cutoff (in absolute value) into nodes, as Go's trimming does. */
void vgraph_trim_edges(struct vgraph *g, int64_t cutoff);
/* Sorted in- and out-edge lists per node: |weight|, then the names. */
void vgraph_links(struct vgraph *g);

#endif
