/* options.c - the table of settings, and parsing the command line and prompt settings with it. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "regex.h"
#include "units.h"
#include "util.h"

#define OFF(f) offsetof(struct options, f)
#define ROFF(f) offsetof(struct options, report.f)

static int check_unit(const char *v, struct err *e)
{
	if (!units_known(v))
		return err_set(e, "option 'unit' wants minimum, auto or a unit such as ns, ms, s, B, kB, MB, "
			       "not '%s'", v);
	return 0;
}

static const char *const granularities[] = { "functions", "lines", "addresses", "files", NULL };

const struct option option_table[] = {
	{ "granularity", OPT_CHOICE, ROFF(granularity), granularities, 0,
	  "functions|lines|addresses|files", "functions", OPT_SETTING,
	  "Level of the report's entries" },
	{ "functions", OPT_PICK, ROFF(granularity), NULL, GRAN_FUNCTIONS, NULL, NULL,
	  OPT_PROMPT_WORD, "Report at function level (default)" },
	{ "lines", OPT_PICK, ROFF(granularity), NULL, GRAN_LINES, NULL, NULL, OPT_PROMPT_WORD,
	  "Report at source line level" },
	{ "addresses", OPT_PICK, ROFF(granularity), NULL, GRAN_ADDRESSES, NULL, NULL,
	  OPT_PROMPT_WORD, "Report at address level" },
	{ "files", OPT_PICK, ROFF(granularity), NULL, GRAN_FILES, NULL, NULL, OPT_PROMPT_WORD,
	  "Report at source file level" },
	{ "cum", OPT_BOOL, ROFF(cum), NULL, 0, NULL, "false", OPT_SETTING,
	  "Sort by cumulative data" },
	{ "focus", OPT_REGEX, ROFF(focus), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Focus on stacks with an entry matching REGEX" },
	{ "ignore", OPT_REGEX, ROFF(ignore), NULL, 0, "REGEX", NULL, OPT_SETTING,
	  "Ignore stacks with an entry matching REGEX" },
	{ "nodecount", OPT_INT, ROFF(nodecount), NULL, 0, "N", "80", OPT_SETTING,
	  "Show at most N nodes in graphs" },
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
	{ "lib_prefix", OPT_STRING, OFF(lib_prefix), NULL, 0, "DIRS", NULL, 0,
	  "Comma-separated directories to look for libraries under" },
	{ "sample_index", OPT_STRING, OFF(sample_index), NULL, 0, "NAME", NULL, 0,
	  "Report the sample value NAME or number N (gmon.out: calls, executions)" },
	{ "max_input", OPT_SIZE, OFF(max_input), NULL, 0, "BYTES", NULL, 0,
	  "Refuse compressed profiles that inflate to more than BYTES (k, M, G suffixes; "
	  "default 1G, and 200 times their size past 64M)" },
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
	{ "help", OPT_BOOL, OFF(help), NULL, 0, NULL, "false", 0, "Print this help and exit" },
	{ "version", OPT_BOOL, OFF(version), NULL, 0, NULL, "false", 0,
	  "Print the version and exit" },
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
		return err_set(e, "option '%s' wants one of %s, not '%s'", opt->name, opt->arg, v);
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
	      "Reads gperftools CPU profiles, gprof's gmon.out and DCPI profiles,\n"
	      "symbolizes them with PROGRAM and the shared libraries they name, and\n"
	      "reports where the samples are: as text, call graphs, annotated source\n"
	      "and machine code, or at the (pprof) prompt.  Several profiles are\n"
	      "summed.  Options may be written --opt=value, --opt value, or -opt, and\n"
	      "abbreviated to a unique prefix.\n"
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
	      "  pprof --list='^getdir<' ./prog prog.prof\n"
	      "  pprof --disasm=getdir --source_path=src ./prog prog.prof\n", out);
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
		if (o->granularity_set && *(int *)field(o, opt) != opt->value)
			return err_set(e, "only specify one of --functions, --lines, --addresses, --files");
		o->granularity_set = 1;
		return options_set(o, opt, "", e);
	default:
		if (!(v = take_value(opt->name, eq, argc, argv, i, e)))
			return -1;
		if (options_set(o, opt, v, e) < 0)
			return -1;
		if (opt->kind == OPT_CHOICE && opt->offset == ROFF(granularity))
			o->granularity_set = 1;
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
