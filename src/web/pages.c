/* pages.c - the web UI's pages at Go pprof's paths: query parameters to options, a report format to HTML. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline.h"
#include "report.h"
#include "util.h"

/*
 * Go pprof's query parameters (internal/driver/config.go), each the name
 * of a row of option_table.  A parameter whose option this pprof does not
 * have is refused, never ignored: the options table decides, so options
 * added to it later work here unchanged.
 */
static const struct param {
	const char *key;
	const char *option;
	const char *label;       /* its box in the menu; NULL: none */
	unsigned flags;
} params[] = {
	{ "f", "focus", "Focus", 0 },
	{ "i", "ignore", "Ignore", 0 },
	{ "h", "hide", "Hide", 0 },
	{ "s", "show", "Show", 0 },
	{ "sf", "show_from", "Show from", 0 },
	{ "prunefrom", "prune_from", "Prune from", 0 },
	{ "tf", "tagfocus", "Tag focus", 0 },
	{ "ti", "tagignore", "Tag ignore", 0 },
	{ "ts", "tagshow", NULL, 0 },
	{ "th", "taghide", NULL, 0 },
	{ "si", "sample_index", NULL, 0 },
	{ "g", "granularity", NULL, 0 },
	{ "n", "nodecount", NULL, 0 },
	{ "nf", "nodefraction", NULL, 0 },
	{ "ef", "edgefraction", NULL, 0 },
	{ "unit", "unit", NULL, 0 },
	{ "intel", "intel_syntax", NULL, 0 },
	{ "noinlines", "noinlines", NULL, 0 },
	{ "mean", "mean", NULL, 0 },
	{ "norm", "normalize", NULL, 0 },
	{ "rel", "relative_percentages", NULL, 0 },
	{ "compact", "compact_labels", NULL, 0 },
	{ "calltree", "call_tree", NULL, 0 },
	{ "trim", "trim", NULL, 0 },
	{ "dropneg", "drop_negative", NULL, 0 },
	/* Go pprof's sort=cum|flat is our cum. */
	{ "sort", "cum", NULL, 0 },
	/* Another name of tagfocus. */
	{ "t", "tagfocus", NULL, 0 },
};

/* The pages: Go pprof's paths, each showing one output format found by name. */
enum page_kind {
	PAGE_GRAPH,      /* an SVG drawn in the page: pan, zoom, select nodes */
	PAGE_TOP,        /* the table of entries, built here */
	PAGE_TEXT,       /* text, as it is */
	PAGE_LISTING,    /* source or machine code: lines tinted by their flat value */
	PAGE_DOCUMENT,   /* a document with its own script, in a frame: PATH.svg */
};

static const struct page {
	const char *path;
	const char *label;
	const char *format;
	enum page_kind kind;
} pages[] = {
	{ "/ui/", "Graph", "svg", PAGE_GRAPH },
	{ "/ui/top", "Top", "text", PAGE_TOP },
	{ "/ui/flamegraph", "Flame graph", "flame", PAGE_DOCUMENT },
	{ "/ui/peek", "Peek", "peek", PAGE_TEXT },
	{ "/ui/source", "Source", "list", PAGE_LISTING },
	{ "/ui/disasm", "Disassembly", "disasm", PAGE_LISTING },
};

#define DOCUMENT_SUFFIX ".svg"
#define DOCUMENT_TYPE "image/svg+xml; charset=utf-8"

/* The row of option_table named exactly name (no prefix: "show" is not "show_addresses"). */
static const struct option *find_option(const char *name)
{
	const struct option *opt;
	const struct report_format *fmt;
	struct err e;
	int negated;

	if (options_lookup(name, strlen(name), &opt, &fmt, &negated, &e) < 0 || !opt || negated ||
	    strcmp(opt->name, name))
		return NULL;
	return opt;
}

static const struct param *find_param(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (!strcmp(params[i].key, key))
			return &params[i];
	return NULL;
}

/* Whether params[i] is the first row of its option (the others are other names of it). */
static int first_of_option(size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(params[j].option, params[i].option))
			return 0;
	return 1;
}

