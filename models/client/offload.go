package client

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// fileStorage is the offload side of a client set up with
// enable_ssd_offload (file_storage.cpp FileStorage with the bucket
// backend, v0.3.11.post1): its heartbeat thread takes the keys the master
// queued for this client and writes them to disk in buckets, reporting
// each written bucket's keys to the master (NotifyOffloadSuccess: their
// LOCAL_DISK replicas); its offload RPC server reads them back for any
// client whose get finds only a disk replica (batch_get_offload_object).
type fileStorage struct {
	interval time.Duration // MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS
	// backend is MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR (an unknown
	// name is the bucket backend, FileStorageConfig's default); fsdir is
	// MOONCAKE_OFFLOAD_FSDIR, which file_per_key_storage_backend needs.
	// The other backends' own files and reads are not modelled: their
	// keys are kept as one bucket a heartbeat, as OffloadObjects groups
	// them (one batch of every key).
	backend, fsdir string
	keysLimit      int   // MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT
	sizeLimit      int64 // MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES
	// totalKeys, totalSize: MOONCAKE_OFFLOAD_TOTAL_KEYS_LIMIT and
	// _TOTAL_SIZE_LIMIT_BYTES (checked at setup only here).
	totalKeys, totalSize int64
	next                 time.Duration // the heartbeat thread's next iteration
	// ungrouped: keys handed over that did not fill a bucket, held for
	// the next heartbeat (ungrouped_offloading_objects_).
	ungrouped []master.OffloadObject
	// objects is the bucket backend's object_bucket_map_: each key on
	// disk, its bucket and bytes.
	objects map[string]diskObject
	// dir is ssd_offload_path, disk its files; buckets counts the
	// bucket ids handed out (BucketIdGenerator).
	dir     string
	disk    *OffloadDisk
	buckets int64
	// batches counts the offload reads served (next_batch_id_):
	// batchGetOffloadObject's.
	batches int64
	// The bucket backend's eviction (BucketBackendConfig): policy none,
	// fifo or lru, max_total_size (0: none here; real then takes 90 % of
	// the disk, which the model has no size for); total is total_size_,
	// written the buckets on disk in id order.
	policy   string
	maxTotal int64
	total    int64
	written  []*bucketMeta
	// endpoint is the offload RPC server (local_rpc_addr: local_hostname's
	// host and the port the OS gave it); release frees that port.
	endpoint string
	release  func()
}

// bucketMeta is one bucket on disk (BucketMetadata): its keys, the bytes
// it counts in total_size_ and when a read last touched it (lru_index_;
// 0 until read, ties by id).
type bucketMeta struct {
	id         int64
	keys       []string
	size, meta int64
	lastRead   time.Duration
}

// diskObject is one key of a written bucket.
type diskObject struct {
	bucket int64
	data   hostmem.Content
}

// OffloadDisk is the files of a host's SSD offload directories, which
// FileStorage writes (<bucket id>.bucket and .meta) and a fault may
// delete; nil = a disk no file is ever written to. A metadata file keeps
// what its bucket holds, for a later process's scan.
type OffloadDisk struct {
	files map[string]bool
	metas map[string]storedBucket
	// objects are --root_fs_dir's object files (fsreplica.go).
	objects map[string]hostmem.Content
}

// storedBucket is what a bucket's two files say: its metadata and its
// keys' bytes.
type storedBucket struct {
	bucketMeta
	data []hostmem.Content
}

// NewOffloadDisk is an empty disk.
func NewOffloadDisk() *OffloadDisk {
	return &OffloadDisk{files: map[string]bool{}, metas: map[string]storedBucket{}}
}

// RemoveAll deletes every file in dir (rm dir/*) and says how many.
func (d *OffloadDisk) RemoveAll(dir string) int {
	n := 0
	for f := range d.files {
		if path.Dir(f) == path.Clean(dir) {
			d.remove(f)
			n++
		}
	}
	return n
}

func (d *OffloadDisk) write(f string) {
	if d != nil {
		d.files[f] = true
	}
}

func (d *OffloadDisk) writeMeta(f string, b storedBucket) {
	if d != nil {
		d.files[f] = true
		d.metas[f] = b
	}
}

func (d *OffloadDisk) remove(f string) {
	if d != nil {
		delete(d.files, f)
		delete(d.metas, f)
	}
}

// buckets are the metadata files in dir by bucket id, what a new
// BucketStorageBackend::Init loads (storage_backend.cpp v0.3.11.post1
// :1564-1755: each <id>.meta read back into the maps).
func (d *OffloadDisk) buckets(dir string) map[int64]storedBucket {
	out := map[int64]storedBucket{}
	if d == nil {
		return out
	}
	for f, b := range d.metas {
		id, err := strconv.ParseInt(strings.TrimSuffix(path.Base(f), ".meta"), 10, 64)
		if err == nil && path.Dir(f) == path.Clean(dir) && d.files[f] {
			out[id] = b
		}
	}
	return out
}

