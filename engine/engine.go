// Package engine is the seam every engine (sim, fake, real) implements and
// everything else (sglang/, scenarios/, suites/) meets at.
//
// The Store interface mirrors mooncake.store.MooncakeDistributedStore as
// Python sees it: return codes are Mooncake's integers exactly as that
// Mooncake version returns them, and anything Python would raise comes back
// as a *PyError (class + message).
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Engine builds worlds: one master / metadata service / nodes topology per run.
type Engine interface {
	// Name is the engine's CLI name, as registered (see Register).
	Name() string
	// Available reports whether this engine can run on this machine at the
	// given Mooncake version. The error says what is missing and how to get it
	// (e.g. "real engine: Mooncake 0.3.9 not installed; run `make real-engine`").
	Available(ctx context.Context, version string) error
	// Launch builds the world of one run. It returns an *Unsupported error
	// when the spec needs something this engine cannot provide (RDMA NIC...).
	Launch(ctx context.Context, spec WorldSpec) (World, error)
}

// World is one running topology. Close releases every process, port,
// container and temp dir it made, also after a failure.
type World interface {
	Clock() Clock
	// Addr resolves a role to the address a config should name:
	// "master" (host:port), "metadata" (http URL of the HTTP metadata
	// service), "client" (host:port of mooncake_client), "master_metrics"
	// (port of the master's admin HTTP). Scenario placeholders {{master}}
	// etc. are expanded with it.
	Addr(role string) (string, error)
	// Arm schedules the faults relative to world start (Fault.At). A fault the
	// engine cannot inject yields an *Unsupported error and arms nothing.
	Arm(ctx context.Context, fs []faults.Fault) error
	// ClearFaults heals every armed or active fault (processes restarted,
	// links restored); used before a scenario's remedy phase.
	ClearFaults(ctx context.Context) error
	// StartProcess starts an SGLang process on a node with the given process
	// environment (Mooncake reads MC_* from it).
	StartProcess(ctx context.Context, node string, env map[string]string) (Process, error)
	Close(ctx context.Context) error
}

// Process is one SGLang scheduler process on a node: it owns host memory and
// Mooncake store objects.
type Process interface {
	Node() string
	// NewStore is MooncakeDistributedStore().
	NewStore(ctx context.Context) (Store, error)
	// Alloc allocates host memory through a named allocator:
	// AllocDefault, AllocHugepage or AllocMooncakeShm
	// (mooncake.store.MooncakeHostMemAllocator). A Mooncake without
	// MooncakeHostMemAllocator yields a *PyError of class ImportError.
	Alloc(ctx context.Context, allocator string, size int64) (Buffer, error)
	Close(ctx context.Context) error
}

// TEProcess is a Process that can drive mooncake.engine.TransferEngine
// directly, as PD disaggregation does (SGLang's disaggregation/mooncake,
// vLLM's Mooncake connector). An engine whose processes lack it cannot run
// the te step (a skip).
type TEProcess interface {
	Process
	NewTransferEngine(ctx context.Context) (TransferEngine, error)
	// Pause freezes the process (SIGSTOP) and Resume thaws it: a peer that
	// accepts connections and never answers.
	Pause(ctx context.Context) error
	Resume(ctx context.Context) error
}

// TransferEngine mirrors mooncake.engine.TransferEngine. The int results
// are what Python receives.
type TransferEngine interface {
	// Initialize is initialize(local_hostname, metadata_server, protocol, device_name).
	Initialize(ctx context.Context, localHostname, metadataServer, protocol, deviceName string) (int, error)
	// RPCPort is get_rpc_port(): a peer's session is local_hostname:port.
	RPCPort(ctx context.Context) (int, error)
	// RegisterMemory is register_memory(ptr, size).
	RegisterMemory(ctx context.Context, ptr uint64, size int64) (int, error)
	// UnregisterMemory is unregister_memory(ptr).
	UnregisterMemory(ctx context.Context, ptr uint64) (int, error)
	// TransferSyncWrite is transfer_sync_write(target, local, peer, length)
	// (entries 0), or batch_transfer_sync_write of entries equal,
	// consecutive entries that make up length.
	TransferSyncWrite(ctx context.Context, target string, local, peer uint64, length int64, entries int) (int, error)
}

