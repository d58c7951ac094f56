package main

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// `make real-engine` (--versions catalog) installs what the real catalog
// suite may not skip: every version a non-RDMA-hardware catalog scenario
// runs at on real, newest first, once each.
func TestCatalogVersionsForReal(t *testing.T) {
	got, err := catalogVersions(realengine.Name, realengine.NeedsRDMAHardware)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, sc := range cat {
		if sc.RunsOn(realengine.Name) && !sc.HasLabel(realengine.NeedsRDMAHardware) {
			vs, _ := sc.Versions("")
			want = append(want, vs...)
		}
	}
	slices.SortFunc(want, func(a, b string) int { return mooncake.MustVersion(b).Compare(mooncake.MustVersion(a)) })
	want = slices.Compact(want)
	if !slices.Equal(got, want) || got[0] != mooncake.Latest {
		t.Fatalf("got %q, want %q (newest first, starting at %s)", got, want, mooncake.Latest)
	}
}
