package te

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// MetadataHTTP is the transfer engine's HTTP metadata client
// (transfer_metadata_plugin.cpp HTTPStoragePlugin, curl with a 3000 ms
// timeout and 1500 ms connect timeout per request). url is the
// metadata_server URL with "?key=K" appended. err is a transport failure
// (refused, timeout); an HTTP status is never an error.
// sim routes it through netsim to a *metadata.Server; the fake engine uses
// net/http.
type MetadataHTTP interface {
	// auth is the Authorization header ("" = none).
	Do(ctx context.Context, method, url string, body []byte, auth string) (status int, resp []byte, err error)
}

// PortBinder binds the transfer engine's RPC/handshake port on this host
// (P2PHANDSHAKE binds local_hostname's port; auto-port retries another port
// when the bind fails). release frees it on close.
type PortBinder interface {
	Bind(ctx context.Context, host string, port int) (release func(), err error)
}

// Host is what the transfer engine sees of its machine.
type Host struct {
	Name string
	// RDMA is the ibv_get_device_list() inventory; empty = no RNIC.
	RDMA []engine.RDMADevice
	// MemlockBytes is RLIMIT_MEMLOCK (0 = unlimited); pinned bytes count
	// against it per ibv_reg_mr.
	MemlockBytes int64
	// CapIPCLock: the process may pin past RLIMIT_MEMLOCK (root).
	CapIPCLock bool
	// NonRoot: the process cannot bind a port below 1024 (no
	// CAP_NET_BIND_SERVICE).
	NonRoot bool
	// GPU is the host's GPUs (nil = none: Mooncake's non-CUDA build).
	GPU *engine.GPUSpec
	// Build: the source build's options (engine.NodeSpec.Build).
	Build []string
	// NPU is the host's Ascend NPUs (nil = none; ascend.go).
	NPU *engine.NPUSpec
	// RDMAFaults is the host's injected work-completion fault (nil = none
	// can be injected).
	RDMAFaults *RDMAFaults
	// Peer finds the process serving a TE endpoint (nil or ok false:
	// unknown): the RDMA handshake's passive side.
	Peer func(endpoint string) (Peer, bool)
}

// Peer is the process serving a TE endpoint, as the RDMA handshake meets
// it: its host's RNICs and its log (the passive side's lines).
type Peer struct {
	RDMA []engine.RDMADevice
	Log  mlog.Logger
	// NVLink is its NVLink segment descriptor's buffers (nvlink.go).
	NVLink []NVLinkBuffer
	// NoNameListener: nothing of it listens on its segment name's port,
	// where a P2PHANDSHAKE engine's handshake connects (Engine.ListensAtName).
	NoNameListener bool
	// Paused: its process is stopped (SIGSTOP): its kernel accepts
	// connections and takes requests, nothing answers.
	Paused bool
	// Abandoned tells it a handshake to it was given up, its socket
	// closed unanswered: resumed, it answers on that socket (nil: not
	// recorded).
	Abandoned func()
	// Adxl is its ADXL engine name ("" = no Ascend transport) and NPU its
	// host's NPUs (ascend.go).
	Adxl string
	NPU  *engine.NPUSpec
}

// HostFromSpec converts a node spec.
func HostFromSpec(n engine.NodeSpec) Host {
	return Host{Name: n.Name, RDMA: n.RDMA, MemlockBytes: n.MemlockBytes, CapIPCLock: n.CapIPCLock, NonRoot: n.NonRoot, GPU: n.GPU, Build: n.Build, NPU: n.NPU}
}

// DataPath moves object contents between this engine and a remote segment
// (the TCP/RDMA data plane). endpoint is the owner's TE endpoint
// (host:port); addr is an address inside a segment the owner registered.
// Contents are symbolic (hostmem.Content: size + fingerprint), so a page
// transfer copies no bytes.
// HandshakeRefused is a DataPath error: the P2P handshake to the segment's
// endpoint was refused, so the segment cannot be opened (an endpoint named
// on the loopback, dialled from another container). Connect is the
// address dialled.
type HandshakeRefused struct{ Endpoint, Connect string }

func (e *HandshakeRefused) Error() string {
	return "handshake " + e.Connect + " for " + e.Endpoint + ": connection refused"
}

// HandshakeUnresolved is a DataPath error: the segment's endpoint names a
// host the caller's resolver does not know (getaddrinfo fails), so the
// P2P handshake never dials and the segment cannot be opened.
type HandshakeUnresolved struct{ Endpoint, Host, Port string }

func (e *HandshakeUnresolved) Error() string {
	return "handshake to " + e.Endpoint + ": cannot resolve " + e.Host
}

// TransferRefused is a DataPath error: the TCP transport's connect to the
// peer's transfer endpoint failed — refused (its process stopped), or,
// with Reason, another connect() error (NoLocalPort).
type TransferRefused struct {
	Endpoint string
	// Reason is connect()'s error as asio words it; "" = Connection
	// refused (nothing listens at the endpoint).
	Reason string
}

// NoLocalPort is connect()'s EADDRNOTAVAIL: every port of the host's
// ip_local_port_range is taken or in TIME_WAIT.
const NoLocalPort = "Cannot assign requested address"

// Text is the connect error's text.
func (e *TransferRefused) Text() string {
	if e.Reason == "" {
		return "Connection refused"
	}
	return e.Reason
}

func (e *TransferRefused) Error() string { return "transfer to " + e.Endpoint + ": " + e.Text() }