/* What a request may change: the prompt's settings, and the sample value. */
static int per_report(const struct option *opt)
{
	return (opt->flags & OPT_SETTING) || !strcmp(opt->name, "sample_index");
}

static size_t value_size(enum option_kind kind)
{
	switch (kind) {
	case OPT_DOUBLE:
		return sizeof(double);
	case OPT_SIZE:
		return sizeof(size_t);
	case OPT_STRING:
	case OPT_REGEX:
		return sizeof(const char *);
	default:
		return sizeof(int);
	}
}

/* A parameter's value as options_set reads it: Go's t and f, and sort=cum|flat. */
static const char *option_value(const struct param *pr, const struct option *opt, const char *v)
{
	if (!strcmp(pr->key, "sort"))
		return !strcmp(v, "cum") ? "true" : !strcmp(v, "flat") ? "false" : v;
	if (opt->kind == OPT_BOOL && (!strcmp(v, "t") || !strcmp(v, "f")))
		return *v == 't' ? "true" : "false";
	return v;
}

/*
 * The options of a request: the command line's, but every setting that has
 * a parameter at its default, then the query's values (an empty one
 * leaves its setting unset, as in Go pprof).  The URL is the whole state.
 * -1 with e set when the query is bad (answered with 400).
 */
static int query_options(const struct web *w, const struct query *q, struct options *run,
			 struct err *e)
{
	size_t i;

	*run = w->base;
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		const struct option *opt = find_option(params[i].option);

		if (opt && per_report(opt))
			memcpy((char *)run + opt->offset, (const char *)&w->defaults + opt->offset,
			       value_size(opt->kind));
	}
	for (i = 0; i < q->n; i++) {
		const struct param *pr = find_param(q->arg[i].key);
		const struct option *opt;

		if (!pr)
			return err_set(e, "unknown parameter '%s'", q->arg[i].key);
		if (!(opt = find_option(pr->option)))
			return err_set(e, "parameter '%s': this pprof has no option '%s'", pr->key,
				       pr->option);
		if (!per_report(opt))
			return err_set(e, "parameter '%s': --%s applies when the profiles are read; "
				       "give it on the command line", pr->key, opt->name);
		if (!*q->arg[i].value)
			continue;
		if (options_set(run, opt, option_value(pr, opt, q->arg[i].value), e) < 0)
			return err_prefix(e, "parameter '%s'", pr->key);
	}
	run->report.quiet = 1;
	if ((run->report.sample_index = pipeline_sample_index(w->p, run->sample_index, e)) < 0)
		return -1;
	return 0;
}

/* "?k=v&..." of the query's non-empty known parameters, in the table's order. */
static void state_query(const struct query *q, struct strbuf *out)
{
	size_t i, j;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(params); i++)
		for (j = 0; j < q->n; j++) {
			if (strcmp(q->arg[j].key, params[i].key) || !*q->arg[j].value)
				continue;
			sb_addc(out, n++ ? '&' : '?');
			url_adds(out, params[i].key);
			sb_addc(out, '=');
			url_adds(out, q->arg[j].value);
		}
}

/* The same as an HTML attribute's value. */
static void state_attribute(const struct query *q, struct strbuf *out)
{
	struct strbuf sq = STRBUF_INIT;

	state_query(q, &sq);
	html_add(out, sq.buf, sq.len);
	sb_release(&sq);
}

void web_start_query(const struct web *w, struct strbuf *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(params); i++) {
		const struct option *opt = find_option(params[i].option);
		char def[512], cur[512];

		if (!opt || !per_report(opt) || !first_of_option(i) || !strcmp(params[i].key, "sort"))
			continue;
		options_format(&w->defaults, opt, def, sizeof(def));
		options_format(&w->base, opt, cur, sizeof(cur));
		if (!strcmp(def, cur))
			continue;
		sb_addc(out, n++ ? '&' : '?');
		url_adds(out, params[i].key);
		sb_addc(out, '=');
		url_adds(out, cur);
	}
}

