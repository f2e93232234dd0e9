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

#include "regex.h"
#include "interactive.h"
#include "names.h"
#include "output.h"
#include "strbuf.h"
#include "util.h"

/* The session: settings that persist from command to command. */
struct session {
	const struct profile *p;
	struct report_options set;     /* focus, ignore, granularity, cum, trims */
	struct strbuf focus, ignore;   /* storage for set.focus / set.ignore */
	int tty, verbose;
	unsigned next_file;
	/*
	 * The last text report and what it was built from: asking again with
	 * the same focus, ignore and granularity only sorts and prints it.
	 */
	struct report last;
	int have_last;
	enum granularity last_gran;
	struct strbuf last_focus, last_ignore;
};

static int same_str(const struct strbuf *sb, const char *s)
{
	return !strcmp(sb->buf ? sb->buf : "", s ? s : "");
}

/* The report for ro, built or reused; valid until the next call. */
static const struct report *text_report(struct session *s, const struct report_options *ro,
					struct err *e)
{
	if (s->have_last && s->last_gran == ro->granularity && same_str(&s->last_focus, ro->focus) &&
	    same_str(&s->last_ignore, ro->ignore))
		return &s->last;
	if (s->have_last)
		report_release(&s->last);
	s->have_last = 0;
	if (report_build(s->p, ro, &s->last, e) < 0)
		return NULL;
	s->have_last = 1;
	s->last_gran = ro->granularity;
	sb_reset(&s->last_focus);
	sb_adds(&s->last_focus, ro->focus ? ro->focus : "");
	sb_reset(&s->last_ignore);
	sb_adds(&s->last_ignore, ro->ignore ? ro->ignore : "");
	return &s->last;
}

static const struct {
	const char *name, *args, *help;
} commands[] = {
	{ "top", "[N] [--cum] [--lines] [-IGNORE]...",
	  "Show the top N (10) entries by flat count, or by cumulative with --cum;\n"
	  "      each -IGNORE drops stacks with an entry matching IGNORE.  topN and\n"
	  "      text[N] are the same" },
	{ "list", "REGEX [-IGNORE]...", "Show annotated source of routines matching REGEX" },
	{ "disasm", "REGEX [-IGNORE]...", "Show annotated disassembly of routines matching REGEX" },
	{ "gv", "[FOCUS] [-IGNORE]...", "Show the call graph in gv" },
	{ "evince", "[FOCUS] [-IGNORE]...", "Show the call graph in evince" },
	{ "web", "[FOCUS] [-IGNORE]...", "Show the call graph in a web browser" },
	{ "dot", "[FOCUS] [-IGNORE]... [>FILE]",
	  "Write the call graph to FILE (pprof.N.dot); also pdf, ps, svg, png, gif" },
	{ "focus", "=REGEX", "Set the session's focus (empty to clear)" },
	{ "ignore", "=REGEX", "Set the session's ignore (empty to clear)" },
	{ "granularity", "=functions|lines|addresses|files",
	  "Set the granularity (also: functions, lines, addresses, files)" },
	{ "cum", "=true|false", "Sort by cumulative counts for the rest of the session" },
	{ "nodecount", "=N", "Set graph node count (80)" },
	{ "nodefraction", "=F", "Set graph node fraction (0.005)" },
	{ "edgefraction", "=F", "Set graph edge fraction (0.001)" },
	{ "maxdegree", "=N", "Set graph edges per node (8)" },
	{ "options", "", "Show the session's settings (also: o)" },
	{ "help", "[COMMAND]", "Show this help, or one command's" },
	{ "quit", "", "Leave pprof (also: exit, q, end of input)" },
};

static const char *const granularities[] = { "functions", "lines", "addresses", "files" };

static volatile sig_atomic_t interrupted;

/* Ctrl-C: at the prompt, a fresh line; during a report, back to the prompt. */
static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
	report_interrupt = 1;
}

static void help(const char *cmd)
{
	size_t i;

	if (cmd && *cmd) {
		for (i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(commands[i].name, cmd)) {
				printf("%s%s%s\n      %s\n", commands[i].name,
				       commands[i].args[0] && commands[i].args[0] != '=' ? " " : "",
				       commands[i].args, commands[i].help);
				return;
			}
		fprintf(stderr, "Unknown command '%s': try 'help'.\n", cmd);
		return;
	}
	printf("Interactive pprof mode\n\nCommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("  %s%s%s\n      %s\n", commands[i].name,
		       commands[i].args[0] && commands[i].args[0] != '=' ? " " : "",
		       commands[i].args, commands[i].help);
	printf("\nSettings last for the session; each report starts from the loaded profile.\n");
}

