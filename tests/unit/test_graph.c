/* test_graph.c - unit tests for the call graph and its trimming (include/graph.h) and the dot output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cgraph.h>

#include "graph.h"
#include "harness.h"
#include "profile.h"
#include "profiles.h"
#include "report.h"

/* Addresses of the functions main, a, b, rec, and of inl inlined into a. */
enum { MAIN = 0x100, A = 0x200, B = 0x300, REC = 0x400, INL = 0x500 };

/*
 * Stacks, leaf first:  a main (10); b a main (5); rec rec rec main (4);
 * inl-in-a main (3); b main (1).  Local total 23.
 */
static struct profile *sample_profile(void)
{
	static const uint64_t a[] = { A, MAIN }, ba[] = { B, A, MAIN },
			      rec[] = { REC, REC, REC, MAIN }, inl[] = { INL, MAIN },
			      b[] = { B, MAIN };
	struct profile *p = new_profile("samples", "count", NULL);

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "a", 10, NULL);
	named_location(p, B, "b", 10, NULL);
	named_location(p, REC, "rec", 10, NULL);
	named_location(p, INL, "inl", 5, "a", 10, NULL);
	add_stack(p, a, 2, 10);
	add_stack(p, ba, 3, 5);
	add_stack(p, rec, 4, 4);
	add_stack(p, inl, 2, 3);
	add_stack(p, b, 2, 1);
	return p;
}

static void options(struct report_options *o)
{
	memset(o, 0, sizeof(*o));
	o->granularity = GRAN_FUNCTIONS;
	o->quiet = 1;
	o->keep_stacks = 1;
	o->program = "./t";
	o->nodecount = 80;
	o->nodefraction = 0.005;
	o->edgefraction = 0.001;
	o->maxdegree = 8;
}

static struct graph_options gopts(const struct report_options *o)
{
	struct graph_options g = { o->nodecount, o->nodefraction, o->edgefraction, o->maxdegree };

	return g;
}

static const char *key(const struct graph *g, uint32_t n)
{
	return g->node[n].entry->key;
}

/* The count of the kept edge src -> dst, or -1. */
static int64_t edge(const struct graph *g, const char *src, const char *dst)
{
	size_t i;

	for (i = 0; i < g->nedge; i++)
		if (!strcmp(key(g, g->edge[i].src), src) && !strcmp(key(g, g->edge[i].dst), dst))
			return g->edge[i].count;
	return -1;
}

TEST(stacks_keep_chains)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct report r;
	struct err e;
	size_t i;
	int found = 0;

	options(&o);
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	for (i = 0; i < r.nstack; i++) {
		if (r.stack[i].count != 4)
			continue;
		found = 1;
		/* rec rec rec main: reduced once each, the chain keeps all four. */
		CHECK_EQ_INT(r.stack[i].n, 2);
		CHECK_EQ_INT(r.stack[i].nchain, 4);
		CHECK(r.stack[i].chain[0] == r.stack[i].chain[1]);
	}
	CHECK(found);
	report_release(&r);
	profile_free(p);
}

