// Package te models Mooncake's transfer engine as the store drives it
// (mooncake-transfer-engine/src/transfer_engine_impl.cpp, topology.cpp,
// rdma_transport/*, tcp_transport.cpp, transfer_metadata*.cpp) plus the
// store's Client::InitTransferEngine (client_service.cpp): auto-discovery
// defaults per version, device discovery, transport installation, the
// metadata backend (P2PHANDSHAKE or HTTP) and memory registration with
// per-NIC ibv_reg_mr limits. Clock-agnostic; no goroutines.
package te

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// P2PHandshake is the metadata connection string without a metadata service.
const P2PHandshake = "P2PHANDSHAKE"

// DefaultMaxMRSize is globalConfig().max_mr_size's default (config.h, 1 TiB).
const DefaultMaxMRSize int64 = 0x10000000000

// Abort is a glog CHECK failure: the process dies (SIGABRT). Mooncake
// ≤ 0.3.5 aborts this way when the transfer engine cannot start.
type Abort struct{ Message string }

func (a *Abort) Error() string { return "process aborted: " + a.Message }

// Config wires one engine.
type Config struct {
	Profile  mooncake.Profile
	Host     Host
	Env      map[string]string
	Log      mlog.Logger
	Metadata MetadataHTTP
	// Etcd serves etcd:// (and bare host:port) metadata; nil = the
	// process cannot reach any etcd.
	Etcd  MetadataEtcd
	Ports PortBinder
	// PortRand: findAvailableTcpPort draws the RPC port uniformly from
	// rpc_min_port … rpc_max_port (15000 … 17000) per engine, so a new
	// process's port differs from a dead one's (real 0.3.13.post1: 16817,
	// then 15473). nil = the lowest free port from 15000.
	PortRand *rand.Rand
	// AfterConfig, when set, runs right after InitStore's config load:
	// the store client's Environ lines, which real 0.3.13.post1 prints
	// after config.cpp's (globalConfig() at import) and before the
	// engine's init lines (REAL-FINDINGS §98).
	AfterConfig func()
}

// nic is an opened RDMA context.
type nic struct {
	dev      engine.RDMADevice
	mrs      int
	maxMR    int64
	pinned   int64 // bytes pinned through this context
	regBytes int64 // bytes registered on the device (MaxRegBytes)
}

type region struct {
	addr   uint64
	length int64
	chunks int   // MRs per NIC
	pins   []pin // what each context (e.nics[i]) holds
}

// Engine is one TransferEngine instance.
type Engine struct {
	cfg Config
	// noPlugin: the metadata scheme has no storage plugin (the FATAL
	// text); aborted: init died of it.
	noPlugin   string
	aborted    *Abort
	serverName string // local_server_name_ (rpc_meta key)
	bindAddr   string // MC_TCP_BIND_ADDRESS: rpc_meta's ip_or_host_name when set
	legacy     bool   // MC_LEGACY_RPC_PORT_BINDING: the RPC port is local_hostname's
	rpcPort    int
	// rpcLo, rpcHi: findAvailableTcpPort's range (loadGlobalConfig).
	rpcLo, rpcHi int
	// crashed: the process died in init (findAvailableTcpPort's modulo
	// by zero, SIGFPE).
	crashed error
	// cqCrash: a context whose CQ was never created is being destroyed
	// at a release that dereferences it (createCQ).
	cqCrash bool
	// clusterPrefix: MC_METADATA_CLUSTER_ID with its '/', "" unset.
	clusterPrefix string
	metaURL       string // "" for P2PHANDSHAKE
	// etcd is the endpoint list of an etcd metadata service ("" = HTTP or
	// P2PHANDSHAKE).
	etcd       string
	transports []string
	// filter: the devices auto-discovery may take (TransferEngine's
	// filter_: the Python binding's device_name; nil = all).
	filter  []string
	nics    []*nic
	regions []region
	release []func()
	pinned  int64 // process-wide RLIMIT_MEMLOCK accounting
	// handshake: the P2P handshake listener runs (init bound its port).
	// leaked: a failed transport install leaked its transport, which holds
	// the metadata and so the listener (Profile.FailedTransportFreed).
	handshake, leaked bool
	// forcedTCP: init installed TCP for MC_FORCE_TCP (Profile.ForceTCPAtInit).
	forcedTCP bool
	// noLocalDesc: no transport was installed (the store's TENT branch
	// on a build without TENT), so no local segment descriptor exists.
	noLocalDesc bool
	// handshakeMaxRead, tcpSliceRead: the module's statics behind
	// ReadHandshakeMaxLength and ReadTCPSliceSize have been filled.
	handshakeMaxRead, tcpSliceRead bool
	// daemonRaced: init's "new RPC mapping" probe shared its port with
	// another engine's (probeShared), which listens on it first: the RDMA
	// transport's handshake daemon, the first to listen on the probe's
	// socket, cannot (installRDMA).
	daemonRaced bool
	// tcpBindError: what TcpTransport::install threw when its port was
	// held (Profile.TCPPortAfterRPC): asio's system_error text.
	tcpBindError string
	// publishAtInstall: TcpTransport::install's updateLocalSegmentDesc is
	// modelled (the bench, bench.go). The store's paths leave it out: they
	// reach install only after init's own PUT worked.
	publishAtInstall bool
	// rpcMeta is TransferMetadata's rpc_meta_map_: the segments whose
	// rpc_meta this process has read (getRpcMetaEntry).
	rpcMeta map[string]RPCMeta
	// segDescs are the remote segments whose descriptor this process has
	// read (segment_name_to_id_map_).
	segDescs map[string]bool
	// metaVersion numbers this engine's rpc_meta writes
	// (Profile.RPCMetaVersioned).
	metaVersion int64
	// rdma is each RDMA context's worker-pool state (rdma.go); workersAt
	// when the pools started.
	rdma      []rdmaContext
	workersAt time.Duration
	portSeen  int // port events handled (rdma.go)
	// rdmaNext is the context the next RDMA request's source buffer
	// selects (rdma.go selectContext); peerLog the current transfer's
	// passive side's log (rdma.go).
	rdmaNext int
	peerLog  mlog.Logger
	// nvFabric is the NVLink transport's use_fabric_mem_ (supportFabricMem
	// at install); nvBufs its segment's buffers; fabricAllocs the
	// cuMemCreate allocations of allocatePinnedLocalMemory (nvlink.go).
	nvFabric     bool
	nvBufs       []NVLinkBuffer
	fabricAllocs []NVLinkBuffer
	// ascend is the installed Ascend direct transport (ascend.go).
	ascend *ascendState
}

// New returns an uninitialised engine.
func New(cfg Config) *Engine {
	if cfg.Log == nil {
		cfg.Log = mlog.Discard{}
	}
	return &Engine{cfg: cfg}
}

func (e *Engine) logf(level, format string, a ...any) {
	e.cfg.Log.Log(level, fmt.Sprintf(format, a...))
}

func (e *Engine) env(k string) (string, bool) {
	v, ok := e.cfg.Env[k]
	return v, ok
}

// ServerName is the TE endpoint other parties reach (host:rpc_port in
// P2PHANDSHAKE mode, local_hostname otherwise).
func (e *Engine) ServerName() string { return e.serverName }

// JoinsHandshakeListener reports whether destroying this engine joins the
// P2P handshake listener (up to its 1 s poll): it runs, and no leaked
// transport keeps the metadata that owns it alive.
func (e *Engine) JoinsHandshakeListener() bool { return e.handshake && !e.leaked }

// Leaked reports whether a failed transport install leaked the engine's
// metadata (Profile.FailedTransportFreed): Close keeps its ports, which
// its process frees only when it ends.
func (e *Engine) Leaked() bool { return e.leaked }

// Handshake reports whether the engine runs in P2PHANDSHAKE mode: a
// segment is opened by a SocketHandShakePlugin handshake to its name.
func (e *Engine) Handshake() bool { return e.handshake }

// NoLocalSegmentDesc reports that no transport added the local segment
// descriptor (a transport's install does): a P2P handshake sends it first
// and a metadata service never received it, so every segment this engine
// opens fails (Profile.StoreTENTEnvSkipsTransports).
func (e *Engine) NoLocalSegmentDesc() bool { return e.noLocalDesc }

// ListensAtName reports whether the handshake daemon listens on the port
// of the engine's own name, where a P2PHANDSHAKE peer's getSegmentDesc
// connects (SocketHandShakePlugin::send to the segment name): in
// P2PHANDSHAKE mode the name is host:rpc_port, and MC_LEGACY_RPC_PORT_BINDING
// binds the name's port. With a metadata service the new RPC mapping
// listens on another port, published in rpc_meta, which a P2P peer never
// reads.
func (e *Engine) ListensAtName() bool { return e.handshake || e.legacy }

// ConnectAddr is the address connect() reports for an endpoint: the model's
// one host answers "localhost" at 127.0.0.1.
func ConnectAddr(endpoint string) string {
	if h, port, ok := strings.Cut(endpoint, ":"); ok && h == "localhost" {
		return "127.0.0.1:" + port
	}
	return endpoint
}

// JoinsTCPTransport reports whether destroying this engine joins a TCP
// transport that init installed for MC_FORCE_TCP (~1 s: real 0.3.12.post1,
// 0.3.13.post1, Profile.ForceTCPAtInit).
func (e *Engine) JoinsTCPTransport() bool { return e.forcedTCP }

// Transports lists installed transports ("rdma", "tcp").
func (e *Engine) Transports() []string { return append([]string(nil), e.transports...) }

// SegmentProtocol is the protocol of this engine's segment descriptor:
// each transport's install sets it (desc->protocol in tcp_transport.cpp,
// rdma_transport.cpp), so the last one installed wins. "" before init.
func (e *Engine) SegmentProtocol() string {
	if len(e.transports) == 0 {
		return ""
	}
	return e.transports[len(e.transports)-1]
}

// SelectTransport is MultiTransport::selectTransport for a target segment
// whose descriptor says proto: the installed transport of that name, or
// false (NotSupportedTransport). Released wheels are built without
// ENABLE_MULTI_PROTOCOL, so the segment's one protocol decides.
func (e *Engine) SelectTransport(proto string) bool {
	return proto == "" || contains(e.transports, proto)
}

// MaxMRSize is globalConfig().max_mr_size: MC_MAX_MR_SIZE (versions that
// read it, decimal only) or 1 TiB, clamped to the smallest opened device's
// max_mr_size.
func (e *Engine) MaxMRSize() int64 {
	m := DefaultMaxMRSize
	if n, ok := envMaxMRSize(e.cfg.Profile, e.cfg.Env); ok {
		m = n
	}
	for _, n := range e.nics {
		if n.maxMR < m {
			m = n.maxMR
		}
	}
	return m
}

// envMaxMRSize is loadGlobalConfig's MC_MAX_MR_SIZE as the version parses
// it (mooncake.Knobs: atoll into a uint64, so "1GB" is 1, hex and garbage
// are 0 and ignored, a negative number wraps to a huge accepted value).
func envMaxMRSize(p mooncake.Profile, env map[string]string) (int64, bool) {
	v, ok := env["MC_MAX_MR_SIZE"]
	pv := mooncake.ParseKnob(p.Version, "MC_MAX_MR_SIZE", v, ok)
	if !pv.Read || pv.Fallback {
		return 0, false
	}
	return pv.Int, true
}

// CppException is a C++ exception thrown out of setup, which pybind11
// turns into a Python exception (std::invalid_argument → ValueError).
type CppException struct{ Class, What string }

func (e *CppException) Error() string { return e.Class + ": " + e.What }

// readKnob parses one MC_* value as this release reads it and logs the
// line Mooncake logs for a value it does not take.
func (e *Engine) readKnob(name, raw string, set bool) mooncake.Value {
	pv := mooncake.ParseKnobOn(e.cfg.Profile.Version, name, raw, set, e.knobHost())
	if pv.Log != "" && pv.Level != mooncake.LevelStderr {
		// MC_NIC_PEER_AFFINITY: a line per rejected rule.
		for _, line := range strings.Split(pv.Log, "\n") {
			e.logf(pv.Level, "%s", line)
		}
	}
	return pv
}

