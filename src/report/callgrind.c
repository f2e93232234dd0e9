/* callgrind.c - --callgrind: the call graph for kcachegrind and callgrind_annotate, as google-pprof writes it. */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "report.h"
#include "strbuf.h"
#include "symlist.h"
#include "util.h"

/*
 * google-pprof's entries, from the stacks after frame removal and focus: a
 * frame is "FILE:LINE:SHORT" (inline callees "...[inline]", unknown code
 * "??:0:unknown"), the leaf frame of each stack gets its value, and each
 * caller -> callee pair of frames the value of the call.  google-pprof
 * counts pairs only up to the stack's number of addresses less one, so it
 * loses the outermost call (and more with inline frames); we write every
 * pair, so that kcachegrind's inclusive costs add up.  Entries are sorted
 * by the caller's file, then line (then the whole entry, where
 * google-pprof's order is its hash's), and names longer than 3 bytes are
 * numbered on first use ("fn=(1) main", then "fn=(1)").
 */
struct call {
	const char *key;        /* "CALLER" or "CALLER -> CALLEE", in the arena */
	int64_t count;
	/* google-pprof's parse of the key. */
	const char *file, *fn, *cfile, *cfn;
	size_t file_len, fn_len, cfile_len, cfn_len;
	const char *line, *cline;
	size_t line_len, cline_len;
	int64_t line_no;
};

struct calls {
	struct arena arena;
	struct htab index;
	struct call *v;
	size_t n, cap;
};

static void add_call(struct calls *c, const char *key, int64_t count)
{
	uint64_t h = hash_bytes(key, strlen(key));
	size_t i;

	HTAB_FIND(&c->index, h, i, !strcmp(c->v[c->index.slot[i].idx - 1].key, key));
	if (c->index.slot[i].idx) {
		c->v[c->index.slot[i].idx - 1].count = sat_add(c->v[c->index.slot[i].idx - 1].count, count);
		return;
	}
	GROW(c->v, c->cap, c->n + 1);
	memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
	c->v[c->n].key = arena_strdup(&c->arena, key);
	c->v[c->n++].count = count;
	htab_insert(&c->index, i, h, (uint32_t)c->n);
}

/* The frames of a stack, leaf first, each innermost first within its address. */
static size_t stack_frames(const struct symlists *sl, const struct sample *s, struct strbuf **fr,
			   size_t *cap)
{
	size_t n = 0;
	uint32_t j, k;

	for (j = 0; j < s->nlocation; j++) {
		uint32_t id = sample_stack(s)[j], m = sl->nframe[id];

		size_t old = *cap;

		GROW(*fr, *cap, n + (m ? m : 1) + 1);
		if (*cap > old)
			memset(*fr + old, 0, (*cap - old) * sizeof(**fr));
		for (k = 0; k < (m ? m : 1); k++) {
			struct strbuf *b = &(*fr)[n++];

			if (!b->buf)
				sb_init(b);
			sb_reset(b);
			if (!m) {
				sb_adds(b, "??:0:unknown");
				continue;
			}
			{
				const struct symframe *f = &sl->frame[id][m - 1 - k];
				const char *file = f->fileline;

				if (!strcmp(file, "?") || !strcmp(file, ":0"))
					file = "??:0";
				sb_addf(b, "%s:%s%s", file, f->shrt, k < m - 1 ? "[inline]" : "");
			}
		}
	}
	return n;
}

/*
 * google-pprof's pattern ([^:]+):(\d+):([^ ]+)( -> ([^:]+):(\d+):(.+))?,
 * unanchored: the first place the caller part matches.
 */
static int parse_frame(const char *s, const char **file, size_t *fl, const char **line, size_t *ll,
		       const char **fn, size_t *fnl, const char **rest)
{
	const char *p;

	for (; *s; s++) {
		const char *c = strchr(s, ':'), *d;

		if (!c || c == s)
			continue;
		for (d = c + 1; *d >= '0' && *d <= '9'; d++)
			;
		if (d == c + 1 || *d != ':' || !d[1] || d[1] == ' ')
			continue;
		for (p = d + 1; *p && *p != ' '; p++)
			;
		*file = s, *fl = (size_t)(c - s);
		*line = c + 1, *ll = (size_t)(d - c - 1);
		*fn = d + 1, *fnl = (size_t)(p - d - 1);
		*rest = p;
		return 1;
	}
	return 0;
}

