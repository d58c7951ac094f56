package fakeengine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// BenchmarkCatalog runs the whole catalog on the fake engine at
// TimeoutScale 0.01 and 0.02 (go test -run x -bench Catalog -benchtime 1x
// ./fakeengine/). It fails on any fail or error verdict.
func BenchmarkCatalog(b *testing.B) {
	cat, err := scenarios.Catalog()
	if err != nil {
		b.Fatal(err)
	}
	for _, scale := range []float64{0.01, 0.02} {
		b.Run(fmt.Sprintf("scale=%g", scale), func(b *testing.B) {
			eng := fakeengine.New(fakeengine.Options{})
			runs := 0
			var slowest scenarios.Result
			start := time.Now()
			for range b.N {
				for _, sc := range cat {
					for _, r := range scenarios.Run(context.Background(), sc, eng, scenarios.Options{Seed: 1, TimeoutScale: scale}) {
						runs++
						if r.Verdict == scenarios.Fail || r.Verdict == scenarios.Error {
							b.Fatalf("%s @ %s: %s: %s", r.Scenario, r.MooncakeVersion, r.Verdict, r.Reason)
						}
						if r.WallMS > slowest.WallMS {
							slowest = r
						}
					}
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "catalog-s")
			b.ReportMetric(float64(runs)/float64(b.N), "runs")
			b.ReportMetric(slowest.WallMS/1000, "slowest-s")
			b.Logf("slowest: %s @ %s (%.1f s)", slowest.Scenario, slowest.MooncakeVersion, slowest.WallMS/1000)
		})
	}
}
