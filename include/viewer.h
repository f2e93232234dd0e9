/* viewer.h - opening a file or a page in the user's web browser (render.c). */
#ifndef PPROF_VIEWER_H
#define PPROF_VIEWER_H

#include "err.h"

/*
 * Opens target (a file name or a URL) with the first command of $BROWSER
 * (commands separated by ':', each split at blanks, "%s" replaced by
 * target, else target added last) that exits with status 0, else with
 * xdg-open.  Waits for the command to exit.  -1 with e set when none
 * could open it.
 */
int browser_open(const char *target, struct err *e);

#endif
