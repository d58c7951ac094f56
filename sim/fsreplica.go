package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// PutEndDisk is PutEnd(key, ReplicaType::DISK), a storage backend's
// report that it wrote a DISK replica's file (master.FsReplicaService).
func (s *masterStub) PutEndDisk(ctx context.Context, key string) error {
	return s.call(ctx, master.RPC{Op: "PutEnd", Keys: []string{key}}, func(m *master.Master) error { return m.PutEndDisk(ctx, key) })
}

var _ master.FsReplicaService = (*masterStub)(nil)
