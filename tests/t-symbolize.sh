#!/usr/bin/env bash
# t-symbolize.sh - symbolizer behaviour beyond plain equality with google-pprof:
# a PIE program copied elsewhere, a missing shared library, --lib_prefix, a
# stripped program, --verbose, and -o writing a file only when complete.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/symbolize
mkdir -p "$W/lib" "$W/moved" "$W/prefix/deep"
PROGS=$TESTDATA/progs
REF=${GOOGLE_PPROF:-google-pprof}
PROF_LIBS=(-Wl,--no-as-needed -lprofiler)
NOASLR=(env)
setarch -R true 2>/dev/null && NOASLR=(setarch -R)

if ! gcc -g -O2 -shared -fPIC -o "$W/lib/libmulti.so" "$PROGS/libmulti.c" ||
   ! gcc -g -O2 -o "$W/prog" "$PROGS/multi_main.c" "$PROGS/multi_other.c" \
	-L"$W/lib" -lmulti -Wl,-rpath,"$W/lib" "${PROF_LIBS[@]}"; then
	not_ok "test program builds"
	exit 1
fi
CPUPROFILE=$W/prog.prof CPUPROFILE_FREQUENCY=1000 "${NOASLR[@]}" "$W/prog" >/dev/null 2>&1
if [ ! -s "$W/prog.prof" ]; then
	not_ok "test program writes a CPU profile"
	exit 1
fi
"$REF" --text "$W/prog" "$W/prog.prof" >"$W/ref.txt" 2>/dev/null
"$PPROF" --text "$W/prog" "$W/prog.prof" >"$W/out.txt" 2>"$W/err"
same_output "report equals google-pprof's" "$W/ref.txt" "$W/out.txt"
check "the report names functions of the program and of libmulti.so" \
	grep -q 'lib_' "$W/out.txt"

# A PIE program copied under another name: google-pprof shows bare addresses,
# we use the program given on the command line for the main mapping.
cp "$W/prog" "$W/moved/renamed"
"$PPROF" --text "$W/moved/renamed" "$W/prog.prof" >"$W/moved.txt" 2>"$W/moved.err"
same_output "a program copied elsewhere is still symbolized" "$W/ref.txt" "$W/moved.txt"

# --lib_prefix: the library found under a prefix, its directories dropped from the left.
mv "$W/lib/libmulti.so" "$W/prefix/deep/libmulti.so"
"$PPROF" --text --lib_prefix="$W/nowhere,$W/prefix/deep" "$W/prog" "$W/prog.prof" \
	>"$W/prefix.txt" 2>"$W/prefix.err"
same_output "--lib_prefix finds a moved library" "$W/ref.txt" "$W/prefix.txt"

# Missing library: one warning naming it, exit 0, its samples kept as addresses.
"$PPROF" --text "$W/prog" "$W/prog.prof" >"$W/missing.txt" 2>"$W/missing.err"
rc=$?
check "a missing library is not an error" test "$rc" -eq 0
check "a missing library gets exactly one warning line" test "$(wc -l <"$W/missing.err")" -eq 1
check "the warning names the library" grep -q 'libmulti.so' "$W/missing.err"
check "its samples stay, as hex addresses" grep -qE ' [0-9a-f]{16}$' "$W/missing.txt"
check "no lib_ function is named without the library" bash -c "! grep -q 'lib_' '$W/missing.txt'"
check "the total is unchanged" test "$(head -n 1 "$W/missing.txt")" = "$(head -n 1 "$W/ref.txt")"
mv "$W/prefix/deep/libmulti.so" "$W/lib/libmulti.so"

# --verbose: a summary line per object read.
"$PPROF" --text --verbose "$W/prog" "$W/prog.prof" >/dev/null 2>"$W/verbose.err"
check "--verbose describes the program with its build-id and DWARF" \
	grep -qE "object '$W/prog': read, build-id [0-9a-f]+, [0-9]+ static symbols, DWARF" "$W/verbose.err"
check "--verbose describes libc and its separate debug file" \
	grep -qE "object '[^']*libc\.so\.6': read.*DWARF" "$W/verbose.err"
check "--verbose lists the mappings" grep -q "pprof: mapping " "$W/verbose.err"

# -o FILE: same bytes as stdout; a failing run leaves an existing file alone.
"$PPROF" --text -o "$W/report.txt" "$W/prog" "$W/prog.prof" 2>/dev/null
same_output "-o FILE writes the report" "$W/out.txt" "$W/report.txt"
"$PPROF" --text --output="$W/report.txt" "$W/prog" "$W/prog" >/dev/null 2>&1
check "a failing run with -o fails" test $? -eq 1
same_output "a failing run leaves the -o file as it was" "$W/out.txt" "$W/report.txt"
check "no temporary file is left beside the -o file" \
	test "$(ls "$W" | grep -c '^report\.txt\.')" -eq 0

# Stripped program at the path the profile recorded: compare with google-pprof.
cp "$W/prog" "$W/prog.unstripped"
strip "$W/prog"
"$REF" --text "$W/prog" "$W/prog.prof" >"$W/ref-stripped.txt" 2>/dev/null
"$PPROF" --text "$W/prog" "$W/prog.prof" >"$W/stripped.txt" 2>"$W/stripped.err"
same_output "a stripped program reports like google-pprof" "$W/ref-stripped.txt" "$W/stripped.txt"
