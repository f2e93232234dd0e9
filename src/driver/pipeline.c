/* pipeline.c - reading, merging and symbolizing profiles, then writing the report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fetch.h"
#include "interactive.h"
#include "output.h"
#include "pipeline.h"
#include "reader.h"
#include "regex.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"
#include "web.h"

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

/* A profile file, or a remote profile fetched (and saved) through f. */
static int load_one(const struct options *o, struct fetcher *f, const char *program,
		    const char *path, struct profile **out, const struct reader **rd, struct err *e)
{
	struct read_options ro = { .max_input = o->max_input };

	if (remote_is(path))
		return fetcher_load(f, path, program, &ro, out, rd, e);
	return reader_load(path, &ro, out, rd, e);
}

/* Reads path and checks that it can be combined with p (read from first). */
static struct profile *load_more(const struct options *o, struct fetcher *f, const char *program,
				 const char *path, const struct profile *p, const char *first,
				 struct err *e)
{
	struct profile *q;

	if (load_one(o, f, program, path, &q, NULL, e) < 0)
		return NULL;
	if (!same_kind(q, p)) {
		err_set(e, "%s: not the same kind of profile as %s", path, first);
		profile_free(q);
		return NULL;
	}
	return q;
}

/*
 * Go pprof's --diff_base: the base's samples enter negated and labelled
 * pprof::base=true, which makes reports take their total as the base of
 * percentages.
 */
static void add_diff_base(struct profile *p, const struct profile *base)
{
	profile_merge_labeled(p, base, -1, "pprof::base", "true");
}

/*
 * Files to add read one ahead on a second thread while the first merges
 * the one before: reading and merging take about as long.  One profile
 * waits at most, so memory stays that of the merged stacks.  Local files
 * only (a fetch may ask on the terminal); the thread reads nothing else.
 */
struct ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	const struct options *o;
	const char *program;
	char **files;
	int n;                 /* files[0..n) to read, in order */
	struct profile *ready; /* read, not taken yet */
	int next;              /* the file ready is, or the thread reads */
	int failed, stop;
	struct err e;
};

static void *read_ahead(void *arg)
{
	struct ahead *a = arg;
	int i;

	for (i = 0; i < a->n; i++) {
		struct profile *q = NULL;
		struct err e = { { 0 } };
		int r = load_one(a->o, NULL, a->program, a->files[i], &q, NULL, &e);

		pthread_mutex_lock(&a->mu);
		while (a->ready && !a->stop)
			pthread_cond_wait(&a->changed, &a->mu);
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			if (q)
				profile_free(q);
			break;
		}
		a->ready = q;
		a->next = i;
		if (r < 0) {
			a->failed = 1;
			a->e = e;
		}
		pthread_cond_broadcast(&a->changed);
		pthread_mutex_unlock(&a->mu);
		if (r < 0)
			break;
	}
	return NULL;
}

/* The next file's profile, or NULL with e set; in file order. */
static struct profile *ahead_take(struct ahead *a, int i, struct err *e)
{
	struct profile *q;

	pthread_mutex_lock(&a->mu);
	while (!a->ready && !(a->failed && a->next == i))
		pthread_cond_wait(&a->changed, &a->mu);
	q = a->ready;
	a->ready = NULL;
	if (a->failed && a->next == i) {
		*e = a->e;
		q = NULL;
	}
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->mu);
	return q;
}

static void ahead_stop(struct ahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	if (a->ready)
		profile_free(a->ready);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->changed);
}

static int ahead_start(struct ahead *a, const struct options *o, const char *program, char **files,
		       int n)
{
	int i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		if (remote_is(files[i]))
			return 0;
	memset(a, 0, sizeof(*a));
	a->o = o;
	a->program = program;
	a->files = files;
	a->n = n;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->changed, NULL);
	if (pthread_create(&a->thread, NULL, read_ahead, a) == 0)
		return 1;
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->changed);
	return 0;
}

