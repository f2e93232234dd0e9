/* symbolz.c - fuzzes the parser of symbol servers' /pprof/symbol replies. */
#include <string.h>

#include "fuzz.h"
#include "symbolize.h"

/* Parses the reply, then looks up every address it names and one past each. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolz_reply r;
	struct err e;
	size_t i;

	memset(&r, 0, sizeof(r));
	if (symbolz_parse((const char *)data, size, &r, &e) == 0) {
		for (i = 0; i < r.n && i < 256; i++) {
			const struct symbolz_entry *en = symbolz_find(&r, r.entry[i].address);

			/* Every address parsed is found again, under some name. */
			if (!en || en->address != r.entry[i].address || !en->name)
				__builtin_trap();
			symbolz_find(&r, r.entry[i].address + 1);
		}
	}
	symbolz_release(&r);
	return 0;
}
