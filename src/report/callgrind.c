/* callgrind.c - --callgrind: the call graph for kcachegrind and callgrind_annotate, as google-pprof writes it. */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "report.h"
#include "strbuf.h"
#include "strtab.h"
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

/*
 * Every location's frames as pprof names them, innermost first, numbered
 * so that equal names have one number: sample stacks become numbers, and
 * calls are counted by pairs of them before any text is made.
 */
struct frames {
	struct arena arena;
	struct strtab *names;   /* the numbers: strtab_intern_id's */
	uint32_t *first;        /* by location id: its first in id[], and the next's */
	uint32_t *id;
};

static void frames_init(struct frames *f, const struct symlists *sl, const struct profile *p)
{
	struct strbuf b = STRBUF_INIT;
	size_t i, n = 0;

	memset(f, 0, sizeof(*f));
	arena_init(&f->arena);
	f->names = strtab_new(&f->arena);
	f->first = xcalloc(p->nlocation + 1, sizeof(*f->first));
	for (i = 0; i < p->nlocation; i++)
		n += sl->nframe[i] ? sl->nframe[i] : 1;
	f->id = xcalloc(n + 1, sizeof(*f->id));
	for (i = 0, n = 0; i < p->nlocation; i++) {
		uint32_t k, m = sl->nframe[i];

		f->first[i] = (uint32_t)n;
		for (k = 0; k < (m ? m : 1); k++) {
			sb_reset(&b);
			if (!m) {
				sb_adds(&b, "??:0:unknown");
			} else {
				const struct symframe *fr = &sl->frame[i][m - 1 - k];
				const char *file = fr->fileline;

				if (!strcmp(file, "?") || !strcmp(file, ":0"))
					file = "??:0";
				sb_adds(&b, file);
				sb_addc(&b, ':');
				sb_adds(&b, fr->shrt);
				if (k < m - 1)
					sb_adds(&b, "[inline]");
			}
			strtab_intern_id(f->names, b.buf, b.len, &f->id[n++]);
		}
	}
	f->first[p->nlocation] = (uint32_t)n;
	sb_release(&b);
}

static void frames_release(struct frames *f)
{
	strtab_free(f->names);
	arena_release(&f->arena);
	free(f->first);
	free(f->id);
}

/* The frame numbers of a stack into *v, leaf first; how many. */
static size_t stack_frames(const struct frames *f, const struct sample *s, uint32_t **v,
			   size_t *cap)
{
	size_t n = 0;
	uint32_t j;

	for (j = 0; j < s->nlocation; j++) {
		uint32_t id = sample_stack(s)[j], lo = f->first[id], hi = f->first[id + 1];

		GROW(*v, *cap, n + (hi - lo) + 1);
		memcpy(*v + n, f->id + lo, (hi - lo) * sizeof(**v));
		n += hi - lo;
	}
	return n;
}

/* Counts by pair of frame numbers, caller in the high half; a leaf alone has LEAF there. */
#define LEAF 0xffffffffull

struct pairs {
	struct htab index;
	uint64_t *pair;
	int64_t *count;
	size_t n, cap, cap_count;
};

