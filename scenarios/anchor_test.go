package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/sim"
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
		{"later", `a.yaml:4:5: faults: after "later": want "step N" (N = a main-phase step, from 1) or "call M" (M = a Mooncake method: ` +
			`setup, setup_dummy, register_buffer, put, get, is_exist, batch_put_from, batch_get_into, batch_is_exist, health_check)`},
		{"call sput", `a.yaml:4:5: faults: after "call sput": no Mooncake method "sput"; anchors: ` +
			`setup, setup_dummy, register_buffer, put, get, is_exist, batch_put_from, batch_get_into, batch_is_exist, health_check`},
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
			`f.yaml:2:10: unknown step action "int" (did you mean "init"?); valid actions: init, sleep, set, get, exists, health_check, call, put, fetch, te, bench`},
		{"name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true, raise: {class: E}}\n",
			`f.yaml:3:20: expect: unknown key "raise" (did you mean "raises"?); valid keys: codes, dies, duration, invariants, logs, no_logs, ok, raises, within`},
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

// A fault anchored to a call is armed once, when the main phase's first
// return of that call is seen, inside the init step: here the master goes
// down right after setup, so SGLang's warmup put (in the same init) fails.
func TestCallAnchoredFaultArmsAtFirstReturn(t *testing.T) {
	y := `name: t/call
config: {env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp}}
faults:
  - {after: call setup, at: 0s, kind: master-down, mode: refuse}
steps:
  - init: tp0
expect: {raises: {class: RuntimeError}}
`
	sc, err := Parse("c.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	r := RunVersion(context.Background(), sc, sim.New(), "0.3.13.post1", Options{Seed: 1})
	if r.Verdict != Pass {
		t.Fatalf("%s: %s", r.Verdict, r.Reason)
	}
	var setupAt, anchorAt time.Duration = -1, -1
	anchors := 0
	for _, e := range r.Trace.Events() {
		if e.Kind == "return" && strings.HasPrefix(e.Text, "setup -> ") && setupAt < 0 {
			setupAt = e.At
		}
		if e.Kind == "anchor" {
			anchors++
			anchorAt = e.At
			if e.Text != "arm 1 fault(s) after call setup" {
				t.Errorf("anchor line %q", e.Text)
			}
		}
	}
	if anchors != 1 || anchorAt != setupAt || setupAt < 0 {
		t.Fatalf("%d anchors at %s, setup returned at %s", anchors, anchorAt, setupAt)
	}
	if got := fmt.Sprint(r.Observed.Codes()["setup"]); got != "0" {
		t.Errorf("setup codes %s, want 0: the fault came after it", got)
	}
	if r.Observed.Exception == nil || !strings.Contains(r.Observed.Exception.Message, "Warmup put failed") {
		t.Errorf("exception %+v, want the warmup's", r.Observed.Exception)
	}
}
