package scenarios

import (
	"slices"
	"testing"
)

func TestTimingDiffs(t *testing.T) {
	real := map[string]float64{"setup": 10000, "put": 2, "register_buffer": 0.3, "get": 3000}
	sim := map[string]float64{"setup": 10999, "put": 0, "register_buffer": 301, "get": 2650, "health_check": 5}
	// setup: 999 ms off 10 s is inside 10 %; put/register_buffer: inside
	// 0.3 s; get: 350 ms off 3 s is outside both; health_check: only one side.
	if got := TimingDiffs(real, sim); !slices.Equal(got, []string{"get", "register_buffer"}) {
		t.Fatalf("got %q", got)
	}
	if got := TimingDiffs(real, real); got != nil {
		t.Fatalf("self: %q", got)
	}
}

func TestTimingsSumsPerMethod(t *testing.T) {
	got := timings([]Call{{Method: "put", MS: 1.5}, {Method: "put", MS: 1000.25}, {Method: "setup", MS: 4266}})
	if len(got) != 2 || got["put"] != 1001.75 || got["setup"] != 4266 {
		t.Fatalf("got %v", got)
	}
	if timings(nil) != nil {
		t.Fatal("no calls: want nil")
	}
}
