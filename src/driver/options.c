/* options.c - parsing the command line through one descriptor table. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

enum kind {
	K_BOOL,     /* int flag */
	K_INT,
	K_DOUBLE,
	K_STRING,
	K_GRAN,     /* sets granularity to value */
	K_FORMAT,   /* an output format of report_formats */
};

struct desc {
	const char *name;
	enum kind kind;
	size_t offset;
	int value;
	const char *arg;   /* argument name for --help, NULL for flags */
	const char *help;
};

#define OFF(f) offsetof(struct options, f)

static const struct desc table[] = {
	{ "functions", K_GRAN, 0, GRAN_FUNCTIONS, NULL, "Report at function level (default)" },
	{ "lines", K_GRAN, 0, GRAN_LINES, NULL, "Report at source line level" },
	{ "addresses", K_GRAN, 0, GRAN_ADDRESSES, NULL, "Report at address level" },
	{ "files", K_GRAN, 0, GRAN_FILES, NULL, "Report at source file level" },
	{ "cum", K_BOOL, OFF(cum), 0, NULL, "Sort by cumulative data" },
	{ "focus", K_STRING, OFF(focus), 0, "REGEX", "Focus on stacks with an entry matching REGEX" },
	{ "ignore", K_STRING, OFF(ignore), 0, "REGEX", "Ignore stacks with an entry matching REGEX" },
	{ "nodecount", K_INT, OFF(nodecount), 0, "N", "Show at most N nodes in graphs [80]" },
	{ "nodefraction", K_DOUBLE, OFF(nodefraction), 0, "F",
	  "Hide graph nodes below F of the total [0.005]" },
	{ "edgefraction", K_DOUBLE, OFF(edgefraction), 0, "F",
	  "Hide graph edges below F of the total [0.001]" },
	{ "maxdegree", K_INT, OFF(maxdegree), 0, "N", "Keep at most N edges per graph node [8]" },
	{ "base", K_STRING, OFF(base), 0, "FILE", "Subtract the profile FILE" },
	{ "drop_negative", K_BOOL, OFF(drop_negative), 0, NULL,
	  "With --base, drop entries that become negative" },
	{ "lib_prefix", K_STRING, OFF(lib_prefix), 0, "DIRS",
	  "Comma-separated directories to look for libraries under" },
	{ "sample_index", K_STRING, OFF(sample_index), 0, "NAME",
	  "Report the sample value NAME or number N (gmon.out: calls, executions)" },
	{ "source_path", K_STRING, OFF(source_path), 0, "DIRS",
	  "Colon-separated directories to find source files in (--list, --disasm)" },
	{ "trim_path", K_STRING, OFF(trim_path), 0, "PREFIXES",
	  "Colon-separated prefixes to remove from source paths before searching" },
	{ "intel_syntax", K_BOOL, OFF(intel_syntax), 0, NULL,
	  "Show x86 disassembly in Intel syntax instead of AT&T (--disasm)" },
	{ "show_addresses", K_BOOL, OFF(show_addresses), 0, NULL,
	  "Append the address to --functions and --lines entries" },
	{ "no_strip_temp", K_BOOL, OFF(no_strip_temp), 0, NULL,
	  "Keep template arguments in function names" },
	{ "no-auto-signal-frm", K_BOOL, OFF(no_auto_signal_frm), 0, NULL,
	  "Keep profiler signal-handler frames; only warn about them" },
	{ "interactive", K_BOOL, OFF(interactive), 0, NULL,
	  "Run the (pprof) prompt (default when standard output is a terminal)" },
	{ "verbose", K_BOOL, OFF(verbose), 0, NULL,
	  "Describe the objects and mappings used for symbols on stderr" },
	{ "output", K_STRING, OFF(output), 0, "FILE",
	  "Write the report to FILE (-o FILE), replacing it only when complete" },
	{ "help", K_BOOL, OFF(help), 0, NULL, "Print this help and exit" },
	{ "version", K_BOOL, OFF(version), 0, NULL, "Print the version and exit" },
};

