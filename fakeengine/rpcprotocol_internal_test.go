package fakeengine

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// The exit of a master that MC_RPC_PROTOCOL=rdma makes quit is recorded on
// a goroutine of its own; recorded after a remedy's ReplaceMaster, it must
// leave the new master serving (CI run 139: it closed it, and the remedy's
// client got a reset).
func TestLateMasterExitLeavesTheReplacement(t *testing.T) {
	ctx := context.Background()
	spec := engine.WorldSpec{Scenario: "t", Seed: 1, Version: "0.3.7.post2", TimeoutScale: 0.01,
		Master:   &engine.MasterSpec{Env: map[string]string{"MC_RPC_PROTOCOL": "rdma"}},
		Metadata: "http", Nodes: []engine.NodeSpec{{Name: "tp0"}}}
	ew, err := New(Options{}).Launch(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer ew.Close(ctx)
	w := ew.(*World)
	old := w.masterSrv
	if err := w.ReplaceMaster(ctx, "", nil, map[string]string{"MC_RPC_PROTOCOL": "tcp"}); err != nil {
		t.Fatal(err)
	}
	w.masterExited(old)
	if !w.masterUp || w.masterSrv == old {
		t.Fatalf("after the old master's late exit: up %v, the old server %v", w.masterUp, w.masterSrv == old)
	}
	// The old master's own exit, recorded in time, still stops it.
	w.masterExited(w.masterSrv)
	if w.masterUp {
		t.Fatal("the serving master's exit left it up")
	}
}
