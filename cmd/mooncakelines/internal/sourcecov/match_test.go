package sourcecov

import (
	"strings"
	"testing"
)

func TestFraction(t *testing.T) {
	m, err := NewModel([]string{
		"Failed to connect to %s, retry later",
		"Segment %s not found",
		"connection refused by peer",
		"timeout",
		"%s: %v", // no words of its own: not a template
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text string
		frac       float64 // matched letters and digits / all of them
		status     Status
	}{
		// Both pieces are inside a Go literal: 22/22.
		{"pieces inside a literal", "Failed to connect to \x01, retry", 1, Covered},
		// "Segment" by its piece, "not found" by the template; "in pool" not: 15/21.
		{"template", "Segment \x01 not found in pool", 15.0 / 21, Partial},
		// The Go literal (26 runes) inside the text: 23 of 26 (RPC not).
		{"literal inside the text", "RPC: connection refused by peer", 23.0 / 26, Covered},
		// "timeout" is shorter than 10 runes: it matches nothing.
		{"short literal", "Operation timeout", 0, None},
		// Pieces split at fmt-style "{}" too: "Segment" 7 of 14.
		{"braces", "Segment {} missing", 0.5, Partial},
		// A piece marks its first occurrence only (as the survey did).
		{"first occurrence", "retry later \x01 retry later", 0.5, Partial},
		// A template's verb stands for at most 120 runes.
		{"gap of 120", "Segment " + strings.Repeat("-", 120) + " not found", 1, Covered},
		{"gap of 121", "Segment " + strings.Repeat("-", 121) + " not found", 0, None},
	} {
		frac, ok := m.Fraction(c.text)
		if !ok || frac != c.frac || Classify(frac) != c.status {
			t.Errorf("%s: Fraction(%q) = %v, %v (%s), want %v (%s)", c.name, c.text, frac, ok, Classify(frac), c.frac, c.status)
		}
	}
	for _, text := range []string{"\x01: \x01", "abc", ""} {
		if frac, ok := m.Fraction(text); ok {
			t.Errorf("Fraction(%q) = %v, counted; want not counted (fewer than 4 letters and digits)", text, frac)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		frac float64
		want Status
	}{{1, Covered}, {0.8, Covered}, {0.79, Partial}, {0.4, Partial}, {0.39, None}, {0, None}} {
		if have := Classify(c.frac); have != c.want {
			t.Errorf("Classify(%v) = %s, want %s", c.frac, have, c.want)
		}
	}
}
