package containers_test

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/containers/images"
)

// echo reads lines on stdin and answers "echo <line>" on stdout, "err
// <line>" on stderr: enough to see both streams and stdin through attach.
const echo = `import sys
for line in sys.stdin:
    print("echo " + line.strip(), flush=True)
    print("err " + line.strip(), file=sys.stderr, flush=True)
`

func world(t *testing.T) (*containers.World, string) {
	t.Helper()
	ctx := context.Background()
	if err := containers.Available(ctx); err != nil {
		t.Skip(err.Error())
	}
	w, err := containers.NewWorld(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		d, err := containers.Docker(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		left, err := containers.Leftovers(context.Background(), d, w.ID)
		if err != nil || len(left) > 0 {
			t.Errorf("after Close: left %v (err %v)", left, err)
		}
	})
	base, err := (&images.Builder{Docker: w.Docker}).Base(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return w, base.Ref
}

func TestPartyStdioSignalsAndNetwork(t *testing.T) {
	w, image := world(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := w.Start(ctx, containers.PartySpec{Name: "echo", Alias: "echoer", Image: image, Stdin: true,
		Cmd: []string{"python3", "-u", "/x/echo.py"}, Files: map[string][]byte{"/x/echo.py": []byte(echo)},
		ShmSize: 128 << 20, Memlock: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// Both streams are read at once: Docker multiplexes them on one
	// connection, so an unread stream stalls the other.
	out, errs := lines(p.Stdout()), lines(p.Stderr())
	if _, err := io.WriteString(p.Stdin(), "hello\n"); err != nil {
		t.Fatal(err)
	}
	if got := next(t, out); got != "echo hello" {
		t.Errorf("stdout = %q, want %q", got, "echo hello")
	}
	if got := next(t, errs); got != "err hello" {
		t.Errorf("stderr = %q, want %q", got, "err hello")
	}

	in, err := w.Docker.ContainerInspect(ctx, p.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc := in.Container.HostConfig
	if hc.ShmSize != 128<<20 || len(hc.Ulimits) != 1 || hc.Ulimits[0].Name != "memlock" || hc.Ulimits[0].Hard != 1<<20 {
		t.Errorf("host config shm=%d ulimits=%v, want shm 128 MiB and memlock 1 MiB", hc.ShmSize, hc.Ulimits)
	}
	if got := in.Container.Config.Labels[containers.LabelWorld]; got != w.ID {
		t.Errorf("label %s = %q, want %q", containers.LabelWorld, got, w.ID)
	}

	// SIGSTOP pauses (freezer): the answer comes only after SIGCONT.
	if err := p.Signal(ctx, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	state(t, w, p, "paused")
	if _, err := io.WriteString(p.Stdin(), "later\n"); err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(ctx, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if got := next(t, out); got != "echo later" {
		t.Errorf("after resume stdout = %q", got)
	}

	// A partition takes it off the world network and back, alias intact.
	if _, err := p.IP(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if ip, err := p.IP(ctx); err == nil {
		t.Errorf("disconnected party still has address %s", ip)
	}
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	in, err = w.Docker.ContainerInspect(ctx, p.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ep := in.Container.NetworkSettings.Networks[w.Network()]; ep == nil || !contains(ep.Aliases, "echoer") {
		t.Errorf("reconnected without alias echoer: %+v", ep)
	}

	if err := p.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	if e := p.Exit(); e.Code != 137 || e.Signal != "SIGKILL" || e.String() != "signal: SIGKILL" {
		t.Errorf("exit = %+v (%s), want 137 SIGKILL", e, e)
	}
}

// lines delivers r's lines on a channel, read by a goroutine of their own.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case l := <-ch:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no line within 30 s")
		return ""
	}
}

func state(t *testing.T, w *containers.World, p *containers.Party, want string) {
	t.Helper()
	in, err := w.Docker.ContainerInspect(context.Background(), p.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(in.Container.State.Status); got != want {
		t.Errorf("state = %q, want %q", got, want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestReapRemovesOnlyDeadOwners: a container labelled by a process that no
// longer exists is removed at the next start; one of a live process stays.
func TestReapRemovesOnlyDeadOwners(t *testing.T) {
	w, image := world(t)
	ctx := context.Background()
	dead := deadPID(t)
	orphan, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: testcontainers.ContainerRequest{
		Image: image, Cmd: []string{"sleep", "600"},
		Labels: map[string]string{containers.LabelWorld: "fl-orphan-test", containers.LabelPID: dead},
	}, Started: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = orphan.Terminate(ctx) }()
	live, err := w.Start(ctx, containers.PartySpec{Name: "live", Image: image, Cmd: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := containers.Reap(ctx, w.Docker); err != nil {
		t.Fatal(err)
	}
	left, err := containers.Leftovers(ctx, w.Docker, "fl-orphan-test")
	if err != nil || len(left) != 0 {
		t.Errorf("orphan not reaped: %v %v", left, err)
	}
	mine, err := containers.Leftovers(ctx, w.Docker, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(mine, "container "+w.ID+"-live") || live.Exit() != (containers.Exit{}) {
		t.Errorf("live world touched by Reap: %v, exit %+v", mine, live.Exit())
	}
}

// deadPID is a pid no process has now.
func deadPID(t *testing.T) string {
	for pid := 4_000_000; pid > 3_000_000; pid -= 7919 {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return strconv.Itoa(pid)
		}
	}
	t.Fatal("no free pid found")
	return ""
}
