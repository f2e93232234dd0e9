/* pipeline.h - from parsed options to a finished report: read, merge, symbolize, report. */
#ifndef PPROF_PIPELINE_H
#define PPROF_PIPELINE_H

#include "options.h"
#include "profile.h"

/* Runs the command; returns the exit status (0 ok, 1 error). */
int pipeline_run(const struct options *o);

/*
 * The index of --sample_index's value in p's sample types: a type's name
 * or its position from 0; NULL or empty: the profile's default sample
 * type, else the last.  -1 with e set when p has no such value.
 */
int pipeline_sample_index(const struct profile *p, const char *name, struct err *e);

/*
 * --symbols PROGRAM (symbols.c): reads mapped-object lines and hexadecimal
 * addresses from standard input and prints the short name of each address,
 * one per line, as gperftools pprof does.  Returns the exit status.
 */
int symbols_run(const struct options *o);

#endif
