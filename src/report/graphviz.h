/* graphviz.h - Graphviz's cgraph and gvc, opened when the first graph is made (dynlib.h). */
#ifndef PPROF_GRAPHVIZ_H
#define PPROF_GRAPHVIZ_H

#include <gvc.h>

#include "err.h"

/*
 * Linked, libgvc and what it brings (libcgraph, libcdt, libpathplan,
 * libltdl, libexpat) took about 1 ms of every start, a graph or not.
 * The functions the graphs use, by their own names, once graphviz_load
 * has returned 0.
 */
struct graphviz {
	Agdesc_t *directed;   /* Agdirected */
	__typeof__(agopen) *agopen;
	__typeof__(agclose) *agclose;
	__typeof__(agnode) *agnode;
	__typeof__(agedge) *agedge;
	__typeof__(agattr) *agattr;
	__typeof__(agsafeset) *agsafeset;
	__typeof__(agwrite) *agwrite;
	__typeof__(agseterrf) *agseterrf;
	__typeof__(gvContext) *gvContext;
	__typeof__(gvContextPlugins) *gvContextPlugins;
	__typeof__(gvFreeContext) *gvFreeContext;
	__typeof__(gvPluginList) *gvPluginList;
	__typeof__(gvLayout) *gvLayout;
	__typeof__(gvFreeLayout) *gvFreeLayout;
	__typeof__(gvRenderData) *gvRenderData;
	__typeof__(gvFreeRenderData) *gvFreeRenderData;
};

extern struct graphviz gv;

/* Opens libgvc, once a run: 0, else -1 with e saying why. */
int graphviz_load(struct err *e);

#endif
