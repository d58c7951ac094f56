package mooncake

import (
	"strings"
	"testing"
)

// knobsurface.txt reads back to itself, so -update and the reader agree.
func TestKnobSurfaceRoundTrip(t *testing.T) {
	s, err := ParseKnobSurface(surfaceText)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	for _, v := range s.versions {
		by[v] = KnobSurface(MustVersion(v))
	}
	if got := FormatKnobSurface(by); got != surfaceText {
		t.Errorf("FormatKnobSurface(ParseKnobSurface(knobsurface.txt)) differs from the file")
	}
	if len(s.versions) != 12 {
		t.Errorf("measured versions = %v, want the 12 with wheels", s.versions)
	}
}

func TestKnobSurfaceErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"MC_X 0.3.9\n", "knobsurface.txt:1: want NAME RANGES after a versions: line"},
		{"versions: 0.3.9 0.3.14\nMC_X 0.3.14..0.3.9\n", `knobsurface.txt:2: "0.3.14..0.3.9" is no range`},
		{"versions: 0.3.9\nMC_X 0.3.8\n", `knobsurface.txt:2: "0.3.8" is no range`},
	} {
		if _, err := ParseKnobSurface(c.text); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q…", c.text, err, c.want)
		}
	}
}

// Every name a measured wheel holds is in the table or in an area, and
// every area still holds an untabled name.
func TestKnobAreas(t *testing.T) {
	used := map[string]int{}
	untabled := map[string]bool{}
	for _, v := range MeasuredSurface() {
		for _, n := range KnobSurface(MustVersion(v)) {
			if _, ok := KnobByName(n); ok {
				continue
			}
			untabled[n] = true
			a, ok := AreaOf(n)
			if !ok {
				t.Errorf("Mooncake %s's wheel holds %s: neither in the knob table nor in an area of KnobAreas", v, n)
				continue
			}
			used[a.Area]++
		}
	}
	for _, a := range KnobAreas {
		if used[a.Area] == 0 {
			t.Errorf("area %q holds no untabled name: remove it", a.Area)
		}
	}
	t.Logf("%d untabled names in %d areas", len(untabled), len(KnobAreas))
}

// A tabled knob whose code a release's wheel was built without is not
// read there (the S3 backend at 0.3.12.post1, read at 0.3.13.post1).
func TestKnobNotInWheelIsNotRead(t *testing.T) {
	for _, c := range []struct {
		ver, name string
		read      bool
	}{
		{"0.3.12.post1", "MOONCAKE_AWS_CONNECT_TIMEOUT_MS", false},
		{"0.3.13.post1", "MOONCAKE_AWS_CONNECT_TIMEOUT_MS", true},
		{"0.3.14", "MOONCAKE_AWS_CONNECT_TIMEOUT_MS", false},
		{"0.3.9", "MC_REDIS_PASSWORD", false},
		{"0.3.14", "MOONCAKE_AWS_USE_HTTPS", false},
		{"0.3.12.post1", "MC_EFA_CQ_THREADS", false},
		{"0.3.13.post1", "MC_EFA_CQ_THREADS", true},
		{"0.3.12.post1", "WITH_NVIDIA_PEERMEM", true},       // Build cuda: the non-CUDA wheel was measured
		{"0.3.12", "MOONCAKE_AWS_CONNECT_TIMEOUT_MS", true}, // not measured: the rule alone
	} {
		if got := ParseKnob(MustVersion(c.ver), c.name, "10", true).Read; got != c.read {
			t.Errorf("%s %s read = %v, want %v", c.ver, c.name, got, c.read)
		}
	}
}
