/* options.c - the table of settings, and parsing the command line and prompt settings with it. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "regex.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"
#include "web.h"

#define OFF(f) offsetof(struct options, f)
#define ROFF(f) offsetof(struct options, report.f)

static int check_unit(const char *v, struct err *e)
{
	if (!units_known(v))
		return err_set(e, "option 'unit' wants minimum, auto or a unit such as ns, ms, s, B, kB, MB, "
			       "not '%s'", v);
	return 0;
}

/* Go pprof's tag filters: KEY=VALUE or VALUE, VALUE a numeric range or regexes separated by commas. */
static int check_tagfilter(const char *v, struct err *e)
{
	const char *eq = strchr(v, '=');
	char *copy = xstrdup(eq ? eq + 1 : v), *save = NULL, *tok;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		struct regex *re = regex_compile(tok, "tag filter", e);

		if (!re)
			ret = -1;
		regex_free(re);
	}
	free(copy);
	return ret;
}

static const char *const symbolizers[] = { "local", "none", NULL };

static const char *const granularities[] = { "functions", "lines", "addresses", "files",
					     "filefunctions", NULL };
static const char *const heap_values[] = { "inuse_space", "inuse_objects", "alloc_space",
					   "alloc_objects", NULL };
static const char *const delay_values[] = { "total_delay", "contentions", "mean_delay", NULL };

