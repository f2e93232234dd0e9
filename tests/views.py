#!/usr/bin/env python3
# views.py - parses Go pprof's views (-traces, -tree, -peek, -tags; -text for
# its values and percentages) as ours and go tool pprof print them, and
# compares the numbers.
#
#   views.py compare VIEW OURS GO       exit 0 when they agree, else prints why
#   views.py flame SVG GO_TOP_CUM      checks frame widths against go -top -cum
#
# Names are compared as our --functions prints them: argument lists and
# other (...) groups removed (but for a final " (inline)" and a Go method's
# receiver, the group after a '.'), file names cleaned as Go's
# filepath.Clean does.
import os
import re
import sys
import xml.etree.ElementTree as ET

UNITS = {
    "": 1, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "hrs": 3600e9,
    "B": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4,
}


def number(s):
    """A value as printed ("1.20s", "400kB", "0", "-3"), in base units, and
    half the step of its last digit (what printing may have rounded away)."""
    m = re.fullmatch(r"(-?[0-9.]+(?:e[-+]?[0-9]+)?)([a-zA-Z]*)", s.strip())
    if not m:
        raise ValueError("not a value: %r" % s)
    unit = UNITS.get(m.group(2), 1)
    digits = m.group(1).split(".")
    step = 10 ** -len(digits[1]) if len(digits) > 1 else 1
    return float(m.group(1)) * unit, step * unit / 2


def name(s):
    s = s.strip()
    inline = s.endswith(" (inline)")
    if inline:
        s = s[:-len(" (inline)")]
    # Our name of a line without a file (gperftools pprof's); Go prints none.
    if s.endswith(" ??:0"):
        s = s[:-5]
    while True:
        n = re.sub(r"(?<!\.)\([^()]*\)", "", s)
        if n == s:
            break
        s = n
    # "function file:line" and "function file": the file as Go cleans it.
    parts = s.split(" ")
    if len(parts) >= 2 and "/" in parts[-1]:
        f = parts[-1]
        line = ""
        m = re.fullmatch(r"(.*?)(:[0-9]+)", f)
        if m:
            f, line = m.group(1), m.group(2)
        parts[-1] = os.path.normpath(f) + line
    return " ".join(parts) + (" (inline)" if inline else "")


