package master_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Eviction starved by leases (io/eviction-starved-leases): every object is
// leased, a put fails for space, and the eviction pass it asks for takes
// nothing; from v0.3.10.post1 the pass is logged, from v0.3.12 with its
// result (master_service.cpp EvictionThreadFunc, BatchEvict; real
// 0.3.10.post1, 0.3.11.post1, 0.3.13.post1, 0.3.14). Once the leases run out the next
// pass takes one object.
func TestEvictionStarvedByLeases(t *testing.T) {
	const trigger, done = "[EVICT-TRIGGER] memory_ratio=0.9 high_watermark=0.95 need_mem_eviction=1 eviction_ratio=0.05", "[EVICT-DONE] BatchEvict execution completed."
	cases := []struct {
		version string
		lines   []string // the passes while every object is leased
	}{
		{"0.3.9", nil},
		{"0.3.10.post1", []string{strings.Replace(trigger, "need_mem_eviction", "need_eviction", 1), done}},
		{"0.3.11.post1", []string{trigger, done}},
		{"0.3.13.post1", []string{trigger, "[EVICT-RESULT] evicted_count=0, eviction_base=3, actual_evict_ratio=0, target_evict_ratio=0.05", done}},
		{"0.3.14", []string{trigger, "[EVICT-RESULT] evicted_count=0, eviction_base=3, actual_evict_ratio=0", done}},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			cfg := configAt(t, tc.version, map[string]string{"default_kv_lease_ttl": "60000", "eviction_high_watermark_ratio": "0.95", "client_ttl": "600"})
			var lines []string
			c := &clock{}
			m := master.New(cfg, c, mlog.Func(func(_, text string) {
				if strings.HasPrefix(text, "[EVICT-") {
					lines = append(lines, text)
				}
			}), rng.Stream(1, "master"))
			if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, master.UUID{Lo: 1}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"a", "b", "c"} {
				if _, err := m.PutStart(ctx, k, 30, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
					t.Fatal(err)
				}
				if err := m.PutEnd(ctx, k); err != nil {
					t.Fatal(err)
				}
				if _, err := m.GetReplicaList(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := m.PutStart(ctx, "d", 30, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
				t.Fatalf("put d: %v, want NO_AVAILABLE_HANDLE", err)
			}
			c.now += time.Second
			if _, err := m.PutStart(ctx, "d", 30, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
				t.Fatalf("put d while leased: %v, want NO_AVAILABLE_HANDLE", err)
			}
			if !slices.Equal(lines, tc.lines) {
				t.Fatalf("passes %q, want %q", lines, tc.lines)
			}
			// The pass that found nothing keeps asking: once the leases
			// run out it takes one object without another failed put.
			c.now += time.Minute
			if _, err := m.PutStart(ctx, "d", 30, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
				t.Fatalf("put d after the leases: %v", err)
			}
			if m.Objects() != 3 {
				t.Fatalf("objects %d, want 3 (one evicted, d placed)", m.Objects())
			}
		})
	}
}
