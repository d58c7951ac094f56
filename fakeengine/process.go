package fakeengine

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim/client"
	"github.com/mooncake-faultlab/faultlab/sim/hostmem"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/sim/mlog"
	"github.com/mooncake-faultlab/faultlab/sim/te"
)

// Process is one SGLang process on a node: its address space and the
// client models it created. Its heartbeats run on goroutines that stop
// with Close.
type Process struct {
	w    *World
	node string
	spec engine.NodeSpec
	env  map[string]string
	mem  *hostmem.Space // guarded by w.gate
	seq  int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	stores []*RealStore
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
	p := &Process{w: w, node: node, spec: *spec, env: maps.Clone(env), mem: hostmem.New(w.profile, spec.HugepagesBytes)}
	p.ctx, p.cancel = context.WithCancel(w.ctx)
	w.procs = append(w.procs, p)
	return p, nil
}

// Node implements engine.Process.
func (p *Process) Node() string { return p.node }

// deps wires a client model to this process and the world's sockets.
func (p *Process) deps() client.Deps {
	p.seq++
	n := nodeNet{w: p.w, node: p.node}
	return client.Deps{
		Node: p.node, Host: te.HostFromSpec(p.spec), Profile: p.w.profile,
		Clock:  modelClock{start: p.w.start, s: p.w.scale, g: &p.w.gate},
		Log:    mlog.Trace{T: p.w.trace, Source: "mooncake:" + p.node},
		Env:    p.env,
		Rand:   kernel.Stream(p.w.spec.Seed, "client:"+p.node+"#"+strconv.Itoa(p.seq)),
		Mem:    p.mem,
		Master: n, Metadata: n, Ports: portBinder{p: p}, Data: dataPath{n: n},
	}
}

// NewStore implements engine.Process: MooncakeDistributedStore().
func (p *Process) NewStore(ctx context.Context) (engine.Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fake engine: new store: %w", err)
	}
	p.w.gate.Lock()
	c := client.NewRealClient(p.deps())
	p.w.gate.Unlock()
	s := &RealStore{p: p, c: c}
	p.mu.Lock()
	p.stores = append(p.stores, s)
	p.mu.Unlock()
	p.wg.Add(1)
	go s.heartbeat()
	return s, nil
}

// Alloc implements engine.Process.
func (p *Process) Alloc(ctx context.Context, allocator string, size int64) (engine.Buffer, error) {
	if err := ctx.Err(); err != nil {
		return engine.Buffer{}, fmt.Errorf("fake engine: alloc: %w", err)
	}
	p.w.gate.Lock()
	defer p.w.gate.Unlock()
	return p.mem.Alloc(allocator, size)
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
	p.w.mu.Lock()
	for k, owner := range p.w.ports {
		if owner == p {
			delete(p.w.ports, k)
		}
	}
	p.w.mu.Unlock()
}

// RealStore is engine.Store over sim/client.RealClient: every call holds
// the world gate (released while the model waits on a socket or sleeps).
type RealStore struct {
	p *Process
	c *client.RealClient
}

var _ engine.Store = (*RealStore)(nil)

// heartbeat drives Client::PingThreadMain in wall time: each iteration
// under the gate, then the sleep it asks for, scaled.
func (s *RealStore) heartbeat() {
	defer s.p.wg.Done()
	ctx := s.p.ctx
	for ctx.Err() == nil {
		s.p.w.gate.Lock()
		d := time.Duration(0)
		pinging := s.c.Pinging()
		if pinging {
			d = s.c.Heartbeat(ctx, nil)
		}
		s.p.w.gate.Unlock()
		if !pinging {
			d = client.PingInterval // not started or stopped: look again later
		}
		if err := sleepWall(ctx, s.p.w.scale.wall(d)); err != nil {
			return
		}
	}
}

func (s *RealStore) locked() func() {
	s.p.w.gate.Lock()
	return s.p.w.gate.Unlock
}

// Setup implements engine.Store.
func (s *RealStore) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	defer s.locked()()
	return s.c.Setup(ctx, a)
}

// SetupDummy implements engine.Store: a RealClient store has no
// setup_dummy in this model yet.
func (s *RealStore) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	return 0, engine.Unsupportedf("fake engine: setup_dummy needs sim/client's DummyClient model, not available yet")
}

// RegisterBuffer implements engine.Store.
func (s *RealStore) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	defer s.locked()()
	return s.c.RegisterBuffer(ctx, ptr, size)
}

// UnregisterBuffer implements engine.Store.
func (s *RealStore) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	defer s.locked()()
	return s.c.UnregisterBuffer(ctx, ptr)
}

// Put implements engine.Store.
func (s *RealStore) Put(ctx context.Context, key string, value []byte) (int, error) {
	defer s.locked()()
	return s.c.Put(ctx, key, value)
}

// Get implements engine.Store.
func (s *RealStore) Get(ctx context.Context, key string) ([]byte, error) {
	defer s.locked()()
	return s.c.Get(ctx, key)
}

// IsExist implements engine.Store.
func (s *RealStore) IsExist(ctx context.Context, key string) (int, error) {
	defer s.locked()()
	return s.c.IsExist(ctx, key)
}

// BatchPutFrom implements engine.Store.
func (s *RealStore) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	defer s.locked()()
	return s.c.BatchPutFrom(ctx, keys, ptrs, sizes)
}

// BatchGetInto implements engine.Store.
func (s *RealStore) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	defer s.locked()()
	return s.c.BatchGetInto(ctx, keys, ptrs, sizes)
}

// BatchIsExist implements engine.Store.
func (s *RealStore) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	defer s.locked()()
	return s.c.BatchIsExist(ctx, keys)
}

// HealthCheck implements engine.Store.
func (s *RealStore) HealthCheck(ctx context.Context) (int, error) {
	defer s.locked()()
	return s.c.HealthCheck(ctx)
}

// GetHostname implements engine.Store.
func (s *RealStore) GetHostname(ctx context.Context) (string, error) {
	defer s.locked()()
	return s.c.GetHostname(ctx)
}

// Close implements engine.Store.
func (s *RealStore) Close(ctx context.Context) (int, error) {
	defer s.locked()()
	return s.c.Close(ctx)
}

// portBinder is te.PortBinder: ports are a world-wide table keyed by
// host:port (nothing binds a real socket; the data endpoint is the node's
// data server), so two clients cannot take the same local_hostname.
type portBinder struct{ p *Process }

func (b portBinder) Bind(ctx context.Context, host string, port int) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bind %s:%d: %w", host, port, err)
	}
	key := host + ":" + strconv.Itoa(port)
	w := b.p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, taken := w.ports[key]; taken {
		return nil, fmt.Errorf("bind %s: Address already in use", key)
	}
	w.ports[key] = b.p
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.ports[key] == b.p {
			delete(w.ports, key)
		}
	}, nil
}