// loadGlobalConfig is the transfer engine's one-time read of its env
// (config.cpp, at the first globalConfig()): the warnings it logs, and
// the RPC port range.
func (e *Engine) loadGlobalConfig() {
	// real 0.3.10.post1 (MC_MAX_MR_SIZE): logged before the client exists.
	for _, k := range configWarned {
		if k.check != nil {
			k.check(e)
			continue
		}
		v, set := e.env(k.name)
		if !set && k.alias != "" {
			v, set = e.env(k.alias)
		}
		if !set {
			continue
		}
		pv := e.readKnob(k.name, v, true)
		if k.taken != nil && pv.Read && !pv.Fallback {
			k.taken(e, pv)
		}
	}
}

// rpcPortRange is loadGlobalConfig's read of the RPC port range, between
// MC_LOG_DIR and MC_FRAGMENT_RATIO at every tag (config.cpp v0.3.7:242-260,
// v0.3.9:256-275, v0.3.11:288-299, v0.3.12.post1:460-470,
// main@3b5a594:464-474): its warning comes in that place among the others.
func (e *Engine) rpcPortRange() {
	p := e.cfg.Profile
	e.rpcLo, e.rpcHi = mooncake.DefaultRPCMinPort, mooncake.DefaultRPCMaxPort
	minName, maxName := mooncake.RPCPortRangeEnv(p.Version)
	switch {
	case minName == "": // up to 0.3.6.post1: fixed
	case p.Version.AtLeast("0.3.11"):
		// MC_MIN_RPC_PORT, else the misspelt MC_MIN_PRC_PORT (max alike),
		// the pair through ValidatePortRange (config.cpp v0.3.11:288-299).
		lo, loSet := e.env(minName)
		if !loSet {
			lo, loSet = e.env("MC_MIN_PRC_PORT")
		}
		hi, hiSet := e.env(maxName)
		if !hiSet {
			hi, hiSet = e.env("MC_MAX_PRC_PORT")
		}
		if !loSet && !hiSet {
			return
		}
		l, h := int64(e.rpcLo), int64(e.rpcHi)
		if loSet {
			l = mooncake.ParseKnob(p.Version, minName, lo, true).Int
		}
		if hiSet {
			h = mooncake.ParseKnob(p.Version, maxName, hi, true).Int
		}
		// real 0.3.11.post1 / 0.3.13.post1: "Invalid port range [16000,
		// 15000], falling back to default [15000, 17000]" (either name).
		l, h, warn := mooncake.ValidatePortRange(l, h, mooncake.DefaultRPCMinPort, mooncake.DefaultRPCMaxPort)
		if warn != "" {
			e.logf(mlog.Warning, "%s", warn)
		}
		e.rpcLo, e.rpcHi = int(l), int(h)
	default:
		// 0.3.7 to 0.3.10.x: each taken when 0 < atoi < 65536, else a
		// warning that misspells the name again; the pair is never checked
		// (config.cpp v0.3.7:242-260; findAvailableTcpPort draws from it).
		for _, x := range []struct {
			name string
			dst  *int
		}{{minName, &e.rpcLo}, {maxName, &e.rpcHi}} {
			raw, set := e.env(x.name)
			if !set {
				continue
			}
			if pv := mooncake.ParseKnob(p.Version, x.name, raw, true); pv.Fallback {
				e.logf(mlog.Warning, "%s", pv.Log)
			} else {
				*x.dst = int(pv.Int)
			}
		}
	}
}

// InitStore is Client::InitTransferEngine for the store's protocol and
// device string (devices nil = rdma_devices ""). It returns the store-level
// ErrorCode (INTERNAL_ERROR / INVALID_PARAMS), or *Abort on versions that
// CHECK-fail.
func (e *Engine) InitStore(ctx context.Context, localHostname, metadataConn, protocol string, devices *string) error {
	p := e.cfg.Profile
	e.loadGlobalConfig()
	if e.cfg.AfterConfig != nil {
		e.cfg.AfterConfig()
	}
	e.metricsLine()
	// MC_USE_TENT read by the store itself (Profile.StoreTENTEnvSkipsTransports):
	// no auto-discovery and, after init, no transport.
	tent := false
	if p.StoreTENTEnvSkipsTransports {
		_, a := e.env("MC_USE_TENT")
		_, b := e.env("MC_USE_TEV1")
		tent = a || b
	}
	var auto bool
	if !tent {
		var err error
		if auto, err = e.autoDiscover(protocol, devices); err != nil {
			return err
		}
	}
	enabledLine := func() {
		e.logf(mlog.Info, "Transfer engine auto discovery is enabled for protocol: %s", protocol)
	}
	if auto && !p.AbortOnTransportFailure && !p.AutoDiscoveryLineAfterInit {
		enabledLine()
	}
	// Client::InitTransferEngine parses local_hostname before the
	// engine's init does (client_service.cpp v0.3.9:284) and passes host
	// and port on (client.cpp v0.3.4.post2:170).
	hp := e.parseHostNameWithPort(localHostname)
	e.startingLine(localHostname, metadataConn, hp.host, hp.port)
	if rc := e.init(ctx, localHostname, metadataConn, auto); rc != 0 {
		if e.aborted != nil {
			return e.aborted
		}
		if e.crashed != nil {
			return e.crashed
		}
		if p.AbortOnTransportFailure {
			msg := fmt.Sprintf("Check failed: rc == 0 (%d vs. 0) Failed to initialize transfer engine", rc)
			e.logf(mlog.Fatal, "%s", msg)
			return &Abort{Message: msg}
		}
		e.logf(mlog.Error, "Failed to initialize transfer engine, rc=%d", rc)
		return mooncake.INTERNAL_ERROR
	}
	if tent {
		e.logf(mlog.Info, "Using TENT mode - transport configuration handled internally")
		if devices != nil {
			e.logf(mlog.Info, "Note: device_names parameter is ignored in TENT mode. Configure devices via TENT config file or environment variables.")
		}
		e.noLocalDesc = true
		return nil
	}
	if auto {
		if p.AutoDiscoveryLineAfterInit {
			enabledLine()
		}
		return nil
	}
	if !p.AbortOnTransportFailure {
		e.logf(mlog.Info, "Transfer engine auto discovery is disabled for protocol: %s", protocol)
	}
	switch {
	case protocol == "ascend" && p.StoreAscend:
		if devices != nil {
			e.logf(mlog.Warning, "Ascend protocol does not use device names, ignoring")
		}
		if e.ascend == nil {
			// TransferEngineImpl::installTransport → MultiTransport: no
			// AscendDirectTransport outside an Ascend build.
			e.logf(mlog.Error, "Unsupported transport ascend, please rebuild Mooncake")
			e.logf(mlog.Error, "Failed to install Ascend transport")
			return mooncake.INTERNAL_ERROR
		}
		// init installed it (transfer_engine_impl.cpp v0.3.8.post1:195).
		e.logf(mlog.Warning, "Transport ascend already installed")
		return nil
	case protocol == "rdma" || protocol == "efa" && p.EFAProtocol:
		// One branch for both (client_service.cpp v0.3.10:439-462).
		if p.AbortOnTransportFailure {
			// ≤ 0.3.5: install with the device list, CHECK(transport).
			e.logf(mlog.Info, "transport_type=rdma")
			var names []string
			if devices != nil {
				names = splitDevices(*devices)
			}
			if e.installRDMA(names, true) != 0 {
				if e.crashed != nil {
					return e.crashed
				}
				msg := "Check failed: transport Failed to install transport"
				e.logf(mlog.Fatal, "%s", msg)
				return &Abort{Message: msg}
			}
			return nil
		}
		if devices == nil || *devices == "" {
			e.logf(mlog.Error, "RDMA protocol requires device names when auto discovery is disabled")
			return mooncake.INVALID_PARAMS
		}
		e.logf(mlog.Info, "Using specified RDMA devices: %s", *devices)
		if protocol == "efa" {
			e.installEFA(ctx, splitDevices(*devices))
			e.logf(mlog.Error, "Failed to install RDMA transport with specified devices")
			return mooncake.INTERNAL_ERROR
		}
		if e.installRDMA(splitDevices(*devices), true) != 0 {
			if e.crashed != nil {
				return e.crashed
			}
			e.logf(mlog.Error, "Failed to install RDMA transport with specified devices")
			return mooncake.INTERNAL_ERROR
		}
		return nil
	case protocol == "tcp":
		if p.AbortOnTransportFailure {
			e.logf(mlog.Info, "transport_type=tcp")
		} else if devices != nil {
			e.logf(mlog.Warning, "TCP protocol does not use device names, ignoring")
		}
		if e.forcedTCP { // transfer_engine_impl.cpp v0.3.12.post1:435
			e.logf(mlog.Warning, "Transport tcp already installed")
			return nil
		}
		if e.installTCP(ctx) != 0 {
			if e.tcpBindError != "" {
				// Client::InitTransferEngine catches what install threw
				// (client.cpp v0.3.4.post2:180-186).
				e.logf(mlog.Error, "tcp_transport_install_failed error_message=\"%s\"", e.tcpBindError)
			}
			return mooncake.INTERNAL_ERROR
		}
		return nil
	}
	if protocol == "nvlink_intra" && p.StoreNvlinkIntra {
		e.logf(mlog.Info, "Using intra-NVLink protocol.")
		e.transports = append(e.transports, "nvlink_intra")
		return nil
	}
	if protocol == "nvlink_intra" && p.StoreNvlinkIntraNotBuilt {
		e.logf(mlog.Error, "--protocol=nvlink_intra requires USE_INTRA_NVLINK=ON, please rebuild mooncake from source.")
		return mooncake.INVALID_PARAMS
	}
	e.logf(mlog.Error, "unsupported_protocol protocol=%s", protocol)
	return mooncake.INVALID_PARAMS
}

