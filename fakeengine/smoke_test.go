package fakeengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func TestSmokeCatalog(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	eng := fakeengine.New(fakeengine.Options{})
	start := time.Now()
	for _, sc := range cat {
		for _, r := range scenarios.Run(context.Background(), sc, eng, scenarios.Options{Seed: 1, TimeoutScale: 0.01}) {
			t.Logf("%-50s %-14s %-5s %8.1fms %s", r.Scenario, r.MooncakeVersion, r.Verdict, r.WallMS, r.Reason)
		}
	}
	t.Logf("catalog wall time %s", time.Since(start))
}