func (d *OffloadDisk) exists(f string) bool { return d != nil && d.files[f] }

// knobInt is a GetEnvOr number of the knob table (mooncake.Knobs) as
// release v reads raw from the environment under name (an older name
// reads by the newer one's rule); def when unset or unparsable.
func knobInt(v mooncake.Version, env map[string]string, name, envName string, def int64) int64 {
	raw, ok := env[envName]
	if !ok {
		return def
	}
	pv := mooncake.ParseKnob(v, name, raw, true)
	if !pv.Read || pv.Fallback {
		return def
	}
	return pv.Int
}

// newFileStorage reads the FileStorage and bucket backend knobs
// (FileStorageConfig and BucketBackendConfig::FromEnvironment: the
// OFFLOAD_ names first, the older ones as their defaults) and starts the
// heartbeat thread, which beats at once (FileStorage::Init).
func newFileStorage(v mooncake.Version, env map[string]string, now time.Duration, dir string, disk *OffloadDisk) *fileStorage {
	num := func(name string, older ...string) int64 {
		k, _ := mooncake.KnobByName(name)
		def, _ := strconv.ParseInt(k.Rules[len(k.Rules)-1].Default, 10, 64)
		for _, o := range older {
			def = knobInt(v, env, name, o, def)
		}
		return knobInt(v, env, name, name, def)
	}
	policy, ok := env["MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY"]
	if !ok {
		policy = env["MOONCAKE_BUCKET_EVICTION_POLICY"]
	}
	if policy != "fifo" && policy != "lru" {
		policy = "none"
	}
	backend := env["MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR"]
	if backend != backendFilePerKey && backend != backendOffsetAllocator {
		backend = backendBucket
	}
	return &fileStorage{
		backend:   backend,
		fsdir:     env["MOONCAKE_OFFLOAD_FSDIR"],
		interval:  time.Duration(num("MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS")) * time.Second,
		keysLimit: int(num("MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT")),
		sizeLimit: num("MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES"),
		totalKeys: num("MOONCAKE_OFFLOAD_TOTAL_KEYS_LIMIT"),
		totalSize: num("MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES"),
		policy:    policy,
		maxTotal:  num("MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE", "MOONCAKE_BUCKET_MAX_TOTAL_SIZE"),
		next:      now,
		objects:   map[string]diskObject{},
		dir:       dir,
		disk:      disk,
	}
}

// The storage backends FileStorageConfig::FromEnvironment names
// (file_storage.cpp v0.3.8.post1:13-26 … v0.3.12.post1:92-107).
const (
	backendBucket          = "bucket_storage_backend"
	backendFilePerKey      = "file_per_key_storage_backend"
	backendOffsetAllocator = "offset_allocator_storage_backend"
)

// invalid is FileStorageConfig::Validate after the path's check, then
// the backend's: BucketBackendConfig::Validate or FilePerKeyConfig's
// (file_storage.cpp v0.3.11.post1:136-151, storage_backend.cpp:35-45,
// CreateStorageBackend, all thrown as std::invalid_argument out of
// setup): the ERROR line and the ValueError's message, "" when valid.
func (fs *fileStorage) invalid() (line, msg string) {
	const file, backend = "Invalid FileStorage configuration", "Invalid StorageBackend configuration"
	switch {
	case fs.totalKeys <= 0:
		return "FileStorageConfig: total_keys_limit must > 0", file
	case fs.totalSize == 0:
		return "FileStorageConfig: total_size_limit should not be zero", file
	case fs.interval <= 0:
		return "FileStorageConfig: heartbeat_interval_seconds must > 0", file
	case fs.backend == backendFilePerKey && fs.fsdir == "":
		return "FilePerKeyConfig: fsdir is invalid", backend
	case fs.backend != backendBucket:
		return "", ""
	case fs.keysLimit <= 0:
		return "BucketBackendConfig: bucket_keys_limit must > 0", backend
	case fs.sizeLimit <= 0:
		return "BucketBackendConfig: bucket_size_limit must > 0", backend
	}
	return "", ""
}

