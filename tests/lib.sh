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
