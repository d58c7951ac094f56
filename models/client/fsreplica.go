package client

import (
	"context"
	"path"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// ExpectedDiskDescriptor is what replica.h's get_disk_descriptor throws
// on a replica that is not a DISK one (std::runtime_error, v0.3.8.post1 …
// 3b5a594).
const ExpectedDiskDescriptor = "Expected DiskDescriptor"

// rootFSBackend is a client's storage backend for the master's
// --root_fs_dir (Client::PrepareStorageBackend from GetStorageConfig's
// fsdir; client_service.cpp v0.3.10.post1:553-603): it writes every
// object's DISK replica as a file there.
type rootFSBackend struct {
	dir string // fsdir; "" = none
	// threw is what the last read threw (get_disk_descriptor), until the
	// handler that ran it answers (Standalone.handlerThrew).
	threw string
	// tempReads counts batch reads of DISK replicas through a temporary
	// buffer (Profile.BatchGetDiskTempBuffer): the timing line counts
	// them in neither count.
	tempReads int
}

// prepareStorageBackend is setup's storage backend for cfg.FSDir, with
// its lines (real 0.3.9 … 0.3.11.post1; then StorageBackend::Init's
// "Init: Quota: <free bytes of the disk>, …", which the model omits).
func (c *RealClient) prepareStorageBackend(cfg master.StorageConfig) {
	root, sub := path.Split(cfg.FSDir)
	c.logf(mlog.Info, "Storage root directory is: %s", path.Clean(root))
	c.logf(mlog.Info, "Fs subdir is: %s", sub)
	c.logf(mlog.Info, "Disk eviction enabled: %d", b2i(cfg.EnableDiskEviction))
	c.logf(mlog.Info, "Quota bytes: %d", cfg.QuotaBytes)
	c.logf(mlog.Info, "Reconstructing storage state from disk at: %q", cfg.FSDir)
	c.rootFS.dir = cfg.FSDir
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// putToLocalFile is Client::PutToLocalFile after a put's PutEnd: the
// object's file is written under fsdir and the DISK replica's PutEnd
// sent (on the write thread in real, where it races the memory replica's
// PutEnd; either order pins the memory replica twice under
// Profile.FsReplicaRepins, so the model sends it after).
func (c *RealClient) putToLocalFile(ctx context.Context, key string, data hostmem.Content) {
	fs, ok := c.ms.(master.FsReplicaService)
	if c.rootFS.dir == "" || !ok {
		return
	}
	c.d.Disk.writeObject(c.rootFS.dir+"/"+key, data)
	if err := fs.PutEndDisk(master.WithoutBatch(ctx), key); err != nil {
		c.rpcLog(err)
		c.logf(mlog.Error, "Failed to end put operation for key: %s", key)
	}
}

// readFsReplica chooses among a key's replicas when one is a DISK
// replica (reps as GetReplicaList ordered them). Up to v0.3.10.post2
// (Profile.BatchGetFirstComplete) the first complete one is read: a
// LOCAL_DISK one among several goes to Client::BatchGet / Client::Get,
// whose file read takes its disk descriptor and throws (c.rootFS.threw,
// INTERNAL_ERROR here; what a caller in the same process sees is not
// modelled: real was run only through mooncake_client). From v0.3.11
// SelectBestReplica prefers memory, then LOCAL_DISK, then DISK. A DISK
// replica chosen is read from its file (done); otherwise the DISK
// replicas are dropped from reps for the memory and offload reads.
func (c *RealClient) readFsReplica(ctx context.Context, key string, reps *[]master.Replica) (hostmem.Content, mooncake.ErrorCode, bool) {
	var chosen *master.Replica
	hasDisk := false
	for i, r := range *reps {
		if !r.Complete {
			continue
		}
		hasDisk = hasDisk || r.Disk()
		if chosen == nil || !c.p.BatchGetFirstComplete && replicaRank(r) < replicaRank(*chosen) {
			chosen = &(*reps)[i]
		}
	}
	if !hasDisk {
		return hostmem.Content{}, mooncake.OK, false
	}
	if chosen.LocalDisk() && len(*reps) > 1 && c.p.BatchGetFirstComplete {
		c.rootFS.threw = ExpectedDiskDescriptor
		return hostmem.Content{}, mooncake.INTERNAL_ERROR, true
	}
	if chosen.Disk() {
		batch := master.BatchOf(ctx) != nil || ctx.Value(dummyBatchGetKey{}) != nil
		if batch && c.p.BatchGetDiskTempBuffer {
			c.rootFS.tempReads++
			if chosen.Size > c.localBufferSize() {
				c.logf(mlog.Error, "Failed to allocate temp buffer for DISK read, key: %s, size: %d", key, chosen.Size)
				return hostmem.Content{}, mooncake.NO_AVAILABLE_HANDLE, true
			}
		}
		// The file was written before its PutEnd; an object file the
		// model lacks reads as its size of unknown bytes.
		data, ok := c.d.Disk.readObject(chosen.FilePath)
		if !ok {
			data = hostmem.Content{Size: chosen.Size}
		}
		return data, mooncake.OK, true
	}
	kept := (*reps)[:0:0]
	for _, r := range *reps {
		if !r.Disk() {
			kept = append(kept, r)
		}
	}
	*reps = kept
	return hostmem.Content{}, mooncake.OK, false
}

// replicaRank is SelectBestReplica's preference (real_client.cpp
// v0.3.11:286-312): memory, then LOCAL_DISK, then DISK.
func replicaRank(r master.Replica) int {
	switch {
	case r.LocalDisk():
		return 1
	case r.Disk():
		return 2
	}
	return 0
}

// handlerThrew is coro_rpc's answer for a handler whose read threw:
// mooncake_client's server logs it (WARNING) and the caller gets the
// exception's text (real 0.3.9: "rpc route/execute error, error msg:
// Expected DiskDescriptor", then the dummy's "Batch RPC call failed:
// Expected DiskDescriptor" and -900 RPC_FAIL).
func (s *Standalone) handlerThrew() error {
	what := s.rootFS.threw
	if what == "" {
		return nil
	}
	s.rootFS.threw = ""
	s.logf(mlog.Warning, "rpc route/execute error, error msg: %s", what)
	return &master.RPCError{Kind: master.Threw, Op: BatchGetIntoHelper, Text: what}
}

// writeObject stores a --root_fs_dir object file (LocalFileStorage's
// StoreObject).
func (d *OffloadDisk) writeObject(f string, data hostmem.Content) {
	if d == nil {
		return
	}
	if d.objects == nil {
		d.objects = map[string]hostmem.Content{}
	}
	d.objects[f] = data
}

// readObject is a --root_fs_dir object file's contents.
func (d *OffloadDisk) readObject(f string) (hostmem.Content, bool) {
	if d == nil {
		return hostmem.Content{}, false
	}
	data, ok := d.objects[f]
	return data, ok
}
