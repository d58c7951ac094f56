package realengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Process is one SGLang process on a node: a driver.py running real
// mooncake.store in the version's venv.
type Process struct {
	node string
	d    *driver
}

var _ engine.Process = (*Process)(nil)

// Node implements engine.Process.
func (p *Process) Node() string { return p.node }

// PID is the driver's process id.
func (p *Process) PID() int { return p.d.p.pid }

// NewStore implements engine.Process: MooncakeDistributedStore().
func (p *Process) NewStore(ctx context.Context) (engine.Store, error) {
	var h int
	if err := p.d.call(ctx, "new_store", nil, &h); err != nil {
		return nil, err
	}
	return &Store{d: p.d, h: h}, nil
}

// Alloc implements engine.Process with real memory: an anonymous mmap
// (default), mmap(MAP_HUGETLB) (hugepage) or MooncakeHostMemAllocator
// (mooncake-shm; ImportError on versions without it).
func (p *Process) Alloc(ctx context.Context, allocator string, size int64) (engine.Buffer, error) {
	switch allocator {
	case engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm:
	default:
		return engine.Buffer{}, fmt.Errorf("real engine: unknown allocator %q (%s, %s, %s)", allocator, engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm)
	}
	var ptr uint64
	if err := p.d.call(ctx, "alloc", map[string]any{"allocator": allocator, "size": size}, &ptr); err != nil {
		return engine.Buffer{}, err
	}
	return engine.Buffer{Ptr: ptr, Size: size, Allocator: allocator}, nil
}

// Poke writes data at ptr in the process (what filling a tensor does).
func (p *Process) Poke(ctx context.Context, ptr uint64, data []byte) error {
	return p.d.call(ctx, "poke", map[string]any{"ptr": ptr, "data": b64(data)}, nil)
}

// Peek reads size bytes at ptr in the process.
func (p *Process) Peek(ctx context.Context, ptr uint64, size int64) ([]byte, error) {
	var v b64Value
	if err := p.d.call(ctx, "peek", map[string]any{"ptr": ptr, "size": size}, &v); err != nil {
		return nil, err
	}
	return v.bytes()
}

// Close implements engine.Process: the driver exits (SIGKILL if it hangs).
func (p *Process) Close(ctx context.Context) error { return p.d.close(ctx) }

// Store is one mooncake.store.MooncakeDistributedStore in a driver.
type Store struct {
	d *driver
	h int
}

var _ engine.Store = (*Store)(nil)

func (s *Store) intCall(ctx context.Context, op string, fields map[string]any) (int, error) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["store"] = s.h
	var r int
	err := s.d.call(ctx, op, fields, &r)
	return r, err
}

func (s *Store) intsCall(ctx context.Context, op string, fields map[string]any) ([]int, error) {
	fields["store"] = s.h
	for k, v := range fields { // Go nil slices are Python [] here, not None
		switch x := v.(type) {
		case []string:
			if x == nil {
				fields[k] = []string{}
			}
		case []uint64:
			if x == nil {
				fields[k] = []uint64{}
			}
		case []int64:
			if x == nil {
				fields[k] = []int64{}
			}
		}
	}
	var r []int
	err := s.d.call(ctx, op, fields, &r)
	return r, err
}

// Setup implements engine.Store with the exact positional arguments
// (seven, or eight with None as SGLang passes) and kwargs in call order.
func (s *Store) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	pos := []any{a.LocalHostname, a.MetadataServer, a.GlobalSegmentSize, a.LocalBufferSize, a.Protocol, a.RDMADevices, a.MasterServerAddr}
	if a.PassEngine {
		pos = append(pos, nil)
	}
	kw := make([][2]any, len(a.Kwargs))
	for i, k := range a.Kwargs {
		kw[i] = [2]any{k.Name, k.Value}
	}
	return s.intCall(ctx, "setup", map[string]any{"positional": pos, "kwargs": kw})
}

var _ engine.DirMaker = (*Store)(nil)

// MakeDir implements engine.DirMaker: the driver runs on this host.
func (s *Store) MakeDir(path string) error {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return nil
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	return nil
}

// SetupDummy implements engine.Store.
func (s *Store) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	return s.intCall(ctx, "setup_dummy", map[string]any{"mem_pool_size": memPoolSize, "local_buffer_size": localBufferSize, "server_address": serverAddress})
}

// RegisterBuffer implements engine.Store.
func (s *Store) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	return s.intCall(ctx, "register_buffer", map[string]any{"ptr": ptr, "size": size})
}

// UnregisterBuffer implements engine.Store.
func (s *Store) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	return s.intCall(ctx, "unregister_buffer", map[string]any{"ptr": ptr})
}

// Put implements engine.Store.
func (s *Store) Put(ctx context.Context, key string, value []byte) (int, error) {
	return s.intCall(ctx, "put", map[string]any{"key": key, "value": b64(value)})
}

// Get implements engine.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	var v b64Value
	if err := s.d.call(ctx, "get", map[string]any{"store": s.h, "key": key}, &v); err != nil {
		return nil, err
	}
	return v.bytes()
}

// GetBuffer implements engine.Store.
func (s *Store) GetBuffer(ctx context.Context, key string) (int, error) {
	return s.intCall(ctx, "get_buffer", map[string]any{"key": key})
}

// Remove implements engine.Store.
func (s *Store) Remove(ctx context.Context, key string) (int, error) {
	return s.intCall(ctx, "remove", map[string]any{"key": key})
}

// IsExist implements engine.Store.
func (s *Store) IsExist(ctx context.Context, key string) (int, error) {
	return s.intCall(ctx, "is_exist", map[string]any{"key": key})
}

// BatchPutFrom implements engine.Store.
func (s *Store) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return s.intsCall(ctx, "batch_put_from", map[string]any{"keys": keys, "ptrs": ptrs, "sizes": sizes})
}

// BatchGetInto implements engine.Store.
func (s *Store) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return s.intsCall(ctx, "batch_get_into", map[string]any{"keys": keys, "ptrs": ptrs, "sizes": sizes})
}

// BatchIsExist implements engine.Store.
func (s *Store) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	return s.intsCall(ctx, "batch_is_exist", map[string]any{"keys": keys})
}

// HealthCheck implements engine.Store (AttributeError on versions without it, e.g. 0.3.9).
func (s *Store) HealthCheck(ctx context.Context) (int, error) {
	return s.intCall(ctx, "health_check", nil)
}

// Lookup implements engine.Store: getattr(store, name) in the driver.
func (s *Store) Lookup(ctx context.Context, name string) error {
	return s.d.call(ctx, "lookup", map[string]any{"store": s.h, "name": name}, nil)
}

// GetHostname implements engine.Store.
func (s *Store) GetHostname(ctx context.Context) (string, error) {
	var h string
	err := s.d.call(ctx, "get_hostname", map[string]any{"store": s.h}, &h)
	return h, err
}

// Close implements engine.Store.
func (s *Store) Close(ctx context.Context) (int, error) { return s.intCall(ctx, "close", nil) }
