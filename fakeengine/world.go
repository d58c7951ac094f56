package fakeengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/netport"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// World is one running fake topology.
type World struct {
	spec    engine.WorldSpec
	profile mooncake.Profile
	logger  *slog.Logger
	trace   *trace.Trace
	start   time.Time
	scale   scale
	// stalls: the process's own pauses, which the master adds to client_ttl.
	stalls stalls
	gate   gate
	inj    *toxiproxy.Injector
	// rdma is each node's work-completion fault (kind rdma).
	rdma te.RDMAFaultSet

	// Lifetime of background goroutines (fault timers, heartbeats).
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closeDone chan struct{} // closed when Close has finished

	// netMu guards the network tables, which model code (under the gate)
	// reads. Lock order: w.mu, then gate, then netMu.
	netMu   sync.Mutex
	dataSrv map[string]*wire.Server      // by node
	routes  map[string]map[string]string // node → canonical addr → proxy listen addr
	ports   map[string]*binding          // node/port → owner
	held    map[int]bool                 // ports port-held faults hold, on every node
	names   map[string]*Process          // TE server name → owner (nameEndpoint)
	engines map[string]*te.Engine        // TE server name → its engine (nameEndpoint)
	// portRace: a port-race fault is armed (portrace.go); under netMu.
	portRace bool

	// faulted counts the faults injected and not yet healed (faulted.go):
	// with none, nothing in the world delays a party's answer.
	faulted faultCount

	mu          sync.Mutex // guards the fields below (not the models)
	closed      bool
	masterModel *master.Master
	masterSrv   *servers.MasterServer
	// masterSrv6 serves the same model on [::1] at masterAddr's port when
	// --rpc_address listens on IPv6 (master.Config.RPCListens), so a
	// client's dial to {{master_ipv6}} meets the kernel's answer: accepted
	// or refused.
	masterSrv6 *servers.MasterServer
	masterAddr string // canonical host:port of the master (its real listener)
	masterUp   bool
	// masterVersion is mooncake_master's release (topology.master.
	// mooncake_version, a remedy's master_version; else the run's). Its own
	// lock: every master RPC reads it, some while mu is held (mooncake_client's
	// start).
	mvMu          sync.Mutex
	masterVersion string
	metaHandler   *servers.MetadataHandler
	metaSrv       *servers.HTTPServer
	// metaSrv6 serves the embedded metadata handler on [::1] at metaAddr's
	// port when --http_metadata_server_host listens on IPv6
	// (master.Config.MetadataListens; topology metadata: master).
	metaSrv6 *servers.HTTPServer
	metaAddr string
	metaUp   bool
	etcd     *etcdServer // topology metadata: etcd (metaAddr is its client endpoint)
	netports []int       // netport ports of the master and metadata listeners, released by Close
	// Scheduler schedules the faults: World.Arm and World.ClearFaults are its.
	*schedule.Scheduler

	// metaUnbound: the master's embedded metadata server never bound its
	// port, another process's (up to 0.3.11.post1): its handler is held
	// paused (the holder accepts and never answers) until the master
	// starts again.
	metaUnbound bool

	procs    []*Process
	nextPID  int
	launched bool // Launch finished
	shms     servers.ShmRegistry
	client   *clientProc // standalone mooncake_client; nil when absent
	ctr      *ctrWorld   // the container side (Options.Containers); nil in processes
}

