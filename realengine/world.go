package realengine

import (
	"context"
	"errors"
	"fmt"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/netport"
	"github.com/mooncake-faultlab/faultlab/tmpdir"
)

// World is one running real topology: mooncake_master (with or without
// its embedded HTTP metadata server), a standalone HTTP metadata server or
// none (P2PHANDSHAKE), mooncake_client, a driver process per SGLang
// process, and toxiproxy in front of the master and metadata links.
type World struct {
	e    *Engine
	spec engine.WorldSpec
	l    Layout
	in   Installed
	// ml, min: mooncake_master's install (another release's under
	// topology.master.mooncake_version, else l and in).
	ml  Layout
	min Installed
	// remedyFlags are a remedy's master_flags, over the topology's.
	remedyFlags map[string]string
	// remedyEnv is a remedy's master_env, over topology.master.env.
	remedyEnv map[string]string
	log       *slog.Logger
	start     *origin
	dir       string // temp dir: driver.py, anything else we write
	drv       string // driver.py path

	inj *toxiproxy.Injector
	ctr *ctrWorld // container worlds only (incontainers.go)
	// answerHeal takes the answer proxy out of the metadata link (nil = none
	// in place); guarded by mu.
	answerHeal func(context.Context) error
	// portHeals close the ports port-held faults hold (porthold.go);
	// guarded by mu.
	portHeals []func(context.Context) error
	// startHolds release the ports held from before the servers started
	// (WorldSpec.HeldPorts) until their faults take them over; guarded by
	// mu.
	startHolds map[int]func()
	// holding are the ports this world holds now (start holds and
	// port-held faults); guarded by mu.
	holding map[int]bool

	mu      sync.Mutex
	servers map[string]*server // "master", "metadata", "client"
	// s3 is the {{s3}} stand-in, started at its first Addr; guarded by mu.
	s3 *s3StandIn
	// missing are the native libraries the hosts lack (libs.go).
	missing []string
	procs   []*Process
	ports   []int // netport ports this world owns until Close
	// windows are the port windows of its transfer engines' processes
	// (portwindow.go), held until Close.
	windows []*netport.Window
	// Scheduler schedules the faults: World.Arm and World.ClearFaults are its.
	*schedule.Scheduler
	// endFaults cancels a fault action still running at Close.
	endFaults context.CancelFunc
	closed    bool
}

var _ engine.World = (*World)(nil)

// server is a restartable server process with a fixed command line and ports.
type server struct {
	role  string
	spec  procSpec
	p     *proc
	ready func(ctx context.Context, p *proc) error
	// down: stopped by a fault (ClearFaults starts it again); paused: SIGSTOPped.
	down, paused bool
	// noLib: down because the loader could not start it (missing_libs).
	noLib bool
	ports map[string]int
	// links are the proxies in front of this server: while it is stopped
	// they refuse too, as the real port would (a proxy with a dead upstream
	// accepts and then resets, which Mooncake logs differently).
	links []string
}

