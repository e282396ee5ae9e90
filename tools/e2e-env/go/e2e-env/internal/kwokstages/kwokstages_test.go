package kwokstages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func module(t *testing.T, skip string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range Files {
		if f == skip {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nkind: Stage\nmetadata:\n  name: "+filepath.Base(f)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestJoinGivesEveryStageAsOneDocumentEach(t *testing.T) {
	got, err := Join(module(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(got, "\n---\n")
	if len(docs) != len(Files) {
		t.Fatalf("%d documents, want %d:\n%s", len(docs), len(Files), got)
	}
	for i, f := range Files {
		if !strings.Contains(docs[i], "name: "+filepath.Base(f)) || strings.HasPrefix(docs[i], "---") {
			t.Fatalf("document %d is not %s alone:\n%s", i, f, docs[i])
		}
	}
}

func TestJoinNamesAMissingStage(t *testing.T) {
	missing := "kustomize/stage/pod/fast/pod-ready.yaml"
	if _, err := Join(module(t, missing)); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want it to name %s", err, missing)
	}
}
