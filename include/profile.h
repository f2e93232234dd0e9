/* profile.h - the one in-memory profile model, shaped like profile.proto. */
#ifndef PPROF_PROFILE_H
#define PPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/*
 * Invariants:
 *  - every string reachable from a profile is interned in it: equal strings
 *    are equal pointers, and "" is never NULL;
 *  - every object reachable from a profile lives in its arena (the pointer
 *    arrays below are the profile's own heap blocks) and is released by
 *    profile_free() only;
 *  - profile_location's locations are unique per address (a reader of
 *    symbolized input may add more at one address: profile_add_location);
 *    functions are unique per (name, system_name, filename, start_line,
 *    symbol_address);
 *  - samples are unique per location stack and label set: adding a stack
 *    (with labels) that exists adds its values to the existing sample;
 *  - every sample has nsample_type values.
 * Addresses in locations are already "inside the call": readers subtract 1
 * from return addresses, so symbolizers look addresses up as they are.
 */

struct value_type {
	const char *type;  /* "samples", "cpu", "seconds" */
	const char *unit;  /* "count", "nanoseconds" */
};

struct mapping {
	uint64_t id;        /* 1-based position in profile->mapping */
	uint64_t start, limit; /* [start, limit) in the profiled process */
	uint64_t offset;    /* file offset mapped at start */
	const char *file;   /* as recorded in the profile */
	const char *build_id;
	/*
	 * The file's device (makedev) and inode, where the format records them
	 * (/proc/self/maps text), else 0: how a stale program is noticed.
	 */
	uint64_t device, inode;
	unsigned has_functions : 1, has_filenames : 1, has_line_numbers : 1,
		has_inline_frames : 1;
};

struct function {
	uint64_t id;
	const char *name;        /* demangled: "ns::f(int)", "main" */
	const char *system_name; /* as in the object file: "_ZN2ns1fEi" */
	const char *filename;    /* "" when unknown */
	int64_t start_line;
	/*
	 * Address of the ELF symbol the name was taken from, within its object
	 * file, or NO_SYMBOL_ADDRESS when the name came from debug information.
	 * Reports use it to tell apart functions of equal name (gperftools
	 * pprof's "name<addr>").  Not part of profile.proto.
	 */
	uint64_t symbol_address;
};

#define NO_SYMBOL_ADDRESS UINT64_MAX

struct line {
	struct function *function;
	int64_t line;             /* 0 when unknown */
};

struct location {
	uint64_t id;              /* 1-based position in profile->location */
	struct mapping *mapping;  /* NULL when no mapping covers the address */
	uint64_t address;
	/* Inline chain, innermost first; NULL if nline 0.  May be another location's array. */
	struct line *line;
	uint32_t nline;
	/*
	 * With nline 0: whether symbolization was tried (its object was read
	 * and named nothing) or not (no object for the address).
	 */
	uint8_t tried;
	/* The linker folded this code into another function's (profile.proto). */
	uint8_t is_folded;
};

/*
 * A sample's annotation: key with a string value, or (str "") key with a
 * number, whose unit is num_unit ("" when unknown).
 */
struct label {
	const char *key;
	const char *str;
	int64_t num;
	const char *num_unit;
};

/*
 * The stack follows the header: nlocation location indexes (positions in
 * profile->location, id - 1), leaf first; read it with sample_stack or
 * sample_location.  Four bytes a frame instead of a pointer's eight: the
 * samples are most of a big profile's memory.  The nsample_type values
 * follow the stack, 8-byte aligned (sample_value); the labels precede the
 * header (sample_labels).
 */
struct sample {
	uint32_t nlocation;
	uint32_t nlabel;
};

struct strtab;
struct sample_blocks;

struct profile {
	struct arena arena;
	/*
	 * Samples and their stacks live in blocks of their own (profile.c), so
	 * that a reader may add samples on one thread (struct sample_queue)
	 * while it creates locations on another.
	 */
	struct sample_blocks *sample_blocks;
	struct strtab *strings;

