/* tree.c - Go pprof's -tree and -peek: each entry with its callers above and its callees below. */
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "units.h"
#include "util.h"
#include "views.h"

static const char separator[] =
	"----------------------------------------------------------+-------------";
static const char legend[] =
	"      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t ";

/* The graph rebuilt on the first n of its sorted nodes. */
static void keep_nodes(struct vgraph *g, const struct report *r, const uint32_t *node, size_t n)
{
	uint8_t *kept = xcalloc(r->nentry + 1, 1);
	size_t i;

	for (i = 0; i < n; i++)
		kept[node[i]] = 1;
	vgraph_keep(g, kept);
	free(kept);
}

/*
 * Go's newTrimmedGraph: nodes whose |cum| is under nodefraction of the
 * flat sum go, then all but the first nodecount, then edges under
 * edgefraction; each removal rebuilds the graph from the stacks.  g comes
 * with its nodes only (the edges of nodes about to go are never read) and
 * leaves with its edges.  Returns the node count before nodecount
 * applied; *dropped the nodes the fraction took.
 */
static size_t trim(struct vgraph *g, const struct report *r, const struct report_options *o,
		   size_t *dropped)
{
	int64_t sum = 0, node_cut, edge_cut;
	size_t i, n = 0, orig;
	uint32_t *keep;
	int rebuilt = 0;

	for (i = 0; i < g->nnode; i++)
		sum = sat_add(sum, g->flat[g->node[i]]);
	node_cut = sat_abs((int64_t)((double)sum * o->nodefraction));
	edge_cut = sat_abs((int64_t)((double)sum * o->edgefraction));
	*dropped = 0;
	if (node_cut > 0) {
		keep = xcalloc(g->nnode + 1, sizeof(*keep));
		for (i = 0; i < g->nnode; i++)
			if (sat_abs(g->cum[g->node[i]]) >= node_cut)
				keep[n++] = g->node[i];
		if (n != g->nnode) {
			*dropped = g->nnode - n;
			keep_nodes(g, r, keep, n);
			rebuilt = 1;
		}
		free(keep);
	}
	orig = g->nnode;
	vgraph_sort(g, o);
	if (o->nodecount > 0 && (size_t)o->nodecount < g->nnode) {
		keep = xmalloc((size_t)o->nodecount * sizeof(*keep));
		memcpy(keep, g->node, (size_t)o->nodecount * sizeof(*keep));
		keep_nodes(g, r, keep, (size_t)o->nodecount);
		free(keep);
		vgraph_sort(g, o);
		rebuilt = 1;
	}
	if (!rebuilt)
		vgraph_add_edges(g, NULL);
	vgraph_trim_edges(g, edge_cut);
	return orig;
}

/* Go's selectOutputUnit: with --unit unset or minimum, the unit of the nodes shown. */
static const char *tree_unit(const struct vgraph *g, const struct report *r,
			     const struct report_options *o)
{
	int64_t *flat, *cum;
	const char *u;
	size_t i;

	if (!r->style.measure || (o->unit && strcmp(o->unit, "minimum")))
		return view_show(o);
	flat = xcalloc(g->nnode + 1, sizeof(*flat));
	cum = xcalloc(g->nnode + 1, sizeof(*cum));
	for (i = 0; i < g->nnode; i++) {
		flat[i] = sat_mul(g->flat[g->node[i]], r->style.multiplier);
		cum[i] = sat_mul(g->cum[g->node[i]], r->style.multiplier);
	}
	u = units_report_unit(flat, cum, g->nnode, sat_mul(r->go_total, r->style.multiplier),
			      r->style.measure);
	free(flat);
	free(cum);
	return u;
}

/* A caller or callee: Go marks an inlined call on the other end's name, either way. */
static void print_edge(FILE *out, const struct vgraph *g, const char *show, const struct vedge *e,
		       int64_t cum, uint32_t other)
{
	char v[48], pc[32];

	view_value(g->r, show, e->w, v, sizeof(v));
	units_percentage(e->w, cum, pc, sizeof(pc));
	fprintf(out, "%50s %s |   %s%s\n", v, pc, g->name[other], e->inl ? " (inline)" : "");
}