static void add_pair(struct pairs *c, uint64_t pair, int64_t count)
{
	uint64_t h = hash_u64(pair);
	size_t i;

	HTAB_FIND(&c->index, h, i, c->pair[c->index.slot[i].idx - 1] == pair);
	if (c->index.slot[i].idx) {
		int64_t *sum = &c->count[c->index.slot[i].idx - 1];

		*sum = sat_add(*sum, count);
		return;
	}
	GROW(c->pair, c->cap, c->n + 1);
	GROW(c->count, c->cap_count, c->n + 1);
	c->pair[c->n] = pair;
	c->count[c->n++] = count;
	htab_insert(&c->index, i, h, (uint32_t)c->n);
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

/* Adds "KEY=VALUE" to o, numbering values longer than 3 bytes on first use. */
static void compressed(struct strbuf *o, const char *key, const char *v, size_t n,
		       struct calls *names, struct strbuf *tmp)
{
	uint64_t h;
	size_t i;

	sb_adds(o, key);
	sb_addc(o, '=');
	if (n <= 3) {
		sb_add(o, v, n);
		sb_addc(o, '\n');
		return;
	}
	sb_reset(tmp);
	sb_add(tmp, v, n);
	h = hash_bytes(tmp->buf, tmp->len);
	HTAB_FIND(&names->index, h, i,
		  !strcmp(names->v[names->index.slot[i].idx - 1].key, tmp->buf));
	sb_addc(o, '(');
	if (names->index.slot[i].idx) {
		sb_add_int(o, names->index.slot[i].idx);
		sb_adds(o, ")\n");
		return;
	}
	add_call(names, tmp->buf, 0);
	sb_add_int(o, (int64_t)names->n);
	sb_adds(o, ") ");
	sb_adds(o, tmp->buf);
	sb_addc(o, '\n');
}

static void print_calls(FILE *out, struct calls *c, int64_t scale)
{
	struct calls files = { 0 }, fns = { 0 };
	struct strbuf o = STRBUF_INIT, tmp = STRBUF_INIT;
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
		int64_t count = k->count / scale;

		sb_reset(&o);
		compressed(&o, "fl", k->file ? k->file : "", k->file_len, &files, &tmp);
		compressed(&o, "fn", k->fn ? k->fn : "", k->fn_len, &fns, &tmp);
		if (k->cfile) {
			compressed(&o, "cfl", k->cfile, k->cfile_len, &files, &tmp);
			compressed(&o, "cfn", k->cfn, k->cfn_len, &fns, &tmp);
			sb_adds(&o, "calls=");
			sb_add_int(&o, count);
			sb_addc(&o, ' ');
			sb_add(&o, k->cline, k->cline_len);
			sb_addc(&o, '\n');
		}
		if (k->line)
			sb_add(&o, k->line, k->line_len);
		sb_addc(&o, ' ');
		sb_add_int(&o, count);
		sb_adds(&o, "\n\n");
		fwrite(o.buf, 1, o.len, out);
	}
	sb_release(&o);
	sb_release(&tmp);
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
	struct pairs pc = { 0 };
	struct frames f;
	struct strbuf key = STRBUF_INIT;
	struct symlists sl;
	uint32_t *fr = NULL;
	size_t cap = 0, i, j, n;

	if (!q)
		return -1;
	symlists_init(&sl, q, o->keep_templates);
	frames_init(&f, &sl, q);
	htab_init(&pc.index, 1024);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];
		int64_t v = report_sample_value(q, s, o);

		if (!(n = stack_frames(&f, s, &fr, &cap)))
			continue;
		add_pair(&pc, LEAF << 32 | fr[0], v);
		for (j = 1; j < n; j++)
			add_pair(&pc, (uint64_t)fr[j] << 32 | fr[j - 1], v);
	}
	/* The entries as pprof keys them; names that make one key (in theory) add up. */
	arena_init(&c.arena);
	htab_init(&c.index, pc.n + 16);
	for (i = 0; i < pc.n; i++) {
		uint32_t caller = (uint32_t)(pc.pair[i] >> 32), callee = (uint32_t)pc.pair[i];

		if (caller == LEAF) {
			add_call(&c, strtab_string(f.names, callee), pc.count[i]);
			continue;
		}
		sb_reset(&key);
		sb_adds(&key, strtab_string(f.names, caller));
		sb_adds(&key, " -> ");
		sb_adds(&key, strtab_string(f.names, callee));
		add_call(&c, key.buf, pc.count[i]);
	}
	print_calls(out, &c, profile_value_scale(q));
	free(fr);
	sb_release(&key);
	free(pc.pair);
	free(pc.count);
	htab_release(&pc.index);
	free(c.v);
	htab_release(&c.index);
	arena_release(&c.arena);
	frames_release(&f);
	symlists_release(&sl);
	report_profile_release(p, q);
	return 0;
}

const struct report_format report_callgrind_format = {
	.name = "callgrind",
	.help = "Write the call graph in callgrind format (kcachegrind, callgrind_annotate)",
	.write = callgrind_write,
};
