package master_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// A put the master cannot place, in each release's words (master_service.cpp
// and rpc_service.cpp at the tags; real 0.3.4, 0.3.6.post1, 0.3.7.post2,
// 0.3.9, 0.3.13.post1, 0.3.14: docs/REAL-FINDINGS.md §39).
func TestNoSpaceLines(t *testing.T) {
	const helper = " due to insufficient space. Consider lowering eviction_high_watermark_ratio or mounting more segments."
	cases := []struct {
		version string
		single  []string // a single put with no segment at all
		batch   []string // a batch of three keys, the last two without room
	}{
		{"0.3.4",
			[]string{"ERROR key=k, replica_id=0, slice_index=0, error=allocation_failed"},
			[]string{"ERROR key=b1, replica_id=0, slice_index=0, error=allocation_failed", "ERROR key=b2, replica_id=0, slice_index=0, error=allocation_failed"}},
		{"0.3.6.post1",
			[]string{"ERROR Failed to allocate all replicas for key=k, error: NO_AVAILABLE_HANDLE"},
			// rpc_service.cpp v0.3.6.post1:345 logs every failed key of a
			// BatchPutStart (Profile.BatchPutKeyErrors).
			[]string{"ERROR Failed to allocate all replicas for key=b1, error: NO_AVAILABLE_HANDLE", "ERROR BatchPutStart failed for key[1] 'b1': NO_AVAILABLE_HANDLE",
				"ERROR Failed to allocate all replicas for key=b2, error: NO_AVAILABLE_HANDLE", "ERROR BatchPutStart failed for key[2] 'b2': NO_AVAILABLE_HANDLE"}},
		{"0.3.7.post2", nil, []string{"WARNING BatchPutStart failed for 2 keys" + helper}},
		{"0.3.14", nil, []string{"WARNING BatchPutStart failed for 2 keys" + helper}},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			cfg := configAt(t, tc.version, nil)
			var lines []string
			m := master.New(cfg, &clock{}, mlog.Func(func(level, text string) {
				if level != mlog.Info {
					lines = append(lines, level+" "+text)
				}
			}), rng.Stream(1, "master"))
			if _, err := m.PutStart(ctx, "k", 10, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
				t.Fatalf("single put: %v, want NO_AVAILABLE_HANDLE", err)
			}
			if !slices.Equal(lines, tc.single) {
				t.Fatalf("single put lines %q, want %q", lines, tc.single)
			}
			lines = nil
			if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, master.UUID{Lo: 1}); err != nil {
				t.Fatal(err)
			}
			keys := []string{"b0", "b1", "b2"}
			bctx := master.WithBatch(ctx, keys)
			var got []error
			for _, k := range keys {
				_, err := m.PutStart(bctx, k, 60, master.ReplicateConfig{ReplicaNum: 1})
				got = append(got, err)
			}
			if got[0] != nil || !errors.Is(got[1], mooncake.NO_AVAILABLE_HANDLE) || !errors.Is(got[2], mooncake.NO_AVAILABLE_HANDLE) {
				t.Fatalf("batch results %v, want [nil NO_AVAILABLE_HANDLE NO_AVAILABLE_HANDLE]", got)
			}
			if !slices.Equal(lines, tc.batch) {
				t.Fatalf("batch lines %q, want %q", lines, tc.batch)
			}
		})
	}
}

// The fake engine's wire carries a key's place in its batch: the master
// counts the batch's failures from it as from the batch itself.
func TestBatchPosOf(t *testing.T) {
	ctx := context.Background()
	if _, ok := master.BatchPosOf(ctx, "a"); ok {
		t.Fatal("outside a batch")
	}
	p, ok := master.BatchPosOf(master.WithBatch(ctx, []string{"a", "b"}), "b")
	if !ok || p.Index != 1 || p.N != 2 || p.ID != "2\x00a" {
		t.Fatalf("from a batch: %+v %v", p, ok)
	}
	q, ok := master.BatchPosOf(master.WithBatchPos(ctx, p), "ignored")
	if !ok || q != p {
		t.Fatalf("from the wire: %+v %v, want %+v", q, ok, p)
	}
}

// Real places a batch's keys in one BatchPutStart: the eviction its first
// failure asks for cannot run before the batch's last key, even when
// another RPC (a ping) reaches the model's master between two keys.
func TestNoEvictionInsideABatch(t *testing.T) {
	ctx := context.Background()
	m, c := newMaster(t, "0.3.13.post1", nil)
	id := master.UUID{Lo: 1}
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, id); err != nil {
		t.Fatal(err)
	}
	keys := []string{"b0", "b1", "b2"}
	bctx := master.WithBatch(ctx, keys)
	if _, err := m.PutStart(bctx, "b0", 60, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
		t.Fatal(err)
	}
	if err := m.PutEnd(bctx, "b0"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PutStart(bctx, "b1", 60, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
		t.Fatalf("b1: %v", err)
	}
	c.now += 2 * master.EvictionPeriod
	if _, err := m.Ping(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PutStart(bctx, "b2", 60, master.ReplicateConfig{ReplicaNum: 1}); !errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
		t.Fatalf("b2: %v, want NO_AVAILABLE_HANDLE (b0 still there)", err)
	}
	// After the batch, the next tick evicts (b0 goes) and a put fits.
	c.now += 2 * master.EvictionPeriod
	if _, err := m.PutStart(ctx, "c", 60, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
		t.Fatalf("after the batch: %v", err)
	}
}
