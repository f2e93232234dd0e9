/* output.h - all-or-nothing report output to stdout or a file. */
#ifndef PPROF_OUTPUT_H
#define PPROF_OUTPUT_H

#include <stdio.h>

#include "err.h"

/*
 * A report is written to fp, a stream into memory; output_commit copies it
 * to stdout, or to a temporary file in the target's directory that is then
 * renamed over the target.  output_abort discards it.  Either way nothing
 * half-written is ever left behind.
 */
struct output_chunk;

struct output {
	FILE *fp;
	struct output_chunk *head, *tail; /* what fp has written, in blocks never moved */
	int failed;                       /* out of memory */
	const char *path;                 /* NULL for stdout */
};

int output_open(struct output *o, const char *path, struct err *e);
int output_commit(struct output *o, struct err *e);
void output_abort(struct output *o);

#endif
