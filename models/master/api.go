// Package master models mooncake_master (mooncake-store/src/master_service.cpp,
// rpc_service.cpp) as a clock-agnostic state machine. sim calls it directly
// in virtual time; the fake engine serves the same *Master over TCP.
//
// api.go is the RPC surface: Service is what a client reaches over a
// connection. Methods return mooncake.ErrorCode values as errors for
// master-side failures, and *RPCError for transport failures (produced by
// connections, never by the model itself).
package master

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Service is WrappedMasterService as the client sees it (one method per RPC
// the HiCache path uses). *Master implements it; so does a client-side
// connection (sim: netsim-routed; fake: a TCP stub).
type Service interface {
	// ServiceReady returns the master's RPC version string
	// (GetMooncakeStoreVersion(), "2.0.0" for every wheel that has the check).
	ServiceReady(ctx context.Context) (string, error)
	GetStorageConfig(ctx context.Context) (StorageConfig, error)
	// MountSegment: SEGMENT_ALREADY_EXISTS is returned as nil (idempotent).
	MountSegment(ctx context.Context, seg Segment, clientID UUID) error
	// ReMountSegment re-adds every segment of a client after NEED_REMOUNT.
	ReMountSegment(ctx context.Context, segs []Segment, clientID UUID) error
	UnmountSegment(ctx context.Context, segmentID UUID, clientID UUID) error
	Ping(ctx context.Context, clientID UUID) (PingResponse, error)
	ExistKey(ctx context.Context, key string) (bool, error)
	// BatchExistKey: one result per key; Err nil = Exists valid.
	BatchExistKey(ctx context.Context, keys []string) ([]ExistResult, error)
	// PutStart allocates replicas (NO_AVAILABLE_HANDLE when no segment has
	// room after eviction; OBJECT_ALREADY_EXISTS for a completed key).
	PutStart(ctx context.Context, key string, size int64, cfg ReplicateConfig) ([]Replica, error)
	PutEnd(ctx context.Context, key string) error
	PutRevoke(ctx context.Context, key string) error
	// GetReplicaList grants a lease of default_kv_lease_ttl.
	GetReplicaList(ctx context.Context, key string) ([]Replica, error)
	// Remove fails with OBJECT_HAS_LEASE while a lease is held.
	Remove(ctx context.Context, key string) error
}

// UUID is Mooncake's UUID (pair<uint64,uint64>).
type UUID struct{ Hi, Lo uint64 }

// String is operator<<(ostream&, const UUID&): both halves in decimal,
// first-second (types.h, v0.3.4 … v0.3.12.post1 and 3b5a594; real 0.3.14
// prints client_id=14286400266408116154-6178115569062298502, §72).
func (u UUID) String() string { return fmt.Sprintf("%d-%d", u.Hi, u.Lo) }

// StorageConfig is GetStorageConfigResponse.
type StorageConfig struct {
	FSDir              string
	EnableDiskEviction bool
	QuotaBytes         int64
}

// Segment is the segment a client mounts (types.h Segment).
type Segment struct {
	ID         UUID
	Name       string // the client's local_hostname (host:port)
	Base       uint64
	Size       int64
	Protocol   string
	TEEndpoint string // transfer engine endpoint of the owner (host:port)
	// TEProtocol is the owner's segment descriptor protocol (its installed
	// transport). Mooncake's clients learn it from the transfer engine
	// metadata when they open the segment; the model carries it here.
	TEProtocol string
}

// ClientStatus is the Ping response status.
type ClientStatus int

const (
	ClientOK ClientStatus = iota
	// NeedRemount: the master does not know the client as OK (restarted,
	// client_ttl expired, or only mounted: MountSegment never marks a
	// client OK, ReMountSegment does): remount segments.
	NeedRemount
)

func (s ClientStatus) String() string {
	if s == NeedRemount {
		return "NEED_REMOUNT"
	}
	return "OK"
}

// PingResponse is PingResponse{view_version, client_status}.
type PingResponse struct {
	ViewVersion int64
	Status      ClientStatus
}

// ExistResult is one BatchExistKey answer.
type ExistResult struct {
	Exists bool
	Err    error
}

// ReplicateConfig is ReplicateConfig{replica_num, ...}.
type ReplicateConfig struct {
	ReplicaNum       int
	WithSoftPin      bool
	PreferredSegment string
}

// Replica is one memory replica descriptor: where the bytes live.
type Replica struct {
	SegmentName string
	TEEndpoint  string
	TEProtocol  string // the segment's TEProtocol
	Addr        uint64
	Size        int64
	Complete    bool
	// LeaseTTL is GetReplicaList's lease_ttl_ms (the master's
	// default_kv_lease_ttl); 0 elsewhere.
	LeaseTTL time.Duration
	// OffloadEndpoint is set on a LOCAL_DISK replica (SSD offload): the
	// owner FileStorage's offload RPC server (LocalDiskDescriptor's
	// transport_endpoint); the memory fields are then empty.
	OffloadEndpoint string
	// FilePath is set on a DISK replica (--root_fs_dir; DiskDescriptor's
	// file_path; fsreplica.go).
	FilePath string
}

// LocalDisk reports a LOCAL_DISK replica (Replica::is_local_disk_replica).
func (r Replica) LocalDisk() bool { return r.OffloadEndpoint != "" }

// RPCKind classifies a transport failure.
type RPCKind int

const (
	// Refused: ECONNREFUSED at connect (fails fast).
	Refused RPCKind = iota
	// ConnectTimeout: no answer within the connect timeout (blackhole).
	ConnectTimeout
	// RequestTimeout: connected, but no reply within the request timeout.
	RequestTimeout
	// Reset: the connection was reset mid-request.
	Reset
	// EOF: a pooled connection to a master that died since (SIGKILL): the
	// next call on it reads end of file at once.
	EOF
	// Incompatible: master and client of different releases whose
	// struct_pack layouts of this RPC differ (mooncake.SkewFails): the
	// call reaches the master and fails on decoding; Text is coro_rpc's.
	Incompatible
	// Threw: the server's handler threw; coro_rpc answers with the
	// exception's what(), Text (coro_rpc router: rpc_throw_exception).
	Threw
	// Unreachable: every connect of coro_io::client_pool's reconnect to an
	// address that drops SYNs waited out the connect timeout, and the pool
	// gave up ("Client not available", RPC_FAIL; real 0.3.13.post1:
	// docs/REAL-FINDINGS.md §82).
	Unreachable
)

func (k RPCKind) String() string {
	return [...]string{"refused", "connect_timeout", "request_timeout", "reset", "eof", "incompatible", "threw", "unreachable"}[k]
}

// RPCError is a transport failure of one RPC. Mooncake maps every one to
// RPC_FAIL (-900), or RPC_TIMEOUT (-901) for timeouts from 0.3.12.
type RPCError struct {
	Kind RPCKind
	Op   string
	// After is how long the attempt took before failing.
	After time.Duration
	// Text is coro_rpc's message for an Incompatible call.
	Text string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("rpc %s: %s after %s", e.Op, e.Kind, e.After)
}

// AsRPCError returns the *RPCError in err's chain, if any.
func AsRPCError(err error) (*RPCError, bool) {
	var re *RPCError
	ok := errors.As(err, &re)
	return re, ok
}

// Code is the ErrorCode a failed call yields at version p.
func Code(err error, p mooncake.Profile) mooncake.ErrorCode {
	if err == nil {
		return mooncake.OK
	}
	if re, ok := AsRPCError(err); ok {
		if p.RPCTimeoutCode && (re.Kind == ConnectTimeout || re.Kind == RequestTimeout) {
			return mooncake.RPC_TIMEOUT
		}
		return mooncake.RPC_FAIL
	}
	var c mooncake.ErrorCode
	if errors.As(err, &c) {
		return c
	}
	return mooncake.INTERNAL_ERROR
}

// RPCVersion is GetMooncakeStoreVersion(): CMake `MooncakeStore VERSION 2.0.0`.
const RPCVersion = "2.0.0"

// OffloadService is the optional SSD-offload part of the RPC surface
// (MountLocalDiskSegment). A Service that does not implement it behaves as
// a master without --enable_offload (UNABLE_OFFLOAD), the default.
type OffloadService interface {
	MountLocalDiskSegment(ctx context.Context, clientID UUID) error
	// OffloadObjectHeartbeat is the FileStorage heartbeat's RPC: the keys
	// queued for this client to write to its disk, the queue emptied.
	OffloadObjectHeartbeat(ctx context.Context, clientID UUID) ([]OffloadObject, error)
	// NotifyOffloadSuccess is a written bucket's report: each key gets a
	// LOCAL_DISK replica of this client at its offload RPC endpoint.
	NotifyOffloadSuccess(ctx context.Context, clientID UUID, endpoint string, objs []OffloadObject) error
	// EvictDiskReplicas is BatchEvictDiskReplica(LOCAL_DISK): the bucket
	// backend evicted these keys' buckets; an error a key.
	EvictDiskReplicas(ctx context.Context, clientID UUID, keys []string) []error
}

// OffloadObject is one entry of a client's offloading queue: a key and
// its object's size.
type OffloadObject struct {
	Key  string
	Size int64
}

type batchKey struct{}

// Batch is one batch call (BatchPutStart … BatchPutEnd, or
// BatchGetReplicaList) of N keys: the client model calls PutStart, PutEnd,
// GetReplicaList per key, the transport sees what real's one RPC per kind
// carries; Started is set by the first key's PutStart (master OOM).
type Batch struct {
	N       int
	Keys    []string
	Started bool
	sent    map[string]bool
}

// First reports whether op is this batch's first call of that RPC (which
// carries every key on the wire), and marks it sent.
func (b *Batch) First(op string) bool {
	if b.sent == nil {
		b.sent = map[string]bool{}
	}
	if b.sent[op] {
		return false
	}
	b.sent[op] = true
	return true
}

// WithBatch marks ctx as one batch call of these keys.
func WithBatch(ctx context.Context, keys []string) context.Context {
	return context.WithValue(ctx, batchKey{}, &Batch{N: len(keys), Keys: keys})
}

// BatchOf is ctx's batch RPC; nil outside a batch.
func BatchOf(ctx context.Context) *Batch {
	b, _ := ctx.Value(batchKey{}).(*Batch)
	return b
}

// BatchPos is one key's place in a batch call, what the master needs of
// the batch (its one warning after the last key): the batch's ID (its
// length and first key), the key's index and the batch's length. The fake
// engine's wire carries it with each per-key call.
type BatchPos struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	N     int    `json:"n"`
}

type batchPosKey struct{}

// WithBatchPos marks ctx as one key's call of a batch (the fake master
// server, from the wire).
func WithBatchPos(ctx context.Context, p BatchPos) context.Context {
	return context.WithValue(ctx, batchPosKey{}, p)
}

// BatchPosOf is key's place in ctx's batch call; false outside a batch.
func BatchPosOf(ctx context.Context, key string) (BatchPos, bool) {
	if p, ok := ctx.Value(batchPosKey{}).(BatchPos); ok {
		return p, true
	}
	b := BatchOf(ctx)
	if b == nil || len(b.Keys) == 0 {
		return BatchPos{}, false
	}
	return BatchPos{ID: fmt.Sprintf("%d\x00%s", len(b.Keys), b.Keys[0]), Index: slices.Index(b.Keys, key), N: len(b.Keys)}, true
}
