// Package sim is faultlab's deterministic engine: the Mooncake models
// (master, transfer engine, host memory, network, clients) driven by one
// discrete-event kernel in virtual time. Store calls run the client model
// synchronously; waits advance the virtual clock and fire due events
// (faults, heartbeats) in (time, sequence) order. Nothing reads the wall
// clock; every random choice comes from a stream derived from the seed.
package sim

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults/schedule"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/client"
	"github.com/mooncake-faultlab/faultlab/sim/hostmem"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/sim/master"
	"github.com/mooncake-faultlab/faultlab/sim/metadata"
	"github.com/mooncake-faultlab/faultlab/sim/mlog"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
	"github.com/mooncake-faultlab/faultlab/sim/te"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Logical addresses of the world's servers.
const (
	MasterAddr        = "127.0.0.1:50051"
	MetadataURL       = "http://127.0.0.1:8080/metadata"
	ClientAddr        = "127.0.0.1:50052"
	MasterMetricsPort = "9003"
	// ClientNode is the host mooncake_client runs on.
	ClientNode = "client"
)

// Name is the engine's CLI name.
const Name = "sim"

func init() {
	engine.Register(engine.Registration{Name: Name,
		Doc: "the Mooncake models in virtual time: deterministic, milliseconds per scenario",
		New: func(*slog.Logger) engine.Engine { return New() }})
}

// Engine is the sim engine.
type Engine struct{}

// New returns the sim engine.
func New() engine.Engine { return Engine{} }

// Name implements engine.Engine.
func (Engine) Name() string { return Name }

// Available implements engine.Engine: every known version.
func (Engine) Available(_ context.Context, version string) error {
	_, err := mooncake.ProfileFor(version)
	return err
}

// Launch implements engine.Engine.
func (Engine) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	return Launch(ctx, spec)
}

type endpointReg struct {
	name string
	node string
	mem  *hostmem.Space
}

// World is one simulated topology.
type World struct {
	spec    engine.WorldSpec
	profile mooncake.Profile
	k       *kernel.Kernel
	tr      *trace.Trace
	net     *netsim.Net
	nodes   []engine.NodeSpec

	masterCfg   master.Config
	master      *master.Master
	masterState procState
	masterAddr  string

	metadata      *metadata.Server // standalone (spec "http") or embedded ("master")
	metadataState procState

	standalone  *client.Standalone
	clientState procState
	clientAddr  string

	ports     map[string]bool
	endpoints []endpointReg
	sched     *schedule.Scheduler
	procs     int
	beats     []*heartbeat
	closed    bool
}

// Launch builds a world at virtual time 0.
func Launch(ctx context.Context, spec engine.WorldSpec) (*World, error) {
	v := spec.Version
	if v == "" {
		v = mooncake.Latest
	}
	p, err := mooncake.ProfileFor(v)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	k := kernel.New(spec.Seed)
	tr := spec.Trace
	if tr == nil {
		tr = trace.New(nil)
	}
	tr.SetClock(k.Now)
	w := &World{
		spec: spec, profile: p, k: k, tr: tr, net: netsim.New(k.Stream("netsim")),
		nodes: spec.Nodes, masterAddr: MasterAddr, clientAddr: ClientAddr,
		masterState: stopped, metadataState: stopped, clientState: stopped, ports: map[string]bool{},
	}
	w.sched = schedule.New(context.Background(), injector{w}, kernel.Timer{K: k}, tr)
	if spec.Master != nil {
		w.masterCfg, err = master.ConfigFor(p, spec.Master.Flags)
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		w.startMaster()
	}
	switch spec.Metadata {
	case "", te.P2PHandshake:
	case "http":
		w.metadata, w.metadataState = metadata.New(false), running
	case "master":
		if spec.Master == nil {
			return nil, fmt.Errorf("sim: metadata %q needs a master", spec.Metadata)
		}
	default:
		return nil, fmt.Errorf("sim: metadata %q: want P2PHANDSHAKE, http or master", spec.Metadata)
	}
	if spec.Client != nil {
		if !p.DummyClient {
			return nil, engine.Unsupportedf("mooncake_client does not exist in Mooncake %s (0.3.8+)", p.Version)
		}
		w.startStandalone(ctx)
	}
	return w, nil
}

func (w *World) startMaster() {
	w.master = master.New(w.masterCfg, w.k, mlog.Trace{T: w.tr, Source: "master"}, w.k.Stream(fmt.Sprintf("master#%d", w.k.Fired())))
	w.masterState = running
	if w.spec.Metadata == "master" {
		// The embedded server's store lives in the master process.
		w.metadata, w.metadataState = metadata.New(w.profile.MetadataSameValueOK), running
	}
}

func (w *World) metadataURL() string {
	if w.spec.Metadata == "http" || w.spec.Metadata == "master" {
		return MetadataURL
	}
	return te.P2PHandshake
}

