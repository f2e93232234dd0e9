/* web.h - the web UI (--http): Go pprof's pages served from a profile loaded once. */
#ifndef PPROF_WEB_H
#define PPROF_WEB_H

#include "err.h"
#include "options.h"
#include "profile.h"

/*
 * Serves the web UI of p at o->http ("[HOST]:PORT"; HOST 127.0.0.1 when
 * empty, PORT 0 or empty: a free port) with libmicrohttpd until SIGINT or
 * SIGTERM, then stops the server's thread and returns.  The URL is printed
 * on stderr ("Serving web UI on http://..."), and opened in $BROWSER or
 * with xdg-open unless o->no_browser.  o is the command line's options,
 * wired for reports as pipeline_run wires them (program, symbolizer,
 * reader hooks); p and o stay as they are: each request renders with its
 * own copy of the options, set from the request's query.  Returns the exit
 * status (0 after a signal, 1 when the server cannot start).
 */
int web_run(const struct profile *p, const struct options *o);

/* Checks an --http value: [HOST]:PORT, PORT a number to 65535 or empty. */
int web_check_address(const char *value, struct err *e);

#endif