// scanBuckets is FileStorage::Init's ScanMeta (file_storage.cpp
// v0.3.11.post1:261-279): the buckets a process before this one left in
// the directory go back into the maps, and the master is told of their
// keys as this client's LOCAL_DISK replicas (NotifyOffloadSuccess), so a
// restarted process reads them back (real 0.3.11.post1, 0.3.14:
// REAL-FINDINGS §57). Bucket ids go on from the last one.
func (c *RealClient) scanBuckets(ctx context.Context, os master.OffloadService) mooncake.ErrorCode {
	fs := c.fs
	stored := fs.disk.buckets(fs.dir)
	ids := slices.Sorted(maps.Keys(stored))
	var objs []master.OffloadObject
	for _, id := range ids {
		b := stored[id]
		for i, k := range b.keys {
			fs.objects[k] = diskObject{bucket: id, data: b.data[i]}
			objs = append(objs, master.OffloadObject{Key: k, Size: b.data[i].Size})
		}
		m := b.bucketMeta
		fs.written = append(fs.written, &m)
		fs.total += b.size + b.meta
		fs.buckets = max(fs.buckets, id)
	}
	if len(objs) == 0 {
		return mooncake.OK
	}
	if err := os.NotifyOffloadSuccess(ctx, c.id, fs.endpoint, objs); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "Failed to add object to master: %s", code.Name())
		c.logf(mlog.Error, "Failed to scan meta and send to master: %s", code.Name())
		return code
	}
	return mooncake.OK
}

// offloadTick runs the FileStorage heartbeat due by now. Its thread is
// not scheduled on its own: the ping thread's iterations (one a second)
// run it, so a heartbeat is up to a ping period late. The thread beats,
// then sleeps the interval: after a stall (a frozen process) it beats
// once, not once per interval missed (real 0.3.11.post1: one line a
// second after SIGCONT, REAL-FINDINGS §79).
func (c *RealClient) offloadTick(ctx context.Context, ms master.Service) {
	fs := c.fs
	if fs == nil || c.closed {
		return
	}
	now := c.d.Clock.Now()
	if fs.next > now {
		return
	}
	c.offloadBeat(ctx, ms)
	step := max(fs.interval, time.Second)
	fs.next += step
	if fs.next <= now {
		fs.next = now + step
	}
}

// offloadBeat is one FileStorage::Heartbeat: OffloadObjectHeartbeat, then
// OffloadObjects (GroupOffloadingKeysByBucket, each bucket's
// BatchQuerySegmentSlices and BatchOffload). A bucket that fails to store
// ends the heartbeat's offload up to 0.3.12 (file_storage.cpp
// v0.3.11.post1:465-478, v0.3.12.post1:623-637; OBJECT_ALREADY_EXISTS is
// a per-bucket error from 0.3.13: 3b5a594 IsPerBucketSoftOffloadError).
// From 0.3.12 the keys drained and not written are reported back as
// failed (OffloadDeferredNack: those held back for the next bucket too).
func (c *RealClient) offloadBeat(ctx context.Context, ms master.Service) {
	os, ok := ms.(master.OffloadService)
	if !ok {
		return
	}
	objs, ok := c.offloadHeartbeat(ctx, os)
	if !ok {
		return
	}
	if len(objs) == 0 && (c.p.OffloadSkipsEmptyHeartbeat || c.fs.backend == backendBucket) {
		// Nothing to do: from 0.3.12 the heartbeat returns; before, the
		// bucket backend groups no bucket.
		return
	}
	// drained is this heartbeat's task_by_storage_key (from v0.3.12 a
	// bucket writes only these; a key held back from an earlier one is
	// dropped from it).
	drained := map[string]bool{}
	for _, o := range objs {
		drained[o.Key] = true
	}
	grouped := map[string]bool{}
	var failed []master.OffloadObject
	groups := [][]string{nil} // OffloadObjects' other backends: one batch, every key
	if c.fs.backend == backendBucket {
		groups = c.fs.group(objs, c.p, c.logf)
	} else {
		for _, o := range objs {
			groups[0] = append(groups[0], o.Key)
		}
	}
	for _, keys := range groups {
		var batch []string // batch_object: a map, each key once
		for _, k := range keys {
			grouped[k] = true
			if !slices.Contains(batch, k) && (!c.p.OffloadDeferredNack || drained[k]) {
				batch = append(batch, k)
			}
		}
		bucket, ok := c.queryBucket(ctx, ms, batch)
		if !c.p.OffloadQueryFailsBucket {
			failed = append(failed, missing(batch, bucket)...)
		}
		if !ok || len(bucket) == 0 {
			continue
		}
		code := c.writeBucket(ctx, os, bucket)
		if code == mooncake.OK {
			continue
		}
		c.logf(mlog.Error, "Failed to store objects with error: %s", code.Name())
		if c.p.OffloadCarryoverDedup && code == mooncake.OBJECT_ALREADY_EXISTS {
			failed = append(failed, missing(batch, nil)...)
			continue
		}
		c.logf(mlog.Error, "Failed to persist objects with error: %s", code.Name())
		return
	}
	if c.p.OffloadDeferredNack {
		for _, o := range objs {
			if !grouped[o.Key] {
				failed = append(failed, o)
			}
		}
	}
	if c.p.OffloadQueryFailsBucket || len(failed) == 0 {
		return
	}
	for i := range failed {
		failed[i].Size = -1 // StorageObjectMetadata{-1, 0, 0, -1, ""}: the NACK
	}
	if err := os.NotifyOffloadSuccess(ctx, c.id, c.fs.endpoint, failed); err != nil {
		c.logf(mlog.Warning, "[OFFLOAD] NotifyOffloadSuccess for failed tasks returned error: %s count: %d", c.code(err).Name(), len(failed))
	}
}

