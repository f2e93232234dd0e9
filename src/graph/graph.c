/* graph.c - call graph nodes and edges from a report's stacks, trimmed as gperftools pprof does. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "htab.h"
#include "util.h"

static int cmp_node(const void *a, const void *b)
{
	const struct entry *x = ((const struct graph_node *)a)->entry;
	const struct entry *y = ((const struct graph_node *)b)->entry;
	int64_t cx = sat_abs(x->cum), cy = sat_abs(y->cum);

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct graph_edge *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

/*
 * The first k of n nodes in cmp_node's order, in that order, at the front
 * (the rest in no order): the order is total (keys are distinct), so they
 * are those a sort of all would put first.  A graph keeps some tens of
 * its tens of thousands of candidates (by line), and most of them lose to
 * the last kept on |cum| alone.
 */
static void first_nodes(struct graph_node *node, size_t n, size_t k)
{
	size_t i, have = 0;

	for (i = 0; i < n && k; i++) {
		struct graph_node x = node[i];
		size_t lo = 0, hi = have;

		if (have == k && cmp_node(&x, &node[k - 1]) >= 0)
			continue;
		/* Its place among the first: after those before it. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_node(&node[mid], &x) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The last of a full front goes to i's place, which x left. */
		if (have == k)
			node[i] = node[k - 1];
		else
			node[i] = node[have++];
		memmove(&node[lo + 1], &node[lo], (have - 1 - lo) * sizeof(*node));
		node[lo] = x;
	}
}

/* The kept nodes: the first nodecount by |cum|, less a tail with |cum| <= node_limit. */
static void pick_nodes(struct graph *g, const struct report *r, const struct graph_options *o)
{
	uint8_t *seen = xcalloc(r->nentry + 1, 1);
	size_t i, j, keep;

	for (i = 0; i < r->nstack; i++)
		for (j = 0; j < r->stack[i].nchain; j++)
			seen[r->stack[i].chain[j]] = 1;
	g->node = xcalloc(r->nentry + 1, sizeof(*g->node));
	for (i = 0; i < r->nentry; i++)
		if (seen[i])
			g->node[g->candidates++].entry = &r->entry[i];
	free(seen);
	keep = o->nodecount > 0 ? (size_t)o->nodecount : 0;
	if (keep > g->candidates)
		keep = g->candidates;
	if (keep < g->candidates / 4)
		first_nodes(g->node, g->candidates, keep);
	else if (g->candidates > 1)
		qsort(g->node, g->candidates, sizeof(*g->node), cmp_node);
	while (keep > 0 && sat_abs(g->node[keep - 1].entry->cum) <= g->node_limit)
		keep--;
	g->nnode = keep;
	g->dropped_nodes = g->candidates - keep;
}

/* Edge counts by (src, dst) node pair. */
struct edge_table {
	struct htab index;
	struct graph_edge *edge;
	size_t n, cap;
	size_t *stamp;           /* the last stack (+ 1) that counted each edge */
	size_t cap_stamp;
	/*
	 * Per node, the edge out of it met last (its dst + 1, and the edge):
	 * stacks share their callers, and most steps repeat the one before.
	 */
	uint32_t *last_dst, *last_edge;
};

static void table_init(struct edge_table *t, size_t nnode)
{
	memset(t, 0, sizeof(*t));
	htab_init(&t->index, 64);
	t->last_dst = xcalloc(nnode + 1, sizeof(*t->last_dst));
	t->last_edge = xcalloc(nnode + 1, sizeof(*t->last_edge));
}

static void table_release(struct edge_table *t)
{
	htab_release(&t->index);
	free(t->edge);
	free(t->stamp);
	free(t->last_dst);
	free(t->last_edge);
}

/* The edge src -> dst, made with count 0 when missing. */
static size_t edge_get(struct edge_table *t, uint32_t src, uint32_t dst)
{
	uint64_t h = hash_u64(((uint64_t)src << 32) | dst);
	size_t i;

	HTAB_FIND(&t->index, h, i,
		  t->edge[t->index.slot[i].idx - 1].src == src &&
			  t->edge[t->index.slot[i].idx - 1].dst == dst);
	if (t->index.slot[i].idx)
		return t->index.slot[i].idx - 1;
	GROW(t->edge, t->cap, t->n + 1);
	GROW(t->stamp, t->cap_stamp, t->n + 1);
	t->stamp[t->n] = 0;
	t->edge[t->n] = (struct graph_edge){ .src = src, .dst = dst };
	htab_insert(&t->index, i, h, (uint32_t)++t->n);
	return t->n - 1;
}

