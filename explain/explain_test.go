package explain_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// fieldLog is what an operator would paste: every log line of the run
// (SGLang's and Mooncake's, with levels) and the exception or the death.
func fieldLog(r scenarios.Result) string {
	var b strings.Builder
	for _, e := range r.Trace.Events() {
		if e.Kind == "phase" && e.Text == "remedy" {
			break // the remedy is the fix, not part of the field report
		}
		switch e.Kind {
		case "log":
			fmt.Fprintf(&b, "[2026-01-01 00:00:00] %s %s: %s\n", e.Level, e.Source, e.Text)
		}
	}
	if ex := r.Observed.Exception; ex != nil {
		fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"scheduler.py\", line 1\n%s: %s\n", ex.Class, ex.Message)
	}
	switch d := r.Observed.Died; {
	case d == nil:
	case d.Signal == "":
		// exit(): no fault handler runs, the launcher reports the status.
		fmt.Fprintf(&b, "scheduler exited with code %d\n", d.Exit)
	default:
		fmt.Fprintf(&b, "Fatal Python error: Segmentation fault\nscheduler exited with %s\n", d.Signal)
	}
	return b.String()
}

// TestEveryScenarioExplainsItsOwnLog runs every catalog scenario at each
// of its versions on sim and feeds its log to explain: the scenario must
// come first.
func TestEveryScenarioExplainsItsOwnLog(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	fps := map[string]explain.Fingerprints{}
	for _, sc := range cat {
		vs, _ := sc.Versions("")
		for _, v := range vs {
			if fps[v] == nil {
				fps[v] = explain.Fingerprint(context.Background(), cat, sim.New(), v)
			}
		}
	}
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name) || sc.HasLabel("container") {
			continue // real-only (the HA master pair) or container faults: sim has no fingerprint for it
		}
		for _, r := range scenarios.Run(context.Background(), sc, sim.New(), scenarios.Options{Seed: 1}) {
			if r.Verdict != scenarios.Pass {
				t.Errorf("%s @%s on sim: %s %s", r.Scenario, r.MooncakeVersion, r.Verdict, r.Reason)
				continue
			}
			n++
			res, err := explain.Explain(cat, fps[r.MooncakeVersion], fieldLog(r), r.MooncakeVersion)
			if err != nil {
				t.Fatal(err)
			}
			// Right: first, or tied with the first on the same evidence
			// (then the output says the log cannot tell them apart).
			rank := -1
			for i, c := range res.Candidates {
				if c.Scenario == sc.Name {
					rank = i
				}
			}
			for rank > 0 && res.Candidates[rank].Tied {
				rank--
			}
			if rank != 0 {
				var got []string
				for _, c := range res.Candidates {
					got = append(got, fmt.Sprintf("%s(score %.2f bad-free %v, model %q)", c.Scenario, c.Score, c.Contradicting, c.ModelLogs))
				}
				t.Errorf("%s @%s: candidates %v", sc.Name, r.MooncakeVersion, got)
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d runs checked", n)
	}
}

// The example: -1 at 0.3.13.post1 with "Failed to set location of"
// is the metadata server, not the master.
func TestMetadataServerExample(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	log := "E1130 transfer_metadata.cpp:123] Failed to set location of segment localhost:12345\n" +
		"RuntimeError: Failed to setup Mooncake store, error code: -1\n"
	res, err := explain.Explain(cat, explain.Fingerprint(context.Background(), cat, sim.New(), "0.3.14"), log, "0.3.14")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) < 2 || res.Candidates[0].Scenario != "setup/http-metadata-unreachable" {
		t.Fatalf("%+v", res.Candidates)
	}
	c := res.Candidates[0]
	if c.MatchedLogs[0] != "Failed to set location of" || !strings.HasPrefix(c.Remedy, "start the metadata service") {
		t.Fatalf("%+v", c)
	}
	// Every candidate ends in the same message.
	for _, c := range res.Candidates {
		if c.Outcome != "RuntimeError: Failed to setup Mooncake store, error code: -1" {
			t.Errorf("%s: outcome %q", c.Scenario, c.Outcome)
		}
	}
}
