package debian

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMissing(t *testing.T) {
	got := Missing([]string{"a", "b", "c"}, func(n string) bool { return n == "b" })
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Fatal(got)
	}
	if !slices.Contains(Names(), "buildah") || slices.Contains(Names(), "openssl") {
		t.Fatal(Names())
	}
}

func TestInstallRefusesWithoutAptOrRoot(t *testing.T) {
	for _, i := range []Installer{{NoApt: true, Root: true}, {Root: false}} {
		err := i.Install([]string{"podman", "runc"})
		if err == nil || !strings.Contains(err.Error(), "apt-get install -y podman runc") {
			t.Fatalf("got %v", err)
		}
	}
	if err := (Installer{NoApt: true}).Install(nil); err != nil {
		t.Fatal(err)
	}
}

// A fake apt-get whose install fails until update has run.
func TestInstallUpdatesOnceAfterAFailure(t *testing.T) {
	d := t.TempDir()
	apt := filepath.Join(d, "apt-get")
	os.WriteFile(apt, []byte(`#!/bin/sh
echo "$@" >> "`+d+`/calls"
[ "$1" = update ] && touch "`+d+`/updated"
[ "$1" = install ] && [ ! -e "`+d+`/updated" ] && { echo "404 Not Found"; exit 100; }
exit 0
`), 0o755)
	var stderr bytes.Buffer
	i := Installer{Root: true, Log: filepath.Join(d, "apt.log"), Stderr: &stderr, AptGet: apt}
	if err := i.Install([]string{"runc"}); err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(filepath.Join(d, "calls"))
	want := "install -y --no-install-recommends runc\nupdate\ninstall -y --no-install-recommends runc\n"
	if string(calls) != want {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}
