package sim_test

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// Before 0.3.6 mooncake_master has no embedded HTTP metadata server: a
// metadata: master topology is unsupported, not a world (real 0.3.4.post2's
// master exits 1 on the unknown flag; sim,real seed 30037).
func TestEmbeddedMetadataNeedsMaster036(t *testing.T) {
	ctx := context.Background()
	for v, want := range map[string]bool{"0.3.4.post2": false, "0.3.5": false, "0.3.6": true, "0.3.12.post1": true} {
		w, err := sim.Launch(ctx, engine.WorldSpec{Version: v, Metadata: "master", Seed: 1, Master: &engine.MasterSpec{}, Nodes: []engine.NodeSpec{{Name: "tp0"}}})
		_, unsupported := engine.AsUnsupported(err)
		if got := err == nil; got != want || (!want && !unsupported) {
			t.Errorf("%s: Launch err = %v, want ok=%v (unsupported otherwise)", v, err, want)
		}
		if w != nil {
			_ = w.Close(ctx)
		}
	}
}
