//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"
)

// The wasm build gets a hard cap from its memory section; a native process
// has none, so during each call a watchdog ends it once Go's mapped memory
// passes FLOTILLA_CUE_MEMORY_LIMIT, and the pool reports the call as out of
// memory. Idle helpers do not poll.
var memoryLimit uint64

func setupMemoryLimit() {
	limit, err := strconv.ParseUint(os.Getenv("FLOTILLA_CUE_MEMORY_LIMIT"), 10, 64)
	if err != nil || limit == 0 {
		return
	}
	memoryLimit = limit
	debug.SetMemoryLimit(int64(limit / 10 * 8))
}

// watchMemory polls until the returned stop is called.
func watchMemory() (stop func()) {
	if memoryLimit == 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if used := memoryInUse(); used > memoryLimit {
					fmt.Fprintf(os.Stderr, "cue-native: out of memory: %d bytes mapped, cap %d\n", used, memoryLimit)
					os.Exit(4)
				}
			}
		}
	}()
	return func() { close(done) }
}

var memSample = []metrics.Sample{{Name: "/memory/classes/total:bytes"}}

// memoryInUse is what Go has mapped from the OS (heap, stacks, runtime).
func memoryInUse() uint64 {
	s := make([]metrics.Sample, 1)
	copy(s, memSample)
	metrics.Read(s)
	return s[0].Value.Uint64()
}
