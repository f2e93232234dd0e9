/* options.h - the command line: one options struct filled from a descriptor table. */
#ifndef PPROF_OPTIONS_H
#define PPROF_OPTIONS_H

#include <stdio.h>

#include "err.h"
#include "report.h"

struct options {
	/* The output format (report_formats), NULL for the default. */
	const struct report_format *format;
	const char *format_arg;  /* --list=RE and the like */
	enum granularity granularity;
	int granularity_set;
	int cum;
	const char *focus, *ignore;
	int nodecount;
	double nodefraction, edgefraction;
	int maxdegree;
	const char *base;
	int drop_negative;
	const char *lib_prefix;
	int show_addresses;
	const char *source_path, *trim_path;
	int intel_syntax;
	const char *sample_index; /* which sample value to report: a type name or a number */
	int no_strip_temp;
	int no_auto_signal_frm;
	int verbose;
	int interactive;
	const char *output;
	int help, version;

	/* Positional arguments: [PROGRAM] PROFILE... */
	char **args;
	int nargs;
};

/*
 * Parses argv into o (defaults first).  Accepts --opt=value, --opt value,
 * single-dash -opt, unique prefixes, and --noBOOL.  Returns -1 with e set
 * on a usage error.
 */
int options_parse(struct options *o, int argc, char **argv, struct err *e);
/* The --help text, listing every option. */
void options_usage(FILE *out);

#endif
