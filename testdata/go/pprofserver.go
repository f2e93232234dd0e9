// pprofserver is a test server for remote profiles: a program that serves
// Go's net/http/pprof pages (/debug/pprof/profile, /heap, /allocs, /mutex,
// /block, /goroutine, /symbol, /cmdline) on 127.0.0.1 while it burns CPU in
// spinHot and spinWarm and keeps memory allocated by retainBlocks.
//
// Usage: pprofserver PORTFILE LIFETIME_SECONDS.  It writes the port it
// listens on to PORTFILE and exits by itself after LIFETIME_SECONDS.
// Standard library only.
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"time"
)

var sink uint64
var kept [][]byte

// spinHot does three times the work of spinWarm in each round.
//go:noinline
func spinHot(n int) uint64 {
	x := uint64(n)
	for i := 0; i < 3*n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func spinWarm(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*2862933555777941757 + 3037000493
	}
	return x
}

// retainBlocks keeps 64 MiB in 4 KiB blocks: the heap profile's in-use space.
//go:noinline
func retainBlocks() {
	for i := 0; i < 16384; i++ {
		kept = append(kept, make([]byte, 4096))
	}
}

func burn() {
	for {
		sink += spinHot(100000)
		sink += spinWarm(100000)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pprofserver PORTFILE LIFETIME_SECONDS")
		os.Exit(2)
	}
	lifetime, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	runtime.MemProfileRate = 4096
	retainBlocks()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmp := os.Args[1] + ".tmp"
	port := fmt.Sprintf("%d\n", ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(tmp, []byte(port), 0644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Rename(tmp, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go burn()
	time.AfterFunc(time.Duration(lifetime)*time.Second, func() { os.Exit(0) })
	http.Serve(ln, nil)
}