/* Runs a format into out; -1 with e set when it fails. */
static int render(const struct report_format *fmt, const struct profile *p,
		  const struct report_options *ro, struct strbuf *out, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int rc;

	if (!fp)
		return err_set(e, "cannot buffer the '%s' output", fmt->name);
	rc = fmt->write(fp, p, ro, e);
	if (fclose(fp) != 0 && rc == 0)
		rc = err_set(e, "cannot buffer the '%s' output", fmt->name);
	if (rc == 0)
		sb_add(out, buf, len);
	free(buf);
	return rc;
}

/* The program's name as the menu shows it: its last path component. */
static const char *program_name(const struct web *w)
{
	const char *prog = w->base.report.program, *slash;
	size_t i;

	for (i = 0; !prog && i < w->p->nmapping; i++)
		if (w->p->mapping[i]->file[0] && w->p->mapping[i]->file[0] != '[')
			prog = w->p->mapping[i]->file;
	if (!prog)
		return "profile";
	slash = strrchr(prog, '/');
	return slash && slash[1] ? slash + 1 : prog;
}

static void add_nav(struct strbuf *sb, const struct page *cur, const struct query *q,
		    const char *prog, const struct value_type *st)
{
	size_t i;

	sb_adds(sb, "<nav>\n<span class=\"brand\">pprof</span>\n");
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		const struct report_format *fmt = report_find_format(pages[i].format);

		/* A view whose format this pprof lacks is left out. */
		if (!fmt)
			continue;
		sb_addf(sb, "<a href=\"%s", pages[i].path);
		state_attribute(q, sb);
		sb_addf(sb, "\" data-path=\"%s\"%s%s>", pages[i].path, fmt->arg ? " data-routine" : "",
			&pages[i] == cur ? " class=\"cur\" aria-current=\"page\"" : "");
		html_adds(sb, pages[i].label);
		sb_adds(sb, "</a>\n");
	}
	sb_adds(sb, "<span class=\"about\"><span class=\"file\">");
	html_adds(sb, prog);
	sb_adds(sb, "</span>");
	if (st) {
		sb_adds(sb, " &middot; ");
		html_adds(sb, st->type);
		sb_adds(sb, " (");
		html_adds(sb, st->unit);
		sb_adds(sb, ")");
	}
	sb_adds(sb, "</span>\n</nav>\n");
}

/* A select of values; the form leaves it out of the address while it shows def. */
static void add_select(struct strbuf *sb, const char *key, const char *label,
		       const char *const *values, size_t n, const char *cur, const char *def)
{
	size_t i;

	sb_addf(sb, "<label>%s <select name=\"%s\" data-default=\"", label, key);
	html_adds(sb, def);
	sb_adds(sb, "\">");
	for (i = 0; i < n; i++) {
		sb_adds(sb, "<option value=\"");
		html_adds(sb, values[i]);
		sb_addf(sb, "\"%s>", !strcmp(values[i], cur) ? " selected" : "");
		html_adds(sb, values[i]);
		sb_adds(sb, "</option>");
	}
	sb_adds(sb, "</select></label>\n");
}

/* The sample value and granularity selects, when there is a choice. */
static void add_selects(struct strbuf *sb, const struct web *w, const struct options *run)
{
	const struct option *g = find_option("granularity");
	const char **types;
	size_t i, n = w->p->nsample_type;
	char cur[64], def[64];
	struct err e;
	int si;

	if (n > 1 && find_option("sample_index")) {
		types = xcalloc(n, sizeof(*types));
		for (i = 0; i < n; i++)
			types[i] = w->p->sample_type[i].type;
		si = pipeline_sample_index(w->p, NULL, &e);
		add_select(sb, "si", "Sample", types, n, types[run->report.sample_index],
			   si >= 0 ? types[si] : "");
		free(types);
	}
	if (g && g->kind == OPT_CHOICE && per_report(g)) {
		for (n = 0; g->choices[n]; n++)
			;
		options_format(run, g, cur, sizeof(cur));
		options_format(&w->defaults, g, def, sizeof(def));
		add_select(sb, "g", "Granularity", (const char *const *)g->choices, n, cur, def);
	}
}

