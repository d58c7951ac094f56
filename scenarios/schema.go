// Package scenarios loads, validates and runs faultlab scenarios: YAML
// descriptions of one field failure of SGLang HiCache + Mooncake (topology,
// config, faults, steps, expected outcome) that every engine can run.
// The schema is documented in docs/SCENARIOS.md.
package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"gopkg.in/yaml.v3"
)

// Scenario is one scenario file.
type Scenario struct {
	Pos       Pos
	Name      string      `yaml:"name"`
	Summary   string      `yaml:"summary"`
	Refs      []string    `yaml:"refs"`
	Labels    []string    `yaml:"labels"`
	Engines   []string    `yaml:"engines" enum:"@engines"`
	Mooncake  Mooncake    `yaml:"mooncake"`
	SGLang    SGLang      `yaml:"sglang"`
	Topology  Topology    `yaml:"topology"`
	Storage   Storage     `yaml:"storage"`
	Config    Config      `yaml:"config"`
	Faults    []FaultSpec `yaml:"faults"`
	Steps     []Step      `yaml:"steps"`
	Expect    Expect      `yaml:"expect"`
	ByVersion ByVersion   `yaml:"by_version"`
	// BySGLang overrides expect per SGLang release (before by_version).
	BySGLang BySGLang `yaml:"by_sglang"`
	Remedy   *Remedy  `yaml:"remedy"`

	// Source is the file the scenario came from ("catalog/setup/x.yaml"
	// for embedded ones).
	Source string `yaml:"-"`
}

// Mooncake selects the Mooncake versions a scenario runs at.
type Mooncake struct {
	Pos
	// Versions: exact versions ("0.3.9") run at that version; constraints
	// (">=0.3.9", "<0.3.5", "0.3.5-0.3.8.post1", "*") run at the newest
	// known version they match. Empty = mooncake.Latest.
	Versions []string `yaml:"versions"`
}

// SGLang selects the SGLang releases a scenario applies to.
type SGLang struct {
	Pos
	// Versions: releases or constraints (">=0.5.21"); a run whose SGLang
	// side plays another release is a skip. Empty = every release.
	Versions []string `yaml:"versions"`
}

// Topology is the world an engine builds.
type Topology struct {
	Pos
	// Metadata: P2PHANDSHAKE (default), http (standalone HTTP metadata
	// server), master (the master's embedded HTTP metadata server) or etcd
	// (an etcd server: {{metadata}} = etcd://host:port).
	Metadata string `yaml:"metadata" enum:"P2PHANDSHAKE,http,master,etcd"`
	// MetadataEnv is the environment of the standalone HTTP metadata
	// server (metadata: http, the wheel's mooncake_http_metadata_server)
	// beyond the engine's: MC_METADATA_HTTP_TOKEN, its shared secret from
	// 0.3.14.
	MetadataEnv map[string]string `yaml:"metadata_env"`
	// MetadataHost is that server's --host (its own default is 0.0.0.0;
	// omitted, the loopback the engines bind). From 0.3.14 it refuses a
	// host that is not the loopback without MC_METADATA_HTTP_TOKEN.
	MetadataHost string  `yaml:"metadata_host"`
	Master       *Master `yaml:"master"`
	Client       *Client `yaml:"mooncake_client"`
	Nodes        []Node  `yaml:"nodes"`
	// MissingLibs are native libraries (sonames) the hosts lack, e.g.
	// libcudart.so.12 without the CUDA runtime: every Mooncake program
	// or module of the release that needs one fails to load
	// (mooncake_master exits 127, import mooncake.store raises ImportError).
	MissingLibs []string `yaml:"missing_libs"`
	// Libstdcxx is the newest GLIBCXX version of the hosts' libstdc++
	// ("3.4.29": RHEL 9's GCC 11; "" = new enough): a Mooncake program or
	// module built against a newer one fails to load (the wheels up to
	// 0.3.11.post1 need GLIBCXX_3.4.30).
	Libstdcxx string `yaml:"libstdcxx"`
}

