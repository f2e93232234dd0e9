/* report.c - gperftools pprof's pipeline from a symbolized profile to keyed flat/cum counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "names.h"
#include "report.h"
#include "strbuf.h"
#include "strtab.h"
#include "util.h"

/*
 * What pprof knows of one address: its "symlist", the inline chain as
 * (short name, file:line, full name) triples, outermost first, and the
 * keys it contributes at the chosen granularity, innermost first.
 */
struct locinfo {
	int has_syms;          /* symbolization was tried (pprof has a symlist) */
	int nt;                /* triples */
	const char **shrt, **fileline, **full;
	uint32_t *key;
	int nkey;
	uint8_t uninteresting, focus, ignore;
};

struct entry_index {
	struct strtab *keys;
	uint32_t *slot;        /* 1-based entry indexes by key pointer */
	size_t mask, used;
	uint32_t *seen;        /* per entry: last stack that used it */
};

static const char *const cpu_skip[] = {
	"ProfileData::Add", "ProfileData::prof_handler", "CpuProfiler::prof_handler",
	"__FRAME_END__", "__pthread_sighandler", "__restore",
};

struct builder {
	const struct profile *p;
	const struct report_options *o;
	struct report *r;
	struct locinfo *li;
	struct strbuf sb, tmp;
	unsigned addr_digits;
	/* full name -> "short@addr" for names pprof finds ambiguous */
	struct strtab *overloaded_names;
	const char **over_full, **over_short;
	size_t nover, cap_over;
};

static const char *intern(struct builder *b, const char *s)
{
	return strtab_intern(b->r->index->keys, s, strlen(s));
}

static const char *addr_string(struct builder *b, uint64_t a)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%0*llx", (int)b->addr_digits, (unsigned long long)a);
	return intern(b, buf);
}

/* Builds the symlist of every location from its lines. */
static void build_symlists(struct builder *b)
{
	const struct profile *p = b->p;
	struct arena *a = &b->r->arena;
	size_t i;

	for (i = 0; i < p->nlocation; i++) {
		const struct location *loc = p->location[i];
		struct locinfo *li = &b->li[i];
		int j;

		li->has_syms = loc->nline > 0 || loc->tried;
		li->nt = loc->nline ? (int)loc->nline : 1;
		li->shrt = arena_alloc(a, li->nt * sizeof(char *));
		li->fileline = arena_alloc(a, li->nt * sizeof(char *));
		li->full = arena_alloc(a, li->nt * sizeof(char *));
		if (!loc->nline) {
			const char *as = addr_string(b, loc->address);

			li->shrt[0] = li->full[0] = li->has_syms ? intern(b, "??") : as;
			li->fileline[0] = li->has_syms ? intern(b, "??:0") : intern(b, "");
			continue;
		}
		/* Model lines are innermost first; symlists outermost first. */
		for (j = 0; j < li->nt; j++) {
			const struct line *ln = &loc->line[li->nt - 1 - j];
			const struct function *f = ln->function;

			sb_reset(&b->sb);
			sb_adds(&b->sb, f->name);
			if (f->symbol_address != NO_SYMBOL_ADDRESS)
				sb_addf(&b->sb, "<%016llx>", (unsigned long long)f->symbol_address);
			li->full[j] = intern(b, b->sb.buf);
			short_function_name(li->full[j], b->o->keep_templates, &b->tmp);
			li->shrt[j] = intern(b, b->tmp.buf);
			sb_reset(&b->sb);
			sb_addf(&b->sb, "%s:%lld", f->filename[0] ? f->filename : "??", (long long)ln->line);
			li->fileline[j] = intern(b, b->sb.buf);
		}
	}
}

/*
 * pprof renames full names whose short name stands for several functions
 * (of different addresses) to "short@addr", judging by outermost frames.
 */
struct seen { const char *shrt, *full; int many; };