TEST(nodes_and_edges)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct graph_options go;
	struct report r;
	struct graph g;
	struct err e;

	options(&o);
	go = gopts(&o);
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	if (!CHECK(graph_build(&r, &go, &g, &e) == 0))
		return;
	CHECK_EQ_INT(g.local_total, 23);
	CHECK_EQ_INT(g.node_limit, 0);
	CHECK_EQ_INT(g.edge_limit, 0);
	if (CHECK_EQ_INT(g.nnode, 5)) {
		CHECK_STR(key(&g, 0), "main");
		CHECK_STR(key(&g, 1), "a");
		CHECK_STR(key(&g, 2), "b");
		CHECK_STR(key(&g, 3), "rec");
		CHECK_STR(key(&g, 4), "inl (inline)");
		CHECK_EQ_INT(g.node[1].entry->flat, 10);
		CHECK_EQ_INT(g.node[1].entry->cum, 18);
	}
	CHECK_EQ_INT(g.nedge, 6);
	CHECK_EQ_INT(g.dropped_edges, 0);
	CHECK_EQ_INT(edge(&g, "main", "a"), 18);
	/* Two self-calls in each stack: counted once per stack, as Go pprof counts. */
	CHECK_EQ_INT(edge(&g, "rec", "rec"), 4);
	CHECK_EQ_INT(edge(&g, "a", "b"), 5);
	CHECK_EQ_INT(edge(&g, "main", "rec"), 4);
	CHECK_EQ_INT(edge(&g, "a", "inl (inline)"), 3);
	CHECK_EQ_INT(edge(&g, "main", "b"), 1);
	/* Decreasing counts. */
	if (g.nedge == 6) {
		CHECK_EQ_INT(g.edge[0].count, 18);
		CHECK_EQ_INT(g.edge[5].count, 1);
	}
	graph_release(&g);
	report_release(&r);
	profile_free(p);
}

TEST(trimming)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct graph_options go;
	struct report r;
	struct graph g;
	struct err e;

	options(&o);
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	/*
	 * maxdegree 1: the first edge into a node is kept whatever its source's
	 * out-degree; main -> rec and rec -> rec tie at 4, main (N1) first.
	 */
	go = gopts(&o);
	go.maxdegree = 1;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.nedge, 4);
		CHECK_EQ_INT(g.dropped_edges, 2);
		CHECK_EQ_INT(edge(&g, "main", "rec"), 4);
		CHECK_EQ_INT(edge(&g, "rec", "rec"), -1);
		CHECK_EQ_INT(edge(&g, "main", "b"), -1);
		CHECK_EQ_INT(edge(&g, "a", "inl (inline)"), 3);
		graph_release(&g);
	}
	/* nodecount 3: no edge bridges a dropped node. */
	go = gopts(&o);
	go.nodecount = 3;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.nnode, 3);
		CHECK_EQ_INT(g.dropped_nodes, 2);
		CHECK_EQ_INT(g.nedge, 3);
		CHECK_EQ_INT(edge(&g, "main", "b"), 1);
		graph_release(&g);
	}
	/* nodefraction 0.2: limit int(4.6) = 4 drops rec (4) and inl (3). */
	go = gopts(&o);
	go.nodefraction = 0.2;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.node_limit, 4);
		CHECK_EQ_INT(g.nnode, 3);
		graph_release(&g);
	}
	/* edgefraction 0.2: limit 4; a -> b (5) stays, main -> b (1) goes, first in-edges stay. */
	go = gopts(&o);
	go.edgefraction = 0.2;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.edge_limit, 4);
		CHECK_EQ_INT(edge(&g, "a", "b"), 5);
		CHECK_EQ_INT(edge(&g, "main", "b"), -1);
		CHECK_EQ_INT(edge(&g, "main", "rec"), 4);    /* the first into rec */
		CHECK_EQ_INT(edge(&g, "rec", "rec"), -1);
		CHECK_EQ_INT(edge(&g, "a", "inl (inline)"), 3);
		graph_release(&g);
	}
	/* nodecount 0: nothing to draw. */
	go = gopts(&o);
	go.nodecount = 0;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.nnode, 0);
		CHECK_EQ_INT(g.nedge, 0);
		graph_release(&g);
	}
	report_release(&r);
	profile_free(p);
}

TEST(needs_stacks)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct graph_options go;
	struct report r;
	struct graph g;
	struct err e;

	options(&o);
	o.keep_stacks = 0;
	go = gopts(&o);
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	CHECK(graph_build(&r, &go, &g, &e) < 0);
	CHECK_CONTAINS(e.msg, "stacks");
	report_release(&r);
	profile_free(p);
}

