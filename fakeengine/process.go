package fakeengine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

// Process is one SGLang process on a node: its address space and the
// client models it created. Its heartbeats run on goroutines that stop
// with Close.
type Process struct {
	w    *World
	id   int
	node string
	spec engine.NodeSpec
	env  map[string]string
	mem  *hostmem.Space // guarded by w.gate
	seq  int
	// logSource is the trace source of its Mooncake log (set by deps).
	logSource atomic.Value

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	stores []*Store
	dead   error // set (under the gate) once the process died in a Mooncake call
	// imported: mooncake.store was imported (guarded by w.gate).
	imported bool
	// etcdIdle: its store etcd client's GOAWAY is scheduled (guarded by
	// w.gate; etcdkeepalive.go).
	etcdIdle bool
}

// importStore is `from mooncake.store import …` (sim's Process.importStore),
// under the gate.
func (p *Process) importStore() error {
	if p.imported {
		return nil
	}
	p.imported = true
	if err := client.LoadGlobalConfig(p.w.profile, p.env, mlog.Trace{T: p.w.trace, Source: "mooncake:" + p.node, Min: mlog.MinLevel(p.env)}); err != nil {
		p.dead = err
		return err
	}
	return nil
}

// StartProcess implements engine.World.
func (w *World) StartProcess(ctx context.Context, node string, env map[string]string) (engine.Process, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, fmt.Errorf("fake engine: start process on %s: world closed", node)
	}
	var spec *engine.NodeSpec
	for i := range w.spec.Nodes {
		if w.spec.Nodes[i].Name == node {
			spec = &w.spec.Nodes[i]
		}
	}
	if spec == nil {
		return nil, fmt.Errorf("fake engine: no node %q in the topology", node)
	}
	if err := w.defaultHostnameAcrossPods(node, env); err != nil {
		return nil, err
	}
	return w.newProcessLocked(*spec, env), nil
}

func (w *World) newProcessLocked(spec engine.NodeSpec, env map[string]string) *Process {
	id := 0 // mooncake_client is not an SGLang process: it takes no pid
	if spec.Name != clientNode {
		w.nextPID++
		id = w.nextPID
	}
	p := &Process{w: w, id: id, node: spec.Name, spec: spec, env: maps.Clone(env), mem: hostmem.New(w.profile, spec.HugepagesBytes).WithRAM(spec.RAMBytes).WithGPU(spec.GPU != nil)}
	p.ctx, p.cancel = context.WithCancel(w.ctx)
	w.procs = append(w.procs, p)
	return p
}

// Node implements engine.Process.
func (p *Process) Node() string { return p.node }

// deps wires a client model to this process and the world's sockets. Log
// source and RNG stream are named as sim names them, so both engines draw
// the same auto-port choices.
func (p *Process) deps(source, stream string) client.Deps {
	n := nodeNet{w: p.w, node: p.node, proc: p}
	host := te.HostFromSpec(p.spec)
	host.Name = p.node
	host.RDMAFaults = p.w.rdma.Node(p.node)
	p.logSource.Store(source)
	host.Peer = func(endpoint string) (te.Peer, bool) {
		p.w.netMu.Lock()
		owner, ok := p.w.endpointOwnerLocked(p.node, endpoint)
		eng := p.w.engines[endpoint]
		p.w.netMu.Unlock()
		if !ok {
			return te.Peer{}, false
		}
		return te.Peer{RDMA: owner.spec.RDMA, Log: mlog.Trace{T: p.w.trace, Source: fmt.Sprint(owner.logSource.Load())},
			NoNameListener: eng != nil && !eng.ListensAtName()}, true
	}
	return client.Deps{
		Node: p.node, Host: host, Profile: p.w.profile,
		Clock: modelClock{start: p.w.start, s: p.w.scale, g: &p.w.gate, st: &p.w.stalls},
		Log:   mlog.Trace{T: p.w.trace, Source: source, Min: mlog.MinLevel(p.env)},
		Env:   p.env,
		Rand:  rng.Stream(p.w.spec.Seed, stream),
		// findAvailableTcpPort's random RPC port, drawn as sim draws it:
		// two processes on one host get endpoints of their own.
		PortRand: rng.Stream(p.w.spec.Seed, stream+"/rpc_port"),
		Mem:      p.mem,
		Master:   n, Metadata: n, Etcd: etcdClient{n: n}, Ports: portBinder{p: p}, Data: dataPath{n: n}, Clients: n,
		Remount: p.remount, WaitMountLock: p.waitMountLock, StoreEtcdIdle: p.storeEtcdIdle,
	}
}

// remount runs a ping thread's remount_segment on a goroutine of its own
// (std::async in client_service.cpp): the ping thread goes on pinging
// while the remount waits on the master and the metadata service.
func (p *Process) remount(c *client.RealClient, steps []client.RemountStep) {
	p.wg.Add(1) // the calling heartbeat goroutine is counted: never from zero
	go func() {
		defer p.wg.Done()
		p.w.gate.Lock()
		defer p.w.gate.Unlock()
		for _, step := range steps {
			if p.ctx.Err() != nil {
				break
			}
			step(p.ctx, c.Transport().Master(c.MasterAddr(), c.Timeouts()))
		}
		c.RemountDone()
	}()
}

