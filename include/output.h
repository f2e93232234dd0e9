/* output.h - all-or-nothing report output to stdout or a file. */
#ifndef PPROF_OUTPUT_H
#define PPROF_OUTPUT_H

#include <stdio.h>

#include "err.h"

/*
 * A report is written to fp, a stream into memory; output_commit copies it
 * to stdout, or to a temporary file in the target's directory that is then
 * renamed over the target.  output_abort discards it.  Either way nothing
 * half-written is ever left behind.  Once a format calls output_ready, its
 * report can no longer fail: standard output and devices then take what
 * is held and the rest as it comes, and only a regular file is still
 * written whole and renamed.
 */
struct output_chunk;

struct output {
	FILE *fp;
	struct output_chunk *head, *tail; /* what fp has written, in blocks never moved */
	int failed;                       /* out of memory */
	const char *path;                 /* NULL for stdout */
	int fd;                           /* after output_ready: stdout, or path's device opened; -1 */
	int write_errno;                  /* ... why writing it failed; 0 */
	struct output *next_open;         /* the outputs open, for output_ready */
};

int output_open(struct output *o, const char *path, struct err *e);
int output_commit(struct output *o, struct err *e);
void output_abort(struct output *o);
/*
 * The report written to fp (an output's, else nothing happens) can no
 * longer fail: for standard output or a device, what fp holds is written
 * now and the rest as it comes, not held whole in memory.
 */
void output_ready(FILE *fp);

#endif
