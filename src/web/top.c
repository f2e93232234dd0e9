/* top.c - the web UI's top table: the text report's rows as a sortable HTML table, from report_build. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "report.h"
#include "util.h"

/* Rows shown at most: a browser sorts a few thousand at once. */
#define MAX_ROWS 5000

static void add_percent(struct strbuf *sb, int64_t num, int64_t total)
{
	if (total != 0)
		sb_addf(sb, "%.1f%%", (double)num * 100.0 / (double)total);
	else
		sb_adds(sb, num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
}

/* The lines the text report starts with: the format's header, comments, total, filters. */
static void add_legend(struct strbuf *out, const struct profile *p, const struct report_options *o,
		       const struct report *r)
{
	char *buf = NULL, t[80];
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return;
	if (o->header)
		o->header(fp, p, o);
	for (i = 0; i < p->ncomment; i++)
		fprintf(fp, "%s\n", p->comment[i]);
	report_amount(r, r->total, t, sizeof(t));
	fprintf(fp, "Total: %s\n", t);
	if (o->focus)
		report_kept(fp, r, r->focus_total, "focusing on", o->focus);
	if (o->ignore)
		report_kept(fp, r, r->kept_total, "ignoring", o->ignore);
	if (fclose(fp) == 0) {
		sb_adds(out, "<pre class=\"legend\">");
		html_add(out, buf, len);
		sb_adds(out, "</pre>\n");
	}
	free(buf);
}

static void add_row(struct strbuf *out, const struct report *r, const struct report_options *o,
		    const struct entry *e, int64_t running, int64_t max_flat)
{
	char fv[48], cv[48];
	double share = max_flat ? 100.0 * (double)sat_abs(e->flat) / (double)max_flat : 0;

	report_value(r, e->flat, fv, sizeof(fv));
	report_value(r, e->cum, cv, sizeof(cv));
	sb_adds(out, "<tr><td data-v=\"");
	sb_addf(out, "%lld\">%s</td><td class=\"bar\" style=\"--w:%.1f%%\" data-v=\"%lld\">",
		(long long)e->flat, fv, share, (long long)e->flat);
	add_percent(out, e->flat, r->local_total);
	sb_addf(out, "</td><td data-v=\"%lld\">", (long long)running);
	add_percent(out, running, r->local_total);
	sb_addf(out, "</td><td data-v=\"%lld\">%s</td><td data-v=\"%lld\">", (long long)e->cum, cv,
		(long long)e->cum);
	add_percent(out, e->cum, r->local_total);
	sb_adds(out, "</td><td class=\"name\">");
	/* As the text report names an entry: an address key shows its symbol and file:line. */
	if (e->display && o->granularity == GRAN_ADDRESSES) {
		html_adds(out, e->key);
		sb_addc(out, ' ');
		html_adds(out, e->display);
	} else {
		html_adds(out, e->display ? e->display : e->key);
	}
	sb_adds(out, "</td></tr>\n");
}

int web_top(struct strbuf *out, const struct profile *p, const struct report_options *o,
	    struct err *e)
{
	struct report r;
	const struct entry **v;
	int64_t running = 0, max_flat = 0;
	size_t i, rows = 0, more = 0;

	if (report_build(p, o, &r, e) < 0)
		return -1;
	add_legend(out, p, o, &r);
	v = report_sorted(&r, o->cum);
	for (i = 0; i < r.nentry; i++)
		if (sat_abs(v[i]->flat) > max_flat)
			max_flat = sat_abs(v[i]->flat);
	sb_addf(out, "<table class=\"top\" id=\"top\">\n<thead><tr>"
		"<th data-sort=\"num\"%s>Flat</th><th data-sort=\"num\">Flat%%</th>"
		"<th data-sort=\"num\">Sum%%</th><th data-sort=\"num\"%s>Cum</th>"
		"<th data-sort=\"num\">Cum%%</th><th data-sort=\"text\" class=\"name\">Name</th>"
		"</tr></thead>\n<tbody>\n", o->cum ? "" : " aria-sort=\"descending\"",
		o->cum ? " aria-sort=\"descending\"" : "");
	for (i = 0; i < r.nentry; i++) {
		running += v[i]->flat;
		if (v[i]->flat == 0 && v[i]->cum == 0)
			continue;
		if (rows == MAX_ROWS) {
			more++;
			continue;
		}
		add_row(out, &r, o, v[i], running, max_flat);
		rows++;
	}
	sb_adds(out, "</tbody>\n</table>\n");
	if (more)
		sb_addf(out, "<p class=\"note\">%zu more rows are left out; focus on part of the "
			"profile to see them.</p>\n", more);
	if (!rows)
		sb_adds(out, "<p class=\"note\">No entries: the filters leave nothing.</p>\n");
	free(v);
	report_release(&r);
	return 0;
}
