package scenarios_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestPDSendFailedLines: a failed te transfer with pd: true prints what
// real SGLang 0.5.14 … 0.5.23's PD side prints (docs/REAL-FINDINGS.md
// §74): the prefill's "Session S failed." (ERROR) and its request's
// KVTransferError (WARNING), and the decode's (ERROR) unless it is paused.
func TestPDSendFailedLines(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scenario, version string
		want              []string
		not               string
	}{
		{"io/te-tcp-gpu-memory", "0.3.5", []string{
			"ERROR Session 127.0.0.1:15090 failed.",
			"WARNING Prefill transfer failed for request rank=0 req.rid='5f2c1e9a0d8b4c7e9a1f3b6d2e4c8a01' req.bootstrap_room=4242 with exception KVTransferError(bootstrap_room=4242): Failed to send kv chunk of 4242 to 127.0.0.1:36565",
			"ERROR Decode transfer failed for request rank=0 decode_req.req.rid='8b3d2f6e1a9c4d5b8e7f0a2c4b6d8e13' decode_req.req.bootstrap_room=4242 with exception KVTransferError(bootstrap_room=4242): Failed to get kvcache from prefill instance, it might be dead",
		}, ""},
		{"io/te-sync-transfer-timeout", "0.3.9", []string{
			"ERROR Session 127.0.0.1:15090 failed.",
			"WARNING Prefill transfer failed for request rank=0 req.rid='5f2c1e9a0d8b4c7e9a1f3b6d2e4c8a01' req.bootstrap_room=4242 with exception KVTransferError(bootstrap_room=4242): Failed to send kv chunk of 4242 to 127.0.0.1:36565",
		}, "Decode transfer failed"},
	} {
		scs, err := scenarios.Resolve(cat, []string{c.scenario})
		if err != nil {
			t.Fatal(err)
		}
		r := scenarios.RunVersion(context.Background(), scs[0], sim.New(), c.version, scenarios.Options{Seed: 1})
		if r.Verdict != scenarios.Pass {
			t.Fatalf("%s: %s %s", c.scenario, r.Verdict, r.Reason)
		}
		var got []string
		for _, e := range r.Trace.Events() {
			if e.Kind == "log" && e.Source == "sglang" {
				got = append(got, e.Level+" "+e.Text)
			}
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no line %q in SGLang's %q", c.scenario, w, got)
			}
		}
		if c.not != "" && slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, c.not) }) {
			t.Errorf("%s: the paused decode logged %q: %q", c.scenario, c.not, got)
		}
	}
}
