/* maps.c - fuzzes the mapped-object list of legacy profiles (/proc/maps, cooked lines, build=). */
#include "fuzz.h"
#include "maps.h"

/* Parses the text, then finds the mapping of addresses around each mapping's ends. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile_new();
	size_t i, n;

	maps_parse(p, "fuzz", (const char *)data, size);
	n = p->nmapping;
	for (i = 0; i < n && i < 64; i++) {
		const struct mapping *m = p->mapping[i];

		if (m->limit <= m->start || !m->file[0])
			__builtin_trap();
		profile_find_mapping(p, m->start);
		profile_find_mapping(p, m->limit - 1);
		profile_find_mapping(p, m->limit);
	}
	profile_free(p);
	return 0;
}
