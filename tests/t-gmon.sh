#!/usr/bin/env bash
# t-gmon.sh - gprof's gmon.out: differential tests against gprof, synthetic
# files, malformed input.
#
# Builds the programs in testdata/gmon with gcc -pg -g -O2 (packed.c also
# without function and loop alignment, so that histogram bins straddle
# functions; basic.c also as a non-PIE), runs them to write gmon.out, and
# checks that for each function "$PPROF --text PROG gmon.out" prints the
# "self seconds" of "gprof -b -p PROG gmon.out" (to its two decimals) and
# "$PPROF --text --sample_index=calls" its "calls"; likewise for two runs
# summed (gprof -s) and for a dense synthetic histogram over each program
# (large counts: five or six significant digits to agree on).  Rows of ours
# that gprof does not list must be zero, or unattributed addresses.
#
# Synthetic files: scripts/gen-gmon rewrites each native file as 32-bit,
# big-endian, 4.4BSD and old BSD files, several histogram records,
# arcs first, and runtime addresses of a PIE; each must give the native
# file's reports byte for byte.
#
# Malformed files (every truncation of a small file, unknown tag, empty
# histogram range, absurd sizes, wrong version, ...) must give exit status
# 1, nothing on stdout, one line on stderr naming the file and an offset,
# and no sanitizer report.  PPROF=build/san/pprof runs all this under
# ASan/UBSan.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/gmon
mkdir -p "$W"
SRC=$TESTDATA/gmon
GEN=(python3 "$TOP/scripts/gen-gmon")

require gcc gprof python3 || exit 1

# --- build and run -----------------------------------------------------------
# build_pg NAME SOURCE FLAGS...: compiles $W/NAME with -pg.
build_pg() {
	local name=$1 src=$2; shift 2
	build "$name" gcc -pg -g -O2 "$@" -o "$W/$name" "$SRC/$src"
}

# run NAME OUT ARG: runs $W/NAME ARG in its own directory, keeping gmon.out as $W/OUT.
run() {
	local name=$1 out=$2 arg=$3
	local dir=$W/run-$out
	mkdir -p "$dir"
	if (cd "$dir" && "$W/$name" "$arg" >/dev/null 2>&1) && [ -s "$dir/gmon.out" ]; then
		mv "$dir/gmon.out" "$W/$out"
		return 0
	fi
	not_ok "$name runs and writes gmon.out"
	return 1
}

progs=()
build_pg basic basic.c && run basic basic.gmon 300 && run basic basic2.gmon 150 && progs+=(basic)
build_pg basic-nopie basic.c -no-pie && run basic-nopie basic-nopie.gmon 300 && progs+=(basic-nopie)
build_pg clones clones.c && run clones clones.gmon 30000 && progs+=(clones)
build_pg packed packed.c -falign-functions=1 -falign-loops=1 -falign-jumps=1 &&
	run packed packed.gmon 3000 && progs+=(packed)