func newWorld(ctx context.Context, e *Engine, spec engine.WorldSpec, l Layout, in Installed) (*World, error) {
	dir, err := tmpdir.Make("faultlab-real-")
	if err != nil {
		return nil, fmt.Errorf("real engine: temp dir: %w", err)
	}
	drv, err := writeDriver(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	log := spec.Logger // the runner's already names scenario, engine and version
	if log == nil {
		log = e.opts.Logger.With("engine", Name, "version", spec.Version, "scenario", spec.Scenario)
	}
	w := &World{e: e, spec: spec, l: l, in: in, ml: l, min: in, log: log, start: newOrigin(), dir: dir, drv: drv, servers: map[string]*server{},
		missing: slices.Clone(spec.MissingLibs), startHolds: map[int]func(){}, holding: map[int]bool{}}
	if e.opts.Containers {
		w.inj, err = w.openContainers(ctx)
	} else {
		w.inj, err = toxiproxy.New(ctx, log)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("real engine: %w", err)
	}
	var fctx context.Context
	fctx, w.endFaults = context.WithCancel(context.WithoutCancel(ctx))
	inj := injector{w}
	w.Scheduler = schedule.New(fctx, inj.Inject, inj.Clear, wallTimer{start: w.start}, spec.Trace)
	if spec.Trace != nil {
		spec.Trace.SetClock(w.Clock().Now)
	}
	return w, nil
}

// env is the environment of a Mooncake process: the base, the install's
// library path fixes, then extra.
func (w *World) env(extra map[string]string) []string {
	set := map[string]string{}
	if p := w.ldPath(w.in); p != "" {
		set["LD_LIBRARY_PATH"] = p
	}
	for k, v := range extra {
		set[k] = v
	}
	return mergeEnv(baseEnv(), set)
}

// masterEnv is mooncake_master's environment: its own install's library
// path fixes (a skewed master's release may need others than the
// clients').
func (w *World) masterEnv() []string {
	set := map[string]string{}
	if w.spec.Master != nil {
		// The scenario's variables (MC_RPC_PROTOCOL), a remedy's over them.
		set = engine.MergeFlags(w.spec.Master.Env, w.remedyEnv)
	}
	if p := w.ldPath(w.min); p != "" {
		set["LD_LIBRARY_PATH"] = p
	}
	return mergeEnv(baseEnv(), set)
}

// reserved flags are the engine's: ports and bind addresses. A scenario
// may name rpc_address in a process world (the bind address is the
// field's fault: an IPv4-only master dialled at IPv6); the port stays the
// engine's.
var reservedMasterFlags = []string{"port", "rpc_port", "rpc_address", "metrics_port", "metrics_host",
	"enable_http_metadata_server", "http_metadata_server_port", "http_metadata_server_host"}

// scenarioMasterFlags are the topology's master flags with a remedy's
// master_flags over them.
func (w *World) scenarioMasterFlags() map[string]string {
	return engine.MergeFlags(w.spec.Master.Flags, w.remedyFlags)
}

// scenarioBindFlags are the bind-address flags a scenario may name in a
// process world: the bind address is the field's fault (an IPv4-only
// listener dialled at IPv6); the ports stay the engine's.
var scenarioBindFlags = []string{"rpc_address", "http_metadata_server_host"}

// masterProbeHost is where the harness checks a master port whose bind
// address is the scenario's flag (rpc_address, http_metadata_server_host):
// the IPv6 loopback when it names an IPv6 host (no IPv4 connect is taken
// then), else "" (the world's usual host).
func (w *World) masterProbeHost(flag string) string {
	a := strings.Trim(w.scenarioMasterFlags()[flag], "[]")
	if ip, err := netip.ParseAddr(a); err == nil && ip.Is6() && !ip.IsUnspecified() {
		return "::1"
	}
	return ""
}

func (w *World) launch(ctx context.Context) error {
	if w.spec.Master != nil && w.spec.Master.HA {
		return w.launchHA(ctx)
	}
	if w.spec.Master != nil {
		if err := w.launchMaster(ctx); err != nil {
			return err
		}
	}
	if w.spec.Metadata == "http" {
		if err := w.launchMetadata(ctx); err != nil {
			return err
		}
	}
	if w.spec.Metadata == "etcd" {
		if err := w.launchEtcd(ctx); err != nil {
			return err
		}
	}
	if w.spec.Client != nil {
		if err := w.launchClient(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) launchMaster(ctx context.Context) error {
	bin, args, rpc, metrics, meta, err := w.masterArgs(ctx, nil)
	if err != nil {
		return err
	}
	rpcAddr := net.JoinHostPort(w.dialHost("master"), strconv.Itoa(rpc))
	s := &server{role: "master", ports: map[string]int{"rpc": rpc, "metrics": metrics},
		spec: procSpec{Name: "mooncake_master", Source: "master", Path: bin, Args: args, Env: w.masterEnv(), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "master"},
		ready: func(ctx context.Context, p *proc) error {
			probe, err := w.probeAddr(ctx, p, rpc)
			if err != nil {
				return err
			}
			if h := w.masterProbeHost("rpc_address"); h != "" && p.ctr == nil {
				probe = net.JoinHostPort(h, strconv.Itoa(rpc))
			}
			if err := waitTCP(ctx, probe, p); err != nil {
				return err
			}
			if w.spec.Metadata == "master" {
				if w.holdsPort(meta) {
					// Another process holds it: up to 0.3.11.post1 the
					// master serves on without its metadata server, and
					// the holder (which accepts nothing) answers no probe.
					return nil
				}
				probe, err := w.probeAddr(ctx, p, meta)
				if err != nil {
					return err
				}
				if h := w.masterProbeHost("http_metadata_server_host"); h != "" && p.ctr == nil {
					probe = net.JoinHostPort(h, strconv.Itoa(meta))
				}
				return waitHTTP(ctx, "http://"+probe+"/health", p)
			}
			return nil
		}}
	if w.spec.Metadata == "master" {
		s.ports["metadata"] = meta
	}
	if err := w.startServer(ctx, s); err != nil {
		return err
	}
	if _, err := w.inj.Link("master", rpcAddr); err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	s.links = append(s.links, "master")
	if w.spec.Metadata == "master" {
		if _, err := w.inj.Link("metadata", net.JoinHostPort(w.dialHost("master"), strconv.Itoa(meta))); err != nil {
			return fmt.Errorf("real engine: %w", err)
		}
		s.links = append(s.links, "metadata")
	}
	return w.holdIfDown(ctx, s)
}

// masterArgs is one mooncake_master's command line on fresh ports: the
// engine's flags, extra, then the scenario's flags.
func (w *World) masterArgs(ctx context.Context, extra map[string]string) (bin string, args []string, rpc, metrics, meta int, err error) {
	ports, err := w.freePorts(3)
	if err != nil {
		return "", nil, 0, 0, 0, err
	}
	if ms := w.spec.Master; ms != nil && ms.MetadataPort != 0 && w.spec.Metadata == "master" {
		ports[2] = ms.MetadataPort // the world's (topology.master.http_metadata_port)
	}
	if ms := w.spec.Master; ms != nil && ms.MetricsPort != 0 {
		ports[1] = ms.MetricsPort // the world's (topology.master.metrics_port)
	}
	return w.masterArgsOn(ctx, extra, ports)
}

// masterArgsOn is masterArgs on given ports (rpc, metrics, metadata).
func (w *World) masterArgsOn(ctx context.Context, extra map[string]string, ports []int) (bin string, args []string, rpc, metrics, meta int, err error) {
	bin, err = w.ml.Binary("mooncake_master")
	if err != nil {
		return "", nil, 0, 0, 0, err
	}

	known, err := w.e.masterFlags(ctx, w.ml, w.min)
	if err != nil {
		return "", nil, 0, 0, 0, err
	}
	rpc, metrics, meta = ports[0], ports[1], ports[2]
	flags := map[string]string{
		"rpc_port":     strconv.Itoa(rpc),
		"rpc_address":  w.bindHost(),
		"metrics_port": strconv.Itoa(metrics),
		"logtostderr":  "true",
	}
	if known["metrics_host"] {
		flags["metrics_host"] = w.bindHost()
	}
	// Before --rpc_port/--rpc_address (0.3.4's master: --port, bound on
	// every address) the port flag had its short name.
	if !known["rpc_port"] && known["port"] {
		flags["port"] = flags["rpc_port"]
		delete(flags, "rpc_port")
	}
	if !known["rpc_address"] {
		delete(flags, "rpc_address")
	}
	if w.spec.Metadata == "master" {
		if !known["enable_http_metadata_server"] {
			return "", nil, 0, 0, 0, engine.Unsupportedf("topology metadata: master: mooncake_master %s has no embedded HTTP metadata server (--enable_http_metadata_server, %s+)", w.spec.MasterVersion(), mooncake.EmbeddedMetadataSince)
		}
		flags["enable_http_metadata_server"] = "true"
		flags["http_metadata_server_port"] = strconv.Itoa(meta)
		flags["http_metadata_server_host"] = w.bindHost()
	}
	maps.Copy(flags, extra)
	if known["local_hostname"] && flags["enable_ha"] == "true" {
		// Up to 0.3.5 an HA master publishes --local_hostname as its
		// master view: 0.3.4 aborts without it, 0.3.4.post2 publishes ""
		// and no client finds it (real, REAL-FINDINGS §48).
		flags["local_hostname"] = net.JoinHostPort(w.bindHost(), strconv.Itoa(rpc))
	}
	sf := w.scenarioMasterFlags()
	for _, k := range sortedKeys(sf) {
		if slices.Contains(scenarioBindFlags, k) && w.ctr != nil {
			return "", nil, 0, 0, 0, engine.Unsupportedf("real engine: master flag --%s in containers: a container world binds every party to 0.0.0.0 on its network", k)
		}
		if slices.Contains(reservedMasterFlags, k) && !slices.Contains(scenarioBindFlags, k) {
			return "", nil, 0, 0, 0, fmt.Errorf("real engine: master flag --%s is set by the engine (ports and bind addresses are picked per run; %s only in a process world)", k, strings.Join(scenarioBindFlags, ", "))
		}
		if !known[k] {
			return "", nil, 0, 0, 0, engine.Unsupportedf("mooncake_master %s has no flag --%s", w.spec.MasterVersion(), k)
		}
		flags[k] = sf[k]
		if strings.Contains(sf[k], engine.OffloadDirPlaceholder) {
			// --root_fs_dir under the world's offload directory.
			dir, err := w.Addr("offload_dir")
			if err != nil {
				return "", nil, 0, 0, 0, err
			}
			flags[k] = strings.ReplaceAll(sf[k], engine.OffloadDirPlaceholder, dir)
		}
	}
	for _, k := range sortedKeys(flags) {
		args = append(args, "--"+k+"="+flags[k])
	}
	return bin, args, rpc, metrics, meta, nil
}

// metadataAllowInsecure keeps 0.3.14's HTTP metadata server open on a
// host that is not the loopback (http_metadata_server.py, PR 2527).
const metadataAllowInsecure = "MC_METADATA_HTTP_ALLOW_INSECURE"

func (w *World) launchMetadata(ctx context.Context) error {
	host := w.bindHost()
	if h := w.spec.MetadataHost; h != "" {
		if w.ctr != nil {
			return engine.Unsupportedf("real engine: topology.metadata_host: a container world's server binds its container's addresses, opened with %s=1", metadataAllowInsecure)
		}
		host = h
	}
	ports, err := w.freePorts(1)
	if err != nil {
		return err
	}
	port := ports[0]
	addr := net.JoinHostPort(w.dialHost("metadata"), strconv.Itoa(port))
	// The wheel's aiohttp server; it has no /health, any HTTP answer means up.
	s := &server{role: "metadata", ports: map[string]int{"http": port},
		spec: procSpec{Name: "mooncake_http_metadata_server", Source: "metadata", Path: w.l.Python(),
			Args: []string{"-m", "mooncake.http_metadata_server", "--port", strconv.Itoa(port), "--host", host},
			Env:  w.metadataEnv(), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "metadata"},
		ready: func(ctx context.Context, p *proc) error {
			probe, err := w.probeAddr(ctx, p, port)
			if err != nil {
				return err
			}
			return waitHTTP(ctx, "http://"+probe+"/metadata?key=faultlab-probe", p)
		}}
	if err := w.startServer(ctx, s); err != nil {
		return err
	}
	if _, err := w.inj.Link("metadata", addr); err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	s.links = append(s.links, "metadata")
	return w.holdIfDown(ctx, s)
}

// metadataEnv is the Python metadata server's environment: the
// scenario's (its token) over the engine's.
func (w *World) metadataEnv() []string {
	env := map[string]string{"PYTHONUNBUFFERED": "1"}
	w.mu.Lock()
	maps.Copy(env, w.spec.MetadataEnv)
	w.mu.Unlock()
	if w.ctr != nil {
		// From 0.3.14 the server refuses a host that is not the loopback
		// (a container's 0.0.0.0) without MC_METADATA_HTTP_TOKEN: a
		// container world runs it open, as before (REAL-FINDINGS §106;
		// older servers ignore the variable).
		env[metadataAllowInsecure] = "1"
	}
	return w.env(env)
}

// metadataRefused reports whether the Python metadata server p exited at
// start refusing its host without a token (0.3.14): an outcome, the
// server down.
func metadataRefused(s *server, p *proc) bool {
	return s.role == "metadata" && p.Exited() && slices.ContainsFunc(p.Recent(), func(l string) bool {
		return strings.Contains(l, "HTTP Metadata Server refuses to bind")
	})
}

// RestartMetadata implements engine.MetadataRestarter: the Python
// metadata server restarts on its port with env over the topology's.
func (w *World) RestartMetadata(ctx context.Context, env map[string]string) error {
	w.mu.Lock()
	s := w.servers["metadata"]
	down := s != nil && s.down
	w.mu.Unlock()
	if s == nil || w.spec.Metadata != "http" {
		return engine.Unsupportedf("real engine: remedy metadata_env: the world has no standalone HTTP metadata server")
	}
	if !down {
		if err := w.stopServer(ctx, s); err != nil {
			return err
		}
	}
	w.mu.Lock()
	w.spec.MetadataEnv = engine.MergeFlags(w.spec.MetadataEnv, env)
	w.mu.Unlock()
	s.spec.Env = w.metadataEnv() // s is down: nothing else reads it now
	return w.startServer(ctx, s)
}

func (w *World) launchClient(ctx context.Context) error {
	if w.ctr != nil && w.spec.Client.VmemHeadroomBytes > 0 {
		return engine.Unsupportedf("topology.mooncake_client.vmem_headroom: the real engine limits mooncake_client's address space only as a process (prlimit), not in a container")
	}
	bin, err := w.l.Binary("mooncake_client")
	if err != nil {
		return err
	}
	ports, err := w.freePorts(1)
	if err != nil {
		return err
	}
	port := ports[0]
	master, err := w.Addr("master")
	if err != nil {
		return err
	}
	meta := "P2PHANDSHAKE"
	if w.spec.Metadata != "P2PHANDSHAKE" {
		if meta, err = w.Addr("metadata"); err != nil {
			return err
		}
	}
	proto := w.spec.Client.Protocol
	if proto == "" {
		proto = "tcp"
	}
	size := w.spec.Client.GlobalSegmentSize
	if size <= 0 {
		size = 4 << 30 // mooncake_client's default "4 GB"
	}
	args := []string{"--host=" + w.dialHost("client"), "--port=" + strconv.Itoa(port), "--master_server_address=" + master,
		"--metadata_server=" + meta, "--protocol=" + proto, "--device_names=" + w.spec.Client.DeviceNames,
		"--global_segment_size=" + strconv.FormatInt(size, 10), "--logtostderr=true"}
	for _, f := range slices.Sorted(maps.Keys(w.spec.Client.Flags)) {
		args = append(args, "--"+f+"="+w.spec.Client.Flags[f])
	}
	dir := ""
	if w.spec.Client.UsesOffloadDir() {
		if dir, err = w.Addr("offload_dir"); err != nil {
			return err
		}
	}
	s := &server{role: "client", ports: map[string]int{"rpc": port},
		spec: procSpec{Name: "mooncake_client", Source: "client", Path: bin, Args: args,
			Env: w.env(w.spec.Client.ClientEnv(dir)), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "client", ShmSize: shmSize(w.spec.Client.ShmBytes)},
		ready: func(ctx context.Context, p *proc) error {
			if p.ctr != nil && w.clientRPCLoopback() {
				return waitTCPInside(ctx, p, port)
			}
			probe, err := w.probeAddr(ctx, p, port)
			if err != nil {
				return err
			}
			if err := waitTCP(ctx, probe, p); err != nil {
				return err
			}
			if h := w.spec.Client.VmemHeadroomBytes; h > 0 {
				limit, err := limitAddressSpace(p.pid, h)
				if err != nil {
					return fmt.Errorf("mooncake_client vmem_headroom: %w", err)
				}
				w.log.Info("real engine: mooncake_client RLIMIT_AS", "pid", p.pid, "limit", limit, "headroom", h)
			}
			return nil
		}}
	return w.startServer(ctx, s)
}

// startServer (re)starts s and waits until it answers.
func (w *World) startServer(ctx context.Context, s *server) error {
	spec := s.spec
	if s.role == "client" { // mooncake_client's transfer engine: a fresh window each start
		spec.Env = w.portWindowEnv(spec.Env)
	}
	p, err := w.startIn(ctx, spec)
	if err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	w.mu.Lock()
	s.p, s.down, s.paused, s.noLib = p, false, false, false
	w.servers[s.role] = s
	w.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, w.e.opts.StartTimeout)
	defer cancel()
	t := time.Now()
	if err := s.ready(rctx, p); err != nil {
		if w.missingLibs() {
			// A container the loader stopped can fail the probe ("no
			// address") a moment before its exit is seen.
			p.waitExit(2 * time.Second)
		}
		if p.Exited() {
			p.drain(time.Second) // its last lines: ld.so's
		}
		if w.loaderDied(p) {
			w.mu.Lock()
			s.down, s.noLib = true, true
			w.mu.Unlock()
			w.log.Debug("real engine: the loader could not start the server", "role", s.role, "lines", p.Recent())
			return w.holdIfDown(ctx, s)
		}
		if metadataRefused(s, p) || w.masterBindFailed(s, p) {
			// The run's outcome, not a launch error: the metadata server
			// refused its host without a token, or mooncake_master aborted
			// on its held metadata port or exited on its held metrics port.
			w.mu.Lock()
			s.down = true
			w.mu.Unlock()
			w.log.Debug("real engine: the server exited at start", "role", s.role, "how", p.ExitDescription(), "lines", p.Recent())
			return w.holdIfDown(ctx, s)
		}
		return fmt.Errorf("real engine: %s %s not ready: %w", s.spec.Name, w.spec.Version, err)
	}
	w.log.Debug("real engine: server ready", "role", s.role, "pid", p.pid, "ports", s.ports, "ms", time.Since(t).Milliseconds())
	return w.reopenLinks(ctx, s)
}

// waitTCP polls until addr accepts a connection, p dies, or ctx ends.
func waitTCP(ctx context.Context, addr string, p *proc) error {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			_ = c.Close()
			return nil
		}
		if err := waitTick(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
	}
}

// clientRPCLoopback: this version's mooncake_client serves its RPC on
// 127.0.0.1 only (mooncake.Profile.RealClientRPCLoopback).
func (w *World) clientRPCLoopback() bool {
	prof, _ := mooncake.ProfileFor(w.spec.Version) // the version was checked at Launch
	return prof.RealClientRPCLoopback
}

// waitTCPInside polls from inside p's container until 127.0.0.1:port
// there accepts a connection (bash's /dev/tcp: every image has bash).
func waitTCPInside(ctx context.Context, p *proc, port int) error {
	probe := []string{"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port)}
	for {
		code, err := p.ctr.Exec(ctx, probe)
		if err == nil && code == 0 {
			return nil
		}
		if err := waitTick(ctx, p); err != nil {
			return fmt.Errorf("127.0.0.1:%d in %s: %w", port, p.ctr.Spec.Name, err)
		}
	}
}

// waitHTTP polls until url gives any HTTP response.
func waitHTTP(ctx context.Context, url string, p *proc) error {
	cl := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := cl.Do(req); err == nil {
			_ = resp.Body.Close()
			return nil
		}
		if err := waitTick(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", url, err)
		}
	}
}

func waitTick(ctx context.Context, p *proc) error {
	select {
	case <-p.exited:
		return p.exitError()
	case <-ctx.Done():
		return fmt.Errorf("%w; last lines: %v", ctx.Err(), p.Recent())
	case <-time.After(50 * time.Millisecond):
		return nil
	}
}

// freePorts reserves n distinct loopback ports for this world until Close
// (netport: a stopped server's port stays ours, so a restart gets it back
// and no parallel world serves on it meanwhile). They lie between
// Mooncake's own port ranges and the kernel's ephemeral range.
func (w *World) freePorts(n int) ([]int, error) {
	ports, err := netport.Take(n)
	if err != nil {
		return nil, fmt.Errorf("real engine: %w", err)
	}
	w.mu.Lock()
	w.ports = append(w.ports, ports...)
	w.mu.Unlock()
	return ports, nil
}

// Clock implements engine.World: Mooncake time is wall time since Launch
// (the real engine runs Mooncake's own timeouts).
func (w *World) Clock() engine.Clock { return wallClock{start: w.start} }

// origin is the world's time zero: the end of Launch (its servers ready),
// or, when the SGLang side prepared its processes first, the moment they
// were ready (restart).
type origin struct {
	mu sync.Mutex
	t  time.Time
}

func newOrigin() *origin { return &origin{t: time.Now()} }

func (o *origin) since() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Since(o.t)
}

