package scenarios

import (
	"slices"
	"testing"
)

func TestTimingDiffs(t *testing.T) {
	real := map[string]float64{"setup": 10000, "put": 2, "register_buffer": 0.3, "get": 3000, "setup_dummy": 423, "is_exist": 1200}
	sim := map[string]float64{"setup": 10999, "put": 0, "register_buffer": 301, "get": 1500, "health_check": 5, "setup_dummy": 45, "is_exist": 300}
	// setup: real 999 ms early on 10 s is inside 10 %; put: inside 0.3 s;
	// register_buffer: real 300.7 ms early, outside 0.3 s; get: real 1.5 s
	// late, outside 0.3 s + 25 % of 1.5 s + 0.5 s; setup_dummy: 378 ms
	// late (a loaded CI run), inside 0.3 s + 11 ms + 0.5 s; is_exist: 900 ms
	// late, outside 0.3 s + 75 ms + 0.5 s; health_check: only one side.
	if got := TimingDiffs(real, sim, nil, nil, nil); !slices.Equal(got, []string{"get", "is_exist", "register_buffer"}) {
		t.Fatalf("got %q", got)
	}
	// Each call has its own CPU work: in two calls is_exist's 900 ms is
	// inside 0.3 s + 75 ms + 1 s and get's 1.5 s inside 0.3 s + 375 ms +
	// 1 s; register_buffer early stays outside, whatever the calls.
	if got := TimingDiffs(real, sim, map[string]int{"is_exist": 2, "get": 2, "register_buffer": 9}, nil, nil); !slices.Equal(got, []string{"register_buffer"}) {
		t.Fatalf("two calls: got %q", got)
	}
	if got := TimingDiffs(real, real, nil, nil, nil); got != nil {
		t.Fatalf("self: %q", got)
	}
	// A racy wait the model took whole may end early on real: 20 listener
	// joins of 1 s (setup/efa-transport-not-built @0.3.14: sim 22200 ms,
	// real 19738 ms under CI load) let real come in 10 % + 20 s earlier,
	// and no later than without them (30470 ms); without them, real is
	// outside the band.
	sim2, real2 := map[string]float64{"setup": 22200}, map[string]float64{"setup": 19738}
	if got := TimingDiffs(real2, sim2, nil, nil, nil); !slices.Equal(got, []string{"setup"}) {
		t.Fatalf("no racy time: got %q", got)
	}
	if got := TimingDiffs(real2, sim2, nil, map[string]float64{"setup": 20000}, nil); got != nil {
		t.Fatalf("racy: got %q", got)
	}
	if got := TimingDiffs(map[string]float64{"setup": 31000}, sim2, nil, map[string]float64{"setup": 20000}, nil); !slices.Equal(got, []string{"setup"}) {
		t.Fatalf("racy, real late: got %q", got)
	}
	// Host work stretches on a loaded machine as CPU work does: FileStorage's
	// buffer (840 ms of host work in a setup of 885 ms on the model) took
	// 2195 ms on a fresh .ci/run; the band is then 885 + 300 + 221 + 840 +
	// 500 ms (2746), and without the host work real is outside it (1906).
	sim3, real3 := map[string]float64{"setup": 885}, map[string]float64{"setup": 2195}
	if got := TimingDiffs(real3, sim3, nil, nil, nil); !slices.Equal(got, []string{"setup"}) {
		t.Fatalf("no host work: got %q", got)
	}
	if got := TimingDiffs(real3, sim3, nil, nil, map[string]float64{"setup": 840}); got != nil {
		t.Fatalf("host work: got %q", got)
	}
	// Host work makes no room for real to come in early.
	if got := TimingDiffs(map[string]float64{"setup": 45}, sim3, nil, nil, map[string]float64{"setup": 840}); !slices.Equal(got, []string{"setup"}) {
		t.Fatalf("host work, real early: got %q", got)
	}
}

func TestCallCounts(t *testing.T) {
	got := CallCounts([]Call{{Method: "put"}, {Method: "get"}, {Method: "put"}})
	if len(got) != 2 || got["put"] != 2 || got["get"] != 1 {
		t.Fatalf("got %v", got)
	}
}

func TestTimingsSumsPerMethod(t *testing.T) {
	calls := []Call{{Method: "put", MS: 1.5}, {Method: "put", MS: 1000.25, RacyMS: 1000}, {Method: "setup", MS: 4266}}
	got := timings(calls, func(c Call) float64 { return c.MS })
	if len(got) != 2 || got["put"] != 1001.75 || got["setup"] != 4266 {
		t.Fatalf("got %v", got)
	}
	racyTimings := func(calls []Call) map[string]float64 {
		return accountTimings(calls, func(c Call) float64 { return c.RacyMS })
	}
	if racy := racyTimings(calls); len(racy) != 1 || racy["put"] != 1000 {
		t.Fatalf("racy: got %v", racy)
	}
	if timings(nil, nil) != nil || racyTimings(calls[:1]) != nil {
		t.Fatal("no calls, no racy time: want nil")
	}
}
