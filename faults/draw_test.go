package faults_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func draw(seed uint64, wall bool) *faults.Draw {
	r := rand.New(rand.NewPCG(seed, 1))
	return &faults.Draw{
		Pick:        func(xs ...string) string { return xs[r.IntN(len(xs))] },
		Chance:      func(p float64) bool { return r.Float64() < p },
		LinkTargets: []string{"master", "metadata", "tp1"}, ProcessTargets: []string{"master"},
		Wall: wall, RPCTimeoutKnob: true,
	}
}

// Weights: the documented down kinds twice; a link the topology lacks never.
func TestDrawKinds(t *testing.T) {
	d := draw(1, false)
	got := faults.DrawKinds(d)
	count := func(k faults.Kind) int {
		n := 0
		for _, x := range got {
			if x == k {
				n++
			}
		}
		return n
	}
	if count(faults.MasterDown) != 2 || count(faults.MetadataDown) != 0 || count(faults.ClientDown) != 0 || count(faults.Link) != 1 {
		t.Errorf("no metadata, no client: %v", got)
	}
	d.Metadata, d.Client = true, true
	got = faults.DrawKinds(d)
	if count(faults.MetadataDown) != 2 || count(faults.ClientDown) != 1 {
		t.Errorf("metadata and client: %v", got)
	}
}

// Every drawn fault validates; on a wall engine no link mode toxiproxy
// cannot inject is drawn, on sim every mode is.
func TestDrawFault(t *testing.T) {
	for _, wall := range []bool{false, true} {
		seen := map[string]bool{}
		for seed := range uint64(2000) {
			d := draw(seed, wall)
			for _, k := range faults.KindNames() {
				f, ok := faults.DrawFault(faults.Kind(k), d)
				if !ok {
					continue
				}
				if err := f.Validate(); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if f.Kind == faults.Link {
					seen[f.Mode] = true
					if wall && faults.Available(f, faults.Capabilities{Toxiproxy: true}) != nil {
						t.Fatalf("wall: drew %s", f)
					}
				}
			}
		}
		if !wall && !slices.Equal(sortedKeys(seen), faults.LinkModes()) {
			t.Errorf("sim: modes drawn %v, want every one", sortedKeys(seen))
		}
		if wall && seen[faults.ModeDropEvery] {
			t.Errorf("wall: drop_every drawn")
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
