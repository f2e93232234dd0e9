/* graphviz.c - Graphviz's libraries opened when the first graph is made (graphviz.h). */
#include "dynlib.h"
#include "graphviz.h"

struct graphviz gv;

/* libcgraph's functions are found through libgvc, which needs it. */
static const struct dynsym gv_syms[] = {
	{ "Agdirected", (void **)&gv.directed },
	{ "agopen", (void **)&gv.agopen },
	{ "agclose", (void **)&gv.agclose },
	{ "agnode", (void **)&gv.agnode },
	{ "agedge", (void **)&gv.agedge },
	{ "agattr", (void **)&gv.agattr },
	{ "agsafeset", (void **)&gv.agsafeset },
	{ "agwrite", (void **)&gv.agwrite },
	{ "agseterrf", (void **)&gv.agseterrf },
	{ "gvContext", (void **)&gv.gvContext },
	{ "gvContextPlugins", (void **)&gv.gvContextPlugins },
	{ "gvFreeContext", (void **)&gv.gvFreeContext },
	{ "gvPluginList", (void **)&gv.gvPluginList },
	{ "gvLayout", (void **)&gv.gvLayout },
	{ "gvFreeLayout", (void **)&gv.gvFreeLayout },
	{ "gvRenderData", (void **)&gv.gvRenderData },
	{ "gvFreeRenderData", (void **)&gv.gvFreeRenderData },
	{ NULL, NULL },
};

static const char *const gv_names[] = { "libgvc.so.6", "libgvc.so", NULL };
static struct dynlib libgvc = { .names = gv_names, .syms = gv_syms };

int graphviz_load(struct err *e)
{
	return dynlib_load(&libgvc, e);
}
