#!/usr/bin/env bash
# t-list.sh - --list and --disasm on real programs, against the reference
# google-pprof (which runs objdump and addr2line) and against objdump itself.
#
# Builds the programs in testdata/progs with -g -O2 and libprofiler (one of
# them also with -no-pie, one with -falign-functions=1), profiles each once,
# then checks:
#  - --list=RE prints what google-pprof prints, after dropping the ROUTINE
#    blocks google-pprof repeats (it lists the routines of a non-PIE program
#    twice) and sorting the blocks of routines with one name (google-pprof
#    orders them by Perl hash order, which changes from run to run); blocks of
#    ours that google-pprof lacks must be of routines whose source is missing;
#  - --disasm=RE does too, except for the instruction text (ours is
#    capstone's), for routines of our own programs only;
#  - the counts of each routine sum to its totals line;
#  - the instructions (addresses, direct call and jump targets) are
#    objdump's, AT&T and Intel;
#  - a missing source file, --source_path and --trim_path;
#  - stripped objects; routines without samples; a bad regex; '^name$';
#  - the list and disasm commands of the prompt;
#  - functions of the C library, named from its separate debug file;
#  - no crash and no sanitizer report in any run.
# Missing google-pprof or libprofiler is a failure, not a skip:
# scripts/install-deps installs google-perftools and libgoogle-perftools-dev.
set -u
source "$(dirname "$0")/lib.sh"

PROGS=$TESTDATA/progs
W=$TEST_TMP/list
mkdir -p "$W/ref"
REF=${GOOGLE_PPROF:-google-pprof}

require --libprofiler "$REF" gcc g++ nm objdump strip || exit 1
# Relative source names (glibc's) are looked for from the current directory.
cd "$W" || exit 1

# --- build and profile ---------------------------------------------------------
CFLAGS=(-g -O2)
# multi-prog and the stripped one each have their libmulti.so beside them.
mkdir -p "$W/strip"
build c-prog gcc "${CFLAGS[@]}" -o c-prog "$PROGS/cprog.c" "${PROF_LIBS[@]}" &&
	build c-nopie gcc "${CFLAGS[@]}" -no-pie -o c-nopie "$PROGS/cprog.c" "${PROF_LIBS[@]}" &&
	build c-noalign gcc "${CFLAGS[@]}" -falign-functions=1 -o c-noalign "$PROGS/cprog.c" "${PROF_LIBS[@]}" &&
	build cxx-prog g++ "${CFLAGS[@]}" -o cxx-prog "$PROGS/cxxprog.cc" "${PROF_LIBS[@]}" &&
	build libmulti.so gcc "${CFLAGS[@]}" -shared -fPIC -o libmulti.so "$PROGS/libmulti.c" &&
	build multi-prog gcc "${CFLAGS[@]}" -o multi-prog "$PROGS/multi_main.c" "$PROGS/multi_other.c" \
		-L"$W" -lmulti -Wl,-rpath,"$W" "${PROF_LIBS[@]}" &&
	build strip/libmulti.so gcc "${CFLAGS[@]}" -shared -fPIC -o strip/libmulti.so "$PROGS/libmulti.c" &&
	build strip/multi-prog gcc "${CFLAGS[@]}" -o strip/multi-prog "$PROGS/multi_main.c" \
		"$PROGS/multi_other.c" -L"$W/strip" -lmulti -Wl,-rpath,"$W/strip" "${PROF_LIBS[@]}" || exit 1
# For section 5: c-src built from proj/ as src/cprog.c (so the recorded name
# is W/proj/src/cprog.c), and c-map the same with that directory mapped to
# one that does not exist.
mkdir -p proj/src elsewhere
cp "$PROGS/cprog.c" proj/src/
NOWHERE=/nonexistent-pprof-test/proj
(cd proj && build c-src gcc "${CFLAGS[@]}" -o ../c-src src/cprog.c "${PROF_LIBS[@]}" &&
	build c-map gcc "${CFLAGS[@]}" -ffile-prefix-map="$W/proj=$NOWHERE" -o ../c-map src/cprog.c "${PROF_LIBS[@]}") ||
	exit 1
for p in c-prog c-nopie c-noalign cxx-prog multi-prog strip/multi-prog c-src; do
	cpu_profile "$p" "$W/$p" "$W/$p.prof" || exit 1
done
# Stripped in place, so that both tools find them by the recorded paths: the
# program keeps its symbols but loses its line information, the library keeps
# only its dynamic symbols.
if ! strip --strip-debug strip/multi-prog || ! strip strip/libmulti.so; then
	not_ok "strip works"
	exit 1
fi

