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

const char *text_skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
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

int text_addresses(struct text *t, const char *s, const char *end, uint64_t **addr, size_t *n,
		   size_t *cap)
{
	*n = 0;
	for (;;) {
		const char *w;
		uint64_t a = 0;
		int digits = 0;

		s = text_skip_blanks(s, end);
		if (s >= end)
			return 0;
		w = s;
		if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		for (; s < end && hex_digit(*s) >= 0; s++) {
			/* Leading zeros do not count: "0x00000000004005d0" is 64 bits. */
			if (digits || *s != '0')
				digits++;
			if (digits > 16)
				return text_fail(t, "address '%.*s' is longer than 64 bits",
						 (int)(end - w > 40 ? 40 : end - w), w);
			a = a << 4 | (uint64_t)hex_digit(*s);
		}
		if (s == w || (s < end && *s != ' ' && *s != '\t' && *s != '\r') ||
		    (s - w == 2 && w[1] != '0'))
			return text_fail(t, "'%.*s' is not a hexadecimal address",
					 (int)(end - w > 40 ? 40 : end - w), w);
		GROW(*addr, *cap, *n + 1);
		(*addr)[(*n)++] = a;
	}
}

struct sample *text_add_stack(struct profile *p, const uint64_t *addr, size_t n, const int64_t *value,
		    int raw, struct location ***buf, size_t *cap)
{
	size_t i;

	GROW(*buf, *cap, n + 1);
	for (i = 0; i < n; i++)
		(*buf)[i] = profile_location(p, i && !raw ? addr[i] - 1 : addr[i]);
	return profile_add_sample(p, *buf, n, value);
}

void text_build_stack(struct stack_builder *sb, const uint64_t *addr, size_t n,
		      const int64_t *value, int raw)
{
	uint64_t *pc = stack_builder_reserve(sb, n);
	size_t i;

	for (i = 0; i < n; i++)
		pc[i] = i && !raw ? addr[i] - 1 : addr[i];
	stack_builder_commit(sb, n, value);
}

void reader_maps(struct profile *p, const char *name, const char *text, size_t len)
{
	size_t i;

	maps_parse(p, name, text, len);
	for (i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
}
