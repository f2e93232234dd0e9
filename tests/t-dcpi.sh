#!/usr/bin/env bash
# t-dcpi.sh - DCPI profiles (dcpiformat(4), major version 0).
#
# Builds testdata/dcpi/hot.c twice (PIE and non-PIE, -O0 so that nothing is
# inlined), takes instruction addresses of its functions from objdump and
# the text section from objdump -h, and writes DCPI profiles with known
# counts at those addresses with scripts/gen-dcpi.  The flat counts of
# "pprof --text", "--text --addresses" and "--text --lines" must equal the
# generator's bookkeeping (gen-dcpi --expect: per address from the
# description, per function from nm, per line from addr2line), which is
# computed without pprof's reader or symbolizer.
#
# Then malformed profiles: each must give exit status 1, nothing on stdout,
# exactly one stderr line "pprof: FILE: offset 0xN: ..." naming the file,
# and no sanitizer report (PPROF=build/san/pprof for ASan+UBSan).
#
# SHOW_ERR=1 bash tests/t-dcpi.sh also shows the messages of passing cases.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/dcpi
mkdir -p "$W"
GEN=(python3 "$TOP/scripts/gen-dcpi")
SRC=$TESTDATA/dcpi/hot.c

require gcc objdump nm python3 || exit 1

# -ffile-prefix-map makes the debug info name /dcpi/hot.c wherever the tree is.
if ! gcc -g -O0 -ffile-prefix-map="$TESTDATA/dcpi"=/dcpi -o "$W/hot" "$SRC" ||
	! gcc -g -O0 -no-pie -ffile-prefix-map="$TESTDATA/dcpi"=/dcpi -o "$W/hotnp" "$SRC"; then
	not_ok "test programs build"
	exit 1
fi

# header_lines BIN TSTART TSIZE: a complete header for BIN, with unknown lines.
header_lines() {
	cat <<EOF
header version pdb-0.07
header image 1a2b3c4d
header foo bar  baz
header epoch 0411221530
header platform x86_64 Linux
header event cycles
header period 62000
header tstart $2
header tsize $3
header cpuspeed 2400
header cpucount 2
header path $1
header zz.unknown	tab-separated	words
EOF
}

# report_rows FILE KIND: "KEY FLAT" per row of a --text report, sorted.
report_rows() {
	awk -v kind="$2" '
		seen && NF >= 6 {
			if (kind == "functions") key = $6
			else if (kind == "addresses") key = $6
			else key = $6 " " $7
			print key, $1
		}
		/^Total: / { seen = 1 }' "$1" | LC_ALL=C sort
}

