/* gofilter.c - Go pprof's hide, show, show_from, prune_from, tag filters and noinlines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gofilter.h"
#include "regex.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

/*
 * A tag filter as Go pprof compiles one (driver_focus.go): "KEY=VALUE" or
 * "VALUE".  A VALUE that is a numeric range ("32kb", "4mb:", ":64kb",
 * "12kb:64mb") selects numeric labels, compared in the range's unit;
 * otherwise VALUE is regexes separated by commas, of which with a KEY any
 * one must match one of the key's values, and without one each must match
 * some label written "key:value".
 */
struct tagfilter {
	char *key;               /* NULL: any key */
	struct regex **re;
	size_t nre;
	int numeric;
	int has_lo, has_hi;
	double lo, hi;
	const char *unit;        /* the range's unit, as units_scale names it */
};

void numunits_init(struct numunits *u, const struct profile *p)
{
	size_t i, j, k, cap = 0;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];

		for (j = 0; j < s->nlabel; j++) {
			const struct label *l = &sample_labels(s)[j];

			if (l->str[0])
				continue;
			for (k = 0; k < u->n && strcmp(u->key[k], l->key); k++)
				;
			if (k == u->n) {
				GROW(u->key, cap, u->n + 1);
				u->unit = xrealloc(u->unit, cap * sizeof(*u->unit));
				u->key[u->n] = l->key;
				u->unit[u->n++] = "";
			}
			if (!u->unit[k][0] && l->num_unit[0])
				u->unit[k] = l->num_unit;
		}
	}
	/* Keys without a unit: Go's guesses. */
	for (k = 0; k < u->n; k++)
		if (!u->unit[k][0])
			u->unit[k] = !strcmp(u->key[k], "alignment") || !strcmp(u->key[k], "request")
					     ? "bytes" : u->key[k];
}

void numunits_release(struct numunits *u)
{
	free(u->key);
	free(u->unit);
	memset(u, 0, sizeof(*u));
}

const char *numunits_get(const struct numunits *u, const char *key)
{
	size_t k;

	for (k = 0; k < u->n; k++)
		if (!strcmp(u->key[k], key))
			return u->unit[k];
	return key;
}

/* The next "[+-]?DIGITS[LETTERS]" in s from *pos: its span, or 0 when none is left. */
static int next_number(const char *s, size_t *pos, size_t *start, size_t *end)
{
	size_t i;

	for (i = *pos; s[i]; i++) {
		size_t j = i + ((s[i] == '+' || s[i] == '-') ? 1 : 0);

		if (s[j] < '0' || s[j] > '9')
			continue;
		while (s[j] >= '0' && s[j] <= '9')
			j++;
		while ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z'))
			j++;
		*start = i;
		*end = *pos = j;
		return 1;
	}
	return 0;
}

/* A number with its unit ("32kb") scaled to to_unit, as Go's measurement.Scale does. */
static int range_value(const char *s, size_t n, const char *to_unit, double *v, const char **unit)
{
	char num[64], u[64];
	size_t d = (s[0] == '+' || s[0] == '-') ? 1 : 0;
	long long x;
	char *end;

	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d >= sizeof(num) || n - d >= sizeof(u))
		return -1;
	memcpy(num, s, d);
	num[d] = 0;
	memcpy(u, s + d, n - d);
	u[n - d] = 0;
	errno = 0;
	x = strtoll(num, &end, 10);
	if (errno || *end)
		return -1;
	*v = units_scale(x, u, to_unit ? to_unit : u, unit);
	return 0;
}

