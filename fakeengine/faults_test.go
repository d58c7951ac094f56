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

// Fault.At and Fault.For are Mooncake time: at scale 0.01, a master stopped
// at 0 for 10 s is back after 100 ms of wall time.
func TestTimedProcessFault(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx := context.Background()
	w := launchP2P(ctx, t)
	defer w.Close(ctx)
	if err := w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: "master", Action: "stop", For: 10 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	p, _ := w.StartProcess(ctx, "tp0", nil)
	st, _ := p.NewStore(ctx)
	// Explicit port: one attempt, refused → -600 (INVALID_PARAMS), after
	// client_pool's refused retries (4.266 s of Mooncake time = 43 ms).
	start := time.Now()
	if rc, err := st.Setup(ctx, setupArgs(w, "127.0.0.1:17777")); rc != -600 || err != nil {
		t.Fatalf("setup with the master stopped = %d, %v; want -600", rc, err)
	}
	if took := time.Since(start); took < 42*time.Millisecond || took > 400*time.Millisecond {
		t.Fatalf("refused setup took %s, want ~43ms", took)
	}
	time.Sleep(120 * time.Millisecond) // past For: the master is back
	st2, _ := p.NewStore(ctx)
	if rc, err := st2.Setup(ctx, setupArgs(w, "127.0.0.1:17778")); rc != 0 || err != nil {
		t.Fatalf("setup after the fault healed = %d, %v; want 0", rc, err)
	}
	if rc, _ := st2.Put(ctx, "k", []byte("v")); rc != 0 {
		t.Fatalf("put = %d", rc)
	}
	// Paused master: connects complete, nothing answers → RPC_TIMEOUT (-901).
	if err := w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: "master", Action: "pause"}}); err != nil {
		t.Fatal(err)
	}
	if rc, _ := st2.IsExist(ctx, "k"); rc != -901 {
		t.Fatalf("is_exist with the master paused = %d, want -901", rc)
	}
	if err := w.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	// The pause outlasted client_ttl (10 s) without a ping: once resumed, the
	// master's ClientMonitor expires the client and its segment's objects.
	if rc, _ := st2.IsExist(ctx, "k"); rc != 0 {
		t.Fatalf("is_exist after a 30 s pause = %d, want 0", rc)
	}
	time.Sleep(50 * time.Millisecond) // a heartbeat gets NEED_REMOUNT and remounts
	if rc, _ := st2.Put(ctx, "k", []byte("v")); rc != 0 {
		t.Fatalf("put after remount = %d", rc)
	}
	if rc, _ := st2.IsExist(ctx, "k"); rc != 1 {
		t.Fatalf("is_exist after remount and put = %d, want 1", rc)
	}
	// Restart: state lost.
	if err := w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: "master", Action: "restart"}}); err != nil {
		t.Fatal(err)
	}
	if rc, _ := st2.IsExist(ctx, "k"); rc != 0 {
		t.Fatalf("is_exist after a master restart = %d, want 0 (objects lost)", rc)
	}
	for _, s := range []engine.Store{st, st2} {
		_, _ = s.Close(ctx)
	}
}
