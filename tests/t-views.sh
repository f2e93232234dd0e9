#!/usr/bin/env bash
# t-views.sh - Go pprof's views and filters: --traces, --tree, --peek, --tags,
# --flame, --hide/--show/--show_from/--prune_from, --tagfocus/--tagignore,
# --noinlines, --filefunctions, --nodecount for text, --diff_base, Go's
# single-dash spellings, and the prompt's commands and active filters.
#
# 1. On a real Go CPU profile with labels (and the other profiles of
#    scripts/gen-goprofiles) and on a real libprofiler profile (read as it
#    is by us, and through our --proto by go tool pprof), each view's
#    numbers equal go tool pprof's for the same options, compared parsed
#    (tests/views.py): traces sample by sample, tree and peek node by node
#    with their callers and callees, tags value by value.  --proto writes
#    what the filters leave.
# 2. The flame graph: a well-formed SVG with nothing from outside, whose
#    hottest functions' frames are as wide as their share of go tool pprof's
#    total; Debian's chromium opens it headless, runs its script (zoom and
#    search, asked for in the address) and takes a screenshot; librsvg
#    (what image viewers use) draws it.
# 3. Options: single-dash spellings equal double-dash ones and no prefix
#    shadows an exact name; --help and the man page describe every view.
# 4. The prompt: traces, tree, peek RE, tags and flame equal the command
#    line's; filter settings persist and "options" lists them.
# Part 1 and the widths of part 2 need go (golang-go, from
# scripts/install-deps) and skip without it.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/views
mkdir -p "$W"
VIEWS=$TOP/tests/views.py

require --libprofiler python3 gcc chromium rsvg-convert || exit 1

