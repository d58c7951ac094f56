package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Master RPC method names: mooncake_master's handler names
// (rpc_service.cpp RegisterRpcService).
const (
	MServiceReady     = "ServiceReady"
	MGetStorageConfig = "GetStorageConfig"
	MMountSegment     = "MountSegment"
	MReMountSegment   = "ReMountSegment"
	MUnmountSegment   = "UnmountSegment"
	MPing             = "Ping"
	MExistKey         = "ExistKey"
	MBatchExistKey    = "BatchExistKey"
	MPutStart         = "PutStart"
	MPutEnd           = "PutEnd"
	MPutRevoke        = "PutRevoke"
	MGetReplicaList   = "GetReplicaList"
	MRemove           = "Remove"
)

// Request bodies of the master methods.
type (
	mountReq struct {
		Segment  master.Segment `json:"segment"`
		ClientID master.UUID    `json:"client_id"`
	}
	remountReq struct {
		Segments []master.Segment `json:"segments"`
		ClientID master.UUID      `json:"client_id"`
	}
	unmountReq struct {
		SegmentID master.UUID `json:"segment_id"`
		ClientID  master.UUID `json:"client_id"`
	}
	clientReq struct {
		ClientID master.UUID `json:"client_id"`
	}
	keyReq struct {
		Key string `json:"key"`
	}
	getReplicaReq struct {
		Key string `json:"key"`
		// Batch: the key's place in a batch read (the master logs a
		// key it does not find, Profile.BatchGetMissErrors).
		Batch *master.BatchPos `json:"batch,omitempty"`
	}
	keysReq struct {
		Keys []string `json:"keys"`
	}
	putStartReq struct {
		Key    string                 `json:"key"`
		Size   int64                  `json:"size"`
		Config master.ReplicateConfig `json:"config"`
		// Batch: the key's place in a batch call (the master warns once
		// at its end).
		Batch *master.BatchPos `json:"batch,omitempty"`
	}
	existWire struct {
		Exists bool `json:"exists"`
		Code   int  `json:"code"`
	}
)

// MasterServer serves a master.Service (the models/master model) over the wire
// protocol. Every call holds lock, since the model is single-threaded.
type MasterServer struct {
	srv *wire.Server
}

// NewMasterServer registers every master method. get returns the current
// model (a restart swaps it), called under lock.
func NewMasterServer(lock sync.Locker, get func() master.Service, logger *slog.Logger) *MasterServer {
	s := wire.NewServer("master", logger)
	handle := func(name string, fn func(ctx context.Context, m master.Service, p json.RawMessage) (any, error)) {
		s.Handle(name, func(ctx context.Context, p json.RawMessage) (any, error) {
			lock.Lock()
			defer lock.Unlock()
			return fn(ctx, get(), p)
		})
	}
	handle(MServiceReady, func(ctx context.Context, m master.Service, _ json.RawMessage) (any, error) {
		return m.ServiceReady(ctx)
	})
	handle(MGetStorageConfig, func(ctx context.Context, m master.Service, _ json.RawMessage) (any, error) {
		return m.GetStorageConfig(ctx)
	})
	handle(MMountSegment, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r mountReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.MountSegment(ctx, r.Segment, r.ClientID)
	})
	handle(MReMountSegment, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r remountReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.ReMountSegment(ctx, r.Segments, r.ClientID)
	})
	handle(MUnmountSegment, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r unmountReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.UnmountSegment(ctx, r.SegmentID, r.ClientID)
	})
	handle(MPing, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r clientReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return m.Ping(ctx, r.ClientID)
	})
	handle(MExistKey, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r keyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return m.ExistKey(ctx, r.Key)
	})
	handle(MBatchExistKey, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r keysReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		res, err := m.BatchExistKey(ctx, r.Keys)
		if err != nil {
			return nil, err
		}
		out := make([]existWire, len(res))
		for i, e := range res {
			out[i] = existWire{Exists: e.Exists, Code: int(codeOf(e.Err))}
		}
		return out, nil
	})
	handle(MPutStart, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r putStartReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		if r.Batch != nil {
			ctx = master.WithBatchPos(ctx, *r.Batch)
		}
		return m.PutStart(ctx, r.Key, r.Size, r.Config)
	})
	handle(MPutEnd, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r keyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.PutEnd(ctx, r.Key)
	})
	handle(MPutRevoke, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r keyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.PutRevoke(ctx, r.Key)
	})
	handle(MGetReplicaList, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r getReplicaReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		if r.Batch != nil {
			ctx = master.WithBatchPos(ctx, *r.Batch)
		}
		return m.GetReplicaList(ctx, r.Key)
	})
	handle(MRemove, func(ctx context.Context, m master.Service, p json.RawMessage) (any, error) {
		var r keyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, m.Remove(ctx, r.Key)
	})
	return &MasterServer{srv: s}
}

func decode(p json.RawMessage, v any) error {
	if err := json.Unmarshal(p, v); err != nil {
		return fmt.Errorf("bad params: %w", err)
	}
	return nil
}