// offloadHeartbeat is Heartbeat's STEP 1: Client::OffloadObjectHeartbeat
// (client_service.cpp: "OffloadObjectHeartbeat failed, error code is",
// ERROR) and, on a failure, FileStorage's line. From 0.3.12 a
// SEGMENT_NOT_FOUND (the master expired the client or restarted)
// re-mounts the LOCAL_DISK segment, beats again and re-registers the keys
// on disk (Profile.OffloadHeartbeatRemount; file_storage.cpp
// v0.3.12.post1:785-831, 3b5a594:931-989, which also reports the SSD
// capacity first). ok is false when the heartbeat ends here.
func (c *RealClient) offloadHeartbeat(ctx context.Context, os master.OffloadService) ([]master.OffloadObject, bool) {
	objs, err := os.OffloadObjectHeartbeat(ctx, c.id)
	if err == nil {
		return objs, true
	}
	code := c.code(err)
	c.logf(mlog.Error, "OffloadObjectHeartbeat failed, error code is %s", code.Name())
	if code != mooncake.SEGMENT_NOT_FOUND || !c.p.OffloadHeartbeatRemount {
		c.logf(mlog.Error, "Failed to send heartbeat with error: %s", code.Name())
		return nil, false
	}
	c.logf(mlog.Warning, "OffloadObjectHeartbeat returned SEGMENT_NOT_FOUND, attempting to re-register local disk segment and re-register object metadata")
	if err := os.MountLocalDiskSegment(ctx, c.id); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "MountLocalDiskSegment failed, error code is %s", code.Name())
		c.logf(mlog.Error, "Failed to re-register local disk segment: %s", code.Name())
		return nil, false
	}
	if objs, err = os.OffloadObjectHeartbeat(ctx, c.id); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "OffloadObjectHeartbeat failed, error code is %s", code.Name())
		c.logf(mlog.Error, "Heartbeat failed after re-registration: %s", code.Name())
		return nil, false
	}
	c.logf(mlog.Info, "Triggering background metadata rescan after LOCAL_DISK segment re-registration")
	c.reRegisterOffloaded(ctx, os)
	return objs, true
}

// reRegisterOffloaded is FileStorage::ReRegisterOffloadedObjects
// (file_storage.cpp v0.3.12.post1), run on its own thread in real and
// here at once: ScanMeta from the first bucket, each batch's keys told to
// the master as this client's LOCAL_DISK replicas. ScanMeta calls its
// handler once also with no bucket on disk ("batch 1 with 0 keys", real
// 0.3.12.post1 … 0.3.14); the model hands every key over in that one
// batch (real: batches of scanmeta_iterator_keys_limit).
func (c *RealClient) reRegisterOffloaded(ctx context.Context, os master.OffloadService) {
	const p = "ReRegisterOffloadedObjects: "
	c.logf(mlog.Info, p+"starting ScanMeta to re-register offloaded objects with master")
	c.logf(mlog.Info, p+"about to call storage_backend_->ScanMeta()")
	var objs []master.OffloadObject
	for _, b := range c.fs.written {
		for _, k := range b.keys {
			if o, ok := c.fs.objects[k]; ok && o.bucket == b.id {
				objs = append(objs, master.OffloadObject{Key: k, Size: o.data.Size})
			}
		}
	}
	failures := 0
	if err := os.NotifyOffloadSuccess(ctx, c.id, c.fs.endpoint, objs); err != nil {
		failures = 1
		c.logf(mlog.Error, p+"NotifyOffloadSuccess failed for batch 1 with %d keys, error: %s", len(objs), c.code(err).Name())
		c.logf(mlog.Info, p+"ScanMeta returned. success=0")
		c.logf(mlog.Error, p+"ScanMeta failed: %s", c.code(err).Name())
		c.logf(mlog.Error, "Background metadata rescan failed: %s", c.code(err).Name())
		return
	}
	c.logf(mlog.Info, p+"NotifyOffloadSuccess succeeded for batch 1 with %d keys", len(objs))
	c.logf(mlog.Info, p+"ScanMeta returned. success=1")
	c.logf(mlog.Info, p+"completed. total_keys=%d total_batches=1 total_failures=%d", len(objs), failures)
}

