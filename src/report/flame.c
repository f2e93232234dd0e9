/* flame.c - a flame graph: one self-contained SVG, root at the bottom, zoom and search by its own script. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"
#include "views.h"

/* Geometry, in SVG pixels: the frames' width, margins, a frame's height, a character's width. */
enum { FG_WIDTH = 1200, FG_X0 = 10, FG_TOP = 34, FG_BOTTOM = 24, FG_ROW = 17, FG_CHAR = 7 };
/* Frames narrower than this are left out, with their callees. */
#define FG_MIN_WIDTH 0.1

/*
 * Our own script: it reads the frames' data- attributes (their place in
 * the unzoomed graph) and redraws the rectangles and labels; the SVG shows
 * the whole graph without it.
 */
static const char script[] =
	"// Click a frame: zoom into it; \"Reset zoom\": back.  \"Search\": highlight\n"
	"// frames whose name matches a regular expression.  The page's address may\n"
	"// say #zoom=ID&search=RE to open that way.\n"
	"(function () {\n"
	"\tvar svg = document.documentElement;\n"
	"\tvar W = +svg.getAttribute(\"data-width\"), X0 = +svg.getAttribute(\"data-x0\");\n"
	"\tvar CW = +svg.getAttribute(\"data-char\");\n"
	"\tvar frames = Array.prototype.slice.call(document.querySelectorAll(\"g.f\"));\n"
	"\tvar unzoom = document.getElementById(\"unzoom\");\n"
	"\tvar info = document.getElementById(\"matched\");\n"
	"\n"
	"\tfunction num(g, name) {\n"
	"\t\treturn +g.getAttribute(name);\n"
	"\t}\n"
	"\t/* The name cut to what fits w pixels, as the static labels are. */\n"
	"\tfunction fit(name, w) {\n"
	"\t\tvar n = Math.floor((w - 6) / CW);\n"
	"\n"
	"\t\tif (n < 3)\n"
	"\t\t\treturn \"\";\n"
	"\t\treturn name.length <= n ? name : name.slice(0, n - 2) + \"..\";\n"
	"\t}\n"
	"\tfunction place(g, x, w) {\n"
	"\t\tvar r = g.querySelector(\"rect\"), t = g.querySelector(\"text\");\n"
	"\n"
	"\t\tr.setAttribute(\"x\", (X0 + x).toFixed(3));\n"
	"\t\tr.setAttribute(\"width\", w.toFixed(3));\n"
	"\t\tt.setAttribute(\"x\", (X0 + x + 3).toFixed(3));\n"
	"\t\tt.textContent = fit(g.getAttribute(\"data-name\"), w);\n"
	"\t}\n"
	"\tfunction zoom(z) {\n"
	"\t\tvar zx = z ? num(z, \"data-x\") : 0, zw = z ? num(z, \"data-w\") : W;\n"
	"\t\tvar zd = z ? num(z, \"data-d\") : 0, eps = 1e-6;\n"
	"\n"
	"\t\tframes.forEach(function (g) {\n"
	"\t\t\tvar x = num(g, \"data-x\"), w = num(g, \"data-w\"), d = num(g, \"data-d\");\n"
	"\t\t\tvar shown;\n"
	"\n"
	"\t\t\tif (d < zd) {\n"
	"\t\t\t\t/* Callers of the zoomed frame span the width. */\n"
	"\t\t\t\tshown = x <= zx + eps && x + w >= zx + zw - eps;\n"
	"\t\t\t\tif (shown)\n"
	"\t\t\t\t\tplace(g, 0, W);\n"
	"\t\t\t} else {\n"
	"\t\t\t\tshown = x >= zx - eps && x + w <= zx + zw + eps;\n"
	"\t\t\t\tif (shown)\n"
	"\t\t\t\t\tplace(g, (x - zx) * W / zw, w * W / zw);\n"
	"\t\t\t}\n"
	"\t\t\tg.style.display = shown ? \"\" : \"none\";\n"
	"\t\t});\n"
	"\t\tunzoom.style.display = z ? \"\" : \"none\";\n"
	"\t\tsvg.setAttribute(\"data-zoom\", z ? z.id : \"\");\n"
	"\t}\n"
	"\tfunction search(text) {\n"
	"\t\tvar re, spans = [], sum = 0, end = -1;\n"
	"\n"
	"\t\ttry {\n"
	"\t\t\tre = new RegExp(text);\n"
	"\t\t} catch (err) {\n"
	"\t\t\tinfo.textContent = \"Bad expression\";\n"
	"\t\t\treturn;\n"
	"\t\t}\n"
	"\t\tframes.forEach(function (g) {\n"
	"\t\t\tvar r = g.querySelector(\"rect\"), hit = text !== \"\" && re.test(g.getAttribute(\"data-name\"));\n"
	"\n"
	"\t\t\tr.setAttribute(\"fill\", hit ? \"rgb(230,0,230)\" : g.getAttribute(\"data-fill\"));\n"
	"\t\t\tg.setAttribute(\"data-hit\", hit ? \"1\" : \"0\");\n"
	"\t\t\tif (hit)\n"
	"\t\t\t\tspans.push([num(g, \"data-x\"), num(g, \"data-w\")]);\n"
	"\t\t});\n"
	"\t\t/* What the matches cover, each part of the width once. */\n"
	"\t\tspans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"\t\tspans.forEach(function (s) {\n"
	"\t\t\tif (s[0] + s[1] <= end)\n"
	"\t\t\t\treturn;\n"
	"\t\t\tsum += s[0] + s[1] - Math.max(s[0], end);\n"
	"\t\t\tend = s[0] + s[1];\n"
	"\t\t});\n"
	"\t\tinfo.textContent = text === \"\" ? \"\" : \"Matched: \" + (100 * sum / W).toFixed(1) + \"%\";\n"
	"\t}\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tg.addEventListener(\"click\", function () { zoom(g); });\n"
	"\t});\n"
	"\tunzoom.addEventListener(\"click\", function () { zoom(null); });\n"
	"\t/* Without the script there is no search: the control shows only with it. */\n"
	"\tdocument.getElementById(\"search\").style.display = \"\";\n"
	"\tdocument.getElementById(\"search\").addEventListener(\"click\", function () {\n"
	"\t\tvar text = window.prompt(\"Search (regular expression):\", \"\");\n"
	"\n"
	"\t\tif (text !== null)\n"
	"\t\t\tsearch(text);\n"
	"\t});\n"
	"\tlocation.hash.slice(1).split(\"&\").forEach(function (kv) {\n"
	"\t\tvar i = kv.indexOf(\"=\"), k = kv.slice(0, i), v = decodeURIComponent(kv.slice(i + 1));\n"
	"\n"
	"\t\tif (k === \"zoom\" && document.getElementById(v))\n"
	"\t\t\tzoom(document.getElementById(v));\n"
	"\t\telse if (k === \"search\")\n"
	"\t\t\tsearch(v);\n"
	"\t});\n"
	"\tsvg.setAttribute(\"data-ready\", \"1\");\n"
	"})();\n";

/* A frame: an entry called from its parent frame, and the value of the stacks through it. */
struct fnode {
	uint32_t entry;
	uint32_t child, next;    /* first callee, next sibling: indexes, 0 for none */
	int64_t v;
};

struct flame {
	const struct report *r;
	const struct report_options *o;
	struct fnode *node;      /* node[0] is the root */
	size_t n, cap;
	struct htab index;       /* (parent, entry) -> node */
	uint32_t *parent;        /* per node, for the index's comparisons */
	size_t cap_parent;
	int depth;               /* the deepest frame's depth */
	size_t id;               /* frames written */
	struct strbuf sb;
};

static uint32_t child(struct flame *f, uint32_t parent, uint32_t entry)
{
	uint64_t h = hash_u64(((uint64_t)parent << 32) | entry);
	size_t i;

	HTAB_FIND(&f->index, h, i,
		  f->parent[f->index.slot[i].idx - 1] == parent &&
			  f->node[f->index.slot[i].idx - 1].entry == entry);
	if (f->index.slot[i].idx)
		return f->index.slot[i].idx - 1;
	GROW(f->node, f->cap, f->n + 1);
	GROW(f->parent, f->cap_parent, f->n + 1);
	f->node[f->n] = (struct fnode){ .entry = entry, .next = f->node[parent].child };
	f->node[parent].child = (uint32_t)f->n;
	f->parent[f->n] = parent;
	htab_insert(&f->index, i, h, (uint32_t)++f->n);
	return (uint32_t)(f->n - 1);
}

/* The frames of every stack, outermost first; a frame's value is |count| of the stacks through it. */
static void build(struct flame *f)
{
	size_t i;

	GROW(f->node, f->cap, 1);
	GROW(f->parent, f->cap_parent, 1);
	f->node[0] = (struct fnode){ .entry = UINT32_MAX };
	f->parent[0] = UINT32_MAX;
	f->n = 1;
	htab_init(&f->index, 256);
	for (i = 0; i < f->r->nstack; i++) {
		const struct rstack *s = &f->r->stack[i];
		int64_t v = sat_abs(s->count);
		uint32_t j, at = 0, depth = 0;

		f->node[0].v = sat_add(f->node[0].v, v);
		for (j = s->nchain; j-- > 0;) {
			at = child(f, at, s->chain[j]);
			f->node[at].v = sat_add(f->node[at].v, v);
			if ((int)++depth > f->depth)
				f->depth = (int)depth;
		}
	}
}

static const char *frame_name(const struct flame *f, uint32_t n, char *buf, size_t len)
{
	if (f->node[n].entry == UINT32_MAX)
		return "root";
	return view_go_name(&f->r->entry[f->node[n].entry], f->o, buf, len);
}

static void xml_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		default: sb_addc(sb, *s);
		}
	}
}

