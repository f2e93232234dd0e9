#!/usr/bin/env bash
# t-paths.sh - paths named by a profile or by debug information are data:
# looked up under --lib_prefix or --source_path, they must not lead out of
# those directories ("..", symbolic links), and files that are no regular
# files (FIFOs, devices) are never opened.
#
# The programs are built here from a one-line C file with
# -ffile-prefix-map, so that their debug information names the source as
# the test needs; their CPU profiles are written by scripts/gen-cpuprofile
# with the address of main.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/paths
mkdir -p "$W/src" "$W/linked" "$W/a/tree" "$W/secret" "$W/root" "$W/out"
GEN=(python3 "$TOP/scripts/gen-cpuprofile")

require gcc nm python3 || exit 1

printf 'int main(void) { for (volatile int i = 0; i < 1000; i++) ; return 0; } /* listed */\n' >"$W/src/prog.c"
printf 'SECRET\n' >"$W/secret/prog.c"
cp "$W/src/prog.c" "$W/linked/link.c"
ln -s "$W/secret/prog.c" "$W/a/tree/link.c"

# prog NAME PREFIX_MAP SOURCE: builds $W/NAME from SOURCE, its debug
# information naming the source's directory as PREFIX_MAP, and its profile
# $W/NAME.prof of samples in main.
prog() {
	local name=$1 map=$2 src=$3 main
	build "$name" gcc -g -O0 -no-pie -ffile-prefix-map="$(dirname "$src")=$map" \
		-o "$W/$name" "$src" || return 1
	main=$(nm "$W/$name" | awk '$3 == "main" { print $1 }')
	printf 'period 10000\n7: %x\n' $((0x$main + 4)) | "${GEN[@]}" -o "$W/$name.prof" - ||
		not_ok "gen-cpuprofile writes $name.prof"
}

# listing NAME PROG OPTIONS...: --list=main of PROG with OPTIONS, into $W/NAME.out.
listing() {
	local name=$1 p=$2
	shift 2
	timeout 60 "$PPROF" --list=main "$@" "$W/$p" "$W/$p.prof" >"$W/$name.out" 2>"$W/$name.err"
	clean_exit "$name: exits 0" "$?" "$W/$name.err" 0
}

# --- --source_path ------------------------------------------------------------
# Without --trim_path, a source named /x/tree/REST is looked for as REST under
# a search directory .../tree and its parents.
if prog plain /x/tree "$W/src/prog.c" && cp "$W/src/prog.c" "$W/a/tree/prog.c"; then
	listing plain plain --source_path="$W/a/tree"
	check "a source under --source_path is listed" grep -q 'listed' "$W/plain.out"
fi
rm -f "$W/a/tree/prog.c"
# /x/tree/../../prog.c: REST climbs from $W/a/tree to $W, where prog.c is the secret.
cp "$W/secret/prog.c" "$W/prog.c"
if prog climb /x/tree/../.. "$W/src/prog.c"; then
	listing climb climb --source_path="$W/a/tree"
	check "'..' in a source name does not leave --source_path" \
		eval '! grep -q SECRET "$W/climb.out"'
	check "the source is said to be missing" grep -q 'prog.c' "$W/climb.err"
fi
# (Go's search goes on in the parents of a search directory: $W/prog.c would be found.)
rm -f "$W/prog.c"
# /x/tree/link.c: a symbolic link in the search directory that leads out of it.
if prog link /x/tree "$W/linked/link.c"; then
	listing link link --source_path="$W/a/tree"
	check "a symbolic link out of --source_path is not followed" \
		eval '! grep -q SECRET "$W/link.out"'
fi
# A FIFO where the source should be: not opened (no hang), said to be missing.
if prog fifo /x/tree "$W/src/prog.c" && mkfifo "$W/a/tree/prog.c"; then
	listing fifo fifo --source_path="$W/a/tree"
	check "a FIFO named as the source is not read" grep -q 'prog.c' "$W/fifo.err"
fi

# --- --lib_prefix -------------------------------------------------------------
# A library mapped as /../out/libx.so: under --lib_prefix=$W/root that is
# $W/out/libx.so, which must not be read.
if build libx gcc -g -O2 -shared -fPIC -o "$W/out/libx.so" "$W/src/prog.c"; then
	"${GEN[@]}" -o "$W/lib.prof" - <<-EOF || not_ok "gen-cpuprofile writes lib.prof"
	period 10000
	5: 7f000000110
	map 7f000000000-7f000001000 r-xp 00000000 08:01 1 /../out/libx.so
	EOF
	timeout 60 "$PPROF" --text --verbose --lib_prefix="$W/root" "$W/lib.prof" >"$W/lib.out" 2>"$W/lib.err"
	clean_exit "--lib_prefix with '..': exits 0" "$?" "$W/lib.err" 0
	check "'..' in a mapped path does not leave --lib_prefix" \
		eval '! grep -q "$W/root/\.\./out" "$W/lib.err"'
	check "the library is looked up as the profile names it" \
		grep -q "object '/../out/libx.so': unreadable" "$W/lib.err"
	# The same library under the prefix, named without "..": found.
	mkdir -p "$W/root/lib"
	cp "$W/out/libx.so" "$W/root/lib/libx.so"
	sed 's|/\.\./out/libx\.so|/lib/libx.so|' "$W/lib.prof" >"$W/lib2.prof"
	timeout 60 "$PPROF" --text --verbose --lib_prefix="$W/root" "$W/lib2.prof" >"$W/lib2.out" 2>"$W/lib2.err"
	check "a library under --lib_prefix is found" \
		grep -q "object '$W/root/lib/libx.so': read" "$W/lib2.err"
fi

# --- devices ------------------------------------------------------------------
# A mapping of /dev/zero that looks like a library: never opened.
"${GEN[@]}" -o "$W/dev.prof" - <<-EOF || not_ok "gen-cpuprofile writes dev.prof"
period 10000
5: 7f000000110
map 7f000000000-7f000001000 r-xp 00000000 08:01 1 /dev/zero.so
map 7f000001000-7f000002000 r-xp 00000000 08:01 1 /dev/zero
EOF
timeout 20 "$PPROF" --text "$W/dev.prof" >"$W/dev.out" 2>"$W/dev.err"
clean_exit "mappings of devices: exits 0" "$?" "$W/dev.err" 0
exit "$FAILED"
