package main

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func TestListKnobs(t *testing.T) {
	out, err := execute(t, "list", "--knobs", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ks []mooncake.Knob
	if err := json.Unmarshal([]byte(out), &ks); err != nil {
		t.Fatal(err)
	}
	if len(ks) != len(mooncake.Knobs) || ks[0].Name != "MC_MAX_MR_SIZE" || ks[0].Rules[0].Parse != mooncake.ParseUAtol {
		t.Fatalf("%d knobs, first %+v", len(ks), ks[0])
	}
	var not []struct {
		Name        string   `json:"name"`
		NotInWheels []string `json:"not_in_wheels"`
	}
	if err := json.Unmarshal([]byte(out), &not); err != nil {
		t.Fatal(err)
	}
	for _, k := range not {
		if k.Name == "MOONCAKE_AWS_S3_ENDPOINT" && !slices.Equal(k.NotInWheels, []string{"0.3.12.post1", "0.3.14"}) {
			t.Errorf("MOONCAKE_AWS_S3_ENDPOINT not_in_wheels = %v, want [0.3.12.post1 0.3.14]", k.NotInWheels)
		}
	}
	out, err = execute(t, "list", "--knobs")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rules := 0
	for _, k := range mooncake.Knobs {
		rules += len(k.Rules)
	}
	if len(lines) != 1+rules || !strings.HasPrefix(lines[0], "KNOB") {
		t.Fatalf("%d lines for %d rules:\n%s", len(lines), rules, out)
	}
	// The knob surface: the S3 backend's old names are in no 0.3.12.post1
	// or 0.3.14 wheel.
	for _, l := range lines {
		if strings.HasPrefix(l, "MOONCAKE_AWS_S3_ENDPOINT ") && !strings.Contains(l, "not in the wheel of 0.3.12.post1, 0.3.14; ") {
			t.Errorf("MOONCAKE_AWS_S3_ENDPOINT's line does not name the wheels without it: %s", l)
		}
	}
	// MC_MS_AUTO_DISC: two release ranges.
	if !strings.Contains(out, "<0.3.12") || !strings.Contains(out, ">=0.3.12") {
		t.Fatalf("MC_MS_AUTO_DISC's ranges missing:\n%s", out)
	}
}

func TestExploreCoverage(t *testing.T) {
	out, err := execute(t, "explore", "--coverage", "--seeds", "3000", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var c struct {
		Seeds   uint64                    `json:"seeds"`
		Counts  map[string]map[string]int `json:"counts"`
		Missing []string                  `json:"missing"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.Seeds != 3000 || len(c.Counts) != len(mooncake.Knobs) || len(c.Missing) != 0 || c.Counts["MC_MAX_MR_SIZE"]["invalid"] == 0 {
		t.Fatalf("coverage %+v", c)
	}
	// Too few seeds to draw everything: exit 1, and the missing pairs named.
	_, err = execute(t, "explore", "--coverage", "--seeds", "3")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "never drawn: ") {
		t.Fatalf("3 seeds: %v", err)
	}
	if _, err := execute(t, "explore", "--coverage"); err == nil {
		t.Fatal("--coverage without --seeds accepted")
	}
}

// The nightly fails when a knob of the table is never drawn: its recipe
// runs the coverage first, keeps going, and exits with what failed.
// (The coverage's own exit 1 is TestExploreCoverage's.)
func TestNightlyGatesOnKnobCoverage(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(mk), "\nnightly:")
	if !ok {
		t.Fatal("Makefile: no nightly target")
	}
	if i := strings.Index(recipe, "\n\n"); i >= 0 {
		recipe = recipe[:i]
	}
	var cov string
	for _, l := range strings.Split(recipe, "\n") {
		if strings.Contains(l, "explore --coverage") {
			cov = l
		}
	}
	if cov == "" || !strings.Contains(cov, "--seeds 3000") || !strings.Contains(cov, "|| rc=1") {
		t.Fatalf("nightly: the coverage line %q must draw 3000 seeds and set rc=1 on failure", cov)
	}
	if strings.Contains(cov, "--mooncake-version") || strings.Contains(cov, "--engine") {
		t.Fatalf("nightly: the coverage must draw every version (%q)", cov)
	}
	if !strings.Contains(recipe, "exit $$rc") {
		t.Fatal("nightly: the recipe does not exit with rc")
	}
	// A knob a draw cannot reach is named and fails the run (at 0.3.4 only,
	// the knobs read from later releases).
	_, err = execute(t, "explore", "--coverage", "--seeds", "300", "--mooncake-version", "0.3.4")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "put_start_discard_timeout_sec/valid") {
		t.Fatalf("coverage at 0.3.4: %v", err)
	}
}