# --- the reference, in the background ----------------------------------------
# google-pprof takes seconds per run (it symbolizes all of libc with
# addr2line, and runs objdump per routine), so its runs go in parallel while
# we run ours.
# Each waits on its objdump and addr2line much of the time: one more job than
# processors.
JOBS=$(( $(nproc 2>/dev/null || echo 1) + 1 ))
[ "$JOBS" -gt 6 ] && JOBS=6
# ref KEY ARGS...: google-pprof ARGS into ref/KEY, ref/KEY.err, ref/KEY.rc,
# with ref/KEY.in as its input if there is one.
ref() {
	local key=$1 in=/dev/null; shift
	[ -e "ref/$key.in" ] && in=ref/$key.in
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	( timeout 300 "$REF" "$@" <"$in" >"ref/$key" 2>"ref/$key.err"
	  echo $? >"ref/$key.rc.tmp" && mv "ref/$key.rc.tmp" "ref/$key.rc" ) &
}
# The longest first.  (No exit from the script once they run.)  google-pprof
# matches its regex against names with their address appended
# ("fib<0000000000001189>"), we match the names: its '^fib<' is our '^fib$'.
references() {
	ref list-nopie --list=. c-nopie c-nopie.prof
	ref list-fib --list='^fib<' c-noalign c-noalign.prof
	ref list-cxx --list='geom::Box<.*>::grow|work::mix\(double|sort_values' cxx-prog cxx-prog.prof
	ref list-multi --list='^lib_|^step<' multi-prog multi-prog.prof
	ref dis-c --disasm='^fib<|^cmp_int<|^main<' c-noalign c-noalign.prof
	ref dis-nopie --disasm='^fib<|^sort_numbers' c-nopie c-nopie.prof
	ref dis-cxx --disasm='geom::Box|work::' cxx-prog cxx-prog.prof
	ref dis-multi --disasm='^lib_|^step<|^main<|^other_entry<' --ignore=lib_series multi-prog multi-prog.prof
	ref dis-strip --disasm='^lib_|^step<|^main<' strip/multi-prog strip/multi-prog.prof
	ref prompt --interactive multi-prog multi-prog.prof
	wait
}
printf '%b' 'list ^main< -step\ndisasm ^lib_checksum<\n' >ref/prompt.in
PROMPT_CMDS='list ^main$ -step\ndisasm ^lib_checksum$\n'
references &
REFS_PID=$!

# --- helpers -------------------------------------------------------------------
nruns=0 unclean=0
# ran OUT WHAT: counts a run (its status in rc, its stderr in OUT.err); one
# that crashed or printed a sanitizer report fails at once.
ran() {
	nruns=$((nruns + 1))
	exited_cleanly "$rc" "$1.err" && return
	unclean=$((unclean + 1))
	not_ok "no crash or sanitizer report: $2 ($WHY)"
	show "$1.err" 20
}
# pp OUT ARGS...: runs $PPROF ARGS, stdout into OUT, stderr into OUT.err;
# sets rc.
pp() {
	local out=$1; shift
	timeout 120 "$PPROF" "$@" >"$out" 2>"$out.err"
	rc=$?
	ran "$out" "pprof $*"
}

# canon [-v dedup=1] FILE: the ROUTINE blocks of a listing, with exact
# repeats of an earlier block dropped (dedup=1), and each run of blocks of
# routines with one name sorted.  (POSIX awk: mawk has no {n} intervals.)
CANON='
function flush() {
	if (blk == "") return
	if (!dedup || !(blk in seen)) {
		seen[blk] = 1
		if (name != gname) { out(); gname = name }
		g[++ng] = blk
	}
	blk = ""
}
function out(   i, j, t) {
	for (i = 2; i <= ng; i++)
		for (j = i; j > 1 && g[j] < g[j - 1]; j--) { t = g[j]; g[j] = g[j - 1]; g[j - 1] = t }
	for (i = 1; i <= ng; i++) print g[i]
	ng = 0
}
/^ROUTINE / { flush(); name = $0; sub(/^ROUTINE =+ /, "", name); sub(/ in .*/, "", name) }
{ blk = blk (blk == "" ? "" : "\n") $0 }
END { flush(); out() }'
canon() {
	local opts=()
	while [ "${1:-}" = -v ]; do opts+=("$1" "$2"); shift 2; done
	LC_ALL=C awk "${opts[@]}" "$CANON" "$@"
}