/* Go's parseTagFilterRange: whether value is a range, which then fills f. */
static int parse_range(const char *value, struct tagfilter *f)
{
	size_t pos = 0, s1, e1, s2, e2, len = strlen(value);
	const char *u2;
	int two;

	if (!next_number(value, &pos, &s1, &e1))
		return 0;
	two = next_number(value, &pos, &s2, &e2);
	if (range_value(value + s1, e1 - s1, NULL, &f->lo, &f->unit) < 0)
		return 0;
	f->hi = f->lo;
	if (!two) {
		/* "N", "N:" or ":N" exactly. */
		if (s1 == 0 && e1 == len)
			f->has_lo = f->has_hi = 1;
		else if (s1 == 0 && e1 + 1 == len && value[e1] == ':')
			f->has_lo = 1;
		else if (s1 == 1 && e1 == len && value[0] == ':')
			f->has_hi = 1;
		else
			return 0;
		return f->numeric = 1;
	}
	if (s1 != 0 || value[e1] != ':' || s2 != e1 + 1 || e2 != len)
		return 0;
	if (range_value(value + s2, e2 - s2, f->unit, &f->hi, &u2) < 0 || strcmp(u2, f->unit))
		return 0;
	f->has_lo = f->has_hi = 1;
	return f->numeric = 1;
}

static void tagfilter_free(struct tagfilter *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nre; i++)
		regex_free(f->re[i]);
	free(f->re);
	free(f->key);
	free(f);
}

static struct tagfilter *tagfilter_new(const char *spec, const char *what, struct err *e)
{
	struct tagfilter *f = xcalloc(1, sizeof(*f));
	const char *eq = strchr(spec, '='), *value = eq ? eq + 1 : spec;
	char *copy, *save = NULL, *tok;
	size_t cap = 0;

	if (eq)
		f->key = strndup(spec, (size_t)(eq - spec));
	if (parse_range(value, f))
		return f;
	copy = xstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		GROW(f->re, cap, f->nre + 1);
		if (!(f->re[f->nre] = regex_compile(tok, what, e))) {
			free(copy);
			tagfilter_free(f);
			return NULL;
		}
		f->nre++;
	}
	free(copy);
	return f;
}

static int numeric_match(const struct tagfilter *f, const struct label *l, const char *unit)
{
	const char *su;
	double v = units_scale(l->num, unit, f->unit, &su);

	return !strcmp(su, f->unit) && (!f->has_lo || v >= f->lo) && (!f->has_hi || v <= f->hi);
}

/* Whether some string label "key:value" (any key) matches r. */
static int any_label_matches(const struct sample *s, const struct regex *r, struct strbuf *sb)
{
	uint32_t j;

	for (j = 0; j < s->nlabel; j++) {
		if (!sample_labels(s)[j].str[0])
			continue;
		sb_reset(sb);
		sb_addf(sb, "%s:%s", sample_labels(s)[j].key, sample_labels(s)[j].str);
		if (regex_matchs(r, sb->buf))
			return 1;
	}
	return 0;
}

static int tagfilter_match(const struct tagfilter *f, const struct sample *s,
			   const struct numunits *u, struct strbuf *sb)
{
	uint32_t j;
	size_t k;

	if (f->numeric) {
		for (j = 0; j < s->nlabel; j++) {
			const struct label *l = &sample_labels(s)[j];

			if (!l->str[0] && (!f->key || !strcmp(l->key, f->key)) &&
			    numeric_match(f, l, numunits_get(u, l->key)))
				return 1;
		}
		return 0;
	}
	if (!f->key) {
		for (k = 0; k < f->nre; k++)
			if (!any_label_matches(s, f->re[k], sb))
				return 0;
		return 1;
	}
	for (j = 0; j < s->nlabel; j++) {
		const struct label *l = &sample_labels(s)[j];

		if (!l->str[0] || strcmp(l->key, f->key))
			continue;
		for (k = 0; k < f->nre; k++)
			if (regex_matchs(f->re[k], l->str))
				return 1;
	}
	return 0;
}

int gofilter_sample(struct gofilter *f, const struct sample *s)
{
	struct strbuf sb = STRBUF_INIT;
	int focused = 1, ignored = 0;

	if (!f || (!f->tagfocus && !f->tagignore))
		return 1;
	if (f->tagfocus)
		f->tagfocus_hit |= focused = tagfilter_match(f->tagfocus, s, f->units, &sb);
	if (f->tagignore)
		f->tagignore_hit |= ignored = tagfilter_match(f->tagignore, s, f->units, &sb);
	sb_release(&sb);
	return focused && !ignored;
}

