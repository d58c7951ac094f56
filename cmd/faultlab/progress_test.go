package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The progress line names the oldest run in flight with its elapsed time
// against its bound, and how many others run.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "line", 40)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.begin = t0
	p.done = 12
	sc := &scenarios.Scenario{Name: "setup/master-down-refused"}
	p.running[3] = inflight{name: scenarios.Job{Scenario: sc, Engine: sim.New(), Version: "0.3.13.post1"}.Name(), since: t0.Add(20 * time.Second), bound: 190 * time.Second}
	p.running[5] = inflight{name: "later", since: t0.Add(50 * time.Second), bound: time.Minute}
	got := p.lineLocked(t0.Add(65 * time.Second))
	want := "[12/40 1m5s] setup/master-down-refused @0.3.13.post1 on sim 45s/3m10s (+1 running)"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// Not on a terminal, auto means a heartbeat every 30 s and nothing else.
func TestProgressModes(t *testing.T) {
	var buf bytes.Buffer
	if p := newProgress(&buf, "auto", 1); p.mode != "heartbeat" || p.every != 30*time.Second || p.after != 30*time.Second {
		t.Fatalf("%+v", p)
	}
	if p := newProgress(&buf, "none", 1); p.every != 0 {
		t.Fatalf("%+v", p)
	}
}