// heartbeat is a store's ping thread as ~Client sees it, under the world
// gate: busy while an iteration runs (its RPCs release the gate), stopped
// once joined.
type heartbeat struct{ busy, stopped bool }

// joinPing is ~Client's join of the ping thread before it unmounts: the
// thread ends the iteration it is in, then waits for its remount thread.
// Unjoined, a remount begun before close (a ping answered NEED_REMOUNT)
// reached the master after the unmount and mounted the closed store's
// segment again; a later put was placed there and failed (-800,
// io/duplicate-key-put's remedy on a loaded machine).
func (p *Process) joinPing(ctx context.Context, hb *heartbeat, c *client.RealClient) error {
	hb.stopped = true
	for hb.busy || c.MountLocked() {
		var err error
		p.w.gate.wait(func() { err = sleepWall(ctx, idlePoll) })
		if err != nil {
			return fmt.Errorf("fake engine: joining the ping thread: %w", err)
		}
	}
	return nil
}

// waitMountLock: a foreground call waits, the gate released, while c's
// remount holds mounted_segments_mutex_.
func (p *Process) waitMountLock(ctx context.Context, c *client.RealClient) error {
	for c.MountLocked() {
		var err error
		p.w.gate.wait(func() { err = sleepWall(ctx, idlePoll) })
		if err != nil {
			return fmt.Errorf("fake engine: waiting for the remount's lock: %w", err)
		}
	}
	return nil
}

// NewStore implements engine.Process: MooncakeDistributedStore().
func (p *Process) NewStore(ctx context.Context) (engine.Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fake engine: new store: %w", err)
	}
	p.w.gate.Lock()
	if p.dead != nil {
		p.w.gate.Unlock()
		return nil, p.dead
	}
	p.seq++
	d := p.deps("mooncake:"+p.node, fmt.Sprintf("proc:%s#%d/store#%d", p.node, p.id, p.seq))
	hb := &heartbeat{}
	d.JoinPing = func(ctx context.Context, c *client.RealClient) error { return p.joinPing(ctx, hb, c) }
	if err := p.importStore(); err != nil {
		p.w.gate.Unlock()
		return nil, err
	}
	var kick func()
	s := client.NewStore(d, fmt.Sprintf("%s#%d/%d", p.node, p.id, p.seq), p.hooks(&kick))
	p.w.gate.Unlock()
	p.mu.Lock()
	p.stores = append(p.stores, s)
	p.mu.Unlock()
	kick = p.beat(hb, func(ctx context.Context) time.Duration {
		if dc := s.Dummy(); dc != nil {
			if !dc.Pinging() || p.dead != nil {
				return 0
			}
			dc.Heartbeat(ctx)
			return dummyPingInterval
		}
		if !s.Real().Pinging() || p.dead != nil {
			return 0
		}
		return s.Real().Heartbeat(ctx, nil)
	})
	return s, nil
}

// idlePoll is how often (wall time) an idle heartbeat goroutine looks
// whether its ping thread has started, besides being kicked.
const idlePoll = 5 * time.Millisecond

// dummyPingInterval is DummyClient::ping_thread_main's period.
const dummyPingInterval = time.Second

