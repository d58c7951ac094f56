package sim

import (
	"context"
	"fmt"
	"github.com/mooncake-faultlab/faultlab/faults"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Logical addresses of the world's servers.
const (
	MasterAddr = "127.0.0.1:50051"
	// MasterAddrIPv6 is the master's RPC port on the IPv6 loopback
	// ({{master_ipv6}}): reached only when its --rpc_address listens on
	// IPv6 (master.Config.RPCListens).
	MasterAddrIPv6 = "[::1]:50051"
	MetadataURL    = "http://127.0.0.1:8080/metadata"
	MetadataPort   = 8080 // MetadataURL's
	ClientAddr     = "127.0.0.1:50052"
	// MasterMetricsPort is not 9003, SGLang's default metrics port: a
	// comparison writes the world's addresses back as placeholders, and
	// "9003" in SGLang's own warning read {{master_metrics}} on sim only
	// (sim,real seed 30155; real allocates the master's metrics port).
	MasterMetricsPort = "19003"
	// ClientNode is the host mooncake_client runs on.
	ClientNode = "client"
	// OffloadDir is {{offload_dir}}, the one directory that exists in the
	// world (an SSD offload path).
	OffloadDir = "/faultlab/offload"
	// S3URL is {{s3}}, the S3 stand-in's endpoint (real: a loopback port
	// the harness serves).
	S3URL = "http://127.0.0.1:19009"
)

type endpointReg struct {
	name string
	node string
	mem  *hostmem.Space
	log  mlog.Logger // the serving process's log (its TCP server's lines)
	eng  *te.Engine  // its transfer engine (the NVLink segment's buffers)
}

// World is one simulated topology.
type World struct {
	// answer is the wrong-answer fault on the HTTP metadata server (nil = none).
	answer *faults.AnswerPrimitive
	// rdma is each node's work-completion fault (kind rdma).
	rdma    te.RDMAFaultSet
	spec    engine.WorldSpec
	profile mooncake.Profile
	k       *kernel.Kernel
	tr      *trace.Trace
	net     *netsim.Net
	nodes   []engine.NodeSpec

	masterCfg master.Config
	// masterVersion is mooncake_master's release (the run's unless
	// topology.master.mooncake_version skews it).
	masterVersion string
	master        *master.Master
	masterState   procState
	masterAddr    string
	ha            *haPair // topology master.ha (then master/masterState are unused)

	metadata      *metadata.Server // standalone (spec "http") or embedded ("master")
	etcd          *metadata.Etcd   // spec "etcd" (state in metadataState)
	metadataState procState

	standalone  *client.Standalone
	clientState procState
	clientAddr  string
	clientMem   *hostmem.Space // mooncake_client's address space (its TE endpoints)

	ports map[string]bool
	// held: ports another process holds on the host (port-held faults),
	// whichever node binds them.
	held map[int]bool
	// portRace: a port-race fault is armed (portrace.go).
	portRace bool
	// metadataRace: the nodes whose te-metadata-race fault is armed
	// (metadatarace.go).
	metadataRace map[string]faults.TEMetadataRacePrimitive
	// disk: the files of the offload directory (SSD offload's buckets).
	disk      *client.OffloadDisk
	endpoints []endpointReg
	// paused are the address spaces of SGLang-side processes frozen by
	// Process.Pause (looked up, never iterated).
	paused map[*hostmem.Space]bool
	// abandoned: handshakes given up on paused peers, answered at SIGCONT
	// (handshake_abandon.go).
	abandoned []abandonedHandshake
	// ephemeral: each node's local ports in TIME_WAIT (ephemeral.go).
	ephemeral map[string]*ephemeralPorts
	// Scheduler schedules the faults: World.Arm and World.ClearFaults are its.
	*schedule.Scheduler
	procs  int
	beats  []*heartbeat
	pools  []*masterPool // every MasterClient's pool to the (non-HA) master
	closed bool
	// containers: a container world (containers.go).
	containers bool
	// masterIP is the master container's address ({{master_ip}});
	// formerIPs the addresses of master containers replaced since.
	masterIP  string
	formerIPs map[string]bool
	// directEOF: pooled connections (node/conn) straight to the master's
	// container address that read end of file once, its process killed.
	directEOF map[string]bool
	// masterMemLimit is the master container's memory limit (container
	// action memory; 0 = none): a put over it OOM-kills the master.
	masterMemLimit int64
	// masterOOMKilled: the kernel killed the master (not the harness), so
	// toxiproxy in front of it still accepts and resets (masterOOM).
	masterOOMKilled bool
	// parts are the partitioned parties; conns the last answered master
	// RPC of each pooled connection (node/conn) and whether it went
	// silent in a partition (containers.go).
	parts map[string]bool
	conns map[string]pooledConn
	// missingLibs are the native libraries the hosts lack (spec, or a
	// remedy's); masterNoLib / clientNoLib: the loader could not start
	// that server (libs.go).
	missingLibs              []string
	masterNoLib, clientNoLib bool
	// metadataUnbound: the running master's embedded HTTP metadata
	// server never bound its port, another process's (up to
	// 0.3.11.post1; servers.go metadataFor).
	metadataUnbound bool
}

// Launch builds a world of processes at virtual time 0.
func Launch(ctx context.Context, spec engine.WorldSpec) (*World, error) {
	return launch(ctx, spec, Options{})
}

func launch(ctx context.Context, spec engine.WorldSpec, opts Options) (*World, error) {
	v := spec.Version
	if v == "" {
		v = mooncake.Latest
	}
	p, err := mooncake.ProfileFor(v)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	// The master's release: the run's, or another (version skew, only
	// for pairs measured on real).
	mv, mp := v, p
	if spec.Master != nil && spec.Master.Version != "" && spec.Master.Version != v {
		if spec.Master.HA {
			return nil, engine.Unsupportedf("topology.master.mooncake_version with ha: the models run a skewed master only as one plain mooncake_master")
		}
		if err := mooncake.SkewModelled(spec.Master.Version, v); err != nil {
			return nil, engine.Unsupportedf("%v", err)
		}
		if mp, err = mooncake.ProfileFor(spec.Master.Version); err != nil {
			return nil, fmt.Errorf("sim: topology.master.mooncake_version: %w", err)
		}
		mv = spec.Master.Version
	}
	if spec.Metadata == "master" && !mooncake.MustVersion(mv).AtLeast(mooncake.EmbeddedMetadataSince) {
		return nil, engine.Unsupportedf("topology metadata: master: mooncake_master %s has no embedded HTTP metadata server (--enable_http_metadata_server, %s+)", mv, mooncake.EmbeddedMetadataSince)
	}
	if err := checkEphemeral(spec, p); err != nil {
		return nil, err
	}
	// The host's libraries as the wheels were measured against them.
	if len(spec.MissingLibs) > 0 || spec.Libstdcxx != "" {
		if spec.Master != nil && spec.Master.HA {
			return nil, engine.Unsupportedf("topology missing_libs or libstdcxx with master.ha: not modelled")
		}
		for _, ver := range []string{v, mv} {
			err := mooncake.LibsMeasured(ver)
			if spec.Libstdcxx != "" {
				err = mooncake.LibstdcxxMeasured(ver, spec.Libstdcxx) // the level too
			}
			if err != nil {
				return nil, engine.Unsupportedf("topology missing_libs or libstdcxx: %v", err)
			}
		}
	}
	k := kernel.New(spec.Seed)
	tr := spec.Trace
	if tr == nil {
		tr = trace.New(nil)
	}
	tr.SetClock(k.Now)
	w := &World{
		spec: spec, profile: p, masterVersion: mv, k: k, tr: tr, net: netsim.New(k.Stream("netsim")),
		nodes: spec.Nodes, masterAddr: MasterAddr, clientAddr: ClientAddr,
		masterState: stopped, metadataState: stopped, clientState: stopped, ports: map[string]bool{}, held: map[int]bool{}, disk: client.NewOffloadDisk(),
		missingLibs: slices.Clone(spec.MissingLibs), ephemeral: newEphemeral(spec.Nodes),
		containers: opts.Containers, parts: map[string]bool{}, conns: map[string]pooledConn{}, directEOF: map[string]bool{}, masterIP: MasterIP, formerIPs: map[string]bool{},
	}
	for _, port := range spec.HeldPorts { // another process's, from before the servers start
		w.held[port] = true
	}
	in := injector{w}
	w.Scheduler = schedule.New(context.Background(), in.Inject, in.Clear, kernel.Timer{K: k}, tr)
	if spec.Master != nil {
		w.masterCfg, err = master.ConfigFor(mp, engine.ExpandOffloadDir(spec.Master.Flags, OffloadDir))
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		w.masterCfg = master.WithEnv(w.masterCfg, mp, spec.Master.Env, spec.Metadata == "master")
		w.masterCfg.RNIC = len(spec.Master.RDMA) > 0
		if !spec.Master.HA {
			w.startMaster()
		}
	}
	switch spec.Metadata {
	case "", te.P2PHandshake:
	case "http":
		w.startHTTPMetadata()
	case "master":
		if spec.Master == nil {
			return nil, fmt.Errorf("sim: metadata %q needs a master", spec.Metadata)
		}
	case "etcd":
		w.etcd, w.metadataState = metadata.NewEtcd(), running
	default:
		return nil, fmt.Errorf("sim: metadata %q: want P2PHANDSHAKE, http, master or etcd", spec.Metadata)
	}
	if spec.Master != nil && spec.Master.HA {
		if err := w.startHA(); err != nil {
			return nil, err
		}
	}
	if spec.Client != nil {
		if !p.DummyClient {
			return nil, engine.Unsupportedf("mooncake_client does not exist in Mooncake %s (0.3.8+)", p.Version)
		}
		w.startStandalone(ctx)
	}
	return w, nil
}

// deps wires a process's client model to this world.
func (w *World) deps(node string, env map[string]string, source string, mem *hostmem.Space, stream string) client.Deps {
	clock := kernel.Clock{K: w.k}
	var host te.Host
	for _, n := range w.nodes {
		if n.Name == node {
			host = te.HostFromSpec(n)
		}
	}
	if node == ClientNode && w.spec.Client != nil {
		host.RDMA = w.spec.Client.RDMA
	}
	host.Name = node
	host.RDMAFaults = w.rdma.Node(node)
	host.Peer = func(endpoint string) (te.Peer, bool) {
		ep := w.endpoint(node, endpoint)
		if ep == nil {
			return te.Peer{}, false
		}
		peer := te.Peer{RDMA: w.nodeRDMA(ep.node), Log: ep.log}
		if ep.eng != nil {
			peer.NVLink = ep.eng.NVLinkBuffers()
			peer.NoNameListener = !ep.eng.ListensAtName()
			peer.Adxl = ep.eng.AdxlEngineName()
		}
		peer.NPU = w.nodeNPU(ep.node)
		peer.Paused = w.clientMem != nil && ep.mem == w.clientMem && w.clientState == paused || w.paused[ep.mem]
		mem, log := ep.mem, ep.log
		peer.Abandoned = func() { w.abandoned = append(w.abandoned, abandonedHandshake{mem: mem, log: log}) }
		return peer, true
	}
	return client.Deps{
		Node: node, Host: host, Profile: w.profile, Clock: clock,
		Log: mlog.Trace{T: w.tr, Source: source, Min: mlog.MinLevel(env)}, Env: env, Rand: w.k.Stream(stream), PortRand: w.k.Stream(stream + "/rpc_port"), Mem: mem,
		Master:   masterTransport{w: w, from: node, clock: clock, pool: w.newPool(w.profile.HeartbeatAfterMount)},
		Metadata: metadataHTTP{w: w, from: node, clock: clock},
		Etcd:     metadataEtcd{w: w, from: node, clock: clock},
		Ports:    portBinder{w: w, node: node},
		Data:     dataPath{w: w, from: node, clock: clock, opened: map[string]bool{}, oneShot: w.oneShotTCP(env), pool: w.newTCPPool(env), self: &dataSelf{}},
		Clients:  clientTransport{w: w, from: node, clock: clock},
		JoinPing: w.joinPing,
		Remount:  w.remountOn, WaitMountLock: w.waitMountLock,
		PingStarted: func(rc *client.RealClient) { w.watch(rc, nil, mem) },
		FileExists:  offloadDirExists, S3Endpoint: S3URL,
		Disk: w.disk, OffloadPeer: w.offloadPeer,
	}
}

// offloadDirExists: {{offload_dir}} exists, and so does the rank directory
// SGLang's MooncakeStore makes in it (os.makedirs of
// <ssd_offload_path>/rank_<dp>_<tp>_<pp>_<cp>, SGLang 0.5.21+) before setup.
func offloadDirExists(path string) bool {
	path = strings.TrimSuffix(path, "/")
	rest, ok := strings.CutPrefix(path, OffloadDir+"/")
	return path == OffloadDir || ok && strings.HasPrefix(rest, "rank_") && !strings.Contains(rest, "/")
}

// offloadPeer is the live client whose offload RPC server is endpoint.
func (w *World) offloadPeer(endpoint string) *client.RealClient {
	for _, b := range w.beats {
		if b.rc != nil && b.rc.ServesOffload(endpoint) {
			return b.rc
		}
	}
	return nil
}

// nodeRDMA is node's RNICs (the mooncake_client's on ClientNode).
func (w *World) nodeRDMA(node string) []engine.RDMADevice {
	if node == ClientNode && w.spec.Client != nil {
		return w.spec.Client.RDMA
	}
	for _, n := range w.nodes {
		if n.Name == node {
			return n.RDMA
		}
	}
	return nil
}

// nodeNPU is a node's Ascend NPUs (nil = none).
func (w *World) nodeNPU(node string) *engine.NPUSpec {
	for _, n := range w.nodes {
		if n.Name == node {
			return n.NPU
		}
	}
	return nil
}

// register records a client's TE endpoint for the data path.
func (w *World) register(c *client.RealClient, node string, mem *hostmem.Space) {
	eng := c.Engine()
	if eng == nil {
		return
	}
	w.registerTE(eng, node, mem, c.Logger())
	// Segments are named by local_hostname; replicas carry TEEndpoint.
}

// registerTE records a transfer engine's endpoint for the data path.
func (w *World) registerTE(eng *te.Engine, node string, mem *hostmem.Space, log mlog.Logger) {
	name := eng.ServerName()
	if name == "" {
		return
	}
	for _, e := range w.endpoints {
		if e.name == name && e.node == node && e.mem == mem {
			return
		}
	}
	w.endpoints = append(w.endpoints, endpointReg{name: name, node: node, mem: mem, log: log, eng: eng})
}

// unregister drops the TE endpoints of a process's address space (the
// process exited).
func (w *World) unregister(mem *hostmem.Space) {
	w.endpoints = slices.DeleteFunc(w.endpoints, func(e endpointReg) bool { return e.mem == mem })
	// Its kernel closed the sockets: nothing is answered any more.
	w.abandoned = slices.DeleteFunc(w.abandoned, func(a abandonedHandshake) bool { return a.mem == mem })
}

// endpoint finds an endpoint, preferring the caller's node. Another
// node's name shared by several processes (one local_hostname on
// etcd, whose Put overwrites) is the last one registered: its rpc_meta is
// the one a reader finds (real 0.3.4.post2, etcd/duplicate-local-hostname-read:
// a third process's read reaches the second's server).
func (w *World) endpoint(from, name string) *endpointReg {
	var found *endpointReg
	for i := range w.endpoints {
		e := &w.endpoints[i]
		if e.name != name {
			continue
		}
		if e.node == from {
			return e
		}
		found = e
	}
	return found
}

// Clock implements engine.World.
func (w *World) Clock() engine.Clock { return kernel.Clock{K: w.k} }

// Kernel exposes the kernel (tests, benchmarks).
func (w *World) Kernel() *kernel.Kernel { return w.k }

// Master exposes the master model (nil when stopped or absent).
func (w *World) Master() *master.Master {
	if w.ha != nil {
		if w.ha.leader < 0 {
			return nil
		}
		_, m := w.ha.at(w.ha.ms[w.ha.leader].addr)
		return m
	}
	if w.masterState == stopped {
		return nil
	}
	return w.master
}

// Addr implements engine.World.
func (w *World) Addr(role string) (string, error) {
	switch role {
	case "master":
		if w.ha != nil {
			return "", fmt.Errorf("sim: topology master.ha: clients find the leader through etcd (etcd://{{etcd}}), there is no one master address")
		}
		return MasterAddr, nil
	case "metadata":
		return w.metadataURL(), nil
	case "etcd":
		if w.spec.Metadata != "etcd" {
			return "", fmt.Errorf("sim: role etcd: the topology's metadata is %s, not etcd", w.spec.Metadata)
		}
		return EtcdAddr, nil
	case "client":
		return ClientAddr, nil
	case "master_metrics":
		return MasterMetricsPort, nil
	case "master_ip":
		if w.ha != nil {
			// The first master's own address (the leader at start): a
			// client given it instead of the master view.
			return w.ha.ms[0].addr, nil
		}
		if w.containers {
			return w.masterIP, nil
		}
		return MasterAddr, nil // in processes the proxy's address is the master's port
	case "metadata_ipv6":
		if w.spec.Metadata != "master" || w.containers {
			return "", engine.Unsupportedf("sim: role metadata_ipv6: only the master's embedded metadata server (topology metadata: master) in a process world")
		}
		return strings.Replace(MetadataURL, "127.0.0.1", "[::1]", 1), nil
	case "master_ipv6":
		if w.ha != nil || w.containers {
			return "", engine.Unsupportedf("sim: role master_ipv6: only one master process on this host has an IPv6 loopback address")
		}
		return MasterAddrIPv6, nil
	case "offload_dir":
		return OffloadDir, nil
	case "s3":
		return S3URL, nil
	}
	return "", fmt.Errorf("sim: unknown role %q: want master, metadata, client, master_metrics, master_ip, master_ipv6, metadata_ipv6, offload_dir or s3", role)
}

// StartProcess implements engine.World.
func (w *World) StartProcess(_ context.Context, node string, env map[string]string) (engine.Process, error) {
	known := false
	for _, n := range w.nodes {
		known = known || n.Name == node
	}
	if !known {
		return nil, fmt.Errorf("sim: no node %q in the topology", node)
	}
	if w.containers {
		if err := engine.LoopbackAcrossContainers(len(w.nodes), node, env); err != nil {
			return nil, err
		}
	}
	var huge, ram int64
	host, gpu := 0, false
	for i, n := range w.nodes {
		if n.Name == node {
			huge, ram, host, gpu = n.HugepagesBytes, n.RAMBytes, i, n.GPU != nil
		}
	}
	w.procs++
	e := make(map[string]string, len(env))
	for k, v := range env {
		e[k] = v
	}
	return &Process{w: w, node: node, id: w.procs, env: e, mem: hostmem.NewOnHost(w.profile, huge, host).WithRAM(ram).WithGPU(gpu)}, nil
}

// Close implements engine.World.
func (w *World) Close(context.Context) error {
	w.closed = true
	for _, b := range w.beats {
		if b.ev != nil {
			b.ev.Cancel()
		}
	}
	return w.Scheduler.Close()
}

var _ engine.World = (*World)(nil)