// TEStranger is a TransferEngine whose P2P handshake port a process that
// is not Mooncake can reach (the te stray step): Stray connects to port
// (its get_rpc_port()), sends payload, closes its side and returns once
// the daemon has closed the connection.
type TEStranger interface {
	Stray(ctx context.Context, port int, payload []byte) error
}

// TEAllocator is the TransferEngine's allocate_managed_buffer(length),
// where an engine models it (sim): the buffer's address, 0 for NULL.
type TEAllocator interface {
	AllocateManagedBuffer(ctx context.Context, length int64) (uint64, error)
}

// Allocator names.
const (
	AllocDefault     = "default"
	AllocHugepage    = "hugepage"
	AllocMooncakeShm = "mooncake-shm"
	// AllocCUDA is device memory of GPU 0 (torch.empty(..., device="cuda")),
	// on nodes with a GPU only.
	AllocCUDA = "cuda"
)

// Buffer is a host memory region: what tensor.data_ptr() and nbytes give.
type Buffer struct {
	Ptr       uint64
	Size      int64
	Allocator string
}

// Slice returns the sub-buffer [off, off+size), as a tensor view would.
func (b Buffer) Slice(off, size int64) Buffer {
	return Buffer{Ptr: b.Ptr + uint64(off), Size: size, Allocator: b.Allocator}
}

// Kwarg is one keyword argument of a Python call, in call order; Value is
// bool, int64, string or nil (None).
type Kwarg = mooncake.KV

// SetupArgs are the arguments of MooncakeDistributedStore.setup().
type SetupArgs struct {
	LocalHostname     string
	MetadataServer    string
	GlobalSegmentSize int64
	LocalBufferSize   int64
	Protocol          string
	RDMADevices       string
	MasterServerAddr  string
	// PassEngine: the 8th positional argument (transfer_engine, here always
	// None) is passed, as SGLang's MooncakeStore does. The embedding store
	// passes only seven.
	PassEngine bool
	Kwargs     []Kwarg
}

// DirMaker is a Store on a real host, where the caller's own directories
// are made before setup (SGLang's os.makedirs of its per-rank SSD offload
// path). The models' worlds hold such a directory as made (sim's
// offloadDirExists).
type DirMaker interface {
	// MakeDir makes path when its parent directory exists; a path whose
	// parent is missing is left alone (a world's example path such as
	// /mnt/nvme/... is not made on the harness's host).
	MakeDir(path string) error
}

// Store mirrors mooncake.store.MooncakeDistributedStore. The int results are
// what Python receives; err is non-nil only when Python would raise (then a
// *PyError) or when the harness itself broke (any other error).
type Store interface {
	Setup(ctx context.Context, a SetupArgs) (int, error)
	SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error)
	// Lookup is the attribute lookup store.<name> every call of an
	// integration begins with: a *PyError of class AttributeError when the
	// release binds no such method. The method is not called (its
	// arguments are the integration's).
	Lookup(ctx context.Context, name string) error
	StoreCalls
}

// StoreCalls are the Store methods after setup: the ones a real client
// and a dummy client (standalone mode) both answer.
type StoreCalls interface {
	RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error)
	UnregisterBuffer(ctx context.Context, ptr uint64) (int, error)
	Put(ctx context.Context, key string, value []byte) (int, error)
	// Get returns b"" on a miss or failure, as Python's get() does.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetBuffer is get_buffer(key) (LMCache's read): the size of the
	// buffer it returns, 0 for None (a miss or failure).
	GetBuffer(ctx context.Context, key string) (int, error)
	// Remove is remove(key): 0, or the negative code of the failure.
	Remove(ctx context.Context, key string) (int, error)
	IsExist(ctx context.Context, key string) (int, error)
	BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error)
	BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error)
	BatchIsExist(ctx context.Context, keys []string) ([]int, error)
	HealthCheck(ctx context.Context) (int, error)
	GetHostname(ctx context.Context) (string, error)
	Close(ctx context.Context) (int, error)
}

