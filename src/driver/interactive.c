/* interactive.c - the (pprof) prompt: commands, session settings, libedit. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "dynlib.h"
#include "interactive.h"
#include "names.h"
#include "output.h"
#include "regex.h"
#include "strbuf.h"
#include "util.h"

/*
 * libedit, opened when the prompt reads from a terminal (dynlib.h):
 * linked, it and what it brings (libtinfo, libbsd, libmd) took about
 * 0.6 ms of every start.
 */
static struct {
	__typeof__(readline) *readline;
	__typeof__(add_history) *add_history;
	__typeof__(using_history) *using_history;
	__typeof__(read_history) *read_history;
	__typeof__(write_history) *write_history;
	__typeof__(history_truncate_file) *history_truncate_file;
	__typeof__(rl_completion_matches) *completion_matches;
	__typeof__(&rl_readline_name) readline_name;
	__typeof__(&rl_attempted_completion_function) completion_function;
	__typeof__(&rl_attempted_completion_over) completion_over;
} edit;

static const struct dynsym edit_syms[] = {
	{ "readline", (void **)&edit.readline },
	{ "add_history", (void **)&edit.add_history },
	{ "using_history", (void **)&edit.using_history },
	{ "read_history", (void **)&edit.read_history },
	{ "write_history", (void **)&edit.write_history },
	{ "history_truncate_file", (void **)&edit.history_truncate_file },
	{ "rl_completion_matches", (void **)&edit.completion_matches },
	{ "rl_readline_name", (void **)&edit.readline_name },
	{ "rl_attempted_completion_function", (void **)&edit.completion_function },
	{ "rl_attempted_completion_over", (void **)&edit.completion_over },
	{ NULL, NULL },
};

static const char *const edit_names[] = { "libedit.so.2", "libedit.so", NULL };
static struct dynlib libedit = { .names = edit_names, .syms = edit_syms };

/* The session: settings that persist from command to command. */
struct session {
	const struct profile *p;
	struct options set;            /* the command line's, then the prompt's */
	struct arena values;           /* storage for string settings */
	int tty;                       /* a terminal, and libedit to read it */
	unsigned next_file;
	/*
	 * The last text report and the settings it was built with: asking
	 * again with the same ones only sorts and prints it.
	 */
	struct report last;
	struct report_options last_ro;
	int have_last;
};

static atomic_int interrupted;

/* Ctrl-C: at the prompt, a fresh line; during a report, back to the prompt. */
static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Whether reports built with a and b have the same entries. */
static int same_report(const struct report_options *a, const struct report_options *b)
{
	return a->granularity == b->granularity && same_str(a->focus, b->focus) &&
	       same_str(a->ignore, b->ignore) && a->show_addresses == b->show_addresses &&
	       a->keep_templates == b->keep_templates && a->sample_index == b->sample_index &&
	       a->no_auto_signal_frames == b->no_auto_signal_frames &&
	       a->heap_value == b->heap_value && a->delay_value == b->delay_value &&
	       a->show_bytes == b->show_bytes;
}

/* The report for ro, built or reused; valid until the next call. */
static const struct report *text_report(struct session *s, const struct report_options *ro,
					struct err *e)
{
	if (s->have_last && same_report(&s->last_ro, ro))
		return &s->last;
	if (s->have_last)
		report_release(&s->last);
	s->have_last = 0;
	if (report_build(s->p, ro, &s->last, e) < 0)
		return NULL;
	s->have_last = 1;
	/* Strings in last_ro must outlive the command: settings' live in s->values. */
	s->last_ro = *ro;
	s->last_ro.focus = ro->focus ? arena_strdup(&s->values, ro->focus) : NULL;
	s->last_ro.ignore = ro->ignore ? arena_strdup(&s->values, ro->ignore) : NULL;
	return &s->last;
}

