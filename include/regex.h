/* regex.h - regular expressions (PCRE2) for --focus, --ignore and friends. */
#ifndef PPROF_REGEX_H
#define PPROF_REGEX_H

#include <stddef.h>

#include "err.h"

/*
 * A compiled Perl-compatible expression, matched unanchored and
 * case-sensitively, as gperftools pprof matches its options' regexes.
 * Owned by the caller: regex_free releases it.
 */
struct regex;

/* Returns NULL with e set ("invalid --OPT regex 'RE': WHY at offset N"). */
struct regex *regex_compile(const char *pattern, const char *what, struct err *e);
int regex_match(const struct regex *r, const char *s, size_t n);
int regex_matchs(const struct regex *r, const char *s);
/*
 * The pattern, when none of its bytes is special (f_2175, Mutex): it
 * matches exactly the strings that hold it.  NULL otherwise.
 */
const char *regex_literal(const struct regex *r);
void regex_free(struct regex *r);

#endif