// TimeoutScaler is implemented by engines that honour
// WorldSpec.TimeoutScale: their Mooncake time runs that much faster than
// wall time. The runner uses it only to turn a scenario's within into a
// wall-clock deadline.
type TimeoutScaler interface{ HonoursTimeoutScale() bool }

// LaunchAllower is an engine whose Launch takes wall time outside
// Mooncake time (containers starting on a scaled clock): the runner adds
// LaunchAllowance to a run's wall-clock deadline, so a slow start is not
// taken out of the scenario's scaled within.
type LaunchAllower interface{ LaunchAllowance() time.Duration }

// Clock is the world's time, always Mooncake time: virtual in sim, wall
// time divided by the timeout scale in fake, wall time in real. Scenario
// durations, sleeps and fault times are all in this time.
type Clock interface {
	// Now is the Mooncake time since the world started.
	Now() time.Duration
	// Sleep waits d of Mooncake time (advancing virtual time in sim).
	Sleep(ctx context.Context, d time.Duration) error
}

// Account is a kind of the model's time that a wall-clock engine need
// not match (scenarios.TimingDiffs): a racy wait, whose length real
// Mooncake draws from a race between its threads (a join that meets a
// thread anywhere in its poll) where the model takes the longest, so real
// may come in up to that much earlier; host work, time the model charges
// for the host's CPU and memory work (page faults of a large buffer)
// rather than for a wait of Mooncake's, which a loaded machine stretches as
// much as it has CPU-bound processes per core, so real may take up to that
// much longer again. Sim's kernel clock keeps the accounts.
type Account int

const (
	Racy Account = iota
	HostWork
	Accounts // how many there are
)

// AccountingClock is a Clock that keeps the accounts.
type AccountingClock interface {
	Clock
	Charge(a Account, d time.Duration)
	Spent(a Account) time.Duration
}

// SleepAs waits d on c and, where c keeps accounts, charges it to a.
func SleepAs(ctx context.Context, c Clock, a Account, d time.Duration) error {
	if ac, ok := c.(AccountingClock); ok {
		ac.Charge(a, d)
	}
	return c.Sleep(ctx, d)
}

// Spent is c's time charged to a so far (0 where c keeps no accounts).
func Spent(c Clock, a Account) time.Duration {
	if ac, ok := c.(AccountingClock); ok {
		return ac.Spent(a)
	}
	return 0
}

// WorldSpec is the topology and settings of one run.
type WorldSpec struct {
	Scenario string
	Seed     uint64
	// Version is the Mooncake version every party runs, e.g. "0.3.13.post1".
	Version string
	// Trace receives every observation; engines write Mooncake log lines
	// (source "mooncake:<node>", "master", "client") into it.
	Trace  *trace.Trace
	Logger *slog.Logger
	// Master is nil when the topology has no master at all.
	Master *MasterSpec
	// MetadataEnv is the standalone HTTP metadata server's own
	// environment (Metadata "http"): MC_METADATA_HTTP_TOKEN (0.3.14).
	MetadataEnv map[string]string
	// MetadataHost is that server's --host; "" = the loopback the world
	// binds. From 0.3.14 the server refuses any other host without a
	// token (metadata.StartRefusal): it exits at start, an outcome.
	MetadataHost string
	// Metadata is "P2PHANDSHAKE", "http" (a standalone HTTP metadata
	// server), "master" (the master's embedded HTTP metadata server) or
	// "etcd" (an etcd server; Addr("metadata") = "etcd://host:port",
	// Addr("etcd") = "host:port").
	Metadata string
	// Client is the standalone mooncake_client (real client) that dummy
	// clients connect to; nil when absent.
	Client *ClientSpec
	Nodes  []NodeSpec
	// MissingLibs are native libraries (sonames) the world's hosts lack:
	// every Mooncake program and module that needs one fails to load
	// (mooncake.Profile.UnloadableLib).
	MissingLibs []string
	// Libstdcxx is the newest GLIBCXX version of the hosts' libstdc++.so.6
	// ("" = new enough for every wheel): a Mooncake program or module
	// built against a newer one fails to load
	// (mooncake.Profile.GLIBCXXMissing).
	Libstdcxx string
	// HeldPorts are TCP ports another process on the hosts listens on
	// from before the world starts (the port-held faults at 0s): an
	// engine holds them before it starts any server, so a server whose
	// port is one of them (MasterSpec.MetadataPort, MetricsPort) meets them taken. The
	// faults, armed after Launch, take the holds over (their heal or
	// ClearFaults frees the port).
	HeldPorts []int
	// TimeoutScale makes one second of Mooncake time take TimeoutScale
	// seconds of wall time on engines that honour it (TimeoutScaler), so
	// suites stay fast; 0 or 1 = unscaled. World.Clock() still reports
	// Mooncake time.
	TimeoutScale float64
}

