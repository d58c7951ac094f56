package client

import (
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// TestFileStorageGroup: GroupOffloadingKeysByBucket's buckets
// (storage_backend.cpp v0.3.11.post1): full buckets only, the rest held
// for the next heartbeat and put first; keys on disk and oversize objects
// skipped.
func TestFileStorageGroup(t *testing.T) {
	obj := func(k string, n int64) master.OffloadObject { return master.OffloadObject{Key: k, Size: n} }
	fs := newFileStorage(map[string]string{"MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "2", "MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES": "100"}, 0, "/d", nil)
	var logged []string
	logf := func(_ string, format string, a ...any) { logged = append(logged, format) }
	if got := fs.group([]master.OffloadObject{obj("a", 10), obj("b", 10), obj("c", 10)}, logf); !reflect.DeepEqual(got, [][]string{{"a", "b"}}) {
		t.Fatalf("first heartbeat: %v, want [[a b]]", got)
	}
	if !reflect.DeepEqual(fs.ungrouped, []master.OffloadObject{obj("c", 10)}) {
		t.Fatalf("held back: %v, want [c]", fs.ungrouped)
	}
	if got := fs.group(nil, logf); got != nil || len(fs.ungrouped) != 1 {
		t.Fatalf("an empty heartbeat: %v, held %v; want nothing, c still held", got, fs.ungrouped)
	}
	fs.objects["d"] = diskObject{}
	got := fs.group([]master.OffloadObject{obj("d", 10), obj("big", 101), obj("e", 95), obj("f", 10)}, logf)
	// c (10) + e (95) exceed 100 bytes: c goes alone, then e, and f waits.
	if !reflect.DeepEqual(got, [][]string{{"c"}, {"e"}}) || !reflect.DeepEqual(fs.ungrouped, []master.OffloadObject{obj("f", 10)}) {
		t.Fatalf("second heartbeat: %v held %v; want [[c] [e]] held [f]", got, fs.ungrouped)
	}
	if !reflect.DeepEqual(logged, []string{"Object size exceeds bucket size limit: key=%s, object_size=%d, limit=%d"}) {
		t.Fatalf("logged %q", logged)
	}
}

// TestFileStorageKnobs: the defaults of v0.3.11.post1 and GetEnvOr's
// fallback on a value it cannot parse.
func TestFileStorageKnobs(t *testing.T) {
	fs := newFileStorage(map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "two"}, 3*time.Second, "/d", nil)
	if fs.interval != 10*time.Second || fs.keysLimit != 500 || fs.sizeLimit != 256<<20 || fs.next != 3*time.Second {
		t.Fatalf("defaults: %+v", fs)
	}
}
