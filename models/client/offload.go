package client

import (
	"context"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// fileStorage is the offload side of a client set up with
// enable_ssd_offload (file_storage.cpp FileStorage with the bucket
// backend, v0.3.11.post1): its heartbeat thread takes the keys the master
// queued for this client and writes them to disk in buckets. Modelled:
// the heartbeat's timing, the bucket grouping and the query of each
// bucket's keys; the disk replicas a written bucket reports
// (NotifyOffloadSuccess) and reads from disk are not.
type fileStorage struct {
	interval  time.Duration // MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS
	keysLimit int           // MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT
	sizeLimit int64         // MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES
	next      time.Duration // the heartbeat thread's next iteration
	// ungrouped: keys handed over that did not fill a bucket, held for
	// the next heartbeat (ungrouped_offloading_objects_).
	ungrouped []master.OffloadObject
	stored    map[string]bool // keys in a written bucket
}

// Defaults of storage_backend.h v0.3.11.post1 (FileStorageConfig,
// BucketBackendConfig).
const (
	offloadHeartbeatSeconds = 10
	offloadBucketKeys       = 500
	offloadBucketBytes      = 256 << 20
)

// newFileStorage reads the FileStorage and bucket backend knobs
// (GetEnvOr: an unparsable value keeps the default) and starts the
// heartbeat thread, which beats at once (FileStorage::Init).
func newFileStorage(env map[string]string, now time.Duration) *fileStorage {
	num := func(k string, def int64) int64 {
		if n, err := strconv.ParseInt(env[k], 10, 64); err == nil {
			return n
		}
		return def
	}
	return &fileStorage{
		interval:  time.Duration(num("MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS", offloadHeartbeatSeconds)) * time.Second,
		keysLimit: int(num("MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT", offloadBucketKeys)),
		sizeLimit: num("MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES", offloadBucketBytes),
		next:      now,
		stored:    map[string]bool{},
	}
}

// offloadTick runs the FileStorage heartbeats due by now. Its thread is
// not scheduled on its own: the ping thread's iterations (one a second)
// run it, so a heartbeat is up to a ping period late.
func (c *RealClient) offloadTick(ctx context.Context, ms master.Service) {
	fs := c.fs
	if fs == nil || c.closed {
		return
	}
	now := c.d.Clock.Now()
	for fs.next <= now {
		c.offloadBeat(ctx, ms)
		fs.next += max(fs.interval, time.Second)
	}
}

// offloadBeat is one FileStorage::Heartbeat: OffloadObjectHeartbeat, then
// OffloadObjects (GroupOffloadingKeysByBucket, each bucket's
// BatchQuerySegmentSlices).
func (c *RealClient) offloadBeat(ctx context.Context, ms master.Service) {
	os, ok := ms.(master.OffloadService)
	if !ok {
		return
	}
	objs, err := os.OffloadObjectHeartbeat(ctx, c.id)
	if err != nil {
		c.logf(mlog.Error, "Failed to send heartbeat with error: %s", c.code(err).Name())
		return
	}
	for _, keys := range c.fs.group(objs, c.logf) {
		if c.queryBucket(ctx, ms, keys) {
			for _, k := range keys {
				c.fs.stored[k] = true
			}
		}
	}
}

// group is GroupOffloadingKeysByBucket (storage_backend.cpp
// v0.3.11.post1): buckets of at most keysLimit keys and sizeLimit bytes,
// the keys held back first; a key already on disk or larger than a
// bucket is skipped; a last bucket that is not full waits for the next
// heartbeat.
func (fs *fileStorage) group(objs []master.OffloadObject, logf func(string, string, ...any)) [][]string {
	var buckets [][]string
	if fs.keysLimit < 1 {
		return nil // real's BucketBackendConfig::Validate refuses it at setup; not modelled
	}
	i := 0
	for i < len(objs) {
		cur := fs.ungrouped
		fs.ungrouped = nil
		var size int64
		for _, o := range cur {
			size += o.Size
		}
		for len(cur) < fs.keysLimit {
			if i == len(objs) {
				fs.ungrouped = cur
				return buckets
			}
			o := objs[i]
			if o.Size > fs.sizeLimit {
				logf(mlog.Error, "Object size exceeds bucket size limit: key=%s, object_size=%d, limit=%d", o.Key, o.Size, fs.sizeLimit)
				i++
				continue
			}
			if fs.stored[o.Key] {
				i++
				continue
			}
			if size+o.Size > fs.sizeLimit {
				break
			}
			cur, size = append(cur, o), size+o.Size
			i++
			if size == fs.sizeLimit {
				break
			}
		}
		keys := make([]string, len(cur))
		for j, o := range cur {
			keys[j] = o.Key
		}
		buckets = append(buckets, keys)
	}
	return buckets
}

// queryBucket is BatchQuerySegmentSlices for one bucket: each key must
// have a memory replica in this client's own segments. Up to v0.3.11.post1
// the first key without one fails the bucket (its query's error, or
// INVALID_KEY when only other replicas are listed), which is then not
// written; from v0.3.12 such a key is skipped without a word.
func (c *RealClient) queryBucket(ctx context.Context, ms master.Service, keys []string) bool {
	for _, k := range keys {
		reps, err := ms.GetReplicaList(ctx, k)
		code := mooncake.OK
		switch {
		case err != nil:
			code = c.code(err)
		case !c.localMemory(reps):
			code = mooncake.INVALID_KEY
		}
		if code == mooncake.OK || !c.p.OffloadQueryFailsBucket {
			continue
		}
		c.logf(mlog.Error, "Key not found: %s", k)
		c.logf(mlog.Error, "BatchQuerySlices failed with error: %s", code.Name())
		return false
	}
	return true
}

// localMemory reports whether a replica lies in one of this client's
// mounted segments (Client::IsReplicaOnLocalMemory).
func (c *RealClient) localMemory(reps []master.Replica) bool {
	for _, r := range reps {
		for _, s := range c.segments {
			if r.SegmentName == s.Name {
				return true
			}
		}
	}
	return false
}
