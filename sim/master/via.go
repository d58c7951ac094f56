package master

import "context"

// Via is a Service whose every call goes through Do: the caller's
// transport decides whether, when and how the call reaches a Service (sim:
// a simulated link to the master model; fake: a socket, with the world
// gate released). op is the RPC's name. The one set of pass-throughs both
// engines share.
type Via struct {
	Do func(ctx context.Context, op string, call func(Service) error) error
}

var _ Service = Via{}

func (v Via) ServiceReady(ctx context.Context) (r string, err error) {
	err = v.Do(ctx, "ServiceReady", func(m Service) (e error) { r, e = m.ServiceReady(ctx); return })
	return
}

func (v Via) GetStorageConfig(ctx context.Context) (r StorageConfig, err error) {
	err = v.Do(ctx, "GetStorageConfig", func(m Service) (e error) { r, e = m.GetStorageConfig(ctx); return })
	return
}

func (v Via) MountSegment(ctx context.Context, seg Segment, id UUID) error {
	return v.Do(ctx, "MountSegment", func(m Service) error { return m.MountSegment(ctx, seg, id) })
}

func (v Via) ReMountSegment(ctx context.Context, segs []Segment, id UUID) error {
	return v.Do(ctx, "ReMountSegment", func(m Service) error { return m.ReMountSegment(ctx, segs, id) })
}

func (v Via) UnmountSegment(ctx context.Context, sid, id UUID) error {
	return v.Do(ctx, "UnmountSegment", func(m Service) error { return m.UnmountSegment(ctx, sid, id) })
}

func (v Via) Ping(ctx context.Context, id UUID) (r PingResponse, err error) {
	err = v.Do(ctx, "Ping", func(m Service) (e error) { r, e = m.Ping(ctx, id); return })
	return
}

func (v Via) ExistKey(ctx context.Context, key string) (r bool, err error) {
	err = v.Do(ctx, "ExistKey", func(m Service) (e error) { r, e = m.ExistKey(ctx, key); return })
	return
}

func (v Via) BatchExistKey(ctx context.Context, keys []string) (r []ExistResult, err error) {
	err = v.Do(ctx, "BatchExistKey", func(m Service) (e error) { r, e = m.BatchExistKey(ctx, keys); return })
	return
}

func (v Via) PutStart(ctx context.Context, key string, size int64, cfg ReplicateConfig) (r []Replica, err error) {
	err = v.Do(ctx, "PutStart", func(m Service) (e error) { r, e = m.PutStart(ctx, key, size, cfg); return })
	return
}

func (v Via) PutEnd(ctx context.Context, key string) error {
	return v.Do(ctx, "PutEnd", func(m Service) error { return m.PutEnd(ctx, key) })
}

func (v Via) PutRevoke(ctx context.Context, key string) error {
	return v.Do(ctx, "PutRevoke", func(m Service) error { return m.PutRevoke(ctx, key) })
}

func (v Via) GetReplicaList(ctx context.Context, key string) (r []Replica, err error) {
	err = v.Do(ctx, "GetReplicaList", func(m Service) (e error) { r, e = m.GetReplicaList(ctx, key); return })
	return
}

func (v Via) Remove(ctx context.Context, key string) error {
	return v.Do(ctx, "Remove", func(m Service) error { return m.Remove(ctx, key) })
}
