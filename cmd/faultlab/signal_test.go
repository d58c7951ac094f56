package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// buildCLI builds the faultlab binary once per test.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "faultlab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sigterm starts `faultlab run args...` with a private TMPDIR, sends
// SIGTERM once ready(tmp) holds, and returns the exit code and output.
func sigterm(t *testing.T, bin string, ready func(tmp string) bool, args ...string) (int, string, string) {
	t.Helper()
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--progress", "none"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !ready(tmp) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("never ready:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), tmp
}

// SIGTERM (what CI runners and timeout(1) send) is handled like SIGINT:
// runs in flight stop, worlds close, exit 3 with a line saying so.
func TestSIGTERMFake(t *testing.T) {
	bin := buildCLI(t)
	start := time.Now()
	code, out, _ := sigterm(t, bin, func(string) bool { return time.Since(start) > 1500*time.Millisecond },
		"setup/master-down-refused", "--engine", "fake", "--timeout-scale", "1")
	if code != exitHarness || !regexp.MustCompile(`interrupted: [1-3] runs? stopped in flight, [0-2] not started; every world started was closed`).MatchString(out) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// On the real engine SIGTERM also removes the world's temp dir
// (faultlab-real-*) and its processes.
func TestSIGTERMRealCleansUp(t *testing.T) {
	if err := realengine.New(realengine.Options{}).Available(context.Background(), mooncake.Latest); err != nil {
		t.Skip("real engine not installed: " + err.Error())
	}
	bin := buildCLI(t)
	worlds := func(tmp string) []string { m, _ := filepath.Glob(filepath.Join(tmp, "faultlab-real-*")); return m }
	code, out, tmp := sigterm(t, bin, func(tmp string) bool { return len(worlds(tmp)) > 0 },
		"setup/master-down-refused", "--engine", "real", "--mooncake-version", mooncake.Latest)
	if code != exitHarness || !strings.Contains(out, "interrupted") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if left := worlds(tmp); len(left) > 0 {
		t.Fatalf("left behind: %v\n%s", left, out)
	}
	if b, _ := exec.Command("pgrep", "-f", tmp).Output(); len(b) > 0 {
		t.Fatalf("processes left: %s", b)
	}
}