// restart makes now time zero; only before faults are armed.
func (o *origin) restart() {
	o.mu.Lock()
	o.t = time.Now()
	o.mu.Unlock()
}

type wallClock struct{ start *origin }

// wallTimer is the scheduler's timer: wall time since the origin.
type wallTimer struct{ start *origin }

func (t wallTimer) Now() time.Duration { return t.start.since() }

func (t wallTimer) At(at time.Duration, _ string, fn func()) func() {
	tm := time.AfterFunc(max(at-t.start.since(), 0), fn)
	return func() { tm.Stop() }
}

func (wallTimer) Virtual() bool { return false }

func (c wallClock) Now() time.Duration { return c.start.since() }

func (c wallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Addr implements engine.World. master and metadata are toxiproxy
// listeners in front of the real servers (so link faults apply); client is
// mooncake_client's own port, because a dummy client derives its IPC socket
// name (@mooncake_client_<port>.sock) from that port and a proxy port would
// name a socket that does not exist.
func (w *World) Addr(role string) (string, error) {
	w.mu.Lock()
	s := w.servers
	w.mu.Unlock()
	switch role {
	case "master":
		if w.spec.Master == nil {
			return "", fmt.Errorf("real engine: the topology has no master")
		}
		if w.spec.Master.HA {
			return "", fmt.Errorf("real engine: topology master.ha: clients find the leader through etcd (etcd://{{etcd}}), there is no one master address")
		}
		return w.inj.Addr("master")
	case "metadata":
		if w.spec.Metadata == "P2PHANDSHAKE" {
			return "", fmt.Errorf("real engine: the topology has no HTTP metadata server (metadata: P2PHANDSHAKE)")
		}
		a, err := w.inj.Addr("metadata")
		if err != nil {
			return "", err
		}
		if w.spec.Metadata == "etcd" {
			return "etcd://" + a, nil
		}
		return "http://" + a + "/metadata", nil
	case "etcd":
		if w.spec.Metadata != "etcd" {
			return "", fmt.Errorf("real engine: role etcd: the topology's metadata is %s, not etcd", w.spec.Metadata)
		}
		return w.inj.Addr("metadata")
	case "client":
		c, ok := s["client"]
		if !ok {
			return "", fmt.Errorf("real engine: the topology has no mooncake_client")
		}
		host := w.dialHost("client")
		if w.clientRPCLoopback() && !(w.ctr != nil && w.spec.Client.OwnPod) {
			// Its RPC service is on 127.0.0.1 only; in containers the
			// drivers share its pod's namespace, as SGLang shares a pod's.
			host = "127.0.0.1"
		}
		return net.JoinHostPort(host, strconv.Itoa(c.ports["rpc"])), nil
	case "master_metrics":
		m, ok := s["master"]
		if !ok {
			return "", fmt.Errorf("real engine: the topology has no master")
		}
		return strconv.Itoa(m.ports["metrics"]), nil
	case "metadata_ipv6":
		m, ok := s["master"]
		if !ok || w.spec.Metadata != "master" || w.spec.Master.HA || w.ctr != nil {
			return "", engine.Unsupportedf("real engine: role metadata_ipv6: the master's embedded metadata server (topology metadata: master) in a process world")
		}
		return "http://" + net.JoinHostPort("::1", strconv.Itoa(m.ports["metadata"])) + "/metadata", nil
	case "master_ipv6":
		m, ok := s["master"]
		if !ok || w.spec.Master.HA || w.ctr != nil {
			return "", engine.Unsupportedf("real engine: role master_ipv6: one master process on this host's loopback")
		}
		// Its own port, not its proxy's: whether [::1] answers is the
		// master's bind address, which a proxy would hide.
		return net.JoinHostPort("::1", strconv.Itoa(m.ports["rpc"])), nil
	case "master_ip":
		// With master.ha, the first master's (the leader at start): a
		// client given it instead of the master view.
		m, ok := s["master"]
		if !ok {
			return "", fmt.Errorf("real engine: role master_ip: the topology has no master")
		}
		// The master's own address, not its proxy's: in a container world
		// its container's address on the network, which a restart changes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		w.mu.Lock()
		p := m.p
		w.mu.Unlock()
		return w.probeAddr(ctx, p, m.ports["rpc"])
	}
	if role == "s3" {
		return w.s3Addr()
	}
	if role == "offload_dir" {
		if w.ctr != nil {
			return "", engine.Unsupportedf("real engine: role offload_dir: a directory of this host, not of a container")
		}
		// Under the world's temp dir: removed with it at Close.
		d := filepath.Join(w.dir, "offload")
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("real engine: offload_dir: %w", err)
		}
		return d, nil
	}
	return "", fmt.Errorf("real engine: unknown role %q (master, metadata, client, master_metrics, master_ip, master_ipv6, metadata_ipv6, offload_dir, s3)", role)
}

