/* svgpan.c - pan and zoom for SVG call graphs, as gperftools pprof adds them to --svg and --web. */
#include <string.h>

#include "svgpan.h"

/*
 * Our own script, run once the document is loaded: the graph opens fitted
 * to the window, the wheel zooms about the pointer, dragging moves the
 * graph.  All change the transform of the <g id="viewport"> around the
 * graph, in the coordinates of the root <svg>.
 */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"// Opens fitted to the window.  Wheel: zoom about the pointer.  Drag: move the graph.\n"
	"window.addEventListener(\"load\", function () {\n"
	"\tvar root = document.documentElement;\n"
	"\tvar view = document.getElementById(\"viewport\");\n"
	"\tvar grab = null;\n"
	"\n"
	"\tif (!view || !root.createSVGPoint)\n"
	"\t\treturn;\n"
	"\t/* Where an event happened, in the root's coordinates. */\n"
	"\tfunction at(evt) {\n"
	"\t\tvar p = root.createSVGPoint();\n"
	"\n"
	"\t\tp.x = evt.clientX;\n"
	"\t\tp.y = evt.clientY;\n"
	"\t\treturn p.matrixTransform(root.getScreenCTM().inverse());\n"
	"\t}\n"
	"\tfunction show(m) {\n"
	"\t\tview.setAttribute(\"transform\", \"matrix(\" +\n"
	"\t\t\t[m.a, m.b, m.c, m.d, m.e, m.f].join(\",\") + \")\");\n"
	"\t}\n"
	"\t/* The whole graph in the window, centred, at most twice its size. */\n"
	"\tfunction fit() {\n"
	"\t\tvar b = view.getBBox();\n"
	"\t\tvar w = window.innerWidth || root.clientWidth;\n"
	"\t\tvar h = window.innerHeight || root.clientHeight;\n"
	"\t\tvar k;\n"
	"\n"
	"\t\tif (!b.width || !b.height || !w || !h)\n"
	"\t\t\treturn;\n"
	"\t\tk = Math.min(2, 0.96 * Math.min(w / b.width, h / b.height));\n"
	"\t\tshow(root.createSVGMatrix().translate((w - k * b.width) / 2 - k * b.x,\n"
	"\t\t\t(h - k * b.height) / 2 - k * b.y).scale(k));\n"
	"\t}\n"
	"\tfit();\n"
	"\troot.addEventListener(\"wheel\", function (evt) {\n"
	"\t\tvar notches = evt.deltaY / (evt.deltaMode ? 3 : 100);\n"
	"\t\tvar q = at(evt);\n"
	"\t\tvar k = Math.pow(1.2, -Math.max(-5, Math.min(5, notches)));\n"
	"\n"
	"\t\tevt.preventDefault();\n"
	"\t\tshow(root.createSVGMatrix().translate(q.x, q.y).scale(k)\n"
	"\t\t\t.translate(-q.x, -q.y).multiply(view.getCTM()));\n"
	"\t}, { passive: false });\n"
	"\troot.addEventListener(\"mousedown\", function (evt) {\n"
	"\t\tif (evt.button !== 0)\n"
	"\t\t\treturn;\n"
	"\t\tevt.preventDefault();\n"
	"\t\tgrab = { from: at(evt), m: view.getCTM() };\n"
	"\t});\n"
	"\troot.addEventListener(\"mousemove\", function (evt) {\n"
	"\t\tvar q;\n"
	"\n"
	"\t\tif (!grab)\n"
	"\t\t\treturn;\n"
	"\t\tq = at(evt);\n"
	"\t\tshow(root.createSVGMatrix().translate(q.x - grab.from.x, q.y - grab.from.y)\n"
	"\t\t\t.multiply(grab.m));\n"
	"\t});\n"
	"\troot.addEventListener(\"mouseup\", function () { grab = null; });\n"
	"\troot.addEventListener(\"mouseleave\", function () { grab = null; });\n"
	"});\n"
	"]]></script>\n";

static const char viewport[] = "<g id=\"viewport\" transform=\"translate(0,0)\">\n";

/* The first occurrence of the NUL-terminated needle in [s, end), or NULL. */
static const char *find(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	return s <= end && (size_t)(end - s) >= n ? memmem(s, (size_t)(end - s), needle, n) : NULL;
}

/* The end of attribute name="..." in [s, end) (past its closing quote), or NULL. */
static const char *attribute_end(const char *s, const char *end, const char *name)
{
	const char *a = find(s, end, name), *q;

	if (!a || a + strlen(name) >= end || a[strlen(name)] != '"')
		return NULL;
	q = memchr(a + strlen(name) + 1, '"', (size_t)(end - a - strlen(name) - 1));
	return q ? q + 1 : NULL;
}

int svg_add_pan_zoom(const char *svg, size_t len, struct strbuf *out)
{
	const char *end = svg + len, *tag, *tag_end, *w, *h, *vb, *vb_end, *g, *close, *p;

	/*
	 * Graphviz writes <svg width="W" height="H"\n viewBox="..." xmlns=...>.
	 * The graph fills the window instead (no fixed size, no viewBox),
	 * inside a viewport group the script moves and scales.
	 */
	tag = find(svg, end, "<svg width=\"");
	tag_end = tag ? memchr(tag, '>', (size_t)(end - tag)) : NULL;
	if (!tag_end)
		return -1;
	w = attribute_end(tag, tag_end, "width=");
	h = w ? attribute_end(w, tag_end, " height=") : NULL;
	vb = h ? find(h, tag_end, "viewBox=\"") : NULL;
	vb_end = vb ? attribute_end(vb, tag_end, "viewBox=") : NULL;
	g = find(tag_end, end, "<g id=\"graph");
	if (!h || !vb_end || !g)
		return -1;
	/* The last </svg>. */
	close = NULL;
	for (p = g; (p = find(p, end, "</svg>")); p++)
		close = p;
	if (!close)
		return -1;
	sb_add(out, svg, (size_t)(tag - svg));
	sb_adds(out, "<svg width=\"100%\" height=\"100%\"");
	sb_add(out, h, (size_t)(vb - h));
	sb_add(out, vb_end, (size_t)(g - vb_end));
	sb_adds(out, script);
	sb_adds(out, viewport);
	sb_add(out, g, (size_t)(close - g));
	sb_adds(out, "</g>\n");
	sb_add(out, close, (size_t)(end - close));
	return 0;
}
