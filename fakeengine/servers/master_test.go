package servers

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/netport"
)

type wallClock struct{ start time.Time }

func (c wallClock) Now() time.Duration { return time.Since(c.start) }

func newMaster(t *testing.T) (*MasterServer, *toxiproxy.Injector, string) {
	t.Helper()
	p, err := mooncake.ProfileFor("0.3.12.post1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := master.ConfigFor(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := master.New(cfg, wallClock{time.Now()}, mlog.Discard{}, rng.Stream(1, "master"))
	var mu sync.Mutex
	srv := NewMasterServer(&mu, func() master.Service { return m }, nil)
	if err := srv.Listen(context.Background(), "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	inj, err := toxiproxy.New(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := inj.Link("tp0→master", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := inj.Close(); err != nil {
			t.Error(err)
		}
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv, inj, addr
}

func TestMasterRoundTrip(t *testing.T) {
	_, _, addr := newMaster(t)
	ctx := context.Background()
	stub := MasterStub{Addr: addr, T: wire.Timeouts{Connect: time.Second, Request: time.Second}}
	v, err := stub.ServiceReady(ctx)
	if err != nil || v != master.RPCVersion {
		t.Fatalf("ServiceReady = %q, %v; want %q", v, err, master.RPCVersion)
	}
	id := master.UUID{Hi: 1, Lo: 2}
	seg := master.Segment{ID: master.UUID{Hi: 3, Lo: 4}, Name: "localhost:12345", Base: 0x7c0000000000, Size: 64 << 20,
		Protocol: "tcp", TEEndpoint: "localhost:12345"}
	if err := stub.MountSegment(ctx, seg, id); err != nil {
		t.Fatalf("MountSegment: %v", err)
	}
	// MountSegment never marks the client OK (master_service.cpp): the
	// first ping asks for a remount; ReMountSegment does.
	pr, err := stub.Ping(ctx, id)
	if err != nil || pr.Status != master.NeedRemount {
		t.Fatalf("first Ping = %+v, %v; want NEED_REMOUNT", pr, err)
	}
	if err := stub.ReMountSegment(ctx, []master.Segment{seg}, id); err != nil {
		t.Fatalf("ReMountSegment: %v", err)
	}
	if pr, err = stub.Ping(ctx, id); err != nil || pr.Status != master.ClientOK {
		t.Fatalf("Ping after the remount = %+v, %v; want OK", pr, err)
	}
	reps, err := stub.PutStart(ctx, "k", 100, master.ReplicateConfig{ReplicaNum: 1})
	if err != nil || len(reps) != 1 || reps[0].SegmentName != "localhost:12345" || reps[0].Size != 100 {
		t.Fatalf("PutStart = %+v, %v", reps, err)
	}
	if err := stub.PutEnd(ctx, "k"); err != nil {
		t.Fatalf("PutEnd: %v", err)
	}
	ok, err := stub.ExistKey(ctx, "k")
	if err != nil || !ok {
		t.Fatalf("ExistKey = %v, %v", ok, err)
	}
	res, err := stub.BatchExistKey(ctx, []string{"k", "missing"})
	if err != nil || len(res) != 2 || !res[0].Exists || res[1].Exists {
		t.Fatalf("BatchExistKey = %+v, %v", res, err)
	}
	// A model error travels as its code.
	if _, err := stub.GetReplicaList(ctx, "missing"); !errors.Is(err, mooncake.OBJECT_NOT_FOUND) {
		t.Fatalf("GetReplicaList(missing) err = %v, want OBJECT_NOT_FOUND", err)
	}
	if _, err := stub.PutStart(ctx, "k", 100, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.OBJECT_ALREADY_EXISTS) {
		t.Fatalf("PutStart(existing) err = %v, want OBJECT_ALREADY_EXISTS", err)
	}
}

func TestMasterTransportFailures(t *testing.T) {
	cases := []struct {
		name    string
		fault   faults.Fault
		kind    master.RPCKind
		atLeast time.Duration
		below   time.Duration
	}{
		{"refuse fails fast", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}, master.Refused, 0, 250 * time.Millisecond},
		{"blackhole: the proxy connects, the request timeout fires", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole},
			master.RequestTimeout, 300 * time.Millisecond, 700 * time.Millisecond},
		{"requests dropped wait the request timeout", faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeBlackhole, Stream: "upstream"},
			master.RequestTimeout, 300 * time.Millisecond, 700 * time.Millisecond},
		{"reset", faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeResetPeer, Stream: "upstream"},
			master.Reset, 0, 250 * time.Millisecond},
		{"limit_data cuts the hello", faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLimitData, Stream: "downstream", Params: faults.LimitDataParams{Bytes: 10}},
			master.Reset, 0, 250 * time.Millisecond},
		{"limit_data cuts the reply", faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLimitData, Stream: "downstream", Params: faults.LimitDataParams{Bytes: 50}},
			master.Reset, 0, 250 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, inj, addr := newMaster(t)
			if err := inj.Apply(context.Background(), "tp0→master", tc.fault); err != nil {
				t.Fatal(err)
			}
			stub := MasterStub{Addr: addr, T: wire.Timeouts{Connect: 200 * time.Millisecond, Request: 300 * time.Millisecond}}
			start := time.Now()
			_, err := stub.ServiceReady(context.Background())
			took := time.Since(start)
			re, ok := master.AsRPCError(err)
			if !ok || re.Kind != tc.kind || re.Op != MServiceReady {
				t.Fatalf("err = %v, want rpc %s %s", err, MServiceReady, tc.kind)
			}
			if took < tc.atLeast || took >= tc.below || re.After > took {
				t.Fatalf("took %s (After %s), want [%s, %s)", took, re.After, tc.atLeast, tc.below)
			}
		})
	}
}

