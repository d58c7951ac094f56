package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Store is engine.Store over the client models: a RealClient, which
// becomes a DummyClient once setup_dummy() is called (one Python class in
// Mooncake). Engines drive it through StoreHooks; the pass-throughs are
// written once, here.
type Store struct {
	d     Deps
	name  string
	real  *RealClient
	dummy *DummyClient
	hooks StoreHooks
}

// StoreHooks are what an engine does around every call.
type StoreHooks struct {
	// Enter runs before a call. It returns what runs once the call has
	// returned (release a lock, wake a heartbeat) and an error that stops
	// the call (the process is dead).
	Enter func() (exit func(), err error)
	// After sees every call's error and returns the one Python sees: it
	// records a process death, picks up new endpoints and ping threads.
	After func(s *Store, err error) error
}

// NewStore is MooncakeDistributedStore() on a node; name identifies the
// object (the dummy client's id).
func NewStore(d Deps, name string, hooks StoreHooks) *Store {
	return &Store{d: d, name: name, real: NewRealClient(d), hooks: hooks}
}

// Real is the real client model.
func (s *Store) Real() *RealClient { return s.real }

// Dummy is the dummy client model; nil until setup_dummy().
func (s *Store) Dummy() *DummyClient { return s.dummy }

// client is the model calls go to: the dummy once setup_dummy() made one.
func (s *Store) client() engine.StoreCalls {
	if s.dummy != nil {
		return s.dummy
	}
	return s.real
}

// call runs one call between the hooks.
func call[T any](s *Store, fn func() (T, error)) (T, error) {
	exit, err := s.hooks.Enter()
	defer exit()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := fn()
	return v, s.hooks.After(s, err)
}

// Setup implements engine.Store.
func (s *Store) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	return call(s, func() (int, error) { return s.real.Setup(ctx, a) })
}

// SetupDummy implements engine.Store: the store becomes a DummyClient.
func (s *Store) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	return call(s, func() (int, error) {
		if s.dummy == nil {
			s.dummy = NewDummyClient(s.d, s.name)
		}
		return s.dummy.SetupDummy(ctx, memPoolSize, localBufferSize, serverAddress)
	})
}

// Lookup implements engine.Store from the release's binding surface
// (mooncake.Profile.HasMethod); a RealClient and the DummyClient it becomes
// are one Python class, so one surface.
func (s *Store) Lookup(ctx context.Context, name string) error {
	_, err := call(s, func() (struct{}, error) {
		if !s.real.p.HasMethod(name) {
			return struct{}{}, noAttr(s.real.p, name)
		}
		return struct{}{}, nil
	})
	return err
}

// RegisterBuffer implements engine.Store.
func (s *Store) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	return call(s, func() (int, error) { return s.client().RegisterBuffer(ctx, ptr, size) })
}

// UnregisterBuffer implements engine.Store.
func (s *Store) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	return call(s, func() (int, error) { return s.client().UnregisterBuffer(ctx, ptr) })
}

// Put implements engine.Store.
func (s *Store) Put(ctx context.Context, key string, value []byte) (int, error) {
	return call(s, func() (int, error) { return s.client().Put(ctx, key, value) })
}

// Get implements engine.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	return call(s, func() ([]byte, error) { return s.client().Get(ctx, key) })
}

// GetBuffer implements engine.Store.
func (s *Store) GetBuffer(ctx context.Context, key string) (int, error) {
	return call(s, func() (int, error) { return s.client().GetBuffer(ctx, key) })
}

// Remove implements engine.Store.
func (s *Store) Remove(ctx context.Context, key string) (int, error) {
	return call(s, func() (int, error) { return s.client().Remove(ctx, key) })
}

// IsExist implements engine.Store.
func (s *Store) IsExist(ctx context.Context, key string) (int, error) {
	return call(s, func() (int, error) { return s.client().IsExist(ctx, key) })
}

// BatchPutFrom implements engine.Store.
func (s *Store) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return call(s, func() ([]int, error) { return s.client().BatchPutFrom(ctx, keys, ptrs, sizes) })
}

// BatchGetInto implements engine.Store.
func (s *Store) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return call(s, func() ([]int, error) {
		// Bound from v0.3.5 (real 0.3.4.post2: AttributeError after a
		// register_buffer that returned 0; io/get-while-master-down).
		if !s.real.p.HasMethod("batch_get_into") {
			return nil, noAttr(s.real.p, "batch_get_into")
		}
		return s.client().BatchGetInto(ctx, keys, ptrs, sizes)
	})
}

// BatchIsExist implements engine.Store.
func (s *Store) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	return call(s, func() ([]int, error) { return s.client().BatchIsExist(ctx, keys) })
}

// HealthCheck implements engine.Store.
func (s *Store) HealthCheck(ctx context.Context) (int, error) {
	return call(s, func() (int, error) { return s.client().HealthCheck(ctx) })
}

// GetHostname implements engine.Store.
func (s *Store) GetHostname(ctx context.Context) (string, error) {
	return call(s, func() (string, error) { return s.client().GetHostname(ctx) })
}

// Close implements engine.Store.
func (s *Store) Close(ctx context.Context) (int, error) {
	return call(s, func() (int, error) { return s.client().Close(ctx) })
}

var _ engine.Store = (*Store)(nil)