# sums KIND FILE: prints each routine of a --list (KIND list) or --disasm
# (KIND disasm) listing whose per-line or per-instruction counts do not add
# up to its header; for --disasm also each source line whose counts are not
# those of the instructions under it, unless a source file was missing (the
# instructions of lines without text then follow another line's).
SUMS='
function v(s) { gsub(/ /, "", s); return s == "." ? 0 : s + 0 }
function insn(   rest, i) {
	if (substr($0, 14, 4) != "    ") return 0
	rest = substr($0, 18); i = index(rest, ":")
	return i >= 9 && substr(rest, 1, i - 1) ~ /^ *[0-9a-f]+$/
}
function srcline() { return substr($0, 20, 1) == ":" && substr($0, 15, 5) ~ /^ *[0-9]+$/ }
function endsrc() {
	if (strict && insrc && (rf != sf || rc != sc))
		print name ": line " ln " says " sf "/" sc ", its instructions " rf "/" rc
	insrc = 0
}
function fin() {
	endsrc()
	if (name != "" && (af != tf || ac != tc))
		print name ": " (kind == "list" ? "lines" : "instructions") " sum to " af "/" ac ", the header says " tf "/" tc
	af = ac = 0; name = ""
}
/^ROUTINE / { fin(); name = $0; hdr = 1; next }
hdr { tf = v(substr($0, 1, 6)); tc = v(substr($0, 8, 6)); hdr = 0; next }
kind == "list" && $0 ~ /^[ .0-9]+ +[ .0-9]+ +[0-9]+:/ {
	af += v(substr($0, 1, 6)); ac += v(substr($0, 8, 6))
}
kind == "disasm" && insn() {
	af += v(substr($0, 1, 6)); ac += v(substr($0, 8, 6))
	rf += v(substr($0, 1, 6)); rc += v(substr($0, 8, 6))
}
kind == "disasm" && srcline() {
	endsrc(); insrc = 1; ln = substr($0, 15, 5) + 0
	sf = v(substr($0, 1, 6)); sc = v(substr($0, 8, 6)); rf = rc = 0
}
kind == "disasm" && /^-------------------- / { endsrc() }
END { fin() }'
sums() {
	local strict=1
	grep -q 'No such file or directory' "$2.err" 2>/dev/null && strict=0
	awk -v kind="$1" -v strict="$strict" "$SUMS" "$2"
}

# check_sums NAME KIND FILE
check_sums() {
	local bad
	bad=$(sums "$2" "$3")
	if [ -z "$bad" ] && grep -q '^ROUTINE ' "$3"; then
		ok "$1: counts add up to each routine's totals"
	else
		not_ok "$1: counts add up to each routine's totals"
		printf '%s\n' "${bad:-no ROUTINE at all}" | head -n 10 | sed 's/^/    /'
	fi
}

# check_run OUT NAME: our last run, into OUT, exited 0 with an output.
check_run() {
	if [ "$rc" -eq 0 ] && [ -s "$1" ]; then
		return 0
	fi
	not_ok "$2 exits 0 with an output (status $rc)"
	show "$1.err" 10 stderr
	return 1
}

# wait_ref KEY NAME: waits for the reference output ref/KEY; fails NAME
# when google-pprof failed.
wait_ref() {
	while [ ! -e "ref/$1.rc" ] && kill -0 "$REFS_PID" 2>/dev/null; do
		sleep 0.2
	done
	if [ "$(cat "ref/$1.rc" 2>/dev/null)" = 0 ]; then
		return 0
	fi
	not_ok "$2: google-pprof ran (status $(cat "ref/$1.rc" 2>/dev/null))"
	grep -v '^Warning: address' "ref/$1.err" | head -n 10 | sed 's/^/    /'
	return 1
}

# The comparisons with google-pprof wait for it, so they are made last:
# later KIND KEY NAME queues one.
later_kind=() later_key=() later_name=()
later() { later_kind+=("$1") later_key+=("$2") later_name+=("$3"); }

