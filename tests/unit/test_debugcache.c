/* test_debugcache.c - inflated debug files kept on disk by build id (src/symbolize/debugcache.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "debugcache.h"
#include "harness.h"

#define ID "93ac61ec5a8eb1396f9fbd350e3169a558528a40"
#define DAY (24 * 60 * 60)

static char top[256];

/* A memory file of n bytes, byte i being seed + i. */
static int memory_file(size_t n, unsigned seed)
{
	int fd = memfd_create("test-debugcache", MFD_CLOEXEC);
	unsigned char *buf = malloc(n);
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(seed + i);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		fd = -1;
	free(buf);
	return fd;
}

/* Whether fd holds the n bytes memory_file(n, seed) made. */
static int holds(int fd, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n + 1);
	ssize_t got = pread(fd, buf, n + 1, 0);
	size_t i;
	int ok = got == (ssize_t)n;

	for (i = 0; ok && i < n; i++)
		ok = buf[i] == (unsigned char)(seed + i);
	free(buf);
	return ok;
}

static char *path_of(const char *dir, const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int exists(const char *dir, const char *name)
{
	return access(path_of(dir, name), F_OK) == 0;
}

static void set_age(const char *dir, const char *name, time_t age)
{
	struct timespec t[2] = { { time(NULL) - age, 0 }, { time(NULL) - age, 0 } };

	utimensat(AT_FDCWD, path_of(dir, name), t, 0);
}

static time_t age_of(const char *dir, const char *name)
{
	struct stat st;

	return stat(path_of(dir, name), &st) == 0 ? time(NULL) - st.st_mtime : -1;
}

static void make_file(const char *dir, const char *name)
{
	int fd = open(path_of(dir, name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd >= 0)
		close(fd);
}

/* Files in dir whose names contain s. */
static int count_named(const char *dir, const char *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strstr(de->d_name, s) != NULL;
	if (d)
		closedir(d);
	return n;
}

TEST(kept_then_found)
{
	char dir[320];
	int copy = memory_file(100000, 7), fd;

	/* Missing directories are made. */
	snprintf(dir, sizeof(dir), "%s/a/b", top);
	setenv("PPROF_CACHE_DIR", dir, 1);
	CHECK_EQ_INT(debug_cache_open(ID, 100000), -1);
	CHECK_EQ_INT(debug_cache_add(ID, copy, 100000), 1);
	CHECK(exists(dir, ID ".debug"));
	CHECK_EQ_INT(count_named(dir, ".debug."), 0);
	fd = debug_cache_open(ID, 100000);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(holds(fd, 100000, 7));
		close(fd);
	}
	/* A copy of another size is not this file's. */
	CHECK_EQ_INT(debug_cache_open(ID, 99999), -1);
	CHECK_EQ_INT(debug_cache_open(ID, 100001), -1);
	/* Another copy replaces it. */
	close(copy);
	copy = memory_file(5000, 99);
	debug_cache_add(ID, copy, 5000);
	fd = debug_cache_open(ID, 5000);
	CHECK(fd >= 0 && holds(fd, 5000, 99));
	if (fd >= 0)
		close(fd);
	close(copy);
}

TEST(names_are_build_ids)
{
	char dir[320];
	int copy = memory_file(10, 1);

	snprintf(dir, sizeof(dir), "%s/names", top);
	setenv("PPROF_CACHE_DIR", dir, 1);
	CHECK_EQ_INT(debug_cache_add("../escape", copy, 10), 0);
	CHECK_EQ_INT(debug_cache_add("ABC", copy, 10), 0);
	CHECK_EQ_INT(debug_cache_add("", copy, 10), 0);
	CHECK(!exists(top, "escape.debug"));
	CHECK_EQ_INT(count_named(dir, "debug"), 0);
	CHECK_EQ_INT(debug_cache_open("../escape", 10), -1);
	close(copy);
}

TEST(where_it_is)
{
	char xdg[300], home[300], dir[320];
	int copy = memory_file(10, 3), fd;

	snprintf(xdg, sizeof(xdg), "%s/xdg", top);
	snprintf(home, sizeof(home), "%s/home", top);
	unsetenv("PPROF_CACHE_DIR");
	setenv("XDG_CACHE_HOME", xdg, 1);
	setenv("HOME", home, 1);
	debug_cache_add("aa", copy, 10);
	snprintf(dir, sizeof(dir), "%s/pprof", xdg);
	CHECK(exists(dir, "aa.debug"));
	/* A relative XDG_CACHE_HOME is ignored, as the XDG rules say. */
	setenv("XDG_CACHE_HOME", "relative", 1);
	debug_cache_add("bb", copy, 10);
	CHECK(access("relative", F_OK) != 0);
	snprintf(dir, sizeof(dir), "%s/.cache/pprof", home);
	CHECK(exists(dir, "bb.debug"));
	fd = debug_cache_open("bb", 10);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* Set empty: no cache at all. */
	setenv("PPROF_CACHE_DIR", "", 1);
	CHECK_EQ_INT(debug_cache_open("bb", 10), -1);
	CHECK_EQ_INT(debug_cache_add("cc", copy, 10), 0);
	CHECK(!exists(dir, "cc.debug"));
	close(copy);
}

TEST(nothing_kept_when_it_cannot_be)
{
	char dir[320];
	int copy = memory_file(10, 3), pipefd[2];

	/* The directory cannot be made: a file is in the way. */
	make_file(top, "plain");
	snprintf(dir, sizeof(dir), "%s/plain/sub", top);
	setenv("PPROF_CACHE_DIR", dir, 1);
	CHECK_EQ_INT(debug_cache_add("dd", copy, 10), 0);
	CHECK_EQ_INT(debug_cache_open("dd", 10), -1);
	/* A copy that cannot be read whole leaves no temporary file. */
	snprintf(dir, sizeof(dir), "%s/short", top);
	setenv("PPROF_CACHE_DIR", dir, 1);
	if (CHECK(pipe(pipefd) == 0)) {
		CHECK_EQ_INT(debug_cache_add("ee", pipefd[0], 10), 0);
		close(pipefd[0]);
		close(pipefd[1]);
	}
	CHECK(!exists(dir, "ee.debug"));
	CHECK_EQ_INT(count_named(dir, ".debug"), 0);
	close(copy);
}

TEST(unused_copies_go)
{
	char dir[320];
	int copy = memory_file(10, 5), fd;

	snprintf(dir, sizeof(dir), "%s/prune", top);
	setenv("PPROF_CACHE_DIR", dir, 1);
	debug_cache_add("01", copy, 10);
	debug_cache_add("02", copy, 10);
	debug_cache_add("03", copy, 10);
	make_file(dir, "04.debug.Ab12Cd");
	make_file(dir, "05.debug.Ef34Gh");
	make_file(dir, "notes.txt");
	make_file(dir, "06.debugger");
	set_age(dir, "01.debug", (DEBUG_CACHE_DAYS + 1) * DAY);
	set_age(dir, "02.debug", (DEBUG_CACHE_DAYS - 1) * DAY);
	set_age(dir, "03.debug", (DEBUG_CACHE_DAYS + 5) * DAY);
	set_age(dir, "04.debug.Ab12Cd", 2 * DAY);
	set_age(dir, "05.debug.Ef34Gh", 60);
	set_age(dir, "notes.txt", 400 * DAY);
	set_age(dir, "06.debugger", 400 * DAY);
	/* Using a copy renews it. */
	fd = debug_cache_open("03", 10);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(age_of(dir, "03.debug") < 60);
	/* Adding one prunes the rest. */
	debug_cache_add("07", copy, 10);
	CHECK(!exists(dir, "01.debug"));
	CHECK(exists(dir, "02.debug"));
	CHECK(exists(dir, "03.debug"));
	CHECK(!exists(dir, "04.debug.Ab12Cd"));
	CHECK(exists(dir, "05.debug.Ef34Gh"));
	CHECK(exists(dir, "notes.txt"));
	CHECK(exists(dir, "06.debugger"));
	CHECK(exists(dir, "07.debug"));
	close(copy);
}

int main(void)
{
	snprintf(top, sizeof(top), "%s/debugcache.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	/* Where a relative path would land. */
	if (chdir(top) != 0) {
		perror("chdir");
		return 1;
	}
	RUN(kept_then_found);
	RUN(names_are_build_ids);
	RUN(where_it_is);
	RUN(nothing_kept_when_it_cannot_be);
	RUN(unused_copies_go);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			TEST_NOTE("could not remove %s", top);
	}
	return test_done();
}