// MasterSpec configures mooncake_master. Flags use mooncake_master's gflag
// names (client_ttl, default_kv_lease_ttl, eviction_high_watermark_ratio...).
type MasterSpec struct {
	Flags map[string]string
	// HA: two masters (--enable_ha=true) elect a leader through the
	// world's etcd; process targets "master-leader" / "master-standby".
	HA bool
	// Version is the Mooncake release mooncake_master runs when it is not
	// WorldSpec.Version (version skew); "" = WorldSpec.Version. An engine
	// that cannot run it answers Unsupported.
	Version string
	// Env is mooncake_master's environment beyond the engine's
	// (MC_RPC_PROTOCOL).
	Env map[string]string
	// RDMA is the RNIC inventory of the master's host; empty = none. An
	// engine that cannot provide one answers Unsupported.
	RDMA []RDMADevice
	// MetadataPort is --http_metadata_server_port of the embedded HTTP
	// metadata server (metadata "master") when the world fixes it; 0 =
	// the engine's choice.
	MetadataPort int
	// MetricsPort is --metrics_port of the master's admin HTTP server
	// (metrics, health) when the world fixes it; 0 = the engine's choice.
	MetricsPort int
}

// MetadataPortHeld reports whether the embedded HTTP metadata server's
// port is one the world holds from its start (HeldPorts): that
// mooncake_master's bind of it fails.
func (s WorldSpec) MetadataPortHeld() bool {
	return s.Metadata == "master" && s.Master != nil && s.Master.MetadataPort != 0 && slices.Contains(s.HeldPorts, s.Master.MetadataPort)
}

// MetricsPortHeld reports whether the master's admin HTTP server's port
// is one the world holds from its start (HeldPorts).
func (s WorldSpec) MetricsPortHeld() bool {
	return s.Master != nil && s.Master.MetricsPort != 0 && slices.Contains(s.HeldPorts, s.Master.MetricsPort)
}

// MasterReplacer is a World that can replace its mooncake_master with one
// of another release (a remedy's master_version: the fix for version
// skew) or with other flags (a remedy's master_flags, e.g. the bind
// address) or environment (master_env): the master stops, and the new one
// starts on the same ports, its state lost as after any restart. version
// "" keeps the release; flags and env are merged over the topology's.
type MasterReplacer interface {
	ReplaceMaster(ctx context.Context, version string, flags, env map[string]string) error
}

// MetadataRestarter is a World that can restart its standalone HTTP
// metadata server (Metadata "http") with env merged over MetadataEnv (a
// remedy's metadata_env: the token set on the server); its store is lost,
// as after any restart.
type MetadataRestarter interface {
	RestartMetadata(ctx context.Context, env map[string]string) error
}

