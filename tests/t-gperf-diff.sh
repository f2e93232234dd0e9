#!/usr/bin/env bash
# t-gperf-diff.sh - differential test against the reference google-pprof.
#
# Builds the programs in testdata/progs with -g -O2 and libprofiler, profiles
# each of them twice, then checks that "$PPROF --text OPTS prog prof" prints
# exactly what "google-pprof --text OPTS prog prof" prints (stdout, byte for
# byte), that our exit status is 0, and that our stderr holds nothing unexpected.
# Missing google-pprof or libprofiler is a failure, not a skip:
# scripts/install-deps installs google-perftools and libgoogle-perftools-dev.
set -u
source "$(dirname "$0")/lib.sh"

PROGS=$TESTDATA/progs
W=$TEST_TMP/gperf-diff
mkdir -p "$W"
REF=${GOOGLE_PPROF:-google-pprof}

# --- prerequisites -----------------------------------------------------------
require --libprofiler "$REF" gcc g++ nm objdump addr2line || exit 1

# --- build -------------------------------------------------------------------
built=()
build c-prog gcc -g -O2 -o "$W/c-prog" "$PROGS/cprog.c" "${PROF_LIBS[@]}" &&
	built+=(c-prog)
build cxx-prog g++ -g -O2 -o "$W/cxx-prog" "$PROGS/cxxprog.cc" "${PROF_LIBS[@]}" &&
	built+=(cxx-prog)
build libmulti.so gcc -g -O2 -shared -fPIC -o "$W/libmulti.so" "$PROGS/libmulti.c" &&
	build multi-prog gcc -g -O2 -o "$W/multi-prog" "$PROGS/multi_main.c" "$PROGS/multi_other.c" \
		-L"$W" -lmulti -Wl,-rpath,"$W" "${PROF_LIBS[@]}" &&
	built+=(multi-prog)

# --- profile -----------------------------------------------------------------
# Only the maps of the last profile named are used to symbolize all of
# them, so the runs of a program must share one address layout for sums and
# --base to make sense: cpu_profile turns off ASLR when it can (the
# comparisons stay valid without it, just less meaningful).

# profile NAME RUN [ARG]: runs $W/NAME [ARG], writing the CPU profile
# $W/NAME-RUN.prof.  ARG makes one phase of the program repeat ARG times, so
# that the second profile differs clearly from the first (for --base).
profile() {
	cpu_profile "$1 run $2" "$W/$1" "$W/$1-$2.prof" ${3:+"$3"}
}

# --- compare -----------------------------------------------------------------
# compare NAME ARGS...: runs both tools with --text ARGS and compares them.
compare() {
	local name=$1; shift
	local ref=$W/ref.txt ref_err=$W/ref.err out=$W/out.txt err=$W/err rc
	"$REF" --text "$@" >"$ref" 2>"$ref_err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$ref" ]; then
		not_ok "$name: google-pprof failed (status $rc), nothing to compare"
		return
	fi
	timeout 60 "$PPROF" --text "$@" >"$out" 2>"$err"
	rc=$?
	gp_text "$out" >"$out.gp"
	same_output "$name matches google-pprof" "$ref" "$out.gp"
	says_kept "$name" "$out" "$@"
	# google-pprof chats on stderr ("Using local file ...", and more with two
	# profiles); a line of ours is expected only if google-pprof printed it too.
	if [ "$rc" -eq 0 ] && ! grep -qvxF -f "$ref_err" "$err"; then
		ok "$name exits 0 with a clean stderr"
	else
		not_ok "$name exits 0 with a clean stderr (status $rc)"
		show "$err" 20 stderr
	fi
}

# Per-program regexes for --focus, --ignore and --focus with --ignore.
# They stay within the syntax common to Perl and POSIX extended regexes.
declare -A FOCUS IGNORE FOCUS2 IGNORE2
FOCUS[c-prog]='format_lines'
IGNORE[c-prog]='fib|memcpy'
FOCUS2[c-prog]='sort_numbers|copy_buffers'
IGNORE2[c-prog]='cmp_int'
FOCUS[cxx-prog]='work::'
IGNORE[cxx-prog]='std::__introsort_loop'
FOCUS2[cxx-prog]='count_words|geom::Box'
IGNORE2[cxx-prog]='compare'
FOCUS[multi-prog]='lib_'
IGNORE[multi-prog]='other_entry'
FOCUS2[multi-prog]='^main$'
IGNORE2[multi-prog]='step'

for p in "${built[@]}"; do
	profile "$p" a || continue
	profile "$p" b 2 || continue
	prog=$W/$p a=$W/$p-a.prof b=$W/$p-b.prof
	compare "$p (no options)" "$prog" "$a"
	for opt in --lines --addresses --files --cum; do
		compare "$p $opt" "$opt" "$prog" "$a"
	done
	compare "$p --focus" "--focus=${FOCUS[$p]}" "$prog" "$a"
	compare "$p --ignore" "--ignore=${IGNORE[$p]}" "$prog" "$a"
	compare "$p --focus --ignore" "--focus=${FOCUS2[$p]}" "--ignore=${IGNORE2[$p]}" "$prog" "$a"
	compare "$p two profiles" "$prog" "$a" "$b"
	compare "$p --base" "--base=$a" "$prog" "$b"
	compare "$p --base --drop_negative" "--base=$a" --drop_negative "$prog" "$b"
done
exit "$FAILED"
