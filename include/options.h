/* options.h - every setting in one table: command-line flags, prompt settings, defaults and help. */
#ifndef PPROF_OPTIONS_H
#define PPROF_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "report.h"

/*
 * The values of every setting.  What reports read lives in report, so the
 * command line and the prompt hand &report to them as it is.
 */
struct options {
	struct report_options report;
	/* The output format (report_formats), NULL for the default. */
	const struct report_format *format;
	const char *format_arg;  /* --list=RE and the like */
	int granularity_set;     /* a granularity flag was given */
	uint64_t picked;         /* other groups of OPT_PICK flags given, by their value's row */
	const char *base;
	int drop_negative;
	const char *diff_base;    /* --diff_base: Go pprof's base, negated and marked */
	const char *lib_prefix;
	const char *sample_index; /* which sample value to report: a type name or a number */
	size_t max_input;         /* --max_input: bytes a compressed profile may inflate to */
	int symbolize;            /* --symbolize: SYMBOLIZE_LOCAL or SYMBOLIZE_NONE */
	int seconds;              /* --seconds: how long remote CPU profiles are collected */
	int timeout;              /* --timeout: seconds a fetch may take; 0: seconds + 60 */
	int verbose;
	int interactive;
	const char *output;
	int help, version;
	const char *http;         /* --http=[HOST]:PORT: serve the web UI there */
	int no_browser;           /* --no_browser: with --http, open no browser */
	int symbols;              /* --symbols: name the addresses on standard input */
	const char *add_lib;      /* --add_lib: a library of extra symbols */
	const char *tools;        /* --tools: accepted and ignored */

	/* Positional arguments: [PROGRAM] PROFILE... */
	char **args;
	int nargs;
};

enum { SYMBOLIZE_LOCAL, SYMBOLIZE_NONE };

enum option_kind {
	OPT_BOOL,      /* int: --NAME sets 1, --noNAME 0; NAME=true|false at the prompt */
	OPT_INT,       /* int, 0 or more */
	OPT_DOUBLE,    /* double, 0 or more */
	OPT_SIZE,      /* size_t, a byte count with an optional k, M or G suffix (powers of 1024) */
	OPT_STRING,    /* const char * (NULL when unset) */
	OPT_REGEX,     /* a string that must compile as a regex (empty: unset) */
	OPT_CHOICE,    /* int: the index of the value in choices */
	OPT_PICK,      /* a flag that sets an OPT_CHOICE's int to value (--lines) */
};

enum option_flags {
	OPT_SETTING = 1 << 0,    /* also a setting at the prompt: NAME=VALUE, listed by "options" */
	OPT_PROMPT_WORD = 1 << 1, /* OPT_PICK: its name alone is a prompt command ("lines") */
};

/* One row of the table: everything there is to know about a setting. */
struct option {
	const char *name;        /* --NAME, -NAME, NAME=VALUE */
	enum option_kind kind;
	size_t offset;           /* of its value in struct options */
	const char *const *choices; /* OPT_CHOICE: names, NULL-terminated */
	int value;               /* OPT_PICK: the choice it sets */
	const char *arg;         /* the value's name in help ("REGEX") */
	const char *def;         /* the default as it would be typed, or NULL */
	unsigned flags;
	const char *help;
	/* Checks a value beyond its kind (OPT_STRING); -1 with e set when bad. */
	int (*check)(const char *value, struct err *e);
};

extern const struct option option_table[];
extern const size_t noption_table;

/* Sets every option to its default (the table's def). */
void options_init(struct options *o);

/*
 * The option called name (len bytes): an exact name first, then a unique
 * prefix of an option or output format name.  Returns the row, or NULL
 * with *fmt set for an output format; -1 with e set when none or several
 * match.  *negated is set for --noBOOL and --no-BOOL.
 */
int options_lookup(const char *name, size_t len, const struct option **opt,
		   const struct report_format **fmt, int *negated, struct err *e);

/* Parses and checks value for the row, storing it in o.  -1 with e set when it is bad. */
int options_set(struct options *o, const struct option *opt, const char *value, struct err *e);

/* Writes the row's current value in o as it would be typed. */
void options_format(const struct options *o, const struct option *opt, char *buf, size_t n);

/*
 * Parses argv into o (defaults first).  Accepts --opt=value, --opt value,
 * single-dash -opt, unique prefixes, and --noBOOL.  Returns -1 with e set
 * on a usage error.  o->args is the caller's to free.
 */
int options_parse(struct options *o, int argc, char **argv, struct err *e);
/* The --help text, listing every option and output format. */
void options_usage(FILE *out);

#endif
