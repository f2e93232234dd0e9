/* err.h - error reports passed up to the driver, and the warning sink. */
#ifndef PPROF_ERR_H
#define PPROF_ERR_H

/*
 * Functions that can fail return -1 and fill the caller's struct err once,
 * where the failure happened; callers may prefix context with err_prefix.
 * Messages are lowercase, without a final period, and name their subject.
 */
struct err {
	char msg[768];
};

/* Always returns -1 so that `return err_set(e, ...)` reads naturally. */
int err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "prefix: " to the message already in e; returns -1. */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Warnings of best-effort stages go to stderr, one line each. */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Messages that gperftools pprof prints on stderr, verbatim. */
void notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
