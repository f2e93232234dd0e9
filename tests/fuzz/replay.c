/* replay.c - runs a fuzzing harness over files and directories, without libFuzzer (the test suite). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Harnesses that need one-time setup define it, as libFuzzer allows. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/*
 * Each input gets a block of its exact size, so that the sanitizers (or
 * valgrind) see a read past its end.  Prints "ok - PATH" once it returned.
 */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		printf("not ok - %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			if (!(buf = realloc(buf, cap))) {
				perror("replay");
				exit(1);
			}
		}
		if (!(n = fread(buf + len, 1, cap - len, f)))
			break;
		len += n;
	}
	fclose(f);
	buf = realloc(buf, len ? len : 1);
	/* Said first, so that a crash names its input. */
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("ok - %s\n", path);
	return 0;
}

static int skip_name(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int replay(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i, failed = 0;

	if (stat(path, &st) < 0) {
		printf("not ok - %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if ((n = scandir(path, &names, skip_name, alphasort)) < 0) {
		printf("not ok - %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
		failed |= replay(sub);
		free(names[i]);
	}
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		failed |= replay(argv[i]);
	return failed;
}
