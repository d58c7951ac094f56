package scenarios_test

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func TestBand(t *testing.T) {
	wall, virtual := scenarios.Band{Wall: true}, scenarios.Band{}
	for _, c := range []struct {
		band     scenarios.Band
		d        time.Duration
		min, max time.Duration
	}{
		{virtual, 1200 * time.Millisecond, 1200 * time.Millisecond, 1200 * time.Millisecond},
		// 1.2 s + 25 % + 3 s of process start: the 1.217 s CI observed is inside.
		{wall, 1200 * time.Millisecond, 1150 * time.Millisecond, 4500 * time.Millisecond},
		{wall, 600 * time.Second, 600*time.Second - 50*time.Millisecond, 753 * time.Second},
		{wall, 20 * time.Millisecond, 0, 3025 * time.Millisecond},
		// fake at timeout scale 0.02: the wall allowances are 50× in Mooncake time.
		{scenarios.Band{Wall: true, Scale: 0.02}, 120 * time.Second, 117500 * time.Millisecond, 300 * time.Second},
	} {
		if got := c.band.Min(c.d); got != c.min {
			t.Errorf("%+v.Min(%s) = %s, want %s", c.band, c.d, got, c.min)
		}
		if got := c.band.Max(c.d); got != c.max {
			t.Errorf("%+v.Max(%s) = %s, want %s", c.band, c.d, got, c.max)
		}
	}
}

func TestCheckDurationBand(t *testing.T) {
	d := func(s string) *scenarios.Duration {
		x, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		v := scenarios.Duration(x)
		return &v
	}
	e := scenarios.Expect{Duration: &scenarios.DurRange{Min: d("950ms"), Max: d("1200ms")}}
	for _, c := range []struct {
		band scenarios.Band
		ms   float64
		want string
	}{
		{scenarios.Band{}, 1217, "expected duration <= 1.2s, observed 1.217s"},
		{scenarios.Band{Wall: true}, 1217, ""},
		{scenarios.Band{Wall: true}, 4500, ""},
		{scenarios.Band{Wall: true}, 4501, "expected duration <= 1.2s (wall-clock band 4.5s), observed 4.501s"},
		{scenarios.Band{Wall: true}, 899, "expected duration >= 950ms (wall-clock band 900ms), observed 899ms"},
		{scenarios.Band{Wall: true}, 900, ""},
		{scenarios.Band{}, 949, "expected duration >= 950ms, observed 949ms"},
	} {
		if got := scenarios.Check(e, scenarios.Observed{DurationMS: c.ms}, nil, c.band); got != c.want {
			t.Errorf("wall=%v %.0fms: got %q, want %q", c.band.Wall, c.ms, got, c.want)
		}
	}
}
