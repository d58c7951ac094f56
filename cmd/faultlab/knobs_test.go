package main

import (
	"encoding/json"
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
	// MC_MS_AUTO_DISC: two release ranges.
	if !strings.Contains(out, "<0.3.12") || !strings.Contains(out, ">=0.3.12") {
		t.Fatalf("MC_MS_AUTO_DISC's ranges missing:\n%s", out)
	}
}
