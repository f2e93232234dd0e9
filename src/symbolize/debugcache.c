/* debugcache.c - inflated debug files kept on disk by build id (debugcache.h). */
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
#include "strbuf.h"
#include "util.h"

#define DAY (24 * 60 * 60)

/* The directory's path into sb; 0 when there is none. */
static int cache_dir(struct strbuf *sb)
{
	const char *env = getenv("PPROF_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	/* The XDG base directory rules: a relative path there is ignored. */
	if (env)
		sb_adds(sb, env);
	else if (xdg && *xdg == '/')
		sb_addf(sb, "%s/pprof", xdg);
	else if (home && *home == '/')
		sb_addf(sb, "%s/.cache/pprof", home);
	return sb->len > 0;
}

/* A build id names files here: hex digits only. */
static int hex_only(const char *s)
{
	return *s && strspn(s, "0123456789abcdef") == strlen(s);
}

int debug_cache_open(const char *build_id, uint64_t size)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	int fd = -1;

	if (!hex_only(build_id) || !cache_dir(&path))
		goto out;
	sb_addf(&path, "/%s.debug", build_id);
	if ((fd = open_regular(path.buf)) < 0)
		goto out;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != size) {
		close(fd);
		fd = -1;
		goto out;
	}
	/* Used now: pruning goes by this time. */
	futimens(fd, NULL);
out:
	sb_release(&path);
	return fd;
}

/* Removes the copies unused for DEBUG_CACHE_DAYS days, and temporary files a day old. */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *dot = strstr(de->d_name, ".debug");
		struct stat st;
		time_t age;

		/* Only what this file names: ID.debug, and ID.debug.XXXXXX while written. */
		if (!dot || dot == de->d_name || (dot[6] && dot[6] != '.'))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		age = now - st.st_mtime;
		if (age > (dot[6] ? DAY : (time_t)DEBUG_CACHE_DAYS * DAY))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int debug_cache_add(const char *build_id, int copy, uint64_t size)
{
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT, path = STRBUF_INIT;
	void *map = MAP_FAILED;
	int fd = -1, ok = 0;

	if (!hex_only(build_id) || !size || size > SIZE_MAX || !cache_dir(&dir) ||
	    make_dirs(dir.buf, 0700) < 0)
		goto out;
	sb_addf(&tmp, "%s/%s.debug.XXXXXX", dir.buf, build_id);
	sb_addf(&path, "%s/%s.debug", dir.buf, build_id);
	if ((fd = mkostemp(tmp.buf, O_CLOEXEC)) < 0)
		goto out;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, copy, 0);
	ok = map != MAP_FAILED && write_all(fd, map, (size_t)size) == 0 && fdatasync(fd) == 0;
	ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp.buf, path.buf) == 0;
	if (!ok)
		unlink(tmp.buf);
	prune(dir.buf);
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)size);
	sb_release(&dir);
	sb_release(&tmp);
	sb_release(&path);
	return ok;
}