# --- 1. --list against google-pprof ------------------------------------------
# compare_list KEY NAME ARGS...: our --list ARGS, later against ref/KEY.
compare_list() {
	local key=$1 name=$2; shift 2
	pp "out/$key" "$@"
	check_run "out/$key" "$name" || return
	check_sums "$name" list "out/$key"
	later list "$key" "$name"
}
# ref_list KEY NAME: out/KEY against ref/KEY.
ref_list() {
	local key=$1 name=$2 hdr f extra=0 bad=
	wait_ref "$key" "$name" || return
	canon -v dedup=1 "ref/$key" >"out/$key.ref"
	grep '^ROUTINE ' "out/$key.ref" | sort -u >"out/$key.hdr"
	# Ours, only the blocks google-pprof has; the others must lack their source.
	# Ours loses exact repeats too: two instances of a template (Box<float>
	# and Box<double>::grow) print the same block when their counts fall on
	# the same lines, and dropping google-pprof's repeats drops one of them.
	LC_ALL=C awk 'NR == FNR { h[$0] = 1; next } /^ROUTINE / { keep = $0 in h } keep' \
		"out/$key.hdr" "out/$key" | canon -v dedup=1 >"out/$key.cmp"
	same_output "$name equals google-pprof's" "out/$key.ref" "out/$key.cmp"
	while IFS= read -r hdr; do
		grep -qxF "$hdr" "out/$key.hdr" && continue
		extra=$((extra + 1))
		f=${hdr#* in }
		if [ -e "$f" ] || ! grep -qF "$f: No such file or directory" "out/$key.err"; then
			bad="$bad
$hdr"
		fi
	done < <(grep '^ROUTINE ' "out/$key")
	if [ -z "$bad" ]; then
		ok "$name: the $extra extra routines are those whose source is missing, said on stderr"
	else
		not_ok "$name: the extra routines are those whose source is missing, said on stderr"
		printf '%s\n' "$bad" | sed '/^$/d; s/^/    /' | head -n 10
	fi
}

mkdir -p out
# c-noalign is cprog.c with its functions packed (-falign-functions=1), so
# that routines end with a ret rather than with padding, and that last
# instruction has samples: google-pprof stops the last instruction of a
# routine at the routine's end address without adding the load offset, so in
# a PIE program or a shared library it charges that instruction nothing.
compare_list list-fib "c-noalign --list='^fib$' (PIE, packed functions)" --list='^fib$' c-noalign c-noalign.prof
compare_list list-nopie "c-nopie (not PIE) --list=." --list=. c-nopie c-nopie.prof
compare_list list-cxx "cxx-prog --list (template methods, an overload, std::sort's templates)" \
	--list='geom::Box<.*>::grow|work::mix\(double|sort_values' cxx-prog cxx-prog.prof
compare_list list-multi "multi-prog --list (libmulti.so, two static step)" \
	--list='^lib_|^step$' multi-prog multi-prog.prof

# --- 2. --disasm against google-pprof ----------------------------------------
# compare_disasm KEY NAME ARGS...: our --disasm ARGS, later against ref/KEY
# but for the instruction text.  The regexes match routines of our programs only.
compare_disasm() {
	local key=$1 name=$2; shift 2
	pp "out/$key" "$@"
	check_run "out/$key" "$name" || return
	check_sums "$name" disasm "out/$key"
	later disasm "$key" "$name"
}
# ref_disasm KEY NAME: out/KEY against ref/KEY.
ref_disasm() {
	local key=$1 name=$2
	wait_ref "$key" "$name" || return
	no_text "ref/$key" | canon -v dedup=1 >"out/$key.ref"
	no_text "out/$key" | canon >"out/$key.cmp"
	same_output "$name equals google-pprof's but for the instruction text" "out/$key.ref" "out/$key.cmp"
}
compare_disasm dis-c "c-noalign --disasm (PIE, packed functions)" --disasm='^fib$|^cmp_int$|^main$' c-noalign c-noalign.prof
compare_disasm dis-nopie "c-nopie (not PIE) --disasm" --disasm='^fib$|^sort_numbers' c-nopie c-nopie.prof
compare_disasm dis-cxx "cxx-prog --disasm (templates, lambdas, std::map)" --disasm='geom::Box|work::' cxx-prog cxx-prog.prof
compare_disasm dis-multi "multi-prog --disasm --ignore (libmulti.so, two static step)" \
	--disasm='^lib_|^step$|^main$|^other_entry$' --ignore=lib_series multi-prog multi-prog.prof

# All routines with samples, glibc's included (capstone 4 decodes some of its
# AVX-512 instructions differently from objdump: no comparison there).
for p in c-prog cxx-prog multi-prog; do
	pp "out/dis-all-$p" --disasm=. "$p" "$p.prof"
	check_run "out/dis-all-$p" "$p --disasm=." &&
		check_sums "$p --disasm=." disasm "out/dis-all-$p"
done
pp out/list-all-multi --list=. multi-prog multi-prog.prof
check_run out/list-all-multi "multi-prog --list=." &&
	check_sums "multi-prog --list=." list out/list-all-multi

# --- 4. instructions against objdump -------------------------------------------
# The instruction text is capstone's, not objdump's: what must be objdump's is
# where each instruction starts and where each direct call or jump goes.
# objdump_insns FILE SYMBOL [-M intel]: objdump's instructions in SYMBOL's
# range of FILE (from its address in "nm -n" to the next one), one line each:
# the address, and for a direct call or jump (a target "ADDR <SYM>" without a
# "#" comment) " -> ADDR".
objdump_insns() {
	local file=$1 sym=$2 range; shift 2
	range=$(nm -n "$file" | awk -v s="$sym" '
		found && $1 != a { print "--start-address=0x" a, "--stop-address=0x" $1; exit }
		!found && NF == 3 && $3 == s { a = $1; found = 1 }')
	[ -n "$range" ] || { echo "no symbol $sym in $file"; return; }
	# shellcheck disable=SC2086
	objdump -d --no-show-raw-insn "$@" $range "$file" |
		awk -F '\t' '/^ *[0-9a-f]+:\t/ {
			a = $1; sub(/^ */, "", a); sub(/:$/, "", a); t = ""
			if ($2 !~ /#/ && match($2, / [0-9a-f]+ <.*>$/)) {
				t = substr($2, RSTART + 1); sub(/ .*/, "", t); t = " -> " t
			}
			print a t }'
}
# our_insns LISTING: the same from our --disasm listing, where capstone writes
# a direct target "0xADDR <SYM>".
our_insns() {
	sed -nE 's/^.{6} .{6}    ([ 0-9a-f]{8,}): *(.*)/\1 \2/p' "$1" |
		awk '{ t = ""
			if (match($0, / 0x[0-9a-f]+ <.*>$/)) {
				t = substr($0, RSTART + 3); sub(/ .*/, "", t); t = " -> " t
			}
			print $1 t }'
}
# compare_objdump NAME OBJECT SYMBOL RE PROG
compare_objdump() {
	local name=$1 obj=$2 sym=$3 re=$4 prog=$5 syntax out ours theirs
	for syntax in att intel; do
		out=out/obj-$sym-$syntax ours=() theirs=()
		[ "$syntax" = intel ] && ours=(--intel_syntax) theirs=(-M intel)
		pp "$out" --disasm="$re" "${ours[@]}" "$prog" "$prog.prof"
		check_run "$out" "$name --disasm ($syntax)" || continue
		if [ "$(grep -c '^ROUTINE ' "$out")" -ne 1 ]; then
			not_ok "$name: '$re' selects one routine"
			continue
		fi
		objdump_insns "$obj" "$sym" "${theirs[@]}" >"$out.objdump"
		our_insns "$out" >"$out.ours"
		same_output "$name: instruction addresses and direct call and jump targets equal objdump's ($syntax)" \
			"$out.objdump" "$out.ours"
	done
}
compare_objdump "fib" c-prog fib '^fib$' c-prog
compare_objdump "main" c-prog main '^main$' c-prog
compare_objdump "format_lines (inlined code, calls into libc)" c-prog format_lines.constprop.0 '^format_lines' c-prog
compare_objdump "work::mix(double) (SSE)" cxx-prog _ZN4work3mixEd 'work::mix\(double' cxx-prog
compare_objdump "geom::Box<float>::grow" cxx-prog _ZN4geom3BoxIfE4growEi 'geom::Box<float>::grow' cxx-prog
compare_objdump "lib_checksum in libmulti.so" libmulti.so lib_checksum '^lib_checksum$' multi-prog