/* Commands other than settings; output formats are commands too (report_formats). */
static const struct {
	const char *name, *args, *help;
} commands[] = {
	{ "top", "[N] [FOCUS]... [-IGNORE]... [--cum] [--lines]",
	  "Show the top N (10) entries by flat count, or by cumulative with --cum;\n"
	  "      FOCUS words keep only stacks matching one of them, each -IGNORE drops\n"
	  "      stacks with an entry matching IGNORE.  topN and text[N] are the same" },
	{ "list", "REGEX [-IGNORE]...", "Show annotated source of routines matching REGEX" },
	{ "disasm", "REGEX [-IGNORE]...", "Show annotated disassembly of routines matching REGEX" },
	{ "gv", "[FOCUS] [-IGNORE]...", "Show the call graph in gv" },
	{ "evince", "[FOCUS] [-IGNORE]...", "Show the call graph in evince" },
	{ "web", "[FOCUS] [-IGNORE]...", "Show the call graph in a web browser" },
	{ "dot", "[FOCUS] [-IGNORE]... [>FILE]",
	  "Write the call graph to FILE (pprof.N.dot); also pdf, ps, svg, png, gif" },
	{ "traces", "[FOCUS] [-IGNORE]...", "Show every sample's stack with its value and labels" },
	{ "tree", "[FOCUS] [-IGNORE]...", "Show each entry with its callers and callees" },
	{ "peek", "REGEX [-IGNORE]...", "Show the entries matching REGEX with their callers and callees" },
	{ "tags", "[FOCUS] [-IGNORE]...", "Show the label keys and values with their totals" },
	{ "flame", "[FOCUS] [-IGNORE]... [>FILE]", "Write a flame graph to FILE (pprof.N.svg)" },
	{ "options", "", "Show the session's settings (also: o)" },
	{ "help", "[COMMAND]", "Show this help, or one command's" },
	{ "quit", "", "Leave pprof (also: exit, q, end of input)" },
};

static void print_command(size_t i, const char *indent)
{
	printf("%s%s%s%s\n      %s\n", indent, commands[i].name, commands[i].args[0] ? " " : "",
	       commands[i].args, commands[i].help);
}

static void print_setting(const struct option *opt, const char *indent)
{
	printf("%s%s=%s\n      %s%s%s%s\n", indent, opt->name, opt->arg ? opt->arg : "true|false",
	       opt->help, opt->def ? " [" : "", opt->def ? opt->def : "", opt->def ? "]" : "");
}

static void help(const char *cmd)
{
	size_t i;

	if (cmd && *cmd) {
		for (i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(commands[i].name, cmd))
				return print_command(i, "");
		for (i = 0; i < noption_table; i++)
			if ((option_table[i].flags & OPT_SETTING) && !strcmp(option_table[i].name, cmd))
				return print_setting(&option_table[i], "");
		fprintf(stderr, "Unknown command '%s': try 'help'.\n", cmd);
		return;
	}
	printf("Interactive pprof mode\n\nCommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		print_command(i, "  ");
	printf("\nSettings (NAME=VALUE; empty to clear):\n");
	for (i = 0; i < noption_table; i++)
		if (option_table[i].flags & OPT_SETTING)
			print_setting(&option_table[i], "  ");
	printf("  ");
	for (i = 0; i < noption_table; i++)
		if (option_table[i].flags & OPT_PROMPT_WORD)
			printf("%s ", option_table[i].name);
	printf("\n      Set the granularity\n");
	printf("\nSettings last for the session; each report starts from the loaded profile.\n");
}

static void show_options(const struct session *s)
{
	size_t i;
	int any = 0;

	for (i = 0; i < noption_table; i++) {
		char v[256];

		if (!(option_table[i].flags & OPT_SETTING))
			continue;
		options_format(&s->set, &option_table[i], v, sizeof(v));
		printf("%-14s = %s\n", option_table[i].name, v);
	}
	/* Go pprof's "Active filters": the settings that select samples or frames. */
	for (i = 0; i < noption_table; i++) {
		static const char filters[] =
			" focus ignore hide show show_from prune_from tagfocus tagignore ";
		char name[64], v[256];

		snprintf(name, sizeof(name), " %s ", option_table[i].name);
		if (!strstr(filters, name))
			continue;
		options_format(&s->set, &option_table[i], v, sizeof(v));
		if (*v)
			printf("%s   %s=%s\n", any++ ? "" : "Active filters:\n", option_table[i].name, v);
	}
}

/* Splits on blanks; returns the count (at most max). */
static int split(char *line, char **argv, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " \t", &save); tok && n < max; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	return n;
}

/*
 * pprof's per-command arguments: --cum, --lines, -WORD adds WORD to the
 * ignore regex, other words join the focus (routine) regex with '|'.
 */
struct cmdargs {
	struct strbuf focus, ignore;
	int cum, lines;
	const char *file;        /* ">FILE" */
};

static void parse_args(char **argv, int argc, struct cmdargs *a)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--cum") || !strcmp(w, "-cum"))
			a->cum = 1;
		else if (!strcmp(w, "--lines") || !strcmp(w, "-lines"))
			a->lines = 1;
		else if (w[0] == '>')
			a->file = w[1] ? w + 1 : (i + 1 < argc ? argv[++i] : NULL);
		else if (w[0] == '-' && w[1])
			sb_addf(&a->ignore, "%s%s", a->ignore.len ? "|" : "", w + 1);
		else
			sb_addf(&a->focus, "%s%s", a->focus.len ? "|" : "", w);
	}
	if (a->ignore.len)
		fprintf(stderr, "Ignoring samples in call stacks that match '%s'\n", a->ignore.buf);
}