static void parse_call(struct call *c)
{
	const char *rest, *fn, *line, *crest;
	size_t fnl, ll;
	char *end;

	if (!parse_frame(c->key, &c->file, &c->file_len, &c->line, &c->line_len, &c->fn, &c->fn_len,
			 &rest))
		return;
	c->line_no = strtoll(c->line, &end, 10);
	/* The callee part: " -> " then FILE:LINE:NAME, the name to the end. */
	if (strncmp(rest, " -> ", 4) || !parse_frame(rest + 4, &c->cfile, &c->cfile_len, &line, &ll,
						      &fn, &fnl, &crest) || c->cfile != rest + 4)
		return;
	c->cline = line, c->cline_len = ll;
	c->cfn = fn, c->cfn_len = strlen(fn);
}

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	size_t n = x->file_len < y->file_len ? x->file_len : y->file_len;
	int r = x->file && y->file ? memcmp(x->file, y->file, n) : 0;

	if (r)
		return r;
	if (x->file_len != y->file_len)
		return x->file_len < y->file_len ? -1 : 1;
	if (x->line_no != y->line_no)
		return x->line_no < y->line_no ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Writes "KEY=VALUE", numbering values longer than 3 bytes on first use. */
static void compressed(FILE *out, const char *key, const char *v, size_t n, struct calls *names)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t h;
	size_t i;

	if (n <= 3) {
		fprintf(out, "%s=%.*s\n", key, (int)n, v);
		return;
	}
	sb_add(&sb, v, n);
	h = hash_bytes(sb.buf, sb.len);
	HTAB_FIND(&names->index, h, i, !strcmp(names->v[names->index.slot[i].idx - 1].key, sb.buf));
	if (names->index.slot[i].idx) {
		fprintf(out, "%s=(%u)\n", key, names->index.slot[i].idx);
	} else {
		add_call(names, sb.buf, 0);
		fprintf(out, "%s=(%zu) %s\n", key, names->n, sb.buf);
	}
	sb_release(&sb);
}

static void print_calls(FILE *out, struct calls *c, int64_t scale)
{
	struct calls files = { 0 }, fns = { 0 };
	size_t i;

	arena_init(&files.arena);
	arena_init(&fns.arena);
	htab_init(&files.index, 64);
	htab_init(&fns.index, 64);
	for (i = 0; i < c->n; i++)
		parse_call(&c->v[i]);
	if (c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), cmp_call);
	fputs("events: Hits\n\n", out);
	for (i = 0; i < c->n; i++) {
		const struct call *k = &c->v[i];
		long long count = (long long)(k->count / scale);

		compressed(out, "fl", k->file ? k->file : "", k->file_len, &files);
		compressed(out, "fn", k->fn ? k->fn : "", k->fn_len, &fns);
		if (k->cfile) {
			compressed(out, "cfl", k->cfile, k->cfile_len, &files);
			compressed(out, "cfn", k->cfn, k->cfn_len, &fns);
			fprintf(out, "calls=%lld %.*s\n", count, (int)k->cline_len, k->cline);
		}
		fprintf(out, "%.*s %lld\n\n", (int)k->line_len, k->line ? k->line : "", count);
	}
	free(files.v);
	free(fns.v);
	htab_release(&files.index);
	htab_release(&fns.index);
	arena_release(&files.arena);
	arena_release(&fns.arena);
}

static int callgrind_write(FILE *out, const struct profile *p, const struct report_options *o,
			   struct err *e)
{
	const struct profile *q = report_profile(p, o, e);
	struct calls c = { 0 };
	struct strbuf *fr = NULL, key = STRBUF_INIT;
	struct symlists sl;
	size_t cap = 0, i, j, n;

	if (!q)
		return -1;
	arena_init(&c.arena);
	htab_init(&c.index, 1024);
	symlists_init(&sl, q, o->keep_templates);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];
		int64_t v = report_sample_value(q, s, o);

		if (!(n = stack_frames(&sl, s, &fr, &cap)))
			continue;
		add_call(&c, fr[0].buf, v);
		for (j = 1; j < n; j++) {
			sb_reset(&key);
			sb_addf(&key, "%s -> %s", fr[j].buf, fr[j - 1].buf);
			add_call(&c, key.buf, v);
		}
	}
	print_calls(out, &c, profile_value_scale(q));
	for (i = 0; i < cap; i++)
		if (fr[i].buf)
			sb_release(&fr[i]);
	free(fr);
	sb_release(&key);
	free(c.v);
	htab_release(&c.index);
	arena_release(&c.arena);
	symlists_release(&sl);
	report_profile_release(p, q);
	return 0;
}

const struct report_format report_callgrind_format = {
	.name = "callgrind",
	.help = "Write the call graph in callgrind format (kcachegrind, callgrind_annotate)",
	.write = callgrind_write,
};
