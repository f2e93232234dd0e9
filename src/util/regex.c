/* regex.c - PCRE2 regular expressions behind --focus, --ignore, --list and --disasm. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "regex.h"
#include "util.h"

/* PCRE2's JIT code reads memory memcheck takes for uninitialised: interpret there. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

struct regex {
	pcre2_code *code;
	pcre2_match_data *md;
	int jit;   /* compiled to machine code: matched without pcre2_match's checks */
	char *literal;  /* the pattern, when no byte of it is special */
};

struct regex *regex_compile(const char *pattern, const char *what, struct err *e)
{
	struct regex *r;
	int errcode;
	PCRE2_SIZE off;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode,
					 &off, NULL);

	if (!code) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		err_set(e, "invalid %s regex '%s': %s at offset %zu", what, pattern, (char *)msg,
			(size_t)off);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->jit = !RUNNING_ON_VALGRIND && pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
	r->code = code;
	r->md = pcre2_match_data_create_from_pattern(code, NULL);
	if (!strpbrk(pattern, "\\^$.|?*+()[]{}"))
		r->literal = xstrdup(pattern);
	return r;
}

int regex_match(const struct regex *r, const char *s, size_t n)
{
	if (r->jit)
		return pcre2_jit_match(r->code, (PCRE2_SPTR)s, n, 0, 0, r->md, NULL) >= 0;
	return pcre2_match(r->code, (PCRE2_SPTR)s, n, 0, 0, r->md, NULL) >= 0;
}

const char *regex_literal(const struct regex *r)
{
	return r->literal;
}

int regex_matchs(const struct regex *r, const char *s)
{
	return regex_match(r, s, strlen(s));
}

void regex_free(struct regex *r)
{
	if (!r)
		return;
	free(r->literal);
	pcre2_match_data_free(r->md);
	pcre2_code_free(r->code);
	free(r);
}
