#!/usr/bin/env bash
# t-limits.sh - hostile profiles whose cost grew faster than their size:
# each is read well within its time limit (the superlinear code took
# minutes on these), and the report is right.
#
#   overlap    one mapping under 120000 small ones, a sample above them
#              all: each address scanned back over every mapping
#   merge      two profiles of 120000 mappings each: each mapping of one
#              compared with all of the other's
#   libs       120000 libraries, one sample in each: each opened object
#              compared with all opened before, and a warning for each
#   names      a function named "f" and 100000 nested parentheses: one
#              pass over the name per level
#   hists      a gmon.out of 120000 histogram records over distinct
#              ranges, each checked against all before: refused past 64
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/limits
mkdir -p "$W"
require python3 || exit 1

python3 - "$W" <<'EOF'
import os, struct, sys
d = sys.argv[1]
N = 120000

def cpu(name, pcs, maps):
    body = bytearray(struct.pack('<5Q', 0, 3, 0, 10000, 0))
    for pc in pcs:
        body += struct.pack('<3Q', 1, 1, pc)
    body += struct.pack('<3Q', 0, 1, 0)
    body += ('\n'.join(maps) + '\n').encode()
    open(os.path.join(d, name), 'wb').write(body)

cpu('overlap.prof', [0x100000000 + k * 64 + 8 for k in range(N)],
    ['0-7fffffffffff0000 r-xp 00000000 08:01 1 /big'] +
    ['%x-%x r-xp 00000000 08:01 1 /m%d' % (0x10000 + k * 16, 0x10000 + k * 16 + 1, k) for k in range(N)])
cpu('merge.prof', [0x10008],
    ['%x-%x r-xp 00000000 08:01 1 /lib/m%d.so' % (0x10000 + k * 16, 0x10000 + k * 16 + 16, k) for k in range(N)])
cpu('libs.prof', [0x10008 + k * 16 for k in range(N)],
    ['%x-%x r-xp 00000000 08:01 1 /nonexistent/m%d.so' % (0x10000 + k * 16, 0x10000 + k * 16 + 16, k) for k in range(N)])

# A profile.proto of one sample in a function named f((((...)))).
def varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)
def field(f, b): return varint(f << 3 | 2) + varint(len(b)) + b
def num(f, v): return varint(f << 3) + varint(v)
n = 100000
strings = [b'', b'samples', b'count', b'f' + b'(' * n + b')' * n]
msg = field(1, num(1, 1) + num(2, 2)) + field(5, num(1, 1) + num(2, 3)) + \
    field(4, num(1, 1) + num(3, 0x1000) + field(4, num(1, 1))) + \
    field(2, field(1, varint(1)) + field(2, varint(1)))
for s in strings:
    msg += field(6, s)
open(os.path.join(d, 'names.pb'), 'wb').write(msg)

g = bytearray(b'gmon' + struct.pack('<I', 1) + bytes(12))
for k in range(N):
    lo = 0x10000 + k * 16
    g += b'\x00' + struct.pack('<QQII', lo, lo + 16, 1, 100) + b'seconds' + bytes(8) + b's' + struct.pack('<H', 1)
open(os.path.join(d, 'hists.gmon'), 'wb').write(g)
EOF

# limited NAME TEXT ARGS...: pprof --text ARGS within 20 s, its report containing TEXT.
limited() {
	local name=$1 text=$2
	shift 2
	timeout 20 "$PPROF" --text "$@" >"$W/$name.out" 2>"$W/$name.err"
	clean_exit "$name: read within the limit" "$?" "$W/$name.err" 0 &&
		check "$name: the report is right" grep -q -- "$text" "$W/$name.out"
}

limited overlap 'Total: 120000 samples' "$W/overlap.prof"
limited merge 'Total: 2 samples' "$W/merge.prof" "$W/merge.prof"
limited libs 'Total: 120000 samples' "$W/libs.prof"
check "libs: 20 unreadable objects are named, the rest counted" \
	eval '[ "$(grep -c "cannot open" "$W/libs.err")" -eq 20 ] &&
	      grep -q "119980 more objects could not be read" "$W/libs.err"'
limited names ' f$' "$W/names.pb"
timeout 20 "$PPROF" --text "$W/hists.gmon" >"$W/hists.out" 2>"$W/hists.err"
clean_exit "hists: refused within the limit" "$?" "$W/hists.err" 1 &&
	check "hists: the message says why" grep -q "more than 64 histogram ranges" "$W/hists.err"
exit "$FAILED"
