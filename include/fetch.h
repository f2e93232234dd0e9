/* fetch.h - remote profiles: gperftools' and Go's pprof HTTP pages, fetched in process with libcurl. */
#ifndef PPROF_FETCH_H
#define PPROF_FETCH_H

#include <stddef.h>

#include "err.h"
#include "profile.h"
#include "reader.h"
#include "strbuf.h"
#include "symbolize.h"

/*
 * A remote argument, split as gperftools pprof splits it:
 * [http[s]://]AUTHORITY[PREFIX][PAGE], where PAGE is one of the known
 * pages (/pprof/profile, /pprof/heap, ..., and Go's /debug/pprof/NAME,
 * whose PREFIX is /debug), with any query, and defaults to /pprof/profile.
 * Every page of the server is then base + "/pprof/NAME": /pprof/symbol,
 * /pprof/cmdline.
 */
struct remote {
	char *base;      /* "http://user@127.0.0.1:8080/debug": for requests */
	char *shown;     /* base without credentials: for messages */
	char *page;      /* "/pprof/heap", "/pprof/profile?seconds=5" */
	char *host;      /* "127.0.0.1": for the saved file's name */
	int cpu;         /* a page collected over --seconds (gets ?seconds=N) */
};

/*
 * Whether arg names a remote profile: http:// or https://, or no existing
 * file and the form host:port[/path].
 */
int remote_is(const char *arg);
/* Splits arg; -1 with e set when it has no host. */
int remote_parse(const char *arg, struct remote *r, struct err *e);
void remote_release(struct remote *r);

struct fetch_options {
	int seconds;      /* --seconds: how long CPU profiles are collected */
	int timeout;      /* --timeout: seconds for one request; 0: seconds + 60 */
	size_t max_size;  /* the largest reply accepted, in bytes */
};

/*
 * A fetching session for one run: one libcurl handle (connections are
 * reused), the program's name, and the symbol server.  Requests follow at
 * most 5 redirects (http and https only), honour libcurl's proxy
 * variables (http_proxy, https_proxy, no_proxy, all_proxy), are cut at
 * max_size bytes and at the timeout, and stop at Ctrl-C.  Every error
 * names the URL (credentials left out) and what failed.
 */
struct fetcher;

struct fetcher *fetcher_new(const struct fetch_options *o);
void fetcher_free(struct fetcher *f);

/*
 * The program name a remote profile without PROGRAM is shown with, as
 * gperftools pprof learns it: /pprof/symbol must answer "num_symbols: N"
 * with N > 0, and /pprof/cmdline's first line up to a NUL is the name.
 * That server then names addresses (fetcher_symbols).  The string lives
 * as long as f.
 */
const char *fetcher_program(struct fetcher *f, const char *arg, struct err *e);
/* The symbol server fetcher_program found, or NULL. */
const struct symbol_server *fetcher_symbols(struct fetcher *f);

/*
 * Fetches the profile arg names (a countdown on stderr while a CPU
 * profile is collected, when stderr is a terminal), reads it as
 * reader_load_buffer does (messages name the URL), and only then saves it
 * as gperftools pprof does: $PPROF_TMPDIR (default $HOME/pprof) /
 * PROGRAM.UNIXTIME.HOST[.pprof.PAGE for pages other than CPU profiles],
 * program being PROGRAM's or the server's name, and says where on stderr.
 * On error nothing is saved.
 */
int fetcher_load(struct fetcher *f, const char *arg, const char *program,
		 const struct read_options *ro, struct profile **out, const struct reader **rd,
		 struct err *e);

#endif
