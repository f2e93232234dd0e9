/* views.c - what Go pprof's views share: names, values, the header, the call graph of the stacks. */
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"
#include "views.h"

const char *view_name(const struct entry *e, const struct report_options *o, char *buf, size_t n)
{
	if (e->display && o->granularity == GRAN_ADDRESSES) {
		snprintf(buf, n, "%s %s", e->key, e->display);
		return buf;
	}
	return e->display ? e->display : e->key;
}

const char *view_go_name(const struct entry *e, const struct report_options *o, char *buf,
			 size_t n)
{
	const char *nm = view_name(e, o, buf, n), *at = strstr(nm, " (inline)");
	char *moved;

	if (!at || !at[9])
		return nm;
	moved = xmalloc(strlen(nm) + 1);
	sprintf(moved, "%.*s%s (inline)", (int)(at - nm), nm, at + 9);
	snprintf(buf, n, "%s", moved);
	free(moved);
	return buf;
}

const char *view_show(const struct report_options *o)
{
	return o->unit ? o->unit : "minimum";
}

void view_value(const struct report *r, const char *show, int64_t v, char *buf, size_t n)
{
	struct report copy = *r;

	copy.style.show = show;
	report_value(&copy, v, buf, n);
}

void view_header(FILE *out, const struct profile *p, const struct report_options *o)
{
	const struct {
		const char *name, *value;
	} filters[] = {
		{ "focus", o->focus }, { "ignore", o->ignore }, { "hide", o->hide },
		{ "show", o->show }, { "show_from", o->show_from }, { "prune_from", o->prune_from },
		{ "tagfocus", o->tagfocus }, { "tagignore", o->tagignore },
	};
	size_t i;
	int any = 0;

	if (o->header)
		o->header(out, p, o);
	for (i = 0; i < p->ncomment; i++)
		fprintf(out, "%s\n", p->comment[i]);
	for (i = 0; i < ARRAY_SIZE(filters); i++) {
		if (!filters[i].value || !*filters[i].value)
			continue;
		if (!any++)
			fprintf(out, "Active filters:\n");
		fprintf(out, "   %s=%s\n", filters[i].name, filters[i].value);
	}
}

static uint64_t edge_hash(uint32_t src, uint32_t dst)
{
	return hash_u64(((uint64_t)src << 32) | dst);
}

/* The edge src -> dst, created with weight 0 when missing. */
static size_t edge_get(struct vgraph *g, uint32_t src, uint32_t dst)
{
	uint64_t h = edge_hash(src, dst);
	size_t i;

	HTAB_FIND(&g->index, h, i,
		  g->edge[g->index.slot[i].idx - 1].src == src &&
			  g->edge[g->index.slot[i].idx - 1].dst == dst);
	if (g->index.slot[i].idx)
		return g->index.slot[i].idx - 1;
	GROW(g->edge, g->cap_edge, g->nedge + 1);
	g->edge[g->nedge] = (struct vedge){ .src = src, .dst = dst, .inl = 1 };
	htab_insert(&g->index, i, h, (uint32_t)++g->nedge);
	return g->nedge - 1;
}

/* What one stack's walk needs besides the graph. */
struct walk {
	const uint8_t *kept;
	const uint8_t *inl;      /* per entry: an inlined function's */
	int nodes, edges;        /* what the walk adds: the nodes' values, the edges */
	const uint8_t *want;     /* per node: edges are added at it; NULL for every node */
	uint32_t *node_seen, *edge_seen;
	size_t cap_seen;
	uint32_t stamp;
	/*
	 * Per node, the edge out of it met last (its dst + 1, and the edge):
	 * stacks share their callers, and most steps repeat the one before.
	 */
	uint32_t *last_dst, *last_edge;
};

/* One stack, from its root to its leaf: the nodes it passes once, its edges once. */
static void add_stack(struct vgraph *g, const struct rstack *s, struct walk *k)
{
	int64_t parent = -1;
	uint32_t i;
	int residual = 0;

	/* Go's graphs skip samples of value 0: they make no node and no edge. */
	if (!s->count)
		return;
	for (i = s->nchain; i-- > 0;) {
		uint32_t n = g->rep[s->chain[i]];

		if (k->kept && !k->kept[n]) {
			residual = 1;
			continue;
		}
		if (k->nodes && k->node_seen[n] != k->stamp) {
			k->node_seen[n] = k->stamp;
			g->cum[n] = sat_add(g->cum[n], s->count);
		}
		if (k->edges && parent >= 0 && (uint32_t)parent != n &&
		    (!k->want || k->want[parent] || k->want[n])) {
			size_t e;

			if (k->last_dst[parent] == n + 1) {
				e = k->last_edge[parent];
			} else {
				e = edge_get(g, (uint32_t)parent, n);
				k->last_dst[parent] = n + 1;
				k->last_edge[parent] = (uint32_t)e;
			}
			if (k->cap_seen < g->nedge) {
				size_t old = k->cap_seen;

				GROW(k->edge_seen, k->cap_seen, g->nedge);
				memset(k->edge_seen + old, 0, (k->cap_seen - old) * sizeof(*k->edge_seen));
			}
			if (k->edge_seen[e] != k->stamp) {
				k->edge_seen[e] = k->stamp;
				g->edge[e].w = sat_add(g->edge[e].w, s->count);
				g->edge[e].inl &= k->inl[s->chain[i]];
			}
		}
		parent = n;
		residual = 0;
	}
	if (k->nodes && parent >= 0 && !residual)
		g->flat[parent] = sat_add(g->flat[parent], s->count);
}

