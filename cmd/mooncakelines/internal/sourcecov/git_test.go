package sourcecov

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseBatch(t *testing.T) {
	out := "1111 blob 7\nfoo\nbar\n2222 blob 0\n\n"
	have, err := parseBatch([]byte(out), 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]byte{[]byte("foo\nbar"), {}}; !reflect.DeepEqual(have, want) {
		t.Errorf("parseBatch = %q, want %q", have, want)
	}
	if _, err := parseBatch([]byte("v9:x.cpp missing\n"), 1); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("parseBatch of a missing object: %v, want an error naming it", err)
	}
	if _, err := parseBatch([]byte("1111 blob 10\nshort\n"), 1); err == nil {
		t.Error("parseBatch of a truncated object: no error")
	}
}

// TestReadTag reads a small repository made here (git needed, not Mooncake's).
func TestReadTag(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git in PATH")
	}
	dir := t.TempDir()
	write := func(path, src string) {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mooncake-store/src/master_service.cpp", "v1\n")
	write("mooncake-store/src/ha/lease.h", "lease\n")
	write("mooncake-store/src/other.cpp", "not counted\n")
	write("README.md", "not counted\n")
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "one")
	gitRun(t, dir, "tag", "v1")
	write("mooncake-store/src/master_service.cpp", "v2\n")
	gitRun(t, dir, "commit", "-q", "-a", "-m", "two")

	have, err := ReadTag(context.Background(), filepath.Join(dir, ".git"), "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{"mooncake-store/src/ha/lease.h", "lease\n"}, {"mooncake-store/src/master_service.cpp", "v1\n"}}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("ReadTag = %q, want %q", have, want)
	}
	if _, err := ReadTag(context.Background(), dir, "v9"); err == nil {
		t.Error("ReadTag of a missing tag: no error")
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
}
