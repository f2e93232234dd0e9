#!/usr/bin/env bash
# t-graph.sh - call graphs: --dot against google-pprof, trimming, rendered formats, viewers.
#
# 1. --dot is compared with google-pprof --dot on the committed static
#    program of testdata/golden and on real profiles of testdata/progs
#    (built with libprofiler and profiled here).  Both outputs are read back
#    with cgraph (gvpr) and compared as sets: the graph name, every node
#    (name, label, shape, fontsize, width, height, the legend included) and
#    every edge (ends, label, weight, style).  Layout never enters.
#    google-pprof orders edges of equal count by Perl's hash order, which
#    changes from run to run; where that order decides which edges survive
#    --maxdegree or --edgefraction, our edges must be what pprof's rule
#    gives with our documented tie order (source, then target node number),
#    applied to the full edge list that google-pprof prints without limits.
#    Our documented changes are applied to google-pprof's graph first: node
#    fonts of at least 12 points, edges at least 1 wide, "Focusing on" in
#    the legend only with --focus or --ignore, and edge counts once per
#    stack (Go pprof's rule; google-pprof counts every repeat of a pair in
#    a recursive stack): where counts differ ours must be smaller and within
#    the callee's cumulative value, and the kept edges are what pprof's rule
#    keeps from those counts.
# 2. Trimming is consistent with the options and the text report.
# 3. --ps --pdf --svg --png --gif are valid files of their kind (file,
#    pdfinfo) showing the same graph; -o replaces a file only on success.
# 4. No dot (or ps2pdf) program is run: PATH holds none, or a trap.
# 5. Graphviz without its plugin configuration still renders; a missing
#    plugin is named in the error.
# 6. --gv, --evince and --web start the viewer (fakes here) on a temporary
#    file, and say what to install when it is missing.
# 7. docs/graph.png is a PNG.
# Missing google-pprof, libprofiler or gvpr is a failure, not a skip:
# scripts/install-deps installs them.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/graph
mkdir -p "$W"
REF=${GOOGLE_PPROF:-google-pprof}
# google-pprof breaks ties between edges in Perl's hash order: the same in
# each of its runs here, so that its graph and its full graph agree.
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
PROGS=$TESTDATA/progs
G=$TESTDATA/golden
case $PPROF in
/*) PP=$PPROF ;;
*) PP=$(pwd)/$PPROF ;;
esac
# Graphviz keeps some memory until exit; see the file for what is suppressed.
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan-graphviz.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# --- prerequisites -----------------------------------------------------------
PPROF=$PP require --libprofiler "$REF" gcc g++ gvpr python3 node pdfinfo pdftotext file || exit 1

# --- helpers -----------------------------------------------------------------
# A graph as tab-separated lines, read with cgraph: graph NAME; node NAME
# LABEL SHAPE FONTSIZE WIDTH HEIGHT; edge TAIL HEAD LABEL WEIGHT STYLE.
cat >"$W/norm.gvpr" <<'EOF'
BEG_G { printf("graph\t%s\n", $G.name); }
N { printf("node\t%s\t%s\t%s\t%s\t%s\t%s\n", $.name, $.label, $.shape, $.fontsize, $.width, $.height); }
E { printf("edge\t%s\t%s\t%s\t%s\t%s\n", $.tail.name, $.head.name, $.label, $.weight, $.style); }
EOF
norm() { gvpr -f "$W/norm.gvpr" "$1" 2>/dev/null | LC_ALL=C sort; }

cat >"$W/graph.py" <<'EOF'
import re
import sys


def load(path):
    g = {"name": None, "nodes": {}, "edges": []}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "graph":
            g["name"] = f[1]
        elif f[0] == "node":
            g["nodes"][f[1]] = tuple(f[2:])
        elif f[0] == "edge":
            g["edges"].append(tuple(f[1:]))
    return g


def legend(g):
    """total, local total (None unless focused), node limit, edge limit from the legend."""
    label = g["nodes"]["Legend"][0]
    nums = re.match(r".*\\lTotal \w+: (-?\d+)(?:\\lFocusing on: (-?\d+))?\\l"
                    r"Dropped nodes with <= (-?\d+) abs\(\w+\)\\l"
                    r"Dropped edges with <= (-?\d+) \w+\\l$", label)
    return [None if x is None else int(x) for x in nums.groups()]


def as_ours(g, focused):
    """google-pprof's graph with our documented changes: node fonts of at
    least 12 points, edges at least 1 wide, and "Focusing on" in the legend
    only when --focus or --ignore was given."""
    for k, v in g["nodes"].items():
        v = list(v)
        if k == "Legend":
            if not focused:
                v[0] = re.sub(r"\\lFocusing on: -?\d+", "", v[0])
        else:
            v[2] = "%.1f" % max(float(v[2]), 12.0)
        g["nodes"][k] = tuple(v)
    edges = []
    for e in g["edges"]:
        w = re.match(r"setlinewidth\(([-\d.]+)\)(.*)", e[4])
        if w:
            e = e[:4] + ("setlinewidth(%f)%s" % (max(float(w.group(1)), 1.0), w.group(2)),)
        edges.append(e)
    g["edges"] = edges
    return g


def num(name):
    return int(name[1:])


def simulate(full, edge_limit, maxdeg, reverse):
    """PrintDot's edge rule on every edge, ties broken by node numbers."""
    cands = [(int(e[2]), num(e[0]), num(e[1]), e) for e in full["edges"]]
    sign = -1 if reverse else 1
    cands.sort(key=lambda c: (-c[0], sign * c[1], sign * c[2]))
    indeg, outdeg, kept = {}, {}, []
    for n, s, d, e in cands:
        if indeg.get(d, 0) == 0:
            keep = True
        elif abs(n) <= edge_limit:
            keep = False
        elif outdeg.get(s, 0) >= maxdeg or indeg.get(d, 0) >= maxdeg:
            keep = False
        else:
            keep = True
        if keep:
            outdeg[s] = outdeg.get(s, 0) + 1
            indeg[d] = indeg.get(d, 0) + 1
            kept.append(e)
    return sorted(kept)


def cum_of(g, name):
    m = LABEL.match(g["nodes"][name][0])
    return abs(int(m.group(3) if m.group(3) is not None else m.group(2)))


def once_per_stack(g, ours, whole=False):
    """Our edges count a caller->callee pair once per stack (Go pprof's
    rule); google-pprof counts every repeat, so in recursive stacks its
    counts are larger, up to more than the whole profile.  Where the two
    differ, ours must be smaller and within the callee's cumulative value
    (with --base, on a cycle): then google-pprof's graph takes our edge.

    whole: g and ours are both graphs without limits, which drop only
    edges of count 0 into a node an edge before reached.  With --base a
    pair's two counts can be 0 on one side only, so each side may lack
    an edge the other has (at 0 both, one of two tied for a node's first
    edge): then google-pprof's graph takes ours, or ours at 0, and the
    simulation sees every candidate with our count."""
    mine = {(e[0], e[1]): e for e in ours["edges"]}
    bad, edges = [], []
    g["changed"] = False
    # With --base, values of both signs: no bound holds, but a pair repeats
    # in a stack only where the graph has a cycle through it.
    signed = any(int(e[2]) < 0 for e in g["edges"] + ours["edges"])
    succ = {}
    for e in g["edges"] + ours["edges"]:
        succ.setdefault(e[0], set()).add(e[1])

    def on_cycle(src, dst):
        seen, todo = set(), [dst]
        while todo:
            n = todo.pop()
            if n == src:
                return True
            if n not in seen:
                seen.add(n)
                todo.extend(succ.get(n, ()))
        return False

    theirs = {(e[0], e[1]) for e in g["edges"]}
    for e in g["edges"]:
        o = mine.get((e[0], e[1]))
        if not o and whole and signed and e[2] != "0":
            w = re.match(r"setlinewidth\([-\d.]+\)(.*)", e[4])
            o = e[:2] + ("0", "0", "setlinewidth(1.000000)" + (w.group(1) if w else ""))
        if o and o[2] != e[2]:
            if signed:
                ok = on_cycle(e[0], e[1])
            else:
                ok = abs(int(o[2])) < abs(int(e[2])) and abs(int(o[2])) <= cum_of(ours, e[1])
            if not ok:
                bad.append("edge %s->%s: ours %s, google-pprof %s" % (e[0], e[1], o[2], e[2]))
            e = o
            g["changed"] = True
        edges.append(e)
    # Ours that google-pprof's full graph lacks: its count there is 0.
    missing = [o for o in ours["edges"] if (o[0], o[1]) not in theirs] if whole and signed else []
    for o in missing:
        edges.append(o)
        if o[2] != "0":
            if not on_cycle(o[0], o[1]):
                bad.append("edge %s->%s: ours %s, google-pprof 0" % (o[0], o[1], o[2]))
            g["changed"] = True
    g["edges"] = edges
    return bad


def compare(ref_path, our_path, full_path, our_full_path, maxdeg, focused):
    ref, ours, full = as_ours(load(ref_path), focused), load(our_path), as_ours(load(full_path), focused)
    our_full = load(our_full_path)
    bad = []
    if ref["name"] != ours["name"]:
        bad.append("graph name %r, google-pprof %r" % (ours["name"], ref["name"]))
    for k in sorted(set(ref["nodes"]) | set(ours["nodes"])):
        if ref["nodes"].get(k) != ours["nodes"].get(k):
            bad.append("node %s: ours %s, google-pprof %s"
                       % (k, ours["nodes"].get(k), ref["nodes"].get(k)))
    if bad:
        print("\n".join(bad[:20]))
        return 1
    bad = once_per_stack(ref, our_full) + once_per_stack(full, our_full, True)
    if bad:
        print("\n".join(bad[:20]))
        return 1
    if sorted(ref["edges"]) == sorted(ours["edges"]):
        print("same nodes and edges")
        return 0
    edge_limit = legend(ours)[3]
    asc = simulate(full, edge_limit, maxdeg, False)
    desc = simulate(full, edge_limit, maxdeg, True)
    if full["changed"] and sorted(ours["edges"]) == asc:
        print("same nodes; edges are what pprof's rule keeps from the counts once per stack")
        return 0
    if asc != desc and sorted(ours["edges"]) == asc and set(ref["edges"]) <= set(full["edges"]):
        print("same nodes; edges differ only where google-pprof breaks ties by hash order")
        return 0
    a, b = set(ours["edges"]), set(ref["edges"])
    for e in sorted(a - b)[:10]:
        print("only ours: %s" % (e,))
    for e in sorted(b - a)[:10]:
        print("only google-pprof: %s" % (e,))
    return 1


LABEL = re.compile(r"^(.*)\\n(-?\d+) \([^)]*\)(?:\\rof (-?\d+) \([^)]*\))?\\r$")


def check(our_path, text_path, nodecount, nodefraction, edgefraction, maxdeg):
    """Trimming consistent with the options and with the text report."""
    g = load(our_path)
    total, local, nl, el = legend(g)
    bad = []
    text = open(text_path).read().splitlines()
    if not text or text[0] != "Total: %d samples" % total:
        bad.append("legend total %d, text report %r" % (total, text[:1]))
    if local is None:
        local = sum(int(line.split(None, 1)[0]) for line in text[1:])
    if nl != int(nodefraction * local) or el != int(edgefraction * local):
        bad.append("limits %d, %d for local total %d" % (nl, el, local))
    nodes = {}
    for name, attrs in g["nodes"].items():
        if name == "Legend":
            continue
        m = LABEL.match(attrs[0])
        if not m:
            bad.append("label %r" % attrs[0])
            continue
        flat = int(m.group(2))
        cum = int(m.group(3)) if m.group(3) is not None else flat
        nodes[name] = (m.group(1), flat, cum)
    if len(nodes) > nodecount:
        bad.append("%d nodes, more than %d" % (len(nodes), nodecount))
    for name, (key, flat, cum) in nodes.items():
        if abs(cum) <= nl:
            bad.append("node %s has |cum| %d <= %d" % (key, cum, nl))
    # The nodes are the text report's entries by |cum|, name; first nodecount, trimmed.
    rows = []
    for line in text[1:]:
        f = line.split(None, 5)
        key = re.sub(r"\s+", r"\\n", f[5]).replace("::", "\\n")
        rows.append((-abs(int(f[3])), key, int(f[0]), int(f[3])))
    rows.sort(key=lambda r: (r[0], r[1].encode()))
    want = rows[:nodecount]
    while want and -want[-1][0] <= nl:
        want.pop()
    got = [nodes["N%d" % (i + 1)] if "N%d" % (i + 1) in nodes else None
           for i in range(len(nodes))]
    if [(r[1], r[2], r[3]) for r in want] != got:
        bad.append("nodes %s, text report gives %s"
                   % ([x[0] for x in got if x][:8], [r[1] for r in want][:8]))
    indeg, counts = {}, {}
    for e in g["edges"]:
        indeg[e[1]] = indeg.get(e[1], 0) + 1
        counts.setdefault(e[1], []).append(int(e[2]))
    for d, n in indeg.items():
        if n > max(1, maxdeg):
            bad.append("node %s has %d in-edges, maxdegree %d" % (d, n, maxdeg))
        if all(c >= 0 for c in counts[d]) and n > 1 and min(counts[d]) <= el:
            bad.append("node %s keeps an edge <= %d besides another" % (d, el))
    if bad:
        print("\n".join(bad[:20]))
        return 1
    print("%d nodes, %d edges, limits %d and %d" % (len(nodes), len(g["edges"]), nl, el))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
                         sys.argv[7] == "1"))
    sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]),
                   float(sys.argv[6]), int(sys.argv[7])))
EOF

# maxdegree_of OPTS...: the --maxdegree value among OPTS (8 by default).
maxdegree_of() {
	local m=8 a
	for a in "$@"; do
		case $a in --maxdegree=*) m=${a#--maxdegree=} ;; esac
	done
	echo "$m"
}

# compare NAME ARGS...: pprof --dot ARGS against google-pprof --dot ARGS.
compare() {
	local name=$1; shift
	local rc out focused
	"$REF" --dot "$@" >"$W/ref.dot" 2>"$W/ref.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$W/ref.dot" ]; then
		not_ok "$name: google-pprof --dot failed (status $rc), nothing to compare"
		show "$W/ref.err" 5
		return
	fi
	# Every edge between the nodes: the last --maxdegree and --edgefraction win.
	# A fraction of 0 still drops edges of count 0 into a node already reached;
	# with --base, a negative total makes every limit negative and keeps those,
	# so there the fraction is 1: its limit, the total, keeps every candidate.
	local ef=0
	grep -q 'Focusing on: -' "$W/ref.dot" && ef=1
	"$REF" --dot "$@" --maxdegree=1000000 --edgefraction=$ef >"$W/full.dot" 2>/dev/null
	timeout 60 "$PP" --dot "$@" >"$W/our.dot" 2>"$W/our.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		not_ok "$name: pprof --dot exits 0 (status $rc)"
		show "$W/our.err" 5
		return
	fi
	timeout 60 "$PP" --dot "$@" --maxdegree=1000000 --edgefraction=$ef >"$W/ourfull.dot" 2>/dev/null
	norm "$W/ref.dot" >"$W/ref.n"
	norm "$W/our.dot" >"$W/our.n"
	norm "$W/full.dot" >"$W/full.n"
	norm "$W/ourfull.dot" >"$W/ourfull.n"
	case " $* " in *" --focus="*|*" --ignore="*) focused=1 ;; *) focused=0 ;; esac
	if out=$(python3 "$W/graph.py" compare "$W/ref.n" "$W/our.n" "$W/full.n" "$W/ourfull.n" \
		"$(maxdegree_of "$@")" "$focused"); then
		ok "$name: --dot matches google-pprof ($out)"
	else
		not_ok "$name: --dot matches google-pprof"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
	# Our notes on stderr ("Dropping nodes ...") must be google-pprof's too.
	if grep -qvxF -f "$W/ref.err" "$W/our.err"; then
		not_ok "$name: stderr holds only what google-pprof prints"
		show "$W/our.err" 5 stderr
	else
		ok "$name: stderr holds only what google-pprof prints"
	fi
}

# --- 1a. the committed static program (no build needed) ------------------------
for opts in "" --lines --addresses --files --cum --focus=mid --ignore=leaf_b --nodecount=3 \
	--nodefraction=0.2 --edgefraction=0.1 --maxdegree=1 --show_addresses \
	"--focus=walk --lines"; do
	# shellcheck disable=SC2086 # split the option words
	compare "golden prof64le ${opts:-(defaults)}" $opts "$G/prog" "$G/prof64le.prof"
done
compare "golden prof32le --lines" --lines "$G/prog" "$G/prof32le.prof"

# A profile without call chains (one frame per sample): nodes, no edges.
cat >"$W/flat.txt" <<'EOF'
40: 4016b3
30: 401708
map build=/golden
map 00401000-00479000 r-xp 00001000 08:01 1234 $build/prog
EOF
if python3 "$TOP/scripts/gen-cpuprofile" -o "$W/flat.prof" "$W/flat.txt"; then
	compare "flat profile" "$G/prog" "$W/flat.prof"
	if [ -s "$W/our.n" ] && ! grep -q '^edge' "$W/our.n" && [ "$(grep -c '^node' "$W/our.n")" -eq 3 ]; then
		ok "flat profile: two nodes and the legend, no edges"
	else
		not_ok "flat profile: two nodes and the legend, no edges"
	fi
else
	not_ok "gen-cpuprofile writes the flat profile"
fi

# --base on generated profiles of the static program: callers in any order
# repeat pairs in a stack (our counts once per stack differ there), the
# same stacks on both sides cancel to edges of count 0, and a negative
# total makes the limits negative.  Fixed seeds, so a failure repeats;
# these are ones where comparing with google-pprof's full graph alone
# (before the candidates were completed) went wrong, and a few others.
cat >"$W/gen-base.py" <<'EOF'
import random
import sys

# Addresses in prog (see testdata/golden/stacks.txt): leaf_a, leaf_b, mix
# inlined in mid, then return addresses in mid, walk, other and main.
PCS = ["4016b3", "401708", "401762", "401777", "401782", "4017c6", "4017e5", "40181c",
       "401528", "401538", "401543"]
OUTER = ["401b54", "403250", "401591"]


def stack(r):
    """Callers in any order, so pairs repeat and cycles form."""
    return " ".join([r.choice(PCS) for _ in range(r.randint(1, 6))] + OUTER)


r = random.Random(int(sys.argv[1]))
pool = sorted({stack(r) for _ in range(40)})
a = [(r.randint(1, 30), s) for s in r.sample(pool, r.randint(4, 12))]
# b: some of a's stacks with their counts (they cancel), and others.
b = [x for x in a if r.random() < 0.3]
b += [(r.randint(1, 30), s) for s in r.sample(pool, r.randint(4, 12))]
for name, records in (("a", a), ("b", b)):
    with open("%s/base%s-%s.txt" % (sys.argv[2], sys.argv[1], name), "w") as f:
        f.write("period 10000\n")
        for n, s in records:
            f.write("%d: %s\n" % (n, s))
        f.write("map 00401000-00479000 r-xp 00001000 08:01 1234 /golden/prog\n")
EOF
for seed in 1 2 3 13 75 88 125 140 156 170 172 178; do
	if python3 "$W/gen-base.py" "$seed" "$W" &&
		python3 "$TOP/scripts/gen-cpuprofile" -o "$W/base$seed-a.prof" "$W/base$seed-a.txt" &&
		python3 "$TOP/scripts/gen-cpuprofile" -o "$W/base$seed-b.prof" "$W/base$seed-b.txt"; then
		for opts in "" --edgefraction=0.05 --maxdegree=1; do
			# shellcheck disable=SC2086
			compare "generated --base $seed ${opts:-(defaults)}" $opts \
				--base="$W/base$seed-a.prof" "$G/prog" "$W/base$seed-b.prof"
		done
	else
		not_ok "generated --base $seed: gen-cpuprofile writes both profiles"
	fi
done

# --- 1b. real profiles ------------------------------------------------------------
# profile NAME RUN [ARG]: runs $W/NAME [ARG], writing $W/NAME-RUN.prof.
profile() {
	cpu_profile "$1 run $2" "$W/$1" "$W/$1-$2.prof" ${3:+"$3"}
}

have_c=
have_cxx=
build c-prog gcc -g -O2 -o "$W/c-prog" "$PROGS/cprog.c" "${PROF_LIBS[@]}" &&
	profile c-prog a && profile c-prog b 2 && have_c=1
build cxx-prog g++ -g -O2 -o "$W/cxx-prog" "$PROGS/cxxprog.cc" "${PROF_LIBS[@]}" &&
	profile cxx-prog a && have_cxx=1

C=("$W/c-prog" "$W/c-prog-a.prof")
if [ -n "$have_c" ]; then
	for opts in "" --lines --addresses --files --focus=format_lines "--ignore=fib|memcpy" \
		--nodecount=5 "--nodefraction=0.05 --edgefraction=0.02" --maxdegree=2; do
		# shellcheck disable=SC2086
		compare "c-prog ${opts:-(defaults)}" $opts "${C[@]}"
	done
	compare "c-prog two profiles" "$W/c-prog" "$W/c-prog-a.prof" "$W/c-prog-b.prof"
	compare "c-prog --base" --base="$W/c-prog-a.prof" "$W/c-prog" "$W/c-prog-b.prof"
fi
if [ -n "$have_cxx" ]; then
	for opts in "" --lines "--focus=work::" --maxdegree=2 --nodecount=12; do
		# shellcheck disable=SC2086
		compare "cxx-prog ${opts:-(defaults)}" $opts "$W/cxx-prog" "$W/cxx-prog-a.prof"
	done
	if grep -q 'dashed' "$W/our.n"; then
		ok "cxx-prog: edges into inlined code are dashed"
	else
		not_ok "cxx-prog: edges into inlined code are dashed"
	fi
fi
[ -n "$have_c" ] || { echo "# no c-prog profile: the remaining checks need it"; exit 1; }

# --- 2. trimming consistency --------------------------------------------------------
"$PP" --text "${C[@]}" >"$W/text" 2>/dev/null
# trim NAME NODECOUNT NODEFRACTION EDGEFRACTION MAXDEGREE
trim() {
	local out
	"$PP" --dot --nodecount="$2" --nodefraction="$3" --edgefraction="$4" --maxdegree="$5" \
		"${C[@]}" >"$W/trim.dot" 2>/dev/null
	norm "$W/trim.dot" >"$W/trim.n"
	if out=$(python3 "$W/graph.py" check "$W/trim.n" "$W/text" "$2" "$3" "$4" "$5"); then
		ok "trim $1: consistent with the options and the text report ($out)"
	else
		not_ok "trim $1: consistent with the options and the text report"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}
trim defaults 80 0.005 0.001 8
trim nodecount=5 5 0.005 0.001 8
trim nodecount=1 1 0.005 0.001 8
trim nodefraction=0.1 80 0.1 0.001 8
trim "edgefraction=0.05 maxdegree=2" 80 0.005 0.05 2
trim maxdegree=1 80 0 0 1
n=$(grep -c '^node	N' "$W/trim.n")
[ "$n" -gt 0 ] || not_ok "trim maxdegree=1 draws nodes"

if "$PP" --dot --nodecount=0 "${C[@]}" >"$W/none.dot" 2>"$W/none.err"; then
	not_ok "--nodecount=0: no nodes to print, status 1"
elif grep -q 'no nodes to print' "$W/none.err" && [ ! -s "$W/none.dot" ]; then
	ok "--nodecount=0: no nodes to print, status 1"
else
	not_ok "--nodecount=0: no nodes to print, status 1"
fi

# --- 3. rendered formats -------------------------------------------------------------
"$PP" --dot "${C[@]}" >"$W/g.dot" 2>/dev/null
norm "$W/g.dot" >"$W/g.n"
nodes=$(grep -c '^node' "$W/g.n")
edges=$(grep -c '^edge' "$W/g.n")
total=$(sed -n 's/^Total: \([0-9]*\) samples$/\1/p' "$W/text")
# kind NAME FILE PATTERN: `file` says PATTERN about FILE.
kind() {
	local what
	what=$(file -b "$2")
	if printf '%s\n' "$what" | grep -q "$3"; then
		ok "$1 is $3"
	else
		not_ok "$1 is $3 (file: $what)"
	fi
}
for f in ps pdf svg png gif; do
	if "$PP" --"$f" "${C[@]}" >"$W/g.$f" 2>"$W/g.$f.err" && [ -s "$W/g.$f" ]; then
		ok "--$f exits 0 with output"
	else
		not_ok "--$f exits 0 with output"
		show "$W/g.$f.err" 5
	fi
done
kind --ps "$W/g.ps" 'PostScript document'
kind --pdf "$W/g.pdf" 'PDF document'
kind --svg "$W/g.svg" 'SVG Scalable Vector Graphics image'
kind --png "$W/g.png" 'PNG image data'
kind --gif "$W/g.gif" 'GIF image data'
check "--pdf: pdfinfo reads one page" sh -c "pdfinfo '$W/g.pdf' | grep -q '^Pages: *1$'"
# The same graph: the legend's text in PDF and PostScript, every node and edge in SVG.
pdftotext "$W/g.pdf" "$W/g.pdf.txt" 2>/dev/null
check "--pdf shows the legend" grep -q "Total samples: $total" "$W/g.pdf.txt"
check "--pdf shows the nodes" grep -q "msort_with_tmp" "$W/g.pdf.txt"
check "--ps shows the legend" grep -q "Total samples: $total" "$W/g.ps"
svg_nodes=$(grep -c 'class="node"' "$W/g.svg")
svg_edges=$(grep -c 'class="edge"' "$W/g.svg")
if [ "$svg_nodes" -eq "$nodes" ] && [ "$svg_edges" -eq "$edges" ]; then
	ok "--svg draws the $nodes nodes and $edges edges of --dot"
else
	not_ok "--svg draws the $nodes nodes and $edges edges of --dot (svg: $svg_nodes, $svg_edges)"
fi
# As google-pprof's: the graph fills the window and a script pans and zooms it.
check "--svg is well-formed XML" python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$W/g.svg"
check "--svg fills the window, without a viewBox" \
	sh -c "grep -q '^<svg width=\"100%\" height=\"100%\"\$' '$W/g.svg' && ! grep -q 'viewBox=' '$W/g.svg'"
check "--svg puts the graph inside the viewport group" \
	sh -c "grep -A1 '^<g id=\"viewport\" transform=\"translate(0,0)\">\$' '$W/g.svg' | grep -q '^<g id=\"graph0\"'"
node "$TOP/tests/svgpan.js" "$W/g.svg" >"$W/svgpan.out" 2>&1 || FAILED=1
cat "$W/svgpan.out"
grep -q '^ok - ' "$W/svgpan.out" || not_ok "node runs tests/svgpan.js"
# Edges narrower than 1 are drawn 1 wide in SVG (pprof's rule for --svg and --web).
if grep -q 'stroke-width="0\.' "$W/g.svg"; then
	not_ok "--svg: no edge is thinner than 1"
else
	ok "--svg: no edge is thinner than 1"
fi

# -o FILE: written whole; a failure leaves the old file alone and no temporary file.
mkdir -p "$W/o"
check "-o FILE writes a PDF" sh -c "'$PP' --pdf -o '$W/o/g.pdf' '${C[0]}' '${C[1]}' 2>/dev/null &&
	pdfinfo '$W/o/g.pdf' >/dev/null 2>&1"
cp "$W/o/g.pdf" "$W/o/before"
if "$PP" --pdf --nodecount=0 -o "$W/o/g.pdf" "${C[@]}" 2>/dev/null; then
	not_ok "-o FILE: a failed run exits 1"
else
	ok "-o FILE: a failed run exits 1"
fi
check "-o FILE: a failed run leaves FILE as it was" cmp -s "$W/o/before" "$W/o/g.pdf"
if [ "$(ls "$W/o" | wc -l)" -eq 2 ]; then
	ok "-o FILE: no temporary file is left behind"
else
	not_ok "-o FILE: no temporary file is left behind ($(ls "$W/o" | tr '\n' ' '))"
fi

# --- 4. no dot or ps2pdf is run ---------------------------------------------------
mkdir -p "$W/trap"
for t in dot ps2pdf neato; do
	printf '#!/bin/sh\necho ran >>"%s"\nexit 1\n' "$W/trap/ran" >"$W/trap/$t"
	chmod +x "$W/trap/$t"
done
for f in ps pdf svg png gif; do
	if env PATH=/nonexistent "$PP" --"$f" "${C[@]}" >"$W/nopath.$f" 2>/dev/null &&
		[ "$(file -b "$W/nopath.$f" | cut -c1-3)" = "$(file -b "$W/g.$f" | cut -c1-3)" ]; then
		ok "--$f renders with an empty PATH"
	else
		not_ok "--$f renders with an empty PATH"
	fi
	env PATH="$W/trap" "$PP" --"$f" "${C[@]}" >/dev/null 2>&1
done
if [ -e "$W/trap/ran" ]; then
	not_ok "no dot, neato or ps2pdf program is run"
else
	ok "no dot, neato or ps2pdf program is run"
fi

# --- 5. Graphviz plugins -----------------------------------------------------------
# GVBINDIR is where gvc looks for its plugins and their "config6a" list.
mkdir -p "$W/gvempty"
if GVBINDIR=$W/gvempty "$PP" --png "${C[@]}" >"$W/nocfg.png" 2>"$W/nocfg.err"; then
	kind "--png without a Graphviz plugin configuration" "$W/nocfg.png" 'PNG image data'
else
	not_ok "--png without a Graphviz plugin configuration"
	show "$W/nocfg.err" 5
fi
gvlib=$(pkg-config --variable=libdir libgvc 2>/dev/null)/graphviz
if [ -f "$gvlib/config6a" ] && [ -e "$gvlib/libgvplugin_core.so.6" ]; then
	# Only the core and dot layout plugins: SVG works, PDF needs the cairo (pango) one.
	mkdir -p "$W/gvpart"
	awk '/^libgvplugin_(core|dot_layout)\.so/ { on = 1 } on { print } on && /^}/ { on = 0 }' \
		"$gvlib/config6a" >"$W/gvpart/config6a"
	ln -sf "$gvlib/libgvplugin_core.so.6" "$gvlib/libgvplugin_dot_layout.so.6" "$W/gvpart/"
	if GVBINDIR=$W/gvpart "$PP" --pdf "${C[@]}" >"$W/part.pdf" 2>"$W/part.err"; then
		not_ok "--pdf without the cairo plugin fails"
	elif grep -q 'pdf.*libgvplugin_pango.*libgvc6' "$W/part.err" && [ ! -s "$W/part.pdf" ]; then
		ok "--pdf without the cairo plugin fails, naming the plugin and its package"
	else
		not_ok "--pdf without the cairo plugin fails, naming the plugin and its package"
		show "$W/part.err" 5
	fi
	GVBINDIR=$W/gvpart "$PP" --svg "${C[@]}" >"$W/part.svg" 2>/dev/null
	kind "--svg with only the core plugins" "$W/part.svg" 'SVG'
else
	skip "no $gvlib/config6a to take plugins from"
fi

# --- 6. viewers -----------------------------------------------------------------
# Fake viewers record their arguments and copy the file they are given.
mkdir -p "$W/bin" "$W/nobin" "$W/vtmp"
for v in gv evince browser; do
	cat >"$W/bin/$v" <<EOF
#!/bin/sh
PATH=/usr/bin:/bin
for a; do last=\$a; done
printf '%s\n' "\$@" >"$W/$v.args"
cp "\$last" "$W/$v.copy"
EOF
	chmod +x "$W/bin/$v"
done
# viewer NAME OPTION KIND: runs pprof OPTION with the fakes, checks the copy.
viewer() {
	local file
	rm -f "$W/$1.args" "$W/$1.copy"
	if ! env PATH="$W/bin" BROWSER="$W/bin/browser" TMPDIR="$W/vtmp" "$PP" "$2" "${C[@]}" \
		>"$W/$1.out" 2>"$W/$1.err"; then
		not_ok "$2 exits 0"
		show "$W/$1.err" 5
		return
	fi
	kind "$2 shows a file that" "$W/$1.copy" "$3"
	check "$2 prints nothing on stdout" test ! -s "$W/$1.out"
	file=$(tail -n 1 "$W/$1.args")
	case $file in
	/*) ok "$2 passes an absolute temporary file ($file)" ;;
	*) not_ok "$2 passes an absolute temporary file ($file)" ;;
	esac
	if [ "$1" != browser ]; then
		check "$2 removes its temporary file" test ! -e "$file"
	fi
}
viewer gv --gv 'PostScript document'
check "--gv passes gperftools pprof's gv options" grep -qx -- '--noantialias' "$W/gv.args"
viewer evince --evince 'PDF document'
viewer browser --web 'SVG'
check "--web's file pans and zooms as --svg does" grep -q '^<g id="viewport"' "$W/browser.copy"
check "--web says which file it loads" grep -q '^Loading web page file:///' "$W/browser.err"
web_file=$(tail -n 1 "$W/browser.args")
for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
	[ -e "$web_file" ] || break
	sleep 1
done
check "--web removes its temporary file a few seconds later" test ! -e "$web_file"
# Missing viewers: status 1 and what to install.  Under valgrind,
# posix_spawnp's child is a plain fork that cannot report a failed exec
# (it exits 127 instead), so there these checks are skipped.
for v in gv evince; do
	if [ -n "${VALGRIND_EXIT:-}" ]; then
		skip "--$v without $v fails and says to install $v (not under valgrind)"
	elif env PATH="$W/nobin" TMPDIR="$W/vtmp" "$PP" --$v "${C[@]}" >/dev/null 2>"$W/miss.err"; then
		not_ok "--$v without $v fails"
	elif grep -q "'$v'.*install the $v package" "$W/miss.err"; then
		ok "--$v without $v fails and says to install $v"
	else
		not_ok "--$v without $v fails and says to install $v"
		show "$W/miss.err"
	fi
done
if [ -n "${VALGRIND_EXIT:-}" ]; then
	skip "--web without \$BROWSER or xdg-open fails and says what to install (not under valgrind)"
elif env -u BROWSER PATH="$W/nobin" TMPDIR="$W/vtmp" "$PP" --web "${C[@]}" >/dev/null 2>"$W/miss.err"; then
	not_ok "--web without a browser fails"
elif grep -q "xdg-open.*xdg-utils.*BROWSER" "$W/miss.err"; then
	ok "--web without \$BROWSER or xdg-open fails and says what to install"
else
	not_ok "--web without \$BROWSER or xdg-open fails and says what to install"
	show "$W/miss.err"
fi
if [ -z "$(ls -A "$W/vtmp")" ]; then
	ok "no viewer temporary file is left behind"
else
	not_ok "no viewer temporary file is left behind ($(ls "$W/vtmp" | tr '\n' ' '))"
fi

# --- 7. the picture in the README --------------------------------------------------
kind docs/graph.png "$TOP/docs/graph.png" 'PNG image data'
check "README shows docs/graph.png" grep -q 'docs/graph.png' "$TOP/README"

exit "$FAILED"