// LibraryFixer is a World whose hosts' native libraries can change (a
// remedy's missing_libs: the CUDA runtime installed or put on
// LD_LIBRARY_PATH): processes started afterwards load with the new set,
// and a server the loader could not start is started again.
type LibraryFixer interface {
	SetMissingLibs(ctx context.Context, libs []string) error
}

// MergeFlags is base with over's flags on top, a new map.
func MergeFlags(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// GPUChanger is a World whose nodes' GPU setup can change between phases
// (a remedy's gpus: nvidia_peermem loaded, a driver with dma-buf):
// processes started afterwards see the new setup.
type GPUChanger interface {
	SetGPU(ctx context.Context, node string, gpu GPUSpec) error
}

// MasterVersion is the release mooncake_master runs.
func (s WorldSpec) MasterVersion() string {
	if s.Master != nil && s.Master.Version != "" {
		return s.Master.Version
	}
	return s.Version
}

// ClientSpec configures mooncake_client (standalone real client).
type ClientSpec struct {
	GlobalSegmentSize int64
	Protocol          string
	// DeviceNames is --device_names ("" = auto-discovery for rdma).
	DeviceNames string
	// RDMA is the RNIC inventory of mooncake_client's host; empty = none.
	RDMA []RDMADevice
	// OwnPod: mooncake_client is not a sidecar in SGLang's pod but in its
	// own (network namespace), as only container worlds can place it;
	// other worlds skip.
	OwnPod bool
	// ShmBytes is /dev/shm of its container (0 = a host's); container
	// worlds only.
	ShmBytes int64
	// VmemHeadroomBytes: mooncake_client's RLIMIT_AS is its address space
	// once it serves plus this (0 = unlimited): mmap of a larger dummy shm
	// fails ENOMEM.
	VmemHeadroomBytes int64
	// Flags are more command-line flags (name → value, without "--");
	// Env more environment, where OffloadDirPlaceholder is the world's
	// offload directory.
	Flags map[string]string
	Env   map[string]string
}

// OffloadDirPlaceholder stands for the world's SSD offload directory in
// ClientSpec.Env (the engine's Addr("offload_dir")).
const OffloadDirPlaceholder = "{{offload_dir}}"

// ClientEnv is spec's Env with OffloadDirPlaceholder written as dir.
func (s ClientSpec) ClientEnv(dir string) map[string]string {
	out := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		out[k] = strings.ReplaceAll(v, OffloadDirPlaceholder, dir)
	}
	return out
}

// ExpandOffloadDir is flags with OffloadDirPlaceholder written as dir: a
// master's --root_fs_dir under the world's offload directory.
func ExpandOffloadDir(flags map[string]string, dir string) map[string]string {
	out := make(map[string]string, len(flags))
	for k, v := range flags {
		out[k] = strings.ReplaceAll(v, OffloadDirPlaceholder, dir)
	}
	return out
}

// UsesOffloadDir says whether mooncake_client's env names the offload
// directory.
func (s ClientSpec) UsesOffloadDir() bool {
	for _, v := range s.Env {
		if strings.Contains(v, OffloadDirPlaceholder) {
			return true
		}
	}
	return false
}

// NeedsContainers says why a world of spec can only be built in a
// container world ("" = it can anywhere): engines whose worlds are
// processes on one host skip such a spec with the reason.
func (s WorldSpec) NeedsContainers() string {
	if s.Client != nil && s.Client.OwnPod {
		return "mooncake_client in its own pod (mooncake_client.sidecar: false) needs a container world (faultlab run --containers)"
	}
	if s.Client != nil && s.Client.ShmBytes > 0 {
		return "mooncake_client.shm (/dev/shm size) needs a container world (faultlab run --containers)"
	}
	for _, n := range s.Nodes {
		if n.ShmBytes > 0 {
			return fmt.Sprintf("node %s: shm (/dev/shm size) needs a container world (faultlab run --containers)", n.Name)
		}
	}
	return ""
}