# compare NAME VIEW PROFILE_OURS PROFILE_GO OPTS...: our --VIEW and Go's
# -VIEW with OPTS (written once, single-dash, for both) agree.
compare() {
	local name=$1 view=$2 ours=$3 theirs=$4 arg= opts
	shift 4
	opts="$*"
	opts=${opts//$W\//}
	case $view in peek=*) arg=${view#peek=}; view=peek ;; esac
	timeout 60 "$PPROF" "-$view${arg:+=$arg}" "$@" $ours >"$W/ours.txt" 2>"$W/ours.err"
	local rc=$?
	go tool pprof "-$view${arg:+=$arg}" "$@" "$theirs" >"$W/go.txt" 2>"$W/go.err"
	if [ "$rc" -ne 0 ]; then
		not_ok "$name: --$view $opts runs (status $rc)"
		show "$W/ours.err" 5
	elif python3 "$VIEWS" compare "$view" "$W/ours.txt" "$W/go.txt" \
		"$([ "$ours" = "$theirs" ] || echo unordered)" >"$W/cmp.log"; then
		ok "$name: --$view $opts equals go tool pprof's"
	else
		not_ok "$name: --$view $opts equals go tool pprof's"
		cat "$W/cmp.log"
		show "$W/go.err" 3 go
	fi
}

# --- 1. Go's profiles and a libprofiler profile, against go tool pprof -------
cat >"$W/prog.c" <<'EOF'
volatile double sink;
__attribute__((noinline)) static void leaf_a(int n) { double x = 0; for (int i = 0; i < n; i++) x += i * 0.5; sink = x; }
__attribute__((noinline)) static void leaf_b(int n) { double x = 1; for (int i = 0; i < n; i++) x *= 1.0000001; sink = x; }
__attribute__((noinline)) static void mid(int n) { leaf_a(n); leaf_b(n / 2); }
__attribute__((noinline)) static void outer(int n) { mid(n); leaf_a(n / 3); }
int main(void) { for (int r = 0; r < 50; r++) { outer(2000000); mid(1000000); leaf_b(1000000); } return 0; }
EOF
GP=
if build prog gcc -g -O2 -o "$W/prog" "$W/prog.c" "${PROF_LIBS[@]}" &&
	cpu_profile prog "$W/prog" "$W/prog.prof"; then
	GP=1
	"$PPROF" --proto "$W/prog" "$W/prog.prof" >"$W/prog.pb.gz" 2>/dev/null
fi

if ! have go; then
	skip "go is not installed (golang-go; run scripts/install-deps): comparisons with go tool pprof"
elif ! "$TOP/scripts/gen-goprofiles" "$W/go" >"$W/gen.log" 2>&1; then
	not_ok "scripts/gen-goprofiles runs"
	show "$W/gen.log" 20
else
	C=$W/go/cpu.pb.gz
	for v in traces tree tags peek=burn; do
		compare "go cpu" "$v" "$C" "$C"
	done
	compare "go cpu" tree "$C" "$C" -cum -unit=ms
	compare "go cpu" tree "$C" "$C" -nodecount=4
	compare "go cpu" tree "$C" "$C" -hide=runtime
	compare "go cpu" tree "$C" "$C" -show='main\.'
	compare "go cpu" traces "$C" "$C" -show_from=burnC
	compare "go cpu" tree "$C" "$C" -prune_from=burnC
	compare "go cpu" tree "$C" "$C" -show_from=main.main -hide=func
	compare "go cpu" tree "$C" "$C" -tagfocus=worker=b
	compare "go cpu" traces "$C" "$C" -tagignore=phase=one
	compare "go cpu" tags "$C" "$C" -tagfocus=worker=c,b -tagignore=phase=t
	compare "go cpu" traces "$C" "$C" -tagfocus='b|c'
	compare "go cpu" tree "$C" "$C" -lines
	compare "go cpu" tree "$C" "$C" -filefunctions
	# --proto writes the profile the filters leave: go tool pprof sees in it
	# what its own filters leave.
	for f in -hide=runtime -show=main -show_from=burnC -prune_from=burnC -tagfocus=worker=b; do
		"$PPROF" --proto "$f" "$C" >"$W/f.pb.gz" 2>/dev/null
		go tool pprof -tree "$W/f.pb.gz" >"$W/ours.txt" 2>/dev/null
		go tool pprof -tree "$f" "$C" >"$W/go.txt" 2>/dev/null
		if python3 "$VIEWS" compare tree "$W/ours.txt" "$W/go.txt" >"$W/cmp.log"; then
			ok "go cpu: --proto $f, read by go tool pprof, is what its $f leaves"
		else
			not_ok "go cpu: --proto $f, read by go tool pprof, is what its $f leaves"
			cat "$W/cmp.log"
		fi
	done
	compare "go allocs" traces "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz" -lines
	compare "go allocs" tree "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz" -lines
	compare "go cpu" traces "$C" "$C" -noinlines
	for p in heap allocs mutex block goroutine; do
		compare "go $p" traces "$W/go/$p.pb.gz" "$W/go/$p.pb.gz"
		compare "go $p" tree "$W/go/$p.pb.gz" "$W/go/$p.pb.gz"
	done
	compare "go allocs" tags "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz"
	compare "go allocs" tags "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz" -tagfocus=bytes=1kb:64kb
	compare "go allocs" tree "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz" -tagignore=:2kb
	compare "go allocs" tree "$W/go/allocs.pb.gz" "$W/go/allocs.pb.gz" -noinlines -sample_index=0
	compare "go block" peek=Lock "$W/go/block.pb.gz" "$W/go/block.pb.gz" -show='sync|main'
	# --diff_base: percentages of the base, Go's pprof::base mark on its
	# samples.  The base: part of the profile, through our --proto.
	"$PPROF" --proto --focus='burnA|func3' "$C" >"$W/base.pb.gz" 2>/dev/null
	for v in tree traces tags peek=burnB text; do
		compare "go diff_base" "$v" "$C" "$C" -diff_base="$W/base.pb.gz"
	done
	if [ -n "$GP" ]; then
		L="$W/prog $W/prog.prof"
		for v in traces tree peek=leaf; do
			compare "libprofiler" "$v" "$L" "$W/prog.pb.gz" -unit=ms
		done
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -hide=leaf_b
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -show='leaf|mid'
		compare "libprofiler" traces "$L" "$W/prog.pb.gz" -unit=ms -show_from=outer
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -prune_from=mid
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -nodecount=3 -cum
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -lines
		compare "libprofiler" tree "$L" "$W/prog.pb.gz" -unit=ms -focus=mid -noinlines
	fi
fi

# --- 2. the flame graph -----------------------------------------------------------
# flame NAME SVG: well-formed, self-contained, opens in chromium.
flame_checks() {
	local name=$1 svg=$2
	check "$name: the SVG is well-formed XML" python3 -c \
		"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$svg"
	check "$name: nothing comes from outside (no href, url(), import or font file)" \
		bash -c "! grep -Eiq 'href|url\\(|@import|@font-face|<image|src=' '$svg'"
	check "$name: its script is inline" grep -q '<script type="text/ecmascript"><!\[CDATA\[' "$svg"
}

chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$W/chromium" "$@" 2>"$W/chromium.err"
}

