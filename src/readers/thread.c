/* thread.c - reader for thread profiles as Go's legacy parser reads them (threadz, Go counts). */
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "text.h"
#include "util.h"

/*
 * Two formats: C++ "--- threadz N ---" dumps (a "--- Thread ID (name:
 * NAME/TID) stack: ---" block per thread, its PCs anywhere on the lines
 * after it, "[same as previous thread]" counting the thread before once
 * more), and Go's count profiles ("threadcreate profile: total N", then
 * "COUNT @ 0xPC..." lines).  Go pprof reads both; gperftools pprof reads
 * neither.
 */

static int blank_or_comment(const struct text *t)
{
	const char *s = text_skip_blanks(t->line, t->line + t->len);

	return s == t->line + t->len || *s == '#';
}

static int contains(const struct text *t, const char *what)
{
	return memmem(t->line, t->len, what, strlen(what)) != NULL;
}

static int is_map_sentinel(const struct text *t)
{
	return contains(t, "--- Memory map: ---") || contains(t, "MAPPED_LIBRARIES:");
}

/* "NAME profile: total N", the whole line. */
static int is_count_header(const struct text *t)
{
	const char *s = t->line, *end = t->line + t->len, *sp;
	int64_t n;

	for (sp = s; sp < end && *sp != ' ' && *sp != '\t'; sp++)
		;
	if (sp == s || end - sp < 16 || memcmp(sp, " profile: total ", 16))
		return 0;
	s = sp + 16;
	return text_int(&s, end, 0, &n) == 0 && s == end;
}

/* "--- Thread HEX (name: NAME/TID) stack: ---" anywhere in the line. */
static int is_thread_start(const struct text *t)
{
	const char *s = memmem(t->line, t->len, "--- Thread ", 11), *end = t->line + t->len, *p;

	if (!s)
		return 0;
	for (p = s + 11; p < end && strchr("0123456789abcdefABCDEF", *p) && *p; p++)
		;
	if (p == s + 11 || end - p < 8 || memcmp(p, " (name: ", 8))
		return 0;
	return memmem(p, (size_t)(end - p), ") stack: ---", 12) != NULL;
}

static int is_threadz_start(const struct text *t)
{
	const char *s = memmem(t->line, t->len, "--- threadz ", 12), *end = t->line + t->len;
	int64_t n;

	if (!s)
		return 0;
	s += 12;
	return text_int(&s, end, 0, &n) == 0 && end - s >= 4 && !memcmp(s, " ---", 4);
}

/* 1 for a count profile, 2 for a threadz dump; the header is the current line. */
static int find_header(struct text *t)
{
	while (text_next(t))
		if (!blank_or_comment(t))
			return is_count_header(t) ? 1 : is_threadz_start(t) || is_thread_start(t) ? 2 : 0;
	return 0;
}

static int thread_sniff(const unsigned char *buf, size_t len)
{
	struct text t;
	struct err e;

	text_init(&t, "", buf, len, &e);
	return find_header(&t) != 0;
}

/* Every "0x" and lowercase hex digits in the line, as Go's parser finds them. */
static int line_addresses(struct text *t, uint64_t **addr, size_t *n, size_t *cap)
{
	const char *s = t->line, *end = t->line + t->len;

	while ((s = memmem(s, (size_t)(end - s), "0x", 2))) {
		const char *d = s + 2;
		uint64_t a = 0;
		int digits = 0, v;

		for (; d < end && (v = lower_hex_digit((unsigned char)*d)) >= 0; d++) {
			if (digits || v)
				digits++;
			if (digits > 16)
				return text_fail(t, "address longer than 64 bits");
			a = a << 4 | (uint64_t)v;
		}
		if (d > s + 2) {
			GROW(*addr, *cap, *n + 1);
			(*addr)[(*n)++] = a;
		}
		s = d;
	}
	return 0;
}

static int read_counts(struct text *t, struct profile *p, int raw)
{
	const char *sp = memchr(t->line, ' ', t->len);
	const char *type = profile_intern_n(p, t->line, (size_t)(sp - t->line));
	const char *types[] = { type, "count" };
	struct stack_builder *sb;
	size_t n;
	int ret = -1;

	profile_set_sample_types(p, 1, types);
	p->period_type.type = type;
	p->period_type.unit = profile_intern(p, "count");
	sb = stack_builder_begin(p);
	while (text_next(t)) {
		const char *s = t->line, *end = t->line + t->len;
		int64_t count;

		if (blank_or_comment(t))
			continue;
		if (text_starts(t, "---"))
			break;
		if (text_int(&s, end, 0, &count) < 0 || end - s < 5 || memcmp(s, " @ 0x", 5)) {
			text_fail(t, "not a count line (want 'N @ 0xADDRESS...')");
			goto out;
		}
		/* Go's parser takes every frame one byte back, the leaf too. */
		if (!text_stack(t, sb, s + 2, end, raw ? TEXT_RAW : 0, &n))
			goto out;
		stack_builder_commit(sb, n, &count);
	}
	ret = 0;
out:
	stack_builder_end(sb);
	return ret;
}