# capstone is opened by the runs that decode only: linked, its relocations
# cost every start about 3 ms.
LD_DEBUG=files timeout 120 "$PPROF" --text c-prog c-prog.prof >/dev/null 2>out/ld-text.err
check "a report that decodes nothing does not load capstone" \
	bash -c "! grep -q 'file=libcapstone' out/ld-text.err"
check "... as the loader's trace shows (it names pprof's libraries)" \
	grep -q 'file=libdw' out/ld-text.err
LD_DEBUG=files timeout 120 "$PPROF" --disasm='^fib$' c-prog c-prog.prof >/dev/null 2>out/ld-disasm.err
check "--disasm opens capstone when it decodes" \
	grep -q 'file=libcapstone.*dynamically loaded by' out/ld-disasm.err
compare_objdump "fib, not PIE" c-nopie fib '^fib$' c-nopie

# --- 5. a missing source file, --source_path, --trim_path ------------------------
RE='^fib$|^cmp_int$|^main$'
pp out/src-present --list="$RE" c-src c-src.prof
check_run out/src-present "--list with the source" &&
	check "--list with the source is quiet" test ! -s out/src-present.err
pp out/dis-present --disasm="$RE" c-src c-src.prof
mv proj elsewhere/

pp out/src-missing --list="$RE" c-src c-src.prof
check "--list without the source exits 0" test "$rc" -eq 0
check "--list without the source names the file once on stderr" \
	test "$(cat out/src-missing.err)" = "$W/proj/src/cprog.c: No such file or directory"
# counted LISTING: the ROUTINE and Total lines, and the routine's lines (between
# the --- marks) that have counts, without their text.
counted() {
	awk '/^ROUTINE / { print; hdr = 1; next }
		hdr { print; hdr = 0; next }
		/^---$/ { inside = !inside; next }
		inside && !/^ +\. +\. / { print substr($0, 1, index($0, ":")) }' "$1"
}
counted out/src-present >out/src-missing.exp
counted out/src-missing >out/src-missing.got
same_output "--list without the source lists the headers and the lines with counts" \
	out/src-missing.exp out/src-missing.got
check "--list without the source shows no text" \
	bash -c "! grep -qE '^[ .0-9]+ +[ .0-9]+ +[0-9]+:.' out/src-missing"
check_sums "--list without the source" list out/src-missing

