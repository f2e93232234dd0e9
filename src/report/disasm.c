/* disasm.c - --disasm: machine code of routines, per instruction counts, source interleaved. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "strbuf.h"
#include "util.h"

/*
 * pprof's CleanDisassembly: argument lists (parentheses without a register
 * inside, and a following "const") and template arguments are removed from
 * the names objdump prints, repeatedly until none is left.
 */
static void clean_disassembly(const char *in, struct strbuf *out)
{
	struct strbuf a = STRBUF_INIT;
	int changed;

	sb_reset(out);
	sb_adds(out, in);
	do {
		const char *s = out->buf;
		size_t i = 0, len = out->len;

		changed = 0;
		sb_reset(&a);
		while (i < len) {
			size_t j = i + 1;

			if (s[i] == '(') {
				while (j < len && s[j] != '(' && s[j] != ')' && s[j] != '%')
					j++;
				if (j < len && s[j] == ')') {
					size_t k = j + 1;

					while (k < len && isspace((unsigned char)s[k]))
						k++;
					j = !strncmp(s + k, "const", 5) ? k + 5 : j + 1;
					i = j;
					changed = 1;
					continue;
				}
			}
			sb_add(&a, s + i, 1);
			i++;
		}
		sb_reset(out);
		sb_add(out, a.buf, a.len);
	} while (changed);
	do {
		const char *s = out->buf;
		size_t i = 0, len = out->len;

		changed = 0;
		sb_reset(&a);
		while (i < len) {
			/* WORD<...> with nothing nested inside: keep WORD. */
			if (s[i] == '<' && i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) {
				size_t j = i + 1;

				while (j < len && s[j] != '<' && s[j] != '>')
					j++;
				if (j < len && s[j] == '>') {
					i = j + 1;
					changed = 1;
					continue;
				}
			}
			sb_add(&a, s + i, 1);
			i++;
		}
		sb_reset(out);
		sb_add(out, a.buf, a.len);
	} while (changed);
	sb_release(&a);
}

/* A file name in a "----" header: "./" trimmed, long ones cut to "..." and the last 55. */
static void file_header(FILE *out, const char *file)
{
	size_t n;

	if (!strncmp(file, "./", 2))
		file += 2;
	n = strlen(file);
	if (n >= 58)
		fprintf(out, "-------------------- ...%s\n", file + n - 55);
	else
		fprintf(out, "-------------------- %s\n", file);
}

/* pprof's PrintDisassembledFunction. */
static int disasm_routine(FILE *out, struct annotation *a, const struct routine *rt,
			  struct sources *srcs, enum decode_syntax syntax, struct err *e)
{
	struct code_insn *ins;
	long n = code_disassemble(a->code, rt, syntax, &ins, e);
	int64_t *flat, *cum, total_flat = 0, total_cum = 0;
	struct strbuf clean = STRBUF_INIT;
	const char *current = "";
	char f[48], c[48];
	long i, j;

	if (n < 0)
		return -1;
	flat = xcalloc((size_t)n + 1, sizeof(*flat));
	cum = xcalloc((size_t)n + 1, sizeof(*cum));
	for (i = 0; i < n; i++) {
		annotation_sum(a, ins[i].addr, ins[i].end, &flat[i], &cum[i]);
		total_flat = sat_add(total_flat, flat[i]);
		total_cum = sat_add(total_cum, cum[i]);
	}
	report_value(&a->r, total_flat, f, sizeof(f));
	report_value(&a->r, total_cum, c, sizeof(c));
	fprintf(out, "ROUTINE ====================== %s\n%6s %6s %s (flat, cumulative) %.1f%% of total\n",
		rt->short_name, f, c, annotation_unit(a),
		a->r.local_total ? (double)total_cum * 100.0 / (double)a->r.local_total : 0.0);
	/* Runs of instructions of one source line: the line, then the instructions. */
	for (i = 0; i < n; i = j) {
		int line = ins[i].line;
		int64_t run_flat = 0, run_cum = 0;
		const struct source *src;

		if (strcmp(ins[i].file, current)) {
			current = ins[i].file;
			file_header(out, current);
		}
		for (j = i; j < n && ins[j].line == line; j++) {
			run_flat = sat_add(run_flat, flat[j]);
			run_cum = sat_add(run_cum, cum[j]);
		}
		src = current[0] ? sources_get(srcs, current) : NULL;
		if (src && src->text && line >= 1 && line <= (int)src->nline) {
			const char *t = src->line[line];

			while (isspace((unsigned char)*t))
				t++;
			annotation_value(a, run_flat, f, sizeof(f));
			annotation_value(a, run_cum, c, sizeof(c));
			fprintf(out, "%6s %6s %5d: %s\n", f, c, line, t);
		}
		for (long k = i; k < j; k++) {
			char addr[24];

			/* The object address, without leading zeros (none at all for 0). */
			if (ins[k].objaddr)
				snprintf(addr, sizeof(addr), "%llx", (unsigned long long)ins[k].objaddr);
			else
				addr[0] = '\0';
			clean_disassembly(ins[k].text, &clean);
			annotation_value(a, flat[k], f, sizeof(f));
			annotation_value(a, cum[k], c, sizeof(c));
			fprintf(out, "%6s %6s    %8s: %6s\n", f, c, addr, clean.buf);
		}
	}
	sb_release(&clean);
	free(flat);
	free(cum);
	free(ins);
	return 0;
}

static int disasm_write(FILE *out, const struct profile *p, const struct report_options *o,
			struct err *e)
{
	struct annotation a;
	struct sources srcs;
	size_t i;
	int ret = 0;

	if (annotation_build(&a, p, o, "--disasm", e) < 0)
		return -1;
	sources_init(&srcs, o);
	for (i = 0; i < a.nroutine && ret == 0; i++)
		ret = disasm_routine(out, &a, &a.routine[i], &srcs,
				     o->intel_syntax ? DECODE_INTEL : DECODE_ATT, e);
	if (ret == 0 && !a.nroutine)
		ret = err_set(e, "--disasm: no routine with samples matches '%s'", o->regex);
	sources_release(&srcs);
	annotation_release(&a);
	return ret;
}

const struct report_format report_disasm_format = {
	.name = "disasm",
	.arg = "REGEX",
	.help = "Machine code of routines matching REGEX, with counts per instruction",
	.write = disasm_write,
	.reads_code = 1,
};