/* Adds count to src->dst, once per stack (stack >= 1), however often the pair repeats in it. */
static void edge_add(struct edge_table *t, uint32_t src, uint32_t dst, int64_t count, size_t stack)
{
	size_t k;

	if (t->last_dst[src] == dst + 1) {
		k = t->last_edge[src];
	} else {
		k = edge_get(t, src, dst);
		t->last_dst[src] = dst + 1;
		t->last_edge[src] = (uint32_t)k;
	}
	if (t->stamp[k] == stack)
		return;
	t->stamp[k] = stack;
	t->edge[k].count = sat_add(t->edge[k].count, count);
}

/*
 * Every adjacent caller->callee pair of every stack whose ends are both
 * kept nodes, counted once per stack as Go pprof counts it: a recursive
 * stack repeats its pairs, and gperftools pprof's edges (each occurrence
 * counted) could exceed the whole profile.
 */
static void collect_edges(struct graph *g, const struct report *r, struct edge_table *t)
{
	uint32_t *node_of = xmalloc((r->nentry + 1) * sizeof(*node_of));
	size_t i, j;

	for (i = 0; i < r->nentry; i++)
		node_of[i] = UINT32_MAX;
	for (i = 0; i < g->nnode; i++)
		node_of[g->node[i].entry - r->entry] = (uint32_t)i;
	table_init(t, g->nnode);
	for (i = 0; i < r->nstack; i++) {
		const struct rstack *s = &r->stack[i];

		for (j = 1; j < s->nchain; j++) {
			uint32_t src = node_of[s->chain[j]], dst = node_of[s->chain[j - 1]];

			if (src != UINT32_MAX && dst != UINT32_MAX)
				edge_add(t, src, dst, s->count, i + 1);
		}
	}
	free(node_of);
}

/* Keeps edges in order of decreasing count, as PrintDot does. */
static void pick_edges(struct graph *g, struct edge_table *t, const struct graph_options *o)
{
	size_t *indeg = xcalloc(g->nnode + 1, sizeof(*indeg));
	size_t *outdeg = xcalloc(g->nnode + 1, sizeof(*outdeg));
	size_t maxdeg = o->maxdegree > 0 ? (size_t)o->maxdegree : 0;
	size_t i, n = 0;

	/* The table's array becomes the graph's. */
	g->edge = t->edge;
	n = t->n;
	t->edge = NULL;
	if (n > 1)
		qsort(g->edge, n, sizeof(*g->edge), cmp_edge);
	g->candidate_edges = n;
	g->nedge = 0;
	for (i = 0; i < n; i++) {
		const struct graph_edge *ed = &g->edge[i];
		int keep;

		if (indeg[ed->dst] == 0)
			keep = 1;       /* the target stays reachable */
		else if (sat_abs(ed->count) <= g->edge_limit)
			keep = 0;
		else if (outdeg[ed->src] >= maxdeg || indeg[ed->dst] >= maxdeg)
			keep = 0;
		else
			keep = 1;
		if (!keep)
			continue;
		outdeg[ed->src]++;
		indeg[ed->dst]++;
		g->edge[g->nedge++] = *ed;
	}
	g->dropped_edges = n - g->nedge;
	free(indeg);
	free(outdeg);
}

int graph_build(const struct report *r, const struct graph_options *o, struct graph *g,
		struct err *e)
{
	struct edge_table t;
	size_t i;

	memset(g, 0, sizeof(*g));
	if (!r->nstack)
		for (i = 0; i < r->nentry; i++)
			if (r->entry[i].cum != 0)
				return err_set(e, "graph: the report was built without its stacks");
	g->total = r->total;
	g->local_total = r->local_total;
	/* Perl's int() truncates toward zero, as the C conversion does. */
	g->node_limit = (int64_t)(o->nodefraction * (double)r->local_total);
	g->edge_limit = (int64_t)(o->edgefraction * (double)r->local_total);
	pick_nodes(g, r, o);
	collect_edges(g, r, &t);
	pick_edges(g, &t, o);
	table_release(&t);
	return 0;
}

void graph_release(struct graph *g)
{
	free(g->node);
	free(g->edge);
	memset(g, 0, sizeof(*g));
}
