// Package hostmem models one process's host memory: a deterministic
// address space, the allocators SGLang's host pools use (default malloc,
// hugepage, mooncake-shm = MooncakeHostMemAllocator's memfd segments) and
// the bytes stored there. Clock-agnostic; no goroutines.
package hostmem

import (
	"errors"
	"fmt"
	"sort"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Region is one allocation.
type Region struct {
	Base      uint64
	Size      int64
	Allocator string
	// Shm is set for mooncake-shm allocations (memfd segments).
	Shm *Shm
}

// Contains reports whether [ptr, ptr+size) lies inside the region.
func (r Region) Contains(ptr uint64, size int64) bool {
	return ptr >= r.Base && size >= 0 && ptr+uint64(size) <= r.Base+uint64(r.Size)
}

// Shm is a memfd shared-memory segment (ShmHelper): the dummy client maps
// it at Base; the real client maps the same fd elsewhere.
type Shm struct {
	// FD names the memfd stably ("memfd:mooncake_shm#3").
	FD   string
	Base uint64
	Size int64
	// Hugepage: MFD_HUGETLB (MC_STORE_USE_HUGEPAGE).
	Hugepage bool
	// Data is the shared bytes: both mappings see the same slice.
	Data *Bytes
}

// Content is what a byte range holds, symbolically: Size bytes identified
// by a fingerprint, not copied bytes (KV pages are hundreds of KiB and the
// simulator only needs to know which write they came from). FP 0 is all
// zeros. Lit keeps the bytes of a literal write (Python put(key, value)),
// so they can be returned as bytes; page content moved by
// batch_put_from/batch_get_into is never materialised.
type Content struct {
	Size int64  `json:"size"`
	FP   uint64 `json:"fp,omitempty"`
	Lit  []byte `json:"lit,omitempty"`
}

// Literal is the content of bytes written by value.
// Zeros keep no copy (Bytes and slice give zeros back): a caller's
// bytes(32 MiB) would otherwise cross the fake engine's wire as 43 MB of
// JSON, wall time its scaled clock multiplies past a client's TTL.
func Literal(data []byte) Content {
	for _, b := range data {
		if b != 0 {
			return Content{Size: int64(len(data)), Lit: append([]byte(nil), data...), FP: fingerprint(data)}
		}
	}
	return Content{Size: int64(len(data))}
}

// Stamp is symbolic content identified by fp (0 = zeros).
func Stamp(size int64, fp uint64) Content { return Content{Size: size, FP: fp} }

// fingerprint is FNV-1a 64 (never 0 for non-zero data: 0 maps to 1).
func fingerprint(data []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range data {
		h ^= uint64(b)
		h *= 1099511628211
	}
	if h == 0 {
		h = 1
	}
	return h
}

// slice is the content of [off, off+size) of c: a sub-range of a symbolic
// write has a fingerprint derived from the write's and the range.
func (c Content) slice(off, size int64) Content {
	if off == 0 && size == c.Size {
		return c
	}
	if c.Lit != nil {
		return Literal(c.Lit[off : off+size])
	}
	if c.FP == 0 {
		return Content{Size: size}
	}
	return Content{Size: size, FP: fingerprint(fmt.Appendf(nil, "%d/%d/%d", c.FP, off, size))}
}

// Bytes materialises the content: the literal bytes, zeros, or (for a
// symbolic stamp) a deterministic pattern derived from the fingerprint.
func (c Content) Bytes() []byte {
	switch {
	case c.Lit != nil:
		return append([]byte(nil), c.Lit...)
	case c.FP == 0:
		return make([]byte, c.Size)
	}
	out := make([]byte, c.Size)
	x := c.FP
	for i := range out {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		out[i] = byte(x)
	}
	return out
}

// Bytes is sparse memory content keyed by offset (only what was written),
// one Content per write.
type Bytes struct{ chunks map[uint64]Content }

// Write stores data (by value) at off.
func (b *Bytes) Write(off uint64, data []byte) { b.WriteContent(off, Literal(data)) }

// WriteContent stores c at off.
func (b *Bytes) WriteContent(off uint64, c Content) {
	if b.chunks == nil {
		b.chunks = map[uint64]Content{}
	}
	b.chunks[off] = c
}

// Read returns size bytes at off: an exact earlier write, else zeros.
func (b *Bytes) Read(off uint64, size int64) []byte { return b.ReadContent(off, size).Bytes() }

// ReadContent returns the content of size bytes at off: the write that
// started there (or its prefix), else zeros.
func (b *Bytes) ReadContent(off uint64, size int64) Content {
	if c, ok := b.chunks[off]; ok && c.Size >= size {
		return c.slice(0, size)
	}
	return Content{Size: size}
}

// Space is a process address space. Addresses are deterministic: each
// allocator has its own arena and allocations are bump-allocated, aligned.
type Space struct {
	profile  mooncake.Profile
	hugeFree int64
	ram      int64
	next     map[string]uint64
	end      map[string]uint64 // each arena's first address past it
	regions  []Region          // sorted by Base
	shmCount int
	data     map[uint64]*Bytes // by region base
	host     int
}

// Arenas: each allocator of each host has its own window of arenaSpan
// bytes, the whole user address space of an x86-64 process (47 bits,
// 128 TiB): whatever one host could map fits in one window, so regions of
// different allocators never overlap (1 TiB apart they did: a 1 TiB
// global segment ran into the host pool's shm, a spurious "overlapped
// memory region", issue 17). The default allocator of the first host
// keeps the usual 0x7f0000000000.
const (
	defaultArena = 0x7f0000000000
	arenaSpan    = 1 << 47
	align        = 4096
	hugeAlign    = 2 << 20
)

// arenaOrder places the allocators' windows on a host; segment hosts the
// client's own global segment / local buffer, shm-map shm segments mapped
// from another process.
var arenaOrder = []string{engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm, "segment", "shm-map"}

// Device memory: GPU 0 of the host-th host maps its allocations in a
// window of deviceSpan bytes at deviceArena + host*deviceSpan, below every
// host arena, so the host arenas' addresses stay what they were and a
// device address is known by its value alone (IsDevice), as the CUDA
// driver knows it (cuPointerGetAttribute MEMORY_TYPE).
const (
	deviceArena = 1 << 40
	deviceSpan  = 1 << 40
)

// IsDevice says whether ptr is GPU memory of some host.
func IsDevice(ptr uint64) bool { return ptr >= deviceArena && ptr < defaultArena }

// DefaultRAM is a host's RAM when the topology does not say (a fixed
// size, never the machine's: sim is deterministic).
const DefaultRAM = 64 << 30

// New returns an empty space; hugepagesBytes is the HugeTLB pool.
func New(p mooncake.Profile, hugepagesBytes int64) *Space { return NewOnHost(p, hugepagesBytes, 0) }

// NewOnHost is New for the host-th host of a world: its addresses differ
// from every other host's, as two machines' address spaces do, so a
// transfer routed to the wrong host cannot land in a valid buffer by
// coincidence (it fails, as Mooncake's does).
func NewOnHost(p mooncake.Profile, hugepagesBytes int64, host int) *Space {
	s := &Space{profile: p, hugeFree: hugepagesBytes, ram: DefaultRAM, next: map[string]uint64{}, end: map[string]uint64{}, data: map[uint64]*Bytes{}, host: host}
	for k, a := range arenaOrder {
		base := defaultArena + uint64(host*len(arenaOrder)+k)*arenaSpan
		s.next[a], s.end[a] = base, base+arenaSpan
	}
	return s
}

// WithRAM sets the host's RAM (0 keeps DefaultRAM) and returns s.
func (s *Space) WithRAM(bytes int64) *Space {
	if bytes > 0 {
		s.ram = bytes
	}
	return s
}

// WithGPU gives the process a GPU (engine.AllocCUDA allocates from it) when
// gpu is true, and returns s.
func (s *Space) WithGPU(gpu bool) *Space {
	if gpu {
		base := deviceArena + uint64(s.host)*deviceSpan
		s.next[engine.AllocCUDA], s.end[engine.AllocCUDA] = base, base+deviceSpan
	}
	return s
}

// RAM is the host's RAM in bytes.
func (s *Space) RAM() int64 { return s.ram }

// OutOfMemory is an allocation the host cannot back: Linux's overcommit
// heuristic (vm.overcommit_memory=0, mm/util.c __vm_enough_memory) refuses
// a private mapping larger than RAM + swap (no swap here) with ENOMEM,
// and an address space that is full refuses any mapping.
type OutOfMemory struct {
	Allocator string
	Size, RAM int64
}

func (e *OutOfMemory) Error() string {
	return fmt.Sprintf("alloc %s %d bytes on a host with %d bytes of RAM: Cannot allocate memory", e.Allocator, e.Size, e.RAM)
}

// HugepagesFree is what is left of the host's HugeTLB pool.
func (s *Space) HugepagesFree() int64 { return s.hugeFree }

// ErrNoHugepages is the mmap(MAP_HUGETLB) failure when the pool is short.
var ErrNoHugepages = fmt.Errorf("mmap MAP_HUGETLB: Cannot allocate memory")

func roundUp(n int64, a int64) int64 { return (n + a - 1) / a * a }

// Alloc allocates size bytes through allocator (engine.Alloc*, or
// "segment" for Mooncake's own segment/local-buffer memory). mooncake-shm
// without MooncakeHostMemAllocator in this version is Python's ImportError.
func (s *Space) Alloc(allocator string, size int64) (engine.Buffer, error) {
	if size <= 0 {
		return engine.Buffer{}, fmt.Errorf("alloc %s: size %d must be positive", allocator, size)
	}
	base, ok := s.next[allocator]
	if !ok && allocator == engine.AllocCUDA {
		return engine.Buffer{}, fmt.Errorf("alloc %s: the node has no GPU (topology nodes[].gpu)", allocator)
	}
	if !ok || allocator == "shm-map" {
		return engine.Buffer{}, fmt.Errorf("alloc: unknown allocator %q (want %s, %s, %s or %s)", allocator,
			engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm, engine.AllocCUDA)
	}
	if allocator == engine.AllocMooncakeShm && s.profile.HostMemAllocator && roundUp(size, align) > arenaSpan {
		// No room in the address space: mmap fails before anything is
		// faulted in (shm_helper.cpp:125).
		return engine.Buffer{}, &engine.PyError{Class: "RuntimeError", Message: "Failed to map shared memory: Cannot allocate memory"}
	}
	if allocator == engine.AllocMooncakeShm && s.profile.HostMemAllocator && size > s.ram {
		// ShmHelper::allocate maps its memfd MAP_SHARED|MAP_POPULATE
		// (v0.3.12.post1 mooncake-store/src/shm_helper.cpp:123): shared
		// memory escapes the overcommit check and is faulted in at once,
		// so past RAM the OOM killer takes the process (real, 24 GiB
		// host, no swap, 32 GiB: SIGKILL, docs/REAL-FINDINGS.md).
		return engine.Buffer{}, &engine.ProcessDied{Signal: "SIGKILL", Reason: fmt.Sprintf(
			"Out of memory: Killed process (MooncakeHostMemAllocator.alloc(%d): memfd MAP_POPULATE on a host with %d bytes of RAM)", size, s.ram)}
	}
	if allocator == engine.AllocDefault && size > s.ram {
		return engine.Buffer{}, &OutOfMemory{Allocator: allocator, Size: size, RAM: s.ram}
	}
	r := Region{Base: base, Size: size, Allocator: allocator}
	step := roundUp(size, align)
	if base+uint64(step)+align > s.end[allocator] {
		return engine.Buffer{}, &OutOfMemory{Allocator: allocator, Size: size, RAM: s.ram}
	}
	switch allocator {
	case engine.AllocHugepage:
		step = roundUp(size, hugeAlign)
		if step > s.hugeFree {
			return engine.Buffer{}, fmt.Errorf("alloc hugepage %d bytes (%d free): %w", step, s.hugeFree, ErrNoHugepages)
		}
		s.hugeFree -= step
	case engine.AllocMooncakeShm:
		if !s.profile.HostMemAllocator {
			return engine.Buffer{}, &engine.PyError{Class: "ImportError", Message: ImportErrorText}
		}
		s.shmCount++
		r.Shm = &Shm{FD: fmt.Sprintf("memfd:mooncake_shm#%d", s.shmCount), Base: base, Size: size, Data: &Bytes{}}
	}
	s.next[allocator] = base + uint64(step) + align // guard page keeps regions apart
	s.insert(r)
	if r.Shm != nil {
		s.data[base] = r.Shm.Data
	} else {
		s.data[base] = &Bytes{}
	}
	return engine.Buffer{Ptr: base, Size: size, Allocator: allocator}, nil
}

// PyAllocError is what Python sees when an allocation fails: the
// allocator's own exception, or nil when the failure is the caller's bug.
func PyAllocError(allocator string, err error) error {
	if pe, ok := engine.AsPyError(err); ok {
		return pe
	}
	if d, ok := engine.AsProcessDied(err); ok {
		return d // killed: Python sees nothing
	}
	var oom *OutOfMemory
	switch {
	case errors.As(err, &oom) && allocator == engine.AllocDefault:
		return &engine.PyError{Class: "RuntimeError", Message: TorchOOMText(oom.Size)}
	}
	switch allocator {
	case engine.AllocHugepage:
		// SGLang's mmap(MAP_HUGETLB) without a HugeTLB pool (real run).
		return &engine.PyError{Class: "OSError", Message: "[Errno 12] Cannot allocate memory"}
	case engine.AllocMooncakeShm:
		// ShmHelper::allocate throws std::runtime_error → RuntimeError.
		return &engine.PyError{Class: "RuntimeError", Message: "Failed to create anonymous shared memory (Check /proc/sys/vm/nr_hugepages?)"}
	}
	return nil
}

// TorchOOMText is torch.empty's RuntimeError when the host cannot back
// the pool (SGLang's default host pool is torch.empty; real torch in the
// SGLang 0.5.23 venv, 24 GiB host, no swap, 32 GiB: docs/REAL-FINDINGS.md).
func TorchOOMText(size int64) string {
	return fmt.Sprintf("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate %d bytes. Error code 12 (Cannot allocate memory)", size)
}

// ImportErrorText is Python's message for `from mooncake.store import
// MooncakeHostMemAllocator` on a wheel without it (Python ≥ 3.10 wording;
// the path is the wheel's store.so, normalised here).
const ImportErrorText = "cannot import name 'MooncakeHostMemAllocator' from 'mooncake.store' (/usr/local/lib/python3.10/dist-packages/mooncake/store.cpython-310-x86_64-linux-gnu.so)"

func (s *Space) insert(r Region) {
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].Base > r.Base })
	s.regions = append(s.regions, Region{})
	copy(s.regions[i+1:], s.regions[i:])
	s.regions[i] = r
}