# --- differential: gprof -------------------------------------------------------
# compare NAME PROG GMON...: our self seconds and calls against gprof's.
compare() {
	local name=$1 prog=$2
	shift 2
	local sum=$W/sum-$name
	local gp=$W/$name.gprof ours=$W/$name.ours calls=$W/$name.calls
	local file=$1
	if [ $# -gt 1 ]; then
		mkdir -p "$sum"
		(cd "$sum" && gprof -s "$prog" "$@") >/dev/null 2>&1
		file=$sum/gmon.sum
	fi
	if ! gprof -b -p "$prog" "$file" >"$gp" 2>"$W/gprof.err"; then
		not_ok "$name: gprof reads it"
		show "$W/gprof.err" 5
		return
	fi
	"$PPROF" --text "$prog" "$@" >"$ours" 2>"$W/ours.err"
	local rc1=$?
	"$PPROF" --text --sample_index=calls "$prog" "$@" >"$calls" 2>>"$W/ours.err"
	local rc2=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$W/ours.err" ]; then
		not_ok "$name: pprof reads it (status $rc1/$rc2, no stderr)"
		show "$W/ours.err" 5
		return
	fi
	if python3 - "$gp" "$ours" "$calls" >"$W/cmp.out" <<'EOF'
import re, sys
gp, ours, calls = sys.argv[1:4]
g = {}
for line in open(gp):
    f = line.split()
    # "%time cumulative self [calls self/call total/call] name"
    if len(f) >= 4 and re.match(r"^\d+\.\d\d$", f[0]) and re.match(r"^\d+\.\d\d$", f[2]):
        g[f[-1]] = (f[2], int(f[3]) if len(f) >= 7 else 0)
def table(path):
    t = {}
    for line in open(path):
        f = line.split()
        if len(f) == 6 and f[1].endswith("%"):
            t[f[5]] = f[0]
    return t
t, c = table(ours), table(calls)
bad = []
for name, (secs, n) in sorted(g.items()):
    if t.get(name, "0.00") != secs:
        bad.append("%s: self seconds %s, ours %s" % (name, secs, t.get(name)))
    if int(c.get(name, "0")) != n:
        bad.append("%s: calls %d, ours %s" % (name, n, c.get(name)))
for name in sorted(set(t) | set(c)):
    if name in g or re.match(r"^[0-9a-f]{8,16}$", name):
        continue
    if t.get(name, "0.00") != "0.00" or int(c.get(name, "0")) != 0:
        bad.append("%s: not in gprof's profile, ours %s s, %s calls" % (name, t.get(name), c.get(name)))
if not g:
    bad.append("gprof lists no function")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
	then
		ok "$name: self seconds and calls equal gprof's ($(grep -c . <"$gp") lines)"
	else
		not_ok "$name: self seconds and calls equal gprof's"
		show "$W/cmp.out" 20
	fi
}

for p in "${progs[@]}"; do
	compare "$p" "$W/$p" "$W/$p.gmon"
done
if [[ " ${progs[*]} " == *" basic "* ]]; then
	compare "basic-summed" "$W/basic" "$W/basic.gmon" "$W/basic2.gmon"
fi

# A dense histogram over each program's range, through gprof and us.
for p in "${progs[@]}"; do
	"${GEN[@]}" dump "$W/$p.gmon" | awk '/^bin/ { next } { print } /^hist/ { print "dense 17 60000" }' \
		>"$W/$p.dense.desc"
	"${GEN[@]}" write "$W/$p.dense.desc" -o "$W/$p.dense.gmon"
	compare "$p-dense" "$W/$p" "$W/$p.dense.gmon"
done

# --- the other views ---------------------------------------------------------
if [[ " ${progs[*]} " == *" basic "* ]]; then
	total=$("$PPROF" --text "$W/basic" "$W/basic.gmon" | head -n 1)
	check "basic: Total line in seconds ($total)" grep -Eq '^Total: [0-9]+\.[0-9][0-9] s$' <<<"$total"
	lines_total=$("$PPROF" --text --lines "$W/basic" "$W/basic.gmon" | head -n 1)
	check "basic: --lines has the same total" [ "$lines_total" = "$total" ]
	"$PPROF" --text --lines "$W/basic" "$W/basic.gmon" >"$W/lines.txt" 2>&1
	check "basic: --lines names source lines of basic.c" grep -q ' leaf_a .*basic\.c:[0-9]' "$W/lines.txt"
	"$PPROF" --text --sample_index=bogus "$W/basic" "$W/basic.gmon" >"$W/out" 2>"$W/err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$W/out" ] && [ "$(wc -l <"$W/err")" = 1 ] && grep -q 'calls' "$W/err"; then
		ok "--sample_index=bogus: status 2, one line naming the choices"
	else
		not_ok "--sample_index=bogus: status 2, one line naming the choices (status $rc)"
		show "$W/err" 3 stderr
	fi
	# Basic-block counts (glibc writes none): at leaf_a's address, by line.
	a=$(nm "$W/basic" | awk '$3 == "leaf_a" { print "0x" $1 }')
	{ "${GEN[@]}" dump "$W/basic.gmon"; echo "bb $a 1234"; echo "bb $((a + 1)) 66"; } >"$W/bb.desc"
	"${GEN[@]}" write "$W/bb.desc" -o "$W/bb.gmon"
	"$PPROF" --text --lines --sample_index=executions "$W/basic" "$W/bb.gmon" >"$W/bb.txt" 2>&1
	check "basic-block counts: --sample_index=executions --lines" \
		grep -q '^Total: 1300 executions$' "$W/bb.txt"
	check "basic-block counts land on leaf_a's lines" grep -q ' leaf_a .*basic\.c:' "$W/bb.txt"
	# Listings of gmon data: histogram time and block counts per line and address.
	"$PPROF" --list='^leaf_a$' "$W/basic" "$W/basic.gmon" >"$W/list.txt" 2>"$W/list.err"
	flat=$("$PPROF" --text "$W/basic" "$W/basic.gmon" | awk '$6 == "leaf_a" { print $1 }')
	check "--list of gmon data: leaf_a's total is its flat time ($flat)" \
		grep -Eq "^ +$flat +$flat Total seconds" "$W/list.txt"
	# Each value is rounded to 0.01 s on its own: allow that much per line.
	check "--list of gmon data: the lines' seconds add up to the total" awk -v t="$flat" '
		$3 ~ /^[0-9]+:$/ && $1 != "." { s += $1; n++ }
		END { e = 0.005 * (n + 1); exit !(s > t - e && s < t + e) }' \
		"$W/list.txt"
	"$PPROF" --disasm='^leaf_a$' --sample_index=executions "$W/basic" "$W/bb.gmon" >"$W/bbdis.txt" 2>&1
	check "--disasm of block counts: leaf_a holds all 1300 executions" \
		grep -Eq '^ +1300 +1300 executions \(flat, cumulative\) 100.0% of total' "$W/bbdis.txt"
	check "--disasm of block counts: 1234 at leaf_a's first instruction" \
		grep -Eq "^ +1234 +1234 +$(sed 's/^0x0*//' <<<"$a"): " "$W/bbdis.txt"
	"$PPROF" --text "$W/basic.gmon" >"$W/noprog.txt" 2>"$W/noprog.err"
	check "no program: a report by address, status 0" \
		grep -q "^$(head -n 1 "$W/lines.txt")\$" "$W/noprog.txt"