// Master is mooncake_master.
type Master struct {
	Pos
	// Present: false = no master process at all (default true).
	Present *bool             `yaml:"present"`
	Flags   map[string]string `yaml:"flags"`
	// HA: two mooncake_master --enable_ha=true electing a leader through
	// the world's etcd (needs metadata: etcd); MOONCAKE_MASTER is then
	// "etcd://{{etcd}}".
	HA bool `yaml:"ha"`
	// MooncakeVersion runs mooncake_master from another Mooncake release
	// than the clients (version skew: the field's master and clients
	// upgraded apart); empty = the run's version.
	MooncakeVersion string `yaml:"mooncake_version"`
	// Env is mooncake_master's own environment beyond the engine's: the
	// variables it reads (MC_RPC_PROTOCOL: its RPC over RDMA).
	Env map[string]string `yaml:"env"`
	// NIC is the RNICs of the master's host (none by default, as on the
	// machines the real engine runs on).
	NIC NIC `yaml:"nic"`
	// HTTPMetadataPort is --http_metadata_server_port of the embedded HTTP
	// metadata server (metadata: master), fixed by the world (1024-65535);
	// absent = a port the engine picks per run. A port-held fault at 0s on
	// it is another process holding the port before the master starts.
	HTTPMetadataPort int `yaml:"http_metadata_port"`
	// MetricsPort is --metrics_port of the master's admin HTTP server
	// (metrics, health; default 9003), fixed by the world (1024-65535);
	// absent = a port the engine picks per run. A port-held fault at 0s on
	// it is another process holding the port before the master starts.
	MetricsPort int `yaml:"metrics_port"`
}

// Client is the standalone mooncake_client.
type Client struct {
	Pos
	Present           *bool    `yaml:"present"`
	GlobalSegmentSize ByteSize `yaml:"global_segment_size"`
	Protocol          string   `yaml:"protocol"`
	// DeviceNames is --device_names; NIC the RNICs of its host.
	DeviceNames string `yaml:"device_names"`
	NIC         NIC    `yaml:"nic"`
	// Shm is /dev/shm of its container (container worlds only; absent =
	// as large as a host's).
	Shm ByteSize `yaml:"shm"`
	// Sidecar (default true): mooncake_client runs in each SGLang pod,
	// sharing its network namespace, where its IPC socket lives; false =
	// its own pod (container worlds only: Mooncake #2937).
	Sidecar *bool `yaml:"sidecar"`
	// VmemHeadroom is `ulimit -v` on mooncake_client with this much left:
	// once it serves, its RLIMIT_AS is set to its address space then plus
	// this, so mapping a dummy's shm larger than it fails (mmap ENOMEM);
	// absent = unlimited. Worlds of processes only.
	VmemHeadroom ByteSize `yaml:"vmem_headroom"`
	// Flags are more mooncake_client command-line flags (enable_offload:
	// "true"), beyond those the engine sets (ClientReservedFlags).
	Flags map[string]string `yaml:"flags"`
	// Env is mooncake_client's own environment beyond the engine's: the
	// FileStorage knobs it reads with --enable_offload
	// (MOONCAKE_OFFLOAD_*; {{offload_dir}} is the world's offload
	// directory).
	Env map[string]string `yaml:"env"`
}

// ClientReservedFlags are the mooncake_client flags every engine sets
// itself (addresses, ports, the segment, logging).
var ClientReservedFlags = []string{"host", "port", "master_server_address", "metadata_server", "protocol", "device_names", "global_segment_size", "logtostderr"}