static void show_options(const struct session *s)
{
	printf("focus        = %s\n", s->set.focus ? s->set.focus : "");
	printf("ignore       = %s\n", s->set.ignore ? s->set.ignore : "");
	printf("granularity  = %s\n", granularities[s->set.granularity]);
	printf("cum          = %s\n", s->set.cum ? "true" : "false");
	printf("nodecount    = %d\n", s->set.nodecount);
	printf("nodefraction = %g\n", s->set.nodefraction);
	printf("edgefraction = %g\n", s->set.edgefraction);
	printf("maxdegree    = %d\n", s->set.maxdegree);
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

/* "Total: N samples", and how much focus and ignore kept, as pprof prints them. */
static void print_totals(const struct report *r, int64_t v, const char *what, const char *re)
{
	char kept[48], total[48];

	report_value(r, v, kept, sizeof(kept));
	report_value(r, r->total, total, sizeof(total));
	printf("After %s '%s': %s %s of %s (%0.1f%%)\n", what, re, kept, r->unit, total,
	       r->total ? (double)v * 100.0 / (double)r->total : 0.0);
}

/*
 * What pprof's prompt prints before a report: the total, then what the
 * command's own focus and -IGNORE arguments kept.  Returns the report, or
 * NULL after printing the error.
 */
static const struct report *print_header(struct session *s, const struct report_options *ro,
					 const char *focus, const char *ignore)
{
	const struct report *r;
	struct err e;
	char t[48];

	if (!(r = text_report(s, ro, &e))) {
		fprintf(stderr, "%s\n", e.msg);
		return NULL;
	}
	report_value(r, r->total, t, sizeof(t));
	printf("Total: %s %s\n", t, r->unit);
	if (focus && *focus)
		print_totals(r, r->focus_total, "focusing on", focus);
	if (ignore && *ignore)
		print_totals(r, r->kept_total, "ignoring", ignore);
	return r;
}

static int cmd_top(struct session *s, long limit, char **argv, int argc)
{
	struct cmdargs a = { STRBUF_INIT, STRBUF_INIT, 0, 0, NULL };
	struct report_options ro = s->set;
	struct strbuf ig = STRBUF_INIT;
	const struct report *r;

	parse_args(argv, argc, &a);
	ro.cum = s->set.cum || a.cum;
	if (a.lines)
		ro.granularity = GRAN_LINES;
	ro.ignore = either(s->set.ignore, a.ignore.buf, &ig);
	ro.quiet = 1;
	/* pprof's top takes no focus: its other words are ignored. */
	if ((r = print_header(s, &ro, NULL, a.ignore.buf)))
		report_text_rows(stdout, r, &ro, (int)limit);
	sb_release(&ig);
	release_args(&a);
	return 0;
}

/* list, disasm and the graph formats: a report format run with the session's settings. */
static int cmd_format(struct session *s, const char *name, char **argv, int argc)
{
	const struct report_format *fmt = report_find_format(name);
	struct cmdargs a = { STRBUF_INIT, STRBUF_INIT, 0, 0, NULL };
	struct report_options ro = s->set;
	struct strbuf ig = STRBUF_INIT, fo = STRBUF_INIT, path = STRBUF_INIT;
	struct output out;
	struct err e;
	int routine = !strcmp(name, "list") || !strcmp(name, "disasm");
	int viewer;

	if (!fmt) {
		fprintf(stderr, "%s: not available in this pprof\n", name);
		return 0;
	}
	viewer = fmt->viewer;
	parse_args(argv, argc, &a);
	ro.cum = s->set.cum || a.cum;
	ro.ignore = either(s->set.ignore, a.ignore.buf, &ig);
	ro.quiet = 1;
	if (routine) {
		if (!a.focus.len) {
			fprintf(stderr, "%s: needs a routine regex\n", name);
			goto done;
		}
		ro.regex = a.focus.buf;
	} else {
		ro.focus = either(s->set.focus, a.focus.buf, &fo);
	}
	if (!print_header(s, &ro, routine ? NULL : a.focus.buf, a.ignore.buf))
		goto done;
	if (!routine && !viewer) {
		if (a.file)
			sb_adds(&path, a.file);
		else
			sb_addf(&path, "pprof.%u.%s", ++s->next_file, name);
	}
	if (output_open(&out, routine || viewer ? NULL : path.buf, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		goto done;
	}
	if (fmt->write(out.fp, s->p, &ro, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		output_abort(&out);
		goto done;
	}
	fflush(stdout);
	if (viewer)
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

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") || !*v) {
		*out = 1;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no")) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* name=value settings; returns 1 when line was one. */
static int setting(struct session *s, const char *line)
{
	const char *eq = strchr(line, '=');
	char name[32];
	const char *v;
	size_t n, i;
	char *end;

	if (!eq)
		return 0;
	n = (size_t)(eq - line);
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(name))
		return 0;
	memcpy(name, line, n);
	name[n] = 0;
	/* Only the session's settings: "list operator=" is a command. */
	{
		static const char *const known[] = { "focus", "ignore", "granularity", "cum",
						     "nodecount", "nodefraction", "edgefraction",
						     "maxdegree" };

		for (i = 0; i < ARRAY_SIZE(known) && strcmp(name, known[i]); i++)
			;
		if (i == ARRAY_SIZE(known))
			return 0;
	}
	v = eq + 1;
	while (isspace((unsigned char)*v))
		v++;
	if (!strcmp(name, "focus") || !strcmp(name, "ignore")) {
		struct strbuf *sb = name[0] == 'f' ? &s->focus : &s->ignore;
		struct regex *re = NULL;
		struct err e;

		if (*v && !(re = regex_compile(v, name, &e))) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
		if (*v)
			regex_free(re);
		sb_reset(sb);
		sb_adds(sb, v);
		if (name[0] == 'f')
			s->set.focus = *v ? s->focus.buf : NULL;
		else
			s->set.ignore = *v ? s->ignore.buf : NULL;
		return 1;
	}
	if (!strcmp(name, "granularity")) {
		for (i = 0; i < ARRAY_SIZE(granularities); i++)
			if (!strcmp(v, granularities[i])) {
				s->set.granularity = (enum granularity)i;
				return 1;
			}
		fprintf(stderr, "granularity: want functions, lines, addresses or files, not '%s'\n", v);
		return 1;
	}
	if (!strcmp(name, "cum")) {
		if (parse_bool(v, &s->set.cum) < 0)
			fprintf(stderr, "cum: want true or false, not '%s'\n", v);
		return 1;
	}
	if (!strcmp(name, "nodecount") || !strcmp(name, "maxdegree")) {
		long x;

		errno = 0;
		x = strtol(v, &end, 10);
		if (errno || end == v || *end || x < 0 || x > 1000000000)
			fprintf(stderr, "%s: want a non-negative integer, not '%s'\n", name, v);
		else if (name[0] == 'n')
			s->set.nodecount = (int)x;
		else
			s->set.maxdegree = (int)x;
		return 1;
	}
	if (!strcmp(name, "nodefraction") || !strcmp(name, "edgefraction")) {
		double x;

		errno = 0;
		x = strtod(v, &end);
		if (errno || end == v || *end || !(x >= 0))
			fprintf(stderr, "%s: want a non-negative number, not '%s'\n", name, v);
		else if (name[0] == 'n')
			s->set.nodefraction = x;
		else
			s->set.edgefraction = x;
		return 1;
	}
	return 0;
}

/* Runs one line; returns 0 to quit. */
static int run_line(struct session *s, char *line)
{
	char *argv[64];
	int argc;
	size_t i;

	while (isspace((unsigned char)*line))
		line++;
	if (!*line)
		return 1;
	if (setting(s, line))
		return 1;
	argc = split(line, argv, (int)ARRAY_SIZE(argv));
	if (!argc)
		return 1;
	if (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit") || !strcmp(argv[0], "q"))
		return 0;
	if (!strcmp(argv[0], "help")) {
		help(argc > 1 ? argv[1] : NULL);
		return 1;
	}
	if (!strcmp(argv[0], "options") || !strcmp(argv[0], "o")) {
		show_options(s);
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(granularities); i++)
		if (!strcmp(argv[0], granularities[i])) {
			s->set.granularity = (enum granularity)i;
			return 1;
		}
	if (!strncmp(argv[0], "top", 3) || !strncmp(argv[0], "text", 4)) {
		const char *num = argv[0] + (argv[0][1] == 'o' ? 3 : 4);
		char *end;
		long limit = 10;

		if (*num) {
			errno = 0;
			limit = strtol(num, &end, 10);
			if (*end || limit <= 0 || errno)
				limit = -1;
			if (limit > 1000000000)
				limit = 1000000000;
			if (limit <= 0) {
				fprintf(stderr, "Unknown command: try 'help'.\n");
				return 1;
			}
		}
		return cmd_top(s, limit, argv + 1, argc - 1), 1;
	}
	if (!strcmp(argv[0], "list") || !strcmp(argv[0], "disasm") || report_find_format(argv[0]))
		return cmd_format(s, argv[0], argv + 1, argc - 1), 1;
	fprintf(stderr, "Unknown command: try 'help'.\n");
	return 1;
}

/* Completion: command names, then the profile's short function names. */
static const char **complete_names;   /* unique, sorted */
static size_t ncomplete_names;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void complete_init(const struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = 0;

	complete_names = xcalloc(p->nfunction + 1, sizeof(*complete_names));
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
	static size_t i, j;
	size_t n = strlen(text);

	if (!state)
		i = j = 0;
	for (; i < ARRAY_SIZE(commands); i++)
		if (!strncmp(commands[i].name, text, n))
			return xstrdup(commands[i++].name);
	for (; j < ncomplete_names; j++)
		if (!strncmp(complete_names[j], text, n))
			return xstrdup(complete_names[j++]);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)start;
	(void)end;
	rl_attempted_completion_over = 1;
	return rl_completion_matches(text, complete_word);
}

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
	/* Create the directory (and its parent) when missing. */
	{
		char *slash = strrchr(sb.buf, '/');

		if (slash) {
			*slash = 0;
			mkdir(sb.buf, 0700);
			*slash = '/';
		}
		mkdir(sb.buf, 0700);
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

int interactive_run(const struct profile *p, const struct report_options *base, int verbose)
{
	struct session s = { .p = p, .set = *base, .verbose = verbose };
	struct sigaction sa;
	char *hist = NULL;

	if (base->focus) {
		sb_adds(&s.focus, base->focus);
		s.set.focus = s.focus.buf;
	}
	if (base->ignore) {
		sb_adds(&s.ignore, base->ignore);
		s.set.ignore = s.ignore.buf;
	}
	s.tty = isatty(STDIN_FILENO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	if (s.tty) {
		fprintf(stderr, "Welcome to pprof!  For help, type 'help'.\n");
		complete_init(p);
		rl_readline_name = "pprof";
		rl_attempted_completion_function = complete;
		using_history();
		hist = history_path();
		if (hist)
			read_history(hist);
	}
	for (;;) {
		char *line = NULL;
		size_t cap = 0;
		int more;

		interrupted = 0;
		report_interrupt = 0;
		if (s.tty) {
			line = readline("(pprof) ");
			if (!line) {
				if (interrupted)
					continue;
				fputc('\n', stderr);
				break;
			}
			if (*line)
				add_history(line);
		} else {
			ssize_t n = getline(&line, &cap, stdin);

			if (n < 0 && errno == EINTR && !feof(stdin)) {
				/* Ctrl-C while waiting for a line: keep reading. */
				clearerr(stdin);
				free(line);
				continue;
			}
			if (n < 0) {
				free(line);
				break;
			}
			if (n && line[n - 1] == '\n')
				line[n - 1] = 0;
		}
		/* A Ctrl-C typed at the prompt must not stop the next report. */
		report_interrupt = 0;
		{
			double t0 = now_ms();
			char *shown = s.verbose ? xstrdup(line) : NULL;

			more = run_line(&s, line);
			fflush(stdout);
			if (shown && more && *shown)
				fprintf(stderr, "pprof: '%s' took %.1f ms\n", shown, now_ms() - t0);
			free(shown);
		}
		free(line);
		if (!more)
			break;
	}
	complete_release();
	if (hist) {
		write_history(hist);
		history_truncate_file(hist, 1000);
		free(hist);
	}
	if (s.have_last)
		report_release(&s.last);
	sb_release(&s.last_focus);
	sb_release(&s.last_ignore);
	sb_release(&s.focus);
	sb_release(&s.ignore);
	return 0;
}