func (w *World) startStandalone(ctx context.Context) {
	d := w.deps(ClientNode, nil, "client", hostmem.New(w.profile, 0), fmt.Sprintf("mooncake_client@%d", w.k.Now()))
	cs := w.spec.Client
	proto := cs.Protocol
	if proto == "" {
		proto = "tcp"
	}
	seg := cs.GlobalSegmentSize
	if seg == 0 {
		seg = 4 << 30
	}
	sa, err := client.StartStandalone(ctx, d, client.StandaloneSpec{
		Host: "127.0.0.1", Port: "50052", MetadataServer: w.metadataURL(), MasterServerAddress: w.masterAddr,
		Protocol: proto, GlobalSegmentSize: seg,
	})
	if err != nil {
		w.tr.Record("client", "log", mlog.Fatal, "mooncake_client exited: "+err.Error())
		w.standalone, w.clientState = nil, stopped
		return
	}
	w.standalone, w.clientState = sa, running
	w.register(sa.RealClient, ClientNode, d.Mem)
	w.watch(sa.RealClient, nil)
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
	host.Name = node
	return client.Deps{
		Node: node, Host: host, Profile: w.profile, Clock: clock,
		Log: mlog.Trace{T: w.tr, Source: source}, Env: env, Rand: w.k.Stream(stream), Mem: mem,
		Master:   masterTransport{w: w, from: node, clock: clock},
		Metadata: metadataHTTP{w: w, from: node, clock: clock},
		Ports:    portBinder{w: w, node: node},
		Data:     dataPath{w: w, from: node, clock: clock},
		Clients:  clientTransport{w: w, from: node, clock: clock},
	}
}

// metadataFor resolves an HTTP metadata host:port.
func (w *World) metadataFor(hostport, _ string) (*metadata.Server, procState) {
	u := strings.TrimPrefix(MetadataURL, "http://")
	u = u[:strings.Index(u, "/")]
	if w.metadata == nil || !sameAddr(hostport, u) {
		return nil, stopped
	}
	st := w.metadataState
	if w.spec.Metadata == "master" {
		st = w.masterState
	}
	return w.metadata, st
}

// register records a client's TE endpoint for the data path.
func (w *World) register(c *client.RealClient, node string, mem *hostmem.Space) {
	eng := c.Engine()
	if eng == nil {
		return
	}
	name := eng.ServerName()
	if name == "" {
		return
	}
	for _, e := range w.endpoints {
		if e.name == name && e.node == node && e.mem == mem {
			return
		}
	}
	w.endpoints = append(w.endpoints, endpointReg{name: name, node: node, mem: mem})
	// Segments are named by local_hostname; replicas carry TEEndpoint.
}

// endpoint finds an endpoint, preferring the caller's node.
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
		if found == nil {
			found = e
		}
	}
	return found
}

// Clock implements engine.World.
func (w *World) Clock() engine.Clock { return kernel.Clock{K: w.k} }

// Kernel exposes the kernel (tests, benchmarks).
func (w *World) Kernel() *kernel.Kernel { return w.k }

// Master exposes the master model (nil when stopped or absent).
func (w *World) Master() *master.Master {
	if w.masterState == stopped {
		return nil
	}
	return w.master
}

// Addr implements engine.World.
func (w *World) Addr(role string) (string, error) {
	switch role {
	case "master":
		return MasterAddr, nil
	case "metadata":
		if w.spec.Metadata == "http" || w.spec.Metadata == "master" {
			return MetadataURL, nil
		}
		return te.P2PHandshake, nil
	case "client":
		return ClientAddr, nil
	case "master_metrics":
		return MasterMetricsPort, nil
	}
	return "", fmt.Errorf("sim: unknown role %q: want master, metadata, client or master_metrics", role)
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
	var huge int64
	for _, n := range w.nodes {
		if n.Name == node {
			huge = n.HugepagesBytes
		}
	}
	w.procs++
	e := make(map[string]string, len(env))
	for k, v := range env {
		e[k] = v
	}
	return &Process{w: w, node: node, id: w.procs, env: e, mem: hostmem.New(w.profile, huge)}, nil
}

// Close implements engine.World.
func (w *World) Close(context.Context) error {
	w.closed = true
	for _, b := range w.beats {
		if b.ev != nil {
			b.ev.Cancel()
		}
	}
	return w.sched.Close()
}

// heartbeat drives one client's ping thread as kernel events.
type heartbeat struct {
	rc *client.RealClient
	dc *client.DummyClient
	ev *kernel.Event
}

// watch schedules heartbeats for a client whose ping thread runs.
func (w *World) watch(rc *client.RealClient, dc *client.DummyClient) {
	for _, b := range w.beats {
		if (rc != nil && b.rc == rc) || (dc != nil && b.dc == dc) {
			w.reschedule(b)
			return
		}
	}
	b := &heartbeat{rc: rc, dc: dc}
	w.beats = append(w.beats, b)
	w.reschedule(b)
}

func (w *World) reschedule(b *heartbeat) {
	if b.ev != nil || w.closed {
		return
	}
	switch {
	case b.rc != nil && b.rc.Pinging():
		// The ping thread pings at once when it starts.
		b.ev = w.k.After(0, "heartbeat", func() { w.beat(b) })
	case b.dc != nil && b.dc.Pinging():
		b.ev = w.k.After(client.PingInterval, "dummy heartbeat", func() { w.beat(b) })
	}
}

func (w *World) beat(b *heartbeat) {
	b.ev = nil
	ctx := context.Background()
	if b.rc != nil {
		if !b.rc.Pinging() {
			return
		}
		dc := &detachedClock{base: w.k.Now}
		node := b.rc.Node()
		stub := masterTransport{w: w, from: node, clock: dc}.Master(b.rc.MasterAddr(), b.rc.Timeouts())
		wait := b.rc.Heartbeat(ctx, stub)
		b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
		return
	}
	if !b.dc.Pinging() {
		return
	}
	b.dc.Heartbeat(ctx)
	b.ev = w.k.After(client.PingInterval, "dummy heartbeat", func() { w.beat(b) })
}

var _ engine.World = (*World)(nil)
