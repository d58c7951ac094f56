package main

import (
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"os"
	"path/filepath"
	"testing"
)

// Output paths are checked before anything runs: exit 2, nothing on
// stdout (no run's table), nothing written.
func TestOutputPathsCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "setup/tenant-unsupported", "--junit", "/no/such/dir/x.xml"},
			"--junit /no/such/dir/x.xml: cannot write: directory /no/such/dir does not exist"},
		{[]string{"run", "setup/tenant-unsupported", "--report", tmp},
			"--report " + tmp + ": is a directory, want a file"},
		{[]string{"run", "setup/tenant-unsupported", "--timeline", "/no/such/t.html"},
			"--timeline /no/such/t.html: cannot write: directory /no/such does not exist"},
		{[]string{"explore", "--seeds", "3", "--emit", file + "/sub"},
			"--emit " + file + "/sub: cannot write: " + file + " is not a directory"},
		{[]string{"explore", "--seeds", "3", "--report", "/no/such/r.json"},
			"--report /no/such/r.json: cannot write: directory /no/such does not exist"},
		{[]string{"replay", "--report", "r.json", "--scenario", "x", "--timeline", "/no/such/t.html"},
			"--timeline /no/such/t.html: cannot write: directory /no/such does not exist"},
		{[]string{"merge", "r.json", "--junit", tmp},
			"--junit " + tmp + ": is a directory, want a file"},
		{[]string{"new", "--from-log", "x.log", "-o", "/no/such/x.yaml"},
			"--output /no/such/x.yaml: cannot write: directory /no/such does not exist"},
	} {
		out, _, err := executeIn(t, "", c.args...)
		if err == nil || err.Error() != c.want || exitCode(err) != exitUsage || out != "" {
			t.Errorf("%v: %v (exit %d), stdout %q; want %q, exit 2", c.args, err, exitCode(err), out, c.want)
		}
	}
	// A good path is left as it was: an existing file keeps its content,
	// a new one is not created by the check.
	if err := checkFile(file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "kept" {
		t.Fatalf("checkFile changed %s: %q", file, b)
	}
	fresh := filepath.Join(tmp, "new.xml")
	if err := checkFile(fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("checkFile left %s: %v", fresh, err)
	}
	if err := checkDir(filepath.Join(tmp, "a", "b")); err != nil {
		t.Fatal(err)
	}
}

// list and run agree on --label: an unknown label is a usage error naming
// the known ones; an exclusion of an unknown label excludes nothing.
func TestLabelAgreement(t *testing.T) {
	for _, cmd := range []string{"list", "run"} {
		_, _, err := executeIn(t, "", cmd, "--label", "contaner")
		if exitCode(err) != exitUsage || err == nil ||
			!strings.HasPrefix(err.Error(), `--label contaner: no scenario has label "contaner" (did you mean "container"?); known labels: allocator, blackhole, `) {
			t.Errorf("%s --label contaner: exit %d, %v", cmd, exitCode(err), err)
		}
		_, _, err = executeIn(t, "", cmd, "--label", "container", "--label", "!container")
		if exitCode(err) != exitUsage || err == nil || err.Error() != "no scenario selected: none has every label of --label container,!container" {
			t.Errorf("%s: exit %d, %v", cmd, exitCode(err), err)
		}
	}
	out, _, err := executeIn(t, "", "list", "--label", "!nosuch")
	if err != nil || !strings.HasSuffix(out, fmt.Sprintf("%d scenarios\n", catalogSize(t))) {
		t.Fatalf("list --label '!nosuch': %v\n%s", err, out)
	}
}

func catalogSize(t *testing.T) int {
	t.Helper()
	scs, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return len(scs)
}
