/* interactive.h - the (pprof) prompt: reports on a profile loaded once. */
#ifndef PPROF_INTERACTIVE_H
#define PPROF_INTERACTIVE_H

#include "options.h"
#include "profile.h"

/*
 * Reads commands from standard input until quit or end of input and runs
 * each on p, which stays as it is (read and symbolized once).  o holds
 * the command line's settings, which the session's settings start from.
 * With a terminal, input is edited with libedit, with history kept in
 * $XDG_DATA_HOME/pprof/history (~/.local/share/pprof/history) and tab
 * completion of commands and function names; otherwise lines are read
 * plainly and no prompt is printed.  With o->verbose, each command's time
 * goes to standard error.  Returns the exit status.
 */
int interactive_run(const struct profile *p, const struct options *o);

#endif