/* Go's node names: an entry's name without "(inline)", one node per name. */
static void name_nodes(struct vgraph *g, const struct report_options *o)
{
	const struct report *r = g->r;
	uint8_t *inl = g->inl = xcalloc(r->nentry + 1, 1);
	struct htab by_name;
	size_t i, k;

	htab_init(&by_name, r->nentry * 2);
	arena_init(&g->names);
	for (i = 0; i < r->nentry; i++) {
		char buf[VIEW_NAME_MAX], *made;
		const char *nm = view_name(&r->entry[i], o, buf, sizeof(buf)), *at;
		size_t len = strlen(nm);
		uint64_t h;

		/* The report's own strings outlive the graph: only names made here are copied. */
		if ((at = strstr(nm, " (inline)"))) {
			inl[i] = 1;
			made = arena_alloc(&g->names, len - 9 + 1);
			memcpy(made, nm, (size_t)(at - nm));
			strcpy(made + (at - nm), at + 9);
			g->name[i] = made;
			len -= 9;
		} else {
			g->name[i] = nm == buf ? arena_memdup(&g->names, nm, len + 1) : nm;
		}
		h = hash_bytes(g->name[i], len);
		HTAB_FIND(&by_name, h, k, !strcmp(g->name[by_name.slot[k].idx - 1], g->name[i]));
		if (by_name.slot[k].idx) {
			g->rep[i] = by_name.slot[k].idx - 1;
			g->shared_names = 1;
		} else {
			g->rep[i] = (uint32_t)i;
			htab_insert(&by_name, k, h, (uint32_t)i + 1);
		}
	}
	htab_release(&by_name);
}

static void walk_init(struct walk *k, size_t n, const uint8_t *kept, const uint8_t *inl)
{
	memset(k, 0, sizeof(*k));
	k->kept = kept;
	k->inl = inl;
	k->node_seen = xcalloc(n + 1, sizeof(*k->node_seen));
	k->last_dst = xcalloc(n + 1, sizeof(*k->last_dst));
	k->last_edge = xcalloc(n + 1, sizeof(*k->last_edge));
}

static void walk_release(struct walk *k)
{
	free(k->node_seen);
	free(k->edge_seen);
	free(k->last_dst);
	free(k->last_edge);
}

/* The nodes with a value, in entry order. */
static void collect_nodes(struct vgraph *g)
{
	size_t i;

	g->nnode = 0;
	for (i = 0; i < g->r->nentry; i++)
		if (g->flat[i] || g->cum[i])
			g->node[g->nnode++] = (uint32_t)i;
}

/* Walks every stack of g's report, adding what nodes and edges say (of the entries kept). */
static void walk_stacks(struct vgraph *g, const uint8_t *kept, int nodes, int edges,
			const uint8_t *want)
{
	struct walk k;
	size_t i;

	walk_init(&k, g->r->nentry, kept, g->inl);
	k.nodes = nodes;
	k.edges = edges;
	k.want = want;
	for (i = 0; i < g->r->nstack; i++) {
		k.stamp = (uint32_t)(i + 1);
		add_stack(g, &g->r->stack[i], &k);
	}
	walk_release(&k);
	if (nodes)
		collect_nodes(g);
}

void vgraph_build(struct vgraph *g, const struct report *r, const struct report_options *o,
		  const uint8_t *kept, int edges)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->r = r;
	g->rep = xcalloc(r->nentry + 1, sizeof(*g->rep));
	g->name = xcalloc(r->nentry + 1, sizeof(*g->name));
	g->flat = xcalloc(r->nentry + 1, sizeof(*g->flat));
	g->cum = xcalloc(r->nentry + 1, sizeof(*g->cum));
	g->node = xcalloc(r->nentry + 1, sizeof(*g->node));
	name_nodes(g, o);
	htab_init(&g->index, 64);
	if (kept || edges || g->shared_names) {
		walk_stacks(g, kept, 1, edges, NULL);
		return;
	}
	/*
	 * A node per entry: its values are the entry's, which the report
	 * summed from these stacks the same way (flat to the first entry,
	 * cum to each once).
	 */
	for (i = 0; i < r->nentry; i++) {
		g->flat[i] = r->entry[i].flat;
		g->cum[i] = r->entry[i].cum;
	}
	collect_nodes(g);
}

