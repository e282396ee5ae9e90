package flock

import (
	"path/filepath"
	"testing"
	"time"
)

func TestLockWaitsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	a, err := Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := Lock(p, 500*time.Millisecond); err == nil {
		t.Fatal("locked twice")
	}
	if d := time.Since(t0); d < 400*time.Millisecond || d > 3*time.Second {
		t.Fatalf("gave up after %v", d)
	}
	a.Close()
	b, err := Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}