fi

# --- synthetic files -----------------------------------------------------------
# same_reports NAME PROG NATIVE SYNTHETIC: text, calls and lines reports agree.
same_reports() {
	local name=$1 prog=$2 native=$3 syn=$4 opts
	for opts in "--text" "--text --sample_index=calls" "--text --lines"; do
		# shellcheck disable=SC2086
		"$PPROF" $opts "$prog" "$native" >"$W/native.out" 2>&1
		# shellcheck disable=SC2086
		"$PPROF" $opts "$prog" "$syn" >"$W/syn.out" 2>&1
		if ! cmp -s "$W/native.out" "$W/syn.out"; then
			not_ok "$name ($opts) gives the native file's report"
			diff -u "$W/native.out" "$W/syn.out" | head -n 20 | sed 's/^/    /'
			return
		fi
	done
	ok "$name gives the native file's reports"
}

for p in "${progs[@]}"; do
	"${GEN[@]}" dump "$W/$p.gmon" >"$W/$p.desc"
	variants=(
		"gnu-64-le|--format gnu"
		"gnu-32-le|--width 4"
		"gnu-64-be|--endian big"
		"gnu-32-be|--width 4 --endian big"
		"gnu-3-records|--split 3"
		"gnu-arcs-first|--arcs-first --split 2"
		"bsd44-64-le|--format bsd44"
		"bsd44-32-be|--format bsd44 --width 4 --endian big"
		"oldbsd-64-le|--format oldbsd"
		"oldbsd-32-le|--format oldbsd --width 4"
		"oldbsd-64-be|--format oldbsd --endian big"
	)
	if [ "$p" != basic-nopie ]; then
		variants+=(
			"pie-runtime-64|--bias 0x555555554000"
			"pie-runtime-32-be|--width 4 --endian big --bias 0x56555000"
			"pie-runtime-oldbsd|--format oldbsd --bias 0x7f3a12340000"
		)
	fi
	for v in "${variants[@]}"; do
		vname=${v%%|*}
		# shellcheck disable=SC2086
		"${GEN[@]}" write "$W/$p.desc" -o "$W/$p.$vname.gmon" ${v#*|}
		same_reports "$p: $vname" "$W/$p" "$W/$p.gmon" "$W/$p.$vname.gmon"
	done
done

# --- malformed files -----------------------------------------------------------
PROG=$W/basic
[ -x "$PROG" ] || PROG=/bin/true

# expect_error NAME FILE: exit 1, empty stdout, one stderr line naming FILE and an offset.
expect_error() {
	run_pprof --text "$PROG" "$2"
	fails_cleanly "$1" "$2: offset 0x"
}

M=$W/malformed
mkdir -p "$M"
cat >"$M/small.desc" <<'EOF'
rate 100
hist 0x1000 0x1040 16
bin 1 5
bin 9 7
arc 0x1010 0x1024 3
arc 0x1000 0x1030 2
bb 0x1024 9
EOF
"${GEN[@]}" write "$M/small.desc" -o "$M/small.gmon"
"$PPROF" --text "$PROG" "$M/small.gmon" >"$W/out" 2>"$W/err"
check "the small file itself is read" grep -q '^Total: ' "$W/out"

# Every truncation of the small file, and of a 4.4BSD one from its version
# word on (a BSD file has no magic: cut before it, it is no known format).
# A cut between records leaves a valid file (neither format counts its
# records): those must read, status 0.  The GNU file: 20-byte header,
# histogram 1 + 8 + 8 + 4 + 4 + 16 + 2 * 16 = 73 bytes, arcs 21 bytes, then
# the basic-block record; the 32-bit 4.4BSD one: 32-byte header and 32 bytes
# of bins, arcs 12 bytes.
"${GEN[@]}" write "$M/small.desc" -o "$M/small.bsd44" --format bsd44 --width 4 --endian big
for f in small.gmon small.bsd44; do
	size=$(stat -c %s "$M/$f")
	if [ $f = small.gmon ]; then
		first=1 valid=" 20 93 114 135 "
	else
		first=16 valid=" 64 76 "
	fi
	failed=0
	for ((n = first; n < size; n++)); do
		head -c "$n" "$M/$f" >"$M/cut"
		if [[ $valid == *" $n "* ]]; then
			if ! "$PPROF" --text "$PROG" "$M/cut" >"$W/out" 2>"$W/err" || [ -s "$W/err" ]; then
				not_ok "$f cut at $n bytes (between records) reads"
				show "$W/err" 3 stderr
				failed=1
				break
			fi
			continue
		fi
		run_pprof --text "$PROG" "$M/cut"
		if ! failed_cleanly "$RC" "$W/out" "$W/err" "$M/cut: offset 0x"; then
			not_ok "$f cut at $n bytes: $WHY"
			show "$W/err" 5 stderr
			show "$W/out" 3 stdout
			failed=1
			break
		fi
	done
	[ $failed = 0 ] && ok "$f cut at each offset from $first to $((size - 1)): a clean error naming the offset"
done

"${GEN[@]}" write "$M/small.desc" -o "$M/badtag.gmon" --bad-tag 7
expect_error "unknown record tag" "$M/badtag.gmon"
"${GEN[@]}" write "$M/small.desc" -o "$M/version.gmon" --version 2
expect_error "wrong version" "$M/version.gmon"
"${GEN[@]}" write "$M/small.desc" -o "$M/version-be.gmon" --version 7 --endian big
expect_error "wrong version (big endian)" "$M/version-be.gmon"
sed 's/^hist .*/hist 0x1000 0x1000 16/' "$M/small.desc" >"$M/zero.desc"
"${GEN[@]}" write "$M/zero.desc" -o "$M/zero.gmon"
expect_error "histogram with an empty range" "$M/zero.gmon"
"${GEN[@]}" write "$M/zero.desc" -o "$M/zero.bsd44" --format bsd44
expect_error "4.4BSD histogram with an empty range" "$M/zero.bsd44"
"${GEN[@]}" write "$M/small.desc" -o "$M/bins.gmon" --declared-bins 0x7fffffff
expect_error "absurd bin count" "$M/bins.gmon"
"${GEN[@]}" write "$M/small.desc" -o "$M/nobins.gmon" --declared-bins 0
expect_error "histogram without bins" "$M/nobins.gmon"
"${GEN[@]}" write "$M/small.desc" -o "$M/ncnt.bsd44" --format bsd44 --declared-bins 3
expect_error "4.4BSD size smaller than its header" "$M/ncnt.bsd44"
"${GEN[@]}" write "$M/small.desc" -o "$M/ncnt2.bsd44" --format bsd44 --declared-bins 0xfffffff0
expect_error "4.4BSD size past the end of the file" "$M/ncnt2.bsd44"
sed 's/^rate .*/rate 0/' "$M/small.desc" >"$M/rate0.desc"
"${GEN[@]}" write "$M/rate0.desc" -o "$M/rate0.gmon"
expect_error "profiling rate 0" "$M/rate0.gmon"
sed 's/^rate .*/rate 4000000000/' "$M/small.desc" >"$M/rate.desc"
"${GEN[@]}" write "$M/rate.desc" -o "$M/rate.gmon"
expect_error "absurd profiling rate" "$M/rate.gmon"
printf 'hist 0x1000 0x1040 16\nbin 1 1\nhist 0x1020 0x1060 16\nbin 2 2\n' >"$M/overlap.desc"
"${GEN[@]}" write "$M/overlap.desc" -o "$M/overlap.gmon"
expect_error "overlapping histogram ranges" "$M/overlap.gmon"
printf 'hist 0x1000 0x1040 16\nbin 1 1\nhist 0x2000 0x2080 16\nbin 2 2\n' >"$M/scale.desc"
"${GEN[@]}" write "$M/scale.desc" -o "$M/scale.gmon"
expect_error "histograms of different scales" "$M/scale.gmon"
python3 - "$M/bbcount.gmon" <<'EOF'
import struct, sys
# A basic-block record claiming 2^31 counts.
open(sys.argv[1], "wb").write(b"gmon" + struct.pack("<I", 1) + bytes(12) + bytes([2]) + struct.pack("<I", 1 << 31) + bytes(16))
EOF
expect_error "absurd basic-block record" "$M/bbcount.gmon"
