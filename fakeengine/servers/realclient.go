package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
)

// mooncake_client's coro_rpc methods for dummy clients
// (RealClient::*_dummy_helper, RegisterClientRpcService), plus RegisterShm,
// which Mooncake sends over the IPC socket with the memfd (SCM_RIGHTS).
const (
	CServiceReady = "service_ready"
	CRegisterShm  = "map_shm"
	CPing         = "ping"
	CPutFrom      = "put_dummy_helper"
	CGetInto      = "get_into_dummy_helper"
	CIsExist      = "is_exist"
)

type (
	dummyReq struct {
		Dummy string `json:"dummy"`
	}
	shmReq struct {
		Dummy string `json:"dummy"`
		// ShmID names the shm in the world's registry: the fd itself
		// cannot travel in JSON, as it travels out of band in Mooncake.
		ShmID   string `json:"shm_id"`
		IsLocal bool   `json:"is_local"`
	}
	bufReq struct {
		Dummy string `json:"dummy"`
		Key   string `json:"key"`
		Ptr   uint64 `json:"ptr"`
		Size  int64  `json:"size"`
		// Batch is the batch the key belongs to (nil: the local buffer).
		Batch *client.BufferBatch `json:"batch,omitempty"`
	}
)

// ShmRegistry passes shared memory between a dummy client and
// mooncake_client in one fake world (the memfd passed over the IPC socket).
type ShmRegistry struct {
	mu   sync.Mutex
	shms map[string]hostmem.Shm
}

// Put registers shm under id.
func (r *ShmRegistry) Put(id string, shm hostmem.Shm) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shms == nil {
		r.shms = map[string]hostmem.Shm{}
	}
	r.shms[id] = shm
}

// Get looks an shm up.
func (r *ShmRegistry) Get(id string) (hostmem.Shm, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.shms[id]
	return s, ok
}

// RealClientServer serves a client.RealClientService (the models/client
// Standalone model of mooncake_client) over the wire protocol; every call
// holds lock.
type RealClientServer struct{ srv *wire.Server }

// NewRealClientServer registers every method.
func NewRealClientServer(lock sync.Locker, svc client.RealClientService, shms *ShmRegistry, logger *slog.Logger) *RealClientServer {
	s := wire.NewServer("mooncake_client", logger)
	handle := func(name string, fn func(ctx context.Context, p json.RawMessage) (any, error)) {
		s.Handle(name, func(ctx context.Context, p json.RawMessage) (any, error) {
			lock.Lock()
			defer lock.Unlock()
			return fn(ctx, p)
		})
	}
	handle(CServiceReady, func(ctx context.Context, _ json.RawMessage) (any, error) {
		return nil, svc.ServiceReady(ctx)
	})
	handle(CRegisterShm, func(ctx context.Context, p json.RawMessage) (any, error) {
		var r shmReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		shm, ok := shms.Get(r.ShmID)
		if !ok {
			return nil, fmt.Errorf("map_shm: unknown shm %q", r.ShmID)
		}
		return svc.RegisterShm(ctx, r.Dummy, shm, r.IsLocal)
	})
	handle(CPing, func(ctx context.Context, p json.RawMessage) (any, error) {
		var r dummyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return nil, svc.Ping(ctx, r.Dummy)
	})
	handle(CPutFrom, func(ctx context.Context, p json.RawMessage) (any, error) {
		var r bufReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return svc.PutFrom(ctx, r.Dummy, r.Key, r.Ptr, r.Size, r.Batch)
	})
	handle(CGetInto, func(ctx context.Context, p json.RawMessage) (any, error) {
		var r bufReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return svc.GetInto(ctx, r.Dummy, r.Key, r.Ptr, r.Size, r.Batch)
	})
	handle(CIsExist, func(ctx context.Context, p json.RawMessage) (any, error) {
		var r keyReq
		if err := decode(p, &r); err != nil {
			return nil, err
		}
		return svc.IsExist(ctx, r.Key)
	})
	return &RealClientServer{srv: s}
}

// Listen binds addr and serves until Close.
func (s *RealClientServer) Listen(ctx context.Context, addr string) error {
	return s.srv.Listen(ctx, addr)
}

// Addr is the bound host:port.
func (s *RealClientServer) Addr() string { return s.srv.Addr() }

// Close stops the server.
func (s *RealClientServer) Close() error { return s.srv.Close() }

// Pause holds every request until Resume (SIGSTOP).
func (s *RealClientServer) Pause() { s.srv.Pause() }

// Resume releases held requests.
func (s *RealClientServer) Resume() { s.srv.Resume() }

// RealClientStub is client.RealClientService over the wire.
type RealClientStub struct {
	Addr string
	T    wire.Timeouts
	Shms *ShmRegistry
	// ShmID names an shm of the calling process in Shms.
	ShmID func(hostmem.Shm) string
}

var _ client.RealClientService = RealClientStub{}

func (c RealClientStub) call(ctx context.Context, method string, params, result any) error {
	return wire.Call(ctx, c.Addr, c.T, method, params, result)
}

// ServiceReady implements client.RealClientService.
func (c RealClientStub) ServiceReady(ctx context.Context) error {
	return c.call(ctx, CServiceReady, nil, nil)
}

// RegisterShm implements client.RealClientService.
func (c RealClientStub) RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocal bool) (int, error) {
	id := c.ShmID(shm)
	c.Shms.Put(id, shm)
	var rc int
	err := c.call(ctx, CRegisterShm, shmReq{Dummy: dummy, ShmID: id, IsLocal: isLocal}, &rc)
	return rc, err
}

// Ping implements client.RealClientService.
func (c RealClientStub) Ping(ctx context.Context, dummy string) error {
	return c.call(ctx, CPing, dummyReq{Dummy: dummy}, nil)
}

// PutFrom implements client.RealClientService.
func (c RealClientStub) PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (int, error) {
	var rc int
	err := c.call(ctx, CPutFrom, bufReq{Dummy: dummy, Key: key, Ptr: ptr, Size: size, Batch: b}, &rc)
	return rc, err
}

// GetInto implements client.RealClientService.
func (c RealClientStub) GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (int, error) {
	var rc int
	err := c.call(ctx, CGetInto, bufReq{Dummy: dummy, Key: key, Ptr: ptr, Size: size, Batch: b}, &rc)
	return rc, err
}

// IsExist implements client.RealClientService.
func (c RealClientStub) IsExist(ctx context.Context, key string) (int, error) {
	var rc int
	err := c.call(ctx, CIsExist, keyReq{Key: key}, &rc)
	return rc, err
}