// Node is one host running an SGLang scheduler.
type Node struct {
	Pos
	Name      string   `yaml:"name"`
	NIC       NIC      `yaml:"nic"`
	Memlock   ByteSize `yaml:"memlock"`
	Hugepages ByteSize `yaml:"hugepages"`
	// RAM is the host's memory (no swap; default 64GiB, never the
	// machine's: sim is deterministic). A host pool beyond it fails as
	// Linux's overcommit heuristic makes it fail.
	RAM      ByteSize `yaml:"ram"`
	HostPool HostPool `yaml:"hostpool"`
	// Env is merged over config.env for this node's SGLang processes (a
	// null unsets), so one party can run another protocol.
	Env Env `yaml:"env"`
	// CapIPCLock: the processes have CAP_IPC_LOCK (root): no memlock limit.
	CapIPCLock bool `yaml:"cap_ipc_lock"`
	// NonRoot: the processes run as a user without root's
	// CAP_NET_BIND_SERVICE: binding a port below 1024
	// (net.ipv4.ip_unprivileged_port_start) fails with EACCES. Absent =
	// root, as containers run.
	NonRoot bool `yaml:"non_root"`
	// Shm is /dev/shm of the node's SGLang containers (container worlds
	// only; absent = as large as a host's; Docker's default is 64MiB).
	Shm ByteSize `yaml:"shm"`
	// GPU: the node's NVIDIA GPUs (absent = none). A node with GPUs runs
	// Mooncake's CUDA build; the real engine skips it (label needs-gpu).
	GPU *GPU `yaml:"gpu"`
	// IPLocalPortRange is the host's net.ipv4.ip_local_port_range ("low
	// high", the sysctl's own form; absent = Linux's 32768-60999): the
	// ports its outgoing TCP connections take, each held 60 s in
	// TIME_WAIT after the connection closes (TCP_TIMEWAIT_LEN).
	IPLocalPortRange string `yaml:"ip_local_port_range"`
	// Build lists the CMake options of a source build of Mooncake this
	// node runs beyond the wheel's (BuildOptions: mnnvl = -DUSE_MNNVL=ON,
	// intra_nvlink = -DUSE_INTRA_NVLINK=ON; both are CUDA builds, so the
	// node has a GPU; ascend_direct = -DUSE_ASCEND_DIRECT=ON, the Ascend
	// direct transport, needs an npu; no_tcp = -DUSE_TCP=OFF, a build
	// without the TCP transport). Absent = the wheel.
	Build []string `yaml:"build"`
	// NPU: the node's Ascend NPUs (absent = none); the real engine has none
	// (label needs-ascend).
	NPU *NPU `yaml:"npu"`
}

// NPU is a node's Ascend NPUs as the Ascend direct transport meets them
// (engine.NPUSpec).
type NPU struct {
	Pos
	// CANN is the CANN toolkit's version (8.3.RC1, 8.2.0; absent = one
	// ADXL runs on): ADXL fails to initialise below engine.CANNForADXL.
	CANN string `yaml:"cann"`
	// Link is the NPUs' device NIC link (hccn_tool -link): up (default) or
	// down, where a peer's ADXL Connect times out.
	Link string `yaml:"link" enum:"up,down"`
	// TransferStatus is the adxl::Status the node's transfers end in
	// (absent = SUCCESS): 103900, 103902, 103904, 203900 or 503900.
	TransferStatus int64 `yaml:"transfer_status"`
	// ConnectStatus is the adxl::Status the node's ADXL Connect to a peer
	// returns (absent = SUCCESS): 103900 (PARAM_INVALID: CANN refuses a
	// channel between processes on one NPU device), 203900 or 503900.
	ConnectStatus int64 `yaml:"connect_status"`
}

// BuildOptions are the source-build options topology.nodes[].build names:
// the NVLink transports the wheels leave out (the x86_64 wheels of every
// release; the aarch64 wheel has USE_MNNVL from 0.3.12, release.yaml), the
// Ascend direct transport, and the TCP transport turned off (no_tcp).
var BuildOptions = []string{engine.BuildMNNVL, engine.BuildIntraNVLink, engine.BuildAscendDirect, engine.BuildNoTCP}

// GPU is a node's GPUs, what GPUDirect RDMA they have, and SGLang's device
// KV pool on them.
type GPU struct {
	Pos
	// Count is the number of GPUs (default 1).
	Count int `yaml:"count"`
	// Peermem: the nvidia_peermem kernel module is loaded (ibv_reg_mr
	// accepts GPU addresses).
	Peermem bool `yaml:"peermem"`
	// DmaBuf: the GPUs support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED).
	DmaBuf bool `yaml:"dma_buf"`
	// Fabric: cuMemCreate with a fabric handle is permitted (MNNVL with
	// IMEX; engine.GPUSpec.Fabric).
	Fabric bool `yaml:"fabric"`
	// KVPool is SGLang's device KV pool on GPU 0 (k and v buffers, one
	// allocation each), which storage.backend direct-linker registers.
	KVPool ByteSize `yaml:"kv_pool"`
}

