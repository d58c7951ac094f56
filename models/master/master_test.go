package master_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

type clock struct{ now time.Duration }

func (c *clock) Now() time.Duration { return c.now }

func newMaster(t *testing.T, version string, flags map[string]string) (*master.Master, *clock) {
	t.Helper()
	c := &clock{}
	return master.New(configAt(t, version, flags), c, nil, rng.Stream(1, "master")), c
}

// configAt is the master's configuration at version with flags.
func configAt(t *testing.T, version string, flags map[string]string) master.Config {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := master.ConfigFor(p, flags)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestConfigFor(t *testing.T) {
	p, _ := mooncake.ProfileFor("0.3.9")
	c, err := master.ConfigFor(p, nil)
	if err != nil || c.DefaultKVLeaseTTL != 5*time.Second || c.EvictionHighWatermarkRatio != 0.95 || c.ClientTTL != 10*time.Second {
		t.Fatalf("0.3.9 defaults: %+v %v", c, err)
	}
	c, err = master.ConfigFor(p, map[string]string{"default_kv_lease_ttl": "500", "eviction_high_watermark_ratio": "0.5"})
	if err != nil || c.DefaultKVLeaseTTL != 500*time.Millisecond || c.EvictionHighWatermarkRatio != 0.5 {
		t.Fatalf("overrides: %+v %v", c, err)
	}
	if _, err := master.ConfigFor(p, map[string]string{"bogus": "1"}); err == nil || err.Error() != "mooncake_master: unknown command line flag 'bogus'" {
		t.Fatalf("unknown flag: %v", err)
	}
}

func TestSpaceAndEviction(t *testing.T) {
	ctx := context.Background()
	m, c := newMaster(t, "0.3.13.post1", nil)
	id := master.UUID{Hi: 1, Lo: 2}
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, id); err != nil {
		t.Fatal(err)
	}
	// Remounting the same segment is idempotent (SEGMENT_ALREADY_EXISTS → OK).
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100}, id); err != nil {
		t.Fatal(err)
	}
	put := func(k string, size int64) error {
		if _, err := m.PutStart(ctx, k, size, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
			return err
		}
		return m.PutEnd(ctx, k)
	}
	for _, k := range []string{"a", "b", "c"} {
		if err := put(k, 30); err != nil {
			t.Fatal(k, err)
		}
	}
	if err := put("d", 30); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
		t.Fatalf("d = %v, want NO_AVAILABLE_HANDLE", err)
	}
	if _, err := m.PutStart(ctx, "a", 30, master.ReplicateConfig{}); !errors.Is(err, mooncake.OBJECT_ALREADY_EXISTS) {
		t.Fatalf("a again = %v", err)
	}
	// "a" is leased by ExistKey; eviction takes the oldest unleased ("b").
	if ok, _ := m.ExistKey(ctx, "a"); !ok {
		t.Fatal("a missing")
	}
	c.now += 10 * time.Millisecond
	if err := put("d", 30); err != nil {
		t.Fatalf("after eviction: %v", err)
	}
	for k, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if ok, _ := m.ExistKey(ctx, k); ok != want {
			t.Errorf("ExistKey(%s) = %v, want %v", k, ok, want)
		}
	}
	if err := m.Remove(ctx, "c"); !errors.Is(err, mooncake.OBJECT_HAS_LEASE) {
		t.Fatalf("remove leased = %v", err)
	}
	c.now += 11 * time.Second
	// The client never pinged: client_ttl (10 s) expired, segment gone.
	if r, _ := m.Ping(ctx, id); r.Status != master.NeedRemount {
		t.Fatalf("ping after expiry = %v", r.Status)
	}
	if s := m.Stats(); s.Segments != 0 || s.Objects != 0 {
		t.Fatalf("stats after expiry: %+v", s)
	}
}

