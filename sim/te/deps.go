package te

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// MetadataHTTP is the transfer engine's HTTP metadata client
// (transfer_metadata_plugin.cpp HTTPStoragePlugin, curl with a 3000 ms
// timeout and 1500 ms connect timeout per request). url is the
// metadata_server URL with "?key=K" appended. err is a transport failure
// (refused, timeout); an HTTP status is never an error.
// sim routes it through netsim to a *metadata.Server; the fake engine uses
// net/http.
type MetadataHTTP interface {
	Do(ctx context.Context, method, url string, body []byte) (status int, resp []byte, err error)
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
}

// HostFromSpec converts a node spec.
func HostFromSpec(n engine.NodeSpec) Host {
	return Host{Name: n.Name, RDMA: n.RDMA, MemlockBytes: n.MemlockBytes, CapIPCLock: n.CapIPCLock}
}

// DataPath moves object bytes between this engine and a remote segment
// (the TCP/RDMA data plane). endpoint is the owner's TE endpoint
// (host:port); addr is an address inside a segment the owner registered.
type DataPath interface {
	Write(ctx context.Context, endpoint string, addr uint64, data []byte) error
	Read(ctx context.Context, endpoint string, addr uint64, size int64) ([]byte, error)
}