// NIC is the node's RDMA inventory; no devices = no RDMA NIC.
type NIC struct {
	Pos
	RDMA []RDMADevice `yaml:"rdma"`
}

// RDMADevice is one RNIC.
type RDMADevice struct {
	Pos
	Name      string   `yaml:"name"`
	MaxMRSize ByteSize `yaml:"max_mr_size"`
	MaxMR     int      `yaml:"max_mr"`
	Broken    bool     `yaml:"broken"`
	// NoAutoGID: no GID that Mooncake's auto-selection (v0.3.8.post1+
	// findBestGidIndex: a RoCE v2 GID with a network device) accepts;
	// GIDIndex is the one usable index, which MC_GID_INDEX must name.
	NoAutoGID bool `yaml:"no_auto_gid"`
	GIDIndex  int  `yaml:"gid_index"`
	// GIDTableLen is the port's gid_tbl_len, GIDs the entries 0 … GIDs-1
	// that hold a GID; the rest answer a query with ENODATA.
	GIDTableLen int `yaml:"gid_tbl_len"`
	GIDs        int `yaml:"gids"`
	// MaxRegBytes caps the total bytes registered (erdma: EIO past it);
	// LeakedMRs are MKEYs earlier killed processes left behind.
	MaxRegBytes ByteSize `yaml:"max_reg_bytes"`
	LeakedMRs   int      `yaml:"leaked_mrs"`
	// Subnet is the IPv4 subnet (CIDR) of the port's RoCE GID; ports in
	// different subnets fail the QP handshake at RTR. "" = one shared
	// default subnet.
	Subnet string `yaml:"subnet"`
	// PortState is port 1's ibv_port_state when Mooncake opens the device
	// (ibv_devinfo's "state: PORT_DOWN"): down (cable out, link down),
	// init (link up, no subnet manager has configured it), armed, or
	// active (the default).
	PortState string `yaml:"port_state" enum:"active,down,init,armed"`
	// Driver is the device's kernel driver where it matters: efa (an AWS
	// EFA device, rdmap…) creates no RC queue pair, so Mooncake's RDMA
	// transport fails ibv_create_qp with EOPNOTSUPP (its EFA transport
	// uses libfabric's SRD instead). "" = an RNIC of the RC kind (mlx5).
	Driver string `yaml:"driver" enum:"efa"`
}

// ibvPortStates are ibverbs' enum ibv_port_state values by port_state.
var ibvPortStates = map[string]int{"down": 1, "init": 2, "armed": 3, "active": engine.IBVPortActive}

// HostPool is SGLang's host KV pool on the node.
type HostPool struct {
	Pos
	Layout string `yaml:"layout" enum:"MHA,MLA"`
	// Allocator: sglang = what SGLang's own pool builder asks for at the
	// run's SGLang release (the draft pool: default at 0.5.14, mooncake
	// from 0.5.15; the decode-offload pool: default through 0.5.16).
	Allocator string `yaml:"allocator" enum:"mooncake,default,hugepage,shm,sglang"`
	// Builder (main pool only): hiradix (HiRadixCache, default) or
	// decode-offload (the PD decode side's DecodeKVCacheOffloadManager);
	// only allocator: sglang reads it.
	Builder string    `yaml:"builder" enum:"hiradix,decode-offload"`
	Size    ByteSize  `yaml:"size"`
	Draft   *HostPool `yaml:"draft"`
	// SharesMain (on a draft only): the draft pool is the main pool's
	// tensors, so its DRAFT registration overlaps k and v (no other draft
	// field may be given).
	SharesMain bool `yaml:"shares_main"`
	// PageSize is tokens per page (default 64); PageBytes the bytes of one
	// page of one component (k or v half for MHA; default 256KiB). I/O
	// steps use them for get_page_buffer_meta.
	PageSize  int      `yaml:"page_size"`
	PageBytes ByteSize `yaml:"page_bytes"`
}

