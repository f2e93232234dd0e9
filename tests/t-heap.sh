#!/usr/bin/env bash
# t-heap.sh - heap, growth, contention and thread profiles against the reference google-pprof.
#
# 1. testdata/progs/heapprog.cc, linked with tcmalloc, runs under
#    HEAPPROFILE (two heap profiler dumps) and writes the dumps of
#    MallocExtension::GetHeapSample (a sampled heap_v2 profile) and
#    GetHeapGrowthStacks (a growth profile).  For each, "$PPROF --text OPTS
#    prog profile" must print exactly what google-pprof prints, for the heap
#    value options, granularities, --cum, --focus/--ignore, --base, two
#    profiles summed, and at the prompt.
# 2. Contention profiles made from the heap profile's stacks
#    (scripts/gen-contention; cycles,
#    counts, the clock rate and sampling period varied; the old "--- Stacks:"
#    form; no clock rate), and heap profiles written here (v1 sampling, no
#    type, 32-bit addresses, counters beyond 32 bits and negative ones), are
#    compared the same way.
# 3. --heapcheck: the nodes google-pprof fills (positive flat) and triples
#    the border of (negative flat) are ours.
# 4. google/pprof's legacy test profiles, when the shared test data is
#    there (PPROF_SHARED, default $TOP/../shared): its heap, growth and
#    contention profiles against google-pprof, and its thread profiles
#    against Go's parse of them (the .string files), through --proto and go
#    tool pprof -raw.  Skipped without the shared data or go.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/heap
mkdir -p "$W"
REF=${GOOGLE_PPROF:-google-pprof}
SHARED=${PPROF_SHARED:-$TOP/../shared}
LEGACY=$SHARED/testdata/google-pprof/profile/testdata