if [ -n "$GP" ]; then
	run_pprof --flame "$W/prog" "$W/prog.prof"
	cp "$W/out" "$W/prog.svg"
	clean_exit "libprofiler: --flame" "$RC" "$W/err" 0
	flame_checks "libprofiler flame graph" "$W/prog.svg"
	if have go; then
		go tool pprof -top -cum -unit=ns "$W/prog.pb.gz" >"$W/prog.top" 2>/dev/null
		check "libprofiler flame graph: the hottest functions' widths are their shares of the total" \
			python3 "$VIEWS" flame "$W/prog.svg" "$W/prog.top" 6
	fi
	# A frame of mid: zoom into it, and search leaf_a.
	id=$(grep -o 'id="f[0-9]*" data-name="mid"' "$W/prog.svg" | head -n 1 | sed 's/id="\(f[0-9]*\)".*/\1/')
	chrome --dump-dom "file://$W/prog.svg#zoom=$id&search=leaf_a" >"$W/dom.txt"
	check "chromium opens the flame graph and runs its script" grep -q 'data-ready="1"' "$W/dom.txt"
	python3 - "$W/dom.txt" "$id" "$W/prog.svg" >"$W/zoom.log" <<'EOF'
import re, sys
dom, fid, svg = open(sys.argv[1]).read(), sys.argv[2], open(sys.argv[3]).read()
m = re.search(r'<g class="f" id="%s"[^>]*>.*?<rect [^>]*width="([0-9.]+)"' % fid, dom)
ok = m and abs(float(m.group(1)) - 1200) < 0.01
print("zoomed frame width:", m and m.group(1))
hits = re.findall(r'data-name="([^"]*)"[^>]*data-hit="1"', dom)
ok = ok and hits and all(h == "leaf_a" for h in hits)
shares = re.search(r'Matched: ([0-9.]+)%', dom)
# leaf_a's share: the widths of its frames (never nested) in the static SVG.
want = sum(float(w) for w in re.findall(r'data-name="leaf_a" data-x="[0-9.]+" data-w="([0-9.]+)"', svg)) / 12
print("matched:", shares and shares.group(1), "want", round(want, 1))
ok = ok and shares and abs(float(shares.group(1)) - want) < 0.06
sys.exit(0 if ok else 1)
EOF
	if [ $? -eq 0 ]; then
		ok "chromium: a click's zoom spans the width, search marks leaf_a and its share"
	else
		not_ok "chromium: a click's zoom spans the width, search marks leaf_a and its share"
		show "$W/zoom.log"
	fi
	chrome --screenshot="$W/flame.png" --window-size=1240,400 "file://$W/prog.svg" >/dev/null
	check "chromium takes a screenshot of it" test -s "$W/flame.png"
	# What image viewers use (librsvg): the static drawing, without the script.
	check "librsvg (image viewers) draws it" bash -c \
		"rsvg-convert -o '$W/flame-rsvg.png' '$W/prog.svg' 2>'$W/rsvg.err' && test -s '$W/flame-rsvg.png' && ! test -s '$W/rsvg.err'"
fi
if have go && [ -s "$W/go/cpu.pb.gz" ]; then
	run_pprof --flame "$W/go/cpu.pb.gz"
	cp "$W/out" "$W/go.svg"
	clean_exit "go cpu: --flame" "$RC" "$W/err" 0
	flame_checks "go cpu flame graph" "$W/go.svg"
	go tool pprof -top -cum -unit=ns "$W/go/cpu.pb.gz" >"$W/go.top" 2>/dev/null
	check "go cpu flame graph: the hottest functions' widths are their shares of the total" \
		python3 "$VIEWS" flame "$W/go.svg" "$W/go.top" 8
fi

