/* raw.c - --raw: the profile as a symbolized profile, which gperftools pprof and pprof read back. */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "reader.h"
#include "report.h"
#include "util.h"

/*
 * The layout is src/readers/symbolized.c's.  gperftools pprof reads the
 * symbol lines and the profile section (a CPU profile of the reported
 * value, or the format's own text, whose total it shows the same); pprof
 * reads the "#pprof" lines, which hold the profile exactly.
 */

/* " =" and s with '%', blanks, control characters and DEL as %XX. */
static void put_str(FILE *out, const char *s)
{
	fputs(" =", out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '%' || c == 0x7f)
			fprintf(out, "%%%02X", c);
		else
			fputc(c, out);
	}
}

/*
 * The address of each location in the parts for gperftools pprof, which
 * knows a location by its address: a second location at one address, or
 * one at 0 (which would end a CPU profile's data), gets an unused one.
 */
static uint64_t *gp_addresses(const struct profile *q)
{
	uint64_t *addr = xcalloc(q->nlocation + 1, sizeof(*addr));
	uint64_t base = q->address_bits == 32 ? 0xf0000000u : 0x7f00000000000000ull;
	struct htab seen;
	size_t i, j;

	htab_init(&seen, q->nlocation * 2);
	for (i = 0; i < q->nlocation; i++) {
		uint64_t a = q->location[i]->address, h = hash_u64(a);

		HTAB_FIND(&seen, h, j, addr[seen.slot[j].idx - 1] == a);
		if (a && !seen.slot[j].idx) {
			addr[i] = a;
			htab_insert(&seen, j, h, (uint32_t)i + 1);
		} else {
			addr[i] = base + i;
		}
	}
	htab_release(&seen);
	return addr;
}

/* A frame's name as pprof writes it: the symbol's address appended to names from one. */
static void put_name(FILE *out, const struct function *f)
{
	const char *s;

	/* One line per address: a name cannot hold a line break. */
	for (s = f->name; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	if (f->symbol_address != NO_SYMBOL_ADDRESS)
		fprintf(out, "<%016llx>", (unsigned long long)f->symbol_address);
}

/* "0xADDRESS OUTER--...--INNER" for each named location. */
static void put_symbols(FILE *out, const struct profile *q, const uint64_t *addr)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < q->nlocation; i++) {
		const struct location *l = q->location[i];

		if (!l->nline && !l->tried)
			continue;
		fprintf(out, "0x%016llx ", (unsigned long long)addr[i]);
		if (!l->nline)
			fputs("??", out);
		for (j = l->nline; j > 0; j--) {
			put_name(out, l->line[j - 1].function);
			if (j > 1)
				fputs("--", out);
		}
		fputc('\n', out);
	}
}

static void put_header(FILE *out, const struct profile *q, const struct report_options *o)
{
	size_t i;

	fputs("#pprof 1", out);
	put_str(out, o->source ? o->source->name : "profile.proto");
	fprintf(out, "\n#pprof profile %u %lld %lld %lld %lld\n#pprof period_type", q->address_bits,
		(long long)q->value_scale, (long long)q->period, (long long)q->time_nanos,
		(long long)q->duration_nanos);
	put_str(out, q->period_type.type);
	put_str(out, q->period_type.unit);
	fputs("\n#pprof default", out);
	put_str(out, q->default_sample_type);
	fputs("\n#pprof frames", out);
	put_str(out, q->drop_frames);
	put_str(out, q->keep_frames);
	fprintf(out, "\n#pprof types %zu", q->nsample_type);
	for (i = 0; i < q->nsample_type; i++) {
		put_str(out, q->sample_type[i].type);
		put_str(out, q->sample_type[i].unit);
	}
	fputc('\n', out);
	for (i = 0; i < q->ncomment; i++) {
		fputs("#pprof comment", out);
		put_str(out, q->comment[i]);
		fputc('\n', out);
	}
}