// ConnectTimedOut is connect()'s ETIMEDOUT, asio's text.
const ConnectTimedOut = "Connection timed out"

// TransferUnanswered is a DataPath error: the TCP transport's connect to
// the peer's transfer endpoint gets no SYN-ACK (every packet towards the
// peer is dropped on the path), so connect() fails with ETIMEDOUT once the
// caller's kernel has spent its SYN retries, After from the connect. The
// caller decides who waits: a connect inside the submit blocks the
// transfer that long; a lane's connect leaves the store's wait to end it.
type TransferUnanswered struct {
	Endpoint string
	After    time.Duration
}

func (e *TransferUnanswered) Error() string {
	return "transfer to " + e.Endpoint + ": connect: " + ConnectTimedOut
}

// TransferStalled is a DataPath error: the peer's transport accepted the
// connection (its kernel did) but the process never answers — SIGSTOP'd,
// or hung. The caller waits out its own deadline (the TCP transport's
// status-frame deadline, or the store's 60 s transfer wait) before it fails
// the transfer.
type TransferStalled struct {
	Endpoint string
	// Gone, when set, says whether the peer's process has died since (a
	// frozen process SIGKILLed): its kernel then resets the connection and
	// the wait ends there (SessionLine, ErrReset). nil: it never does.
	Gone func() bool
}

func (e *TransferStalled) Error() string { return "transfer to " + e.Endpoint + ": no answer" }

// TransferBadAddress is a DataPath error: the process that serves the
// endpoint (the one its rpc_meta names) has no memory at the slice's
// address - a segment of the same name belongs to another process (two
// processes with one local_hostname on etcd). Its TCP server's socket
// read or write there fails with EFAULT. Server logs to that process.
type TransferBadAddress struct {
	Endpoint string
	Addr     uint64
	Server   mlog.Logger
}

func (e *TransferBadAddress) Error() string {
	return fmt.Sprintf("transfer to %s: address %#x not mapped by its server", e.Endpoint, e.Addr)
}

// TransferAddrRejected is a DataPath error: the serving process's TCP
// server (Profile.TCPServerValidatesAddr) found the slice's address outside
// every buffer it has registered - unregistered since the initiator read
// its descriptor, or never its own - and refused it before moving a byte.
type TransferAddrRejected struct {
	Endpoint string
	Addr     uint64
	Size     int64
	Server   mlog.Logger
}

func (e *TransferAddrRejected) Error() string {
	return fmt.Sprintf("transfer to %s: address %#x (%d bytes) not within a buffer its server registered", e.Endpoint, e.Addr, e.Size)
}

// Log prints both sides' lines: the server's refusal to its own log, the
// initiator's answer read (opcode "WRITE" or "READ") to client.
func (e *TransferAddrRejected) Log(client mlog.Logger, opcode string) {
	e.Server.Log(mlog.Error, fmt.Sprintf("ServerSession: remote-supplied address %#x with size %d is not within any registered buffer", e.Addr, e.Size))
	client.Log(mlog.Error, fmt.Sprintf("ClientSession: %s rejected by server, status 1", opcode))
}

type DataPath interface {
	Write(ctx context.Context, endpoint string, addr uint64, c hostmem.Content) error
	Read(ctx context.Context, endpoint string, addr uint64, size int64) (hostmem.Content, error)
}

// MetadataEtcd is the transfer engine's etcd metadata client: Mooncake's
// libetcd_wrapper (mooncake-common/etcd/etcd_wrapper.go, etcd clientv3
// v3.5.21 at every tag v0.3.0 … v0.3.12.post1 and main): one clientv3
// client per process (NewEtcdClient, reference counted), DialTimeout 5 s
// (the dial never blocks), every Put/Get/Delete under a 5 s context. An
// unreachable etcd (refused or blackholed) therefore fails each operation
// after EtcdOpTimeout with "context deadline exceeded" (clientv3 waits for
// a ready connection). err's Error() is the wrapper's errMsg text; a
// missing key is found=false, not an error.
// sim routes it through netsim to a *metadata.Etcd; the fake engine uses
// clientv3 against etcd's embedded server.
type MetadataEtcd interface {
	Put(ctx context.Context, endpoints, key string, value []byte) error
	Get(ctx context.Context, endpoints, key string) (value []byte, found bool, err error)
	Delete(ctx context.Context, endpoints, key string) error
}

// EtcdOpTimeout is etcd_wrapper.go's per-operation context timeout (and its
// DialTimeout). Real 0.3.8.post1 / 0.3.9 / 0.3.13.post1 against a refused
// etcd: "unable to set ... context deadline exceeded" 5.00 s after the
// attempt starts, the cleanup's remove another 5.00 s later
// (docs/REAL-FINDINGS.md).
const EtcdOpTimeout = 5 * time.Second

// ParseConnectionString is transfer_metadata_plugin.cpp's
// parseConnectionString: "proto://domain", and a string without "://" is
// etcd (so a bare "host:port" is an etcd endpoint).
func ParseConnectionString(conn string) (proto, domain string) {
	if i := strings.Index(conn, "://"); i >= 0 {
		return conn[:i], conn[i+3:]
	}
	return "etcd", conn
}

// ProbeRacer is a PortBinder that can say another transfer engine on the
// host probed the port findAvailableTcpPort just bound (a port-race
// fault). ProbeRaced reports it once: the other engine then listens there.
type ProbeRacer interface {
	ProbeRaced() bool
}
