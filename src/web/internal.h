/* internal.h - what the web UI's files share: the server's state, a query, a reply (private to src/web). */
#ifndef PPROF_WEB_PRIVATE_H
#define PPROF_WEB_PRIVATE_H

#include <stdatomic.h>
#include <stddef.h>

#include "options.h"
#include "profile.h"
#include "strbuf.h"

/* Bounds of a request's query: parameters, and bytes of one name or value. */
#define WEB_MAX_ARGS 32
#define WEB_MAX_VALUE 4096

/* What every request reads: the profile, loaded once, and the options it starts from. */
struct web {
	const struct profile *p;
	/* The command line's options, wired for reports as pipeline_run wires them. */
	struct options base;
	/* Every setting at its default: a request's query starts from these. */
	struct options defaults;
	/* Set by SIGINT and SIGTERM: the server is stopping (read on the server's threads). */
	atomic_int *stop;
	int verbose;
};

/* A request's query parameters, in order, decoded; valid while the request is. */
struct query {
	struct {
		const char *key, *value;
	} arg[WEB_MAX_ARGS];
	size_t n;
};

/* What a request is answered with. */
struct reply {
	unsigned status;
	const char *type;        /* Content-Type */
	struct strbuf body;
	struct strbuf location;  /* for a redirect */
	int html;                /* an HTML page: its script runs with nonce */
	char nonce[40];          /* the page's script nonce (Content-Security-Policy) */
};

/* pages.c: answers GET path?query; the reply is complete when it returns. */
void web_serve(struct web *w, const char *path, const struct query *q, struct reply *r);
/*
 * The query that gives a page the command line's settings (those with a
 * URL parameter), "" when all are defaults, else starting with '?'.
 */
void web_start_query(const struct web *w, struct strbuf *out);

/* top.c: the top table of a report, as an HTML fragment. */
int web_top(struct strbuf *out, const struct profile *p, const struct report_options *o,
	    struct err *e);

/* html.c: text as HTML text or attribute values, and URL query escapes. */
void html_add(struct strbuf *sb, const char *s, size_t n);
void html_adds(struct strbuf *sb, const char *s);
void url_adds(struct strbuf *sb, const char *s);

/* assets.c: the pages' style sheet and script, served inline. */
extern const char web_css[], web_js[];

#endif
