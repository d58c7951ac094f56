package client

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

var v0311, _ = mooncake.ParseVersion("0.3.11.post1")

var p0311 = mooncake.MustProfile("0.3.11.post1")

// TestFileStorageGroup: GroupOffloadingKeysByBucket's buckets
// (storage_backend.cpp v0.3.11.post1): full buckets only, the rest held
// for the next heartbeat and put first; keys on disk and oversize objects
// skipped.
func TestFileStorageGroup(t *testing.T) {
	obj := func(k string, n int64) master.OffloadObject { return master.OffloadObject{Key: k, Size: n} }
	fs := newFileStorage(v0311, map[string]string{"MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "2", "MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES": "100"}, 0, "/d", nil)
	var logged []string
	logf := func(_ string, format string, a ...any) { logged = append(logged, format) }
	if got := fs.group([]master.OffloadObject{obj("a", 10), obj("b", 10), obj("c", 10)}, p0311, logf); !reflect.DeepEqual(got, [][]string{{"a", "b"}}) {
		t.Fatalf("first heartbeat: %v, want [[a b]]", got)
	}
	if !reflect.DeepEqual(fs.ungrouped, []master.OffloadObject{obj("c", 10)}) {
		t.Fatalf("held back: %v, want [c]", fs.ungrouped)
	}
	if got := fs.group(nil, p0311, logf); got != nil || len(fs.ungrouped) != 1 {
		t.Fatalf("an empty heartbeat: %v, held %v; want nothing, c still held", got, fs.ungrouped)
	}
	fs.objects["d"] = diskObject{}
	got := fs.group([]master.OffloadObject{obj("d", 10), obj("big", 101), obj("e", 95), obj("f", 10)}, p0311, logf)
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
	fs := newFileStorage(v0311, map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "two"}, 3*time.Second, "/d", nil)
	if fs.interval != 10*time.Second || fs.keysLimit != 500 || fs.sizeLimit != 256<<20 || fs.next != 3*time.Second {
		t.Fatalf("defaults: %+v", fs)
	}
}

// TestBucketEviction: BucketBackendConfig's policy knobs (the OFFLOAD_
// names first; anything but fifo and lru is none) and PrepareEviction's
// order (storage_backend.cpp v0.3.11.post1:2165-2262): fifo takes the
// lowest bucket id, lru the least recently read, never-read buckets first
// by id; buckets go until the new one fits under max_total_size.
func TestBucketEviction(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      map[string]string
		read     []int64 // buckets read, in this order
		required int64
		want     []int64
	}{
		{"fifo", map[string]string{"MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY": "fifo", "MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE": "300"}, []int64{1}, 100, []int64{1}},
		{"lru skips a read bucket", map[string]string{"MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY": "lru", "MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE": "300"}, []int64{1}, 100, []int64{2}},
		{"lru by last read", map[string]string{"MOONCAKE_BUCKET_EVICTION_POLICY": "lru", "MOONCAKE_BUCKET_MAX_TOTAL_SIZE": "300"}, []int64{3, 1, 2}, 150, []int64{3, 1}},
		{"the OFFLOAD_ name wins", map[string]string{"MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY": "fifo", "MOONCAKE_BUCKET_EVICTION_POLICY": "lru", "MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE": "300"}, []int64{1}, 100, []int64{1}},
		{"fits", map[string]string{"MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY": "fifo", "MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE": "400"}, nil, 100, nil},
	} {
		fs := newFileStorage(v0311, c.env, 0, "/d", nil)
		for id := int64(1); id <= 3; id++ {
			k := fmt.Sprint("k", id)
			fs.objects[k] = diskObject{bucket: id}
			fs.written = append(fs.written, &bucketMeta{id: id, keys: []string{k}, size: 90, meta: 10})
			fs.total += 100
		}
		for i, id := range c.read {
			fs.written[id-1].lastRead = time.Duration(i+1) * time.Second
		}
		gone, keys := fs.prepareEviction(c.required)
		var ids []int64
		for _, b := range gone {
			ids = append(ids, b.id)
		}
		if !reflect.DeepEqual(ids, c.want) || len(keys) != len(c.want) || fs.total != 300-100*int64(len(c.want)) || len(fs.written) != 3-len(c.want) || len(fs.objects) != 3-len(c.want) {
			t.Errorf("%s: evicted %v (keys %v), total %d, %d buckets and %d keys left; want %v", c.name, ids, keys, fs.total, len(fs.written), len(fs.objects), c.want)
		}
	}
	if fs := newFileStorage(v0311, map[string]string{"MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY": "LRU"}, 0, "/d", nil); fs.policy != "none" || fs.maxTotal != 0 {
		t.Errorf("policy LRU (case matters), no cap: %q %d, want none 0", fs.policy, fs.maxTotal)
	}
}

// TestFileStorageValidate: GetEnvOr's reading of the offload knobs and the
// two Validates at setup (file_storage.cpp v0.3.11.post1:136-151,
// storage_backend.cpp:35-45; keys limit 0: real 0.3.11.post1, 0.3.14).
func TestFileStorageValidate(t *testing.T) {
	for _, c := range []struct {
		env        map[string]string
		line, msg  string
		interval   time.Duration
		keys, size int64
	}{
		{map[string]string{}, "", "", 10 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "2x"}, "", "", 2 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "-1"}, "", "", 10 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "0"}, "FileStorageConfig: heartbeat_interval_seconds must > 0", "Invalid FileStorage configuration", 0, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_TOTAL_KEYS_LIMIT": "0"}, "FileStorageConfig: total_keys_limit must > 0", "Invalid FileStorage configuration", 10 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES": "0"}, "FileStorageConfig: total_size_limit should not be zero", "Invalid FileStorage configuration", 10 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "0"}, "BucketBackendConfig: bucket_keys_limit must > 0", "Invalid StorageBackend configuration", 10 * time.Second, 0, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "all"}, "", "", 10 * time.Second, 500, 256 << 20},
		{map[string]string{"MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES": "-5"}, "BucketBackendConfig: bucket_size_limit must > 0", "Invalid StorageBackend configuration", 10 * time.Second, 500, -5},
	} {
		fs := newFileStorage(v0311, c.env, 0, "/d", nil)
		line, msg := fs.invalid()
		if line != c.line || msg != c.msg || fs.interval != c.interval || int64(fs.keysLimit) != c.keys || fs.sizeLimit != c.size {
			t.Errorf("%v: %q %q, interval %v keys %d size %d; want %q %q %v %d %d", c.env, line, msg, fs.interval, fs.keysLimit, fs.sizeLimit, c.line, c.msg, c.interval, c.keys, c.size)
		}
	}
}
