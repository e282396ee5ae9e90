package main

import (
	"syscall"
	"unsafe"
)

// The Go runtime installs a handler for every signal at start-up; a Go
// program that does not call signal.Notify still catches SIGTERM and then
// exits itself, even as PID 1, where the kernel would drop a SIGTERM whose
// action is the default. The real server installs no handler, so the stand-in
// puts the default action back for SIGTERM and SIGINT before anything runs.

type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

func init() {
	dfl := kernelSigaction{} // handler 0 is SIG_DFL
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		if errno != 0 {
			panic("rt_sigaction: " + errno.Error())
		}
	}
}