const struct option option_table[] = {
	{ "granularity", OPT_CHOICE, ROFF(granularity), granularities, 0,
	  "G", "functions", OPT_SETTING,
	  "Report entries per G: functions, lines, addresses, files or filefunctions" },
	{ "functions", OPT_PICK, ROFF(granularity), NULL, GRAN_FUNCTIONS, NULL, NULL,
	  OPT_PROMPT_WORD, "Report at function level (default)" },
	{ "lines", OPT_PICK, ROFF(granularity), NULL, GRAN_LINES, NULL, NULL, OPT_PROMPT_WORD,
	  "Report at source line level" },
	{ "addresses", OPT_PICK, ROFF(granularity), NULL, GRAN_ADDRESSES, NULL, NULL,
	  OPT_PROMPT_WORD, "Report at address level" },
	{ "files", OPT_PICK, ROFF(granularity), NULL, GRAN_FILES, NULL, NULL, OPT_PROMPT_WORD,
	  "Report at source file level" },
	{ "filefunctions", OPT_PICK, ROFF(granularity), NULL, GRAN_FILEFUNCTIONS, NULL, NULL,
	  OPT_PROMPT_WORD, "Report at function and source file level (Go pprof's)" },
	{ "noinlines", OPT_BOOL, ROFF(noinlines), NULL, 0, NULL, "false", OPT_SETTING,
	  "Charge inlined functions to the function they are inlined into" },
	{ "cum", OPT_BOOL, ROFF(cum), NULL, 0, NULL, "false", OPT_SETTING,
	  "Sort by cumulative data" },
	{ "focus", OPT_REGEX, ROFF(focus), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Focus on stacks with an entry matching REGEX" },
	{ "ignore", OPT_REGEX, ROFF(ignore), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Ignore stacks with an entry matching REGEX" },
	{ "hide", OPT_REGEX, ROFF(hide), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Take frames whose function or file matches REGEX out of every stack" },
	{ "show", OPT_REGEX, ROFF(show), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Keep only the frames whose function or file matches REGEX" },
	{ "show_from", OPT_REGEX, ROFF(show_from), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Drop the callers of the outermost frame matching REGEX, and stacks without one" },
	{ "prune_from", OPT_REGEX, ROFF(prune_from), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Drop the callees of the innermost frame matching REGEX" },
	{ "tagfocus", OPT_STRING, ROFF(tagfocus), NULL, 0, "[KEY=]RE|RANGE", NULL, OPT_SETTING,
	  "Keep samples with a label matching: KEY=RE,RE..., RE (on key:value), or a numeric "
	  "range such as 64kb, 1ms:10ms, 4mb:", check_tagfilter },
	{ "tagignore", OPT_STRING, ROFF(tagignore), NULL, 0, "[KEY=]RE|RANGE", NULL, OPT_SETTING,
	  "Drop samples with a label matching, as --tagfocus selects them", check_tagfilter },
	{ "nodecount", OPT_INT, ROFF(nodecount), NULL, 0, "N", "80", OPT_SETTING,
	  "Show at most N nodes in graphs and --tree; given, at most N rows of text" },
	{ "nodefraction", OPT_DOUBLE, ROFF(nodefraction), NULL, 0, "F", "0.005", OPT_SETTING,
	  "Hide graph nodes below F of the total" },
	{ "edgefraction", OPT_DOUBLE, ROFF(edgefraction), NULL, 0, "F", "0.001", OPT_SETTING,
	  "Hide graph edges below F of the total" },
	{ "maxdegree", OPT_INT, ROFF(maxdegree), NULL, 0, "N", "8", OPT_SETTING,
	  "Keep at most N edges per graph node" },
	{ "base", OPT_STRING, OFF(base), NULL, 0, "FILE", NULL, 0,
	  "Subtract the profile FILE" },
	{ "drop_negative", OPT_BOOL, OFF(drop_negative), NULL, 0, NULL, "false", 0,
	  "With --base, drop entries that become negative" },
	{ "diff_base", OPT_STRING, OFF(diff_base), NULL, 0, "FILE", NULL, 0,
	  "Subtract the profile FILE, percentages relative to it (Go pprof's)" },
	{ "lib_prefix", OPT_STRING, OFF(lib_prefix), NULL, 0, "DIRS", NULL, 0,
	  "Comma-separated directories to look for libraries under" },
	{ "sample_index", OPT_STRING, OFF(sample_index), NULL, 0, "NAME", NULL, 0,
	  "Report the sample value NAME or number N (gmon.out: calls, executions)" },
	{ "max_input", OPT_SIZE, OFF(max_input), NULL, 0, "BYTES", NULL, 0,
	  "Refuse compressed profiles that inflate to more than BYTES, and fetched ones "
	  "larger (k, M, G suffixes; default 1G, and for compressed input 200 times its "
	  "size past 64M)" },
	{ "symbolize", OPT_CHOICE, OFF(symbolize), symbolizers, 0, "MODE", "local", 0,
	  "local: name addresses from the program and its libraries; none: leave them as they are" },
	{ "seconds", OPT_INT, OFF(seconds), NULL, 0, "N", "30", 0,
	  "Collect remote CPU profiles (host:port/pprof/profile) for N seconds" },
	{ "timeout", OPT_INT, OFF(timeout), NULL, 0, "N", NULL, 0,
	  "Give up a remote fetch after N seconds [--seconds + 60; 60 for other pages]" },
	{ "unit", OPT_STRING, ROFF(unit), NULL, 0, "UNIT", NULL, OPT_SETTING,
	  "Show values in UNIT (ns, ms, s, B, kB, MB, ...; minimum or auto: chosen per "
	  "report), as Go pprof does; CPU profiles then show time (samples x period)",
	  check_unit },
	{ "source_path", OPT_STRING, ROFF(source_path), NULL, 0, "DIRS", NULL, OPT_SETTING,
	  "Colon-separated directories to find source files in (--list, --disasm)" },
	{ "trim_path", OPT_STRING, ROFF(trim_path), NULL, 0, "PREFIXES", NULL, OPT_SETTING,
	  "Colon-separated prefixes to remove from source paths before searching" },
	{ "intel_syntax", OPT_BOOL, ROFF(intel_syntax), NULL, 0, NULL, "false", OPT_SETTING,
	  "Show x86 disassembly in Intel syntax instead of AT&T (--disasm)" },
	{ "show_addresses", OPT_BOOL, ROFF(show_addresses), NULL, 0, NULL, "false", OPT_SETTING,
	  "Append the address to --functions and --lines entries" },
	{ "no_strip_temp", OPT_BOOL, ROFF(keep_templates), NULL, 0, NULL, "false", 0,
	  "Keep template arguments in function names" },
	{ "no-auto-signal-frm", OPT_BOOL, ROFF(no_auto_signal_frames), NULL, 0, NULL, "false", 0,
	  "Keep profiler signal-handler frames; only warn about them" },
	{ "interactive", OPT_BOOL, OFF(interactive), NULL, 0, NULL, "false", 0,
	  "Run the (pprof) prompt (default when standard output is a terminal)" },
	{ "verbose", OPT_BOOL, OFF(verbose), NULL, 0, NULL, "false", 0,
	  "Describe the objects and mappings used for symbols on stderr" },
	{ "output", OPT_STRING, OFF(output), NULL, 0, "FILE", NULL, 0,
	  "Write the report to FILE (-o FILE), replacing it only when complete" },
	{ "http", OPT_STRING, OFF(http), NULL, 0, "[HOST]:PORT", NULL, 0,
	  "Serve the web UI on HOST (127.0.0.1 unless given) and PORT (0: a free one) until "
	  "Ctrl-C",
	  web_check_address },
	{ "no_browser", OPT_BOOL, OFF(no_browser), NULL, 0, NULL, "false", 0,
	  "With --http, do not open the web UI in a browser" },
	{ "help", OPT_BOOL, OFF(help), NULL, 0, NULL, "false", 0, "Print this help and exit" },
	{ "version", OPT_BOOL, OFF(version), NULL, 0, NULL, "false", 0,
	  "Print the version and exit" },
	{ "heap_value", OPT_CHOICE, ROFF(heap_value), heap_values, 0,
	  "inuse_space|inuse_objects|alloc_space|alloc_objects", "inuse_space", OPT_SETTING,
	  "Value of heap and growth profiles to report" },
	{ "inuse_space", OPT_PICK, ROFF(heap_value), NULL, HEAP_INUSE_SPACE, NULL, NULL,
	  OPT_PROMPT_WORD, "Heap: report bytes in use, in MB (default)" },
	{ "inuse_objects", OPT_PICK, ROFF(heap_value), NULL, HEAP_INUSE_OBJECTS, NULL, NULL,
	  OPT_PROMPT_WORD, "Heap: report objects in use" },
	{ "alloc_space", OPT_PICK, ROFF(heap_value), NULL, HEAP_ALLOC_SPACE, NULL, NULL,
	  OPT_PROMPT_WORD, "Heap: report bytes allocated, in MB" },
	{ "alloc_objects", OPT_PICK, ROFF(heap_value), NULL, HEAP_ALLOC_OBJECTS, NULL, NULL,
	  OPT_PROMPT_WORD, "Heap: report objects allocated" },
	{ "show_bytes", OPT_BOOL, ROFF(show_bytes), NULL, 0, NULL, "false", OPT_SETTING,
	  "Heap: show sizes in bytes, not MB" },
	{ "contention_value", OPT_CHOICE, ROFF(delay_value), delay_values, 0,
	  "total_delay|contentions|mean_delay", "total_delay", OPT_SETTING,
	  "Value of contention profiles to report" },
	{ "total_delay", OPT_PICK, ROFF(delay_value), NULL, DELAY_TOTAL, NULL, NULL,
	  OPT_PROMPT_WORD, "Contention: report the total delay, in seconds (default)" },
	{ "contentions", OPT_PICK, ROFF(delay_value), NULL, DELAY_CONTENTIONS, NULL, NULL,
	  OPT_PROMPT_WORD, "Contention: report the number of contentions" },
	{ "mean_delay", OPT_PICK, ROFF(delay_value), NULL, DELAY_MEAN, NULL, NULL,
	  OPT_PROMPT_WORD, "Contention: report the mean delay per contention" },
	{ "heapcheck", OPT_BOOL, ROFF(heapcheck), NULL, 0, NULL, "false", OPT_SETTING,
	  "Graphs: fill nodes with a positive flat value, triple the border of negative ones" },
	{ "stacks", OPT_BOOL, ROFF(stacks), NULL, 0, NULL, "false", 0,
	  "Text: list every stack with its value first (heap: also each allocation site)" },
	{ "symbols", OPT_BOOL, OFF(symbols), NULL, 0, NULL, "false", 0,
	  "pprof --symbols PROGRAM: read maps lines and hex addresses on standard input, "
	  "print the name of each address" },
	{ "add_lib", OPT_STRING, OFF(add_lib), NULL, 0, "FILE", NULL, 0,
	  "Read extra symbols from FILE, at its link-time addresses" },
	{ "scale", OPT_INT, ROFF(gv_scale), NULL, 0, "N", "0", 0,
	  "Scaling passed to gv (--gv)" },
	{ "tools", OPT_STRING, OFF(tools), NULL, 0, "PREFIX", NULL, 0,
	  "Accepted and ignored: pprof runs no object tools" },
};

const size_t noption_table = ARRAY_SIZE(option_table);

static void *field(struct options *o, const struct option *opt)
{
	return (char *)o + opt->offset;
}

static const void *cfield(const struct options *o, const struct option *opt)
{
	return (const char *)o + opt->offset;
}

void options_init(struct options *o)
{
	struct err e;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < noption_table; i++)
		if (option_table[i].def && options_set(o, &option_table[i], option_table[i].def, &e) < 0)
			BUG("a default in the option table does not parse");
	o->report.nodecount_set = 0;
}

static int parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "", "true", "1", "yes", "on" };
	static const char *const no[] = { "false", "0", "no", "off" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (!strcmp(v, yes[i]))
			return *out = 1, 0;
	for (i = 0; i < ARRAY_SIZE(no); i++)
		if (!strcmp(v, no[i]))
			return *out = 0, 0;
	return -1;
}

int options_set(struct options *o, const struct option *opt, const char *v, struct err *e)
{
	char *end;
	size_t i;

	/* Text reports follow --nodecount only when it is given (Go pprof's). */
	if (opt->offset == ROFF(nodecount))
		o->report.nodecount_set = 1;
	switch (opt->kind) {
	case OPT_BOOL:
		if (parse_bool(v, field(o, opt)) < 0)
			return err_set(e, "option '%s' wants true or false, not '%s'", opt->name, v);
		return 0;
	case OPT_INT: {
		long x;

		errno = 0;
		x = strtol(v, &end, 10);
		if (errno || end == v || *end || x < 0 || x > 1000000000)
			return err_set(e, "option '%s' wants a non-negative integer, not '%s'",
				       opt->name, v);
		*(int *)field(o, opt) = (int)x;
		return 0;
	}
	case OPT_DOUBLE: {
		double x;

		errno = 0;
		x = strtod(v, &end);
		if (errno || end == v || *end || !(x >= 0))
			return err_set(e, "option '%s' wants a non-negative number, not '%s'",
				       opt->name, v);
		*(double *)field(o, opt) = x;
		return 0;
	}
	case OPT_SIZE: {
		unsigned long long x;
		int shift = 0;

		errno = 0;
		x = strtoull(v, &end, 10);
		if (*end && !end[1])
			shift = *end == 'k' || *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;
		if (errno || end == v || *v == '-' || shift < 0 || (*end && end[1]) || !x ||
		    x > (SIZE_MAX >> shift))
			return err_set(e, "option '%s' wants a positive byte count (k, M, G suffixes), "
				       "not '%s'", opt->name, v);
		*(size_t *)field(o, opt) = (size_t)x << shift;
		return 0;
	}
	case OPT_REGEX:
		if (*v) {
			struct regex *re;

			if (!(re = regex_compile(v, opt->name, e)))
				return -1;
			regex_free(re);
		}
		*(const char **)field(o, opt) = *v ? v : NULL;
		return 0;
	case OPT_STRING:
		if (opt->check && *v && opt->check(v, e) < 0)
			return -1;
		*(const char **)field(o, opt) = *v || !opt->check ? v : NULL;
		return 0;
	case OPT_CHOICE:
		for (i = 0; opt->choices[i]; i++)
			if (!strcmp(v, opt->choices[i])) {
				*(int *)field(o, opt) = (int)i;
				return 0;
			}
	{
		struct strbuf want = STRBUF_INIT;

		for (i = 0; opt->choices[i]; i++)
			sb_addf(&want, "%s%s", i ? ", " : "", opt->choices[i]);
		err_set(e, "option '%s' wants one of %s, not '%s'", opt->name, want.buf, v);
		sb_release(&want);
		return -1;
	}
	case OPT_PICK:
		*(int *)field(o, opt) = opt->value;
		return 0;
	}
	BUG("options_set: unknown kind");
}

void options_format(const struct options *o, const struct option *opt, char *buf, size_t n)
{
	const char *s;

	switch (opt->kind) {
	case OPT_BOOL:
		snprintf(buf, n, "%s", *(const int *)cfield(o, opt) ? "true" : "false");
		return;
	case OPT_INT:
		snprintf(buf, n, "%d", *(const int *)cfield(o, opt));
		return;
	case OPT_DOUBLE:
		snprintf(buf, n, "%g", *(const double *)cfield(o, opt));
		return;
	case OPT_SIZE:
		snprintf(buf, n, "%zu", *(const size_t *)cfield(o, opt));
		return;
	case OPT_CHOICE:
		snprintf(buf, n, "%s", opt->choices[*(const int *)cfield(o, opt)]);
		return;
	case OPT_PICK:
		snprintf(buf, n, "%s", *(const int *)cfield(o, opt) == opt->value ? "true" : "false");
		return;
	case OPT_STRING:
	case OPT_REGEX:
		s = *(const char *const *)cfield(o, opt);
		snprintf(buf, n, "%s", s ? s : "");
		return;
	}
}

static int same(const char *a, const char *b, size_t len)
{
	return strlen(a) == len && !strncmp(a, b, len);
}

int options_lookup(const char *name, size_t len, const struct option **opt,
		   const struct report_format **fmt, int *negated, struct err *e)
{
	const struct option *hit = NULL;
	const struct report_format *fhit = NULL;
	size_t i;
	int n = 0;

	*opt = NULL;
	*fmt = NULL;
	*negated = 0;
	/* Exact names win over prefixes: -show is never --show_addresses. */
	for (i = 0; i < noption_table; i++)
		if (same(option_table[i].name, name, len))
			return *opt = &option_table[i], 0;
	for (i = 0; report_formats[i]; i++)
		if (same(report_formats[i]->name, name, len))
			return *fmt = report_formats[i], 0;
	/* --noflag / --no-flag negate booleans. */
	if (len > 2 && !strncmp(name, "no", 2)) {
		size_t skip = name[2] == '-' ? 3 : 2;

		for (i = 0; i < noption_table; i++)
			if (option_table[i].kind == OPT_BOOL &&
			    same(option_table[i].name, name + skip, len - skip)) {
				*negated = 1;
				return *opt = &option_table[i], 0;
			}
	}
	for (i = 0; i < noption_table; i++)
		if (!strncmp(option_table[i].name, name, len)) {
			hit = &option_table[i];
			n++;
		}
	for (i = 0; report_formats[i]; i++)
		if (!strncmp(report_formats[i]->name, name, len)) {
			fhit = report_formats[i];
			n++;
		}
	if (n == 1) {
		*opt = hit;
		*fmt = hit ? NULL : fhit;
		return 0;
	}
	if (n > 1)
		return err_set(e, "option '%.*s' is ambiguous", (int)len, name);
	return err_set(e, "unknown option '%.*s'", (int)len, name);
}

void options_usage(FILE *out)
{
	size_t i;

	fputs("Usage: pprof [options] [PROGRAM] PROFILE...\n"
	      "\n"
	      "Reads gperftools CPU, heap, growth and contention profiles, thread\n"
	      "profiles, symbolized profiles (--raw), gprof's gmon.out, DCPI profiles\n"
	      "and profile.proto (gzip-compressed or not), recognised by their\n"
	      "content; symbolizes them with PROGRAM, the shared libraries they name\n"
	      "and their debug information; and reports where the samples are: as\n"
	      "text, call graphs, annotated source and machine code, Go pprof's views,\n"
	      "profile.proto, in a web UI, or at the (pprof) prompt.  Several\n"
	      "profiles are summed.  A PROFILE of the form host:port[/path] or\n"
	      "http(s)://... is fetched from a running server (gperftools' /pprof\n"
	      "pages, Go's /debug/pprof).  Options may be written --opt=value,\n"
	      "--opt value, or -opt, and abbreviated to a unique prefix (an exact\n"
	      "name always wins).\n"
	      "\n"
	      "Output formats (one at most; text is the default):\n", out);
	for (i = 0; report_formats[i]; i++) {
		char lhs[64];

		snprintf(lhs, sizeof(lhs), "--%s%s%s", report_formats[i]->name,
			 report_formats[i]->arg ? "=" : "",
			 report_formats[i]->arg ? report_formats[i]->arg : "");
		fprintf(out, "  %-26s %s\n", lhs, report_formats[i]->help);
	}
	fputs("\nOptions:\n", out);
	for (i = 0; i < noption_table; i++) {
		const struct option *opt = &option_table[i];
		char lhs[64];
		int show_def = opt->def && opt->kind != OPT_BOOL && opt->kind != OPT_CHOICE;

		snprintf(lhs, sizeof(lhs), "--%s%s%s", opt->name, opt->arg ? "=" : "",
			 opt->arg ? opt->arg : "");
		fprintf(out, "  %-26s %s%s%s%s\n", lhs, opt->help, show_def ? " [" : "",
			show_def ? opt->def : "", show_def ? "]" : "");
	}
	fputs("  -o FILE                    Same as --output=FILE\n"
	      "\n"
	      "Examples:\n"
	      "  pprof --text ./prog prog.prof\n"
	      "  pprof --text --lines ./prog prog.prof\n"
	      "  pprof --text --cum --focus=Mutex --ignore=string ./prog prog.prof\n"
	      "  pprof --text --base=old.prof ./prog new.prof\n"
	      "  pprof --list='^getdir$' ./prog prog.prof\n"
	      "  pprof --disasm=getdir --source_path=src ./prog prog.prof\n"
	      "  pprof --text --unit=ms ./prog prog.prof\n"
	      "  pprof --proto ./prog prog.prof > prog.pb.gz\n"
	      "  pprof --text --sample_index=alloc_space heap.pb.gz\n"
	      "  pprof --text --inuse_objects ./prog prog.0001.heap\n"
	      "  pprof --raw ./prog prog.prof > prog.raw; pprof --text prog.raw\n"
	      "  pprof --symbols ./prog < addresses\n"
	      "  pprof --http=:8080 ./prog prog.prof\n", out);
}

/* The value of an option that takes one: after '=', else the next argument. */
static const char *take_value(const char *name, const char *eq, int argc, char **argv, int *i,
			      struct err *e)
{
	if (eq)
		return eq + 1;
	if (*i + 1 >= argc) {
		err_set(e, "option '--%s' needs a value", name);
		return NULL;
	}
	return argv[++*i];
}

static int parse_format(struct options *o, const struct report_format *fmt, const char *eq,
			int argc, char **argv, int *i, struct err *e)
{
	if (o->format && o->format != fmt)
		return err_set(e, "only specify one output mode");
	o->format = fmt;
	if (!fmt->arg)
		return eq ? err_set(e, "option '--%s' takes no value", fmt->name) : 0;
	return (o->format_arg = take_value(fmt->name, eq, argc, argv, i, e)) ? 0 : -1;
}

/*
 * Whether a flag of opt's group (the OPT_PICK rows that set one value, as
 * --lines and --files do) was given already; set marks opt's as given.
 */
static int picked(struct options *o, const struct option *opt, int set)
{
	size_t i, k;

	if (opt->offset == ROFF(granularity)) {
		if (set)
			o->granularity_set = 1;
		return o->granularity_set;
	}
	for (i = 0; i < noption_table && option_table[i].offset != opt->offset; i++)
		;
	k = i % (8 * sizeof(o->picked));
	if (set)
		o->picked |= (uint64_t)1 << k;
	return (o->picked >> k) & 1;
}

/* "only specify one of --functions, --lines, --addresses, --files" for opt's group. */
static int only_one(const struct option *opt, struct err *e)
{
	char buf[256];
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < noption_table; i++)
		if (option_table[i].kind == OPT_PICK && option_table[i].offset == opt->offset)
			n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s--%s",
					      n ? ", " : "", option_table[i].name);
	return err_set(e, "only specify one of %s", buf);
}

static int parse_option(struct options *o, const struct option *opt, int negated, const char *eq,
			int argc, char **argv, int *i, struct err *e)
{
	const char *v;

	switch (opt->kind) {
	case OPT_BOOL:
		if (eq)
			return err_set(e, "option '--%s' takes no value", opt->name);
		*(int *)field(o, opt) = !negated;
		return 0;
	case OPT_PICK:
		if (eq)
			return err_set(e, "option '--%s' takes no value", opt->name);
		if (picked(o, opt, 0) && *(int *)field(o, opt) != opt->value)
			return only_one(opt, e);
		picked(o, opt, 1);
		return options_set(o, opt, "", e);
	default:
		if (!(v = take_value(opt->name, eq, argc, argv, i, e)))
			return -1;
		if (options_set(o, opt, v, e) < 0)
			return -1;
		if (opt->kind == OPT_CHOICE)
			picked(o, opt, 1);
		return 0;
	}
}

int options_parse(struct options *o, int argc, char **argv, struct err *e)
{
	int i, only_args = 0;

	options_init(o);
	o->args = xcalloc((size_t)argc + 1, sizeof(*o->args));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq;
		const struct option *opt;
		const struct report_format *fmt;
		int negated;
		size_t len;

		if (only_args || a[0] != '-' || !a[1]) {
			o->args[o->nargs++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		name = a + (a[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		if (options_lookup(name, len, &opt, &fmt, &negated, e) < 0)
			return -1;
		if (fmt ? parse_format(o, fmt, eq, argc, argv, &i, e) < 0
			: parse_option(o, opt, negated, eq, argc, argv, &i, e) < 0)
			return -1;
	}
	return 0;
}
