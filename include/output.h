/* output.h - all-or-nothing report output to stdout or a file. */
#ifndef PPROF_OUTPUT_H
#define PPROF_OUTPUT_H

#include <stdio.h>

#include "err.h"

/*
 * A report is written to fp, a memory stream; output_commit copies it to
 * stdout, or to a temporary file in the target's directory that is then
 * renamed over the target.  output_abort discards it.  Either way nothing
 * half-written is ever left behind.
 */
struct output {
	FILE *fp;
	char *buf;
	size_t len;
	const char *path;   /* NULL for stdout */
};

int output_open(struct output *o, const char *path, struct err *e);
int output_commit(struct output *o, struct err *e);
void output_abort(struct output *o);

#endif
