#!/usr/bin/env python3
"""pprof-server.py - a test server speaking gperftools' pprof HTTP protocol.

Serves a CPU profile the test suite made, as a program linked with
gperftools would: /pprof/profile?seconds=N (after N seconds, at most 10),
/pprof/cmdline (the program's argv, NUL-separated), and /pprof/symbol (GET:
"num_symbols: N"; POST of 0x-addresses joined by '+': one "0xADDR NAME"
line for each address it knows, named from the program's and libraries'
ELF symbols, as nm lists them, through the profile's own memory map).

A path prefix before /pprof/ picks a misbehaviour for the profile page,
for the tests of bad input: /e404, /e500, /slow (answers after 60 s),
/trunc (a Content-Length the body never reaches), /cut (half the
profile), /html (a page that is no profile), /endless (a body without
end), /redirect (a redirect to the profile), /loop (a redirect to
itself), and for the symbol page: /nosym (404), /stripped (no symbols).

Binds 127.0.0.1 on a free port, writes the port to --port-file, and stops
by itself after --lifetime seconds.  Standard library and binutils' nm only.
"""
import argparse
import bisect
import http.server
import os
import socketserver
import struct
import subprocess
import sys
import threading
import time


def profile_maps(data):
    """The memory map text after a gperftools CPU profile's binary part."""
    if data[:8] == b"\0" * 8:
        width, fmt = 8, "Q"
        order = "<" if data[8:12] != b"\0" * 4 else ">"
    else:
        width, fmt = 4, "I"
        order = "<" if data[4:6] != b"\0\0" else ">"

    def slot(i):
        return struct.unpack_from(order + fmt, data, i * width)[0]

    i = 2 + slot(1)  # past the header
    while (i + 3) * width <= len(data):
        count, depth = slot(i), slot(i + 1)
        if count == 0 and depth == 1 and slot(i + 2) == 0:
            return data[(i + 3) * width:].decode("latin-1")
        i += 2 + depth
    return ""


def elf_info(path):
    """(e_type, [(p_offset, p_vaddr, p_filesz)] of PT_LOAD) of an ELF file."""
    with open(path, "rb") as f:
        h = f.read(64)
        if h[:4] != b"\x7fELF":
            return None
        is64, order = h[4] == 2, "<" if h[5] == 1 else ">"
        e_type = struct.unpack_from(order + "H", h, 16)[0]
        if is64:
            phoff, = struct.unpack_from(order + "Q", h, 32)
            phentsize, phnum = struct.unpack_from(order + "HH", h, 54)
        else:
            phoff, = struct.unpack_from(order + "I", h, 28)
            phentsize, phnum = struct.unpack_from(order + "HH", h, 42)
        loads = []
        for k in range(phnum):
            f.seek(phoff + k * phentsize)
            ph = f.read(phentsize)
            if is64:
                p_type, _, off, vaddr, _, filesz = struct.unpack_from(order + "IIQQQQ", ph)
            else:
                p_type, off, vaddr, _, filesz = struct.unpack_from(order + "IIIII", ph)
            if p_type == 1:
                loads.append((off, vaddr, filesz))
        return e_type, loads


def nm_functions(path):
    """Sorted (address, mangled name) of the function symbols nm lists."""
    syms = []
    for extra in ([], ["-D"]):
        try:
            out = subprocess.run(["nm", "-n", "--defined-only"] + extra + [path],
                                 capture_output=True, text=True, check=False).stdout
        except OSError:
            return []
        for line in out.splitlines():
            parts = line.split(None, 2)
            if len(parts) == 3 and parts[1] in "TtWwi":
                syms.append((int(parts[0], 16), parts[2]))
        if syms:
            break
    syms.sort()
    return syms


class Symbols:
    """Names addresses of the profiled process, as a gperftools server would."""

    def __init__(self, maps):
        self.ranges = []  # (start, end, offset, path)
        self.objects = {}
        for line in maps.splitlines():
            f = line.split()
            if len(f) < 6 or "-" not in f[0] or "x" not in f[1] or not f[5].startswith("/"):
                continue
            start, end = (int(x, 16) for x in f[0].split("-"))
            self.ranges.append((start, end, int(f[2], 16), f[5]))

    def object(self, path):
        if path not in self.objects:
            try:
                info = elf_info(path)
            except OSError:
                info = None
            syms = nm_functions(path) if info else []
            self.objects[path] = (info, [a for a, _ in syms], [n for _, n in syms])
        return self.objects[path]

    def count(self):
        return sum(len(self.object(r[3])[1]) for r in self.ranges)

    def name(self, addr):
        for start, end, offset, path in self.ranges:
            if not start <= addr < end:
                continue
            info, addrs, names = self.object(path)
            if not info:
                return None
            e_type, loads = info
            vaddr = addr
            if e_type == 3:  # ET_DYN: through the segment holding the file offset
                foff = addr - start + offset
                for off, va, size in loads:
                    if off <= foff < off + size:
                        vaddr = foff - off + va
                        break
            i = bisect.bisect_right(addrs, vaddr)
            return names[i - 1] if i else None
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if self.server.log:
            self.server.log.write("%s %s\n" % (self.command, self.path))
            self.server.log.flush()

    def send(self, code, body, ctype="application/octet-stream"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def split(self):
        path, _, query = self.path.partition("?")
        prefix, sep, page = path.partition("/pprof/")
        return prefix, page if sep else None, query

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        prefix, page, query = self.split()
        srv = self.server
        if page == "symbol":
            if prefix == "/nosym":
                return self.send(404, b"not found\n", "text/plain")
            n = 0 if prefix == "/stripped" else srv.symbols.count()
            return self.send(200, b"num_symbols: %d\n" % n, "text/plain")
        if page == "cmdline":
            return self.send(200, b"\0".join(a.encode() for a in srv.argv) + b"\n", "text/plain")
        if page != "profile":
            return self.send(404, b"no such page\n", "text/plain")
        if prefix == "/e404":
            return self.send(404, b"profile not found\n", "text/plain")
        if prefix == "/e500":
            return self.send(500, b"profiler failed\n", "text/plain")
        if prefix == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/pprof/profile?" + query)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if prefix == "/loop":
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        seconds = 0
        for kv in query.split("&"):
            if kv.startswith("seconds="):
                seconds = min(int(kv[8:] or 0), 10)
        if prefix == "/slow":
            seconds = 60
        time.sleep(seconds)
        body = srv.profile
        if prefix == "/html":
            return self.send(200, b"<html><body>pprof is not enabled</body></html>\n", "text/html")
        if prefix == "/cut":
            body = body[: len(body) // 2]
        if prefix == "/trunc":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if prefix == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            self.close_connection = True
            chunk = b"\0" * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                return
        self.send(200, body)

    def do_POST(self):
        prefix, page, _ = self.split()
        if page != "symbol" or prefix == "/nosym":
            return self.send(404, b"not found\n", "text/plain")
        n = int(self.headers.get("Content-Length") or 0)
        words = self.rfile.read(n).decode("latin-1").split("+")
        out = []
        for w in words:
            try:
                addr = int(w, 16)
            except ValueError:
                continue
            name = self.server.symbols.name(addr)
            if name:
                out.append("%#x %s\n" % (addr, name))
        self.send(200, "".join(out).encode("latin-1"), "text/plain")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=120)
    ap.add_argument("--log")
    ap.add_argument("argv", nargs="+", help="the program's command line")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    with open(a.profile, "rb") as f:
        srv.profile = f.read()
    srv.argv = a.argv
    srv.symbols = Symbols(profile_maps(srv.profile))
    srv.log = open(a.log, "a") if a.log else None
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
