/* svgpan.h - pan and zoom for the SVG call graphs of --svg and --web. */
#ifndef PPROF_SVGPAN_H
#define PPROF_SVGPAN_H

#include <stddef.h>

#include "strbuf.h"

/*
 * Appends to out the SVG Graphviz wrote (svg, len bytes), changed as
 * gperftools pprof changes it: the drawing fills the window (no fixed
 * width, height or viewBox) inside a <g id="viewport"> that a script pans
 * with the mouse and zooms with the wheel.  Returns -1, out unchanged,
 * when svg does not have the shape Graphviz gives it.
 */
int svg_add_pan_zoom(const char *svg, size_t len, struct strbuf *out);

#endif
