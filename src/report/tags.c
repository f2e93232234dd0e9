/* tags.c - Go pprof's -tags: every label key with its values' totals and shares. */
#include <stdlib.h>
#include <string.h>

#include "gofilter.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"
#include "views.h"

/* One value of one key, and what the samples carrying it add up to. */
struct tagval {
	const char *key;         /* interned in the profile */
	char *value;
	int64_t sum;
};

struct tagset {
	struct tagval *v;
	size_t n, cap;
};

static void add(struct tagset *t, const char *key, const char *value, int64_t v)
{
	size_t i;

	/* Linear: label sets are small, and -tags is read by a person. */
	for (i = 0; i < t->n; i++)
		if (t->v[i].key == key && !strcmp(t->v[i].value, value)) {
			t->v[i].sum = sat_add(t->v[i].sum, v);
			return;
		}
	GROW(t->v, t->cap, t->n + 1);
	t->v[t->n].key = key;
	t->v[t->n].value = xstrdup(value);
	t->v[t->n++].sum = v;
}

/* Keys by name; within a key, |sum| descending, then value. */
static int cmp_tag(const void *x, const void *y)
{
	const struct tagval *a = x, *b = y;
	int d = strcmp(a->key, b->key);

	if (d)
		return d;
	if (sat_abs(a->sum) != sat_abs(b->sum))
		return sat_abs(a->sum) > sat_abs(b->sum) ? -1 : 1;
	return strcmp(a->value, b->value);
}

/* An amount as Go's tags print it: "%.1f" and the unit, scaled to show. */
static void amount(const struct report *r, const char *show, int64_t v, char *buf, size_t n)
{
	const char *u = "";
	double x = (double)v;

	if (r->style.measure)
		x = units_scale(sat_mul(v, r->style.multiplier), r->style.measure, show, &u);
	snprintf(buf, n, "%.1f%s", x, u);
}

/*
 * One key's block as Go's tabwriter aligns it: the key right-aligned in a
 * column as wide as the key plus one, the amounts right-aligned in the
 * next, then the values.
 */
static void print_key(FILE *out, const struct report *r, const char *show, const struct tagval *v,
		      size_t n)
{
	char (*cell)[128] = xcalloc(n + 1, sizeof(*cell)), a[64], pc[32];
	int64_t total = 0;
	size_t i, w0 = strlen(v[0].key) + 1, w1 = 0;

	for (i = 0; i < n; i++)
		total = sat_add(total, v[i].sum);
	for (i = 0; i < n; i++) {
		amount(r, show, v[i].sum, a, sizeof(a));
		units_percentage(v[i].sum, total, pc, sizeof(pc));
		if (total > 0)
			snprintf(cell[i], sizeof(cell[i]), "%s (%s):", a, pc);
		else
			snprintf(cell[i], sizeof(cell[i]), "%s:", a);
		if (strlen(cell[i]) > w1)
			w1 = strlen(cell[i]);
	}
	amount(r, show, total, a, sizeof(a));
	fprintf(out, "%*s: Total %s\n", (int)w0, v[0].key, a);
	for (i = 0; i < n; i++)
		fprintf(out, "%*s  %*s %s\n", (int)w0, "", (int)w1, cell[i], v[i].value);
	fprintf(out, "\n");
	free(cell);
}

static void collect(struct tagset *t, const struct report *r, const struct numunits *u,
		    const char *show)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < r->nstack; i++) {
		const struct sample *s = r->stack[i].sample;

		for (j = 0; j < s->nlabel; j++) {
			const struct label *l = &sample_labels(s)[j];
			char v[64];

			if (!l->str[0])
				units_label(l->num, numunits_get(u, l->key), show, v, sizeof(v));
			add(t, l->key, l->str[0] ? l->str : v, r->stack[i].count);
		}
	}
}

static int tags_write(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	struct report_options ro = *o;
	struct tagset t = { 0 };
	struct numunits u;
	struct report r;
	const char *show = view_show(o);
	size_t i, start;

	/* Stacks only to read labels from: without labels the report is only checked. */
	for (i = 0; i < p->nsample && !ro.keep_stacks; i++)
		ro.keep_stacks = p->sample[i]->nlabel > 0;
	if (report_build(p, &ro, &r, e) < 0)
		return -1;
	numunits_init(&u, p);
	if (ro.keep_stacks)
		collect(&t, &r, &u, show);
	if (t.n > 1)
		qsort(t.v, t.n, sizeof(*t.v), cmp_tag);
	for (start = 0; start < t.n; start = i) {
		for (i = start; i < t.n && !strcmp(t.v[i].key, t.v[start].key); i++)
			;
		print_key(out, &r, show, t.v + start, i - start);
	}
	for (i = 0; i < t.n; i++)
		free(t.v[i].value);
	free(t.v);
	numunits_release(&u);
	report_release(&r);
	return 0;
}

const struct report_format report_tags_format = {
	.name = "tags",
	.help = "Label keys and values with their totals and shares (Go pprof's -tags)",
	.write = tags_write,
	.terminal = 1,
};