void vgraph_keep(struct vgraph *g, const uint8_t *kept)
{
	size_t n = g->r->nentry + 1;

	memset(g->flat, 0, n * sizeof(*g->flat));
	memset(g->cum, 0, n * sizeof(*g->cum));
	free(g->edge);
	g->edge = NULL;
	g->nedge = g->cap_edge = 0;
	htab_release(&g->index);
	htab_init(&g->index, 64);
	free(g->in_off);
	free(g->out_off);
	free(g->in);
	free(g->out);
	g->in_off = g->out_off = g->in = g->out = NULL;
	walk_stacks(g, kept, 1, 1, NULL);
}

void vgraph_add_edges(struct vgraph *g, const uint8_t *want)
{
	walk_stacks(g, NULL, 0, 1, want);
}

void vgraph_release(struct vgraph *g)
{
	if (g->name)
		arena_release(&g->names);
	free(g->name);
	free(g->rep);
	free(g->inl);
	free(g->flat);
	free(g->cum);
	free(g->edge);
	htab_release(&g->index);
	free(g->node);
	free(g->in_off);
	free(g->out_off);
	free(g->in);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

static int cmp_names(const struct vgraph *g, uint32_t a, uint32_t b)
{
	return strcmp(g->name[a], g->name[b]);
}

/* What qsort_r's comparisons need. */
struct order {
	const struct vgraph *g;
	int cum;
};

static int cmp_node(const void *x, const void *y, void *arg)
{
	const struct order *c = arg;
	const struct vgraph *g = c->g;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int64_t va = sat_abs(c->cum ? g->cum[a] : g->flat[a]);
	int64_t vb = sat_abs(c->cum ? g->cum[b] : g->flat[b]);
	int d;

	if (va != vb)
		return va > vb ? -1 : 1;
	if ((d = cmp_names(g, a, b)))
		return d;
	va = sat_abs(c->cum ? g->flat[a] : g->cum[a]);
	vb = sat_abs(c->cum ? g->flat[b] : g->cum[b]);
	return va != vb ? (va > vb ? -1 : 1) : 0;
}

void vgraph_sort(struct vgraph *g, const struct report_options *o)
{
	struct order c = { g, o->cum };

	if (g->nnode > 1)
		qsort_r(g->node, g->nnode, sizeof(*g->node), cmp_node, &c);
}

void vgraph_trim_edges(struct vgraph *g, int64_t cutoff)
{
	size_t i, n = 0;

	/*
	 * Go trims the edges into the graph's nodes only: an edge into an
	 * entry whose values cancelled out (--diff_base) stays.
	 */
	for (i = 0; i < g->nedge; i++) {
		uint32_t d = g->edge[i].dst;

		if (sat_abs(g->edge[i].w) >= cutoff || (!g->flat[d] && !g->cum[d]))
			g->edge[n++] = g->edge[i];
	}
	g->nedge = n;
	/* The index is stale now: links are all that is asked of the graph after trimming. */
	htab_clear(&g->index);
}

static int cmp_edge(const void *x, const void *y, void *arg)
{
	const struct vgraph *g = arg;
	const struct vedge *a = &g->edge[*(const uint32_t *)x], *b = &g->edge[*(const uint32_t *)y];
	int d;

	if (sat_abs(a->w) != sat_abs(b->w))
		return sat_abs(a->w) > sat_abs(b->w) ? -1 : 1;
	if ((d = cmp_names(g, a->src, b->src)))
		return d;
	return cmp_names(g, a->dst, b->dst);
}

/* Edge indexes grouped by node (src with by_src, else dst), each group sorted. */
static void group_edges(struct vgraph *g, int by_src, uint32_t **off, uint32_t **list)
{
	size_t n = g->r->nentry, i;
	uint32_t *fill = xcalloc(n + 1, sizeof(*fill));

	*off = xcalloc(n + 2, sizeof(**off));
	*list = xcalloc(g->nedge + 1, sizeof(**list));
	for (i = 0; i < g->nedge; i++)
		(*off)[(by_src ? g->edge[i].src : g->edge[i].dst) + 1]++;
	for (i = 0; i < n; i++)
		(*off)[i + 1] += (*off)[i];
	for (i = 0; i < g->nedge; i++) {
		uint32_t k = by_src ? g->edge[i].src : g->edge[i].dst;

		(*list)[(*off)[k] + fill[k]++] = (uint32_t)i;
	}
	free(fill);
	for (i = 0; i < n; i++)
		if ((*off)[i + 1] - (*off)[i] > 1)
			qsort_r(*list + (*off)[i], (*off)[i + 1] - (*off)[i], sizeof(**list), cmp_edge, g);
}

void vgraph_links(struct vgraph *g)
{
	group_edges(g, 0, &g->in_off, &g->in);
	group_edges(g, 1, &g->out_off, &g->out);
}
