package tmpdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestSweep(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	// A pid that has exited: a child, waited for.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	mk := func(name string) string {
		p := filepath.Join(os.TempDir(), name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mk("faultlab-x-" + strconv.Itoa(dead) + "-123")
	mine := mk("faultlab-x-" + strconv.Itoa(os.Getpid()) + "-456")
	old := mk("faultlab-x-2944061214")
	other := mk("faultlab-y-" + strconv.Itoa(dead) + "-789")
	if got := Sweep("faultlab-x-"); !slices.Equal(got, []string{gone}) {
		t.Errorf("removed %v, want [%s]", got, gone)
	}
	for _, p := range []string{mine, old, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v (a live maker's, a pid-less or another kind's directory must stay)", p, err)
		}
	}
	d, err := Make("faultlab-x-")
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := maker(filepath.Base(d)[len("faultlab-x-"):]); !ok || pid != os.Getpid() {
		t.Errorf("Make named %s: pid %d, %v", d, pid, ok)
	}
}
