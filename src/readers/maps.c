/* maps.c - the mapped-object list of legacy profiles: /proc/maps lines, cooked lines, build=. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "maps.h"
#include "strbuf.h"
#include "util.h"

static int parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int n = 0, d;

	for (; p < end && (d = hex_digit((unsigned char)*p)) >= 0; p++) {
		if (++n > 16)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *skip_field(const char *p, const char *end)
{
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static int is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Copies path into sb with "$build" (followed by a non-word char) replaced. */
static void expand_build(struct strbuf *sb, const char *path, size_t n, const char *build)
{
	size_t i = 0;

	sb_reset(sb);
	while (i < n) {
		if (n - i >= 6 && !memcmp(path + i, "$build", 6) &&
		    (i + 6 == n || !is_word_char(path[i + 6]))) {
			sb_adds(sb, build);
			i += 6;
		} else {
			sb_addc(sb, path[i++]);
		}
	}
}

/*
 * One line of the mapped-object list: "build=PATH", a /proc/maps line, or a
 * cooked "start-end: path" line.  Only executable mappings with a path enter
 * the model; other lines are ignored, as the format asks.
 */
static int parse_map_line(struct profile *p, const char *line, const char *end,
			  struct strbuf *build, struct strbuf *path)
{
	const char *s = skip_space(line, end), *perm, *f;
	uint64_t start, limit, offset = 0, major = 0, minor = 0, inode = 0;
	struct mapping *m;

	if (end - s >= 6 && !memcmp(s, "build=", 6)) {
		if (memchr(s, '\0', (size_t)(end - s)))
			goto bad;
		sb_reset(build);
		sb_add(build, s + 6, (size_t)(end - s - 6));
		return 0;
	}
	if (parse_hex(&s, end, &start) < 0 || s >= end || *s != '-') {
		return 0;
	}
	s++;
	if (parse_hex(&s, end, &limit) < 0 || s >= end)
		goto bad;
	if (*s == ':') {
		/* Cooked: "start-end: path". */
		f = skip_space(s + 1, end);
	} else {
		s = skip_space(s, end);
		perm = s;
		s = skip_field(s, end);
		if (s - perm != 4)
			goto bad;
		if (perm[2] != 'x')
			return 0;
		s = skip_space(s, end);
		if (parse_hex(&s, end, &offset) < 0)
			goto bad;
		/* Device "major:minor" and inode: which file it was, kept when they parse. */
		s = skip_space(s, end);
		f = s;
		if (parse_hex(&f, end, &major) < 0 || f >= end || *f != ':' ||
		    (f++, parse_hex(&f, end, &minor) < 0))
			major = minor = 0;
		s = skip_field(s, end);
		s = skip_space(s, end);
		f = s;
		while (f < end && *f >= '0' && *f <= '9' && inode <= (UINT64_MAX - 9) / 10)
			inode = inode * 10 + (uint64_t)(*f++ - '0');
		s = skip_field(s, end);
		f = skip_space(s, end);
	}
	while (end > f && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (f >= end)
		return 0;
	/* A path with a NUL in it would name another file (the part before it). */
	if (limit <= start || memchr(f, '\0', (size_t)(end - f)))
		goto bad;
	expand_build(path, f, (size_t)(end - f), build->buf);
	/* "$build" with no build= line names nothing. */
	if (!path->len)
		return 0;
	m = profile_add_mapping(p, start, limit, offset, path->buf, "");
	if (major <= UINT32_MAX && minor <= UINT32_MAX) {
		m->device = makedev((unsigned)major, (unsigned)minor);
		m->inode = inode;
	}
	return 0;
bad:
	return -1;
}

/* The lines of text; with name, malformed ones are warned about, else the first ends the parse. */
static int parse_lines(struct profile *p, const char *name, const char *text, size_t len)
{
	struct strbuf build = STRBUF_INIT, path = STRBUF_INIT;
	const char *s, *end;
	unsigned lineno = 0;
	int ret = 0;

	if (!len)
		return 0;  /* text may be NULL then */
	s = text;
	end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		lineno++;
		if (parse_map_line(p, s, le, &build, &path) < 0) {
			ret = -1;
			if (!name)
				break;
			warnf("%s: ignoring malformed mapping line %u", name, lineno);
		}
		s = nl ? nl + 1 : end;
	}
	sb_release(&build);
	sb_release(&path);
	return ret;
}

void maps_parse(struct profile *p, const char *name, const char *text, size_t len)
{
	parse_lines(p, name, text, len);
}

int maps_parse_clean(struct profile *p, const char *text, size_t len)
{
	return parse_lines(p, NULL, text, len);
}
