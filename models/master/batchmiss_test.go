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

// A read of keys the master does not have: a single read is silent at
// every release; a batch read's missing key is an ERROR from 0.3.5 to
// 0.3.6.post1 (rpc_service.cpp v0.3.6.post1:265) and VLOG from 0.3.7
// (real 0.3.6.post1, 0.3.7.post2, 0.3.14: docs/REAL-FINDINGS.md §67).
func TestBatchGetMissLines(t *testing.T) {
	cases := []struct {
		version string
		batch   []string
	}{
		{"0.3.4.post2", nil},
		{"0.3.5", []string{"ERROR BatchGetReplicaList failed for key[1] 'm1': OBJECT_NOT_FOUND"}},
		{"0.3.6.post1", []string{"ERROR BatchGetReplicaList failed for key[1] 'm1': OBJECT_NOT_FOUND"}},
		{"0.3.7.post2", nil},
		{"0.3.14", nil},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			var lines []string
			m := master.New(configAt(t, tc.version, nil), &clock{}, mlog.Func(func(level, text string) {
				if level != mlog.Info {
					lines = append(lines, level+" "+text)
				}
			}), rng.Stream(1, "master"))
			if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 100, TEEndpoint: "h:1"}, master.UUID{Lo: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := m.PutStart(ctx, "k0", 10, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
				t.Fatal(err)
			}
			if err := m.PutEnd(ctx, "k0"); err != nil {
				t.Fatal(err)
			}
			lines = nil
			if _, err := m.GetReplicaList(ctx, "m0"); !errors.Is(err, mooncake.OBJECT_NOT_FOUND) {
				t.Fatalf("single read: %v, want OBJECT_NOT_FOUND", err)
			}
			if len(lines) != 0 {
				t.Fatalf("single read lines %q, want none", lines)
			}
			keys := []string{"k0", "m1"}
			bctx := master.WithBatch(ctx, keys)
			if _, err := m.GetReplicaList(bctx, "k0"); err != nil {
				t.Fatalf("batch read of k0: %v", err)
			}
			if _, err := m.GetReplicaList(bctx, "m1"); !errors.Is(err, mooncake.OBJECT_NOT_FOUND) {
				t.Fatalf("batch read of m1: %v, want OBJECT_NOT_FOUND", err)
			}
			if !slices.Equal(lines, tc.batch) {
				t.Fatalf("batch read lines %q, want %q", lines, tc.batch)
			}
		})
	}
}