// codeOf turns a model error into its code; a non-code error is
// INTERNAL_ERROR (the model only returns codes).
func codeOf(err error) mooncake.ErrorCode {
	if err == nil {
		return mooncake.OK
	}
	var c mooncake.ErrorCode
	if errors.As(err, &c) {
		return c
	}
	return mooncake.INTERNAL_ERROR
}

// Listen binds addr ("127.0.0.1:0") and serves until Close.
func (s *MasterServer) Listen(ctx context.Context, addr string) error { return s.srv.Listen(ctx, addr) }

// Addr is the bound host:port.
func (s *MasterServer) Addr() string { return s.srv.Addr() }

// Close stops the server; connections are dropped.
func (s *MasterServer) Close() error { return s.srv.Close() }

// Pause holds every request until Resume (SIGSTOP).
func (s *MasterServer) Pause() { s.srv.Pause() }

// Resume releases held requests (SIGCONT).
func (s *MasterServer) Resume() { s.srv.Resume() }

// SetAdmit decides each connection's fate at its first request (an RDMA
// master and a TCP client: wire.AdmitFunc). Call before Listen.
func (s *MasterServer) SetAdmit(admit wire.AdmitFunc, exited func()) { s.srv.SetAdmit(admit, exited) }

// MasterStub is master.Service over the wire: each method is one call on a
// fresh connection to Addr with wall-time timeouts T.
type MasterStub struct {
	Addr string
	T    wire.Timeouts
}

var _ master.Service = MasterStub{}

func (m MasterStub) call(ctx context.Context, method string, params, result any) error {
	return wire.Call(ctx, m.Addr, m.T, method, params, result)
}

// ServiceReady implements master.Service.
func (m MasterStub) ServiceReady(ctx context.Context) (string, error) {
	var v string
	err := m.call(ctx, MServiceReady, nil, &v)
	return v, err
}

// GetStorageConfig implements master.Service.
func (m MasterStub) GetStorageConfig(ctx context.Context) (master.StorageConfig, error) {
	var v master.StorageConfig
	err := m.call(ctx, MGetStorageConfig, nil, &v)
	return v, err
}

// MountSegment implements master.Service.
func (m MasterStub) MountSegment(ctx context.Context, seg master.Segment, id master.UUID) error {
	return m.call(ctx, MMountSegment, mountReq{Segment: seg, ClientID: id}, nil)
}

// ReMountSegment implements master.Service.
func (m MasterStub) ReMountSegment(ctx context.Context, segs []master.Segment, id master.UUID) error {
	return m.call(ctx, MReMountSegment, remountReq{Segments: segs, ClientID: id}, nil)
}

// UnmountSegment implements master.Service.
func (m MasterStub) UnmountSegment(ctx context.Context, seg master.UUID, id master.UUID) error {
	return m.call(ctx, MUnmountSegment, unmountReq{SegmentID: seg, ClientID: id}, nil)
}

// Ping implements master.Service.
func (m MasterStub) Ping(ctx context.Context, id master.UUID) (master.PingResponse, error) {
	var v master.PingResponse
	err := m.call(ctx, MPing, clientReq{ClientID: id}, &v)
	return v, err
}

// ExistKey implements master.Service.
func (m MasterStub) ExistKey(ctx context.Context, key string) (bool, error) {
	var v bool
	err := m.call(ctx, MExistKey, keyReq{Key: key}, &v)
	return v, err
}

// BatchExistKey implements master.Service.
func (m MasterStub) BatchExistKey(ctx context.Context, keys []string) ([]master.ExistResult, error) {
	var v []existWire
	if err := m.call(ctx, MBatchExistKey, keysReq{Keys: keys}, &v); err != nil {
		return nil, err
	}
	out := make([]master.ExistResult, len(v))
	for i, e := range v {
		out[i].Exists = e.Exists
		if e.Code != 0 {
			out[i].Err = mooncake.ErrorCode(e.Code)
		}
	}
	return out, nil
}

// PutStart implements master.Service.
func (m MasterStub) PutStart(ctx context.Context, key string, size int64, cfg master.ReplicateConfig) ([]master.Replica, error) {
	var v []master.Replica
	req := putStartReq{Key: key, Size: size, Config: cfg}
	if b, ok := master.BatchPosOf(ctx, key); ok {
		req.Batch = &b
	}
	err := m.call(ctx, MPutStart, req, &v)
	return v, err
}

// PutEnd implements master.Service.
func (m MasterStub) PutEnd(ctx context.Context, key string) error {
	return m.call(ctx, MPutEnd, keyReq{Key: key}, nil)
}

// PutRevoke implements master.Service.
func (m MasterStub) PutRevoke(ctx context.Context, key string) error {
	return m.call(ctx, MPutRevoke, keyReq{Key: key}, nil)
}

// GetReplicaList implements master.Service.
func (m MasterStub) GetReplicaList(ctx context.Context, key string) ([]master.Replica, error) {
	var v []master.Replica
	req := getReplicaReq{Key: key}
	if b, ok := master.BatchPosOf(ctx, key); ok {
		req.Batch = &b
	}
	err := m.call(ctx, MGetReplicaList, req, &v)
	return v, err
}

// Remove implements master.Service.
func (m MasterStub) Remove(ctx context.Context, key string) error {
	return m.call(ctx, MRemove, keyReq{Key: key}, nil)
}