func TestMasterStoppedBehindProxyIsRefused(t *testing.T) {
	srv, _, addr := newMaster(t)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	stub := MasterStub{Addr: addr, T: wire.Timeouts{Connect: time.Second, Request: time.Second}}
	_, err := stub.ServiceReady(context.Background())
	if re, ok := master.AsRPCError(err); !ok || re.Kind != master.Refused || re.After > 250*time.Millisecond {
		t.Fatalf("err = %v, want fast refused", err)
	}
}

func TestCallHonoursContext(t *testing.T) {
	_, inj, addr := newMaster(t)
	if err := inj.Apply(context.Background(), "tp0→master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	stub := MasterStub{Addr: addr, T: wire.Timeouts{Connect: 10 * time.Second, Request: 10 * time.Second}}
	start := time.Now()
	_, err := stub.ServiceReady(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %s, want context deadline", err, time.Since(start))
	}
}

func TestMasterConnectTimeoutOnUnroutable(t *testing.T) {
	// A blackholed loopback port leaves the SYN unanswered, as an
	// unroutable address does, without a packet leaving the host.
	ports, err := netport.Take(1)
	if err != nil {
		t.Fatal(err)
	}
	defer netport.Release(ports...)
	release, err := netport.Blackhole(ports[0])
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	stub := MasterStub{Addr: "127.0.0.1:" + strconv.Itoa(ports[0]), T: wire.Timeouts{Connect: 200 * time.Millisecond, Request: 10 * time.Second}}
	start := time.Now()
	_, err = stub.ServiceReady(context.Background())
	re, ok := master.AsRPCError(err)
	// The kind tells the connect timeout from the request's (10 s): no
	// upper bound on a loaded machine's wall clock is needed for that.
	if !ok || re.Kind != master.ConnectTimeout || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("err = %v after %s, want connect_timeout after 200ms", err, time.Since(start))
	}
}

func TestMasterPausedTimesOut(t *testing.T) {
	srv, _, addr := newMaster(t)
	srv.Pause()
	defer srv.Resume()
	stub := MasterStub{Addr: addr, T: wire.Timeouts{Connect: time.Second, Request: 200 * time.Millisecond}}
	_, err := stub.ServiceReady(context.Background())
	if re, ok := master.AsRPCError(err); !ok || re.Kind != master.RequestTimeout {
		t.Fatalf("err = %v, want request_timeout", err)
	}
	srv.Resume()
	if _, err := stub.ServiceReady(context.Background()); err != nil {
		t.Fatalf("after resume: %v", err)
	}
}

func TestUnknownMethodIsAHarnessError(t *testing.T) {
	_, _, addr := newMaster(t)
	err := wire.Call(context.Background(), addr, wire.Timeouts{Connect: time.Second, Request: time.Second}, "NoSuchRPC", nil, nil)
	var re *wire.RemoteError
	if !errors.As(err, &re) || re.Text != `master: unknown method "NoSuchRPC"` {
		t.Fatalf("err = %v", err)
	}
	if _, ok := master.AsRPCError(err); ok {
		t.Fatalf("a harness error must not look like a transport failure: %v", err)
	}
}
