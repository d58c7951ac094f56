package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The client model needs no kernel: a hand-rolled clock and a direct
// master are enough (the fake engine wires wall time and sockets the same
// way).
type manualClock struct{ now time.Duration }

func (c *manualClock) Now() time.Duration { return c.now }
func (c *manualClock) Sleep(_ context.Context, d time.Duration) error {
	c.now += d
	return nil
}

type direct struct{ m master.Service }

func (d direct) Master(string, client.Timeouts) master.Service { return d.m }

// refusing fails every call the way a transport reports ECONNREFUSED.
type refusing struct {
	master.Service
	clock *manualClock
}

func (r refusing) ServiceReady(ctx context.Context) (string, error) {
	_ = r.clock.Sleep(ctx, time.Second)
	return "", &master.RPCError{Kind: master.Refused, Op: "ServiceReady", After: time.Second}
}

type memData struct{ mem *hostmem.Space }

func (d memData) Write(_ context.Context, _ string, addr uint64, c hostmem.Content) error {
	return d.mem.WriteContent(addr, c)
}
func (d memData) Read(_ context.Context, _ string, addr uint64, size int64) (hostmem.Content, error) {
	return d.mem.ReadContent(addr, size)
}

func deps(t *testing.T, version string, clock *manualClock, mt client.MasterTransport, logs *[]string) client.Deps {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	mem := hostmem.New(p, 0)
	return client.Deps{
		Node: "n", Profile: p, Clock: clock, Env: map[string]string{}, Rand: rng.Stream(1, "c"), Mem: mem,
		Log: mlog.Func(func(_, s string) { *logs = append(*logs, s) }), Master: mt, Data: memData{mem},
	}
}

func args(host string) engine.SetupArgs {
	return engine.SetupArgs{LocalHostname: host, MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 16 << 20,
		LocalBufferSize: 1 << 20, Protocol: "tcp", MasterServerAddr: "m:1"}
}

func TestSetupWithoutKernel(t *testing.T) {
	ctx := context.Background()
	clock := &manualClock{}
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	cfg, _ := master.ConfigFor(p, nil)
	m := master.New(cfg, clock, nil, rng.Stream(1, "m"))
	var logs []string
	c := client.NewRealClient(deps(t, "0.3.13.post1", clock, direct{m}, &logs))
	if rc, err := c.Setup(ctx, args("localhost")); rc != 0 || err != nil {
		t.Fatalf("setup = %d, %v; logs %q", rc, err, logs)
	}
	if rc, _ := c.Put(ctx, "k", []byte("v")); rc != 0 {
		t.Fatalf("put = %d", rc)
	}
	if got, _ := c.Get(ctx, "k"); string(got) != "v" {
		t.Fatalf("get = %q", got)
	}
	if !c.Pinging() || c.Heartbeat(ctx, nil) != client.PingInterval {
		t.Fatal("heartbeat")
	}
	if hc, _ := c.HealthCheck(ctx); hc != 0 {
		t.Fatalf("health = %d", hc)
	}
}

func TestRefusedRetriesOnAnyClock(t *testing.T) {
	ctx := context.Background()
	clock := &manualClock{}
	var logs []string
	c := client.NewRealClient(deps(t, "0.3.13.post1", clock, direct{refusing{clock: clock}}, &logs))
	if rc, err := c.Setup(ctx, args("localhost")); rc != -1 || err != nil {
		t.Fatalf("setup = %d, %v", rc, err)
	}
	if want := 20 * (client.CreateCost + time.Second + 100*time.Millisecond); clock.now != want {
		t.Fatalf("clock = %s, want %s", clock.now, want)
	}
	if !slices.Contains(logs, "Failed to create client after 20 retries") {
		t.Fatalf("logs %q", logs)
	}
}

type busyPorts struct{}

func (busyPorts) Bind(context.Context, string, int) (func(), error) {
	return nil, errors.New("Address already in use")
}

// A port-less local_hostname whose port cannot be bound: getRandomAvailablePort
// ("Failed to find available port") up to 0.3.5, AutoPortBinder ("Failed
// to bind available port") from 0.3.6 (pybind_client.cpp), retried per
// attempt from 0.3.9 (real_client.cpp).
func TestBindPortFailurePerVersion(t *testing.T) {
	for _, c := range []struct {
		version, log string
		rc           int
	}{
		{"0.3.5", "Failed to find available port", -600},
		{"0.3.6", "Failed to bind available port", -600},
		{"0.3.8.post1", "Failed to bind available port", -600},
		{"0.3.9", "Failed to bind available port, retry 20/20", -1},
	} {
		t.Run(c.version, func(t *testing.T) {
			clock := &manualClock{}
			var logs []string
			d := deps(t, c.version, clock, direct{}, &logs)
			d.Ports = busyPorts{}
			rc, err := client.NewRealClient(d).Setup(context.Background(), args("localhost"))
			if rc != c.rc || err != nil {
				t.Fatalf("setup = %d, %v; want %d", rc, err, c.rc)
			}
			if !slices.Contains(logs, c.log) {
				t.Fatalf("logs %q lack %q", logs, c.log)
			}
		})
	}
}