/* One thread's PCs: the lines after its header up to the next "---" line. */
static int thread_stack(struct text *t, uint64_t **addr, size_t *n, size_t *cap, int *same)
{
	*n = 0;
	*same = 0;
	while (text_next(t)) {
		const char *s = text_skip_blanks(t->line, t->line + t->len), *end = t->line + t->len;

		if (s == end)
			continue;
		if (end - s >= 3 && !memcmp(s, "---", 3))
			return 1;
		if (contains(t, "same as previous thread"))
			*same = 1;
		else if (line_addresses(t, addr, n, cap) < 0)
			return -1;
	}
	return 0;
}

/* Callers one byte back, then Go's check for the unwinder's copy of the leaf. */
static size_t thread_pcs(uint64_t *addr, size_t n, int raw)
{
	size_t i;

	for (i = 1; i < n && !raw; i++)
		addr[i]--;
	if (n > 1 && addr[0] == addr[1] + 1) {
		memmove(addr + 1, addr + 2, (n - 2) * sizeof(*addr));
		n--;
	}
	return n;
}

static int read_threads(struct text *t, struct profile *p, int raw)
{
	static const char *const types[] = { "thread", "count" };
	static const int64_t one = 1;
	struct stack_builder *sb;
	uint64_t *addr = NULL, *last = NULL, *swap;
	size_t n, nlast = 0, cap = 0, cap_last = 0, swap_cap;
	int ret = -1, more = 1, same, any = 0;

	profile_set_sample_types(p, 1, types);
	p->period_type.type = profile_intern(p, "thread");
	p->period_type.unit = profile_intern(p, "count");
	sb = stack_builder_begin(p);
	/* A threadz dump starts with lines of its own before the first thread. */
	if (!is_thread_start(t))
		while ((more = text_next(t)) && !is_map_sentinel(t) && !text_starts(t, "-"))
			;
	while (more && !is_map_sentinel(t)) {
		if (text_starts(t, "---- no stack trace for"))
			break;
		if (!is_thread_start(t)) {
			text_fail(t, "not a thread header (want '--- Thread ID (name: NAME/TID) stack: ---')");
			goto out;
		}
		if ((more = thread_stack(t, &addr, &n, &cap, &same)) < 0)
			goto out;
		if (same || !n) {
			/* "[same as previous thread]": one more of the last one. */
			if (any)
				stack_builder_add(sb, last, nlast, &one);
			continue;
		}
		/* This stack becomes the last; the next is read into the other buffer. */
		nlast = thread_pcs(addr, n, raw);
		swap = last, last = addr, addr = swap;
		swap_cap = cap_last, cap_last = cap, cap = swap_cap;
		any = 1;
		stack_builder_add(sb, last, nlast, &one);
	}
	ret = 0;
out:
	stack_builder_end(sb);
	free(addr);
	free(last);
	return ret;
}

static int thread_read(const char *name, const unsigned char *buf, size_t len,
		       const struct read_options *ro, struct profile *p, struct err *e)
{
	int raw = ro && ro->raw_addresses, kind, r;
	struct text t;
	size_t maplen;

	text_init(&t, name, buf, len, e);
	if (!(kind = find_header(&t)))
		return err_set(e, "%s: no thread profile header", name);
	p->period = 1;
	p->address_bits = 64;
	/* What Go's legacy parser prunes from them, for --proto. */
	p->drop_frames = profile_intern(p, "ProfileData::Add|ProfileData::prof_handler|"
					"CpuProfiler::prof_handler|__pthread_sighandler|__restore");
	r = kind == 1 ? read_counts(&t, p, raw) : read_threads(&t, p, raw);
	if (r < 0)
		return -1;
	/* The mapped objects follow their sentinel line. */
	while (!is_map_sentinel(&t) && text_next(&t))
		;
	if (is_map_sentinel(&t) && text_next(&t)) {
		const char *map = text_rest(&t, &maplen);

		reader_maps(p, name, map, maplen);
	}
	return 0;
}

/* pprof's default regex, the literal NOMATCH, as for every kind but heap. */
static const struct frame_rules thread_frames = {
	.regex = "NOMATCH",
};

const struct reader reader_thread = {
	.name = "thread profile",
	.sniff = thread_sniff,
	.read = thread_read,
	.frames = &thread_frames,
};