/* A profile without call chains: nodes only. */
TEST(flat_profile)
{
	static const uint64_t x[] = { 0x100 }, y[] = { 0x200 };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o;
	struct graph_options go;
	struct report r;
	struct graph g;
	struct err e;

	named_location(p, 0x100, "x", 10, NULL);
	named_location(p, 0x200, "y", 10, NULL);
	add_stack(p, x, 1, 7);
	add_stack(p, y, 1, 3);
	options(&o);
	go = gopts(&o);
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	if (CHECK(graph_build(&r, &go, &g, &e) == 0)) {
		CHECK_EQ_INT(g.nnode, 2);
		CHECK_EQ_INT(g.nedge, 0);
		graph_release(&g);
	}
	report_release(&r);
	profile_free(p);
}

static char *write_format(const char *name, const struct profile *p, const struct report_options *o,
			  size_t *len, struct err *e)
{
	const struct report_format *f = report_find_format(name);
	char *buf = NULL;
	FILE *fp;
	int rc;

	*len = 0;
	if (!f)
		return NULL;
	fp = open_memstream(&buf, len);
	rc = f->write(fp, p, o, e);
	fclose(fp);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *attr(void *obj, const char *name)
{
	const char *v = agget(obj, (char *)name);

	return v ? v : "";
}

/* The dot text read back with cgraph. */
TEST(dot_reads_back)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct err e;
	size_t len;
	char *text;
	Agraph_t *g;
	Agnode_t *n, *a, *inl, *rec;
	Agedge_t *ed;
	int nodes = 0, edges = 0;

	options(&o);
	o.keep_stacks = 0;   /* the format asks for stacks itself */
	text = write_format("dot", p, &o, &len, &e);
	if (!CHECK(text != NULL))
		return;
	g = agmemread(text);
	if (!CHECK(g != NULL))
		goto out;
	CHECK_STR(agnameof(g), "./t; 23 samples");
	n = agnode(g, (char *)"Legend", 0);
	if (CHECK(n != NULL)) {
		/* No "Focusing on" without --focus or --ignore (pprof always says it). */
		CHECK_STR(attr(n, "label"), "./t\\lTotal samples: 23\\l"
			  "Dropped nodes with <= 0 abs(samples)\\lDropped edges with <= 0 samples\\l");
		CHECK_STR(attr(n, "shape"), "plaintext");
	}
	for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
		nodes++;
		for (ed = agfstout(g, n); ed; ed = agnxtout(g, ed))
			edges++;
	}
	CHECK_EQ_INT(nodes, 6);   /* five and the legend */
	CHECK_EQ_INT(edges, 6);
	a = agnode(g, (char *)"N2", 0);
	rec = agnode(g, (char *)"N4", 0);
	inl = agnode(g, (char *)"N5", 0);
	if (CHECK(a && rec && inl)) {
		CHECK_STR(attr(a, "label"), "a\\n10 (43.5%)\\rof 18 (78.3%)\\r");
		CHECK_STR(attr(a, "fontsize"), "41.0");   /* 8 + 50 sqrt(10/23) */
		CHECK_STR(attr(a, "shape"), "box");
		/* a has the largest flat value: the deepest fill. */
		CHECK_STR(attr(a, "style"), "filled");
		CHECK_STR(attr(a, "fillcolor"), "#ff4141");
		CHECK_STR(attr(inl, "label"), "inl\\n(inline)\\n3 (13.0%)\\r");
		ed = agedge(g, a, inl, NULL, 0);
		if (CHECK(ed != NULL)) {
			CHECK_STR(attr(ed, "label"), "3");
			CHECK_STR(attr(ed, "weight"), "2");   /* int(3^0.7) */
			/* pprof's 0.782609, widened to stay visible. */
			CHECK_STR(attr(ed, "style"), "setlinewidth(1.000000),dashed");
		}
		ed = agedge(g, rec, rec, NULL, 0);
		if (CHECK(ed != NULL))
			CHECK_STR(attr(ed, "label"), "4");
	}
	n = agnode(g, (char *)"N1", 0);
	if (CHECK(n != NULL)) {
		CHECK_STR(attr(n, "width"), "0.375");
		/* main has no flat samples: the minimum font, a white fill. */
		CHECK_STR(attr(n, "fontsize"), "12.0");
		CHECK_STR(attr(n, "fillcolor"), "#ffffff");
	}
	agclose(g);
