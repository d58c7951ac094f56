package realengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults/schedule"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// World is one running real topology: mooncake_master (with or without
// its embedded HTTP metadata server), a standalone HTTP metadata server or
// none (P2PHANDSHAKE), mooncake_client, a driver process per SGLang
// process, and toxiproxy in front of the master and metadata links.
type World struct {
	e     *Engine
	spec  engine.WorldSpec
	l     Layout
	in    Installed
	log   *slog.Logger
	start time.Time
	dir   string // temp dir: driver.py, anything else we write
	drv   string // driver.py path

	inj *toxiproxy.Injector
	ctr *ctrWorld // container worlds only (incontainers.go)

	mu      sync.Mutex
	servers map[string]*server // "master", "metadata", "client"
	procs   []*Process
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
	ports        map[string]int
	// links are the proxies in front of this server: while it is stopped
	// they refuse too, as the real port would (a proxy with a dead upstream
	// accepts and then resets, which Mooncake logs differently).
	links []string
}

func newWorld(ctx context.Context, e *Engine, spec engine.WorldSpec, l Layout, in Installed) (*World, error) {
	dir, err := os.MkdirTemp("", "faultlab-real-")
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
	w := &World{e: e, spec: spec, l: l, in: in, log: log, start: time.Now(), dir: dir, drv: drv, servers: map[string]*server{}}
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
	w.Scheduler = schedule.New(fctx, injector{w}, wallTimer{start: w.start}, spec.Trace)
	if spec.Trace != nil {
		spec.Trace.SetClock(w.Clock().Now)
	}
	return w, nil
}

// env is the environment of a Mooncake process: the base, the install's
// library path fixes, then extra.
func (w *World) env(extra map[string]string) []string {
	set := map[string]string{}
	if p := w.in.LDLibraryPath(os.Getenv("LD_LIBRARY_PATH")); p != "" {
		set["LD_LIBRARY_PATH"] = p
	}
	for k, v := range extra {
		set[k] = v
	}
	return mergeEnv(baseEnv(), set)
}

// reserved flags are the engine's: ports and bind addresses.
var reservedMasterFlags = []string{"port", "rpc_port", "rpc_address", "metrics_port", "metrics_host",
	"enable_http_metadata_server", "http_metadata_server_port", "http_metadata_server_host"}

