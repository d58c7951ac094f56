package master_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// fsWorld puts kv0 under --root_fs_dir=/r with SSD offload (its DISK
// replica's PutEnd after the memory one's, its bucket reported), then
// 9 MiB more over the 0.5 watermark, and returns kv0's replica list a
// second later.
func fsWorld(t *testing.T, version string) []master.Replica {
	t.Helper()
	ctx := context.Background()
	owner := master.UUID{Hi: 1, Lo: 1}
	m, c := newMaster(t, version, map[string]string{"enable_offload": "true", "root_fs_dir": "/r",
		"eviction_high_watermark_ratio": "0.5", "eviction_ratio": "1.0", "default_kv_lease_ttl": "1000"})
	if got, _ := m.GetStorageConfig(ctx); got != (master.StorageConfig{FSDir: "/r/mooncake_cluster", EnableDiskEviction: true}) {
		t.Fatalf("GetStorageConfig = %+v", got)
	}
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 16 << 20, TEEndpoint: "h:1"}, owner); err != nil {
		t.Fatal(err)
	}
	if err := m.MountLocalDiskSegment(ctx, owner); err != nil {
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
		if err := m.PutEndDisk(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	put("kv0", 4096)
	if _, err := m.OffloadObjectHeartbeat(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if err := m.NotifyOffloadSuccess(ctx, owner, "h:40000", []master.OffloadObject{{Key: "kv0", Size: 4096}}); err != nil {
		t.Fatal(err)
	}
	put("kv1", 9<<20)
	c.now += time.Second
	reps, err := m.GetReplicaList(ctx, "kv0")
	if err != nil {
		t.Fatal(err)
	}
	for i := range reps {
		reps[i].LeaseTTL = 0
	}
	return reps
}

var (
	fsDisk    = master.Replica{Size: 4096, Complete: true, FilePath: "/r/mooncake_cluster/kv0"}
	fsOffload = master.Replica{Size: 4096, Complete: true, OffloadEndpoint: "h:40000"}
)

// TestFsReplicaLocalDiskFirst: eviction erases kv0's memory replica
// with PopReplicas' std::partition, which leaves [LOCAL_DISK, DISK]
// (master_service.h v0.3.10.post1:543-560; real 0.3.9: the read that
// follows throws "Expected DiskDescriptor"). From 0.3.11 the order is
// the same; the client picks by type.
func TestFsReplicaLocalDiskFirst(t *testing.T) {
	for _, v := range []string{"0.3.9", "0.3.11.post1"} {
		if got, want := fsWorld(t, v), []master.Replica{fsOffload, fsDisk}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: kv0 = %+v, want %+v", v, got, want)
		}
	}
}

// TestFsReplicaRepins: at 0.3.10.post1 the DISK replica's PutEnd pins
// the queued memory replica again, and the bucket report unpins it
// once: eviction never takes it (real: memory_ratio unchanged, pages
// read from memory). PR 1853 (v0.3.11) fixed it.
func TestFsReplicaRepins(t *testing.T) {
	got := fsWorld(t, "0.3.10.post1")
	if len(got) != 3 || got[0].SegmentName != "h:1" || got[0].Addr != 0x1000 || got[1] != fsDisk || got[2] != fsOffload {
		t.Fatalf("kv0 = %+v, want [memory at h:1 0x1000, DISK, LOCAL_DISK]", got)
	}
}

// TestFsReplicaNeedsItsPutEnd: a DISK replica is listed only once its
// PutEnd came (the client's storage backend wrote the file).
func TestFsReplicaNeedsItsPutEnd(t *testing.T) {
	ctx := context.Background()
	m, _ := newMaster(t, "0.3.9", map[string]string{"root_fs_dir": "/r"})
	if err := m.MountSegment(ctx, master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 1 << 20, TEEndpoint: "h:1"}, master.UUID{Lo: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PutStart(ctx, "kv0", 4096, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
		t.Fatal(err)
	}
	if err := m.PutEnd(ctx, "kv0"); err != nil {
		t.Fatal(err)
	}
	if reps, err := m.GetReplicaList(ctx, "kv0"); err != nil || len(reps) != 1 || reps[0].Disk() {
		t.Fatalf("before the DISK PutEnd: %+v, %v; want the memory replica alone", reps, err)
	}
	if err := m.PutEndDisk(ctx, "kv0"); err != nil {
		t.Fatal(err)
	}
	if reps, err := m.GetReplicaList(ctx, "kv0"); err != nil || len(reps) != 2 || reps[0].Disk() || reps[1].FilePath != "/r/mooncake_cluster/kv0" {
		t.Fatalf("after it: %+v, %v; want [memory, DISK /r/mooncake_cluster/kv0]", reps, err)
	}
}
