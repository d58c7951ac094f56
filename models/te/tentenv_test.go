package te_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestStoreTENTEnv: MC_USE_TENT set for the store on a wheel without TENT.
// Up to 0.3.11.post1 the store's InitTransferEngine skips every transport
// and the engine has no local segment descriptor; from 0.3.12 TCP is
// installed as without it (real 0.3.9 … 0.3.12.post1,
// setup/tent-env-without-tent-build).
func TestStoreTENTEnv(t *testing.T) {
	for _, c := range []struct {
		version string
		tent    bool
	}{{"0.3.9", true}, {"0.3.11.post1", true}, {"0.3.12.post1", false}} {
		p, err := mooncake.ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		var logs []string
		e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Env: map[string]string{"MC_USE_TENT": "1"},
			Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
		if err := e.InitStore(context.Background(), "127.0.0.1", te.P2PHandshake, "tcp", nil); err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		said := slices.Contains(logs, "Using TENT mode - transport configuration handled internally")
		if said != c.tent || e.NoLocalSegmentDesc() != c.tent || (len(e.Transports()) == 0) != c.tent {
			t.Errorf("%s: TENT line %v, no local descriptor %v, transports %v; want TENT mode %v\n%q", c.version, said, e.NoLocalSegmentDesc(), e.Transports(), c.tent, logs)
		}
	}
}
