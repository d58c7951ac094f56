package master_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
)

// Up to 0.3.5 the client monitor runs, and a mount starts timing its
// client, only in HA mode (master_service.cpp v0.3.4.post2:41, 73-91): a
// client that never pings is expired client_ttl after its mount there,
// and kept without --enable_ha. The mount itself is logged from
// v0.3.8.post1 only.
func TestHAClientMonitorBeforeHeartbeat(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		version string
		flags   map[string]string
		want    []string
	}{
		{"0.3.4.post2", map[string]string{"enable_ha": "true"}, []string{
			"client_id=1-2, action=client_expired",
			"client_id=1-2, segment_name=h:1, action=unmount_expired_segment",
		}},
		{"0.3.4.post2", nil, nil},
		{"0.3.9", nil, []string{
			"client_id=1-2, action=mount_segment, segment_name=h:1",
			"client_id=1-2, action=client_expired",
			"client_id=1-2, segment_name=h:1, action=unmount_expired_segment",
		}},
	} {
		var logs []string
		clk := &clock{}
		cfg := configAt(t, c.version, c.flags)
		cfg.EnableMetricReporting = false // the lines under test only, no metrics summary
		m := master.New(cfg, clk, mlog.Func(func(_, text string) { logs = append(logs, text) }), rng.Stream(1, "master"))
		id := master.UUID{Hi: 1, Lo: 2}
		if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, id); err != nil {
			t.Fatal(err)
		}
		clk.now = 12 * time.Second
		names := m.SegmentNames()
		if !slices.Equal(logs, c.want) {
			t.Errorf("%s %v: logs %q, want %q", c.version, c.flags, logs, c.want)
		}
		if wantGone := len(c.want) > 0; (len(names) == 0) != wantGone {
			t.Errorf("%s %v: segments %q after 12 s", c.version, c.flags, names)
		}
	}
}

// stallClock is a clock whose process could not run for stalled
// (master.StallClock).
type stallClock struct {
	clock
	stalled time.Duration
}

func (c *stallClock) Stalled() time.Duration { return c.stalled }

// A stall of the process after a client's last ping extends its
// client_ttl by as much (the fake engine's harness pauses); without a
// stall the client expires client_ttl after it.
func TestClientTTLExtendedByStalls(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		stalled time.Duration
		at      time.Duration
		expired bool
	}{
		{0, 12 * time.Second, true},
		{5 * time.Second, 12 * time.Second, false},
		{5 * time.Second, 17 * time.Second, true},
	} {
		clk := &stallClock{}
		m := master.New(configAt(t, "0.3.9", nil), clk, mlog.Func(func(string, string) {}), rng.Stream(1, "master"))
		id := master.UUID{Hi: 1, Lo: 2}
		if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, id); err != nil {
			t.Fatal(err)
		}
		clk.stalled = c.stalled
		clk.now = c.at
		if gone := len(m.SegmentNames()) == 0; gone != c.expired {
			t.Errorf("stalled %s, at %s: expired %t, want %t", c.stalled, c.at, gone, c.expired)
		}
	}
}
