package master

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// DefaultClusterID is --cluster_id's default (DEFAULT_CLUSTER_ID): the
// subdirectory of --root_fs_dir the master hands out as fsdir.
const DefaultClusterID = "mooncake_cluster"

// FsReplicaService is the DISK replica's part of the RPC surface:
// PutEnd(key, ReplicaType::DISK), which a client's storage backend calls
// once it wrote the object's file under --root_fs_dir. A Service without
// it never completes a DISK replica.
type FsReplicaService interface {
	PutEndDisk(ctx context.Context, key string) error
}

// Disk reports a DISK replica (Replica::is_disk_replica): a file under
// --root_fs_dir.
func (r Replica) Disk() bool { return r.FilePath != "" }

// fsReplica is an object's DISK replica under --root_fs_dir
// (DiskReplicaData): PutStart allocates it PROCESSING after the memory
// replicas (master_service.cpp v0.3.10.post1:817-823); the client's
// storage backend writes the file and calls PutEnd(DISK)
// (client_service.cpp :2195-2257), which completes it.
type fsReplica struct {
	path     string // "" = none (no --root_fs_dir)
	complete bool
	// repinned: Profile.FsReplicaRepins' second pin of the memory
	// replica, which the bucket report does not take back.
	repinned bool
	// localDiskFirst: BatchEvict erased the memory replicas through
	// ObjectMetadata::PopReplicas, whose std::partition is not stable: it
	// swaps the last replica, LOCAL_DISK, to the front, so [MEMORY, DISK,
	// LOCAL_DISK] is left [LOCAL_DISK, DISK] (master_service.h
	// v0.3.10.post1:543-560, EraseReplicas; BatchEvict :3000-3005).
	localDiskFirst bool
}

// storageConfig is GetStorageConfig's answer: fsdir is root_fs_dir/cluster_id
// (GetFsdir), with the master's disk-eviction defaults (real 0.3.9 …
// 0.3.11.post1 clients print "Disk eviction enabled: 1", "Quota bytes: 0").
func (m *Master) storageConfig() StorageConfig {
	if m.cfg.RootFsDir == "" {
		return StorageConfig{}
	}
	return StorageConfig{FSDir: m.cfg.RootFsDir + "/" + DefaultClusterID, EnableDiskEviction: true}
}

// newFsReplica is PutStart's DISK replica of key, if --root_fs_dir is
// set. The path is symbolic (ResolvePathFromKey hashes the key into two
// directory levels; nothing prints it).
func (m *Master) newFsReplica(key string) fsReplica {
	if m.cfg.RootFsDir == "" {
		return fsReplica{}
	}
	return fsReplica{path: m.storageConfig().FSDir + "/" + key}
}

// place puts the complete DISK replica into GetReplicaList's answer reps,
// whose first nmem are memory replicas and the rest LOCAL_DISK: after
// them, or after the LOCAL_DISK one that eviction moved to the front.
func (f fsReplica) place(reps []Replica, nmem int, size int64) []Replica {
	if !f.complete {
		return reps
	}
	d := Replica{Size: size, Complete: true, FilePath: f.path}
	if f.localDiskFirst && nmem == 0 {
		return append(reps, d)
	}
	out := append([]Replica(nil), reps[:nmem]...)
	out = append(out, d)
	return append(out, reps[nmem:]...)
}

// afterMemoryErased records the order eviction leaves (localDiskFirst).
func (f *fsReplica) afterMemoryErased(localDisk bool) {
	if f.complete && localDisk {
		f.localDiskFirst = true
	}
}

// PutEndDisk implements FsReplicaService: PutEnd(key, DISK) completes the
// DISK replica, then, as every PutEnd with --enable_offload, visits the
// complete replicas for the offloading queue; up to v0.3.10.post2 the
// memory replica, already queued and pinned by its own PutEnd, is pinned
// again (Profile.FsReplicaRepins).
func (m *Master) PutEndDisk(_ context.Context, key string) error {
	now := m.catchUp()
	m.metrics.putEnd++
	o, ok := m.objects[key]
	if !ok {
		m.metrics.putEndFail++
		m.log.Log(mlog.Error, fmt.Sprintf("key=%s, error=object_not_found", key))
		return mooncake.OBJECT_NOT_FOUND
	}
	if o.fs.path != "" {
		o.fs.complete = true
	}
	o.lastTouch = now
	if m.cfg.Version.FsReplicaRepins && m.cfg.EnableOffload && o.complete && m.queuedForOffload(o) {
		o.fs.repinned = true
	}
	return nil
}

// queuedForOffload: one of o's memory replicas lies in a segment whose
// client mounted a local disk segment (PushOffloadingQueue succeeds).
func (m *Master) queuedForOffload(o *object) bool {
	for _, r := range o.replicas {
		for _, s := range m.segments {
			if _, ok := m.offloading[s.client]; ok && s.Name == r.SegmentName {
				return true
			}
		}
	}
	return false
}

var _ FsReplicaService = (*Master)(nil)

// WithoutBatch is ctx outside any batch call: a storage backend's
// PutEnd(DISK) is an RPC of its own, from its write thread.
func WithoutBatch(ctx context.Context) context.Context {
	return context.WithValue(ctx, batchKey{}, (*Batch)(nil))
}
