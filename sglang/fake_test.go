package sglang

import (
	"context"
	"fmt"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// A scripted engine: no Mooncake model, just the calls SGLang makes and
// the answers a test wants it to get.

type fakeClock struct {
	now    time.Duration
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Duration { return c.now }
func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.sleeps = append(c.sleeps, d)
	c.now += d
	return nil
}

type fakeWorld struct {
	clock   fakeClock
	proc    *fakeProcess
	started []map[string]string
}

func newFakeWorld() *fakeWorld {
	w := &fakeWorld{}
	w.proc = &fakeProcess{store: newFakeStore(), nextPtr: 0x7f0000000000}
	return w
}

func (w *fakeWorld) Clock() engine.Clock                       { return &w.clock }
func (w *fakeWorld) Addr(string) (string, error)               { return "", fmt.Errorf("no roles in fake") }
func (w *fakeWorld) Arm(context.Context, []faults.Fault) error { return nil }
func (w *fakeWorld) ClearFaults(context.Context) error         { return nil }
func (w *fakeWorld) Close(context.Context) error               { return nil }
func (w *fakeWorld) StartProcess(_ context.Context, node string, env map[string]string) (engine.Process, error) {
	w.started = append(w.started, env)
	w.proc.node = node
	return w.proc, nil
}

type allocCall struct {
	allocator string
	size      int64
}

type fakeProcess struct {
	node      string
	store     *fakeStore
	nextPtr   uint64
	allocs    []allocCall
	noShm     bool // Mooncake without MooncakeHostMemAllocator
	newStores int
	closed    bool
}

func (p *fakeProcess) Node() string { return p.node }
func (p *fakeProcess) NewStore(context.Context) (engine.Store, error) {
	p.newStores++
	return p.store, nil
}
func (p *fakeProcess) Alloc(_ context.Context, allocator string, size int64) (engine.Buffer, error) {
	p.allocs = append(p.allocs, allocCall{allocator, size})
	if allocator == engine.AllocMooncakeShm && p.noShm {
		return engine.Buffer{}, &engine.PyError{Class: "ImportError", Message: "cannot import name 'MooncakeHostMemAllocator' from 'mooncake.store'"}
	}
	b := engine.Buffer{Ptr: p.nextPtr, Size: size, Allocator: allocator}
	p.nextPtr += uint64(size) + 1<<20
	return b, nil
}
func (p *fakeProcess) Close(context.Context) error { p.closed = true; return nil }

type regCall struct {
	ptr  uint64
	size int64
}

type dummyCall struct {
	memPoolSize, localBufferSize int64
	addr                         string
}

type fakeStore struct {
	// profile, when set, makes setup() behave like that version's pybind11
	// binding: a call no overload accepts raises its TypeError.
	profile    *mooncake.Profile
	setupRets  []int // consumed per accepted setup call; default 0
	setupErr   error // returned by every setup call when set (e.g. a process death)
	setupCalls []engine.SetupArgs
	dummyRet   int
	dummyCalls []dummyCall
	putRets    []int // consumed per put; default 0
	puts       []string
	isExistRet *int
	getValue   []byte // overrides the stored value when set
	regRets    []int
	regCalls   []regCall
	objects    map[string][]byte
	putFail    map[string]int // batch_put_from code per key
	getFail    map[string]int
	batchCalls []string
	closed     bool
}

func newFakeStore() *fakeStore { return &fakeStore{objects: map[string][]byte{}} }

func pop(q *[]int) int {
	if len(*q) == 0 {
		return 0
	}
	v := (*q)[0]
	*q = (*q)[1:]
	return v
}

func (s *fakeStore) Setup(_ context.Context, a engine.SetupArgs) (int, error) {
	s.setupCalls = append(s.setupCalls, a)
	if s.profile != nil {
		n := 7
		pos := []any{a.LocalHostname, a.MetadataServer, a.GlobalSegmentSize, a.LocalBufferSize, a.Protocol, a.RDMADevices, a.MasterServerAddr}
		if a.PassEngine {
			n = 8
			pos = append(pos, nil)
		}
		names := make([]string, len(a.Kwargs))
		for i, k := range a.Kwargs {
			names[i] = k.Name
		}
		if !mooncake.SetupCallMatches(*s.profile, n, names) {
			return 0, &engine.PyError{Class: "TypeError", Message: mooncake.SetupTypeError(*s.profile, pos, a.Kwargs)}
		}
	}
	if s.setupErr != nil {
		return 0, s.setupErr
	}
	return pop(&s.setupRets), nil
}

func (s *fakeStore) SetupDummy(_ context.Context, mem, local int64, addr string) (int, error) {
	s.dummyCalls = append(s.dummyCalls, dummyCall{mem, local, addr})
	return s.dummyRet, nil
}

func (s *fakeStore) RegisterBuffer(_ context.Context, ptr uint64, size int64) (int, error) {
	s.regCalls = append(s.regCalls, regCall{ptr, size})
	return pop(&s.regRets), nil
}
func (s *fakeStore) UnregisterBuffer(context.Context, uint64) (int, error) { return 0, nil }

func (s *fakeStore) Put(_ context.Context, key string, value []byte) (int, error) {
	s.puts = append(s.puts, key)
	ret := pop(&s.putRets)
	if ret == 0 {
		s.objects[key] = append([]byte(nil), value...)
	}
	return ret, nil
}

func (s *fakeStore) Get(_ context.Context, key string) ([]byte, error) {
	if s.getValue != nil {
		return s.getValue, nil
	}
	return s.objects[key], nil
}

func (s *fakeStore) IsExist(_ context.Context, key string) (int, error) {
	if s.isExistRet != nil {
		return *s.isExistRet, nil
	}
	if _, ok := s.objects[key]; ok {
		return 1, nil
	}
	return 0, nil
}

func (s *fakeStore) BatchPutFrom(_ context.Context, keys []string, _ []uint64, sizes []int64) ([]int, error) {
	s.batchCalls = append(s.batchCalls, fmt.Sprintf("batch_put_from%v", keys))
	out := make([]int, len(keys))
	for i, k := range keys {
		if c, ok := s.putFail[k]; ok {
			out[i] = c
			continue
		}
		s.objects[k] = make([]byte, sizes[i])
	}
	return out, nil
}

func (s *fakeStore) GetBuffer(ctx context.Context, key string) (int, error) {
	b, err := s.Get(ctx, key)
	return len(b), err
}

func (s *fakeStore) Remove(context.Context, string) (int, error) { return 0, nil }

func (s *fakeStore) BatchGetInto(_ context.Context, keys []string, _ []uint64, sizes []int64) ([]int, error) {
	s.batchCalls = append(s.batchCalls, fmt.Sprintf("batch_get_into%v", keys))
	out := make([]int, len(keys))
	for i, k := range keys {
		if c, ok := s.getFail[k]; ok {
			out[i] = c
		} else if v, ok := s.objects[k]; ok {
			out[i] = len(v)
		} else {
			out[i] = int(mooncake.OBJECT_NOT_FOUND)
		}
		_ = sizes
	}
	return out, nil
}

func (s *fakeStore) BatchIsExist(_ context.Context, keys []string) ([]int, error) {
	s.batchCalls = append(s.batchCalls, fmt.Sprintf("batch_is_exist%v", keys))
	out := make([]int, len(keys))
	for i, k := range keys {
		if _, ok := s.objects[k]; ok {
			out[i] = 1
		}
	}
	return out, nil
}

func (s *fakeStore) HealthCheck(context.Context) (int, error)    { return 0, nil }
func (s *fakeStore) Lookup(context.Context, string) error        { return nil }
func (s *fakeStore) GetHostname(context.Context) (string, error) { return "fake:1", nil }
func (s *fakeStore) Close(context.Context) (int, error)          { s.closed = true; return 0, nil }