static void find_overloads(struct builder *b)
{
	const struct profile *p = b->p;
	struct seen *tab;
	size_t cap = 1, i, n = 0;

	while (cap < p->nlocation * 2 + 2)
		cap *= 2;
	tab = xcalloc(cap, sizeof(*tab));
	for (i = 0; i < p->nlocation; i++) {
		struct locinfo *li = &b->li[i];
		const char *full = li->full[0];
		size_t len = strlen(full), k;

		if (!li->has_syms || len < 3 || full[len - 1] != '>' || !strchr(full, '<'))
			continue;
		for (k = hash_u64((uintptr_t)li->shrt[0]) & (cap - 1); tab[k].shrt && tab[k].shrt != li->shrt[0];
		     k = (k + 1) & (cap - 1))
			;
		if (!tab[k].shrt) {
			tab[k].shrt = li->shrt[0];
			tab[k].full = full;
			n++;
		} else if (tab[k].full != full) {
			tab[k].many = 1;
		}
	}
	for (i = 0; i < p->nlocation; i++) {
		struct locinfo *li = &b->li[i];
		const char *full = li->full[0], *lt;
		size_t k;

		if (!li->has_syms || !(lt = strrchr(full, '<')) || full[strlen(full) - 1] != '>')
			continue;
		for (k = hash_u64((uintptr_t)li->shrt[0]) & (cap - 1); tab[k].shrt && tab[k].shrt != li->shrt[0];
		     k = (k + 1) & (cap - 1))
			;
		if (!tab[k].shrt || !tab[k].many)
			continue;
		/* The map is keyed by full name; the first entry wins. */
		{
			size_t j;
			int dup = 0;

			for (j = 0; j < b->nover; j++)
				if (b->over_full[j] == full)
					dup = 1;
			if (dup)
				continue;
		}
		lt++;
		while (*lt == '0')
			lt++;
		sb_reset(&b->sb);
		sb_addf(&b->sb, "%s@%.*s", li->shrt[0], (int)(strlen(lt) - 1), lt);
		GROW(b->over_full, b->cap_over, b->nover + 1);
		b->over_short = xrealloc(b->over_short, b->cap_over * sizeof(*b->over_short));
		b->over_full[b->nover] = full;
		b->over_short[b->nover] = intern(b, b->sb.buf);
		b->nover++;
	}
	(void)n;
	free(tab);
}

static const char *overload_name(struct builder *b, const char *full)
{
	size_t j;

	for (j = 0; j < b->nover; j++)
		if (b->over_full[j] == full)
			return b->over_short[j];
	return NULL;
}

static uint32_t entry_for(struct builder *b, const char *key, const char *display)
{
	struct report *r = b->r;
	struct entry_index *ix = r->index;
	size_t i;

	for (i = hash_u64((uintptr_t)key) & ix->mask; ix->slot[i]; i = (i + 1) & ix->mask)
		if (r->entry[ix->slot[i] - 1].key == key)
			return ix->slot[i] - 1;
	GROW(r->entry, r->cap_entry, r->nentry + 1);
	r->entry[r->nentry].key = key;
	r->entry[r->nentry].flat = r->entry[r->nentry].cum = 0;
	r->entry[r->nentry].display = display;
	ix->slot[i] = (uint32_t)++r->nentry;
	if (++ix->used * 2 > ix->mask + 1) {
		size_t cap = (ix->mask + 1) * 2, k;
		uint32_t *n = xcalloc(cap, sizeof(*n));

		for (k = 0; k <= ix->mask; k++) {
			size_t j;

			if (!ix->slot[k])
				continue;
			for (j = hash_u64((uintptr_t)r->entry[ix->slot[k] - 1].key) & (cap - 1); n[j];
			     j = (j + 1) & (cap - 1))
				;
			n[j] = ix->slot[k];
		}
		free(ix->slot);
		ix->slot = n;
		ix->mask = cap - 1;
	}
	return (uint32_t)(r->nentry - 1);
}