void gofilter_warn_tags(const struct gofilter *f, const struct report_options *o)
{
	if (!f || o->quiet)
		return;
	if (f->tagfocus && !f->tagfocus_hit)
		warnf("--tagfocus='%s' matches no sample", o->tagfocus);
	if (f->tagignore && !f->tagignore_hit)
		warnf("--tagignore='%s' matches no sample", o->tagignore);
}

int gofilter_diff_base(const struct sample *s)
{
	uint32_t j;

	for (j = 0; j < s->nlabel; j++)
		if (!strcmp(sample_labels(s)[j].key, "pprof::base") && !strcmp(sample_labels(s)[j].str, "true"))
			return 1;
	return 0;
}

/* Go's simplifyFunc: the name up to its first '(' that is not "(anonymous namespace)" or "operator()". */
static const char *simple_name(const char *name, struct strbuf *sb)
{
	size_t i = name[0] == '.' ? 1 : 0, start = i;

	while (name[i]) {
		if (!strncmp(name + i, "(anonymous namespace)", 21))
			i += 21;
		else if (!strncmp(name + i, "operator()", 10))
			i += 10;
		else if (name[i] == '(')
			break;
		else
			i++;
	}
	sb_reset(sb);
	sb_add(sb, name + start, i - start);
	return sb->buf;
}

static int line_matches(const struct regex *r, const struct line *ln)
{
	return ln->function &&
	       (regex_matchs(r, ln->function->name) || regex_matchs(r, ln->function->filename));
}

static int mapping_matches(const struct regex *r, const struct location *loc)
{
	return loc->mapping && regex_matchs(r, loc->mapping->file);
}

/* What a filter matched, for the warning about one that matched nothing. */
struct matched {
	int hide, show, show_from, tagfocus, tagignore;
};

/* hide, then show: which levels of loc stay (FilterSamplesByName). */
static void hide_show(struct gofilter *f, const struct location *loc, const struct regex *hide,
		      const struct regex *show, struct matched *m)
{
	uint8_t *keep = f->keep + f->off[loc->id - 1];
	uint32_t i, left = 0;

	if (hide) {
		int hit = mapping_matches(hide, loc);

		for (i = 0; i < loc->nline && !hit; i++)
			hit = line_matches(hide, &loc->line[i]);
		if (hit) {
			m->hide = 1;
			for (i = 0; i < (loc->nline ? loc->nline : 1); i++)
				keep[i] = !mapping_matches(hide, loc) && loc->nline &&
					  !line_matches(hide, &loc->line[i]);
		}
	}
	if (show && !mapping_matches(show, loc)) {
		if (!loc->nline)
			keep[0] = 0;
		for (i = 0; i < loc->nline; i++)
			if (loc->line[i].function && !line_matches(show, &loc->line[i]))
				keep[i] = 0;
	} else if (show && !loc->nline) {
		keep[0] = 0;
	}
	for (i = 0; i < (loc->nline ? loc->nline : 1); i++)
		left += keep[i];
	if (!left)
		f->flags[loc->id - 1] |= GF_HIDDEN;
	else if (show)
		m->show = 1;
}

/* show_from keeps the levels up to the outermost match; prune_from those from the innermost. */
static void from_filters(struct gofilter *f, const struct location *loc, const struct regex *sf,
			 const struct regex *pf, struct strbuf *sb, struct matched *m)
{
	uint8_t *keep = f->keep + f->off[loc->id - 1];
	int i, n = (int)loc->nline;

	if (sf && mapping_matches(sf, loc)) {
		f->flags[loc->id - 1] |= GF_SHOW_FROM;
		m->show_from = 1;
	} else if (sf) {
		for (i = n - 1; i >= 0; i--)
			if (keep[i] && line_matches(sf, &loc->line[i]))
				break;
		if (i >= 0) {
			f->flags[loc->id - 1] |= GF_SHOW_FROM;
			m->show_from = 1;
			for (i++; i < n; i++)
				keep[i] = 0;
		}
	}
	if (!pf)
		return;
	for (i = 0; i < n; i++) {
		const struct function *fn = loc->line[i].function;

		if (keep[i] && fn && fn->name[0] && regex_matchs(pf, simple_name(fn->name, sb)))
			break;
	}
	if (i < n) {
		f->flags[loc->id - 1] |= GF_PRUNE_FROM;
		while (--i >= 0)
			keep[i] = 0;
	}
}

