/* fuzz.h - what the fuzzing harnesses share; a reader's harness is one FUZZ_READER line. */
#ifndef PPROF_FUZZ_H
#define PPROF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Each harness (tests/fuzz/NAME.c) defines LLVMFuzzerTestOneInput, which
 * libFuzzer calls with every input it makes (make fuzz), and which the
 * replay driver (replay.c) calls with every file of the harness's seeds/
 * and crashes/ (the test suite).  An input must leave nothing behind: no
 * file, no memory, no state the next input could see.  Inputs are data;
 * the harness returns 0 whatever the reader said of them.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Reads data with reader r as the command line would once r claimed it
 * (inputs r's sniff does not claim are dropped), then, when it read,
 * uses the profile as the tools do (fuzz_exercise).  ro may be NULL.
 */
int fuzz_reader(const struct reader *r, const struct read_options *ro, const uint8_t *data,
		size_t size);

/*
 * Profiles of more samples and locations than this are not symbolized or
 * reported by the harnesses: reading them was the point.  A few hundred
 * bytes of a histogram format make tens of thousands of locations, whose
 * reports only take longer (they cost as much as the rest of a corpus).
 */
#define FUZZ_REPORT_MAX 1024

/*
 * What every read profile goes through, without object files: a text
 * report by function and one by address, the profile written as
 * profile.proto and read back, merged with and subtracted from a copy of
 * itself.  r gives the reports their value style and frame rules.
 * Profiles larger than FUZZ_REPORT_MAX are skipped.
 */
void fuzz_exercise(const struct profile *p, const struct reader *r);

/*
 * Writes the report that the command line argv (NULL-terminated, argv[0]
 * the program's name, no positional arguments) asks for, of p as read by
 * r and symbolized with so, to fuzz_null().  Options that do not parse
 * are a bug in the harness (it aborts).
 */
void fuzz_report(const struct profile *p, const struct reader *r,
		 const struct symbolize_options *so, const char *const *argv);

/* The sample value reported by default, as the driver chooses it. */
int fuzz_default_index(const struct profile *p);

/* Where harnesses write reports: /dev/null, opened once. */
FILE *fuzz_null(void);

/*
 * The path of a file under testdata/ (rel: "golden/prog"): under
 * $TESTDATA when the test suite sets it, else under ./testdata (make fuzz
 * runs from the top of the tree).  Static storage, overwritten by the
 * next call.
 */
const char *fuzz_testdata(const char *rel);

/* The whole harness of a reader row: tests/fuzz/NAME.c is this line and an extern. */
#define FUZZ_READER(r)                                                        \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)          \
	{                                                                     \
		return fuzz_reader(&(r), NULL, data, size);                   \
	}

#endif