// Storage is HiCacheStorageConfig.
type Storage struct {
	Pos
	// Backend: kv (HiCache's MooncakeStore, default), embedding (the
	// multimodal embedding cache's MooncakeEmbeddingStore) or
	// direct-linker (the unified cache's MooncakeDirectLinker, SGLang
	// 0.5.19+: a MooncakeStore without a host pool that registers the
	// nodes' GPU KV pools, gpu.kv_pool).
	Backend              string         `yaml:"backend" enum:"kv,embedding,direct-linker"`
	TPRank               int            `yaml:"tp_rank"`
	TPSize               int            `yaml:"tp_size"`
	PPRank               int            `yaml:"pp_rank"`
	PPSize               int            `yaml:"pp_size"`
	IsMLA                *bool          `yaml:"is_mla"`
	ModelName            string         `yaml:"model_name"`
	EnableStorageMetrics bool           `yaml:"enable_storage_metrics"`
	ExtraConfig          map[string]any `yaml:"extra_config"`
}

// Config is what SGLang reads its Mooncake config from.
type Config struct {
	Pos
	Env Env `yaml:"env"`
	// File: a mapping is written as JSON; a string is written verbatim (to
	// model malformed files). SGLANG_HICACHE_MOONCAKE_CONFIG_PATH is set to
	// FilePath unless Env sets it.
	File     any    `yaml:"file"`
	FilePath string `yaml:"file_path"`
	// ExtraConfig is --hicache-storage-backend-extra-config.
	ExtraConfig map[string]any `yaml:"extra_config"`
}

// DefaultConfigPath is where Config.File is written unless FilePath says.
const DefaultConfigPath = "/etc/sglang/mooncake.json"

// Env is a process environment; a null value (in a remedy) unsets.
type Env map[string]*string

func (e *Env) decodeNode(d *decoder, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "env: want a mapping, got %s", kindName(n))
		return
	}
	m := Env{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode {
			d.errorf(n.Content[i], "env: keys must be scalars")
			continue
		}
		if _, dup := m[k.Value]; dup {
			d.errorf(k, "env: duplicate key %q", k.Value)
			continue
		}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			m[k.Value] = nil
		case v.Kind == yaml.ScalarNode && sglang.BeyondInt64(k.Value, v.Value):
			d.errorf(v, "env.%s: %q: %s", k.Value, v.Value, beyondInt64)
		case v.Kind == yaml.ScalarNode:
			s := v.Value
			m[k.Value] = &s
		default:
			d.errorf(v, "env.%s: want a scalar, got %s", k.Value, kindName(v))
		}
	}
	*e = m
}

// FaultSpec is faults.Fault as written in YAML: the common keys, and the
// parameters its kind or link mode owns (faults.ParamsOf), decoded by their
// tags in the same mapping.
type FaultSpec struct {
	Pos
	// After anchors the fault to a main-phase step ("step 2": when step 2
	// has returned); At is then relative to that moment (see anchor.go).
	After  string   `yaml:"after"`
	At     Duration `yaml:"at"`
	For    Duration `yaml:"for"`
	Kind   string   `yaml:"kind"`
	Target string   `yaml:"target"`
	Mode   string   `yaml:"mode"`
	Action string   `yaml:"action"`
	Stream string   `yaml:"stream"`
	// Params is the owner's parameter struct (nil when it takes none).
	Params any `yaml:"-"`

	pending []*yaml.Node // parameter key and value pairs, until finish
}

// Fault converts to the engine-neutral fault.
func (f FaultSpec) Fault() faults.Fault {
	return faults.Fault{
		At: f.At.D(), For: f.For.D(), Kind: faults.Kind(f.Kind), Target: f.Target, Mode: f.Mode,
		Action: f.Action, Stream: f.Stream, Params: f.Params, Line: f.Line,
	}
}

func (f *FaultSpec) extraKey(k, v *yaml.Node) { f.pending = append(f.pending, k, v) }

