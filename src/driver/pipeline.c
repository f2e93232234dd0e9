/* pipeline.c - reading, merging and symbolizing profiles, then writing the report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regex.h"
#include "interactive.h"
#include "output.h"
#include "pipeline.h"
#include "reader.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

static int same_kind(const struct profile *a, const struct profile *b)
{
	size_t i;

	if (a->nsample_type != b->nsample_type)
		return 0;
	for (i = 0; i < a->nsample_type; i++)
		if (strcmp(a->sample_type[i].type, b->sample_type[i].type) ||
		    strcmp(a->sample_type[i].unit, b->sample_type[i].unit))
			return 0;
	return 1;
}

/*
 * Reads the profiles, the last one first as gperftools pprof does (its
 * mapped-object list is the one used), adding the others and subtracting
 * the base.
 */
static struct profile *load_profiles(const struct options *o, char **files, int n, struct err *e)
{
	struct profile *p, *q;
	int i;

	if (reader_load(files[n - 1], &p, e) < 0)
		return NULL;
	for (i = 0; i < n - 1; i++) {
		if (reader_load(files[i], &q, e) < 0)
			goto fail;
		if (!same_kind(q, p)) {
			err_set(e, "%s: not the same kind of profile as %s", files[i], files[n - 1]);
			profile_free(q);
			goto fail;
		}
		profile_merge(p, q, 1);
		profile_free(q);
	}
	if (o->base) {
		if (reader_load(o->base, &q, e) < 0)
			goto fail;
		if (!same_kind(q, p)) {
			err_set(e, "%s: not the same kind of profile as %s", o->base, files[n - 1]);
			profile_free(q);
			goto fail;
		}
		profile_subtract(p, q, o->drop_negative);
		profile_free(q);
	}
	return p;
fail:
	profile_free(p);
	return NULL;
}

/* Splits --lib_prefix at commas; the strings live in *buf. */
static const char **split_prefixes(const char *s, size_t *n, char **buf)
{
	const char **v;
	char *p, *tok;
	size_t cap = 0;

	*n = 0;
	*buf = NULL;
	if (!s || !*s)
		return NULL;
	*buf = xstrdup(s);
	v = NULL;
	for (p = *buf; (tok = strsep(&p, ","));) {
		if (!*tok)
			continue;
		GROW(v, cap, *n + 1);
		v[(*n)++] = tok;
	}
	return v;
}

static int check_regex(const char *re, const char *what, struct err *e)
{
	struct regex *r;

	if (!re || !*re)
		return 0;
	if (!(r = regex_compile(re, what, e)))
		return -1;
	regex_free(r);
	return 0;
}

/* --sample_index: a sample type's name, or its position counted from 0. */
static int find_sample_index(const struct profile *p, const char *name, struct err *e)
{
	struct strbuf have = STRBUF_INIT;
	char *end;
	unsigned long n;
	size_t i;

	if (!name || !*name)
		return 0;
	for (i = 0; i < p->nsample_type; i++)
		if (!strcmp(p->sample_type[i].type, name))
			return (int)i;
	n = strtoul(name, &end, 10);
	if (!*end && n < p->nsample_type)
		return (int)n;
	for (i = 0; i < p->nsample_type; i++)
		sb_addf(&have, "%s%s", i ? ", " : "", p->sample_type[i].type);
	err_set(e, "--sample_index: no sample value '%s' (this profile has: %s)", name, sb_str(&have));
	sb_release(&have);
	return -1;
}

int pipeline_run(const struct options *o)
{
	struct symbolize_options so = { 0 };
	struct report_options ro = { 0 };
	const struct report_format *fmt = o->format ? o->format : &report_text_format;
	struct profile *p = NULL;
	struct output out;
	struct err e = { { 0 } };
	const char *program = NULL;
	char **files = o->args;
	int nfiles = o->nargs, status = 1;
	char *prefix_buf = NULL;
	const char **prefixes = NULL;
	char fmt_option[32];

	if (nfiles == 0) {
		fprintf(stderr, "pprof: no profile given (try 'pprof --help')\n");
		return 2;
	}
	snprintf(fmt_option, sizeof(fmt_option), "--%s", fmt->name);
	/* Bad regexes are usage errors: check them before any work. */
	if (check_regex(o->focus, "--focus", &e) < 0 || check_regex(o->ignore, "--ignore", &e) < 0 ||
	    (o->format && o->format->arg && check_regex(o->format_arg, fmt_option, &e) < 0)) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		return 2;
	}
	/*
	 * [PROGRAM] PROFILE...: the first argument is a program unless some
	 * reader claims it by its content (decided without reading it twice).
	 */
	if (nfiles >= 2 && !reader_claims(files[0])) {
		program = files[0];
		files++;
		nfiles--;
		if (symbolize_check_program(program, &e) < 0) {
			fprintf(stderr, "pprof: %s\n", e.msg);
			return 1;
		}
	}
	p = load_profiles(o, files, nfiles, &e);
	if (!p) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		return 1;
	}
	/* A DCPI image: checked against its program, or the header's path when none is given. */
	program = dcpi_fit_program(p, program);
	prefixes = split_prefixes(o->lib_prefix, &so.nlib_prefix, &prefix_buf);
	so.program = program;
	so.lib_prefix = prefixes;
	so.verbose = o->verbose;
	so.keep_templates = o->no_strip_temp;
	/* gmon.out data is named as gprof names it. */
	if ((reader_is_gmon(p) ? symbolize_gprof(p, &so, &e) : symbolize_profile(p, &so, &e)) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		goto done;
	}
	ro.granularity = o->granularity;
	ro.cum = o->cum;
	ro.focus = o->focus;
	ro.ignore = o->ignore;
	ro.show_addresses = o->show_addresses;
	ro.keep_templates = o->no_strip_temp;
	ro.no_auto_signal_frames = o->no_auto_signal_frm;
	ro.program = program;
	ro.regex = o->format_arg;
	ro.symbolize = &so;
	ro.source_path = o->source_path;
	ro.trim_path = o->trim_path;
	ro.intel_syntax = o->intel_syntax;
	ro.nodecount = o->nodecount;
	ro.nodefraction = o->nodefraction;
	ro.edgefraction = o->edgefraction;
	ro.maxdegree = o->maxdegree;
	if ((ro.sample_index = find_sample_index(p, o->sample_index, &e)) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		status = 2;
		goto done;
	}
	/* No output format and a terminal to talk to: the prompt, as pprof does. */
	if (o->interactive || (!o->format && !o->output && isatty(STDOUT_FILENO))) {
		status = interactive_run(p, &ro, o->verbose);
		goto done;
	}
	if (fmt->viewer && o->output) {
		fprintf(stderr, "pprof: --%s shows the report in a viewer; -o does not apply\n",
			fmt->name);
		status = 2;
		goto done;
	}
	if (output_open(&out, o->output, &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		goto done;
	}
	if (fmt->write(out.fp, p, &ro, &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		output_abort(&out);
		goto done;
	}
	if (fmt->viewer) {
		/* The viewer has it: there is nothing to write. */
		output_abort(&out);
		status = 0;
		goto done;
	}
	if (output_commit(&out, &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		goto done;
	}
	status = 0;
done:
	free(prefixes);
	free(prefix_buf);
	profile_free(p);
	return status;
}