pp out/dis-missing --disasm="$RE" c-src c-src.prof
check "--disasm without the source exits 0" test "$rc" -eq 0
sed -E '/^.{6} .{6} [ 0-9]{5}: /d' out/dis-present >out/dis-missing.exp
same_output "--disasm without the source shows the same without the source lines" \
	out/dis-missing.exp out/dis-missing

pp out/src-path --list="$RE" --source_path="$W/nowhere:$W/elsewhere/proj" c-src c-src.prof
same_output "--source_path finds the source under the directory's base name" out/src-present out/src-path
check "--source_path finds it quietly" test ! -s out/src-path.err
cd elsewhere/proj && pp "$W/out/src-trim" --list="$RE" --trim_path="$W/proj" "$W/c-src" "$W/c-src.prof"
cd "$W"
same_output "--trim_path finds the source in the current directory" out/src-present out/src-trim
check "--trim_path finds it quietly" test ! -s out/src-trim.err
pp out/dis-path --disasm="$RE" --source_path="$W/elsewhere/proj" c-src c-src.prof
same_output "--disasm --source_path finds the source" out/dis-present out/dis-path

# c-map differs from c-src in its debug information only, so c-src's
# profile serves it (given as PROGRAM, it is used for the program's mapping).
sed "s|$W/proj/src/cprog.c|$NOWHERE/src/cprog.c|" out/src-present >out/src-map.exp
pp out/src-map --list="$RE" --trim_path="$NOWHERE" --source_path="$W/elsewhere/proj" c-map c-src.prof
same_output "--trim_path with --source_path (-ffile-prefix-map build)" out/src-map.exp out/src-map
cd elsewhere/proj && pp "$W/out/src-map2" --list="$RE" --trim_path="/x:$NOWHERE/" "$W/c-map" "$W/c-src.prof"
cd "$W"
same_output "--trim_path alone, from the source directory (-ffile-prefix-map build)" out/src-map.exp out/src-map2
pp out/src-map3 --list="$RE" c-map c-src.prof
check "-ffile-prefix-map build without --trim_path: the file is missing" \
	test "$rc" -eq 0 -a "$(cat out/src-map3.err)" = "$NOWHERE/src/cprog.c: No such file or directory"

# --- 6. stripped objects ----------------------------------------------------------
# strip/multi-prog has its symbols but no line information; strip/libmulti.so
# only its dynamic symbols (lib_checksum, and lib_series, which as the last
# symbol of the file gets a routine of size 0 and is never shown).
SRE='^lib_|^step$|^main$'
compare_disasm dis-strip "stripped --disasm" --disasm="$SRE" strip/multi-prog strip/multi-prog.prof
check "stripped --disasm shows no source" bash -c "! grep -qE '^-{20} |^.{6} .{6} [ 0-9]{5}: ' out/dis-strip"
pp out/list-strip --list="$SRE" strip/multi-prog strip/multi-prog.prof
check "stripped --list exits 1 with nothing listed" test "$rc" -eq 1 -a ! -s out/list-strip
nr=$(grep -c '^ROUTINE ' out/dis-strip)
check "stripped --list says each of the $nr routines once on stderr" \
	test "$(grep -c ': no line information' out/list-strip.err)" -eq "$nr"
check "stripped --list names them" \
	bash -c "diff <(sed -n 's/^ROUTINE =* //p' out/dis-strip | sort) <(sed -n 's/: no line information.*//p' out/list-strip.err | sort)"
check "stripped --list: one more line, the error" test "$(wc -l <out/list-strip.err)" -eq $((nr + 1))
check "stripped --list: the error says what is missing" \
	grep -qxF "pprof: --list: no routine matching '$SRE' has line information" out/list-strip.err
# Some routines listed, others not: that is no error.
pp out/list-strip2 --list='^lib_|^step$' --lib_prefix="$W/strip" multi-prog multi-prog.prof
check "--list with a stripped library exits 0" test "$rc" -eq 0
check "--list with a stripped library lists the program's routines" \
	test "$(grep -c '^ROUTINE ====================== step in ' out/list-strip2)" -eq 2
check "--list with a stripped library says lib_checksum has no lines" \
	grep -qx 'lib_checksum: no line information; --disasm shows its instructions' out/list-strip2.err

# A copy without any symbol, given as PROGRAM: it is what the program's
# mapping is read from, so the program has no routine at all.
mkdir -p bare
strip -o bare/multi-prog multi-prog
pp out/dis-bare --disasm=. bare/multi-prog multi-prog.prof
check_run out/dis-bare "fully stripped program --disasm=." &&
	check_sums "fully stripped program --disasm=." disasm out/dis-bare
check "fully stripped program: its routines are not shown" \
	bash -c "! grep -qE '^ROUTINE =* (main|step|other_entry)\$' out/dis-bare"
