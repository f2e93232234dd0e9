/* collapsed.c - --collapsed: folded stacks for FlameGraph, inferno and speedscope, as google-pprof writes them. */
#include <string.h>

#include "report.h"
#include "symlist.h"
#include "util.h"

/*
 * One line per stack (after frame removal and focus): its frames from the
 * root to the leaf joined by ';', then a space and its value.  A frame is
 * its full name (inline callees after their caller, with "[inline]"), its
 * file:line when the name is unknown, or its address when nothing was
 * read for it.
 */
static void put_frames(FILE *out, const struct profile *q, const struct symlists *sl,
		       const struct location *l, int *first)
{
	uint32_t n = sl->nframe[l->id - 1], j;

	if (!n) {
		fprintf(out, "%s%0*llx", *first ? "" : ";", q->address_bits == 32 ? 8 : 16,
			(unsigned long long)l->address);
		*first = 0;
		return;
	}
	for (j = 0; j < n; j++) {
		const struct symframe *fr = &sl->frame[l->id - 1][j];
		const char *file = !strcmp(fr->fileline, "?") || !strcmp(fr->fileline, ":0") ? "??:0"
											   : fr->fileline;

		fprintf(out, "%s%s%s", *first ? "" : ";", strcmp(fr->full, "??") ? fr->full : file,
			j ? "[inline]" : "");
		*first = 0;
	}
}

static int collapsed_write(FILE *out, const struct profile *p, const struct report_options *o,
			   struct err *e)
{
	const struct profile *q = report_profile(p, o, e);
	struct symlists sl;
	int64_t scale;
	size_t i;
	uint32_t j;

	if (!q)
		return -1;
	scale = profile_value_scale(q);
	symlists_init(&sl, q, o->keep_templates);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];
		int first = 1;

		for (j = s->nlocation; j > 0; j--)
			put_frames(out, q, &sl, sample_location(q, s, j - 1), &first);
		fprintf(out, " %lld\n", (long long)(report_sample_value(q, s, o) / scale));
	}
	symlists_release(&sl);
	report_profile_release(p, q);
	return 0;
}

const struct report_format report_collapsed_format = {
	.name = "collapsed",
	.help = "Write folded stacks for flame graphs (FlameGraph, inferno, speedscope)",
	.write = collapsed_write,
};