static void release_args(struct cmdargs *a)
{
	sb_release(&a->focus);
	sb_release(&a->ignore);
}

/* (A)|(B), or whichever is set. */
static const char *either(const char *a, const char *b, struct strbuf *out)
{
	if (!a || !*a)
		return b && *b ? b : NULL;
	if (!b || !*b)
		return a;
	sb_reset(out);
	sb_addf(out, "(?:%s)|(?:%s)", a, b);
	return out->buf;
}

/* Checks a command's regexes before any work; one error line when one is bad. */
static int check_regexes(const char *focus, const char *ignore)
{
	const char *const re[] = { focus, ignore };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(re); i++) {
		struct regex *r;
		struct err e;

		if (!re[i] || !*re[i])
			continue;
		if (!(r = regex_compile(re[i], i ? "ignore" : "focus", &e))) {
			fprintf(stderr, "%s\n", e.msg);
			return -1;
		}
		regex_free(r);
	}
	return 0;
}

/*
 * What pprof's prompt prints before a report: the total, then what focus
 * and ignore (the session's and the command's) kept.  Returns the report, or
 * NULL after printing the error.
 */
static const struct report *print_header(struct session *s, const struct report_options *ro,
					 const char *focus, const char *ignore)
{
	const struct report *r;
	struct err e;
	char t[80];

	if (!(r = text_report(s, ro, &e))) {
		fprintf(stderr, "%s\n", e.msg);
		return NULL;
	}
	report_amount(r, r->total, t, sizeof(t));
	printf("Total: %s\n", t);
	if (focus && *focus)
		report_kept(stdout, r, r->focus_total, "focusing on", focus);
	if (ignore && *ignore)
		report_kept(stdout, r, r->kept_total, "ignoring", ignore);
	return r;
}

/*
 * top[N] [N] [FOCUS]... [-IGNORE]...: as Go pprof's top, a number is the
 * row count and other words focus (gperftools pprof ignored them).
 */
static int cmd_top(struct session *s, long limit, char **argv, int argc)
{
	struct cmdargs a = { STRBUF_INIT, STRBUF_INIT, 0, 0, NULL };
	struct report_options ro = s->set.report;
	struct strbuf ig = STRBUF_INIT, fo = STRBUF_INIT;
	const struct report *r;

	if (argc > 0 && limit < 0) {
		char *end;
		long n = strtol(argv[0], &end, 10);

		if (!*end && n > 0) {
			limit = n > 1000000000 ? 1000000000 : n;
			argv++;
			argc--;
		}
	}
	parse_args(argv, argc, &a);
	ro.cum = ro.cum || a.cum;
	if (a.lines)
		ro.granularity = GRAN_LINES;
	ro.ignore = either(ro.ignore, a.ignore.buf, &ig);
	ro.focus = either(ro.focus, a.focus.buf, &fo);
	ro.quiet = 1;
	if (check_regexes(a.focus.buf, a.ignore.buf) == 0 &&
	    (r = print_header(s, &ro, ro.focus, ro.ignore)))
		report_text_rows(stdout, r, &ro, limit < 0 ? 10 : (int)limit);
	sb_release(&ig);
	sb_release(&fo);
	release_args(&a);
	return 0;
}