// beat drives a model's heartbeat thread in wall time until the process
// stops: one iteration under the gate, then the sleep it asks for, scaled.
// An iteration that returns 0 means "not running (yet)": look again soon,
// since a ping thread pings at once when it starts.
//
// The returned function wakes an idle loop at once: a store calls it after
// every foreground call, so a ping thread that call started pings
// immediately, as in Mooncake (and sim).
func (p *Process) beat(hb *heartbeat, iter func(ctx context.Context) time.Duration) (kick func()) {
	wake := make(chan struct{}, 1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ctx := p.ctx
		for ctx.Err() == nil {
			p.w.gate.Lock()
			if hb.stopped {
				p.w.gate.Unlock()
				return
			}
			hb.busy = true
			d := iter(ctx)
			hb.busy = false
			p.w.gate.Unlock()
			// Heartbeats keep their period precisely (a ping's phase decides
			// when a dead master is noticed); idle polling need not.
			var err error
			if d == 0 {
				t := time.NewTimer(idlePoll)
				select {
				case <-t.C:
				case <-wake:
				case <-ctx.Done():
					err = ctx.Err()
				}
				t.Stop()
			} else {
				err = sleepWall(ctx, p.w.scale.wall(d))
			}
			if err != nil {
				return
			}
		}
	}()
	return func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// Alloc implements engine.Process.
func (p *Process) Alloc(ctx context.Context, allocator string, size int64) (engine.Buffer, error) {
	if err := ctx.Err(); err != nil {
		return engine.Buffer{}, fmt.Errorf("fake engine: alloc: %w", err)
	}
	p.w.gate.Lock()
	defer p.w.gate.Unlock()
	if p.dead != nil {
		return engine.Buffer{}, p.dead
	}
	if allocator == engine.AllocMooncakeShm {
		if err := p.importStore(); err != nil {
			return engine.Buffer{}, err
		}
	}
	b, err := p.mem.Alloc(allocator, size)
	if err != nil {
		// The same exceptions as sim (a hugepage pool too small was a harness
		// error here; found by faultlab explore --engine sim,fake, seed 10).
		if pe := hostmem.PyAllocError(allocator, err); pe != nil {
			if d, ok := engine.AsProcessDied(pe); ok {
				p.dead = d // the OOM killer took the process
			}
			return b, pe
		}
		return b, fmt.Errorf("fake engine: alloc %s on %s: %w", allocator, p.node, err)
	}
	return b, nil
}

// Close implements engine.Process: the process exits; its heartbeats stop
// and its ports are freed.
func (p *Process) Close(ctx context.Context) error {
	p.stop()
	return nil
}

func (p *Process) stop() {
	p.cancel()
	p.wg.Wait()
	p.w.netMu.Lock()
	for k, b := range p.w.ports {
		if b.p == p {
			delete(p.w.ports, k)
		}
	}
	p.w.netMu.Unlock()
}

// Store is engine.Store over the models/client models (client.Store). Every
// call holds the world gate, released while the model waits on a socket or
// sleeps.
type Store = client.Store

// hooks run around every call of a store of this process; kick wakes the
// store's heartbeat loop once the call returns.
func (p *Process) hooks(kick *func()) client.StoreHooks {
	return client.StoreHooks{
		Enter: func() (func(), error) {
			p.w.gate.Lock()
			exit := func() {
				p.w.gate.Unlock()
				if *kick != nil {
					(*kick)()
				}
			}
			return exit, p.dead
		},
		// A process death: the SGLang process is gone, every later call on
		// it fails the same way (the gate is held).
		After: func(s *Store, err error) error {
			if d, ok := engine.AsProcessDied(err); ok {
				p.dead = d
			}
			if err == nil {
				p.w.nameEndpoint(s.Real(), p)
			}
			return err
		},
	}
}

// portBinder is te.PortBinder: each node has its own port table (keyed
// node/port, as in sim; nothing binds a real socket — the data endpoint is
// the node's transfer server), so two clients on one node cannot take the
// same port.
type portBinder struct{ p *Process }

func (b portBinder) Bind(ctx context.Context, host string, port int) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bind %s:%d: %w", host, port, err)
	}
	key := b.p.node + "/" + strconv.Itoa(port)
	w := b.p.w
	w.netMu.Lock()
	defer w.netMu.Unlock()
	if _, taken := w.ports[key]; taken || w.held[port] {
		return nil, fmt.Errorf("bind %s:%d: Address already in use", host, port)
	}
	bd := &binding{p: b.p, host: host}
	w.ports[key] = bd
	return func() {
		w.netMu.Lock()
		defer w.netMu.Unlock()
		if w.ports[key] == bd {
			delete(w.ports, key)
		}
	}, nil
}

// binding is one bound port: its process and the host name it was bound as.
type binding struct {
	p    *Process
	host string
}

// endpointOwnerLocked finds the process behind a TE endpoint (host:port):
// a binding whose host matches the endpoint's wins over one that only
// shares the port, then the caller's node, then nodes in name order.
// Caller holds w.netMu.
func (w *World) endpointOwnerLocked(from, endpoint string) (*Process, bool) {
	host, port, ok := cutHostPort(endpoint)
	if !ok {
		return nil, false
	}
	var best *binding
	score := -1
	for _, k := range sortedKeys(w.ports) {
		node, pt, _ := strings.Cut(k, "/")
		if pt != port {
			continue
		}
		b := w.ports[k]
		sc := 0
		if b.host == host {
			sc += 2
		}
		if node == from {
			sc++
		}
		if sc > score {
			best, score = b, sc
		}
	}
	if best == nil {
		// A TE named by local_hostname with an explicit port listens on
		// another port; its peers find it by name (rpc_meta).
		p, ok := w.names[endpoint]
		return p, ok
	}
	return best.p, true
}

// SetGPU implements engine.GPUChanger: processes started afterwards see
// the node's new GPU setup (a remedy's gpus: modprobe nvidia_peermem).
func (w *World) SetGPU(_ context.Context, node string, gpu engine.GPUSpec) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	nodes := slices.Clone(w.spec.Nodes) // the spec's slice is the runner's
	for i := range nodes {
		if nodes[i].Name == node {
			nodes[i].GPU = &gpu
			w.spec.Nodes = nodes
			return nil
		}
	}
	return fmt.Errorf("fake engine: remedy gpus: no node %q in the topology", node)
}