// missing is each key of batch that bucket does not hold, as a task.
func missing(batch []string, bucket []offloaded) []master.OffloadObject {
	var out []master.OffloadObject
	for _, k := range batch {
		if !slices.ContainsFunc(bucket, func(b offloaded) bool { return b.key == k }) {
			out = append(out, master.OffloadObject{Key: k})
		}
	}
	return out
}

// offloaded is one key of a bucket to write, read from its memory replica.
type offloaded struct {
	key  string
	data hostmem.Content
}

// writeBucket is BucketStorageBackend::BatchOffload with its complete
// handler (storage_backend.cpp v0.3.11.post1:1281-1378): the bucket's
// files written, the master told (NotifyOffloadSuccess), then the keys
// committed to object_bucket_map_ unless one is there already: then the
// bucket's files go and the master keeps listing its keys on this disk
// (OffloadNotifyBeforeCommit, the "Key not found" / INVALID_KEY of a later
// read: Mooncake#2799, #2827). From v0.3.12 such a bucket is refused
// before anything is written (PrepareEviction's write_keys) and its keys
// committed before the master is told.
func (c *RealClient) writeBucket(ctx context.Context, os master.OffloadService, bucket []offloaded) mooncake.ErrorCode {
	fs := c.fs
	fs.buckets++ // BatchOffload takes its id (NextId) first
	id := fs.buckets
	dup := slices.IndexFunc(bucket, func(b offloaded) bool { _, ok := fs.objects[b.key]; return ok })
	if dup >= 0 && !c.p.OffloadNotifyBeforeCommit {
		return mooncake.OBJECT_ALREADY_EXISTS
	}
	objs := make([]master.OffloadObject, len(bucket))
	meta := &bucketMeta{id: id, meta: 16}
	if c.p.BucketEvictV2 {
		meta.meta = 24
	}
	for i, b := range bucket {
		objs[i] = master.OffloadObject{Key: b.key, Size: b.data.Size}
		meta.keys = append(meta.keys, b.key)
		meta.size += b.data.Size + int64(len(b.key))
		if c.p.BucketEvictV2 {
			meta.size += 8
		}
		meta.meta += int64(len(b.key))
	}
	c.evictBuckets(ctx, os, meta.size)
	stored := storedBucket{bucketMeta: *meta}
	for _, b := range bucket {
		stored.data = append(stored.data, b.data)
	}
	fs.disk.write(fs.bucketPath(id))
	fs.disk.writeMeta(fs.metaPath(id), stored)
	if err := os.NotifyOffloadSuccess(ctx, c.id, fs.endpoint, objs); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "NotifyOffloadSuccess failed with error: %s", code.Name())
		c.logf(mlog.Error, "Complete handler failed: %s, Key count: %d, Bucket id: %d", code.Name(), len(objs), id)
		return code
	}
	if dup >= 0 {
		// The pre-check after the master was told (:1347-1361), then
		// CleanupOrphanedBucket (:2132-2160).
		c.logf(mlog.Warning, "Duplicate key detected in BatchOffload: %s, bucket_id=%d. Returning OBJECT_ALREADY_EXISTS.", bucket[dup].key, id)
		for _, f := range []string{fs.bucketPath(id), fs.metaPath(id)} {
			fs.disk.remove(f)
		}
		c.logf(mlog.Info, "Cleaned up orphaned bucket data file: %s", fs.bucketPath(id))
		c.logf(mlog.Info, "Cleaned up orphaned bucket metadata file: %s", fs.metaPath(id))
		return mooncake.OBJECT_ALREADY_EXISTS
	}
	for _, b := range bucket {
		fs.objects[b.key] = diskObject{bucket: id, data: b.data}
	}
	fs.total += meta.size + meta.meta
	fs.written = append(fs.written, meta)
	return mooncake.OK
}