// StartProcess implements engine.World: one driver.py = one SGLang process.
func (w *World) StartProcess(ctx context.Context, node string, env map[string]string) (engine.Process, error) {
	p, err := w.launchDriver(ctx, node, env, w.l.Python(), w.drv, nil, nil)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// launchDriver starts a driver script with python on a node (the Mooncake
// venv's driver.py, or the SGLang venv's sglang_driver.py) and registers it
// for Close.
//
// fork, when not nil, forks the process from that fork server (real
// SGLang's, with SGLang imported) instead of starting python.
func (w *World) launchDriver(ctx context.Context, node string, env map[string]string, python, script string, onEvent func([]byte), fork *forkServer) (*Process, error) {
	var spec *engine.NodeSpec
	for i := range w.spec.Nodes {
		if w.spec.Nodes[i].Name == node {
			spec = &w.spec.Nodes[i]
		}
	}
	if err := w.loopbackAcrossContainers(node, env); err != nil {
		return nil, err
	}
	if spec == nil {
		return nil, fmt.Errorf("real engine: no node %q in the topology", node)
	}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("real engine: world closed")
	}
	extra := map[string]string{"PYTHONUNBUFFERED": "1"}
	if spec.MemlockBytes > 0 {
		if hard, ok := memlockHard(); ok && uint64(spec.MemlockBytes) > hard {
			return nil, engine.Unsupportedf("node %s: memlock %d bytes is above this host's RLIMIT_MEMLOCK hard limit (%d bytes); raising it needs CAP_SYS_RESOURCE", node, spec.MemlockBytes, hard)
		}
		// driver.py lowers RLIMIT_MEMLOCK before Mooncake loads, and drops
		// CAP_IPC_LOCK unless the node has it, so a root run obeys the limit.
		extra["FAULTLAB_MEMLOCK_BYTES"] = strconv.FormatInt(spec.MemlockBytes, 10)
		if !spec.CapIPCLock {
			extra["FAULTLAB_DROP_CAP_IPC_LOCK"] = "1"
		}
	}
	if spec.NonRoot {
		// driver.py drops CAP_NET_BIND_SERVICE: root keeps its uid, the
		// kernel refuses binds below 1024 as it does a non-root user's.
		extra["FAULTLAB_DROP_CAP_NET_BIND_SERVICE"] = "1"
	}
	if w.in.Package != "" {
		extra["FAULTLAB_MOONCAKE_PACKAGE"] = w.in.Package
	}
	for k, v := range env {
		extra[k] = v
	}
	d, err := startDriver(ctx, node, procSpec{Name: "driver " + node, Source: "mooncake:" + node, Path: python,
		Args: []string{"-u", script}, Env: w.portWindowEnv(w.env(extra)), Dir: w.dir, Protocol: true, Trace: w.spec.Trace, Logger: w.log, OnEvent: onEvent,
		Role: node, ShmSize: shmSize(spec.ShmBytes), Fork: fork}, w.startIn)
	if err != nil {
		return nil, err
	}
	if want := w.in.RunsVersion(); d.hello.MooncakeVersion != want {
		_ = d.close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("real engine: node %s runs Mooncake %q, want %s", node, d.hello.MooncakeVersion, want)
	}
	p := &Process{node: node, d: d}
	w.mu.Lock()
	w.procs = append(w.procs, p)
	w.mu.Unlock()
	return p, nil
}

