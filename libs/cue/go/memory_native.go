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
// has none, so a watchdog ends it once Go's mapped memory passes
// FLOTILLA_CUE_MEMORY_LIMIT, and the pool reports the call as out of memory.
func startMemoryWatch() {
	limit, err := strconv.ParseUint(os.Getenv("FLOTILLA_CUE_MEMORY_LIMIT"), 10, 64)
	if err != nil || limit == 0 {
		return
	}
	debug.SetMemoryLimit(int64(limit / 10 * 8))
	go func() {
		for range time.Tick(5 * time.Millisecond) {
			if used := memoryInUse(); used > limit {
				fmt.Fprintf(os.Stderr, "cue-native: out of memory: %d bytes mapped, cap %d\n", used, limit)
				os.Exit(4)
			}
		}
	}()
}

var memSample = []metrics.Sample{{Name: "/memory/classes/total:bytes"}}

// memoryInUse is what Go has mapped from the OS (heap, stacks, runtime).
func memoryInUse() uint64 {
	s := make([]metrics.Sample, 1)
	copy(s, memSample)
	metrics.Read(s)
	return s[0].Value.Uint64()
}