/* list, disasm and the graph formats: a report format run with the session's settings. */
static int cmd_format(struct session *s, const struct report_format *fmt, char **argv, int argc)
{
	struct cmdargs a = { STRBUF_INIT, STRBUF_INIT, 0, 0, NULL };
	struct report_options ro = s->set.report;
	struct strbuf ig = STRBUF_INIT, fo = STRBUF_INIT, path = STRBUF_INIT;
	struct output out;
	struct err e;
	int routine = fmt->arg != NULL;

	parse_args(argv, argc, &a);
	ro.cum = ro.cum || a.cum;
	ro.ignore = either(ro.ignore, a.ignore.buf, &ig);
	ro.quiet = 1;
	if (routine) {
		if (!a.focus.len) {
			fprintf(stderr, "%s: needs a routine regex\n", fmt->name);
			goto done;
		}
		ro.regex = a.focus.buf;
	} else {
		ro.focus = either(ro.focus, a.focus.buf, &fo);
	}
	if (check_regexes(routine ? NULL : a.focus.buf, a.ignore.buf) < 0 ||
	    (routine && check_regexes(a.focus.buf, NULL) < 0))
		goto done;
	/* Views print their own header, to the terminal unless >FILE says otherwise. */
	if (!fmt->terminal && !print_header(s, &ro, ro.focus, ro.ignore))
		goto done;
	if ((!routine && !fmt->viewer && !fmt->terminal) || a.file) {
		if (a.file)
			sb_adds(&path, a.file);
		else
			sb_addf(&path, "pprof.%u.%s", ++s->next_file, fmt->ext ? fmt->ext : fmt->name);
	}
	if (output_open(&out, path.len ? path.buf : NULL, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		goto done;
	}
	if (fmt->write(out.fp, s->p, &ro, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		output_abort(&out);
		goto done;
	}
	fflush(stdout);
	if (fmt->viewer)
		output_abort(&out);
	else if (output_commit(&out, &e) < 0)
		fprintf(stderr, "%s\n", e.msg);
	else if (path.len)
		fprintf(stderr, "Wrote %s\n", path.buf);
done:
	sb_release(&ig);
	sb_release(&fo);
	sb_release(&path);
	release_args(&a);
	return 0;
}

/* NAME=VALUE for a setting of the option table; returns 1 when line was one. */
static int setting(struct session *s, const char *line)
{
	const char *eq = strchr(line, '='), *v;
	size_t n, i;
	struct err e;

	if (!eq)
		return 0;
	n = (size_t)(eq - line);
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	/* Only the settings: "list operator=" is a command. */
	for (i = 0; i < noption_table; i++)
		if ((option_table[i].flags & OPT_SETTING) && strlen(option_table[i].name) == n &&
		    !strncmp(option_table[i].name, line, n))
			break;
	if (i == noption_table)
		return 0;
	for (v = eq + 1; isspace((unsigned char)*v); v++)
		;
	v = arena_strdup(&s->values, v);
	if (options_set(&s->set, &option_table[i], v, &e) < 0)
		fprintf(stderr, "%s\n", e.msg);
	return 1;
}

/* A granularity word alone ("lines"); returns 1 when word was one. */
static int prompt_word(struct session *s, const char *word)
{
	struct err e;
	size_t i;

	for (i = 0; i < noption_table; i++)
		if ((option_table[i].flags & OPT_PROMPT_WORD) && !strcmp(option_table[i].name, word)) {
			options_set(&s->set, &option_table[i], "", &e);
			return 1;
		}
	return 0;
}

/* The row count of "topN"/"textN": N, -1 for none, 0 when the word is not one. */
static long top_limit(const char *word)
{
	const char *num;
	char *end;
	long n;

	if (!strncmp(word, "top", 3))
		num = word + 3;
	else if (!strncmp(word, "text", 4))
		num = word + 4;
	else
		return 0;
	if (!*num)
		return -1;
	errno = 0;
	n = strtol(num, &end, 10);
	if (*end || n <= 0 || errno)
		return 0;
	return n > 1000000000 ? 1000000000 : n;
}

/* Runs one line; returns 0 to quit. */
static int run_line(struct session *s, char *line)
{
	const struct report_format *fmt;
	char *argv[64];
	int argc;
	long limit;

	while (isspace((unsigned char)*line))
		line++;
	if (!*line || setting(s, line))
		return 1;
	argc = split(line, argv, (int)ARRAY_SIZE(argv));
	if (!argc)
		return 1;
	if (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit") || !strcmp(argv[0], "q"))
		return 0;
	if (!strcmp(argv[0], "help"))
		help(argc > 1 ? argv[1] : NULL);
	else if (!strcmp(argv[0], "options") || !strcmp(argv[0], "o"))
		show_options(s);
	else if (prompt_word(s, argv[0]))
		;
	else if ((limit = top_limit(argv[0])) != 0)
		cmd_top(s, limit, argv + 1, argc - 1);
	else if ((fmt = report_find_format(argv[0])) && strcmp(fmt->name, "text"))
		cmd_format(s, fmt, argv + 1, argc - 1);
	else
		fprintf(stderr, "Unknown command: try 'help'.\n");
	return 1;
}

/* Completion: command and setting names, then the profile's short function names. */
static const char **complete_names;   /* unique, sorted */
static size_t ncomplete_names;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void complete_init(const struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = 0, extra = ARRAY_SIZE(commands) + noption_table;

	complete_names = xcalloc(p->nfunction + extra + 1, sizeof(*complete_names));
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		complete_names[n++] = xstrdup(commands[i].name);
	for (i = 0; i < noption_table; i++)
		if (option_table[i].flags & (OPT_SETTING | OPT_PROMPT_WORD))
			complete_names[n++] = xstrdup(option_table[i].name);
	for (i = 0; i < p->nfunction; i++) {
		short_function_name(p->function[i]->name, 0, &sb);
		if (sb.len)
			complete_names[n++] = xstrdup(sb.buf);
	}
	if (n > 1)
		qsort(complete_names, n, sizeof(*complete_names), cmp_str);
	ncomplete_names = 0;
	for (i = 0; i < n; i++) {
		if (ncomplete_names && !strcmp(complete_names[ncomplete_names - 1], complete_names[i]))
			free((char *)complete_names[i]);
		else
			complete_names[ncomplete_names++] = complete_names[i];
	}
	sb_release(&sb);
}

static void complete_release(void)
{
	size_t i;

	for (i = 0; i < ncomplete_names; i++)
		free((char *)complete_names[i]);
	free(complete_names);
	complete_names = NULL;
	ncomplete_names = 0;
}

static char *complete_word(const char *text, int state)
{
	static size_t j;
	size_t n = strlen(text);

	if (!state)
		j = 0;
	for (; j < ncomplete_names; j++)
		if (!strncmp(complete_names[j], text, n))
			return xstrdup(complete_names[j++]);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)start;
	(void)end;
	*edit.completion_over = 1;
	return edit.completion_matches(text, complete_word);
}

/* $XDG_DATA_HOME/pprof/history, else ~/.local/share/pprof/history; its directory made. */
static char *history_path(void)
{
	const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	struct strbuf sb = STRBUF_INIT;

	if (data && *data)
		sb_addf(&sb, "%s/pprof", data);
	else if (home && *home)
		sb_addf(&sb, "%s/.local/share/pprof", home);
	else
		return NULL;
	if (make_dirs(sb.buf, 0700) < 0) {
		fprintf(stderr, "pprof: cannot create '%s' for the prompt's history: %s\n", sb.buf,
			strerror(errno));
		sb_release(&sb);
		return NULL;
	}
	sb_adds(&sb, "/history");
	return sb.buf;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The next line, without its newline; NULL at the end of input. */
static char *next_line(struct session *s)
{
	for (;;) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		interrupted = 0;
		if (s->tty) {
			if ((line = edit.readline("(pprof) ")) && *line)
				edit.add_history(line);
			if (!line && interrupted)
				continue;
			if (!line)
				fputc('\n', stderr);
			return line;
		}
		n = getline(&line, &cap, stdin);
		if (n < 0 && errno == EINTR && !feof(stdin)) {
			/* Ctrl-C while waiting for a line: keep reading. */
			clearerr(stdin);
			free(line);
			continue;
		}
		if (n < 0) {
			free(line);
			return NULL;
		}
		if (n && line[n - 1] == '\n')
			line[n - 1] = 0;
		return line;
	}
}

static void save_history(const char *hist)
{
	if (edit.write_history(hist) != 0)
		fprintf(stderr, "pprof: cannot write the prompt's history to '%s'\n", hist);
	else
		edit.history_truncate_file(hist, 1000);
}

int interactive_run(const struct profile *p, const struct options *o)
{
	struct session s = { .p = p, .set = *o };
	struct sigaction sa;
	char *hist = NULL, *line;

	s.tty = isatty(STDIN_FILENO);
	if (s.tty) {
		struct err e = { { 0 } };

		/* Without libedit, lines as from a pipe: no prompt, no editing. */
		if (dynlib_load(&libedit, &e) < 0) {
			fprintf(stderr, "pprof: %s; lines are read without editing\n", e.msg);
			s.tty = 0;
		}
	}
	s.set.report.interrupt = &interrupted;
	s.set.report.cache = report_cache_new(p);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	if (s.tty) {
		fprintf(stderr, "Welcome to pprof!  For help, type 'help'.\n");
		complete_init(p);
		*edit.readline_name = "pprof";
		*edit.completion_function = complete;
		edit.using_history();
		if ((hist = history_path()))
			edit.read_history(hist);
	}
	while ((line = next_line(&s))) {
		double t0 = now_ms();
		char *shown = o->verbose ? xstrdup(line) : NULL;
		int more;

		/* A Ctrl-C typed at the prompt must not stop the next report. */
		interrupted = 0;
		more = run_line(&s, line);
		fflush(stdout);
		if (shown && more && *shown)
			fprintf(stderr, "pprof: '%s' took %.1f ms\n", shown, now_ms() - t0);
		free(shown);
		free(line);
		if (!more)
			break;
	}
	complete_release();
	if (hist) {
		save_history(hist);
		free(hist);
	}
	if (s.have_last)
		report_release(&s.last);
	report_cache_free(s.set.report.cache);
	arena_release(&s.values);
	return 0;
}