func splitDevices(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// autoDiscover is get_auto_discover() plus the per-version default.
func (e *Engine) autoDiscover(protocol string, devices *string) (bool, error) {
	p := e.cfg.Profile
	if v, ok := e.env("MC_MS_AUTO_DISC"); ok {
		// std::stoi: a leading number counts ("1x" is 1); none throws,
		// uncaught up to 0.3.11.post1 (real 0.3.11.post1: setup raises
		// ValueError "stoi"), caught with a warning from 0.3.12.
		pv := mooncake.ParseKnob(p.Version, "MC_MS_AUTO_DISC", v, true)
		if pv.Raise != "" {
			return false, &CppException{Class: "ValueError", What: "stoi"}
		}
		switch {
		case !pv.Fallback && pv.Int == 1:
			e.logf(mlog.Info, "auto discovery set by env MC_MS_AUTO_DISC")
			return true, nil
		case !pv.Fallback && pv.Int == 0 && !p.AbortOnTransportFailure:
			e.logf(mlog.Info, "auto discovery not set by env MC_MS_AUTO_DISC")
			return false, nil
		case pv.Log != "": // 0.3.6+ (the knob table)
			e.logf(pv.Level, "%s", pv.Log)
		}
	}
	switch {
	case p.AbortOnTransportFailure: // ≤ 0.3.5: off unless MC_MS_AUTO_DISC=1
		return false, nil
	case p.AutoDiscoveryAllProtocols: // 0.3.6, 0.3.6.post1 (Mooncake#898)
		return true, nil
	case (protocol == "rdma" || protocol == "efa" && p.EFAProtocol) && devices == nil:
		// 0.3.13 prints the protocol variable (lower case); before, "RDMA"
		// (client_service.cpp; real runs of 0.3.9 and 0.3.13.post1).
		name := "RDMA"
		if p.AutoDiscoveryLogsProtocol {
			name = protocol
		}
		e.logf(mlog.Info, "Set auto discovery ON by default for %s protocol, since no device names provided", name)
		return true, nil
	}
	return false, nil
}

// discover is Topology::discover(filter): the devices ibv lists.
func (e *Engine) discover(filter []string) []engine.RDMADevice {
	if len(e.cfg.Host.RDMA) == 0 {
		e.logf(mlog.Warning, "No RDMA devices found, check your device installation")
		e.resolveTopology()
		return nil
	}
	defer e.resolveTopology()
	var out []engine.RDMADevice
	for _, d := range e.cfg.Host.RDMA {
		if len(filter) > 0 && !contains(filter, d.Name) {
			continue
		}
		if !e.topologyListsDevice(d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// resolveTopology is the end of Topology::discover, resolve(): with
// MC_ENABLE_HCA_PEER_AFFINITY on and no MC_NIC_PEER_AFFINITY mapping kept
// it warns (v0.3.12.post1 topology.cpp:310-316; real 0.3.12.post1,
// 0.3.13.post1, 0.3.14 print it at auto-discovery, REAL-FINDINGS §102).
func (e *Engine) resolveTopology() {
	if line := mooncake.HCAPeerAffinityUnmapped(e.cfg.Profile.Version, e.cfg.Env); line != "" {
		e.logf(mlog.Warning, "%s", line)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// installRDMA is RdmaTransport::install → initializeRdmaResources.
func (e *Engine) installRDMA(filter []string, discover bool) int {
	var hcas []engine.RDMADevice
	if discover {
		hcas = e.discover(filter)
		if !e.cfg.Profile.AbortOnTransportFailure {
			e.logf(mlog.Info, "Topology discovery complete with specified devices. Found %d HCAs", len(hcas))
		}
	} else {
		hcas = e.discover(filter)
	}
	if rc := e.openContexts(hcas); rc != 0 {
		return rc
	}
	return e.startRDMADaemon()
}

// startRDMADaemon is the end of RdmaTransport::install after its contexts
// opened: startHandshakeDaemon(rpc_port, sockfd) after the segment ID
// (rdma_transport.cpp v0.3.4:58-75, v0.3.6:58-75). Where init's probe
// shared its port (daemonRaced), SocketHandShakePlugin::startDaemon
// listens on the probe's socket, where the other engine listens already
// (transfer_metadata_plugin.cpp v0.3.6:680, the P2P case's line);
// installTransport returns null and the transport is not kept.
func (e *Engine) startRDMADaemon() int {
	if !e.daemonRaced {
		return 0
	}
	e.logf(mlog.Error, "SocketHandShakePlugin: listen(): Address already in use [98]")
	e.logf(mlog.Error, "RdmaTransport: cannot start handshake daemon")
	e.nics = nil
	e.transports = slices.DeleteFunc(e.transports, func(t string) bool { return t == "rdma" })
	e.leaked = !e.cfg.Profile.FailedTransportFreed
	return ErrSocket
}

// installEFA is installTransport("efa") after the named devices'
// discovery, on a wheel: it fails. Up to 0.3.13.post1 the wheels are built
// without USE_EFA; 0.3.14's has the transport, which dlopens libfabric,
// and no host here has the AWS EFA userspace (real 0.3.14: then the
// failed transport's destructor removes the segment descriptor).
func (e *Engine) installEFA(ctx context.Context, devices []string) {
	hcas := e.discover(devices)
	e.logf(mlog.Info, "Topology discovery complete with specified devices. Found %d HCAs", len(hcas))
	if !e.cfg.Profile.EFABuiltIn {
		e.logf(mlog.Error, "Unsupported transport efa, please rebuild Mooncake")
		return
	}
	e.logf(mlog.Info, "[EFA] AWS Elastic Fabric Adapter transport initialized")
	e.logf(mlog.Error, "EfaTransport: cannot load libfabric. Install the AWS EFA userspace and put its lib directory (e.g. /opt/amazon/efa/lib) on LD_LIBRARY_PATH, or set MC_LIBFABRIC_PATH. Tried:")
	for _, lib := range []string{"libfabric.so.1", "/opt/amazon/efa/lib/libfabric.so.1"} {
		e.logf(mlog.Info, "  %s: %s: cannot open shared object file: No such file or directory", lib, lib)
	}
	e.removeSegmentDesc(ctx, false)
}

// portText is how rdma_context.cpp prints the port: a uint8_t streamed
// into glog is a char, so port 1 is the byte 0x01, invisible in a
// terminal ("No suitable GID found on mlx5_bond_1/" in Mooncake#1593;
// rdma_context.h v0.3.8.post1:71, v0.3.12.post1:116: uint8_t port = 1).
const portText = "\x01"

// gidUsable is RdmaContext::openRdmaDevice's GID choice on port 1 of a
// device without an auto-selectable GID (v0.3.8.post1 … rdma_context.cpp,
// e.g. v0.3.9:567-600): gid_index -1 (MC_GID_INDEX unset) asks
// findBestGidIndex, which finds none; an index naming a GID without a
// network device is refused too. Then construct fails: "Failed to open
// device ... with GID N", and the device is disabled.
//
// An index naming an entry of the table that holds no GID (gids ≤ index <
// gid_tbl_len) fails either way: before auto-selection ibv_query_gid
// answers an empty entry with the zero GID (rdma-core verbs.c, "Preserve
// API behavior for empty GID") and openRdmaDevice refuses it ("GID is
// NULL, please check your GID index by specifying MC_GID_INDEX",
// rdma_context.cpp v0.3.4:440, v0.3.7.post2:559); from auto-selection
// hasNetworkDevice finds no ndev for it first (v0.3.8:587-593,
// v0.3.9:587-593, v0.3.11.post1:776-782).
func (e *Engine) gidUsable(d engine.RDMADevice) bool {
	gid := e.gidIndex()
	empty := gid >= 0 && d.GIDs > 0 && gid >= d.GIDs && gid < d.GIDTableLen
	if !e.cfg.Profile.AutoGIDSelect {
		if !empty {
			return true
		}
		e.logf(mlog.Warning, "GID is NULL, please check your GID index by specifying MC_GID_INDEX")
		e.logf(mlog.Error, "Failed to open device %s on port %s with GID %d", d.Name, portText, gid)
		return false
	}
	if !d.NoAutoGID && !empty {
		return true
	}
	switch {
	case gid < 0:
		e.scanGIDTable(d)
		e.logf(mlog.Warning, "No suitable GID found on %s/%s", d.Name, portText)
	case empty || gid != d.GIDIndex:
		e.logf(mlog.Warning, "User-specified GID index %d on %s/%s has no associated network device, may not be optimal for RDMA operations", gid, d.Name, portText)
	default:
		e.logf(mlog.Info, "Using user-specified GID index: %d on %s/%s (with network device)", gid, d.Name, portText)
		return true
	}
	e.logf(mlog.Error, "Failed to open device %s on port %s with GID %d", d.Name, portText, gid)
	return false
}

// gidIndex is globalConfig().gid_index: MC_GID_INDEX (or
// NCCL_IB_GID_INDEX), else config.h's default: 0, and from 0.3.8 -1
// (auto-selection).
func (e *Engine) gidIndex() int {
	v, ok := e.cfg.Env["MC_GID_INDEX"]
	if !ok {
		v, ok = e.cfg.Env["NCCL_IB_GID_INDEX"]
	}
	return int(mooncake.KnobValue(e.cfg.Profile.Version, "MC_GID_INDEX", v, ok).Int)
}

// withNvidiaPeermem is Environ's WITH_NVIDIA_PEERMEM (0.3.11+, the knob
// table's rules): unset, false at 0.3.11 only and true from 0.3.11.post1
// (environ.cpp v0.3.11:84 vs v0.3.11.post1:84, Mooncake#2192), so from
// then dma-buf needs WITH_NVIDIA_PEERMEM=0; at 0.3.14 whether the
// peermem module is loaded (real).
func (e *Engine) withNvidiaPeermem() bool {
	v, ok := e.cfg.Env["WITH_NVIDIA_PEERMEM"]
	return mooncake.KnobValueOn(e.cfg.Profile.Version, "WITH_NVIDIA_PEERMEM", v, ok, e.knobHost()).On
}

// knobHost is what a knob's host-dependent default reads of this host.
func (e *Engine) knobHost() mooncake.KnobHost {
	return mooncake.KnobHost{Peermem: e.cfg.Host.GPU != nil && e.cfg.Host.GPU.Peermem}
}

// dmaBufUsable is openRdmaDevice's DMA-BUF check in the CUDA build from
// 0.3.11 (rdma_context.cpp v0.3.11:663-740, v0.3.12.post1:1233-1310):
// unless WITH_NVIDIA_PEERMEM, every GPU the local topology maps to the RNIC
// (here all of them) must support dma-buf, or the device does not open and
// construct prints "Failed to open device". Before 0.3.11 the wheels are
// built WITH_NVIDIA_PEERMEM and check nothing.
func (e *Engine) dmaBufUsable(d engine.RDMADevice) bool {
	g := e.cfg.Host.GPU
	if g == nil || !e.cfg.Profile.GPUDmaBufDefault || e.withNvidiaPeermem() {
		return true
	}
	if g.Count == 0 {
		e.logf(mlog.Info, "No GPU device is explicitly mapped to RNIC %s; skip DMA-BUF affinity validation", d.Name)
		return true
	}
	if g.DmaBuf {
		return true
	}
	e.logf(mlog.Error, "DMA BUF supported required for GPU RDMA without nvidia-peermem on GPU device 0 mapped to RNIC %s", d.Name)
	e.logf(mlog.Error, "Failed to open device %s on port %s with GID %d", d.Name, portText, e.gidIndex())
	return false
}

// scanGIDTable is findBestGidIndex's walk over the whole GID table when no
// GID is accepted: up to 0.3.9 each index the port reports (gid_tbl_len)
// but that holds no GID fails ibv_query_gid_ex with ENODATA, logged by
// PLOG and skipped (rdma_context.cpp v0.3.8.post1 / v0.3.9:448-452;
// Mooncake#1592). From v0.3.10 (#1597) the walk stops silently there.
func (e *Engine) scanGIDTable(d engine.RDMADevice) {
	if !e.cfg.Profile.GIDQueryFailureLogged || d.GIDTableLen <= d.GIDs {
		return
	}
	for i := d.GIDs; i < d.GIDTableLen; i++ {
		e.logf(mlog.Error, "Failed to query GID %d on %s/%s: No data available [61]", i, d.Name, portText)
	}
}

// createCQ is RdmaContext::construct's ibv_create_cq loop after the
// device opened (rdma_context.cpp v0.3.4.post2:107-121, v0.3.9:122-136):
// a failed CQ is PLOGged and construct returns ERR_CONTEXT. Up to
// v0.3.4.post2 the context's destructor then destroys every CQ slot, the
// unset one included (deconstruct, :158-163), and the process dies;
// from v0.3.5 (Mooncake#535) unset slots are skipped and the device is
// only disabled (Profile.RDMANullCQDestroy).
func (e *Engine) createCQ(d engine.RDMADevice) bool {
	if e.cfg.Host.RDMAFaults.createCQ(d.Name) {
		return true
	}
	e.logf(mlog.Error, "Failed to create completion queue: Cannot allocate memory [12]")
	e.cqCrash = e.cfg.Profile.RDMANullCQDestroy
	return false
}

func (e *Engine) openContexts(hcas []engine.RDMADevice) int {
	var opened []*nic
	for _, d := range hcas {
		if d.Broken || !e.portOpens(d) || !e.dmaBufUsable(d) || !e.gidUsable(d) || !e.createCQ(d) {
			e.logf(mlog.Warning, "Disable device %s", d.Name)
			if e.cqCrash {
				// The failed context goes out of scope at the end of the
				// loop's iteration: ~RdmaContext → deconstruct →
				// ibv_destroy_cq(NULL) for the CQ never created.
				e.crashed = &engine.ProcessDied{Signal: "SIGSEGV", Reason: "Segmentation fault in ibv_destroy_cq: ~RdmaContext destroyed the completion queue that was never created"}
				return -1
			}
			continue
		}
		maxMR := d.MaxMRSize
		if maxMR <= 0 {
			maxMR = DefaultMaxMRSize
		}
		opened = append(opened, &nic{dev: d, maxMR: maxMR})
	}
	if len(opened) == 0 {
		e.logf(mlog.Error, "RdmaTransport: No available RNIC")
		e.logf(mlog.Error, "RdmaTransport: cannot initialize RDMA resources")
		if !e.cfg.Profile.FailedTransportFreed {
			e.leaked = true
			return mooncake.ERR_DEVICE_NOT_FOUND
		}
		// MultiTransport deletes the failed transport; ~RdmaTransport calls
		// removeSegmentDesc (real 0.3.12.post1 and 0.3.13.post1 print the
		// P2P line here, 0.3.9–0.3.11.post1 do not).
		e.removeSegmentDesc(context.Background(), false)
		return mooncake.ERR_DEVICE_NOT_FOUND
	}
	e.nics = opened
	e.transports = append(e.transports, "rdma")
	return 0
}

// metricsLine is the TransferEngine constructor's InitializeMetricsConfig
// (its MC_TE_METRIC_INTERVAL_SECONDS read: std::stoi, caught; default 5)
// and StartMetricsReportingThread without MC_TE_METRIC on
// (transfer_engine.cpp v0.3.4:319-368, transfer_engine_impl.cpp
// v0.3.9:553-588, v0.3.12.post1:937-975, main@3b5a594:997-1035; the same
// texts at every tag; real 0.3.4.post2 … 0.3.14 the disabled line, real
// 0.3.12.post1 … 0.3.14 the interval's, setup/te-engine-env-values-ignored).
func (e *Engine) metricsLine() {
	if v, ok := e.env("MC_TE_METRIC_INTERVAL_SECONDS"); ok {
		switch n, parsed := mooncake.Stoi(v); {
		case !parsed:
			e.logf(mlog.Warning, "Failed to parse MC_TE_METRIC_INTERVAL_SECONDS: %s, using default: %d", v, defaultMetricsInterval)
		case n > 0:
			e.logf(mlog.Info, "Metrics reporting interval set to %d seconds", n)
		default:
			e.logf(mlog.Warning, "Invalid MC_TE_METRIC_INTERVAL_SECONDS value: %s, must be positive. Using default: %d", v, defaultMetricsInterval)
		}
	}
	if v, ok := e.env("MC_TE_METRIC"); ok && slices.Contains([]string{"1", "true", "yes", "on"}, strings.ToLower(v)) {
		return
	}
	e.logf(mlog.Info, "Metrics reporting is disabled (set MC_TE_METRIC=1 to enable)")
}

// defaultMetricsInterval is metrics_interval_seconds_'s initial value
// (transfer_engine_impl.h v0.3.9:341, v0.3.12.post1:469).
const defaultMetricsInterval = 5

// ReadHandshakeMaxLength is getHandshakeMaxLength's first call in this
// engine's module (common.h: a function-local static that
// loadHandshakeMaxLength fills, v0.3.9:372-403, v0.3.12.post1:416-446,
// main@3b5a594:436-460): readString reads it at the first handshake
// message the process reads - the daemon's request, the initiator's reply -
// not at init. A value outside 1 MiB … 128 MiB, or not all digits, warns
// and keeps 1 MiB; a valid one is said at INFO. Real 0.3.9, 0.3.12.post1,
// 0.3.13.post1, 0.3.14: once in each of the two processes of a P2P
// handshake (setup/te-engine-env-values-ignored). The static is per shared
// object, not per engine: two engines of one module in one process would
// print it once; the model keeps it per engine.
func (e *Engine) ReadHandshakeMaxLength() {
	if e.handshakeMaxRead {
		return
	}
	e.handshakeMaxRead = true
	v, set := e.env("MC_HANDSHAKE_MAX_LENGTH")
	if !set {
		return
	}
	if pv := e.readKnob("MC_HANDSHAKE_MAX_LENGTH", v, true); pv.Read && !pv.Fallback {
		e.logf(mlog.Info, "MC_HANDSHAKE_MAX_LENGTH set to %d bytes (%d MB)", pv.Uint, pv.Uint>>20)
	}
}

// ReadTCPSliceSize is the TCP transport's getChunkSize at its first body
// read or write in the process (a function-local static: tcp_transport.cpp
// v0.3.12.post1:43-66, read by the client session's writeBody/readBody and
// the server session's, :241, :307, :631, :706; main@3b5a594
// tcp_transport_session_impl.h:20-42): MC_TCP_SLICE_SIZE as the knob table
// reads it (0 or no number warns, 65536 kept), from 0.3.12. Real
// 0.3.12.post1, 0.3.13.post1, 0.3.14: once on each side of the first
// transfer; 0.3.9 reads no such knob (setup/te-engine-env-values-ignored).
func (e *Engine) ReadTCPSliceSize() {
	if e.tcpSliceRead {
		return
	}
	e.tcpSliceRead = true
	if v, set := e.env("MC_TCP_SLICE_SIZE"); set {
		e.readKnob("MC_TCP_SLICE_SIZE", v, true)
	}
}

// startingLine is TransferEngine::init's first line up to v0.3.5.
func (e *Engine) startingLine(server, metadata, host string, port int) {
	if e.cfg.Profile.TEStartingLine {
		e.logf(mlog.Info, "Transfer Engine starting. Server: %s, Metadata: %s, ip_or_host_name: %s, rpc_port: %d", server, metadata, host, port)
	}
}

// init is TransferEngineImpl::init: RPC port, rpc_meta publication, and
// (auto-discovery) topology discovery + transport installation.
func (e *Engine) init(ctx context.Context, localServerName, metadataConn string, auto bool) int {
	host, port := splitHostPort(localServerName)
	if _, legacy := e.env("MC_LEGACY_RPC_PORT_BINDING"); e.cfg.Profile.HostNameParse.InitAlways || legacy || metadataConn == P2PHandshake {
		hp := e.parseHostNameWithPort(localServerName)
		if e.cfg.Profile.HostNameParse.InitAlways {
			// From v0.3.5 init says what it parsed (transfer_engine.cpp
			// v0.3.5:63, transfer_engine_impl.cpp v0.3.9:105; real
			// 0.3.6.post1: "server_name: fd00:340::1 port: 12001"); the
			// Ascend direct build too (only legacy USE_ASCEND parses the
			// NPU suffix, common.cmake v0.3.8.post1:184-218).
			e.logf(mlog.Info, "Transfer Engine parseHostNameWithPort. server_name: %s port: %d", hp.host, hp.port)
		}
		// A port that is none: the host before it (hostport.go); a
		// bracketed IPv6 host is taken below.
		switch {
		case !strings.HasPrefix(localServerName, "[") && (e.cfg.Profile.HostNameParse.WholeName || isIPv6(localServerName)):
			// init takes parseHostNameWithPort's host and port as they are
			// (transfer_engine.cpp v0.3.4:56-58): up to v0.3.4.post2 a bare
			// IPv6 name is split at its first ':' ("fd00:340::1" → fd00,
			// 340); from v0.3.5 it is the host, on the handshake port.
			host, port = hp.host, hp.port
		case hp.illegal && !strings.HasPrefix(localServerName, "["):
			host = hp.host
		}
	}
	e.serverName = localServerName
	if metadataConn == P2PHandshake {
		// parseHostNameWithPort takes a bracketed IPv6 host without its
		// brackets (common.h v0.3.7.post2:165; real 0.3.9 "[::1]" →
		// "listening on ::1:<port>"), and the P2P server name is host:port.
		if h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"); h != host && strings.Contains(h, ":") && net.ParseIP(h) != nil {
			host = h
		}
		if e.cfg.Profile.P2PExplicitRPCPort && port > 0 && port <= 65535 && port != e.handshakePort() {
			// parseHostNameWithPort: no port, or none in 1..65535, is the
			// handshake port (common.h v0.3.4.post2:121-135).

			return e.p2pExplicitPort(ctx, host, port, auto)
		}
		// findAvailableTcpPort: the handshake daemon's port.
		p, release, err := e.bindAny(ctx, host)
		if e.crashed != nil {
			return -1
		}
		if err != nil {
			e.logf(mlog.Error, "P2P: No valid port found for local TCP service.")
			return -1
		}
		e.release = append(e.release, release)
		e.rpcPort = p
		e.handshake = true
		e.serverName = host + ":" + strconv.Itoa(p)
		e.logf(mlog.Info, "Transfer Engine RPC using P2P handshake, listening on %s:%d", host, p)
		e.loadClusterID()
		if e.probeShared() {
			// addRpcMetaEntry → SocketHandShakePlugin::startDaemon listens on
			// the probe's socket; another engine that probed the same port
			// (SO_REUSEADDR) listened first (transfer_metadata_plugin.cpp
			// v0.3.4:566, v0.3.4.post2:635, v0.3.6:680; real 0.3.4, §84).
			e.logf(mlog.Error, "SocketHandShakePlugin: listen(): Address already in use [98]")
			return ErrSocket
		}
	} else {
		switch proto, domain := ParseConnectionString(metadataConn); proto {
		case "http", "https":
		case "etcd":
			e.etcd = domain
		default:
			// MetadataStoragePlugin::Create has no plugin for the scheme
			// (redis and any other is compiled into no released wheel):
			// LOG(FATAL) once TransferMetadata is built, after the RPC
			// port is chosen (transfer_metadata_plugin.cpp v0.3.4 …
			// v0.3.12.post1; real 0.3.9, 0.3.13.post1, 0.3.14: SIGABRT).
			e.noPlugin = fmt.Sprintf("Unable to find metadata storage plugin %s with conn string: %s", proto, metadataConn)
		}
		e.metaURL = metadataConn
		if _, legacy := e.env("MC_LEGACY_RPC_PORT_BINDING"); legacy {
			// getenv presence (=0 too): local_hostname's own port, no socket
			// held; the handshake daemon binds it at install (legacyBind).
			e.rpcPort, e.legacy = port, true
			e.logf(mlog.Info, "Transfer Engine RPC using legacy/P2P, listening on %s:%d", host, port)
			e.loadClusterID()
			if e.noPlugin != "" {
				return e.abortNoPlugin()
			}
			if !e.put(ctx, e.rpcMetaKey(e.serverName), e.rpcMetaBody()) {
				e.logf(mlog.Error, "Failed to set location of %s", e.serverName)
				return mooncake.ERR_METADATA
			}
			return e.afterRPC(ctx, auto)
		}
		p, release, err := e.bindAny(ctx, host)
		if e.crashed != nil {
			return -1
		}
		if err != nil {
			e.logf(mlog.Error, "not valid port for serving local TCP service")
			// Returned before TransferMetadata is made: freeEngine has
			// no metadata_ to remove rpc_meta with (transfer_engine_impl.cpp
			// v0.3.9:163-168, :316-321; real 0.3.9: no DELETE after this
			// line, setup/te-port-range-one-port-http).
			e.metaURL, e.etcd = "", ""
			return -1
		}
		e.release = append(e.release, release)
		e.rpcPort = p
		// Up to 0.3.6 the probe's socket (desc.sockfd), bound with
		// SO_REUSEADDR, is kept unlistened until a transport's handshake
		// daemon listens on it (transfer_engine.cpp v0.3.6:139,
		// transfer_metadata.cpp v0.3.6:608-623: no daemon at init without
		// P2P handshake).
		e.daemonRaced = e.probeShared()
		// The real engine listens on the first active interface's IP; the
		// sim host has one logical address.
		if _, legacy := e.env("MC_LEGACY_RPC_PORT_BINDING"); !legacy {
			// transfer_engine_impl.cpp (v0.3.10.post1:149, v0.3.12.post1:159):
			// MC_TCP_BIND_ADDRESS is published as is, unchecked.
			if a, ok := e.env("MC_TCP_BIND_ADDRESS"); ok {
				e.bindAddr = a
				host = a
			}
		}
		e.logf(mlog.Info, "Transfer Engine RPC using new RPC mapping, listening on %s:%d", host, p)
		e.loadClusterID()
		if e.noPlugin != "" {
			return e.abortNoPlugin()
		}
		if e.cfg.Profile.RPCMetaGetBeforePut && e.etcd == "" {
			e.get(ctx, e.rpcMetaKey(e.serverName)) // logged when it fails; the PUT follows
		}
		if !e.put(ctx, e.rpcMetaKey(e.serverName), e.rpcMetaBody()) {
			e.logf(mlog.Error, "Failed to set location of %s", e.serverName)
			return mooncake.ERR_METADATA
		}
	}
	return e.afterRPC(ctx, auto)
}

// handshakePort is globalConfig().handshake_port: MC_HANDSHAKE_PORT or
// 12001.
func (e *Engine) handshakePort() int {
	if v, ok := e.env("MC_HANDSHAKE_PORT"); ok {
		if pv := mooncake.ParseKnob(e.cfg.Profile.Version, "MC_HANDSHAKE_PORT", v, true); pv.Read && !pv.Fallback {
			return int(pv.Int)
		}
	}
	return 12001
}

// p2pExplicitPort is init's P2P branch up to 0.3.4.post2
// (Profile.P2PExplicitRPCPort): local_hostname's own port is the RPC port,
// and addRpcMetaEntry starts the handshake daemon on it (sockfd -1, so it
// binds now): a port held by another process is SocketHandShakePlugin's
// bind error and ERR_SOCKET (transfer_metadata.cpp v0.3.4.post2:500-515,
// transfer_metadata_plugin.cpp:610-630).
func (e *Engine) p2pExplicitPort(ctx context.Context, host string, port int, auto bool) int {
	e.rpcPort = port
	e.logf(mlog.Info, "Transfer Engine RPC using P2P handshake, listening on %s:%d", host, port)
	if e.cfg.Host.NonRoot && port < 1024 {
		// startDaemon binds the handshake listener on the wildcard address
		// (transfer_metadata_plugin.cpp v0.3.4:535-557); below
		// ip_unprivileged_port_start the kernel wants CAP_NET_BIND_SERVICE.
		e.logf(mlog.Error, "SocketHandShakePlugin: bind (port %d): Permission denied [13]", port)
		return ErrSocket
	}
	if e.cfg.Ports != nil {
		rel, err := e.cfg.Ports.Bind(ctx, host, port)
		if err != nil {
			e.logf(mlog.Error, "SocketHandShakePlugin: bind (port %d): Address already in use [98]", port)
			return ErrSocket
		}
		e.release = append(e.release, rel)
	}
	e.handshake = true
	return e.afterRPC(ctx, auto)
}

// ErrSocket is the transfer engine's ERR_SOCKET (error.h).
const ErrSocket = -102

// abortNoPlugin is the LOG(FATAL) of a scheme without a plugin: init's
// caller returns e.aborted.
func (e *Engine) abortNoPlugin() int {
	e.logf(mlog.Fatal, "%s", e.noPlugin)
	e.aborted = &Abort{Message: e.noPlugin}
	return mooncake.ERR_METADATA
}

// afterRPC is the rest of init once the RPC location is published:
// topology discovery and transport installation when auto-discovering.
func (e *Engine) afterRPC(ctx context.Context, auto bool) int {
	if _, force := e.env("MC_FORCE_TCP"); force && e.cfg.Profile.ForceTCPAtInit {
		// The branch's #else (transfer_engine_impl.cpp v0.3.12.post1:220-223):
		// no install is tried.
		if !e.installTCPOr(ctx, "MC_FORCE_TCP is set but USE_TCP is not compiled in", "MC_FORCE_TCP is set but failed to install TCP transport") {
			return -1
		}
		e.forcedTCP = true
		e.logf(mlog.Info, "MC_FORCE_TCP is set, using TCP transport only")
		return 0
	}
	if e.ascendBuild() {
		return e.installAscend() // in place of auto-discovery (ascend.go)
	}
	if !auto {
		return 0
	}
	e.logf(mlog.Info, "Auto-discovering topology...")
	if path, ok := e.env("MC_CUSTOM_TOPO_JSON"); ok {
		// The same at every tag (transfer_engine.cpp v0.3.4:112-124,
		// transfer_engine_impl.cpp v0.3.9:217-229, v0.3.12.post1:258-270):
		// an unreadable or empty file falls back to discovery. The harness
		// writes no file but SGLang's config, so the path names none (real
		// 0.3.9 … 0.3.14, setup/te-engine-env-values-ignored); a topology
		// the file would give is not modelled.
		e.logf(mlog.Info, "Using custom topology from: %s", path)
		e.logf(mlog.Warning, "Failed to load custom topology from %s, falling back to auto-detect.", path)
	}
	hcas := e.discover(e.filter)
	e.logf(mlog.Info, "Topology discovery complete. Found %d HCAs.", len(hcas))
	if e.cfg.Profile.GPUP2PFallback {
		return e.selectGPUP2P(ctx, hcas)
	}
	if e.nvlinkBuild() {
		return e.selectNVLink(hcas)
	}
	_, forceTCP := e.env("MC_FORCE_TCP")
	_, forceHCA := e.env("MC_FORCE_HCA")
	forceHCA = forceHCA && e.cfg.Profile.ForceHCA
	if (len(hcas) > 0 && !forceTCP) || forceHCA {
		if e.openContexts(hcas) != 0 || e.startRDMADaemon() != 0 {
			if e.crashed != nil {
				return -1
			}
			// transfer_engine_impl.cpp: generic text from 0.3.13 (real runs).
			switch {
			case e.cfg.Profile.GenericTransportInstallError:
				e.logf(mlog.Error, "Failed to install transport, type=rdma")
			case e.cfg.Profile.RDMAInstallErrorUntyped:
				e.logf(mlog.Error, "Failed to install RDMA transport")
			default:
				e.logf(mlog.Error, "Failed to install RDMA transport, type=rdma")
			}
			return -1
		}
		e.logf(mlog.Info, "installTransport, type=rdma")
		return 0
	}
	return e.installTCP(ctx)
}

// built reports whether the node's source build has the CMake option opt
// (engine.Build*).
func (e *Engine) built(opt string) bool { return slices.Contains(e.cfg.Host.Build, opt) }

// nvlinkBuild: the node runs a source build whose auto-discovery is the
// NVLink builds' branch (Profile.NVLinkSelect): USE_MNNVL, or from 0.3.9
// USE_INTRA_NVLINK. Such a build never falls back to TCP.
func (e *Engine) nvlinkBuild() bool {
	b := e.cfg.Host.Build
	return e.cfg.Host.GPU != nil && (slices.Contains(b, engine.BuildMNNVL) ||
		e.cfg.Profile.NVLinkSelect && slices.Contains(b, engine.BuildIntraNVLink))
}

// selectNVLink is the NVLink builds' transport choice at auto-discovery
// (Profile.NVLinkSelect, IntraNVLinkFirst). A transport the build lacks
// is multi_transport.cpp's "Unsupported transport …, please rebuild
// Mooncake" and init fails. The cross-node transport's memory and data
// paths are nvlink.go's; the intra-node one's are not modelled (the te
// step's register and transfer skip on it).
func (e *Engine) selectNVLink(hcas []engine.RDMADevice) int {
	_, force := e.env("MC_FORCE_MNNVL")
	_, intra := e.env("MC_INTRANODE_NVLINK")
	intra = intra && e.cfg.Profile.NVLinkSelect
	cross := force || len(hcas) == 0
	install := func(proto, opt, name, using string) int {
		if !e.built(opt) {
			e.logf(mlog.Error, "Unsupported transport %s, please rebuild Mooncake", proto)
			e.logf(mlog.Error, "Failed to install %s transport", name)
			return -1
		}
		if proto == "nvlink" {
			e.nvFabric = e.supportFabricMem() // NvlinkTransport's constructor
		}
		e.transports = append(e.transports, proto)
		if e.cfg.Profile.NVLinkSelect {
			e.logf(mlog.Info, "Using %s", using)
		}
		return 0
	}
	switch {
	case intra && (e.cfg.Profile.IntraNVLinkFirst || !cross):
		return install("nvlink_intra", engine.BuildIntraNVLink, "Intra-Node NVLink", "Intra-Node NVLink transport (MC_INTRANODE_NVLINK set)")
	case cross:
		return install("nvlink", engine.BuildMNNVL, "NVLink", "cross-node NVLink transport (MC_FORCE_MNNVL or no HCA detected)")
	}
	if e.openContexts(hcas) != 0 {
		if e.crashed != nil {
			return -1
		}
		e.logf(mlog.Error, "Failed to install RDMA transport")
		return -1
	}
	if e.cfg.Profile.NVLinkSelect {
		e.logf(mlog.Info, "Using RDMA transport (RoCE/iWARP)")
	}
	return 0
}

// selectGPUP2P is auto-discovery's transport choice where the wheel is
// an NVLink build (Profile.GPUP2PFallback: 0.3.14, built with
// USE_INTRA_NVLINK, PR 3547): main@3b5a594 transfer_engine_impl.cpp
// 329-401. MC_FORCE_MNNVL in a build without the cross-node transport
// warns and falls back (:353-357); MC_INTRANODE_NVLINK installs the
// intra-node transport, whose memory and data paths are not modelled
// (:359-367); the cross-node one where a source build has it, for
// MC_FORCE_MNNVL or no HCA (:368-376); RDMA with HCAs or MC_FORCE_HCA
// (:377-384); else TCP, or without USE_TCP nothing (:385-400). Real
// 0.3.14 without an RNIC: "Using TCP transport (no HCA detected)" after
// TcpTransport's lines, and with MC_FORCE_MNNVL the warning before them.
func (e *Engine) selectGPUP2P(ctx context.Context, hcas []engine.RDMADevice) int {
	_, force := e.env("MC_FORCE_MNNVL")
	_, intra := e.env("MC_INTRANODE_NVLINK")
	_, forceHCA := e.env("MC_FORCE_HCA")
	mnnvl := e.built(engine.BuildMNNVL)
	if force && !mnnvl {
		e.logf(mlog.Warning, "NVLink transport was requested but is not compiled in, falling back to RDMA/TCP")
	}
	switch {
	case intra:
		e.transports = append(e.transports, "nvlink_intra")
		e.logf(mlog.Info, "Using Intra-Node NVLink transport (MC_INTRANODE_NVLINK set)")
		return 0
	case mnnvl && (force || len(hcas) == 0):
		e.nvFabric = e.supportFabricMem() // NvlinkTransport's constructor
		e.transports = append(e.transports, "nvlink")
		e.logf(mlog.Info, "Using NVLink transport (forced or no HCA detected)")
		return 0
	case len(hcas) > 0 || forceHCA:
		if e.openContexts(hcas) != 0 || e.startRDMADaemon() != 0 {
			if e.crashed != nil {
				return -1
			}
			e.logf(mlog.Error, "Failed to install RDMA transport")
			return -1
		}
		e.logf(mlog.Info, "Using RDMA transport (RoCE/iWARP)")
		return 0
	}
	if !e.installTCPOr(ctx, "No HCA detected and neither NVLink nor TCP transport is compiled in", "Failed to install TCP transport") {
		return -1
	}
	e.logf(mlog.Info, "Using TCP transport (no HCA detected)")
	return 0
}

// installTCPOr installs the TCP transport where the build has it, else
// logs notBuilt; a failed install logs failed. false: init fails.
func (e *Engine) installTCPOr(ctx context.Context, notBuilt, failed string) bool {
	if e.built(engine.BuildNoTCP) {
		e.logf(mlog.Error, "%s", notBuilt)
		return false
	}
	if e.installTCP(ctx) != 0 {
		e.logf(mlog.Error, "%s", failed)
		return false
	}
	return true
}

// tcpLaneKnobs is TcpTransport's constructor (0.3.13 on), before install:
// its lane and admission knobs, each through parseBoundedTcpSetting, a
// WARNING "Invalid NAME value: TEXT, using default D" for a text it does
// not take, once per transfer engine whatever MC_TCP_ENABLE_CONNECTION_POOL
// says (main@3b5a594 tcp_transport.cpp:197-222, 239-291; real 0.3.13.post1
// tcp_transport.cpp:267, :318 and 0.3.14 :295, :346, REAL-FINDINGS §110).
// The deprecated MC_TCP_MAX_CONNECTIONS_PER_PEER is read only when
// MC_TCP_LANES_PER_PEER is unset, after its own deprecation line. 0.3.14's
// MC_TCP_MAX_QUEUED_BYTES_PER_PEER and MC_NUM_TCP_IO_THREADS are left out:
// no 0.3.14 source is stored to place them.
func (e *Engine) tcpLaneKnobs() {
	if !e.cfg.Profile.Version.AtLeast("0.3.13") {
		return
	}
	warn := func(name string) {
		raw, set := e.env(name)
		e.readKnob(name, raw, set)
	}
	if _, set := e.env("MC_TCP_LANES_PER_PEER"); set {
		warn("MC_TCP_LANES_PER_PEER")
	} else if _, set := e.env("MC_TCP_MAX_CONNECTIONS_PER_PEER"); set {
		e.logf(mlog.Warning, "MC_TCP_MAX_CONNECTIONS_PER_PEER is deprecated; use MC_TCP_LANES_PER_PEER")
		warn("MC_TCP_MAX_CONNECTIONS_PER_PEER")
	}
	warn("MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER")
	warn("MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER")
	warn("MC_TCP_ADMISSION_TIMEOUT_MS")
}

// installTCP is TcpTransport::install; its listen port follows the RPC
// port up to 0.3.4.post2, and is findAvailableTcpPort's from 0.3.5.
func (e *Engine) installTCP(ctx context.Context) int {
	if e.built(engine.BuildNoTCP) {
		// multi_transport.cpp v0.3.12.post1:330-333 (tcp only #ifdef
		// USE_TCP), :403-407.
		e.logf(mlog.Error, "Unsupported transport tcp, please rebuild Mooncake")
		return -1
	}
	// The constructor (and its knobs' warnings) exists only in a build
	// with the transport.
	e.tcpLaneKnobs()
	tcpPort := e.rpcPort + 1
	if !e.cfg.Profile.TCPPortAfterRPC && e.cfg.Ports != nil {
		// Drawn from the RPC port's range, where the RPC port is taken: a
		// range of one port leaves none (real 0.3.9, 0.3.13.post1,
		// MC_MIN/MAX_PRC_PORT=16000: setup -1 after every attempt).
		host, _ := splitHostPort(e.serverName)
		port, rel, err := e.bindAny(ctx, host)
		if err != nil {
			e.logf(mlog.Error, "TcpTransport: unable to find available tcp port for data transmission")
			// Before 0.3.12 the failed transport leaks with the metadata
			// and its P2P listener, which keeps the RPC port: the next
			// attempt finds none either ("P2P: No valid port found").
			if e.cfg.Profile.FailedTransportFreed {
				e.removeSegmentDesc(ctx, false)
			} else {
				e.leaked = true
			}
			e.logf(mlog.Error, "Failed to install TCP transport")
			return -1
		}
		e.release = append(e.release, rel)
		tcpPort = port
	}
	if e.cfg.Profile.TCPInstallReadsOwnSegmentDesc {
		// allocateLocalSegmentID starts from its own name's descriptor
		// (getSegmentDesc). A P2P engine's handshake branch first encodes
		// the local descriptor, which only this install adds. With HTTP
		// metadata a fresh world has none published: "GET
		// …mooncake%2Fram%2F<name> http=404 body: metadata not found", then
		// the warning. A descriptor found (a dead process's) would be
		// reused; sim starts a new one either way. etcd's not-found is not
		// measured: HTTP only.
		switch {
		case e.handshake:
			e.logf(mlog.Error, "Local segment descriptor not found")
		case e.metaURL != "" && e.etcd == "":
			// A wrong answer's is decoded too ("Corrupted segment
			// descriptor, name <own>", real 0.3.13.post1); the install goes
			// on either way.
			e.getSegmentDesc(ctx, e.serverName)
		}
	}
	if !e.legacyBind(ctx) {
		return -1
	}
	if e.publishAtInstall && e.publishSegment(ctx) != 0 {
		e.logf(mlog.Error, "TcpTransport: cannot publish segments, check the availability of metadata storage")
		return -1
	}
	e.logf(mlog.Info, "TcpTransport: listen on port %d", tcpPort)
	if e.cfg.Profile.TCPPortAfterRPC && e.cfg.Ports != nil {
		// TcpContext's asio acceptor binds the port after the RPC port,
		// never checked (Mooncake#601): held by another process, its
		// constructor throws asio's system_error out of install.
		host, _ := splitHostPort(e.serverName)
		rel, err := e.cfg.Ports.Bind(ctx, host, e.rpcPort+1)
		if err != nil {
			e.tcpBindError = "bind: Address already in use"
			// The failed transport leaks as RDMA's does before 0.3.12
			// (Profile.FailedTransportFreed), keeping the P2P listener:
			// no 1 s join (real 0.3.4.post2: setup 1 in 6 ms, fresh run 24).
			e.leaked = !e.cfg.Profile.FailedTransportFreed
			return -1
		}
		e.release = append(e.release, rel)
	}
	e.transports = append(e.transports, "tcp")
	return 0
}

// legacyBind is the handshake daemon's bind of the legacy RPC port
// (MC_LEGACY_RPC_PORT_BINDING, sockfd -1): the store client's
// AutoPortBinder still holds local_hostname's port, so it fails. Real
// 0.3.12.post1 (2026-12-01, sim,real seed 30010): "SocketHandShakePlugin:
// bind (port 13994): Address already in use [98]", "TcpTransport: cannot
// start handshake daemon", the descriptor DELETE, "Failed to install TCP
// transport", setup -1 after every retry.
func (e *Engine) legacyBind(ctx context.Context) bool {
	if !e.legacy || e.cfg.Ports == nil {
		return true
	}
	host, _ := splitHostPort(e.serverName)
	rel, err := e.cfg.Ports.Bind(ctx, host, e.rpcPort)
	if err == nil {
		e.release = append(e.release, rel)
		return true
	}
	e.logf(mlog.Error, "SocketHandShakePlugin: bind (port %d): Address already in use [98]", e.rpcPort)
	e.logf(mlog.Error, "TcpTransport: cannot start handshake daemon")
	if !e.del(ctx, e.segmentKey(e.serverName)) {
		e.logf(mlog.Error, "Failed to unregister segment descriptor, name %s", e.serverName)
	}
	e.logf(mlog.Error, "Failed to install TCP transport")
	return false
}

// bindAny picks a port of findAvailableTcpPort's range (15000..17000, or
// the range loadGlobalConfig read) on host: the TE's own RPC port, and
// from 0.3.5 its TCP transport's.
func (e *Engine) bindAny(ctx context.Context, host string) (int, func(), error) {
	if e.cfg.Ports == nil {
		return mooncake.DefaultRPCMinPort, func() {}, nil
	}
	lo, hi := e.rpcLo, e.rpcHi
	if hi == 0 { // not through InitStore (tests that install directly)
		lo, hi = mooncake.DefaultRPCMinPort, mooncake.DefaultRPCMaxPort
	}
	// min_port + rand % (max_port - min_port + 1), the pair unchecked
	// before 0.3.11: a width of 0 divides by zero (real 0.3.9,
	// MC_MIN_PRC_PORT=16000 MC_MAX_PRC_PORT=15999: SIGFPE in setup), a
	// negative one leaves C++'s remainder the dividend's sign, so ports
	// from min_port up to |width| - 1 above it (16000/15000: 16000..16998,
	// real 0.3.9 listened on 16362 and 16681).
	switch w := hi - lo + 1; {
	case w == 0:
		e.crashed = &engine.ProcessDied{Signal: "SIGFPE", Reason: fmt.Sprintf("findAvailableTcpPort: integer division by zero (port range %d..%d)", lo, hi)}
		return 0, nil, e.crashed
	case w < 0:
		hi = lo - w - 1
	}
	start := lo
	if e.cfg.PortRand != nil {
		start = lo + e.cfg.PortRand.IntN(hi-lo+1)
	}
	var last error
	for i := range 20 {
		p := lo + (start-lo+i)%(hi-lo+1)
		rel, err := e.cfg.Ports.Bind(ctx, host, p)
		if err == nil {
			return p, rel, nil
		}
		last = err
	}
	return 0, nil, fmt.Errorf("bind rpc port on %s: %w", host, last)
}

// HostOf is the host part of an endpoint as the engine splits it for its
// rpc_meta (the host an endpoint publishes when MC_TCP_BIND_ADDRESS is not
// set): "[::1]" of a port-less "[::1]", not "[:".
func HostOf(endpoint string) string {
	h, _ := splitHostPort(endpoint)
	return h
}

func splitHostPort(s string) (string, int) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return s, 0
	}
	p, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0
	}
	return s[:i], p
}

// put is MetadataStoragePlugin::set (HTTP or etcd).
func (e *Engine) put(ctx context.Context, key string, body []byte) bool {
	if e.etcd != "" {
		return e.etcdPut(ctx, key, body)
	}
	ok, _ := e.metaDo(ctx, http.MethodPut, key, body)
	return ok
}

// get is MetadataStoragePlugin::get: the value, or false (any HTTP status
// but 200 is a failure, logged like curl's).
func (e *Engine) get(ctx context.Context, key string) ([]byte, bool) {
	if e.etcd != "" {
		return e.etcdGet(ctx, key)
	}
	ok, v := e.metaDo(ctx, http.MethodGet, key, nil)
	return v, ok
}

// del removes a key (freeEngine / unregister), best effort.
func (e *Engine) del(ctx context.Context, key string) bool {
	if e.etcd != "" {
		return e.etcdDelete(ctx, key)
	}
	ok, _ := e.metaDo(ctx, http.MethodDelete, key, nil)
	return ok
}

// metadataAuth is the plugin's Authorization header: the shared token,
// from 0.3.14, when MC_METADATA_HTTP_TOKEN is set and not empty.
func (e *Engine) metadataAuth() string {
	t, set := e.cfg.Env[metadata.TokenEnv]
	if k := mooncake.ParseKnob(e.cfg.Profile.Version, metadata.TokenEnv, t, set); k.Read && k.Str != "" {
		return "Bearer " + k.Str
	}
	return ""
}

// metaDo is one HTTPStoragePlugin request, logging failures with curl's
// texts; it reports 200 OK and the answer's body.
func (e *Engine) metaDo(ctx context.Context, method, key string, body []byte) (bool, []byte) {
	u := e.metaURL + "?key=" + url.QueryEscape(key)
	status, resp, err := e.cfg.Metadata.Do(ctx, method, u, body, e.metadataAuth())
	legacy := e.cfg.Profile.HTTPPluginLegacyLog
	if err != nil {
		if legacy {
			// ≤ 0.3.5 logs curl_easy_strerror alone (no errbuf).
			text, _, _ := strings.Cut(curlError(err), " err: ")
			e.logf(mlog.Error, "Error from http client, %s %s error: %s", method, u, text)
			return false, nil
		}
		e.logf(mlog.Error, "%s %s curl: %s", method, u, curlError(err))
		return false, nil
	}
	if status != http.StatusOK {
		if legacy {
			e.logf(mlog.Error, "Unexpected code in http response, %s %s response code: %d response body: %s", method, u, status, resp)
			return false, nil
		}
		e.logf(mlog.Error, "%s %s http=%d body: %s", method, u, status, resp)
		return false, nil
	}
	if method == http.MethodGet {
		if !e.parseAnswer(u, resp) {
			return false, nil
		}
	}
	return true, resp
}

// CurlError is a metadata transport failure that knows its curl log text:
// "<curl_easy_strerror> err: <errbuf>", e.g. "Couldn't connect to server
// err: Failed to connect to 127.0.0.1 port 17002 after 0 ms: Couldn't
// connect to server" (real 0.3.9 / 0.3.13.post1).
type CurlError interface{ CurlText() string }

func curlError(err error) string {
	if ce, ok := err.(CurlError); ok {
		return ce.CurlText()
	}
	return "Couldn't connect to server err: " + err.Error()
}

// PublishSegment writes the segment descriptor (mooncake/ram/<name>) in
// HTTP mode; P2PHANDSHAKE keeps it local (updateSegmentDesc is a no-op).
func (e *Engine) publishSegment(ctx context.Context) int {
	// No transport added a local descriptor: nothing to publish (real
	// 0.3.9 … 0.3.11.post1 with MC_USE_TENT: its own segment is a 404).
	if e.metaURL == "" || e.noLocalDesc {
		return 0
	}
	bufs := make([]segmentBuffer, len(e.regions))
	for i, r := range e.regions {
		bufs[i] = segmentBuffer{Addr: r.addr, Length: r.length, Name: "cpu:0"}
	}
	proto := "tcp"
	if len(e.nics) > 0 {
		proto = "rdma"
	}
	body, _ := json.Marshal(segmentDesc{Buffers: bufs, Name: e.serverName, Protocol: proto})
	if !e.put(ctx, e.segmentKey(e.serverName), body) {
		e.logf(mlog.Error, "Failed to register segment descriptor, name %s protocol %s", e.serverName, proto)
		return mooncake.ERR_METADATA
	}
	return 0
}

// segmentDesc is the published segment descriptor. Fields in key order:
// the bytes are those of the map json.Marshal sorted before (the trace
// hashes stay the same), without a map per buffer.
type segmentDesc struct {
	Buffers  []segmentBuffer `json:"buffers"`
	Name     string          `json:"name"`
	Protocol string          `json:"protocol"`
}

type segmentBuffer struct {
	Addr   uint64 `json:"addr"`
	Length int64  `json:"length"`
	Name   string `json:"name"`
}

// segmentKey and rpcMetaKey are a segment's descriptor and rpc_meta keys in
// the metadata service (TransferMetadata::getFullMetadataKey, kRpcMetaPrefix).
// segmentKey and rpcMetaKey are the metadata keys of a segment and of a
// location: "mooncake/" + MC_METADATA_CLUSTER_ID's prefix (clusterPrefix).
func (e *Engine) segmentKey(name string) string { return "mooncake/" + e.clusterPrefix + "ram/" + name }
func (e *Engine) rpcMetaKey(name string) string {
	return "mooncake/" + e.clusterPrefix + "rpc_meta/" + name
}

// loadClusterID is TransferMetadata's constructor's MC_METADATA_CLUSTER_ID
// (transfer_metadata.cpp v0.3.7.post1:81, v0.3.12.post1:153): a non-empty
// value, with a '/' appended when it lacks one, goes between "mooncake/"
// and every key, so processes with different ids find none of each
// other's segments or locations.
func (e *Engine) loadClusterID() {
	v, set := e.env("MC_METADATA_CLUSTER_ID")
	if !set || v == "" || !mooncake.ParseKnob(e.cfg.Profile.Version, "MC_METADATA_CLUSTER_ID", v, true).Read {
		return
	}
	if !strings.HasSuffix(v, "/") {
		v += "/"
	}
	e.clusterPrefix = v
	e.logf(mlog.Info, "Using metadata cluster ID: mooncake/%s", v)
}

// rpcMetaBody is the rpc_meta value this engine publishes.
func (e *Engine) rpcMetaBody() []byte {
	host, _ := splitHostPort(e.serverName)
	if e.bindAddr != "" {
		host = e.bindAddr
	}
	m := map[string]any{"ip_or_host_name": host, "rpc_port": e.rpcPort}
	if e.cfg.Profile.RPCMetaVersioned {
		// Real stamps the write's microseconds; only that two writes
		// differ matters (the Python server compares bytes), so a count.
		e.metaVersion++
		m["metadata_version"] = e.metaVersion
	}
	body, _ := json.Marshal(m)
	return body
}

// UpdateLocalSegmentDesc is TransferMetadata::updateLocalSegmentDesc: the
// segment descriptor written again (0 or ERR_METADATA).
func (e *Engine) UpdateLocalSegmentDesc(ctx context.Context) int {
	return e.publishSegment(ctx)
}

// RePublishRpcMetaEntry is TransferMetadata::rePublishRpcMetaEntry
// (v0.3.12+, the remount after a master restart, Mooncake #2311): a GET of
// the key first; the same location there is success without a write,
// anything else (missing, unreadable, another location) is written.
func (e *Engine) RePublishRpcMetaEntry(ctx context.Context) int {
	if e.metaURL == "" && e.etcd == "" {
		return 0
	}
	key := e.rpcMetaKey(e.serverName)
	body := e.rpcMetaBody()
	if old, ok := e.get(ctx, key); ok && sameRPCMeta(old, body) {
		return 0
	}
	e.logf(mlog.Info, "Re-publishing RPC meta entry for %s", e.serverName)
	if !e.put(ctx, key, body) {
		e.logf(mlog.Error, "Failed to re-publish RPC meta entry for %s", e.serverName)
		return mooncake.ERR_METADATA
	}
	return 0
}

// sameRPCMeta compares two rpc_meta values' ip_or_host_name and rpc_port.
func sameRPCMeta(a, b []byte) bool {
	type loc struct {
		Host string `json:"ip_or_host_name"`
		Port uint64 `json:"rpc_port"`
	}
	var x, y loc
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return x == y
}

func overlap(a uint64, al int64, b uint64, bl int64) bool {
	return a < b+uint64(bl) && b < a+uint64(al)
}

// RegisterLocalMemory is TransferEngineImpl::registerLocalMemory; it
// returns the TE rc (0, ERR_ADDRESS_OVERLAPPED, ERR_INVALID_ARGUMENT,
// ERR_CONTEXT, ERR_METADATA).
func (e *Engine) RegisterLocalMemory(ctx context.Context, addr uint64, length int64, updateMetadata bool) int {
	for _, r := range e.regions {
		if overlap(addr, length, r.addr, r.length) {
			e.logf(mlog.Error, "Transfer Engine does not support overlapped memory region")
			return mooncake.ERR_ADDRESS_OVERLAPPED
		}
	}
	if length == 0 && e.cfg.Profile.RegisterParamChecks {
		e.logf(mlog.Error, "Transfer Engine does not support zero length memory region")
		return mooncake.ERR_INVALID_ARGUMENT
	}
	if e.nvlinkInstalled() {
		return e.registerNVLink(addr, length)
	}
	if e.NVLinkIntra() {
		if rc := e.registerNVLinkIntra(addr); rc != 0 {
			return rc
		}
	}
	r := region{addr: addr, length: length, chunks: 1}
	if len(e.nics) > 0 {
		if rc := e.registerRDMA(&r); rc != 0 {
			return rc
		}
	}
	e.regions = append(e.regions, r)
	if updateMetadata {
		if rc := e.publishSegment(ctx); rc != 0 {
			e.unpin(e.regions[len(e.regions)-1])
			e.regions = e.regions[:len(e.regions)-1]
			e.rollBackRegistration(ctx)
			return rc
		}
	}
	return 0
}

// rollBackRegistration is TransferEngineImpl::registerLocalMemory's
// rollback (v0.3.12+, Mooncake #2869): every transport that took the region
// unregisters it, newest first, and each unregister writes the segment
// descriptor again; a failure there is a warning. Real 0.3.13.post1 with the
// metadata blackholed: two PUT timeouts, register_buffer 6 s.
func (e *Engine) rollBackRegistration(ctx context.Context) {
	if !e.cfg.Profile.RegisterMetadataRollback {
		return
	}
	for i := len(e.transports) - 1; i >= 0; i-- {
		if rc := e.publishSegment(ctx); rc != 0 {
			e.logf(mlog.Warning, "Failed to roll back registration for %s, ret=%d", e.transports[i], rc)
		}
	}
}

// ibv_reg_mr failures as PLOG prints them (strerror + errno).
const (
	errENOMEM = "Cannot allocate memory [12]"           // RLIMIT_MEMLOCK (ib_umem_get)
	errEAGAIN = "Resource temporarily unavailable [11]" // mlx5 CREATE_MKEY: no resources
	errEIO    = "Input/output error [5]"                // erdma: Out of mr size
	errEINVAL = "Invalid argument [22]"                 // ib_umem_get: size 0
	errEFAULT = "Bad address [14]"                      // ib_umem_get: pinning address 0
)

// regFailure is why ibv_reg_mr of size bytes (chunks MRs) fails on n, or
// "": the world's own cause, or an injected refusal (rdma-context reg_mr)
// with its errno.
func (e *Engine) regFailure(n *nic, addr uint64, size int64, chunks int) string {
	return e.cfg.Host.RDMAFaults.regMR(n.dev.Name, e.ownRegFailure(n, addr, size, chunks))
}

// ownRegFailure is why the world's own state fails ibv_reg_mr, or "".
func (e *Engine) ownRegFailure(n *nic, addr uint64, size int64, chunks int) string {
	device := hostmem.IsDevice(addr)
	switch {
	case size == 0:
		return errEINVAL
	case addr == 0:
		return errEFAULT
	case device && e.gpuRegFailure() != "":
		return e.gpuRegFailure()
	case !device && e.cfg.Host.MemlockBytes > 0 && !e.cfg.Host.CapIPCLock && e.pinned+size > e.cfg.Host.MemlockBytes:
		// RLIMIT_MEMLOCK is charged per registration, so every RNIC
		// pins the buffer again (docs troubleshooting: devices × size).
		return errENOMEM
	case n.dev.MaxMR > 0 && n.dev.LeakedMRs+n.mrs+chunks > n.dev.MaxMR:
		return errEAGAIN
	case n.dev.MaxRegBytes > 0 && n.regBytes+size > n.dev.MaxRegBytes:
		return errEIO
	}
	return ""
}

// gpuRegFailure is why registering GPU memory fails, or "". Plain
// ibv_reg_mr (every wheel before 0.3.11; from 0.3.11 only with
// WITH_NVIDIA_PEERMEM) pins a GPU address only through nvidia_peermem:
// without it ib_umem_get finds no host pages and fails with EFAULT
// (Mooncake#351: "Failed to register memory 0x2e1cbac200: Bad address
// [14]"). The dma-buf path needs DMA_BUF_SUPPORTED, which openRdmaDevice
// already checked. GPU pages are not charged to RLIMIT_MEMLOCK.
func (e *Engine) gpuRegFailure() string {
	g := e.cfg.Host.GPU
	switch {
	case g == nil:
		return errEFAULT // no CUDA driver: no host page behind the address
	case !e.cfg.Profile.GPUDmaBufDefault || e.withNvidiaPeermem():
		if !g.Peermem {
			return errEFAULT
		}
	}
	return ""
}

// registerRDMA is RdmaTransport::registerLocalMemoryInternal: ibv_reg_mr on
// every context in turn. Up to 0.3.12.post1 a failure returns at once and
// the contexts before it stay registered (their MRs and pinned pages leak
// into the process); later versions roll them back.
func (e *Engine) registerRDMA(r *region) int {
	p := e.cfg.Profile
	for i, n := range e.nics {
		size, chunks := r.length, 1
		if r.length > n.maxMR {
			if p.ChunkLargeMR {
				chunks = int((r.length + n.maxMR - 1) / n.maxMR)
			} else {
				// registerMemoryRegionInternal shrinks to max_mr_size (PLOG
				// appends errno, 0 here).
				e.logf(mlog.Warning, "The buffer length exceeds device max_mr_size, shrink it to %d: Success [0]", n.maxMR)
				size = n.maxMR
			}
		}
		if why := e.regFailure(n, r.addr, size, chunks); why != "" {
			e.logf(mlog.Error, "Failed to register memory %#x: %s", r.addr, why)
			if p.ChunkLargeMR {
				e.logf(mlog.Error, "Failed to register memory region (chunk 0) with context %d", i)
			} else {
				e.logf(mlog.Error, "Failed to register memory region with context %d", i)
			}
			if p.RegisterRollback {
				for j, m := range e.nics[:i] {
					m.release(r.pins[j])
					e.pinned -= r.pins[j].locked
				}
			}
			// Otherwise the earlier contexts' MRs stay registered and
			// pinned: nothing will ever unregister them.
			return mooncake.ERR_CONTEXT
		}
		pn := pin{size: size, mrs: chunks}
		if !hostmem.IsDevice(r.addr) { // GPU pages are not RLIMIT_MEMLOCK's
			pn.locked = size
		}
		r.pins = append(r.pins, pn)
		n.take(pn)
		e.pinned += pn.locked
		r.chunks = max(r.chunks, chunks)
	}
	return 0
}

// pin is what one region holds on one context.
type pin struct {
	size int64
	mrs  int
	// locked is what it charges to RLIMIT_MEMLOCK (size; 0 for GPU memory).
	locked int64
}

func (n *nic) take(p pin)    { n.mrs += p.mrs; n.pinned += p.size; n.regBytes += p.size }
func (n *nic) release(p pin) { n.mrs -= p.mrs; n.pinned -= p.size; n.regBytes -= p.size }

func (e *Engine) unpin(r region) {
	for i, p := range r.pins {
		e.nics[i].release(p)
		e.pinned -= p.locked
	}
}

// removeSegmentDesc is TransferMetadata::removeSegmentDesc.
func (e *Engine) removeSegmentDesc(ctx context.Context, exists bool) {
	if e.metaURL == "" {
		if exists {
			e.logf(mlog.Info, "removeSegmentDesc %s finish", e.serverName)
		} else {
			e.logf(mlog.Info, "removeSegmentDesc %s not found, already removed maybe", e.serverName)
		}
		return
	}
	if !e.del(ctx, e.segmentKey(e.serverName)) {
		e.logf(mlog.Error, "Failed to unregister segment descriptor, name %s", e.serverName)
	}
}

// UnregisterLocalMemory removes the region starting at addr.
func (e *Engine) UnregisterLocalMemory(ctx context.Context, addr uint64) int {
	for i, r := range e.regions {
		if r.addr == addr {
			e.unpin(r)
			e.regions = append(e.regions[:i], e.regions[i+1:]...)
			return e.publishSegment(ctx)
		}
	}
	return mooncake.ERR_ADDRESS_NOT_REGISTERED
}

// IsRegistered reports whether [addr, addr+size) lies in one registered region.
func (e *Engine) IsRegistered(addr uint64, size int64) bool {
	for _, r := range e.regions {
		if addr >= r.addr && addr+uint64(size) <= r.addr+uint64(r.length) {
			return true
		}
	}
	return false
}

// MRCount is the MRs registered on the named device.
func (e *Engine) MRCount(dev string) int {
	for _, n := range e.nics {
		if n.dev.Name == dev {
			return n.mrs
		}
	}
	return 0
}

// Close is freeEngine: removes rpc_meta and releases ports.
func (e *Engine) Close(ctx context.Context) {
	// removeSegmentDesc (transfer_metadata.cpp): a descriptor exists once a
	// transport is installed.
	if e.serverName != "" && len(e.transports) > 0 {
		e.removeSegmentDesc(ctx, true)
	}
	if e.metaURL != "" && e.serverName != "" {
		if !e.del(ctx, e.rpcMetaKey(e.serverName)) {
			e.logf(mlog.Error, "Failed to remove location of %s", e.serverName)
		}
	}
	if !e.leaked {
		// A leaked transport keeps the metadata and its P2P listener, so
		// the RPC port, until the process ends (ReleasePorts).
		e.ReleasePorts()
	}
	e.regions = nil
	e.nics = nil
	e.transports = nil
	e.serverName = ""
	e.etcd = ""
	e.rpcMeta = nil
	e.segDescs = nil
}

// ReleasePorts frees the engine's listening ports without a word to the
// metadata service: its process died.
func (e *Engine) ReleasePorts() {
	for _, r := range e.release {
		r()
	}
	e.release = nil
}

// RPCMetaEntry is TransferMetadata::getRpcMetaEntry for the segment a
// transfer targets (TcpTransport::startTransfer, v0.3.0 … v0.3.12.post1):
// P2PHANDSHAKE parses the name; otherwise rpc_meta_map_ answers, or a GET
// of mooncake/rpc_meta/<name> does and its answer is cached. Nothing puts
// the process's own entry in the map (addRpcMetaEntry only writes the
// store), so the first transfer to its own segment reads it back too, and
// a failed read is not cached: every later transfer reads again. Real
// 0.3.7.post2 with the metadata blackholed after setup: each warmup put
// logs the GET's 3000 ms curl timeout and "Failed to find location of".
//
// It returns the entry's ip_or_host_name and rpc_port (P2PHANDSHAKE: the
// name's), which TcpTransport connects to.
func (e *Engine) RPCMetaEntry(ctx context.Context, name string) (RPCMeta, bool) {
	if e.metaURL == "" && e.etcd == "" {
		h, p := splitHostPort(name)
		return RPCMeta{Host: h, Port: p}, true
	}
	if m, ok := e.rpcMeta[name]; ok {
		return m, true
	}
	body, ok := e.get(ctx, e.rpcMetaKey(name))
	if !ok {
		e.logf(mlog.Error, "Failed to find location of %s", name)
		return RPCMeta{}, false
	}
	var m RPCMeta
	if json.Unmarshal(body, &m) != nil {
		h, p := splitHostPort(name) // not one of ours: the name's location
		m = RPCMeta{Host: h, Port: p}
	}
	if e.rpcMeta == nil {
		e.rpcMeta = map[string]RPCMeta{}
	}
	e.rpcMeta[name] = m
	return m, true
}

// OpenSegment is TransferEngine::openSegment's getSegmentID for a segment
// a transfer targets (TransferSubmitter, before any byte moves): a name
// not seen before is read from the metadata service (getSegmentDesc: GET
// mooncake/ram/<name>) and kept once found; the process's own segment is
// known. A failed read logs "Failed to retrieve segment descriptor" and
// is not kept: the next transfer reads again (transfer_metadata.cpp
// v0.3.9:517-524; real 0.3.9 and 0.3.13.post1, a peer that published its
// segment elsewhere: the GET's 404 and this line at every warmup put,
// before any rpc_meta read). P2PHANDSHAKE exchanges the descriptor with
// the peer instead (Handshake).
func (e *Engine) OpenSegment(ctx context.Context, name string) bool {
	if e.metaURL == "" && e.etcd == "" || name == e.serverName && !e.noLocalDesc || e.segDescs[name] {
		return true
	}
	if !e.getSegmentDesc(ctx, name) {
		return false
	}
	if e.segDescs == nil {
		e.segDescs = map[string]bool{}
	}
	e.segDescs[name] = true
	return true
}

// getSegmentDesc is TransferMetadata::getSegmentDesc's read of a peer's (or its own)
// descriptor from the metadata service: false when it is missing or does
// not decode.
func (e *Engine) getSegmentDesc(ctx context.Context, name string) bool {
	v, ok := e.get(ctx, e.segmentKey(name))
	if !ok {
		e.logf(mlog.Warning, "Failed to retrieve segment descriptor, name %s", name)
		return false
	}
	return e.decodeSegmentDesc(v, name)
}

// decodeSegmentDesc is TransferMetadata::decodeSegmentDesc on a value the
// storage plugin parsed (transfer_metadata.cpp v0.3.9:318-470,
// v0.3.12.post1:710-955, 3b5a594:732-1014; the tcp branch is the same at
// the three): a missing field reads as jsoncpp's null (""/0, an empty
// array). A tcp buffer without a name, addr or length is "Corrupted
// segment descriptor, name <segment> protocol tcp" (WARNING), a protocol
// none of the release's branches decodes (segmentDescProtocols; an empty
// one too) "Unsupported segment descriptor, name <segment> protocol <p>"
// (ERROR); either way getSegmentDesc returns nullptr, as for a failed
// read. Not modelled: the other protocols' checks (taken as valid) and a
// field of a type jsoncpp cannot convert (asString on an object throws
// Json::LogicError; here it reads as missing).
func (e *Engine) decodeSegmentDesc(v []byte, name string) bool {
	var d struct {
		Protocol any   `json:"protocol"`
		Buffers  []any `json:"buffers"`
	}
	if json.Unmarshal(v, &d) != nil {
		// Not an object, or buffers not an array: the model's own
		// descriptors always decode; a wrong answer's is taken as valid.
		return true
	}
	proto := jsonString(d.Protocol)
	if !slices.Contains(segmentDescProtocols(e.cfg.Profile.Version), proto) {
		e.logf(mlog.Error, "Unsupported segment descriptor, name %s protocol %s", name, proto)
		return false
	}
	switch proto {
	case "tcp":
		for _, b := range d.Buffers {
			m, _ := b.(map[string]any)
			if jsonString(m["name"]) == "" || jsonUint(m["addr"]) == 0 || jsonUint(m["length"]) == 0 {
				e.logf(mlog.Warning, "Corrupted segment descriptor, name %s protocol %s", name, proto)
				return false
			}
		}
	}
	return true
}

// segmentDescProtocols are the protocols decodeSegmentDesc has a branch
// for at release v (the `desc->protocol == "…"` tests before its
// "Unsupported segment descriptor" else, transfer_metadata.cpp): v0.3.0
// rdma, tcp, nvmeof; v0.3.3 nvlink; v0.3.5 ascend; v0.3.6 cxl; v0.3.8
// barex, hip; v0.3.9 nvlink_intra, ubshmem; v0.3.10 efa; v0.3.10.post2
// ub; v0.3.11 maca; v0.3.12 cxi, sunrise_link; 3b5a594 (0.3.13 on) musa,
// nccl.
func segmentDescProtocols(v mooncake.Version) []string {
	ps := []string{"rdma", "tcp", "nvmeof"}
	for _, a := range []struct {
		from  string
		added []string
	}{
		{"0.3.3", []string{"nvlink"}},
		{"0.3.5", []string{"ascend"}},
		{"0.3.6", []string{"cxl"}},
		{"0.3.8", []string{"barex", "hip"}},
		{"0.3.9", []string{"nvlink_intra", "ubshmem"}},
		{"0.3.10", []string{"efa"}},
		{"0.3.10.post2", []string{"ub"}},
		{"0.3.11", []string{"maca"}},
		{"0.3.12", []string{"cxi", "sunrise_link"}},
		{"0.3.13", []string{"musa", "nccl"}},
	} {
		if v.AtLeast(a.from) {
			ps = append(ps, a.added...)
		}
	}
	return ps
}

// jsonString and jsonUint are jsoncpp's asString and asUInt64 on a value
// encoding/json decoded (null and what they would throw on: ""/0).
func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

func jsonUint(v any) uint64 {
	switch x := v.(type) {
	case float64:
		if x > 0 {
			return uint64(x)
		}
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// RPCMeta is TransferMetadata::RpcMetaDesc.
type RPCMeta struct {
	Host string `json:"ip_or_host_name"`
	Port int    `json:"rpc_port"`
}

// Resolvable: whether asio's resolver finds host on the sim's one host —
// an IP literal or localhost; anything else (MC_TCP_BIND_ADDRESS=not-an-ip,
// real 0.3.10.post1: every transfer -800) is not found. getaddrinfo takes
// an IPv6 literal without brackets: "[::1]" is no name either (real
// 0.3.12.post1, MC_TCP_BIND_ADDRESS=[::1] published as rpc_meta's host:
// "resolve: Host not found (authoritative)", every transfer -800).
func Resolvable(host string) bool {
	return host == "localhost" || net.ParseIP(host) != nil
}