def traces(text):
    """Samples as (labels, value, frames); the order is Go's, the profile's."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("-----------+"):
            if cur and cur[2]:
                out.append(cur)
            cur = [[], None, []]
            continue
        if cur is None:
            continue
        m = re.fullmatch(r" *(\S+):  (.*)", line)
        if m and not cur[2]:
            cur[0].append((m.group(1), m.group(2)))
            continue
        m = re.fullmatch(r"(.{10})   (.*)", line)
        if m:
            if m.group(1).strip():
                cur[1] = number(m.group(1))
            cur[2].append(name(m.group(2)))
    return out


def add(a, b):
    """The sum of two values as number() gives them (value, half step)."""
    return (a[0] + b[0], a[1] + b[1]) if a else b


class Rows(dict):
    """Parsed rows by shortened name; merged: the names that stand for
    several functions in this output."""
    merged = frozenset()


def shortener(rows):
    """name() that notes in rows.merged the names several originals share."""
    seen = {}

    def short(s):
        k = name(s)
        seen.setdefault(k, set()).add(s.strip())
        if len(seen[k]) > 1:
            rows.merged = rows.merged | {k}
        return k
    return short


def tree(text):
    """Nodes: name -> (flat, cum, {caller: weight}, {callee: weight}).
    Functions whose names are one once shortened (the C++ overloads f(int)
    and f(double)) are one node, their values and edges summed;
    where they share stacks, Go's sums count those twice and ours once, so
    such names are noted (Rows.merged) and not compared."""
    nodes, cur, callers, callees = Rows(), None, {}, None
    name = shortener(nodes)
    for line in text.splitlines():
        if line.startswith("-------") or "calls calls%" in line:
            cur, callers, callees = None, {}, None
            continue
        m = re.fullmatch(r" {20,}(\S+) +(\S+%) \|   (.*)", line)
        if m:
            edges = callers if cur is None else callees
            k = name(m.group(3))
            edges[k] = add(edges.get(k), number(m.group(1)))
            continue
        m = re.fullmatch(r" *(\S+) +(\S+%) +(\S+%) +(\S+) +(\S+%) +\| (.*)", line)
        if m:
            cur = name(m.group(6))
            flat, cum, ins, outs = nodes.get(cur, (None, None, {}, {}))
            for k, v in callers.items():
                ins[k] = add(ins.get(k), v)
            nodes[cur] = (add(flat, number(m.group(1))), add(cum, number(m.group(4))), ins, outs)
            callees = outs
    return nodes


def tags(text):
    """Keys: key -> (total, {value: amount})."""
    out, key = {}, None
    for line in text.splitlines():
        m = re.fullmatch(r" *(\S+): Total (\S+)", line)
        if m:
            key = m.group(1)
            out[key] = (number(m.group(2)), {})
            continue
        m = re.fullmatch(r" +(\S+)(?: \( *\S+%\))?: (.*)", line)
        if m and key:
            out[key][1][m.group(2)] = number(m.group(1))
    return out


def text(text):
    """Rows: name -> (flat, flat%, cum, cum%); ours ("%.1f%%") or Go's layout.
    Names that stand for several functions (see tree) are not compared."""
    out = Rows()
    name = shortener(out)
    for line in text.splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and f[1].endswith("%") and f[4].endswith("%") and f[0] != "flat":
            pc = lambda x: (float(x[:-1]), 10 ** -len(x[:-1].split(".")[-1]) / 2
                            if "." in x else 0.5)
            out[name(f[5])] = (number(f[0]), pc(f[1]), number(f[3]), pc(f[4]))
    return out


def compare_text(ours, go, bad):
    for n in sorted((set(ours) | set(go)) - ours.merged - go.merged):
        if n not in ours or n not in go:
            bad.append("%s: %s" % (n, "only ours" if n in ours else "only go's"))
            continue
        if not all(close(a, b) for a, b in zip(ours[n], go[n])):
            bad.append("%s: %s, go %s" % (n, [x[0] for x in ours[n]], [x[0] for x in go[n]]))


def close(a, b):
    return abs(a[0] - b[0]) <= a[1] + b[1] + 1e-9


def compare_traces(ours, go, bad):
    if len(ours) != len(go):
        bad.append("%d samples, go %d" % (len(ours), len(go)))
    for i, (o, g) in enumerate(zip(ours, go)):
        if sorted(o[0]) != sorted(g[0]):
            bad.append("sample %d: labels %s, go %s" % (i, o[0], g[0]))
        if o[2] != g[2]:
            bad.append("sample %d: stack %s, go %s" % (i, o[2], g[2]))
        if not close(o[1], g[1]):
            bad.append("sample %d: value %g, go %g" % (i, o[1][0], g[1][0]))


def compare_edges(what, node, o, g, bad, skip=frozenset()):
    for n in sorted((set(o) | set(g)) - skip):
        if n not in o or n not in g or not close(o[n], g[n]):
            bad.append("%s: %s %s: %s, go %s" % (node, what, n, o.get(n, ("-",))[0],
                                                 g.get(n, ("-",))[0]))


def compare_tree(ours, go, bad):
    skip = ours.merged | go.merged
    for n in sorted((set(ours) | set(go)) - skip):
        if n not in ours or n not in go:
            bad.append("%s: %s" % (n, "only ours" if n in ours else "only go's"))
            continue
        o, g = ours[n], go[n]
        if not close(o[0], g[0]) or not close(o[1], g[1]):
            bad.append("%s: flat %g cum %g, go %g %g" % (n, o[0][0], o[1][0], g[0][0], g[1][0]))
        compare_edges("caller", n, o[2], g[2], bad, skip)
        compare_edges("callee", n, o[3], g[3], bad, skip)


def compare_tags(ours, go, bad):
    if set(ours) != set(go):
        bad.append("keys %s, go %s" % (sorted(ours), sorted(go)))
    for k in set(ours) & set(go):
        if not close(ours[k][0], go[k][0]):
            bad.append("%s: total %g, go %g" % (k, ours[k][0][0], go[k][0][0]))
        o, g = ours[k][1], go[k][1]
        compare_edges("value", k, o, g, bad)


def compare(view, ours_file, go_file, unordered=False):
    """unordered: Go read another file of the same profile (our --proto of
    it, whose samples are in a canonical order), so traces are compared as
    a set."""
    parse = {"traces": traces, "tree": tree, "peek": tree, "tags": tags, "text": text}[view]
    ours, go = parse(open(ours_file).read()), parse(open(go_file).read())
    if unordered and view == "traces":
        key = lambda t: (t[2], sorted(t[0]), t[1][0])
        ours, go = sorted(ours, key=key), sorted(go, key=key)
    bad = []
    if not ours or not go:
        bad.append("nothing to compare (%d ours, %d go)" % (len(ours), len(go)))
    {"traces": compare_traces, "tree": compare_tree, "peek": compare_tree,
     "tags": compare_tags, "text": compare_text}[view](ours, go, bad)
    for b in bad[:12]:
        print("    " + b)
    return 1 if bad else 0


def flame(svg_file, top_file, count):
    """The frames of each of the count hottest functions (go -top -cum), where
    no frame of the same function lies below them, are together as wide as
    the function's share of the total; the root spans the whole width."""
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(svg_file).getroot()
    width = float(root.get("data-width"))
    frames = []
    for g in root.iter(ns + "g"):
        if g.get("class") != "f":
            continue
        r = g.find(ns + "rect")
        frames.append((name(g.get("data-name")), int(g.get("data-d")),
                       float(r.get("x")), float(r.get("width"))))
    bad = []
    total = None
    rows = []
    for line in open(top_file):
        m = re.search(r"of (\S+) total", line)
        if m:
            total = number(m.group(1))[0]
        f = line.split(None, 5)
        if len(f) == 6 and f[1].endswith("%") and f[4].endswith("%"):
            rows.append((name(f[5]), number(f[3])[0]))
    if not total or not rows:
        print("    go's -top has no total or rows")
        return 1
    roots = [f for f in frames if f[1] == 0]
    if len(roots) != 1 or abs(roots[0][3] - width) > 0.01:
        bad.append("the root frame spans %s of %g" % ([f[3] for f in roots], width))
    checked = 0
    for fn, cum in rows[:count]:
        mine = [f for f in frames if f[0] == fn]
        # Frames with a frame of the same function under them count once.
        outer = [f for f in mine
                 if not any(o is not f and o[1] < f[1] and o[2] <= f[2] + 1e-6 and
                            o[2] + o[3] >= f[2] + f[3] - 1e-6 for o in mine)]
        got = sum(f[3] for f in outer)
        want = cum / total * width
        checked += 1
        if abs(got - want) > 0.01 * len(outer) + 0.002 * width:
            bad.append("%s: frames %.3f px wide, want %.3f (%g of %g)" % (fn, got, want, cum, total))
    if not checked:
        bad.append("no function to check")
    for b in bad[:12]:
        print("    " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4], len(sys.argv) > 5 and sys.argv[5] == "unordered"))
    if sys.argv[1] == "flame":
        sys.exit(flame(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 5))
    sys.exit(2)