/* The filter form: a box per filter this pprof has; other parameters ride along hidden. */
static void add_form(struct strbuf *sb, const struct web *w, const struct page *pg,
		     const struct query *q, const struct options *run)
{
	size_t i, j;

	sb_addf(sb, "<form id=\"filters\" method=\"get\" action=\"%s\">\n", pg->path);
	add_selects(sb, w, run);
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		const struct option *opt;
		char v[WEB_MAX_VALUE + 1];

		if (!params[i].label || !(opt = find_option(params[i].option)) || !per_report(opt))
			continue;
		options_format(run, opt, v, sizeof(v));
		sb_addf(sb, "<label>%s <input type=\"text\" name=\"%s\" size=\"14\" spellcheck=\"false\" "
			"value=\"", params[i].label, params[i].key);
		html_adds(sb, v);
		sb_adds(sb, "\"></label>\n");
	}
	for (j = 0; j < q->n; j++) {
		const struct param *pr = find_param(q->arg[j].key);

		if (!pr || pr->label || !strcmp(pr->key, "si") || !strcmp(pr->key, "g") ||
		    !*q->arg[j].value)
			continue;
		sb_addf(sb, "<input type=\"hidden\" name=\"%s\" value=\"", pr->key);
		html_adds(sb, q->arg[j].value);
		sb_adds(sb, "\">\n");
	}
	sb_addf(sb, "<button type=\"submit\">Apply</button> <a class=\"reset\" href=\"%s\">Reset</a>\n"
		"</form>\n", pg->path);
}

/* Go pprof's refine actions on the functions selected in the graph or the table. */
static void add_selection_bar(struct strbuf *sb)
{
	static const struct {
		const char *key, *label;
	} actions[] = {
		{ "f", "Focus" }, { "i", "Ignore" }, { "h", "Hide" }, { "s", "Show" },
		{ "sf", "Show from" },
	};
	size_t i;

	sb_adds(sb, "<div id=\"selection\" hidden><span class=\"what\">Selected:</span> "
		"<span id=\"selnames\"></span>\n");
	for (i = 0; i < ARRAY_SIZE(actions); i++) {
		const struct param *pr = find_param(actions[i].key);
		const struct option *opt = find_option(pr->option);

		if (opt && per_report(opt))
			sb_addf(sb, "<button type=\"button\" data-key=\"%s\">%s</button>\n",
				actions[i].key, actions[i].label);
	}
	sb_adds(sb, "<button type=\"button\" id=\"selclear\">Clear</button></div>\n");
}

static void page_start(struct strbuf *sb, const struct web *w, const struct page *pg,
		       const struct query *q, const struct options *run)
{
	const char *prog = program_name(w);
	const struct option *g = find_option("granularity");
	char gran[64] = "functions";
	const struct value_type *st = NULL;

	if (w->p->nsample_type)
		st = &w->p->sample_type[run->report.sample_index];
	if (g)
		options_format(run, g, gran, sizeof(gran));
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	html_adds(sb, prog);
	sb_addf(sb, " %s &ndash; pprof</title>\n<style>\n%s</style>\n</head>\n", pg->label, web_css);
	sb_addf(sb, "<body data-view=\"%s\" data-g=\"", pg->path);
	html_adds(sb, gran);
	sb_adds(sb, "\">\n<header>\n");
	add_nav(sb, pg, q, prog, st);
	add_form(sb, w, pg, q, run);
	add_selection_bar(sb);
	sb_adds(sb, "</header>\n");
}

static void page_end(struct strbuf *sb, const char *nonce)
{
	sb_addf(sb, "<script nonce=\"%s\">\n%s</script>\n</body>\n</html>\n", nonce, web_js);
}