// NameOffNetwork: local_hostname h (host or host:port) is a name no DNS
// on a container world's network knows — not an address, not the
// loopback, not the name of a node (its container's alias) or of a server
// role — so another container's transfer engine cannot resolve it (real
// 0.3.13.post1: "SocketHandShakePlugin: failed to get IP address of peer
// server", container/unresolvable-local-hostname). The pod's own hostname
// is such a name.
func NameOffNetwork(h string, nodes []string) bool {
	host := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[:i], ":") {
		host = h[:i]
	}
	if host == "" || host == "localhost" || net.ParseIP(host) != nil {
		return false
	}
	for _, n := range append([]string{"master", "metadata", "client", "toxiproxy"}, nodes...) {
		if host == n {
			return false
		}
	}
	return true
}

// LoopbackAcrossContainers: in a container world of several nodes, a
// node whose env names its local_hostname on the loopback names its own
// container, so transfers between nodes fail (real 0.3.9 in containers:
// "Warmup put failed after 10 attempts"). A scenario that sets it so was
// written for one host: a skip there, not the failure it never meant.
// (SGLang's default, local_hostname unset, is that failure on purpose:
// container/default-local-hostname-across-pods.)
func LoopbackAcrossContainers(nodes int, node string, env map[string]string) error {
	if nodes < 2 {
		return nil
	}
	h := env["MOONCAKE_LOCAL_HOSTNAME"]
	if h == "localhost" || strings.HasPrefix(h, "127.") || strings.HasPrefix(h, "localhost:") || h == "::1" || strings.HasPrefix(h, "[::1]") {
		return Unsupportedf("node %s: local_hostname %s is each container's own loopback; nodes in different containers cannot reach it", node, h)
	}
	return nil
}

// NodeSpec is one host: its NICs and memory limits.
type NodeSpec struct {
	Name string
	// RDMA is the RNIC inventory; empty = no RDMA NIC (like CI machines).
	RDMA []RDMADevice
	// MemlockBytes is RLIMIT_MEMLOCK; 0 = unlimited.
	MemlockBytes int64
	// HugepagesBytes is the HugeTLB pool available; 0 = none.
	HugepagesBytes int64
	// RAMBytes is the host's RAM (no swap); 0 = the models' default
	// (models/hostmem.DefaultRAM). The real engine runs on the machine's.
	RAMBytes int64
	// CapIPCLock: the process has CAP_IPC_LOCK (root does), so
	// ib_umem_get ignores RLIMIT_MEMLOCK.
	CapIPCLock bool
	// NonRoot: the process lacks CAP_NET_BIND_SERVICE (a non-root user):
	// a bind below port 1024 fails with EACCES.
	NonRoot bool
	// ShmBytes is /dev/shm of the node's containers (0 = a host's);
	// container worlds only.
	ShmBytes int64
	// GPU is the node's NVIDIA GPUs; nil = none. A node with GPUs runs
	// Mooncake's CUDA build (the wheel SGLang installs on GPU hosts).
	GPU *GPUSpec
	// EphemeralPorts is the size of the host's ip_local_port_range; 0 =
	// Linux's default (28232 ports: no world here runs out of them).
	EphemeralPorts int
	// Build: the CMake options of the node's source build of Mooncake
	// beyond the wheel's (BuildMNNVL, BuildIntraNVLink, BuildAscendDirect),
	// or one the wheel has turned off (BuildNoTCP);
	// nil = the wheel.
	Build []string
	// NPU is the node's Ascend NPUs and their CANN stack; nil = none.
	NPU *NPUSpec
}

// Source-build options a NodeSpec's Build names.
const (
	BuildMNNVL       = "mnnvl"        // -DUSE_MNNVL=ON: the cross-node NVLink transport ("nvlink")
	BuildIntraNVLink = "intra_nvlink" // -DUSE_INTRA_NVLINK=ON: the intra-node one ("nvlink_intra", v0.3.9 on)
	// -DUSE_ASCEND_DIRECT=ON: the Ascend direct transport ("ascend", ADXL; v0.3.6 on)
	BuildAscendDirect = "ascend_direct"
	// -DUSE_TCP=OFF: no TCP transport (common.cmake option USE_TCP, ON by
	// default and in every wheel): installTransport("tcp") is multi_transport.cpp's
	// "Unsupported transport tcp, please rebuild Mooncake".
	BuildNoTCP = "no_tcp"
)

