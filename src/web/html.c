/* html.c - escaping for the web UI: text into HTML, values into URL queries. */
#include <string.h>

#include "internal.h"

void html_add(struct strbuf *sb, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		const char *rep;

		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		/* A NUL would end the page's text early in some readers. */
		case '\0': rep = "\xef\xbf\xbd"; break;
		default: continue;
		}
		sb_add(sb, s + run, i - run);
		sb_adds(sb, rep);
		run = i + 1;
	}
	sb_add(sb, s + run, n - run);
}

void html_adds(struct strbuf *sb, const char *s)
{
	html_add(sb, s, strlen(s));
}

/* Percent-encodes all but RFC 3986's unreserved characters. */
void url_adds(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c)) {
			sb_addc(sb, (char)c);
		} else {
			sb_addc(sb, '%');
			sb_addc(sb, hex[c >> 4]);
			sb_addc(sb, hex[c & 15]);
		}
	}
}
