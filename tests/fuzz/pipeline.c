/* pipeline.c - fuzzes the whole pipeline on a profile of a fixed real program: read, symbolize, text, dot, list. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/*
 * The program is testdata/golden/prog, whose CPU profiles are the seeds;
 * its sources are found under testdata/golden (its debug information
 * names them /golden/...).
 */
static char program[4096], source_path[4200];

static const char *const text[] = { "pprof", "--text", NULL };
static const char *const lines[] = { "pprof", "--lines", "--cum", "--text", NULL };
static const char *const dot[] = { "pprof", "--dot", NULL };
static const char *const list[] = { "pprof", "--list=.", source_path, "--trim_path=/golden", NULL };
static const char *const *const reports[] = { text, lines, dot, list };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(program, sizeof(program), "%s", fuzz_testdata("golden/prog"));
	snprintf(source_path, sizeof(source_path), "--source_path=%s", fuzz_testdata("golden"));
	return 0;
}

/* What pipeline_run does after reading, with the reader's hooks. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolize_options so = { 0 };
	const struct reader *rd;
	struct profile *p;
	struct err e = { { 0 } };
	size_t i;

	if (reader_load_buffer("fuzz", data, size, NULL, &p, &rd, &e) < 0)
		return 0;
	if (p->nsample + p->nlocation > FUZZ_REPORT_MAX) {
		profile_free(p);
		return 0;
	}
	so.program = rd->fit ? rd->fit(p, program) : program;
	/* As the command line keeps them for --list: the objects symbolization read. */
	so.cache = symbolize_cache_new();
	if ((rd->symbolize ? rd->symbolize : symbolize_profile)(p, &so, &e) == 0)
		for (i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
			fuzz_report(p, rd, &so, reports[i]);
	symbolize_cache_free(so.cache);
	profile_free(p);
	return 0;
}