// Find returns the region containing ptr.
func (s *Space) Find(ptr uint64) (Region, bool) {
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].Base > ptr }) - 1
	if i >= 0 && s.regions[i].Contains(ptr, 0) && ptr < s.regions[i].Base+uint64(s.regions[i].Size) {
		return s.regions[i], true
	}
	return Region{}, false
}

// FindShm returns the shm segment containing ptr (ShmHelper lookup).
func (s *Space) FindShm(ptr uint64) (*Shm, bool) {
	r, ok := s.Find(ptr)
	if !ok || r.Shm == nil {
		return nil, false
	}
	return r.Shm, true
}

// Free releases the region starting at ptr.
func (s *Space) Free(ptr uint64) error {
	for i, r := range s.regions {
		if r.Base == ptr {
			if r.Allocator == engine.AllocHugepage {
				s.hugeFree += roundUp(r.Size, hugeAlign)
			}
			s.regions = append(s.regions[:i], s.regions[i+1:]...)
			delete(s.data, ptr)
			return nil
		}
	}
	return fmt.Errorf("free %#x: not an allocation", ptr)
}

// Write stores data at ptr (inside an allocation).
func (s *Space) Write(ptr uint64, data []byte) error {
	r, ok := s.Find(ptr)
	if !ok || !r.Contains(ptr, int64(len(data))) {
		return fmt.Errorf("write %d bytes at %#x: not inside an allocation", len(data), ptr)
	}
	s.data[r.Base].Write(ptr-r.Base, data)
	return nil
}