func TestCode(t *testing.T) {
	p12, _ := mooncake.ProfileFor("0.3.12")
	p9, _ := mooncake.ProfileFor("0.3.9")
	to := &master.RPCError{Kind: master.RequestTimeout}
	if master.Code(to, p12) != mooncake.RPC_TIMEOUT || master.Code(to, p9) != mooncake.RPC_FAIL {
		t.Fatal("timeout codes")
	}
	if master.Code(&master.RPCError{Kind: master.Refused}, p12) != mooncake.RPC_FAIL {
		t.Fatal("refused code")
	}
	if master.Code(mooncake.OBJECT_NOT_FOUND, p12) != mooncake.OBJECT_NOT_FOUND {
		t.Fatal("passthrough")
	}
}

// Only ReMountSegment makes a client OK (master_service.cpp, v0.3.9 …
// v0.3.12.post1): the first ping after a mount is NEED_REMOUNT; the remount
// of a segment already there logs segment_already_exists in both layers.
func TestFirstPingNeedsRemount(t *testing.T) {
	ctx := context.Background()
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	cfg, _ := master.ConfigFor(p, map[string]string{"enable_metric_reporting": "false"})
	var lines []string
	m := master.New(cfg, &clock{}, mlog.Func(func(level, text string) { lines = append(lines, level+" "+text) }), rng.Stream(1, "master"))
	id := master.UUID{Hi: 1, Lo: 2}
	seg := master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}
	if err := m.MountSegment(ctx, seg, id); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Ping(ctx, id); r.Status != master.NeedRemount {
		t.Fatalf("first ping = %v, want NEED_REMOUNT", r.Status)
	}
	for range 2 {
		if err := m.ReMountSegment(ctx, []master.Segment{seg}, id); err != nil {
			t.Fatal(err)
		}
	}
	if r, _ := m.Ping(ctx, id); r.Status != master.ClientOK {
		t.Fatalf("ping after remount = %v, want OK", r.Status)
	}
	want := []string{
		"INFO client_id=" + id.String() + ", action=mount_segment, segment_name=h:1",
		"WARNING segment_name=h:1, warn=segment_already_exists",
		"WARNING segment_name=h:1, warn=segment_already_exists",
		"WARNING client_id=" + id.String() + ", warn=client_already_remounted",
	}
	if len(lines) != len(want) {
		t.Fatalf("lines %q, want %q", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
	if s := m.Stats(); s.Segments != 1 || s.Clients != 1 {
		t.Fatalf("stats: %+v", s)
	}
}

// --default_kv_lease_ttl as each release parses it: a uint64 of
// milliseconds up to 0.3.10 ("5s" is fatal: real 0.3.9), a duration from
// 0.3.10.post1 ("5sec" is fatal: real 0.3.11.post1 and 0.3.13.post1).
func TestLeaseTTLFlagByVersion(t *testing.T) {
	for _, c := range []struct {
		version, value string
		want           time.Duration
		err            string
	}{
		{"0.3.9", "5000", 5 * time.Second, ""},
		{"0.3.9", "5s", 0, "mooncake_master exited (exit status 1): ERROR: illegal value '5s' specified for uint64 flag 'default_kv_lease_ttl'"},
		{"0.3.10", "5s", 0, "mooncake_master exited (exit status 1): ERROR: illegal value '5s' specified for uint64 flag 'default_kv_lease_ttl'"},
		{"0.3.10.post1", "5s", 5 * time.Second, ""},
		{"0.3.13.post1", "2m", 2 * time.Minute, ""},
		{"0.3.11.post1", "5sec", 0, "mooncake_master exited (exit status 1): Invalid value for --default_kv_lease_ttl: 5sec. unsupported duration unit 'sec'; supported units are ms, s, m, and h ERROR: failed validation of new value '5sec' for flag 'default_kv_lease_ttl'"},
	} {
		c2, err := master.ConfigFor(mooncake.MustProfile(c.version), map[string]string{"default_kv_lease_ttl": c.value})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err || (err == nil && c2.DefaultKVLeaseTTL != c.want) {
			t.Errorf("%s %q: ttl %v err %q, want %v %q", c.version, c.value, c2.DefaultKVLeaseTTL, got, c.want, c.err)
		}
	}
}
