//go:build linux && !(js && wasm)

package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// restrictFilesystem denies this process every filesystem access with
// Landlock (Linux 5.13+), the native counterpart of the wasm worker's fs
// that answers ENOENT: CUE sees only the overlay tree of each request.
// Stdin, stdout and stderr stay usable (already open).
func restrictFilesystem() error {
	const (
		sysCreateRuleset = 444
		sysRestrictSelf  = 446
		prSetNoNewPrivs  = 38
		// LANDLOCK_ACCESS_FS_* of ABI 1: execute … make_sym (bits 0–12).
		accessFSv1 = (1 << 13) - 1
	)
	attr := struct{ handledAccessFS uint64 }{accessFSv1}
	fd, _, errno := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer syscall.Close(int(fd))
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
	}
	// Landlock restricts the calling thread; Go's AllThreadsSyscall applies
	// it to every thread of the runtime.
	if _, _, errno := syscall.AllThreadsSyscall(sysRestrictSelf, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// dieWithParent has the kernel kill this helper when the process that
// started it dies, so a helper deep in a runaway evaluation never outlives
// a crashed Node process (an idle one would see EOF on stdin anyway).
func dieWithParent() {
	const prSetPdeathsig = 1
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGKILL), 0)
	// The parent died before the call above (its pid is compared, not 1:
	// in a container the agent itself may be pid 1).
	if want := os.Getenv("FLOTILLA_CUE_PARENT_PID"); want != "" && want != strconv.Itoa(os.Getppid()) {
		os.Exit(0)
	}
}
