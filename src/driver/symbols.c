/* symbols.c - --symbols PROGRAM: names of the addresses on standard input, as gperftools pprof prints them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "pipeline.h"
#include "reader.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

static int is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * pprof's query lines: the first "0x" and hex digits (any case) with a word
 * boundary on both sides.  *start and *len give the number as written.
 */
static int query(const char *s, size_t n, const char **start, size_t *len)
{
	size_t i, j;

	for (i = 0; i + 2 < n; i++) {
		if (s[i] != '0' || (s[i + 1] != 'x' && s[i + 1] != 'X') || (i && is_word(s[i - 1])))
			continue;
		for (j = i + 2; j < n && isxdigit((unsigned char)s[j]); j++)
			;
		if (j == i + 2 || (j < n && is_word(s[j])))
			continue;
		*start = s + i;
		*len = j - i;
		return 1;
	}
	return 0;
}

/*
 * pprof's key for a query (HexExtend): "0x" and leading zeros dropped,
 * zeros prepended to 16 digits.  Returns 1 with *addr set when the key is
 * a 64-bit address in lowercase hex; pprof names other keys "0x" + key.
 */
static int query_key(const char *s, size_t n, struct strbuf *key, uint64_t *addr)
{
	size_t i;

	if (n >= 2 && s[0] == '0' && s[1] == 'x')
		s += 2, n -= 2;
	while (n && *s == '0')
		s++, n--;
	sb_reset(key);
	for (i = n; i < 16; i++)
		sb_addc(key, '0');
	sb_add(key, s, n);
	if (key->len > 16)
		return 0;
	for (*addr = 0, i = 0; i < key->len; i++) {
		int d = lower_hex_digit((unsigned char)key->buf[i]);

		if (d < 0)
			return 0;
		*addr = *addr << 4 | (uint64_t)d;
	}
	return 1;
}

static int read_all(FILE *in, struct strbuf *sb)
{
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		sb_add(sb, buf, n);
	return ferror(in) ? -1 : 0;
}

/* The queries, as the spans of the input that name them. */
struct queries {
	const char **at;
	size_t *len;
	size_t n, cap_at, cap_len;
};

/* Splits the input into queries and mapped-object text, as pprof's PrintSymbols does. */
static void split_input(const struct strbuf *in, struct queries *q, struct strbuf *map)
{
	const char *s = in->buf, *end = in->buf + in->len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end, *at;
		size_t len;

		if (query(s, (size_t)(le - s), &at, &len)) {
			GROW(q->at, q->cap_at, q->n + 1);
			GROW(q->len, q->cap_len, q->n + 1);
			q->at[q->n] = at;
			q->len[q->n++] = len;
		} else {
			sb_add(map, s, (size_t)(le - s));
			sb_addc(map, '\n');
		}
		s = nl ? nl + 1 : end;
	}
}

int symbols_run(const struct options *o)
{
	struct strbuf in = STRBUF_INIT, map = STRBUF_INIT, name = STRBUF_INIT;
	struct symbolize_options so = { 0 };
	struct queries q = { 0 };
	struct profile *p;
	struct err e;
	uint64_t a;
	size_t i;
	int status = 1;

	if (o->format || o->nargs != 1) {
		fprintf(stderr, "pprof: %s (usage: pprof --symbols PROGRAM < ADDRESSES)\n",
			o->format ? "only specify one output mode" : "--symbols takes one program");
		return 2;
	}
	if (symbolize_check_program(o->args[0], &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		goto out;
	}
	if (read_all(stdin, &in) < 0) {
		fprintf(stderr, "pprof: cannot read standard input\n");
		goto out;
	}
	split_input(&in, &q, &map);
	p = profile_new();
	reader_maps(p, "standard input", map.buf, map.len);
	for (i = 0; i < q.n; i++)
		if (query_key(q.at[i], q.len[i], &name, &a))
			profile_location(p, a);
	so.program = o->args[0];
	so.verbose = o->verbose;
	so.keep_templates = o->report.keep_templates;
	so.add_lib = o->add_lib;
	if (o->add_lib && symbolize_add_library(p, o->add_lib, &e) < 0)
		warnf("%s", e.msg);
	if (symbolize_profile(p, &so, &e) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		profile_free(p);
		goto out;
	}
	for (i = 0; i < q.n; i++) {
		const struct location *l;

		if (!query_key(q.at[i], q.len[i], &name, &a)) {
			printf("0x%s\n", name.buf);
			continue;
		}
		/* The outermost frame's short name; "??" for none. */
		l = profile_location(p, a);
		if (!l->nline) {
			puts("??");
			continue;
		}
		short_function_name(l->line[l->nline - 1].function->name, o->report.keep_templates,
				    &name);
		puts(name.len ? name.buf : "??");
	}
	profile_free(p);
	status = fflush(stdout) ? 1 : 0;
out:
	free(q.at);
	free(q.len);
	sb_release(&in);
	sb_release(&map);
	sb_release(&name);
	return status;
}