// Launch implements engine.Engine. Servers listen on 127.0.0.1:0; one
// toxiproxy proxy per (node, party) link.
func (e *Engine) Launch(ctx context.Context, spec engine.WorldSpec) (_ engine.World, err error) {
	if spec.Master != nil && spec.Master.HA {
		// Its servers (fakeengine/servers) serve one master model; the
		// election lives in sim (sim/hamaster.go) and on real.
		return nil, engine.Unsupportedf("HA master pair (topology master.ha) is not served by the fake engine (one master process); it runs on sim and real")
	}
	if spec.Libstdcxx != "" {
		return nil, engine.Unsupportedf("topology libstdcxx: the fake engine's servers and stores are the models inside the harness, with no dynamic loader to check a library's versions; it runs on sim")
	}
	if len(spec.MissingLibs) > 0 {
		return nil, engine.Unsupportedf("topology missing_libs: the fake engine's servers and stores are the models inside the harness, with no dynamic loader to withhold a library from; it runs on sim and real")
	}
	for _, n := range spec.Nodes {
		if n.EphemeralPorts > 0 {
			return nil, engine.Unsupportedf("node %s: ip_local_port_range: the fake engine's stores move bytes inside the harness, with no connection per transfer to take a port; it runs on sim and real", n.Name)
		}
	}
	if c := spec.Client; c != nil && (len(c.Flags) > 0 || c.UsesOffloadDir()) {
		// The flags it has (--enable_offload) are SSD offload's, which
		// the fake master's RPC server does not answer.
		return nil, engine.Unsupportedf("topology mooncake_client.flags or {{offload_dir}}: SSD offload is not modelled behind the fake master's RPC server; it runs on sim and real")
	}
	if why := spec.NeedsContainers(); why != "" {
		if e.opts.Containers {
			return nil, engine.Unsupportedf("%s; on the fake engine mooncake_client and the SGLang side run in the harness process, not in containers of their own", why)
		}
		return nil, engine.Unsupportedf("%s", why)
	}
	if spec.Version == "" {
		spec.Version = mooncake.Latest
	}
	p, err := mooncake.ProfileFor(spec.Version)
	if err != nil {
		return nil, fmt.Errorf("fake engine: %w", err)
	}
	// The master's release (version skew: measured pairs only).
	mp := p
	if mv := spec.MasterVersion(); mv != spec.Version {
		if e.opts.Containers {
			return nil, engine.Unsupportedf("topology.master.mooncake_version: the fake engine's served containers run one release")
		}
		if err := mooncake.SkewModelled(mv, spec.Version); err != nil {
			return nil, engine.Unsupportedf("%v", err)
		}
		if mp, err = mooncake.ProfileFor(mv); err != nil {
			return nil, fmt.Errorf("fake engine: topology.master.mooncake_version: %w", err)
		}
	}
	logger := spec.Logger
	if logger == nil {
		logger = e.opts.Logger
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &World{
		spec: spec, profile: p, masterVersion: spec.MasterVersion(), logger: logger, trace: spec.Trace, start: time.Now(), scale: newScale(spec.TimeoutScale),
		dataSrv: map[string]*wire.Server{}, routes: map[string]map[string]string{},
		ports: map[string]*binding{}, held: map[int]bool{}, closeDone: make(chan struct{}),
	}
	if w.trace == nil {
		w.trace = trace.New(nil)
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if e.opts.Containers {
		// Ctrl-C while containers start: their context fails and
		// openContainers removes what it made.
		if err := e.openContainers(ctx, w); err != nil {
			w.cancel()
			return nil, err
		}
		// Containers' start-up is not Mooncake time: the world starts now.
		w.start = time.Now()
	}
	w.trace.SetClock(modelClock{start: w.start, s: w.scale}.Now)
	w.wg.Go(func() { w.stalls.watch(w.ctx) })
	in := injector{w}
	w.Scheduler = schedule.New(w.ctx, in.Inject, in.Clear, wallTimer{start: w.start, s: w.scale}, w.trace)
	defer func() {
		if err != nil {
			_ = w.Close(context.WithoutCancel(ctx))
		}
	}()
	// Ctrl-C (ctx cancelled) while the world runs: tear everything down.
	stop := context.AfterFunc(ctx, func() { _ = w.Close(context.Background()) })
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		<-w.ctx.Done()
		stop()
	}()

	if w.inj == nil {
		if w.inj, err = toxiproxy.New(ctx, logger); err != nil {
			return nil, fmt.Errorf("fake engine: %w", err)
		}
	}
	for _, port := range spec.HeldPorts { // another process's, from before the servers start
		w.held[port] = true
	}
	// How the master's embedded metadata server started (aborted: the
	// master with it).
	metaStart, aborted := master.MetadataServes, false
	if spec.Master != nil {
		cfg, err := master.ConfigFor(mp, spec.Master.Flags)
		if err != nil {
			return nil, fmt.Errorf("fake engine: master flags: %w", err)
		}
		cfg = master.WithEnv(cfg, mp, spec.Master.Env, spec.Metadata == "master")
		cfg.RNIC = len(spec.Master.RDMA) > 0
		if (spec.MetadataPortHeld() || spec.MetricsPortHeld()) && e.opts.Containers {
			return nil, engine.Unsupportedf("fake engine: a held topology.master port: a port is held on the host, not in a container world's network namespaces")
		}
		if a := w.servedAddr("master"); a != "" {
			w.masterAddr, w.masterUp = a, true
		} else {
			metaStart = w.masterMetadataStart(cfg)
			// The admin server starts after the metadata server; either
			// failing ends the process before its RPC server.
			if aborted = metaStart == master.MetadataAborts || w.masterAdminStart(cfg) == master.AdminExits; aborted {
				// A model for its config only: the process printed no more.
				w.masterModel = w.newMasterLogged(cfg, mlog.Discard{})
			} else {
				w.masterModel = w.newMaster(cfg)
			}
			addr, err := w.reservedAddr()
			if err != nil {
				return nil, err
			}
			if err := w.startMaster(ctx, addr); err != nil {
				return nil, err
			}
		}
	}
	switch spec.Metadata {
	case "", "P2PHANDSHAKE", "http":
	case "etcd":
		if err := w.launchEtcd(ctx); err != nil {
			return nil, err
		}
	case "master":
		if spec.Master == nil {
			return nil, fmt.Errorf("fake engine: metadata %q needs a master", spec.Metadata)
		}
	default:
		return nil, fmt.Errorf("fake engine: metadata %q: want P2PHANDSHAKE, http, master or etcd", spec.Metadata)
	}
	if a := w.servedAddr("metadata"); a != "" {
		w.metaAddr, w.metaUp = a, true
	} else if spec.Metadata == "http" || spec.Metadata == "master" {
		w.metaHandler = servers.NewMetadataHandler(w.newMetadata())
		addr, err := w.reservedAddr()
		if err != nil {
			return nil, err
		}
		if err := w.startMetadata(ctx, addr); err != nil {
			return nil, err
		}
		if w.metadataRefused() {
			// Down from the start, its port kept: nothing listens.
			if err := w.stopMetaLocked(); err != nil {
				return nil, err
			}
		}
	}
	if aborted {
		// Down from the start, its ports kept (nothing listens): Clear,
		// the port freed, starts it again.
		if err := w.stopMasterLocked(); err != nil {
			return nil, err
		}
		if spec.Metadata == "master" {
			if err := w.stopMetaLocked(); err != nil {
				return nil, err
			}
		}
	}
	switch metaStart {
	case master.MetadataUnchecked:
		w.metaUnbound = true
		w.metaHandler.Pause()
	}
	for _, n := range spec.Nodes {
		if n.Name == clientNode {
			return nil, fmt.Errorf("fake engine: node name %q is reserved for mooncake_client", clientNode)
		}
		if err := w.startDataServer(ctx, n.Name); err != nil {
			return nil, err
		}
	}
	// One proxy per link.
	for _, n := range spec.Nodes {
		if w.masterAddr != "" {
			if err := w.link(n.Name, "master", w.masterAddr); err != nil {
				return nil, err
			}
		}
		if w.metaAddr != "" {
			if err := w.link(n.Name, "metadata", w.metaAddr); err != nil {
				return nil, err
			}
		}
		for _, m := range spec.Nodes {
			if m.Name != n.Name {
				if err := w.link(n.Name, m.Name, w.dataSrv[m.Name].Addr()); err != nil {
					return nil, err
				}
			}
		}
	}
	if spec.Client != nil {
		if !p.DummyClient {
			return nil, engine.Unsupportedf("mooncake_client does not exist in Mooncake %s (0.3.8+)", p.Version)
		}
		if err := w.launchClient(ctx); err != nil {
			return nil, err
		}
	}
	w.mu.Lock()
	w.launched = true
	w.mu.Unlock()
	return w, nil
}

// Clock implements engine.World: Mooncake time since Launch (wall time
// divided by the timeout scale).
func (w *World) Clock() engine.Clock { return mooncakeClock{start: w.start, s: w.scale} }

// Addr implements engine.World. Addresses are the servers' real loopback
// listeners; a node's transports route them through its own proxies.
func (w *World) Addr(role string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch role {
	case "master", "master_ip": // no proxy in between either way; a restart keeps the address
		if role == "master_ip" && w.ctr != nil {
			// The proxies dial the current container (relink); an address
			// pinned to the old one is not modelled.
			return "", engine.Unsupportedf("fake engine: the master's container address ({{master_ip}}) is not modelled in containers: the SGLang model reaches the master through toxiproxy, which follows a replaced container")
		}
		if w.masterAddr == "" {
			return "", fmt.Errorf("fake engine: the topology has no master")
		}
		return w.masterAddr, nil
	case "metadata_ipv6":
		if w.ctr != nil || w.spec.Metadata != "master" || w.metaAddr == "" {
			return "", engine.Unsupportedf("fake engine: role metadata_ipv6: only the master's embedded metadata server (topology metadata: master) on this host's loopback")
		}
		_, port, _ := net.SplitHostPort(w.metaAddr)
		return "http://" + net.JoinHostPort("::1", port) + "/metadata", nil
	case "master_ipv6":
		if w.ctr != nil || w.masterAddr == "" {
			return "", engine.Unsupportedf("fake engine: role master_ipv6: only an in-process master on this host's loopback has an IPv6 address")
		}
		_, port, _ := net.SplitHostPort(w.masterAddr)
		return net.JoinHostPort("::1", port), nil
	case "metadata":
		if w.metaAddr == "" {
			return "P2PHANDSHAKE", nil
		}
		if w.etcd != nil {
			return "etcd://" + w.metaAddr, nil
		}
		return "http://" + w.metaAddr + "/metadata", nil
	case "etcd":
		if w.etcd == nil {
			return "", fmt.Errorf("fake engine: role etcd: the topology's metadata is %s, not etcd", w.spec.Metadata)
		}
		return w.metaAddr, nil
	case "client":
		if w.client == nil {
			return "", fmt.Errorf("fake engine: the topology has no mooncake_client")
		}
		return w.client.addr, nil
	case "master_metrics":
		return "", engine.Unsupportedf("fake engine: the master admin HTTP server is not served")
	}
	if role == "s3" {
		return "", engine.Unsupportedf("fake engine: role s3: SSD offload is not modelled behind the fake master's RPC server")
	}
	if role == "offload_dir" {
		// The fake master answers no offload RPC (master.OffloadService).
		return "", engine.Unsupportedf("fake engine: role offload_dir: SSD offload is not modelled behind the fake master's RPC server")
	}
	return "", fmt.Errorf("fake engine: unknown role %q (master, metadata, client, master_metrics, master_ip, master_ipv6, metadata_ipv6, offload_dir, s3)", role)
}

// Close implements engine.World: every process, heartbeat, timer, server
// and proxy is stopped; no listener remains. Safe to call twice.
func (w *World) Close(ctx context.Context) error {
	// Cancel first: a server startup or fault action holding w.mu (a
	// mooncake_client retrying a dead master) gives up instead of making
	// Close wait for it.
	if w.cancel != nil {
		w.cancel()
	}
	// The scheduler first (its lock comes before w.mu): a fault action
	// running now finishes, later ones do nothing.
	var schedErr error
	if w.Scheduler != nil {
		schedErr = w.Scheduler.Close()
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		// Another Close (Ctrl-C's) is tearing down: wait for it to finish.
		<-w.closeDone
		return nil
	}
	w.closed = true
	defer close(w.closeDone)
	procs := slices.Clone(w.procs)
	w.mu.Unlock()
	w.cancel() // heartbeats and in-flight calls see ctx.Done
	errs := []error{schedErr}
	for _, p := range procs {
		p.stop()
	}
	if w.inj != nil {
		t := time.Now()
		errs = append(errs, w.inj.Close())
		w.logger.Debug("toxiproxy closed", "took", time.Since(t))
	}
	errs = append(errs, w.closeContainers(ctx))
	w.mu.Lock()
	if w.masterSrv != nil {
		w.masterSrv.Resume()
		if w.masterSrv6 != nil {
			w.masterSrv6.Resume()
		}
		if w.masterUp {
			w.masterUp = false
			errs = append(errs, w.masterSrv.Close())
			if w.masterSrv6 != nil {
				errs = append(errs, w.masterSrv6.Close())
				w.masterSrv6 = nil
			}
		}
	}
	if w.metaHandler != nil {
		w.metaHandler.Resume()
	}
	if w.metaSrv != nil && w.metaUp {
		w.metaUp = false
		errs = append(errs, w.metaSrv.Close())
		errs = append(errs, w.closeMeta6())
	}
	if w.etcd != nil {
		w.metaUp = false
		errs = append(errs, w.etcd.Close())
	}
	if w.client != nil && w.client.up {
		w.client.srv.Resume()
		w.client.up = false
		errs = append(errs, w.client.srv.Close())
	}
	w.mu.Unlock()
	w.netMu.Lock()
	for _, n := range sortedKeys(w.dataSrv) {
		errs = append(errs, w.dataSrv[n].Close())
	}
	w.netMu.Unlock()
	w.wg.Wait()
	netport.Release(w.netports...)
	return errors.Join(errs...)
}

// reservedAddr is a loopback address on a netport port: a master or
// metadata server stopped by a fault restarts on it, and while it is down
// nothing else (a :0 bind, a connection's source port) can take it.
func (w *World) reservedAddr() (string, error) {
	ports, err := netport.Take(1)
	if err != nil {
		return "", fmt.Errorf("fake engine: %w", err)
	}
	w.netports = append(w.netports, ports[0])
	return fmt.Sprintf("127.0.0.1:%d", ports[0]), nil
}

// sortedKeys returns m's keys sorted, so iteration never decides behaviour.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// cutHostPort splits host:port at the last colon.
func cutHostPort(s string) (host, port string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// Listeners lists every address this world listens on: servers, transfer
// endpoints and toxiproxy proxies (for leak checks after Close).
func (w *World) Listeners() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	if w.masterAddr != "" {
		out = append(out, w.masterAddr)
	}
	if w.metaAddr != "" {
		out = append(out, w.metaAddr)
	}
	if w.etcd != nil {
		out = append(out, w.etcd.peer.Host)
	}
	if w.client != nil {
		out = append(out, w.client.addr)
	}
	w.netMu.Lock()
	defer w.netMu.Unlock()
	for _, n := range sortedKeys(w.dataSrv) {
		out = append(out, w.dataSrv[n].Addr())
	}
	for _, node := range sortedKeys(w.routes) {
		for _, up := range sortedKeys(w.routes[node]) {
			out = append(out, w.routes[node][up])
		}
	}
	return out
}
