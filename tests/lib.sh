# lib.sh - helpers sourced by the tests/t-*.sh scripts.
# Environment from tests/run-tests: TOP, PPROF, TESTDATA, TEST_TMP.
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${PPROF:=$TOP/pprof}"
: "${TESTDATA:=$TOP/testdata}"
if [ -z "${TEST_TMP:-}" ]; then
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pprof-test.XXXXXX")
	trap 'rm -rf "$TEST_TMP"' EXIT
fi

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }

# check NAME COMMAND...: passes when COMMAND exits 0.
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# same_output NAME EXPECTED_FILE ACTUAL_FILE: passes when identical; shows a diff otherwise.
same_output() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | head -n 40 | sed 's/^/    /'
	fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# require [--libprofiler] TOOL...: the programs a test needs, libprofiler
# (for programs the test profiles) and a built $PPROF.  Prints a not_ok line
# for each missing one, naming what installs it, and fails if any is missing.
# Missing tools are failures, not skips: scripts/install-deps installs them.
require() {
	local missing= tool
	if [ "${1:-}" = --libprofiler ]; then
		shift
		case $(gcc -print-file-name=libprofiler.so 2>/dev/null) in
		/*) ;;
		*) not_ok "libprofiler.so is installed (libgoogle-perftools-dev; run scripts/install-deps)"
		   missing=1 ;;
		esac
	fi
	for tool in "$@"; do
		have "$tool" || { not_ok "$tool is installed (run scripts/install-deps)"; missing=1; }
	done
	if [ ! -x "$PPROF" ]; then
		not_ok "$PPROF is built (run make)"
		missing=1
	fi
	[ -z "$missing" ]
}

# build NAME COMMAND...: runs a compiler command; on failure a not_ok line
# with the command's output.
build() {
	local name=$1; shift
	if "$@" >"$TEST_TMP/build.log" 2>&1; then
		return 0
	fi
	not_ok "$name builds"
	sed 's/^/    /' "$TEST_TMP/build.log" | head -n 20
	return 1
}

# Profiles hold raw addresses: without ASLR the runs of a program share one
# address layout, so their profiles can be summed and compared.
NOASLR=(env)
setarch -R true 2>/dev/null && NOASLR=(setarch -R)

# cpu_profile NAME PROGRAM PROFILE [ARG]: runs PROGRAM [ARG] under
# libprofiler (1000 samples a second), writing PROFILE; on failure a
# not_ok line naming NAME.
cpu_profile() {
	local name=$1 prog=$2 prof=$3
	rm -f "$prof"
	if ! CPUPROFILE=$prof CPUPROFILE_FREQUENCY=1000 "${NOASLR[@]}" "$prog" ${4:+"$4"} \
		>"$TEST_TMP/run.log" 2>&1; then
		not_ok "$name runs"
		sed 's/^/    /' "$TEST_TMP/run.log" | head -n 20
		return 1
	fi
	[ -s "$prof" ] && return 0
	not_ok "$name writes a CPU profile (is libprofiler linked?)"
	return 1
}