/* The keys of one location at the granularity (pprof's TranslateStack). */
static void build_keys(struct builder *b, const struct location *loc, struct locinfo *li)
{
	const char *a = addr_string(b, loc->address);
	int j, n = 0;

	li->key = arena_alloc(&b->r->arena, li->nt * sizeof(*li->key));
	for (j = li->nt - 1; j >= 0; j--) {
		const char *func = overload_name(b, li->full[j]);
		const char *fl = li->fileline[j];
		const char *key;

		if (!func)
			func = li->shrt[j];
		sb_reset(&b->sb);
		sb_adds(&b->sb, func);
		if (j > 0)
			sb_adds(&b->sb, " (inline)");
		func = intern(b, b->sb.buf);
		sb_reset(&b->sb);
		switch (b->o->granularity) {
		case GRAN_ADDRESSES:
			sb_addf(&b->sb, "%s %s %s", a, func, fl);
			break;
		case GRAN_LINES:
			if (!strcmp(func, "??") && !strcmp(fl, "??:0"))
				sb_adds(&b->sb, a);
			else if (b->o->show_addresses)
				sb_addf(&b->sb, "%s %s (%s)", func, fl, a);
			else
				sb_addf(&b->sb, "%s %s", func, fl);
			break;
		case GRAN_FUNCTIONS:
			if (!strcmp(func, "??"))
				sb_adds(&b->sb, a);
			else if (b->o->show_addresses)
				sb_addf(&b->sb, "%s (%s)", func, a);
			else
				sb_adds(&b->sb, func);
			break;
		case GRAN_FILES:
			if (!strcmp(fl, "??:0") || !fl[0]) {
				sb_adds(&b->sb, a);
			} else {
				size_t len = strlen(fl), k = len;

				while (k > 0 && fl[k - 1] >= '0' && fl[k - 1] <= '9')
					k--;
				if (k < len && k > 0 && fl[k - 1] == ':')
					len = k - 1;
				sb_add(&b->sb, fl, len);
			}
			break;
		}
		key = intern(b, b->sb.buf);
		if (!key[0])
			continue;
		if (key == a && li->has_syms) {
			sb_reset(&b->sb);
			sb_addf(&b->sb, "%s %s", li->shrt[0], li->fileline[0]);
			li->key[n++] = entry_for(b, key, intern(b, b->sb.buf));
		} else {
			li->key[n++] = entry_for(b, key, NULL);
		}
	}
	li->nkey = n;
}

static int loc_matches(struct builder *b, const struct location *loc, const struct locinfo *li,
		       const struct regex *re)
{
	const char *a = addr_string(b, loc->address);
	int j;

	if (regex_matchs(re, a))
		return 1;
	if (!li->has_syms)
		return 0;
	for (j = 0; j < li->nt; j++)
		if (regex_matchs(re, li->shrt[j]) || regex_matchs(re, li->fileline[j]))
			return 1;
	return 0;
}

static int is_cpu_profile(const struct profile *p)
{
	return !strcmp(p->period_type.type, "cpu");
}

static void mark_uninteresting(struct builder *b)
{
	int cpu = is_cpu_profile(b->p) && !b->o->no_auto_signal_frames;
	size_t i, k;

	for (i = 0; i < b->p->nlocation; i++) {
		struct locinfo *li = &b->li[i];
		const char *s = li->shrt[0];

		if (!li->has_syms)
			continue;
		if (strstr(s, "NOMATCH"))
			li->uninteresting = 1;
		for (k = 0; cpu && k < ARRAY_SIZE(cpu_skip); k++)
			if (!strcmp(s, cpu_skip[k]))
				li->uninteresting = 1;
	}
}

/* A stack as pprof sees it after removing second frames: leaf, then loc[k..n). */
struct wstack {
	struct location *const *loc;
	uint32_t n, k;
	int64_t count;
};

static void remove_second_frames(struct builder *b, struct wstack *ws, size_t nws)
{
	for (;;) {
		const struct location *second = NULL;
		const struct locinfo *li;
		const char *name;
		size_t i;

		for (i = 0; i < nws; i++) {
			if (ws[i].n - ws[i].k + 1 < 2)
				return;
			if (!second)
				second = ws[i].loc[ws[i].k];
			else if (ws[i].loc[ws[i].k] != second)
				return;
		}
		if (!second)
			return;
		li = &b->li[second->id - 1];
		name = li->has_syms ? li->shrt[0] : addr_string(b, second->address);
		if (b->o->no_auto_signal_frames) {
			if (!b->o->quiet)
				fprintf(stderr, "All second stack frames are same: `%s'.\n"
					"Might be stack trace capturing bug.\n", name);
			return;
		}
		if (!b->o->quiet)
			fprintf(stderr, "Removing %s from all stack traces.\n", name);
		for (i = 0; i < nws; i++) {
			ws[i].k++;
			if (ws[i].n - ws[i].k + 1 > 2 &&
			    ws[i].loc[ws[i].k]->address + 1 == ws[i].loc[0]->address)
				ws[i].k++;
		}
	}
}

