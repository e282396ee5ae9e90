package logtail

import "testing"

func TestTail(t *testing.T) {
	if got := string(Tail([]byte("a\nb\nc\n"), 2)); got != "b\nc\n" {
		t.Fatalf("got %q", got)
	}
	if got := string(Tail([]byte("a\nb"), 5)); got != "a\nb" {
		t.Fatalf("got %q", got)
	}
}
