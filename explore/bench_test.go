package explore

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// BenchmarkExplore is generated runs on sim as `faultlab explore` makes
// them: generate, build, run, judge (b.N seeds, -j 2 as the command
// defaults, its GC setting: TuneGC). runs/s is the metric the README
// reports.
func BenchmarkExplore(b *testing.B) {
	defer TuneGC()()
	benchmarkExplore(b)
}

// BenchmarkExploreDefaultGC is the same at Go's default GC target (a
// library caller's).
func BenchmarkExploreDefaultGC(b *testing.B) { benchmarkExplore(b) }

func benchmarkExplore(b *testing.B) {
	b.ReportAllocs()
	r, err := Explore(context.Background(), Options{Seeds: uint64(b.N), Seed: 1, Engines: []engine.Engine{sim.New()}, Jobs: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(r.Summary.RunsPerS, "runs/s")
}

// BenchmarkGenerate is the generator and the direct build + validation alone.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		if _, err := Generate(uint64(i), GenOptions{}).Scenario(); err != nil {
			b.Fatal(err)
		}
	}
}