/* A warm color that depends on the name alone, so a function keeps it everywhere. */
static void color(const char *name, char *buf, size_t n)
{
	uint64_t h = hash_bytes(name, strlen(name));

	snprintf(buf, n, "rgb(%d,%d,%d)", 205 + (int)(h % 51), (int)((h >> 8) % 200),
		 (int)((h >> 16) % 56));
}

/* The label a frame w pixels wide shows (the script cuts names the same way). */
static void fit(struct strbuf *sb, const char *name, double w)
{
	int n = (int)((w - 6) / FG_CHAR);
	size_t len = strlen(name);

	if (n < 3)
		return;
	if (len <= (size_t)n) {
		xml_escape(sb, name);
	} else {
		char *cut = strndup(name, (size_t)n - 2);

		xml_escape(sb, cut);
		sb_adds(sb, "..");
		free(cut);
	}
}

/* One frame's <g>: data- attributes for the script, a tooltip, its rectangle and label. */
static void write_frame(FILE *out, struct flame *f, uint32_t n, double x, double w, int d)
{
	struct strbuf *sb = &f->sb;
	char name[VIEW_NAME_MAX], fill[32], v[80];
	const char *nm = frame_name(f, n, name, sizeof(name));
	double y = FG_TOP + (double)(f->depth - d) * FG_ROW;
	int64_t total = f->node[0].v;

	color(nm, fill, sizeof(fill));
	report_amount(f->r, f->node[n].v, v, sizeof(v));
	sb_reset(sb);
	sb_addf(sb, "<g class=\"f\" id=\"f%zu\" data-name=\"", f->id++);
	xml_escape(sb, nm);
	sb_addf(sb, "\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%d\" data-v=\"%lld\" "
		"data-fill=\"%s\"><title>", x, w, d, (long long)f->node[n].v, fill);
	xml_escape(sb, nm);
	sb_addf(sb, " (%s, %.2f%%)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" "
		"rx=\"2\" fill=\"%s\"/><text x=\"%.3f\" y=\"%.1f\">", v,
		total ? 100.0 * (double)f->node[n].v / (double)total : 0.0, FG_X0 + x, y, w,
		FG_ROW - 1, fill, FG_X0 + x + 3, y + FG_ROW - 5);
	fit(sb, nm, w);
	sb_adds(sb, "</text></g>\n");
	fwrite(sb->buf, 1, sb->len, out);
}

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct flame *f = arg;
	char ba[VIEW_NAME_MAX], bb[VIEW_NAME_MAX];

	return strcmp(frame_name(f, *(const uint32_t *)a, ba, sizeof(ba)),
		      frame_name(f, *(const uint32_t *)b, bb, sizeof(bb)));
}

