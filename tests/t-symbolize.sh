#!/usr/bin/env bash
# t-symbolize.sh - symbolizer behaviour beyond plain equality with google-pprof:
# a PIE program copied elsewhere, a missing shared library, --lib_prefix, a
# stripped program, --verbose, -o writing a file only when complete, and a
# library whose debug information is in a separate file.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/symbolize
mkdir -p "$W/lib" "$W/moved" "$W/prefix/deep"
PROGS=$TESTDATA/progs
REF=${GOOGLE_PPROF:-google-pprof}

require --libprofiler "$REF" gcc strip python3 || exit 1

if ! gcc -g -O2 -shared -fPIC -o "$W/lib/libmulti.so" "$PROGS/libmulti.c" ||
   ! gcc -g -O2 -o "$W/prog" "$PROGS/multi_main.c" "$PROGS/multi_other.c" \
	-L"$W/lib" -lmulti -Wl,-rpath,"$W/lib" "${PROF_LIBS[@]}"; then
	not_ok "test program builds"
	exit 1
fi
cpu_profile "test program" "$W/prog" "$W/prog.prof" || exit 1
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

# Hostile programs: an ELF cut short, and one with its middle overwritten,
# must give a report (text, source listing, disassembly) or one clean
# error, never a crash or a sanitizer report.
handled() {
	local rc opts
	for opts in --text --list=. --disasm=.; do
		timeout 60 "$PPROF" "$opts" "$W/prog" "$W/prog.prof" >"$W/hostile.txt" 2>"$W/hostile.err"
		rc=$?
		clean_exit "$1 is handled by $opts (status $rc)" "$rc" "$W/hostile.err" 0 1
	done
}
cp "$W/prog.unstripped" "$W/prog"
size=$(stat -c %s "$W/prog")
for cut in 64 700 4096 $((size / 2)) $((size - 100)); do
	head -c "$cut" "$W/prog.unstripped" >"$W/prog"
	handled "a program cut at $cut bytes"
done
for seed in 1 2 3 4 5 6; do
	cp "$W/prog.unstripped" "$W/prog"
	python3 - "$W/prog" "$seed" <<'PY'
import random, sys
path, seed = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, 'rb').read())
rng = random.Random(seed)
# Keep the ELF header; scribble over 64 spans across the rest of the file.
for _ in range(64):
    off = rng.randrange(64, len(data) - 32)
    for i in range(rng.randrange(1, 32)):
        data[off + i] = rng.randrange(256)
open(path, 'wb').write(data)
PY
	handled "a program with corrupted bytes (seed $seed)"
done
cp "$W/prog.unstripped" "$W/prog"

# No program on the command line: objects come from the profile's own list.
"$PPROF" --text "$W/prog.prof" >"$W/noprog.txt" 2>"$W/noprog.err"
check "a profile alone is reported" test $? -eq 0
check "a profile alone still names library functions" grep -q 'lib_' "$W/noprog.txt"
check "a profile alone names the program's functions from its recorded path" \
	grep -qE ' (main|walk_list|sum_squares|step)' "$W/noprog.txt"

# A library stripped to its dynamic symbols, with its debug information in a
# separate file that its .gnu_debuglink names, beside it: the session's
# libdwfl finds that file (as binutils does for google-pprof), so its
# functions get their source lines, and --list finds lib_series, which only
# the debug file's symbols give an end (in the dynamic symbols it is the
# last, a routine of size 0).
if objcopy --only-keep-debug "$W/lib/libmulti.so" "$W/lib/libmulti.so.debug" &&
	strip "$W/lib/libmulti.so" &&
	objcopy --add-gnu-debuglink="$W/lib/libmulti.so.debug" "$W/lib/libmulti.so"; then
	"$REF" --text --lines "$W/prog" "$W/prog.prof" >"$W/ref-debuglink.txt" 2>/dev/null
	"$PPROF" --text --lines --verbose "$W/prog" "$W/prog.prof" >"$W/debuglink.txt" 2>"$W/debuglink.err"
	same_output "a library with a debug link reports like google-pprof" \
		"$W/ref-debuglink.txt" "$W/debuglink.txt"
	check "--verbose names the library's debug file" \
		grep -q "object '$W/lib/libmulti.so': read.*, [0-9]* dynamic symbols, DWARF from $W/lib/libmulti.so.debug" \
		"$W/debuglink.err"
	check "the library's functions have their source lines" grep -qE 'lib_checksum .*libmulti\.c:[0-9]+$' "$W/debuglink.txt"
	"$PPROF" --list='^lib_series$' "$W/prog" "$W/prog.prof" >"$W/debuglink-list.txt" 2>"$W/debuglink-list.err"
	check "--list finds a routine only the debug file's symbols delimit" \
		grep -q '^ROUTINE =* lib_series in .*libmulti\.c$' "$W/debuglink-list.txt"
