/* report.h - the report engine: frame removal, focus/ignore, granularity, and outputs. */
#ifndef PPROF_REPORT_H
#define PPROF_REPORT_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "err.h"
#include "profile.h"
#include "symbolize.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "signal handlers set atomic_int flags");

enum granularity {
	GRAN_FUNCTIONS,
	GRAN_LINES,
	GRAN_ADDRESSES,
	GRAN_FILES,
	/* Go pprof's filefunctions: one entry per function and source file. */
	GRAN_FILEFUNCTIONS,
	/* Raw addresses, one entry per location, no inline levels (--list, --disasm). */
	GRAN_PCS,
};

/*
 * How gperftools pprof's RemoveUninterestingFrames treats a kind of
 * profile (the reader row of the profile's format gives it): frames whose
 * short name is one of names or matches regex are taken out of every
 * stack.  With signal_frames (CPU profiles), names apply only without
 * --no-auto-signal-frm, and a second frame that every stack shares is
 * removed (pprof-behavior: the second-frame rule).
 */
struct frame_rules {
	const char *const *names;  /* NULL-terminated, or NULL */
	const char *regex;         /* matched unanchored, or NULL */
	int signal_frames;
};

/* How a report prints its values: value / divisor with decimals digits, then unit. */
struct value_style {
	const char *unit;          /* "samples", "s", "MB", "calls"; the sample type with measure */
	double divisor;
	int decimals;              /* 0: integers */
	/*
	 * Go pprof's way, when measure is set: values are amounts of measure
	 * ("nanoseconds", "bytes", "count") times multiplier, and print scaled
	 * to show ("ms", "MB"; "minimum" is chosen per report from its values
	 * when the report is built) with the unit appended: "1.33s", "29.50MB".
	 */
	const char *measure;
	int64_t multiplier;
	const char *show;
	/* Prints the integer part of value / divisor, as Perl's %d does (heap sizes in bytes). */
	int whole;
};

/*
 * What output formats keep from one report to the next (the Graphviz
 * context), owned by whoever runs the reports: zero it before the first,
 * report_env_release after the last.
 */
struct report_env {
	struct GVC_s *gvc;
};
void report_env_release(struct report_env *env);

struct report_options;
struct reader;
/* Writes a report's header lines (a format's metadata) before its Total line. */
typedef void report_header_fn(FILE *out, const struct profile *p, const struct report_options *o);
/* Chooses the value style of a report on sample value si of p. */
typedef void value_style_fn(const struct profile *p, int si, const struct report_options *o,
			    struct value_style *vs);
/*
 * Which sample value reports count (*index), and whether each sample's
 * value is divided by its first (*mean: a mean per event, --mean_delay).
 */
typedef void value_pick_fn(const struct profile *p, const struct report_options *o, int *index,
			   int *mean);

/* gperftools pprof's value options of heap and contention profiles. */
enum heap_value { HEAP_INUSE_SPACE, HEAP_INUSE_OBJECTS, HEAP_ALLOC_SPACE, HEAP_ALLOC_OBJECTS };
enum delay_value { DELAY_TOTAL, DELAY_CONTENTIONS, DELAY_MEAN };

