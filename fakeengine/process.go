package fakeengine

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
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
	id   int
	node string
	spec engine.NodeSpec
	env  map[string]string
	mem  *hostmem.Space // guarded by w.gate
	seq  int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	stores []*Store
	dead   error // set (under the gate) once the process died in a Mooncake call
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
	return w.newProcessLocked(*spec, env), nil
}

func (w *World) newProcessLocked(spec engine.NodeSpec, env map[string]string) *Process {
	id := 0 // mooncake_client is not an SGLang process: it takes no pid
	if spec.Name != clientNode {
		w.nextPID++
		id = w.nextPID
	}
	p := &Process{w: w, id: id, node: spec.Name, spec: spec, env: maps.Clone(env), mem: hostmem.New(w.profile, spec.HugepagesBytes)}
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
	return client.Deps{
		Node: p.node, Host: host, Profile: p.w.profile,
		Clock:  modelClock{start: p.w.start, s: p.w.scale, g: &p.w.gate},
		Log:    mlog.Trace{T: p.w.trace, Source: source},
		Env:    p.env,
		Rand:   kernel.Stream(p.w.spec.Seed, stream),
		Mem:    p.mem,
		Master: n, Metadata: n, Etcd: etcdClient{n: n}, Ports: portBinder{p: p}, Data: dataPath{n: n}, Clients: n,
	}
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
	s := &Store{p: p, c: client.NewRealClient(d), d: d, name: fmt.Sprintf("%s#%d/%d", p.node, p.id, p.seq)}
	p.w.gate.Unlock()
	p.mu.Lock()
	p.stores = append(p.stores, s)
	p.mu.Unlock()
	s.kick = p.beat(func(ctx context.Context) time.Duration {
		if s.dummy != nil {
			if !s.dummy.Pinging() || p.dead != nil {
				return 0
			}
			s.dummy.Heartbeat(ctx)
			return dummyPingInterval
		}
		if !s.c.Pinging() || p.dead != nil {
			return 0
		}
		return s.c.Heartbeat(ctx, nil)
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
func (p *Process) beat(iter func(ctx context.Context) time.Duration) (kick func()) {
	wake := make(chan struct{}, 1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ctx := p.ctx
		for ctx.Err() == nil {
			p.w.gate.Lock()
			d := iter(ctx)
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
	b, err := p.mem.Alloc(allocator, size)
	if err != nil {
		if _, ok := engine.AsPyError(err); ok {
			return b, err
		}
		if allocator == engine.AllocMooncakeShm {
			// ShmHelper::allocate throws std::runtime_error → RuntimeError.
			return b, &engine.PyError{Class: "RuntimeError", Message: "Failed to create anonymous shared memory (Check /proc/sys/vm/nr_hugepages?)"}
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

// Store is engine.Store over the sim/client models: a RealClient, which
// becomes a DummyClient once setup_dummy() is called (one Python class in
// Mooncake). Every call holds the world gate, released while the model
// waits on a socket or sleeps.
type Store struct {
	p     *Process
	kick  func() // wakes the heartbeat loop
	name  string
	d     client.Deps
	c     *client.RealClient
	dummy *client.DummyClient // set by SetupDummy
}

var _ engine.Store = (*Store)(nil)

func (s *Store) locked() func() {
	s.p.w.gate.Lock()
	return func() {
		s.p.w.gate.Unlock()
		if s.kick != nil {
			s.kick()
		}
	}
}

// after records a process death: the SGLang process is gone, every later
// call on it fails the same way (caller holds the gate).
func (s *Store) after(err error) error {
	if d, ok := engine.AsProcessDied(err); ok {
		s.p.dead = d
	}
	return err
}

// client is the model calls go to: the dummy once setup_dummy() made one.
func (s *Store) client() engine.StoreCalls {
	if s.dummy != nil {
		return s.dummy
	}
	return s.c
}

// Setup implements engine.Store.
func (s *Store) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	rc, err := s.c.Setup(ctx, a)
	if rc == 0 && err == nil {
		s.p.w.nameEndpoint(s.c, s.p)
	}
	return rc, s.after(err)
}

// SetupDummy implements engine.Store: the store becomes a DummyClient.
func (s *Store) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	if s.dummy == nil {
		s.dummy = client.NewDummyClient(s.d, s.name)
	}
	rc, err := s.dummy.SetupDummy(ctx, memPoolSize, localBufferSize, serverAddress)
	return rc, s.after(err)
}

// RegisterBuffer implements engine.Store.
func (s *Store) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().RegisterBuffer(ctx, ptr, size)
	return v, s.after(err)
}

// UnregisterBuffer implements engine.Store.
func (s *Store) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().UnregisterBuffer(ctx, ptr)
	return v, s.after(err)
}

// Put implements engine.Store.
func (s *Store) Put(ctx context.Context, key string, value []byte) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().Put(ctx, key, value)
	return v, s.after(err)
}

// Get implements engine.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return nil, s.p.dead
	}
	v, err := s.client().Get(ctx, key)
	return v, s.after(err)
}

// IsExist implements engine.Store.
func (s *Store) IsExist(ctx context.Context, key string) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().IsExist(ctx, key)
	return v, s.after(err)
}

// BatchPutFrom implements engine.Store.
func (s *Store) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return nil, s.p.dead
	}
	v, err := s.client().BatchPutFrom(ctx, keys, ptrs, sizes)
	return v, s.after(err)
}

// BatchGetInto implements engine.Store.
func (s *Store) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return nil, s.p.dead
	}
	v, err := s.client().BatchGetInto(ctx, keys, ptrs, sizes)
	return v, s.after(err)
}

// BatchIsExist implements engine.Store.
func (s *Store) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return nil, s.p.dead
	}
	v, err := s.client().BatchIsExist(ctx, keys)
	return v, s.after(err)
}

// HealthCheck implements engine.Store.
func (s *Store) HealthCheck(ctx context.Context) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().HealthCheck(ctx)
	return v, s.after(err)
}

// GetHostname implements engine.Store.
func (s *Store) GetHostname(ctx context.Context) (string, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return "", s.p.dead
	}
	v, err := s.client().GetHostname(ctx)
	return v, s.after(err)
}

// Close implements engine.Store.
func (s *Store) Close(ctx context.Context) (int, error) {
	defer s.locked()()
	if s.p.dead != nil {
		return 0, s.p.dead
	}
	v, err := s.client().Close(ctx)
	return v, s.after(err)
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
	if _, taken := w.ports[key]; taken {
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