for variant in pie nopie; do
	case $variant in pie) BIN=$W/hot ;; *) BIN=$W/hotnp ;; esac
	V=$W/$variant
	mkdir -p "$V"
	read -r TSTART TSIZE_HEX < <(objdump -h "$BIN" | awk '$2 == ".text" { print $4, $3 }')
	TSTART=$(printf '%x' $((16#$TSTART)))
	TSIZE=$((16#$TSIZE_HEX))
	# Instruction addresses of the program's own functions.
	objdump -d --no-show-raw-insn "$BIN" | awk '
		/^[0-9a-f]+ <(hot_loop|warm|cold|main)>:$/ { f = 1; next }
		/^$/ { f = 0 }
		f && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' >"$V/insns"
	if [ "$(wc -l <"$V/insns")" -lt 40 ]; then
		not_ok "$variant: objdump lists the instructions of hot.c's functions"
		continue
	fi
	# Known counts: a pattern with gaps (so chunks hold zeros), and one big count.
	{
		header_lines "$BIN" "$TSTART" "$TSIZE"
		awk '{ c = (NR * 7 + 3) % 11; if (NR == 5) c = 100000; if (c) print "sample", $1, c }' "$V/insns"
	} >"$V/desc"
	if ! "${GEN[@]}" --expect "$V/exp" --binary "$BIN" -o "$V/prof.dcpi" "$V/desc"; then
		not_ok "$variant: gen-dcpi writes the profile"
		continue
	fi
	check "$variant: the generator expects samples in hot_loop, warm, cold and main" \
		test "$(awk '$1 ~ /^(hot_loop|warm|cold|main)$/' "$V/exp.functions" | wc -l)" -eq 4

	for kind in functions addresses lines; do
		opts=(--text)
		case $kind in addresses) opts+=(--addresses) ;; lines) opts+=(--lines) ;; esac
		run_pprof "${opts[@]}" "$BIN" "$V/prof.dcpi"
		if exited_cleanly "$RC" "$W/err" 0 && [ ! -s "$W/err" ]; then
			ok "$variant: ${opts[*]} exits 0 without messages"
		else
			not_ok "$variant: ${opts[*]} exits 0 without messages (status $RC${WHY:+, $WHY})"
			show "$W/err" 5 stderr
		fi
		cp "$W/out" "$V/$kind.out"
		check "$variant: ${opts[*]} prints 'Total: N samples' with the generator's total" \
			grep -qx "Total: $(cat "$V/exp.total") samples" "$V/$kind.out"
		report_rows "$V/$kind.out" "$kind" >"$V/$kind.got"
		LC_ALL=C sort "$V/exp.$kind" >"$V/$kind.want"
		same_output "$variant: ${opts[*]} flat counts per ${kind%s} are the generator's" \
			"$V/$kind.want" "$V/$kind.got"
	done

	# --disasm: each instruction's flat count is the generator's for its
	# address; --list: each routine's total is its function's, and the
	# per-line counts add up to it (the source found through --source_path).
	run_pprof --disasm='^(hot_loop|warm|cold|main)$' --source_path="$TESTDATA/dcpi" "$BIN" "$V/prof.dcpi"
	check "$variant: --disasm exits 0 without messages" test "$RC" -eq 0 -a ! -s "$W/err"
	# Instruction lines are "%6s %6s    %8s: TEXT": the colon in column 26.
	awk '/^ROUTINE/ { next } substr($0, 26, 1) == ":" && $1 != "." {
		a = sprintf("%16s", substr($3, 1, length($3) - 1)); gsub(/ /, "0", a); print a, $1 }' \
		"$W/out" | LC_ALL=C sort >"$V/disasm.got"
	LC_ALL=C sort "$V/exp.addresses" >"$V/disasm.want"
	same_output "$variant: --disasm counts per instruction are the generator's" \
		"$V/disasm.want" "$V/disasm.got"
	run_pprof --list='^(hot_loop|warm|cold|main)$' --source_path="$TESTDATA/dcpi" "$BIN" "$V/prof.dcpi"
	check "$variant: --list exits 0 without messages" test "$RC" -eq 0 -a ! -s "$W/err"
	awk '/^ROUTINE/ { name = $3; getline; print name, $1 }' "$W/out" | LC_ALL=C sort >"$V/list.got"
	LC_ALL=C sort "$V/exp.functions" >"$V/list.want"
	same_output "$variant: --list totals are the functions' counts" "$V/list.want" "$V/list.got"
	check "$variant: --list per-line counts add up to the totals" awk '
		/^ROUTINE/ { if (name != "" && sum != tot) bad = 1; name = $3; getline; tot = $1; sum = 0; next }
		$3 ~ /^[0-9]+:$/ && $1 != "." { sum += $1 }
		END { if (sum != tot) bad = 1; exit bad }' "$W/out"

	# The header comes first, in file order, unknown lines verbatim.
	{
		echo "dcpi version pdb-0.07"
		echo "dcpi image 1a2b3c4d"
		echo "dcpi unknown: foo bar  baz"
		echo "dcpi epoch 0411221530"
		echo "dcpi platform x86_64 Linux"
		echo "dcpi event cycles"
		echo "dcpi period 62000"
		echo "dcpi tstart $TSTART"
		echo "dcpi tsize $TSIZE"
		echo "dcpi cpuspeed 2400"
		echo "dcpi cpucount 2"
		echo "dcpi path $BIN"
		printf 'dcpi unknown: zz.unknown\ttab-separated\twords\n'
		echo "Total: $(cat "$V/exp.total") samples"
	} >"$V/head.want"
	head -n 14 "$V/functions.out" >"$V/head.got"
	same_output "$variant: the report header shows the metadata and the unknown lines" \
		"$V/head.want" "$V/head.got"

	# No program: the header's path is used.
	run_pprof --text "$V/prof.dcpi"
	cp "$W/out" "$V/noprog.out"
	same_output "$variant: without a program, the header's path symbolizes" \
		"$V/functions.out" "$V/noprog.out"

	# The program copied elsewhere, the header's path gone: the command line wins.
	mkdir -p "$V/moved"
	cp "$BIN" "$V/moved/renamed"
	sed "s|^header path .*|header path $V/gone/hot|" "$V/desc" >"$V/desc-gone"
	"${GEN[@]}" -o "$V/gone.dcpi" "$V/desc-gone"
	run_pprof --text --lines "$V/moved/renamed" "$V/gone.dcpi"
	report_rows "$W/out" lines >"$V/moved.got"
	same_output "$variant: a program at another path than the header's is used" \
		"$V/lines.want" "$V/moved.got"

	# A relative path in the header, resolved from the current directory.
	sed "s|^header path .*|header path ./$(basename "$BIN")|" "$V/desc" >"$V/desc-rel"
	"${GEN[@]}" -o "$V/rel.dcpi" "$V/desc-rel"
	(cd "$W" && timeout 20 "$PPROF" --text "$V/rel.dcpi" >"$V/rel.out" 2>"$V/rel.err")
	report_rows "$V/rel.out" functions >"$V/rel.got"
	same_output "$variant: a relative header path is used when it exists" \
		"$V/functions.want" "$V/rel.got"

	# Two profiles: their counts add up.
	run_pprof --text "$BIN" "$V/prof.dcpi" "$V/prof.dcpi"
	check "$variant: two profiles add up" \
		grep -qx "Total: $((2 * $(cat "$V/exp.total"))) samples" "$W/out"

	# One image under two header paths (none, and the binary's): still symbolized.
	grep -v '^header path ' "$V/desc" >"$V/desc-nopath"
	"${GEN[@]}" -o "$V/nopath.dcpi" "$V/desc-nopath"
	run_pprof --text "$BIN" "$V/nopath.dcpi" "$V/prof.dcpi"
	report_rows "$W/out" functions >"$V/merged.got"
	awk '{ print $1, 2 * $2 }' "$V/functions.want" | LC_ALL=C sort >"$V/merged.want"
	same_output "$variant: a profile without path plus one with it: twice the counts per function" \
		"$V/merged.want" "$V/merged.got"

	# No program and no path: one warning, the addresses stay as they are.
	run_pprof --text --addresses "$V/nopath.dcpi"
	report_rows "$W/out" addresses >"$V/nopath.got"
	if [ "$RC" -eq 0 ] && [ "$(wc -l <"$W/err")" -eq 1 ] && grep -q "warning: no program given" "$W/err"; then
		ok "$variant: no program and no path: exit 0 and one warning"
	else
		not_ok "$variant: no program and no path: exit 0 and one warning (status $RC)"
		show "$W/err" 3 stderr
	fi
	same_output "$variant: no program and no path: the counts per address are the generator's" \
		"$V/addresses.want" "$V/nopath.got"
done

# --- other valid inputs ----------------------------------------------------
PIE_TSTART=$(objdump -h "$W/hot" | awk '$2 == ".text" { print $4 }')
PIE_TSTART=$(printf '%x' $((16#$PIE_TSTART)))
HOT_LOOP=$(nm "$W/hot" | awk '$3 == "hot_loop" { print $1 }')

# minimal_header [SKIP_WORD]: the required lines (tsize 4096), without SKIP_WORD.
minimal_header() {
	local w
	for w in "version pdb-0.07" "image 1a2b" "epoch 0411221530" "platform x86_64" \
		"event cycles" "period 62000" "tstart $PIE_TSTART" "tsize 4096" "cpuspeed 2400"; do
		[ "${w%% *}" = "${1:-}" ] || echo "header $w"
	done
}

# expect_total NAME TOTAL DESC_FILE [PROGRAM]: the profile is read, with this total.
expect_total() {
	local name=$1 total=$2 desc=$3 prog=${4:-}
	if ! "${GEN[@]}" -o "$W/v.dcpi" "$desc"; then
		not_ok "$name: gen-dcpi writes it"
		return
	fi
	run_pprof --text ${prog:+"$prog"} "$W/v.dcpi"
	# A report of no samples has no Total line and no rows: only the header.
	if exited_cleanly "$RC" "$W/err" 0 &&
		if [ "$total" = 0 ]; then ! grep -qv '^dcpi ' "$W/out"; else grep -qx "Total: $total samples" "$W/out"; fi; then
		ok "$name: read, Total: $total samples"
	else
		not_ok "$name: read, Total: $total samples (status $RC${WHY:+, $WHY})"
		sed 's/^/    stdout: /' "$W/out" | tail -n 3
		show "$W/err" 3 stderr
	fi
}

{
	echo "header version 0.07"
	minimal_header version | sed -e 's/^header \([a-z]*\) /header \1 \t /' -e 's/$/  /'
	echo "align 0"
	echo "chunk $HOT_LOOP: 1 0 0 0 2"
} >"$W/v1"
expect_total "bare version M.N, tabs and trailing blanks, unaligned binary section" 3 "$W/v1" "$W/hot"
{
	minimal_header
	echo "header cpuamask ff"
	echo "header cpuimplv 2"
	echo "terminator samples	 "
	echo "chunk $HOT_LOOP: 0 0 0"
} >"$W/v2"
expect_total "optional lines, a blank-padded terminator, a chunk of zeros" 0 "$W/v2"
{
	minimal_header
	echo "chunk $HOT_LOOP: 4000000000 4000000000 7"
} >"$W/v3"
expect_total "counts near 2^32: the footer's total is modulo 2^32" 8000000007 "$W/v3" "$W/hot"
{ minimal_header; } >"$W/v4"
expect_total "no chunks at all" 0 "$W/v4"

# A program whose text does not cover tstart..tstart+tsize: a warning.
"${GEN[@]}" -o "$W/pie.dcpi" "$W/pie/desc"
run_pprof --text "$W/hotnp" "$W/pie.dcpi"
if [ "$RC" -eq 0 ] && [ "$(wc -l <"$W/err")" -eq 1 ] && grep -q "warning: '$W/hotnp'.*tstart" "$W/err" &&
	grep -qx "Total: $(cat "$W/pie/exp.total") samples" "$W/out"; then
	ok "a program that does not cover the image's text: one warning, the report still made"
else
	not_ok "a program that does not cover the image's text: one warning, the report still made (status $RC)"
	show "$W/err" 3 stderr
fi

# --- malformed inputs --------------------------------------------------------

# bad NAME WANT: the description on stdin must give a clean error,
# "pprof: FILE: offset 0xN: ..." containing WANT.
bad() {
	local name=$1 want=$2 f
	f=$W/bad-$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-').dcpi
	if ! "${GEN[@]}" -o "$f" - >/dev/null; then
		not_ok "$name: gen-dcpi writes it"
		return
	fi
	run_pprof --text "$W/hot" "$f"
	fails_cleanly "$name" "pprof: $f: offset 0x" "$want"
}

CH="chunk $HOT_LOOP: 1 2 3"

{ minimal_header; echo "header foo"; echo "$CH"; } | bad "a header line without a value" "'foo' has no value"
{ minimal_header; echo "header foo   "; echo "$CH"; } | bad "a header line of a word and blanks" "'foo' has no value"
{ minimal_header; echo "header  image 1a2b"; echo "$CH"; } | bad "a header line starting with a blank" "starts with a blank"
{ minimal_header; echo "header"; echo "$CH"; } | bad "an empty header line" "empty line"
{ minimal_header tstart; echo "header tstart 0x$PIE_TSTART"; echo "$CH"; } | bad "tstart with 0x" "bad 'tstart' line"
{ minimal_header image; echo "header image xyz"; echo "$CH"; } | bad "a non-hex image" "bad 'image' line"
{ minimal_header tsize; echo "header tsize 4k"; echo "$CH"; } | bad "a non-decimal tsize" "bad 'tsize' line"
{ minimal_header period; echo "header period 99999999999999999999"; echo "$CH"; } | bad "a period too large" "bad 'period' line"
{ minimal_header tstart; echo "header tstart 1ffffffffffffffff"; echo "rawchunk 16 3 1 2 3"; } | bad "a tstart beyond 64 bits" "bad 'tstart' line"
{ minimal_header tstart; echo "header tstart ffffffffffffff00"; echo "rawchunk 16 3 1 2 3"; } | bad "a text past the end of the address space" "bad 'tsize' line"
{ minimal_header epoch; echo "header epoch 04112215"; echo "$CH"; } | bad "an epoch of 8 digits" "bad 'epoch' line"
{ minimal_header cpuspeed; echo "header cpuspeed fast"; echo "$CH"; } | bad "a non-numeric cpuspeed" "bad 'cpuspeed' line"
{ minimal_header; echo "header cpucount -2"; echo "$CH"; } | bad "a bad optional line" "bad 'cpucount' line"
{ minimal_header version; echo "header version pdb-0"; echo "$CH"; } | bad "a version without minor" "bad 'version' line"
{ minimal_header version; echo "header version pdb-0.x"; echo "$CH"; } | bad "a non-numeric minor version" "bad 'version' line"
{ minimal_header; echo "header platform other"; echo "$CH"; } | bad "a duplicate required line" "duplicate 'platform' line"
{ minimal_header; echo "header period 62000"; echo "$CH"; } | bad "a duplicate period line" "duplicate 'period' line"
{ minimal_header; echo "header path /a"; echo "header path /b"; echo "$CH"; } | bad "a duplicate optional line" "duplicate 'path' line"
for w in version image epoch platform event period tstart tsize cpuspeed; do
	{ minimal_header "$w"; echo "$CH"; } | bad "no '$w' line" "missing '$w' line"
done
{ minimal_header version; echo "header version pdb-1.01"; echo "$CH"; } | bad "major version 1" "unsupported DCPI version pdb-1.01 (major version 1"
{ minimal_header version; echo "header version 2.0"; echo "$CH"; } | bad "major version 2" "unsupported DCPI version 2.0 (major version 2"
{ minimal_header; echo "terminator"; echo "$CH"; } | bad "no terminator line before the binary section" "missing 'samples' line"
{ minimal_header; echo "terminator"; echo "footer"; } | bad "no terminator line, no binary section" "without its 'samples' line"
{ minimal_header; echo "terminator samples x"; echo "$CH"; } | bad "'samples x' is no terminator" "'samples' line"
{ minimal_header; echo "footer"; } | bad "no footer" "footer runs past end of file"
{ minimal_header; echo "rawchunk 16 2 1 1"; echo "rawchunk 4 2 1 1"; } | bad "chunks out of order" "out of order"
{ minimal_header; echo "rawchunk 16 2 1 1"; echo "rawchunk 16 2 1 1"; } | bad "two chunks at one offset" "out of order"
{ minimal_header; echo "rawchunk 16 8 1 1 1 1 1 1 1 1"; echo "rawchunk 20 2 1 1"; } | bad "overlapping chunks" "overlaps"
{ minimal_header; echo "rawchunk 16 0"; echo "rawchunk 32 1 1"; } | bad "a chunk of no addresses" "no addresses"
{ minimal_header; echo "rawchunk 4094 3 1 1 1"; } | bad "a chunk past tsize" "runs past the text"
{ minimal_header; echo "rawchunk 16 2000 1 1"; } | bad "a chunk longer than the file" "runs past end of file"
{ minimal_header; echo "rawchunk 16 4 1 1 1"; echo "footer 3 3"; } | bad "a chunk running into the footer" "no room for the 8-byte footer"
{ minimal_header; echo "$CH"; echo "footer 2 6"; } | bad "a footer with the wrong address count" "footer counts 2 addresses"
{ minimal_header; echo "$CH"; echo "footer 3 7"; } | bad "a footer with the wrong total" "footer counts 7 samples"
{ minimal_header; echo "$CH"; echo "words 0"; } | bad "junk before the footer" "offset 0x"
{ minimal_header; echo "$CH"; echo "footer"; echo "words 3 6 255"; } | bad "junk after the footer" "offset 0x"

# A control byte in the header.
printf 'version 0.07\nplat\001form x\n' >"$W/ctl.dcpi"
run_pprof --text "$W/ctl.dcpi"
fails_cleanly "a control byte in the header" "pprof: $W/ctl.dcpi: offset 0x" "offset 0x11: byte 0x01"

# --- truncation --------------------------------------------------------------
# A small profile cut at every offset: a clean error each time; from the first
# blank after "version" on, the file is claimed as DCPI and the message has an
# offset (a shorter prefix may be called an unknown format).
{
	minimal_header
	echo "header foo bar"
	echo "chunk $HOT_LOOP: 5 0 7"
	echo "chunk $(printf '%x' $((16#$HOT_LOOP + 16))): 9"
	echo "chunk $(printf '%x' $((16#$HOT_LOOP + 32))): 1 2 3 4"
} >"$W/trunc.desc"
"${GEN[@]}" -o "$W/trunc.dcpi" "$W/trunc.desc"
size=$(wc -c <"$W/trunc.dcpi")
mkdir -p "$W/cut"
python3 - "$W/trunc.dcpi" "$W/cut" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
for n in range(1, len(data)):
    with open("%s/%d.dcpi" % (sys.argv[2], n), "wb") as f:
        f.write(data[:n])
PY
failed=0 details=
for ((n = 1; n < size; n++)); do
	f=$W/cut/$n.dcpi
	run_pprof --text "$f"
	named="pprof: $f: offset 0x"
	[ "$n" -ge 8 ] || named=$f
	if ! failed_cleanly "$RC" "$W/out" "$W/err" "$named"; then
		failed=$((failed + 1))
		[ "$failed" -le 5 ] && details+="    cut at $n: $WHY; stderr: ${ERR_LINES[0]:-}"$'\n'
	fi
done
if [ "$failed" -eq 0 ]; then
	ok "a profile cut at each of its $((size - 1)) offsets fails cleanly"
else
	not_ok "a profile cut at each of its $((size - 1)) offsets fails cleanly ($failed do not)"
	printf '%s' "$details"
fi
run_pprof --text "$W/trunc.dcpi"
check "the uncut profile is read (Total: 31 samples)" grep -qx "Total: 31 samples" "$W/out"