struct report_options {
	enum granularity granularity;
	int cum;                 /* --cum: sort by cumulative */
	const char *focus;       /* regexes, NULL when unset */
	const char *ignore;
	int show_addresses;      /* --show_addresses */
	int keep_templates;      /* --no_strip_temp */
	int no_auto_signal_frames; /* --no-auto-signal-frm */
	int sample_index;        /* which value of the samples is reported */
	int quiet;               /* no stderr notes (frame removal) */
	int keep_stacks;         /* keep the reduced stacks (graphs need them) */
	/*
	 * With keep_stacks: stacks of the same chain and the same sign of count
	 * may be kept as one, where the first was, with the counts summed and
	 * the first's sample (when no sum of the profile can saturate).  For
	 * graphs, which add stacks up: not for labels or traces.
	 */
	int merge_stacks;
	/*
	 * GRAN_PCS with pcs_only: only the addresses in pcs_range (npcs_range
	 * sorted, disjoint [lo, hi) pairs) get entries of their own; every
	 * other address shares entry 0, which sums what they would have.
	 * Listings want a few routines' addresses of a profile of many.
	 */
	int pcs_only;
	const uint64_t (*pcs_range)[2];
	size_t npcs_range;
	/* For formats beyond text. */
	const char *program;     /* as named on the command line, or NULL */
	const char *regex;       /* the argument of --list=RE, --disasm=RE */
	const struct symbolize_options *symbolize; /* how the objects were found */
	const char *source_path; /* --source_path: directories to find sources in */
	const char *trim_path;   /* --trim_path: prefixes to drop from source paths */
	int intel_syntax;        /* --intel_syntax */
	int nodecount;           /* graph trimming: --nodecount, ... */
	double nodefraction, edgefraction;
	int maxdegree;
	/*
	 * When set and non-zero (the prompt's SIGINT handler sets it), a
	 * long report_build stops and fails with "interrupted".  Atomic: a
	 * signal handler writes it (lock-free, so async-signal-safe), the
	 * report's threads read it.
	 */
	atomic_int *interrupt;
	struct report_env *env;  /* for formats that keep resources (graphs) */
	/* From the reader row of the profile's format; NULL for the defaults. */
	const struct frame_rules *frames; /* none removed */
	value_style_fn *style;   /* report_default_style */
	report_header_fn *header; /* none */
	const char *unit;        /* --unit: Go pprof's output unit, or NULL */
	/*
	 * Go pprof's filters (gofilter.c), NULL when unset: frames whose
	 * function name or file matches hide are taken out, show keeps only
	 * matching ones, show_from drops the callers of the outermost match,
	 * prune_from the callees of the innermost; tagfocus and tagignore
	 * select samples by label ("KEY=RE,RE", "RE", numeric ranges).
	 */
	const char *hide, *show, *show_from, *prune_from;
	const char *tagfocus, *tagignore;
	int noinlines;           /* --noinlines: inlined frames count as their caller */
	int nodecount_set;       /* --nodecount was given: text reports show that many rows */
	/* Heap and contention profiles: gperftools pprof's value options. */
	int heap_value;          /* enum heap_value: --inuse_space, ... */
	int delay_value;         /* enum delay_value: --total_delay, ... */
	int show_bytes;          /* --show_bytes: heap sizes in bytes, not MB */
	int sample_index_set;    /* --sample_index was given: it wins over those */
	int heapcheck;           /* --heapcheck: graphs mark nodes with a flat value */
	int stacks;              /* --stacks: text reports list each stack first */
	int gv_scale;            /* --scale: gv's */
	/* From the reader row; NULL for the defaults. */
	value_pick_fn *pick;     /* --sample_index's value */
	report_header_fn *leaks; /* nothing */
	const struct reader *source; /* the row itself (--raw writes its name) */
	/*
	 * NULL, or what the reports of one profile share (report_cache_new):
	 * the prompt's.  Reports of other profiles ignore it.
	 */
	struct report_cache *cache;
	/* NULL, or report_loc_sums_start's of the profile: reports with a cache use them. */
	struct loc_sums *loc_sums;
};

/*
 * What every report of p reads and no setting changes, kept from one
 * report to the next: each sample's values and their totals, each
 * location's outermost function.  p must outlive the cache and not change
 * while it lives; one report at a time uses it.
 */
struct report_cache *report_cache_new(const struct profile *p);
void report_cache_free(struct report_cache *c);

/*
 * Each location's sums of the values (o's choice) of the stacks through
 * it, added up on a thread of their own from now on: p's samples must not
 * change until report_loc_sums_free, which waits for the thread (its
 * locations and functions may).  Reports with a cache take the values of
 * a report by line or by file and function without filters from them
 * instead of the stacks, after a report by function without filters, and
 * the first takes each sample's value and their totals.  NULL when no
 * thread could be started.
 */
