/* graph.h - the call graph of a report: nodes, caller->callee edges, gperftools pprof's trimming. */
#ifndef PPROF_GRAPH_H
#define PPROF_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "report.h"

/* The trimming options, as --nodecount, --nodefraction, --edgefraction, --maxdegree. */
struct graph_options {
	int nodecount;           /* keep at most this many nodes (80) */
	double nodefraction;     /* then drop nodes with |cum| <= int(F * local_total) (0.005) */
	double edgefraction;     /* and edges with |count| <= int(F * local_total) (0.001) */
	int maxdegree;           /* kept edges into or out of one node (8) */
};

/* A node: one entry of the report. */
struct graph_node {
	const struct entry *entry; /* key, flat, cum; borrowed from the report */
};

/*
 * An edge: src called dst directly in count samples (the sum over the
 * stacks holding the adjacent caller->callee pair, each stack counted once
 * however often the pair repeats in it, as Go pprof counts; recursion
 * still gives self-edges).  gperftools pprof counts every occurrence.
 */
struct graph_edge {
	uint32_t src, dst;       /* node indexes */
	int64_t count;
};

/*
 * Invariants, as gperftools pprof's PrintDot has them:
 * - node[] holds the kept nodes sorted by |cum| descending, then key
 *   ascending (byte order); node i is drawn as "N<i+1>".  Every kept node
 *   has |cum| > node_limit.
 * - edge[] holds the kept edges by count descending (ties: src, then dst
 *   ascending, where pprof uses Perl's hash order).  An edge between kept
 *   nodes is kept when it is the first edge into its target; otherwise it
 *   is dropped when |count| <= edge_limit or when its source already has
 *   maxdegree kept out-edges or its target maxdegree kept in-edges.  No
 *   edge bridges a dropped node.
 * Lifecycle: graph_build fills a zeroed or released graph, graph_release
 * frees it; the graph borrows the report's entries, so the report must
 * outlive it.
 */
struct graph {
	struct graph_node *node;
	size_t nnode;
	struct graph_edge *edge;
	size_t nedge;
	int64_t total;           /* the report's total and local total (percentage base) */
	int64_t local_total;
	int64_t node_limit;      /* int(nodefraction * local_total): "Dropped nodes with <= N" */
	int64_t edge_limit;      /* int(edgefraction * local_total): "Dropped edges with <= N" */
	size_t candidates;       /* entries that occur in some stack */
	size_t dropped_nodes;    /* candidates not kept (nodecount, then nodefraction) */
	size_t candidate_edges;  /* distinct caller->callee pairs between kept nodes */
	size_t dropped_edges;    /* of those, not kept (edgefraction, maxdegree) */
};

/*
 * Builds the graph of r, which must have been built with keep_stacks.
 * No kept node (an empty profile, or --nodecount=0) is not an error here:
 * nnode is 0.  Returns -1 with e set when r has no stacks to read.
 */
int graph_build(const struct report *r, const struct graph_options *o, struct graph *g,
		struct err *e);
void graph_release(struct graph *g);

#endif
