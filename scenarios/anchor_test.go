package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/sim/client"
)

const anchored = `name: t/anchor
config: {env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp}}
faults:
  - {after: step 2, at: 1s, kind: master-down, mode: refuse}
steps:
  - init: tp0
  - sleep: 5s
  - sleep: 3s
  - set: {pages: [a, b], want: [false, false]}
expect: {ok: true}
`

// The anchored fault starts 1 s after step 2 returned, wherever that is
// on the world's clock.
func TestAnchoredFaultStartsAfterItsStep(t *testing.T) {
	sc, err := Parse("a.yaml", []byte(anchored))
	if err != nil {
		t.Fatal(err)
	}
	r := RunVersion(context.Background(), sc, sim.New(), "0.3.13.post1", Options{Seed: 1})
	if r.Verdict != Pass {
		t.Fatalf("%s: %s", r.Verdict, r.Reason)
	}
	var anchor, start time.Duration = -1, -1
	for _, e := range r.Trace.Events() {
		if e.Kind == "anchor" {
			anchor = e.At
		}
		if e.Source == "fault" && strings.HasPrefix(e.Text, "start master-down") {
			start = e.At
		}
	}
	// init (a healthy setup() costs client.CreateCost + client.SetupCost of
	// virtual time) then sleep 5s: step 2 returns at 5 s after it.
	init := client.CreateCost + client.SetupCost
	if anchor != init+5*time.Second || start != init+6*time.Second {
		t.Fatalf("anchor at %s, fault at %s", anchor, start)
	}
}

func TestAnchorErrors(t *testing.T) {
	for _, tc := range []struct{ after, want string }{
		{"step 9", `a.yaml:4:5: faults: after "step 9": the main phase has steps 1 to 4`},
		{"later", `a.yaml:4:5: faults: after "later": want "step N" (N = a main-phase step, from 1)`},
		{"step 0", `a.yaml:4:5: faults: after "step 0": the main phase has steps 1 to 4`},
	} {
		_, err := Parse("a.yaml", []byte(strings.Replace(anchored, "step 2", tc.after, 1)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v", tc.after, err)
		}
	}
}

// Did-you-mean for keys, enum values and step actions.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct{ y, want string }{
		{"name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true}\ntopology: {metadata: htpp}\n",
			`f.yaml:4:22: topology.metadata: "htpp" is not one of P2PHANDSHAKE, http, master, etcd (did you mean "http"?)`},
		{"name: t/x\nsteps: [{int: tp0}]\nexpect: {ok: true}\n",
			`f.yaml:2:10: unknown step action "int" (did you mean "init"?); valid actions: init, sleep, set, get, exists, health_check`},
		{"name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true, raise: {class: E}}\n",
			`f.yaml:3:20: expect: unknown key "raise" (did you mean "raises"?); valid keys: codes, dies, duration, logs, no_logs, ok, raises, within`},
	} {
		_, err := Parse("f.yaml", []byte(tc.y))
		if err == nil || err.Error() != tc.want {
			t.Errorf("got  %v\nwant %s", err, tc.want)
		}
	}
	if Suggest("zzzzzz", []string{"init", "sleep"}) != "" {
		t.Error("far-off word got a suggestion")
	}
}
