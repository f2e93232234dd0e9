/* text.c - the text report: one line per entry with flat, flat%, sum%, cum, cum%, name. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "units.h"
#include "util.h"

static void percent(char *buf, size_t n, int64_t num, int64_t total)
{
	if (total != 0)
		snprintf(buf, n, "%.1f%%", (double)num * 100.0 / (double)total);
	else
		snprintf(buf, n, "%s", num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
}

static int cmp_entry(const void *a, const void *b, void *cum)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	int by_cum = *(const int *)cum;
	int64_t vx = by_cum ? x->cum : x->flat, vy = by_cum ? y->cum : y->flat;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Entries in report order; caller frees the array. */
const struct entry **report_sorted(const struct report *r, int cum)
{
	const struct entry **v = xcalloc(r->nentry + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < r->nentry; i++)
		v[i] = &r->entry[i];
	if (r->nentry > 1)
		qsort_r(v, r->nentry, sizeof(*v), cmp_entry, &cum);
	return v;
}

/* How pprof prints a key: an address key shows its symbol and file:line. */
static void print_name(FILE *out, const struct entry *e, const struct report_options *o)
{
	if (e->display && o->granularity == GRAN_ADDRESSES)
		fprintf(out, "%s %s\n", e->key, e->display);
	else
		fprintf(out, "%s\n", e->display ? e->display : e->key);
}

void report_value(const struct report *r, int64_t v, char *buf, size_t n)
{
	if (r->style.measure)
		units_label(sat_mul(v, r->style.multiplier), r->style.measure, r->style.show, buf, n);
	else if (r->style.decimals || r->style.divisor != 1)
		snprintf(buf, n, "%.*f", r->style.decimals, (double)v / r->style.divisor);
	else
		snprintf(buf, n, "%lld", (long long)v);
}

void report_amount(const struct report *r, int64_t v, char *buf, size_t n)
{
	char num[48];

	report_value(r, v, num, sizeof(num));
	if (r->style.measure)
		snprintf(buf, n, "%s", num);
	else
		snprintf(buf, n, "%s %s", num, r->style.unit);
}

/* "After focusing on 'RE': N samples of T (P%)", as gperftools pprof's prompt says it. */
void report_kept(FILE *out, const struct report *r, int64_t v, const char *what, const char *re)
{
	char kept[80], total[48];

	report_amount(r, v, kept, sizeof(kept));
	report_value(r, r->total, total, sizeof(total));
	fprintf(out, "After %s '%s': %s of %s (%0.1f%%)\n", what, re, kept, total,
		r->total ? (double)v * 100.0 / (double)r->total : 0.0);
}

void report_text(FILE *out, const struct report *r, const struct report_options *o, int limit)
{
	if (r->total != 0) {
		char t[80];

		report_amount(r, r->total, t, sizeof(t));
		fprintf(out, "Total: %s\n", t);
		/* How much the filters leave, so that a report of part of the profile says so. */
		if (o->focus)
			report_kept(out, r, r->focus_total, "focusing on", o->focus);
		if (o->ignore)
			report_kept(out, r, r->kept_total, "ignoring", o->ignore);
	}
	report_text_rows(out, r, o, limit);
}

void report_text_rows(FILE *out, const struct report *r, const struct report_options *o, int limit)
{
	const struct entry **v = report_sorted(r, o->cum);
	int64_t running = 0;
	size_t i;
	int lines = 0;

	for (i = 0; i < r->nentry; i++) {
		const struct entry *e = v[i];
		char fp[32], rp[32], cp[32], fv[48], cv[48];

		running = sat_add(running, e->flat);
		if (e->flat != 0 || e->cum != 0) {
			percent(fp, sizeof(fp), e->flat, r->local_total);
			percent(rp, sizeof(rp), running, r->local_total);
			percent(cp, sizeof(cp), e->cum, r->local_total);
			report_value(r, e->flat, fv, sizeof(fv));
			report_value(r, e->cum, cv, sizeof(cv));
			fprintf(out, "%8s %6s %6s %8s %6s ", fv, fp, rp, cv, cp);
			print_name(out, e, o);
		}
		if (limit > 0 && ++lines >= limit)
			break;
	}
	free(v);
}

static int text_write(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	struct report r;
	size_t i;

	if (report_build(p, o, &r, e) < 0)
		return -1;
	/* The format's header lines and the profile's comments come first. */
	if (o->header)
		o->header(out, p, o);
	for (i = 0; i < p->ncomment; i++)
		fprintf(out, "%s\n", p->comment[i]);
	report_text(out, &r, o, 0);
	report_release(&r);
	return 0;
}

const struct report_format report_text_format = {
	.name = "text",
	.help = "Generate text report",
	.write = text_write,
};