struct loc_sums *report_loc_sums_start(const struct profile *p, const struct report_options *o);
/*
 * p is symbolized, and its locations and functions do not change any more:
 * after the first report with a cache, the (function, line) numbers that
 * reports by line and focus matching use are made on another thread, beside
 * what comes next.  ls may be NULL.
 */
void report_loc_sums_symbolized(struct loc_sums *ls);
void report_loc_sums_free(struct loc_sums *ls);

/*
 * The objects behind c's profile for listings (code_open with o), opened
 * at the first and kept with the cache; NULL when c is NULL or another
 * profile's (the caller then opens its own).
 */
struct code;
struct code *report_cache_code(struct report_cache *c, const struct profile *p,
			       const struct symbolize_options *o);

/*
 * The style values get when the format says nothing: nanoseconds as
 * seconds with two decimals; a count other than the first sample type by
 * its type's name ("calls"); anything else as gperftools' integer samples.
 * With --unit, report_measured_style.
 */
value_style_fn report_default_style;
/*
 * Go pprof's style in --unit (else "minimum"); with --unit, a count with a
 * period of a known unit (CPU samples) is measured in the period's unit.
 */
value_style_fn report_measured_style;


/* One row of a report: a key at the chosen granularity. */
struct entry {
	const char *key;
	int64_t flat, cum;
	/*
	 * For keys that are bare addresses of symbolized locations: what pprof
	 * prints instead, "SHORT FILE:LINE" of the outermost frame; else NULL.
	 */
	const char *display;
	uint64_t address;        /* GRAN_PCS: the address */
	/*
	 * On a stack that focus and ignore kept: a row pprof's topN counts
	 * even when its values are zero (a heap site with nothing in use).
	 */
	int kept;
};

/*
 * A stack after reduction: entry indexes, leaf first, each at most once
 * (none, NULL, for stacks merged by merge_stacks).  chain holds the same
 * stack before de-duplication (every inline level of every frame, leaf
 * first): chain[i] calls chain[i - 1], so its adjacent pairs are the call
 * graph's edges, self-edges of recursion included.
 */
struct rstack {
	uint32_t *entry;
	uint32_t n;
	int64_t count;
	uint32_t *chain;
	uint32_t nchain;
	const struct sample *sample; /* the sample it came from (its labels) */
};

/*
 * What a report is made from.  All memory is the report's own (its arena and
 * arrays); strings may point into the profile, which must outlive it.
 */
struct report {
	struct arena arena;
	int64_t total;          /* the profile's total before frame removal and focus */
	int64_t local_total;    /* sum of flat values: the percentage base */
	int64_t focus_total;    /* sum over the stacks focus kept, before ignore */
	int64_t kept_total;     /* sum over the stacks focus and ignore kept */
	struct entry *entry;
	size_t nentry, cap_entry;
	struct rstack *stack;
	size_t nstack, cap_stack;
	struct value_style style; /* how values print (report_value) */
	struct entry_index *index;
	/*
	 * Go pprof's percentage base: the sum of |value| of all samples before
	 * any filter, or of the --diff_base samples alone when there are any
	 * (then also total and local_total).
	 */
	int64_t go_total;
	int diff;               /* the profile holds --diff_base samples */
};

/* Runs pprof's pipeline on a symbolized profile; p is not modified. */
int report_build(const struct profile *p, const struct report_options *o, struct report *r,
		 struct err *e);
void report_release(struct report *r);

/*
 * The profile as reports see it, for formats that write a profile (proto,
 * raw): p's samples that --focus and --ignore keep, after the reader's
 * frame rules took frames out (gperftools pprof's RemoveUninterestingFrames
 * and second-frame rule), with all their values, labels, and the
 * locations' lines.  That is p itself when nothing is taken out; else a
 * new profile.  Either way the caller hands it to report_profile_release.
 * NULL with e set on failure.
 */
