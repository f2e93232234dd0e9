/* symbolz.c - names from a symbol server (gperftools' /pprof/symbol): the request, the reply, the names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

/* Perl's \s, as gperftools pprof matches reply lines (\r is gone already). */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

static void add_entry(struct symbolz_reply *r, size_t *cap, uint64_t address, const char *name,
		      size_t len)
{
	GROW(r->entry, *cap, r->n + 1);
	r->entry[r->n].address = address;
	r->entry[r->n].name = arena_strndup(&r->arena, name, len);
	r->n++;
}

/*
 * "0x0*([0-9a-f]+)\s+(.+)": the address and the name, as gperftools pprof's
 * pattern takes them (lowercase digits only; the name is what follows the
 * blanks, or the last blank when nothing does).  Returns 0 when the line
 * is no such line, or names an address wider than 64 bits, which no
 * profile address can match.
 */
static int symbol_line(const char *s, size_t n, uint64_t *address, const char **name,
		       size_t *len)
{
	size_t i = 2, digits = 0, blanks;
	uint64_t a = 0;

	if (n < 2 || s[0] != '0' || s[1] != 'x')
		return 0;
	while (i + 1 < n && s[i] == '0' && lower_hex_digit(s[i + 1]) >= 0)
		i++;
	for (; i < n && lower_hex_digit(s[i]) >= 0; i++, digits++)
		a = a << 4 | (uint64_t)lower_hex_digit(s[i]);
	for (blanks = 0; i + blanks < n && is_space(s[i + blanks]); blanks++)
		;
	if (!digits || !blanks || (i + blanks == n && blanks < 2) || digits > 16)
		return 0;
	*address = a;
	if (i + blanks == n) {
		*name = s + n - 1;
		*len = 1;
	} else {
		*name = s + i + blanks;
		*len = n - i - blanks;
	}
	return 1;
}

/* "name=value" with a lowercase first letter: binary= is kept, others ignored. */
static void variable_line(struct symbolz_reply *r, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n), *v, *end = s + n;

	if (!eq || !(s[0] >= 'a' && s[0] <= 'z'))
		return;
	while (eq > s && is_space(eq[-1]))
		eq--;
	if ((size_t)(eq - s) != 6 || memcmp(s, "binary", 6))
		return;
	v = memchr(s, '=', n) + 1;
	while (v < end && is_space(*v))
		v++;
	while (end > v && is_space(end[-1]))
		end--;
	r->binary = arena_strndup(&r->arena, v, (size_t)(end - v));
}

static int cmp_entry(const void *a, const void *b)
{
	const struct symbolz_entry *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	/* Equal addresses: file order, so that the last one can win. */
	return x < y ? -1 : x > y;
}

int symbolz_parse(const char *buf, size_t len, struct symbolz_reply *r, struct err *e)
{
	struct strbuf line = STRBUF_INIT;
	size_t cap = 0, i, k, pos = 0;

	if (memchr(buf, '\0', len)) {
		err_set(e, "the reply is not text (it has a NUL byte)");
		goto done;
	}
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		uint64_t address;
		const char *name;
		size_t nlen;

		/* gperftools pprof drops every \r, wherever it is. */
		sb_reset(&line);
		for (k = pos; k < end; k++)
			if (buf[k] != '\r')
				sb_addc(&line, buf[k]);
		pos = end + 1;
		if (symbol_line(line.buf, line.len, &address, &name, &nlen))
			add_entry(r, &cap, address, name, nlen);
		else if (line.len >= 3 && !memcmp(line.buf, "---", 3))
			break;
		else
			variable_line(r, line.buf, line.len);
	}
	/* Sort, then keep the last line of each address. */
	if (r->n > 1)
		qsort(r->entry, r->n, sizeof(*r->entry), cmp_entry);
	for (i = 0, k = 0; i < r->n; i++) {
		if (i + 1 < r->n && r->entry[i + 1].address == r->entry[i].address)
			continue;
		r->entry[k++] = r->entry[i];
	}
	r->n = k;
	sb_release(&line);
	return 0;
done:
	sb_release(&line);
	return -1;
}

