package explore

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// Per-call times are named in the reason (the seed-2005 report said only
// "main:  | remedy: "), judged against the second engine's within
// scenarios.TimingTolerance; host costs stay exempt.
func TestDivergesNamesCallTimings(t *testing.T) {
	phase := func(setupMS float64, logs ...string) scenarios.Observed {
		return scenarios.Observed{
			Exception:  &scenarios.Exception{Class: "RuntimeError", Message: "Failed to setup Mooncake store, error code: -600"},
			Calls:      []scenarios.Call{{Method: "setup", Code: -600, MS: setupMS}},
			Logs:       logs,
			DurationMS: setupMS,
			TimingsMS:  map[string]float64{"setup": setupMS},
		}
	}
	res := func(eng string, o scenarios.Observed) scenarios.Result {
		return scenarios.Result{Scenario: "s", Engine: eng, MooncakeVersion: "0.3.10.post1", Verdict: scenarios.Pass, Observed: o}
	}
	// Against a scaled wall engine (fake at 0.02) WallJitter/0.02 = 12.5 s of
	// slack comes on top; a missing 30 s timeout still shows.
	for _, tc := range []struct {
		name     string
		other    string
		scale    float64
		sim, obs scenarios.Observed
		want     string
	}{
		{"a 1 s thread join sim has and real has not", "real", 1, phase(1011), phase(63), "main: timing setup sim=1011ms real=63ms"},
		{"within 0.3 s", "real", 1, phase(1011), phase(800), ""},
		{"a host cost", "real", 1, phase(45), phase(1825, "AlignedClientBufferAllocator: allocated 1342177280 bytes"), ""},
		{"33 ms of wall jitter", "fake", 0.02, phase(45), phase(1710), ""},
		{"238 ms of wall jitter on a 4.4 s phase", "fake", 0.02, phase(4376), phase(16300), ""},
		{"a 30 s timeout sim lacks", "fake", 0.02, phase(45), phase(30045), "main: duration sim=0.0s fake=30.0s; timing setup sim=45ms fake=30045ms"},
	} {
		if got := DivergesAt(res("sim", tc.sim), res(tc.other, tc.obs), tc.scale); got != tc.want {
			t.Errorf("%s: DivergesAt = %q, want %q", tc.name, got, tc.want)
		}
	}
}