require "$REF" g++ python3 || exit 1
case $(g++ -print-file-name=libtcmalloc.so 2>/dev/null) in
/*) ;;
*) not_ok "libtcmalloc.so is installed (libgoogle-perftools-dev; run scripts/install-deps)"; exit 1 ;;
esac

# compare NAME ARGS...: both tools' --text ARGS, byte for byte; our status
# 0 and no stderr line google-pprof did not print (but for our warnings
# about missing libraries when MISSING_LIBS is set).
compare() {
	local name=$1; shift
	local rc
	"$REF" --text "$@" >"$W/ref.txt" 2>"$W/ref.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		not_ok "$name: google-pprof failed (status $rc), nothing to compare"
		show "$W/ref.err" 5 stderr
		return
	fi
	timeout 60 "$PPROF" --text "$@" >"$W/out.txt" 2>"$W/err"
	rc=$?
	gp_text "$W/out.txt" >"$W/out.gp"
	same_output "$name matches google-pprof" "$W/ref.txt" "$W/out.gp"
	[ -n "${MISSING_LIBS:-}" ] && sed -i "/^pprof: warning: cannot open '.*': No such file/d" "$W/err"
	if [ "$rc" -eq 0 ] && ! grep -qvxF -f "$W/ref.err" "$W/err"; then
		ok "$name exits 0 with a clean stderr"
	else
		not_ok "$name exits 0 with a clean stderr (status $rc)"
		show "$W/err" 10 stderr
	fi
}

# --- the program and its profiles ---------------------------------------------
build heapprog g++ -g -O2 -o "$W/heapprog" "$TESTDATA/progs/heapprog.cc" \
	-Wl,--no-as-needed -ltcmalloc || exit 1
P=$W/heapprog
if ! (cd "$W" && HEAPPROFILE=$W/hp TCMALLOC_SAMPLE_PARAMETER=65536 "${NOASLR[@]}" "$P" "$W/hp" \
	>"$W/run.log" 2>&1) || [ ! -s "$W/hp.0001.heap" ] || [ ! -s "$W/hp.0002.heap" ] ||
	[ ! -s "$W/hp.sample" ] || [ ! -s "$W/hp.growth" ]; then
	not_ok "heapprog writes its heap profiles"
	show "$W/run.log" 20
	exit 1
fi
check "the heap profiler dump says heapprofile" grep -q '^heap profile:.*@ heapprofile' "$W/hp.0001.heap"
check "GetHeapSample's dump is sampled (heap_v2)" grep -q '^heap profile:.*@ heap_v2/' "$W/hp.sample"
check "GetHeapGrowthStacks's dump says growth" grep -q '^heap profile:.*@ growth' "$W/hp.growth"

# --- 1. the program's profiles ------------------------------------------------------
for f in hp.0001.heap hp.sample; do
	for opt in "" --inuse_objects --alloc_space --alloc_objects --show_bytes \
		--lines --addresses --files --cum "--alloc_objects --cum" "--show_bytes --alloc_space"; do
		# shellcheck disable=SC2086 # opt holds zero or more words
		compare "$f ${opt:-(no options)}" $opt "$P" "$W/$f"
	done
	compare "$f --focus" --focus='big_blocks|Grid' "$P" "$W/$f"
	compare "$f --ignore" --ignore=Grid "$P" "$W/$f"
	compare "$f --inuse_objects --focus --ignore" --inuse_objects --focus=main --ignore=operator "$P" "$W/$f"
done
# The growth stacks begin in the dynamic loader, whose assembly entry has
# an empty file name: google-pprof prints it ":0", we "??:0"; reports by
# file or line are left out.
for opt in "" --inuse_objects --alloc_space --show_bytes --cum; do
	# shellcheck disable=SC2086
	compare "hp.growth ${opt:-(no options)}" $opt "$P" "$W/hp.growth"
done
compare "two heap profiles summed" "$P" "$W/hp.0001.heap" "$W/hp.0002.heap"
compare "--base" --base="$W/hp.0001.heap" "$P" "$W/hp.0002.heap"
compare "--base --drop_negative --inuse_objects" --base="$W/hp.0002.heap" --drop_negative \
	--inuse_objects "$P" "$W/hp.0001.heap"
compare "--base, negative" --base="$W/hp.0002.heap" "$P" "$W/hp.0001.heap"
compare "sampled profiles summed" --alloc_objects "$P" "$W/hp.sample" "$W/hp.sample"

# At the prompt: google-pprof's top, top --cum and -ignore words.
printf 'top5\ntop3 --cum\ntop -big_blocks\n' >"$W/cmds"
"$REF" --interactive "$P" "$W/hp.0001.heap" <"$W/cmds" >"$W/ref.txt" 2>/dev/null
# The settings of the prompt reach the same reports.
printf 'top5\ntop3 --cum\ntop -big_blocks\ninuse_objects\ntop\nshow_bytes=true\nalloc_space\ntop\n' |
	"$PPROF" --interactive "$P" "$W/hp.0001.heap" >"$W/out.txt" 2>"$W/err"
{
	cat "$W/ref.txt"
	"$REF" --text --inuse_objects "$P" "$W/hp.0001.heap" 2>/dev/null | head -n 11
	"$REF" --text --alloc_space --show_bytes "$P" "$W/hp.0001.heap" 2>/dev/null | head -n 11
} >"$W/ref-all.txt"
same_output "the prompt's top, --cum, -IGNORE and value settings match google-pprof" \
	"$W/ref-all.txt" "$W/out.txt"
# Reports by line after one by function, with another value chosen between.
printf 'top\nlines\ntop\nalloc_space\ntop\nfunctions\ntop\nlines\ntop\n' |
	"$PPROF" --interactive "$P" "$W/hp.0001.heap" >"$W/out-lines.txt" 2>"$W/err"
{
	"$PPROF" --text "$P" "$W/hp.0001.heap" | head -n 11
	"$PPROF" --text --lines "$P" "$W/hp.0001.heap" | head -n 11
	"$PPROF" --text --lines --alloc_space "$P" "$W/hp.0001.heap" | head -n 11
	"$PPROF" --text --alloc_space "$P" "$W/hp.0001.heap" | head -n 11
	"$PPROF" --text --lines --alloc_space "$P" "$W/hp.0001.heap" | head -n 11
} >"$W/ours-lines.txt" 2>/dev/null
same_output "the prompt's reports by line after ones by function equal the command line" \
	"$W/ours-lines.txt" "$W/out-lines.txt"

# --- 2. contention and heap profiles written here -----------------------------------
# Contention profiles over the stacks of hp.0001.heap (scripts/gen-contention).
contention() {
	python3 "$TOP/scripts/gen-contention" "${@:1:$#-1}" "$W/hp.0001.heap" "${@: -1}" ||
		not_ok "gen-contention writes ${*: -1}"
}
contention --period 100 "$W/c1.prof"
contention --header "--- contention ---" --clock 3201000000 "$W/c2.prof"
contention --header "--- contention" --clock "" --period 7 "$W/c3.prof"
contention --header "--- Stacks:" --clock 2800000000 --period 1 --old "$W/c4.prof"
for f in c1 c2 c3; do
	for opt in "" --contentions --mean_delay --lines --cum; do
		# shellcheck disable=SC2086
		compare "contention $f ${opt:-(no options)}" $opt "$P" "$W/$f.prof"
	done
done
compare "contention, old form" "$P" "$W/c4.prof"
compare "contention, old form --lines" --lines "$P" "$W/c4.prof"

# heap FILE HEADER LINE...: a heap profile of the given header and lines.
heap() {
	local f=$1; shift
	printf '%s\n' "$@" >"$W/$f"
}
A1=0x4011a0 A2=0x401100 A3=0x401050
# (google-pprof divides by zero on a v1 line of 0 objects: there is none.)
heap v1.heap "heap profile:   10:  5000 [  20:  9000] @ heap/262144" \
	"3: 1500 [ 6: 3000] @ $A1 $A2" "7: 3500 [ 14: 6000] @ $A3 $A2"
heap untyped.heap "heap profile:   10:  5000 [  10:  5000]" \
	"3: 1500 [ 3: 1500] @ $A1 $A2" "7: 3500 [ 7: 3500] @ $A3 $A2"
heap v2-norate.heap "heap profile:   10:  5000 [  10:  5000] @ heap_v2" \
	"3: 1500 [ 3: 1500] @ $A1 $A2" "7: 3500 [ 7: 3500] @ $A3 $A2"
heap big.heap "heap profile: -5: 8589934592 [ 4294967296: -12] @ heapprofile" \
	"3000000000: 6442450944 [ 3000000000: 6442450944] @ $A1 $A2" \
	"1: 4294967297 [ 5: 9000000000] @ 0x0000000000401050 $A2"
heap addr32.heap "heap profile:   4:  400 [  4:  400] @ heapprofile" \
	"1: 100 [ 1: 100] @ 0x8048123 0x80480a7" "3: 300 [ 3: 300] @ 0xb7f01234 0x8048111 0x80480a7"
for f in v1 untyped v2-norate big addr32; do
	for opt in "" --inuse_objects --alloc_space --show_bytes --addresses; do
		# shellcheck disable=SC2086
		compare "$f.heap ${opt:-(no options)}" $opt "$P" "$W/$f.heap"
	done
done

# --- 3. --heapcheck ------------------------------------------------------------------
# filled FILE: the labels of filled nodes and of triple-bordered ones.
filled() {
	python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
out = []
for m in re.finditer(r'(N\d+)\s*\[([^\]]*)\]', text, re.S):
    attrs = m.group(2)
    label = re.search(r'label="((?:[^"\\]|\\.)*)"', attrs)
    if not label:
        continue
    if re.search(r'fillcolor="?gray', attrs):
        out.append("filled " + label.group(1).replace("\\\n", ""))
    if re.search(r'peripheries="?3', attrs):
        out.append("triple " + label.group(1).replace("\\\n", ""))
print("\n".join(sorted(out)))
EOF
}
for args in "--heapcheck $P $W/hp.0001.heap" "--heapcheck --base=$W/hp.0002.heap $P $W/hp.0001.heap"; do
	# shellcheck disable=SC2086
	"$REF" --dot $args >"$W/ref.dot" 2>/dev/null
	# shellcheck disable=SC2086
	"$PPROF" --dot $args >"$W/out.dot" 2>/dev/null
	filled "$W/ref.dot" >"$W/ref.filled"
	filled "$W/out.dot" >"$W/out.filled"
	check "--heapcheck marks nodes (${args%% $P*})" test -s "$W/ref.filled"
	same_output "--heapcheck marks the nodes google-pprof marks (${args%% $P*})" \
		"$W/ref.filled" "$W/out.filled"
done

# --- 4. google/pprof's legacy profiles ------------------------------------------------
if [ ! -d "$LEGACY" ]; then
	skip "google/pprof's legacy profiles: skipped, no shared test data at $SHARED"
	exit "$FAILED"
fi
# Their libraries are not on this machine: we say so, google-pprof does not.
for f in cppbench.heap cppbench.growth cppbench.contention java.contention; do
	for opt in "" --inuse_objects --alloc_space --contentions --mean_delay --addresses; do
		# shellcheck disable=SC2086
		MISSING_LIBS=1 compare "legacy $f ${opt:-(no options)}" $opt "$P" "$LEGACY/$f"
	done
done
if ! have go; then
	skip "thread profiles against Go's parse: skipped, go is not installed"
	exit "$FAILED"
fi
# Go's parse, as go tool pprof -raw prints it: each sample's value and the
# addresses of its stack, sorted (our --proto numbers and orders its
# locations and samples canonically; Go keeps the order it read).
go_parse() {
	sed -n '/^Samples/,/^Mappings/p' "$1" | awk '
		/^Locations/ { loc = 1; next }
		/^Mappings/ { loc = 0; next }
		loc && $1 ~ /^[0-9]+:$/ { addr[$1 + 0] = $2; next }
		!loc && $1 ~ /^[0-9]+:$/ { n++; val[n] = $1; stk[n] = ""; for (i = 2; i <= NF; i++) stk[n] = stk[n] " " $i }
		END { for (k = 1; k <= n; k++) { s = val[k]; m = split(stk[k], ids, " "); for (i = 1; i <= m; i++) s = s " " addr[ids[i] + 0]; print s } }' | sort
}
for f in cppbench.thread cppbench.thread.all cppbench.thread.none go.godoc.thread; do
	if ! "$PPROF" --proto "$LEGACY/$f" >"$W/t.pb.gz" 2>"$W/err"; then
		not_ok "thread profile $f: --proto"
		show "$W/err" 5
		continue
	fi
	go tool pprof -raw "$W/t.pb.gz" >"$W/t.raw" 2>/dev/null
	go_parse "$W/t.raw" >"$W/ours"
	go_parse "$LEGACY/$f.string" >"$W/theirs"
	same_output "thread profile $f: samples and locations as Go's parser reads them" \
		"$W/theirs" "$W/ours"
	run_pprof --text "$LEGACY/$f"
	clean_exit "thread profile $f: --text" "$RC" "$W/err" 0
	check "thread profile $f: --text totals the threads" \
		grep -qx "Total: $(awk '/^Samples/ { s = 1; next } /^Locations/ { s = 0 } s && $1 ~ /:$/ { n += $1 } END { print n }' "$LEGACY/$f.string") samples" "$W/out"
done
exit "$FAILED"