void symbolz_release(struct symbolz_reply *r)
{
	free(r->entry);
	arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}

static uint64_t entry_key(const void *p)
{
	return ((const struct symbolz_entry *)p)->address;
}

const struct symbolz_entry *symbolz_find(const struct symbolz_reply *r, uint64_t address)
{
	size_t i = search_above(r->entry, r->n, sizeof(*r->entry), address, entry_key);

	return i > 0 && r->entry[i - 1].address == address ? &r->entry[i - 1] : NULL;
}

/* Whether the server is asked about loc: nothing local named it or tried to. */
static int wanted(const struct location *loc)
{
	return !loc->nline && !loc->tried;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The request: every wanted address as 0x and its digits (16, or 8 in a
 * 32-bit profile), ascending, joined by '+'.
 */
static size_t build_request(const struct profile *p, int digits, struct strbuf *body)
{
	uint64_t *a = xcalloc(p->nlocation + 1, sizeof(*a));
	size_t i, n = 0;

	for (i = 0; i < p->nlocation; i++)
		if (wanted(p->location[i]))
			a[n++] = p->location[i]->address;
	qsort(a, n, sizeof(*a), cmp_u64);
	for (i = 0; i < n; i++)
		if (!i || a[i] != a[i - 1])
			sb_addf(body, "%s0x%0*llx", i ? "+" : "", digits, (unsigned long long)a[i]);
	free(a);
	return n;
}

/*
 * One name of an inline chain, demangled as c++filt would (gperftools
 * pprof pipes the reply through it), as a function of p.
 */
static struct function *chain_function(struct profile *p, const char *s, size_t n)
{
	const char *raw = profile_intern_n(p, s, n);
	char *dm = demangle(raw);
	struct function *f = profile_function(p, dm ? dm : raw, raw, "", 0, NO_SYMBOL_ADDRESS);

	free(dm);
	return f;
}

/*
 * Gives loc the chain "outer--inner" (Perl's split: empty names between
 * separators stay, trailing ones go), innermost first.
 */
static void set_chain(struct profile *p, struct location *loc, const char *names)
{
	struct line *lines = NULL;
	size_t n = 0, cap = 0, i;
	const char *s = names, *sep;

	for (;;) {
		sep = strstr(s, "--");
		GROW(lines, cap, n + 1);
		lines[n].function = chain_function(p, s, sep ? (size_t)(sep - s) : strlen(s));
		lines[n++].line = 0;
		if (!sep)
			break;
		s = sep + 2;
	}
	while (n > 0 && !lines[n - 1].function->name[0])
		n--;
	for (i = 0; i < n / 2; i++) {
		struct line t = lines[i];

		lines[i] = lines[n - 1 - i];
		lines[n - 1 - i] = t;
	}
	if (n)
		profile_set_lines(p, loc, lines, n);
	free(lines);
}

int symbolize_remote(struct profile *p, const struct symbolize_options *o, struct err *e)
{
	struct strbuf body = STRBUF_INIT, reply = STRBUF_INIT;
	struct symbolz_reply r = { 0 };
	int digits = p->address_bits == 32 ? 8 : 16, status = -1;
	size_t i;

	if (!o->server || !build_request(p, digits, &body))
		return 0;
	if (o->server->post(o->server->ctx, body.buf, body.len, &reply, e) < 0)
		goto done;
	if (symbolz_parse(reply.buf, reply.len, &r, e) < 0)
		goto done;
	for (i = 0; i < p->nlocation; i++) {
		struct location *loc = p->location[i];
		const struct symbolz_entry *en;
		char pc[32];

		if (!wanted(loc))
			continue;
		loc->tried = 1;
		if ((en = symbolz_find(&r, loc->address))) {
			set_chain(p, loc, en->name);
			if (loc->nline)
				continue;
		}
		/* Unknown to the server: named after itself. */
		snprintf(pc, sizeof(pc), "0x%0*llx", digits, (unsigned long long)loc->address);
		set_chain(p, loc, pc);
	}
	status = 0;
done:
	symbolz_release(&r);
	sb_release(&body);
	sb_release(&reply);
	return status;
}
