/* names.c - gperftools pprof's short function names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"

/* Marks an opening kept in strip_groups' stack. */
#define KEPT ((size_t)-1)

/*
 * Removes every group open..close, innermost first, as repeating pprof's
 * s/\([^()]*\)(\s*const)?//g until nothing changes does; in one pass, so
 * that deep nesting costs no more than its length: each opening is
 * remembered where it was written, and a close that matches one cuts the
 * output back to it (then skips a "\s*const" after it).
 *
 * With go_receivers, a group that follows a '.' is a Go method's receiver
 * ("fmt.(*pp).fmtInteger"), not an argument list, and stays; gperftools
 * pprof predates Go and drops it ("fmt..fmtInteger"), which makes one name
 * of the methods of different types.  C++ names have no ".(".
 */
static void strip_groups(struct strbuf *sb, char open, char close, int with_const, int go_receivers)
{
	char *s = sb->buf, *w = sb->buf;
	size_t i = 0, n = sb->len, depth = 0, cap = 0;
	size_t *opened = NULL;

	while (i < n) {
		if (s[i] == open) {
			GROW(opened, cap, depth + 1);
			opened[depth++] = go_receivers && w > sb->buf && w[-1] == '.' ? KEPT
										     : (size_t)(w - sb->buf);
		} else if (s[i] == close && depth && opened[depth - 1] == KEPT) {
			depth--;
		} else if (s[i] == close && depth) {
			w = sb->buf + opened[--depth];
			i++;
			if (with_const) {
				size_t k = i;

				while (k < n && isspace((unsigned char)s[k]))
					k++;
				if (n - k >= 5 && !memcmp(s + k, "const", 5))
					i = k + 5;
			}
			continue;
		}
		*w++ = s[i++];
	}
	*w = 0;
	sb->len = (size_t)(w - sb->buf);
	free(opened);
}

static int is_word(int c)
{
	return isalnum(c) || c == '_';
}

void short_function_name(const char *full, int keep_templates, struct strbuf *out)
{
	size_t i, best = 0;
	int found = 0;

	sb_reset(out);
	sb_adds(out, full);
	strip_groups(out, '(', ')', 1, 1);
	/* A trailing address tag "<0000000000401126>". */
	if (out->len && out->buf[out->len - 1] == '>') {
		size_t j = out->len - 1;

		while (j > 0 && (isdigit((unsigned char)out->buf[j - 1]) ||
				 (out->buf[j - 1] >= 'a' && out->buf[j - 1] <= 'f')))
			j--;
		if (j > 0 && out->buf[j - 1] == '<') {
			out->len = j - 1;
			out->buf[out->len] = 0;
		}
	}
	if (!keep_templates)
		strip_groups(out, '<', '>', 0, 0);
	/* Drop everything up to the last whitespace that precedes "word::". */
	for (i = 1; i < out->len; i++) {
		size_t j = i;

		if (!isspace((unsigned char)out->buf[i - 1]) || !is_word((unsigned char)out->buf[i]))
			continue;
		while (j < out->len && is_word((unsigned char)out->buf[j]))
			j++;
		if (j + 1 < out->len && out->buf[j] == ':' && out->buf[j + 1] == ':') {
			best = i;
			found = 1;
		}
	}
	if (found) {
		memmove(out->buf, out->buf + best, out->len - best + 1);
		out->len -= best;
	}
}
