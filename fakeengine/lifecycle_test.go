package fakeengine_test

import (
	"context"
	"net"
	"net/url"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func spec() engine.WorldSpec {
	return engine.WorldSpec{Scenario: "t", Seed: 1, Version: mooncake.Latest, Master: &engine.MasterSpec{},
		Metadata: "http", Nodes: []engine.NodeSpec{{Name: "tp0"}, {Name: "tp1"}}, TimeoutScale: 0.01}
}

func dialFails(t *testing.T, addr string) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections", addr)
	}
}

func TestWorldCloseLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t)
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
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	s := spec()
	s.Metadata = "P2PHANDSHAKE"
	w, err := fakeengine.New(fakeengine.Options{}).Launch(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	err = w.Arm(ctx, []faults.Fault{{Kind: faults.MetadataDown, Mode: faults.ModeRefuse}})
	if u, ok := engine.AsUnsupported(err); !ok || u.Reason != "fake engine: no link to metadata in this topology" {
		t.Fatalf("err = %v", err)
	}
}

// A run interrupted (Ctrl-C = ctx cancelled) mid-way leaves nothing running.
func TestCancelMidRun(t *testing.T) {
	defer goleak.VerifyNone(t)
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
	defer goleak.VerifyNone(t)
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
