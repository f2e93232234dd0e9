/* err.c - filling struct err, and the stderr warning sink. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char old[sizeof(e->msg)];
	size_t n;
	va_list ap;

	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", old);
	return -1;
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	fputs("pprof: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void notef(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
