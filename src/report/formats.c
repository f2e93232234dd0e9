/* formats.c - the table of output formats that the command line and --help read. */
#include <string.h>

#include "report.h"

/* Call graphs: dot.c writes DOT; render.c lays it out and renders it with gvc. */
extern const struct report_format report_dot_format, report_ps_format, report_pdf_format,
	report_svg_format, report_gif_format, report_png_format;
/* list.c and disasm.c: annotated source and machine code of routines. */
extern const struct report_format report_list_format, report_disasm_format;
/* render.c: render to a temporary file and open a viewer on it. */
extern const struct report_format report_gv_format, report_evince_format, report_web_format;
/* proto.c: the profile itself, as gzip-compressed profile.proto. */
extern const struct report_format report_proto_format;
/* Go pprof's views: traces.c, tree.c (tree, peek), tags.c, flame.c; text.c's top. */
extern const struct report_format report_traces_format, report_tree_format, report_peek_format,
	report_tags_format, report_flame_format, report_top_format;
/* raw.c, collapsed.c, callgrind.c: google-pprof's symbolized profile, folded stacks, callgrind. */
extern const struct report_format report_raw_format, report_collapsed_format,
	report_callgrind_format;

/* The order of --help and of prefix matching's ties. */
const struct report_format *const report_formats[] = {
	&report_text_format,
	&report_list_format,
	&report_disasm_format,
	&report_gv_format,
	&report_evince_format,
	&report_web_format,
	&report_dot_format,
	&report_ps_format,
	&report_pdf_format,
	&report_svg_format,
	&report_gif_format,
	&report_png_format,
	&report_proto_format,
	&report_top_format,
	&report_traces_format,
	&report_tree_format,
	&report_peek_format,
	&report_tags_format,
	&report_flame_format,
	&report_raw_format,
	&report_collapsed_format,
	&report_callgrind_format,
	NULL,
};

const struct report_format *report_find_format(const char *name)
{
	size_t i;

	for (i = 0; report_formats[i]; i++)
		if (!strcmp(report_formats[i]->name, name))
			return report_formats[i];
	return NULL;
}