// finish decodes the parameter keys into the struct the fault's kind and
// mode own. An unknown kind or mode is Validate's error; its keys are only
// checked against every owner's.
func (f *FaultSpec) finish(d *decoder, field string, common []string) {
	pending := f.pending
	f.pending = nil
	zero, known := faults.ParamsFor(faults.Kind(f.Kind), f.Mode)
	set := faults.NewParams(zero)
	owned := set.Keys()
	if !known {
		owned = nil
		for _, p := range faults.AllParamFields() {
			owned = append(owned, p.Name)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(pending); i += 2 {
		k, v := pending[i], resolve(pending[i+1])
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		if !slices.Contains(owned, k.Value) {
			keys := append(slices.Clone(common), owned...)
			sort.Strings(keys)
			d.errorf(k, "%sunknown key %q%s%s; valid keys: %s", prefix(field), k.Value, owner(f), didYouMean(k.Value, keys), strings.Join(keys, ", "))
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "%sduplicate key %q", prefix(field), k.Value)
			continue
		}
		seen[k.Value] = true
		if !known || v == nil || !d.scalar(v, sub) {
			continue
		}
		if err := set.Set(k.Value, v.Value); err != nil {
			if slices.ContainsFunc(faults.ParamFields(zero), func(p faults.ParamField) bool { return p.Name == k.Value && p.IsDuration() }) {
				d.errorf(v, "%v", err)
			} else {
				d.errorf(v, "%s: %v", sub, err)
			}
		}
	}
	f.Params = set.Value()
}

// owner names whose keys a fault's are, for the unknown-key message.
func owner(f *FaultSpec) string {
	if _, known := faults.ParamsFor(faults.Kind(f.Kind), f.Mode); !known {
		return ""
	}
	if f.Mode != "" {
		return fmt.Sprintf(" for %s mode %s", f.Kind, f.Mode)
	}
	return " for kind " + f.Kind
}

// FaultParams builds the params of a fault of kind and mode from values
// written as YAML would (durations with a unit, integers), as the loader
// does: explore builds scenarios with it.
func FaultParams(kind, mode string, values map[string]string) (any, error) {
	set := faults.NewParams(faults.ParamsOf(faults.Kind(kind), mode))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if err := set.Set(k, values[k]); err != nil {
			return nil, fmt.Errorf("%s %s: %s: %w", kind, mode, k, err)
		}
	}
	return set.Value(), nil
}

// Expect is the expected outcome of a phase.
type Expect struct {
	Pos
	// OK: no step raised.
	OK *bool `yaml:"ok"`
	// Raises: the first exception raised (steps stop there).
	Raises *Raises `yaml:"raises"`
	// Codes: Mooncake method (setup, register_buffer...) → code(s).
	Codes map[string]CodeExpect `yaml:"codes"`
	// Logs: substrings that must appear in the log lines, in this order among
	// the lines of one process (source); lines of two processes in any order.
	Logs []string `yaml:"logs"`
	// NoLogs: substrings that must appear in no log line.
	NoLogs   []string  `yaml:"no_logs"`
	Duration *DurRange `yaml:"duration"`
	Within   *Duration `yaml:"within"`
	// Dies: the SGLang process dies inside Mooncake (no Python exception).
	Dies *Dies `yaml:"dies"`
	// Invariants: the phase is also judged by the exploration invariants
	// (Options.Invariants), the whole oracle of a generated scenario.
	Invariants bool `yaml:"invariants"`
}

// Dies is an expected process death.
type Dies struct {
	Pos
	Signal string `yaml:"signal" enum:"SIGSEGV,SIGABRT,SIGFPE"`
	// Exit: the process exits with this status instead (exit(), no signal).
	Exit *int `yaml:"exit"`
	// Reason, when given, must be a substring of the engine's reason.
	Reason *string `yaml:"reason"`
	// In, when given, is the kind of Mooncake call the process dies in
	// (CallKind): what the innermost Python frame of a faulthandler dump
	// names.
	In string `yaml:"in" enum:"setup,register,put,get,exist,transfer,other"`
}

// How is the expected signal, or "exit N".
func (d *Dies) How() string {
	exit := 0
	if d.Exit != nil {
		exit = *d.Exit
	}
	return engine.DeathHow(d.Signal, exit)
}

// Raises is an expected Python exception.
type Raises struct {
	Pos
	Class string `yaml:"class"`
	// Message is compared exactly (after address normalization); nil = any.
	Message *string `yaml:"message"`
}

// DurRange bounds the phase's duration (virtual in sim; wall, scaled back,
// elsewhere).
type DurRange struct {
	Pos
	Min *Duration `yaml:"min"`
	Max *Duration `yaml:"max"`
}

// VersionExpect is one by_version entry.
type VersionExpect struct {
	Constraint string
	Expect     Expect
	Pos        Pos
}

