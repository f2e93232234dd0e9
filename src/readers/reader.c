/* reader.c - the table of readers, sniffing, and file loading. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"
#include "strbuf.h"
#include "util.h"

extern const struct reader reader_gperf, reader_gmon, reader_dcpi, reader_proto;
extern const struct reader reader_heap, reader_contention, reader_thread, reader_symbolized;

/*
 * The readers, in the order they are asked.  gmon first: gperftools' sniff
 * claims any file that starts with 4 zero bytes, as a BSD gmon.out of a
 * program at address 0 does.
 */
static const struct reader *const readers[] = {
	&reader_gmon,
	&reader_gperf,
	&reader_dcpi,
	&reader_proto,
	&reader_heap,
	&reader_contention,
	&reader_thread,
	&reader_symbolized,
};

const struct reader *reader_for(const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(readers); i++)
		if (readers[i]->sniff(buf, len))
			return readers[i];
	return NULL;
}

const struct reader *reader_named(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(readers); i++)
		if (!strcmp(readers[i]->name, name))
			return readers[i];
	return NULL;
}

int reader_load_buffer(const char *path, const unsigned char *buf, size_t len,
		       const struct read_options *ro, struct profile **out,
		       const struct reader **rd, struct err *e)
{
	struct strbuf tried = STRBUF_INIT;
	size_t i;

	*out = NULL;
	if (len == 0)
		return err_set(e, "%s: empty file, not a profile", path);
	for (i = 0; i < ARRAY_SIZE(readers); i++) {
		struct profile *p;

		if (!readers[i]->sniff(buf, len))
			continue;
		p = profile_new();
		if (readers[i]->read(path, buf, len, ro, p, e) < 0) {
			profile_free(p);
			return -1;
		}
		*out = p;
		if (rd)
			*rd = readers[i]->wraps ? readers[i]->wraps(buf, len) : readers[i];
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(readers); i++)
		sb_addf(&tried, "%s%s", i ? ", " : "", readers[i]->name);
	err_set(e, "%s: unknown profile format (tried: %s)", path, tried.buf);
	sb_release(&tried);
	return -1;
}

/* Maps a whole regular, non-empty file; *len is its size. */
static int map_file(const char *path, void **map, size_t *len, struct err *e)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		err_set(e, "cannot stat '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return err_set(e, "%s: is a directory, not a profile", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return err_set(e, "%s: empty file, not a profile", path);
	}
	/*
	 * Not read in at once: readers of big files fault in a window ahead
	 * and page out what they have parsed, so the file is never resident
	 * as a whole.
	 */
	*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*map == MAP_FAILED)
		return err_set(e, "cannot read '%s': %s", path, strerror(errno));
	*len = (size_t)st.st_size;
	return 0;
}

/* A profile file mapped, and the read options that say so. */
struct mapped {
	void *map;
	size_t len;
	struct read_options ro;
};

static int map_profile(const char *path, const struct read_options *ro, struct mapped *m,
		       struct err *e)
{
	if (map_file(path, &m->map, &m->len, e) < 0)
		return -1;
	memset(&m->ro, 0, sizeof(m->ro));
	if (ro)
		m->ro = *ro;
	m->ro.mapped = 1;
	return 0;
}

int reader_load(const char *path, const struct read_options *ro, struct profile **out,
		const struct reader **rd, struct err *e)
{
	struct mapped m;
	int r;

	*out = NULL;
	if (map_profile(path, ro, &m, e) < 0)
		return -1;
	r = reader_load_buffer(path, m.map, m.len, &m.ro, out, rd, e);
	munmap(m.map, m.len);
	return r;
}

int reader_add_buffer(const char *path, const unsigned char *buf, size_t len,
		      const struct read_options *ro, const struct reader *rd, struct profile *p,
		      struct err *e)
{
	if (!rd->add || !len || reader_for(buf, len) != rd)
		return 0;
	return rd->add(path, buf, len, ro, p, e);
}

int reader_add(const char *path, const struct read_options *ro, const struct reader *rd,
	       struct profile *p, struct err *e)
{
	struct mapped m;
	int r;

	if (!rd->add)
		return 0;
	if (map_profile(path, ro, &m, e) < 0)
		return -1;
	r = reader_add_buffer(path, m.map, m.len, &m.ro, rd, p, e);
	munmap(m.map, m.len);
	return r;
}

int reader_claims(const char *path)
{
	struct err e;
	void *map;
	size_t len, i;
	int claimed = 0;

	if (map_file(path, &map, &len, &e) < 0)
		return 0;
	for (i = 0; i < ARRAY_SIZE(readers) && !claimed; i++)
		claimed = readers[i]->sniff(map, len);
	munmap(map, len);
	return claimed;
}
