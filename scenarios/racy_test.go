package scenarios_test

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestModelAccounts: the model charges a call's waits to its accounts
// (engine.Account). A failed Client::Create that joins the P2P handshake
// listener (no ping thread, from 0.3.11) waits out the listener's accept()
// in the model, 1 s, which real cuts short by a race: racy time of the
// call it was in, and only there (the remedy's good setup has none). A
// setup with SSD offload charges FileStorage's client buffer
// (models/client.FileStorageCost) as host work, which a loaded machine
// stretches; a setup without it has none.
func TestModelAccounts(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scenario, version string
		setup, racy, host float64
	}{
		{"setup/efa-transport-not-built", "0.3.14", 22200, 20000, 0},
		{"setup/roce-no-suitable-gid", "0.3.14", 22200, 20000, 0},
		// 0.3.9: the ping thread is joined instead, not a race.
		{"setup/efa-transport-not-built", "0.3.9", 22220, 0, 0},
		{"io/ssd-offload-carryover-duplicate-bucket", "0.3.11.post1", 885, 0, 840},
		{"io/happy-path", "0.3.11.post1", 45, 0, 0},
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
		if racy, host := r.Observed.RacyMS["setup"], r.Observed.HostMS["setup"]; racy != c.racy || host != c.host {
			t.Errorf("%s @%s: racy %v ms and host work %v, want %v and %v", c.scenario, c.version, racy, host, c.racy, c.host)
		}
		if r.Remedy != nil && r.Remedy.RacyMS != nil {
			t.Errorf("%s @%s: remedy racy %v", c.scenario, c.version, r.Remedy.RacyMS)
		}
	}
}