// GPUSpec is a node's GPUs and what GPUDirect RDMA they support.
type GPUSpec struct {
	// Count is the number of GPUs (CUDA devices 0 … Count-1), each
	// reachable from every RNIC in the topology.
	Count int
	// Peermem: the nvidia_peermem kernel module is loaded, so ibv_reg_mr
	// accepts a GPU address; without it the kernel rejects one with
	// EFAULT (Bad address).
	Peermem bool
	// DmaBuf: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (driver and kernel
	// export GPU memory as a dma-buf that ibv_reg_dmabuf_mr imports).
	DmaBuf bool
	// Fabric: cuMemCreate with CU_MEM_HANDLE_TYPE_FABRIC is permitted (an
	// MNNVL system with the driver's IMEX channel set up, e.g. GB200
	// NVL72); without it CUDA returns 800, CUDA_ERROR_NOT_PERMITTED (an
	// H20 in Mooncake#965, a B300 in #1297). The GPUs report
	// CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED either way (the
	// Hopper and Blackwell GPUs the NVLink transport runs on), so the
	// transport takes the fabric path and meets the 800.
	Fabric bool
}

// RDMADevice is one RNIC as ibv_query_device reports it.
type RDMADevice struct {
	Name string
	// MaxMRSize is ibv_device_attr.max_mr_size; 0 = Mooncake's default 1 TiB.
	MaxMRSize int64
	// MaxMR is ibv_device_attr.max_mr (memory regions); 0 = unlimited.
	MaxMR int
	// Broken: present but unusable (port down, no GID).
	Broken bool
	// NoAutoGID: the port's GID table has no GID findBestGidIndex picks
	// (RoCE v1 or IPv6-only GIDs, a GID without a netdev); only
	// MC_GID_INDEX = GIDIndex opens it.
	NoAutoGID bool
	GIDIndex  int
	// GIDTableLen is ibv_port_attr.gid_tbl_len and GIDs the entries that
	// hold a GID (indices 0 … GIDs-1): a query past them fails with
	// ENODATA (mlx5 reports 256 and fills a few). 0, 0 = no empty entries.
	GIDTableLen, GIDs int
	// MaxRegBytes caps the bytes registered on the device in total;
	// beyond it ibv_reg_mr fails with EIO (erdma: 64 GiB, "Out of mr
	// size"). 0 = no cap.
	MaxRegBytes int64
	// Subnet is the IPv4 subnet of the port's RoCE GID (its netdev's
	// address, CIDR). Two ports reach each other only within one subnet:
	// at RTR the kernel resolves the peer GID's MAC on the local GID's
	// netdev, and off-subnet without a route that times out. "" = the
	// default subnet every such port shares.
	Subnet string
	// LeakedMRs are memory keys (MKEYs) an earlier, uncleanly killed
	// process left in the NIC: they count against MaxMR and only a reboot
	// or driver reload returns them (mlx5 CREATE_MKEY "no resources").
	LeakedMRs int
	// PortState is ibv_port_attr.state of port 1 (MC_IB_PORT's default,
	// the device's one port here) when Mooncake opens the device: an
	// ibv_port_state, IBV_PORT_DOWN (1) … IBV_PORT_ACTIVE (4); 0 = active.
	PortState int
	// NoRC: the device's kernel driver creates no reliable-connected
	// queue pair - AWS EFA, whose efa_qp_validate_attr takes UD and SRD
	// only - so the RDMA transport's ibv_create_qp(IBV_QPT_RC) fails with
	// EOPNOTSUPP. Opening it and registering memory work.
	NoRC bool
}

