/* demangle.c - C++ demangling through libiberty, the demangler of binutils. */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"
#include "strbuf.h"
#include "util.h"

char *demangle(const char *name)
{
	const char *at;
	char *res, *base;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	/* Demangle the name without its symbol version, then put it back. */
	at = strchr(name, '@');
	if (!at)
		return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	base = xmalloc((size_t)(at - name) + 1);
	memcpy(base, name, (size_t)(at - name));
	base[at - name] = 0;
	res = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI);
	free(base);
	if (res) {
		struct strbuf sb = STRBUF_INIT;

		sb_adds(&sb, res);
		sb_adds(&sb, at);
		free(res);
		res = sb.buf;
	}
	return res;
}
