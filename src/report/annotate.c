/* annotate.c - counts per address, the routines to show, and source files for listings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "regex.h"
#include "strbuf.h"
#include "util.h"

struct pc {
	uint64_t addr;
	int64_t flat, cum;
};

static uint64_t pc_key(const void *a)
{
	return ((const struct pc *)a)->addr;
}

static uint64_t u64_value(const void *a)
{
	return *(const uint64_t *)a;
}

static uint64_t range_start(const void *a)
{
	return ((const uint64_t *)a)[0];
}

/*
 * The address ranges (profile addresses, sorted, disjoint) of the routines
 * re names that hold any location of p: the only addresses a listing can
 * show.  *n is their number.
 */
static uint64_t (*listed_ranges(struct code *code, const struct regex *re, const struct profile *p,
				size_t *n))[2]
{
	uint64_t *addr = xcalloc(p->nlocation + 1, sizeof(*addr)), (*range)[2];
	struct routine *r;
	size_t i, k, na = 0, nr;

	for (i = 0; i < p->nlocation; i++)
		addr[i] = p->location[i]->address;
	sort_by_key(addr, p->nlocation, sizeof(*addr), u64_value);
	for (i = 0; i < p->nlocation; i++)
		if (!na || addr[i] != addr[na - 1])
			addr[na++] = addr[i];
	nr = code_routines(code, re, addr, na, &r);
	free(addr);
	range = xcalloc(nr + 1, sizeof(*range));
	for (i = 0; i < nr; i++) {
		range[i][0] = r[i].start + r[i].adjust;
		range[i][1] = r[i].end + r[i].adjust;
	}
	free(r);
	sort_by_key(range, nr, sizeof(*range), range_start);
	/* Routines of objects mapped twice, or nested: one range each where they meet. */
	for (i = k = 0; i < nr; i++) {
		if (k && range[i][0] <= range[k - 1][1]) {
			if (range[i][1] > range[k - 1][1])
				range[k - 1][1] = range[i][1];
			continue;
		}
		range[k][0] = range[i][0];
		range[k][1] = range[i][1];
		k++;
	}
	*n = k;
	return range;
}

int annotation_build(struct annotation *a, const struct profile *p, const struct report_options *o,
		     const char *what, struct err *e)
{
	struct report_options ro = *o;
	uint64_t (*range)[2];
	struct regex *re;
	struct pc *v;
	size_t i, n = 0;

	memset(a, 0, sizeof(*a));
	if (!(re = regex_compile(o->regex ? o->regex : "", what, e)))
		return -1;
	/* The prompt and the web UI list from objects opened once. */
	if (!(a->code = report_cache_code(o->cache, p, o->symbolize))) {
		a->code = code_open(p, o->symbolize);
		a->own_code = 1;
	}
	/* pprof counts raw addresses here, whatever the granularity: those of the routines shown. */
	ro.granularity = GRAN_PCS;
	ro.keep_stacks = 0;
	ro.pcs_only = 1;
	ro.pcs_range = range = listed_ranges(a->code, re, p, &ro.npcs_range);
	if (report_build(p, &ro, &a->r, e) < 0) {
		free(range);
		regex_free(re);
		if (a->own_code)
			code_close(a->code);
		memset(a, 0, sizeof(*a));
		return -1;
	}
	free(range);
	v = xcalloc(a->r.nentry + 1, sizeof(*v));
	/* Entry 0 holds the other addresses. */
	for (i = 1; i < a->r.nentry; i++) {
		const struct entry *en = &a->r.entry[i];

		/* Entries of addresses only in stacks that focus or ignore dropped stay 0. */
		if (!en->flat && !en->cum)
			continue;
		v[n].addr = en->address;
		v[n].flat = en->flat;
		v[n].cum = en->cum;
		n++;
	}
	sort_by_key(v, n, sizeof(*v), pc_key);
	a->n = n;
	a->addr = xcalloc(n + 1, sizeof(*a->addr));
	a->flat = xcalloc(n + 1, sizeof(*a->flat));
	a->cum = xcalloc(n + 1, sizeof(*a->cum));
	for (i = 0; i < n; i++) {
		a->addr[i] = v[i].addr;
		a->flat[i] = v[i].flat;
		a->cum[i] = v[i].cum;
	}
	free(v);
	a->nroutine = code_routines(a->code, re, a->addr, a->n, &a->routine);
	regex_free(re);
	return 0;
}

void annotation_release(struct annotation *a)
{
	report_release(&a->r);
	free(a->addr);
	free(a->flat);
	free(a->cum);
	free(a->routine);
	if (a->own_code)
		code_close(a->code);
	memset(a, 0, sizeof(*a));
}

void annotation_sum(const struct annotation *a, uint64_t lo, uint64_t hi, int64_t *flat,
		    int64_t *cum)
{
	size_t l = u64_search_from(a->addr, a->n, lo);

	*flat = *cum = 0;
	for (; l < a->n && a->addr[l] < hi; l++) {
		*flat = sat_add(*flat, a->flat[l]);
		*cum = sat_add(*cum, a->cum[l]);
	}
}

void annotation_value(const struct annotation *a, int64_t v, char *buf, size_t n)
{
	if (v == 0)
		snprintf(buf, n, ".");
	else
		report_value(&a->r, v, buf, n);
}

const char *annotation_unit(const struct annotation *a)
{
	return !strcmp(a->r.style.unit, "s") ? "seconds" : a->r.style.unit;
}

/* ---- source files ---------------------------------------------------- */

/* Larger files are not source code anyone lists; reading stops there. */
#define MAX_SOURCE (64u << 20)