const struct profile *report_profile(const struct profile *p, const struct report_options *o,
				     struct err *e);
/* Frees q, report_profile's answer for p, unless it is p itself. */
void report_profile_release(const struct profile *p, const struct profile *q);

/*
 * The value of sample s that reports count: the sample type that o->pick
 * chooses (else o->sample_index), divided by the first value for a mean;
 * in p's fixed-point unit (value_scale).
 */
int64_t report_sample_value(const struct profile *p, const struct sample *s,
			    const struct report_options *o);
/* The index of the sample type that reports count. */
int report_value_index(const struct profile *p, const struct report_options *o);

/*
 * The text report: "Total: N samples" (when N is not 0), then one row per
 * entry with a non-zero flat or cumulative value, sorted by flat (or cum)
 * descending and key ascending; limit > 0 stops after that many entries.
 */
void report_text(FILE *out, const struct report *r, const struct report_options *o, int limit);
/*
 * "After focusing on 'RE': N samples of T (P%)" (what is "focusing on" or
 * "ignoring"): how much of the total v is, as gperftools pprof's prompt
 * says it.
 */
void report_kept(FILE *out, const struct report *r, int64_t v, const char *what, const char *re);
/* The rows alone, without the Total line (the prompt prints its own). */
void report_text_rows(FILE *out, const struct report *r, const struct report_options *o,
		      int limit);

/* A value with its unit, as totals print: "341 samples", "1.99s". */
void report_amount(const struct report *r, int64_t v, char *buf, size_t n);
/* A value as reports print it, in the report's style. */
void report_value(const struct report *r, int64_t v, char *buf, size_t n);
/* With a measured style: v as an amount of vs->measure (times the multiplier, fractions dropped). */
int64_t report_measure(const struct value_style *vs, int64_t v);

/*
 * Entries sorted as the text report lists them; caller frees the array.
 * From report_sorted_share_min entries on, each half is ranked on a
 * thread of its own and the halves merged.
 */
const struct entry **report_sorted(const struct report *r, int cum);
extern size_t report_sorted_share_min;
/*
 * From this many locations on, the passes over all of them split them
 * between two threads: what every report reads of each, and the keys
 * --addresses composes.
 */
extern size_t report_key_share_min;
/* ... --addresses composing its keys this many locations at a time, in order. */
extern size_t report_key_chunk;
/* From this many samples on, two threads reduce them (below, a second one does not pay). */
extern size_t report_split_min;
/* ... handed out to them this many at a time, where the order of reduction does not matter. */
extern size_t report_chunk;

/*
 * An output format: its own file in src/report/ defines one, and one row
 * of the table in report_formats.c lists it; the command line (--NAME),
 * --help and the man page follow the table.
 */
struct report_format {
	const char *name;        /* "text": selected by --text */
	const char *arg;         /* argument name when the option takes one ("REGEX"), else NULL */
	const char *help;
	/* Writes the report of p to out (a memory stream); -1 with e set on failure. */
	int (*write)(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e);
	/* Shows the report in a viewer instead: nothing goes to stdout or -o. */
	int viewer;
	/* At the prompt: prints to the terminal (views), rather than writing a file. */
	int terminal;
	/* The extension of the prompt's files ("svg"), when not the name. */
	const char *ext;
	/* Reads the code of routines: symbolization keeps the object files for it. */
	int reads_code;
	/*
	 * By function, it shows no file or line: symbolization may name the
	 * frames without reading line tables (pipeline.c names_only).
	 */
	int by_names;
};

/* The default format and its Go name (text.c); the others are known by the table alone. */
extern const struct report_format report_text_format;
extern const struct report_format report_top_format;
/* The formats, NULL-terminated (formats.c). */
extern const struct report_format *const report_formats[];
const struct report_format *report_find_format(const char *name);

#endif