	struct value_type *sample_type;
	size_t nsample_type;
	struct value_type period_type;
	int64_t period;
	int64_t time_nanos, duration_nanos;
	const char **comment;
	size_t ncomment;
	/* Regexes of whole function names to prune (""s when none), and the type shown first. */
	const char *drop_frames, *keep_frames;
	const char *default_sample_type;
	/* Bits per address in the profiled program (32 or 64). */
	unsigned address_bits;
	/*
	 * Values are fixed-point: a sample value v stands for v / value_scale
	 * of its unit.  0 (or 1) means whole numbers; estimates that keep
	 * fractions (sampled heap profiles unsampled as gperftools pprof does)
	 * use a power of two.  profile.proto holds whole numbers: its writer
	 * truncates.
	 */
	int64_t value_scale;

	struct mapping **mapping;
	size_t nmapping;
	struct location **location;
	size_t nlocation;
	/* Whether some address has more than one location (profile_add_location made it). */
	int shared_addresses;
	struct function **function;
	size_t nfunction;
	struct sample **sample;
	size_t nsample;

	/* Private indexes. */
	size_t cap_mapping, cap_location, cap_function, cap_sample, cap_comment;
	struct profile_index *index;
};

/* A sample's stack: indexes into p->location, leaf first. */
static inline const uint32_t *sample_stack(const struct sample *s)
{
	return (const uint32_t *)(s + 1);
}

/*
 * The sample's labels, just before it; NULL when it has none.  Sorted as
 * Go orders them: string labels by key, then numeric ones by key; labels
 * of one key keep their order.
 */
static inline const struct label *sample_labels(const struct sample *s)
{
	return s->nlabel ? (const struct label *)s - s->nlabel : NULL;
}

/* The sample's values, after its stack. */
static inline int64_t *sample_value(const struct sample *s)
{
	return (int64_t *)((char *)s + ((sizeof(*s) + s->nlocation * sizeof(uint32_t) + 7) &
					~(size_t)7));
}

/* The location of a sample's frame j (0: the leaf). */
static inline struct location *sample_location(const struct profile *p, const struct sample *s,
					       size_t j)
{
	return p->location[sample_stack(s)[j]];
}

/* What p's values are divided by to be in their unit: value_scale, or 1. */
static inline int64_t profile_value_scale(const struct profile *p)
{
	return p->value_scale > 1 ? p->value_scale : 1;
}

struct profile *profile_new(void);
void profile_free(struct profile *p);

/* Interns n bytes at s (need not be NUL-terminated). */
const char *profile_intern_n(struct profile *p, const char *s, size_t n);
const char *profile_intern(struct profile *p, const char *s);

/* Sets the sample types from alternating type, unit strings. */
void profile_set_sample_types(struct profile *p, size_t n, const char *const *type_unit);
void profile_add_comment(struct profile *p, const char *text);

struct mapping *profile_add_mapping(struct profile *p, uint64_t start, uint64_t limit,
				    uint64_t offset, const char *file, const char *build_id);
/*
 * The mapping containing addr, or NULL.  On overlap the one starting last
 * wins; among equal starts, the one added first.
 */
struct mapping *profile_find_mapping(const struct profile *p, uint64_t addr);

/* Finds or creates the location of addr (mapping chosen by address). */
struct location *profile_location(struct profile *p, uint64_t addr);
/*
 * Creates a location at addr in mapping m (may be NULL) even when one
 * exists there; profile_location finds the first made at an address.
 */
struct location *profile_add_location(struct profile *p, struct mapping *m, uint64_t addr);

struct function *profile_function(struct profile *p, const char *name, const char *system_name,
				  const char *filename, int64_t start_line, uint64_t symbol_address);
/* Replaces loc's lines with a copy of n lines. */
void profile_set_lines(struct profile *p, struct location *loc, const struct line *line, size_t n);
/* Gives loc from's lines: the same array (no location's lines change in place). */
void profile_share_lines(struct location *loc, const struct location *from);

/*
 * Adds values (nsample_type of them) to the sample with this stack,
 * creating it if needed.  The location array is copied.
 */
struct sample *profile_add_sample(struct profile *p, struct location *const *loc, size_t n,
				  const int64_t *value);
/*
 * The same for a sample with labels (strings interned in p, any order):
 * its key is the stack and the label set.  The labels are copied.
 */
