package client

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// beatClock is a clock the test moves by hand.
type beatClock struct{ now time.Duration }

func (c *beatClock) Now() time.Duration { return c.now }
func (c *beatClock) Sleep(_ context.Context, d time.Duration) error {
	c.now += d
	return nil
}

// beatWorld is a RealClient with a FileStorage (env) of release version,
// a master with --enable_offload, and the client's log lines.
func beatWorld(t *testing.T, version string, env map[string]string, mountDisk bool) (*RealClient, *master.Master, *[]string) {
	t.Helper()
	p := mooncake.MustProfile(version)
	cfg, err := master.ConfigFor(p, map[string]string{"enable_offload": "true", "enable_metric_reporting": "false"})
	if err != nil {
		t.Fatal(err)
	}
	clock := &beatClock{}
	m := master.New(cfg, clock, nil, rng.Stream(1, "master"))
	var lines []string
	c := &RealClient{p: p, id: master.UUID{Hi: 1, Lo: 2}, d: Deps{Clock: clock, Log: mlog.Func(func(level, text string) {
		lines = append(lines, level+" "+text)
	})}}
	c.fs = newFileStorage(p.Version, env, 0, "/d", nil)
	c.fs.endpoint = "h:9"
	if mountDisk {
		if err := m.MountLocalDiskSegment(context.Background(), c.id); err != nil {
			t.Fatal(err)
		}
	}
	return c, m, &lines
}

// TestOffloadEmptyHeartbeat: a heartbeat with no key handed over. Up to
// 0.3.11.post1 a backend other than the bucket one queries the empty
// batch and logs INVALID_REPLICA (file_storage.cpp v0.3.11.post1:379-384,
// :711-713; Mooncake#2138); from 0.3.12 it returns first; the bucket
// backend groups no bucket (real 0.3.11.post1 … 0.3.14: REAL-FINDINGS §79).
func TestOffloadEmptyHeartbeat(t *testing.T) {
	offset := map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "offset_allocator_storage_backend"}
	for _, tc := range []struct {
		version string
		env     map[string]string
		want    []string
	}{
		{"0.3.11.post1", offset, []string{"ERROR BatchQuerySlices failed with error: INVALID_REPLICA", "ERROR BatchQuerySlices failed with error: INVALID_REPLICA"}},
		{"0.3.8.post1", map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "file_per_key_storage_backend", "MOONCAKE_OFFLOAD_FSDIR": "/f"}, []string{"ERROR BatchQuerySlices failed with error: INVALID_REPLICA", "ERROR BatchQuerySlices failed with error: INVALID_REPLICA"}},
		{"0.3.11.post1", map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "bucket"}, nil},
		{"0.3.11.post1", nil, nil},
		{"0.3.12.post1", offset, nil},
		{"0.3.14", offset, nil},
	} {
		c, m, lines := beatWorld(t, tc.version, tc.env, true)
		for range 2 {
			c.offloadBeat(context.Background(), m)
		}
		if !reflect.DeepEqual(*lines, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.version, tc.env, *lines, tc.want)
		}
	}
}

// TestFileStorageBackendValidate: file_per_key_storage_backend without
// MOONCAKE_OFFLOAD_FSDIR fails FilePerKeyConfig::Validate; the other
// backends skip the bucket backend's checks (storage_backend.cpp
// v0.3.11.post1 CreateStorageBackend).
func TestFileStorageBackendValidate(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		backend   string
		line, msg string
	}{
		{map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "file_per_key_storage_backend"}, backendFilePerKey, "FilePerKeyConfig: fsdir is invalid", "Invalid StorageBackend configuration"},
		{map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "offset_allocator_storage_backend", "MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "0"}, backendOffsetAllocator, "", ""},
		{map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "nvme", "MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "0"}, backendBucket, "BucketBackendConfig: bucket_keys_limit must > 0", "Invalid StorageBackend configuration"},
	} {
		fs := newFileStorage(v0311, tc.env, 0, "/d", nil)
		if line, msg := fs.invalid(); fs.backend != tc.backend || line != tc.line || msg != tc.msg {
			t.Errorf("%v: %s %q %q, want %s %q %q", tc.env, fs.backend, line, msg, tc.backend, tc.line, tc.msg)
		}
	}
}