// IBVPortActive is ibverbs' IBV_PORT_ACTIVE.
const IBVPortActive = 4

// PortActive: the port is IBV_PORT_ACTIVE when the device is opened.
func (d RDMADevice) PortActive() bool { return d.PortState == 0 || d.PortState == IBVPortActive }

// PyError is a Python exception: class and exact str(e).
type PyError struct {
	Class   string
	Message string
}

func (e *PyError) Error() string { return e.Class + ": " + e.Message }

// Unsupported says an engine cannot run something here; the runner turns it
// into verdict "skip" with Reason.
type Unsupported struct{ Reason string }

func (e *Unsupported) Error() string { return "unsupported: " + e.Reason }

// Unsupportedf builds an *Unsupported error.
func Unsupportedf(format string, a ...any) error {
	return &Unsupported{Reason: fmt.Sprintf(format, a...)}
}

// AsPyError returns the *PyError in err's chain, if any.
func AsPyError(err error) (*PyError, bool) {
	var pe *PyError
	ok := errors.As(err, &pe)
	return pe, ok
}

// AsUnsupported returns the *Unsupported in err's chain, if any.
func AsUnsupported(err error) (*Unsupported, bool) {
	var u *Unsupported
	ok := errors.As(err, &u)
	return u, ok
}

// ProcessDied says the SGLang process died inside a Mooncake call (glog
// CHECK/FATAL → SIGABRT, or a crash → SIGSEGV): Python raises nothing, the
// scheduler exits. Reason is the last Mooncake line (e.g. the FATAL text).
// Added by sim/ (Mooncake ≤ 0.3.5 aborts on TE failure; 0.3.9 segfaults
// in the refused auto-port loop).
// A process that calls exit() instead (Mooncake ≤ 0.3.11.post1's
// config.cpp on an invalid MC_MTU) has no Signal and its Exit status.
type ProcessDied struct {
	Signal string // "SIGABRT", "SIGSEGV"; "" for an exit
	Exit   int    // the exit status when Signal is ""
	Reason string
	// Call is the MooncakeDistributedStore or TransferEngine method the
	// process was in ("setup", "batch_put_from", "transfer_sync_write"),
	// set by whoever made the call ("" = not known): what a Python
	// faulthandler dump of the death names.
	Call string
}

// How is the signal, or "exit N".
func (e *ProcessDied) How() string { return DeathHow(e.Signal, e.Exit) }

// SignalAbort is abort()'s signal (glog's FATAL, a failed CHECK).
const SignalAbort = "SIGABRT"

// ContainerAbortSignal is how an abort() ends in a container: each process
// is its container's PID 1, for which the kernel drops a signal it has no
// handler for, so abort()'s SIGABRT does nothing and glibc's abort() falls
// through to its ABORT_INSTRUCTION (hlt on x86-64), which faults in user
// mode (real 0.3.13.post1 and 0.3.14 in containers, docs/REAL-FINDINGS.md
// §107). An expected SIGABRT is this signal in a container world.
const ContainerAbortSignal = "SIGSEGV"

// InContainerSignal is the signal a death by sig is as a container's PID 1.
func InContainerSignal(sig string) string {
	if sig == SignalAbort {
		return ContainerAbortSignal
	}
	return sig
}

// InContainer is how d ends when the process is a container's PID 1.
func (e *ProcessDied) InContainer() *ProcessDied {
	d := *e
	d.Signal = InContainerSignal(e.Signal)
	return &d
}

func (e *ProcessDied) Error() string { return "process died (" + e.How() + "): " + e.Reason }

// DeathHow names a death: the signal, or "exit N" for an exit.
func DeathHow(signal string, exit int) string {
	if signal != "" {
		return signal
	}
	return "exit " + strconv.Itoa(exit)
}

// AsProcessDied returns the *ProcessDied in err's chain, if any.
func AsProcessDied(err error) (*ProcessDied, bool) {
	var d *ProcessDied
	ok := errors.As(err, &d)
	return d, ok
}
