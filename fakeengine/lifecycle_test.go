package fakeengine_test

import (
	"context"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func dialFails(t *testing.T, addr string) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections", addr)
	}
}

func TestWorldCloseLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx := context.Background()
	w, err := fakeengine.New(fakeengine.Options{}).Launch(ctx, spec())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := w.Addr("master")
	md, _ := w.Addr("metadata")
	u, _ := url.Parse(md)
	if err := w.Arm(ctx, []faults.Fault{
		{Kind: faults.MasterDown, Mode: faults.ModeBlackhole},
		{At: time.Hour, Kind: faults.Process, Target: "master", Action: "stop"},
	}); err != nil {
		t.Fatal(err)
	}
	p, err := w.StartProcess(ctx, "tp0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.NewStore(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	dialFails(t, m)
	dialFails(t, u.Host)
}

func TestArmRejectsWhatTheWorldLacks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx := context.Background()
	w := launchP2P(ctx, t)
	defer w.Close(ctx)
	err := w.Arm(ctx, []faults.Fault{{Kind: faults.MetadataDown, Mode: faults.ModeRefuse}})
	if u, ok := engine.AsUnsupported(err); !ok || u.Reason != "fake engine: no link to metadata in this topology" {
		t.Fatalf("err = %v", err)
	}
}

// A run interrupted (Ctrl-C = ctx cancelled) mid-way leaves nothing running.
func TestCancelMidRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Resolve(cat, []string{"setup/master-blackholed"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res := scenarios.RunVersion(ctx, sc[0], fakeengine.New(fakeengine.Options{}), mooncake.Latest, scenarios.Options{Seed: 1, TimeoutScale: 0.01})
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("cancelled run took %s (verdict %s %s)", took, res.Verdict, res.Reason)
	}
	if res.Verdict == scenarios.Pass {
		t.Fatalf("a run cancelled after 300 ms of a 6 s hang passed")
	}
}

func TestServe(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- fakeengine.Serve(ctx, fakeengine.ServeConfig{Master: "127.0.0.1:0", Metadata: "127.0.0.1:0", Version: mooncake.Latest,
			Ready: func(m, md string) { ready <- [2]string{m, md} }})
	}()
	addrs := <-ready
	for _, a := range addrs {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err != nil {
			t.Fatalf("dial %s: %v", a, err)
		}
		c.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		dialFails(t, a)
	}
}

func TestServeCommand(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	cmd := fakeengine.NewServeCommand()
	var out syncBuf
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--master", "127.0.0.1:0", "--metadata", "127.0.0.1:0", "--master-flag", "client_ttl=5"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "metadata http://") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "master 127.0.0.1:") || !strings.HasPrefix(lines[1], "metadata http://127.0.0.1:") {
		t.Fatalf("output %q", out.String())
	}
	dialFails(t, strings.TrimPrefix(lines[0], "master "))

	bad := fakeengine.NewServeCommand()
	bad.SetOut(io.Discard)
	bad.SetErr(io.Discard)
	bad.SetArgs([]string{"--master", "127.0.0.1:0", "--master-flag", "no_such_flag=1"})
	if err := bad.Execute(); err == nil || !strings.Contains(err.Error(), "no_such_flag") {
		t.Fatalf("unknown gflag: err = %v", err)
	}
}

// syncBuf is a strings.Builder safe to read while the command writes.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
