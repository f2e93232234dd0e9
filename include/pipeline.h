/* pipeline.h - from parsed options to a finished report: read, merge, symbolize, report. */
#ifndef PPROF_PIPELINE_H
#define PPROF_PIPELINE_H

#include "options.h"

/* Runs the command; returns the exit status (0 ok, 1 error). */
int pipeline_run(const struct options *o);

/*
 * --symbols PROGRAM (symbols.c): reads mapped-object lines and hexadecimal
 * addresses from standard input and prints the short name of each address,
 * one per line, as gperftools pprof does.  Returns the exit status.
 */
int symbols_run(const struct options *o);

#endif