void options_usage(FILE *out)
{
	size_t i;

	fputs("Usage: pprof [options] [PROGRAM] PROFILE...\n"
	      "\n"
	      "Reads gperftools CPU profiles, symbolizes them with PROGRAM and the\n"
	      "shared libraries they name, and reports where the samples are.\n"
	      "Several profiles are summed.  Options may be written --opt=value,\n"
	      "--opt value, or -opt, and abbreviated to a unique prefix.\n"
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
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		char lhs[64];

		snprintf(lhs, sizeof(lhs), "--%s%s%s", table[i].name, table[i].arg ? "=" : "",
			 table[i].arg ? table[i].arg : "");
		fprintf(out, "  %-26s %s\n", lhs, table[i].help);
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

static void defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->granularity = GRAN_FUNCTIONS;
	o->nodecount = 80;
	o->nodefraction = 0.005;
	o->edgefraction = 0.001;
	o->maxdegree = 8;
}

/*
 * The descriptor for name (exact, else a unique prefix), or the output
 * format it names (*fmt); *negated for --noNAME.
 */
static const struct desc *lookup(const char *name, size_t len, int *negated,
				 const struct report_format **fmt, struct err *e)
{
	static const struct desc format_desc = { "format", K_FORMAT, 0, 0, NULL, NULL };
	const struct desc *hit = NULL;
	const struct report_format *fhit = NULL;
	size_t i;
	int n = 0;

	*negated = 0;
	*fmt = NULL;
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
			return &table[i];
	for (i = 0; report_formats[i]; i++)
		if (strlen(report_formats[i]->name) == len &&
		    !strncmp(report_formats[i]->name, name, len)) {
			*fmt = report_formats[i];
			return &format_desc;
		}
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (!strncmp(table[i].name, name, len)) {
			hit = &table[i];
			n++;
		}
	for (i = 0; report_formats[i]; i++)
		if (!strncmp(report_formats[i]->name, name, len)) {
			fhit = report_formats[i];
			n++;
		}
	if (n == 1 && fhit) {
		*fmt = fhit;
		return &format_desc;
	}
	if (n == 1)
		return hit;
	if (n > 1) {
		err_set(e, "option '%.*s' is ambiguous", (int)len, name);
		return NULL;
	}
	/* --noflag / --no-flag negate booleans. */
	if (len > 2 && !strncmp(name, "no", 2)) {
		size_t skip = name[2] == '-' ? 3 : 2;

		for (i = 0; i < ARRAY_SIZE(table); i++)
			if (table[i].kind == K_BOOL && strlen(table[i].name) == len - skip &&
			    !strncmp(table[i].name, name + skip, len - skip)) {
				*negated = 1;
				return &table[i];
			}
	}
	err_set(e, "unknown option '%.*s'", (int)len, name);
	return NULL;
}

static int set_value(struct options *o, const struct desc *d, const char *v, struct err *e)
{
	char *end;

	switch (d->kind) {
	case K_INT: {
		long x;

		errno = 0;
		x = strtol(v, &end, 10);
		if (errno || end == v || *end || x < 0 || x > 1000000000)
			return err_set(e, "option '--%s' wants a non-negative integer, not '%s'",
				       d->name, v);
		*(int *)((char *)o + d->offset) = (int)x;
		return 0;
	}
	case K_DOUBLE: {
		double x;

		errno = 0;
		x = strtod(v, &end);
		if (errno || end == v || *end || !(x >= 0))
			return err_set(e, "option '--%s' wants a non-negative number, not '%s'",
				       d->name, v);
		*(double *)((char *)o + d->offset) = x;
		return 0;
	}
	case K_STRING:
		*(const char **)((char *)o + d->offset) = v;
		return 0;
	default:
		BUG("set_value on a flag");
	}
}

int options_parse(struct options *o, int argc, char **argv, struct err *e)
{
	int i, only_args = 0;

	defaults(o);
	o->args = xcalloc((size_t)argc + 1, sizeof(*o->args));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq;
		const struct desc *d;
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
		if (!(d = lookup(name, len, &negated, &fmt, e)))
			return -1;
		switch (d->kind) {
		case K_BOOL:
			if (eq)
				return err_set(e, "option '--%s' takes no value", d->name);
			*(int *)((char *)o + d->offset) = !negated;
			break;
		case K_FORMAT:
			if (o->format && o->format != fmt)
				return err_set(e, "only specify one output mode");
			o->format = fmt;
			if (!fmt->arg) {
				if (eq)
					return err_set(e, "option '--%s' takes no value", fmt->name);
			} else if (eq) {
				o->format_arg = eq + 1;
			} else {
				if (i + 1 >= argc)
					return err_set(e, "option '--%s' needs a value", fmt->name);
				o->format_arg = argv[++i];
			}
			break;
		case K_GRAN:
			if (eq)
				return err_set(e, "option '--%s' takes no value", d->name);
			if (o->granularity_set && o->granularity != (enum granularity)d->value)
				return err_set(e, "only specify one of --functions, --lines, --addresses, --files");
			o->granularity = (enum granularity)d->value;
			o->granularity_set = 1;
			break;
		default:
			if (eq) {
				if (set_value(o, d, eq + 1, e) < 0)
					return -1;
			} else {
				if (i + 1 >= argc)
					return err_set(e, "option '--%s' needs a value", d->name);
				if (set_value(o, d, argv[++i], e) < 0)
					return -1;
			}
			break;
		}
	}
	return 0;
}
