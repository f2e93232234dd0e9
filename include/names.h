/* names.h - display forms of function names, as gperftools pprof shortens them. */
#ifndef PPROF_NAMES_H
#define PPROF_NAMES_H

#include "strbuf.h"

/*
 * Writes into out (replacing its contents) the short form of a full name:
 * argument lists (with a trailing const) removed, then a trailing "<hex>"
 * address tag, then template arguments unless keep_templates, then a
 * leading return type.  A group after a '.' is a Go method's receiver and
 * stays (gperftools pprof drops it):
 *   "std::map<int,int>::operator[](int const&)" -> "std::map::operator[]"
 *   "unsigned long ns::f()" -> "ns::f"
 *   "fmt.(*pp).fmtInteger" -> "fmt.(*pp).fmtInteger"
 */
void short_function_name(const char *full, int keep_templates, struct strbuf *out);

#endif