/* The frame n at x (pixels from the left) and its callees above it, sorted by name. */
static void write_tree(FILE *out, struct flame *f, uint32_t n, double x, int d)
{
	double scale = (double)FG_WIDTH / (double)f->node[0].v;
	uint32_t *kids = NULL, c;
	size_t nk = 0, cap = 0, i;

	write_frame(out, f, n, x, (double)f->node[n].v * scale, d);
	for (c = f->node[n].child; c; c = f->node[c].next) {
		GROW(kids, cap, nk + 1);
		kids[nk++] = c;
	}
	if (nk > 1)
		qsort_r(kids, nk, sizeof(*kids), cmp_child, f);
	for (i = 0; i < nk; i++) {
		double w = (double)f->node[kids[i]].v * scale;

		if (w >= FG_MIN_WIDTH)
			write_tree(out, f, kids[i], x, d + 1);
		x += w;
	}
	free(kids);
}

static void write_svg(FILE *out, struct flame *f)
{
	int height = FG_TOP + (f->depth + 1) * FG_ROW + FG_BOTTOM, width = FG_WIDTH + 2 * FG_X0;
	char total[80];

	report_amount(f->r, f->node[0].v, total, sizeof(total));
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" data-x0=\"%d\" data-char=\"%d\" "
		"font-family=\"monospace\" font-size=\"12\">\n", width, height, width, height,
		FG_WIDTH, FG_X0, FG_CHAR);
	fprintf(out, "<style>g.f { cursor: pointer } g.f:hover rect { stroke: black; stroke-width: 0.5 }"
		" g.f text { pointer-events: none } .ctl { cursor: pointer; fill: #1a4fa0 }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n"
		"<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">Flame graph</text>\n"
		"<text id=\"unzoom\" class=\"ctl\" x=\"%d\" y=\"22\" style=\"display: none\">"
		"Reset zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"22\" text-anchor=\"end\" "
		"style=\"display: none\">Search</text>\n"
		"<text x=\"%d\" y=\"%d\">Total: %s; the root is at the bottom, callees above their "
		"callers, widths by value</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		width / 2, FG_X0, FG_X0 + FG_WIDTH, FG_X0, height - 8, total, FG_X0 + FG_WIDTH,
		height - 8);
	if (f->node[0].v > 0)
		write_tree(out, f, 0, 0, 0);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n", script);
}

static int flame_write(FILE *out, const struct profile *p, const struct report_options *o,
		       struct err *e)
{
	struct report_options ro = *o;
	struct report r;
	struct flame f = { 0 };

	ro.keep_stacks = 1;
	ro.merge_stacks = 1;
	if (report_build(p, &ro, &r, e) < 0)
		return -1;
	f.r = &r;
	f.o = o;
	f.sb = (struct strbuf)STRBUF_INIT;
	build(&f);
	write_svg(out, &f);
	htab_release(&f.index);
	free(f.node);
	free(f.parent);
	sb_release(&f.sb);
	report_release(&r);
	return 0;
}

const struct report_format report_flame_format = {
	.name = "flame",
	.by_names = 1,
	.help = "A flame graph: one SVG with its own script, to zoom and search in a browser",
	.write = flame_write,
	.ext = "svg",
};