/* --noinlines: the outermost level left stands for the location. */
static void no_inlines(struct gofilter *f, const struct location *loc)
{
	uint8_t *keep = f->keep + f->off[loc->id - 1];
	int i, outer = 0;

	for (i = (int)(loc->nline ? loc->nline : 1) - 1; i >= 0; i--) {
		if (keep[i] && !outer)
			outer = 1;
		else
			keep[i] = 0;
	}
}

static int compile(const char *re, const char *what, struct regex **out, struct err *e)
{
	*out = NULL;
	if (!re || !*re)
		return 0;
	return (*out = regex_compile(re, what, e)) ? 0 : -1;
}

static void warn_unmatched(const struct report_options *o, const struct matched *m)
{
	if (o->quiet)
		return;
	if (o->hide && *o->hide && !m->hide)
		warnf("--hide='%s' matches no function, file or mapping of the profile", o->hide);
	if (o->show && *o->show && !m->show)
		warnf("--show='%s' matches no function, file or mapping of the profile", o->show);
	if (o->show_from && *o->show_from && !m->show_from)
		warnf("--show_from='%s' matches no function, file or mapping of the profile",
		      o->show_from);
}

static int any_set(const struct report_options *o)
{
	const char *const v[] = { o->hide, o->show, o->show_from, o->prune_from, o->tagfocus,
				  o->tagignore };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i] && *v[i])
			return 1;
	return o->noinlines;
}

int gofilter_new(const struct profile *p, const struct report_options *o, struct gofilter **out,
		 struct err *e)
{
	struct regex *hide = NULL, *show = NULL, *sf = NULL, *pf = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct matched m = { 0 };
	struct gofilter *f;
	size_t i, nlevels = 0;
	int ret = -1;

	*out = NULL;
	if (!any_set(o))
		return 0;
	f = xcalloc(1, sizeof(*f));
	f->p = p;
	if (compile(o->hide, "--hide", &hide, e) < 0 || compile(o->show, "--show", &show, e) < 0 ||
	    compile(o->show_from, "--show_from", &sf, e) < 0 ||
	    compile(o->prune_from, "--prune_from", &pf, e) < 0)
		goto out;
	if (o->tagfocus && *o->tagfocus && !(f->tagfocus = tagfilter_new(o->tagfocus, "--tagfocus", e)))
		goto out;
	if (o->tagignore && *o->tagignore &&
	    !(f->tagignore = tagfilter_new(o->tagignore, "--tagignore", e)))
		goto out;
	f->units = xcalloc(1, sizeof(*f->units));
	numunits_init(f->units, p);
	f->show_from = sf != NULL;
	f->prune_from = pf != NULL;
	f->flags = xcalloc(p->nlocation + 1, sizeof(*f->flags));
	f->off = xcalloc(p->nlocation + 1, sizeof(*f->off));
	for (i = 0; i < p->nlocation; i++) {
		f->off[i] = (uint32_t)nlevels;
		nlevels += p->location[i]->nline ? p->location[i]->nline : 1;
	}
	f->keep = xmalloc(nlevels + 1);
	memset(f->keep, 1, nlevels + 1);
	for (i = 0; i < p->nlocation; i++) {
		const struct location *loc = p->location[i];

		hide_show(f, loc, hide, show, &m);
		from_filters(f, loc, sf, pf, &sb, &m);
		if (o->noinlines)
			no_inlines(f, loc);
	}
	warn_unmatched(o, &m);
	*out = f;
	ret = 0;
out:
	regex_free(hide);
	regex_free(show);
	regex_free(sf);
	regex_free(pf);
	sb_release(&sb);
	if (ret < 0)
		gofilter_free(f);
	return ret;
}

void gofilter_free(struct gofilter *f)
{
	if (!f)
		return;
	tagfilter_free(f->tagfocus);
	tagfilter_free(f->tagignore);
	if (f->units) {
		numunits_release(f->units);
		free(f->units);
	}
	free(f->flags);
	free(f->off);
	free(f->keep);
	free(f);
}