# --- 3. options --------------------------------------------------------------------
P=$TESTDATA/golden
run_pprof -top "$P/prog" "$P/prof64le.prof"
cp "$W/out" "$W/top.txt"
"$PPROF" --text "$P/prog" "$P/prof64le.prof" >"$W/text.txt" 2>/dev/null
same_output "-top is --text" "$W/text.txt" "$W/top.txt"
for f in tree traces tags; do
	"$PPROF" "-$f" "$P/prog" "$P/prof64le.prof" >"$W/single" 2>&1
	"$PPROF" "--$f" "$P/prog" "$P/prof64le.prof" >"$W/double" 2>&1
	same_output "-$f is --$f" "$W/double" "$W/single"
done
"$PPROF" -tree -show=walk -output="$W/o.txt" "$P/prog" "$P/prof64le.prof" 2>/dev/null
"$PPROF" --tree --show=walk "$P/prog" "$P/prof64le.prof" >"$W/o2.txt" 2>/dev/null
same_output "-show is --show, not a prefix of --show_addresses or --show_from; -output writes" \
	"$W/o2.txt" "$W/o.txt"
run_pprof -tag=x "$P/prog" "$P/prof64le.prof"
check "-tag is ambiguous (tags, tagfocus, tagignore)" grep -q "ambiguous" "$W/err"
"$PPROF" -text -nodecount=3 "$P/prog" "$P/prof64le.prof" >"$W/n3.txt" 2>/dev/null
head -n 4 "$W/text.txt" >"$W/text4.txt"
same_output "--nodecount=3 limits the text report to 3 rows" "$W/text4.txt" "$W/n3.txt"
"$PPROF" --help >"$W/help.txt"
for o in traces tree peek tags flame top hide show show_from prune_from tagfocus tagignore \
	noinlines filefunctions granularity nodecount unit diff_base; do
	check "--help describes --$o" grep -q -- "--$o\\b" "$W/help.txt"
	check "the man page describes --$o" grep -q -- "^\\.BR* *\\\\-\\\\-$o\\b\|\\\\-\\\\-$o\\b" "$TOP/man/pprof.1"
done

# --- 4. the prompt -----------------------------------------------------------------------
prompt() { printf "$1" | "$PPROF" --interactive "$P/prog" "$P/prof64le.prof" 2>"$W/perr"; }
for v in traces tree tags; do
	prompt "$v\n" >"$W/p.txt"
	"$PPROF" "--$v" "$P/prog" "$P/prof64le.prof" >"$W/c.txt" 2>/dev/null
	same_output "prompt: $v equals --$v" "$W/c.txt" "$W/p.txt"
done
prompt "peek walk\n" >"$W/p.txt"
"$PPROF" --peek=walk "$P/prog" "$P/prof64le.prof" >"$W/c.txt" 2>/dev/null
same_output "prompt: peek RE equals --peek=RE" "$W/c.txt" "$W/p.txt"
prompt "hide=walk\nshow_from=main\ntree\n" >"$W/p.txt"
"$PPROF" --tree --hide=walk --show_from=main "$P/prog" "$P/prof64le.prof" >"$W/c.txt" 2>/dev/null
same_output "prompt: hide= and show_from= persist and equal the options" "$W/c.txt" "$W/p.txt"
prompt "hide=walk\ntagfocus=x=y\noptions\n" >"$W/p.txt"
check "prompt: options lists the active filters" \
	bash -c "grep -A2 '^Active filters:' '$W/p.txt' | grep -q '^   hide=walk' &&
		grep -A2 '^Active filters:' '$W/p.txt' | grep -q '^   tagfocus=x=y'"
(cd "$W" && printf 'flame\n' | "$PPROF" --interactive "$P/prog" "$P/prof64le.prof" >/dev/null 2>"$W/perr")
check "prompt: flame writes pprof.1.svg" grep -q '<svg' "$W/pprof.1.svg"
prompt "top 3 walk\n" >"$W/p.txt"
"$PPROF" --text --focus=walk "$P/prog" "$P/prof64le.prof" 2>/dev/null | head -n "$(wc -l <"$W/p.txt")" >"$W/c.txt"
check "prompt: top 3 RE shows at most 3 rows, those of --text --focus=RE" \
	bash -c "cmp -s '$W/c.txt' '$W/p.txt' && [ \$(grep -c '%.*%' '$W/p.txt') -le 3 ] && [ \$(grep -c '%.*%' '$W/p.txt') -ge 1 ]"
exit "$FAILED"