check "fully stripped program: libmulti.so's are" grep -qx 'ROUTINE ====================== lib_checksum' out/dis-bare
pp out/list-bare --list='^main$' bare/multi-prog multi-prog.prof
check "fully stripped program: --list='^main$' exits 1, stdout empty" test "$rc" -eq 1 -a ! -s out/list-bare
check "fully stripped program: --list='^main$' says no routine matches" \
	grep -q "no routine with samples matches" out/list-bare.err

# --- 7. no samples, no match, bad regex ---------------------------------------------
if nm c-prog | grep -q ' frame_dummy$'; then
	for m in list disasm; do
		for re in '^frame_dummy$' '^no_such_routine$'; do
			pp "out/none-$m" --$m="$re" c-prog c-prog.prof
			check "--$m='$re' exits 1 with an empty stdout" test "$rc" -eq 1 -a ! -s "out/none-$m"
			check "--$m='$re' says one line: no routine with samples matches" \
				test "$(wc -l <"out/none-$m.err")" -eq 1 -a "$(grep -c 'no routine with samples matches' "out/none-$m.err")" -eq 1
		done
	done
else
	not_ok "c-prog has frame_dummy, a routine without samples"
fi
for m in list disasm; do
	pp "out/badre-$m" --$m='(' c-prog c-prog.prof
	check "--$m='(' exits 2 with one line on stderr" \
		test "$rc" -eq 2 -a ! -s "out/badre-$m" -a "$(wc -l <"out/badre-$m.err")" -eq 1
done
# The regex sees the name alone: '^name$' selects the routine, and the
# address google-pprof appends to names is not part of it.
for m in list disasm; do
	pp "out/anchored-$m" --$m='^fib$' c-prog c-prog.prof
	check "--$m='^fib\$' shows the one routine fib" \
		test "$rc" -eq 0 -a "$(grep '^ROUTINE ' "out/anchored-$m" | sed -E 's/^ROUTINE =+ //; s/ in .*//')" = fib
	pp "out/tagged-$m" --$m='^fib<' c-prog c-prog.prof
	check "--$m='^fib<' matches no routine: names carry no address" \
		grep -q 'no routine with samples matches' "out/tagged-$m.err"
done

# --- 8. the prompt ---------------------------------------------------------------------
# prompt OUT PROG COMMANDS: runs the prompt with COMMANDS as its input.
prompt() {
	printf '%b' "$3" | timeout 120 "$PPROF" --interactive "$2" "$2.prof" >"$1" 2>"$1.err"
	rc=$?
	ran "$1" "the prompt with $3"
}
# interactive NAME PROG COMMANDS EXPECTED...: the prompt's output for
# COMMANDS is the concatenation of the EXPECTED outputs, apart from the lines
# the prompt prints before each (see ref_prompt); its stderr holds nothing but
# what each -IGNORE says.
interactive() {
	local name=$1 prog=$2 cmds=$3 f; shift 3
	prompt out/i.out "$prog" "$cmds"
	for f; do cat "$f"; done >out/i.exp
	grep -vE "^(Total: [0-9.]+ [a-z]+|After (ignoring|focusing on) '.*': .*)\$" out/i.out >out/i.got
	same_output "$name" out/i.exp out/i.got
	if [ "$rc" -eq 0 ] && ! grep -qv "^Ignoring samples in call stacks that match '[^']*'\$" out/i.out.err; then
		ok "$name: exit 0, nothing else on stderr"
	else
		not_ok "$name: exit 0, nothing else on stderr (status $rc)"
		show out/i.out.err 10 stderr
	fi
}
pp out/i-list --list='^fib$' c-prog c-prog.prof
pp out/i-dis --disasm='^fib$' c-prog c-prog.prof
pp out/i-list2 --list='^fib$|^cmp_int$' c-prog c-prog.prof
interactive "prompt: list, disasm, list RE RE equal --list and --disasm" c-prog \
	'list ^fib$\ndisasm ^fib$\nlist ^fib$ ^cmp_int$\n' out/i-list out/i-dis out/i-list2
pp out/ign-list --list='^main$' --ignore=step multi-prog multi-prog.prof
pp out/ign-dis --disasm='^lib_|^main$' --ignore='lib_series|step' multi-prog multi-prog.prof
interactive "prompt: list RE -IGNORE, disasm RE -IGNORE -IGNORE equal --ignore" multi-prog \
	'list ^main$ -step\ndisasm ^lib_|^main$ -lib_series -step\n' out/ign-list out/ign-dis
check "prompt: -IGNORE is said on stderr" grep -qx "Ignoring samples in call stacks that match 'lib_series|step'" out/i.out.err
# The prompt keeps the objects it opened for listings: a library that no
# address of an earlier listing fell in is opened for a later one.
pp out/late-lib1 --list='^main$' --ignore='lib_' multi-prog multi-prog.prof
pp out/late-lib2 --disasm='^lib_' multi-prog multi-prog.prof
interactive "prompt: a listing opens a library the listing before it did not need" \
	multi-prog 'list ^main$ -lib_\ndisasm ^lib_\nlist ^main$ -lib_\n' \
	out/late-lib1 out/late-lib2 out/late-lib1
