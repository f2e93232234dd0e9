/* test_paths.c - unit tests for opening files named by input (include/util.h): no devices, no escapes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static char top[64];

/* A scratch tree: top/in/{a.c, sub/b.c, out.c -> ../secret.c, sub/up -> ../.., fifo}, top/secret.c. */
static int make_tree(void)
{
	char p[256];
	FILE *f;
	static const char *const files[] = { "in/a.c", "in/sub/b.c", "secret.c" };
	size_t i;

	snprintf(top, sizeof(top), "%s/paths.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top))
		return -1;
	snprintf(p, sizeof(p), "%s/in", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/in/sub", top);
	mkdir(p, 0700);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(p, sizeof(p), "%s/%s", top, files[i]);
		if (!(f = fopen(p, "w")))
			return -1;
		fputs("int x;\n", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/in/out.c", top);
	if (symlink("../secret.c", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/in/sub/up", top);
	if (symlink("../..", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/in/fifo", top);
	return mkfifo(p, 0600);
}

static void remove_tree(void)
{
	static const char *const names[] = { "in/sub/up", "in/sub/b.c", "in/sub", "in/out.c",
					     "in/a.c", "in/fifo", "in", "secret.c", "" };
	char p[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", top, names[i]);
		remove(p);
	}
}

/* open_beneath(top/in, name): whether it opened; errno tells why not. */
static int opens(const char *name)
{
	char dir[128];
	int fd;

	snprintf(dir, sizeof(dir), "%s/in", top);
	if ((fd = open_beneath(dir, name)) < 0)
		return 0;
	close(fd);
	return 1;
}

TEST(climbs)
{
	CHECK(!path_climbs("a/b.c"));
	CHECK(!path_climbs("/usr/lib/libc.so.6"));
	CHECK(!path_climbs("build/../src/a.c"));
	CHECK(!path_climbs("./a/./b/../c"));
	CHECK(!path_climbs("..a/b.."));
	CHECK(path_climbs(".."));
	CHECK(path_climbs("../a.c"));
	CHECK(path_climbs("/../etc/passwd"));
	CHECK(path_climbs("a/../../b"));
	CHECK(path_climbs("a/./../.."));
	CHECK(path_climbs("/a/b/../../../lib/x.so"));
}

TEST(beneath)
{
	CHECK(opens("a.c"));
	CHECK(opens("sub/b.c"));
	CHECK(opens("sub/../a.c"));
	CHECK(opens("./sub/./b.c"));
	/* Out through "..", an absolute name, or a symbolic link. */
	CHECK(!opens("../secret.c") && errno == EACCES);
	CHECK(!opens("sub/../../secret.c") && errno == EACCES);
	CHECK(!opens("out.c") && errno == EACCES);
	CHECK(!opens("sub/up/secret.c") && errno == EACCES);
	CHECK(opens("sub/up/in/a.c"));
	{
		char abs[256];

		snprintf(abs, sizeof(abs), "%s/in/a.c", top);
		CHECK(!opens(abs) && errno == EACCES);
	}
	/* Inside, but no regular file: not opened, and no waiting on the FIFO. */
	CHECK(!opens("fifo") && errno == EINVAL);
	CHECK(!opens("sub") && errno == EISDIR);
	CHECK(!opens("missing.c") && errno == ENOENT);
}

TEST(regular_only)
{
	int fd;

	CHECK((fd = open_regular("/dev/null")) < 0 && errno == EINVAL);
	CHECK((fd = open_regular("/dev/zero")) < 0 && errno == EINVAL);
	CHECK((fd = open_regular("/")) < 0 && errno == EISDIR);
	CHECK((fd = open_regular("/nonexistent/x")) < 0 && errno == ENOENT);
	{
		char fifo[128];

		snprintf(fifo, sizeof(fifo), "%s/in/fifo", top);
		CHECK((fd = open_regular(fifo)) < 0 && errno == EINVAL);
	}
}

int main(void)
{
	if (!CHECK(make_tree() == 0)) {
		remove_tree();
		return test_done();
	}
	RUN(climbs);
	RUN(beneath);
	RUN(regular_only);
	remove_tree();
	return test_done();
}
