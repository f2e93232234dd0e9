/* dynlib.h - libraries opened when first needed, not at every start. */
#ifndef PPROF_DYNLIB_H
#define PPROF_DYNLIB_H

#include "err.h"

/*
 * libcurl and libmicrohttpd bring TLS libraries whose constructors run at
 * load time (gnutls parses its ASN.1 tables): linked, they took about 3 ms
 * of every run, remote or not; capstone's relocations took as long.  They
 * are opened by their soname when a remote profile, --http or a listing of
 * instructions first needs them, and their functions looked up by name
 * into the pointers of a table.
 */
struct dynsym {
	const char *name;
	void **addr;           /* the function pointer it fills */
};

struct dynlib {
	const char *const *names;  /* sonames tried in order, NULL-terminated */
	const struct dynsym *syms; /* ended by a NULL name */
	int tried, ok;
	char why[256];
};

/*
 * Opens the library and resolves every symbol, once for the whole run:
 * 0, else -1 with e saying which library could not be used and why.
 */
int dynlib_load(struct dynlib *l, struct err *e);

#endif
