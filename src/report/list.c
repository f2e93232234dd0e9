/* list.c - --list: source lines of routines with their flat and cumulative counts. */
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "names.h"
#include "strbuf.h"
#include "util.h"

/* pprof's CleanFileName. */
static const char *clean_file_name(const char *f)
{
	if (!strncmp(f, "/proc/self/cwd/", 15))
		f += 15;
	if (!strncmp(f, "./", 2))
		f += 2;
	return f;
}

/* Leading white space of a line with something else on it, or -1. */
static int indentation(const char *line)
{
	int n = 0;

	while (line[n] && strchr(" \t\f\v", line[n]))
		n++;
	return line[n] ? n : -1;
}

/* The most lines one routine may span. */
#define MAX_SPAN (1 << 22)

struct counts {
	int64_t flat, cum;
};

/* pprof's PrintSource for one routine; returns 1 when it was shown. */
static int list_routine(FILE *out, struct annotation *a, const struct routine *rt,
			struct sources *srcs, struct err *e)
{
	struct code_insn *ins;
	long n = code_lines(a->code, rt, &ins, e);
	const char *filename;
	const struct source *src;
	struct counts *per = NULL;
	int64_t run_flat = 0, run_cum = 0, total_flat = 0, total_cum = 0;
	int first = 1, last = 0, oldlast, nlines, l;
	char f[48], c[48];
	long i;

	if (n < 0)
		return -1;
	if (n == 0) {
		free(ins);
		return 0;
	}
	/* The routine's file: where its first instruction is, not counting inlining. */
	filename = ins[0].top_file;
	/* Its lines: from the first in that file to the largest. */
	for (i = 0; i < n; i++)
		if (!strcmp(ins[i].top_file, filename) && ins[i].top_line > last)
			last = ins[i].top_line;
	if (!strcmp(filename, "??") || last == 0) {
		fprintf(stderr, "%s: no line information; --disasm shows its instructions\n",
			rt->short_name);
		free(ins);
		return 0;
	}
	first = ins[0].top_line;
	oldlast = last;
	src = sources_get(srcs, filename);
	/*
	 * The last line extends over what is indented at least as deep as the
	 * first.  (last is at least first: nothing before first counts.)
	 */
	if (src->text) {
		int first_indent = -1;

		for (l = first > 1 ? first : 1; l <= (int)src->nline; l++) {
			int ind = indentation(src->line[l]);

			if (l >= first && first_indent < 0 && ind >= 0) {
				first_indent = ind;
				if (first_indent == 0)
					break;
			}
			if (l >= last && ind >= 0) {
				if (ind >= first_indent)
					last = l + 1;
				else
					break;
			}
		}
	}
	/* Counts for lines first..last only: hostile line numbers cannot make it huge. */
	if (last - first > MAX_SPAN) {
		fprintf(stderr, "%s: lines %d to %d of %s are too far apart to list\n",
			rt->short_name, first, last, filename);
		free(ins);
		return 0;
	}
	nlines = last - first + 1;
	per = xcalloc((size_t)nlines + 1, sizeof(*per));
	/* Counts outside the lines go to the next instruction inside them, the rest to the last. */
	for (i = 0; i < n; i++) {
		int64_t fl, cu;

		annotation_sum(a, ins[i].addr, ins[i].end, &fl, &cu);
		run_flat = sat_add(run_flat, fl);
		run_cum = sat_add(run_cum, cu);
		total_flat = sat_add(total_flat, fl);
		total_cum = sat_add(total_cum, cu);
		if (!strcmp(ins[i].top_file, filename) && ins[i].top_line >= first &&
		    ins[i].top_line <= last && ins[i].top_line >= 0) {
			struct counts *k = &per[ins[i].top_line - first];

			k->flat = sat_add(k->flat, run_flat);
			k->cum = sat_add(k->cum, run_cum);
			run_flat = run_cum = 0;
		}
	}
	per[last - first].flat = sat_add(per[last - first].flat, run_flat);
	per[last - first].cum = sat_add(per[last - first].cum, run_cum);
	report_value(&a->r, total_flat, f, sizeof(f));
	report_value(&a->r, total_cum, c, sizeof(c));
	fprintf(out, "ROUTINE ====================== %s in %s\n%6s %6s Total %s (flat / cumulative)\n",
		rt->short_name, clean_file_name(filename), f, c, annotation_unit(a));
	/* From 5 lines before the routine's to 5 after (or its last, if further). */
	for (l = first <= 6 ? 1 : first - 5;; l++) {
		const char *text;

		if (src->text) {
			if (l > (int)src->nline)
				break;
			text = src->line[l];
		} else {
			/* No source: the routine's lines that have counts, by number. */
			if (l > last)
				break;
			if (l < first || (l != first && l != last && !per[l - first].flat &&
					  !per[l - first].cum))
				continue;
			text = "";
		}
		if (l > oldlast + 5 && l > last)
			break;
		if (l == first)
			fputs("---\n", out);
		annotation_value(a, l >= first && l <= last ? per[l - first].flat : 0, f, sizeof(f));
		annotation_value(a, l >= first && l <= last ? per[l - first].cum : 0, c, sizeof(c));
		/* (No text at all without the source, not even the blank.) */
		fprintf(out, "%6s %6s %4d:%s%s\n", f, c, l, src->text ? " " : "", text);
		if (l == last)
			fputs("---\n", out);
	}
	free(per);
	free(ins);
	return 1;
}

static int list_write(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	struct annotation a;
	struct sources srcs;
	size_t i;
	int shown = 0, ret = 0;

	if (annotation_build(&a, p, o, "--list", e) < 0)
		return -1;
	sources_init(&srcs, o);
	for (i = 0; i < a.nroutine && ret == 0; i++) {
		int k = list_routine(out, &a, &a.routine[i], &srcs, e);

		if (k < 0)
			ret = -1;
		shown += k > 0;
	}
	if (ret == 0 && !shown && a.nroutine)
		ret = err_set(e, "--list: no routine matching '%s' has line information", o->regex);
	else if (ret == 0 && !shown)
		ret = err_set(e, "--list: no routine with samples matches '%s'", o->regex);
	sources_release(&srcs);
	annotation_release(&a);
	return ret;
}

const struct report_format report_list_format = {
	.name = "list",
	.arg = "REGEX",
	.help = "Source of routines matching REGEX, with counts per line",
	.write = list_write,
	.reads_code = 1,
};