// evictBuckets is BatchOffload's eviction before a bucket of required
// bytes is written (storage_backend.cpp v0.3.11.post1:1315-1328,
// PrepareEviction :2209-2262, FinalizeEviction :2264-2328): the oldest
// buckets (fifo) or the least recently read (lru) leave the maps until
// the new one fits under max_total_size, the master is told to drop their
// keys' LOCAL_DISK replicas of this client (BatchEvictDiskReplica; a
// failure is a warning a key), then their files are deleted.
func (c *RealClient) evictBuckets(ctx context.Context, os master.OffloadService, required int64) {
	fs := c.fs
	if fs.policy == "none" || fs.maxTotal <= 0 || len(fs.written) == 0 || fs.total+required <= fs.maxTotal {
		return
	}
	switch {
	case c.p.BucketEvictPhysical:
		c.logf(mlog.Info, "[Evict] triggered: total=%d/%d physical=0/0 required=%d disk_full=0", fs.total, fs.maxTotal, required)
	case c.p.BucketEvictV2:
		c.logf(mlog.Info, "[Evict] triggered: total=%d/%d required=%d disk_full=0", fs.total, fs.maxTotal, required)
	default:
		c.logf(mlog.Info, "[Evict] triggered: total=%d/%d required=%d", fs.total, fs.maxTotal, required)
	}
	gone, keys := fs.prepareEviction(required)
	c.logf(mlog.Info, "[Evict] prepared: buckets=%d keys=%d total_after=%d", len(gone), len(keys), fs.total)
	for i, err := range os.EvictDiskReplicas(ctx, c.id, keys) {
		if err != nil {
			c.logf(mlog.Warning, "Failed to notify master about evicted local disk key: %s, error: %s", keys[i], c.code(err).Name())
		}
	}
	for _, b := range gone {
		fs.disk.remove(fs.bucketPath(b.id))
		fs.disk.remove(fs.metaPath(b.id))
	}
	if c.p.BucketEvictV2 {
		c.logf(mlog.Info, "[Evict] finalized: attempted=%d cleanup_failed=0", len(gone))
	} else {
		c.logf(mlog.Info, "[Evict] finalized: deleted %d bucket(s)", len(gone))
	}
}

// prepareEviction takes buckets out of the maps until required more
// bytes fit: fifo the lowest id first, lru the least recently read
// (SelectEvictionCandidate). It returns them and their keys.
func (fs *fileStorage) prepareEviction(required int64) (gone []*bucketMeta, keys []string) {
	order := fs.written
	if fs.policy == "lru" {
		order = slices.Clone(fs.written)
		slices.SortStableFunc(order, func(a, b *bucketMeta) int { return cmp.Compare(a.lastRead, b.lastRead) })
	}
	for _, b := range order {
		if fs.total+required <= fs.maxTotal {
			break
		}
		for _, k := range b.keys {
			if o, ok := fs.objects[k]; ok && o.bucket == b.id {
				delete(fs.objects, k)
			}
		}
		fs.total -= b.size + b.meta
		gone = append(gone, b)
		keys = append(keys, b.keys...)
	}
	fs.written = slices.DeleteFunc(fs.written, func(b *bucketMeta) bool { return slices.Contains(gone, b) })
	return gone, keys
}

// metaPath is GetBucketMetadataPath.
func (fs *fileStorage) metaPath(id int64) string {
	return path.Join(fs.dir, strconv.FormatInt(id, 10)+".meta")
}

// bucketPath is GetBucketDataPath.
func (fs *fileStorage) bucketPath(id int64) string {
	return path.Join(fs.dir, strconv.FormatInt(id, 10)+".bucket")
}

// MaxSliceSize is kMaxSliceSize (types.h): cachelib's slab, 1<<24 bytes
// (Slab.h kNumSlabBits 24), less 16.
const MaxSliceSize = 1<<24 - 16

// allocateBatchSignature is how the assert names FileStorage::AllocateBatch
// (glibc's __assert_fail prints __PRETTY_FUNCTION__; real 0.3.11.post1).
const allocateBatchSignature = "tl::expected<std::shared_ptr<mooncake::FileStorage::AllocatedBatch>, mooncake::ErrorCode> mooncake::FileStorage::AllocateBatch(const std::vector<std::__cxx11::basic_string<char> >&, const std::vector<long int>&)"

