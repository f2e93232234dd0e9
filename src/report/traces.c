/* traces.c - Go pprof's -traces: every sample's stack with its value and labels. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"
#include "util.h"
#include "gofilter.h"
#include "views.h"

static const char separator[] = "-----------+-------------------------------------------------------";

static int is_numeric(const struct label *l)
{
	return !l->str[0];
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "%10s:  v1 v2\n" per key, string labels first, each group sorted as
 * lines (Go's printTraces); --diff_base samples show Go's pprof::base mark.
 */
static void print_labels(FILE *out, const struct numunits *u, const struct sample *s, int numeric)
{
	char **lines = xcalloc(s->nlabel + 1, sizeof(*lines));
	size_t n = 0, i;
	uint32_t j, k;

	for (j = 0; j < s->nlabel; j++) {
		const struct label *l = &sample_labels(s)[j];
		struct strbuf sb = STRBUF_INIT;

		if (is_numeric(l) != numeric)
			continue;
		/* Once per key: the values of one key sit together (canonical order). */
		if (j && !strcmp(sample_labels(s)[j - 1].key, l->key) && is_numeric(&sample_labels(s)[j - 1]) == numeric)
			continue;
		sb_addf(&sb, "%10s: ", l->key);
		for (k = j; k < s->nlabel && !strcmp(sample_labels(s)[k].key, l->key); k++) {
			char v[64];

			if (is_numeric(&sample_labels(s)[k]) != numeric)
				continue;
			if (numeric)
				units_label(sample_labels(s)[k].num, numunits_get(u, l->key), "auto", v, sizeof(v));
			sb_addf(&sb, " %s", numeric ? v : sample_labels(s)[k].str);
		}
		lines[n++] = sb.buf;
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
}

static int traces_write(FILE *out, const struct profile *p, const struct report_options *o,
			struct err *e)
{
	struct report_options ro = *o;
	struct report r;
	struct numunits u;
	const char *show = view_show(o);
	size_t i;

	ro.keep_stacks = 1;
	if (report_build(p, &ro, &r, e) < 0)
		return -1;
	numunits_init(&u, p);
	view_header(out, p, o);
	for (i = 0; i < r.nstack; i++) {
		const struct rstack *s = &r.stack[i];
		char v[48], name[VIEW_NAME_MAX];
		uint32_t j;

		/* Go pprof's merge of its inputs drops samples whose values are all zero. */
		for (j = 0; j < p->nsample_type && !sample_value(s->sample)[j]; j++)
			;
		if (j == p->nsample_type)
			continue;
		fprintf(out, "%s\n", separator);
		print_labels(out, &u, s->sample, 0);
		print_labels(out, &u, s->sample, 1);
		view_value(&r, show, s->count, v, sizeof(v));
		for (j = 0; j < s->nchain; j++)
			fprintf(out, "%10s   %s\n", j ? "" : v,
				view_go_name(&r.entry[s->chain[j]], o, name, sizeof(name)));
	}
	fprintf(out, "%s\n", separator);
	numunits_release(&u);
	report_release(&r);
	return 0;
}

const struct report_format report_traces_format = {
	.name = "traces",
	.by_names = 1,
	.help = "Every sample's stack with its value and labels (Go pprof's -traces)",
	.write = traces_write,
	.terminal = 1,
};
