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
	g->edge[g->nedge].src = src;
	g->edge[g->nedge].dst = dst;
	g->edge[g->nedge].w = 0;
	htab_insert(&g->index, i, h, (uint32_t)++g->nedge);
	return g->nedge - 1;
}

/* One stack, from its root to its leaf: the nodes it passes once, its edges once. */
static void add_stack(struct vgraph *g, const struct rstack *s, const uint8_t *kept,
		      uint32_t *node_seen, uint32_t **edge_seen, size_t *cap_seen, uint32_t stamp)
{
	int64_t parent = -1;
	uint32_t i;
	int residual = 0;

	/* Go's graphs skip samples of value 0: they make no node and no edge. */
	if (!s->count)
		return;
	for (i = s->nchain; i-- > 0;) {
		uint32_t n = s->chain[i];

		if (kept && !kept[n]) {
			residual = 1;
			continue;
		}
		if (node_seen[n] != stamp) {
			node_seen[n] = stamp;
			g->cum[n] = sat_add(g->cum[n], s->count);
		}
		if (parent >= 0 && (uint32_t)parent != n) {
			size_t k = edge_get(g, (uint32_t)parent, n);

			if (*cap_seen < g->nedge) {
				size_t old = *cap_seen;

				GROW(*edge_seen, *cap_seen, g->nedge);
				memset(*edge_seen + old, 0, (*cap_seen - old) * sizeof(**edge_seen));
			}
			if ((*edge_seen)[k] != stamp) {
				(*edge_seen)[k] = stamp;
				g->edge[k].w = sat_add(g->edge[k].w, s->count);
			}
		}
		parent = n;
		residual = 0;
	}
	if (parent >= 0 && !residual)
		g->flat[parent] = sat_add(g->flat[parent], s->count);
}

void vgraph_build(struct vgraph *g, const struct report *r, const uint8_t *kept)
{
	uint32_t *node_seen = xcalloc(r->nentry + 1, sizeof(*node_seen)), *edge_seen = NULL;
	size_t i, cap_seen = 0;

	memset(g, 0, sizeof(*g));
	g->r = r;
	g->flat = xcalloc(r->nentry + 1, sizeof(*g->flat));
	g->cum = xcalloc(r->nentry + 1, sizeof(*g->cum));
	htab_init(&g->index, 64);
	for (i = 0; i < r->nstack; i++)
		add_stack(g, &r->stack[i], kept, node_seen, &edge_seen, &cap_seen, (uint32_t)(i + 1));
	g->node = xcalloc(r->nentry + 1, sizeof(*g->node));
	for (i = 0; i < r->nentry; i++)
		if (g->flat[i] || g->cum[i])
			g->node[g->nnode++] = (uint32_t)i;
	free(node_seen);
	free(edge_seen);
}

void vgraph_release(struct vgraph *g)
{
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

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* What qsort_r's comparisons need. */
struct order {
	const struct vgraph *g;
	const struct report_options *o;
};

static int cmp_names(const struct order *c, uint32_t a, uint32_t b)
{
	char ba[512], bb[512];

	return strcmp(view_name(&c->g->r->entry[a], c->o, ba, sizeof(ba)),
		      view_name(&c->g->r->entry[b], c->o, bb, sizeof(bb)));
}

static int cmp_node(const void *x, const void *y, void *arg)
{
	const struct order *c = arg;
	const struct vgraph *g = c->g;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int64_t va = abs64(c->o->cum ? g->cum[a] : g->flat[a]);
	int64_t vb = abs64(c->o->cum ? g->cum[b] : g->flat[b]);
	int d;

	if (va != vb)
		return va > vb ? -1 : 1;
	if ((d = cmp_names(c, a, b)))
		return d;
	va = abs64(c->o->cum ? g->flat[a] : g->cum[a]);
	vb = abs64(c->o->cum ? g->flat[b] : g->cum[b]);
	return va != vb ? (va > vb ? -1 : 1) : 0;
}

void vgraph_sort(struct vgraph *g, const struct report_options *o)
{
	struct order c = { g, o };

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

		if (abs64(g->edge[i].w) >= cutoff || (!g->flat[d] && !g->cum[d]))
			g->edge[n++] = g->edge[i];
	}
	g->nedge = n;
	/* The index is stale now: links are all that is asked of the graph after trimming. */
	htab_clear(&g->index);
}

static int cmp_edge(const void *x, const void *y, void *arg)
{
	const struct order *c = arg;
	const struct vedge *a = &c->g->edge[*(const uint32_t *)x], *b = &c->g->edge[*(const uint32_t *)y];
	int d;

	if (abs64(a->w) != abs64(b->w))
		return abs64(a->w) > abs64(b->w) ? -1 : 1;
	if ((d = cmp_names(c, a->src, b->src)))
		return d;
	return cmp_names(c, a->dst, b->dst);
}

/* Edge indexes grouped by endpoint (src with by_src, else dst), each group sorted. */
static void group_edges(struct vgraph *g, const struct report_options *o, int by_src,
			uint32_t **off, uint32_t **list)
{
	size_t n = g->r->nentry, i;
	struct order c = { g, o };

	*off = xcalloc(n + 2, sizeof(**off));
	*list = xcalloc(g->nedge + 1, sizeof(**list));
	for (i = 0; i < g->nedge; i++)
		(*off)[(by_src ? g->edge[i].src : g->edge[i].dst) + 1]++;
	for (i = 0; i < n; i++)
		(*off)[i + 1] += (*off)[i];
	{
		uint32_t *fill = xcalloc(n + 1, sizeof(*fill));

		for (i = 0; i < g->nedge; i++) {
			uint32_t k = by_src ? g->edge[i].src : g->edge[i].dst;

			(*list)[(*off)[k] + fill[k]++] = (uint32_t)i;
		}
		free(fill);
	}
	for (i = 0; i < n; i++)
		if ((*off)[i + 1] - (*off)[i] > 1)
			qsort_r(*list + (*off)[i], (*off)[i + 1] - (*off)[i], sizeof(**list), cmp_edge,
				&c);
}

void vgraph_links(struct vgraph *g, const struct report_options *o)
{
	group_edges(g, o, 0, &g->in_off, &g->in);
	group_edges(g, o, 1, &g->out_off, &g->out);
}
