package realengine

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fork server with the newest installed SGLang: a forked process gets
// the protocol fds, exactly its environment, a process group of its own,
// and its exit status or signal; closing the server ends its children.
func TestForkServer(t *testing.T) {
	l, err := SGLangLayoutFor("", LatestSGLang())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadInstalled(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs SGLang (make real-engine): %v", err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The server's temp dir is in TMPDIR until it closes, and gone after.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	z, err := startForkServer(ctx, l.Python(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		z.close()
		if m, _ := filepath.Glob(filepath.Join(tmp, "faultlab-sglang-fork-*")); len(m) != 0 {
			t.Errorf("left behind after close: %v", m)
		}
	}()

	dir := t.TempDir()
	script := filepath.Join(dir, "child.py")
	if err := os.WriteFile(script, []byte(`import os, sys, time
proto = os.fdopen(int(os.environ["FAULTLAB_PROTO_FD"]), "w", buffering=1)
proto.write("env=%s cwd=%s pgid_is_pid=%s sglang_loaded=%s\n" % (os.environ.get("ONLY"), os.getcwd(), os.getpgid(0) == os.getpid(), "sglang" in sys.modules))
line = sys.stdin.readline().strip()
if line == "sleep":
    time.sleep(60)
sys.exit(int(line))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func() *proc {
		p, err := startProc(procSpec{Name: "child", Path: "python", Args: []string{"-u", script}, Env: []string{"ONLY=1"}, Dir: dir, Protocol: true, Fork: z})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	hello := func(p *proc) string {
		line, err := bufio.NewReader(p.stdout).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(line)
	}

	p := start()
	if got, want := hello(p), "env=1 cwd="+dir+" pgid_is_pid=True sglang_loaded=True"; got != want {
		t.Errorf("child saw %q, want %q", got, want)
	}
	_, _ = p.stdin.Write([]byte("7\n"))
	<-p.exited
	if got := p.ExitDescription(); got != "exit status 7" {
		t.Errorf("exit: %q, want exit status 7", got)
	}

	p = start()
	hello(p)
	_, _ = p.stdin.Write([]byte("sleep\n"))
	if err := p.signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	if got, sig := p.ExitDescription(), p.Signal(); got != "signal: killed" || sig != "SIGKILL" {
		t.Errorf("killed: %q %q, want signal: killed, SIGKILL", got, sig)
	}

	p = start()
	hello(p)
	_, _ = p.stdin.Write([]byte("sleep\n"))
	z.close()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("a child outlived its fork server")
	}
	if err := syscall.Kill(p.pid, 0); err != syscall.ESRCH {
		t.Errorf("child %d still exists after close: %v", p.pid, err)
	}
}
