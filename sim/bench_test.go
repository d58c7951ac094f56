package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// benchSetup runs one world per iteration: launch, arm, setup().
func benchSetup(b *testing.B, version, hostname string, f faults.Fault, want int) {
	ctx := context.Background()
	var virtual time.Duration
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		w, err := sim.Launch(ctx, engine.WorldSpec{
			Seed: uint64(i), Version: version, Trace: trace.New(nil), Metadata: "P2PHANDSHAKE",
			Master: &engine.MasterSpec{}, Nodes: []engine.NodeSpec{{Name: "tp0"}},
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Arm(ctx, []faults.Fault{f}); err != nil {
			b.Fatal(err)
		}
		p, err := w.StartProcess(ctx, "tp0", nil)
		if err != nil {
			b.Fatal(err)
		}
		s, err := p.NewStore(ctx)
		if err != nil {
			b.Fatal(err)
		}
		rc, err := s.Setup(ctx, engine.SetupArgs{
			LocalHostname: hostname, MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 16 << 20, LocalBufferSize: 16 << 20,
			Protocol: "tcp", MasterServerAddr: sim.MasterAddr,
		})
		if err != nil || rc != want {
			b.Fatalf("setup = %d, %v; want %d", rc, err, want)
		}
		virtual += w.Clock().Now()
		_ = w.Close(ctx)
	}
	wall := time.Since(start)
	b.ReportMetric(float64(virtual.Milliseconds())/float64(b.N), "virtual-ms/op")
	b.ReportMetric(float64(virtual)/float64(wall), "virtual/wall")
}

// BenchmarkSetupMasterRefused: SGLang starts while the master is down
// (0.3.13.post1, port-less hostname: 20 refused attempts → -1).
func BenchmarkSetupMasterRefused(b *testing.B) {
	benchSetup(b, "0.3.13.post1", "localhost", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}, -1)
}

// BenchmarkBlackholedMaster: the 10-minute field hang (20 × 30 s request
// timeouts + 20 × 100 ms) reproduced in virtual time.
func BenchmarkBlackholedMaster(b *testing.B) {
	benchSetup(b, "0.3.13.post1", "localhost", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole}, -1)
}

// BenchmarkSetupHealthy: the setup path with everything up.
func BenchmarkSetupHealthy(b *testing.B) {
	benchSetup(b, "0.3.13.post1", "localhost", faults.Fault{At: time.Hour, Kind: faults.MasterDown, Mode: faults.ModeRefuse}, 0)
}