// Read returns size bytes at ptr.
func (s *Space) Read(ptr uint64, size int64) ([]byte, error) {
	c, err := s.ReadContent(ptr, size)
	if err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

// WriteContent stores c at ptr (inside an allocation) without copying bytes.
func (s *Space) WriteContent(ptr uint64, c Content) error {
	r, ok := s.Find(ptr)
	if !ok || !r.Contains(ptr, c.Size) {
		return fmt.Errorf("write %d bytes at %#x: not inside an allocation", c.Size, ptr)
	}
	s.data[r.Base].WriteContent(ptr-r.Base, c)
	return nil
}

// ReadContent returns the content of size bytes at ptr.
func (s *Space) ReadContent(ptr uint64, size int64) (Content, error) {
	r, ok := s.Find(ptr)
	if !ok || !r.Contains(ptr, size) {
		return Content{}, fmt.Errorf("read %d bytes at %#x: not inside an allocation", size, ptr)
	}
	return s.data[r.Base].ReadContent(ptr-r.Base, size), nil
}

// Regions returns the allocations, by address.
func (s *Space) Regions() []Region { return append([]Region(nil), s.regions...) }

// MapShm maps another process's shm segment into this space (the real
// client's mmap of the dummy's memfd): a new address, the same bytes.
func (s *Space) MapShm(shm Shm) uint64 {
	base := s.next["shm-map"]
	r := Region{Base: base, Size: shm.Size, Allocator: "shm-map", Shm: &shm}
	s.next["shm-map"] = base + uint64(roundUp(shm.Size, align)) + align
	s.insert(r)
	s.data[base] = shm.Data
	return base
}
