package sim

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim/client"
	"github.com/mooncake-faultlab/faultlab/sim/hostmem"
)

// Process is an SGLang scheduler process on a node.
type Process struct {
	w      *World
	node   string
	id     int
	env    map[string]string
	mem    *hostmem.Space
	stores int
	all    []*Store
	dead   error // set once the process aborted or closed
}

// Node implements engine.Process.
func (p *Process) Node() string { return p.node }

// Memory exposes the process address space (tests).
func (p *Process) Memory() *hostmem.Space { return p.mem }

// NewStore implements engine.Process: MooncakeDistributedStore().
func (p *Process) NewStore(context.Context) (engine.Store, error) {
	if p.dead != nil {
		return nil, p.dead
	}
	p.stores++
	source := "mooncake:" + p.node
	stream := fmt.Sprintf("proc:%s#%d/store#%d", p.node, p.id, p.stores)
	d := p.w.deps(p.node, p.env, source, p.mem, stream)
	s := &Store{p: p, d: d, real: client.NewRealClient(d), name: fmt.Sprintf("%s#%d/%d", p.node, p.id, p.stores)}
	p.all = append(p.all, s)
	return s, nil
}

// Alloc implements engine.Process.
func (p *Process) Alloc(_ context.Context, allocator string, size int64) (engine.Buffer, error) {
	p.w.k.RunUntil(p.w.k.Now())
	if p.dead != nil {
		return engine.Buffer{}, p.dead
	}
	switch allocator {
	case engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm:
	default:
		return engine.Buffer{}, fmt.Errorf("sim: unknown allocator %q (want %s, %s or %s)", allocator, engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm)
	}
	b, err := p.mem.Alloc(allocator, size)
	if err != nil {
		if _, ok := engine.AsPyError(err); ok {
			return b, err
		}
		if allocator == engine.AllocHugepage {
			// SGLang's mmap(MAP_HUGETLB) without a HugeTLB pool (real run).
			return b, &engine.PyError{Class: "OSError", Message: "[Errno 12] Cannot allocate memory"}
		}
		if allocator == engine.AllocMooncakeShm {
			// ShmHelper::allocate throws std::runtime_error → RuntimeError.
			return b, &engine.PyError{Class: "RuntimeError", Message: "Failed to create anonymous shared memory (Check /proc/sys/vm/nr_hugepages?)"}
		}
		return b, fmt.Errorf("sim: alloc %s on %s: %w", allocator, p.node, err)
	}
	return b, nil
}

// Close implements engine.Process: the process exits; its clients stop
// pinging without unmounting (the master expires them after client_ttl).
func (p *Process) Close(context.Context) error {
	for _, s := range p.all {
		s.real.Kill()
		if s.dummy != nil {
			s.dummy.Kill()
		}
	}
	if p.dead == nil {
		p.dead = fmt.Errorf("sim: process on %s is closed", p.node)
	}
	return nil
}

// Store is one MooncakeDistributedStore object. It is a real client until
// setup_dummy() turns it into a dummy client.
type Store struct {
	p     *Process
	d     client.Deps
	name  string
	real  *client.RealClient
	dummy *client.DummyClient
}

// after runs after every call: a process abort kills the process; new TE
// endpoints and ping threads are picked up.
func (s *Store) after(err error) error {
	if d, ok := engine.AsProcessDied(err); ok {
		s.p.dead = d
		return d
	}
	if s.dummy != nil {
		s.p.w.watch(nil, s.dummy)
		return err
	}
	s.p.w.register(s.real, s.p.node, s.p.mem)
	if s.real.Pinging() {
		s.p.w.watch(s.real, nil)
	}
	return err
}

// client is the model calls go to: the dummy once setup_dummy() made one.
func (s *Store) client() engine.StoreCalls {
	if s.dummy != nil {
		return s.dummy
	}
	return s.real
}

// alive fires events due now (faults armed at the current instant) and
// reports a dead process.
func (s *Store) alive() error {
	s.p.w.k.RunUntil(s.p.w.k.Now())
	return s.p.dead
}

// Setup implements engine.Store.
func (s *Store) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	rc, err := s.real.Setup(ctx, a)
	return rc, s.after(err)
}

// SetupDummy implements engine.Store.
func (s *Store) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	if s.dummy == nil {
		s.dummy = client.NewDummyClient(s.d, s.name)
	}
	rc, err := s.dummy.SetupDummy(ctx, memPoolSize, localBufferSize, serverAddress)
	return rc, s.after(err)
}

// RegisterBuffer implements engine.Store.
func (s *Store) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	rc, err := s.client().RegisterBuffer(ctx, ptr, size)
	return rc, s.after(err)
}

// UnregisterBuffer implements engine.Store.
func (s *Store) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	rc, err := s.client().UnregisterBuffer(ctx, ptr)
	return rc, s.after(err)
}

// Put implements engine.Store.
func (s *Store) Put(ctx context.Context, key string, value []byte) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	rc, err := s.client().Put(ctx, key, value)
	return rc, s.after(err)
}

// Get implements engine.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	b, err := s.client().Get(ctx, key)
	return b, s.after(err)
}

// IsExist implements engine.Store.
func (s *Store) IsExist(ctx context.Context, key string) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	rc, err := s.client().IsExist(ctx, key)
	return rc, s.after(err)
}

// BatchPutFrom implements engine.Store.
func (s *Store) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	rc, err := s.client().BatchPutFrom(ctx, keys, ptrs, sizes)
	return rc, s.after(err)
}

// BatchGetInto implements engine.Store.
func (s *Store) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	rc, err := s.client().BatchGetInto(ctx, keys, ptrs, sizes)
	return rc, s.after(err)
}

// BatchIsExist implements engine.Store.
func (s *Store) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	rc, err := s.client().BatchIsExist(ctx, keys)
	return rc, s.after(err)
}

// HealthCheck implements engine.Store.
func (s *Store) HealthCheck(ctx context.Context) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	return s.client().HealthCheck(ctx)
}

// GetHostname implements engine.Store.
func (s *Store) GetHostname(ctx context.Context) (string, error) {
	if err := s.alive(); err != nil {
		return "", err
	}
	return s.client().GetHostname(ctx)
}

// Close implements engine.Store.
func (s *Store) Close(ctx context.Context) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	return s.client().Close(ctx)
}

// Real exposes the real client model (tests).
func (s *Store) Real() *client.RealClient { return s.real }

var (
	_ engine.Process = (*Process)(nil)
	_ engine.Store   = (*Store)(nil)
)