// batchGetOffloadObject is the owner's batch_get_offload_object RPC:
// FileStorage::BatchGet → BucketStorageBackend::BatchLoad
// (real_client.cpp v0.3.11.post1:5415-5441, file_storage.cpp:300-315,
// :677-691, storage_backend.cpp:1399-1490). A key missing from
// object_bucket_map_ is INVALID_KEY, a bucket file that cannot be opened
// FILE_OPEN_FAIL; either fails the whole batch, in three lines.
func (c *RealClient) batchGetOffloadObject(keys []string, sizes []int64) ([]hostmem.Content, mooncake.ErrorCode) {
	fs := c.fs
	if line := c.p.OffloadReadAssertLine; line != 0 {
		// FileStorage::AllocateBatch, before any key is looked up.
		for _, s := range sizes {
			if s > MaxSliceSize {
				msg := fmt.Sprintf("python: /home/runner/work/Mooncake/Mooncake/mooncake-store/src/file_storage.cpp:%d: %s: Assertion `sizes[i] <= kMaxSliceSize' failed.", line, allocateBatchSignature)
				c.logf(mlog.Error, "%s", msg)
				c.died = abort(msg)
				return nil, mooncake.RPC_FAIL
			}
		}
	}
	// AllocateBatch then hands the batch its id (next_batch_id_, from 1),
	// before BatchLoad looks up a key (file_storage.cpp v0.3.11.post1:753-757).
	fs.batches++
	out := make([]hostmem.Content, len(keys))
	code := mooncake.OK
	for i, k := range keys {
		o, ok := fs.objects[k]
		switch {
		case !ok:
			c.logf(mlog.Error, "Key not found: %s", k)
			code = mooncake.INVALID_KEY
		case o.data.Size != sizes[i]:
			c.logf(mlog.Error, "Size mismatch for key: %s, expected: %d, got: %d", k, o.data.Size, sizes[i])
			code = mooncake.INVALID_PARAMS
		}
		if code != mooncake.OK {
			break
		}
		out[i] = o.data
	}
	for _, k := range keys {
		if code != mooncake.OK {
			break
		}
		if f := fs.bucketPath(fs.objects[k].bucket); !fs.disk.exists(f) {
			c.logf(mlog.Error, "Failed to open file: %s, errno=2 (No such file or directory)", f)
			c.logf(mlog.Error, "Failed to open bucket file: %s", f)
			code = mooncake.FILE_OPEN_FAIL
		}
	}
	if code == mooncake.OK {
		// BatchLoad touches each bucket it reads (lru_index_).
		for _, k := range keys {
			if i := slices.IndexFunc(fs.written, func(b *bucketMeta) bool { return b.id == fs.objects[k].bucket }); i >= 0 {
				fs.written[i].lastRead = c.d.Clock.Now()
			}
		}
	}
	if code != mooncake.OK {
		// FileStorage::BatchLoad's line, BatchGet's, then the RPC handler's.
		c.logf(mlog.Error, "Batch load object failed,err_code = %s", code.Name())
		c.logf(mlog.Error, "Batch load object failed,err_code = %s", code.Name())
		c.logf(mlog.Error, "Batch get offload object failed,err_code = %s", code.Name())
		return nil, code
	}
	return out, code
}

// ServesOffload reports whether this client's offload RPC server answers
// at endpoint (a live client set up with SSD offload).
func (c *RealClient) ServesOffload(endpoint string) bool {
	return c.fs != nil && !c.closed && c.died == nil && c.fs.endpoint == endpoint
}

// offloadRead is get's read of a LOCAL_DISK replica
// (batch_get_into_offload_object_internal, real_client.cpp
// v0.3.11.post1:5455-5505, get_buffer_internal :2548-2563): the owner's
// batch_get_offload_object RPC, then the bytes from its buffer. An owner
// that is gone (its process closed, the master not yet expired it) is the
// client pool's failed connects, RefusedPoolCost (real 0.3.11.post1:
// 4.3 s, docs/REAL-FINDINGS.md §47 item 3).
func (c *RealClient) offloadRead(ctx context.Context, key string, r master.Replica) (hostmem.Content, mooncake.ErrorCode) {
	var owner *RealClient
	if c.d.OffloadPeer != nil {
		owner = c.d.OffloadPeer(r.OffloadEndpoint)
	}
	c.diskReads++
	if owner == c && c.selfOffloadRead != nil {
		return c.selfOffloadRead(ctx, key, r)
	}
	var data []hostmem.Content
	code := mooncake.OK
	start := c.d.Clock.Now()
	if owner == nil {
		if err := c.d.Clock.Sleep(ctx, RefusedPoolCost); err != nil {
			return hostmem.Content{}, mooncake.INTERNAL_ERROR
		}
		c.logf(mlog.Error, "Dummy Client not available")
		code = mooncake.RPC_FAIL
	} else {
		data, code = owner.batchGetOffloadObject([]string{key}, []int64{r.Size})
		if c.died != nil {
			return hostmem.Content{}, code // the read was this process's own
		}
	}
	if code != mooncake.OK {
		c.logf(mlog.Error, "Failed to invoke batch_get_offload_object, client_addr = %s, error is: %s", r.OffloadEndpoint, code.Name())
		c.logf(mlog.Error, "Batch get offload object failed with error: %s", code.Name())
		c.logf(mlog.Error, "SSD read failed for key '%s': %s", key, code.Name())
		return hostmem.Content{}, code
	}
	// Every read that reached the owner's buffer logs its time
	// (real_client.cpp v0.3.11.post1:5487-5492, main@3b5a594:6907-6912;
	// real prints it after each offload read, REAL-FINDINGS §73) with the
	// batch id the owner handed out and FileStorageConfig's
	// client_buffer_gc_ttl_ms default (MOONCAKE_OFFLOAD_CLIENT_BUFFER_GC_TTL_MS
	// is not modelled).
	c.logf(mlog.Info, "Time taken for batch_get_into_offload_object_internal: %dms, with target_rpc_service_addr: %s, key size: 1, batch_id: %d, gc ttl: %dms.",
		(c.d.Clock.Now() - start).Milliseconds(), r.OffloadEndpoint, owner.fs.batches, offloadBufferGCTTL.Milliseconds())
	return data[0], mooncake.OK
}