check "... whose routines the later listing shows" grep -q '^ROUTINE =* lib_checksum' out/late-lib2
# The program through two executable mappings at one load bias, the library's
# between them in the maps: a listing ranks the program by the later mapping
# it has addresses in, as one command line run does, even after a listing at
# the prompt that only had addresses in the first.
split_maps() {
	python3 - "$@" <<'EOF'
import struct, sys
src, prog, lib, out = sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[5]
split = int(sys.argv[3], 16)
data = open(src, 'rb').read()
slot = lambda i: struct.unpack_from('<Q', data, 8 * i)[0]
i = 2 + slot(1)
while (slot(i), slot(i + 1), slot(i + 2)) != (0, 1, 0):
    i += 2 + slot(i + 1)
body, maps = data[:8 * (i + 3)], data[8 * (i + 3):].decode().splitlines()
p = [m for m in maps if m.endswith('/' + prog) and ' r-xp ' in m][0]
l = [m for m in maps if m.endswith('/' + lib) and ' r-xp ' in m][0]
span, perm, off, rest = p.split(' ', 3)
lo, hi = (int(x, 16) for x in span.split('-'))
low = '%x-%x %s %s %s' % (lo, split, perm, off, rest)
high = '%x-%x %s %08x %s' % (split, hi, perm, int(off, 16) + split - lo, rest)
rest = [m for m in maps if m not in (p, l)]
open(out, 'wb').write(body + '\n'.join([low, l, high] + rest).encode() + b'\n')
EOF
}
# Split where the second step (multi_other.c's, which other_entry calls) starts.
step2=$(nm -n multi-prog | awk '$3 == "step" { a = $1 } END { print a }')
text=$(grep -a -m1 ' r-xp .*/multi-prog$' multi-prog.prof | awk '{ print $1, $3 }')
at=
[ -n "$step2" ] && [ -n "$text" ] &&
	at=$(printf '%x' $(( 0x${text%%-*} + 0x$step2 - 0x${text##* } )))
if [ -n "$at" ] && split_maps multi-prog.prof multi-prog "$at" libmulti.so split.prof; then
	pp out/split1 --list='^main$' --ignore='other_entry|lib_' multi-prog split.prof
	pp out/split2 --list='^step$|^lib_' multi-prog split.prof
	check "split mappings: the library's routines come before the program's" \
		awk '/^ROUTINE .* lib_/ { l = NR } /^ROUTINE .* step / && !s { s = NR }
			END { exit !(l && s && l < s) }' out/split2
	printf '%b' 'list ^main$ -other_entry|lib_\nlist ^step$|^lib_\n' |
		timeout 120 "$PPROF" --interactive multi-prog split.prof \
			>out/split.out 2>out/split.err
	rc=$?
	ran out/split.out "the prompt on split.prof"
	cat out/split1 out/split2 >out/split.exp
	grep -vE "^(Total: [0-9.]+ [a-z]+|After ignoring '.*': .*)\$" out/split.out >out/split.got
	same_output "prompt: a later listing ranks the program as --list does" \
		out/split.exp out/split.got
else
	not_ok "a profile with the program split in two mappings"
fi
prompt out/i2.out c-prog 'list ^frame_dummy$\nlist (\nlist ^fib$\n'
grep -v '^Total: ' out/i2.out >out/i2.got
same_output "prompt: errors of list do not end the session" out/i-list out/i2.got
check "prompt: each error of list is one line" test "$rc" -eq 0 -a "$(wc -l <out/i2.out.err)" -eq 2
# As google-pprof's prompt: it prints "Total: N samples" (and what is left
# after -IGNORE) before each listing.
prompt out/prompt multi-prog "$PROMPT_CMDS"
# ref_prompt KEY NAME
ref_prompt() {
	wait_ref "$1" "$2" || return
	no_text "ref/$1" >"out/$1.ref"
	no_text "out/$1" >"out/$1.cmp"
	same_output "$2" "out/$1.ref" "out/$1.cmp"
}
later prompt prompt "prompt: list RE -IGNORE and disasm RE print what google-pprof's prompt prints"

# --- 1, 2, 6: the comparisons with google-pprof ---------------------------------------
for i in "${!later_key[@]}"; do
	"ref_${later_kind[i]}" "${later_key[i]}" "${later_name[i]}"
done

compare_objdump "fib" c-prog fib '^fib$' c-prog
compare_objdump "main" c-prog main '^main$' c-prog

wait
exit "$FAILED"