struct sample *profile_add_sample_labels(struct profile *p, struct location *const *loc, size_t n,
					 const int64_t *value, const struct label *label,
					 size_t nlabel);

/*
 * Adding many stacks of raw addresses fast, for readers of big profiles:
 * stack_builder_begin, then per record either stack_builder_add, or
 * stack_builder_reserve (room for n addresses, to be filled in place)
 * followed by stack_builder_commit; finally stack_builder_end, after which
 * every record is a sample of p.  Addresses are leaf first and already
 * inside the call; values are nsample_type of them.  Between begin and end
 * the caller must not add samples, functions or lines to p itself
 * (mappings are fine: locations are given theirs by address when they are
 * created, so a reader that learns its mappings last sets them afterwards).
 * The builder batches records so that their table lookups overlap and adds
 * the samples on a second thread.
 */
struct stack_builder;
struct stack_builder *stack_builder_begin(struct profile *p);
uint64_t *stack_builder_reserve(struct stack_builder *b, size_t n);
void stack_builder_commit(struct stack_builder *b, size_t n, const int64_t *value);
void stack_builder_add(struct stack_builder *b, const uint64_t *addr, size_t n,
		       const int64_t *value);
/*
 * A stack of locations p has already, as samples hold them (indexes,
 * id - 1), for readers that make their locations first.
 */
void stack_builder_add_indexes(struct stack_builder *b, const uint32_t *ids, size_t n,
			       const int64_t *value);
/*
 * How many records there will be in all, as far as the reader can tell
 * (from how far through its input it is): a big read sizes its indexes
 * from it and the first records (src/profile/internal.h).  Call it again
 * as the estimate improves.
 */
void stack_builder_expect(struct stack_builder *b, uint64_t records);
/*
 * Work of the reader's to do between batches of samples, on the thread
 * that adds them when there is one (so on another thread than the
 * reader's): follow(arg) after each batch, until stack_builder_end
 * returns.  Nothing the reader's own thread reads may change in it.
 * Set before the first batch of records is full, as the reader sets it
 * at its start: the other thread reads it without a lock.
 */
void stack_builder_follow(struct stack_builder *b, void (*follow)(void *), void *arg);
/*
 * End drops p's indexes by address and by stack (the next addition makes
 * them again); a reader that adds to a profile with more to come keeps them.
 */
void stack_builder_keep_indexes(struct stack_builder *b);
/* Finishes (NULL is fine) and frees b. */
void stack_builder_end(struct stack_builder *b);

/*
 * A new profile with p's sample types, period, times, comments, frame
 * regexes and mappings (in the same order, so with the same ids), and no
 * samples or locations.
 */
struct profile *profile_new_like(const struct profile *p);

/* Gives dst's location d copies of the lines of l, a location of another profile. */
void profile_copy_lines(struct profile *dst, struct location *d, const struct location *l);

/*
 * Adds every sample of src, multiplied by scale (1, or -1 for a base
 * profile), to dst.  Sample types must agree in number; values of another
 * value_scale are converted to the finer of the two.  Addresses are
 * matched through the mappings: an address in a src mapping of the same
 * file, offset and size as a dst mapping is moved by the distance between
 * the two (runs of one program under address-space randomization load it
 * elsewhere); src mappings dst lacks are added behind dst's own.
 * Lines src locations have come along to dst locations that have none, and
 * labels are kept.
 */
void profile_merge(struct profile *dst, const struct profile *src, int64_t scale);
/*
 * The same, each sample of src entering with one more label, key=str
 * (after its own): Go pprof's --diff_base marks its base's samples so.
 */
void profile_merge_labeled(struct profile *dst, const struct profile *src, int64_t scale,
			   const char *key, const char *str);

/*
 * Subtracts base from p per identical stack (gperftools pprof --base),
 * addresses matched as profile_merge matches them.  With drop_negative,
 * negative results become 0 and stacks only in base are not added;
 * otherwise those enter negated.
 */
void profile_subtract(struct profile *p, const struct profile *base, int drop_negative);

/*
 * Frees p's indexes by address and by stack, which only additions use:
 * once a profile is whole (summed, merged, subtracted), symbolization and
 * reports do without them.  A later addition makes them again.
 */
void profile_drop_indexes(struct profile *p);

#endif