// offloadBufferGCTTL is client_buffer_gc_ttl_ms's default (storage_backend.h
// v0.3.10.post2 … main@3b5a594: 5000).
const offloadBufferGCTTL = 5 * time.Second

// group is GroupOffloadingKeysByBucket (storage_backend.cpp
// v0.3.11.post1): buckets of at most keysLimit keys and sizeLimit bytes,
// the keys held back first; a key already on disk or larger than a
// bucket is skipped; a last bucket that is not full waits for the next
// heartbeat. A key held back and drained again is grouped twice up to
// 0.3.12 (it is not on disk yet when grouped), once from 0.3.13
// (OffloadCarryoverDedup: 3b5a594 skips the drained copy; 0.3.14 drops
// the held one, "Deferred offload key re-drained before re-emission").
func (fs *fileStorage) group(objs []master.OffloadObject, p mooncake.Profile, logf func(string, string, ...any)) [][]string {
	var buckets [][]string
	if fs.keysLimit < 1 {
		return nil // BucketBackendConfig::Validate refused it at setup (invalid)
	}
	if p.OffloadCarryoverDedup && len(objs) > 0 {
		held := func(o master.OffloadObject) bool {
			return slices.ContainsFunc(fs.ungrouped, func(u master.OffloadObject) bool { return u.Key == o.Key })
		}
		if p.OffloadDeferredNack {
			objs = slices.DeleteFunc(slices.Clone(objs), held)
		} else {
			fs.ungrouped = slices.DeleteFunc(fs.ungrouped, func(u master.OffloadObject) bool {
				return slices.ContainsFunc(objs, func(o master.OffloadObject) bool { return o.Key == u.Key })
			})
		}
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
			if _, ok := fs.objects[o.Key]; ok {
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
// have a memory replica in this client's own segments, whose bytes the
// bucket takes. Up to v0.3.11.post1 the first key without one fails the
// bucket (its query's error, or INVALID_KEY when only other replicas are
// listed), which is then not written; from v0.3.12 such a key is skipped
// without a word.
func (c *RealClient) queryBucket(ctx context.Context, ms master.Service, keys []string) ([]offloaded, bool) {
	if len(keys) == 0 && c.p.OffloadQueryFailsBucket {
		// BatchQuery([]) is an empty vector, which BatchQuerySegmentSlices
		// takes for a failure up to v0.3.11.post1 (:711-713; from v0.3.12
		// it returns OK): the empty heartbeat of a backend other than the
		// bucket one (Profile.OffloadSkipsEmptyHeartbeat).
		c.logf(mlog.Error, "BatchQuerySlices failed with error: %s", mooncake.INVALID_REPLICA.Name())
		return nil, false
	}
	var out []offloaded
	for _, k := range keys {
		reps, err := ms.GetReplicaList(ctx, k)
		code := mooncake.OK
		var local *master.Replica
		switch {
		case err != nil:
			code = c.code(err)
		default:
			if local = c.localMemory(reps); local == nil {
				code = mooncake.INVALID_KEY
			}
		}
		if code == mooncake.OK {
			data, err := c.d.Mem.ReadContent(local.Addr, local.Size)
			if err != nil {
				data = hostmem.Content{Size: local.Size}
			}
			out = append(out, offloaded{key: k, data: data})
			continue
		}
		if !c.p.OffloadQueryFailsBucket {
			continue
		}
		c.logf(mlog.Error, "Key not found: %s", k)
		c.logf(mlog.Error, "BatchQuerySlices failed with error: %s", code.Name())
		return nil, false
	}
	return out, true
}

// localMemory is the replica that lies in one of this client's mounted
// segments (Client::IsReplicaOnLocalMemory), or nil.
func (c *RealClient) localMemory(reps []master.Replica) *master.Replica {
	for i, r := range reps {
		for _, s := range c.segments {
			if !r.LocalDisk() && r.SegmentName == s.Name {
				return &reps[i]
			}
		}
	}
	return nil
}