// ByVersion overrides expect for the versions a constraint matches, in
// file order.
type ByVersion []VersionExpect

func (b *ByVersion) decodeNode(d *decoder, n *yaml.Node) {
	*b = append(*b, d.versionExpects(n, "by_version")...)
}

// BySGLang overrides expect for the SGLang releases a constraint matches
// ("<0.5.21", "0.5.17"), in file order: where SGLang's releases behave
// differently (docs/ENGINES.md, "Which SGLang").
type BySGLang []VersionExpect

func (b *BySGLang) decodeNode(d *decoder, n *yaml.Node) {
	*b = append(*b, d.versionExpects(n, "by_sglang")...)
}

// versionExpects decodes a mapping of version constraint → expect.
func (d *decoder) versionExpects(n *yaml.Node, field string) []VersionExpect {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: want a mapping of version constraint → expect, got %s", field, kindName(n))
		return nil
	}
	var out []VersionExpect
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			d.errorf(n.Content[i], "%s: keys must be version constraints", field)
			continue
		}
		ve := VersionExpect{Constraint: k.Value, Pos: d.pos(k)}
		d.decodeStruct(resolve(n.Content[i+1]), reflectValue(&ve.Expect), field+"."+k.Value)
		out = append(out, ve)
	}
	return out
}

// Remedy is the documented fix, run as a second phase in the same world.
type Remedy struct {
	Pos
	// ClearFaults heals every fault before the remedy (default true).
	ClearFaults *bool `yaml:"clear_faults"`
	// Env is merged over config.env (null unsets a variable).
	Env Env `yaml:"env"`
	// File replaces config.file.
	File any `yaml:"file"`
	// ExtraConfig is merged over config.extra_config (null deletes a key).
	ExtraConfig map[string]any `yaml:"extra_config"`
	// HostPools replace the named nodes' host pools (the fix is a
	// different pool, e.g. a draft pool of its own).
	HostPools map[string]HostPool `yaml:"hostpools"`
	// NodeEnv is merged over the named nodes' own env (null unsets): the
	// fix is one node's setting, e.g. a local_hostname other pods resolve,
	// which env cannot give because a node's env wins over it.
	NodeEnv map[string]Env `yaml:"node_env"`
	// GPUs replace the named nodes' GPU setup (the fix is on the host:
	// modprobe nvidia_peermem, a driver with dma-buf). Engines that model
	// GPUs only (engine.GPUChanger).
	GPUs map[string]GPU `yaml:"gpus"`
	// NPUs replace the named nodes' Ascend NPU setup (a newer CANN, the
	// device NIC's link up; engine.NPUChanger).
	NPUs map[string]NPU `yaml:"npus"`
	// MasterVersion replaces mooncake_master before the remedy with one
	// of this Mooncake release (restarted, its state lost): the fix for
	// version skew. "run" = the run's version (the clients' release).
	MasterVersion string `yaml:"master_version"`
	// MasterFlags restart mooncake_master before the remedy with these
	// flags merged over topology.master.flags (its state lost): the fix
	// is the master's command line, e.g. rpc_address: "::".
	MasterFlags map[string]string `yaml:"master_flags"`
	// MasterEnv restarts mooncake_master before the remedy with these
	// variables merged over topology.master.env (its state lost): the fix
	// is the master's environment, e.g. MC_RPC_PROTOCOL: tcp.
	MasterEnv map[string]string `yaml:"master_env"`
	// MetadataEnv restarts the standalone HTTP metadata server (metadata:
	// http) before the remedy with these variables merged over
	// topology.metadata_env (its store lost): the fix is the server's
	// environment, e.g. MC_METADATA_HTTP_TOKEN.
	MetadataEnv map[string]string `yaml:"metadata_env"`
	// MissingLibs replaces topology.missing_libs ([] = every library
	// present: the CUDA runtime installed); a server the loader could not
	// start is started again. Engines that can (engine.LibraryFixer).
	MissingLibs []string `yaml:"missing_libs"`
	// Steps replace the scenario's steps (default: the same steps).
	Steps     []Step    `yaml:"steps"`
	Expect    Expect    `yaml:"expect"`
	ByVersion ByVersion `yaml:"by_version"`
	BySGLang  BySGLang  `yaml:"by_sglang"`
}