void sources_init(struct sources *s, const struct report_options *o)
{
	memset(s, 0, sizeof(*s));
	s->search = o->source_path;
	s->trim = o->trim_path;
	htab_init(&s->by_name, 16);
}

void sources_release(struct sources *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].text);
		free(s->v[i].line);
	}
	free(s->v);
	htab_release(&s->by_name);
	memset(s, 0, sizeof(*s));
}

/* Reads an open regular file whole and closes it; NULL with errno set on failure. */
static char *read_fd(int fd, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t k;

		if (n == cap) {
			if (cap >= MAX_SOURCE) {
				close(fd);
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int err = errno;

			close(fd);
			free(buf);
			errno = err;
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (!buf)
		buf = xmalloc(1);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *read_file(const char *path, size_t *len)
{
	return read_fd(open_regular(path), len);
}

static int has_prefix_dir(const char *path, const char *prefix, size_t n, size_t *skip)
{
	size_t m = n;

	while (m > 0 && prefix[m - 1] == '/')
		m--;
	if (strncmp(path, prefix, m) || path[m] != '/')
		return 0;
	*skip = m + 1;
	return 1;
}

/* Go pprof's trimPath: the part of name to look for. */
static const char *trim_name(const struct sources *s, const char *name)
{
	static const char *const builtin[] = { "/proc/self/cwd/./", "/proc/self/cwd/" };
	const char *p, *q;
	size_t skip, i;

	if (!s->trim || !*s->trim) {
		/* "/any/where/BASE/rest" for a search directory ".../BASE": "rest". */
		for (p = s->search; p && *p; p = *q ? q + 1 : q) {
			const char *base, *end, *hit;
			char want[4096];

			q = strchrnul(p, ':');
			for (end = q; end > p + 1 && end[-1] == '/'; end--)
				;
			for (base = end; base > p && base[-1] != '/'; base--)
				;
			if (end == base || end - base > (long)sizeof(want) - 3)
				continue;
			snprintf(want, sizeof(want), "/%.*s/", (int)(end - base), base);
			if ((hit = strstr(name, want)))
				return hit + strlen(want);
		}
	}
	for (p = s->trim; p && *p; p = *q ? q + 1 : q) {
		q = strchrnul(p, ':');
		if (q > p && has_prefix_dir(name, p, (size_t)(q - p), &skip))
			return name + skip;
	}
	for (i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strncmp(name, builtin[i], strlen(builtin[i])))
			return name + strlen(builtin[i]);
	return name;
}

/* Opens name as configured; returns the text or NULL with errno set. */
static char *find_source(const struct sources *s, const char *name, size_t *len)
{
	const char *rel, *p, *q;
	char *text;

	if ((!s->search || !*s->search) && (!s->trim || !*s->trim))
		return read_file(name, len);
	rel = trim_name(s, name);
	if (rel[0] == '/')
		return read_file(rel, len);
	for (p = s->search && *s->search ? s->search : "."; p; p = *q ? q + 1 : NULL) {
		struct strbuf dir = STRBUF_INIT;

		q = strchrnul(p, ':');
		sb_add(&dir, p, (size_t)(q - p));
		if (!dir.len)
			sb_adds(&dir, ".");
		/* The directory, then each of its parents, as Go's filepath.Dir goes up. */
		for (;;) {
			char *slash;

			/* The name is data: it must not lead out of the directory. */
			text = read_fd(open_beneath(dir.buf, rel), len);
			if (text) {
				sb_release(&dir);
				return text;
			}
			while (dir.len > 1 && dir.buf[dir.len - 1] == '/')
				dir.buf[--dir.len] = '\0';
			slash = strrchr(dir.buf, '/');
			if (!strcmp(dir.buf, "/") || !strcmp(dir.buf, "."))
				break;
			if (!slash) {
				sb_reset(&dir);
				sb_adds(&dir, ".");
			} else {
				dir.len = slash == dir.buf ? 1 : (size_t)(slash - dir.buf);
				dir.buf[dir.len] = '\0';
			}
		}
		sb_release(&dir);
	}
	errno = ENOENT;
	return NULL;
}

static void split_lines(struct source *src, size_t len)
{
	size_t cap = 0, i, w = 0;
	char *t = src->text, *start;

	/* pprof drops every carriage return (s/\r//g). */
	for (i = 0; i < len; i++)
		if (t[i] != '\r')
			t[w++] = t[i];
	t[w] = '\0';
	GROW(src->line, cap, 2);
	src->line[0] = NULL;
	src->nline = 0;
	for (start = t; *start || start < t + w;) {
		char *nl = memchr(start, '\n', (size_t)(t + w - start));

		GROW(src->line, cap, src->nline + 2);
		src->line[++src->nline] = start;
		if (!nl)
			break;
		*nl = '\0';
		start = nl + 1;
		if (start >= t + w)
			break;
	}
}

const struct source *sources_get(struct sources *s, const char *name)
{
	struct source *src;
	uint64_t h = hash_bytes(name, strlen(name));
	size_t i, len = 0;

	HTAB_FIND(&s->by_name, h, i, !strcmp(s->v[s->by_name.slot[i].idx - 1].name, name));
	if (s->by_name.slot[i].idx)
		return &s->v[s->by_name.slot[i].idx - 1];
	GROW(s->v, s->cap, s->n + 1);
	src = &s->v[s->n++];
	htab_insert(&s->by_name, i, h, (uint32_t)s->n);
	memset(src, 0, sizeof(*src));
	src->name = name;
	src->text = name[0] ? find_source(s, name, &len) : NULL;
	if (!src->text) {
		/* Said once per file; the listing goes on by line number. */
		if (name[0])
			fprintf(stderr, "%s: %s\n", name, strerror(errno));
		return src;
	}
	split_lines(src, len);
	return src;
}