out:
	free(text);
	profile_free(p);
}

TEST(dot_no_nodes)
{
	struct profile *p = sample_profile();
	struct report_options o;
	struct err e;
	size_t len;
	char *text;

	options(&o);
	o.nodecount = 0;
	text = write_format("dot", p, &o, &len, &e);
	CHECK(text == NULL);
	CHECK_CONTAINS(e.msg, "no nodes to print");
	free(text);
	profile_free(p);
}

/* Rendered in process: the file starts with its format's magic. */
TEST(renders)
{
	static const struct {
		const char *name, *magic;
	} f[] = {
		{ "ps", "%!PS" }, { "pdf", "%PDF" }, { "svg", "<?xml" },
		{ "png", "\x89PNG" }, { "gif", "GIF8" },
	};
	struct profile *p = sample_profile();
	struct report_options o;
	struct report_env env = { 0 };
	size_t i;

	options(&o);
	o.env = &env;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct err e = { { 0 } };
		size_t len;
		char *data = write_format(f[i].name, p, &o, &len, &e);

		if (!CHECK(data != NULL)) {
			TEST_NOTE("    %s: %s", f[i].name, e.msg);
			continue;
		}
		CHECK(len > strlen(f[i].magic) && !memcmp(data, f[i].magic, strlen(f[i].magic)));
		if (!strcmp(f[i].name, "svg"))
			CHECK_CONTAINS(data, "Total samples: 23");
		free(data);
	}
	report_env_release(&env);
	profile_free(p);
}

/*
 * Under LeakSanitizer (make SANITIZE=1): Graphviz keeps memory until exit;
 * the same suppressions as tests/lsan-graphviz.supp.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\nleak:libcgraph.so\nleak:libcdt.so\nleak:libgvplugin_\n"
	       "leak:libfontconfig.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

/* Whether two graphs (of reports of the same entries) are the same, node for node and edge for edge. */
static int same_graph(const struct graph *a, const struct graph *b)
{
	size_t i;

	if (a->nnode != b->nnode || a->nedge != b->nedge || a->candidates != b->candidates ||
	    a->candidate_edges != b->candidate_edges || a->dropped_edges != b->dropped_edges)
		return 0;
	for (i = 0; i < a->nnode; i++)
		if (strcmp(a->node[i].entry->key, b->node[i].entry->key))
			return 0;
	for (i = 0; i < a->nedge; i++)
		if (a->edge[i].src != b->edge[i].src || a->edge[i].dst != b->edge[i].dst ||
		    a->edge[i].count != b->edge[i].count)
			return 0;
	return 1;
}

/*
 * 80,000 stacks kept merged (merge_stacks: one per chain of functions and
 * sign of count) make the graph the stacks one per sample make, with edges
 * met in both halves of the profile, in one only, and recursion (a pair
 * counted once per stack); with many counts near the int64_t limit, whose
 * sums saturate, they stay one per sample.
 */