/* The SVG as the page holds it: from <svg on, without the scripts written for a document of its own. */
static void add_inline_svg(struct strbuf *sb, const char *svg, size_t n)
{
	const char *end = svg + n, *s = memmem(svg, n, "<svg", 4), *open, *close;

	if (!s)
		return;
	while ((open = memmem(s, (size_t)(end - s), "<script", 7))) {
		sb_add(sb, s, (size_t)(open - s));
		close = memmem(open, (size_t)(end - open), "</script>", 9);
		s = close ? close + 9 : end;
	}
	sb_add(sb, s, (size_t)(end - s));
}

/* The flat value a listing line starts with ("    85     85   20: ..."), or 0. */
static double line_flat(const char *s, const char *end)
{
	char num[48];
	size_t n = 0;

	while (s < end && *s == ' ')
		s++;
	while (s < end && *s != ' ' && n + 1 < sizeof(num))
		num[n++] = *s++;
	num[n] = 0;
	return n && ((num[0] >= '0' && num[0] <= '9') || num[0] == '-') ? fabs(strtod(num, NULL)) : 0;
}

/*
 * Source or machine code: each line with samples tinted by its flat value
 * (relative to the hottest line), a routine's heading and totals set apart.
 */
static void add_listing(struct strbuf *sb, const char *text, size_t n)
{
	const char *end = text + n, *s, *nl;
	double max = 0;
	int after_heading = 0;

	for (s = text; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (!after_heading && line_flat(s, nl) > max)
			max = line_flat(s, nl);
		after_heading = !strncmp(s, "ROUTINE ", 8);
	}
	sb_adds(sb, "<pre class=\"report listing\">");
	after_heading = 0;
	for (s = text; s < end; s = nl + 1) {
		double v;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		v = line_flat(s, nl);
		if (!strncmp(s, "ROUTINE ", 8))
			sb_adds(sb, "<span class=\"routine\">");
		else if (after_heading)
			sb_adds(sb, "<span class=\"total\">");
		else if (v > 0 && max > 0)
			sb_addf(sb, "<span class=\"hot\" style=\"--h:%.2f\">", sqrt(v / max));
		else
			sb_adds(sb, "<span>");
		html_add(sb, s, (size_t)(nl - s));
		sb_adds(sb, "\n</span>");
		after_heading = !strncmp(s, "ROUTINE ", 8);
	}
	sb_adds(sb, "</pre>\n");
}

static void add_message(struct strbuf *sb, const char *cls, const char *msg)
{
	sb_addf(sb, "<div class=\"%s\">", cls);
	html_adds(sb, msg);
	sb_adds(sb, "</div>\n");
}

/* The page's content for a format that ran; out is what it wrote. */
static void add_content(struct strbuf *sb, const struct page *pg, const struct strbuf *out,
			const struct query *q)
{
	switch (pg->kind) {
	case PAGE_GRAPH:
		sb_adds(sb, "<main id=\"graph\" class=\"fill\">\n");
		add_inline_svg(sb, out->buf, out->len);
		sb_adds(sb, "<div class=\"tip\">Wheel: zoom &middot; drag: move &middot; click: select "
			"&middot; double-click: fit</div>\n</main>\n");
		return;
	case PAGE_TOP:
		sb_adds(sb, "<main>\n");
		sb_add(sb, out->buf, out->len);
		sb_adds(sb, "</main>\n");
		return;
	case PAGE_TEXT:
		sb_adds(sb, "<main>\n<pre class=\"report\">");
		html_add(sb, out->buf, out->len);
		sb_adds(sb, "</pre>\n</main>\n");
		return;
	case PAGE_LISTING:
		sb_adds(sb, "<main>\n");
		add_listing(sb, out->buf, out->len);
		sb_adds(sb, "</main>\n");
		return;
	case PAGE_DOCUMENT:
		sb_addf(sb, "<main class=\"fill\">\n<iframe id=\"document\" title=\"%s\" src=\"%s%s",
			pg->label, pg->path, DOCUMENT_SUFFIX);
		state_attribute(q, sb);
		sb_adds(sb, "\"></iframe>\n</main>\n");
		return;
	}
}

