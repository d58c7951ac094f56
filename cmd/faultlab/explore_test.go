package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explore"
)

// explore shards on the command line, merged by `faultlab merge`, report
// the unsharded run's runs and generated hash; the JSON carries the
// contract's fields; exit status 0 when nothing was found.
func TestExploreShardsAndMerge(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	if out, err := execute(t, "explore", "--seeds", "40", "--seed", "11", "--corpus", "", "--report", whole); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var parts []string
	for _, s := range []string{"0/2", "1/2"} {
		p := filepath.Join(dir, strings.Replace(s, "/", "of", 1)+".json")
		if out, err := execute(t, "explore", "--seeds", "40", "--seed", "11", "--shard", s, "--corpus", "", "--report", p, "--junit", p+".xml"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		parts = append(parts, p)
	}
	out, err := execute(t, append([]string{"merge", "--json"}, parts...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var m, w map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(whole)
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	ms, ws := m["summary"].(map[string]any), w["summary"].(map[string]any)
	for _, k := range []string{"runs", "errors", "violations", "divergences", "runs_per_s", "generated_hash"} {
		if _, ok := ms[k]; !ok {
			t.Errorf("merged summary lacks %q", k)
		}
	}
	if ms["runs"] != float64(40) || ms["generated_hash"] != ws["generated_hash"] {
		t.Fatalf("merged %v %v, whole %v %v", ms["runs"], ms["generated_hash"], ws["runs"], ws["generated_hash"])
	}
	if _, ok := m["findings"].([]any); !ok {
		t.Fatalf("findings is not a list: %v", m["findings"])
	}
	x, _ := os.ReadFile(parts[0] + ".xml")
	if !strings.Contains(string(x), `<testsuite name="faultlab explore" tests="20"`) {
		t.Fatalf("junit:\n%s", x)
	}
}

func TestExploreExitsOneOnFindings(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	f := explore.Finding{Seed: 3, Kind: explore.KindViolation, Invariant: explore.InvData, Signature: "x"}
	r := explore.Report{Summary: explore.Summary{Runs: 1, Violations: 1, GeneratedHash: "sha256:" + strings.Repeat("0", 64)}, Findings: []explore.Finding{f}}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := execute(t, "merge", p); !errors.Is(err, errVerdict) || exitCode(err) != exitFail {
		t.Fatalf("merge of a report with a finding: %v (exit %d)", err, exitCode(err))
	}
}

func TestExploreBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--seeds", "5", "--shard", "2/2"}, `--shard "2/2": want K/N with 0 <= K < N, 0-based`},
		{[]string{"explore"}, "give --seeds N or --time-budget D"},
		{[]string{"explore", "--seeds", "5", "--engine", "real,sim"}, "the first engine is the model and must be sim"},
		{[]string{"explore", "--seeds", "5", "--mooncake-version", "9.9"}, "--mooncake-version"},
	} {
		_, err := execute(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
		if exitCode(err) != exitUsage {
			t.Errorf("%v: exit %d, want %d (usage)", c.args, exitCode(err), exitUsage)
		}
	}
}
