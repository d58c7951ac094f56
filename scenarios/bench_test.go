package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

func catalogScenario(b *testing.B, name string) *scenarios.Scenario {
	b.Helper()
	cat, err := scenarios.Catalog()
	if err != nil {
		b.Fatal(err)
	}
	scs, err := scenarios.Resolve(cat, []string{name})
	if err != nil {
		b.Fatal(err)
	}
	return scs[0]
}

// BenchmarkSetupPathRun: whole runs per second (launch, faults, SGLang
// init, oracles, remedy phase, close) of a setup-path scenario on sim.
func BenchmarkSetupPathRun(b *testing.B) {
	for _, name := range []string{"setup/master-down-explicit-port", "setup/tenant-unsupported", "io/happy-path", "etcd/down-refused-auto-port"} {
		b.Run(name, func(b *testing.B) {
			sc := catalogScenario(b, name)
			vs, _ := sc.Versions("")
			eng := sim.New()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				r := scenarios.RunVersion(context.Background(), sc, eng, vs[len(vs)-1], scenarios.Options{Seed: uint64(i)})
				if r.Verdict != scenarios.Pass {
					b.Fatalf("%s: %s %s", name, r.Verdict, r.Reason)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
		})
	}
}

// BenchmarkBlackholedMaster: the 10-minute field hang (20 attempts × 30 s
// connect timeout) in virtual time; reports virtual seconds per wall second.
func BenchmarkBlackholedMaster(b *testing.B) {
	sc := catalogScenario(b, "setup/master-blackholed")
	eng := sim.New()
	var virtual, wall float64
	for i := 0; i < b.N; i++ {
		r := scenarios.RunVersion(context.Background(), sc, eng, mooncake.Latest, scenarios.Options{Seed: uint64(i)})
		if r.Verdict != scenarios.Pass {
			b.Fatalf("%s %s", r.Verdict, r.Reason)
		}
		virtual += r.VirtualMS
		wall += r.WallMS
	}
	b.ReportMetric(virtual/float64(b.N)/1000, "virtual-s/run")
	b.ReportMetric(virtual/wall, "virtual/wall")
}