/*
 * Reads the profiles, the last one first as gperftools pprof does (its
 * mapped-object list is the one used), adding the others and subtracting
 * the base.  *rd is the reader of the last one, whose hooks apply.
 */
static struct profile *load_profiles(const struct options *o, struct fetcher *f,
				     const char *program, char **files, int n,
				     const struct reader **rd, struct err *e)
{
	struct read_options ro = { .max_input = o->max_input };
	const struct reader *last;
	struct profile *p, *q;
	struct ahead a;
	int i, first, ahead;

	if (load_one(o, f, program, files[n - 1], &p, &last, e) < 0)
		return NULL;
	if (rd)
		*rd = last;
	/*
	 * Profiles of the same run are added straight to p while they can be
	 * (reader.h); from the first that cannot, they are read ahead and merged.
	 */
	for (first = 0; first < n - 1 && !remote_is(files[first]); first++) {
		int r = reader_add(files[first], &ro, last, p, e);

		if (r < 0)
			goto fail;
		if (r == 0)
			break;
	}
	ahead = ahead_start(&a, o, program, files + first, n - 1 - first);
	for (i = first; i < n - 1; i++) {
		if (!ahead) {
			q = load_more(o, f, program, files[i], p, files[n - 1], e);
		} else if ((q = ahead_take(&a, i - first, e)) && !same_kind(q, p)) {
			err_set(e, "%s: not the same kind of profile as %s", files[i], files[n - 1]);
			profile_free(q);
			q = NULL;
		}
		if (!q) {
			if (ahead)
				ahead_stop(&a);
			goto fail;
		}
		profile_merge(p, q, 1);
		profile_free(q);
	}
	if (ahead)
		ahead_stop(&a);
	if (o->base) {
		if (!(q = load_more(o, f, program, o->base, p, files[n - 1], e)))
			goto fail;
		profile_subtract(p, q, o->drop_negative);
		profile_free(q);
	}
	if (o->diff_base) {
		if (!(q = load_more(o, f, program, o->diff_base, p, files[n - 1], e)))
			goto fail;
		add_diff_base(p, q);
		profile_free(q);
	}
	profile_drop_indexes(p);
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

/*
 * --sample_index: a sample type's name, or its position counted from 0.
 * Without it, the profile's default sample type, else the last (Go pprof's
 * rule; readers of gperftools' formats name their first as the default).
 */
int pipeline_sample_index(const struct profile *p, const char *name, struct err *e)
{
	struct strbuf have = STRBUF_INIT;
	char *end;
	unsigned long n;
	size_t i;

	if (!name || !*name) {
		for (i = 0; i < p->nsample_type; i++)
			if (!strcmp(p->sample_type[i].type, p->default_sample_type))
				return (int)i;
		return p->nsample_type ? (int)p->nsample_type - 1 : 0;
	}
	for (i = 0; i < p->nsample_type; i++)
		if (!strcmp(p->sample_type[i].type, name))
			return (int)i;
	n = strtoul(name, &end, 10);
	if (!*end && n < p->nsample_type)
		return (int)n;
	for (i = 0; i < p->nsample_type; i++)
		sb_addf(&have, "%s%s", i ? ", " : "", p->sample_type[i].type);
	err_set(e, "--sample_index: no sample value '%s' (this profile has: %s)", name, have.buf);
	sb_release(&have);
	return -1;
}

/*
 * Whether the one report of this run shows function names alone: a
 * format by function that shows no file or line (by_names: text, top,
 * the graphs, tree, peek, traces, flame), with no filter that could match
 * a file (--verbose keeps the lines, and with them a way to check that
 * the report is the same).  Its symbolization then reads no line tables,
 * which, with an address's frames holding for its whole function, took a
 * third of it.
 */
static int names_only(const struct options *o, const struct report_options *ro)
{
	const struct report_format *fmt = o->format ? o->format : &report_text_format;

	return fmt->by_names && !o->verbose &&
	       !o->base && !o->diff_base && ro->granularity == GRAN_FUNCTIONS &&
	       !ro->show_addresses && !ro->stacks && !ro->focus && !ro->ignore && !ro->hide &&
	       !ro->show && !ro->show_from && !ro->prune_from;
}

/* Writes the report in the chosen format to stdout or -o. */
static int write_report(const struct options *o, const struct profile *p,
			const struct report_options *ro, struct err *e)
{
	const struct report_format *fmt = o->format ? o->format : &report_text_format;
	struct output out;

	if (fmt->viewer && o->output) {
		fprintf(stderr, "pprof: --%s shows the report in a viewer; -o does not apply\n",
			fmt->name);
		return 2;
	}
	if (output_open(&out, o->output, e) < 0)
		return 1;
	if (fmt->write(out.fp, p, ro, e) < 0) {
		output_abort(&out);
		return 1;
	}
	/* A viewer has the report: there is nothing to write. */
	if (fmt->viewer) {
		output_abort(&out);
		return 0;
	}
	return output_commit(&out, e) < 0 ? 1 : 0;
}

/* Whether -o names one of the inputs (the same file, by device and inode). */
static const char *output_is_input(const struct options *o)
{
	struct stat out, in;
	int i;

	if (!o->output || stat(o->output, &out) < 0)
		return NULL;
	for (i = 0; i < o->nargs; i++)
		if (stat(o->args[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return o->args[i];
	if (o->base && stat(o->base, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
		return o->base;
	if (o->diff_base && stat(o->diff_base, &in) == 0 && in.st_dev == out.st_dev &&
	    in.st_ino == out.st_ino)
		return o->diff_base;
	return NULL;
}

/*
 * [PROGRAM] PROFILE...: the first argument is a program unless some reader
 * claims it by its content (decided without reading it twice).  Returns
 * the program, or NULL; -1 in *status when it is not one.
 */
static const char *find_program(char ***files, int *nfiles, int *status, struct err *e)
{
	const char *program;

	*status = 0;
	if (*nfiles < 2 || remote_is((*files)[0]) || reader_claims((*files)[0]))
		return NULL;
	program = (*files)[0];
	++*files;
	--*nfiles;
	if (symbolize_check_program(program, e) < 0)
		*status = -1;
	return program;
}

int pipeline_run(const struct options *o)
{
	struct options run = *o;
	struct report_options *ro = &run.report;
	struct symbolize_options so = { 0 };
	struct report_env env = { 0 };
	const struct reader *rd = NULL;
	struct fetch_options fo = { o->seconds, o->timeout,
				    o->max_input ? o->max_input : (size_t)1 << 30 };
	struct fetcher *fetch;
	const char *shown_program;
	struct profile *p = NULL;
	struct err e = { { 0 } };
	const char *program;
	char **files = o->args;
	int nfiles = o->nargs, status = 1, interactive;
	char *prefix_buf = NULL;
	const char **prefixes = NULL;

	if (o->tools)
		fprintf(stderr, "pprof: --tools is ignored: pprof reads object files itself\n");
	if (o->symbols)
		return symbols_run(o);
	if (nfiles == 0) {
		fprintf(stderr, "pprof: no profile given (try 'pprof --help')\n");
		return 2;
	}
	if (o->base && o->diff_base) {
		fprintf(stderr, "pprof: --base and --diff_base cannot be combined\n");
		return 2;
	}
	if ((program = output_is_input(o))) {
		fprintf(stderr, "pprof: -o '%s' is the input '%s': refusing to overwrite it\n",
			o->output, program);
		return 2;
	}
	if (o->http && (o->format || o->output || o->interactive)) {
		fprintf(stderr, "pprof: --http shows every view in the browser: no output format, -o "
			"or --interactive with it\n");
		return 2;
	}
	/* A bad --list=RE is a usage error: check it before any work. */
	if (o->format && o->format->arg && o->format_arg) {
		char what[32];
		struct regex *re;

		snprintf(what, sizeof(what), "--%s", o->format->name);
		if (!(re = regex_compile(o->format_arg, what, &e))) {
			fprintf(stderr, "pprof: %s\n", e.msg);
			return 2;
		}
		regex_free(re);
	}
	fetch = fetcher_new(&fo);
	program = find_program(&files, &nfiles, &status, &e);
	/* A remote profile without PROGRAM: the server names the program and its addresses. */
	shown_program = program;
	if (status == 0 && !program && remote_is(files[nfiles - 1]) &&
	    !(shown_program = fetcher_program(fetch, files[nfiles - 1], &e)))
		status = -1;
	if (status < 0 || !(p = load_profiles(o, fetch, shown_program, files, nfiles, &rd, &e))) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		fetcher_free(fetch);
		return 1;
	}
	status = 1;
	if (rd->fit) {
		const char *fitted = rd->fit(p, program);

		if (shown_program == program)
			shown_program = fitted;
		program = fitted;
	}
	prefixes = split_prefixes(o->lib_prefix, &so.nlib_prefix, &prefix_buf);
	so.program = program;
	so.lib_prefix = prefixes;
	so.verbose = o->verbose;
	so.keep_templates = ro->keep_templates;
	so.server = fetcher_symbols(fetch);
	so.add_lib = o->add_lib;
	/* A listing reads the objects again: the prompt and the web UI may list. */
	interactive = o->interactive || (!o->format && !o->output && isatty(STDOUT_FILENO));
	if (o->http || interactive || (o->format && o->format->reads_code))
		so.cache = symbolize_cache_new();
	/* Not where the objects are kept for listings (the prompt, the web UI). */
	so.names_only = !so.cache && names_only(o, ro);
	if (o->add_lib && symbolize_add_library(p, o->add_lib, &e) < 0)
		warnf("%s", e.msg);
	/*
	 * The prompt and the web UI: the locations' sums are added up while
	 * the profile is symbolized, which leaves the samples as they are
	 * (a reader's own symbolization may not).
	 */
	if ((o->http || interactive) && !rd->symbolize) {
		struct report_options first = *ro;
		struct err ignored = { { 0 } };

		first.pick = rd->pick;
		if ((first.sample_index = pipeline_sample_index(p, o->sample_index, &ignored)) >= 0)
			ro->loc_sums = report_loc_sums_start(p, &first);
	}
	if (o->symbolize != SYMBOLIZE_NONE &&
	    (rd->symbolize ? rd->symbolize : symbolize_profile)(p, &so, &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		goto done;
	}
	report_loc_sums_symbolized(ro->loc_sums);
	ro->program = shown_program;
	ro->regex = o->format_arg;
	ro->symbolize = &so;
	ro->env = &env;
	ro->frames = rd->frames;
	ro->style = rd->style;
	ro->header = rd->header;
	ro->pick = rd->pick;
	ro->leaks = rd->leaks;
	ro->source = rd;
	ro->sample_index_set = o->sample_index != NULL;
	if ((ro->sample_index = pipeline_sample_index(p, o->sample_index, &e)) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		status = 2;
		goto done;
	}
	/* No output format and a terminal to talk to: the prompt, as pprof does. */
	if (o->http)
		status = web_run(p, &run);
	else if (interactive)
		status = interactive_run(p, &run);
	else if ((status = write_report(&run, p, ro, &e)) == 1)
		fprintf(stderr, "pprof: %s\n", e.msg);
done:
	report_loc_sums_free(ro->loc_sums);
	report_env_release(&env);
	free(prefixes);
	free(prefix_buf);
	symbolize_cache_free(so.cache);
	profile_free(p);
	fetcher_free(fetch);
	return status;
}