// TestOffloadHeartbeatSegmentNotFound: the master lost the client's
// LOCAL_DISK segment. Up to 0.3.11.post1 each heartbeat fails with two
// ERROR lines; from 0.3.12 the first mounts it again, beats again and
// re-registers the key on disk (file_storage.cpp v0.3.12.post1:785-831,
// ReRegisterOffloadedObjects; real 0.3.11.post1, 0.3.12.post1: §79).
func TestOffloadHeartbeatSegmentNotFound(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		version string
		want    []string
		disk    int // the key's LOCAL_DISK replicas at the master afterwards
	}{
		{"0.3.11.post1", []string{
			"ERROR OffloadObjectHeartbeat failed, error code is SEGMENT_NOT_FOUND",
			"ERROR Failed to send heartbeat with error: SEGMENT_NOT_FOUND",
			"ERROR OffloadObjectHeartbeat failed, error code is SEGMENT_NOT_FOUND",
			"ERROR Failed to send heartbeat with error: SEGMENT_NOT_FOUND",
		}, 0},
		{"0.3.12.post1", []string{
			"ERROR OffloadObjectHeartbeat failed, error code is SEGMENT_NOT_FOUND",
			"WARNING OffloadObjectHeartbeat returned SEGMENT_NOT_FOUND, attempting to re-register local disk segment and re-register object metadata",
			"INFO Triggering background metadata rescan after LOCAL_DISK segment re-registration",
			"INFO ReRegisterOffloadedObjects: starting ScanMeta to re-register offloaded objects with master",
			"INFO ReRegisterOffloadedObjects: about to call storage_backend_->ScanMeta()",
			"INFO ReRegisterOffloadedObjects: NotifyOffloadSuccess succeeded for batch 1 with 1 keys",
			"INFO ReRegisterOffloadedObjects: ScanMeta returned. success=1",
			"INFO ReRegisterOffloadedObjects: completed. total_keys=1 total_batches=1 total_failures=0",
		}, 1},
	} {
		c, m, lines := beatWorld(t, tc.version, nil, false)
		c.fs.objects["kv0"] = diskObject{bucket: 1, data: hostmem.Content{Size: 4096}}
		c.fs.written = []*bucketMeta{{id: 1, keys: []string{"kv0"}, size: 4099, meta: 19}}
		for range 2 {
			c.offloadBeat(ctx, m)
		}
		if !reflect.DeepEqual(*lines, tc.want) {
			t.Errorf("%s: %q\nwant %q", tc.version, *lines, tc.want)
		}
		reps, _ := m.GetReplicaList(ctx, "kv0")
		disk := 0
		for _, r := range reps {
			if r.LocalDisk() {
				disk++
			}
		}
		if disk != tc.disk {
			t.Errorf("%s: kv0 has %d LOCAL_DISK replicas at the master (%v), want %d", tc.version, disk, reps, tc.disk)
		}
	}
}

// TestOffloadTickAfterStall: the heartbeat thread beats, then sleeps the
// interval; a stall of many intervals (a frozen process) is one beat, not
// one per interval missed (real 0.3.11.post1: one line a second after
// SIGCONT, §79).
func TestOffloadTickAfterStall(t *testing.T) {
	c, m, lines := beatWorld(t, "0.3.11.post1", map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "2"}, false)
	clock := c.d.Clock.(*beatClock)
	var beats []time.Duration
	for _, at := range []time.Duration{0, time.Second, 2 * time.Second, 11500 * time.Millisecond, 12 * time.Second, 13500 * time.Millisecond} {
		clock.now = at
		n := len(*lines)
		c.offloadTick(context.Background(), m)
		if len(*lines) > n {
			beats = append(beats, at)
		}
	}
	want := []time.Duration{0, 2 * time.Second, 11500 * time.Millisecond, 13500 * time.Millisecond}
	if !reflect.DeepEqual(beats, want) || c.fs.next != 15500*time.Millisecond {
		t.Fatalf("beats at %v, next %v; want %v, next 15.5s", beats, c.fs.next, want)
	}
}
