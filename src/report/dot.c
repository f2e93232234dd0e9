/* dot.c - the call graph in DOT, built with cgraph as gperftools pprof's PrintDot draws it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot.h"
#include "err.h"
#include "graphviz.h"
#include "graph.h"
#include "strbuf.h"
#include "util.h"

/* cgraph takes char * for names it never changes. */
static void set(void *obj, const char *name, const char *value)
{
	gv.agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

/* pprof's Unparse: counts as integers, times in seconds (report_value). */
static void add_count(struct strbuf *sb, const struct report *r, int64_t v)
{
	char buf[48];

	report_value(r, v, buf, sizeof(buf));
	sb_adds(sb, buf);
}

/* pprof's Percent. */
static void add_percent(struct strbuf *sb, int64_t num, int64_t total)
{
	if (total != 0)
		sb_addf(sb, "%.1f%%", (double)num * 100.0 / (double)total);
	else
		sb_adds(sb, num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
}

/*
 * The legend, as gperftools pprof writes it, but "Focusing on" only when
 * focus or ignore chose part of the profile (pprof always says it).
 */
static void add_legend(Agraph_t *g, const struct graph *gr, const char *prog,
		       const struct report *r, const struct report_options *o, struct strbuf *sb)
{
	Agnode_t *n = gv.agnode(g, (char *)"Legend", 1);
	const char *unit = r->style.unit;

	sb_reset(sb);
	sb_addf(sb, "%s\\lTotal %s: ", prog, unit);
	add_count(sb, r, gr->total);
	if (o->focus || o->ignore) {
		sb_adds(sb, "\\lFocusing on: ");
		add_count(sb, r, gr->local_total);
	}
	sb_adds(sb, "\\lDropped nodes with <= ");
	add_count(sb, r, gr->node_limit);
	sb_addf(sb, " abs(%s)\\lDropped edges with <= ", unit);
	add_count(sb, r, gr->edge_limit);
	sb_addf(sb, " %s\\l", unit);
	/* pprof writes shape=box and then shape=plaintext: the last one counts. */
	set(n, "shape", "plaintext");
	set(n, "fontsize", "24");
	set(n, "label", sb->buf);
}

/* "key\nflat (pct)\rof cum (pct)\r", the key split at blanks and "::". */
static void node_label(struct strbuf *sb, const struct report *r, const struct entry *en,
		       int64_t local_total)
{
	const char *s = en->key;

	sb_reset(sb);
	while (*s) {
		if (isspace((unsigned char)*s)) {
			while (isspace((unsigned char)*s))
				s++;
			sb_adds(sb, "\\n");
		} else if (s[0] == ':' && s[1] == ':') {
			s += 2;
			sb_adds(sb, "\\n");
		} else {
			sb_addc(sb, *s++);
		}
	}
	sb_adds(sb, "\\n");
	add_count(sb, r, en->flat);
	sb_adds(sb, " (");
	add_percent(sb, en->flat, local_total);
	sb_adds(sb, ")");
	if (en->flat != en->cum) {
		sb_adds(sb, "\\rof ");
		add_count(sb, r, en->cum);
		sb_adds(sb, " (");
		add_percent(sb, en->cum, local_total);
		sb_adds(sb, ")");
	}
	sb_adds(sb, "\\r");
}

/*
 * A node's fill: white for no flat value, deepening to red (green for a
 * negative value, after --base) as its flat value nears the largest one.
 */
static void node_color(char *buf, size_t n, int64_t flat, int64_t max_flat)
{
	double t = max_flat ? sqrt(fabs((double)flat) / (double)max_flat) : 0;
	int light = (int)lround(255 - 190 * (t > 1 ? 1 : t));

	if (flat < 0)
		snprintf(buf, n, "#%02x%02x%02x", light, 255, light);
	else
		snprintf(buf, n, "#%02x%02x%02x", 255, light, light);
}

static void add_nodes(Agraph_t *g, const struct graph *gr, const struct report *r,
		      Agnode_t **nodes, int heapcheck, struct strbuf *sb)
{
	int64_t max_flat = 0;
	size_t i;

	for (i = 0; i < gr->nnode; i++)
		if (sat_abs(gr->node[i].entry->flat) > max_flat)
			max_flat = sat_abs(gr->node[i].entry->flat);
	for (i = 0; i < gr->nnode; i++) {
		const struct entry *en = gr->node[i].entry;
		double fs = 8;
		char name[32], size[32], fill[16];

		/*
		 * The font grows with the flat count, as pprof's does, from a
		 * readable minimum (pprof's 8 points vanish in a large graph).
		 */
		if (gr->local_total > 0)
			fs = 8 + 50.0 * sqrt(fabs((double)en->flat / (double)gr->local_total));
		if (fs < DOT_MIN_FONT)
			fs = DOT_MIN_FONT;
		snprintf(name, sizeof(name), "N%zu", i + 1);
		snprintf(size, sizeof(size), "%.1f", fs);
		node_color(fill, sizeof(fill), en->flat, max_flat);
		nodes[i] = gv.agnode(g, name, 1);
		node_label(sb, r, en, gr->local_total);
		set(nodes[i], "label", sb->buf);
		set(nodes[i], "shape", "box");
		set(nodes[i], "fontsize", size);
		/* --heapcheck: sites that leak stand out, the rare negative ones too. */
		if (heapcheck && en->flat > 0) {
			set(nodes[i], "style", "filled");
			set(nodes[i], "fillcolor", "gray");
		} else if (heapcheck && en->flat < 0) {
			set(nodes[i], "peripheries", "3");
		} else {
			set(nodes[i], "style", "filled");
			set(nodes[i], "fillcolor", fill);
		}
	}
}

static void add_edges(Agraph_t *g, const struct graph *gr, const struct report *r,
		      Agnode_t **nodes, enum dot_flags flags, double scale,
		      struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < gr->nedge; i++) {
		const struct graph_edge *ed = &gr->edge[i];
		double n = (double)ed->count;
		double fraction = gr->local_total ? fabs(3 * (n / (double)gr->local_total)) : 0;
		double w, weight;
		char buf[64];
		Agedge_t *a = gv.agedge(g, nodes[ed->src], nodes[ed->dst], NULL, 1);

		if (fraction > 1)
			fraction = 1;
		w = fraction * 2;
		/* pprof keeps this minimum for SVG only; thinner lines vanish in every format. */
		if (w < 1)
			w = 1;
		/* A squashed count (of whole units), capped: dot has crashed on very large weights. */
		weight = pow(fabs(n / scale), 0.7);
		if (weight > 100000)
			weight = 100000;
		sb_reset(sb);
		add_count(sb, r, ed->count);
		set(a, "label", sb->buf);
		snprintf(buf, sizeof(buf), "%d", (int)weight);
		set(a, "weight", buf);
		sb_reset(sb);
		sb_addf(sb, "setlinewidth(%f)", w);
		if (strstr(gr->node[ed->dst].entry->key, "(inline)"))
			sb_adds(sb, ",dashed");
		set(a, "style", sb->buf);
	}
}

/* The program as named on the command line, else as the profile's first mapping names it. */
static const char *program_name(const struct profile *p, const struct report_options *o)
{
	size_t i;

	if (o->program)
		return o->program;
	for (i = 0; i < p->nmapping; i++)
		if (p->mapping[i]->file[0] && p->mapping[i]->file[0] != '[')
			return p->mapping[i]->file;
	return "";
}

Agraph_t *dot_graph_new(const struct profile *p, const struct report_options *o,
			enum dot_flags flags, struct err *e)
{
	struct report_options ro = *o;
	struct graph_options go = {
		.nodecount = o->nodecount,
		.nodefraction = o->nodefraction,
		.edgefraction = o->edgefraction,
		.maxdegree = o->maxdegree,
	};
	struct report r;
	struct graph gr;
	struct strbuf sb = STRBUF_INIT;
	const char *prog = program_name(p, o);
	Agraph_t *g = NULL;
	Agnode_t **nodes = NULL;

	if (graphviz_load(e) < 0)
		return NULL;
	ro.keep_stacks = 1;
	ro.merge_stacks = 1;
	if (report_build(p, &ro, &r, e) < 0)
		return NULL;
	if (graph_build(&r, &go, &gr, e) < 0)
		goto out;
	if (!gr.nnode) {
		err_set(e, "no nodes to print");
		goto out;
	}
	if ((gr.node_limit > 0 || gr.edge_limit > 0) && !o->quiet) {
		char nl[48], el[48];

		report_value(&r, gr.node_limit, nl, sizeof(nl));
		report_value(&r, gr.edge_limit, el, sizeof(el));
		notef("Dropping nodes with <= %s %s; edges with <= %s abs(%s)", nl, r.style.unit, el, r.style.unit);
	}

	sb_adds(&sb, prog);
	sb_adds(&sb, "; ");
	add_count(&sb, &r, r.total);
	sb_addf(&sb, " %s", r.style.unit);
	g = gv.agopen(sb.buf, *gv.directed, NULL);
	if (!g) {
		err_set(e, "cannot create a graph");
		goto out;
	}
	if (flags & DOT_PAGE_SIZE)
		gv.agattr(g, AGRAPH, (char *)"size", (char *)"8,11");
	gv.agattr(g, AGNODE, (char *)"width", (char *)"0.375");
	gv.agattr(g, AGNODE, (char *)"height", (char *)"0.25");
	add_legend(g, &gr, prog, &r, o, &sb);
	nodes = xcalloc(gr.nnode, sizeof(*nodes));
	add_nodes(g, &gr, &r, nodes, o->heapcheck, &sb);
	add_edges(g, &gr, &r, nodes, flags, (double)profile_value_scale(p), &sb);
out:
	free(nodes);
	sb_release(&sb);
	graph_release(&gr);
	report_release(&r);
	return g;
}

static int dot_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	Agraph_t *g = dot_graph_new(p, o, 0, e);
	int rc;

	if (!g)
		return -1;
	rc = gv.agwrite(g, out);
	gv.agclose(g);
	if (rc != 0 || ferror(out))
		return err_set(e, "cannot write the DOT graph");
	return 0;
}

const struct report_format report_dot_format = {
	.name = "dot",
	.by_names = 1,
	.help = "Generate DOT file to stdout",
	.write = dot_write,
};
