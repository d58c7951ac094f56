package scenarios_test

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestRacyListenerJoin: a failed Client::Create that joins the P2P
// handshake listener (no ping thread, from 0.3.11) waits out the
// listener's accept() in the model, 1 s, which real cuts short by a race;
// the model reports each join as racy time of the call it was in, and
// only there: the remedy's good setup has none.
func TestRacyListenerJoin(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scenario, version string
		setup, racy       float64
	}{
		{"setup/efa-transport-not-built", "0.3.14", 22200, 20000},
		{"setup/roce-no-suitable-gid", "0.3.14", 22200, 20000},
		// 0.3.9: the ping thread is joined instead, not a race.
		{"setup/efa-transport-not-built", "0.3.9", 22220, 0},
	} {
		scs, err := scenarios.Resolve(cat, []string{c.scenario})
		if err != nil {
			t.Fatal(err)
		}
		r := scenarios.RunVersion(context.Background(), scs[0], sim.New(), c.version, scenarios.Options{Seed: 1})
		if r.Verdict != scenarios.Pass {
			t.Fatalf("%s @%s: %s %s", c.scenario, c.version, r.Verdict, r.Reason)
		}
		if got := r.Observed.TimingsMS["setup"]; got != c.setup {
			t.Errorf("%s @%s: setup %v ms, want %v", c.scenario, c.version, got, c.setup)
		}
		if got := r.Observed.RacyMS["setup"]; got != c.racy {
			t.Errorf("%s @%s: racy %v ms, want %v", c.scenario, c.version, got, c.racy)
		}
		if r.Remedy != nil && r.Remedy.RacyMS != nil {
			t.Errorf("%s @%s: remedy racy %v", c.scenario, c.version, r.Remedy.RacyMS)
		}
	}
}

// TestHostWorkFileStorage: a setup with SSD offload charges FileStorage's
// client buffer (models/client.FileStorageCost) as host work, which the
// timing band lets a loaded machine stretch; a setup without it has none.
func TestHostWorkFileStorage(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scenario, version string
		setup, host       float64
	}{
		{"io/ssd-offload-carryover-duplicate-bucket", "0.3.11.post1", 885, 840},
		{"io/happy-path", "0.3.11.post1", 45, 0},
	} {
		scs, err := scenarios.Resolve(cat, []string{c.scenario})
		if err != nil {
			t.Fatal(err)
		}
		r := scenarios.RunVersion(context.Background(), scs[0], sim.New(), c.version, scenarios.Options{Seed: 1})
		if r.Verdict != scenarios.Pass {
			t.Fatalf("%s @%s: %s %s", c.scenario, c.version, r.Verdict, r.Reason)
		}
		if got, host := r.Observed.TimingsMS["setup"], r.Observed.HostMS["setup"]; got != c.setup || host != c.host {
			t.Errorf("%s @%s: setup %v ms with %v of host work, want %v and %v", c.scenario, c.version, got, host, c.setup, c.host)
		}
	}
}
