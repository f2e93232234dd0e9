/* text.c - line by line reading of the legacy text profiles: headers, numbers, address stacks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "maps.h"
#include "strbuf.h"
#include "text.h"
#include "util.h"

void text_init(struct text *t, const char *name, const void *buf, size_t len, struct err *e)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->buf = buf;
	t->end = t->buf + len;
	t->next = t->buf;
	t->line = t->buf;
	t->e = e;
}

int text_next(struct text *t)
{
	const char *nl;

	if (t->next >= t->end)
		return 0;
	t->line = t->next;
	nl = memchr(t->line, '\n', (size_t)(t->end - t->line));
	t->next = nl ? nl + 1 : t->end;
	t->len = (size_t)((nl ? nl : t->end) - t->line);
	while (t->len && t->line[t->len - 1] == '\r')
		t->len--;
	t->lineno++;
	return 1;
}

int text_fail(struct text *t, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	err_set(t->e, "%s: line %u: %s", t->name, t->lineno, sb.buf);
	sb_release(&sb);
	return -1;
}

int text_starts(const struct text *t, const char *prefix)
{
	size_t n = strlen(prefix);

	return t->len >= n && !memcmp(t->line, prefix, n);
}

int text_header(struct text *t, int quiet)
{
	while (text_next(t)) {
		if (text_starts(t, "%warn")) {
			const char *s = text_skip_blanks(t->line + 5, t->line + t->len);

			if (!quiet)
				warnf("%s: WARNING: %.*s", t->name, (int)(t->line + t->len - s), s);
		} else if (!text_starts(t, "%")) {
			return 1;
		}
	}
	return 0;
}

int text_header_is(const unsigned char *buf, size_t len, const char *prefix)
{
	struct text t;
	struct err e;

	/* gperftools pprof reads binary data when the first byte is not printable. */
	if (!len || buf[0] < 0x20 || buf[0] > 0x7e)
		return 0;
	text_init(&t, "", buf, len, &e);
	return text_header(&t, 1) && text_starts(&t, prefix);
}

int text_int(const char **s, const char *end, int signed_ok, int64_t *v)
{
	const char *p = *s;
	uint64_t x = 0, limit = INT64_MAX;
	int neg = 0;

	if (p < end && *p == '-' && signed_ok) {
		neg = 1;
		limit = (uint64_t)INT64_MAX + 1;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (limit - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*s = p;
	return 0;
}

uint64_t *text_stack(struct text *t, struct stack_builder *sb, const char *s, const char *end,
		     size_t back_from, size_t *n)
{
	/* Room grows with the words found, not with the line: blanks may be most of it. */
	size_t room = 64, i;
	uint64_t *pc = stack_builder_reserve(sb, room);

	*n = 0;
	for (;;) {
		const char *w, *digits;
		uint64_t a = 0;
		int d;

		s = text_skip_blanks(s, end);
		if (s >= end)
			break;
		w = s;
		if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		/* Leading zeros do not count: "0x00000000004005d0" is 64 bits. */
		while (s < end && *s == '0')
			s++;
		for (digits = s; s < end && (d = hex_digit((unsigned char)*s)) >= 0; s++)
			a = a << 4 | (uint64_t)d;
		if (s - digits > 16) {
			text_fail(t, "address '%.*s' is longer than 64 bits",
				  (int)(end - w > 40 ? 40 : end - w), w);
			return NULL;
		}
		if (s == w || (s < end && *s != ' ' && *s != '\t' && *s != '\r') ||
		    (s - w == 2 && w[1] != '0')) {
			text_fail(t, "'%.*s' is not a hexadecimal address",
				  (int)(end - w > 40 ? 40 : end - w), w);
			return NULL;
		}
		if (*n == room)
			pc = stack_builder_reserve(sb, room *= 2);
		pc[(*n)++] = a;
	}
	for (i = back_from; i < *n; i++)
		pc[i]--;
	return pc;
}

void reader_maps(struct profile *p, const char *name, const char *text, size_t len)
{
	size_t i;

	maps_parse(p, name, text, len);
	for (i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
}