int report_build(const struct profile *p, const struct report_options *o, struct report *r,
		 struct err *e)
{
	struct builder b = { .p = p, .o = o, .r = r };
	struct regex *focus = NULL, *ignore = NULL;
	struct wstack *ws = NULL;
	size_t nws = 0, i;
	uint32_t *path = NULL;
	size_t cap_path = 0;
	int si = o->sample_index;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	arena_init(&r->arena);
	r->index = xcalloc(1, sizeof(*r->index));
	r->index->keys = strtab_new(&r->arena);
	r->index->mask = 1023;
	r->index->slot = xcalloc(r->index->mask + 1, sizeof(*r->index->slot));
	r->unit = "samples";
	b.addr_digits = p->address_bits == 32 ? 8 : 16;
	if (si < 0 || (size_t)si >= p->nsample_type)
		si = 0;
	if (o->focus && o->focus[0] && !(focus = regex_compile(o->focus, "--focus", e)))
		goto out;
	if (o->ignore && o->ignore[0] && !(ignore = regex_compile(o->ignore, "--ignore", e)))
		goto out;

	for (i = 0; i < p->nsample; i++)
		r->total += p->sample[i]->value[si];
	b.li = xcalloc(p->nlocation + 1, sizeof(*b.li));
	build_symlists(&b);
	find_overloads(&b);
	mark_uninteresting(&b);
	for (i = 0; i < p->nlocation; i++) {
		struct locinfo *li = &b.li[i];

		if (focus)
			li->focus = (uint8_t)loc_matches(&b, p->location[i], li, focus);
		if (ignore)
			li->ignore = (uint8_t)loc_matches(&b, p->location[i], li, ignore);
	}

	ws = xcalloc(p->nsample + 1, sizeof(*ws));
	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];

		if (!s->nlocation)
			continue;
		ws[nws].loc = s->location;
		ws[nws].n = s->nlocation;
		ws[nws].k = 1;
		ws[nws].count = s->value[si];
		nws++;
	}
	if (is_cpu_profile(p))
		remove_second_frames(&b, ws, nws);

	r->index->seen = NULL;
	for (i = 0; i < nws; i++) {
		struct wstack *w = &ws[i];
		uint32_t j, np = 0;
		int keep = !focus, drop = 0;

		for (j = 0; j <= w->n - w->k; j++) {
			const struct location *loc = j ? w->loc[w->k + j - 1] : w->loc[0];
			const struct locinfo *li = &b.li[loc->id - 1];

			if (li->uninteresting)
				continue;
			keep |= li->focus;
			drop |= li->ignore;
		}
		if (!keep || drop)
			continue;
		/* Reduce to keys, each once per stack. */
		for (j = 0; j <= w->n - w->k; j++) {
			const struct location *loc = j ? w->loc[w->k + j - 1] : w->loc[0];
			struct locinfo *li = &b.li[loc->id - 1];
			int k;

			if (li->uninteresting)
				continue;
			if (b.addr_digits == 16 && loc->address > 0x7fffffffffffffffULL)
				continue;
			if (!li->key)
				build_keys(&b, loc, li);
			for (k = 0; k < li->nkey; k++) {
				uint32_t id = li->key[k];

				if (r->nentry > cap_path) {
					size_t old = cap_path;

					GROW(path, cap_path, r->nentry);
					r->index->seen = xrealloc(r->index->seen, cap_path * sizeof(*r->index->seen));
					memset(r->index->seen + old, 0, (cap_path - old) * sizeof(*r->index->seen));
				}
				if (r->index->seen[id] == i + 1)
					continue;
				r->index->seen[id] = (uint32_t)(i + 1);
				path[np++] = id;
			}
		}
		if (!np)
			continue;
		r->entry[path[0]].flat += w->count;
		r->local_total += w->count;
		for (j = 0; j < np; j++)
			r->entry[path[j]].cum += w->count;
		if (o->keep_stacks) {
			struct rstack *rs;

			GROW(r->stack, r->cap_stack, r->nstack + 1);
			rs = &r->stack[r->nstack++];
			rs->n = np;
			rs->count = w->count;
			rs->entry = arena_memdup(&r->arena, path, np * sizeof(*path));
		}
	}
	ret = 0;
out:
	free(path);
	free(ws);
	free(b.li);
	free(b.over_full);
	free(b.over_short);
	sb_release(&b.sb);
	sb_release(&b.tmp);
	regex_free(focus);
	regex_free(ignore);
	return ret;
}

void report_release(struct report *r)
{
	if (r->index) {
		strtab_free(r->index->keys);
		free(r->index->slot);
		free(r->index->seen);
		free(r->index);
	}
	free(r->entry);
	free(r->stack);
	arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}
