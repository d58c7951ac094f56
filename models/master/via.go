package master

import "context"

// Via is a Service whose every call goes through Do: the caller's
// transport decides whether, when and how the call reaches a Service (sim:
// a simulated link to the master model; fake: a socket, with the world
// gate released). op is the RPC's name. The one set of pass-throughs both
// engines share.
type Via struct {
	Do func(ctx context.Context, rpc RPC, call func(Service) error) error
}

// RPC names one master call and the keys it carries (their lengths size
// the message: mooncake.WireTable).
type RPC struct {
	Op   string
	Keys []string
}

var _ Service = Via{}

func (v Via) ServiceReady(ctx context.Context) (r string, err error) {
	err = v.Do(ctx, RPC{Op: "ServiceReady"}, func(m Service) (e error) { r, e = m.ServiceReady(ctx); return })
	return
}

func (v Via) GetStorageConfig(ctx context.Context) (r StorageConfig, err error) {
	err = v.Do(ctx, RPC{Op: "GetStorageConfig"}, func(m Service) (e error) { r, e = m.GetStorageConfig(ctx); return })
	return
}

func (v Via) MountSegment(ctx context.Context, seg Segment, id UUID) error {
	return v.Do(ctx, RPC{Op: "MountSegment"}, func(m Service) error { return m.MountSegment(ctx, seg, id) })
}

func (v Via) ReMountSegment(ctx context.Context, segs []Segment, id UUID) error {
	return v.Do(ctx, RPC{Op: "ReMountSegment"}, func(m Service) error { return m.ReMountSegment(ctx, segs, id) })
}

func (v Via) UnmountSegment(ctx context.Context, sid, id UUID) error {
	return v.Do(ctx, RPC{Op: "UnmountSegment"}, func(m Service) error { return m.UnmountSegment(ctx, sid, id) })
}

func (v Via) Ping(ctx context.Context, id UUID) (r PingResponse, err error) {
	err = v.Do(ctx, RPC{Op: "Ping"}, func(m Service) (e error) { r, e = m.Ping(ctx, id); return })
	return
}

func (v Via) ExistKey(ctx context.Context, key string) (r bool, err error) {
	err = v.Do(ctx, RPC{Op: "ExistKey", Keys: []string{key}}, func(m Service) (e error) { r, e = m.ExistKey(ctx, key); return })
	return
}

func (v Via) BatchExistKey(ctx context.Context, keys []string) (r []ExistResult, err error) {
	err = v.Do(ctx, RPC{Op: "BatchExistKey", Keys: keys}, func(m Service) (e error) { r, e = m.BatchExistKey(ctx, keys); return })
	return
}

func (v Via) PutStart(ctx context.Context, key string, size int64, cfg ReplicateConfig) (r []Replica, err error) {
	err = v.Do(ctx, RPC{Op: "PutStart", Keys: []string{key}}, func(m Service) (e error) { r, e = m.PutStart(ctx, key, size, cfg); return })
	return
}

func (v Via) PutEnd(ctx context.Context, key string) error {
	return v.Do(ctx, RPC{Op: "PutEnd", Keys: []string{key}}, func(m Service) error { return m.PutEnd(ctx, key) })
}

func (v Via) PutRevoke(ctx context.Context, key string) error {
	return v.Do(ctx, RPC{Op: "PutRevoke", Keys: []string{key}}, func(m Service) error { return m.PutRevoke(ctx, key) })
}

func (v Via) GetReplicaList(ctx context.Context, key string) (r []Replica, err error) {
	err = v.Do(ctx, RPC{Op: "GetReplicaList", Keys: []string{key}}, func(m Service) (e error) { r, e = m.GetReplicaList(ctx, key); return })
	return
}

func (v Via) Remove(ctx context.Context, key string) error {
	return v.Do(ctx, RPC{Op: "Remove", Keys: []string{key}}, func(m Service) error { return m.Remove(ctx, key) })
}