// Close implements engine.World: drivers first, then mooncake_client, the
// metadata server, the master, the proxies; then the temp dir. Every
// process group is killed, also after a failure.
func (w *World) Close(ctx context.Context) error {
	// A fault that failed to apply while the run went on is a harness error.
	w.endFaults()
	faultErr := w.Scheduler.Close()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	procs := w.procs
	servers := w.servers
	s3 := w.s3
	w.mu.Unlock()

	var errs []error
	for _, p := range procs {
		if err := p.d.close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, role := range []string{"client", "master", roleMasterStandby, "metadata"} {
		if s, ok := servers[role]; ok && s.p != nil {
			if err := s.p.stop(ctx, 2*time.Second); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if s3 != nil {
		errs = append(errs, s3.close(ctx))
	}
	if err := w.releaseHeldPorts(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := w.inj.Close(); err != nil {
		errs = append(errs, err)
	}
	netport.Release(w.ports...)
	w.releaseWindows()
	if w.ctr != nil {
		errs = append(errs, w.ctr.cw.Close(ctx))
	}
	if err := os.RemoveAll(w.dir); err != nil {
		errs = append(errs, fmt.Errorf("real engine: remove %s: %w", w.dir, err))
	}
	errs = append(errs, faultErr)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("real engine: close: %w", err)
	}
	return nil
}

// Dir is the world's temp dir (removed at Close).
func (w *World) Dir() string { return w.dir }

// PIDs lists the process group leaders the world has started and not yet
// seen exit, for leak checks.
func (w *World) PIDs() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, role := range sortedKeys(w.servers) {
		if p := w.servers[role].p; p != nil && !p.Exited() && p.ctr == nil {
			out = append(out, p.pid)
		}
	}
	for _, p := range w.procs {
		if !p.d.p.Exited() && p.d.p.ctr == nil {
			out = append(out, p.d.p.pid)
		}
	}
	return out
}

// ReplaceMaster implements engine.MasterReplacer: mooncake_master stops
// and that release's binary starts on the same ports (its proxies keep
// their upstream), its state lost.
func (w *World) ReplaceMaster(ctx context.Context, version string, flags, env map[string]string) error {
	w.mu.Lock()
	s := w.servers["master"]
	w.mu.Unlock()
	if s == nil || (w.spec.Master != nil && w.spec.Master.HA) || w.ctr != nil {
		return engine.Unsupportedf("remedy master_version: the real engine replaces one plain mooncake_master process")
	}
	ml, min := w.ml, w.min
	if version != "" {
		var err error
		if ml, min, err = w.e.install(ctx, version); err != nil {
			return fmt.Errorf("real engine: remedy master_version: %w", err)
		}
	}
	if err := w.stopServer(ctx, s); err != nil {
		return err
	}
	w.ml, w.min = ml, min
	w.remedyFlags, w.remedyEnv = flags, env
	ports := []int{s.ports["rpc"], s.ports["metrics"], s.ports["metadata"]}
	if ports[2] == 0 {
		ports[2] = ports[1] // no embedded metadata server: the flag is not passed
	}
	bin, args, _, _, _, err := w.masterArgsOn(ctx, nil, ports)
	if err != nil {
		return err
	}
	w.mu.Lock()
	s.spec.Path, s.spec.Args, s.spec.Env = bin, args, w.masterEnv()
	w.mu.Unlock()
	return w.startServer(ctx, s)
}
