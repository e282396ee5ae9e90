// Package flock takes an exclusive lock on a file, waiting a bounded time (as
// flock -w). The descriptor is close-on-exec, so no process started later holds it.
package flock

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock locks path (created if missing), trying every 200 ms for at most wait.
func Lock(path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if err != syscall.EWOULDBLOCK || !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