/* The "#pprof" lines: the profile exactly. */
static void put_profile(FILE *out, const struct profile *q, const struct report_options *o)
{
	size_t i;
	uint32_t j;

	put_header(out, q, o);
	for (i = 0; i < q->nmapping; i++) {
		const struct mapping *m = q->mapping[i];

		fprintf(out, "#pprof mapping %llx %llx %llx %d", (unsigned long long)m->start,
			(unsigned long long)m->limit, (unsigned long long)m->offset,
			m->has_functions | m->has_filenames << 1 | m->has_line_numbers << 2 |
			m->has_inline_frames << 3);
		put_str(out, m->file);
		put_str(out, m->build_id);
		fputc('\n', out);
	}
	for (i = 0; i < q->nfunction; i++) {
		const struct function *f = q->function[i];

		if (f->symbol_address == NO_SYMBOL_ADDRESS)
			fprintf(out, "#pprof function - %lld", (long long)f->start_line);
		else
			fprintf(out, "#pprof function %llx %lld", (unsigned long long)f->symbol_address,
				(long long)f->start_line);
		put_str(out, f->name);
		put_str(out, f->system_name);
		put_str(out, f->filename);
		fputc('\n', out);
	}
	for (i = 0; i < q->nlocation; i++) {
		const struct location *l = q->location[i];

		fprintf(out, "#pprof location %llu %llx %d %u",
			(unsigned long long)(l->mapping ? l->mapping->id : 0),
			(unsigned long long)l->address, l->tried | l->is_folded << 1, l->nline);
		for (j = 0; j < l->nline; j++)
			fprintf(out, " %llu %lld", (unsigned long long)l->line[j].function->id,
				(long long)l->line[j].line);
		fputc('\n', out);
	}
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];

		fprintf(out, "#pprof sample %zu", q->nsample_type);
		for (j = 0; j < q->nsample_type; j++)
			fprintf(out, " %lld", (long long)sample_value(s)[j]);
		fprintf(out, " %u", s->nlocation);
		for (j = 0; j < s->nlocation; j++)
			fprintf(out, " %llu", (unsigned long long)sample_stack(s)[j] + 1);
		fprintf(out, " %u", s->nlabel);
		for (j = 0; j < s->nlabel; j++) {
			put_str(out, sample_labels(s)[j].key);
			put_str(out, sample_labels(s)[j].str);
			fprintf(out, " %lld", (long long)sample_labels(s)[j].num);
			put_str(out, sample_labels(s)[j].num_unit);
		}
		fputc('\n', out);
	}
}

static void put_word(FILE *out, uint64_t v, unsigned width)
{
	unsigned char b[8];
	unsigned i;

	for (i = 0; i < width; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, width, out);
}

/*
 * The default profile section: "--- profile" and a little-endian CPU
 * profile whose counts are the reported values (fractions dropped), with
 * the profile's address width.
 */
static int cpu_body(FILE *out, const struct profile *q, const uint64_t *addr,
		    const struct report_options *o, struct err *e)
{
	unsigned width = q->address_bits == 32 ? 4 : 8;
	int64_t scale = profile_value_scale(q), period = 1;
	size_t i;
	uint32_t j;

	if (!strcmp(q->period_type.unit, "nanoseconds") && q->period >= 1000)
		period = q->period / 1000;
	fputs("--- profile\n", out);
	put_word(out, 0, width);
	put_word(out, 3, width);
	put_word(out, 0, width);
	put_word(out, (uint64_t)period, width);
	put_word(out, 0, width);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];

		if (!s->nlocation)
			continue;
		put_word(out, (uint64_t)(report_sample_value(q, s, o) / scale), width);
		put_word(out, s->nlocation, width);
		for (j = 0; j < s->nlocation; j++)
			put_word(out, addr[sample_stack(s)[j]], width);
	}
	put_word(out, 0, width);
	put_word(out, 1, width);
	put_word(out, 0, width);
	return 0;
}

static int raw_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	const struct profile *q = report_profile(p, o, e);
	uint64_t *addr;
	int r;

	if (!q)
		return -1;
	addr = gp_addresses(q);
	fputs("--- symbol\n", out);
	if (o->program)
		fprintf(out, "binary=%s\n", o->program);
	put_symbols(out, q, addr);
	put_profile(out, q, o);
	fputs("---\n", out);
	if (o->source && o->source->raw_body)
		r = o->source->raw_body(out, q, addr, o, e);
	else
		r = cpu_body(out, q, addr, o, e);
	free(addr);
	report_profile_release(p, q);
	return r;
}

const struct report_format report_raw_format = {
	.name = "raw",
	.help = "Write a symbolized profile that pprof and google-pprof read without the program",
	.write = raw_write,
};
