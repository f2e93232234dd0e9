/* main.c - pprof: argv to options to pipeline to exit status; the only exit(). */
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "pipeline.h"
#include "util.h"

#define PPROF_VERSION "0.1.0"

int main(int argc, char **argv)
{
	struct options o;
	struct err e;
	int status;

	xalloc_setup();
	if (options_parse(&o, argc, argv, &e) < 0) {
		fprintf(stderr, "pprof: %s (try 'pprof --help')\n", e.msg);
		free(o.args);
		return 2;
	}
	if (o.help) {
		options_usage(stdout);
		free(o.args);
		return 0;
	}
	if (o.version) {
		printf("pprof %s\n", PPROF_VERSION);
		free(o.args);
		return 0;
	}
	status = pipeline_run(&o);
	free(o.args);
	return status;
}