func (w *World) launch(ctx context.Context) error {
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
	bin, err := w.l.Binary("mooncake_master")
	if err != nil {
		return err
	}
	known, err := w.e.masterFlags(ctx, w.l, w.in)
	if err != nil {
		return err
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	rpc, metrics, meta := ports[0], ports[1], ports[2]
	flags := map[string]string{
		"rpc_port":     strconv.Itoa(rpc),
		"rpc_address":  w.bindHost(),
		"metrics_port": strconv.Itoa(metrics),
		"logtostderr":  "true",
	}
	if known["metrics_host"] {
		flags["metrics_host"] = w.bindHost()
	}
	if w.spec.Metadata == "master" {
		flags["enable_http_metadata_server"] = "true"
		flags["http_metadata_server_port"] = strconv.Itoa(meta)
		flags["http_metadata_server_host"] = w.bindHost()
	}
	for _, k := range sortedKeys(w.spec.Master.Flags) {
		if slices.Contains(reservedMasterFlags, k) {
			return fmt.Errorf("real engine: master flag --%s is set by the engine (ports and bind addresses are picked per run)", k)
		}
		if !known[k] {
			return engine.Unsupportedf("mooncake_master %s has no flag --%s", w.spec.Version, k)
		}
		flags[k] = w.spec.Master.Flags[k]
	}
	var args []string
	for _, k := range sortedKeys(flags) {
		args = append(args, "--"+k+"="+flags[k])
	}
	rpcAddr := net.JoinHostPort(w.dialHost("master"), strconv.Itoa(rpc))
	s := &server{role: "master", ports: map[string]int{"rpc": rpc, "metrics": metrics},
		spec: procSpec{Name: "mooncake_master", Source: "master", Path: bin, Args: args, Env: w.env(nil), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "master"},
		ready: func(ctx context.Context, p *proc) error {
			probe, err := w.probeAddr(ctx, p, rpc)
			if err != nil {
				return err
			}
			if err := waitTCP(ctx, probe, p); err != nil {
				return err
			}
			if w.spec.Metadata == "master" {
				probe, err := w.probeAddr(ctx, p, meta)
				if err != nil {
					return err
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
	return nil
}

func (w *World) launchMetadata(ctx context.Context) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	port := ports[0]
	addr := net.JoinHostPort(w.dialHost("metadata"), strconv.Itoa(port))
	// The wheel's aiohttp server; it has no /health, any HTTP answer means up.
	s := &server{role: "metadata", ports: map[string]int{"http": port},
		spec: procSpec{Name: "mooncake_http_metadata_server", Source: "metadata", Path: w.l.Python(),
			Args: []string{"-m", "mooncake.http_metadata_server", "--port", strconv.Itoa(port), "--host", w.bindHost()},
			Env:  w.env(map[string]string{"PYTHONUNBUFFERED": "1"}), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "metadata"},
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
	return nil
}

func (w *World) launchClient(ctx context.Context) error {
	bin, err := w.l.Binary("mooncake_client")
	if err != nil {
		return err
	}
	ports, err := freePorts(1)
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
	s := &server{role: "client", ports: map[string]int{"rpc": port},
		spec: procSpec{Name: "mooncake_client", Source: "client", Path: bin,
			Args: []string{"--host=" + w.dialHost("client"), "--port=" + strconv.Itoa(port), "--master_server_address=" + master,
				"--metadata_server=" + meta, "--protocol=" + proto, "--device_names=" + w.spec.Client.DeviceNames,
				"--global_segment_size=" + strconv.FormatInt(size, 10), "--logtostderr=true"},
			Env: w.env(nil), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: "client", ShmSize: containerShm},
		ready: func(ctx context.Context, p *proc) error {
			probe, err := w.probeAddr(ctx, p, port)
			if err != nil {
				return err
			}
			return waitTCP(ctx, probe, p)
		}}
	return w.startServer(ctx, s)
}

// startServer (re)starts s and waits until it answers.
func (w *World) startServer(ctx context.Context, s *server) error {
	p, err := w.startIn(ctx, s.spec)
	if err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	w.mu.Lock()
	s.p, s.down, s.paused = p, false, false
	w.servers[s.role] = s
	w.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, w.e.opts.StartTimeout)
	defer cancel()
	t := time.Now()
	if err := s.ready(rctx, p); err != nil {
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
		return fmt.Errorf("process exited (%s); last lines: %v", p.ExitDescription(), p.Recent())
	case <-ctx.Done():
		return fmt.Errorf("%w; last lines: %v", ctx.Err(), p.Recent())
	case <-time.After(50 * time.Millisecond):
		return nil
	}
}

// freePorts reserves n distinct loopback ports by binding :0 together and
// releasing them (they come from the kernel's ephemeral range, away from
// Mooncake's 12300-14300 auto-port range and its TE ports).
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("real engine: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Clock implements engine.World: Mooncake time is wall time since Launch
// (the real engine runs Mooncake's own timeouts).
func (w *World) Clock() engine.Clock { return wallClock{start: w.start} }

type wallClock struct{ start time.Time }

// wallTimer is the scheduler's timer: wall time since Launch.
type wallTimer struct{ start time.Time }

func (t wallTimer) Now() time.Duration { return time.Since(t.start) }

func (t wallTimer) At(at time.Duration, _ string, fn func()) func() {
	tm := time.AfterFunc(max(at-time.Since(t.start), 0), fn)
	return func() { tm.Stop() }
}

func (wallTimer) Virtual() bool { return false }

func (c wallClock) Now() time.Duration { return time.Since(c.start) }

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
		return net.JoinHostPort(w.dialHost("client"), strconv.Itoa(c.ports["rpc"])), nil
	case "master_metrics":
		m, ok := s["master"]
		if !ok {
			return "", fmt.Errorf("real engine: the topology has no master")
		}
		return strconv.Itoa(m.ports["metrics"]), nil
	}
	return "", fmt.Errorf("real engine: unknown role %q (master, metadata, client, master_metrics)", role)
}

// StartProcess implements engine.World: one driver.py = one SGLang process.
func (w *World) StartProcess(ctx context.Context, node string, env map[string]string) (engine.Process, error) {
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
		// driver.py lowers RLIMIT_MEMLOCK before Mooncake loads, and drops
		// CAP_IPC_LOCK unless the node has it, so a root run obeys the limit.
		extra["FAULTLAB_MEMLOCK_BYTES"] = strconv.FormatInt(spec.MemlockBytes, 10)
		if !spec.CapIPCLock {
			extra["FAULTLAB_DROP_CAP_IPC_LOCK"] = "1"
		}
	}
	for k, v := range env {
		extra[k] = v
	}
	d, err := startDriver(ctx, node, procSpec{Name: "driver " + node, Source: "mooncake:" + node, Path: w.l.Python(),
		Args: []string{"-u", w.drv}, Env: w.env(extra), Dir: w.dir, Protocol: true, Trace: w.spec.Trace, Logger: w.log,
		Role: node, ShmSize: containerShm}, w.startIn)
	if err != nil {
		return nil, err
	}
	if d.hello.MooncakeVersion != w.spec.Version {
		_ = d.close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("real engine: node %s runs Mooncake %q, want %s", node, d.hello.MooncakeVersion, w.spec.Version)
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
	w.mu.Unlock()

	var errs []error
	for _, p := range procs {
		if err := p.d.close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, role := range []string{"client", "metadata", "master"} {
		if s, ok := servers[role]; ok && s.p != nil {
			if err := s.p.stop(ctx, 2*time.Second); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := w.inj.Close(); err != nil {
		errs = append(errs, err)
	}
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