TEST(edges_of_merged_stacks)
{
	struct report_options o;
	struct graph_options go;
	size_t big;

	options(&o);
	o.nodecount = 40;
	go = gopts(&o);
	for (big = 0; big < 2; big++) {
		struct profile *p = new_profile("samples", "count", NULL);
		struct graph one, merged;
		struct report r, m;
		struct err e;
		size_t i;

		named_location(p, MAIN, "main", 10, NULL);
		named_location(p, REC, "rec", 10, NULL);
		for (i = 0; i < 24; i++) {
			char name[8];

			snprintf(name, sizeof(name), "f%zu", i);
			named_location(p, A + 0x10 * i, name, 10, NULL);
		}
		for (i = 0; i < 80000; i++) {
			/* Callers f0-f11 in the first half, f0-f23 in the second; recursion in some. */
			size_t callers = i < 40000 ? 12 : 24;
			uint64_t st[5] = { 0x100000 + i, A + 0x10 * (i % callers),
					   i % 7 ? A + 0x10 * ((i * 5) % callers) : REC, REC, MAIN };
			int64_t v = big && i % 3 == 0 ? INT64_MAX / 4 : (int64_t)(i % 9) - 2;
			char leaf[8];

			snprintf(leaf, sizeof(leaf), "l%zu", i % 5);
			named_location(p, st[0], leaf, 20, NULL);
			add_stack(p, st, 5, v);
		}
		o.merge_stacks = 0;
		if (!CHECK(report_build(p, &o, &r, &e) == 0)) {
			profile_free(p);
			return;
		}
		o.merge_stacks = 1;
		if (!CHECK(report_build(p, &o, &m, &e) == 0)) {
			report_release(&r);
			profile_free(p);
			return;
		}
		CHECK_EQ_INT(r.nstack, 80000);
		if (big)
			CHECK_EQ_INT(m.nstack, 80000);
		else
			CHECK(m.nstack < 8000);
		CHECK(graph_build(&r, &go, &one, &e) == 0);
		CHECK(graph_build(&m, &go, &merged, &e) == 0);
		CHECK(one.candidate_edges > 40);
		CHECK(same_graph(&one, &merged));
		graph_release(&one);
		graph_release(&merged);
		report_release(&r);
		report_release(&m);
		profile_free(p);
	}
}

/*
 * A few nodes kept of many: the first ones a sort of all would give, in
 * its order, ties on |cum| (counts of 13 kinds among 400 functions, some
 * negative) broken by name.
 */
TEST(first_of_many)
{
	static const size_t keep[] = { 1, 2, 7, 50, 99 };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o;
	struct graph_options go;
	struct graph all, some;
	struct report r;
	struct err e;
	size_t i, k;

	named_location(p, MAIN, "main", 10, NULL);
	for (i = 0; i < 400; i++) {
		/* Added in an order unlike either the values' or the names'. */
		size_t f = (i * 157) % 400;
		uint64_t st[2] = { 0x10000 + 0x10 * f, MAIN };
		char name[16];

		snprintf(name, sizeof(name), "f%03zu", f);
		named_location(p, st[0], name, 20, NULL);
		add_stack(p, st, 2, (int64_t)((f * 7) % 13) - 3);
	}
	options(&o);
	o.nodefraction = 0;
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		goto out;
	go = gopts(&o);
	go.nodecount = 1000;
	if (!CHECK(graph_build(&r, &go, &all, &e) == 0))
		goto out_r;
	CHECK(all.candidates > 390);
	for (k = 0; k < sizeof(keep) / sizeof(*keep); k++) {
		go.nodecount = (int)keep[k];
		if (!CHECK(graph_build(&r, &go, &some, &e) == 0))
			continue;
		CHECK_EQ_INT(some.nnode, keep[k]);
		CHECK_EQ_INT(some.candidates, all.candidates);
		for (i = 0; i < some.nnode; i++)
			if (!CHECK(some.node[i].entry == all.node[i].entry))
				break;
		graph_release(&some);
	}
	graph_release(&all);
out_r:
	report_release(&r);
out:
	profile_free(p);
}

int main(void)
{
	RUN(stacks_keep_chains);
	RUN(nodes_and_edges);
	RUN(trimming);
	RUN(needs_stacks);
	RUN(flat_profile);
	RUN(dot_reads_back);
	RUN(dot_no_nodes);
	RUN(renders);
	RUN(edges_of_merged_stacks);
	RUN(first_of_many);
	return test_done();
}