static void not_found(struct reply *r, const char *msg)
{
	r->status = 404;
	r->type = "text/plain; charset=utf-8";
	r->html = 0;
	sb_reset(&r->body);
	sb_adds(&r->body, msg);
	sb_addc(&r->body, '\n');
}

/* One of the pages, or with document set, the document a PAGE_DOCUMENT page frames. */
static void serve_page(struct web *w, const struct page *pg, int document, const struct query *q,
		       struct reply *r)
{
	const struct report_format *fmt = report_find_format(pg->format);
	struct strbuf out = STRBUF_INIT;
	struct options run;
	struct err e;
	int rc = 0;

	if (!fmt) {
		struct strbuf msg = STRBUF_INIT;

		sb_addf(&msg, "this pprof has no '%s' output format, which the %s view shows",
			pg->format, pg->label);
		not_found(r, msg.buf);
		sb_release(&msg);
		return;
	}
	if (query_options(w, q, &run, &e) < 0) {
		r->status = 400;
		r->type = "text/plain; charset=utf-8";
		sb_addf(&r->body, "%s\n", e.msg);
		return;
	}
	/*
	 * Go pprof's source, disassembly and peek views take their routines
	 * from f, which then filters nothing: the page is what --list=f shows.
	 */
	if (fmt->arg) {
		run.report.regex = run.report.focus;
		run.report.focus = NULL;
	}
	if (fmt->arg && !run.report.regex && !document)
		rc = 1;
	else if (pg->kind == PAGE_TOP)
		rc = web_top(&out, w->p, &run.report, &e);
	else if (pg->kind != PAGE_DOCUMENT || document)
		rc = render(fmt, w->p, &run.report, &out, &e);
	if (rc < 0)
		r->status = atomic_load(w->stop) ? 503 : 400;
	if (document) {
		r->type = rc < 0 ? "text/plain; charset=utf-8" : DOCUMENT_TYPE;
		if (rc < 0)
			sb_addf(&r->body, "%s\n", e.msg);
		else
			sb_add(&r->body, out.buf, out.len);
		sb_release(&out);
		return;
	}
	r->type = "text/html; charset=utf-8";
	r->html = 1;
	page_start(&r->body, w, pg, q, &run);
	if (rc < 0) {
		sb_adds(&r->body, "<main>\n");
		add_message(&r->body, "msg", e.msg);
		sb_adds(&r->body, "</main>\n");
	} else if (rc > 0) {
		sb_adds(&r->body, "<main>\n");
		sb_addf(&r->body, "<div class=\"hint\">The %s view shows the routines that match the "
			"Focus expression: type one above, or select functions in the Graph or Top "
			"view and choose %s.</div>\n</main>\n", pg->label, pg->label);
	} else {
		add_content(&r->body, pg, &out, q);
	}
	page_end(&r->body, r->nonce);
	sb_release(&out);
}

void web_serve(struct web *w, const char *path, const struct query *q, struct reply *r)
{
	size_t i, n;

	/* The UI lives under /ui/, as Go pprof's does; the root leads there. */
	if (!strcmp(path, "/") || !strcmp(path, "/ui")) {
		r->status = 302;
		r->type = "text/plain; charset=utf-8";
		sb_adds(&r->location, "/ui/");
		state_query(q, &r->location);
		sb_addf(&r->body, "see %s\n", r->location.buf);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		n = strlen(pages[i].path);
		if (!strcmp(path, pages[i].path)) {
			serve_page(w, &pages[i], 0, q, r);
			return;
		}
		if (pages[i].kind == PAGE_DOCUMENT && !strncmp(path, pages[i].path, n) &&
		    !strcmp(path + n, DOCUMENT_SUFFIX)) {
			serve_page(w, &pages[i], 1, q, r);
			return;
		}
	}
	not_found(r, "no such page: the views are /ui/, /ui/top, /ui/flamegraph, /ui/peek, "
		  "/ui/source and /ui/disasm");
}
