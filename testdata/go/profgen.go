// profgen writes Go runtime profiles (cpu, heap, allocs, mutex, block,
// goroutine) of a small workload into the directory named by its argument,
// as test input for the profile.proto reader.  Standard library only.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var sink []byte
var keep [][]byte
var total uint64

// Each burner spins for d; the loop bodies differ so that none is folded.
//go:noinline
func burnA(d time.Duration) {
	x := uint64(1)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	total += x
}

//go:noinline
func burnB(d time.Duration) {
	x := uint64(7)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	total += x
}

//go:noinline
func burnC(d time.Duration) {
	burnA(d / 2)
	burnB(d / 2)
}

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 64+i%256)
	}
}

//go:noinline
func allocBig(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 1<<16))
	}
}

// contend has goroutines fight over one mutex, each holding it a little.
//go:noinline
func contend(workers, rounds int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				mu.Lock()
				time.Sleep(50 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// pingPong blocks on unbuffered channels.
//go:noinline
func pingPong(rounds int) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			time.Sleep(20 * time.Microsecond)
			pong <- v
		}
		close(pong)
	}()
	for i := 0; i < rounds; i++ {
		ping <- i
		<-pong
	}
	close(ping)
}

func write(dir, name string, f func(*os.File) error) {
	out, err := os.Create(filepath.Join(dir, name+".pb.gz"))
	if err == nil {
		err = f(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "profgen: %s: %v\n", name, err)
		os.Exit(1)
	}
}

func lookup(name string) func(*os.File) error {
	return func(f *os.File) error { return pprof.Lookup(name).WriteTo(f, 0) }
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: profgen DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	ctx := context.Background()

	cpu, err := os.Create(filepath.Join(dir, "cpu.pb.gz"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profgen:", err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, "profgen:", err)
		os.Exit(1)
	}
	burnA(300 * time.Millisecond)
	pprof.Do(ctx, pprof.Labels("worker", "b", "phase", "one"), func(context.Context) {
		burnB(300 * time.Millisecond)
	})
	pprof.Do(ctx, pprof.Labels("worker", "c"), func(context.Context) {
		burnC(400 * time.Millisecond)
	})
	pprof.Do(ctx, pprof.Labels("worker", "b", "phase", "two"), func(context.Context) {
		burnB(200 * time.Millisecond)
	})
	allocSmall(20000)
	allocBig(200)
	pprof.StopCPUProfile()
	cpu.Close()

	contend(4, 100)
	pprof.Do(ctx, pprof.Labels("worker", "pp"), func(context.Context) {
		pingPong(500)
	})

	// Goroutines parked under labels while the goroutine profile is taken.
	stop := make(chan struct{})
	var parked sync.WaitGroup
	for i := 0; i < 3; i++ {
		parked.Add(1)
		go pprof.Do(ctx, pprof.Labels("parked", fmt.Sprint(i%2)), func(context.Context) {
			parked.Done()
			<-stop
		})
	}
	parked.Wait()
	write(dir, "goroutine", lookup("goroutine"))
	close(stop)

	runtime.GC()
	write(dir, "heap", lookup("heap"))
	write(dir, "allocs", lookup("allocs"))
	write(dir, "mutex", lookup("mutex"))
	write(dir, "block", lookup("block"))
}