/* One node: its callers, itself, its callees. */
static void print_node(FILE *out, const struct vgraph *g, const char *show, uint32_t n,
		       int64_t flat_sum)
{
	const struct report *r = g->r;
	char fv[48], cv[48], fp[32], sp[32], cp[32];
	uint32_t k;

	fprintf(out, "%s\n", separator);
	for (k = g->in_off[n]; k < g->in_off[n + 1]; k++)
		print_edge(out, g, show, &g->edge[g->in[k]], g->cum[n], g->edge[g->in[k]].src);
	view_value(r, show, g->flat[n], fv, sizeof(fv));
	view_value(r, show, g->cum[n], cv, sizeof(cv));
	units_percentage(g->flat[n], r->go_total, fp, sizeof(fp));
	units_percentage(flat_sum, r->go_total, sp, sizeof(sp));
	units_percentage(g->cum[n], r->go_total, cp, sizeof(cp));
	fprintf(out, "%10s %s %s %10s %s                | %s\n", fv, fp, sp, cv, cp, g->name[n]);
	for (k = g->out_off[n]; k < g->out_off[n + 1]; k++)
		print_edge(out, g, show, &g->edge[g->out[k]], g->cum[n], g->edge[g->out[k]].dst);
}

/* The "Showing nodes accounting for ..." lines under the header. */
static void print_labels(FILE *out, const struct vgraph *g, const struct report *r,
			 const struct report_options *o, const char *show, size_t orig,
			 size_t dropped)
{
	char sum_v[48], total_v[48], pc[32], cut[48];
	int64_t sum = 0;
	size_t i;
	const char *p;

	for (i = 0; i < g->nnode; i++)
		sum = sat_add(sum, g->flat[g->node[i]]);
	view_value(r, show, sum, sum_v, sizeof(sum_v));
	view_value(r, show, r->go_total, total_v, sizeof(total_v));
	units_percentage(sum, r->go_total, pc, sizeof(pc));
	for (p = pc; *p == ' '; p++)
		;
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", sum_v, p, total_v);
	if (!r->go_total)
		return;
	if (dropped) {
		view_value(r, show, sat_abs((int64_t)((double)r->go_total * o->nodefraction)), cut,
			   sizeof(cut));
		fprintf(out, "Dropped %zu node%s (cum <= %s)\n", dropped, dropped > 1 ? "s" : "", cut);
	}
	if (g->nnode && g->nnode < orig)
		fprintf(out, "Showing top %zu nodes out of %zu\n", g->nnode, orig);
}

/* --tree, and with a regex (--peek=RE) only the entries it matches, untrimmed. */
static int tree_write(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e, const char *peek)
{
	struct report_options ro = *o;
	struct regex *re = NULL;
	struct report r;
	struct vgraph g;
	size_t orig, dropped = 0, i, matched = 0;
	const char *show;
	int64_t flat_sum = 0;
	uint8_t *want = NULL;

	if (peek && !(re = regex_compile(peek, "--peek", e)))
		return -1;
	ro.keep_stacks = 1;
	ro.merge_stacks = 1;
	if (report_build(p, &ro, &r, e) < 0) {
		regex_free(re);
		return -1;
	}
	vgraph_build(&g, &r, o, NULL, 0);
	if (peek) {
		orig = g.nnode;
		vgraph_sort(&g, o);
		/* Only the matches are shown: only their edges are made. */
		want = xcalloc(r.nentry + 1, 1);
		for (i = 0; i < g.nnode; i++)
			want[g.node[i]] = regex_matchs(re, g.name[g.node[i]]) != 0;
		vgraph_add_edges(&g, want);
	} else {
		orig = trim(&g, &r, o, &dropped);
	}
	vgraph_links(&g);
	show = tree_unit(&g, &r, o);
	view_header(out, p, o);
	print_labels(out, &g, &r, o, show, orig, dropped);
	fprintf(out, "%s\n%s\n", separator, legend);
	for (i = 0; i < g.nnode; i++) {
		uint32_t n = g.node[i];

		if (want && !want[n])
			continue;
		matched++;
		flat_sum = sat_add(flat_sum, g.flat[n]);
		print_node(out, &g, show, n, flat_sum);
	}
	if (g.nnode)
		fprintf(out, "%s\n", separator);
	vgraph_release(&g);
	report_release(&r);
	regex_free(re);
	free(want);
	if (re && !matched)
		return err_set(e, "--peek: no entry matches '%s'", peek);
	return 0;
}

static int write_tree(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	return tree_write(out, p, o, e, NULL);
}

static int write_peek(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	struct report_options ro = *o;

	/* Go pprof trims nothing for peek. */
	ro.nodecount = 0;
	ro.nodefraction = ro.edgefraction = 0;
	return tree_write(out, p, &ro, e, o->regex ? o->regex : "");
}

const struct report_format report_tree_format = {
	.name = "tree",
	.by_names = 1,
	.help = "Each entry with its callers and callees and their shares (Go pprof's -tree)",
	.write = write_tree,
	.terminal = 1,
};

const struct report_format report_peek_format = {
	.name = "peek",
	.by_names = 1,
	.arg = "REGEX",
	.help = "The same for the entries matching REGEX only (Go pprof's -peek)",
	.write = write_peek,
	.terminal = 1,
};
