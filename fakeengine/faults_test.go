package fakeengine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// Fault.At and Fault.For are Mooncake time: at scale 0.01, a master stopped
// at 0 for 10 s is back after 100 ms of wall time. Only lower bounds are
// wall-clock assertions (a loaded machine can only make things later); the
// -600 is checked with the master stopped until started, because a stall of
// the test process longer than the fault's 100 ms let the master come back
// before the setup reached it (a fresh .ci/run, lane 2 beside real SGLang).
func TestTimedProcessFault(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// 0.3.13.post1: a client that missed client_ttl of pings expires at
	// once (0.3.14's liveness registry only suspects it, and its first ping
	// after the pause recovers it with its objects: REAL-FINDINGS §65).
	s := spec()
	s.Metadata, s.Version = "P2PHANDSHAKE", "0.3.13.post1"
	w, err := fakeengine.New(fakeengine.Options{}).Launch(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	master := func(f faults.Fault) {
		t.Helper()
		f.Kind, f.Target = faults.Process, "master"
		if err := w.Arm(ctx, []faults.Fault{f}); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := w.StartProcess(ctx, "tp0", nil)
	var stores []engine.Store
	setup := func(port int) int {
		t.Helper()
		st, _ := p.NewStore(ctx)
		stores = append(stores, st)
		rc, err := st.Setup(ctx, setupArgs(w, fmt.Sprintf("127.0.0.1:%d", port)))
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	// Explicit port: one attempt, refused → -600 (INVALID_PARAMS), after
	// client_pool's refused retries (4.266 s of Mooncake time = 43 ms).
	master(faults.Fault{Action: "stop"})
	start := time.Now()
	if rc := setup(17777); rc != -600 {
		t.Fatalf("setup with the master stopped = %d, want -600", rc)
	}
	if took := time.Since(start); took < 42*time.Millisecond {
		t.Fatalf("refused setup took %s, want at least 43ms", took)
	}
	master(faults.Fault{Action: "start"})
	// At and For are the world's time, the heal at At+For: stopped now for
	// 10 s (100 ms of wall), every setup is refused until the master is
	// back, then one succeeds (well before 10 s of wall, For read as wall).
	start = time.Now()
	master(faults.Fault{At: w.Clock().Now(), Action: "stop", For: 10 * time.Second})
	port := 17778
	for ; ; port++ {
		rc := setup(port)
		if rc == 0 {
			break
		}
		if rc != -600 || time.Since(start) > 5*time.Second {
			t.Fatalf("setup %s after a 10 s stop (100 ms of wall) = %d, want -600 until it heals, then 0", time.Since(start), rc)
		}
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Fatalf("setup succeeded %s after the stop, within its For (100 ms of wall)", took)
	}
	st2 := stores[len(stores)-1]
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
	// A heartbeat (1 s, 10 ms of wall) gets NEED_REMOUNT and remounts;
	// until then a put finds no segment.
	for deadline := time.Now().Add(5 * time.Second); ; {
		rc, _ := st2.Put(ctx, "k", []byte("v"))
		if rc == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("put after the remount = %d", rc)
		}
		time.Sleep(10 * time.Millisecond)
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
	for _, s := range stores {
		_, _ = s.Close(ctx)
	}
}