else
	not_ok "the library's debug information moves to a separate file"
fi

# The same debug file found by build id instead, its sections compressed
# as Debian's debug packages ship them: pprof inflates them before libdw
# opens the file (src/symbolize/inflate.c), and reports the same.
BID=$(readelf -n "$W/lib/libmulti.so" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
ZDEBUG=$W/bid/.build-id/${BID:0:2}/${BID:2}.debug
if [ -n "$BID" ] && [ -f "$W/lib/libmulti.so.debug" ] && mkdir -p "$(dirname "$ZDEBUG")" &&
	objcopy --compress-debug-sections=zlib "$W/lib/libmulti.so.debug" "$ZDEBUG"; then
	check "the library's debug file has compressed sections" \
		bash -c "readelf -SW '$ZDEBUG' | grep -q '\.debug_info .* C '"
	mv "$W/lib/libmulti.so.debug" "$W/libmulti.so.debug.away"
	PPROF_BINARY_PATH=$W/bid "$PPROF" --text --lines --verbose "$W/prog" "$W/prog.prof" \
		>"$W/zdebug.txt" 2>"$W/zdebug.err"
	same_output "a compressed debug file found by build id reports like google-pprof" \
		"$W/ref-debuglink.txt" "$W/zdebug.txt"
	check "--verbose names the compressed debug file" \
		grep -q "object '$W/lib/libmulti.so': read.*DWARF from $ZDEBUG" "$W/zdebug.err"
	PPROF_BINARY_PATH=$W/bid "$PPROF" --list='^lib_series$' "$W/prog" "$W/prog.prof" \
		>"$W/zdebug-list.txt" 2>&1
	same_output "--list through the compressed debug file is as through the plain one" \
		"$W/debuglink-list.txt" "$W/zdebug-list.txt"

	# The inflated copy is kept by build id (src/symbolize/debugcache.c):
	# the next run takes it, the same file, and renews its time; a damaged
	# one of the same size is replaced.
	KEPT=$W/dcache/$BID.debug
	zrun() {
		PPROF_CACHE_DIR=$W/dcache PPROF_BINARY_PATH=$W/bid "$PPROF" --text --lines --verbose \
			"$W/prog" "$W/prog.prof" >"$W/$1" 2>"$W/$1.err"
	}
	zrun kept1.txt
	same_output "a run that keeps the inflated debug file reports as google-pprof" \
		"$W/ref-debuglink.txt" "$W/kept1.txt"
	check "--verbose says the inflated copy was kept" \
		grep -q "object '$W/lib/libmulti.so': read.*DWARF from $ZDEBUG (inflated, kept in the cache)\$" \
		"$W/kept1.txt.err"
	check "the inflated copy is kept under its build id" \
		bash -c "readelf -n '$KEPT' | grep -q 'Build ID: $BID'"
	check "the kept copy's sections are inflated" \
		bash -c "readelf -SW '$KEPT' | grep -q '\.debug_info ' && ! readelf -SW '$KEPT' | grep -q '\.debug_info .* C '"
	inode=$(stat -c %i "$KEPT")
	touch -d '40 days ago' "$KEPT"
	zrun kept2.txt
	same_output "a run that takes the kept copy reports the same" "$W/ref-debuglink.txt" "$W/kept2.txt"
	check "--verbose says the inflated copy came from the cache" \
		grep -q "object '$W/lib/libmulti.so': read.*DWARF from $ZDEBUG (inflated, from the cache)\$" \
		"$W/kept2.txt.err"
	check "that run took the kept file and renewed its time" \
		bash -c "[ \"\$(stat -c %i '$KEPT')\" = '$inode' ] && [ -n \"\$(find '$KEPT' -mmin -60)\" ]"
	head -c "$(stat -c %s "$KEPT")" /dev/zero >"$KEPT.zero" && mv "$KEPT.zero" "$KEPT"
	inode=$(stat -c %i "$KEPT")
	zrun kept3.txt
	same_output "a damaged kept copy is not taken" "$W/ref-debuglink.txt" "$W/kept3.txt"
	check "the damaged copy is replaced by a good one" \
		bash -c "[ \"\$(stat -c %i '$KEPT')\" != '$inode' ] && readelf -n '$KEPT' | grep -q 'Build ID: $BID'"
	check "no temporary file is left in the cache" bash -c "! ls '$W/dcache' | grep -q '\.debug\.'"
	PPROF_CACHE_DIR= PPROF_BINARY_PATH=$W/bid "$PPROF" --text --lines --verbose "$W/prog" \
		"$W/prog.prof" >"$W/nocache.txt" 2>"$W/nocache.err"
	same_output "PPROF_CACHE_DIR set empty reports the same" "$W/ref-debuglink.txt" "$W/nocache.txt"
	check "--verbose says the debug file was inflated, and no more" \
		grep -q "object '$W/lib/libmulti.so': read.*DWARF from $ZDEBUG (inflated)\$" "$W/nocache.err"
	mv "$W/libmulti.so.debug.away" "$W/lib/libmulti.so.debug"
else
	not_ok "the library's debug file compresses into a .build-id directory"
fi

# The same debug file sharing its DWARF with the program's through a dwz
# file (.gnu_debugaltlink, as Debian's debug packages have it).  libdwfl
# asks for the dwz file through the same search as for the debug file: it
# must get the dwz file (of another build id), not the library's debug file
# again, whose strings then named the functions "U C17 12.2.0 -mtune=...".
mkdir -p "$W/dwz" "$W/plain/.build-id/${BID:0:2}"
if [ -n "$BID" ] && cp "$W/lib/libmulti.so.debug" "$W/dwz/lib.debug" &&
	objcopy --only-keep-debug "$W/prog" "$W/dwz/prog.debug" &&
	dwz -m "$W/dwz/common.debug" -M "$W/dwz/common.debug" \
		"$W/dwz/lib.debug" "$W/dwz/prog.debug" 2>/dev/null &&
	readelf -SW "$W/dwz/lib.debug" | grep -q '\.gnu_debugaltlink' &&
	cp "$W/dwz/lib.debug" "$W/plain/.build-id/${BID:0:2}/${BID:2}.debug" &&
	objcopy --compress-debug-sections=zlib "$W/dwz/lib.debug" "$ZDEBUG"; then
	mv "$W/lib/libmulti.so.debug" "$W/libmulti.so.debug.away"
	PPROF_BINARY_PATH=$W/plain "$PPROF" --text --lines "$W/prog" "$W/prog.prof" \
		>"$W/dwz-plain.txt" 2>&1
	PPROF_BINARY_PATH=$W/bid "$PPROF" --text --lines "$W/prog" "$W/prog.prof" \
		>"$W/dwz-z.txt" 2>&1
	check "a dwz-linked debug file names the library's functions" \
		grep -qE ' lib_checksum .*libmulti\.c:[0-9]+$' "$W/dwz-plain.txt"
	same_output "a compressed dwz-linked debug file reports as the plain one" \
		"$W/dwz-plain.txt" "$W/dwz-z.txt"
	mv "$W/libmulti.so.debug.away" "$W/lib/libmulti.so.debug"
else
	not_ok "the library's debug file shares its DWARF through a dwz file (dwz installed?)"
fi

# A program whose own debug sections are compressed (gcc -gz, or objcopy):
# the same reports as from the program as built.
if objcopy --compress-debug-sections=zlib "$W/prog" "$W/prog-gz"; then
	for view in "--text --lines" "--list=sum_squares" "--disasm=sum_squares" \
		"--text --addresses"; do
		# shellcheck disable=SC2086
		"$PPROF" $view "$W/prog" "$W/prog.prof" >"$W/plain-view.txt" 2>&1
		# shellcheck disable=SC2086
		"$PPROF" $view "$W/prog-gz" "$W/prog.prof" >"$W/gz-view.txt" 2>&1
		same_output "$view of a program with compressed DWARF is as of the plain one" \
			"$W/plain-view.txt" "$W/gz-view.txt"
	done
else
	not_ok "the program's debug sections compress"
fi
