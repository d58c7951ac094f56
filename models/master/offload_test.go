package master_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestOffloadingQueue: PutEnd queues a key for the client owning its
// segment when that client mounted a local disk segment; the heartbeat
// hands the queue over once; Remove leaves a queued key queued
// (master_service.cpp v0.3.11.post1; real: io/ssd-offload-key-removed-before-offload).
func TestOffloadingQueue(t *testing.T) {
	ctx := context.Background()
	owner, other := master.UUID{Hi: 1, Lo: 1}, master.UUID{Hi: 2, Lo: 2}
	m, _ := newMaster(t, "0.3.11.post1", map[string]string{"enable_offload": "true"})
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 1 << 20, TEEndpoint: "h:1"}, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := m.OffloadObjectHeartbeat(ctx, owner); !errors.Is(err, mooncake.SEGMENT_NOT_FOUND) {
		t.Fatalf("heartbeat before the disk mount = %v, want SEGMENT_NOT_FOUND", err)
	}
	if err := m.MountLocalDiskSegment(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if err := m.MountLocalDiskSegment(ctx, other); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kv0", "kv1"} {
		if _, err := m.PutStart(ctx, k, 4096, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
			t.Fatal(err)
		}
		if err := m.PutEnd(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Remove(ctx, "kv0"); err != nil {
		t.Fatal(err)
	}
	got, err := m.OffloadObjectHeartbeat(ctx, owner)
	want := []master.OffloadObject{{Key: "kv0", Size: 4096}, {Key: "kv1", Size: 4096}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("owner's heartbeat = %v, %v; want %v", got, err, want)
	}
	if got, err := m.OffloadObjectHeartbeat(ctx, owner); err != nil || len(got) != 0 {
		t.Fatalf("second heartbeat = %v, %v; want an empty queue", got, err)
	}
	if got, err := m.OffloadObjectHeartbeat(ctx, other); err != nil || len(got) != 0 {
		t.Fatalf("the other client's heartbeat = %v, %v; want nothing (no replica in its segments)", got, err)
	}
}

// TestOffloadingQueueNeedsFlag: without --enable_offload the disk mount is
// UNABLE_OFFLOAD and PutEnd queues nothing.
func TestOffloadingQueueNeedsFlag(t *testing.T) {
	ctx := context.Background()
	m, _ := newMaster(t, "0.3.11.post1", nil)
	if err := m.MountLocalDiskSegment(ctx, master.UUID{Lo: 1}); !errors.Is(err, mooncake.UNABLE_OFFLOAD) {
		t.Fatalf("MountLocalDiskSegment = %v, want UNABLE_OFFLOAD", err)
	}
}

// TestDiskReplicaOutlivesEviction: a key offloaded to SSD keeps its
// LOCAL_DISK replica when eviction takes its memory replica, so the
// replica list then names the disk only; Remove takes both, and a bucket
// reported for a removed key creates the object again, disk only
// (master_service.cpp v0.3.11.post1 NotifyOffloadSuccess → AddReplica,
// BatchEvict's evict_replicas; real: io/ssd-offload-readback-files-removed).
func TestDiskReplicaOutlivesEviction(t *testing.T) {
	ctx := context.Background()
	owner := master.UUID{Hi: 1, Lo: 1}
	m, c := newMaster(t, "0.3.11.post1", map[string]string{"enable_offload": "true", "eviction_high_watermark_ratio": "0.5", "eviction_ratio": "1.0", "default_kv_lease_ttl": "1000"})
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 16 << 20, TEEndpoint: "h:1"}, owner); err != nil {
		t.Fatal(err)
	}
	put := func(k string, size int64) {
		t.Helper()
		if _, err := m.PutStart(ctx, k, size, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
			t.Fatal(err)
		}
		if err := m.PutEnd(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	put("kv0", 4096)
	if err := m.NotifyOffloadSuccess(ctx, owner, "h:40000", []master.OffloadObject{{Key: "kv0", Size: 4096}}); err != nil {
		t.Fatal(err)
	}
	put("kv1", 9<<20) // over the watermark: every memory replica goes
	c.now += time.Second
	reps, err := m.GetReplicaList(ctx, "kv0")
	if err != nil || len(reps) != 1 || !reps[0].LocalDisk() || reps[0].OffloadEndpoint != "h:40000" || reps[0].Size != 4096 {
		t.Fatalf("kv0 after eviction = %+v, %v; want its disk replica alone", reps, err)
	}
	if _, err := m.GetReplicaList(ctx, "kv1"); !errors.Is(err, mooncake.OBJECT_NOT_FOUND) {
		t.Fatalf("kv1 (memory only) after eviction: %v, want OBJECT_NOT_FOUND", err)
	}
	c.now += 2 * time.Second
	if err := m.Remove(ctx, "kv0"); err != nil {
		t.Fatal(err)
	}
	if err := m.NotifyOffloadSuccess(ctx, owner, "h:40000", []master.OffloadObject{{Key: "kv0", Size: 4096}}); err != nil {
		t.Fatal(err)
	}
	if reps, err := m.GetReplicaList(ctx, "kv0"); err != nil || len(reps) != 1 || !reps[0].LocalDisk() {
		t.Fatalf("kv0 reported after its remove = %+v, %v; want it back, disk only", reps, err)
	}
}
