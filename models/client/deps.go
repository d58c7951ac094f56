// Package client models Mooncake's store clients as Python sees them:
// RealClient (mooncake-store/src/real_client.cpp + client_service.cpp,
// MooncakeDistributedStore.setup/...), DummyClient (dummy_client.cpp,
// setup_dummy) and the standalone mooncake_client (real_client_main.cpp).
//
// deps.go is everything a client model needs from its world. sim wires it
// to the kernel and netsim; the fake engine wires it to wall time and real
// sockets. The models never read the wall clock or start goroutines.
package client

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Timeouts are the coro_rpc client timeouts (master_client.h: 30 s each,
// MC_RPC_CONNECT_TIMEOUT_MS / MC_RPC_TIMEOUT_MS).
type Timeouts struct {
	Connect time.Duration
	Request time.Duration
}

// DefaultTimeouts are coro_rpc's defaults.
var DefaultTimeouts = Timeouts{Connect: 30 * time.Second, Request: 30 * time.Second}

// MasterTransport gives the master at addr as an RPC stub. Connections are
// made per call, as coro_io::client_pool does: a call to a refusing master
// fails after RefusedPoolCost with *master.RPCError{Kind: Refused}; a call
// to a blackholed one (TCP connects, no byte comes back, as through
// toxiproxy's timeout toxic) after t.Request with RequestTimeout; a
// connect that never completes after t.Connect with ConnectTimeout. The
// stub waits on the Clock.
type MasterTransport interface {
	Master(addr string, t Timeouts) master.Service
}

// RefusedPoolCost is how long a coro_rpc call to a refusing server takes
// before "Client not available": yalantinglibs client_pool reconnects
// (4 connects about 1 s apart, then "out of max limit"). Measured on the
// real 0.3.9 and 0.3.13.post1 wheels: 4.27 s per attempt, independent of
// MC_RPC_CONNECT_TIMEOUT_MS (docs/ENGINES.md).
const RefusedPoolCost = 4266 * time.Millisecond

// RealClientService is the coro_rpc surface mooncake_client offers its
// dummy clients (RealClient::*_dummy_helper, RegisterClientRpcService) plus
// the shm registration the IPC socket carries.
type RealClientService interface {
	// ServiceReady is the dummy's connect() probe.
	ServiceReady(ctx context.Context) error
	// RegisterShm is map_shm_internal: the real side maps shm and registers
	// it with its transfer engine; 0 or -1, as ShmRegisterRequest's reply.
	RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocalBuffer bool) (int, error)
	Ping(ctx context.Context, dummy string) error
	// PutFrom/GetInto/IsExist run on the real client on behalf of a dummy;
	// ptr is a dummy address, which the real client looks up in the shm
	// it mapped for the dummy. b is the batch the key belongs to (nil: a
	// call on the dummy's local buffer): the real client maps every
	// buffer of it before it moves any.
	PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *BufferBatch) (int, error)
	GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *BufferBatch) (int, error)
	IsExist(ctx context.Context, key string) (int, error)
}

// The dummy's batch RPCs a BufferBatch names (RealClient's helpers).
const (
	BatchPutFromHelper = "batch_put_from_dummy_helper"
	BatchGetIntoHelper = "batch_get_into_dummy_helper"
)

// BufferBatch is one batch RPC of a dummy, which the model sends a key a
// call: the helper, and on the batch's first key every buffer of it
// (Mooncake maps them all once, before it moves any byte; the later keys
// share that answer, so they carry none).
type BufferBatch struct {
	Helper string   `json:"helper"`
	First  bool     `json:"first"`
	Ptrs   []uint64 `json:"ptrs,omitempty"`
	Sizes  []int64  `json:"sizes,omitempty"`
}

// IPCRefused is RegisterShm's error when the dummy's connect() to
// mooncake_client's abstract unix socket is refused: no such socket in the
// dummy's network namespace (mooncake_client in another pod, Mooncake
// #2937).
type IPCRefused struct{}

func (IPCRefused) Error() string { return "Connection refused" }

// RealClientTransport gives mooncake_client at addr (host:port) as an RPC
// stub, with the same failure semantics as MasterTransport.
type RealClientTransport interface {
	RealClient(addr string, t Timeouts) RealClientService
}

// Deps are one process's view of the world.
type Deps struct {
	// Node is the host name ("tp0"); Host its NICs and memlock.
	Node string
	Host te.Host
	// Profile is the Mooncake version the process runs.
	Profile mooncake.Profile
	Clock   engine.Clock
	// Log receives Mooncake log lines (sim: source "mooncake:<node>").
	Log mlog.Logger
	// Env is the process environment (MC_* knobs).
	Env map[string]string
	// Rand is this process's seeded stream (auto-port choice).
	Rand *rand.Rand
	// PortRand draws the transfer engine's RPC port (findAvailableTcpPort);
	// nil = the lowest free port from 15000.
	PortRand *rand.Rand
	// Mem is the process address space: segment/local buffer allocation,
	// register_buffer validation, shm lookup.
	Mem *hostmem.Space

	Master   MasterTransport
	Metadata te.MetadataHTTP
	// Etcd is the etcd metadata client (nil = no etcd reachable).
	Etcd  te.MetadataEtcd
	Ports te.PortBinder
	Data  te.DataPath
	// Clients reaches mooncake_client (dummy mode); nil when absent.
	Clients RealClientTransport
	// JoinPing waits, as ~Client's join does, until c's ping thread ends
	// the iteration it is in (its RPCs, a reconnect, its sleep) and exits;
	// nil = the thread is joined at once.
	JoinPing func(ctx context.Context, c *RealClient) error
	// Remount starts the ping thread's remount_segment on a thread of its
	// own (std::async, client_service.cpp): the caller runs each step in
	// turn, each with a master stub, then calls c.RemountDone. nil = the
	// steps run inline in the ping iteration.
	Remount func(c *RealClient, steps []RemountStep)
	// PingStarted: c's ping thread starts during setup (before 0.3.11 it
	// starts at connect), so it pings while setup goes on; nil = the
	// engine picks ping threads up when the call returns.
	PingStarted func(c *RealClient)
	// WaitMountLock waits while c's remount holds mounted_segments_mutex_
	// (RemountDone releases it); nil = it is never held across a wait.
	WaitMountLock func(ctx context.Context, c *RealClient) error
	// S3Endpoint is the URL of the world's S3 stand-in ({{s3}}), which
	// answers the S3 adapter; any other endpoint refuses ("" = none runs).
	S3Endpoint string
	// FileExists answers stat() for SSD-offload paths; nil = no file exists.
	FileExists func(path string) bool
	// Disk holds the SSD offload directory's files (nil: none kept).
	Disk *OffloadDisk
	// OffloadPeer is the live client whose offload RPC server answers at
	// endpoint, nil when none does (nil func: none ever does).
	OffloadPeer func(endpoint string) *RealClient
	// StoreEtcdIdle: the process's store etcd client is dialled with no
	// stream open and pings without one (etcdkeepalive.go): goAway runs
	// after the given time unless the process is gone by then (once per
	// process: the Go client is process-wide). nil = never.
	StoreEtcdIdle func(after time.Duration, goAway func())
}

// codeOf maps a call error to the ErrorCode Python sees.
func codeOf(err error, p mooncake.Profile) mooncake.ErrorCode { return master.Code(err, p) }

// RealClient and DummyClient both answer engine.StoreCalls; a
// MooncakeDistributedStore forwards each to whichever it currently is.
var (
	_ engine.StoreCalls = (*RealClient)(nil)
	_ engine.StoreCalls = (*DummyClient)(nil)
)
