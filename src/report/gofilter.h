/* gofilter.h - Go pprof's frame and label filters, as report.c applies them to stacks (private). */
#ifndef PPROF_GOFILTER_H
#define PPROF_GOFILTER_H

#include <stdint.h>

#include "err.h"
#include "profile.h"
#include "report.h"

/*
 * Go pprof's --hide, --show, --show_from, --prune_from, --tagfocus,
 * --tagignore and --noinlines, decided once per location (which inline
 * levels it keeps) and once per sample (its labels).  A location without
 * lines has one level, its address.  Levels are numbered innermost first,
 * as in struct location.
 */
enum gofilter_flags {
	GF_HIDDEN = 1 << 0,     /* taken out of every stack: hide or show left no level */
	GF_SHOW_FROM = 1 << 1,  /* matches --show_from: its callers go */
	GF_PRUNE_FROM = 1 << 2, /* matches --prune_from: its callees go */
};

struct tagfilter;

/*
 * The units of a profile's numeric labels, per key, as Go pprof's
 * NumLabelUnits finds them: the first unit a label of the key gives, else
 * "bytes" for alignment and request, else the key itself.
 */
struct numunits {
	const char **key, **unit;
	size_t n;
};
void numunits_init(struct numunits *u, const struct profile *p);
const char *numunits_get(const struct numunits *u, const char *key);
void numunits_release(struct numunits *u);

struct gofilter {
	int show_from, prune_from; /* the options are set */
	int tagfocus_hit, tagignore_hit; /* some sample matched them */
	struct tagfilter *tagfocus, *tagignore;
	struct numunits *units;  /* numeric labels' units, for numeric tag filters */
	uint8_t *flags;          /* per location, by id - 1 */
	uint32_t *off;           /* per location: its first level in keep */
	uint8_t *keep;           /* per level: kept */
	const struct profile *p;
};

/*
 * Decides every location of p under o's filters; *f is NULL when o sets
 * none.  Warns (unless o->quiet) about a filter that matches nothing.
 * -1 with e set when a filter does not compile.
 */
int gofilter_new(const struct profile *p, const struct report_options *o, struct gofilter **f,
		 struct err *e);
void gofilter_free(struct gofilter *f);

/* Whether level i (innermost first) of loc is kept; f may be NULL. */
static inline int gofilter_keeps(const struct gofilter *f, const struct location *loc, int i)
{
	return !f || f->keep[f->off[loc->id - 1] + (uint32_t)i];
}

static inline unsigned gofilter_flags(const struct gofilter *f, const struct location *loc)
{
	return f ? f->flags[loc->id - 1] : 0;
}

/* Whether --tagfocus and --tagignore keep sample s; f may be NULL. */
int gofilter_sample(struct gofilter *f, const struct sample *s);
/* After the samples: warns (unless o->quiet) about a tag filter that matched none. */
void gofilter_warn_tags(const struct gofilter *f, const struct report_options *o);

/* Whether s is a --diff_base sample (label pprof::base=true, as Go pprof marks them). */
int gofilter_diff_base(const struct sample *s);

#endif
