package fakeengine_test

import (
	"context"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// Two nodes: tp0 stores an object in its own segment, tp1 reads it over
// the tp1→tp0 transfer link; a blackhole on that link fails the read
// (get → b"") while tp0 still reads locally.
func TestCrossNodeTransfer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx := context.Background()
	w := launchP2P(ctx, t)
	defer w.Close(ctx)
	master, _ := w.Addr("master")
	stores := map[string]engine.Store{}
	for _, n := range []string{"tp0", "tp1"} {
		p, err := w.StartProcess(ctx, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.NewStore(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seg := int64(64 << 20)
		if n == "tp1" {
			seg = 0 // pure client: every replica lands on tp0
		}
		// Distinct hosts, as two machines have.
		rc, err := st.Setup(ctx, engine.SetupArgs{LocalHostname: n, MetadataServer: "P2PHANDSHAKE",
			GlobalSegmentSize: seg, LocalBufferSize: 16 << 20, Protocol: "tcp", MasterServerAddr: master})
		if err != nil || rc != 0 {
			t.Fatalf("%s setup = %d, %v", n, rc, err)
		}
		stores[n] = st
	}
	if rc, err := stores["tp0"].Put(ctx, "k", []byte("kv-cache-page")); rc != 0 || err != nil {
		t.Fatalf("put = %d, %v", rc, err)
	}
	got, err := stores["tp1"].Get(ctx, "k")
	if err != nil || string(got) != "kv-cache-page" {
		t.Fatalf("tp1 get = %q, %v", got, err)
	}
	if err := w.Arm(ctx, []faults.Fault{{Kind: faults.Link, Target: "tp0", Mode: faults.ModeBlackhole}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err = stores["tp1"].Get(ctx, "k")
	if err != nil || len(got) != 0 {
		t.Fatalf("tp1 get across a blackholed link = %q, %v; want b\"\"", got, err)
	}
	// MC_TRANSFER_TIMEOUT 30 s at scale 0.01.
	if took := time.Since(start); took < 300*time.Millisecond || took > 2*time.Second {
		t.Fatalf("blackholed transfer failed after %s, want ~300ms", took)
	}
	got, err = stores["tp0"].Get(ctx, "k")
	if err != nil || string(got) != "kv-cache-page" {
		t.Fatalf("tp0 local get = %q, %v", got, err)
	}
	for _, n := range []string{"tp0", "tp1"} {
		if _, err := stores[n].Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
