/* symlist.c - gperftools pprof's symbol lists of locations, and --text --stacks. */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "strbuf.h"
#include "symlist.h"
#include "util.h"

static const char *fileline(struct arena *a, const struct line *ln, struct strbuf *sb)
{
	const char *file = ln->function->filename;

	if (!strcmp(file, "?") && !ln->line)
		return "?";
	sb_reset(sb);
	sb_adds(sb, file[0] ? file : "??");
	sb_addc(sb, ':');
	sb_add_int(sb, ln->line);
	return arena_strdup(a, sb->buf);
}

void symlists_init(struct symlists *s, const struct profile *p, int keep_templates)
{
	static const struct symframe unknown = { "??", "??:0", "??" };
	struct strbuf sb = STRBUF_INIT;
	/* A function's names, made at its first frame: by function id. */
	struct symframe *names = xcalloc(p->nfunction + 1, sizeof(*names));
	size_t i;

	arena_init(&s->arena);
	s->frame = xcalloc(p->nlocation + 1, sizeof(*s->frame));
	s->nframe = xcalloc(p->nlocation + 1, sizeof(*s->nframe));
	for (i = 0; i < p->nlocation; i++) {
		const struct location *l = p->location[i];
		uint32_t j;

		if (!l->nline) {
			if (l->tried) {
				s->frame[i] = (struct symframe *)&unknown;
				s->nframe[i] = 1;
			}
			continue;
		}
		s->frame[i] = arena_calloc(&s->arena, l->nline, sizeof(**s->frame));
		s->nframe[i] = l->nline;
		for (j = 0; j < l->nline; j++) {
			const struct line *ln = &l->line[l->nline - 1 - j];
			const struct function *f = ln->function;
			struct symframe *fr = &s->frame[i][j], *fn = &names[f->id - 1];

			if (!fn->full) {
				sb_reset(&sb);
				sb_adds(&sb, f->name);
				if (f->symbol_address != NO_SYMBOL_ADDRESS)
					sb_addf(&sb, "<%016llx>",
						(unsigned long long)f->symbol_address);
				fn->full = arena_strdup(&s->arena, sb.buf);
				short_function_name(fn->full, keep_templates, &sb);
				fn->shrt = arena_strdup(&s->arena, sb.buf);
			}
			fr->full = fn->full;
			fr->shrt = fn->shrt;
			fr->fileline = fileline(&s->arena, ln, &sb);
		}
	}
	free(names);
	sb_release(&sb);
}

void symlists_release(struct symlists *s)
{
	free(s->frame);
	free(s->nframe);
	arena_release(&s->arena);
}

int report_stacks(FILE *out, const struct profile *p, const struct report_options *o,
		  struct err *e)
{
	const struct profile *q = report_profile(p, o, e);
	int64_t scale;
	struct symlists sl;
	size_t i;
	uint32_t j;

	if (!q)
		return -1;
	scale = profile_value_scale(q);
	symlists_init(&sl, q, o->keep_templates);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];

		fprintf(out, "%-8lld ", (long long)(report_sample_value(q, s, o) / scale));
		for (j = 0; j < s->nlocation; j++) {
			const struct location *l = sample_location(q, s, j);
			const struct symframe *fr = sl.nframe[l->id - 1] ? &sl.frame[l->id - 1][0] : NULL;
			const char *file = fr ? fr->fileline : NULL;

			if (file && !strcmp(file, "?"))
				file = "??:0";
			fprintf(out, "%s(%0*llx) %s%s%s", j ? "\n         " : "",
				q->address_bits == 32 ? 8 : 16, (unsigned long long)l->address,
				file ? file : "??:0", fr ? ":" : ":unknown", fr ? fr->shrt : "");
		}
		fputs("\n\n", out);
	}
	symlists_release(&sl);
	report_profile_release(p, q);
	return 0;
}
